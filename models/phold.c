/* PHOLD logical processes on the engine's links (see phold.h). */
#include "phold.h"

#include "trace.h"

#include <glib.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stddef.h>

#define PHOLD_MAX_LINKS 8

static const char *const phold_ports[2 * PHOLD_MAX_LINKS] = {
    "out0", "out1", "out2", "out3", "out4", "out5", "out6", "out7",
    "in0",  "in1",  "in2",  "in3",  "in4",  "in5",  "in6",  "in7"};

#define PAR_CONFIG struct phold_config
static const struct par_decl phold_decls[] = {
    PAR(lps, PAR_INT, "64", "1", "1048576",
      "logical processes (about 420 B each: 2^20 is 0.4 GB before the events)"),
    PAR(population, PAR_INT, "4", "1", "1048576", "events each LP holds at start"),
    PAR(links, PAR_INT, "2", "1", "8", "links each LP starts (2 ports per link)"),
    PAR(link_latency, PAR_TIME, "1us", "0ps", "1s", "latency of every link (the lookahead)"),
    PAR(mean_hold, PAR_TIME, "1us", "1ps", "1s", "mean of the exponential hold time"),
    PAR(remote, PAR_FLOAT, "0.9", "0", "1", "probability an event is sent over a link"),
    PAR(end_time, PAR_TIME, "1ms", "1ps", "1000s", "simulated time at which the run stops"),
};
#undef PAR_CONFIG

const struct par_group phold_params = {
    .name = "phold",
    .doc = "PHOLD engine benchmark: LPs exchanging a fixed event population",
    .decls = phold_decls,
    .n_decls = PAR_COUNT(phold_decls),
    .config_size = sizeof(struct phold_config),
};

/* An exponential hold time of mean MEAN_HOLD, rounded to the picosecond, by
 * inversion of one uniform draw: -mean * log(1 - u), u = gsl_rng_uniform.
 * This is gsl_ran_exponential's own method (GSL 2.7: -mu * log1p(-u)) on the
 * same single draw; since u is a multiple of 2^-32 (taus2), 1 - u is exact
 * and log(1 - u) equals log1p(-u) to within glibc's rounding (< 1 ulp), so
 * the distribution and the stream consumption are the same. glibc's log is
 * about three times cheaper than its log1p, which was 15% of a PHOLD event. */
static sim_time draw_hold(struct sim_comp *c, const struct phold_config *cfg) {
  double u = gsl_rng_uniform(c->rng);
  return (sim_time)(-(double)cfg->mean_hold * log(1.0 - u) + 0.5);
}

static void phold_init(struct sim_comp *c) {
  const struct phold_config *cfg = c->config;
  struct phold_state *s = c->state;
  for (int64_t i = 0; i < cfg->population; i++) {
    sim_time hold = draw_hold(c, cfg);
    s->hold_sum += hold;
    sim_schedule(c, hold, 0, 0);
  }
}

static void phold_handle(struct sim_comp *c, const struct sim_event *ev) {
  const struct phold_config *cfg = c->config;
  struct phold_state *s = c->state;
  s->events++;
  if (G_UNLIKELY(c->traced)) trace_instant(sim_trace(c->eng), sim_track(c), "event", sim_now(c->eng));
  sim_time hold = draw_hold(c, cfg);
  s->hold_sum += hold;
  /* One uniform draw decides both whether to go remote and which port:
   * u < remote is remote, and u / remote is then uniform on [0, 1). */
  double u = gsl_rng_uniform(c->rng);
  if (u < cfg->remote) {
    int port = (int)(u / cfg->remote * c->n_ports);
    s->remote_sends++;
    s->link_sum += c->ports[port].latency_ps;
    sim_send(c, port, hold, 0, ev->data + 1);
  } else {
    sim_schedule(c, hold, 0, ev->data + 1);
  }
}

const struct sim_type phold_type = {
    .name = "phold",
    .doc = "a PHOLD logical process",
    .params = &phold_params,
    .ports = phold_ports,
    .n_ports = 2 * PHOLD_MAX_LINKS,
    .state_size = sizeof(struct phold_state),
    .init = phold_init,
    .handle = phold_handle,
};

void phold_build(struct sim_engine *e, const struct phold_config *cfg) {
  g_assert(cfg->links >= 1 && cfg->links <= PHOLD_MAX_LINKS && cfg->lps >= 1);
  int64_t n = cfg->lps, first = (int64_t)sim_comp_count(e);
  uint32_t n_ports = (uint32_t)(2 * cfg->links);
  for (int64_t i = 0; i < n; i++) {
    char name[32];
    g_snprintf(name, sizeof name, "lp%" G_GINT64_FORMAT, i);
    sim_add_ports(e, &phold_type, name, cfg, n_ports);
  }
  for (int64_t k = 0; k < cfg->links; k++) {
    int64_t stride = 1 + k * (n / cfg->links);
    for (int64_t i = 0; i < n; i++) {
      struct sim_comp *a = sim_comp_get(e, (uint32_t)(first + i));
      struct sim_comp *b = sim_comp_get(e, (uint32_t)(first + (i + stride) % n));
      char *err = NULL;
      if (!sim_connect(a, (int)k, b, (int)(cfg->links + k), cfg->link_latency, &err))
        g_error("phold_build: %s", err);
    }
  }
}

void phold_totals(struct sim_engine *e, struct phold_state *total) {
  *total = (struct phold_state){0};
  size_t n = sim_comp_count(e);
  for (size_t i = 0; i < n; i++) {
    struct sim_comp *c = sim_comp_get(e, (uint32_t)i);
    if (c->type != &phold_type) continue;
    const struct phold_state *s = c->state;
    total->events += s->events;
    total->remote_sends += s->remote_sends;
    total->hold_sum += s->hold_sum;
    total->link_sum += s->link_sum;
  }
}
