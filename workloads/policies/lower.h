/* Lowering programs (program.h) onto the hardware models, one op at a time
 * (DESIGN.md Sec. 2: a policy is one file; the driver is shared).
 *
 * A policy (policy_*.c) is a `struct pol_type`: its `lower` hook lowers
 * one op of one rank into the node program being written (struct pol_low),
 * keeping between ops whatever it needs in its per-rank state, and reading
 * the rank's summary (a first pass, summary.h) where it must know what
 * comes later (a kernel's grid, the rank's sends). Its `prepare` hook says
 * what the driver does to a program first (the library's rewrites, loops
 * kept or written out, graph ranks run in one order), calling the helpers
 * below. The policy file holds everything the policy means; the helpers
 * here and in kernel.c are shared code a policy calls.
 *
 * The driver feeds that one hook whatever the input, as a trace replay
 * drives the API a live program calls:
 * - a program in memory (pol_run: built-in workloads, YAML programs, a GOAL
 *   schedule read whole): prepared, checked, then each rank's ops in order,
 *   written into arrays;
 * - an op source read while the run goes (pol_stream, stream.c: a GOAL
 *   schedule): each rank pulled from its cursor (source.h) when the models
 *   ask for steps (models/nodeprog.h, np_source and np_seq), each op
 *   lowered by the same hook into windows and slots the models give back.
 * A graph rank (program.h) the policy runs on the host is lowered in its
 * written order, each op's steps taking the op's dependencies (pol_low.graph);
 * one the policy runs in one order (pol_prep_order) is ordered first
 * (wl_linearize; wl_lin when streamed) and lowered as a sequence. */
#ifndef WL_LOWER_H
#define WL_LOWER_H

#include <glib.h>
#include <stdbool.h>

#include "checks.h"
#include "library.h"
#include "program.h"
#include "result.h"
#include "summary.h"
#include "system.h"
#include "workload.h"

struct pol_type;
struct pol_stream;

/* What every rank's lowering of a run reads. */
struct pol_env {
  const struct pol_type *pol;
  const struct hw_config *hw;
  const struct scenario *sc; /* where errors are located (NULL: unlocated) */
  /* The run's library (enum comm_library, never COMM_AUTO) and, for
   * nvshmem, its transport (enum comm_transport): how a collective's kernel
   * and a persistent kernel's sends move data. */
  uint8_t lib, transport;
  bool nvlink_stores;        /* hardware.comm.nvlink_stores */
  const struct net_config *net; /* which ranks share a node */
  uint32_t n_ranks;
  const struct wl_program *p; /* a program lowered whole; NULL when streamed */
  const struct wl_descs *descs; /* the kernels its ops name (the program's, the source's) */
  struct pol_stream *stream;  /* streamed: the driver (stream.c) */
};

/* A node program being written; it owns every array it points at. */
struct pol_prog {
  struct nodeprog np;       /* valid after the rank's end */
  GArray *kernels, *qcmds, *cmds, *host;
  GArray *deps;             /* struct hdep of a graph host program */
  GPtrArray *steps;         /* each kernel's step array */
  GArray *open;             /* per kernel: its GArray of steps while open (pol_kernel_open) */
  GArray *op_steps;         /* graph ranks: per op, its first and last host step */
  uint32_t n_flags;         /* flags numbered: the program's, then pol_flag_new's */
  bool proxied;             /* pol_low.proxied, once the rank is lowered */
};

/* One rank's lowering: what the policy reads and the program it writes. */
struct pol_low {
  const struct pol_env *env;
  uint32_t rank;
  const struct wl_sum *sum;   /* the rank's summary */
  /* The op being lowered: its index in the rank's order, its span (NULL:
   * a sync or loop marker) and whether it is the span's first or last. */
  uint64_t index;
  const struct wl_span *span;
  bool span_first, span_last;
  /* The rank is a graph the host runs: each op's first host step takes
   * the op's dependencies, its others the step before (lower.c). */
  bool graph;
  void *state;                /* the policy's (pol_type.state_size bytes, zeroed) */
  struct pol_prog *pp;        /* whole */
  struct pol_srank *srank;    /* streamed (stream.c) */
  bool host_closed;           /* pol_host_closed */
  bool proxied;               /* a send went through a CPU proxy thread (pol_lib_send) */
};

/* The receive a send meets (pol_recv_of): its first flag and its
 * collective (a library's kernel waits for its own data). */
struct pol_recv {
  uint32_t flag;
  uint32_t region;
  /* for pol_recv_work_after: */
  const struct pol_env *env;
  uint32_t rank;
  uint64_t op;                /* its index in its rank's order (whole) */
  void *msg;                  /* streamed: the message (stream.c) */
};

/* What the driver does to a program before lowering it under a policy:
 * pol_type.prepare calls the helpers below, in the order they apply. */
struct pol_prep {
  struct wl_program *p;      /* the program so far; NULL: a stream (its ranks are graphs) */
  const struct hw_config *hw;
  const struct wl_ctx *ctx;
  const struct pol_type *pol;
  uint8_t lib;
  uint8_t form;              /* pol_prep_form: enum wl_form */
  bool ordered;              /* pol_prep_order */
  bool coll_kernels;         /* pol_prep_coll_kernels */
  struct wl_program *owned[8]; /* the rewrites, freed by the driver */
  size_t n_owned;
  char *err;                 /* an input error (the program too long written out) */
};

/* One policy. */
struct pol_type {
  const char *name;
  /* The libraries it runs with (bit 1 << enum comm_library) and the one a
   * scenario gets with hardware.comm.library: auto. */
  uint8_t libs, lib_default;
  /* Bytes of its per-rank state (struct pol_low.state), zeroed at a rank's start. */
  size_t state_size;
  /* What the hardware must offer it, given TOTAL (every rank's counts;
   * NULL: nothing): false and *ERR, located in SC at the offending key. */
  bool (*check)(const struct scenario *sc, const struct hw_config *hw, const struct wl_sum *total,
                char **err);
  /* What the driver does to the program first (the pol_prep_* helpers). */
  void (*prepare)(struct pol_prep *pr);
  /* Lowers op O of the rank into L, or (O NULL) ends the rank once its
   * last op is lowered. False and *ERR: an op of a shape it does not lower. */
  bool (*lower)(struct pol_low *L, const struct wl_op *o, char **err);
  /* Who watches receive R's flag (enum pdev); the sender's put names it. */
  uint8_t (*watcher)(const struct pol_recv *r);
  /* Whether a compute op placed at WHERE (enum wl_where, a GOAL calc's
   * calc_on) can run under it. */
  bool (*computes_on)(uint8_t where);
  /* The output (a time) of a node's CPU or GPU that says when a rank's
   * program is done: a checked handle, CPU_OUT(MAIN_DONE) or
   * GPU_OUT(WG_LAST_END), resolved against each node (sys_node_comp). */
  const struct sim_out_decl *done;
};

/* ---- writing a node program (lower.c) ---- */

/* Each returns the index the models name the item by (a slot, streamed). */
uint32_t pol_add_cmd(struct pol_low *L, struct nic_cmd cmd);
uint32_t pol_add_qcmd(struct pol_low *L, struct qcmd qc);
/* A kernel of N_WGS WGs running STEPS (N, copied). */
uint32_t pol_add_kernel(struct pol_low *L, const char *name, uint32_t n_wgs,
                        const struct kstep *steps, size_t n);
/* A kernel whose steps follow (pol_kernel_step), written as its ops are
 * lowered: it may be launched before its last step is written. */
uint32_t pol_kernel_open(struct pol_low *L, const char *name, uint32_t n_wgs, bool persistent);
void pol_kernel_step(struct pol_low *L, uint32_t k, struct kstep st);
/* Open kernel K has its last step: a streamed run asks for no more of it
 * (a collective's kernel: the rank's later ops stay unread). */
void pol_kernel_close(struct pol_low *L, uint32_t k);
/* The next host step. A loop marker of a kernel's host steps (gputn's
 * registrations) closing an empty body drops the pair (pol_host_loop). */
void pol_add_host(struct pol_low *L, struct hstep st);
void pol_host_loop(struct pol_low *L, const struct wl_op *o);
/* Graph ranks: this op's host steps are the op before's (a collective's
 * kernel, launched once what its ops wait for outside it is done). */
void pol_host_shared(struct pol_low *L);
/* No host step follows until the rank ends (a streamed host program ends
 * there, not at its last op: cpufree's launch, gputn's last registration). */
void pol_host_closed(struct pol_low *L);
/* A flag of the policy's own (a barrier's, a copy's completion), after
 * the program's. */
uint32_t pol_flag_new(struct pol_low *L);

/* The flags rank RANK's program numbers before its policy's own
 * (pol_flag_new): a barrier's flags at a peer. Streamed, where flags are
 * numbered as messages come, 0 (a stream has no sync to need them). */
uint32_t pol_flags_of(struct pol_low *L, uint32_t rank);
/* The first flag of receive O (its `parts` follow). */
uint32_t pol_recv_flag(struct pol_low *L, const struct wl_op *o);
/* The receive send O meets; or receive O itself. */
struct pol_recv pol_recv_of(struct pol_low *L, const struct wl_op *o);
/* Whether a compute or a send follows R in its rank's order (streamed: the
 * driver places the receive's rank that far first). */
bool pol_recv_work_after(const struct pol_recv *r);

/* ---- shared lowerings a policy calls ---- */

/* The NIC command OP (a put, triggered put or post) that carries send O
 * to its receive: the whole message to the receive's first flag, watched
 * as the policy's watcher says; a put a quiet waits for asks for the
 * target's ACK, which sets the quiet's flag on QUIET_DEV (enum pdev:
 * where the policy lowers the quiet). PART: piece PART of the send's
 * parts (its bytes, its flag). */
struct nic_cmd pol_put_for(struct pol_low *L, const struct wl_op *o, uint8_t op, uint8_t quiet_dev);
struct nic_cmd pol_put_part(struct pol_low *L, const struct wl_op *o, uint8_t op,
                            uint8_t quiet_dev, uint32_t part);
/* The host network stack (cpu, hdn): a send of O (two-sided unless TWO is
 * false), and a receive completed when its flag is set (two-sided: cpu.recv). */
void pol_host_send(struct pol_low *L, const struct wl_op *o, bool two);
void pol_host_recv(struct pol_low *L, const struct wl_op *o, bool two);
/* Host step or kernel step for a loop marker (WL_LOOP / WL_END) O. */
struct hstep pol_loop_hstep(const struct wl_op *o);
struct kstep pol_loop_kstep(const struct wl_op *o);
/* The kernel step of compute op O (its kernel K) fused into a kernel, each
 * WG doing FOLD WGs' work: its flops, bytes and re-read bytes times FOLD,
 * its class and working set. An SpMV walks one row per work-item unless
 * written merge-path (wl_spmv): then coalesced and row-balanced, moving
 * merge_extra_per_wg more than a library's. */
struct kstep pol_compute_step(const struct wl_kernel *k, const struct wl_op *o, uint32_t fold);
/* The same, for O launched as a kernel of its own (one WG's work each):
 * an SpMV that is a library call (wl_spmv library or merge) runs
 * coalesced and row-balanced; a kernel with a library form (wl_library)
 * is the vendor library's call (class library, its own work per WG). */
struct kstep pol_launch_step(const struct wl_kernel *k, const struct wl_op *o);
/* The kernel of compute op O (the program's or the source's table). */
const struct wl_kernel *pol_kernel_of(const struct pol_low *L, const struct wl_op *o);
/* Compute op O on every core of the CPU (wl_cpu_time). */
sim_time pol_cpu_time(const struct pol_low *L, const struct wl_op *o);
/* Host op O (WL_ON_CPU) of a policy whose data lives on the GPU: its
 * blocking copies one after another (wl_blocking_copies; each
 * sys_blocking_copy of the hardware, saturating), or where it has none its
 * roofline (pol_cpu_time). */
sim_time pol_host_time(const struct pol_low *L, const struct wl_op *o);
/* Compute op O as a kernel of its own, launched on QUEUE: its index. */
uint32_t pol_launch_compute(struct pol_low *L, const struct wl_op *o, const char *name,
                            uint8_t queue);

/* Graph replay (graph.c): under cpu.launch graph, every run of kernel
 * launches on one queue with no other host step between them in the
 * rank's sequence host program becomes a captured graph, replayed by its
 * first launch (hstep.graph, qcmd.graph); a graph rank's host program is
 * left as it is. A host-driven policy calls it at its rank's end. A qcmd
 * launched by two host steps must not be in a run. Programs in memory
 * only: a streamed source runs whole under cpu.launch graph. */
void pol_capture_graphs(struct pol_low *L);

/* recv_watcher for policies whose receives the host (CPU) or the GPU
 * always notices. */
uint8_t pol_watch_cpu(const struct pol_recv *r);
uint8_t pol_watch_gpu(const struct pol_recv *r);
/* computes_on for policies that compute on the GPU only, on the host
 * CPU only, or either (a host-driven policy's graph: a calc on the CPU). */
bool pol_on_gpu(uint8_t where);
bool pol_on_cpu(uint8_t where);
bool pol_on_either(uint8_t where);

/* ---- kernels of many ops (kernel.c) ---- */

/* The step of send O in a kernel of WGS WGs, SELECTED of which make it
 * (each policy's own: a trigger, a request to a helper, a device put),
 * adding any NIC commands and host steps it needs. */
typedef struct kstep (*pol_send_step)(struct pol_low *L, const struct wl_op *o, uint32_t wgs,
                                      uint32_t selected);

/* A kernel being written op by op, the shape the policies that keep work
 * on the GPU share (gputn, ghn, cpufree, monolithic: the whole program;
 * p2p: a sync-delimited span; any policy: a library's collective): compute
 * steps; a wait on the receive's flag(s) per receive; a device-wide
 * barrier per sync; lane 1 ops on WGs of their own after the lane 0 grid
 * (thread-block specialization); a send's step written by SEND (NULL:
 * sends and receives are dropped). A kernel that waits (or WHOLE: the
 * rank's program) and has more WGs than the GPU holds at once has its
 * lane 0 WGs folded (each does several WGs' work, as a persistent
 * kernel's grid-stride loop does). */
struct pol_kern {
  uint32_t id;
  uint32_t n0, n1, fold;     /* lane 0 WGs (folded), lane 1 WGs, the fold */
  uint32_t nmax;             /* the largest lane 0 grid, before the fold */
  uint32_t idle;             /* WGs after lane 1 that only join the device-wide
                                barriers (a grid launched at residency: PAD) */
  bool mixed;                /* lane 0 phases of different grids (a persistent
                                kernel: each loops over its own, kernel.c) */
  const char *name;
  pol_send_step send;
  /* The host's steps the sends add loop with the kernel's (the rank's
   * whole program: gputn's registrations). */
  bool host_loops;
};
/* Opens kernel K of SHAPE (a span's, or the rank's: WHOLE). False and
 * *ERR when one grid cannot hold it. PAD (with WHOLE): a grid-synchronized
 * program's kernel launched at residency (cus x occupancy WGs) whatever
 * its work, the WGs left over joining its device-wide barriers only
 * (cpufree: the CPU-free code's grid). */
bool pol_kern_open(struct pol_low *L, struct pol_kern *k, const char *name,
                   const struct wl_shape *shape, bool whole, bool pad, pol_send_step send,
                   char **err);
/* Writes op O into K (loop markers too: every WG runs the loop, and with
 * host_loops the host's steps the sends add loop alike). */
bool pol_kern_op(struct pol_low *L, struct pol_kern *k, const struct wl_op *o, char **err);
/* WGs per part for send O in a kernel of WGS WGs (tag_div of the step). */
uint32_t pol_part_div(const struct wl_op *o, uint32_t wgs);
/* A device-initiated put-with-signal per piece of send O (NVSHMEM/IBGDA
 * style, cpufree and p2p): the last WG of a piece posts it to the NIC. */
struct kstep pol_device_put(struct pol_low *L, const struct wl_op *o, uint32_t wgs);
/* The send step of a kernel under the run's library: a device put
 * (nvshmem over IBGDA; nccl inside a node) or a request to a CPU proxy
 * thread (nvshmem over IBRC; nccl across nodes). NVSHMEM posts a device
 * put that orders nothing (wl_fence: WL_FENCE_NONE, and WL_FENCE_ENTRY
 * when OWN, the call a kernel of its own, on a job of one node) unfenced
 * (coll.h); a request to its proxy keeps its fence (not read). NCCL
 * fences neither put nor proxy request of an LL or LL128 step (its
 * sends' WL_FENCE_NONE, coll.h wl_nccl_proto). */
struct kstep pol_lib_send(struct pol_low *L, const struct wl_op *o, uint32_t wgs, bool own);
/* The rank's whole program as one kernel K (opened, of the rank's shape,
 * and launched at its first op, *STARTED then; WHOLE: sized as a
 * persistent kernel even when it never waits; PAD: launched at residency,
 * pol_kern_open), op O written into it: the shape gputn, ghn, cpufree and
 * monolithic share. */
bool pol_one_kernel_op(struct pol_low *L, struct pol_kern *k, bool *started, const char *name,
                       bool whole, bool pad, pol_send_step send, const struct wl_op *o,
                       char **err);
/* Op O of a library's collective (O in a span of a region): its kernel
 * opened at the span's first op (into *K, its index), the op written into
 * it; *LAST when O is the span's last. */
bool pol_coll_op(struct pol_low *L, struct pol_kern *k, const struct wl_op *o, bool *first,
                 bool *last, char **err);

/* ---- preparing a program (lower.c) ---- */

/* The form of a program written in several (program.h, wl_form) that the
 * lowering runs: WL_FORM_FUSED, a policy that puts a rank's program into
 * one kernel; WL_FORM_DISCRETE, one that launches kernels one by one. The
 * ops of the other form are dropped; a program without that form is an
 * input error. First of the helpers. */
void pol_prep_form(struct pol_prep *pr, uint8_t form);
/* The library's rewrites: collectives as it writes them (coll.h), P2P
 * too (the host-driven styles, whose code calls the library for its point-
 * to-point messages: wl_group_p2p), NCCL's protocol cost per step. */
void pol_prep_library(struct pol_prep *pr, bool p2p_too);
/* How the library expands PR's collectives (comm_lib_opts): each call a
 * kernel on a stream where the policy's programs are kernels launched one
 * by one (pol_prep_form), else called inside the running kernel. */
struct wl_lib_opts pol_prep_lib_opts(const struct pol_prep *pr);
/* Host MPI's large messages go by rendezvous (a two-sided host stack). */
void pol_prep_rendezvous(struct pol_prep *pr);
/* What becomes of loops: kept (in the node programs, nodeprog.h np_loops)
 * when the messages match loop for loop, else written out (as long as it
 * fits). POL_LOOPS_AT_SYNCS: kept only where they start and end at syncs
 * (a lowering that carries kernels from op to op until a sync);
 * POL_LOOPS_PEELED: kept with the last iteration peeled (wl_peel_last: a
 * lowering that looks at what follows an op). */
enum pol_loops { POL_LOOPS_UNROLL, POL_LOOPS_KEEP, POL_LOOPS_AT_SYNCS, POL_LOOPS_PEELED };
void pol_prep_loops(struct pol_prep *pr, enum pol_loops how);
/* Graph ranks are lowered in one order (wl_linearize under the context's
 * window; wl_lin when streamed), not run as graphs on the host. */
void pol_prep_order(struct pol_prep *pr);
/* A library's collective is a kernel of its own (pol_coll_op) in a rank
 * run in one order: the order places its ops together (wl_linearize's
 * REGIONS; a kernel cannot be launched with ops between its steps). */
void pol_prep_coll_kernels(struct pol_prep *pr);

/* pol_type.libs of the policies that drive kernels from the host or a
 * stream: mpi (their own messages), nccl and nvshmem (a kernel per
 * collective). */
#define POL_LIBS_STREAM ((1u << COMM_MPI) | (1u << COMM_NCCL) | (1u << COMM_NVSHMEM))

/* ---- the table (table.c) ---- */

/* The policy named NAME, or NULL. */
const struct pol_type *pol_find(const char *name);
/* The lowering policies, in the order scenarios list them: *N of them. */
const struct pol_type *const *pol_all(size_t *n);
/* Adds POL to the table (a program's or a test's own policy, after the
 * built-in ones); false when its name is taken or its 16 places for added
 * policies are full. */
bool pol_register(const struct pol_type *pol);

/* ---- the driver (lower.c, stream.c) ---- */

/* The library a run under POL uses on HW: the scenario's
 * hardware.comm.library, else the policy's (enum comm_library, never
 * COMM_AUTO). False and *ERR when POL does not take it. */
bool pol_library(const struct pol_type *pol, const struct hw_config *hw, const struct scenario *sc,
                 uint8_t *lib, char **err);

/* Lowers P under POLICY onto HW, runs it with CTX's seed and trace and
 * fills OUT: total_ps = when rank p->measured_rank finished (the latest
 * rank for WL_ALL_RANKS), phases (models/phase.h), counters (every
 * component's report). Checks P, the nodes and the policy's hook first;
 * with ctx->check_only stops after lowering every rank. False and *ERR
 * (g_free): an input error, or (only when simulating) a deadlock. */
bool pol_run(struct wl_program *p, const char *policy, const struct hw_config *hw,
             const struct wl_ctx *ctx, struct sim_result *out, char **err);

/* Runs the node programs PROGS (per node) on a system of HW built in
 * engine E (taken over) under POL, as pol_run does once it has lowered:
 * P gives the ranks, the measured one and, where it has them, the ops a
 * deadlock names (else "rank R op I"). */
bool pol_simulate_progs(const struct pol_type *pol, const struct wl_program *p,
                        const struct hw_config *hw, const struct nodeprog **progs,
                        struct sim_engine *e, struct trace *trace, struct sim_result *out,
                        char **err);

/* Runs op source SRC under CTX's policy: streamed (stream.c) where the
 * policy and the source allow, else read whole (its program, pol_run).
 * What the whole program would say of a source too long to be read whole
 * is said from its first pass. OUT.streamed tells which. False and *ERR
 * as pol_run. */
struct wl_source;
bool pol_run_source(const struct wl_ctx *ctx, const struct wl_source *src,
                    const struct wl_stream_opts *opts, struct sim_result *out, char **err);

/* The error of a lowering that sent through library LIB's proxy thread
 * (pol_prog.proxied) on a CPU without a helper thread to hold it. */
char *pol_proxy_error(const struct scenario *sc, uint8_t lib);

/* The environment of a run under POL on HW with library LIB. */
void pol_env_init(struct pol_env *env, const struct pol_type *pol, const struct hw_config *hw,
                  const struct scenario *sc, uint8_t lib, uint32_t n_ranks);
/* An empty node program (pol_prog_clear frees it) of N_FLAGS flags so far. */
void pol_prog_init(struct pol_prog *pp, uint32_t n_flags);
void pol_prog_clear(struct pol_prog *pp);
/* Lowers ITEM of a rank: op O (index L->index) through the policy's
 * hook, its span found from *SPAN_AT; O NULL: the rank's end. */
bool pol_lower_op(struct pol_low *L, const struct wl_op *o, uint64_t *span_at, char **err);
/* Ends a whole rank's program: points np at the arrays, the graph's
 * dependencies (DEPS_OF(ctx, op, *n): op's own) attached. */
void pol_prog_seal(struct pol_low *L, const struct wl_dep *(*deps_of)(void *ctx, uint64_t op,
                                                                       uint32_t *n),
                   void *ctx);

#endif
