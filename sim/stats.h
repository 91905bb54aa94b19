/* Statistics a component keeps: counters, time-weighted means (e.g. entries
 * in use over time) and histograms (GSL). Reported by name at the end of a
 * run. */
#ifndef SIM_STATS_H
#define SIM_STATS_H

#include <stdint.h>

#include <gsl/gsl_histogram.h>

#include "simtime.h"

/* Time-weighted mean of a piecewise-constant value. */
struct stat_tw {
  double value;     /* current value */
  sim_time since;   /* when it took that value */
  sim_time start;
  double integral;  /* sum of value * duration so far */
  double max;
};

void stat_tw_init(struct stat_tw *s, sim_time now, double value);
void stat_tw_set(struct stat_tw *s, sim_time now, double value);
/* Mean over [start, NOW]; the current value when no time has passed. */
double stat_tw_mean(const struct stat_tw *s, sim_time now);

/* A histogram with N equal bins over [LO, HI); values outside are counted
 * in under/over. Wraps gsl_histogram. */
struct stat_hist {
  gsl_histogram *h;
  uint64_t under, over, count;
  double sum;
};

void stat_hist_init(struct stat_hist *s, size_t n, double lo, double hi);
void stat_hist_add(struct stat_hist *s, double x);
double stat_hist_mean(const struct stat_hist *s);
void stat_hist_free(struct stat_hist *s);

#endif
