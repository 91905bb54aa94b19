/* The program workload: a per-rank program written in the scenario's YAML
 * (sends, receives, puts and their waits, computes, calcs, collectives by
 * name, loops with a count, dependencies by label), with peers, sizes and
 * counts as integer expressions of `rank`, `nranks` and loop variables.
 * Syntax: configs/README.md; examples: configs/programs/. */
#ifndef WL_YPROG_H
#define WL_YPROG_H

#include "param.h"
#include "program.h"
#include "scenario.h"

/* Group "program": see program_params for units, defaults and ranges. */
struct yprog_config {
  int64_t ranks;        /* ranks taking part; 0: every node */
  const void *groups;   /* struct sc_node: the list of {ranks, ops} groups */
};

extern const struct par_group program_params;

/* Builds the program of GROUPS (the `workload.groups` node) over N ranks.
 * NULL and *ERR ("file:line:col: workload.groups...: expected X, got Y")
 * on a malformed program. Free with wl_program_free. */
struct wl_program *wl_yprog_build(const struct sc_node *groups, uint32_t n, char **err);

/* Evaluates integer expression TEXT (+ - * / % and parentheses over
 * integers, `rank`, `nranks` and the variables VARS/VALS (N of them); a
 * number may carry a unit of DIM, e.g. "(rank + 1) * 4KiB"; % is floored,
 * so "(rank - 1) % nranks" is a rank; one comparison == != < <= > >= may
 * join two sums, giving 1 or 0) into *OUT, in DIM's base unit. With
 * DIM other than UNIT_NONE the result must carry the unit (a bare 4096 is
 * not a size). False and *ERR on a malformed, overflowing or divide-by-zero
 * expression. */
bool wl_yprog_eval(const char *text, enum unit_dim dim, const char *const *vars,
                   const int64_t *vals, size_t n, int64_t *out, char **err);

#endif
