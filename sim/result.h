/* The result of one policy run: its simulated time, phase breakdown and
 * counters, as the driver fills it (workloads/policies/). The writers are
 * above the engine, in tools/app/report.h. */
#ifndef SIM_RESULT_H
#define SIM_RESULT_H

#include <stdint.h>

#include "engine.h"

struct sim_result {
  char *policy;
  sim_time total_ps;         /* simulated time of the run */
  uint64_t events;           /* engine events executed */
  struct sim_report phases;  /* name -> time (UNIT_TIME), the breakdown */
  struct sim_report counters;/* per-component and aggregate counters */
  /* Each entry of both a declared output (outputs.h) of a component type
   * or of the workload; `events` is engine bookkeeping, not a prediction:
   * printed, but no golden compares it. */
  /* Its input was read while it ran (an op source streamed), not whole
   * first: for tests and benchmarks, not written out. */
  bool streamed;
};

void sim_result_init(struct sim_result *r, const char *policy);
void sim_result_clear(struct sim_result *r);

#endif
