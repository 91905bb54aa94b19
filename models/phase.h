/* The phase breakdown of a run on the node models: the time each kind of
 * control-path work took, summed over all nodes and the whole run (so the
 * phases overlap, and include work after the measured rank finished, e.g.
 * a kernel's teardown): not a partition of the total. Each model adds its
 * own contributions from its finish (sim_report_phase); the driver presets
 * them in this order (ph_preset), so every run shows the same columns. */
#ifndef MODELS_PHASE_H
#define MODELS_PHASE_H

#include "engine.h"

#define PH_LAUNCH "launch"            /* CPU launch calls, GPU launch latency */
#define PH_CPU_COMPUTE "cpu compute"  /* host compute steps */
#define PH_GPU_WORK "gpu work"        /* WGs running, less their polling */
#define PH_TEARDOWN "teardown"        /* kernel teardown */
#define PH_SWITCH "switch"            /* host context switches (interrupt mode) */
#define PH_HOST_STACK "host stack"    /* building, registering, sending, receiving */
#define PH_NIC "nic"                  /* command processing and trigger matching */
#define PH_WIRE "wire"                /* serialization of every byte sent */
#define PH_WAITING "waiting"          /* CPUs, WGs, queues on flags; requests on helpers */

static inline void ph_preset(struct sim_report *phases) {
  static const char *const order[] = {PH_LAUNCH,  PH_CPU_COMPUTE, PH_GPU_WORK,
                                      PH_TEARDOWN, PH_SWITCH,     PH_HOST_STACK,
                                      PH_NIC,      PH_WIRE,       PH_WAITING};
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    sim_report_int(phases, order[i], UNIT_TIME, 0);
}

#endif
