/* Workloads and the catalog of everything a scenario may name. A workload
 * describes what runs; a policy (workloads/policy_*.c) lowers it onto
 * the hardware models. Here: the workload type table and the catalog. */
#ifndef WL_WORKLOAD_H
#define WL_WORKLOAD_H

#include <stdbool.h>

#include "result.h"
#include "scenario.h"
#include "trace.h"

/* What one policy run of a workload gets. */
struct wl_ctx {
  const struct scenario *sc;
  const void *config;   /* the workload's bound config */
  const char *policy;
  uint64_t seed;
  struct trace *trace;  /* NULL: no timeline */
};

struct wl_type {
  const struct par_group *params;  /* params->name is the workload's kind */
  const char *const *policies;     /* policies it can run under */
  size_t n_policies;
  /* Runs one policy; fills OUT (initialised by the caller). False and *ERR
   * on a user error found only at run time. */
  bool (*run)(const struct wl_ctx *ctx, struct sim_result *out, char **err);
  /* The per-rank program a run lowers (CTX's policy unused), for
   * `trigsim export-goal`; NULL when the workload has none (phold, kloop)
   * or builds it per policy. NULL and *ERR on a user error. */
  struct wl_program *(*program)(const struct wl_ctx *ctx, char **err);
};

/* The catalog: every hardware group, workload and policy of the program. */
extern const struct sc_catalog wl_catalog;
const struct wl_type *wl_type_of(const struct scenario *sc);

/* Checks that the workload supports each policy the scenario lists; the
 * message points at the policies node. */
bool wl_check_policies(const struct scenario *sc, char **err);

#endif
