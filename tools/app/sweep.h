/* Sweeps: the optional top-level `sweep:` section of a scenario, a list of
 * axes (a parameter path and its values, listed or a linear/log range),
 * combined as a product or zipped, times repetitions with derived seeds.
 * A point is an ordered list of (path, YAML value) assignments applied to
 * the scenario tree like --set. See configs/README.md for the syntax. */
#ifndef SIM_SWEEP_H
#define SIM_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario.h"

struct sw_axis {
  char *path;              /* as written; "policy" sets `policies` */
  const struct sc_node *at;/* the axis mapping, for messages (owned by the tree) */
  struct sc_node **values; /* owned: listed values, or those of the range */
  size_t n_values;
};

struct sw_plan {
  struct sw_axis *axes;
  size_t n_axes;
  bool zip;        /* combine: zip (else product, the first axis slowest) */
  size_t repeat;   /* repetitions of each combination, >= 1 */
  size_t n_combos; /* combinations of axis values */
  size_t n_points; /* n_combos * repeat */
  /* NULL, or what a user should hear once about the values: a range's
   * step rounded to a whole ps ("FILE:L:C: sweep.axes[0].range: values
   * rounded to a whole ps (3.16227766us is 3.162278us)"). */
  char *note;
};

/* Parses the `sweep:` node SWEEP (which must outlive the plan). NULL and
 * *ERR (g_free) on a malformed section, with its file:line:col. */
struct sw_plan *sw_plan_parse(const struct sc_node *sweep, char **err);
void sw_plan_free(struct sw_plan *p);

/* Point I (0 <= I < n_points): repetitions fastest, then the last axis. */
size_t sw_point_rep(const struct sw_plan *p, size_t i);

/* The text of axis AXIS's value at point I, for a result column. */
const char *sw_point_label(const struct sw_plan *p, size_t i, size_t axis);

/* Applies point I's assignments to tree ROOT; messages point at the axis. */
bool sw_apply_point(const struct sw_plan *p, size_t i, struct sc_node *root, char **err);

/* The seed of repetition REP of a scenario seeded BASE: BASE itself for
 * repetition 0, rng_derive(BASE, REP) after. */
uint64_t sw_seed(uint64_t base, size_t rep);

/* Checks a `plot:` section (a map of x, y, series, facet, logx, logy,
 * title, xlabel, ylabel, speedup_over, name, stack to one-line scalars; logx/logy
 * true|false; where: COLUMN=VALUE or a list of them), or a list of such
 * maps, each with a name (several figures of one sweep), for
 * tools/reproduce.sh; false and *ERR with the place otherwise. */
bool sw_plot_check(const struct sc_node *plot, char **err);

/* A hex SHA-256 of tree ROOT (keys, values, quoting; not the marks) and
 * EXTRA: what a sweep journal was written for (g_free). */
char *sw_fingerprint(const struct sc_node *root, const char *extra);

#endif
