/* The phase breakdown of a run on the node models: the time each kind of
 * control-path work took, summed over all nodes and the whole run (so the
 * phases overlap, and include work after the measured rank finished, e.g.
 * a kernel's teardown): not a partition of the total. The phases are
 * declared outputs (sim/outputs.h, listed by `trigsim outputs phase`);
 * each model adds its own contributions from its finish (ph_add); the
 * driver presets them in this order (ph_preset), so every run shows the
 * same columns. */
#ifndef MODELS_PHASE_H
#define MODELS_PHASE_H

#include "engine.h"

enum ph {
  PH_LAUNCH,      /* CPU launch calls, GPU launch latency */
  PH_CPU_COMPUTE, /* host compute steps */
  PH_GPU_WORK,    /* WGs running, less their polling */
  PH_TEARDOWN,    /* kernel teardown */
  PH_SWITCH,      /* host context switches (interrupt mode) */
  PH_HOST_STACK,  /* building, registering, sending, receiving */
  PH_NIC,         /* command processing and trigger matching */
  PH_WIRE,        /* serialization of every byte sent */
  PH_WAITING,     /* CPUs, WGs, queues on flags; requests on helpers */
  PH_COUNT
};

extern const struct sim_out_decl ph_outs[PH_COUNT];
extern const struct sim_outputs ph_outputs;

/* Adds V to phase P of the run's breakdown (sim_report_phase). */
static inline void ph_add(struct sim_report *r, enum ph p, sim_time v) {
  sim_report_phase(r, &ph_outs[p], v);
}

/* Every phase at 0, in the declared order. */
void ph_preset(struct sim_report *phases);

/* The categories of the critical path (sim/engine.h: the chain of
 * activities that ended the run, each hop's time in one category). They
 * follow the phases above, with the bus (host-device-NIC crossings) and
 * the notice of a flag by polling (waiting) apart, and "other" for events
 * of no model here. The time of a run's critical path is a partition of
 * its end: the categories sum to total_time_ps. */
enum cp_cat {
  CP_OTHER,       /* components of no node model (PHOLD) */
  CP_LAUNCH,      /* the host's launch call, the GPU's launch latency */
  CP_CPU_COMPUTE, /* host compute steps */
  CP_GPU_WORK,    /* a work-group's steps: dispatch, compute, fences, barriers */
  CP_TEARDOWN,    /* kernel teardown */
  CP_SWITCH,      /* the host noticing a kernel's completion (poll or interrupt) */
  CP_HOST_STACK,  /* building, registering, sending, receiving, helper service */
  CP_NIC,         /* NIC command processing, trigger matching, overflow lookups */
  CP_BUS,         /* crossing the node's bus: PCIe latency and serialization, DMA */
  CP_WIRE,        /* network links and switches: latency, serialization, hops */
  CP_WAITING,     /* a poll's tick after the flag was set; a queue or helper's wait */
  CP_COUNT
};
_Static_assert(CP_COUNT <= SIM_CP_NCAT, "critical-path categories fit the engine's");

/* The critical path's outputs: cp_KEY_ps, one per category (the run's
 * "cp" report). */
extern const struct sim_out_decl cp_outs[CP_COUNT];
extern const struct sim_outputs cp_outputs;

#endif
