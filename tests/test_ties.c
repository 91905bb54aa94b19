/* Results do not depend on the order in which the engine runs the events
 * of one instant (issue 29): switch outputs arbitrate among their inputs by
 * a modelled rule (models/switch.h), credits are counted the same whatever
 * the order (models/flow.h). This program is linked with a test-only event
 * queue (tie_queue.c) instead of the engine's: with a salt, the events of
 * one instant run grouped by destination in a shuffled order. Each scenario
 * below runs in the engine's order and with three salts, and every run must
 * give the same CSV bytes, every component's counters and the event count
 * included. First, a check that the shuffle does shuffle: two senders'
 * same-instant events reach a third component in both orders.
 * Usage: test_ties [SCENARIO.yaml...] (default: the list below, under
 * TRIGSIM_CONFIGS); tools/bench/ties.sh runs it over every scenario. */
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "points.h"
#include "report.h"
#include "testutil.h"
#include "workload.h"

extern uint64_t tieq_salt;

static const uint64_t salts[] = {1, 7, 2029};

/* ---- the shuffle shuffles ---- */

/* Components 0 and 1 each send one event to component 2 at time 10; 2
 * records which came first. */
static int g_first;

static void poke_handle(struct sim_comp *c, const struct sim_event *ev) {
  if (ev->port == SIM_PORT_SELF) sim_send(c, 0, 0, 1, c->id);
  else if (g_first < 0) g_first = (int)ev->data;
}

static const char *const poke_ports[] = {"p", "q"};
static const struct sim_type poke_type = {
    .name = "poke", .ports = poke_ports, .n_ports = 2, .handle = poke_handle};

static int first_arrival(uint64_t salt, sim_time at) {
  tieq_salt = salt;
  struct sim_engine *e = sim_new(1);
  struct sim_comp *a = sim_add(e, &poke_type, "a", NULL), *b = sim_add(e, &poke_type, "b", NULL),
                  *r = sim_add(e, &poke_type, "r", NULL);
  char *err = NULL;
  CU_ASSERT_TRUE(sim_connect(a, 0, r, 0, 5, &err));
  CU_ASSERT_TRUE(sim_connect(b, 0, r, 1, 5, &err));
  sim_schedule(a, at, 0, 0);
  sim_schedule(b, at, 0, 0);
  g_first = -1;
  sim_run(e, SIM_TIME_MAX, 0);
  sim_free(e);
  tieq_salt = 0;
  return g_first;
}

/* In the engine's order a's event (pushed first) arrives first; over a few
 * instants and salts, b's must come first at least once, a's too. */
static void test_shuffle_shuffles(void) {
  CU_ASSERT_EQUAL(first_arrival(0, 10), 0);
  int seen[2] = {0, 0};
  for (uint64_t s = 1; s <= 16; s++)
    for (sim_time at = 10; at < 14; at++) seen[first_arrival(s, at)]++;
  CU_ASSERT(seen[0] > 0 && seen[1] > 0);
}

/* ---- scenarios ---- */

/* Every point of the scenario at PATH, every policy, as CSV with every
 * component's counters (NULL and a message when it does not run). */
static char *run_csv(const char *path, uint64_t salt) {
  tieq_salt = salt;
  struct points p = {0};
  char *err = NULL, *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  bool ok = pts_load(path, NULL, NULL, &p, &err);
  for (size_t i = 0; ok && i < p.n; i++) {
    struct sim_result *runs = NULL;
    size_t n = 0;
    ok = pts_run_point(&p, i, &runs, &n, &err);
    if (!ok) break;
    struct sim_result_set set = {.scenario = p.sc[i]->name,
                                 .workload = wl_type_of(p.sc[i])->params->name,
                                 .seed = p.sc[i]->seed, .runs = runs, .n_runs = n,
                                 .counters = RESULT_COUNTERS_ALL};
    result_write(out, &set, RESULT_CSV);
    for (size_t k = 0; k < n; k++) sim_result_clear(&runs[k]);
    g_free(runs);
  }
  fclose(out);
  pts_free(&p);
  tieq_salt = 0;
  if (!ok) {
    fprintf(stderr, "%s: %s\n", path, err ? err : "failed");
    g_free(err);
    free(text);
    return NULL;
  }
  char *copy = g_strdup(text);
  free(text);
  return copy;
}

/* Where A and B first differ, for the message. */
static void first_difference(const char *path, uint64_t salt, const char *a, const char *b) {
  size_t i = 0, line = 1;
  while (a[i] && a[i] == b[i]) line += a[i++] == '\n';
  fprintf(stderr, "%s: salt %" G_GUINT64_FORMAT " moves the output at line %zu, byte %zu\n",
          path, salt, line, i);
}

static int g_argc;
static char **g_argv;

static const char *const default_scenarios[] = {
    "programs/incast.yaml",          "programs/congestion.yaml",
    "programs/alltoall-order.yaml",  "programs/alltoall-skew.yaml",
    "cpufree-ics23/jacobi3d-nocompute.yaml", "gputn-sc17/latency.yaml",
};

static void test_scenarios(void) {
  const char *dir = g_getenv("TRIGSIM_CONFIGS");
  size_t n = g_argc > 1 ? (size_t)g_argc - 1 : G_N_ELEMENTS(default_scenarios);
  for (size_t k = 0; k < n; k++) {
    char *path = g_argc > 1 ? g_strdup(g_argv[k + 1])
                            : g_build_filename(dir ? dir : "configs", default_scenarios[k], NULL);
    char *base = run_csv(path, 0);
    CU_ASSERT_PTR_NOT_NULL(base);
    for (size_t s = 0; base && s < G_N_ELEMENTS(salts); s++) {
      char *shuf = run_csv(path, salts[s]);
      CU_ASSERT_PTR_NOT_NULL(shuf);
      bool same = shuf && strcmp(base, shuf) == 0;
      if (shuf && !same) first_difference(path, salts[s], base, shuf);
      CU_ASSERT_TRUE(same);
      g_free(shuf);
    }
    if (g_argc > 1) printf("ties: %s: %s\n", path, base ? "compared" : "did not run");
    g_free(base);
    g_free(path);
  }
}

int main(int argc, char **argv) {
  g_argc = argc;
  g_argv = argv;
  static const struct tu_test tests[] = {
      {"the shuffle shuffles same-instant events", test_shuffle_shuffles},
      {"scenarios give the same bytes in every order", test_scenarios},
      {NULL, NULL},
  };
  return tu_run_suite("ties", tests);
}
