/* The per-rank intermediate form a workload builds and a policy lowers
 * (DESIGN.md Sec. 4 and 8): per rank, compute phases, sends, receives and
 * device syncs. It names no policy and no hardware.
 *
 * A rank is one of two shapes:
 * - a sequence (the built-in workloads): ops run in order, lane 1 ops may
 *   overlap lane 0 until the next sync;
 * - a dependency graph (GOAL schedules, YAML programs, collectives): once
 *   any op of the rank has an explicit dependency (wl_requires,
 *   wl_irequires), every op starts as soon as the ops it requires have
 *   completed (irequires: started), as in LogGOPSim's GOAL semantics; an op
 *   with no dependency starts at time zero. Host-driven policies run such a
 *   rank as a graph (models/cpu.c); policies that drive from the GPU run one
 *   order of it (wl_linearize), waits placed as late as dependencies allow.
 * Messages match in program order: the k-th send from A to B with tag T
 * meets the k-th receive at B from A with tag T (LogGOPSim matches in
 * arrival order; the two agree when a rank's sends to one peer and tag are
 * ordered by its dependencies, as in every schedule Schedgen writes).
 * Sequence ranks may hold loops (wl_loop .. wl_end): the body runs `count`
 * times, exactly as if written out that many times (wl_unroll), so a
 * workload states what one rank does in as many ops as it takes to write,
 * not as many as it runs (iterations, ring steps). Policies that lower
 * loops (pol_type.loops) keep them in the node programs (nodeprog.h,
 * np_loops); the others run the unrolled program. A looped program is
 * lowered as written when its messages match loop for loop (wl_program_check:
 * a send and the receive it meets sit in the same loops, numbered in each
 * rank's order, with the same counts); otherwise it is unrolled first. See
 * wl_coll for collectives written as one call.
 *
 * Where this form goes next (DESIGN.md Sec. 8; the scale, libraries and
 * bring-your-own issues): loops (above) keep a built-in workload's program
 * as long as what one rank does, and memory follows what is in flight
 * (queues bounded by the hardware's depths, flags counted, not one per
 * message). A graph rank of a GOAL file run by a host-driven policy is
 * read a window at a time by a cursor per rank and lowered op by op into
 * the CPU's graph executor, messages matched as they are read, never
 * forming this struct (workloads/inputs/goal.c, "the streamed run";
 * nodeprog.h, np_source). Under the GPU-driven policies that put a rank
 * into one kernel (gputn, ghn, cpufree, p2p, monolithic), likewise: the order they
 * lower a graph rank in is windowed (wl_linearize, wl_lin: the next op
 * among the first `window` not placed, so a rank's order is known from a
 * window of it, read whole or not), each op placed is lowered by the
 * policy's own lowering of that op alone, and the GPU and the CPU read the
 * kernel's and the host's steps as windows and give back what they passed
 * (workloads/inputs/goal.c, "the streamed run under the GPU-driven policies";
 * nodeprog.h, np_seq). gds too, op by op onto its stream (a kernel per
 * calc; a receive's watcher depends on whether stream work follows it,
 * so a send's command places its peer's order up to the receive first;
 * workloads/inputs/goal.c, "the streamed run under gds"). A collective
 * kept as one op in a source read while it runs (a Chakra trace) is
 * written out op by op as the run's library runs it (coll.h,
 * wl_coll_source), its library's kernel (a region) placed and read whole.
 * One step remains: a collective that a communication library lowers its
 * own way without writing out its sends and receives (an NCCL-like kernel
 * as one step, NVSHMEM-like device puts), as a host MPI does not. */
#ifndef WL_PROGRAM_H
#define WL_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum wl_op_kind {
  WL_COMPUTE, /* n_wgs work-groups, each flops_per_wg and bytes_per_wg */
  WL_SEND,    /* bytes to rank peer, matched by (sender, tag) at the peer */
  WL_RECV,    /* bytes from rank peer with tag */
  WL_SYNC,    /* all of the rank's compute before it ends before any after it
                 starts (a kernel boundary, or a device-wide barrier); sequence
                 ranks only */
  WL_LOOP,    /* the ops up to the matching WL_END run `count` times; sequence
                 ranks only (wl_loop) */
  WL_END,     /* end of the innermost open loop's body */
  WL_COLL,    /* a collective of every rank, or of a group of them
                 (wl_group_add), as one op (wl_collective): the
                 communication library expands it when the program is
                 lowered (wl_expand_colls, coll.h) */
  WL_QUIET,   /* nvshmem_quiet: done once every put (one-sided send) of the
                 rank since the previous quiet has completed remotely (its
                 target's NIC acknowledged it); graph ranks (wl_quiet) */
};

/* Where a compute op runs (WL_COMPUTE's `on`). */
/* How an SpMV op's kernel walks the matrix (wl_spmv_alg): what the code
 * was written with, not what a policy does (the policy decides only
 * whether the SpMV is a kernel of its own, where a library can run it). */
enum wl_spmv {
  WL_SPMV_ROW,     /* one row per work-item everywhere (a hand-written scalar
                      CSR kernel: ParCoreLab/CPU-Free-model's gpuSpMV, fused
                      and discrete; the CUDA samples' CG): each work-item
                      streams its own row (uncoalesced, models/gpu.h "L1"),
                      and the kernel lasts as long as its longest row */
  WL_SPMV_LIBRARY, /* a library SpMV (cuSPARSE's cusparseSpMV, as aCG's
                      host-driven CG calls it) where the SpMV is a kernel of
                      its own; a fused kernel, which cannot call one, walks
                      one row per work-item (the CPU-free code) */
  WL_SPMV_MERGE,   /* coalesced and row-balanced everywhere: the library's
                      where launched, an in-kernel merge-path SpMV where
                      fused (aCG's monolithic kernel, csrgemv_merge) */
};

/* Which form of a program's code an op belongs to, where a workload
 * writes its code two ways (cg's aCG: its monolithic kernel, and its
 * host-driven solver): what each form does, its grid and its phases; the
 * policy's `prepare` keeps the form its lowering runs (pol_prep_form). */
enum wl_form {
  WL_FORM_ANY,      /* both forms'; every program's other ops */
  WL_FORM_FUSED,    /* the code as one kernel of the rank's program */
  WL_FORM_DISCRETE, /* the code as kernels launched one by one */
};

/* What a send orders before its signal, where a library decides whether a
 * device-initiated put fences first (library.h: NVSHMEM inside a node). */
enum wl_fence {
  WL_FENCE_DATA,  /* its data, or the writes before it: a fence first (every
                     message but those below) */
  WL_FENCE_NONE,  /* nothing: a flag store (a barrier round's signal after the
                     first), or data stored with its flag in each word */
  WL_FENCE_ENTRY, /* the writes before its collective: fenced where the call
                     runs inside a kernel already running (a device-called
                     barrier's quiet), not where the call is a kernel of its
                     own (the launch after the kernel before orders them) */
};

enum wl_where {
  WL_ON_ANY, /* the policy's compute device: the GPU, or the CPU under `cpu` */
  WL_ON_CPU, /* the host CPU (a GOAL calc with calc_on: cpu) */
  WL_ON_GPU, /* the GPU (calc_on: gpu); not under `cpu` */
};

/* Which WGs of a compute phase make (or consume) a message: first +
 * j * stride for j < count; count 0 = all of them. */
struct wl_wgsel {
  uint32_t first, stride, count;
};

/* What a compute op's kernel does, in its program's table (wl_op.kernel;
 * entry 0: nothing, a phase of its time_ps or of no work). Entries are
 * never changed once added (wl_kernel_add gives equal ones one index). */
struct wl_kernel {
  int64_t flops_per_wg;  /* flops of each WG */
  int64_t bytes_per_wg;  /* bytes of memory traffic of each WG */
  uint8_t kclass;        /* enum kclass (models/nodeprog.h; 0 = streaming), set by wl_kclass */
  uint8_t spmv;          /* KC_SPMV (wl_spmv_alg): enum wl_spmv */
  uint8_t x_gets;        /* KC_SPMV row-per-thread: x read through gets (wl_spmv_gets) */
  int64_t ws_bytes;      /* the phase's whole working set (all WGs); 0: unknown */
  int64_t reuse_per_wg;  /* bytes per WG re-read from a gathered vector */
  int64_t gather_bytes;  /* that vector's size */
  int64_t rows_per_wg;   /* KC_SPMV row-per-thread: rows per WG (wl_spmv_rows); 0: none */
  int64_t nnz_per_wg;    /* their non-zeros */
  int64_t peer_per_wg;   /* blocking loads of peer GPUs' memory per WG (wl_peer_loads) */
  int64_t peer_sectors_per_wg; /* the link requests they make per WG; 0: one a load */
  int64_t cold_per_wg;   /* of bytes_per_wg, those L2 evicted since their last use (wl_cold) */
  /* KC_SPMV (wl_spmv_alg): the work per WG of the coalesced, row-balanced
   * form (no rows_per_wg footprint, not stretched to the longest row);
   * flops_per_wg .. nnz_per_wg above are the row-per-work-item form's. */
  int64_t bal_flops_per_wg, bal_bytes_per_wg, bal_reuse_per_wg;
  int64_t merge_extra_per_wg; /* bytes an in-kernel merge-path SpMV moves beyond
                                 the library's (WL_SPMV_MERGE, fused) */
  /* A vendor library's call (cuBLAS GEMM/GEMV/dot: class library) where the
   * op is a kernel of its own, its work per WG (wl_library); a fused kernel,
   * which cannot call one, runs the generated form above. */
  uint8_t lib;
  int64_t lib_flops_per_wg, lib_bytes_per_wg;
  /* Work-items per WG the op's own kernel is launched with (a reduction's
   * warp-sized blocks; 0: the GPU's wg_items), and the independent
   * reductions (rows) it makes, all WGs together, of segment_len elements
   * each (0: unknown): what a fused kernel's one block size costs it
   * (wl_block, kernel.c). */
  uint32_t block;
  int64_t segments, segment_len;
  /* Memory objects the kernel takes as arguments, what an OpenCL launch
   * pays for (wl_buffers, cpu.launch_per_buffer), and the element each
   * work-item loads, what it keeps in flight (wl_elem, kstep.item_bytes;
   * 0: gpu.item_bytes). */
  uint8_t buffers;
  uint16_t elem_bytes;
  /* A host op (WL_ON_CPU) that moves data between the GPU's memory and the
   * host as COPIES blocking copies of COPY_BYTES each, one after another
   * (wl_blocking_copies): what a policy with a GPU charges for it in place
   * of its roofline (lower.h pol_host_time); 0: none. */
  int64_t copies, copy_bytes;
};

/* A collective called as one op (WL_COLL, wl_collective), in its
 * program's table (wl_op.kernel): with the op's bytes, peer (root), tag,
 * n_wgs (reduction WGs: 0, a reduction too small to cost a phase),
 * parts and stores, the call (struct wl_coll, coll.h). */
struct wl_call {
  uint8_t kind, algo;    /* enum wl_coll_kind, enum wl_coll_algo */
  int64_t elem_bytes;
  int64_t flops_per_elem;
  int64_t segment_bytes;
  uint32_t group;        /* 0: every rank of the program; else the ranks of
                            its group (wl_group_get; the op's peer, the root,
                            is one of them) */
};

/* A process group: the ranks a collective of some of them runs over (an
 * MPI communicator, a PyTorch process group), in ascending order
 * (wl_group_add), in its program's table beside the calls. */
struct wl_group {
  uint32_t n;
  uint32_t *ranks;
};

/* The kernels and collectives ops name by index: shared by a program and
 * those derived from it (wl_program_derive), appended to, never changed. */
struct wl_descs;

struct wl_op {
  uint8_t kind;          /* enum wl_op_kind */
  uint8_t on;            /* WL_COMPUTE: enum wl_where; a producer that places
                            computes checks the policy can (computes_on) */
  uint8_t one_sided;     /* WL_SEND, WL_RECV: a put and its signal wait, no host
                            receive (both ends must agree) */
  uint8_t lane;          /* 0, or 1: communication and the work feeding it,
                            free to overlap lane 0 until the next sync (a
                            second stream, or specialized WGs); or
                            WL_LANE_STREAM: lane 1 that the code runs on a
                            stream of its own, so that even a policy of one
                            stream (gds) gives it a second (wl_in_lane1) */
  uint8_t pack;          /* WL_COMPUTE: a small phase only a kernel launched for it
                            does, which a fused kernel does in place: packing
                            strided halos into a contiguous send buffer (or
                            unpacking a received one) for a library that moves
                            messages by DMA from a kernel boundary, or a dot's
                            reset kernel (cg); the lowerings of one kernel
                            (kernel.c) drop it (wl_pack) */
  uint8_t host_reads;    /* WL_SYNC: the host reads a value made before it (a
                            scalar copied home and a stream synchronize, as a
                            CPU-controlled solver computing its coefficients
                            does): a lowering that keeps the host off the
                            stream (gds) waits for the stream here */
  uint8_t copies_home;   /* WL_SYNC with host_reads: the 8 B scalars copied
                            device-to-host into pageable memory before the
                            wait, one cudaMemcpyAsync each; each returns only
                            once its copy is done (wl_host_copies) */
  uint8_t form;          /* enum wl_form: the form of the code it belongs to */
  uint32_t n_wgs;        /* WL_COMPUTE, >= 1 */
  uint32_t kernel;       /* WL_COMPUTE: its kernel (struct wl_kernel); WL_COLL: its
                            call (struct wl_call); an index into the program's
                            table (wl_kernel_of, wl_call_of) */
  int64_t time_ps;       /* WL_COMPUTE: if > 0, each WG takes this long (a GOAL
                            calc), overriding its kernel's flops and bytes */
  uint32_t peer;         /* WL_SEND, WL_RECV */
  uint8_t tile;          /* WL_SYNC: the ops after it read only what their own
                            WG (tile) wrote before it: a block-level sync
                            where the rank runs as one kernel, a kernel
                            boundary otherwise (wl_tile_sync) */
  uint8_t fence;         /* WL_SEND: enum wl_fence (a collective's, coll.c) */
  int64_t bytes;         /* WL_SEND, WL_RECV */
  uint32_t tag;          /* WL_SEND, WL_RECV: matched in program order per
                            (sender, receiver, tag) */
  /* WL_SEND, WL_RECV: the data is `parts` equal pieces, piece j made by
   * (send) or consumed by (recv) WGs [j*n/parts, (j+1)*n/parts) of the
   * nearest compute phase before (send) or after (recv). Policies that send
   * at kernel boundaries move the pieces as one message. >= 1. */
  uint32_t parts;
  uint32_t stores;       /* WL_SEND: trigger stores per producing WG (1 per
                            work-item at work-item granularity), >= 1 */
  struct wl_wgsel sel;   /* WL_SEND, WL_RECV with parts 1: the WGs that make
                            (consume) it, e.g. a halo's edge; default all */
  uint32_t line;         /* where the op was written (a GOAL or YAML line), 0:
                            built by a workload; for messages */
  uint32_t dep_first;    /* graph ranks: deps[dep_first .. + n_deps) */
  uint32_t n_deps;
  uint32_t count;        /* WL_LOOP: iterations, >= 1 */
  /* Set by wl_expand_colls on the ops a collective became under a library
   * that runs it on the GPU as one kernel (NCCL-like, NVSHMEM-like): 1 +
   * the rank's collective call, the same on each op of one call; 0:
   * not (the policy moves those messages its own way). */
  uint32_t region;
  /* Filled by wl_program_check: */
  uint32_t match;        /* WL_SEND: index of the matching receive at peer;
                            WL_RECV: 1 when a send matches it */
  uint32_t flag;         /* WL_RECV: first of its `parts` flag ids (1-based);
                            WL_QUIET: the flag its puts' ACKs count on (then
                            `count`: how many, their parts) */
  uint32_t quiet;        /* WL_SEND, one-sided: the flag of the quiet after it
                            (its ACK adds 1 a part), 0: none */
};

/* A dependency of a graph rank's op: on op `op` having completed
 * (requires) or started (irequires). */
struct wl_dep {
  uint32_t op;
  uint8_t on_start;
};

struct wl_rank {
  struct wl_op *ops;
  size_t n_ops, cap;
  struct wl_dep *deps;   /* graph ranks */
  size_t n_deps, deps_cap;
  bool graph;            /* a dependency graph, not a sequence */
  uint8_t lane;          /* the lane ops are added to (wl_lane) */
  uint8_t depth;         /* loops open (wl_loop) */
  uint8_t form;          /* the form ops are added to (wl_form) */
  uint32_t n_flags;      /* filled by wl_program_check */
};

#define WL_ALL_RANKS UINT32_MAX

struct wl_program {
  uint32_t n_ranks;
  struct wl_rank *ranks;
  struct wl_descs *descs; /* the kernels and collectives its ops name */
  /* The rank whose completion is the run's time (ping: the receiver), or
   * WL_ALL_RANKS: the latest of them all (collectives). */
  uint32_t measured_rank;
  /* The forms its ops are written in (bit 1 << enum wl_form of those
   * other than WL_FORM_ANY); 0: one form, every op WL_FORM_ANY. */
  uint8_t forms;
  bool checked;
};

/* A program of N_RANKS empty ranks, measured on all ranks; free with
 * wl_program_free. */
struct wl_program *wl_program_new(uint32_t n_ranks);
void wl_program_free(struct wl_program *p);
/* An empty program of P's ranks and measured rank that shares P's kernels
 * and collectives (a rewrite of P copies P's ops into it as they are). */
struct wl_program *wl_program_derive(const struct wl_program *p);
/* An empty program of N_RANKS ranks, measured on all ranks, whose ops name
 * the kernels and calls of table D (an op source's; shared). */
struct wl_program *wl_program_on(uint32_t n_ranks, struct wl_descs *d);

/* The kernel of compute op O of P (entry 0 for none), and the call of
 * collective op O. */
const struct wl_kernel *wl_kernel_of(const struct wl_program *p, const struct wl_op *o);
const struct wl_call *wl_call_of(const struct wl_program *p, const struct wl_op *o);
/* The table of DESCS (a program's, or an op source's): kernel I, call I,
 * group G (NULL for G 0: every rank). */
const struct wl_kernel *wl_descs_kernel(const struct wl_descs *d, uint32_t i);
const struct wl_call *wl_descs_call(const struct wl_descs *d, uint32_t i);
const struct wl_group *wl_descs_group(const struct wl_descs *d, uint32_t g);
/* K's index in P's table (added when no equal entry is there). */
uint32_t wl_kernel_add(struct wl_program *p, const struct wl_kernel *k);
uint32_t wl_call_add(struct wl_program *p, const struct wl_call *c);
/* A table of kernels with only entry 0 (a source whose ops name none);
 * free with wl_descs_unref. */
struct wl_descs *wl_descs_new(void);
void wl_descs_unref(struct wl_descs *d);

/* The group of the N (>= 1) distinct ranks RANKS of P (any order; each
 * below p->n_ranks), in P's table (shared with the programs derived from
 * it): its number (>= 1) for wl_call.group and wl_coll.group, the same
 * number for the same members. */
uint32_t wl_group_add(struct wl_program *p, const uint32_t *ranks, uint32_t n);
/* Group G of P, or NULL for G 0 (every rank); the groups P has (numbered
 * 1 .. wl_groups). */
const struct wl_group *wl_group_get(const struct wl_program *p, uint32_t g);
uint32_t wl_groups(const struct wl_program *p);

void wl_compute(struct wl_program *p, uint32_t rank, uint32_t n_wgs, int64_t flops_per_wg,
                int64_t bytes_per_wg);
/* A send and a receive of one piece. */
void wl_send(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes, uint32_t tag);
void wl_recv(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes, uint32_t tag);
/* Same, in PARTS pieces; the send's producers store STORES times each. */
void wl_send_parts(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes,
                   uint32_t tag, uint32_t parts, uint32_t stores);
void wl_recv_parts(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes,
                   uint32_t tag, uint32_t parts);
void wl_sync(struct wl_program *p, uint32_t rank);
/* A sync after which the host reads a value the GPU made (a scalar copied
 * home, then cudaStreamSynchronize): wl_op.host_reads. */
void wl_host_sync(struct wl_program *p, uint32_t rank);
/* Same, the host first copying COPIES (>= 1) 8 B scalars home, one
 * cudaMemcpyAsync device-to-host each into pageable memory (a stack
 * variable): the CUDA runtime returns from such a copy only once it has
 * completed ("API synchronization behavior"), so the copies run one after
 * another, each a round trip of the host (wl_op.copies_home). */
void wl_host_copies(struct wl_program *p, uint32_t rank, uint8_t copies);
/* Declares the LAST compute op of RANK to be of class KCLASS (enum kclass)
 * with working set WS_BYTES (all its WGs; 0: unknown), REUSE_PER_WG bytes
 * per WG re-read from a gathered vector of GATHER_BYTES (SpMV's x; 0, 0
 * for other classes). */
void wl_kclass(struct wl_program *p, uint32_t rank, uint8_t kclass, int64_t ws_bytes,
               int64_t reuse_per_wg, int64_t gather_bytes);
/* The kernel class (enum kclass, models/nodeprog.h) a program names NAME:
 * streaming, stencil, spmv, reduction, axpy, gemm, library; -1: none. */
int wl_kclass_named(const char *name);
/* Declares the LAST compute op of RANK a row-per-thread CSR SpMV of
 * ROWS_PER_WG rows holding NNZ_PER_WG non-zeros per WG (its L1 reuse,
 * models/gpu.h). */
void wl_spmv_rows(struct wl_program *p, uint32_t rank, int64_t rows_per_wg, int64_t nnz_per_wg);
/* Declares that the LAST compute op of RANK, a host op (WL_ON_CPU), is
 * COPIES (>= 1) blocking copies of COPY_BYTES (>= 1) each between GPU and
 * host memory, one after another: a CUDA-aware MPI packing (or unpacking)
 * a strided GPU buffer one contiguous block at a time (wl_kernel.copies;
 * each timed by models/system.h sys_blocking_copy). */
void wl_blocking_copies(struct wl_program *p, uint32_t rank, int64_t copies, int64_t copy_bytes);
/* Declares that the LAST compute op of RANK reads PEER_PER_WG values per
 * WG from other GPUs' memory, each a blocking load (nvshmem_double_g:
 * kstep.peer_loads, models/gpu.h "Peer loads"). */
void wl_peer_loads(struct wl_program *p, uint32_t rank, int64_t peer_per_wg,
                   int64_t peer_sectors_per_wg);
/* Declares that COLD_PER_WG of the LAST compute op's bytes per WG come from
 * memory though its working set fits L2: what the ops since their last use
 * evicted (kstep.cold_bytes, models/gpu.h "L2 reuse"). */
void wl_cold(struct wl_program *p, uint32_t rank, int64_t cold_per_wg);
/* The last compute op, a row-per-thread SpMV, reads every x value through a
 * get (nvshmem_double_g), its own rank's too (kstep.gets, gpu.h "L1"). */
void wl_spmv_gets(struct wl_program *p, uint32_t rank);
/* Declares the LAST compute op of RANK an SpMV written as ALG (enum
 * wl_spmv), whose coalesced, row-balanced form (a library's) moves
 * BYTES_PER_WG and re-reads REUSE_PER_WG per WG for FLOPS_PER_WG; an
 * in-kernel merge-path one moves MERGE_EXTRA_PER_WG more (lower.h:
 * pol_launch_step, pol_compute_step). */
void wl_spmv_alg(struct wl_program *p, uint32_t rank, uint8_t alg, int64_t flops_per_wg,
                 int64_t bytes_per_wg, int64_t reuse_per_wg, int64_t merge_extra_per_wg);
/* Declares that the LAST compute op of RANK's work-items load elements of
 * BYTES (what each keeps in flight: kstep.item_bytes, gpu.h). */
void wl_elem(struct wl_program *p, uint32_t rank, int64_t bytes);
/* Declares that the LAST compute op of RANK's kernel takes N memory
 * objects as arguments (wl_kernel.buffers). */
void wl_buffers(struct wl_program *p, uint32_t rank, uint8_t n);
/* A compute op of a fixed TIME_PS (one WG) on device ON (enum wl_where):
 * GOAL's calc. */
void wl_calc(struct wl_program *p, uint32_t rank, int64_t time_ps, uint8_t on);
struct cpu_config;
/* Compute op O (its kernel K) on every core of CPU, through a roofline
 * (the larger of its flops at cores * clock * flops_per_cycle and its bytes
 * at mem_bandwidth, each rounded up to a ps), or its time_ps per WG: what
 * the `cpu` policy runs it in, and what a GOAL calc exported from it lasts. */
int64_t wl_cpu_time(const struct cpu_config *cpu, const struct wl_kernel *k, const struct wl_op *o);
/* The index of RANK's latest op. */
uint32_t wl_last(const struct wl_program *p, uint32_t rank);
/* Op OP of RANK starts only after op ON has completed (requires) or
 * started (irequires); makes RANK a graph. ON != OP. */
void wl_requires(struct wl_program *p, uint32_t rank, uint32_t op, uint32_t on);
void wl_irequires(struct wl_program *p, uint32_t rank, uint32_t op, uint32_t on);
/* Marks RANK a graph with no dependency added yet (every op starts at
 * once until some are). */
void wl_graph(struct wl_program *p, uint32_t rank);
/* A copy of P in which every graph rank is a sequence: one order of its
 * ops that respects every dependency, taking at each point, among the
 * first WINDOW ops not yet placed (0: all of them), the lowest-numbered
 * ready op that does not wait for data, and a receive only when nothing
 * else of them is ready (so a wait sits as late as the dependencies allow
 * within the window); when none of them is ready (a dependency on an op
 * written later), the same among all ops. With REGIONS (a lowering that
 * runs a library's collective as a kernel of its own, pol_coll_op), an op
 * of a library region (a collective's kernel, wl_op.region) so picked
 * places its region whole,
 * its ops in their written order, the region's first op first: they wait
 * only for one another and for what the call waited for (its first ops'
 * dependencies), so all are ready in that order once one is, and one
 * kernel runs them. A rank of at most WINDOW ops
 * gets the order of WINDOW 0. Matches and flags are kept. P must be
 * checked; free with wl_program_free. */
struct wl_program *wl_linearize(const struct wl_program *p, uint32_t window, bool regions);

/* The same order built op by op, for a rank read while it runs (a GOAL
 * schedule streamed, workloads/inputs/goal.c): ops are added in program order
 * (WAITS: a receive or a quiet; REGION: wl_op.region where regions are
 * placed whole, else 0), then their dependencies (op A waits for
 * op B; B placed already: nothing), and sealed once all of theirs are
 * added. wl_lin_next gives the next op of the order (1), or 0 when the
 * window is not yet added and sealed (unless END: no op comes), or -1 when
 * every op is placed or none of the window is ready (WIDEN: then the
 * lowest ready op outside it, as wl_linearize does). */
struct wl_lin;
struct wl_lin *wl_lin_new(uint32_t window);
void wl_lin_free(struct wl_lin *l);
void wl_lin_add(struct wl_lin *l, bool waits, uint32_t region);
void wl_lin_dep(struct wl_lin *l, uint64_t a, uint64_t b);
void wl_lin_seal(struct wl_lin *l, uint64_t n);
int wl_lin_next(struct wl_lin *l, bool end, bool widen, uint64_t *op);
/* Whether any rank of P is a graph. */
bool wl_has_graph(const struct wl_program *p);
/* "rank R op I" plus " (line L)" when the op has a line, into BUF. */
const char *wl_op_where(const struct wl_program *p, uint32_t rank, size_t i, char *buf,
                        size_t size);
/* Opens a loop of COUNT (>= 1) iterations on sequence rank RANK: the ops
 * added until the matching wl_end form its body. Loops nest at most
 * WL_MAX_DEPTH deep; every loop is closed before the program is checked. */
void wl_loop(struct wl_program *p, uint32_t rank, uint32_t count);
void wl_end(struct wl_program *p, uint32_t rank);
#define WL_MAX_DEPTH 4
/* Whether any rank of P holds a loop. */
bool wl_has_loops(const struct wl_program *p);
/* Whether every loop's start and end in P come right after a sync (or at a
 * rank's start): where no compute is outstanding, so that a lowering that
 * carries state from op to op (kernels not yet waited for) is in the same
 * state at every iteration's start. */
bool wl_loops_at_syncs(const struct wl_program *p);
/* The ops of P's ranks once every loop is written out (loop markers not
 * counted), saturating at UINT64_MAX. */
uint64_t wl_unrolled_ops(const struct wl_program *p);
/* The most times any op of RANK runs (the product of its loops' counts). */
uint64_t wl_most_runs(const struct wl_program *p, uint32_t rank);
/* A copy of P with every loop written out; unchecked. Free with
 * wl_program_free. */
struct wl_program *wl_unroll(const struct wl_program *p);
/* A copy of P in which every loop of COUNT >= 2 iterations runs COUNT - 1
 * and its body follows it once more (innermost loops too): every
 * iteration of a loop then has an iteration or the same body after it, for
 * a lowering that looks at what follows an op (gds's receive watcher).
 * Unchecked. */
struct wl_program *wl_peel_last(const struct wl_program *p);

/* nvshmem_quiet on graph rank RANK (WL_QUIET): waits for the remote
 * completion of the rank's puts since its previous quiet. */
void wl_quiet(struct wl_program *p, uint32_t rank);

/* A sync whose dependency stays within each WG (wl_op.tile): the steps
 * after it read only what the same tile wrote before it. */
void wl_tile_sync(struct wl_program *p, uint32_t rank);
/* Declares the LAST compute op of RANK a vendor library call (cuBLAS
 * GEMM/GEMV/dot) where it is a kernel of its own, doing LIB_FLOPS_PER_WG
 * and moving LIB_BYTES_PER_WG per WG as the library does (class library);
 * its generated form (the kernel's own flops and bytes) runs where it is
 * fused (wl_kernel.lib). */
void wl_library(struct wl_program *p, uint32_t rank, int64_t lib_flops_per_wg,
                int64_t lib_bytes_per_wg);
/* Declares that the LAST compute op of RANK is launched with BLOCK work-items
 * per WG where it is a kernel of its own, and makes SEGMENTS independent
 * reductions (rows) of SEGMENT_LEN elements each (0: unknown) in all: a
 * fused kernel runs it at the GPU's wg_items, split into tiles of a row
 * each where rows are shorter, each row paying a block-level sync per
 * extra tree level (wl_kernel.block; workloads/policies/kernel.c). */
void wl_block(struct wl_program *p, uint32_t rank, uint32_t block, int64_t segments,
              int64_t segment_len);

/* Marks RANK's last op (a compute) as a pack or unpack phase (wl_op.pack). */
void wl_pack(struct wl_program *p, uint32_t rank);

/* Makes empty rank RANK of Q a copy of SRC (ops, dependencies, shape). */
void wl_copy_rank(struct wl_program *q, uint32_t rank, const struct wl_rank *src);

/* Appends O to RANK as it is (its lane, its loop marker: opens or closes
 * a loop), for copies and expansions; no dependency. */
void wl_push_op(struct wl_program *p, uint32_t rank, const struct wl_op *o);

/* Lane 1 that the code runs on a stream of its own (wl_op.lane). */
#define WL_LANE_STREAM 2
/* Whether op O is lane 1's (either kind). */
static inline bool wl_in_lane1(const struct wl_op *o) { return o->lane != 0; }

/* Ops added to RANK from now on go to LANE (0, 1 or WL_LANE_STREAM). */
void wl_lane(struct wl_program *p, uint32_t rank, uint8_t lane);
/* Ops added to RANK from now on belong to FORM (enum wl_form); the program
 * has that form (wl_program.forms). */
void wl_form(struct wl_program *p, uint32_t rank, uint8_t form);
/* A copy of P holding only the ops of FORM and of both (checked by the
 * caller); P itself when it has one form. */
struct wl_program *wl_select_form(const struct wl_program *p, uint8_t form);
/* Restricts the last op of RANK (a send or receive of one part) to SEL. */
void wl_select(struct wl_program *p, uint32_t rank, struct wl_wgsel sel);

uint32_t wl_count(const struct wl_program *p, uint32_t rank, enum wl_op_kind kind);

/* Size limits a workload's check hook holds its scenario to before building
 * a program: the ops of all ranks together (about 80 B each, several times
 * that once lowered: 2^25 keeps a run within a few GB), and the WGs of one
 * compute phase (a 32-bit count). */
#define WL_MAX_OPS (UINT64_C(1) << 25)
#define WL_MAX_WGS ((uint64_t)UINT32_MAX)

/* Checks that every send has exactly one matching receive of the same size
 * and parts, and that graph ranks have no cycle; fills match, flag and
 * n_flags. False and *ERR (g_free) naming the op when not. Idempotent. In a
 * program with loops, a send and its receive must also sit in the same
 * loops (see above); when they do not, the error says so, and the unrolled
 * program (wl_unroll) is the one to check and lower. A
 * receive that no send matches is found by wl_program_unmatched (an
 * input error too, as an unmatched send: validate rejects both). */
bool wl_program_check(struct wl_program *p, char **err);

/* True and *ERR naming the first receive that no send matches (the run
 * would deadlock there: "OP: expected a send from rank P to match its
 * receive of N B with tag T, got none ..."), after wl_program_check. */
bool wl_program_unmatched(const struct wl_program *p, char **err);

/* The receive matching send I of RANK (after wl_program_check). */
const struct wl_op *wl_matching_recv(const struct wl_program *p, uint32_t rank, size_t i);

#endif
