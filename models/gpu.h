/* A GPU: a front end (command processor) serving in-order queues, and
 * compute units running work-groups in waves under an occupancy limit
 * (DESIGN.md Sec. 3 "GPU"; launch/teardown from GPU-TN Table 2, launch cost
 * against queue depth after GPU-TN Fig. 1).
 *
 * Port "bus" (0), joined to the node bus's "gpu" port. Receives PK_QUEUE_CMD
 * and PK_FLAG; sends PK_KERNEL_DONE, PK_HOST_REQUEST and PK_FLAG to the CPU,
 * PK_MEM_WRITE to host memory, PK_TRIGGER, PK_NIC_CMD and PK_DOORBELL to the
 * NIC (event kind = pmsg kind).
 *
 * Timing.
 * - PK_QUEUE_CMD {queue, a = qcmd index, b = the host step's execution
 *   index j (np_loops)} appends to queue `queue`. Its depth
 *   is fixed then: 1 + the commands of that queue not yet complete (the one
 *   being served included). Launch latency = par_table_eval(launch_table,
 *   depth), or launch_latency + launch_per_queued * (depth - 1) when the
 *   table is empty. queued_launch serial (default; GPU-TN Table 2): the
 *   launch begins when the command reaches its queue's head and the front
 *   end is free. overlap (CUDA streams: the front end prepares a queued
 *   kernel while the one before it runs): it ends at max(the command's
 *   arrival + its launch latency, the head's time + launch_gap), where
 *   the head's time is when the command before it completed (its teardown
 *   included) or the front end came free, whichever is later.
 * - One front end launches one kernel at a time, queues in the order their
 *   head kernel became ready. A queue serves its commands one at a time: a
 *   kernel occupies its queue from launch to the end of its teardown.
 * - After launch the kernel's WGs are dispatched, oldest kernel first, onto
 *   cus * wgs_per_cu slots shared by all kernels, at most cus * occ of one
 *   kernel at a time; a WG holds its slot until its last step ends. When the
 *   last WG ends: teardown_latency, then PK_KERNEL_DONE {a = kernel index}
 *   to the CPU and the queue moves on.
 * - Occupancy: occ = resident WGs per CU of a kernel = min(wgs_per_cu,
 *   items_per_cu / wg_items, regs_per_cu / (regs_per_item * wg_items),
 *   local_mem_per_cu / local_bytes_per_wg), at least 1 (gpu_occupancy).
 *   A kernel that sets no regs_per_item takes persistent_regs if it is
 *   persistent (sized to residency: cpufree, monolithic), else
 *   discrete_regs (0: no limit).
 * - KS_COMPUTE: `time` if > 0, else the larger of the flops time
 *   flops / (flops_per_cu_cycle * clock / occ) and the memory time, rounded
 *   up to ps. R = WGs sharing the memory: cus * occ (bw_share slots), or the
 *   WGs of the kernel's own wave when fewer (bw_share kernel: WG w is in
 *   wave w / (cus * occ); the last wave holds the rest: the tail; a step
 *   that only sel_count WGs perform: at most sel_count).
 *   Achieved bandwidth (Little's law with the loaded latency: a request
 *   waits its latency, then its turn at the peak rate), for class c, the
 *   two terms x = latency / bits in flight and y = 1 / peak joined as
 *   S_p(x, y) = (x^p + y^p)^(1/p), p the class's knee exponent at the
 *   level (knee_c, l2knee_c, l1knee_c; 1, the default, is the plain sum):
 *     1 / dram(R) = S_p(lat_c% mem_latency / (R wg_items item_bytes 8), 1 / (eff_c% mem_bandwidth))
 *     1 / l2(R)   = S_p(l2lat_c% l2_latency / (R wg_items item_bytes 8), 1 / (l2eff_c% l2_bandwidth))
 *   (latency-bound, linear in R, at low occupancy; saturating at the
 *   peak). The sum charges every request the whole queue ahead of it at
 *   any occupancy, so its turn to the peak is gradual; a larger p keeps a
 *   request at its unloaded latency until the requests in flight near the
 *   peak's share, the turn as sharp as max(x, y) as p grows. calibrate
 *   fits p with the stencil class's latency and peak per level (calib.h):
 *   on the H200 the persistent Jacobi loop's tiles alone turn sharper than
 *   the sum (1024^2: 9.85, 5.15, 3.22, 2.88 us at 1, 2, 4, 8 WGs a CU;
 *   on one round's L2 points, the loop less its barrier, the sum left rms
 *   11.9 %, p = 8.65 2.6 %: configs/hw/README.md, "The knee"). A stencil
 *   step of a kernel launched per phase (not persistent) takes the class
 *   slot KC_STENCIL_LAUNCHED (eff_, lat_, l2eff_, l2lat_, knee_,
 *   l2knee_stencil_launched) where eff_stencil_launched > 0, else the
 *   stencil's: calibrate fits it to the persistent loop's tiles alone (its
 *   kernel without the barrier), which the launched Jacobi kernel runs
 *   like (H200: its span less the empty kernel's 11.7 us at 2048^2 and
 *   64.0 at 4096^2, 8 WGs a CU, against the tiles alone's 11.2 and 62.9
 *   and the loop less its barrier, 11.8 and 50.4; the hw README's "A
 *   launched stencil"), while the persistent loop keeps the tighter of
 *   the two. The slot's flops and L1 are the stencil's (a launched kernel
 *   is never L1-resident). L2's
 *   capacity C: l2_bytes for a persistent kernel (its WGs stay on their CUs, their data in their half of a partitioned L2),
 *   l2_near_bytes (one half) for a kernel launched per phase, whose WGs
 *   land anywhere, so that each half caches its own copy of what they
 *   share (Hopper and Ampere's L2 partitions: on an H200 a pointer chase
 *   from one SM is at 145 ns up to 28 MiB and 262 ns beyond; streaming
 *   data that moves between WGs falls off L2 past ~30 MiB, data each WG
 *   keeps its own past ~48 MiB; 0: l2_bytes everywhere). L1 residency: a
 *   persistent kernel's step whose working set per CU (ws_bytes / cus)
 *   fits l1_resident_bytes runs at
 *     1 / l1(R) = l1lat_c% l1_latency / (R wg_items item_bytes 8) + 1 / (l1eff_c% l1_bandwidth):
 *   t = (bytes + reuse_bytes) * 8 * R / l1(R). Else if 0 < ws_bytes <= C
 *   every byte is served by L2: t = (bytes + reuse_bytes) * 8 * R / l2(R).
 *   Else h = min(1, l2_near_bytes (else l2_bytes) / gather_bytes) (0
 *   without L2; a gathered vector is read by every CU) of reuse_bytes come
 *   from L2, the rest and `bytes` from memory:
 *     t = (bytes + (1-h) reuse) * 8 * R / dram(R) + h reuse * 8 * R / l2(R).
 *   L1 (l1_bytes > 0; a row-per-thread CSR SpMV step: rows > 0, nnz > 0,
 *   8 B values and 4 B column indices, as the workloads' SpMV): each
 *   work-item walks its own row, so each warp load touches a line per
 *   thread, and a line brought in is reused by that thread's next steps
 *   only if it is still in L1. A work-item holds its row's current value
 *   line and index line, shared with its neighbours when rows are shorter
 *   than a line: fp = min(8 m, l1_line) + min(4 m, l1_line) bytes, m =
 *   nnz / rows. With res * wg_items work-items resident per CU, res =
 *   min(occ, ceil(R / cus)) (the WGs the step's wave puts on its busiest
 *   CU: a kernel of fewer WGs than cus * occ holds fewer a CU), the
 *   fraction that fits is hit = min(1, l1_bytes / (res wg_items fp)). A
 *   work-item visits its lines once per `visit` non-zeros: spmv_unroll
 *   (the compiler unrolls a plain row loop, its loads issued together),
 *   or 1 when x is read through gets (kstep.gets: nvshmem_double_g, whose
 *   out-of-line fallback the compiler must assume writes memory, so no
 *   load of the next non-zero moves above it). A missed visit re-reads a
 *   sector per line touched: (1 - hit) * (nnz / visit) * fp * l1_sector /
 *   l1_line bytes more, at l1_refill_bandwidth (else L2's peak; a
 *   throughput limit: on an H100 the SpMV with its matrix read through L2
 *   only ran no faster at 2048 threads per SM than at 1024):
 *     t += (1 - hit) (nnz / visit) fp (l1_sector / l1_line) * 8 * R / refill.
 *   Spill (l1_refill_mem_bytes > 0): a re-read comes from L2 only while L2
 *   still holds the line, and L2 holds the lines of every resident
 *   work-item on every CU, F = R wg_items fp bytes (R the WGs resident
 *   over the CUs, as above). Memory serves a share s of the re-reads:
 *     s = 0 for F <= l1_refill_l2_bytes, 1 for F >= l1_refill_mem_bytes,
 *     linear between (a step where the second is not above the first),
 *   at l1_refill_mem_bandwidth (else memory's achieved rate, dram(R)):
 *     t += s miss * 8 * R / mem_refill, the rest (1 - s) at refill.
 *   Measured on an H200 (configs/cpufree-ics23/spmv_launch.cu's
 *   residency sweep under Nsight Compute, the Queen-like get SpMV at 128
 *   to 2048 resident threads a SM): the re-reads' share of L2 misses, and
 *   the DRAM bytes beyond the 1024-thread kernel's at 64 B a missed 32-B
 *   sector, go 0.06-0.07, 0.18-0.25, 0.33-0.44, 0.48-0.59 at F = 43, 52,
 *   61, 69 MB: one line from 0.634 to 1.50 of its 60 MiB L2
 *   (configs/hw/README.md, "A row-per-thread SpMV's lines").
 *   L2 reuse (cold_bytes > 0): of a step whose working set fits L2, the
 *   bytes that the ops since their last use evicted come from memory at
 *   mem(R), the rest as above. A workload that knows its ops' buffers
 *   sets them (cg: workloads/kinds/cg.c, cg_cold): for a buffer b of op j
 *   last touched by op i (cyclic: the iteration repeats), both sweeping
 *   their buffers front to back, the line at fraction phi of b has
 *   D(phi) distinct bytes touched between its two uses: every buffer of
 *   the ops between, the buffers of both i and j (b too) whole, those
 *   of i alone (1 - phi) and of j alone phi; it is held with share
 *   h(D) = 1 up to l2_keep_bytes, 0 from l2_evict_bytes, linear between,
 *   and b's held share is h's mean over phi. Measured on an H200
 *   (tools/calib/probes/l2_keep.cu, configs/hw/README.md "Do a CG's
 *   vectors stay in L2 across its SpMV?"): two 16 MiB vectors stay with
 *   up to 8 MiB streamed between their uses and are gone from 24 MiB,
 *   8 MiB ones from 40 MiB, 4 MiB ones from 48 MiB: keep about 40 MiB,
 *   evict about 56 MiB of its 60 MB.
 *   Peer loads (peer_loads > 0, peer_load_latency > 0): 8 B loads of
 *   another GPU's memory (NVSHMEM's nvshmem_double_g over NVLink: a plain
 *   load through the peer mapping), each work-item keeping
 *   n = peer_loads_in_flight of them in flight (its row loop issues the
 *   next non-zeros' loads before the current one returns), so Little's
 *   law with peer_load_latency, up to peer_bandwidth at peer_load_bytes
 *   of the link a load (a random 8 B load moves its request and a sector
 *   of reply, not 8 B):
 *     1 / peer(R) = peer_load_latency / (R wg_items 64 n)
 *                   + (peer_load_bytes 8 / 64) / peer_bandwidth
 *     t += peer_loads * 64 * R / peer(R)
 *   Where the workload counts the link requests (peer_sectors > 0: a
 *   warp's lanes that read one 32-B sector at once make one request;
 *   the probe's random loads were a request each), the latency stays a
 *   load's and the link is paid a request:
 *     t += peer_loads * 64 * R * peer_load_latency / (R wg_items 64 n)
 *          + peer_sectors * peer_load_bytes * 8 * R / peer_bandwidth
 *   added to the local time (a work-item's loads, local and remote, are
 *   one after another). Measured on an H200 pair (tools/calib/probes/
 *   spmv_get.cu, configs/hw/README.md "A peer's x values in the SpMV's
 *   row loop"): a dependent peer load 857 ns, a remote non-zero of the
 *   study's row loop 0.59 - 0.71 us (n = 1.2 - 1.45), random peer loads
 *   capped at 8.78 G/s where coalesced ones give 368 GB/s (42 B a
 *   load). The defaults (8 B, 1) are the model before that measurement.
 *   Row chain (row_chain_latency > 0; the workload applies it, cg.c's
 *   spmv_stretch): one work-item's row loop through gets is a chain, each
 *   non-zero's loads (its column, then x at that column, then its value)
 *   waiting for the one before, so a work-item of nz non-zeros lasts
 *   nz * row_chain_latency (plain loads: / spmv_unroll, that many in
 *   flight), however idle the rest of the GPU is; it replaces the longest
 *   row's WG timed alone by Little's law (the same chain at the memory's
 *   throughput latencies: 350 ns a non-zero on the H200 profile, where
 *   the chain measures 221). Measured on an H200
 *   (configs/cpufree-ics23/spmv_launch.cu `chain`, configs/hw/README.md
 *   "A long row's chain"): one work-item walking rows of 256 - 8192
 *   non-zeros, x in L2, 221 - 231 ns a non-zero through emulated gets,
 *   63 - 65 ns through plain loads, linear in the row's length.
 *   Each WG pays wg_start before its first step (dispatch), + first_wave
 *   if it is in its kernel's first cus * occupancy WGs (they start cold).
 *   A kernel's end pays teardown_latency, + persistent_teardown if it is
 *   persistent (a persistent run's fixed cost beyond a discrete kernel's:
 *   calibrate measures it as the intercept of the persistent loop's time
 *   against its iterations; at the end, since a persistent kernel's store
 *   is seen from its launch without it on the H200).
 *   A launched kernel's step whose shared working set is past one half of
 *   a partitioned L2 (l2_near_bytes < ws_bytes <= l2_bytes) takes the
 *   half's share f = l2_near_bytes / ws_bytes of its bytes at l2(R) and
 *   the rest at dram(R).
 *   KC_REDUCE: the last WG that performs the step (the selector's last,
 *   else the kernel's last) also pays reduce_pass + reduce_load * ceil(its WGs /
 *   wg_items) (the second pass over
 *   the partials; gpu_reduce_last_wg).
 * - KS_WAIT_FLAG started at s continues at the first s + k*p (k >= 0) at
 *   or after the flag reaches the value; p = par_table_eval(poll_table,
 *   kernel's WGs), or poll_interval when the table is empty.
 * - KS_TRIGGER / KS_HOST_REQUEST / KS_NIC_CMD: fence_latency (none for
 *   an unfenced KS_NIC_CMD: a flag store ordering nothing), then the
 *   posted message leaves for the bus and the WG goes on at once.
 * - KS_BARRIER: B(n) = par_table_eval(barrier_table, n), or barrier_base
 *   + barrier_per_wg * n when the table is empty, is the barrier of n WGs
 *   arriving at once (what calibrate measures: a kernel of its own). Each
 *   WG's arrive is an atomic on one counter, served in turn, so a WG that
 *   arrives early has its arrive done while later ones still compute: a
 *   group arriving at t with c WGs before it makes the release no earlier
 *   than t + B(n_wgs - c) (the arrivals still to come, its own among them,
 *   as if at once), and all go on at the latest of these. Arriving at once
 *   this is B(n_wgs) after the last, as before; the last of k stragglers
 *   pays B(k) (H200, validate-real's persistent Jacobi loop against its
 *   tiles alone and the table: the loop is 0.1 - 0.9 us shorter than tiles
 *   + B(n_wgs) where the grid leaves WGs a tile short or idle; configs/hw/
 *   README.md). All WGs must fit at once (error).
 * - Q_WAIT_FLAG: the queue goes on stream_wait_latency after the later of
 *   reaching the command and the flag reaching value * (j + 1). Q_DOORBELL
 *   sends PK_DOORBELL {a = cmd_id + j * id_stride} to the NIC and moves on
 *   at once.
 * - Q_COPY_HOME (cudaMemcpyAsync device-to-host): once the queue reaches it
 *   (the command before it has completed), the copy engine starts for
 *   copy_start; then PK_MEM_WRITE {bytes} goes to host memory and PK_FLAG
 *   {flag, +1} to the CPU behind it through the bus (posted writes keep
 *   their order: the flag is seen once the data has landed), and the queue
 *   moves on.
 * - Q_MARK (the marker a stream synchronize waits for): once the queue
 *   reaches it (every command before it is done), PK_FLAG {flag, +1} goes
 *   to the CPU through the bus, as a kernel's completion record does, and
 *   the queue moves on at once.
 * - Loops (nodeprog.h, np_loops): every WG keeps its own stack of open
 *   KS_LOOPs (whatever only_wg / sel_*), at no cost and with no event; a
 *   step's execution index j (the host loops around its kernel's launch,
 *   pmsg.b, outermost, then the kernel's own loops) scales its wait
 *   (value * (j + 1)) and its
 *   trigger tag (+ j * tag_stride); parts count arrivals per execution,
 *   an entry living from a part's first arrival to its post.
 * - Events: a WG waiting on a flag makes no event until the flag's update
 *   (the tick it goes on at is computed then, not polled), and with
 *   gpu.aggregate (default) WGs that go on at the same instant share one
 *   event, run in the order their own events would have run: a wave, a
 *   flag's waiters, a persistent kernel's WGs move as one group; the
 *   simulated times are those of one event per WG (aggregate false).
 *   Aggregated, the WGs a kernel starts at one instant are also held as
 *   one group with a count (one slot record, one pass over the steps),
 *   split where their WGs would part (gpu.c "groups"): the work per event
 *   follows the groups, not the WGs. */
#ifndef MODELS_GPU_H
#define MODELS_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "nodeprog.h"
#include "param.h"
#include "proto.h"

/* Group "gpu": see gpu_params for units, defaults and ranges. */
/* The class slots of the per-class values: the user's classes (enum
 * kclass), then the stencil as a kernel launched per phase runs it (the
 * tiles without a grid barrier; "Achieved bandwidth" above). */
enum { KC_STENCIL_LAUNCHED = KC_COUNT, KC_SLOTS };

struct gpu_config {
  int64_t clock;               /* Hz */
  int64_t cus;
  int64_t wgs_per_cu;          /* occupancy limit: WG slots per CU */
  int64_t flops_per_cu_cycle;
  int64_t mem_bandwidth;       /* bits per second, shared by all slots */
  int64_t queues;              /* in-order queues (streams), <= 256 */
  sim_time launch_latency;
  sim_time launch_per_queued;
  struct par_table launch_table; /* launch latency against depth; empty: linear fit */
  int queued_launch;           /* enum gpu_queued_launch (PAR_ENUM) */
  sim_time launch_gap;         /* queued_launch overlap: the least gap after the command before */
  sim_time teardown_latency;
  sim_time persistent_teardown; /* + at a persistent kernel's end */
  sim_time fence_latency;
  sim_time poll_interval;
  sim_time stream_wait_latency;
  sim_time copy_start;          /* Q_COPY_HOME: the copy engine's start */
  sim_time barrier_base;
  sim_time barrier_per_wg;
  int bw_share;                /* enum gpu_bw_share (PAR_ENUM) */
  int64_t wg_items;            /* work-items per WG */
  int64_t items_per_cu;        /* resident work-items per CU */
  int64_t regs_per_cu;         /* 32-bit registers per CU */
  int64_t local_mem_per_cu;    /* bytes */
  sim_time mem_latency;        /* 0: memory never latency-bound */
  int64_t item_bytes;          /* bytes a work-item keeps in flight */
  int64_t l2_bytes;            /* 0: no L2 model */
  int64_t l2_bandwidth;        /* bits per second */
  sim_time l2_latency;
  int64_t eff[KC_SLOTS];       /* percent of mem_bandwidth's asymptote, per enum kclass */
  int64_t lat[KC_SLOTS];       /* percent of mem_latency, per enum kclass */
  int64_t l1_bytes;            /* L1 per CU usable as cache; 0: no L1 model */
  int64_t l1_line;             /* bytes */
  int64_t l1_sector;           /* bytes moved from L2 on a miss */
  int64_t spmv_unroll;         /* non-zeros per visit of a plain-load row loop */
  sim_time row_chain_latency;  /* a non-zero of one work-item's row loop through gets ("Row chain") */
  int64_t l1_refill_bandwidth; /* bps a missed L1 line is re-read at; 0: L2's peak */
  int64_t l1_refill_l2_bytes;  /* resident row lines over the CUs L2 still serves re-reads of */
  int64_t l1_refill_mem_bytes; /* ... from which memory serves them all; 0: never */
  int64_t l1_refill_mem_bandwidth; /* bps of the re-reads memory serves; 0: its achieved rate */
  int64_t persistent_regs;     /* registers per work-item of a persistent kernel; 0: none */
  int64_t discrete_regs;       /* same, of a kernel launched per phase */
  int64_t l2eff[KC_SLOTS];     /* percent of l2_bandwidth */
  int64_t l2lat[KC_SLOTS];     /* percent of l2_latency */
  int64_t feff[KC_SLOTS];      /* percent of the peak flops, per enum kclass */
  sim_time graph_launch; /* a graph node's launch by the front end */
  sim_time tile_sync;          /* a block-level sync in a fused kernel */
  int64_t l2_near_bytes;       /* one half of a partitioned L2; 0: no partition */
  int64_t l2_keep_bytes;       /* reuse distance up to which L2 still holds a line; 0: no reuse model */
  int64_t l2_evict_bytes;      /* ... from which it holds none (between: a share, linear) */
  int64_t l1_resident_bytes;   /* per CU: a persistent step's working set L1 keeps; 0: none */
  int64_t l1_bandwidth;        /* bits per second, the L1-resident level */
  sim_time l1_latency;
  int64_t l1eff[KC_SLOTS];     /* percent of l1_bandwidth */
  int64_t l1lat[KC_SLOTS];     /* percent of l1_latency */
  double knee[KC_SLOTS];       /* the knee exponent p at memory ("Achieved bandwidth"); <= 1: 1 */
  double l2knee[KC_SLOTS];     /* ... at L2 */
  double l1knee[KC_SLOTS];     /* ... at the L1-resident level */
  sim_time wg_start;           /* dispatch cost of each WG before its first step */
  sim_time first_wave;         /* + for the WGs of a kernel's first wave */
  sim_time peer_load_latency;  /* a load from a peer GPU's memory, round trip; 0: no model */
  int64_t peer_bandwidth;      /* bits per second of such loads into the GPU */
  int64_t peer_load_bytes;     /* bytes of peer_bandwidth one random 8 B load takes */
  double peer_loads_in_flight; /* peer loads a work-item keeps in flight (>= 1) */
  sim_time reduce_pass;
  sim_time reduce_load;        /* + per ceil(WGs / wg_items) partials a second-pass item adds */
  /* One atomic to an address every other WG's atomics also hit: the L2
   * serializes them (a workload's in-kernel dot product that adds one
   * partial per warp into one word: workloads/kinds/cg.c, code acg). 0: free. */
  sim_time atomic_same_address;
  struct par_table barrier_table; /* device-wide barrier cost against WGs; empty: linear */
  struct par_table poll_table;    /* flag poll period against the kernel's WGs; empty: poll_interval */
  bool aggregate;              /* WGs going on at one instant share an event (gpu.c) */
  /* A device-scope fence (__threadfence): the WG waits until its stores
   * are visible to every CU. Not used by this model's steps; the relax
   * model (models/relax.h) pays it per fenced update. */
  sim_time device_fence_latency;
  /* How long after an unfenced store another CU's load may still return
   * the old value (a stale line in that CU's L1 lives this long): the
   * relax model's visibility delay without the fence. 0: at once. */
  sim_time store_visibility;
};

/* How a WG's share of mem_bandwidth is counted: among all WG slots, or
 * among the WGs of its kernel when it has fewer (the kernel runs alone). */
enum gpu_bw_share { GPU_BW_SLOTS, GPU_BW_KERNEL };
enum gpu_queued_launch { GPU_QL_SERIAL, GPU_QL_OVERLAP };

extern const struct par_group gpu_params;
extern const struct sim_type gpu_type;

/* What a GPU reports at the end of a run, "node<i>.gpu.KEY": its declared
 * outputs (gpu_outs; `trigsim outputs gpu`), in the order it reports them;
 * GPU_OUT(NAME) is a checked handle (cpu.h's CPU_OUT). */
enum gpu_out {
  GPU_OUT_QUEUE_CMDS, GPU_OUT_KERNELS, GPU_OUT_KERNELS_LAUNCHED, GPU_OUT_WGS, GPU_OUT_SLOTS_MAX,
  GPU_OUT_TRIGGERS, GPU_OUT_HOST_REQUESTS, GPU_OUT_NIC_CMDS, GPU_OUT_DOORBELLS,
  GPU_OUT_FLAG_UPDATES, GPU_OUT_BARRIERS, GPU_OUT_STREAM_WAITS, GPU_OUT_LAUNCH_TIME,
  GPU_OUT_TEARDOWN_TIME, GPU_OUT_BARRIER_TIME, GPU_OUT_POLL_TIME, GPU_OUT_STREAM_WAIT_TIME,
  GPU_OUT_WG_TIME, GPU_OUT_WG_LAST_END, GPU_OUT_COUNT
};
extern const struct sim_out_decl gpu_outs[GPU_OUT_COUNT];
extern const struct sim_outputs gpu_outputs;
#define GPU_OUT(name) (&gpu_outs[GPU_OUT_##name])

/* Adds a GPU named NAME ("node3.gpu") for node NODE running PROG's kernels
 * and queue commands. CFG and PROG are borrowed and must outlive the run. */
struct sim_comp *gpu_add(struct sim_engine *e, const char *name, const struct gpu_config *cfg,
                         const struct nodeprog *prog, uint32_t node);

/* The WG of kernel K that pays reduce_pass at step ST: the last WG that
 * performs it (its selector's last, else the kernel's last; a persistent
 * kernel's communication WGs come after its compute grid and never run a
 * reduction); UINT32_MAX when ST is no reduction or one WG does it all. */
uint32_t gpu_reduce_last_wg(const struct kernel *k, const struct kstep *st);

/* Resident WGs per CU of kernel K under CFG (K NULL: no kernel limits). */
int64_t gpu_occupancy(const struct gpu_config *cfg, const struct kernel *k);

/* The levels a step's bytes come from (gpu_achieved_bps). */
enum gpu_level { GPU_DRAM, GPU_L2, GPU_L1 };

/* Achieved bandwidth in bits/s of class KCLASS at LEVEL with R WGs of
 * wg_items in flight, each keeping ITEM_BYTES (0: item_bytes) in flight
 * (the formula above). */
double gpu_achieved_bps(const struct gpu_config *cfg, uint64_t r, int level, int kclass,
                        int64_t item_bytes);
/* S_p(X, Y) = (X^p + Y^p)^(1/p) for X, Y >= 0 (X + Y where P <= 1): the
 * two terms of the achieved bandwidth's law joined at knee exponent P. */
double gpu_knee_sum(double x, double y, double p);

/* Duration of one KS_COMPUTE step under CFG (the bandwidth shared by all
 * cus * wgs_per_cu slots). */
sim_time gpu_compute_time(const struct gpu_config *cfg, const struct kstep *st);
/* Same, for WG WG of kernel K (waves, tails and occupancy as above). */
sim_time gpu_wg_time(const struct gpu_config *cfg, const struct kernel *k,
                     const struct kstep *st, uint32_t wg);
/* The share of a row-per-thread SpMV's L1 re-reads memory serves, R WGs
 * resident over the CUs, FP bytes of row lines a work-item (gpu.h "Spill"). */
double gpu_spill_share(const struct gpu_config *cfg, double fp, uint64_t r);
/* Same as gpu_wg_time, for a WG sharing memory with R WGs at occupancy OCC, in
 * a kernel launched per phase (not persistent: its WGs share L2 across the
 * halves). */
sim_time gpu_step_time(const struct gpu_config *cfg, const struct kstep *st, uint64_t r,
                       int64_t occ);

/* Device-wide barrier cost for N_WGS WGs, and the flag poll period. */
sim_time gpu_barrier_time(const struct gpu_config *cfg, uint32_t n_wgs);
sim_time gpu_poll_period(const struct gpu_config *cfg, uint32_t n_wgs);

/* Launch latency of a kernel enqueued at DEPTH (>= 1) under CFG. */
sim_time gpu_launch_time(const struct gpu_config *cfg, int64_t depth);

#endif
