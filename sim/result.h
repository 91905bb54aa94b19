/* The result of one policy run: its simulated time, phase breakdown and
 * counters, as the driver fills it (workloads/policies/). The writers are
 * above the engine, in tools/app/report.h. */
#ifndef SIM_RESULT_H
#define SIM_RESULT_H

#include <stdint.h>

#include "engine.h"

/* One activity of a run's critical path: on WHERE (a component, or "A ->"
 * for a link out of A), in category CAT, from START to END. */
struct sim_result_hop {
  char *where;     /* owned */
  const char *cat; /* a critical-path category's key (static) */
  sim_time start, end;
};

struct sim_result {
  char *policy;
  /* The end of the run, one definition for every policy (issue 33): the
   * instant the last measured rank's result is usable by its host. */
  sim_time total_ps;
  /* The policy's own end, as runs ended before: the host program's end
   * (cpu, hdn, gds, ...) or the last work-group's end (gputn, cpufree,
   * ghn, monolithic); -1 where a run has no such notion. */
  sim_time policy_end_ps;
  /* The critical path that ends the run: time per category (the cp
   * declared outputs; empty when not tracked), which component ended it,
   * and with a chain its activities oldest first. */
  struct sim_report cp;
  char *cp_end;
  struct sim_result_hop *hops;
  size_t n_hops;
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
