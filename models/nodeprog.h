/* What a node's CPU and GPU execute: the lowered form a policy writes
 * (workloads/policies/policy_*.c) and the cpu and gpu models interpret. Read-only
 * while the simulation runs; shared by the node's components as config. */
#ifndef MODELS_NODEPROG_H
#define MODELS_NODEPROG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"
#include "simtime.h"

/* One step of a work-group's program (every WG of a kernel runs the same). */
enum kstep_kind {
  KS_COMPUTE,      /* flops and bytes through the roofline, or `time` if > 0 */
  KS_WAIT_FLAG,    /* poll flag `flag + wg / flag_div` until it holds >= `value`
                      (gpu.poll_interval) */
  KS_TRIGGER,      /* release fence + `stores` posted stores of tag `tag + wg / tag_div`
                      to the NIC */
  KS_HOST_REQUEST, /* post request `cmd` to the CPU helper threads' queue (ghn) */
  KS_NIC_CMD,      /* device-initiated command `cmd` straight to the NIC (cpufree) */
  /* KS_HOST_REQUEST and KS_NIC_CMD with tag_div > 0: WG w belongs to part
   * w / tag_div; every WG pays the fence (and an atomic arrive), and the
   * last WG of a part to arrive posts command `cmd + part`. */
  KS_BARRIER,      /* device-wide barrier of all the kernel's WGs */
  KS_HOST_FLAG,    /* release fence, then a posted store adding 1 to host flag `flag`
                      (the CPU's copy) across the bus: a signal to a spinning host */
  KS_LOOP,         /* the steps up to the matching KS_END run `count` times (np_loops) */
  KS_END,          /* end of the innermost open KS_LOOP's body */
};

/* What a KS_COMPUTE step is (its kernel class): each has its efficiency
 * (gpu.eff_*) and cache behaviour (gpu.h). */
enum kclass {
  KC_STREAM,  /* reads and writes each byte once (copy, scale): the default */
  KC_STENCIL, /* neighbours re-read through the caches (Jacobi) */
  KC_SPMV,    /* a sparse matrix streamed, the input vector gathered */
  KC_REDUCE,  /* dot product / norm: per-WG partials, then a second pass */
  KC_AXPY,    /* vector update y = a x + y (two reads, one write per element) */
  KC_GEMM,    /* dense linear algebra as generated code (GEMM, GEMV loops a
                 compiler wrote without a library: DaCe-Pure, a fused kernel) */
  KC_LIBRARY, /* the same call made to a vendor library (cuBLAS GEMM, GEMV,
                 dot: its own kernels, tuned; wl_library) */
  KC_COUNT
};

struct kstep {
  uint8_t kind;        /* enum kstep_kind */
  uint8_t kclass;      /* KS_COMPUTE: enum kclass */
  int64_t flops;       /* KS_COMPUTE */
  int64_t bytes;       /* KS_COMPUTE: bytes of memory traffic */
  sim_time time;       /* KS_COMPUTE: fixed duration, overrides the roofline */
  int64_t ws_bytes;    /* KS_COMPUTE: the kernel's whole working set (all WGs, every
                          array it touches); <= gpu.l2_bytes: served at L2 rate. 0: unknown */
  int64_t reuse_bytes; /* KS_COMPUTE: bytes per WG re-read from a gathered vector of
                          gather_bytes (SpMV's x), beyond `bytes` */
  int64_t gather_bytes;/* KS_COMPUTE: size of that vector (all WGs) */
  int64_t rows;        /* KS_COMPUTE, KC_SPMV: rows per WG of a row-per-thread CSR SpMV
                          (8 B values, 4 B column indices; gpu.h "L1"); 0: none */
  int64_t nnz;         /* KS_COMPUTE, KC_SPMV: the non-zeros of those rows */
  int64_t peer_loads;  /* KS_COMPUTE: blocking 8 B loads from peer GPUs' memory per WG
                          (nvshmem_double_g over NVLink; gpu.h "Peer loads") */
  int64_t peer_sectors;/* KS_COMPUTE: the link requests those loads make per WG (a warp's
                          lanes that read one sector make one); 0: one a load */
  int64_t cold_bytes;  /* KS_COMPUTE: of `bytes`, those per WG that come from memory though
                          ws_bytes fits L2: evicted since their last use (gpu.h "L2 reuse") */
  uint32_t flag;       /* KS_WAIT_FLAG: first flag */
  uint32_t flag_div;   /* KS_WAIT_FLAG: WGs per flag (0: all WGs wait on `flag`) */
  uint32_t value;      /* KS_WAIT_FLAG */
  uint32_t tag;        /* KS_TRIGGER: first tag */
  uint32_t tag_div;    /* KS_TRIGGER: WGs per tag (1 = per WG; n_wgs = kernel level);
                          KS_HOST_REQUEST, KS_NIC_CMD: WGs per part (0: every WG posts) */
  uint32_t stores;     /* KS_TRIGGER: stores per WG (work-item granularity: one per
                          work-item); 0 means 1 */
  uint32_t tag_stride; /* KS_TRIGGER in a loop: the tag of execution j is tag + j * tag_stride */
  uint32_t count;      /* KS_LOOP: iterations, >= 1 */
  uint32_t cmd;        /* KS_HOST_REQUEST, KS_NIC_CMD: index into nodeprog.cmds */
  uint8_t nvl;         /* KS_NIC_CMD: a put to a GPU of the same node made of the
                          SMs' own stores over NVLink (NVSHMEM's and NCCL's P2P
                          transport): no PCIe crossing, no NIC command processing,
                          no DMA; the target's flag is written over NVLink too */
  uint8_t unfenced;    /* KS_NIC_CMD, KS_HOST_REQUEST: posted without gpu.fence_latency:
                          a flag store that orders nothing before it, or data that
                          carries its own flags (wl_fence, coll.h: NCCL's LL, LL128) */
  uint8_t gets;        /* KS_COMPUTE, KC_SPMV: x read through gets (nvshmem_double_g),
                          one non-zero per visit (gpu.h "L1") */
  uint16_t item_bytes; /* KS_COMPUTE: bytes a work-item keeps in flight, the element it
                          loads (Little's law, gpu.h); 0: gpu.item_bytes */
  uint8_t buffers;     /* KS_COMPUTE: memory objects the code's kernel takes as arguments
                          (its kernel's `buffers` is the most of its steps') */
  uint32_t only_wg;    /* if > 0, only WG only_wg-1 performs this step */
  /* If sel_count > 0, only WGs sel_first + j * sel_stride (0 <= j <
   * sel_count) perform this step (e.g. the WGs on one edge of a 2D tiling
   * store a halo's trigger); the others skip it at no cost. Not for
   * KS_BARRIER. With tag_div, a part's WGs are the selected ones. */
  uint32_t sel_first, sel_stride, sel_count;
};

struct kernel {
  const char *name;
  uint32_t n_wgs;
  uint32_t regs_per_item;      /* registers a work-item needs; 0: gpu.persistent_regs or
                                  gpu.discrete_regs, as PERSISTENT says */
  bool persistent;             /* sized to residency and looping (cpufree, monolithic), not
                                  launched per phase (gpu_occupancy) */
  uint32_t local_bytes_per_wg; /* local (shared) memory a WG needs; 0: none */
  uint8_t buffers;             /* memory objects it takes as arguments, bound at each launch
                                  (cpu.launch_per_buffer) */
  const struct kstep *steps;
  size_t n_steps;
  /* Open (its steps read while it runs, nodeprog.seq's kernel): steps[0]
   * is step `base`; steps base .. n_steps - 1 are there, n_steps grows as
   * the source reads on. */
  bool open;
  size_t base;
};

/* Commands of a GPU in-order queue (a stream). */
enum qcmd_kind {
  Q_KERNEL,     /* launch kernel `kernel` (launch latency, waves, teardown) */
  Q_WAIT_FLAG,  /* block the queue until `flag` >= `value` (stream wait-on-flag) */
  Q_DOORBELL,   /* ring the NIC for pre-posted command `cmd_id` (GDS) */
  Q_COPY_HOME,  /* a copy engine copies `bytes` of GPU memory to host memory
                   (cudaMemcpyAsync device-to-host), then adds 1 to host flag
                   `flag` (the completion the host's stream sync sees) */
  Q_MARK,       /* once every command before it is done, add 1 to host flag
                   `flag`: what a stream synchronize waits for when the
                   stream's last command is not a kernel (a wait-on-flag) */
};

/* A queue command submitted by a host step in a loop carries that step's
 * execution index j (np_loops) with it (pmsg.b of PK_QUEUE_CMD): a
 * Q_WAIT_FLAG waits for value * (j + 1), a Q_DOORBELL rings cmd_id + j *
 * id_stride. */
struct qcmd {
  uint8_t kind;        /* enum qcmd_kind */
  uint32_t kernel;     /* Q_KERNEL: index into nodeprog.kernels */
  uint32_t flag, value;/* Q_WAIT_FLAG; Q_COPY_HOME, Q_MARK: flag */
  uint32_t cmd_id;     /* Q_DOORBELL */
  uint32_t id_stride;  /* Q_DOORBELL */
  int64_t bytes;       /* Q_COPY_HOME */
  uint8_t graph;       /* Q_KERNEL: a node of a captured graph, launched by the
                          front end (gpu.graph_launch), not host-paced:
                          1, another node of the replay follows it (no
                          teardown); 2, the replay's last node; 0: none */
};

/* One step of a CPU thread's program. */
enum hstep_kind {
  HS_COMPUTE,     /* occupy the core for `time` */
  HS_LAUNCH,      /* submit queue command `qcmd` to GPU queue `queue` (cpu.launch_submit) */
  HS_WAIT_KERNEL, /* wait until kernel `kernel` completes (control-flow switch) */
  HS_NIC_CMD,     /* build and post NIC command `cmd` (cpu.build_cmd, or
                     cpu.register_trigger for triggered ones, or cpu.send for puts
                     made by the host network stack when `two_sided`) */
  HS_WAIT_FLAG,   /* wait until `flag` >= `value`; pays cpu.recv when `two_sided` */
  HS_SET_FLAG,    /* store: add 1 to flag `flag` in memory a kernel polls (the GPU's
                     copy, across the bus); costs the thread nothing */
  HS_LOOP,        /* the steps up to the matching HS_END run `count` times (np_loops);
                     sequence programs only */
  HS_END,         /* end of the innermost open HS_LOOP's body */
};

struct hstep {
  uint8_t kind;        /* enum hstep_kind */
  uint8_t two_sided;   /* HS_NIC_CMD / HS_WAIT_FLAG through the host stack */
  uint8_t queue;       /* HS_LAUNCH */
  uint8_t stream_sync; /* HS_WAIT_FLAG on a Q_COPY_HOME's or Q_MARK's flag (sequence programs): a
                          stream synchronize, noticed and counted as a kernel wait */
  sim_time time;       /* HS_COMPUTE */
  uint32_t qcmd;       /* HS_LAUNCH: index into nodeprog.qcmds */
  uint32_t kernel;     /* HS_WAIT_KERNEL */
  uint32_t cmd;        /* HS_NIC_CMD */
  uint32_t flag, value;/* HS_WAIT_FLAG */
  /* Graph host programs (nodeprog.host_deps): this step's dependencies
   * are host_deps[dep_first .. dep_first + n_deps). */
  uint32_t dep_first, n_deps;
  uint32_t op;         /* 1 + the program op this step lowers (for messages), 0: none */
  uint32_t count;      /* HS_LOOP: iterations, >= 1 */
  /* HS_NIC_CMD in a loop: execution j posts the command with tag + j *
   * tag_stride (a triggered put's registration) and cmd_id + j * id_stride
   * (a GDS pre-post). HS_LAUNCH passes j with the queue command. */
  uint32_t tag_stride, id_stride;
  /* HS_LAUNCH under cpu.launch graph (lower.c, pol_capture_graphs): 1, the
   * first command of a replayed graph (the host pays cpu.graph_launch for
   * the whole graph); 2, a later command of the same replay (no host cost:
   * the one call submitted it); 0, a direct launch. */
  uint8_t graph;
};

/* A dependency of a graph host step: step `step` has completed, or (when
 * on_start) started. */
struct hdep {
  uint32_t step;
  uint32_t on_start;
};

/* Loops (np_loops). A program is the same whether a body is written once
 * in a loop or `count` times one after another: a loop is how a node
 * program stays as long as what one rank does is to write, not as long as
 * the run (the scale issue). HS_LOOP/HS_END in a sequence host program and
 * KS_LOOP/KS_END in a kernel's steps nest at most NP_MAX_DEPTH deep; they
 * take no time and make no event. A step inside loops runs once per
 * iteration; its execution index j is the flattened iteration of the loops
 * around it, outermost most significant (loops of counts c1 > c2 at
 * iterations i1, i2: j = i1 * c2 + i2; 0 outside any loop). What changes
 * from one execution to the next is scaled by j, so that the flags, tags
 * and NIC command ids the executions use are those of the unrolled program:
 * - a flag counts what arrived: a wait (HS_WAIT_FLAG, KS_WAIT_FLAG,
 *   Q_WAIT_FLAG) of execution j waits for value * (j + 1) (each execution
 *   of the receive it lowers adds `value`);
 * - trigger tags (KS_TRIGGER, a registration's nic_cmd.tag) are tag + j *
 *   tag_stride; pre-posted command ids (NIC_POST's cmd_id, Q_DOORBELL)
 *   cmd_id + j * id_stride;
 * - a kernel launched once per iteration is one kernel: the host's
 *   HS_WAIT_KERNEL waits for its latest launch; the parts of a KS_NIC_CMD /
 *   KS_HOST_REQUEST count arrivals per execution. */
#define NP_MAX_DEPTH 4

/* An open loop of a thread or WG: its body starts at step `begin`;
 * iteration i of count. Both models run loops with the helpers below. */
struct np_loop {
  uint32_t begin, count, i;
};

/* The execution index of a step inside the DEPTH loops L, those around
 * it in turn inside loops whose index is OUTER (0: none). */
static inline uint64_t np_loop_index(uint64_t outer, const struct np_loop *l, uint32_t depth) {
  for (uint32_t d = 0; d < depth; d++) outer = outer * l[d].count + l[d].i;
  return outer;
}

/* What a wait for VALUE per execution waits for at execution J. */
static inline uint64_t np_wait_value(uint32_t value, uint64_t j) {
  return (uint64_t)value * (j + 1);
}

/* A loop marker (HS_LOOP/KS_LOOP when OPEN, else HS_END/KS_END) of COUNT
 * at step AT, with *DEPTH loops L open: the step to go on at, or
 * UINT32_MAX when the program is malformed (a loop of no iteration, too
 * deep, or an end outside any). */
static inline uint32_t np_loop_step(struct np_loop *l, uint32_t *depth, bool open, uint32_t count,
                                    uint32_t at) {
  if (open) {
    if (*depth == NP_MAX_DEPTH || count == 0) return UINT32_MAX;
    l[(*depth)++] = (struct np_loop){at + 1, count, 0};
    return at + 1;
  }
  if (*depth == 0) return UINT32_MAX;
  struct np_loop *top = &l[*depth - 1];
  if (++top->i < top->count) return top->begin;
  (*depth)--;
  return at + 1;
}

struct sim_comp;

/* Programs read while they run (a GOAL schedule streamed: the lowering
 * driver, workloads/policies/stream.c, lowers an op at a time as the
 * models ask). The models keep indices, never pointers, into the arrays
 * (host, steps, cmds, qcmds, kernels), which may move at each call to the
 * driver, this node's or another's (but a kernel the GPU runs and that
 * kernel's steps stay where they are until its completion).
 *
 * A graph host program (np_source): before the CPU's thread takes its
 * next task, the cpu model gives back the slots of steps that ended
 * before now (RELEASE: a dependency on one of them is met, since before
 * now; a wait's flag is set back to 0 first) and lets the driver READ on:
 * it adds the node's next steps in program order with cpu_stream_add
 * (models/cpu.h), as many as its window allows (cpu_stream_blocked), and
 * cpu_stream_end after the last. A step is named by a slot the driver
 * hands out. */
struct np_source {
  void *ctx;
  void (*read)(void *ctx, uint32_t node, struct sim_comp *cpu);
  void (*release)(void *ctx, uint32_t node, uint32_t slot);
};

/* A sequence host program and open kernels (np_seq): windows of the whole
 * program's steps. Host step i is host[i - host_base] while host_base <= i
 * < n_host; step i of an open kernel (kernel.open) is steps[i - base]. A
 * model that reaches a step not yet there asks for it: HOST (the host has
 * passed the steps before I; the CPU has set the flags of the
 * HS_WAIT_FLAG waits among them back to 0) or KERNEL (every WG of kernel K
 * has passed the steps before DONE; the GPU has set the flags of the waits
 * among them back to 0); after the call, a step still not there means the
 * program (the kernel) has ended. */
struct np_seq {
  void *ctx;
  void (*host)(void *ctx, uint32_t node, uint64_t i);
  void (*kernel)(void *ctx, uint32_t node, uint32_t k, uint64_t i, uint64_t done);
};

/* What the models give back of a program read while it runs, so that its
 * slots serve later steps: CMD_READ: NIC command CMD has been copied into
 * a message (each is read once); QCMD_DONE: the GPU has served queue
 * command Q (a Q_WAIT_FLAG's flag set back to 0 first); KERNEL_DONE: the
 * host has had kernel K's completion record. Each may be NULL. */
struct np_give {
  void *ctx;
  void (*cmd_read)(void *ctx, uint32_t node, uint32_t cmd);
  void (*qcmd_done)(void *ctx, uint32_t node, uint32_t q);
  void (*kernel_done)(void *ctx, uint32_t node, uint32_t k);
};

/* Everything one node runs. Flag ids index a node-wide array of flag words
 * (0 unused); their watcher is the device that polls them. */
struct nodeprog {
  const struct kernel *kernels;
  size_t n_kernels;
  const struct qcmd *qcmds;
  size_t n_qcmds;
  const struct nic_cmd *cmds;  /* NIC commands, referenced by index */
  size_t n_cmds;
  const struct hstep *host;    /* the main CPU thread's program (core 0) */
  size_t n_host;
  /* NULL: the host steps run one after another. Else the host program is
   * a graph: a step starts once its dependencies hold; steps that take the
   * thread (compute, launch, NIC command, a two-sided receive's completion)
   * queue for it in the order they became ready (ties: step order), and
   * waits hold no thread while they wait (the runtime's progress engine
   * polls between tasks), as ops do in LogGOPSim. The thread's idle time
   * while steps are left counts as waiting (cpu.wait_flag_time). */
  const struct hdep *host_deps;
  size_t n_host_deps;
  uint32_t n_flags;            /* flag ids are 1 .. n_flags */
  /* Non-NULL: a graph host program read while it runs (np_source); host
   * and host_deps are unused, and the source may grow cmds and n_flags. */
  const struct np_source *source;
  /* Non-NULL: a sequence program read while it runs (np_seq); its host
   * steps start at host_base, and the source may grow n_flags. */
  const struct np_seq *seq;
  size_t host_base;
  /* With seq: the host program is a graph each of whose steps depends on
   * the end of the one before (a chain), run by a graph's rules (host_deps
   * above) and read as a sequence. */
  bool chain;
  /* Non-NULL (with source or seq): what the models give back (np_give). */
  const struct np_give *give;
};

#endif
