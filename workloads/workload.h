/* Workloads and the catalog of everything a scenario may name. A workload
 * kind (workloads/kinds/, workloads/inputs/) describes what runs; a policy
 * (workloads/policies/) lowers it onto the hardware models. Here: the
 * contract of a workload kind (wl_ctx, wl_type) and the catalog
 * (workloads/catalog.c), which joins kinds and policies: a kind never
 * includes the policy layer, it runs its programs through wl_ctx.run. */
#ifndef WL_WORKLOAD_H
#define WL_WORKLOAD_H

#include <stdbool.h>

#include "result.h"
#include "scenario.h"
#include "trace.h"

struct wl_program;
struct wl_source;

/* How an op source (workloads/ir/source.h) may run: wl_ctx.run_source. */
struct wl_stream_opts {
  uint32_t window;       /* ops of a rank read ahead that wait for a dependency; the ops
                            among which a rank run in one order picks its next (read
                            whole too); 0: read whole first */
  bool whole;            /* read whole first all the same */
  uint64_t whole_limit;  /* the most ops a source may have to be read whole */
};

/* A real device a workload may time a kernel on (`compute_time: measured`,
 * workloads/kinds/kloop.c): registered by the program that has one
 * (tools/calib/, wl_set_device); none in a library-only build or a test. */
struct wl_device {
  /* Whether device INDEX (-1: the first GPU) opens; false and *ERR why not. */
  bool (*available)(int64_t index, char **err);
  /* The median execution span (s) of the calibration's Jacobi kernel at
   * GRID over REPS launches on device INDEX, its spread, and the device's
   * name (*NAME, g_free); false and *ERR when it cannot. */
  bool (*jacobi_exec)(int64_t index, int64_t grid, int reps, double *median_s, double *spread,
                      char **name, char **err);
};

/* What one policy run of a workload gets. */
struct wl_ctx {
  const struct scenario *sc;
  const void *config;   /* the workload's bound config */
  const char *policy;
  uint64_t seed;
  struct trace *trace;  /* NULL: no timeline */
  /* How runs track their critical path (sim_set_cp; tests: 0, off). */
  enum sim_cp_mode cp;
  /* True: check that the run would be accepted (the workload's and the
   * policy's check hooks, the program built and lowered for every rank)
   * without simulating; OUT stays empty. `validate` runs this. */
  bool check_only;
  /* The window a policy that drives from the GPU linearizes a graph rank
   * under (wl_linearize); 0: all ops (a GOAL schedule sets its
   * stream_window). */
  uint32_t lin_window;
  /* Lowers P (kept by the caller) under POLICY onto the scenario's hardware
   * and runs it with this context's seed and trace (or only checks it,
   * with check_only), filling OUT: the policy layer's driver, set by the
   * catalog. */
  bool (*run)(const struct wl_ctx *ctx, struct wl_program *p, const char *policy,
              struct sim_result *out, char **err);
  /* Runs op source SRC (kept by the caller) under the context's policy as
   * OPTS allow: streamed, or read whole (the policy layer's driver, set by
   * the catalog). out->streamed says which. */
  bool (*run_source)(const struct wl_ctx *ctx, const struct wl_source *src,
                     const struct wl_stream_opts *opts, struct sim_result *out, char **err);
  /* Whether the context's policy can run a compute op placed at WHERE
   * (enum wl_where: a GOAL calc's calc_on), set by the catalog. */
  bool (*computes_on)(const struct wl_ctx *ctx, uint8_t where);
  /* The form of a program written in several (enum wl_form) that the
   * context's policy runs, set by the catalog. */
  uint8_t (*form)(const struct wl_ctx *ctx);
  /* The registered device, or NULL (wl_set_device). */
  const struct wl_device *device;
};

struct wl_type {
  const struct par_group *params;  /* params->name is the workload's kind */
  /* What its runs report beside the models' outputs (sim/outputs.h: its
   * own counters and phases, each by declaration), or NULL: nothing. */
  const struct sim_outputs *outputs;
  const char *const *policies;     /* policies it can run under; NULL: every
                                      policy that lowers programs */
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
  /* NULL run: the kind is its program, built by `program` and run under
   * the context's policy (wl_ctx.run). */
  /* The per-rank program a run lowers (CTX's policy unused), for
   * `trigsim export-goal`; NULL when the workload has none (phold, kloop)
   * or builds it per policy. NULL and *ERR on a user error. */
  struct wl_program *(*program)(const struct wl_ctx *ctx, char **err);
};

/* The policies workload W runs under (*N of them). */
const char *const *wl_policies_of(const struct wl_type *w, size_t *n);

/* Registers D as the device workloads time kernels on (NULL: none). */
void wl_set_device(const struct wl_device *d);

/* The catalog: every hardware group, workload and policy of the program. */
extern const struct sc_catalog wl_catalog;
const struct wl_type *wl_type_of(const struct scenario *sc);


/* Every declared output group (sim/outputs.h): the models' (cpu, gpu, bus,
 * nic, switch, phase), then the workloads' own, in the catalog's order: *N
 * of them; `trigsim outputs` lists them. */
const struct sim_outputs *const *wl_outputs(size_t *n);

/* The context of policy K of SC as a run gets it (its hooks set), for a
 * caller that asks a workload for its program (export-goal, export-chakra). */
struct wl_ctx wl_ctx_of(const struct scenario *sc, size_t k);

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
