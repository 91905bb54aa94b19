/* The progress line of a long `trigsim run` on a terminal (issue 33): the
 * run's place (policy k of n, point i of m), the simulated time reached,
 * events and events per second of wall time, and, where the run's end is
 * known in simulated time (PHOLD's end_time), an estimate of the wall time
 * left. Fed by the engine's hook (sim_set_progress) every 2^20 events; says
 * nothing the first second of a run and at most every half second, on
 * stderr, over itself ("\r", erase to the end of the line). Nothing when
 * stderr is no terminal or with --quiet. */
#include "progress.h"

#include <glib.h>
#include <stdio.h>
#include <unistd.h>

#include "engine.h"

static struct {
  bool on;
  FILE *out;
  const char *what;          /* "gputn" */
  size_t k, n, point, points;
  const struct sim_engine *e; /* the run the times below are of */
  gint64 start, last;        /* monotonic us */
  gint64 delay_us, every_us; /* silent first, then at most every */
  bool shown;
} pg;

static void progress_hook(const struct sim_engine *e, sim_time until, void *arg) {
  (void)arg;
  gint64 now = g_get_monotonic_time();
  if (e != pg.e) { /* a new engine: a new run */
    pg.e = e;
    pg.start = now;
    pg.last = now;
  }
  if (now - pg.start < pg.delay_us || now - pg.last < pg.every_us) return;
  pg.last = now;
  double wall = (double)(now - pg.start) / 1e6;
  uint64_t events = sim_executed(e);
  sim_time t = sim_now(e);
  /* Four digits in the largest unit under the time: "12.35us". */
  static const char *const unit[] = {"ps", "ns", "us", "ms", "s"};
  double v = (double)t;
  int u = 0;
  while (u < 4 && v >= 1000) v /= 1000, u++;
  char at[64];
  g_snprintf(at, sizeof at, "%.4g%s", v, unit[u]);
  fprintf(pg.out, "\r%s", "");
  if (pg.points > 1) fprintf(pg.out, "point %zu/%zu, ", pg.point + 1, pg.points);
  if (pg.n > 1) fprintf(pg.out, "policy %zu/%zu ", pg.k + 1, pg.n);
  fprintf(pg.out, "%s: simulated %s, %.3g M events, %.3g M events/s, %.0f s", pg.what, at,
          (double)events / 1e6, (double)events / 1e6 / wall, wall);
  if (until != SIM_TIME_MAX && until > 0 && t > 0) {
    double f = (double)t / (double)until;
    if (f > 0 && f <= 1) fprintf(pg.out, ", %.0f%% done, about %.0f s left", 100 * f, wall * (1 - f) / f);
  }
  fputs("\033[K", pg.out);
  fflush(pg.out);
  pg.shown = true;
}

void progress_start(bool quiet) {
  pg.on = !quiet && isatty(STDERR_FILENO) == 1;
  pg.out = stderr;
  /* TRIGSIM_PROGRESS_DELAY_MS (tests): the silent start, and the least
   * time between lines when 0; default 1 s and 0.5 s. */
  const char *d = g_getenv("TRIGSIM_PROGRESS_DELAY_MS");
  guint64 ms = 1000;
  if (d) g_ascii_string_to_unsigned(d, 10, 0, 3600000, &ms, NULL);
  pg.delay_us = (gint64)ms * 1000;
  pg.every_us = ms ? 500000 : 0;
  if (pg.on) sim_set_progress(progress_hook, NULL);
}

void progress_at(const char *what, size_t k, size_t n, size_t point, size_t points) {
  pg.what = what;
  pg.k = k;
  pg.n = n;
  pg.point = point;
  pg.points = points;
  pg.e = NULL;
}

void progress_end(void) {
  if (!pg.on) return;
  sim_set_progress(NULL, NULL);
  if (pg.shown) fputs("\r\033[K", pg.out);
  fflush(pg.out);
  pg.on = pg.shown = false;
}
