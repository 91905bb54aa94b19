/* A run's result (result.h): made and freed. */
#include "result.h"

#include <glib.h>

void sim_result_init(struct sim_result *r, const char *policy) {
  *r = (struct sim_result){.policy = g_strdup(policy), .policy_end_ps = -1};
  sim_report_init(&r->phases);
  sim_report_init(&r->cp);
  sim_report_init(&r->counters);
}

void sim_result_clear(struct sim_result *r) {
  g_free(r->policy);
  sim_report_clear(&r->phases);
  sim_report_clear(&r->counters);
  sim_report_clear(&r->cp);
  g_free(r->cp_end);
  for (size_t i = 0; i < r->n_hops; i++) g_free(r->hops[i].where);
  g_free(r->hops);
  *r = (struct sim_result){0};
}
