/* A run's result (result.h): made and freed. */
#include "result.h"

#include <glib.h>

void sim_result_init(struct sim_result *r, const char *policy) {
  *r = (struct sim_result){.policy = g_strdup(policy)};
  sim_report_init(&r->phases);
  sim_report_init(&r->counters);
}

void sim_result_clear(struct sim_result *r) {
  g_free(r->policy);
  sim_report_clear(&r->phases);
  sim_report_clear(&r->counters);
  *r = (struct sim_result){0};
}
