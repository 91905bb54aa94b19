/* Lowering a program (program.h) onto the hardware models: the node-program
 * builder the policies (policy_*.c) write into, the policy table, and the
 * driver that builds the system, runs it and fills a sim_result.
 * DESIGN.md Sec. 2: a policy is one file; the driver is shared. */
#ifndef WL_LOWER_H
#define WL_LOWER_H

#include <glib.h>
#include <stdbool.h>

#include "checks.h"
#include "program.h"
#include "result.h"
#include "system.h"
#include "workload.h"
#include "library.h"

/* A node program under construction; it owns every array it points at.
 * The driver (pol_run) creates, seals and frees it around a policy's lower. */
struct pol_prog {
  struct nodeprog np; /* valid after pol_prog_seal */
  GArray *kernels, *qcmds, *cmds, *host;
  GArray *deps;       /* struct hdep of a graph host program */
  bool graph;         /* the host program is a graph (nodeprog.host_deps) */
  GPtrArray *steps;   /* each kernel's step array */
  size_t tag_op;      /* gputn: trigger tags used by the sends before op */
  uint32_t tag_next;  /* tag_op, the next tag (from 1) */
  uint32_t tag_stride;/* gputn: the rank's pieces as written, 0 before the first send */
  uint32_t post_next; /* gds: NIC command ids posted by the sends before the program's
                         (a streamed run lowers op by op), 0 at a rank's start */
  uint32_t post_stride;/* gds: the rank's sends when lowered op by op; 0: counted */
  /* The run's library (enum comm_library, never COMM_AUTO) and, for
   * nvshmem, its transport (enum comm_transport): how a collective's
   * kernel (pol_coll_kernel) and a persistent kernel's sends move data. */
  uint8_t lib, transport;
  bool nvlink_stores; /* hardware.comm.nvlink_stores */
  bool proxied;       /* set by pol_lib_send: a send goes through a CPU proxy thread */
  const struct net_config *net; /* which ranks share a node */
};


/* Each returns the index the models name the item by. */
uint32_t pol_add_cmd(struct pol_prog *pp, struct nic_cmd cmd);
uint32_t pol_add_qcmd(struct pol_prog *pp, struct qcmd qc);
uint32_t pol_add_kernel(struct pol_prog *pp, const char *name, uint32_t n_wgs,
                        const struct kstep *steps, size_t n_steps); /* copies STEPS */
void pol_add_host(struct pol_prog *pp, struct hstep st);
/* An empty program (pol_prog_clear frees it) for a run on HW with library
 * LIB (enum comm_library). */
void pol_prog_init(struct pol_prog *pp, const struct hw_config *hw, uint8_t lib);
void pol_prog_clear(struct pol_prog *pp);

/* How a policy runs a graph rank (program.h). */
struct pol_graph {
  bool host;      /* the host runs it as a graph (pol_host_graph); else one
                     order of it (wl_linearize) is lowered as a sequence */
  bool gpu;       /* computes run on the GPU (else on the CPU) */
  bool two_sided; /* host sends and receives go through the host stack */
  bool recv_polls; /* with two_sided: receives poll the flag in memory instead */
};

/* One policy: how a program's ranks become node programs. */
struct pol_type {
  /* What the hardware must offer this policy (NULL: nothing): false and
   * *ERR, located in SC (NULL: unlocated) at the offending key. */
  bool (*check)(const struct scenario *sc, const struct hw_config *hw, const struct wl_program *p,
                char **err);
  /* Flags the lowering adds after the program's (barriers), per rank. */
  uint32_t (*extra_flags)(const struct wl_program *p, uint32_t rank);
  const char *name;
  /* Who watches receive I of RANK's flag (enum pdev); the sender's put
   * must name it. */
  uint8_t (*recv_watcher)(const struct wl_program *p, uint32_t rank, size_t i);
  /* Lowers RANK into PP (initialised, sealed by the caller). False and
   * *ERR when the program has a shape this policy does not lower yet. */
  bool (*lower)(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                struct pol_prog *pp, char **err);
  /* The output (a time) of a node's CPU or GPU that says when a rank's
   * program is done: a checked handle, CPU_OUT(MAIN_DONE) or
   * GPU_OUT(WG_LAST_END), resolved against each node (sys_node_comp). */
  const struct sim_out_decl *done;
  struct pol_graph graph;
  /* The lowering keeps a program's loops (program.h) as loops of the node
   * programs (nodeprog.h, np_loops); else it gets the program written out. */
  bool loops;
  /* With loops: it gets them with the last iteration peeled (wl_peel_last),
   * its lowering of an op looking at what follows the op. */
  bool peel_last;
  /* With loops: only where they start and end at syncs (wl_loops_at_syncs),
   * its lowering carrying kernels from op to op until a sync. */
  bool loops_at_syncs;
  /* The libraries it runs with (bit 1 << enum comm_library) and the one a
   * scenario gets with hardware.comm.library: auto. */
  uint8_t libs, lib_default;
  /* Under nccl and nvshmem, its point-to-point messages go through the
   * library too (wl_group_p2p): the host-driven styles, whose code calls
   * the library; the others move them their own way (stream-triggered,
   * host copies, device puts). */
  bool lib_p2p;
  /* Its sequence lowering waits for a quiet's ACKs on the host (gds, which
   * posts from the host); graph ranks run on the host (graph.host) do too,
   * the others in the kernel. */
  bool host_quiet;
  /* It lowers a rank without syncs into one kernel launched once (and, by
   * p2p, waited for), op by op, each op's step independent of the others'
   * (pol_one_kernel, pol_kernel_of): a GOAL schedule can be streamed into
   * it (workloads/inputs/goal.c). */
  bool one_kernel;
  /* It lowers a rank op by op onto one stream, each op's host steps,
   * queue commands, kernels and NIC commands its own: the ops before an
   * op show only in pol_prog.post_next, the ops after a receive only in
   * whether stream work follows it (wl_rank.work_after), and a trailing
   * HS_WAIT_KERNEL waits for the stream's last kernel at the end (gds): a
   * GOAL schedule can be streamed into it (workloads/inputs/goal.c). */
  bool op_by_op;
};

/* pol_type.libs of the policies that drive kernels from the host or a
 * stream: mpi (their own messages), nccl and nvshmem (a kernel per
 * collective, pol_coll_kernel). */
#define POL_LIBS_STREAM ((1u << COMM_MPI) | (1u << COMM_NCCL) | (1u << COMM_NVSHMEM))

/* Whether op I of RANK starts a collective's kernel (region, program.h);
 * then pol_coll_kernel lowers ops [I, *END) into it. */
bool pol_coll_starts(const struct wl_program *p, uint32_t rank, size_t i);
/* The kernel of the collective whose ops start at I (pol_coll_starts):
 * one WG per... its steps as pol_kernel_of writes them, each send a
 * device-initiated put (nvshmem over IBGDA; nccl inside a node) or a
 * request to a CPU proxy thread (nvshmem over IBRC; nccl across nodes).
 * Returns the kernel's index and *END, or -1 and *ERR. */
int32_t pol_coll_kernel(const struct wl_program *p, uint32_t rank, size_t i, size_t *end,
                        const struct hw_config *hw, struct pol_prog *pp, char **err);
/* The send step of a persistent kernel under the run's library (pp->lib):
 * pol_coll_kernel's puts. */
struct kstep pol_lib_send(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                          size_t i, uint32_t wgs, struct pol_prog *pp);

/* Host step ST for a loop marker (WL_LOOP / WL_END) O; kernels' steps take
 * pol_loop_kstep. */
struct hstep pol_loop_hstep(const struct wl_op *o);
struct kstep pol_loop_kstep(const struct wl_op *o);

/* The kernel step of compute op O fused into a kernel (pol_kernel_of),
 * each WG doing FOLD WGs' work: its flops, bytes and re-read bytes times
 * FOLD, its class and working set. An SpMV walks one row per work-item
 * unless written merge-path (wl_spmv): then coalesced and row-balanced,
 * moving merge_extra_per_wg more than a library's. */
struct kstep pol_compute_step(const struct wl_op *o, uint32_t fold);
/* The same, for O launched as a kernel of its own (one WG's work each):
 * an SpMV that is a library call (wl_spmv library or merge) runs
 * coalesced and row-balanced. */
struct kstep pol_launch_step(const struct wl_op *o);
/* Compute op O on every core of CPU, through a roofline, or its time_ps. */
sim_time pol_cpu_time(const struct cpu_config *cpu, const struct wl_op *o);
/* Lowers graph rank RANK as a host graph program (pol_graph.host); a
 * library's collective (pol_coll_starts) is its kernel, launched once
 * what its ops wait for outside it is done. False and *ERR when that
 * kernel cannot be built (pol_coll_kernel). */
bool pol_host_graph(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                    const struct hw_config *hw, struct pol_prog *pp, char **err);

/* recv_watcher for policies whose receives the host (CPU) or the GPU
 * always notices. */
uint8_t pol_watch_cpu(const struct wl_program *p, uint32_t rank, size_t i);
uint8_t pol_watch_gpu(const struct wl_program *p, uint32_t rank, size_t i);

/* The NIC command OP (a put, triggered put or post) that carries send op I
 * of RANK to its receive, whose flag POL's recv_watcher names: the whole
 * message to the receive's first flag. */
struct nic_cmd pol_put_for(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                           size_t i, uint8_t op);
/* Same, for piece PART of the send's parts (its bytes, its flag). */
struct nic_cmd pol_put_part(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                            size_t i, uint8_t op, uint32_t part);

/* One kernel for ops [A, B) of RANK (workloads/policies/kernel.c), the shape the
 * policies that keep work on the GPU share (gputn, ghn, cpufree,
 * monolithic, p2p): compute steps; a wait on the receive's flag(s) per
 * receive; a device-wide barrier per sync; lane 1 ops on WGs of their own
 * after the lane 0 grid (thread-block specialization); a send's step
 * written by SEND, which adds any host steps it needs (before the launch,
 * unless the caller moves them) given the kernel's WGS and how many of
 * them make the send (SELECTED). SEND NULL: sends and receives are dropped.
 * When the range waits and has more WGs than the GPU holds at once, lane 0
 * WGs are folded (each does several WGs' work, as a persistent kernel's
 * grid-stride loop does). Returns the kernel's index, or -1 and *ERR. */
typedef struct kstep (*pol_send_step)(const struct wl_program *p, uint32_t rank, size_t i,
                                      uint32_t wgs, uint32_t selected, struct pol_prog *pp);
int32_t pol_kernel_of(const char *name, const struct wl_program *p, uint32_t rank, size_t a,
                      size_t b, const struct hw_config *hw, pol_send_step send,
                      struct pol_prog *pp, char **err);
/* The rank's whole program as one kernel, launched first. */
bool pol_one_kernel(const char *name, const struct wl_program *p, uint32_t rank,
                    const struct hw_config *hw, pol_send_step send, struct pol_prog *pp,
                    char **err);
/* WGs per part for send O in a kernel of WGS WGs (tag_div of the step). */
uint32_t pol_part_div(const struct wl_op *o, uint32_t wgs);
/* A device-initiated put-with-signal per piece of send I (NVSHMEM/IBGDA
 * style, cpufree and p2p): the last WG of a piece posts it to the NIC. */
struct kstep pol_device_put(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                            size_t i, uint32_t wgs, struct pol_prog *pp);
/* Replaces kernel K's steps by STEPS (N; taken over, g_malloc'd). */
void pol_kernel_set_steps(struct pol_prog *pp, uint32_t k, struct kstep *steps, size_t n);

/* The discrete-kernel host-copy lowering (copy, overlap): kernels launched
 * by the host, sends as host-initiated one-sided copies once the kernel
 * that made the data has ended, receives noticed by the host polling the
 * copy's flag. OVERLAP: lane 1 on a second stream, and the host waits for
 * a kernel only when a send, a sync or the end needs it. */
bool pol_host_copies(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                     const struct hw_config *hw, struct pol_prog *pp, bool overlap, char **err);

/* The host network stack (cpu, hdn): a two-sided send of op I of RANK, and
 * a two-sided receive (op I) completed when its flag is set. */
void pol_host_send(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                   size_t i, struct pol_prog *pp);
void pol_host_recv(const struct wl_program *p, uint32_t rank, size_t i, struct pol_prog *pp);

/* The policy table: one X(name) per policy, in the order scenarios list
 * and `params` shows them. Policy NAME is `const struct pol_type pol_NAME`
 * in its own file, workloads/policies/policy_NAME.c (a variant may share its
 * base's file: hdn2s is in policy_hdn.c); adding one is that file plus
 * one entry here. Everything else (the declarations below, pol_find, the
 * names, the count, the catalog) is derived from this list. */
#define POL_TABLE(X) \
  X(cpu) X(hdn) X(gds) X(gputn) X(ghn) X(cpufree) X(copy) X(overlap) X(p2p) X(monolithic) \
  X(hdn2s)

#define POL_DECLARE_(name) extern const struct pol_type pol_##name;
POL_TABLE(POL_DECLARE_)
#undef POL_DECLARE_
#define POL_NAME_(name) #name,
#define POL_ONE_(name) +1
#define POL_COUNT (0 POL_TABLE(POL_ONE_))

/* The policy named NAME, or NULL. */
const struct pol_type *pol_find(const char *name);
/* The names of every lowering policy (POL_COUNT), for the workloads'
 * wl_type tables and the catalog. */
extern const char *const pol_names[POL_COUNT];

/* Lowers P under POLICY onto HW, runs it with CTX's seed and trace and
 * fills OUT: total_ps = when rank p->measured_rank finished (the latest
 * rank for WL_ALL_RANKS), phases (models/phase.h), counters (every
 * component's report). Checks P, the nodes and the policy's hook first;
 * with ctx->check_only stops after lowering every rank. False and *ERR
 * (g_free): an input error, or (only when simulating) a deadlock. */
bool pol_run(struct wl_program *p, const char *policy, const struct hw_config *hw,
             const struct wl_ctx *ctx, struct sim_result *out, char **err);

/* Runs the node programs PROGS (per node; NULL: nothing) on a system of
 * HW built in engine E (taken over) under POL, as pol_run does once it has
 * lowered P: P gives the ranks, the measured one and, where it has them,
 * the ops a deadlock names (else "rank R op I"). For programs lowered
 * elsewhere (a streamed GOAL schedule, workloads/inputs/goal.c). */
bool pol_simulate_progs(const struct pol_type *pol, const struct wl_program *p,
                        const struct hw_config *hw, const struct nodeprog **progs,
                        struct sim_engine *e, struct trace *trace, struct sim_result *out,
                        char **err);



/* The library a run under POL uses on HW: the scenario's
 * hardware.comm.library, else the policy's (enum comm_library, never
 * COMM_AUTO; pol_run checks that POL takes it). */
uint8_t pol_library(const struct pol_type *pol, const struct hw_config *hw);

/* The error of a lowering that sent through library LIB's proxy thread
 * (pol_prog.proxied) on a CPU without a helper thread to hold it. */
char *pol_proxy_error(const struct scenario *sc, uint8_t lib);


#endif
