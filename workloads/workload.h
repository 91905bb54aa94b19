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
  /* True: check that the run would be accepted (the workload's and the
   * policy's check hooks, the program built and lowered for every rank)
   * without simulating; OUT stays empty. `validate` runs this. */
  bool check_only;
  /* The window a policy that drives from the GPU linearizes a graph rank
   * under (wl_linearize); 0: all ops (a GOAL schedule sets its
   * stream_window). */
  uint32_t lin_window;
};

struct wl_type {
  const struct par_group *params;  /* params->name is the workload's kind */
  const char *const *policies;     /* policies it can run under */
  size_t n_policies;
  /* The policy a scenario without `policies:` runs (NULL: policies[0]). */
  const char *default_policy;
  /* Rules on the bound scenario that ranges cannot say (node counts, sizes
   * whose product must fit): false and *ERR located at the offending key.
   * NULL: none. Called before run, also when only checking. */
  bool (*check)(const struct wl_ctx *ctx, char **err);
  /* Runs one policy (or, with ctx->check_only, everything but the
   * simulation); fills OUT (initialised by the caller). False and *ERR: an
   * input error when checking; after a passed check, a model failure
   * (a deadlock, or an internal error). */
  bool (*run)(const struct wl_ctx *ctx, struct sim_result *out, char **err);
  /* The per-rank program a run lowers (CTX's policy unused), for
   * `trigsim export-goal`; NULL when the workload has none (phold, kloop)
   * or builds it per policy. NULL and *ERR on a user error. */
  struct wl_program *(*program)(const struct wl_ctx *ctx, char **err);
};

/* The catalog: every hardware group, workload and policy of the program. */
extern const struct sc_catalog wl_catalog;
const struct wl_type *wl_type_of(const struct scenario *sc);


/* Everything `run` would reject, found without simulating: the policies,
 * then per policy the workload's check hook and a check-only run (the
 * policy's check hook, every rank lowered, the system's shape). An error
 * without a location gets the policy's (its `policies:` item). */
bool wl_check(const struct scenario *sc, char **err);

/* Runs policy K of SC into OUT (initialised). False and *ERR: the model
 * failed (wl_check passed, so not the input), located as wl_check does. */
bool wl_run(const struct scenario *sc, size_t k, struct trace *trace, struct sim_result *out,
            char **err);

#endif
