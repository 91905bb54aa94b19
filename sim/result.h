/* The result of one policy run, and its writers: a human table, CSV (one row
 * per policy) and JSON. Output depends only on the results, never on the
 * clock, so the same inputs and seed give the same bytes. */
#ifndef SIM_RESULT_H
#define SIM_RESULT_H

#include <stdint.h>
#include <stdio.h>

#include "engine.h"

struct sim_result {
  char *policy;
  sim_time total_ps;         /* simulated time of the run */
  uint64_t events;           /* engine events executed */
  struct sim_report phases;  /* name -> time (UNIT_TIME), the breakdown */
  struct sim_report counters;/* per-component and aggregate counters */
};

void sim_result_init(struct sim_result *r, const char *policy);
void sim_result_clear(struct sim_result *r);

/* What the writers print around the runs. */
struct sim_result_set {
  const char *scenario;
  const char *workload;
  uint64_t seed;
  const struct sim_result *runs;
  size_t n_runs;
  /* A sweep (n_axes > 0 or seeds): columns AXES between the seed and the
   * policy, run I's values at AXIS_VALUES[I * n_axes + axis], its seed at
   * SEEDS[I]. The table then shows no per-run counters. */
  size_t n_axes;
  const char *const *axes;
  const char *const *axis_values;
  const uint64_t *seeds;
};

enum result_format { RESULT_TABLE, RESULT_CSV, RESULT_JSON };

void result_write(FILE *out, const struct sim_result_set *set, enum result_format fmt);

#endif
