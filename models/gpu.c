/* The GPU (see gpu.h): front end serving in-order queues, WGs in waves on
 * CU slots, flag polling, triggers, device-wide barriers. GPU-TN Table 2
 * and Fig. 1; DESIGN.md Sec. 3. */
#include "gpu.h"

#include <glib.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "phase.h"
#include "trace.h"

/* Self events; data = queue, or for EV_WG a batch (struct gpu_batch), or
 * LONE | slot for a batch of one slot struct (see "lone batches"). */
enum { EV_LAUNCH_DONE = 1, EV_WG, EV_TEARDOWN_DONE, EV_QUEUE_GO, EV_BARRIER_DONE };
#define LONE 0x80000000u
#define HELD_LONE (-2) /* gpu_wg.held: held alone, its place in reg_at/reg_seq */

/* What a queue's head command is doing. */
enum qphase {
  QP_IDLE,      /* nothing started (empty, or about to look at the head) */
  QP_READY,     /* head kernel waits for the front end */
  QP_LAUNCH,    /* the front end is launching it */
  QP_RUN,       /* its WGs run */
  QP_TEARDOWN,
  QP_FLAG,      /* Q_WAIT_FLAG: the flag is not there yet */
  QP_FLAG_SEEN, /* Q_WAIT_FLAG: paying stream_wait_latency */
  QP_COPY,      /* Q_COPY_HOME: the copy engine starting (copy_start) */
};

struct gpu_cmd {
  uint32_t qcmd;
  uint32_t depth; /* commands in the queue when it was appended, itself included */
  uint32_t j;     /* the submitting host step's execution index (np_loops) */
  sim_time arrive; /* when it was appended */
};

struct gpu_queue {
  struct gpu_cmd *cmds; /* ring */
  size_t cap, head, len;
  uint8_t phase;        /* enum qphase */
  const struct kernel *k;
  uint32_t kidx, next_wg, done_wgs, barrier_arrived;
  uint32_t launch_j;    /* the running kernel's launch: its execution index (np_loops) */
  uint32_t running, max_running; /* WGs holding slots; at most cus * occupancy */
  int32_t barrier_list; /* WG slots waiting at the barrier, -1 = none */
  sim_time barrier_due; /* the barrier's release as the arrivals so far have it (gpu.h) */
  uint64_t barrier_seq; /* its event's place, reserved by the arrival that set it */
  sim_time barrier_at;  /* the latest arrivals' instant */
  uint32_t barrier_before, barrier_wg; /* WGs arrived before it; the setting arrival's WG */
  sim_time barrier_seq_at; /* when that arrival came */
  bool group;           /* its WGs are dispatched as groups (see "groups") */
  int32_t flag_next;    /* next queue waiting on the same flag */
  sim_time t_phase;     /* when the current phase began */
  int track;
  const uint32_t *skip; /* the running kernel's skip runs (gpu_kinfo) */
  /* Of the running kernel, read by every WG event (no look at k itself). */
  const struct kstep *steps;
  uint32_t n_steps;
  uint32_t poll_ps;     /* gpu_poll_period for its WGs */
  /* A streamed kernel (nodeprog.seq): steps and n_steps unused (read
   * through k, which the source moves); the steps before `passed` are
   * behind every WG and given back. */
  bool streamed;
  uint32_t passed;
};

/* What launches read of a kernel, worked out at its first launch (at every
 * launch for a streamed program, whose kernel ids are reused). */
struct gpu_kinfo {
  uint32_t *skip; /* skip runs (skip_runs): where a WG that does not perform step i goes on */
  bool barrier;   /* it has a KS_BARRIER */
  bool parks;     /* kernel_parks */
};

/* A slot holds a group of n WGs (wg .. wg + n - 1) of one kernel in the
 * same state (see "groups"); n is 1 per WG (gpu.aggregate false, a trace,
 * a kernel whose WGs might end in their first run). */
struct gpu_wg { /* one cache line holds what a flag's update reads (asserted below) */
  _Alignas(64) int32_t queue; /* its kernel's queue; -1: free slot */
  uint32_t wg, step;
  uint32_t n;    /* WGs in the group, >= 1 */
  bool desc;     /* its WGs' own events would run them from the highest wg down */
  int32_t next;  /* next WG slot on a flag or barrier list */
  int32_t held;  /* on a flag list ahead of its wait: the held batch that resumes it
                    (see "held waits"), HELD_LONE: a lone one; -1: none */
  uint32_t poll_ps; /* on a flag list: its kernel's poll period (gpu_queue.poll_ps) */
  sim_time wait_start;
  uint64_t wait_value; /* KS_WAIT_FLAG: the value its flag must reach */
  sim_time reg_at; /* on a flag list: when it went on it (with reg_seq: its place) */
  uint64_t reg_seq;
  sim_time start;
  uint32_t depth; /* open loops */
  struct np_loop loop[NP_MAX_DEPTH];
  int track;
};

_Static_assert(offsetof(struct gpu_wg, reg_seq) + sizeof(uint64_t) <= 64,
               "a flag's update reads one line of a WG");

/* WGs that go on at the same time, in the order they would have if each
 * had its own event (see wg_schedule). */
struct gpu_batch {
  uint32_t *slots;
  uint32_t n, cap;
  sim_time at;     /* when it goes on */
  uint64_t seq;    /* its event's reserved sequence number (sim_reserve_seq) */
  bool pushed;     /* its event is in the queue */
  uint32_t held;   /* held (see "held waits"): members still on flag lists; 0: not held */
};

/* A flag word and who waits on it. */
struct gpu_flag {
  uint64_t value;
  int32_t wgs;    /* WG slots polling it (a list through gpu_wg.next), -1: none */
  int32_t queues; /* queues waiting on it (through gpu_queue.flag_next), -1: none */
};

struct gpu_state {
  const struct nodeprog *prog;
  uint32_t node;
  struct gpu_flag *flags; /* n_fwords (n_flags + 1, more as a streamed program's
                             grow): what a flag's update reads, in one place */
  uint32_t n_fwords;
  struct gpu_queue *q;
  uint32_t n_q;
  struct gpu_wg *wg;
  uint32_t n_slots;
  int32_t *free_slots;  /* stack of unused slot structs; the lowest on top at start */
  uint32_t n_free;
  uint32_t units_free;  /* WG places free (a group of n takes n, and one struct) */
  uint32_t *pend, n_pend; /* groups split off, to run next, latest on top ("groups") */
  uint32_t *fe, fe_head, fe_len; /* queues waiting for the front end (ring of n_q) */
  bool fe_busy;
  uint32_t *disp, disp_head, disp_len; /* queues with WGs to dispatch, oldest first */
  /* Statistics. */
  uint64_t cmds, kernels_launched, kernels_done, wgs_done, triggers, host_requests, nic_cmds;
  uint64_t doorbells, flag_updates, barriers, stream_waits;
  sim_time launch_time, teardown_time, barrier_time, poll_time, stream_wait_time, wg_time;
  sim_time wg_last_end; /* when the latest WG ended its last step; -1 before */
  GHashTable *arrivals; /* struct gpu_part -> itself: parts with WGs arrived, not yet posted */
  struct gpu_batch *batch; /* n_batch of them; pending ones hold the WGs of one EV_WG */
  uint32_t n_batch;
  uint32_t *batch_free, n_batch_free; /* indices of unused batches (stack) */
  int64_t open_batch;      /* the batch wg_schedule may still add to; -1: none */
  sim_time open_at;        /* when it goes on */
  uint32_t slots_max;
  /* The last WG compute time worked out (wg_compute_time): step memo_st of
   * kernel memo_k takes memo_t for WGs memo_first .. memo_end - 1. */
  const struct kernel *memo_k;
  const struct kstep *memo_st;
  struct gpu_kinfo *kinfo; /* per kernel of prog, NULL until launched (skip NULL) */
  size_t n_kinfo;
  uint32_t memo_first, memo_end;
  sim_time memo_t;
};

#define PAR_CONFIG struct gpu_config
#define PE(name, cls, doc)                                                                     \
  {"eff_" #name, PAR_INT, "100", "1", "1000", NULL,                                             \
   doc "'s share of mem_bandwidth, percent", offsetof(struct gpu_config, eff[cls])},           \
  {"lat_" #name, PAR_INT, "100", "1", "100000", NULL,                                           \
   doc "'s memory latency, percent of mem_latency", offsetof(struct gpu_config, lat[cls])},     \
  {"l2eff_" #name, PAR_INT, "100", "1", "1000", NULL,                                           \
   doc "'s share of l2_bandwidth, percent", offsetof(struct gpu_config, l2eff[cls])},          \
  {"l2lat_" #name, PAR_INT, "100", "1", "100000", NULL,                                         \
   doc "'s L2 latency, percent of l2_latency", offsetof(struct gpu_config, l2lat[cls])},       \
  {"feff_" #name, PAR_INT, "100", "1", "1000", NULL,                                            \
   doc "'s share of the peak flops (flops_per_cu_cycle), percent; over 100 where the class "    \
   "reaches units the peak leaves out (tensor cores)", offsetof(struct gpu_config, feff[cls])}, \
  {"l1eff_" #name, PAR_INT, "100", "1", "1000", NULL,                                           \
   doc "'s share of l1_bandwidth when L1-resident, percent",                                   \
   offsetof(struct gpu_config, l1eff[cls])},                                                    \
  {"l1lat_" #name, PAR_INT, "100", "1", "100000", NULL,                                         \
   doc "'s L1 latency when L1-resident, percent of l1_latency",                                \
   offsetof(struct gpu_config, l1lat[cls])},                                                    \
  {"knee_" #name, PAR_FLOAT, "1", "1", "64", NULL,                                              \
   doc "'s knee exponent p at memory: 1/bw = ((latency / bits in flight)^p + "                  \
   "(1 / bandwidth)^p)^(1/p); 1: the sum, larger: a sharper turn to the peak (gpu.h)",          \
   offsetof(struct gpu_config, knee[cls])},                                                     \
  {"l2knee_" #name, PAR_FLOAT, "1", "1", "64", NULL,                                            \
   doc "'s knee exponent p at L2 (as knee_ at memory)", offsetof(struct gpu_config, l2knee[cls])}, \
  {"l1knee_" #name, PAR_FLOAT, "1", "1", "64", NULL,                                            \
   doc "'s knee exponent p when L1-resident (as knee_ at memory)",                             \
   offsetof(struct gpu_config, l1knee[cls])}
static const struct par_decl gpu_decls[] = {
    PAR(clock, PAR_FREQ, "1GHz", "1MHz", "100GHz", "core clock (GPU-TN Table 2)"),
    PAR(cus, PAR_INT, "24", "1", "4096", "compute units (GPU-TN Table 2)"),
    PAR(wgs_per_cu, PAR_INT, "4", "1", "64",
      "occupancy limit: WGs resident per CU (256-item WGs, GCN: 40 waves/CU, register-bound ~4)"),
    PAR(flops_per_cu_cycle, PAR_INT, "128", "1", "1048576",
      "peak flops per CU per cycle (64 lanes x FMA, GCN)"),
    PAR(mem_bandwidth, PAR_BANDWIDTH, "1092Gbps", "1Mbps", "1000Tbps",
      "memory bandwidth shared by all WG slots (8 channels DDR4-2133, Table 2: 136.5 GB/s)"),
    PAR(queues, PAR_INT, "4", "1", "256", "in-order queues (streams) served by the front end"),
    PAR(launch_latency, PAR_TIME, "1.5us", "0ps", "1s",
      "kernel launch latency at queue depth 1 (GPU-TN Table 2)"),
    PAR(launch_per_queued, PAR_TIME, "0ps", "0ps", "1s",
      "added launch latency per command ahead in the same queue at enqueue (linear fit of "
      "GPU-TN Fig. 1; 0 = the paper's flat 1.5us)"),
    {"launch_table", PAR_TABLE, "", "0ps", "1s", NULL,
     "launch latency against queue depth (commands in the queue at enqueue, itself included), "
     "e.g. \"1:3us, 8:10us\"; empty: use the linear fit",
     offsetof(struct gpu_config, launch_table)},
    {"queued_launch", PAR_ENUM, "serial", NULL, NULL, "serial|overlap",
     "a queued kernel's launch: begun when it reaches its queue's head (serial: GPU-TN Table 2), "
     "or prepared while the command before it runs, so that it starts launch_gap after that one "
     "completes or its own launch latency after it arrived, whichever is later (overlap: CUDA "
     "streams, tools/calib/probes/queued_gap.cu)",
     offsetof(struct gpu_config, queued_launch)},
    PAR(launch_gap, PAR_TIME, "0ps", "0ps", "1s",
      "queued_launch overlap: the least time from the completion of a queue's command to the "
      "start of the kernel queued behind it (the front end's gap)"),
    PAR(teardown_latency, PAR_TIME, "1.5us", "0ps", "1s",
      "kernel teardown latency: last WG end to completion (GPU-TN Table 2)"),
    PAR(persistent_teardown, PAR_TIME, "0ps", "0ps", "1ms",
      "added to teardown_latency for a persistent kernel (cpufree, monolithic): a persistent "
      "run's fixed cost beyond a discrete kernel's (calibrate: the persistent Jacobi loop's time "
      "at 50 iterations less 50 x its slope to 500, less the model's, median; at its end: a "
      "kernel's store is seen from its launch without it)"),
    PAR(graph_launch, PAR_TIME, "740ns", "0ps", "1ms",
      "per kernel of a captured graph replayed by the GPU (cudaGraphLaunch): the front end's "
      "launch of a node after the node before it ends, no teardown before the replay's last "
      "(cpu.launch graph; an H200 measures 0.74 us a one-block kernel, one more in a chain of "
      "64 to 512: calib28's CUDA probe, tools/calib/graph_probe.cu, configs/fused/hw.yaml)"),
    PAR(tile_sync, PAR_TIME, "50ns", "0ps", "1ms",
      "a block-level sync (__syncthreads, a tiled_partition's sync) in a fused kernel: a tile "
      "sync between steps whose dependency stays in a block, and each extra tree level of a "
      "reduction run at a larger block than its own (estimate)"),
    PAR(fence_latency, PAR_TIME, "200ns", "0ps", "1ms",
      "system-scope release fence before a posted store (L2 write-back, ~150 L2 cycles, Table 2)"),
    PAR(poll_interval, PAR_TIME, "100ns", "0ps", "1ms",
      "period of a WG's system-scope flag poll (one uncached load round trip)"),
    PAR(stream_wait_latency, PAR_TIME, "1us", "0ps", "1ms",
      "a queue's wait-on-flag notices the flag this long after it is set (front-end poll)"),
    PAR(copy_start, PAR_TIME, "2500ns", "0ps", "1ms",
      "a device-to-host copy on a queue (cudaMemcpyAsync): from the command before it "
      "completing to its data leaving for the bus (the copy engine's start; H100, CUDA 13: an "
      "8 B copy adds 2.5 us to a kernel + stream sync, configs/cpufree-ics23/copy_home.cu)"),
    PAR(barrier_base, PAR_TIME, "1us", "0ps", "1ms",
      "device-wide barrier fixed cost after the last WG arrives (grid sync ~1-3us)"),
    PAR(barrier_per_wg, PAR_TIME, "10ns", "0ps", "1ms",
      "device-wide barrier cost per WG of the kernel (one atomic arrive each)"),
    {"bw_share", PAR_ENUM, "slots", NULL, NULL, "slots|kernel",
     "a WG's share of mem_bandwidth: 1/(cus*wgs_per_cu), or 1/(its kernel's WGs) when that "
     "kernel has fewer (it runs alone and its WGs saturate memory)",
     offsetof(struct gpu_config, bw_share)},
    PAR(wg_items, PAR_INT, "256", "1", "4096", "work-items per WG (256: the workloads' tiles)"),
    PAR(items_per_cu, PAR_INT, "2560", "1", "1048576",
      "resident work-items per CU (occupancy limit; GCN: 40 waves x 64)"),
    PAR(regs_per_cu, PAR_INT, "0", "0", "16777216",
      "32-bit registers per CU for a kernel's regs_per_item (0: no register limit)"),
    PAR(local_mem_per_cu, PAR_SIZE, "0B", "0B", "1GiB",
      "local (shared) memory per CU for a kernel's local_bytes_per_wg (0: no limit)"),
    PAR(mem_latency, PAR_TIME, "0ps", "0ps", "1ms",
      "memory latency in Little's law: achieved bandwidth = bytes in flight / mem_latency, up "
      "to mem_bandwidth (0: always the peak)"),
    PAR(item_bytes, PAR_SIZE, "4B", "1B", "1MiB",
      "bytes one work-item keeps in flight (one 4-byte load)"),
    PAR(l2_bytes, PAR_SIZE, "0B", "0B", "1TiB",
      "L2 capacity: a working set that fits runs at L2 rate (0: no L2 model)"),
    PAR(l2_bandwidth, PAR_BANDWIDTH, "1000Tbps", "1Mbps", "10000Tbps", "L2 peak bandwidth"),
    PAR(l2_latency, PAR_TIME, "0ps", "0ps", "1ms", "L2 latency in Little's law (0: the peak)"),
    PAR(l2_near_bytes, PAR_SIZE, "0B", "0B", "1TiB",
      "one half of a partitioned L2 (Hopper, Ampere: each half caches what its SMs read): the "
      "capacity for data a launched kernel's WGs share across the halves, and for a gathered "
      "vector; a persistent kernel's WGs keep their data on their half and get l2_bytes "
      "(gpu.h; 0: no partition)"),
    PAR(l2_keep_bytes, PAR_SIZE, "0B", "0B", "1TiB",
      "the distinct bytes touched since a line's last use up to which L2 still holds it, for "
      "the workloads that know their ops' buffers (cg: gpu.h \"L2 reuse\"; 0: a step's bytes "
      "come from L2 whenever its working set fits)"),
    PAR(l2_evict_bytes, PAR_SIZE, "0B", "0B", "1TiB",
      "the same distance from which L2 holds none of it; between the two a share, linear "
      "(an H200: 40 MiB and 56 MiB, configs/hw/README.md; 0: as l2_keep_bytes)"),
    PAR(l1_resident_bytes, PAR_SIZE, "0B", "0B", "1GiB",
      "per CU: a persistent kernel's step whose working set over the CUs fits stays in L1 "
      "across its iterations and runs at the L1 level's rate (gpu.h; 0: none)"),
    PAR(l1_bandwidth, PAR_BANDWIDTH, "1000Tbps", "1Mbps", "10000Tbps",
      "the L1-resident level's peak, all CUs"),
    PAR(l1_latency, PAR_TIME, "0ps", "0ps", "1ms",
      "the L1-resident level's latency in Little's law (0: the peak)"),
    PAR(l1_bytes, PAR_SIZE, "0B", "0B", "1GiB",
      "L1 per CU usable as cache by a row-per-thread SpMV (gpu.h; 0: no L1 model)"),
    PAR(l1_line, PAR_SIZE, "128B", "1B", "1MiB", "L1 line (allocation unit)"),
    PAR(l1_sector, PAR_SIZE, "32B", "1B", "1MiB", "bytes an L1 miss moves from L2 per line touched"),
    PAR(l1_refill_bandwidth, PAR_BANDWIDTH, "0bps", "0bps", "10000Tbps",
      "rate at which a row-per-thread SpMV's missed L1 lines are re-read (0: L2's peak, l2eff)"),
    PAR(l1_refill_l2_bytes, PAR_SIZE, "0B", "0B", "1TiB",
      "the resident work-items' row lines, over all CUs, up to which L2 still serves every "
      "re-read of a missed L1 line (gpu.h \"Spill\")"),
    PAR(l1_refill_mem_bytes, PAR_SIZE, "0B", "0B", "1TiB",
      "the same lines' bytes from which memory serves every re-read; between the two a share "
      "growing linearly (gpu.h \"Spill\"; 0: L2 serves them all)"),
    PAR(l1_refill_mem_bandwidth, PAR_BANDWIDTH, "0bps", "0bps", "10000Tbps",
      "rate at which re-reads that L2 no longer holds come from memory (0: memory's achieved "
      "rate for the class)"),
    PAR(spmv_unroll, PAR_INT, "1", "1", "64",
      "non-zeros a row-per-thread SpMV work-item reads per visit to its lines with plain loads (the "
      "compiler's unroll of the row loop); a row read through gets visits one at a time (gpu.h)"),
    PAR(row_chain_latency, PAR_TIME, "0ps", "0ps", "1ms",
      "a non-zero of one row-per-thread SpMV work-item's row loop through gets, alone: its "
      "dependent loads one after another, in place of its WG's time alone by Little's law (gpu.h "
      "\"Row chain\"; plain loads: / spmv_unroll; 0: that time)"),
    PAR(persistent_regs, PAR_INT, "0", "0", "65536",
      "registers per work-item of a persistent kernel (cpufree, monolithic), for occupancy (0: no "
      "limit)"),
    PAR(discrete_regs, PAR_INT, "0", "0", "65536",
      "registers per work-item of a kernel launched per phase, for occupancy (0: no limit)"),
    PE(stream, KC_STREAM, "a streaming kernel (class stream)"),
    PE(stencil, KC_STENCIL, "a stencil kernel (class stencil)"),
    PE(spmv, KC_SPMV, "an SpMV kernel (class spmv)"),
    PE(reduce, KC_REDUCE, "a dot product / reduction (class reduce)"),
    PE(axpy, KC_AXPY, "an AXPY-like update (class axpy)"),
    PE(gemm, KC_GEMM, "generated dense linear algebra (class gemm: GEMM/GEMV loops without a library)"),
    PE(library, KC_LIBRARY, "a vendor library's BLAS call (class library: cuBLAS GEMM/GEMV/dot)"),
    /* A launched stencil's slot: memory and L2 only (a launched kernel is
     * never L1-resident; its flops are the stencil's). */
#define PL(key, field, type, def, min, max, doc) \
  {key, type, def, min, max, NULL, doc, offsetof(struct gpu_config, field[KC_STENCIL_LAUNCHED])}
    PL("eff_stencil_launched", eff, PAR_INT, "0", "0", "1000",
       "a stencil kernel launched per phase (its tiles without a grid barrier): share of "
       "mem_bandwidth, percent (0: such a kernel runs as the stencil class and the other "
       "*_stencil_launched values are unused; calibrate fits them to the persistent loop's "
       "tiles alone: gpu.h)"),
    PL("lat_stencil_launched", lat, PAR_INT, "100", "1", "100000",
       "the same kernel's memory latency, percent of mem_latency"),
    PL("l2eff_stencil_launched", l2eff, PAR_INT, "100", "1", "1000",
       "the same kernel's share of l2_bandwidth, percent"),
    PL("l2lat_stencil_launched", l2lat, PAR_INT, "100", "1", "100000",
       "the same kernel's L2 latency, percent of l2_latency"),
    PL("knee_stencil_launched", knee, PAR_FLOAT, "1", "1", "64",
       "the same kernel's knee exponent p at memory (as knee_stencil)"),
    PL("l2knee_stencil_launched", l2knee, PAR_FLOAT, "1", "1", "64",
       "the same kernel's knee exponent p at L2 (as l2knee_stencil)"),
#undef PL
    PAR(first_wave, PAR_TIME, "0ps", "0ps", "1ms",
      "added to wg_start for the WGs of a kernel's first wave (those it dispatches at "
      "once): they start cold, later waves overlap their start with the wave before "
      "(calibrate: one-wave Jacobi kernels' span beyond an empty kernel's and the model's compute)"),
    PAR(wg_start, PAR_TIME, "0ps", "0ps", "1ms",
      "dispatch cost of each WG before its first step (block launch: a cost per wave)"),
    PAR(peer_load_latency, PAR_TIME, "0ps", "0ps", "1ms",
      "a blocking load of a peer GPU's memory (nvshmem_double_g over NVLink), request to data "
      "(0: peer loads cost nothing beyond a local load)"),
    PAR(peer_bandwidth, PAR_BANDWIDTH, "1000Tbps", "1Mbps", "10000Tbps",
      "peak rate of peer loads into one GPU (its NVLink ingress)"),
    PAR(peer_load_bytes, PAR_SIZE, "8B", "1B", "1MiB",
      "bytes of peer_bandwidth one random 8 B peer load takes (its request and the sector "
      "of the reply; 8 B: the value alone; an H200 pair: 42 B, gpu.h)"),
    PAR(peer_loads_in_flight, PAR_FLOAT, "1", "1", "64",
      "peer loads a work-item's row loop keeps in flight (the next non-zeros' loads issued "
      "before the current one returns; 1: one after another; an H200 pair: 1.2 - 1.45, gpu.h)"),
    PAR(aggregate, PAR_BOOL, "true", NULL, NULL,
      "WGs that go on at the same instant share one event, run one after another in the order "
      "their own events would have, and a batch that would only begin flag waits is held until "
      "a flag needs it (same simulated times); false: one event per WG (to check)"),
    PAR(reduce_load, PAR_TIME, "0ps", "0ps", "1ms",
      "a reduction's second pass: per partial each work-item of the last WG loads and adds, "
      "one after another (ceil(WGs / wg_items) of them; calibrate: the dot's span with its "
      "second pass - without, over them)"),
    PAR(reduce_pass, PAR_TIME, "0ps", "0ps", "1ms",
      "a reduction's second pass over the per-WG partials, paid by the last WG that runs it"),
    PAR(atomic_same_address, PAR_TIME, "0ps", "0ps", "1ms",
      "one atomic add to a word that every warp of the grid adds to (L2-serialized); a dot "
      "product that adds one partial per warp pays warps x this (0: free)"),
    {"barrier_table", PAR_TABLE, "", "0ps", "1ms", NULL,
     "device-wide barrier cost against the kernel's WG count, e.g. \"132:2us, 1056:6us\" "
     "(linear between points); empty: barrier_base + barrier_per_wg * WGs",
     offsetof(struct gpu_config, barrier_table)},
    {"poll_table", PAR_TABLE, "", "0ps", "1ms", NULL,
     "a WG's flag poll period against the kernel's WG count; empty: poll_interval",
     offsetof(struct gpu_config, poll_table)},
    PAR(device_fence_latency, PAR_TIME, "100ns", "0ps", "1ms",
      "a device-scope fence (__threadfence): stores drained to L2, visible to every CU (~an L2 "
      "round trip; relax model only)"),
    PAR(store_visibility, PAR_TIME, "0ps", "0ps", "1s",
      "how long another CU may still load the old value of an unfenced store (a stale L1 line's "
      "lifetime; relax model only; 0: at once)"),
};
#undef PAR_CONFIG
#undef PE

const struct par_group gpu_params = {
    .name = "gpu",
    .doc = "GPU: front end with in-order queues, CUs running WGs in waves",
    .decls = gpu_decls,
    .n_decls = PAR_COUNT(gpu_decls),
    .config_size = sizeof(struct gpu_config),
};

static const char *const gpu_ports[] = {"bus"};

/* ---- helpers ---- */

static sim_time ceil_div_ps(unsigned __int128 num, unsigned __int128 den) {
  return (sim_time)((num + den - 1) / den);
}

uint32_t gpu_reduce_last_wg(const struct kernel *k, const struct kstep *st) {
  if (st->kclass != KC_REDUCE) return UINT32_MAX;
  if (st->only_wg > 0) return UINT32_MAX; /* one WG: no partials to combine */
  if (st->sel_count > 0) {
    if (st->sel_count < 2) return UINT32_MAX;
    uint64_t last = st->sel_first + (uint64_t)(st->sel_count - 1) * (st->sel_stride ? st->sel_stride : 1);
    return last < k->n_wgs ? (uint32_t)last : UINT32_MAX;
  }
  return k->n_wgs > 1 ? k->n_wgs - 1 : UINT32_MAX;
}

int64_t gpu_occupancy(const struct gpu_config *cfg, const struct kernel *k) {
  int64_t occ = cfg->wgs_per_cu, items = cfg->wg_items > 0 ? cfg->wg_items : 1;
  if (cfg->items_per_cu > 0) occ = MIN(occ, cfg->items_per_cu / items);
  int64_t regs = !k ? 0
                 : k->regs_per_item > 0 ? k->regs_per_item
                 : k->persistent       ? cfg->persistent_regs
                                       : cfg->discrete_regs;
  if (regs > 0 && cfg->regs_per_cu > 0) occ = MIN(occ, cfg->regs_per_cu / (regs * items));
  if (k && k->local_bytes_per_wg > 0 && cfg->local_mem_per_cu > 0)
    occ = MIN(occ, cfg->local_mem_per_cu / (int64_t)k->local_bytes_per_wg);
  return occ >= 1 ? occ : 1;
}

double gpu_achieved_bps(const struct gpu_config *cfg, uint64_t r, int level, int kclass,
                        int64_t item_bytes) {
  int c = kclass >= 0 && kclass < KC_SLOTS ? kclass : KC_STREAM;
  double peak, lat, p;
  if (level == GPU_L1) {
    peak = (double)cfg->l1_bandwidth * (double)cfg->l1eff[c] / 100.0;
    lat = (double)cfg->l1_latency * (double)cfg->l1lat[c] / 100.0 / (double)SIM_S;
    p = cfg->l1knee[c];
  } else if (level == GPU_L2) {
    peak = (double)cfg->l2_bandwidth * (double)cfg->l2eff[c] / 100.0;
    lat = (double)cfg->l2_latency * (double)cfg->l2lat[c] / 100.0 / (double)SIM_S;
    p = cfg->l2knee[c];
  } else {
    peak = (double)cfg->mem_bandwidth * (double)cfg->eff[c] / 100.0;
    lat = (double)cfg->mem_latency * (double)cfg->lat[c] / 100.0 / (double)SIM_S;
    p = cfg->knee[c];
  }
  double ib = (double)(item_bytes > 0 ? item_bytes : cfg->item_bytes);
  double inflight_bits = (double)r * (double)cfg->wg_items * ib * 8.0;
  return 1.0 / gpu_knee_sum(lat / inflight_bits, 1.0 / peak, p);
}

double gpu_knee_sum(double x, double y, double p) {
  if (!(p > 1)) return x + y;
  double m = fmax(x, y); /* scaled, so that a large p does not underflow */
  if (!(m > 0)) return 0;
  return m * pow(pow(x / m, p) + pow(y / m, p), 1.0 / p);
}

/* Picoseconds to move BITS at BPS, shared by R WGs (each gets BPS / R). */
static double share_ps(double bits, uint64_t r, double bps) {
  return bits * (double)r * (double)SIM_S / bps;
}

/* The bytes of its row lines a work-item of a row-per-thread SpMV step
 * holds (gpu.h "L1"); 0 without the L1 model or rows. */
static double l1_footprint(const struct gpu_config *cfg, const struct kstep *st) {
  if (cfg->l1_bytes <= 0 || st->kclass != KC_SPMV || st->rows <= 0 || st->nnz <= 0) return 0;
  double m = (double)st->nnz / (double)st->rows, line = (double)cfg->l1_line;
  return fmin(8.0 * m, line) + fmin(4.0 * m, line);
}

/* Bytes a row-per-thread SpMV step re-reads because its rows' lines left
 * L1 (gpu.h "L1"), work-items holding FP bytes each, RES WGs a CU. */
static double l1_miss_bytes(const struct gpu_config *cfg, const struct kstep *st, double fp,
                            int64_t res) {
  if (fp <= 0) return 0;
  double hit = fmin(1.0, (double)cfg->l1_bytes / ((double)res * (double)cfg->wg_items * fp));
  double visit = st->gets ? 1.0 : (double)cfg->spmv_unroll; /* non-zeros per visit */
  return (1.0 - hit) * (double)st->nnz / visit * fp * (double)cfg->l1_sector / (double)cfg->l1_line;
}

/* The share of those re-reads that memory serves, R WGs resident over the
 * CUs each holding FP bytes a work-item (gpu.h "Spill"). */
double gpu_spill_share(const struct gpu_config *cfg, double fp, uint64_t r) {
  if (cfg->l1_refill_mem_bytes <= 0 || fp <= 0) return 0;
  double f = (double)r * (double)cfg->wg_items * fp;
  double lo = (double)cfg->l1_refill_l2_bytes, hi = (double)cfg->l1_refill_mem_bytes;
  if (f <= lo) return 0;
  if (f >= hi) return 1;
  return (f - lo) / (hi - lo);
}

/* A step's blocking loads of peer GPUs' memory, R WGs in flight (gpu.h
 * "Peer loads"); 0 without them or the model. */
static sim_time peer_time(const struct gpu_config *cfg, const struct kstep *st, uint64_t r) {
  if (st->peer_loads <= 0 || cfg->peer_load_latency <= 0) return 0;
  /* bps counts 64 bits a load: the link takes peer_load_bytes of its
   * rate for each (64 / 64 = 1 at the default 8 B; a config built
   * without the declarations' defaults has 0s: 8 B and 1 in flight) */
  double n = cfg->peer_loads_in_flight > 0 ? cfg->peer_loads_in_flight : 1.0;
  double pb = cfg->peer_load_bytes > 0 ? (double)cfg->peer_load_bytes : 8.0;
  double inflight_bits = (double)r * (double)cfg->wg_items * 64.0 * n;
  if (st->peer_sectors > 0) { /* the latency a load, the link a request (gpu.h) */
    double lat = share_ps((double)st->peer_loads * 64.0, r,
                          inflight_bits * (double)SIM_S / (double)cfg->peer_load_latency);
    double link = share_ps((double)st->peer_sectors * pb * 8.0, r, (double)cfg->peer_bandwidth);
    return (sim_time)ceil(lat + link - 1e-6);
  }
  double bps = 1.0 / ((double)cfg->peer_load_latency / (double)SIM_S / inflight_bits +
                      pb * 8.0 / 64.0 / (double)cfg->peer_bandwidth);
  return (sim_time)ceil(share_ps((double)st->peer_loads * 64.0, r, bps) - 1e-6);
}

static sim_time step_time(const struct gpu_config *cfg, const struct kstep *st, uint64_t r,
                          int64_t occ, bool persistent);

sim_time gpu_step_time(const struct gpu_config *cfg, const struct kstep *st, uint64_t r,
                       int64_t occ) {
  return step_time(cfg, st, r, occ, false);
}

/* L2's capacity for data a kernel's WGs share across the halves (a
 * launched kernel's, a gathered vector). */
static int64_t l2_shared_bytes(const struct gpu_config *cfg) {
  return cfg->l2_near_bytes > 0 && cfg->l2_near_bytes < cfg->l2_bytes ? cfg->l2_near_bytes
                                                                         : cfg->l2_bytes;
}

static sim_time step_time(const struct gpu_config *cfg, const struct kstep *st, uint64_t r,
                          int64_t occ, bool persistent) {
  if (st->time > 0) return st->time;
  if (r < 1) r = 1;
  sim_time t = 0;
  if (st->flops > 0) {
    int fc = st->kclass < KC_COUNT ? st->kclass : KC_STREAM;
    /* A config built without the declarations' defaults (feff 0) is at the peak. */
    uint64_t feff = cfg->feff[fc] > 0 ? (uint64_t)cfg->feff[fc] : 100u;
    unsigned __int128 num = (unsigned __int128)st->flops * (uint64_t)occ * SIM_S * 100u;
    t = ceil_div_ps(num, (unsigned __int128)cfg->flops_per_cu_cycle * (uint64_t)cfg->clock * feff);
  }
  if (st->bytes > 0 || st->reuse_bytes > 0) {
    int kc = st->kclass < KC_COUNT ? st->kclass : KC_STREAM;
    if (kc == KC_STENCIL && !persistent && cfg->eff[KC_STENCIL_LAUNCHED] > 0)
      kc = KC_STENCIL_LAUNCHED; /* its tiles run as without a grid barrier (gpu.h) */
    int64_t ib = st->item_bytes;
    double bytes = (double)st->bytes, reuse = (double)st->reuse_bytes, ps;
    bool l2 = cfg->l2_bytes > 0;
    /* the WGs resident on the busiest CU: the kernel's occupancy, or
     * fewer where its wave of R WGs does not fill every CU that deep */
    int64_t res = MIN(occ, (int64_t)((r + (uint64_t)cfg->cus - 1) / (uint64_t)cfg->cus));
    double fp = l1_footprint(cfg, st);
    double l1_miss = l1_miss_bytes(cfg, st, fp, MAX(1, res));
    int64_t cap = persistent ? cfg->l2_bytes : l2_shared_bytes(cfg);
    bool l1 = persistent && cfg->l1_resident_bytes > 0 && st->ws_bytes > 0 &&
              st->ws_bytes <= cfg->l1_resident_bytes * cfg->cus;
    if (cfg->mem_latency <= 0 && !l2 && !l1 && l1_miss <= 0) { /* the peak, shared: exact in integers */
      unsigned __int128 num = (unsigned __int128)(st->bytes + st->reuse_bytes) * 8u * r * SIM_S * 100u;
      sim_time tb = ceil_div_ps(num, (unsigned __int128)cfg->mem_bandwidth * (uint64_t)cfg->eff[kc]);
      return (tb > t ? tb : t) + peer_time(cfg, st, r);
    }
    if (l1) {
      ps = share_ps((bytes + reuse) * 8.0, r, gpu_achieved_bps(cfg, r, GPU_L1, kc, ib));
    } else if (l2 && st->ws_bytes > 0 && st->ws_bytes <= cfg->l2_bytes) {
      /* Within L2 (shared data past one half: the half's share f from L2,
       * the rest from memory), less the cold bytes, which ops since their
       * last use evicted: from memory (gpu.h "L2 reuse"). */
      double cold = st->cold_bytes > 0 ? MIN(bytes, (double)st->cold_bytes) : 0;
      double f = st->ws_bytes <= cap ? 1.0 : (double)cap / (double)st->ws_bytes;
      double warm = (bytes - cold + reuse) * 8.0, mem = warm * (1 - f) + cold * 8.0;
      ps = share_ps(warm * f, r, gpu_achieved_bps(cfg, r, GPU_L2, kc, ib));
      if (mem > 0) ps += share_ps(mem, r, gpu_achieved_bps(cfg, r, GPU_DRAM, kc, ib));
    } else {
      double h = 0, g = (double)l2_shared_bytes(cfg);
      if (l2 && reuse > 0) h = (double)st->gather_bytes <= g ? 1.0 : g / (double)st->gather_bytes;
      ps = share_ps((bytes + (1 - h) * reuse) * 8.0, r, gpu_achieved_bps(cfg, r, GPU_DRAM, kc, ib));
      if (h > 0) ps += share_ps(h * reuse * 8.0, r, gpu_achieved_bps(cfg, r, GPU_L2, kc, ib));
    }
    if (l1_miss > 0) { /* at the refill rate, or L2's peak: no faster at twice the threads (gpu.h) */
      double spill = gpu_spill_share(cfg, fp, r); /* the share L2 no longer holds ("Spill") */
      ps += share_ps(l1_miss * (1 - spill) * 8.0, r,
                     cfg->l1_refill_bandwidth > 0 ? (double)cfg->l1_refill_bandwidth
                                                  : (double)cfg->l2_bandwidth * (double)cfg->l2eff[kc] / 100.0);
      if (spill > 0)
        ps += share_ps(l1_miss * spill * 8.0, r,
                       cfg->l1_refill_mem_bandwidth > 0 ? (double)cfg->l1_refill_mem_bandwidth
                                                        : gpu_achieved_bps(cfg, r, GPU_DRAM, kc, ib));
    }
    sim_time tb = (sim_time)ceil(ps - 1e-6);
    if (tb > t) t = tb;
  }
  return t + peer_time(cfg, st, r);
}

sim_time gpu_compute_time(const struct gpu_config *cfg, const struct kstep *st) {
  int64_t occ = gpu_occupancy(cfg, NULL);
  return gpu_step_time(cfg, st, (uint64_t)(cfg->cus * occ), occ);
}

sim_time gpu_wg_time(const struct gpu_config *cfg, const struct kernel *k,
                     const struct kstep *st, uint32_t wg) {
  int64_t occ = gpu_occupancy(cfg, k);
  uint64_t wave = (uint64_t)(cfg->cus * occ), r = wave;
  if (cfg->bw_share == GPU_BW_KERNEL) {
    uint64_t first = (uint64_t)wg / wave * wave;
    r = MIN(wave, (uint64_t)k->n_wgs - first);
    if (st->sel_count > 0) r = MIN(r, st->sel_count); /* only the selected WGs move data */
  }
  sim_time t = step_time(cfg, st, r, occ, k->persistent);
  if (wg == gpu_reduce_last_wg(k, st)) {
    /* The second pass: each of the last WG's work-items adds its share of
     * the partials, one dependent load after another. */
    uint64_t parts = st->sel_count > 0 ? st->sel_count : k->n_wgs;
    t += cfg->reduce_pass + cfg->reduce_load * (sim_time)((parts + (uint64_t)cfg->wg_items - 1) /
                                                          (uint64_t)cfg->wg_items);
  }
  return t;
}

/* gpu_wg_time for WG WG of kernel K at step ST, from the memo when the
 * previous call was for the same step and a WG of the same time: the WGs of
 * one wave (bw_share), but the last WG of a reduction (reduce_pass), take
 * the same time, and a batch runs a kernel's WGs one after another. */
static sim_time wg_compute_time(const struct gpu_config *cfg, struct gpu_state *s,
                                const struct kernel *k, const struct kstep *st, uint32_t wg) {
  /* A streamed kernel's steps move and their places serve later steps. */
  if (s->memo_st == st && s->memo_k == k && wg >= s->memo_first && wg < s->memo_end &&
      !s->prog->seq && !s->prog->source)
    return s->memo_t;
  uint64_t wave = (uint64_t)(cfg->cus * gpu_occupancy(cfg, k));
  uint32_t first = (uint32_t)((uint64_t)wg / wave * wave);
  uint32_t end = (uint32_t)MIN((uint64_t)first + wave, (uint64_t)k->n_wgs);
  uint32_t last = gpu_reduce_last_wg(k, st); /* it alone pays reduce_pass */
  if (last != UINT32_MAX && last >= first && last < end) {
    if (wg == last) first = wg, end = wg + 1;
    else if (wg < last) end = last;
    else first = last + 1;
  }
  s->memo_k = k;
  s->memo_st = st;
  s->memo_first = first;
  s->memo_end = end;
  s->memo_t = gpu_wg_time(cfg, k, st, wg);
  return s->memo_t;
}

sim_time gpu_barrier_time(const struct gpu_config *cfg, uint32_t n_wgs) {
  if (cfg->barrier_table.n > 0) return par_table_eval(&cfg->barrier_table, n_wgs);
  return cfg->barrier_base + cfg->barrier_per_wg * (sim_time)n_wgs;
}

sim_time gpu_poll_period(const struct gpu_config *cfg, uint32_t n_wgs) {
  if (cfg->poll_table.n > 0) return par_table_eval(&cfg->poll_table, n_wgs);
  return cfg->poll_interval;
}

sim_time gpu_launch_time(const struct gpu_config *cfg, int64_t depth) {
  g_assert(depth >= 1);
  if (cfg->launch_table.n > 0) return par_table_eval(&cfg->launch_table, depth);
  return cfg->launch_latency + cfg->launch_per_queued * (depth - 1);
}

static const char *kernel_name(const struct kernel *k) { return k->name ? k->name : "kernel"; }

static void span(struct sim_comp *c, int track, const char *name, sim_time start, sim_time end) {
  trace_span(sim_trace(c->eng), track, name, start, end);
}

static int queue_track(struct sim_comp *c, uint32_t qi) {
  struct gpu_state *s = c->state;
  if (s->q[qi].track < 0) {
    char sub[24];
    g_snprintf(sub, sizeof sub, "queue%u", qi);
    s->q[qi].track = sim_track_sub(c, sub);
  }
  return s->q[qi].track;
}

static int wg_track(struct sim_comp *c, uint32_t slot) {
  const struct gpu_config *cfg = c->config;
  struct gpu_state *s = c->state;
  if (s->wg[slot].track < 0) {
    char sub[40];
    g_snprintf(sub, sizeof sub, "cu%u.%u", (unsigned)(slot % (uint32_t)cfg->cus),
               (unsigned)(slot / (uint32_t)cfg->cus));
    s->wg[slot].track = sim_track_sub(c, sub);
  }
  return s->wg[slot].track;
}

/* A message of KIND with A and B from this GPU to device DST: its handle
 * (and *OUT). */
static uint64_t gpu_msg(struct sim_comp *c, enum pkind kind, uint8_t dst, uint32_t a, uint32_t b,
                        struct pmsg **out) {
  struct gpu_state *s = c->state;
  struct pmsg *m;
  uint64_t h = pmsg_new(c->eng, kind, &m);
  m->dst_dev = dst;
  m->src_dev = DEV_GPU;
  m->src_node = m->dst_node = s->node;
  m->a = a;
  m->b = b;
  *out = m;
  return h;
}

/* Sends a posted message of KIND to device DST through the bus after
 * DELAY; NVL: an NVLink store (pmsg.nvl, kstep.nvl). */
static void gpu_send_nvl(struct sim_comp *c, sim_time delay, enum pkind kind, uint8_t dst,
                         uint32_t a, uint32_t b, bool nvl) {
  struct gpu_state *s = c->state;
  struct pmsg *m;
  uint64_t h = gpu_msg(c, kind, dst, a, b, &m);
  m->nvl = nvl;
  if (kind == PK_NIC_CMD) {
    g_assert(a < s->prog->n_cmds);
    uint64_t hc = sim_payload_new(c->eng);
    *(struct nic_cmd *)sim_payload(c->eng, hc) = s->prog->cmds[a];
    m->op = hc;
    const struct np_give *give = s->prog->give;
    if (give && give->cmd_read) give->cmd_read(give->ctx, s->node, a);
  }
  if (nvl) sim_send_via(c, 0, delay, (uint16_t)kind, h, dst); /* the bus passes it on (bus.h) */
  else sim_send(c, 0, delay, (uint16_t)kind, h);
}

static void gpu_send_b(struct sim_comp *c, sim_time delay, enum pkind kind, uint8_t dst,
                       uint32_t a, uint32_t b) {
  gpu_send_nvl(c, delay, kind, dst, a, b, false);
}

/* A trigger store of TAG (COUNT stores) to the NIC after DELAY; on a
 * trace, with a span [now, now + DELAY] (the fence, then the store) on WG
 * SLOT's track from which an arrow leads to the NIC's match of it. */
static void gpu_trigger(struct sim_comp *c, uint32_t slot, sim_time delay, uint32_t tag,
                        uint32_t count) {
  struct gpu_state *s = c->state;
  struct pmsg *m;
  uint64_t h = gpu_msg(c, PK_TRIGGER, DEV_NIC, tag, count, &m);
  if (G_UNLIKELY(c->traced)) {
    m->op = trig_flow(s->node, s->triggers);
    sim_time now = sim_now(c->eng);
    trace_span_flow(sim_trace(c->eng), wg_track(c, slot), "trigger", now, now + delay, m->op,
                    TRACE_FLOW_OUT);
  }
  sim_send(c, 0, delay, PK_TRIGGER, h);
}

static void gpu_send(struct sim_comp *c, sim_time delay, enum pkind kind, uint8_t dst,
                     uint32_t a) {
  gpu_send_b(c, delay, kind, dst, a, 0);
}

/* ---- store trains ----
 * A group's trigger stores after its first WG's: one bus event, a chain
 * (pmsg.next, bus.h), instead of one each. Why the same: the group's WGs
 * store at one instant (the group's delay D, the fence); the first WG's
 * store goes alone, then its scheduling may reserve a sequence number
 * (wg_schedule), and the other WGs' stores would be pushed right after it,
 * one after another, nothing else pushed or reserved between them (in
 * wg_run's KS_TRIGGER loop only the first WG schedules) and nothing after
 * them in this step. Their events would have the same time and
 * consecutive sequence numbers, so no event of any component could run
 * between them: the bus would run them one right after another, each
 * pushing its delivery to the NIC, which is what it does with the chain,
 * in the chain's order (the order of the pushes). The pushes the bus makes
 * keep their order among themselves and against every other event; only
 * the numbers of the events that vanish are gone. The NIC still receives
 * each store as its own message at its own time (each is serialized on
 * the bus direction to the NIC): per-WG detail stays where the NIC sees
 * it. A group's first store stays alone because a sequence number may be
 * reserved between it and the second (the batch of its next step), and
 * with no bus latency that batch's event runs at the stores' instant
 * between them. */
struct store_train {
  uint64_t head;     /* the chain's first message, 0: none */
  struct pmsg *last; /* its last */
};

/* Adds a store of TAG (COUNT stores, work-item granularity) to train T. */
static void train_add(struct sim_comp *c, struct store_train *t, uint32_t tag, uint32_t count) {
  struct pmsg *m;
  uint64_t h = gpu_msg(c, PK_TRIGGER, DEV_NIC, tag, count, &m);
  g_assert(h <= UINT32_MAX);
  if (t->last) t->last->next = (uint32_t)h;
  else t->head = h;
  t->last = m;
}

/* Whether WG WG performs step ST (only_wg, sel_*: nodeprog.h). */
static bool wg_selected(const struct kstep *st, uint32_t wg) {
  if (st->only_wg > 0 && wg != st->only_wg - 1) return false;
  if (st->sel_count == 0) return true;
  if (wg < st->sel_first) return false;
  uint32_t d = wg - st->sel_first, stride = st->sel_stride ? st->sel_stride : 1;
  return d % stride == 0 && d / stride < st->sel_count;
}

/* The index of the WG at place I of group W's order. */
static uint32_t member(const struct gpu_wg *w, uint32_t i) {
  return w->desc ? w->wg + w->n - 1 - i : w->wg + i;
}

/* How many WGs of group W, from the first of its order on, are all inside
 * [LO, HI) or all outside it, as the first is. */
static uint32_t lead_in(const struct gpu_wg *w, uint64_t lo, uint64_t hi) {
  if (w->n == 1 || lo >= hi) return w->n;
  uint64_t first = w->wg, end = (uint64_t)w->wg + w->n;
  if (!w->desc) {
    uint64_t x = first;
    if (x >= lo && x < hi) return (uint32_t)(MIN(hi, end) - x);
    if (x < lo) return (uint32_t)(MIN(lo, end) - x);
    return w->n;
  }
  uint64_t x = end - 1;
  if (x >= lo && x < hi) return (uint32_t)(x - MAX(lo, first) + 1);
  if (x >= hi) return (uint32_t)(x - MAX(hi, first) + 1);
  return w->n;
}

/* How many WGs of group W, from the first of its order on, step ST selects
 * or leaves, as it does the first. */
static uint32_t sel_lead(const struct kstep *st, const struct gpu_wg *w) {
  if (w->n == 1 || (st->only_wg == 0 && st->sel_count == 0)) return w->n;
  uint32_t k = w->n;
  if (st->only_wg > 0) k = lead_in(w, st->only_wg - 1, st->only_wg);
  if (st->sel_count > 0 && st->sel_stride <= 1) {
    k = MIN(k, lead_in(w, st->sel_first, (uint64_t)st->sel_first + st->sel_count));
  } else if (st->sel_count > 0) {
    bool first = wg_selected(st, member(w, 0));
    uint32_t i = 1;
    while (i < k && wg_selected(st, member(w, i)) == first) i++;
    k = i;
  }
  return k;
}

/* How many WGs of group W, from place I of its order on, lie in the
 * block of DIV indices of the WG at place I. */
static uint32_t block_run(const struct gpu_wg *w, uint32_t i, uint32_t div) {
  uint64_t x = member(w, i), lo = x / div * div;
  if (!w->desc) return (uint32_t)(MIN(lo + div, (uint64_t)w->wg + w->n) - x);
  return (uint32_t)(x - MAX(lo, (uint64_t)w->wg) + 1);
}

/* Splits group SLOT after the first K WGs of its order; returns the slot
 * struct of the rest (a group of n >= 2 holds n places and one struct, so
 * a struct is free). */
static uint32_t split_off(struct gpu_state *s, uint32_t slot, uint32_t k) {
  struct gpu_wg *w = &s->wg[slot];
  g_assert(k >= 1 && k < w->n && s->n_free > 0);
  uint32_t r = (uint32_t)s->free_slots[--s->n_free];
  struct gpu_wg *x = &s->wg[r];
  int track = x->track;
  *x = *w;
  x->track = track;
  x->n = w->n - k;
  w->n = k;
  if (w->desc) w->wg = x->wg + x->n; /* the first of a descending order: the highest */
  else x->wg = w->wg + k;
  return r;
}

/* A part of a KS_HOST_REQUEST / KS_NIC_CMD step with WGs arrived: the
 * step of queue qi's kernel, the part, the execution index j. */
struct gpu_part {
  uint32_t qi, step, part, arrived;
  uint64_t j;
};

static guint part_hash(gconstpointer p) {
  const struct gpu_part *a = p;
  uint64_t h = ((uint64_t)a->qi << 40) ^ ((uint64_t)a->step << 20) ^ a->part;
  h ^= a->j * 0x9e3779b97f4a7c15u;
  return (guint)(h ^ (h >> 32));
}

static gboolean part_equal(gconstpointer pa, gconstpointer pb) {
  const struct gpu_part *a = pa, *b = pb;
  return a->qi == b->qi && a->step == b->step && a->part == b->part && a->j == b->j;
}

/* N WGs of part PART of queue QI's kernel arrive at step ST (tag_div > 0)
 * of index STEP in execution J: true when they complete the part, which
 * then posts. An entry lives from its part's first arrival to its last:
 * memory follows what is in flight. */
static bool part_arrive(struct sim_comp *c, uint32_t qi, uint32_t step, uint32_t part, uint32_t n,
                        const struct kstep *st, uint64_t j) {
  struct gpu_state *s = c->state;
  uint32_t n_wgs = st->sel_count ? st->sel_count : s->q[qi].k->n_wgs;
  uint32_t size = st->sel_count ? st->sel_count : MIN(st->tag_div, n_wgs - part * st->tag_div);
  if (size <= n) return true;
  struct gpu_part key = {.qi = qi, .step = step, .part = part, .j = j};
  if (!s->arrivals) s->arrivals = g_hash_table_new_full(part_hash, part_equal, NULL, g_free);
  struct gpu_part *e = g_hash_table_lookup(s->arrivals, &key);
  if (!e) {
    e = g_new(struct gpu_part, 1);
    *e = key;
    g_hash_table_add(s->arrivals, e);
  }
  if ((e->arrived += n) < size) return false;
  g_hash_table_remove(s->arrivals, &key); /* frees e */
  return true;
}

/* The execution index of WG W's step in queue Q's kernel: the host's
 * loops around the launch (its index) outside the WG's own (np_loops). */
static uint64_t wg_j(const struct gpu_queue *q, const struct gpu_wg *w) {
  return np_loop_index(q->launch_j, w->loop, w->depth);
}

/* ---- events ----
 * Every self event but EV_WG goes through gpu_schedule. A WG that goes on
 * later goes through wg_schedule, which adds it to the batch the same
 * handler opened last when that batch goes on at the same time and no
 * other self event was scheduled since: then the WGs' own events would
 * have run one right after another (the queue breaks ties by insertion),
 * with between them only the bus's arrivals of messages those WGs sent,
 * which go on to the NIC or the CPU and so make no event the GPU or its
 * WGs see. So a batch runs its WGs in that order, calling dispatch after
 * each as EV_WG did: every component sees the same events in the same
 * order, one event for all of them (gpu.aggregate; false: one event per
 * WG, to check that). */

static void batch_close(struct sim_comp *c);
static void check_flag(struct sim_comp *c, uint32_t flag);
static const struct kstep *wg_step(struct sim_comp *c, uint32_t qi, uint32_t i);

/* A self event after DELAY, that time spent in critical-path category CAT
 * (the handler's category goes back to the WGs' work after it). */
static void gpu_schedule(struct sim_comp *c, uint8_t cat, sim_time delay, uint16_t kind,
                         uint64_t data) {
  batch_close(c);
  sim_cp_cat(c->eng, cat);
  sim_schedule(c, delay, kind, data);
  sim_cp_cat(c->eng, CP_GPU_WORK);
}

static void wg_schedule(struct sim_comp *c, uint32_t slot, sim_time delay) {
  const struct gpu_config *cfg = c->config;
  struct gpu_state *s = c->state;
  sim_time at = sim_now(c->eng) + delay;
  if (!cfg->aggregate || s->open_batch < 0 || s->open_at != at) {
    batch_close(c);
    uint32_t bi;
    if (s->n_batch_free > 0) {
      bi = s->batch_free[--s->n_batch_free];
    } else {
      bi = s->n_batch++;
      s->batch = g_renew(struct gpu_batch, s->batch, s->n_batch);
      s->batch_free = g_renew(uint32_t, s->batch_free, s->n_batch);
      s->batch[bi] = (struct gpu_batch){0};
    }
    struct gpu_batch *b = &s->batch[bi];
    b->n = 0;
    b->at = at;
    b->seq = sim_reserve_seq(c->eng); /* its event's place, pushed at batch_close */
    b->pushed = false;
    b->held = 0;
    s->open_batch = bi;
    s->open_at = at;
  }
  struct gpu_batch *b = &s->batch[s->open_batch];
  if (b->n == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 4;
    b->slots = g_renew(uint32_t, b->slots, b->cap);
  }
  b->slots[b->n++] = slot;
}

/* ---- held waits ----
 * A batch whose WGs all go on at a flag wait that does not hold yet would,
 * when its event runs, only put them on their flags' lists. Aggregated
 * (gpu.aggregate), such a batch is held instead of pushed: its WGs go on
 * the lists at once, each at the place it would take when the event ran
 * (lists are kept in order of that place, latest first, as the event would
 * have left them), marked held. A flag update that comes before the
 * batch's place and satisfies a held WG pushes the batch's event with its
 * reserved sequence number (sim_schedule_reserved): it runs where it would
 * have, and its WGs wait or go on as they would have. An update after that
 * place finds the WGs waiting since the batch's time, as they would have
 * been. Either way the same times and the same order; one event fewer per
 * wait that the event would only have begun. */

/* Whether flag-list entry W went on the list after place (AT, SEQ). */
static bool reg_after(const struct gpu_wg *w, sim_time at, uint64_t seq) {
  return w->reg_at > at || (w->reg_at == at && w->reg_seq > seq);
}

/* Puts WG SLOT on FLAG's list at place (AT, SEQ): below every entry placed
 * after it. */
static void flag_list_add(struct gpu_state *s, uint32_t flag, uint32_t slot, sim_time at,
                          uint64_t seq) {
  struct gpu_wg *w = &s->wg[slot];
  w->poll_ps = s->q[w->queue].poll_ps;
  w->reg_at = at;
  w->reg_seq = seq;
  int32_t *link = &s->flags[flag].wgs;
  while (*link >= 0 && reg_after(&s->wg[*link], at, seq)) link = &s->wg[*link].next;
  w->next = *link;
  *link = (int32_t)slot;
}

/* The flag WG W of queue Q waits on at step ST. */
static uint32_t wait_flag(const struct kstep *st, const struct gpu_wg *w) {
  return st->flag + (st->flag_div ? w->wg / st->flag_div : 0);
}

/* Step I of queue Q's running kernel, which is there (the source read it). */
static const struct kstep *qstep(const struct gpu_queue *q, uint32_t i) {
  return q->streamed ? &q->k->steps[i - q->k->base] : &q->steps[i];
}

/* Takes WG SLOT off FLAG's list. */
static void flag_list_remove(struct gpu_state *s, uint32_t flag, uint32_t slot) {
  int32_t *link = &s->flags[flag].wgs;
  while (*link != (int32_t)slot) {
    g_assert(*link >= 0);
    link = &s->wg[*link].next;
  }
  *link = s->wg[slot].next;
}

/* ---- lone batches ----
 * A batch of one slot struct (one WG, or one group) is not kept once it is
 * closed: its event carries LONE | slot, and held, its WG keeps the place
 * (reg_at, reg_seq: the batch's time and reserved seq) and held =
 * HELD_LONE. The same events at the same places; no batch record to read
 * back when the event runs or the flag comes (the common case: each WG
 * waiting on its own flag). */

/* Held lone WG SLOT must run: it leaves its list, its event is pushed. */
static void lone_release(struct sim_comp *c, uint32_t slot) {
  struct gpu_state *s = c->state;
  struct gpu_wg *w = &s->wg[slot];
  flag_list_remove(s, wait_flag(qstep(&s->q[w->queue], w->step), w), slot);
  w->held = -1;
  sim_schedule_reserved(c, w->reg_at, w->reg_seq, EV_WG, LONE | slot);
}

/* Held batch BI must run: its WGs leave the lists, its event is pushed. */
static void batch_release(struct sim_comp *c, uint32_t bi) {
  struct gpu_state *s = c->state;
  struct gpu_batch *b = &s->batch[bi];
  for (uint32_t i = 0; i < b->n; i++) {
    struct gpu_wg *w = &s->wg[b->slots[i]];
    if (w->held != (int32_t)bi) continue;
    flag_list_remove(s, wait_flag(qstep(&s->q[w->queue], w->step), w), b->slots[i]);
    w->held = -1;
  }
  b->held = 0;
  b->pushed = true;
  sim_schedule_reserved(c, b->at, b->seq, EV_WG, bi);
}

/* Held batch BI's WG W has gone on after the batch's place. */
static void held_done(struct sim_engine *eng, struct gpu_state *s, struct gpu_wg *w) {
  int32_t held = w->held;
  w->held = -1;
  if (held == HELD_LONE) {
    sim_reserve_drop(eng, w->reg_seq); /* its event is never pushed */
    return;
  }
  uint32_t bi = (uint32_t)held;
  if (--s->batch[bi].held == 0) {
    sim_reserve_drop(eng, s->batch[bi].seq);
    s->batch_free[s->n_batch_free++] = bi;
  }
}

/* The open batch is complete: pushes its event, or holds it. */
static void batch_close(struct sim_comp *c) {
  const struct gpu_config *cfg = c->config;
  struct gpu_state *s = c->state;
  if (s->open_batch < 0) return;
  uint32_t bi = (uint32_t)s->open_batch;
  struct gpu_batch *b = &s->batch[bi];
  s->open_batch = -1;
  bool hold = cfg->aggregate;
  for (uint32_t i = 0; hold && i < b->n; i++) {
    const struct gpu_wg *w = &s->wg[b->slots[i]];
    const struct gpu_queue *q = &s->q[w->queue];
    const struct kstep *st = wg_step(c, (uint32_t)w->queue, w->step);
    hold = st && st->kind == KS_WAIT_FLAG && wg_selected(st, member(w, 0)) &&
           sel_lead(st, w) == w->n;
    uint32_t lead = hold && st->flag_div ? block_run(w, 0, st->flag_div) : w->n;
    if (lead < w->n) { /* a group over several flags: one entry per flag, in its order */
      uint32_t r = split_off(s, b->slots[i], lead);
      if (b->n == b->cap) {
        b->cap *= 2;
        b->slots = g_renew(uint32_t, b->slots, b->cap);
      }
      memmove(&b->slots[i + 2], &b->slots[i + 1], (b->n - i - 1) * sizeof *b->slots);
      b->slots[i + 1] = r;
      b->n++;
    }
    if (hold) {
      uint32_t flag = wait_flag(st, w);
      check_flag(c, flag);
      hold = s->flags[flag].value < np_wait_value(st->value, wg_j(q, w));
    }
  }
  if (b->n == 1) { /* lone: the record goes back at once */
    uint32_t slot = b->slots[0];
    s->batch_free[s->n_batch_free++] = bi;
    if (!hold) {
      sim_schedule_reserved(c, b->at, b->seq, EV_WG, LONE | slot);
      return;
    }
    struct gpu_wg *w = &s->wg[slot];
    const struct gpu_queue *q = &s->q[w->queue];
    const struct kstep *st = qstep(q, w->step);
    w->wait_value = np_wait_value(st->value, wg_j(q, w));
    w->wait_start = b->at;
    w->held = HELD_LONE;
    flag_list_add(s, wait_flag(st, w), slot, b->at, b->seq);
    return;
  }
  if (!hold) {
    b->pushed = true;
    sim_schedule_reserved(c, b->at, b->seq, EV_WG, bi);
    return;
  }
  for (uint32_t i = 0; i < b->n; i++) { /* as batch_run would, one after another */
    struct gpu_wg *w = &s->wg[b->slots[i]];
    const struct gpu_queue *q = &s->q[w->queue];
    const struct kstep *st = qstep(q, w->step);
    w->wait_value = np_wait_value(st->value, wg_j(q, w));
    w->wait_start = b->at;
    w->held = (int32_t)bi;
    flag_list_add(s, wait_flag(st, w), b->slots[i], b->at, b->seq);
  }
  b->held = b->n;
}

static void check_flag(struct sim_comp *c, uint32_t flag) {
  struct gpu_state *s = c->state;
  if (flag == 0 || flag > s->prog->n_flags)
    g_error("%s: flag %u outside 1..%u", c->name, flag, s->prog->n_flags);
  if (flag < s->n_fwords) return;
  /* A streamed program's source has handed out more flags (np_seq). */
  uint32_t old = s->n_fwords, n = MAX(flag + 1, 2 * old);
  s->flags = g_renew(struct gpu_flag, s->flags, n);
  for (uint32_t i = old; i < n; i++) s->flags[i] = (struct gpu_flag){0, -1, -1};
  s->n_fwords = n;
}

/* Step I of queue QI's running kernel, or NULL past its last. A streamed
 * kernel's source is asked for it when it is not there yet, told which
 * steps every WG has passed (the waits among them set their flags back
 * to 0: the source may hand them out again). */
static const struct kstep *wg_step(struct sim_comp *c, uint32_t qi, uint32_t i) {
  struct gpu_state *s = c->state;
  struct gpu_queue *q = &s->q[qi];
  if (!q->streamed) return i < q->n_steps ? &q->steps[i] : NULL;
  /* A streamed program's kernel array may move as the driver adds kernels
   * (workloads/policies/stream.c keeps the old block, whose copy of this
   * kernel's window goes stale): read the kernel where it is now. */
  q->k = &s->prog->kernels[q->kidx];
  if (i >= q->k->n_steps) {
    uint32_t done = i;
    if (q->next_wg < q->k->n_wgs) done = 0;
    /* One WG: the one that asks (else the lowest step of them all). */
    for (uint32_t w = 0; w < s->n_slots && done > q->passed && q->k->n_wgs > 1; w++)
      if (s->wg[w].queue == (int32_t)qi && s->wg[w].step < done) done = s->wg[w].step;
    for (uint32_t j = MAX(q->passed, (uint32_t)q->k->base); j < done; j++) {
      const struct kstep *st = qstep(q, j);
      if (st->kind == KS_WAIT_FLAG) s->flags[st->flag].value = 0;
    }
    q->passed = MAX(q->passed, done);
    s->prog->seq->kernel(s->prog->seq->ctx, s->node, q->kidx, i, q->passed);
    q->k = &s->prog->kernels[q->kidx];
  }
  return i < q->k->n_steps ? qstep(q, i) : NULL;
}

/* ---- the front end and the queues ---- */

/* Queue QI's Q_COPY_HOME has started: its data leaves for host memory, and
 * the completion (its flag, +1) follows it, the bus keeping the order of
 * the GPU's posted writes. */
static void copy_home(struct sim_comp *c, uint32_t qi) {
  struct gpu_state *s = c->state;
  const struct gpu_queue *q = &s->q[qi];
  const struct qcmd *qc = &s->prog->qcmds[q->cmds[q->head].qcmd];
  struct pmsg *m;
  uint64_t h = pmsg_new(c->eng, PK_MEM_WRITE, &m);
  m->dst_dev = DEV_MEM;
  m->src_dev = DEV_GPU;
  m->src_node = m->dst_node = s->node;
  m->bytes = qc->bytes;
  sim_send(c, 0, 0, PK_MEM_WRITE, h);
  gpu_send_b(c, 0, PK_FLAG, DEV_CPU, qc->flag, 1);
}

static void fe_try(struct sim_comp *c) {
  struct gpu_state *s = c->state;
  if (s->fe_busy || s->fe_len == 0) return;
  uint32_t qi = s->fe[s->fe_head];
  s->fe_head = (s->fe_head + 1) % s->n_q;
  s->fe_len--;
  struct gpu_queue *q = &s->q[qi];
  const struct gpu_config *cfg = c->config;
  const struct gpu_cmd *head = &q->cmds[q->head];
  sim_time lat;
  if (s->prog->qcmds[head->qcmd].graph) {
    lat = cfg->graph_launch; /* a graph's node: launched by the front end itself (replay) */
  } else {
    lat = gpu_launch_time(cfg, head->depth);
    /* Prepared while the command before it ran (gpu.h, queued_launch). */
    if (cfg->queued_launch == GPU_QL_OVERLAP) {
      sim_time now = sim_now(c->eng), ready = head->arrive + lat;
      lat = MAX(cfg->launch_gap, ready > now ? ready - now : 0);
    }
  }
  s->fe_busy = true;
  q->phase = QP_LAUNCH;
  q->t_phase = sim_now(c->eng);
  s->kernels_launched++;
  s->launch_time += lat;
  gpu_schedule(c, CP_LAUNCH, lat, EV_LAUNCH_DONE, qi);
}

/* Completes queue QI's head command and looks at the next ones. */
static void queue_advance(struct sim_comp *c, uint32_t qi);

/* Queue Q's head command is served: the next one is the head, and a
 * streamed program's source may give the served one's slot (and a wait's
 * flag, set back to 0 here) to another (np_seq). */
static void head_next(struct sim_comp *c, struct gpu_queue *q) {
  struct gpu_state *s = c->state;
  const struct np_give *give = s->prog->give;
  g_assert(q->len > 0);
  if (give && give->qcmd_done) {
    uint32_t i = q->cmds[q->head].qcmd;
    const struct qcmd *qc = &s->prog->qcmds[i];
    if (qc->kind == Q_WAIT_FLAG) s->flags[qc->flag].value = 0;
    give->qcmd_done(give->ctx, s->node, i);
  }
  q->head = (q->head + 1) % q->cap;
  q->len--;
}

static void queue_pop(struct sim_comp *c, uint32_t qi) {
  struct gpu_state *s = c->state;
  struct gpu_queue *q = &s->q[qi];
  head_next(c, q);
  q->phase = QP_IDLE;
  queue_advance(c, qi);
}

static void queue_advance(struct sim_comp *c, uint32_t qi) {
  const struct gpu_config *cfg = c->config;
  struct gpu_state *s = c->state;
  struct gpu_queue *q = &s->q[qi];
  while (q->phase == QP_IDLE && q->len > 0) {
    const struct qcmd *qc = &s->prog->qcmds[q->cmds[q->head].qcmd];
    q->t_phase = sim_now(c->eng);
    switch (qc->kind) {
    case Q_KERNEL:
      if (qc->kernel >= s->prog->n_kernels)
        g_error("%s: queue command names kernel %u of %zu", c->name, qc->kernel,
                s->prog->n_kernels);
      q->phase = QP_READY;
      s->fe[(s->fe_head + s->fe_len) % s->n_q] = qi;
      s->fe_len++;
      fe_try(c);
      break;
    case Q_WAIT_FLAG:
      check_flag(c, qc->flag);
      s->stream_waits++;
      if (s->flags[qc->flag].value >= np_wait_value(qc->value, q->cmds[q->head].j)) {
        q->phase = QP_FLAG_SEEN;
        gpu_schedule(c, CP_WAITING, cfg->stream_wait_latency, EV_QUEUE_GO, qi);
      } else {
        q->phase = QP_FLAG;
        q->flag_next = s->flags[qc->flag].queues;
        s->flags[qc->flag].queues = (int32_t)qi;
      }
      break;
    case Q_COPY_HOME:
      check_flag(c, qc->flag);
      q->phase = QP_COPY;
      gpu_schedule(c, CP_BUS, cfg->copy_start, EV_QUEUE_GO, qi);
      break;
    case Q_MARK:
      check_flag(c, qc->flag);
      gpu_send_b(c, 0, PK_FLAG, DEV_CPU, qc->flag, 1);
      head_next(c, q);
      break;
    case Q_DOORBELL:
      s->doorbells++;
      gpu_send(c, 0, PK_DOORBELL, DEV_NIC, qc->cmd_id + q->cmds[q->head].j * qc->id_stride);
      head_next(c, q);
      break;
    default: g_error("%s: unknown queue command kind %u", c->name, qc->kind);
    }
  }
}

static void queue_append(struct sim_comp *c, uint32_t qi, uint32_t qcmd, uint32_t j) {
  struct gpu_state *s = c->state;
  if (qi >= s->n_q) g_error("%s: queue %u of %u", c->name, qi, s->n_q);
  if (qcmd >= s->prog->n_qcmds)
    g_error("%s: queue command %u of %zu", c->name, qcmd, s->prog->n_qcmds);
  struct gpu_queue *q = &s->q[qi];
  if (q->len == q->cap) {
    size_t cap = q->cap ? 2 * q->cap : 16;
    struct gpu_cmd *cmds = g_new(struct gpu_cmd, cap);
    for (size_t i = 0; i < q->len; i++) cmds[i] = q->cmds[(q->head + i) % q->cap];
    g_free(q->cmds);
    q->cmds = cmds;
    q->cap = cap;
    q->head = 0;
  }
  q->cmds[(q->head + q->len) % q->cap] =
      (struct gpu_cmd){qcmd, (uint32_t)(q->len + 1), j, sim_now(c->eng)};
  q->len++;
  s->cmds++;
  if (q->phase == QP_IDLE) queue_advance(c, qi);
}

/* ---- work-groups ---- */

static bool kernel_has_barrier(const struct kernel *k) {
  for (size_t i = 0; i < k->n_steps; i++)
    if (k->steps[i].kind == KS_BARRIER) return true;
  return false;
}

static void teardown_start(struct sim_comp *c, uint32_t qi) {
  const struct gpu_config *cfg = c->config;
  struct gpu_state *s = c->state;
  struct gpu_queue *q = &s->q[qi];
  sim_time now = sim_now(c->eng);
  if (G_UNLIKELY(c->traced)) span(c, queue_track(c, qi), kernel_name(q->k), q->t_phase, now);
  q->phase = QP_TEARDOWN;
  q->t_phase = now;
  /* A graph node with another after it in the replay (qcmd.graph 1) hands
   * over to it with no completion for the host: no teardown. */
  sim_time td = s->prog->qcmds[q->cmds[q->head].qcmd].graph == 1 ? 0 : cfg->teardown_latency;
  if (q->k->persistent) td += cfg->persistent_teardown;
  s->teardown_time += td;
  gpu_schedule(c, CP_TEARDOWN, td, EV_TEARDOWN_DONE, qi);
}

/* ---- groups ----
 * With gpu.aggregate and no trace, the WGs a kernel starts at one instant
 * take one slot struct as a group (gpu_wg.n), when none of them can end in
 * that first run (launch_done: gpu_queue.group). A group's WGs are in the
 * same state, and their own events would run them one right after another
 * (as a batch does), in the order of their indices or its reverse (desc).
 * A group makes its WGs' effects one WG after another in that order with
 * one pass over the steps: each WG's stores, part arrivals and posts, with
 * the batch it joins taken after its first WG's effect, where that WG's
 * own scheduling would take it. Where they would part (a selection, a
 * wave's or a reduction's compute time, a flag of flag_div, a store with
 * no fence, the kernel's end while another kernel waits for slots), the
 * group splits (split): the WGs first in its order go on, and the rest
 * runs right after their run, from the same step (gpu_state.pend, latest
 * on top: the order their events would have run them in). A list that
 * gives its WGs back latest first (a flag's, the barrier's) reverses the
 * order. Same messages at the same times in the same order, same counters;
 * one slot and one pass per group instead of one per WG. */

/* Splits group SLOT after the first K WGs of its order: the rest goes on
 * s->pend to run right after SLOT's run. */
static void split(struct gpu_state *s, uint32_t slot, uint32_t k) {
  s->pend[s->n_pend++] = split_off(s, slot, k);
}

static void wg_finish(struct sim_comp *c, uint32_t slot) {
  struct gpu_state *s = c->state;
  struct gpu_wg *w = &s->wg[slot];
  struct gpu_queue *q = &s->q[w->queue];
  sim_time now = sim_now(c->eng);
  if (G_UNLIKELY(c->traced)) span(c, wg_track(c, slot), kernel_name(q->k), w->start, now);
  s->wg_time += (now - w->start) * (sim_time)w->n;
  s->wg_last_end = now;
  s->wgs_done += w->n;
  uint32_t qi = (uint32_t)w->queue;
  w->queue = -1;
  q->running -= w->n;
  s->units_free += w->n;
  s->free_slots[s->n_free++] = (int32_t)slot;
  q->done_wgs += w->n;
  if (q->done_wgs == q->k->n_wgs) teardown_start(c, qi);
}

/* The fence before posting step ST (KS_TRIGGER, KS_HOST_REQUEST,
 * KS_NIC_CMD, KS_HOST_FLAG): gpu.fence_latency, none for an unfenced
 * command or proxy request. */
static sim_time step_fence(const struct gpu_config *cfg, const struct kstep *st) {
  return st->unfenced ? 0 : cfg->fence_latency;
}

/* Group SLOT's posting step ST (KS_HOST_REQUEST, KS_NIC_CMD): the post
 * of the WG at place I of its order, whose part (tag_div) is complete or
 * which posts alone. */
static void post_cmd(struct sim_comp *c, uint32_t slot, const struct kstep *st, uint32_t i) {
  const struct gpu_config *cfg = c->config;
  struct gpu_state *s = c->state;
  const struct gpu_wg *w = &s->wg[slot];
  uint32_t cmd = st->cmd + (st->tag_div ? member(w, i) / st->tag_div : 0);
  if (cmd >= s->prog->n_cmds)
    g_error("%s: kernel %s names NIC command %u of %zu", c->name, kernel_name(s->q[w->queue].k),
            cmd, s->prog->n_cmds);
  if (st->kind == KS_HOST_REQUEST) {
    s->host_requests++;
    gpu_send(c, step_fence(cfg, st), PK_HOST_REQUEST, DEV_CPU, cmd);
  } else {
    s->nic_cmds++;
    gpu_send_nvl(c, step_fence(cfg, st), PK_NIC_CMD, DEV_NIC, cmd, 0, st->nvl);
  }
}

/* Runs group SLOT's steps from its current one until it must wait or
 * ends; what it splits off is left on s->pend (run_group). */
static void wg_run(struct sim_comp *c, uint32_t slot) {
  const struct gpu_config *cfg = c->config;
  struct gpu_state *s = c->state;
  struct gpu_wg *w = &s->wg[slot];
  struct gpu_queue *q = &s->q[w->queue];
  const struct kernel *k = q->k;
  for (;;) {
    const struct kstep *st = wg_step(c, (uint32_t)w->queue, w->step);
    if (!st) {
      /* A kernel waits for slots: its WGs take them one WG's end after
       * another (batch_run dispatches after each). */
      if (w->n > 1 && s->disp_len > 0) split(s, slot, 1);
      wg_finish(c, slot);
      return;
    }
    if (st->kind == KS_LOOP || st->kind == KS_END) { /* structure: every WG, no cost */
      uint32_t next = np_loop_step(w->loop, &w->depth, st->kind == KS_LOOP, st->count, w->step);
      if (next == UINT32_MAX)
        g_error("%s: kernel %s: step %u: a loop of count %u at depth %u (at most %d), or an "
                "end outside any", c->name, kernel_name(k), w->step, st->count, w->depth,
                NP_MAX_DEPTH);
      w->step = next;
      continue;
    }
    if (st->kind != KS_BARRIER) {
      uint32_t lead = sel_lead(st, w);
      if (lead < w->n) split(s, slot, lead);
      if (!wg_selected(st, member(w, 0))) {
        w->step = q->skip ? q->skip[w->step] : w->step + 1;
        continue;
      }
    }
    sim_time d = 0;
    switch (st->kind) {
    case KS_COMPUTE:
      d = wg_compute_time(cfg, s, k, st, member(w, 0));
      if (w->n > 1) { /* the WGs of the memo's range take its time */
        uint32_t lead = lead_in(w, s->memo_first, s->memo_end);
        if (lead < w->n) split(s, slot, lead);
      }
      break;
    case KS_WAIT_FLAG: {
      if (w->n > 1 && st->flag_div) {
        uint32_t lead = block_run(w, 0, st->flag_div);
        if (lead < w->n) split(s, slot, lead);
      }
      uint32_t flag = wait_flag(st, w);
      check_flag(c, flag);
      w->wait_value = np_wait_value(st->value, wg_j(q, w));
      if (s->flags[flag].value >= w->wait_value) break;
      w->wait_start = sim_now(c->eng);
      flag_list_add(s, flag, slot, w->wait_start, sim_now_seq(c->eng));
      return; /* the flag's update moves it on */
    }
    case KS_TRIGGER:
    case KS_HOST_REQUEST:
    case KS_NIC_CMD: {
      d = step_fence(cfg, st);
      if (d == 0 && w->n > 1) split(s, slot, 1); /* each WG's next steps before the next WG's */
      uint32_t div = st->tag_div ? st->tag_div : 1, at = w->step;
      uint64_t j = wg_j(q, w);
      struct store_train train = {0};
      for (uint32_t i = 0, n; i < w->n; i += n) {
        if (st->kind == KS_TRIGGER) {
          n = 1;
          s->triggers++;
          uint32_t tag = st->tag + member(w, i) / div + (uint32_t)(j * st->tag_stride);
          if (i == 0) gpu_trigger(c, slot, d, tag, st->stores ? st->stores : 1);
          else train_add(c, &train, tag, st->stores ? st->stores : 1);
        } else { /* a part's WGs arrive at once; the last of a complete part posts */
          n = st->tag_div ? block_run(w, i, st->tag_div) : 1;
          bool posts = !st->tag_div || part_arrive(c, (uint32_t)w->queue, at,
                                                   member(w, i) / st->tag_div, n, st, j);
          if (i == 0 && d > 0 && posts && n == 1) { /* the first WG posts, then schedules */
            post_cmd(c, slot, st, 0);
            w->step++;
            wg_schedule(c, slot, d);
            continue;
          }
          if (i == 0 && d > 0) { /* the first WG's scheduling, before a later WG's post */
            w->step++;
            wg_schedule(c, slot, d);
          }
          if (posts) post_cmd(c, slot, st, i + n - 1);
          continue;
        }
        if (i == 0 && d > 0) { /* the first WG's own scheduling, before the others' effects */
          w->step++;
          wg_schedule(c, slot, d);
        }
      }
      if (train.head) sim_send(c, 0, d, PK_TRIGGER, train.head);
      if (d > 0) return;
      break;
    }
    case KS_HOST_FLAG: /* each WG's store, its fence first */
      d = cfg->fence_latency;
      gpu_send_b(c, d, PK_FLAG, DEV_CPU, st->flag, w->n);
      break;
    case KS_BARRIER:
      w->step++;
      w->next = q->barrier_list;
      q->barrier_list = (int32_t)slot;
      { /* the arrivals still to come as if at once (gpu.h): this instant's
         * all count as still to come, so that their order does not matter.
         * The arrival that sets the release is its cause (of equal ones the
         * earliest, then the lowest WG), its event's place reserved then. */
        sim_time now = sim_now(c->eng);
        bool first = q->barrier_arrived == 0;
        if (first || now != q->barrier_at) q->barrier_at = now, q->barrier_before = q->barrier_arrived;
        sim_time due = now + gpu_barrier_time(cfg, k->n_wgs - q->barrier_before);
        if (first || due > q->barrier_due ||
            (due == q->barrier_due && q->barrier_seq_at == now && w->wg < q->barrier_wg)) {
          batch_close(c);
          if (!first) sim_reserve_drop(c->eng, q->barrier_seq);
          q->barrier_due = due;
          q->barrier_seq = sim_reserve_seq(c->eng);
          q->barrier_seq_at = now;
          q->barrier_wg = w->wg;
        }
      }
      q->barrier_arrived += w->n;
      if (q->barrier_arrived == k->n_wgs) {
        q->barrier_arrived = 0;
        s->barriers++;
        s->barrier_time += q->barrier_due - sim_now(c->eng);
        batch_close(c);
        if (sim_after_now(c->eng, q->barrier_due, q->barrier_seq)) {
          sim_schedule_reserved(c, q->barrier_due, q->barrier_seq, EV_BARRIER_DONE,
                                (uint64_t)(w->queue));
        } else { /* due now, set earlier (B of the last WGs 0): from this event */
          sim_reserve_drop(c->eng, q->barrier_seq);
          gpu_schedule(c, CP_GPU_WORK, 0, EV_BARRIER_DONE, (uint64_t)(w->queue));
        }
      }
      return;
    default: g_error("%s: kernel %s has a step of unknown kind %u", c->name, kernel_name(k),
                     st->kind);
    }
    w->step++;
    if (d > 0) {
      wg_schedule(c, slot, d);
      return;
    }
  }
}

static void dispatch(struct sim_comp *c);

/* Runs group SLOT, then what it split off, in order; DISP: dispatch after
 * each (as batch_run did after each WG's event). */
static void run_group(struct sim_comp *c, uint32_t slot, bool disp) {
  struct gpu_state *s = c->state;
  uint32_t base = s->n_pend;
  wg_run(c, slot);
  if (disp) dispatch(c);
  while (s->n_pend > base) {
    wg_run(c, s->pend[--s->n_pend]);
    if (disp) dispatch(c);
  }
}

/* Whether every WG of kernel K, started, must stop before its end: a step
 * all of them reach and perform before it takes time or waits (a barrier,
 * a compute of some work, a store or command behind a fence). */
static bool kernel_parks(const struct gpu_config *cfg, const struct kernel *k) {
  for (size_t i = 0; i < k->n_steps; i++) {
    const struct kstep *st = &k->steps[i];
    if (st->kind == KS_BARRIER) return true;
    if (st->only_wg > 0 || st->sel_count > 0) continue;
    if (st->kind == KS_COMPUTE &&
        (st->time > 0 || st->flops > 0 || st->bytes > 0 || st->reuse_bytes > 0))
      return true;
    if ((st->kind == KS_TRIGGER || st->kind == KS_HOST_REQUEST || st->kind == KS_NIC_CMD ||
         st->kind == KS_HOST_FLAG) &&
        step_fence(cfg, st) > 0)
      return true;
  }
  return false;
}

/* Fills free slots with pending WGs, oldest kernel first, each kernel up
 * to cus * its occupancy WGs at a time. */
static void dispatch(struct sim_comp *c) {
  struct gpu_state *s = c->state;
  uint32_t kept = 0, n = s->disp_len;
  for (uint32_t i = 0; i < n; i++) {
    uint32_t qi = s->disp[(s->disp_head + i) % s->n_q];
    struct gpu_queue *q = &s->q[qi];
    while (s->units_free > 0 && q->running < q->max_running && q->next_wg < q->k->n_wgs) {
      uint32_t m = 1; /* WGs started as one group ("groups") */
      if (q->group)
        m = MIN(s->units_free, MIN(q->max_running - q->running, q->k->n_wgs - q->next_wg));
      uint32_t slot = (uint32_t)s->free_slots[--s->n_free];
      struct gpu_wg *w = &s->wg[slot];
      w->queue = (int32_t)qi;
      w->wg = q->next_wg;
      w->n = m;
      w->desc = false;
      q->next_wg += m;
      w->step = 0;
      w->depth = 0;
      w->start = sim_now(c->eng);
      w->next = -1;
      q->running += m;
      s->units_free -= m;
      uint32_t used = s->n_slots - s->units_free;
      if (used > s->slots_max) s->slots_max = used;
      const struct gpu_config *cfg = c->config;
      sim_time start = cfg->wg_start + (w->wg < q->max_running ? cfg->first_wave : 0);
      if (start > 0) wg_schedule(c, slot, start);
      else run_group(c, slot, false);
    }
    if (q->next_wg < q->k->n_wgs) s->disp[(s->disp_head + kept++) % s->n_q] = qi;
  }
  s->disp_len = kept;
}

/* Whether steps A and B select the same WGs (nodeprog.h: only_wg, sel_*). */
static bool same_selection(const struct kstep *a, const struct kstep *b) {
  return a->only_wg == b->only_wg && a->sel_first == b->sel_first &&
         a->sel_stride == b->sel_stride && a->sel_count == b->sel_count;
}

/* Kernel K's skip runs into SKIP (n_steps): a WG that does not perform
 * step i performs none of the steps after it with the same selection up
 * to the next loop marker or barrier (which every WG goes through), so it
 * goes on at the first step after that run. Only a step some WG skips is
 * read. */
static void skip_runs(uint32_t *skip, const struct kernel *k) {
  for (size_t i = k->n_steps; i-- > 0;) {
    const struct kstep *st = &k->steps[i];
    size_t next = i + 1;
    bool runs_on = next < k->n_steps && k->steps[next].kind != KS_LOOP &&
                   k->steps[next].kind != KS_END && k->steps[next].kind != KS_BARRIER &&
                   same_selection(st, &k->steps[next]);
    skip[i] = runs_on ? skip[next] : (uint32_t)next;
  }
}

/* Kernel KIDX's launch facts, worked out at its first launch (at every
 * launch for a streamed program, whose kernel ids are reused: np_source). */
static const struct gpu_kinfo *kernel_info(struct sim_comp *c, uint32_t kidx) {
  struct gpu_state *s = c->state;
  if (kidx >= s->n_kinfo) {
    size_t n = MAX(s->prog->n_kernels, (size_t)kidx + 1);
    s->kinfo = g_renew(struct gpu_kinfo, s->kinfo, n);
    memset(s->kinfo + s->n_kinfo, 0, (n - s->n_kinfo) * sizeof *s->kinfo);
    s->n_kinfo = n;
  }
  struct gpu_kinfo *ki = &s->kinfo[kidx];
  if (s->prog->kernels[kidx].open) { /* read while it runs: a WG not selected goes on
                                          step by step (no skip list: one a kernel of
                                          the same id had before would mislead it) */
    g_free(ki->skip);
    ki->skip = NULL;
    ki->barrier = ki->parks = false;
    return ki;
  }
  if (ki->skip && (s->prog->source || s->prog->seq)) {
    g_free(ki->skip);
    ki->skip = NULL;
  }
  if (!ki->skip) {
    const struct kernel *k = &s->prog->kernels[kidx];
    ki->skip = g_new(uint32_t, k->n_steps + 1);
    skip_runs(ki->skip, k);
    ki->barrier = kernel_has_barrier(k);
    ki->parks = kernel_parks(c->config, k);
  }
  return ki;
}

static void launch_done(struct sim_comp *c, uint32_t qi) {
  struct gpu_state *s = c->state;
  struct gpu_queue *q = &s->q[qi];
  sim_time now = sim_now(c->eng);
  const struct qcmd *qc = &s->prog->qcmds[q->cmds[q->head].qcmd];
  if (G_UNLIKELY(c->traced)) span(c, queue_track(c, qi), "launch", q->t_phase, now);
  s->fe_busy = false;
  q->k = &s->prog->kernels[qc->kernel];
  q->kidx = qc->kernel;
  q->steps = q->k->steps;
  q->n_steps = (uint32_t)q->k->n_steps;
  q->streamed = q->k->open;
  q->passed = 0;
  sim_time poll = gpu_poll_period(c->config, q->k->n_wgs);
  g_assert(poll >= 0 && poll <= UINT32_MAX); /* the parameters' range: <= 1 ms */
  q->poll_ps = (uint32_t)poll;
  const struct gpu_kinfo *ki = kernel_info(c, qc->kernel);
  q->skip = ki->skip;
  q->launch_j = q->cmds[q->head].j;
  q->next_wg = q->done_wgs = q->barrier_arrived = 0;
  q->barrier_list = -1;
  q->phase = QP_RUN;
  q->t_phase = now;
  const struct gpu_config *cfg = c->config;
  q->running = 0;
  q->max_running = (uint32_t)(cfg->cus * gpu_occupancy(cfg, q->k));
  q->group = cfg->aggregate && !c->traced &&
             (cfg->wg_start > 0 || cfg->first_wave > 0 || ki->parks);
  if (q->k->n_wgs > q->max_running && ki->barrier)
    g_error("%s: kernel %s has a device-wide barrier but %u WGs > %u resident (cus * occupancy)",
            c->name, kernel_name(q->k), q->k->n_wgs, q->max_running);
  if (q->k->n_wgs == 0) {
    teardown_start(c, qi);
  } else {
    s->disp[(s->disp_head + s->disp_len) % s->n_q] = qi;
    s->disp_len++;
    dispatch(c);
  }
  fe_try(c);
}

static void kernel_done(struct sim_comp *c, uint32_t qi) {
  struct gpu_state *s = c->state;
  struct gpu_queue *q = &s->q[qi];
  if (G_UNLIKELY(c->traced))
    span(c, queue_track(c, qi), "teardown", q->t_phase, sim_now(c->eng));
  s->kernels_done++;
  gpu_send(c, 0, PK_KERNEL_DONE, DEV_CPU, q->kidx);
  q->k = NULL;
  queue_pop(c, qi);
}

/* Adds INC to FLAG and moves on the WGs and queues it satisfies. */
static void flag_update(struct sim_comp *c, uint32_t flag, uint32_t inc) {
  const struct gpu_config *cfg = c->config;
  struct gpu_state *s = c->state;
  check_flag(c, flag);
  s->flag_updates++;
  s->flags[flag].value += inc;
  uint64_t v = s->flags[flag].value;
  sim_time now = sim_now(c->eng);
  for (int32_t *link = &s->flags[flag].wgs; *link >= 0;) {
    struct gpu_wg *w = &s->wg[*link];
    if (w->held != -1 && sim_after_now(c->eng, w->reg_at, w->reg_seq)) {
      /* Held, its batch's event still ahead: that event would see the flag. */
      if (v >= w->wait_value) {
        if (w->held == HELD_LONE) lone_release(c, (uint32_t)*link);
        else batch_release(c, (uint32_t)w->held);
        link = &s->flags[flag].wgs; /* the list changed: from the top again */
      } else {
        link = &w->next;
      }
      continue;
    }
    if (v < w->wait_value) {
      link = &w->next;
      continue;
    }
    sim_time p = w->poll_ps;
    uint32_t slot = (uint32_t)*link;
    *link = w->next;
    if (w->held != -1) held_done(c->eng, s, w);
    sim_time tick = now;
    if (p > 0) tick = w->wait_start + (now - w->wait_start + p - 1) / p * p;
    s->poll_time += (tick - w->wait_start) * (sim_time)w->n;
    w->step++;
    w->desc = !w->desc; /* the list gives a group's WGs back latest first */
    sim_cp_cat(c->eng, CP_WAITING); /* its poll's next tick */
    wg_schedule(c, slot, tick - now);
    sim_cp_cat(c->eng, CP_GPU_WORK);
  }
  for (int32_t *link = &s->flags[flag].queues; *link >= 0;) {
    struct gpu_queue *q = &s->q[*link];
    const struct qcmd *qc = &s->prog->qcmds[q->cmds[q->head].qcmd];
    if (v < np_wait_value(qc->value, q->cmds[q->head].j)) {
      link = &q->flag_next;
      continue;
    }
    uint32_t qi = (uint32_t)*link;
    *link = q->flag_next;
    q->phase = QP_FLAG_SEEN;
    gpu_schedule(c, CP_WAITING, cfg->stream_wait_latency, EV_QUEUE_GO, qi);
  }
}

/* ---- the component ---- */

static void gpu_bus_arrive(struct sim_comp *c, uint64_t h) {
  struct pmsg m = *(struct pmsg *)sim_payload(c->eng, h);
  sim_payload_free(c->eng, h);
  switch (m.kind) {
  case PK_QUEUE_CMD: queue_append(c, m.queue, m.a, m.b); break;
  case PK_FLAG: flag_update(c, m.a, m.b); break;
  default: g_error("%s: unexpected message kind %u from the bus", c->name, m.kind);
  }
}

/* Runs the WGs of batch BI, each as its own EV_WG would have. */
static void batch_run(struct sim_comp *c, uint32_t bi) {
  struct gpu_state *s = c->state;
  if (bi & LONE) {
    run_group(c, bi & ~LONE, true);
    return;
  }
  uint32_t *slots = s->batch[bi].slots, n = s->batch[bi].n; /* s->batch may move below */
  for (uint32_t i = 0; i < n; i++) run_group(c, slots[i], true);
  s->batch_free[s->n_batch_free++] = bi;
}

static void gpu_event(struct sim_comp *c, const struct sim_event *ev);

static void gpu_handle(struct sim_comp *c, const struct sim_event *ev) {
  gpu_event(c, ev);
  batch_close(c); /* a batch only gathers the events of one handler */
}

static void gpu_event(struct sim_comp *c, const struct sim_event *ev) {
  struct gpu_state *s = c->state;
  if (ev->port == 0) {
    gpu_bus_arrive(c, ev->data);
    return;
  }
  uint32_t x = (uint32_t)ev->data;
  switch (ev->kind) {
  case EV_LAUNCH_DONE: launch_done(c, x); break;
  case EV_WG: batch_run(c, x); break;
  case EV_TEARDOWN_DONE: kernel_done(c, x); break;
  case EV_QUEUE_GO:
    if (s->q[x].phase == QP_COPY) copy_home(c, x);
    else s->stream_wait_time += sim_now(c->eng) - s->q[x].t_phase;
    queue_pop(c, x);
    break;
  case EV_BARRIER_DONE: {
    struct gpu_queue *q = &s->q[x];
    int32_t slot = q->barrier_list;
    q->barrier_list = -1;
    while (slot >= 0) { /* latest arrival first: a group's WGs too */
      int32_t next = s->wg[slot].next;
      s->wg[slot].desc = !s->wg[slot].desc;
      run_group(c, (uint32_t)slot, false);
      slot = next;
    }
    dispatch(c);
    break;
  }
  default: g_error("%s: unknown self event %u", c->name, ev->kind);
  }
}

const struct sim_out_decl gpu_outs[] = {
    [GPU_OUT_QUEUE_CMDS] = OUT(queue_cmds, UNIT_NONE,
                               "queue commands enqueued (launches, stream waits, doorbells, markers)"),
    [GPU_OUT_KERNELS] = OUT(kernels, UNIT_NONE, "kernels completed"),
    [GPU_OUT_KERNELS_LAUNCHED] = OUT(kernels_launched, UNIT_NONE, "kernels launched"),
    [GPU_OUT_WGS] = OUT(wgs, UNIT_NONE, "work-groups completed"),
    [GPU_OUT_SLOTS_MAX] = OUT(slots_max, UNIT_NONE, "the most WG slots in use at once"),
    [GPU_OUT_TRIGGERS] = OUT(triggers, UNIT_NONE, "trigger stores to the NIC"),
    [GPU_OUT_HOST_REQUESTS] = OUT(host_requests, UNIT_NONE,
                                  "requests to the CPU's helper threads"),
    [GPU_OUT_NIC_CMDS] = OUT(nic_cmds, UNIT_NONE, "commands posted to the NIC from the GPU"),
    [GPU_OUT_DOORBELLS] = OUT(doorbells, UNIT_NONE, "NIC doorbells rung from a queue (GDS)"),
    [GPU_OUT_FLAG_UPDATES] = OUT(flag_updates, UNIT_NONE, "flag updates arrived in GPU memory"),
    [GPU_OUT_BARRIERS] = OUT(barriers, UNIT_NONE, "device-wide barriers"),
    [GPU_OUT_STREAM_WAITS] = OUT(stream_waits, UNIT_NONE, "stream waits on a flag"),
    [GPU_OUT_LAUNCH_TIME] = OUT(launch_time, UNIT_TIME, "kernel launch latency, summed"),
    [GPU_OUT_TEARDOWN_TIME] = OUT(teardown_time, UNIT_TIME, "kernel teardown, summed"),
    [GPU_OUT_BARRIER_TIME] = OUT(barrier_time, UNIT_TIME, "device-wide barriers' cost, summed"),
    [GPU_OUT_POLL_TIME] = OUT(poll_time, UNIT_TIME, "WG time spent polling flags, summed over WGs"),
    [GPU_OUT_STREAM_WAIT_TIME] = OUT(stream_wait_time, UNIT_TIME,
                                     "queues waiting on a flag (stream waits), summed"),
    [GPU_OUT_WG_TIME] = OUT(wg_time, UNIT_TIME, "WG running time, summed over WGs"),
    [GPU_OUT_WG_LAST_END] = OUT(wg_last_end, UNIT_TIME,
                                "when the latest WG ended its last step; 0: none ran"),
};
SIM_OUT_GROUP(gpu_outputs, "gpu", "node<i>.gpu.KEY; by kind node.gpu.KEY", gpu_outs,
              GPU_OUT_COUNT);

static void gpu_finish(struct sim_comp *c, struct sim_report *r) {
  struct gpu_state *s = c->state;
  sim_out_int(r, c, GPU_OUT_QUEUE_CMDS, (int64_t)s->cmds);
  sim_out_int(r, c, GPU_OUT_KERNELS, (int64_t)s->kernels_done);
  sim_out_int(r, c, GPU_OUT_KERNELS_LAUNCHED, (int64_t)s->kernels_launched);
  sim_out_int(r, c, GPU_OUT_WGS, (int64_t)s->wgs_done);
  sim_out_int(r, c, GPU_OUT_SLOTS_MAX, (int64_t)s->slots_max);
  sim_out_int(r, c, GPU_OUT_TRIGGERS, (int64_t)s->triggers);
  sim_out_int(r, c, GPU_OUT_HOST_REQUESTS, (int64_t)s->host_requests);
  sim_out_int(r, c, GPU_OUT_NIC_CMDS, (int64_t)s->nic_cmds);
  sim_out_int(r, c, GPU_OUT_DOORBELLS, (int64_t)s->doorbells);
  sim_out_int(r, c, GPU_OUT_FLAG_UPDATES, (int64_t)s->flag_updates);
  sim_out_int(r, c, GPU_OUT_BARRIERS, (int64_t)s->barriers);
  sim_out_int(r, c, GPU_OUT_STREAM_WAITS, (int64_t)s->stream_waits);
  sim_out_int(r, c, GPU_OUT_LAUNCH_TIME, s->launch_time);
  sim_out_int(r, c, GPU_OUT_TEARDOWN_TIME, s->teardown_time);
  sim_out_int(r, c, GPU_OUT_BARRIER_TIME, s->barrier_time);
  sim_out_int(r, c, GPU_OUT_POLL_TIME, s->poll_time);
  sim_out_int(r, c, GPU_OUT_STREAM_WAIT_TIME, s->stream_wait_time);
  sim_out_int(r, c, GPU_OUT_WG_TIME, s->wg_time);
  /* -1 (none ran) is the model's sentinel, not a time to report: 0. */
  sim_out_int(r, c, GPU_OUT_WG_LAST_END, MAX(s->wg_last_end, 0));
  ph_add(r, PH_LAUNCH, s->launch_time);
  ph_add(r, PH_GPU_WORK, s->wg_time - s->poll_time);
  ph_add(r, PH_TEARDOWN, s->teardown_time);
  ph_add(r, PH_WAITING, s->poll_time + s->stream_wait_time);
}

static void gpu_destroy(struct sim_comp *c) {
  struct gpu_state *s = c->state;
  for (uint32_t i = 0; i < s->n_q; i++) {
    g_free(s->q[i].cmds);
  }
  g_free(s->q);
  for (size_t i = 0; i < s->n_kinfo; i++) g_free(s->kinfo[i].skip);
  g_free(s->kinfo);
  g_aligned_free(s->wg);
  g_free(s->free_slots);
  g_free(s->pend);
  g_free(s->fe);
  g_free(s->disp);
  g_free(s->flags);
  if (s->arrivals) g_hash_table_destroy(s->arrivals);
  for (uint32_t i = 0; i < s->n_batch; i++) g_free(s->batch[i].slots);
  g_free(s->batch);
  g_free(s->batch_free);
}

/* Fetching ahead (sim_type.prefetch): a flag's record, then the first WG
 * on its list; a lone batch's WG (both lines), then its queue; a batch's
 * record, then its slot array. */
static void gpu_prefetch(const struct sim_comp *c, const struct sim_event *ev, int stage) {
  const struct gpu_state *s = c->state;
  if (ev->port == 0) {
    const struct pmsg *m = sim_payload(c->eng, ev->data);
    if (m->kind != PK_FLAG || m->a >= s->n_fwords) return;
    const struct gpu_flag *f = &s->flags[m->a];
    if (stage == 1) __builtin_prefetch(f);
    else if (f->wgs >= 0 && (uint32_t)f->wgs < s->n_slots) __builtin_prefetch(&s->wg[f->wgs]);
    return;
  }
  if (ev->kind != EV_WG) return;
  uint32_t x = (uint32_t)ev->data;
  if (x & LONE) {
    uint32_t slot = x & ~LONE;
    if (slot >= s->n_slots) return;
    const struct gpu_wg *w = &s->wg[slot];
    if (stage == 1) {
      __builtin_prefetch(w);
      __builtin_prefetch((const char *)w + 64);
    } else if (w->queue >= 0 && (uint32_t)w->queue < s->n_q) {
      __builtin_prefetch(&s->q[w->queue]);
    }
  } else if (x < s->n_batch) {
    if (stage == 1) __builtin_prefetch(&s->batch[x]);
    else __builtin_prefetch(s->batch[x].slots);
  }
}

const struct sim_type gpu_type = {
    .name = "gpu",
    .doc = "a GPU: front end with in-order queues and CUs running work-groups",
    .params = &gpu_params,
    .ports = gpu_ports,
    .n_ports = 1,
    .state_size = sizeof(struct gpu_state),
    .handle = gpu_handle,
    .outputs = &gpu_outputs,
    .finish = gpu_finish,
    .destroy = gpu_destroy,
    .port_payloads = true,
    .prefetch = gpu_prefetch,
    .cp_cat = CP_GPU_WORK,
    .cp_link = CP_BUS,
};

struct sim_comp *gpu_add(struct sim_engine *e, const char *name, const struct gpu_config *cfg,
                         const struct nodeprog *prog, uint32_t node) {
  static const struct nodeprog empty = {0};
  g_assert(cfg && cfg->clock > 0 && cfg->cus >= 1 && cfg->wgs_per_cu >= 1 &&
           cfg->flops_per_cu_cycle >= 1 && cfg->mem_bandwidth > 0 && cfg->queues >= 1 &&
           cfg->queues <= 256 && cfg->cus * cfg->wgs_per_cu <= INT32_MAX);
  struct sim_comp *c = sim_add(e, &gpu_type, name, cfg);
  struct gpu_state *s = c->state;
  s->prog = prog ? prog : &empty;
  s->node = node;
  s->wg_last_end = -1;
  s->open_batch = -1;
  uint32_t nf = s->prog->n_flags + 1;
  s->n_fwords = nf;
  s->flags = g_new0(struct gpu_flag, nf);
  for (uint32_t i = 0; i < nf; i++) s->flags[i].wgs = s->flags[i].queues = -1;
  s->n_q = (uint32_t)cfg->queues;
  s->q = g_new0(struct gpu_queue, s->n_q);
  for (uint32_t i = 0; i < s->n_q; i++) {
    s->q[i].track = -1;
    s->q[i].barrier_list = s->q[i].flag_next = -1;
  }
  s->fe = g_new(uint32_t, s->n_q);
  s->disp = g_new(uint32_t, s->n_q);
  s->n_slots = (uint32_t)(cfg->cus * cfg->wgs_per_cu);
  s->wg = g_aligned_alloc0(s->n_slots, sizeof *s->wg, _Alignof(struct gpu_wg));
  s->free_slots = g_new(int32_t, s->n_slots);
  for (uint32_t i = 0; i < s->n_slots; i++) {
    s->wg[i].queue = -1;
    s->wg[i].held = -1;
    s->wg[i].track = -1;
    s->free_slots[i] = (int32_t)(s->n_slots - 1 - i);
  }
  s->n_free = s->units_free = s->n_slots;
  s->pend = g_new(uint32_t, s->n_slots);
  return c;
}
