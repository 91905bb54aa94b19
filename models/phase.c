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

const struct sim_out_decl cp_outs[] = {
    [CP_OTHER] = OUT(other, UNIT_TIME, "time on the critical path in components of no node model"),
    [CP_LAUNCH] = OUT(launch, UNIT_TIME,
                      "critical path: the host's launch calls and the GPU's launch latency"),
    [CP_CPU_COMPUTE] = OUT(cpu_compute, UNIT_TIME, "critical path: host compute steps"),
    [CP_GPU_WORK] = OUT(gpu_work, UNIT_TIME,
                        "critical path: work-groups' dispatch, compute, fences and barriers"),
    [CP_TEARDOWN] = OUT(teardown, UNIT_TIME, "critical path: kernel teardown"),
    [CP_SWITCH] = OUT(switch, UNIT_TIME,
                      "critical path: the host noticing a kernel's completion (poll or interrupt)"),
    [CP_HOST_STACK] = OUT(host_stack, UNIT_TIME,
                          "critical path: building, registering, sending, receiving on the host"),
    [CP_NIC] = OUT(nic, UNIT_TIME,
                   "critical path: NIC command processing, trigger matching, overflow lookups"),
    [CP_BUS] = OUT(bus, UNIT_TIME,
                   "critical path: crossing a node's bus (latency, serialization, DMA)"),
    [CP_WIRE] = OUT(wire, UNIT_TIME,
                    "critical path: network links and switches (latency, serialization)"),
    [CP_WAITING] = OUT(waiting, UNIT_TIME,
                       "critical path: a poll's next tick after a flag was set; queue and helper waits"),
};
SIM_OUT_GROUP(cp_outputs, "cp",
              "the run's critical path by category (cp_KEY_ps): they sum to total_time_ps",
              cp_outs, CP_COUNT);
