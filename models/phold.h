/* PHOLD (Fujimoto 1990), the standard synthetic benchmark of event engines:
 * logical processes (LPs) hold a fixed population of events; each event, on
 * arrival, schedules one more after an exponential hold time, to a random
 * linked neighbour (through a link, paying its latency) or to itself. */
#ifndef MODELS_PHOLD_H
#define MODELS_PHOLD_H

#include "engine.h"

struct phold_config {
  int64_t lps;            /* logical processes */
  int64_t population;     /* events per LP at start */
  int64_t links;          /* links each LP starts; it has 2*links ports */
  sim_time link_latency;  /* per link, the lookahead */
  sim_time mean_hold;     /* mean of the exponential hold time */
  double remote;          /* probability that an event goes over a link */
  sim_time end_time;      /* simulated time to stop at */
};

struct phold_state {
  uint64_t events;
  uint64_t remote_sends;
  sim_time hold_sum;  /* sum of hold times drawn */
  sim_time link_sum;  /* sum of link latencies paid */
};

extern const struct par_group phold_params;
extern const struct sim_type phold_type;

/* Adds CFG->lps PHOLD components to E, linked in a deterministic circulant
 * graph (LP i's k-th link goes to LP (i + stride_k) mod lps). CFG is
 * borrowed for the life of E. */
void phold_build(struct sim_engine *e, const struct phold_config *cfg);

/* Sums the state of every PHOLD component of E into *TOTAL. */
void phold_totals(struct sim_engine *e, struct phold_state *total);

#endif
