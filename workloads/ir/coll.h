/* Collectives written as one call: each expands, on one rank, into the
 * sends, receives and reductions of its algorithm as ops of a graph rank
 * (program.h), so that every policy lowers them. The algorithms are those
 * of MPICH's classic collectives (Thakur, Rabenseifner and Gropp,
 * "Optimization of Collective Communication Operations in MPICH", IJHPCA
 * 2005): ring, recursive doubling, Rabenseifner's reduce-scatter + allgather
 * (non-powers of two folded into a power of two first), binomial tree,
 * dissemination (Hensgen et al. 1988) and direct (pairwise); and NCCL's
 * pipelined binary and double binary trees (NVIDIA/nccl src/graph/trees.cc).
 * Every rank of the program takes part, or the ranks of a group
 * (wl_group_add, as an MPI communicator or a process group): an algorithm
 * then runs over the group's ranks numbered by their place in it (their
 * ascending order), as it would over a program of that many ranks, and
 * its messages go to the ranks at those places. */
#ifndef WL_COLL_H
#define WL_COLL_H

#include <glib.h>
#include <stdint.h>

#include "program.h"

enum wl_coll_kind {
  WL_ALLREDUCE,      /* every rank ends with the reduction of all `bytes` vectors */
  WL_REDUCE_SCATTER, /* of `bytes` per rank, each ends with bytes / n of the result */
  WL_ALLGATHER,      /* every rank contributes `bytes`, every rank ends with all */
  WL_BCAST,          /* `bytes` from `root` to every rank */
  WL_REDUCE,         /* the reduction of `bytes` per rank to `root` */
  WL_ALLTOALL,       /* `bytes` from every rank to every other */
  WL_BARRIER,        /* nobody leaves before everybody came (zero-byte messages) */
  WL_COLL_COUNT
};

enum wl_coll_algo {
  WL_ALG_AUTO,          /* as MPICH picks (src/mpi/coll/allreduce.c): allreduce by
                           recursive doubling up to WL_MPI_SHORT_BYTES
                           (MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE) or below one
                           element per power-of-two rank, Rabenseifner above;
                           bcast and reduce binomial; the only algorithm of
                           the others */
  WL_ALG_RING,          /* allreduce, reduce-scatter, allgather */
  WL_ALG_RECDOUB,       /* allreduce; allgather (powers of two; the ring
                           otherwise) */
  WL_ALG_RABENSEIFNER,  /* allreduce: reduce-scatter by recursive halving,
                           allgather by recursive doubling (falls back to
                           recursive doubling below one element per
                           power-of-two rank, as MPICH does); reduce-scatter:
                           its recursive halving alone */
  WL_ALG_BINARY_TREE,   /* allreduce (reduce up, broadcast down), bcast, reduce:
                           NCCL's binary tree, pipelined in segments */
  WL_ALG_DOUBLE_BINARY_TREE, /* allreduce: NCCL's two complementary binary
                           trees, each carrying half the vector; bcast and
                           reduce: the same, the second tree re-rooted at the
                           root */
  WL_ALG_BINOMIAL,      /* bcast, reduce */
  WL_ALG_DISSEMINATION, /* barrier; allreduce (round k to rank + 2^k: a
                           power-of-two count of ranks) */
  WL_ALG_DIRECT,        /* alltoall; allreduce: every rank sends its vector
                           to every other and reduces what it got (NVSHMEM's
                           LL all-push; wl_coll.per_node: hierarchical) */
  WL_ALG_COUNT
};

/* MPICH's default MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE (WL_ALG_AUTO). */
#define WL_MPI_SHORT_BYTES 2048

/* Names as a scenario writes them, by enum value. */
extern const char *const wl_coll_names[WL_COLL_COUNT];
extern const char *const wl_coll_algo_names[WL_ALG_COUNT];

struct wl_coll {
  uint8_t kind;           /* enum wl_coll_kind */
  uint8_t algo;           /* enum wl_coll_algo */
  int64_t bytes;          /* see wl_coll_kind */
  int64_t elem;           /* bytes per element (>= 1) of a reduction */
  int64_t flops_per_elem; /* a reduction's flops per element */
  uint32_t wgs;           /* WGs of each reduction step (>= 1) */
  uint32_t root;          /* bcast, reduce */
  uint32_t tag;           /* the tag of every message (tag + 1: a double binary
                             tree's second tree); the same on every rank for one
                             call, WL_COLL_TAGS apart between calls (and apart
                             between the calls of groups that share ranks) */
  uint32_t group;         /* 0: every rank of the program; else its group
                             `group` (wl_group_get): root is one of its ranks,
                             and only they call it */
  int64_t segment_bytes;  /* trees: the pipeline's segment (rounded down to
                             whole elements, at least one); 0: the whole vector
                             at once */
  /* A collective op's ring allreduce (wl_collective, the allreduce
   * workload): every message in `parts` pieces made by the reduction's
   * WGs, each storing `stores` triggers (program.h's send parts; 0 = 1). */
  uint32_t parts, stores;
  /* A direct allreduce over every rank of the program, PER_NODE ranks a
   * node (a multiple of it): first among each node's ranks, then among the
   * ranks at the same place of every node (NVSHMEM's hierarchical
   * reduction, rdxn_device.cuh); 0: one stage over all ranks. */
  uint32_t per_node;
  /* nccl: the protocol it runs in (enum wl_nccl_proto; AUTO: not NCCL's:
   * sends fenced, bytes as they are). */
  uint8_t proto;
};

/* Tags one call uses (coll.tag, coll.tag + 1). */
#define WL_COLL_TAGS 2

/* Whether ALGO implements KIND (WL_ALG_AUTO always does). */
bool wl_coll_has_algo(enum wl_coll_kind kind, enum wl_coll_algo algo);

/* The algorithm called NAME (wl_coll_algo_names) in *ALGO; false when
 * there is none. */
bool wl_coll_algo_parse(const char *name, enum wl_coll_algo *algo);

/* The names of the algorithms of KIND, ", "-separated (g_free). */
char *wl_coll_algo_list(enum wl_coll_kind kind);

/* Appends collective C on RANK of graph program P (its ranks, or those
 * of its group, take part; RANK is one of them): its first ops require every op in AFTER (op indices of RANK); on
 * return AFTER holds the ops whose completion is the collective's (left as
 * it was when the rank takes no part: on one rank, and in a collective of
 * zero bytes other than the barrier, which returns at once as Open MPI's
 * MPI_Allreduce does for a count of 0, ompi/mpi/c/allreduce.c: no message,
 * no synchronization). */
void wl_coll(struct wl_program *p, uint32_t rank, const struct wl_coll *c, GArray *after);

/* At most how many ops wl_coll adds for C on one of its N_RANKS ranks (a
 * bound to refuse a collective before expanding it). */
uint64_t wl_coll_max_ops(const struct wl_coll *c, uint32_t n_ranks);

/* A program of N_RANKS ranks running collective C (of every rank: group
 * 0) alone (unchecked); free with wl_program_free. */
struct wl_program *wl_coll_program(uint32_t n_ranks, const struct wl_coll *c);

/* ---- collectives as one op, lowered by a communication library ----
 * A workload states a collective with wl_collective; the library a run
 * uses (the scenario's hardware.comm.library, else its policy's default)
 * decides what it becomes when the program is lowered:
 * - mpi: the algorithm's point-to-point messages (MPICH's choice by size
 *   when the call asks for none), each moved as the policy moves a
 *   message (the host stack under cpu and hdn, stream-triggered puts
 *   under gds, ...); reductions are phases of the policy's compute device;
 * - gputn: the same messages, as GPU-TN triggered puts;
 * - nccl: the same for NCCL's algorithm (ring in a node, double binary
 *   tree for an allreduce across nodes), but the whole call is one
 *   kernel (ncclAllReduce enqueues one on the stream): device-side puts
 *   and flag waits, NVLink inside a node, a CPU proxy thread across nodes;
 * - nvshmem: NVSHMEM 2.7's device collectives (the CPU-free study's build:
 *   ParCoreLab/CPU-Free-model, CG/batch/A100-machine; NVSHMEM's default
 *   make options, polling collectives off). Barrier: dissemination of
 *   radix 2 (NVSHMEM_BARRIER_TG_DISSEM_KVAL), each round a flag store to
 *   rank + 2^k and a wait (barrier_device.cuh), no fence before the
 *   store; a barrier called inside a running kernel (nvshmem_barrier_all)
 *   quiets first, one fence, which the on-stream one skips on a job of
 *   one node (kernels/barrier.cu). Allreduce of an even count of >= 4 B
 *   elements up to 2 KiB (NVSHMEM_FCOLLECT_LL_THRESHOLD) over every rank:
 *   direct, hierarchical by node (rdxn_device.cuh: chosen up to 27648
 *   elements over all ranks, SYNC_SIZE), its stores carrying their flags
 *   (LL: no fence; put_nbi across nodes); else recursive doubling
 *   (recursive exchange of radix 2, NVSHMEM_REDUCE_RECEXCH_KVAL: per
 *   round a put, a fence, a signal). A request to the IBRC proxy keeps
 *   its fence (that path not read). One kernel under the host-driven and stream policies
 *   (nvshmemx_*_on_stream), inside the persistent kernel under cpufree;
 *   device-initiated puts (IBGDA) or a CPU proxy (IBRC) across nodes. */
enum wl_lib { WL_LIB_MPI, WL_LIB_NCCL, WL_LIB_NVSHMEM, WL_LIB_GPUTN, WL_LIB_COUNT };
extern const char *const wl_lib_names[WL_LIB_COUNT];

/* NCCL's protocols (NCCL 2.15, src/collectives/device/prims_*.h): LL
 * stores 4 B of data with a 4 B flag in each 8 B word (16 B lines: twice
 * the bytes on the wire), LL128 120 B of data with an 8 B flag in each
 * 128 B line (NVLink keeps a line's stores together), Simple the data,
 * then __threadfence_system(), then the step's flag: only Simple fences
 * (wl_fence). Which one a call takes is NCCL's tuner's choice
 * (wl_nccl_time) unless forced (NCCL_PROTO; hardware.comm.nccl_protocol). */
enum wl_nccl_proto { WL_PROTO_AUTO, WL_PROTO_LL, WL_PROTO_LL128, WL_PROTO_SIMPLE, WL_PROTO_COUNT };
extern const char *const wl_nccl_proto_names[WL_PROTO_COUNT];

/* The GPUs NCCL's tuner takes its tables for (its compCapIndex). */
enum wl_nccl_gpu { WL_NCCL_VOLTA, WL_NCCL_AMPERE, WL_NCCL_HOPPER };

/* Appends collective C (checked as wl_coll asserts; wgs 0: its reductions
 * cost no phase) on RANK as one op, in the rank's lane; of a group, on
 * each of its ranks alone. */
void wl_collective(struct wl_program *p, uint32_t rank, const struct wl_coll *c);

/* Whether any rank of P holds a collective op. */
bool wl_has_colls(const struct wl_program *p);

/* A copy of P in which every collective op is written out as LIB runs it
 * (above): its ops in place of the call, in the call's lane and loops,
 * marked with region = 1 + the call's number on its rank under nccl and
 * nvshmem. OPTS->per_node ranks share a node (nccl's choice of algorithm,
 * its rings' order). Under nccl a ring (allreduce, reduce-scatter,
 * allgather) runs on up to OPTS->channels channels (wl_nccl_channels; 0 or
 * 1: one ring), each a ring over the nodes that leaves each node from a
 * different GPU and so its NIC. Under mpi an allreduce of no algorithm
 * takes OPTS's (above).
 * Unchecked; free with wl_program_free. */
struct wl_lib_opts {
  uint32_t per_node;      /* ranks that share a node */
  uint32_t channels;      /* nccl: the most channels of a ring (0 or 1: one) */
  /* mpi: an allreduce that asks for no algorithm runs mpi_allreduce, or,
   * when that is auto, recursive doubling up to mpi_short_bytes and
   * Rabenseifner above (MPICH's MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM and
   * MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE, 2048 by default). */
  uint8_t mpi_allreduce;  /* enum wl_coll_algo */
  int64_t mpi_short_bytes;
  /* nccl: the protocol of every call (enum wl_nccl_proto; WL_PROTO_AUTO:
   * NCCL's tuner's choice, with its algorithm across nodes: wl_nccl_time),
   * and the tuner's inputs: the GPUs (enum wl_nccl_gpu), whether the hosts'
   * CPUs are AMD's (its LL bandwidth across nodes), a GPU's bus bandwidth
   * inside its node and its node's over the network, in GB/s (its
   * graphs' nChannels x bwIntra, nChannels x bwInter). */
  uint8_t nccl_proto, nccl_gpu;
  bool nccl_amd;
  double busbw_intra, busbw_inter;
  /* nvshmem: the time (ps) a barrier or an allreduce call spends on its
   * GPU beyond its rounds, before them (hardware.comm.nvshmem_*_latency):
   * a compute op of that time opens the call's ops. */
  int64_t nvshmem_barrier_ps, nvshmem_reduce_ps;
};
struct wl_program *wl_expand_colls(const struct wl_program *p, enum wl_lib lib,
                                   const struct wl_lib_opts *opts);
/* Collective op O (its call in Q's table, one of rank R's) written out as
 * LIB runs it (as wl_expand_colls writes a graph rank's) at the end of
 * graph rank R of Q: its ops in O's lane and line, each of region REGION
 * (0: none), its first ops (those none of its others precedes) requiring
 * DEPS (struct wl_dep, ops of R). *AFTER (uint32_t, cleared first) gets
 * the ops its completion is. Returns its first op's index, or UINT32_MAX
 * when it writes out to nothing (one rank; zero bytes but a barrier). */
uint32_t wl_expand_call(struct wl_program *q, uint32_t r, const struct wl_op *o, enum wl_lib lib,
                        const struct wl_lib_opts *opts, uint32_t region, const GArray *deps,
                        GArray *after);

/* An op source (source.h) whose collective ops come written out as LIB
 * runs them (OPTS as wl_expand_colls takes them), each in its place, the
 * ops, dependencies and regions wl_expand_colls gives the program SRC
 * reads whole: what a streamed run lowers op by op (workloads/policies/
 * stream.c), so that a trace of collectives needs memory for the calls in
 * flight, not for the whole. A first pass through it makes its summaries;
 * it reads SRC ahead by SRC's lag so that each op it gives comes with all
 * of its dependency items right after it (its lag is 0, UINT32_MAX when
 * SRC names an op written after the one that waits: then it does not
 * stream). Its kernels and calls are SRC's table (which the reductions'
 * kernels are added to); SRC must outlive it. Free with
 * wl_coll_source_free. */
struct wl_source *wl_coll_source(const struct wl_source *src, enum wl_lib lib,
                                 const struct wl_lib_opts *opts);
void wl_coll_source_free(struct wl_source *s);

/* Options of PER_NODE ranks a node, CHANNELS, MPICH's default choice,
 * NCCL's tuner on a DGX A100 (A100s, AMD hosts, 235 GB/s NVLink bus
 * bandwidth as NCCL caps it, 8 HDR NICs of 25 GB/s). */
#define WL_LIB_OPTS(PER_NODE, CHANNELS)                                                 \
  (&(struct wl_lib_opts){.per_node = (PER_NODE), .channels = (CHANNELS),                \
                         .mpi_allreduce = WL_ALG_AUTO, .mpi_short_bytes = WL_MPI_SHORT_BYTES, \
                         .nccl_proto = WL_PROTO_AUTO, .nccl_gpu = WL_NCCL_AMPERE,        \
                         .nccl_amd = true, .busbw_intra = 235, .busbw_inter = 200})

/* NCCL 2.15's tuner (src/graph/tuning.cc: ncclTopoTuneModel's latencies
 * and bandwidths, ncclTopoGetAlgoTime): the time in us it predicts for
 * collective KIND of BYTES (an allgather's or reduce-scatter's whole
 * buffer, as NCCL counts them) on N ranks over NODES nodes by ALGO (ring;
 * binary or double binary tree: its tree) in PROTO, on OPTS's
 * channels, GPUs, CPUs and bus bandwidths; < 0 where NCCL has no such
 * pair (a tree for anything but allreduce, a protocol of AUTO). Each
 * call takes the fastest (getAlgoInfo, src/enqueue.cc). */
double wl_nccl_time(enum wl_coll_kind kind, enum wl_coll_algo algo, enum wl_nccl_proto proto,
                    int64_t bytes, uint32_t n, uint32_t nodes, const struct wl_lib_opts *opts);

/* The bytes PROTO puts on the wire for BYTES of data (whole LL and LL128
 * lines). */
int64_t wl_nccl_wire_bytes(enum wl_nccl_proto proto, int64_t bytes);

/* The channels NCCL runs a ring call of BYTES on N ranks in PROTO on, of
 * CHANNELS at most: one per nThreads x threadThreshold bytes
 * (src/enqueue.cc, getAlgoInfo; src/include/comm.h, devcomm.h): Simple
 * 512 x 64 B = 32 KiB, LL 512 x 8 B x N, LL128 640 x 8 B = 5 KiB; at
 * least one. */
uint32_t wl_nccl_channels(int64_t bytes, uint32_t channels, enum wl_nccl_proto proto, uint32_t n);

/* Point-to-point under nccl and nvshmem from the host (hdn, hdn2s): every
 * run of consecutive sends and receives of one lane that belongs to no
 * collective becomes one region, which the policy runs as one kernel
 * (pol_coll_kernel): ncclGroupStart .. ncclSend/ncclRecv .. ncclGroupEnd
 * enqueues one kernel; NVSHMEM's put-with-signal and signal waits on the
 * stream likewise. Graph ranks are kept. Unchecked; free with
 * wl_program_free. */
struct wl_program *wl_group_p2p(const struct wl_program *p);

/* A copy of P in which every send of a library kernel (region) is
 * preceded by STEP_PS of the kernel's WGs' time: a protocol's cost per
 * step beyond the modelled put and flag wait (hardware.comm.
 * nccl_step_latency). Graph ranks are kept. Free with wl_program_free. */
struct wl_program *wl_step_cost(const struct wl_program *p, int64_t step_ps);

/* MPI's rendezvous protocol (host MPI, two-sided policies): a message of
 * more than EAGER_LIMIT bytes moves only once its receiver has posted the
 * receive and answered with a clear-to-send. A copy of P in which, on
 * sequence ranks, every such receive sends a zero-byte CTS (tag |
 * WL_CTS_TAG) to its sender at the start of its phase (the ops between
 * syncs and loop markers: receives are posted first, as halo exchanges
 * post MPI_Irecv before MPI_Isend), and every such send first waits for
 * its CTS. Progress happens only inside these calls: the sender's host is
 * held until the CTS arrives. Graph ranks keep eager messages. Unchecked;
 * free with wl_program_free. */
#define WL_CTS_TAG (UINT32_C(1) << 31)
struct wl_program *wl_rendezvous(const struct wl_program *p, int64_t eager_limit);
/* Whether any message of a sequence rank of P exceeds EAGER_LIMIT. */
bool wl_rendezvous_needed(const struct wl_program *p, int64_t eager_limit);

#endif
