/* The phases of a run's time breakdown (phase.h), declared once: the
 * columns phase_KEY_ps of every policy run on the node models. */
#include "phase.h"

const struct sim_out_decl ph_outs[] = {
    [PH_LAUNCH] = OUT_F(launch, UNIT_TIME, SIM_OUT_PHASE,
                        "CPU launch calls and GPU launch latency, over all nodes"),
    [PH_CPU_COMPUTE] = {"cpu compute", UNIT_TIME, SIM_OUT_PHASE, "host compute steps"},
    [PH_GPU_WORK] = {"gpu work", UNIT_TIME, SIM_OUT_PHASE,
                     "work-groups running, less their polling"},
    [PH_TEARDOWN] = OUT_F(teardown, UNIT_TIME, SIM_OUT_PHASE, "kernel teardown"),
    [PH_SWITCH] = OUT_F(switch, UNIT_TIME, SIM_OUT_PHASE,
                        "host context switches (interrupt mode)"),
    [PH_HOST_STACK] = {"host stack", UNIT_TIME, SIM_OUT_PHASE,
                       "building, registering, sending and receiving on the host"},
    [PH_NIC] = OUT_F(nic, UNIT_TIME, SIM_OUT_PHASE,
                     "NIC command processing, trigger matching and overflow lookups"),
    [PH_WIRE] = OUT_F(wire, UNIT_TIME, SIM_OUT_PHASE,
                      "serialization of every byte sent (NVLink bytes at its bandwidth)"),
    [PH_WAITING] = OUT_F(waiting, UNIT_TIME, SIM_OUT_PHASE,
                         "CPUs, work-groups and queues waiting on flags; requests on helpers"),
};
SIM_OUT_GROUP(ph_outputs, "phase",
              "the run's time breakdown, summed over nodes (phase_KEY_ps); phases overlap",
              ph_outs, PH_COUNT);

void ph_preset(struct sim_report *phases) {
  for (size_t i = 0; i < PH_COUNT; i++) sim_out_put_int(phases, NULL, &ph_outs[i], 0);
}
