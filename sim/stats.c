/* Counters, time-weighted means and GSL histograms kept by components. */
#include "stats.h"

#include <glib.h>

void stat_tw_init(struct stat_tw *s, sim_time now, double value) {
  *s = (struct stat_tw){.value = value, .since = now, .start = now, .max = value};
}

void stat_tw_set(struct stat_tw *s, sim_time now, double value) {
  g_assert(now >= s->since);
  s->integral += s->value * (double)(now - s->since);
  s->value = value;
  s->since = now;
  if (value > s->max) s->max = value;
}

double stat_tw_mean(const struct stat_tw *s, sim_time now) {
  if (now <= s->start) return s->value;
  double integral = s->integral + s->value * (double)(now - s->since);
  return integral / (double)(now - s->start);
}

void stat_hist_init(struct stat_hist *s, size_t n, double lo, double hi) {
  *s = (struct stat_hist){0};
  s->h = gsl_histogram_alloc(n);
  gsl_histogram_set_ranges_uniform(s->h, lo, hi);
}

void stat_hist_add(struct stat_hist *s, double x) {
  s->count++;
  s->sum += x;
  if (x < gsl_histogram_min(s->h)) s->under++;
  else if (x >= gsl_histogram_max(s->h)) s->over++;
  else gsl_histogram_increment(s->h, x);
}

double stat_hist_mean(const struct stat_hist *s) {
  return s->count ? s->sum / (double)s->count : 0.0;
}

void stat_hist_free(struct stat_hist *s) {
  if (s->h) gsl_histogram_free(s->h);
  s->h = NULL;
}
