/* PHOLD throughput of the event queue linked in: builds N pending events on
 * the engine, warms up, times M events and prints one line of results
 * (events/s, peak RSS, queue bytes per pending event). See README.md. */
#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "engine.h"
#include "phold.h"

static int64_t arg_int(const char *name, const char *text) {
  char *end = NULL;
  long long v = strtoll(text, &end, 10);
  if (!*text || *end || v < 1) {
    fprintf(stderr, "phold_bench: %s: expected a positive integer, got '%s'\n", name, text);
    exit(2);
  }
  return v;
}

static void usage(void) {
  fprintf(stderr,
          "usage: phold_bench --pending N [--events M] [--lps L] [--seed S] [--progress] [--cp 0|1]\n");
  exit(2);
}

/* --progress: a hook as trigsim run's on a terminal sets (sim_set_progress),
 * doing nothing but count: what the slices it needs cost the engine. */
static uint64_t progress_calls;
static void count_progress(const struct sim_engine *e, sim_time until, void *arg) {
  (void)e, (void)until, (void)arg;
  progress_calls++;
}

int main(int argc, char **argv) {
  int64_t pending = 0, events = 10000000, lps = 0, seed = 1, cp = 0;
  bool progress = false;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--progress") == 0) {
      progress = true;
      continue;
    }
    if (i + 1 >= argc) usage();
    const char *k = argv[i], *v = argv[++i];
    if (strcmp(k, "--pending") == 0) pending = arg_int(k, v);
    else if (strcmp(k, "--events") == 0) events = arg_int(k, v);
    else if (strcmp(k, "--lps") == 0) lps = arg_int(k, v);
    else if (strcmp(k, "--seed") == 0) seed = arg_int(k, v);
    else if (strcmp(k, "--cp") == 0) cp = arg_int(k, v); /* track the critical path (SUM) */
    else usage();
  }
  if (pending < 1) usage();
  if (lps == 0) lps = pending < 4096 ? pending : 4096;
  if (lps > pending) lps = pending;

  struct phold_config cfg = {
      .lps = lps,
      .population = pending / lps,
      .links = 2,
      .link_latency = SIM_US,
      .mean_hold = SIM_US,
      .remote = 0.9,
      .end_time = 1000 * SIM_S,
  };
  if (progress) sim_set_progress(count_progress, NULL);
  struct sim_engine *e = sim_new((uint64_t)seed);
  if (cp) sim_set_cp(e, SIM_CP_SUM);
  phold_build(e, &cfg);
  uint64_t warm = (uint64_t)events / 100;
  sim_run(e, cfg.end_time, warm ? warm : 1); /* init, then warm-up */

  struct timespec c0, c1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  gint64 t0 = g_get_monotonic_time();
  uint64_t done = sim_run(e, cfg.end_time, (uint64_t)events);
  gint64 t1 = g_get_monotonic_time();
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  double cpu_secs = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;

  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  size_t n = sim_pending(e);
  char *name = g_strdup(q_name());
  g_strdelimit(name, " ", '-');
  double secs = (double)(t1 - t0) / 1e6;
  /* The model's totals: equal across queues and builds for one seed, which
   * checks that every queue runs the same events in the same order. */
  struct phold_state t;
  phold_totals(e, &t);
  printf("queue=%s pending=%zu events=%" G_GUINT64_FORMAT " events_per_s=%.0f peak_rss_bytes=%lld "
         "queue_bytes_per_event=%.1f hold_sum=%" G_GINT64_FORMAT " cpu_events_per_s=%.0f"
         " progress_calls=%" G_GUINT64_FORMAT "\n",
         name, n, done, secs > 0 ? (double)done / secs : 0.0, (long long)ru.ru_maxrss * 1024,
         n ? (double)sim_queue_bytes(e) / (double)n : 0.0, (int64_t)t.hold_sum, cpu_secs > 0 ? (double)done / cpu_secs : 0.0,
         progress_calls);
  g_free(name);
  sim_free(e);
  return done == (uint64_t)events ? 0 : 1;
}
