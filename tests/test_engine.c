/* Engine: event order and ties, link latency, full duplex, seeds, run
 * limits, and the queue against a reference sort. */
#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "phold.h"
#include "rng.h"
#include "stats.h"
#include "testutil.h"

/* A component that records every event it receives. */
struct rec {
  sim_time at[64];
  uint64_t data[64];
  uint16_t port[64];
  int n;
};

static void rec_handle(struct sim_comp *c, const struct sim_event *ev) {
  struct rec *r = c->state;
  CU_ASSERT_FATAL(r->n < 64);
  r->at[r->n] = sim_now(c->eng);
  r->data[r->n] = ev->data;
  r->port[r->n] = ev->port;
  r->n++;
}

static const char *const two_ports[] = {"a", "b"};
static const struct sim_type rec_type = {
    .name = "rec", .ports = two_ports, .n_ports = 2, .state_size = sizeof(struct rec),
    .handle = rec_handle};

static void test_ties_run_in_insertion_order(void) {
  struct sim_engine *e = sim_new(1);
  struct sim_comp *c = sim_add(e, &rec_type, "r", NULL);
  /* Scheduled out of time order, with three at the same time 5 ns. */
  sim_schedule(c, 5 * SIM_NS, 0, 1);
  sim_schedule(c, 2 * SIM_NS, 0, 2);
  sim_schedule(c, 5 * SIM_NS, 0, 3);
  sim_schedule(c, 5 * SIM_NS, 0, 4);
  sim_schedule(c, 0, 0, 5);
  CU_ASSERT_EQUAL(sim_run(e, SIM_TIME_MAX, 0), 5);
  struct rec *r = c->state;
  uint64_t want[] = {5, 2, 1, 3, 4};
  sim_time when[] = {0, 2000, 5000, 5000, 5000};
  for (int i = 0; i < 5; i++) {
    CU_ASSERT_EQUAL(r->data[i], want[i]);
    CU_ASSERT_EQUAL(r->at[i], when[i]);
  }
  sim_free(e);
}

static void test_link_latency_both_directions(void) {
  struct sim_engine *e = sim_new(1);
  struct sim_comp *x = sim_add(e, &rec_type, "x", NULL);
  struct sim_comp *y = sim_add(e, &rec_type, "y", NULL);
  char *err = NULL;
  CU_ASSERT_TRUE(sim_connect(x, 0, y, 1, 250 * SIM_NS, &err));
  CU_ASSERT_EQUAL(sim_min_latency(e), 250 * SIM_NS);
  /* x -> y with 10 ns of sender delay: 10 + 250 = 260 ns, on y's port 1. */
  sim_send(x, 0, 10 * SIM_NS, 0, 7);
  /* y -> x back over the same link: 250 ns, on x's port 0. */
  sim_send(y, 1, 0, 0, 8);
  sim_run(e, SIM_TIME_MAX, 0);
  struct rec *rx = x->state, *ry = y->state;
  CU_ASSERT_EQUAL(ry->n, 1);
  CU_ASSERT_EQUAL(ry->at[0], 260 * SIM_NS);
  CU_ASSERT_EQUAL(ry->port[0], 1);
  CU_ASSERT_EQUAL(rx->n, 1);
  CU_ASSERT_EQUAL(rx->at[0], 250 * SIM_NS);
  CU_ASSERT_EQUAL(rx->port[0], 0);
  sim_free(e);
}

static void test_connect_errors(void) {
  struct sim_engine *e = sim_new(1);
  struct sim_comp *x = sim_add(e, &rec_type, "x", NULL);
  struct sim_comp *y = sim_add(e, &rec_type, "y", NULL);
  char *err = NULL;
  CU_ASSERT_FALSE(sim_connect(x, 0, y, 0, -1, &err));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "negative"));
  g_free(err);
  err = NULL;
  CU_ASSERT_FALSE(sim_connect(x, 2, y, 0, 0, &err));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "no port 2"));
  g_free(err);
  err = NULL;
  CU_ASSERT_TRUE(sim_connect(x, 0, y, 0, 0, &err));
  CU_ASSERT_FALSE(sim_connect(x, 0, y, 1, 0, &err));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "already linked"));
  g_free(err);
  CU_ASSERT_EQUAL(sim_port_index(&rec_type, "b"), 1);
  CU_ASSERT_EQUAL(sim_port_index(&rec_type, "c"), -1);
  sim_free(e);
}

static void test_run_until_and_max_events(void) {
  struct sim_engine *e = sim_new(1);
  struct sim_comp *c = sim_add(e, &rec_type, "r", NULL);
  for (int i = 1; i <= 6; i++) sim_schedule(c, i * SIM_US, 0, (uint64_t)i);
  /* Until 3 us: events at 1, 2, 3 us run (inclusive), 4..6 stay pending. */
  CU_ASSERT_EQUAL(sim_run(e, 3 * SIM_US, 0), 3);
  CU_ASSERT_EQUAL(sim_pending(e), 3);
  CU_ASSERT_EQUAL(sim_now(e), 3 * SIM_US);
  /* Then at most 2 more. */
  CU_ASSERT_EQUAL(sim_run(e, SIM_TIME_MAX, 2), 2);
  CU_ASSERT_EQUAL(((struct rec *)c->state)->data[4], 5);
  CU_ASSERT_EQUAL(sim_run(e, SIM_TIME_MAX, 0), 1);
  CU_ASSERT_EQUAL(sim_events_executed(e), 6);
  sim_free(e);
}

static void test_time_limit_keeps_tie_order(void) {
  /* Three events at 5 ns; a run until 4 ns stops before them (the first is
   * popped and pushed back), and the next run still takes them in order. */
  struct sim_engine *e = sim_new(1);
  struct sim_comp *c = sim_add(e, &rec_type, "r", NULL);
  for (uint64_t d = 1; d <= 3; d++) sim_schedule(c, 5 * SIM_NS, 0, d);
  CU_ASSERT_EQUAL(sim_run(e, 4 * SIM_NS, 0), 0);
  CU_ASSERT_EQUAL(sim_run(e, 5 * SIM_NS, 1), 1);
  sim_schedule(c, 0, 0, 4); /* at 5 ns too, inserted last */
  CU_ASSERT_EQUAL(sim_run(e, SIM_TIME_MAX, 0), 3);
  struct rec *r = c->state;
  for (int i = 0; i < 4; i++) CU_ASSERT_EQUAL(r->data[i], (uint64_t)i + 1);
  sim_free(e);
}

static int cmp_event(const void *a, const void *b) {
  return q_before(a, b) ? -1 : q_before(b, a) ? 1 : 0;
}

static void test_queue_matches_sort(void) {
  /* 20000 events with times from a small range (many ties), pushed and
   * popped in interleaved batches, must come out as a stable sort. */
  enum { N = 20000 };
  struct sim_event *all = g_new(struct sim_event, N);
  GRand *r = g_rand_new_with_seed(42);
  for (int i = 0; i < N; i++)
    all[i] = (struct sim_event){.time = g_rand_int_range(r, 0, 500), .seq = (uint64_t)i};
  struct q_queue *q = q_new(4);
  struct sim_event *popped = g_new(struct sim_event, N);
  int pushed = 0, n_popped = 0;
  sim_time last = -1;
  while (n_popped < N) {
    int batch = g_rand_int_range(r, 1, 64);
    for (int k = 0; k < batch && pushed < N; k++) {
      /* Keep time monotone for what is pushed after a pop, as the engine does. */
      if (all[pushed].time < last) all[pushed].time = last;
      q_push(q, &all[pushed++]);
    }
    int take = g_rand_int_range(r, 1, 64);
    for (int k = 0; k < take && q_pop(q, &popped[n_popped]); k++) last = popped[n_popped++].time;
  }
  CU_ASSERT_EQUAL(q_size(q), 0);
  qsort(all, N, sizeof *all, cmp_event);
  int mismatches = 0;
  for (int i = 0; i < N; i++) mismatches += all[i].seq != popped[i].seq;
  CU_ASSERT_EQUAL(mismatches, 0);
  q_free(q);
  g_free(all);
  g_free(popped);
  g_rand_free(r);
}

/* Runs a small PHOLD with SEED and returns its totals. */
static struct phold_state run_phold(uint64_t seed) {
  struct phold_config cfg = {.lps = 8, .population = 2, .links = 2, .link_latency = SIM_US,
                             .mean_hold = SIM_US, .remote = 0.5, .end_time = 200 * SIM_US};
  struct sim_engine *e = sim_new(seed);
  phold_build(e, &cfg);
  sim_run(e, cfg.end_time, 0);
  struct phold_state t;
  phold_totals(e, &t);
  /* The population is conserved: 8 LPs x 2 events stay pending. */
  CU_ASSERT_EQUAL(sim_pending(e), 16);
  sim_free(e);
  return t;
}

static void test_seed_reproducibility(void) {
  struct phold_state a = run_phold(7), b = run_phold(7), c = run_phold(8);
  CU_ASSERT_EQUAL(a.events, b.events);
  CU_ASSERT_EQUAL(a.hold_sum, b.hold_sum);
  CU_ASSERT_EQUAL(a.remote_sends, b.remote_sends);
  CU_ASSERT_TRUE(a.events > 0);
  /* Another seed draws other hold times. */
  CU_ASSERT_NOT_EQUAL(a.hold_sum, c.hold_sum);
  /* Every remote send pays exactly the 1 us link latency. */
  CU_ASSERT_EQUAL(a.link_sum, (sim_time)a.remote_sends * SIM_US);
}

static void test_streams_independent_of_neighbours(void) {
  /* Component i's stream depends on (seed, i) only. */
  gsl_rng *a = rng_stream_new(5, 3), *b = rng_stream_new(5, 3), *c = rng_stream_new(5, 4);
  unsigned long x = gsl_rng_get(a);
  CU_ASSERT_EQUAL(x, gsl_rng_get(b));
  CU_ASSERT_NOT_EQUAL(x, gsl_rng_get(c));
  CU_ASSERT_NOT_EQUAL(rng_derive(1, 0), rng_derive(1, 1));
  CU_ASSERT_NOT_EQUAL(rng_derive(1, 0), rng_derive(2, 0));
  gsl_rng_free(a);
  gsl_rng_free(b);
  gsl_rng_free(c);
}

static void test_time_weighted_mean(void) {
  /* 2 for 10 ns, then 6 for 30 ns: (2*10 + 6*30) / 40 = 5. */
  struct stat_tw s;
  stat_tw_init(&s, 0, 2);
  stat_tw_set(&s, 10 * SIM_NS, 6);
  CU_ASSERT_DOUBLE_EQUAL(stat_tw_mean(&s, 40 * SIM_NS), 5.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s.max, 6.0, 0);
}

static void test_histogram(void) {
  /* Bins of width 10 over [0, 100): 5 and 7 share bin 0, 95 is in bin 9,
   * -1 is under, 100 is over; mean (5+7+95-1+100)/5 = 41.2. */
  struct stat_hist h;
  stat_hist_init(&h, 10, 0, 100);
  double xs[] = {5, 7, 95, -1, 100};
  for (int i = 0; i < 5; i++) stat_hist_add(&h, xs[i]);
  CU_ASSERT_DOUBLE_EQUAL(gsl_histogram_get(h.h, 0), 2, 0);
  CU_ASSERT_DOUBLE_EQUAL(gsl_histogram_get(h.h, 9), 1, 0);
  CU_ASSERT_EQUAL(h.under, 1);
  CU_ASSERT_EQUAL(h.over, 1);
  CU_ASSERT_DOUBLE_EQUAL(stat_hist_mean(&h), 41.2, 1e-12);
  stat_hist_free(&h);
}

static void test_payload_pool(void) {
  struct sim_engine *e = sim_new(1);
  /* 1500 slots span two chunks of 1024; each is zeroed and distinct. */
  uint64_t h[1500];
  for (int i = 0; i < 1500; i++) {
    h[i] = sim_payload_new(e);
    CU_ASSERT_NOT_EQUAL(h[i], 0);
    unsigned char *p = sim_payload(e, h[i]);
    CU_ASSERT_EQUAL(p[0] | p[SIM_PAYLOAD_BYTES - 1], 0);
    memset(p, 0xab, SIM_PAYLOAD_BYTES);
  }
  CU_ASSERT_EQUAL(sim_payloads_live(e), 1500);
  CU_ASSERT_NOT_EQUAL(sim_payload(e, h[0]), sim_payload(e, h[1499]));
  sim_payload_free(e, h[7]);
  CU_ASSERT_EQUAL(sim_payloads_live(e), 1499);
  /* The freed slot is reused, and comes back zeroed. */
  uint64_t again = sim_payload_new(e);
  CU_ASSERT_EQUAL(again, h[7]);
  CU_ASSERT_EQUAL(((unsigned char *)sim_payload(e, again))[3], 0);
  sim_free(e);
}

/* A relay: passes every event on out of port 1 at once, counting it (its
 * handler with relays off, its relay hook with them on). */
struct fwd {
  uint64_t passed;
};

static void fwd_handle(struct sim_comp *c, const struct sim_event *ev) {
  ((struct fwd *)c->state)->passed++;
  sim_send(c, 1, 0, ev->kind, ev->data);
}

static void fwd_relay(struct sim_comp *c, const struct sim_event *ev) {
  CU_ASSERT_EQUAL(ev->port, 1); /* the port it leaves by */
  CU_ASSERT_EQUAL(ev->kind, 7);
  ((struct fwd *)c->state)->passed++;
}

static const char *const fwd_ports[] = {"in", "out"};
static const struct sim_type fwd_type = {
    .name = "fwd", .ports = fwd_ports, .n_ports = 2, .state_size = sizeof(struct fwd),
    .handle = fwd_handle, .relay = fwd_relay};

/* A sends two events to D through the relay R (10 ns to R, 0 from R to
 * D); X sends one straight to D (20 ns), queued after A's first:
 *   data 1: sent at 0 with 10 ns delay: at R at 20 ns, at D at 20 ns;
 *   data 2: X's, at D at 20 ns, queued before R passes data 1 on, so D
 *           sees it first (R's own event would push data 1 at 20 ns then);
 *   data 3: sent at 0 with no delay: at R and at D at 10 ns.
 * D sees 3 @ 10 ns, 2 @ 20 ns, 1 @ 20 ns, relays on or off; with them on,
 * R's handler never runs and sim_run counts two events fewer. */
static void relay_run(bool on, struct rec *out, uint64_t *events, uint64_t *passed,
                      uint64_t *relayed) {
  struct sim_engine *e = sim_new(1);
  sim_set_relays(e, on);
  struct sim_comp *a = sim_add(e, &rec_type, "a", NULL);
  struct sim_comp *r = sim_add(e, &fwd_type, "r", NULL);
  struct sim_comp *d = sim_add(e, &rec_type, "d", NULL);
  struct sim_comp *x = sim_add(e, &rec_type, "x", NULL);
  char *err = NULL;
  CU_ASSERT_TRUE(sim_connect(a, 0, r, 0, 10 * SIM_NS, &err));
  CU_ASSERT_TRUE(sim_connect(r, 1, d, 0, 0, &err));
  CU_ASSERT_TRUE(sim_connect(x, 0, d, 1, 20 * SIM_NS, &err));
  sim_send_via(a, 0, 10 * SIM_NS, 7, 1, 1);
  sim_send(x, 0, 0, 7, 2);
  sim_send_via(a, 0, 0, 7, 3, 1);
  *events = sim_run(e, SIM_TIME_MAX, 0);
  *out = *(struct rec *)d->state;
  *passed = ((struct fwd *)r->state)->passed;
  *relayed = sim_relayed(e);
  sim_free(e);
}

static void test_relays_pass_in_order(void) {
  struct rec on, off;
  uint64_t ev_on, ev_off, passed_on, passed_off, relayed_on, relayed_off;
  relay_run(true, &on, &ev_on, &passed_on, &relayed_on);
  relay_run(false, &off, &ev_off, &passed_off, &relayed_off);
  uint64_t want[] = {3, 2, 1};
  sim_time when[] = {10 * SIM_NS, 20 * SIM_NS, 20 * SIM_NS};
  uint16_t port[] = {0, 1, 0};
  CU_ASSERT_EQUAL(on.n, 3);
  CU_ASSERT_EQUAL(off.n, 3);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(on.data[i], want[i]);
    CU_ASSERT_EQUAL(off.data[i], want[i]);
    CU_ASSERT_EQUAL(on.at[i], when[i]);
    CU_ASSERT_EQUAL(off.at[i], when[i]);
    CU_ASSERT_EQUAL(on.port[i], port[i]);
    CU_ASSERT_EQUAL(off.port[i], port[i]);
  }
  CU_ASSERT_EQUAL(ev_off, 5); /* D's three, R's two */
  CU_ASSERT_EQUAL(ev_on, 3);
  CU_ASSERT_EQUAL(passed_on, 2);
  CU_ASSERT_EQUAL(passed_off, 2);
  CU_ASSERT_EQUAL(relayed_on, 2);
  CU_ASSERT_EQUAL(relayed_off, 0);
}

/* Fetching ahead (sim_type.prefetch): a log of the hook's calls and of
 * the events run, by data, in order. */
struct pf_log {
  int n;
  uint64_t data[256];
  int stage[256]; /* 0: the event ran */
};
static struct pf_log pf_log;

static void pf_note(uint64_t data, int stage) {
  CU_ASSERT_FATAL(pf_log.n < 256);
  pf_log.data[pf_log.n] = data;
  pf_log.stage[pf_log.n++] = stage;
}

static void pf_handle(struct sim_comp *c, const struct sim_event *ev) {
  uint64_t id = ev->port == SIM_PORT_SELF ? ev->data : *(uint64_t *)sim_payload(c->eng, ev->data);
  if (ev->port != SIM_PORT_SELF) sim_payload_free(c->eng, ev->data);
  pf_note(id, 0);
}

static void pf_hook(const struct sim_comp *c, const struct sim_event *ev, int stage) {
  /* A port event's payload is readable (it names the event's id). */
  uint64_t id = ev->port == SIM_PORT_SELF ? ev->data : *(uint64_t *)sim_payload(c->eng, ev->data);
  pf_note(id, stage);
}

static void pf_relay(struct sim_comp *c, const struct sim_event *ev) {
  (void)c;
  pf_note(1000 + ev->data, -1);
}

static const struct sim_type pf_type = {
    .name = "pf", .ports = two_ports, .n_ports = 2, .handle = pf_handle, .relay = pf_relay,
    .port_payloads = true, .prefetch = pf_hook};

/* 20 events due at 5 ns on P: ids 0..19, even ones P's own, odd ones
 * sent by S over a 5 ns link with the id in a payload; then 10 relays
 * through P (kind 1, port b back to S) at 6 ns. The run loop calls the hook
 * PF_MID = 6 and PF_NEAR = 2 places past the next event (engine.c): while
 * event i runs, stage 1 for event i + 7, stage 2 for i + 3. So event j
 * gets stage 1 iff j >= 7 and stage 2 iff j >= 3, both before it runs:
 * 13 + 17 = 30 calls. The relays (ten at 6 ns, so that relays lie 2
 * and 6 places past the next one) get none. The
 * events run in push order either way: 0..19. */
static void test_prefetch_hooks(void) {
  pf_log = (struct pf_log){0};
  struct sim_engine *e = sim_new(1);
  struct sim_comp *p = sim_add(e, &pf_type, "p", NULL);
  struct sim_comp *s = sim_add(e, &rec_type, "s", NULL);
  char *err = NULL;
  CU_ASSERT_TRUE(sim_connect(s, 0, p, 0, 5 * SIM_NS, &err));
  CU_ASSERT_TRUE(sim_connect(p, 1, s, 1, 0, &err));
  for (uint64_t id = 0; id < 20; id++) {
    if (id % 2 == 0) {
      sim_schedule(p, 5 * SIM_NS, 0, id);
    } else {
      uint64_t h = sim_payload_new(e);
      *(uint64_t *)sim_payload(e, h) = id;
      sim_send(s, 0, 0, 0, h);
    }
  }
  for (int i = 0; i < 10; i++) sim_send_via(s, 0, SIM_NS, 1, 0, 1);
  sim_payload_prefetch(e, 0);       /* names no payload: nothing */
  sim_payload_prefetch(e, 1u << 30);
  CU_ASSERT_EQUAL(sim_run(e, SIM_TIME_MAX, 0), 30); /* P's 20, S's 10 (relays not counted) */
  int ran = 0, calls[3] = {0}, seen[20][3];
  memset(seen, -1, sizeof seen);
  for (int i = 0; i < pf_log.n; i++) {
    int st = pf_log.stage[i];
    uint64_t id = pf_log.data[i];
    if (st < 0) {
      CU_ASSERT_EQUAL(id, 1000);
      continue;
    }
    CU_ASSERT_FATAL(id < 20);
    if (st == 0) {
      CU_ASSERT_EQUAL(id, (uint64_t)ran); /* in push order */
      ran++;
    } else {
      calls[st]++;
    }
    seen[id][st] = i;
  }
  CU_ASSERT_EQUAL(ran, 20);
  CU_ASSERT_EQUAL(calls[1], 13);
  CU_ASSERT_EQUAL(calls[2], 17);
  for (int j = 0; j < 20; j++) {
    CU_ASSERT_EQUAL(seen[j][1] >= 0, j >= 7);
    CU_ASSERT_EQUAL(seen[j][2] >= 0, j >= 3);
    if (j >= 7) CU_ASSERT_TRUE(seen[j][1] < seen[j][2]);
    if (j >= 3) CU_ASSERT_TRUE(seen[j][2] < seen[j][0]);
  }
  CU_ASSERT_EQUAL(pf_log.n, 20 + 30 + 10);
  CU_ASSERT_EQUAL(((struct rec *)s->state)->n, 10); /* the relays passed on */
  CU_ASSERT_EQUAL(sim_payloads_live(e), 0);
  sim_free(e);
}

/* Critical path, by hand (engine.h): A's event at 1000 ps (queued from
 * outside the run: its 1000 ps in category 0) sends to B over a 300 ps
 * link (category 10, the last of the node's fields) after 200 ps spent in
 * 9, then schedules itself 50 ps on in category 4. The send takes A's
 * node over; the schedule copies it less the send's additions.
 *   B's event at 1000 + 200 + 300 = 1500, marked 7 ps on in 8: at 1507,
 *     {0: 1000, 8: 7, 9: 200, 10: 300}.
 *   A's second event at 1050, marked there: {0: 1000, 4: 50}.
 * An event due at or after SIM_CP_TIME_MAX (2^51 ps) loses the path. */
static void cpt_handle(struct sim_comp *c, const struct sim_event *ev) {
  if (ev->kind == 1) {
    sim_cp_cat(c->eng, 9);
    sim_send(c, 0, 200, 2, 0);
    sim_cp_cat(c->eng, 4);
    sim_schedule(c, 50, 3, 0);
  } else if (ev->kind == 2) {
    sim_cp_mark(c, 7, 8);
  } else {
    sim_cp_mark(c, 0, 0);
  }
}

static const struct sim_type cpt_type = {
    .name = "cpt", .ports = two_ports, .n_ports = 2, .handle = cpt_handle, .cp_cat = 2,
    .cp_link = 10};

static void test_critical_path_by_category(void) {
  struct sim_engine *e = sim_new(1);
  sim_set_cp(e, SIM_CP_SUM);
  struct sim_comp *a = sim_add(e, &cpt_type, "a", NULL);
  struct sim_comp *b = sim_add(e, &cpt_type, "b", NULL);
  char *err = NULL;
  CU_ASSERT_TRUE_FATAL(sim_connect(a, 0, b, 0, 300, &err));
  sim_schedule(a, 1000, 1, 0);
  sim_run(e, SIM_TIME_MAX, 0);
  struct sim_cp mb = sim_cp_get(e, b->id), ma = sim_cp_get(e, a->id);
  CU_ASSERT_TRUE(mb.ok);
  CU_ASSERT_EQUAL(mb.at, 1507);
  const sim_time want_b[SIM_CP_NCAT] = {[0] = 1000, [8] = 7, [9] = 200, [10] = 300};
  const sim_time want_a[SIM_CP_NCAT] = {[0] = 1000, [4] = 50};
  for (int k = 0; k < SIM_CP_NCAT; k++) {
    CU_ASSERT_EQUAL(mb.v[k], want_b[k]);
    CU_ASSERT_EQUAL(ma.v[k], want_a[k]);
  }
  CU_ASSERT_TRUE(ma.ok);
  CU_ASSERT_EQUAL(ma.at, 1050);
  sim_free(e);

  e = sim_new(1);
  sim_set_cp(e, SIM_CP_SUM);
  a = sim_add(e, &cpt_type, "a", NULL);
  sim_schedule(a, SIM_CP_TIME_MAX, 3, 0);
  sim_run(e, SIM_TIME_MAX, 0);
  CU_ASSERT_FALSE(sim_cp_get(e, a->id).ok);
  sim_free(e);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"ties run in insertion order", test_ties_run_in_insertion_order},
      {"link latency in both directions", test_link_latency_both_directions},
      {"connect errors", test_connect_errors},
      {"run until a time and a count", test_run_until_and_max_events},
      {"queue matches a stable sort", test_queue_matches_sort},
      {"a time limit keeps tie order", test_time_limit_keeps_tie_order},
      {"same seed, same run", test_seed_reproducibility},
      {"streams independent of neighbours", test_streams_independent_of_neighbours},
      {"time-weighted mean", test_time_weighted_mean},
      {"histogram", test_histogram},
      {"payload pool", test_payload_pool},
      {"relays pass events on in order", test_relays_pass_in_order},
      {"fetching ahead: hooks before the event, relays none, same order", test_prefetch_hooks},
      {"critical path by category: a node taken over, a copy, the fields' range", test_critical_path_by_category},
      {NULL, NULL}};
  return tu_run_suite("engine", tests);
}
