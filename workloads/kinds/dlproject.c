/* The dlproject workload (GPU-TN Sec. 5.4.2, Table 3, Fig. 11): projects a
 * synchronous training run's speedup from the allreduce calls it makes.
 * Table 3 gives, per CNTK workload, the fraction b of time blocked in
 * allreduce; one call of the model's (assumed) size is simulated under the
 * policy and under hdn (the paper's measured runs are host-driven MPI), and
 * with T the call's time, speedup over hdn = 1 / ((1 - b) + b * T / T_hdn):
 * the rest of the step is unchanged, there is no overlap to account for.
 * Sizes per call are not in the paper; ours are stated in the table below. */
#include <glib.h>
#include <stddef.h>
#include <string.h>

#include "allreduce.h"
#include "checks.h"
#include "workload.h"

struct dl_model {
  const char *name;
  double blocked;    /* Table 3 %Blocked */
  int64_t calls;     /* Table 3 Reductions */
  int64_t bytes;     /* assumed bytes per call (not in the paper) */
};

/* Sizes: gradient bytes per reduction call, assumed from each network's
 * parameter count and the number of calls: large dense layers for AlexNet
 * and the synthetic model, small recurrent or hidden layers elsewhere. */
static const struct dl_model models[] = {
    {"alexnet", 0.14, 4672, 8 << 20},
    {"an4-lstm", 0.50, 131192, 64 << 10},
    {"cifar", 0.04, 939820, 32 << 10},
    {"large-synth", 0.28, 52800, 1 << 20},
    {"mnist-conv", 0.12, 900000, 64 << 10},
    {"mnist-hidden", 0.29, 900000, 16 << 10},
};
#define N_MODELS G_N_ELEMENTS(models)

struct dlproject_config {
  int model; /* index into models, or N_MODELS: all */
  int granularity;
  int64_t wgs;
};

#define PAR_CONFIG struct dlproject_config
static const struct par_decl dlproject_decls[] = {
    PAR(model, PAR_ENUM, "all", NULL, NULL,
      "alexnet|an4-lstm|cifar|large-synth|mnist-conv|mnist-hidden|all",
      "which Table 3 workload to project (all: the six)"),
    PAR(granularity, PAR_ENUM, "work-group", NULL, NULL, "work-item|work-group|kernel|mixed",
      "trigger granularity of the allreduce (as workload allreduce)"),
    PAR(wgs, PAR_INT, "24", "1", "65536", NULL, "WGs of each reduction (one per CU)"),
};
#undef PAR_CONFIG

const struct par_group dlproject_params = {
    .name = "dlproject",
    .doc = "project training speedups from Table 3's allreduce calls (GPU-TN Fig. 11)",
    .decls = dlproject_decls,
    .n_decls = PAR_COUNT(dlproject_decls),
    .config_size = sizeof(struct dlproject_config),
};

/* One allreduce call of BYTES under POLICY; its time, phases into OUT. */
static bool one_call(const struct wl_ctx *ctx, const struct hw_config *hw, const char *policy,
                     int64_t bytes, struct sim_result *out, char **err) {
  const struct dlproject_config *c = ctx->config;
  struct allreduce_config ar; /* the allreduce workload's defaults, but for: */
  par_group_defaults(&allreduce_params, &ar);
  ar.size = bytes;
  ar.wgs = c->wgs;
  ar.granularity = c->granularity;
  struct wl_program *p = wl_allreduce_program(&ar, (uint32_t)hw->net->nodes, err);
  if (!p) return false;
  struct wl_ctx one = *ctx;
  one.trace = NULL; /* several runs per policy: no one timeline */
  bool ok = one.run(&one, p, policy, out, err);
  wl_program_free(p);
  return ok;
}

enum dl_out { DL_OUT_ALLREDUCE_TIME, DL_OUT_SPEEDUP, DL_OUT_COUNT };
static const struct sim_out_decl dl_outs[] = {
    [DL_OUT_ALLREDUCE_TIME] = OUT(allreduce_time, UNIT_TIME,
                                  "one allreduce of the model's gradients under the policy"),
    [DL_OUT_SPEEDUP] = OUT_F(speedup_over_hdn, UNIT_NONE, SIM_OUT_REAL,
                             "projected training speedup over hdn: 1 / ((1 - b) + b t / t_hdn), "
                             "b the model's blocked fraction (GPU-TN Table 3)"),
};
static SIM_OUT_GROUP(dl_outputs, "dlproject",
                     "KEY for one model; MODEL.KEY for all (model: all)", dl_outs, DL_OUT_COUNT);

/* The allreduce's checks on the allreduce dlproject runs. */
static bool dlproject_check(const struct wl_ctx *ctx, char **err) {
  const struct dlproject_config *c = ctx->config;
  struct allreduce_config ar;
  par_group_defaults(&allreduce_params, &ar);
  ar.wgs = c->wgs;
  ar.granularity = c->granularity;
  if (ar.granularity == AR_MIXED && ar.wgs % ar.mixed_wgs) {
    *err = wl_error_at(ctx->sc, "workload.wgs",
                        "expected a multiple of the allreduce's mixed_wgs = %" G_GINT64_FORMAT
                        " under granularity mixed, got %" G_GINT64_FORMAT,
                        ar.mixed_wgs, ar.wgs);
    return false;
  }
  return wl_allreduce_check(ctx, &ar, "dlproject", err);
}

static bool dlproject_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  const struct dlproject_config *c = ctx->config;
  struct hw_config hw = wl_hw_of(ctx->sc);
  out->total_ps = 0;
  for (size_t m = 0; m < N_MODELS; m++) {
    if (c->model != (int)N_MODELS && c->model != (int)m) continue;
    struct sim_result pol, base;
    sim_result_init(&pol, ctx->policy);
    sim_result_init(&base, "hdn");
    bool ok = one_call(ctx, &hw, ctx->policy, models[m].bytes, &pol, err) &&
              (!strcmp(ctx->policy, "hdn") || one_call(ctx, &hw, "hdn", models[m].bytes, &base, err));
    if (ok) {
      sim_time t = pol.total_ps, t_hdn = strcmp(ctx->policy, "hdn") ? base.total_ps : t;
      double b = models[m].blocked, speedup = 1.0 / ((1 - b) + b * (double)t / (double)t_hdn);
      /* One model: plain keys (a sweep column); all: prefixed by model. */
      const char *pre = c->model == (int)N_MODELS ? models[m].name : NULL;
      sim_out_put_int(&out->counters, pre, &dl_outs[DL_OUT_ALLREDUCE_TIME], t);
      sim_out_put_real(&out->counters, pre, &dl_outs[DL_OUT_SPEEDUP], speedup);
      out->total_ps += t;
      out->events += pol.events;
      sim_report_sum(&out->phases, &pol.phases);
    }
    sim_result_clear(&pol);
    sim_result_clear(&base);
    if (!ok) return false;
  }
  return true;
}

const struct wl_type wl_dlproject = {
    .params = &dlproject_params,
    .outputs = &dl_outputs,
    .default_policy = "gputn",
    .check = dlproject_check,
    .run = dlproject_run,
};
