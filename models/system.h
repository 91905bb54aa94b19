/* A whole system: N nodes, each a CPU, a GPU, a NIC and the bus that joins
 * them (with the node's memory behind it), and the network of switches the
 * NICs hang from; with network.gpus_per_node G > 1, groups of G such nodes
 * (endpoints) share a physical node and its intra-node crossbar (net.h).
 * Builds the components and their links into an engine from the bound
 * hardware parameters and one program per node. */
#ifndef MODELS_SYSTEM_H
#define MODELS_SYSTEM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "bus.h"
#include "cpu.h"
#include "engine.h"
#include "gpu.h"
#include "net.h"
#include "nic.h"
#include "nodeprog.h"
#include "topology.h"

/* The bound hardware groups (borrowed; they must outlive the system). */
struct comm_config;

struct hw_config {
  const struct gpu_config *gpu;
  const struct cpu_config *cpu;
  const struct bus_config *bus;
  const struct nic_config *nic;
  const struct net_config *net;
  /* The communication library (workloads/ir/library.h); NULL: the policy's
   * default. Read by the lowering only, never by the models. */
  const struct comm_config *comm;
};

struct system {
  uint32_t nodes;
  struct topo *topo;
  struct sim_comp **cpu, **gpu, **nic, **bus; /* per node */
};

/* Builds net->nodes nodes into E. PROGS has one program per node (borrowed;
 * NULL entries run nothing). NULL and *ERR (g_free) when the shape of the
 * network is impossible. The engine owns the components; free the system
 * with sys_free after sim_free (the switches' type and config live in it). */
struct system *sys_build(struct sim_engine *e, const struct hw_config *hw,
                         const struct nodeprog *const *progs, char **err);
void sys_free(struct system *s);

/* What sits on a node's CPU and GPU ports of its bus: a component and its
 * port for each (one component may take both, with two ports). */
struct sys_devices {
  struct sim_comp *cpu, *gpu;
  int cpu_port, gpu_port;
};
/* Adds node NODE's CPU and GPU side into E (CTX: the caller's) and says
 * where they join the bus. */
typedef void (*sys_add_devices)(void *ctx, struct sim_engine *e, uint32_t node,
                                struct sys_devices *out);
/* sys_build with ADD in place of the cpu and gpu models (a workload's own
 * device model, models/relax.h); the buses, NICs and network as there. */
struct system *sys_build_with(struct sim_engine *e, const struct hw_config *hw,
                              sys_add_devices add, void *ctx, char **err);

/* Node NODE's component whose type declares output D (its CPU, GPU, NIC
 * or bus): where a reader resolves a handle (cpu.h's CPU_OUT) against a
 * node. D of no node component (a switch's, a phase) is a fault. */
struct sim_comp *sys_node_comp(const struct system *s, uint32_t node,
                               const struct sim_out_decl *d);

/* The declared outputs of the system's component types and of its phase
 * breakdown (sim/outputs.h), in the order `trigsim outputs` lists them;
 * last the relax component's (relax.h), which sys_build_with adds in place
 * of the CPU and GPU for the ajacobi workload. */
extern const struct sim_outputs *const sys_outputs[];
extern const size_t sys_n_outputs;

/* Runs PROG on node 0 of a one-node star system of HW (one GPU a node; its
 * network's other settings kept), seed 1: when the CPU's main thread is done (ps);
 * *EVENTS (if not NULL) the events run. The program must end. */
int64_t sys_run_node(const struct hw_config *hw, const struct nodeprog *prog, uint64_t *events);

/* One blocking copy of BYTES (>= 1) between the GPU's memory and pageable
 * host memory with nothing ahead of it on the stream (cudaMemcpy; the
 * cuMemcpy Open MPI's datatype engine makes of each contiguous block of a
 * strided GPU buffer, opal/datatype/opal_datatype_cuda.c opal_cuda_memcpy),
 * timed by running it on a one-node system of HW (sys_run_node) as the
 * models run a scalar copied home (policy gds, wl_host_copies): the host
 * submits it (cpu.launch_submit or submit_table's first entry; no
 * task_overhead), the command crosses the bus, the copy engine starts
 * (gpu.copy_start), the data and its completion flag cross back, the host
 * notices the flag (cpu.switch_mode), then the driver's staging work
 * (cpu.pageable_copy). Either direction is timed as device-to-host, the
 * one measured (configs/cpufree-ics23/copy_home.cu). The host's wait for
 * it blocks, so it wakes late by cpu.wake_jitter's mean: one time serves
 * every copy, so it carries the mean, not a draw. */
int64_t sys_blocking_copy(const struct hw_config *hw, int64_t bytes);

/* The resource limits runs of a system hit, read from their counters (the
 * NICs', CPUs' and switches'), tallied over the runs of one command and
 * said once on stderr: the trigger list overflowing, NICs stalling,
 * queues growing (packets waiting at a switch port, requests waiting for a
 * helper thread), and switch ports waiting for credit. */
enum sys_limit { SYS_OVERFLOW, SYS_STALL, SYS_QUEUE, SYS_CREDIT, SYS_N_LIMITS };
struct sys_limits {
  uint64_t runs;                 /* runs tallied */
  uint64_t hit[SYS_N_LIMITS];    /* runs that hit each limit */
  int64_t spilled, lookups;      /* trigger entries spilled, overflow lookups */
  int64_t stalls, stall_time_ps; /* NIC stalls and their time */
  int64_t switch_wait_ps;        /* longest a packet queued at a switch port */
  int64_t helper_wait_ps;        /* longest a request waited for a helper thread */
  int64_t credit_stall_ps;       /* switch outputs blocked for credit, summed (flow.h) */
};
/* Tallies the counters by their declarations (entries without one, a
 * report read back without them, count for nothing). */
void sys_limits_tally(struct sys_limits *t, const struct sim_report *counters);
/* One line per limit hit, "trigsim: note: ..." with the counts; nothing
 * when none was. */
void sys_limits_print(const struct sys_limits *t, FILE *out);

#endif
