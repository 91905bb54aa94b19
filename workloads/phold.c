/* The PHOLD workload: the engine benchmark as a scenario, run under the
 * "none" policy (no control path: events go straight through links). */
#include <glib.h>

#include "phold.h"
#include "workload.h"

static bool phold_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  const struct phold_config *cfg = ctx->config;
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
    .run = phold_run,
};
