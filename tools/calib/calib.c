/* Calibration (calib.h): statistics and fits through GSL, the derivation of
 * parameters from measurements, the profile writer and reader, and the
 * one-node Jacobi loop model. DESIGN.md Sec. 6; GPU-TN Fig. 1. */
#include "calib.h"

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"
#include "nodeprog.h"
#include "outfile.h"
#include "scenario.h"
#include "system.h"
#include "topology.h"
#include "units.h"

struct calib_stat calib_stat_of(double *x, size_t n) {
  struct calib_stat s = {0, 0};
  if (n == 0) return s;
  gsl_sort(x, 1, n);
  s.median_s = gsl_stats_median_from_sorted_data(x, 1, n);
  double q1 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.25);
  double q3 = gsl_stats_quantile_from_sorted_data(x, 1, n, 0.75);
  s.spread = s.median_s > 0 ? (q3 - q1) / s.median_s : 0;
  return s;
}

void calib_two_lengths(double per1, int n1, double per2, int n2, double *slope, double *fixed) {
  *slope = (per2 * n2 - per1 * n1) / (n2 - n1);
  *fixed = per1 * n1 - *slope * n1;
}

double calib_wake_jitter(double p01, double p50) {
  return p50 > p01 ? (p50 - p01) / (log(2.0) - log(1 / 0.99)) : 0;
}

bool calib_host_moved(const struct calib_meas *m, double *from, double *to) {
  *from = m->submit.median_s, *to = m->submit_end.median_s;
  return *from > 0 && *to > 0 && fabs(*to / *from - 1) > 0.15;
}

/* The median over N passes of the double at byte OFF of each. */
static double pass_median(const struct calib_meas *pass, int n, size_t off) {
  double v[64];
  n = MIN(n, (int)G_N_ELEMENTS(v));
  for (int i = 0; i < n; i++) v[i] = *(const double *)((const char *)&pass[i] + off);
  return calib_stat_of(v, (size_t)n).median_s;
}

void calib_meas_host_median(const struct calib_meas *pass, int n, struct calib_meas *out) {
  struct calib_meas m = pass[0];
#define MED(f) (m.f = pass_median(pass, n, (size_t)((char *)&m.f - (char *)&m)))
#define MED_STAT(f) (MED(f.median_s), MED(f.spread))
  MED_STAT(submit), MED_STAT(roundtrip), MED_STAT(launch_span), MED_STAT(exec_span);
  MED_STAT(read_lat), MED_STAT(copy_rt);
  MED(wake_p01_s), MED(wake_p50_s), MED(wake_mean_s);
  for (int i = 0; i < m.n_depths; i++) MED(depth_total_s[i]), MED(depth_spread[i]);
  for (int i = 0; i < m.n_grids; i++)
    MED(grid_exec_s[i]), MED(grid_spread[i]), MED(grid_b2b_s[i]), MED(grid_b2b_spread[i]);
  for (int i = 0; i < m.n_burst; i++) MED(burst_enq_s[i]), MED(burst_empty_s[i]);
  for (int i = 0; i < m.n_argk; i++) MED(argk_enq_s[i]);
  for (int i = 0; i < 3; i++) MED(dims_enq_s[i]);
  MED(args3_once_s), MED(scal3_enq_s), MED(big_enq_s);
#undef MED_STAT
#undef MED
  *out = m;
}

bool calib_fit_rel(const double *x, const double *y, size_t n, double *a, double *b, double *r2) {
  if (n < 2) return false;
  double *w = g_new(double, n);
  for (size_t i = 0; i < n; i++) w[i] = y[i] > 0 ? 1.0 / (y[i] * y[i]) : 0;
  double c00, c01, c11, chisq;
  int rc = gsl_fit_wlinear(x, 1, w, 1, y, 1, n, a, b, &c00, &c01, &c11, &chisq);
  /* Weighted R^2 = 1 - chisq / weighted total sum of squares. */
  double wm = gsl_stats_wmean(w, 1, y, 1, n), tss = 0;
  for (size_t i = 0; i < n; i++) tss += w[i] * (y[i] - wm) * (y[i] - wm);
  g_free(w);
  if (r2) *r2 = tss > 0 ? 1 - chisq / tss : 1;
  return rc == 0 && isfinite(*a) && isfinite(*b);
}



double calib_jacobi_work_bits(int64_t n, int64_t cus, int64_t wgs_per_cu) {
  int64_t slots = cus * wgs_per_cu;
  int64_t waves = ((int64_t)kloop_jacobi_wgs(n) + slots - 1) / slots;
  return (double)waves * (double)kloop_wg_bytes() * 8.0 * (double)slots;
}

static int64_t wgs_per_cu_of(const struct calib_meas *m) {
  return m->max_wgs_per_cu > 0 ? m->max_wgs_per_cu : m->is_gpu ? 8 : 1;
}

/* Fits the compute model to M's grids (calib.h, calib_jacobi_work_bits). */
static bool calib_fit_compute(const struct calib_meas *m, int64_t wgs_per_cu, struct calib_fit *fit) {
  double x[CALIB_MAX_GRIDS], y[CALIB_MAX_GRIDS];
  size_t n = 0;
  for (int i = 0; i < m->n_grids; i++) {
    if (!(m->grid_b2b_s[i] > 2 * m->submit.median_s)) continue;
    x[n] = calib_jacobi_work_bits(m->grid[i], m->cus, wgs_per_cu);
    y[n++] = m->grid_b2b_s[i];
  }
  fit->from_spans = n < 2;
  if (fit->from_spans) {
    n = 0;
    for (int i = 0; i < m->n_grids; i++) {
      if (!(m->grid_exec_s[i] > 0)) continue;
      x[n] = calib_jacobi_work_bits(m->grid[i], m->cus, wgs_per_cu);
      y[n++] = m->grid_exec_s[i];
    }
  }
  double a, b, r2;
  if (!calib_fit_rel(x, y, n, &a, &b, &r2) || !(b > 0)) return false;
  fit->t0_s = a > 0 ? a : 0;
  fit->bw_bps = 1.0 / b;
  fit->r2 = r2;
  fit->points = (int)n;
  return true;
}

static sim_time ps_of(double s) { return s > 0 ? (sim_time)llround(s * 1e12) : 0; }

static void hw_defaults(struct calib_hw *hw) {
  memset(hw, 0, sizeof *hw);
  par_group_defaults(&gpu_params, &hw->gpu);
  par_group_defaults(&cpu_params, &hw->cpu);
  par_group_defaults(&bus_params, &hw->bus);
  par_group_defaults(&nic_params, &hw->nic);
  par_group_defaults(&net_params, &hw->net);
}

static int64_t pct(double x, int64_t max) {
  int64_t p = (int64_t)llround(100 * x);
  return p < 1 ? 1 : p > max ? max : p;
}

/* The line of 1/bw(k) = S_p(a / k, b) (gpu.h "Achieved bandwidth") at a
 * fixed knee exponent P through N (k, bw) points, its asymptote at most
 * 1/B_MIN (0: none): with x = 1/k, y = 1/bw the law is y^p = a^p x^p +
 * b^p, a line in x^p, fitted by relative least squares (p = 1: the sum,
 * 1/bw = a / k + b, a the latency term in s per bit at k = 1 and 1 / b the
 * asymptote). Where the asymptote would pass 1/B_MIN, b = B_MIN and a^p
 * alone is refitted. Returns the sum of squared relative errors in y, or
 * a negative value under 2 points or where a or b is not positive. */
static double knee_line(const double *k, const double *bps, size_t n, double p, double b_min,
                        double *a, double *b) {
  double x[CALIB_MAX_PJ], y[CALIB_MAX_PJ], ap, bp, r2, u = 0;
  size_t m = 0;
  /* y in units of the fastest point's, so that y^p (and the weights,
   * y^-2p) stay within a double at every p: a relative fit is the same in
   * any unit */
  for (size_t i = 0; i < n; i++)
    if (bps[i] > 0 && k[i] > 0) u = fmax(u, bps[i]);
  for (size_t i = 0; i < n && m < G_N_ELEMENTS(x); i++)
    if (bps[i] > 0 && k[i] > 0) {
      x[m] = pow(1.0 / k[i], p);
      y[m++] = pow(u / bps[i], p);
    }
  if (!calib_fit_rel(x, y, m, &bp, &ap, &r2) || !(ap > 0) || !(bp > 0)) return -1;
  if (b_min > 0 && bp < pow(b_min * u, p)) { /* the asymptote at most the level's peak */
    bp = pow(b_min * u, p);
    double sxy = 0, sxx = 0;
    for (size_t j = 0; j < m; j++) {
      double w = 1.0 / (y[j] * y[j]);
      sxy += w * x[j] * (y[j] - bp);
      sxx += w * x[j] * x[j];
    }
    ap = sxx > 0 ? sxy / sxx : ap;
  }
  if (!(ap > 0) || !(bp > 0)) return -1;
  *a = pow(ap, 1.0 / p) / u;
  *b = pow(bp, 1.0 / p) / u;
  double ss = 0;
  for (size_t i = 0; i < n; i++)
    if (bps[i] > 0 && k[i] > 0) {
      double e = gpu_knee_sum(*a / k[i], *b, p) * bps[i] - 1;
      ss += e * e;
    }
  return ss;
}

struct knee_pts {
  const double *k, *bps;
  size_t n;
  double b_min;
};

/* knee_line's error at p, a large value where the line fails (GSL's
 * minimiser wants a number). */
static double knee_err(double p, void *arg) {
  const struct knee_pts *q = arg;
  double a, b, ss = knee_line(q->k, q->bps, q->n, p, q->b_min, &a, &b);
  return ss >= 0 ? ss : 1e300;
}

/* Fits 1/bw(k) = S_p(a / k, b) to N (k, bw) points, p in [1,
 * CALIB_KNEE_MAX] the knee exponent of least squared relative error:
 * a scan in steps of 0.25, then GSL's Brent minimiser within a step of
 * the best (where that is inside the range), p rounded to 0.01 (as the
 * profile keeps it) and the line fitted again there. Points at fewer than
 * 3 different k say nothing of the turn's shape: p = 1. The asymptote at
 * most 1/B_MIN (0: none). False where no p gives positive a and b. */
static bool fit_knee(const double *k, const double *bps, size_t n, double b_min, double *a,
                     double *b, double *p) {
  size_t distinct = 0;
  for (size_t i = 0; i < n; i++) {
    bool seen = false;
    for (size_t j = 0; j < i; j++) seen |= k[j] == k[i];
    distinct += !seen && bps[i] > 0 && k[i] > 0;
  }
  struct knee_pts q = {k, bps, n, b_min};
  double best = 1, best_err = knee_err(1, &q);
  if (distinct >= 3) {
    for (double t = 1.25; t <= CALIB_KNEE_MAX + 1e-9; t += 0.25) {
      double e = knee_err(t, &q);
      if (e < best_err) best = t, best_err = e;
    }
    if (best > 1 && best < CALIB_KNEE_MAX && best_err < 1e300) {
      gsl_function f = {knee_err, &q};
      gsl_min_fminimizer *s = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
      gsl_error_handler_t *old = gsl_set_error_handler_off();
      if (gsl_min_fminimizer_set(s, &f, best, best - 0.25, best + 0.25) == GSL_SUCCESS) {
        for (int it = 0; it < 100; it++) {
          if (gsl_min_fminimizer_iterate(s) != GSL_SUCCESS) break;
          double lo = gsl_min_fminimizer_x_lower(s), hi = gsl_min_fminimizer_x_upper(s);
          if (gsl_min_test_interval(lo, hi, 1e-4, 0) == GSL_SUCCESS) break;
        }
        best = gsl_min_fminimizer_x_minimum(s);
      } /* else the scan's best: no interior minimum between its neighbours */
      gsl_set_error_handler(old);
      gsl_min_fminimizer_free(s);
    }
  }
  *p = round(best * 100) / 100;
  if (*p < 1) *p = 1;
  return knee_line(k, bps, n, *p, b_min, a, b) >= 0;
}

/* Bits in flight at 1 WG per CU (the probes' 256 items, 4 B each). */
static double inflight_bits_k1(const struct calib_meas *m) {
  return (double)(m->cus * CALIB_ITEMS * CALIB_ITEM_BYTES) * 8.0;
}

/* ---- the host's enqueue, the signal path, the launch ---- */

/* cpu.launch_submit, submit_table (the burst of empty enqueues) and
 * launch_per_buffer (the enqueue against buffer arguments). */
static void derive_enqueue(const struct calib_meas *m, struct cpu_config *c) {
  c->launch_submit = ps_of(m->submit.median_s);
  c->submit_table.n = 0;
  for (int i = 0; i < m->n_burst && c->submit_table.n < PAR_TABLE_MAX; i++) {
    if (!(m->burst_empty_s[i] > 0)) continue;
    double t = m->burst_empty_s[i];
    int64_t n = m->burst[i];
    if (i > 0 && m->burst[i - 1] * 2 == n && m->burst_empty_s[i - 1] > 0)
      t = (m->burst_empty_s[i] - m->burst_empty_s[i - 1]) / (double)(n / 2);
    else if (n != 1)
      continue;
    c->submit_table.x[c->submit_table.n] = n;
    c->submit_table.y[c->submit_table.n++] = ps_of(t);
  }
  c->launch_per_buffer = 0;
  double x[CALIB_MAX_ARGK], y[CALIB_MAX_ARGK], a, b;
  size_t n = 0;
  for (int i = 0; i < m->n_argk; i++)
    if (m->argk_enq_s[i] > 0) {
      x[n] = (double)m->argk[i];
      y[n++] = m->argk_enq_s[i];
    }
  if (n >= 2 && gsl_fit_linear(x, 1, y, 1, n, &a, &b, &(double){0}, &(double){0}, &(double){0},
                               &(double){0}) == 0 && b > 0)
    c->launch_per_buffer = ps_of(b);
  /* The enqueue is not linear in its buffers (H200: +0.64 us for 1, +0.69
   * for 2, +2.34 for 3): the table as measured, less the no-argument
   * enqueue; the slope only past its last entry. */
  c->buffer_table.n = 0;
  if (n >= 2 && x[0] == 0)
    for (size_t i = 0; i < n && c->buffer_table.n < PAR_TABLE_MAX; i++) {
      c->buffer_table.x[c->buffer_table.n] = (int64_t)x[i];
      c->buffer_table.y[c->buffer_table.n++] = ps_of(y[i] - y[0]); /* 0 when below */
    }
}

/* The submit cost of the first launch after a wait (CFG's model). */
static sim_time first_submit(const struct cpu_config *c) {
  return c->submit_table.n > 0 ? par_table_eval(&c->submit_table, 1) : c->launch_submit;
}

/* bus.latency, the completion notice (cpu.switch_mode, interrupt_latency)
 * and gpu.fence_latency from the signal path where measured (calib.h);
 * the notice (ps) is returned. */
static sim_time derive_signal(const struct calib_meas *m, struct calib_hw *hw) {
  struct cpu_config *c = &hw->cpu;
  double p = 0, st = 0, rt = 0;
  if (m->cuda.present && m->cuda.pingpong.median_s > 0 && m->cuda.store.median_s > 0) {
    p = m->cuda.pingpong.median_s, st = m->cuda.store.median_s, rt = m->cuda.roundtrip.median_s;
  } else if (m->sig_ok && m->sig_pingpong.median_s > 0) {
    p = m->sig_pingpong.median_s, st = m->sig_store.median_s, rt = m->roundtrip.median_s;
  }
  c->switch_mode = CPU_SWITCH_POLL;
  c->switch_poll_interval = 0;
  /* Half a round trip beyond bus.latency's range (1 ms) is no bus
   * crossing: a CPU device's threads time-shared with the spinning host
   * (PoCL on a loaded machine). Not used. */
  if (!(p > 0) || p / 2 > 1e-3) return 0;
  hw->bus.latency = ps_of(p / 2);
  hw->gpu.fence_latency = 0;
  sim_time notice = ps_of(rt - st) + hw->gpu.teardown_latency;
  if (notice > 0 && st > 0 && rt > 0) {
    c->switch_mode = CPU_SWITCH_INTERRUPT;
    c->interrupt_latency = notice;
    return notice;
  }
  return 0;
}

void calib_range_add(struct calib_range *r, double x) {
  r->lo = r->n ? MIN(r->lo, x) : x;
  r->hi = r->n++ ? MAX(r->hi, x) : x;
}

void calib_place_summary(const uint32_t *w, size_t n, int *most, double *mhz) {
  GHashTable *per = g_hash_table_new(g_direct_hash, g_direct_equal);
  *most = 0;
  for (size_t i = 0; i < n; i++) { /* keys SM + 1: a NULL key is no key */
    gpointer key = GUINT_TO_POINTER(w[i] + 1u);
    int c = GPOINTER_TO_INT(g_hash_table_lookup(per, key)) + 1;
    g_hash_table_insert(per, key, GINT_TO_POINTER(c));
    *most = MAX(*most, c);
  }
  g_hash_table_destroy(per);
  uint64_t ticks = (uint64_t)w[n] | (uint64_t)w[n + 1] << 32;
  uint64_t ns = (uint64_t)w[n + 2] | (uint64_t)w[n + 3] << 32;
  *mhz = ns > 0 ? (double)ticks / (double)ns * 1e3 : 0;
}

/* ---- kernels as the device runs them (closed forms) ---- */

/* A persistent grid's deepest WGs: the fold and how many WGs take it. */
static void persist_fold(int64_t tiles, int64_t wgs, int64_t *fold, int64_t *deep) {
  *fold = tiles > 0 ? (tiles + wgs - 1) / wgs : 0;
  *deep = tiles > 0 ? tiles - (*fold - 1) * wgs : wgs;
}

static double barrier_s(const struct gpu_config *g, int64_t n) {
  return (double)gpu_barrier_time(g, (uint32_t)MAX(1, n)) * 1e-12;
}

double calib_persist_iter(const struct gpu_config *g, int64_t tiles, int64_t wgs, double tile_s) {
  int64_t fold, deep;
  persist_fold(tiles, wgs, &fold, &deep);
  return MAX((double)(fold - 1) * tile_s + barrier_s(g, wgs),
             (double)fold * tile_s + barrier_s(g, deep));
}

double calib_persist_tile(const struct gpu_config *g, int64_t tiles, int64_t wgs, double iter_s) {
  int64_t fold, deep;
  persist_fold(tiles, wgs, &fold, &deep);
  if (fold == 0) return 0;
  /* the least tile time at which one of the two arrivals reaches ITER_S */
  double s = (iter_s - barrier_s(g, deep)) / (double)fold;
  if (deep < wgs && fold > 1) s = MIN(s, (iter_s - barrier_s(g, wgs)) / (double)(fold - 1));
  if (deep < wgs && fold == 1 && iter_s <= barrier_s(g, wgs)) return 0; /* the idle WGs' */
  return s > 0 ? s : 0;
}

/* Persistent Jacobi point I's two float arrays, bytes. */
static int64_t pj_bytes(const struct calib_meas *m, int i) {
  return 2 * m->pj_grid[i] * m->pj_grid[i] * 4;
}

/* The achieved rate (bits/s of the model's work) of persistent Jacobi
 * point I. Its tiles' time is bounded from above twice: by the loop with
 * the barrier and the launch taken off (whatever the loop pays beyond its
 * two parts is in it), and, where measured, by its tiles alone (no
 * barrier, the iterations racing: WGs a few iterations apart read and
 * write both grids at once, which from memory costs more than the loop
 * does in step; on the H200 at 4096^2 and 8 WGs a CU 63.9 us alone
 * against 53.8 for the whole loop). The tighter of the two; 0 where the
 * loop alone is left and under a third of the iteration remains. ALONE:
 * the tiles alone only (0 where not measured), the points of a stencil
 * kernel launched per phase (derive_stencil). */
static double persist_rate(const struct calib_meas *m, const struct gpu_config *g, int i,
                           bool alone) {
  int64_t n = m->pj_grid[i];
  int64_t wgs = m->cus * m->pj_k[i], tiles = kloop_jacobi_wgs(n);
  int64_t fold = (tiles + wgs - 1) / wgs;
  /* The slope has no launch in it; an older profile's wall time has its
   * share. */
  double launch = m->pj_iters_long > 0 ? 0 : m->roundtrip.median_s / MAX(1, m->pj_iters);
  /* The deepest WGs' tiles, the barrier taken off as the model composes
   * the loop (calib_persist_iter: the shallower WGs' arrivals done while
   * the deepest still work); without a barrier table none. */
  double iter = m->pj_iter_s[i] - launch;
  double t = alone               ? 0
             : g->barrier_table.n ? (double)fold * calib_persist_tile(g, tiles, wgs, iter)
                                  : iter;
  /* Mostly the barrier (measured by a kernel of its own, its WGs arriving
   * at once): what is left says little about the stencil. */
  if (!(t > 0) || t < iter / 3) t = 0;
  if (m->pj_tiles_s[i] > 0 && (!(t > 0) || m->pj_tiles_s[i] < t)) t = m->pj_tiles_s[i];
  if (!(t > 0)) return 0;
  return (double)(MIN(wgs, tiles) * fold) * KLOOP_WG_SIDE * KLOOP_WG_SIDE *
         KLOOP_BYTES_PER_POINT * 8.0 / t;
}

/* The persistent Jacobi points of level LEVEL (GPU_L1: the two arrays fit
 * L1 per CU; GPU_L2: L2; GPU_DRAM: neither) as (k, achieved bits/s of the
 * model's work), the barrier and the launch taken off. */
static size_t persist_points(const struct calib_meas *m, const struct gpu_config *g, int level,
                             bool alone, double *k, double *bps) {
  size_t c = 0;
  for (int i = 0; i < m->n_pj; i++) {
    int64_t ws = pj_bytes(m, i);
    int lv = g->l1_resident_bytes > 0 && ws <= g->l1_resident_bytes * g->cus ? GPU_L1
             : g->l2_bytes > 0 && ws <= g->l2_bytes                           ? GPU_L2
                                                                              : GPU_DRAM;
    if (lv != level) continue;
    double r = persist_rate(m, g, i, alone);
    if (!(r > 0)) continue;
    k[c] = (double)m->pj_k[i];
    bps[c++] = r;
  }
  return c;
}

/* What L1 keeps of a persistent step (gpu.l1_resident_bytes: only
 * persistent steps ask it), from the persistent Jacobi loop itself at K
 * WGs per CU (-1: not two grids at K): the largest grid below the first
 * (by size) whose two arrays it moves under the smallest grid's rate /
 * 1.3, where that rate is over 1.3x the largest grid's within L2 (else
 * none). Not from the re-reading stream: on the H200 the stream's L1
 * took 4, 8 or 12 MiB over the CUs from one process to the next while the
 * Jacobi loop's times stayed (its 1024^2 grid, 8 MiB, at L2's pace in all
 * three). At 1 and 2 WGs per CU, the larger: a slow point only makes a
 * level smaller, and the 512^2 loop at 1 WG per CU took 2.2 or 3.3 us an
 * iteration from one calibration to the next where at 2 it kept 2.1 -
 * 2.2 (not its WGs' placement: tools/calib/probes/wg_place.c). Unchanged
 * without two grids at either. */
static int64_t persist_residency_at(const struct calib_meas *m, const struct gpu_config *g,
                                    int64_t k) {
  int first = -1, l2 = -1;
  for (int i = 0; i < m->n_pj; i++) {
    if (m->pj_k[i] != k || !(persist_rate(m, g, i, false) > 0)) continue;
    int64_t ws = pj_bytes(m, i);
    if (first < 0 || m->pj_grid[i] < m->pj_grid[first]) first = i;
    if (g->l2_bytes > 0 && ws <= g->l2_bytes && (l2 < 0 || m->pj_grid[i] > m->pj_grid[l2])) l2 = i;
  }
  if (first < 0 || l2 < 0 || l2 == first) return -1;
  double r0 = persist_rate(m, g, first, false);
  int64_t res = 0, slow = INT64_MAX; /* every grid below the first slow one */
  if (r0 > 1.3 * persist_rate(m, g, l2, false)) {
    for (int i = 0; i < m->n_pj; i++)
      if (m->pj_k[i] == k && persist_rate(m, g, i, false) < r0 / 1.3)
        slow = MIN(slow, pj_bytes(m, i));
    for (int i = 0; i < m->n_pj; i++)
      if (m->pj_k[i] == k && pj_bytes(m, i) < slow) res = MAX(res, pj_bytes(m, i));
  }
  return res;
}

static void persist_residency(const struct calib_meas *m, struct gpu_config *g) {
  int64_t r1 = persist_residency_at(m, g, 1), r2 = persist_residency_at(m, g, 2);
  if (r1 < 0 && r2 < 0) return;
  int64_t res = MAX(r1, r2);
  g->l1_resident_bytes = res > 0 ? (res + m->cus - 1) / m->cus : 0;
}

/* The rate of a working-set sweep at WS (0 when not measured). */
static double ws_rate(const struct calib_meas *m, const double *bps, int64_t ws) {
  for (int i = 0; i < m->n_ws; i++)
    if (m->ws[i] == ws) return bps[i];
  return 0;
}

static void derive_caches(const struct calib_meas *m, struct gpu_config *g) {
  /* L2: the working sets served over 1.3 x the largest set's rate. */
  double dram = m->n_ws > 0 ? m->ws_bps[m->n_ws - 1] : 0, fast[CALIB_MAX_WS], rot[CALIB_MAX_WS];
  size_t nf = 0, nr = 0;
  g->l2_bytes = g->l2_latency = g->l2_near_bytes = 0;
  for (int i = 0; i < m->n_ws - 1; i++)
    if (m->ws_bps[i] > 1.3 * dram) {
      fast[nf++] = m->ws_bps[i];
      g->l2_bytes = m->ws[i];
    } else if (g->l2_bytes > 0) {
      break;
    }
  if (nf == 0) return;
  /* Hopper's halves: the chase's latency steps up within L2. */
  double lat0 = 0;
  bool stepped = false;
  for (int i = 0; i < m->n_chase; i++) {
    if (m->chase_ws[i] < (1 << 20) || !(m->chase_s[i] > 0)) continue;
    if (lat0 == 0) lat0 = m->chase_s[i];
    if (!stepped && m->chase_s[i] <= 1.1 * lat0) g->l2_near_bytes = m->chase_ws[i];
    else stepped = true;
  }
  bool far = false;
  for (int i = 0; i < m->n_chase; i++)
    far |= m->chase_ws[i] > g->l2_near_bytes && m->chase_ws[i] <= g->l2_bytes &&
           m->chase_s[i] > 1.3 * lat0;
  if (!far || g->l2_near_bytes >= g->l2_bytes) g->l2_near_bytes = 0;
  /* The L2's law: full occupancy over the fast sets, and 1 WG per CU on
   * the shifted stream (L1 keeps none of it) over the sets one half holds. */
  int64_t half = g->l2_near_bytes > 0 ? g->l2_near_bytes : g->l2_bytes;
  for (int i = 0; i < m->n_ws; i++)
    if (m->ws[i] <= half && m->ws_k1_rot_bps[i] > 0) rot[nr++] = m->ws_k1_rot_bps[i];
  double l2k[2] = {(double)m->max_wgs_per_cu, 1}, a, b;
  double l2b[2] = {calib_stat_of(fast, nf).median_s,
                   nr > 0 ? calib_stat_of(rot, nr).median_s : m->ws_small_k1_bps};
  if (knee_line(l2k, l2b, 2, 1, 0, &a, &b) >= 0) {
    g->l2_bandwidth = (int64_t)llround(1.0 / b);
    g->l2_latency = ps_of(a * inflight_bits_k1(m));
  } else {
    g->l2_bandwidth = (int64_t)llround(l2b[0]);
  }
  /* L1 residency: the sets the re-reading stream at 1 WG per CU serves at
   * its small sets' rate. */
  double peak = 0;
  int64_t res = 0;
  for (int i = 0; i < m->n_ws; i++) {
    double r = m->ws_k1_bps[i];
    if (!(r > 0)) continue;
    if (r < peak / 1.3) break;
    peak = MAX(peak, r);
    res = m->ws[i];
  }
  g->l1_resident_bytes = 0;
  if (res > 0 && peak > 1.3 * l2b[1]) {
    /* rounded up, so that the set measured fast is itself resident
     * (gpu.c tests ws <= l1_resident_bytes * cus) */
    g->l1_resident_bytes = (res + m->cus - 1) / m->cus;
    double full = ws_rate(m, m->ws_bps, res), one = ws_rate(m, m->ws_k1_bps, res);
    g->l1_bandwidth = (int64_t)llround(full > 0 ? full : one);
    g->l1_latency = ps_of(inflight_bits_k1(m) / one);
  }
}

/* The stencil class (CLS KC_STENCIL) at each level from the persistent
 * Jacobi loop; or (KC_STENCIL_LAUNCHED) the stencil of a kernel launched
 * per phase from the loop's tiles alone, at memory and L2 (such a kernel
 * keeps nothing in L1 from one launch to the next), starting from the
 * stencil's values, and only where the tiles alone were measured. */
static void derive_stencil(const struct calib_meas *m, struct gpu_config *g, int cls) {
  double pk[CALIB_MAX_PJ], pb[CALIB_MAX_PJ], a, b;
  static const int levels[] = {GPU_DRAM, GPU_L2, GPU_L1};
  bool alone = cls == KC_STENCIL_LAUNCHED;
  if (alone) {
    bool any = false;
    for (int i = 0; i < m->n_pj; i++) any |= m->pj_tiles_s[i] > 0;
    if (!any) return; /* eff 0: launched stencils run as the stencil class */
    g->eff[cls] = g->eff[KC_STENCIL], g->lat[cls] = g->lat[KC_STENCIL];
    g->l2eff[cls] = g->l2eff[KC_STENCIL], g->l2lat[cls] = g->l2lat[KC_STENCIL];
    g->knee[cls] = g->knee[KC_STENCIL], g->l2knee[cls] = g->l2knee[KC_STENCIL];
  }
  for (size_t i = 0; i < G_N_ELEMENTS(levels) - (alone ? 1 : 0); i++) {
    int lv = levels[i];
    double lat = (double)(lv == GPU_L1 ? g->l1_latency : lv == GPU_L2 ? g->l2_latency
                                                                       : g->mem_latency);
    double peak = (double)(lv == GPU_L1 ? g->l1_bandwidth : lv == GPU_L2 ? g->l2_bandwidth
                                                                          : g->mem_bandwidth);
    size_t np = persist_points(m, g, lv, alone, pk, pb);
    if (np < 2) continue;
    double p, *kn = lv == GPU_L1 ? g->l1knee : lv == GPU_L2 ? g->l2knee : g->knee;
    if (!fit_knee(pk, pb, np, 1.0 / peak, &a, &b, &p)) { /* say so: the class keeps what it had */
      GString *pts = g_string_new(NULL);
      for (size_t j = 0; j < np; j++)
        g_string_append_printf(pts, "%s%.0f WG(s) a CU %.3g Tbps", j ? ", " : "", pk[j],
                               pb[j] * 1e-12);
      fprintf(stderr, "calibrate: note: the persistent Jacobi loop's %s at %s (%s) do not "
              "fit 1/bw = S_p(a/k, b) with a, b > 0 at any knee p in [1, %d] (the rate grows "
              "more than in proportion to the WGs, or falls): the %s class keeps %" PRId64
              " %% there\n",
              alone ? "tiles alone" : "points", lv == GPU_L1 ? "L1" : lv == GPU_L2 ? "L2" : "memory",
              pts->str, CALIB_KNEE_MAX, alone ? "stencil_launched" : "stencil",
              (lv == GPU_L1 ? g->l1eff : lv == GPU_L2 ? g->l2eff : g->eff)[cls]);
      g_string_free(pts, TRUE);
      continue;
    }
    kn[cls] = p;
    double base_a = lat * 1e-12 / inflight_bits_k1(m);
    int64_t lp = base_a > 0 ? pct(a / base_a, 100000) : 100, ep = pct(1.0 / b / peak, 100);
    int64_t *lt = lv == GPU_L1 ? g->l1lat : lv == GPU_L2 ? g->l2lat : g->lat;
    int64_t *ef = lv == GPU_L1 ? g->l1eff : lv == GPU_L2 ? g->l2eff : g->eff;
    lt[cls] = lp;
    ef[cls] = ep;
  }
}

static void derive_kernels(const struct calib_meas *m, struct calib_hw *hw) {
  struct gpu_config *g = &hw->gpu;
  g->wg_items = CALIB_ITEMS;
  g->items_per_cu = m->max_wgs_per_cu * CALIB_ITEMS;
  g->wgs_per_cu = m->max_wgs_per_cu;
  g->item_bytes = CALIB_ITEM_BYTES;
  g->bw_share = GPU_BW_KERNEL;
  double kk[CALIB_MAX_K], a, b;
  for (int i = 0; i < m->n_k; i++) kk[i] = (double)m->k[i];
  if (knee_line(kk, m->k_bps, (size_t)m->n_k, 1, 0, &a, &b) >= 0) {
    g->mem_bandwidth = (int64_t)llround(1.0 / b);
    g->mem_latency = ps_of(a * inflight_bits_k1(m));
  } else {
    double peak = 0;
    for (int i = 0; i < m->n_k; i++) peak = MAX(peak, m->k_bps[i]);
    g->mem_bandwidth = (int64_t)llround(peak);
    g->mem_latency = 0;
  }
  derive_caches(m, g);
  g->barrier_table.n = 0;
  for (int i = 0; i < m->n_bar && g->barrier_table.n < PAR_TABLE_MAX; i++) {
    if (!m->bar_resident[i]) continue;
    g->barrier_table.x[g->barrier_table.n] = m->bar_wgs[i];
    g->barrier_table.y[g->barrier_table.n++] = ps_of(m->bar_s[i]);
  }
  persist_residency(m, g);
  derive_stencil(m, g, KC_STENCIL);
  derive_stencil(m, g, KC_STENCIL_LAUNCHED);
  /* The dot's second pass, per partial a work-item of the last WG adds. */
  g->reduce_pass = 0;
  if (m->cg_side > 0) {
    int64_t wgs = (m->cg_side * m->cg_side + CALIB_ITEMS - 1) / CALIB_ITEMS;
    g->reduce_load = ps_of((m->cg_exec_s[CALIB_CG_DOT] - m->dot_nopass2_exec_s) /
                           (double)((wgs + CALIB_ITEMS - 1) / CALIB_ITEMS));
  }
}

/* ---- fits through the workloads' scenarios ---- */

/* The profile of M, FIT and HW written to a temporary folder: its path
 * (g_free; calib_scratch_done removes it) or NULL and *ERR. */
static char *scratch_profile(const struct calib_meas *m, const struct calib_fit *fit,
                             const struct calib_hw *hw, char **err) {
  GError *ge = NULL;
  char *dir = g_dir_make_tmp("trigsim-calib-XXXXXX", &ge);
  if (!dir) {
    *err = g_strdup_printf("calibrate: a temporary folder: %s", ge->message);
    g_error_free(ge);
    return NULL;
  }
  char *path = g_build_filename(dir, "profile.yaml", NULL);
  g_free(dir);
  if (calib_write_profile(path, m, fit, hw, err)) return path;
  g_free(path);
  return NULL;
}

static void scratch_done(char *path) {
  if (!path) return;
  char *dir = g_path_get_dirname(path);
  g_unlink(path);
  g_rmdir(dir);
  g_free(dir);
  g_free(path);
}

/* gpu.first_wave: the one-wave Jacobi kernels' execution span beyond the
 * empty kernel's, against the model's compute (the sync kloop scenario at
 * the grid minus the same with a 1 ps kernel), median. */
static bool fit_first_wave(const struct calib_meas *m, const struct calib_fit *fit,
                           struct calib_hw *hw, char **err) {
  struct gpu_config *g = &hw->gpu;
  g->first_wave = 0;
  char *prof = scratch_profile(m, fit, hw, err);
  if (!prof) return false;
  double e[CALIB_MAX_GRIDS];
  size_t ne = 0;
  bool ok = true;
  uint64_t slots = (uint64_t)(g->cus * g->wgs_per_cu);
  for (int i = 0; ok && i < m->n_grids; i++) {
    if (kloop_jacobi_wgs(m->grid[i]) > slots || !(m->grid_exec_s[i] > 0)) continue;
    struct calib_case c = {.kind = CASE_SYNC, .size = m->grid[i], .iters = 4};
    const char *const one[] = {"workload.compute_time=1ps", NULL};
    int64_t with, without;
    ok = calib_case_predict(prof, &c, NULL, &with, err) &&
         calib_case_predict(prof, &c, one, &without, err);
    if (ok) e[ne++] = (m->grid_exec_s[i] - m->exec_span.median_s) * 1e12 - (double)(with - without);
  }
  if (ok && ne) g->first_wave = MAX(0, (sim_time)llround(calib_stat_of(e, ne).median_s));
  scratch_done(prof);
  return ok;
}

/* gpu.persistent_teardown: the persistent Jacobi runs' fixed cost (the
 * intercept of their time against their iterations: pj_fixed_s) less the
 * model's (the cpufree kloop scenario at the same two lengths, with
 * persistent_teardown 0), median over the grids of two arrays within L2
 * (the larger ones' intercepts are a small difference of long runs). 0
 * for an older profile (one length). */
static bool fit_persistent_teardown(const struct calib_meas *m, const struct calib_fit *fit,
                                    struct calib_hw *hw, char **err) {
  struct gpu_config *g = &hw->gpu;
  g->persistent_teardown = 0;
  if (m->pj_iters_long <= m->pj_iters || m->pj_iters <= 0) return true;
  char *prof = scratch_profile(m, fit, hw, err);
  if (!prof) return false;
  double e[CALIB_MAX_PJ];
  size_t ne = 0;
  bool ok = true;
  int n1 = m->pj_iters, n2 = m->pj_iters_long;
  for (int i = 0; ok && i < m->n_pj; i++) {
    if (g->l2_bytes > 0 && pj_bytes(m, i) > g->l2_bytes) continue;
    struct calib_case c1 = {.kind = CASE_PERSIST, .size = m->pj_grid[i], .k = m->pj_k[i],
                            .iters = n1};
    struct calib_case c2 = c1;
    c2.iters = n2;
    int64_t p1, p2;
    ok = calib_case_predict(prof, &c1, NULL, &p1, err) &&
         calib_case_predict(prof, &c2, NULL, &p2, err);
    if (!ok) break;
    double slope, model;
    calib_two_lengths((double)p1, n1, (double)p2, n2, &slope, &model);
    e[ne++] = m->pj_fixed_s[i] * 1e12 - model;
  }
  if (ok && ne) g->persistent_teardown = MAX(0, (sim_time)llround(calib_stat_of(e, ne).median_s));
  scratch_done(prof);
  return ok;
}

/* gpu.wg_start: the device-paced Jacobi grids' back-to-back time per
 * kernel against the async kloop scenario's with wg_start 0, per wave. */
static bool fit_wg_start(const struct calib_meas *m, const struct calib_fit *fit,
                         struct calib_hw *hw, char **err) {
  struct gpu_config *g = &hw->gpu;
  g->wg_start = 0;
  char *prof = scratch_profile(m, fit, hw, err);
  if (!prof) return false;
  double e[CALIB_MAX_GRIDS];
  size_t ne = 0;
  bool ok = true;
  uint64_t slots = (uint64_t)(g->cus * g->wgs_per_cu);
  for (int i = 0; ok && i < m->n_grids; i++) {
    if (!(m->grid_b2b_s[i] > 2 * m->submit.median_s)) continue;
    struct calib_case c = {.kind = CASE_ASYNC, .size = m->grid[i], .iters = m->b2b_kernels};
    int64_t per;
    ok = calib_case_predict(prof, &c, NULL, &per, err);
    double waves = (double)((kloop_jacobi_wgs(m->grid[i]) + slots - 1) / slots);
    if (ok) e[ne++] = MAX(0, m->grid_b2b_s[i] * 1e12 - (double)per) / waves;
  }
  if (ok && ne) g->wg_start = (sim_time)llround(calib_stat_of(e, ne).median_s);
  scratch_done(prof);
  return ok;
}

/* eff_<class> (and l2eff_) of the CG kernels: the largest percentage at
 * most 100 whose scenario (the cg workload's kernel alone, 32 back to
 * back under gds) is not faster than measured, bisected. */
static bool fit_cg_classes(const struct calib_meas *m, const struct calib_fit *fit,
                           struct calib_hw *hw, char **err) {
  static const int cls[CALIB_CG_KINDS] = {KC_SPMV, KC_REDUCE, KC_AXPY};
  static const char *const names[KC_COUNT] = {"stream", "stencil", "spmv", "reduce", "axpy"};
  struct gpu_config *g = &hw->gpu;
  char *prof = scratch_profile(m, fit, hw, err);
  if (!prof) return false;
  bool ok = true;
  for (int w = 0; ok && w < CALIB_CG_KINDS; w++) {
    double want = m->cg_b2b_s[w] * 1e12;
    if (!(want > 0)) continue;
    struct calib_case c = {.kind = CASE_CG, .size = m->cg_side, .iters = 32, .only = w + 1};
    int lo = 1, hi = 100; /* predicted(lo) > want; find the largest e with predicted(e) >= want */
    int64_t per;
    while (ok && lo < hi) {
      int mid = (lo + hi + 1) / 2;
      char *s1 = g_strdup_printf("hardware.gpu.eff_%s=%d", names[cls[w]], mid);
      char *s2 = g_strdup_printf("hardware.gpu.l2eff_%s=%d", names[cls[w]], mid);
      const char *const extra[] = {s1, s2, NULL};
      ok = calib_case_predict(prof, &c, extra, &per, err);
      if (ok && (double)per >= want) lo = mid;
      else hi = mid - 1;
      g_free(s1);
      g_free(s2);
    }
    g->eff[cls[w]] = g->l2eff[cls[w]] = lo;
  }
  scratch_done(prof);
  return ok;
}

bool calib_derive(const struct calib_meas *m, struct calib_hw *hw, struct calib_fit *fit,
                  char **err) {
  hw_defaults(hw);
  int64_t wpc = wgs_per_cu_of(m);
  if (m->cus < 1 || !calib_fit_compute(m, wpc, fit)) {
    *err = g_strdup_printf("calibrate: expected Jacobi times that grow with the grid, got %d "
                           "grids that fit no line",
                           m->n_grids);
    return false;
  }
  struct gpu_config *g = &hw->gpu;
  g->cus = m->cus;
  g->wgs_per_cu = wpc;
  if (m->clock_hz >= 1000000) g->clock = m->clock_hz;
  g->mem_bandwidth = (int64_t)llround(fit->bw_bps);
  g->teardown_latency = ps_of(fit->t0_s);
  g->queues = 1;
  struct cpu_config *c = &hw->cpu;
  derive_enqueue(m, c);
  struct bus_config *b = &hw->bus;
  b->kind = m->is_gpu ? BUS_PCIE : BUS_APU;
  /* The round trip's median holds its wait's median lateness (calib.h). */
  c->wake_jitter = m->wake_n > 0 ? ps_of(calib_wake_jitter(m->wake_p01_s, m->wake_p50_s)) : 0;
  sim_time late = (sim_time)llround((double)c->wake_jitter * log(2.0));
  sim_time rt = ps_of(m->roundtrip.median_s) - late, s1 = first_submit(c);
  sim_time rest = rt - s1 - g->teardown_latency;
  b->latency = ps_of(m->read_lat.median_s / 4);
  if (b->latency > rest / 4) b->latency = rest > 0 ? rest / 4 : 0;
  if (m->h2d_bps > 0 && m->d2h_bps > 0) b->bandwidth = (int64_t)llround((m->h2d_bps + m->d2h_bps) / 2);
  b->control_bytes = 0; /* control messages cross in exactly `latency` */
  sim_time notice = derive_signal(m, hw);
  sim_time l1 = rest - 2 * b->latency - notice;
  g->launch_latency = l1 > 0 ? l1 : 0;
  g->launch_per_queued = 0;
  struct par_table *t = &g->launch_table;
  t->n = 0;
  t->x[t->n] = 1;
  t->y[t->n++] = g->launch_latency;
  for (int k = 1; k < m->n_depths && t->n < PAR_TABLE_MAX; k++) {
    double marg = (m->depth_total_s[k] - m->depth_total_s[0]) / (double)(m->depth[k] - m->depth[0]);
    double enq = m->submit.median_s;
    /* Enqueue-paced: the device's own cost per kernel is hidden, not gone:
     * depth 1's. */
    sim_time l = marg > 1.25 * enq ? ps_of(marg) - g->teardown_latency : g->launch_latency;
    t->x[t->n] = m->depth[k];
    t->y[t->n++] = l > 0 ? l : 0;
  }
  if (m->copy_rt.median_s > 0) { /* the copy's enqueue, crossings and notice taken off */
    sim_time s2 = c->submit_table.n > 0 ? par_table_eval(&c->submit_table, 2) : c->launch_submit;
    g->copy_start = MAX(0, ps_of(m->copy_rt.median_s) - late - s1 - s2 - 2 * b->latency - notice);
    c->pageable_copy = 0;
  }
  /* An old measurement, or a CPU device (PoCL's work-item loops do not
   * vectorize the grid-stride probes), keeps the Jacobi fit. */
  if (m->n_k == 0 || !m->is_gpu) return true;
  derive_kernels(m, hw);
  return fit_first_wave(m, fit, hw, err) && fit_wg_start(m, fit, hw, err) &&
         fit_persistent_teardown(m, fit, hw, err) &&
         (m->cg_side == 0 || fit_cg_classes(m, fit, hw, err));
}

/* ---- the profile ---- */

static void yaml_str(FILE *f, const char *key, const char *v) {
  fprintf(f, "  %s: \"", key);
  for (const char *p = v; *p; p++) {
    if (*p == '"' || *p == '\\') fputc('\\', f);
    fputc((unsigned char)*p >= 0x20 ? *p : ' ', f);
  }
  fputs("\"\n", f);
}

static void stat_line(FILE *f, const char *key, struct calib_stat s, const char *what) {
  fprintf(f, "    %s: {median: %" PRId64 "ps, spread: %.3f}  # %s\n", key, ps_of(s.median_s),
          s.spread, what);
}

/* A map KEY of N x -> time lines. */
static void time_table(FILE *f, const char *key, const char *what, const int64_t *x,
                       const double *y, int n) {
  if (n <= 0) return;
  fprintf(f, "    %s:  # %s\n", key, what);
  for (int i = 0; i < n; i++) fprintf(f, "      %" PRId64 ": %" PRId64 "ps\n", x[i], ps_of(y[i]));
}

static void bps_table(FILE *f, const char *key, const char *what, const int64_t *x,
                      const double *y, int n) {
  fprintf(f, "    %s:  # %s\n", key, what);
  for (int i = 0; i < n; i++)
    fprintf(f, "      %" PRId64 ": %" PRId64 "bps\n", x[i], (int64_t)llround(y[i]));
}

/* The measurements of the launch path, the L2 at 1 WG per CU, the load
 * latency, the copy home, the signal path and the CUDA probe. */
static void write_meas_issue28(FILE *f, const struct calib_meas *m) {
  time_table(f, "enqueue_args",
             "N buffer arguments set before each enqueue: host time of one enqueue, batches of 64",
             m->argk, m->argk_enq_s, m->n_argk);
  if (m->n_argk > 0) {
    fprintf(f, "    enqueue_args3_set_once: %" PRId64 "ps  # 3 buffer arguments set once, then "
               "enqueues only\n",
            ps_of(m->args3_once_s));
    fprintf(f, "    enqueue_scalar3: %" PRId64 "ps  # 3 int arguments set before each enqueue\n",
            ps_of(m->scal3_enq_s));
    int64_t dims[3] = {1, 2, 3};
    time_table(f, "enqueue_dims", "empty kernel on a 1-, 2-, 3-dimensional ND-range", dims,
               m->dims_enq_s, 3);
    fprintf(f, "    enqueue_big_grid: %" PRId64 "ps  # empty kernel of 65536 WGs of 256 items\n",
            ps_of(m->big_enq_s));
    time_table(f, "enqueue_burst_empty", "N: host time to enqueue N empty kernels after a wait",
               m->burst, m->burst_empty_s, m->n_burst);
  }
  bool k1 = false;
  for (int i = 0; i < m->n_ws; i++) k1 |= m->ws_k1_bps[i] > 0;
  if (k1) {
    bps_table(f, "stream_one_wg_per_cu", "bytes: bandwidth at 1 WG per CU, each item re-reading "
              "its own elements", m->ws, m->ws_k1_bps, m->n_ws);
    bps_table(f, "stream_one_wg_per_cu_shifted", "bytes: the same, each pass shifted by 17 WGs "
              "(elements move between WGs)", m->ws, m->ws_k1_rot_bps, m->n_ws);
  }
  time_table(f, "chase", "bytes: one work-item's dependent load over a random cycle of 128 B "
             "lines", m->chase_ws, m->chase_s, m->n_chase);
  if (m->copy_rt.median_s > 0)
    stat_line(f, "copy_roundtrip", m->copy_rt, "empty kernel + blocking 8 B read, host wall time");
  if (m->wake_n > 0)
    fprintf(f, "    wake_gap: {samples: %d, p01: %" PRId64 "ps, median: %" PRId64 "ps, mean: %" PRId64
               "ps}  # device clock: an empty kernel's END to the next one's START, enqueued when "
               "clFinish returned\n",
            m->wake_n, ps_of(m->wake_p01_s), ps_of(m->wake_p50_s), ps_of(m->wake_mean_s));
  if (m->sig_ok) {
    fprintf(f, "    signal:  # a CL_MEM_USE_HOST_PTR buffer during a kernel\n");
    fprintf(f, "      rounds: %d\n", m->sig_rounds);
    fprintf(f, "      store: {median: %" PRId64 "ps, spread: %.3f}  # enqueue to the kernel's "
               "store seen by the spinning host\n",
            ps_of(m->sig_store.median_s), m->sig_store.spread);
    fprintf(f, "      pingpong: {median: %" PRId64 "ps, spread: %.3f}  # host store -> "
               "persistent kernel -> host store, a round trip\n",
            ps_of(m->sig_pingpong.median_s), m->sig_pingpong.spread);
  }
  const struct calib_cuda *c = &m->cuda;
  if (c->present) {
    fputs("    cuda:  # trigsim-cuda-probe (tools/calib/cuda_probe.cu), calibrate --cuda\n", f);
    fprintf(f, "      device: \"%s\"\n      driver: \"%s\"\n      date: \"%s\"\n"
               "      repetitions: %d\n",
            c->device, c->driver, c->date, c->reps);
    fprintf(f, "      launch: {median: %" PRId64 "ps, spread: %.3f}\n", ps_of(c->launch.median_s),
            c->launch.spread);
    fprintf(f, "      roundtrip: {median: %" PRId64 "ps, spread: %.3f}\n",
            ps_of(c->roundtrip.median_s), c->roundtrip.spread);
    fputs("      launch_args:\n", f);
    for (int i = 0; i < c->n_args; i++)
      fprintf(f, "        %" PRId64 ": %" PRId64 "ps\n", c->args[i], ps_of(c->args_s[i]));
    fprintf(f, "      store: {median: %" PRId64 "ps, spread: %.3f}\n", ps_of(c->store.median_s),
            c->store.spread);
    fprintf(f, "      pingpong: {median: %" PRId64 "ps, spread: %.3f}\n",
            ps_of(c->pingpong.median_s), c->pingpong.spread);
  }
}

bool calib_write_profile(const char *path, const struct calib_meas *m, const struct calib_fit *fit,
                         const struct calib_hw *hw, char **err) {
  struct outfile out;
  if (!of_open(&out, path, err)) return false;
  FILE *f = out.f;
  const struct gpu_config *g = &hw->gpu;
  fprintf(f, "# Hardware profile measured by `trigsim calibrate` on %s (DESIGN.md Sec. 6).\n"
             "# Include it from a scenario (`include: hw/<this file>`); the derivation of each\n"
             "# value from the measurements is in tools/calib/calib.h. Times are medians; spread =\n"
             "# interquartile range / median over the repetitions.\n",
          m->device);
  fputs("provenance:\n  tool: \"trigsim " TRIGSIM_VERSION " calibrate\"\n", f);
  yaml_str(f, "device", m->device);
  yaml_str(f, "vendor", m->vendor);
  yaml_str(f, "driver", m->driver);
  yaml_str(f, "platform", m->platform);
  yaml_str(f, "opencl", m->version);
  fprintf(f, "  date: \"%s\"\n  quick: %s\n  repetitions: %d\n  warmups: %d\n", m->date,
          m->quick ? "true" : "false", m->reps, m->warmups);
  fprintf(f, "  is_gpu: %s\n  cus: %" PRId64 "\n  clock: %" PRId64 "Hz\n  max_wgs_per_cu: %" PRId64
             "\n", m->is_gpu ? "1" : "0", m->cus, m->clock_hz, m->max_wgs_per_cu);
  fputs("  measured:\n", f);
  stat_line(f, "enqueue", m->submit, "host time of one non-blocking kernel enqueue, batches of 64");
  if (m->submit_end.median_s > 0)
    stat_line(f, "enqueue_end", m->submit_end, "the same, at the end of the measurements");
  stat_line(f, "roundtrip", m->roundtrip, "empty kernel, no event: enqueue + clFinish, host wall time");
  stat_line(f, "launch_span", m->launch_span, "empty kernel: profiling SUBMIT..START");
  stat_line(f, "exec_span", m->exec_span, "empty kernel: profiling START..END");
  stat_line(f, "read_latency", m->read_lat, "blocking 4-byte device-to-host read");
  fprintf(f, "    h2d_bandwidth: %" PRId64 "bps\n    d2h_bandwidth: %" PRId64 "bps\n",
          (int64_t)llround(m->h2d_bps), (int64_t)llround(m->d2h_bps));
  fputs("    queued_empty_kernels:  # N: wall time of N queued empty kernels + one clFinish "
        "(GPU-TN Fig. 1), spread\n",
        f);
  for (int i = 0; i < m->n_depths; i++)
    fprintf(f, "      %" PRId64 ": [%" PRId64 "ps, %.3f]\n", m->depth[i], ps_of(m->depth_total_s[i]),
            m->depth_spread[i]);
  fputs("    jacobi_exec:  # grid side: Jacobi kernel execution span (START..END), spread\n", f);
  for (int i = 0; i < m->n_grids; i++)
    fprintf(f, "      %" PRId64 ": [%" PRId64 "ps, %.3f]\n", m->grid[i], ps_of(m->grid_exec_s[i]),
            m->grid_spread[i]);
  fprintf(f, "    jacobi_back_to_back:  # grid side: host time per kernel, %d enqueued, one clFinish; "
             "spread\n",
          m->b2b_kernels);
  for (int i = 0; i < m->n_grids; i++)
    fprintf(f, "      %" PRId64 ": [%" PRId64 "ps, %.3f]\n", m->grid[i], ps_of(m->grid_b2b_s[i]),
            m->grid_b2b_spread[i]);
  if (m->n_k > 0) {
    fprintf(f, "    stream_bytes: %" PRId64 "B\n    persistent_iters: %d\n    cg_side: %" PRId64
               "\n    back_to_back_kernels: %d\n",
            m->stream_big_bytes, m->pj_iters, m->cg_side, m->b2b_kernels);
    fprintf(f, "    stream_wgs_per_cu:  # k: streaming bandwidth, %" PRId64 " B working set, cus*k WGs\n",
            m->stream_big_bytes);
    for (int i = 0; i < m->n_k; i++)
      fprintf(f, "      %" PRId64 ": %" PRId64 "bps\n", m->k[i], (int64_t)llround(m->k_bps[i]));
    fprintf(f, "    stream_working_set:  # bytes: bandwidth at %" PRId64 " WGs per CU\n",
            m->max_wgs_per_cu);
    for (int i = 0; i < m->n_ws; i++)
      fprintf(f, "      %" PRId64 ": %" PRId64 "bps\n", m->ws[i], (int64_t)llround(m->ws_bps[i]));
    fprintf(f, "    stream_small_one_wg_per_cu: %" PRId64 "bps\n",
            (int64_t)llround(m->ws_small_k1_bps));
    fprintf(f, "    device_cache: %" PRId64 "B\n", m->cache_bytes);
    fputs("    barrier:  # WGs: one device-wide barrier, resident\n", f);
    for (int i = 0; i < m->n_bar; i++)
      fprintf(f, "      %" PRId64 ": [%" PRId64 "ps, %s]\n", m->bar_wgs[i], ps_of(m->bar_s[i]),
              m->bar_resident[i] ? "true" : "false");
    if (m->pj_iters_long > 0) {
      fprintf(f, "    persistent_iters_long: %d\n", m->pj_iters_long);
      bool tiles = false;
      for (int i = 0; i < m->n_pj; i++) tiles |= m->pj_tiles_s[i] > 0;
      fprintf(f, "    persistent_jacobi:  # [grid, WGs per CU, time per iteration (the slope "
                 "between runs of %d and %d), a run's fixed cost (its wall time at %d less %d x the "
                 "slope)%s]\n",
              m->pj_iters, m->pj_iters_long, m->pj_iters, m->pj_iters,
              tiles ? ", its tiles alone per iteration (no barrier; the same slope)" : "");
      for (int i = 0; i < m->n_pj; i++) {
        fprintf(f, "      - [%" PRId64 ", %" PRId64 ", %" PRId64 "ps, %" PRId64 "ps",
                m->pj_grid[i], m->pj_k[i], ps_of(m->pj_iter_s[i]), ps_of(m->pj_fixed_s[i]));
        if (tiles) fprintf(f, ", %" PRId64 "ps", ps_of(m->pj_tiles_s[i]));
        fputs("]\n", f);
      }
    } else { /* an older profile's one length, as it was written */
      fprintf(f, "    persistent_jacobi:  # [grid, WGs per CU, wall time per iteration of %d]\n",
              m->pj_iters);
      for (int i = 0; i < m->n_pj; i++)
        fprintf(f, "      - [%" PRId64 ", %" PRId64 ", %" PRId64 "ps]\n", m->pj_grid[i], m->pj_k[i],
                ps_of(m->pj_iter_s[i]));
    }
    fputs("    enqueue_burst:  # N: host time to enqueue N Jacobi kernels (arguments set each)\n", f);
    for (int i = 0; i < m->n_burst; i++)
      fprintf(f, "      %" PRId64 ": %" PRId64 "ps\n", m->burst[i], ps_of(m->burst_enq_s[i]));
    fprintf(f, "    cg_kernels:  # side %" PRId64 ": [host time per kernel back to back, span]\n",
            m->cg_side);
    static const char *const cg[CALIB_CG_KINDS] = {"spmv", "dot", "axpy"};
    for (int i = 0; i < CALIB_CG_KINDS; i++)
      fprintf(f, "      %s: [%" PRId64 "ps, %" PRId64 "ps]\n", cg[i], ps_of(m->cg_b2b_s[i]),
              ps_of(m->cg_exec_s[i]));
    fprintf(f, "      dot_without_pass2_span: %" PRId64 "ps\n", ps_of(m->dot_nopass2_exec_s));
  }
  write_meas_issue28(f, m);
  fprintf(f, "  fit:  # %s = t0 + work / mem_bandwidth over %d grids, weighted 1/T^2\n"
             "    t0: %" PRId64 "ps\n    mem_bandwidth: %" PRId64 "bps\n    r2: %.4f\n",
          fit->from_spans ? "jacobi_exec" : "jacobi_back_to_back (device-paced grids)", fit->points,
          ps_of(fit->t0_s), (int64_t)llround(fit->bw_bps), fit->r2);
  fputs("hardware:\n  cpu:\n", f);
  const struct cpu_config *c = &hw->cpu;
  fprintf(f, "    launch_submit: %" PRId64 "ps  # measured enqueue, batches of 64\n", c->launch_submit);
  if (c->submit_table.n > 0) {
    fputs("    submit_table: \"", f);
    for (int i = 0; i < c->submit_table.n; i++)
      fprintf(f, "%s%" PRId64 ":%" PRId64 "ps", i ? ", " : "", c->submit_table.x[i],
              c->submit_table.y[i]);
    fputs("\"  # the burst of empty enqueues: N: mean of positions N/2+1..N (1: the first)\n", f);
  }
  fprintf(f, "    launch_per_buffer: %" PRId64 "ps  # slope of the enqueue against buffer "
             "arguments (0 .. 8)\n",
          c->launch_per_buffer);
  if (c->buffer_table.n > 0) {
    fputs("    buffer_table: \"", f);
    for (int i = 0; i < c->buffer_table.n; i++)
      fprintf(f, "%s%" PRId64 ":%" PRId64 "ps", i ? ", " : "", c->buffer_table.x[i],
              c->buffer_table.y[i]);
    fputs("\"  # enqueue_args less its no-argument enqueue (N buffers: the added cost)\n", f);
  }
  if (m->wake_n > 0)
    fprintf(f, "    wake_jitter: %" PRId64 "ps  # wake_gap: (median - p01) / 0.683, a shifted "
               "exponential's mean (mean - p01: %" PRId64 "ps)\n",
            c->wake_jitter, ps_of(m->wake_mean_s - m->wake_p01_s));
  if (c->switch_mode == CPU_SWITCH_INTERRUPT)
    fprintf(f, "    switch_mode: interrupt  # the completion reaches the waiting host later than "
               "a store: a fixed cost\n    interrupt_latency: %" PRId64 "ps  # round trip - store "
               "seen + teardown (%s)\n",
            c->interrupt_latency, m->cuda.present ? "trigsim-cuda-probe" : "the signal probe");
  else
    fputs("    switch_mode: poll            # clFinish spins\n"
          "    switch_poll_interval: 0ps\n",
          f);
  if (m->copy_rt.median_s > 0)
    fprintf(f, "    pageable_copy: %" PRId64 "ps  # the copy home's cost is put on gpu.copy_start\n",
            c->pageable_copy);
  fputs("  gpu:\n", f);
  fprintf(f, "    clock: %" PRId64 "Hz  # CL_DEVICE_MAX_CLOCK_FREQUENCY\n", g->clock);
  fprintf(f, "    cus: %" PRId64 "  # CL_DEVICE_MAX_COMPUTE_UNITS\n", g->cus);
  fprintf(f, "    wgs_per_cu: %" PRId64 "  # chosen: %s\n", g->wgs_per_cu,
          g->wgs_per_cu > 1 ? "2048 items per CU / 256-item WGs" : "one WG per CPU core");
  fprintf(f, "    mem_bandwidth: %" PRId64 "bps  # %s\n", g->mem_bandwidth,
          m->n_k > 0 && m->is_gpu ? "asymptote of the streaming sweep (see mem_latency)" : "fit");
  fprintf(f, "    queues: %" PRId64 "\n", g->queues);
  fprintf(f, "    launch_latency: %" PRId64 "ps  # roundtrip - wake_jitter ln 2 - first enqueue - 2 "
             "bus latency - t0 - completion notice\n",
          g->launch_latency);
  fprintf(f, "    launch_per_queued: 0ps\n    launch_table: \"");
  for (int i = 0; i < g->launch_table.n; i++)
    fprintf(f, "%s%" PRId64 ":%" PRId64 "ps", i ? ", " : "", g->launch_table.x[i],
            g->launch_table.y[i]);
  fputs("\"  # depth 1: launch_latency; then mean marginal queued-kernel cost - t0 where the "
        "device sets the pace, else depth 1's (hidden behind the enqueue)\n",
        f);
  fprintf(f, "    teardown_latency: %" PRId64 "ps  # fit t0\n", g->teardown_latency);
  if (m->sig_ok || (m->cuda.present && m->cuda.pingpong.median_s > 0))
    fprintf(f, "    fence_latency: %" PRId64 "ps  # not separable from the bus crossing (the "
               "ping-pong: 2 bus + fence)\n",
            g->fence_latency);
  if (m->copy_rt.median_s > 0)
    fprintf(f, "    copy_start: %" PRId64 "ps  # empty kernel + blocking 8 B read - wake_jitter ln 2 - "
               "the first two enqueues - 2 bus latency - completion notice\n",
            g->copy_start);
  if (m->n_k > 0 && m->is_gpu) {
    fprintf(f, "    bw_share: kernel  # a measured kernel runs alone: its WGs share the memory\n");
    fprintf(f, "    wg_items: %" PRId64 "  # the 1D kernels' WGs\n", g->wg_items);
    fprintf(f, "    items_per_cu: %" PRId64 "  # chosen: %s\n", g->items_per_cu,
            m->is_gpu ? "2048 resident items per CU (OpenCL does not report it)" : "one WG per core");
    fprintf(f, "    item_bytes: %" PRId64 "B  # one float load in flight per item (the probes)\n",
            g->item_bytes);
    fprintf(f, "    mem_latency: %" PRId64 "ps  # streaming sweep: 1/bw(k) = mem_latency / (k cus items "
               "item_bytes 8) + 1/mem_bandwidth, fitted (GSL)\n",
            g->mem_latency);
    fprintf(f, "    l2_bytes: %" PRId64 "B  # the largest working set served over 1.3x the largest "
               "set's rate, full occupancy (the device reports %" PRId64 "B)\n",
            g->l2_bytes, m->cache_bytes);
    fprintf(f, "    l2_bandwidth: %" PRId64 "bps  # asymptote through the median of the sets that "
               "fit (full occupancy) and the shifted stream at 1 WG per CU\n",
            g->l2_bandwidth);
    fprintf(f, "    l2_latency: %" PRId64 "ps  # the same two points' latency term\n", g->l2_latency);
    fprintf(f, "    l2_near_bytes: %" PRId64 "B  # the chase's near-half plateau (0: no step "
               "within L2)\n",
            g->l2_near_bytes);
    fprintf(f, "    l1_resident_bytes: %" PRId64 "B  # per CU: what a persistent step keeps, from the "
               "persistent Jacobi loop at 1 and 2 WGs per CU (calib.h)\n",
            g->l1_resident_bytes);
    fprintf(f, "    l1_bandwidth: %" PRId64 "bps  # full occupancy on the sets the re-reading stream "
               "at 1 WG per CU serves at its small sets' rate\n", g->l1_bandwidth);
    fprintf(f, "    l1_latency: %" PRId64 "ps  # bits in flight at 1 WG per CU / its rate there\n",
            g->l1_latency);
    static const char *const names[KC_COUNT] = {"stream", "stencil", "spmv", "reduce", "axpy"};
    static const char *const from[KC_COUNT] = {
        "the probe itself", "the persistent Jacobi loop (1/bw = S_p(a/k, b) fitted per level, below)",
        "the cg workload's SpMV alone (bisected)", "the cg workload's dot alone (bisected)",
        "the cg workload's AXPY alone (bisected)"};
    for (int i = 0; i <= KC_AXPY; i++) /* the classes the probes measure */
      fprintf(f, "    eff_%s: %" PRId64 "\n    lat_%s: %" PRId64 "\n    l2eff_%s: %" PRId64
                 "\n    l2lat_%s: %" PRId64 "\n    l1eff_%s: %" PRId64 "\n    l1lat_%s: %" PRId64
                 "  # %s\n",
              names[i], g->eff[i], names[i], g->lat[i], names[i], g->l2eff[i], names[i],
              g->l2lat[i], names[i], g->l1eff[i], names[i], g->l1lat[i], from[i]);
    fprintf(f, "    knee_stencil: %.2f\n    l2knee_stencil: %.2f\n    l1knee_stencil: %.2f  # the "
               "same fits' knee exponent p: 1/bw = ((a/k)^p + b^p)^(1/p), p of least squared "
               "relative error\n",
            g->knee[KC_STENCIL], g->l2knee[KC_STENCIL], g->l1knee[KC_STENCIL]);
    if (g->eff[KC_STENCIL_LAUNCHED] > 0)
      fprintf(f, "    eff_stencil_launched: %" PRId64 "\n    lat_stencil_launched: %" PRId64
                 "\n    l2eff_stencil_launched: %" PRId64 "\n    l2lat_stencil_launched: %" PRId64
                 "\n    knee_stencil_launched: %.2f\n    l2knee_stencil_launched: %.2f  # a stencil "
                 "kernel launched per phase: the same fits to the persistent loop's tiles alone "
                 "(no barrier), at memory and L2\n",
              g->eff[KC_STENCIL_LAUNCHED], g->lat[KC_STENCIL_LAUNCHED],
              g->l2eff[KC_STENCIL_LAUNCHED], g->l2lat[KC_STENCIL_LAUNCHED],
              g->knee[KC_STENCIL_LAUNCHED], g->l2knee[KC_STENCIL_LAUNCHED]);
    fprintf(f, "    first_wave: %" PRId64 "ps  # one-wave Jacobi spans - the empty span - the sync "
               "kloop scenario's compute, median\n",
            g->first_wave);
    fprintf(f, "    wg_start: %" PRId64 "ps  # discrete Jacobi, device-paced: (time - the async "
               "kloop scenario's with wg_start 0) / waves, median\n",
            g->wg_start);
    if (m->pj_iters_long > m->pj_iters)
      fprintf(f, "    persistent_teardown: %" PRId64 "ps  # persistent Jacobi runs' fixed cost - the "
                 "cpufree kloop scenario's (intercepts at %d and %d iterations), median within L2\n",
              g->persistent_teardown, m->pj_iters, m->pj_iters_long);
    fprintf(f, "    reduce_pass: %" PRId64 "ps\n    reduce_load: %" PRId64 "ps  # (dot span with "
               "its second pass - without) / the partials each item adds\n",
            g->reduce_pass, g->reduce_load);
    fputs("    barrier_table: \"", f);
    for (int i = 0; i < g->barrier_table.n; i++)
      fprintf(f, "%s%" PRId64 ":%" PRId64 "ps", i ? ", " : "", g->barrier_table.x[i],
              g->barrier_table.y[i]);
    fputs("\"  # WGs: one device-wide barrier (atomic arrive, volatile poll of a generation)\n", f);
  }
  fprintf(f, "  bus:\n    kind: %s\n", hw->bus.kind == BUS_PCIE ? "pcie" : "apu");
  fprintf(f, "    latency: %" PRId64 "ps  # %s\n", hw->bus.latency,
          m->sig_ok || (m->cuda.present && m->cuda.pingpong.median_s > 0)
              ? "the signal ping-pong / 2"
              : "min(read_latency, roundtrip - enqueue - t0) / 4");
  fprintf(f, "    bandwidth: %" PRId64 "bps  # mean of h2d and d2h\n", hw->bus.bandwidth);
  fprintf(f, "    control_bytes: %" PRId64 "B\n", hw->bus.control_bytes);
  return of_commit(&out, err);
}

bool calib_read_profile(const char *path, struct calib_hw *hw, char **err) {
  hw_defaults(hw);
  struct sc_node *root = sc_load_file(path, err);
  if (!root) return false;
  const struct sc_node *h = sc_map_get(root, "hardware");
  bool ok = true;
  if (!h || h->kind != SC_MAP) {
    *err = sc_error_at(h ? h : root, "hardware", "expected a mapping of hardware groups, got %s",
                       h ? "something else" : "nothing");
    ok = false;
  }
  const struct par_group *groups[] = {&gpu_params, &cpu_params, &bus_params, &nic_params,
                                      &net_params};
  void *cfgs[] = {&hw->gpu, &hw->cpu, &hw->bus, &hw->nic, &hw->net};
  for (size_t i = 0; ok && i < G_N_ELEMENTS(groups); i++) {
    char *kpath = g_strdup_printf("hardware.%s", groups[i]->name);
    ok = sc_bind_group(sc_map_get(h, groups[i]->name), kpath, groups[i], NULL, cfgs[i], err);
    g_free(kpath);
  }
  if (ok && groups[1]->check && !groups[1]->check(&hw->cpu, err)) ok = false;
  sc_node_free(root);
  return ok;
}

int64_t calib_cg_nnz(int64_t side) { return 5 * side * side - 4 * side; }

/* ---- reading the measurements back (calibrate --from) ---- */

/* Scalar N as DIM units; seconds for UNIT_TIME, else the number. */
static bool num_of(const struct sc_node *n, enum unit_dim dim, double *out) {
  if (!n || n->kind != SC_SCALAR) return false;
  int64_t v;
  char *e = NULL;
  if (dim == UNIT_NONE) {
    char *end;
    *out = g_ascii_strtod(n->scalar, &end);
    return end != n->scalar && *end == '\0';
  }
  if (!units_parse_int(n->scalar, dim, &v, &e)) {
    g_free(e);
    return false;
  }
  *out = dim == UNIT_TIME ? (double)v * 1e-12 : (double)v;
  return true;
}

static const struct sc_node *path_get(const struct sc_node *n, const char *a, const char *b) {
  n = sc_map_get(n, a);
  return b && n ? sc_map_get(n, b) : n;
}

static double num_at(const struct sc_node *n, const char *key, enum unit_dim dim, double def) {
  double v;
  return num_of(sc_map_get(n, key), dim, &v) ? v : def;
}

static struct calib_stat stat_at(const struct sc_node *n, const char *key) {
  const struct sc_node *s = sc_map_get(n, key);
  return (struct calib_stat){num_at(s, "median", UNIT_TIME, 0), num_at(s, "spread", UNIT_NONE, 0)};
}

/* A map KEY: N -> [time, spread] or N -> value into X (and Y, the second
 * item, when not NULL), at most MAX; returns the count. */
static int table_at(const struct sc_node *n, const char *key, enum unit_dim dim, int64_t *x,
                    double *y, double *y2, int max) {
  const struct sc_node *t = sc_map_get(n, key);
  int c = 0;
  for (size_t i = 0; t && t->kind == SC_MAP && i < t->n_pairs && c < max; i++) {
    const struct sc_node *v = t->pairs[i].value;
    int64_t k;
    char *e = NULL;
    if (!units_parse_int(t->pairs[i].key, UNIT_NONE, &k, &e)) {
      g_free(e);
      continue;
    }
    x[c] = k;
    if (v->kind == SC_SEQ && v->n_items >= 1) {
      if (!num_of(v->items[0], dim, &y[c])) continue;
      if (y2 && v->n_items >= 2 && !num_of(v->items[1], UNIT_NONE, &y2[c]))
        y2[c] = v->items[1]->scalar && strcmp(v->items[1]->scalar, "true") == 0;
    } else if (!num_of(v, dim, &y[c])) {
      continue;
    }
    c++;
  }
  return c;
}

static void str_at(const struct sc_node *n, const char *key, char *out, size_t size) {
  const struct sc_node *s = sc_map_get(n, key);
  g_strlcpy(out, s && s->kind == SC_SCALAR ? s->scalar : "", size);
}

/* The TABLE's entries at the X values given (the rest zero). */
static void table_on(const struct sc_node *n, const char *key, enum unit_dim dim, const int64_t *x,
                     double *y, int nx) {
  int64_t tx[CALIB_MAX_WS + CALIB_DEPTHS];
  double ty[CALIB_MAX_WS + CALIB_DEPTHS];
  int c = table_at(n, key, dim, tx, ty, NULL, (int)G_N_ELEMENTS(tx));
  for (int i = 0; i < nx; i++)
    for (int j = 0; j < c; j++)
      if (tx[j] == x[i]) y[i] = ty[j];
}

static void read_cuda(const struct sc_node *cu, struct calib_cuda *c);

static void read_meas_issue28(const struct sc_node *me, struct calib_meas *m) {
  m->n_argk = table_at(me, "enqueue_args", UNIT_TIME, m->argk, m->argk_enq_s, NULL, CALIB_MAX_ARGK);
  m->args3_once_s = num_at(me, "enqueue_args3_set_once", UNIT_TIME, 0);
  m->scal3_enq_s = num_at(me, "enqueue_scalar3", UNIT_TIME, 0);
  const int64_t dims[3] = {1, 2, 3};
  table_on(me, "enqueue_dims", UNIT_TIME, dims, m->dims_enq_s, 3);
  m->big_enq_s = num_at(me, "enqueue_big_grid", UNIT_TIME, 0);
  table_on(me, "enqueue_burst_empty", UNIT_TIME, m->burst, m->burst_empty_s, m->n_burst);
  table_on(me, "stream_one_wg_per_cu", UNIT_BANDWIDTH, m->ws, m->ws_k1_bps, m->n_ws);
  table_on(me, "stream_one_wg_per_cu_shifted", UNIT_BANDWIDTH, m->ws, m->ws_k1_rot_bps, m->n_ws);
  m->n_chase = table_at(me, "chase", UNIT_TIME, m->chase_ws, m->chase_s, NULL, CALIB_MAX_WS);
  m->copy_rt = stat_at(me, "copy_roundtrip");
  const struct sc_node *wake = sc_map_get(me, "wake_gap");
  m->wake_n = (int)num_at(wake, "samples", UNIT_NONE, 0);
  m->wake_p01_s = num_at(wake, "p01", UNIT_TIME, 0);
  m->wake_p50_s = num_at(wake, "median", UNIT_TIME, 0);
  m->wake_mean_s = num_at(wake, "mean", UNIT_TIME, 0);
  const struct sc_node *sig = sc_map_get(me, "signal");
  m->sig_ok = sig != NULL;
  m->sig_rounds = (int)num_at(sig, "rounds", UNIT_NONE, 0);
  m->sig_store = stat_at(sig, "store");
  m->sig_pingpong = stat_at(sig, "pingpong");
  read_cuda(sc_map_get(me, "cuda"), &m->cuda);
}

/* The CUDA probe's measurements in map CU (none: not present). */
static void read_cuda(const struct sc_node *cu, struct calib_cuda *c) {
  memset(c, 0, sizeof *c);
  c->present = cu != NULL;
  if (!cu) return;
  str_at(cu, "device", c->device, sizeof c->device);
  str_at(cu, "driver", c->driver, sizeof c->driver);
  str_at(cu, "date", c->date, sizeof c->date);
  c->reps = (int)num_at(cu, "repetitions", UNIT_NONE, 0);
  c->launch = stat_at(cu, "launch");
  c->roundtrip = stat_at(cu, "roundtrip");
  c->n_args = table_at(cu, "launch_args", UNIT_TIME, c->args, c->args_s, NULL, CALIB_MAX_ARGK);
  c->store = stat_at(cu, "store");
  c->pingpong = stat_at(cu, "pingpong");
}

bool calib_read_meas(const char *path, struct calib_meas *m, char **err) {
  memset(m, 0, sizeof *m);
  struct sc_node *root = sc_load_file(path, err);
  if (!root) return false;
  const struct sc_node *p = sc_map_get(root, "provenance"), *me = sc_map_get(p, "measured");
  const struct sc_node *gpu = path_get(root, "hardware", "gpu");
  if (!me || me->kind != SC_MAP) {
    *err = sc_error_at(p ? p : root, "provenance.measured",
                       "expected the measurements calibrate records, got none");
    sc_node_free(root);
    return false;
  }
  str_at(p, "device", m->device, sizeof m->device);
  str_at(p, "vendor", m->vendor, sizeof m->vendor);
  str_at(p, "driver", m->driver, sizeof m->driver);
  str_at(p, "platform", m->platform, sizeof m->platform);
  str_at(p, "opencl", m->version, sizeof m->version);
  str_at(p, "date", m->date, sizeof m->date);
  const struct sc_node *q = sc_map_get(p, "quick");
  m->quick = q && q->scalar && strcmp(q->scalar, "true") == 0;
  m->reps = (int)num_at(p, "repetitions", UNIT_NONE, 0);
  m->warmups = (int)num_at(p, "warmups", UNIT_NONE, 0);
  const struct sc_node *bus = path_get(root, "hardware", "bus");
  const struct sc_node *kind = sc_map_get(bus, "kind");
  m->is_gpu = num_at(p, "is_gpu", UNIT_NONE, kind && kind->scalar && strcmp(kind->scalar, "pcie") == 0);
  m->cus = (int64_t)num_at(p, "cus", UNIT_NONE, num_at(gpu, "cus", UNIT_NONE, 1));
  m->clock_hz = (int64_t)num_at(p, "clock", UNIT_FREQ, num_at(gpu, "clock", UNIT_FREQ, 0));
  m->submit = stat_at(me, "enqueue");
  m->submit_end = stat_at(me, "enqueue_end");
  m->roundtrip = stat_at(me, "roundtrip");
  m->launch_span = stat_at(me, "launch_span");
  m->exec_span = stat_at(me, "exec_span");
  m->read_lat = stat_at(me, "read_latency");
  m->h2d_bps = num_at(me, "h2d_bandwidth", UNIT_BANDWIDTH, 0);
  m->d2h_bps = num_at(me, "d2h_bandwidth", UNIT_BANDWIDTH, 0);
  m->n_depths = table_at(me, "queued_empty_kernels", UNIT_TIME, m->depth, m->depth_total_s,
                         m->depth_spread, CALIB_DEPTHS);
  m->n_grids = table_at(me, "jacobi_exec", UNIT_TIME, m->grid, m->grid_exec_s, m->grid_spread,
                        CALIB_MAX_GRIDS);
  int64_t g2[CALIB_MAX_GRIDS];
  table_at(me, "jacobi_back_to_back", UNIT_TIME, g2, m->grid_b2b_s, m->grid_b2b_spread,
           CALIB_MAX_GRIDS);
  m->b2b_kernels = (int)num_at(me, "back_to_back_kernels", UNIT_NONE, m->quick ? 16 : 64);
  m->max_wgs_per_cu = (int64_t)num_at(p, "max_wgs_per_cu", UNIT_NONE, num_at(gpu, "wgs_per_cu", UNIT_NONE, 1));
  m->cache_bytes = (int64_t)num_at(me, "device_cache", UNIT_SIZE, 0);
  m->stream_big_bytes = (int64_t)num_at(me, "stream_bytes", UNIT_SIZE, m->quick ? 64 << 20 : 1 << 30);
  m->n_k = table_at(me, "stream_wgs_per_cu", UNIT_BANDWIDTH, m->k, m->k_bps, NULL, CALIB_MAX_K);
  m->n_ws = table_at(me, "stream_working_set", UNIT_BANDWIDTH, m->ws, m->ws_bps, NULL, CALIB_MAX_WS);
  m->ws_small_k1_bps = num_at(me, "stream_small_one_wg_per_cu", UNIT_BANDWIDTH, 0);
  double res[CALIB_MAX_BAR];
  m->n_bar = table_at(me, "barrier", UNIT_TIME, m->bar_wgs, m->bar_s, res, CALIB_MAX_BAR);
  for (int i = 0; i < m->n_bar; i++) m->bar_resident[i] = res[i] != 0;
  m->pj_iters = (int)num_at(me, "persistent_iters", UNIT_NONE, m->quick ? 10 : 50);
  /* Two run lengths (4 items an entry: the slope and the fixed cost; 5:
   * and the tiles alone), or an older profile's one (3: the wall time per
   * iteration). */
  m->pj_iters_long = (int)num_at(me, "persistent_iters_long", UNIT_NONE, 0);
  size_t items = m->pj_iters_long > 0 ? 4 : 3;
  const struct sc_node *pj = sc_map_get(me, "persistent_jacobi");
  for (size_t i = 0; pj && pj->kind == SC_SEQ && i < pj->n_items && m->n_pj < CALIB_MAX_PJ; i++) {
    const struct sc_node *it = pj->items[i];
    double g, k, t, fixed = 0, tiles = 0;
    bool five = items == 4 && it->kind == SC_SEQ && it->n_items == 5;
    if (it->kind != SC_SEQ || (it->n_items != items && !five) ||
        !num_of(it->items[0], UNIT_NONE, &g) || !num_of(it->items[1], UNIT_NONE, &k) ||
        !num_of(it->items[2], UNIT_TIME, &t) ||
        (items == 4 && !num_of(it->items[3], UNIT_TIME, &fixed)) ||
        (five && !num_of(it->items[4], UNIT_TIME, &tiles)))
      continue;
    m->pj_grid[m->n_pj] = (int64_t)g;
    m->pj_k[m->n_pj] = (int64_t)k;
    m->pj_fixed_s[m->n_pj] = fixed;
    m->pj_tiles_s[m->n_pj] = tiles;
    m->pj_iter_s[m->n_pj++] = t;
  }
  m->n_burst = table_at(me, "enqueue_burst", UNIT_TIME, m->burst, m->burst_enq_s, NULL, CALIB_DEPTHS);
  const struct sc_node *cg = sc_map_get(me, "cg_kernels");
  m->cg_side = cg ? (int64_t)num_at(me, "cg_side", UNIT_NONE, m->quick ? 128 : 2048) : 0;
  static const char *const cgk[CALIB_CG_KINDS] = {"spmv", "dot", "axpy"};
  for (int i = 0; cg && i < CALIB_CG_KINDS; i++) {
    const struct sc_node *v = sc_map_get(cg, cgk[i]);
    if (v && v->kind == SC_SEQ && v->n_items == 2) {
      num_of(v->items[0], UNIT_TIME, &m->cg_b2b_s[i]);
      num_of(v->items[1], UNIT_TIME, &m->cg_exec_s[i]);
    }
  }
  m->dot_nopass2_exec_s = num_at(cg, "dot_without_pass2_span", UNIT_TIME, 0);
  read_meas_issue28(me, m);
  sc_node_free(root);
  return true;
}

bool calib_read_cuda(const char *path, struct calib_cuda *c, char **err) {
  struct sc_node *root = sc_load_file(path, err);
  if (!root) return false;
  const struct sc_node *cu = sc_map_get(root, "cuda");
  bool ok = cu && cu->kind == SC_MAP;
  if (ok) read_cuda(cu, c);
  else *err = sc_error_at(cu ? cu : root, "cuda", "expected the measurements of trigsim-cuda-probe, got %s",
                          cu ? "something else" : "none");
  ok = ok && c->launch.median_s > 0;
  if (cu && cu->kind == SC_MAP && !ok)
    *err = sc_error_at(cu, "cuda.launch", "expected a launch time, got none");
  sc_node_free(root);
  return ok;
}

/* ---- the device as workloads see it (workload.h) ---- */

static bool device_available(int64_t index, char **err) {
  struct calib_dev *d = calib_dev_open((int)index, err);
  calib_dev_close(d);
  return d != NULL;
}

static bool device_jacobi_exec(int64_t index, int64_t grid, int reps, double *median_s,
                               double *spread, char **name, char **err) {
  struct calib_dev *d = calib_dev_open((int)index, err);
  struct calib_stat st;
  bool ok = d && calib_dev_jacobi_exec(d, grid, reps, &st, err);
  if (ok) {
    *median_s = st.median_s;
    *spread = st.spread;
    *name = g_strdup(calib_dev_name(d));
  }
  calib_dev_close(d);
  return ok;
}

const struct wl_device calib_device = {.available = device_available,
                                       .jacobi_exec = device_jacobi_exec};
