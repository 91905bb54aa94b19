/* A host CPU: a main thread (core 0) interpreting the node program's host
 * steps, and optional helper threads that serve GPU requests (ghn)
 * (DESIGN.md Sec. 3 "CPU"; 8 cores at 4 GHz from GPU-TN Table 2; the
 * software costs are not in the paper: see the parameter docs).
 *
 * Port "bus" (0), joined to the node bus's "cpu" port. Receives
 * PK_KERNEL_DONE, PK_HOST_REQUEST, PK_FLAG and PK_NIC_ROOM; sends PK_QUEUE_CMD to the GPU
 * and PK_NIC_CMD to the NIC (event kind = pmsg kind).
 *
 * Timing (main thread, steps in order from time 0).
 * - HS_COMPUTE: `time`. HS_LAUNCH: par_table_eval(submit_table, its place
 *   in the burst: launches since the last HS_WAIT_*, itself included), or
 *   launch_submit when the table is empty, + cpu_buffer_cost of the
 *   memory objects a launched kernel takes (kernel.buffers), then PK_QUEUE_CMD {queue,
 *   a = qcmd} leaves. HS_NIC_CMD: register_trigger (NIC_TPUT/NIC_TGET) or
 *   build_cmd, + send when two_sided, then PK_NIC_CMD leaves. A NIC_TPUT
 *   or NIC_TGET begun after the NIC said it holds nic.triggered_ops of
 *   them (PK_NIC_ROOM {a = 0}, nic.h) waits until it says there is room
 *   again, that time spent in the call (register_time), as a Portals
 *   registration retried until the NIC has room.
 * - HS_WAIT_KERNEL k waits for the completion record of the latest launch
 *   of kernel k made by this thread (done at once if none is outstanding).
 *   With the wait begun at s and the record arrived at a, the thread goes on
 *   at: poll: the first s + j*switch_poll_interval >= a (j >= 0; s when
 *   a <= s); interrupt: max(s, a + interrupt_latency); a thread that
 *   blocked (a > s) then wakes late by an exponential draw of mean
 *   wake_jitter from its component's stream: its host's scheduling, which
 *   sets the ranks' skew at the next collective (each rank draws its own).
 *   A kernel still running when the program ends is noticed as if the
 *   thread waited for it from its end, and as late (the run's end). A
 *   launch blocked on a full queue (launch_queue_depth) draws nothing.
 * - HS_WAIT_FLAG: until the flag >= value (noticed at once), + recv when
 *   two_sided; with stream_sync (a copy's completion flag: the wait of a
 *   stream synchronize) noticed and counted as HS_WAIT_KERNEL's record.
 * Helper threads: each holds a core for the whole run and polls the
 * GPU->CPU queue at ticks j*helper_poll_interval (all in phase). Requests are
 * taken in arrival order, each at the first tick at or after both its
 * arrival and some helper being free; it costs helper_service, then
 * PK_NIC_CMD with prog->cmds[a] leaves. */
#ifndef MODELS_CPU_H
#define MODELS_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "nodeprog.h"
#include "proto.h"

enum cpu_switch_mode { CPU_SWITCH_POLL, CPU_SWITCH_INTERRUPT };

/* Group "cpu": see cpu_params for units, defaults and ranges. */
struct cpu_config {
  int64_t cores;
  int64_t clock;              /* Hz (documentation: costs are given as times) */
  sim_time launch_submit;
  struct par_table submit_table; /* a launch's cost against its place in the burst; empty: launch_submit */
  int launch;                 /* enum cpu_launch (PAR_ENUM) */
  sim_time graph_launch;      /* one graph replay call */
  sim_time task_overhead;     /* a task runtime's host work per launch or NIC command */
  sim_time launch_per_buffer;  /* + per memory object a launched kernel takes (kernel.buffers) */
  struct par_table buffer_table; /* + against the memory objects it takes; empty: launch_per_buffer each */
  sim_time send;
  sim_time recv;
  sim_time build_cmd;
  sim_time register_trigger;  /* a triggered op: build_cmd's descriptor as a trigger entry (same value) */
  int switch_mode;            /* enum cpu_switch_mode (PAR_ENUM) */
  sim_time switch_poll_interval;
  sim_time interrupt_latency;
  sim_time wake_jitter;       /* mean of the exponential delay a thread that blocked in a
                                 kernel wait wakes late by (0: none) */
  sim_time pageable_copy;     /* a copy into pageable memory: the host's staging work */
  int64_t helper_threads;     /* 0 .. cores - 1 */
  sim_time helper_poll_interval;
  sim_time helper_service;
  int64_t flops_per_cycle;    /* per core: the compute rate of HS_COMPUTE phases' work */
  int64_t mem_bandwidth;      /* bits per second all cores together sustain */
  int64_t launch_queue_depth; /* kernels a GPU queue holds launched and not completed
                                 before the next launch blocks (sequence programs) */
};

/* How the host launches kernels (cpu.launch). */
enum cpu_launch { CPU_LAUNCH_DIRECT, CPU_LAUNCH_GRAPH };

extern const struct par_group cpu_params;
extern const struct sim_type cpu_type;

/* What a CPU reports at the end of a run, "node<i>.cpu.KEY": its declared
 * outputs (cpu_outs, with unit and doc; `trigsim outputs cpu`), in the
 * order it reports them. A reader takes a checked handle, CPU_OUT(NAME):
 * a name that is not a CPU output does not build. */
enum cpu_out {
  CPU_OUT_CORES_HELD, CPU_OUT_MAIN_DONE, CPU_OUT_RESULT_AT, CPU_OUT_STUCK_OP, CPU_OUT_LAUNCHES, CPU_OUT_NIC_CMDS,
  CPU_OUT_KERNEL_WAITS, CPU_OUT_LAUNCH_BLOCKS,
  /* where the main thread's time went, in the order of cpu.c's enum cpu_cat */
  CPU_OUT_COMPUTE_TIME, CPU_OUT_LAUNCH_TIME, CPU_OUT_BUILD_TIME, CPU_OUT_REGISTER_TIME,
  CPU_OUT_SEND_TIME, CPU_OUT_RECV_TIME, CPU_OUT_WAIT_KERNEL_TIME, CPU_OUT_SWITCH_TIME,
  CPU_OUT_WAIT_FLAG_TIME,
  CPU_OUT_HOST_REQUESTS, CPU_OUT_HELPER_SERVICE_TIME, CPU_OUT_HELPER_WAIT_TIME,
  CPU_OUT_HELPER_WAIT_MAX, CPU_OUT_COUNT
};
extern const struct sim_out_decl cpu_outs[CPU_OUT_COUNT];
extern const struct sim_outputs cpu_outputs;
#define CPU_OUT(name) (&cpu_outs[CPU_OUT_##name])

/* Checks what the declared ranges cannot (helper_threads < cores). False and
 * *ERR (g_free) "expected ..., got ..." when not. */
bool cpu_config_check(const struct cpu_config *cfg, char **err);

/* What a launch's submit cost adds for a kernel taking BUFFERS memory
 * objects: buffer_table at BUFFERS (linear between its entries; past the
 * last, its last value + launch_per_buffer each), or launch_per_buffer x
 * BUFFERS when the table is empty. */
sim_time cpu_buffer_cost(const struct cpu_config *cfg, uint32_t buffers);

/* Adds a CPU named NAME ("node3.cpu") for node NODE running PROG's host
 * steps. CFG and PROG are borrowed and must outlive the run. */
struct sim_comp *cpu_add(struct sim_engine *e, const char *name, const struct cpu_config *cfg,
                         const struct nodeprog *prog, uint32_t node);

/* A streamed graph program (nodeprog.source), called from its source's
 * read: adds step ST in slot SLOT, SEQ its index in the whole program (the
 * thread takes tasks ready at once in that order), depending on the steps
 * in slots DEPS (N; hdep.step is a slot) and, when OLD, on steps given
 * back (ended before now). False when the step was ready before now in a
 * way the run can no longer honour (the thread has moved on since): the
 * run is no longer the whole program's, and the caller runs that instead. */
bool cpu_stream_add(struct sim_comp *c, uint32_t slot, uint64_t seq, const struct hstep *st,
                    const struct hdep *deps, size_t n, bool old);
/* Steps added whose dependencies do not hold yet (the source's window). */
uint32_t cpu_stream_blocked(const struct sim_comp *c);
/* The source has added the program's last step. */
void cpu_stream_end(struct sim_comp *c);

#endif
