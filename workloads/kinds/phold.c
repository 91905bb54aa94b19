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

enum phold_out { PHOLD_OUT_HOLD, PHOLD_OUT_LINK, PHOLD_OUT_LPS, PHOLD_OUT_REMOTE_SENDS, PHOLD_OUT_PENDING,
                 PHOLD_OUT_COUNT };
static const struct sim_out_decl phold_outs[] = {
    [PHOLD_OUT_HOLD] = OUT_F(hold, UNIT_TIME, SIM_OUT_PHASE, "hold delays drawn, over all events"),
    [PHOLD_OUT_LINK] = OUT_F(link, UNIT_TIME, SIM_OUT_PHASE,
                          "link latencies of remote sends, over all events"),
    [PHOLD_OUT_LPS] = OUT(lps, UNIT_NONE, "logical processes"),
    [PHOLD_OUT_REMOTE_SENDS] = OUT(remote_sends, UNIT_NONE, "events sent to another LP"),
    [PHOLD_OUT_PENDING] = OUT(pending_at_end, UNIT_NONE, "events still queued at end_time"),
};
static SIM_OUT_GROUP(phold_outputs, "phold", "KEY (one run: no component prefix)", phold_outs,
                     PHOLD_OUT_COUNT);

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
  sim_out_put_int(&out->phases, NULL, &phold_outs[PHOLD_OUT_HOLD], t.hold_sum);
  sim_out_put_int(&out->phases, NULL, &phold_outs[PHOLD_OUT_LINK], t.link_sum);
  sim_out_put_int(&out->counters, NULL, &phold_outs[PHOLD_OUT_LPS], cfg->lps);
  sim_out_put_int(&out->counters, NULL, &phold_outs[PHOLD_OUT_REMOTE_SENDS], (int64_t)t.remote_sends);
  sim_out_put_int(&out->counters, NULL, &phold_outs[PHOLD_OUT_PENDING], (int64_t)sim_pending(e));
  sim_free(e);
  return true;
}

static const char *const phold_policies[] = {"none"};

const struct wl_type wl_phold = {
    .params = &phold_params,
    .outputs = &phold_outputs,
    .policies = phold_policies,
    .n_policies = G_N_ELEMENTS(phold_policies),
    .check = phold_check,
    .run = phold_run,
};
