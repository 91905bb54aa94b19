/* The writers of run results: a human table, CSV (one row per policy) and
 * JSON, which also lists the declared outputs it holds (unit and doc of
 * each phase and counter kind, sim/outputs.h). Output depends only on the
 * results, never on the clock, so the same inputs and seed give the same
 * bytes. */
#ifndef APP_REPORT_H
#define APP_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "result.h"
#include "scenario.h"

/* How much of the counters the writers show (--counters): NONE (the
 * default) none, and no phase sums; SUMMARY the phase sums and the
 * counters per component kind in the table and CSV, and the summary plus
 * every component's counters in JSON; ALL also every component's in the
 * table and CSV. */
enum result_counters {
  RESULT_COUNTERS_SUMMARY, RESULT_COUNTERS_ALL, RESULT_COUNTERS_NONE,
  RESULT_COUNTERS_AUTO /* not asked: NONE in the table and CSV, SUMMARY in JSON */
};

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
  enum result_counters counters;
  bool chain; /* the table lists each run's critical path, hop by hop */
  /* The resolved configuration (of the first point), or none: path, final
   * value and where it came from, for JSON. */
  const struct sc_setting *config;
  size_t n_config;
};

enum result_format { RESULT_TABLE, RESULT_CSV, RESULT_JSON };

void result_write(FILE *out, const struct sim_result_set *set, enum result_format fmt);

/* One counter over the components of one kind. A counter key is
 * "COMPONENT.NAME"; the kind of "node3.nic" is "node.nic" (its digits
 * dropped), so "node3.nic.puts" counts into "node.nic.puts". A key whose
 * component has no digits ("net.switches.packets", "jacobi.time_per_
 * iteration_ps", "lps") is a kind of its own: SINGLE, its value in SUM. */
struct result_stat {
  char *key;        /* "node.nic.puts" or the single key; owned */
  char *max_at;     /* the component with the largest value ("node3.nic"), first on ties; owned */
  size_t n;         /* components of the kind */
  bool single, is_real;
  enum unit_dim dim;
  const struct sim_out_decl *decl; /* its declaration (its first entry's), or NULL */
  double sum, max;  /* exact for integers below 2^53 */
};

/* The counters of R summarized by kind, in order of first appearance:
 * *N entries (result_stats_free). */
struct result_stat *result_summarize(const struct sim_report *r, size_t *n);
void result_stats_free(struct result_stat *s, size_t n);

#endif
