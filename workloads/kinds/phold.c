/* The PHOLD workload: the engine benchmark as a scenario, run under the
 * "none" policy (no control path: events go straight through links). */
#include <glib.h>

#include "phold.h"
#include "workload.h"

/* The events in flight, lps x population, each a queue entry and a
 * payload: 2^26 keeps the engine within a few GB. */
#define PHOLD_MAX_EVENTS (INT64_C(1) << 26)

static bool phold_check(const struct wl_ctx *ctx, char **err) {
  const struct phold_config *cfg = ctx->config;
  if (cfg->lps <= PHOLD_MAX_EVENTS / cfg->population) return true;
  const struct sc_node *n = sc_node_near(ctx->sc->root, "workload.population");
  *err = sc_error_at(n, "workload.population",
                     "expected lps x population at most %" G_GINT64_FORMAT
                     " events in flight (memory), got %" G_GINT64_FORMAT " x %" G_GINT64_FORMAT,
                     PHOLD_MAX_EVENTS, cfg->lps, cfg->population);
  return false;
}

static bool phold_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  const struct phold_config *cfg = ctx->config;
  (void)err;
  if (ctx->check_only) return true;
  struct sim_engine *e = sim_new(ctx->seed);
  sim_set_trace(e, ctx->trace, ctx->policy);
  phold_build(e, cfg);
  out->events = sim_run(e, cfg->end_time, 0);
  out->total_ps = cfg->end_time;
  struct phold_state t;
  phold_totals(e, &t);
  /* Accumulated delay by cause, over all events. */
  sim_report_int(&out->phases, "hold", UNIT_TIME, t.hold_sum);
  sim_report_int(&out->phases, "link", UNIT_TIME, t.link_sum);
  sim_report_int(&out->counters, "lps", UNIT_NONE, cfg->lps);
  sim_report_int(&out->counters, "remote_sends", UNIT_NONE, (int64_t)t.remote_sends);
  sim_report_int(&out->counters, "pending_at_end", UNIT_NONE, (int64_t)sim_pending(e));
  sim_free(e);
  return true;
}

static const char *const phold_policies[] = {"none"};

const struct wl_type wl_phold = {
    .params = &phold_params,
    .policies = phold_policies,
    .n_policies = G_N_ELEMENTS(phold_policies),
    .check = phold_check,
    .run = phold_run,
};
