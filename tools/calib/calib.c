/* Calibration (calib.h): statistics and fits through GSL, the derivation of
 * parameters from measurements, the profile writer and reader, and the
 * one-node Jacobi loop model. DESIGN.md Sec. 6; GPU-TN Fig. 1. */
#include "calib.h"

#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <gsl/gsl_fit.h>
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


/* Compute time (ps) of a kernel of N_WGS WGs of step ST alone on G: its
 * full waves and its tail (bw_share kernel), each WG's wg_start, no launch. */
static double kernel_ps(const struct gpu_config *g, const struct kstep *st, uint32_t n_wgs) {
  struct gpu_config c = *g;
  c.bw_share = GPU_BW_KERNEL;
  int64_t occ = gpu_occupancy(&c, NULL);
  uint64_t slots = (uint64_t)(c.cus * occ), full = n_wgs / slots, rem = n_wgs % slots;
  double t = (double)full * (double)(gpu_step_time(&c, st, slots, occ) + c.wg_start);
  if (rem) t += (double)(gpu_step_time(&c, st, rem, occ) + c.wg_start);
  return t;
}

static int64_t pct(double x, int64_t max) {
  int64_t p = (int64_t)llround(100 * x);
  return p < 1 ? 1 : p > max ? max : p;
}

/* Fits 1/bw = a / k + b to N (k, bw) points: the latency term a (s per
 * bit at k = 1) and the asymptote 1 / b. False under 2 points. */
static bool fit_harmonic(const double *k, const double *bps, size_t n, double *a, double *b) {
  double x[CALIB_MAX_PJ], y[CALIB_MAX_PJ];
  size_t m = 0;
  for (size_t i = 0; i < n && m < G_N_ELEMENTS(x); i++)
    if (bps[i] > 0 && k[i] > 0) {
      x[m] = 1.0 / k[i];
      y[m++] = 1.0 / bps[i];
    }
  double r2;
  return calib_fit_rel(x, y, m, b, a, &r2) && *a > 0 && *b > 0;
}

/* Bits in flight at 1 WG per CU. */
static double inflight_bits_k1(const struct calib_meas *m) {
  return (double)(m->cus * CALIB_ITEMS * CALIB_ITEM_BYTES) * 8.0;
}

/* The persistent Jacobi points in L2 (L2) or out of it as (k, achieved bits/s of the
 * model's work), the barrier and the launch taken off. */
static size_t persist_points(const struct calib_meas *m, const struct gpu_config *g, bool l2,
                             double *k, double *bps) {
  size_t c = 0;
  double launch = m->roundtrip.median_s / MAX(1, m->pj_iters);
  for (int i = 0; i < m->n_pj; i++) {
    int64_t n = m->pj_grid[i];
    if ((2 * n * n * 4 <= g->l2_bytes) != l2) continue;
    int64_t wgs = m->cus * m->pj_k[i], tiles = kloop_jacobi_wgs(n);
    int64_t fold = (tiles + wgs - 1) / wgs;
    double bar = g->barrier_table.n ? (double)par_table_eval(&g->barrier_table, wgs) * 1e-12 : 0;
    double t = m->pj_iter_s[i] - bar - launch;
    if (!(t > 0)) continue;
    k[c] = (double)m->pj_k[i];
    bps[c++] = (double)(MIN(wgs, tiles) * fold) * KLOOP_WG_SIDE * KLOOP_WG_SIDE *
               KLOOP_BYTES_PER_POINT * 8.0 / t;
  }
  return c;
}

void calib_derive_kernels(const struct calib_meas *m, struct calib_hw *hw) {
  struct gpu_config *g = &hw->gpu;
  /* An old measurement, or a CPU device (PoCL's work-item loops do not
   * vectorize the grid-stride probes: they run several times slower than
   * the Jacobi kernel), keeps the Jacobi fit. */
  if (m->n_k == 0 || !m->is_gpu) return;
  g->wg_items = CALIB_ITEMS;
  g->items_per_cu = m->max_wgs_per_cu * CALIB_ITEMS;
  g->wgs_per_cu = m->max_wgs_per_cu;
  g->item_bytes = CALIB_ITEM_BYTES;
  g->bw_share = GPU_BW_KERNEL;
  double kk[CALIB_MAX_K], a, b;
  for (int i = 0; i < m->n_k; i++) kk[i] = (double)m->k[i];
  if (fit_harmonic(kk, m->k_bps, (size_t)m->n_k, &a, &b)) {
    g->mem_bandwidth = (int64_t)llround(1.0 / b);
    g->mem_latency = ps_of(a * inflight_bits_k1(m));
  } else {
    double peak = 0;
    for (int i = 0; i < m->n_k; i++) peak = MAX(peak, m->k_bps[i]);
    g->mem_bandwidth = (int64_t)llround(peak);
    g->mem_latency = 0;
  }
  /* L2: the working sets served over 1.3 x the memory asymptote. */
  double fast[CALIB_MAX_WS];
  size_t nf = 0;
  int64_t fast_max = 0, slow_min = INT64_MAX;
  for (int i = 0; i < m->n_ws; i++) {
    if (m->ws_bps[i] > 1.3 * (double)g->mem_bandwidth) {
      fast[nf++] = m->ws_bps[i];
      fast_max = MAX(fast_max, m->ws[i]);
    } else if (m->ws[i] > fast_max) {
      slow_min = MIN(slow_min, m->ws[i]);
    }
  }
  g->l2_bytes = 0;
  g->l2_latency = 0;
  if (nf > 0) {
    g->l2_bytes = m->cache_bytes >= fast_max && m->cache_bytes < slow_min ? m->cache_bytes : fast_max;
    double l2k[2] = {(double)m->max_wgs_per_cu, 1};
    double l2b[2] = {calib_stat_of(fast, nf).median_s, m->ws_small_k1_bps};
    if (fit_harmonic(l2k, l2b, 2, &a, &b)) {
      g->l2_bandwidth = (int64_t)llround(1.0 / b);
      g->l2_latency = ps_of(a * inflight_bits_k1(m));
    } else {
      g->l2_bandwidth = (int64_t)llround(l2b[0]);
    }
  }
  /* Barrier table: the WG counts that were resident. */
  g->barrier_table.n = 0;
  for (int i = 0; i < m->n_bar && g->barrier_table.n < PAR_TABLE_MAX; i++) {
    if (!m->bar_resident[i]) continue;
    g->barrier_table.x[g->barrier_table.n] = m->bar_wgs[i];
    g->barrier_table.y[g->barrier_table.n++] = ps_of(m->bar_s[i]);
  }
  /* The enqueue cost against the burst is recorded, not derived: on the
   * H100 its marginal costs scatter from 2 to 13 us around the batch mean
   * and the first enqueue after a wait reads 28 us while a whole synced
   * iteration takes 12 us (see configs/hw/README.md); cpu.submit_table
   * stays empty and cpu.launch_submit is the batch mean. */
  hw->cpu.submit_table.n = 0;
  /* The stencil class from the persistent Jacobi loop: the grids out of
   * L2 set its memory latency and asymptote, those in L2 its L2 ones. */
  double pk[CALIB_MAX_PJ], pb[CALIB_MAX_PJ];
  double base_a = (double)g->mem_latency * 1e-12 / inflight_bits_k1(m);
  size_t np = persist_points(m, g, false, pk, pb);
  if (np >= 2 && fit_harmonic(pk, pb, np, &a, &b)) {
    if (base_a > 0) g->lat[KC_STENCIL] = pct(a / base_a, 100000);
    g->eff[KC_STENCIL] = pct(1.0 / b / (double)g->mem_bandwidth, 1000);
  }
  base_a = (double)g->l2_latency * 1e-12 / inflight_bits_k1(m);
  np = g->l2_bytes > 0 ? persist_points(m, g, true, pk, pb) : 0;
  if (np >= 2 && fit_harmonic(pk, pb, np, &a, &b)) {
    if (base_a > 0) g->l2lat[KC_STENCIL] = pct(a / base_a, 100000);
    g->l2eff[KC_STENCIL] = pct(1.0 / b / (double)g->l2_bandwidth, 1000);
  }
  /* WG dispatch: what the device-paced discrete Jacobi kernels take beyond
   * the model's compute and teardown, per wave. */
  double t0 = (double)g->teardown_latency * 1e-12, e[CALIB_MAX_GRIDS];
  size_t ne = 0;
  uint64_t slots = (uint64_t)(g->cus * g->wgs_per_cu);
  for (int i = 0; i < m->n_grids; i++) {
    if (!(m->grid_b2b_s[i] > 2 * m->submit.median_s)) continue;
    int64_t n = m->grid[i];
    uint32_t wgs = kloop_jacobi_wgs(n);
    struct kstep js = {.kind = KS_COMPUTE, .kclass = KC_STENCIL,
                       .bytes = (int64_t)KLOOP_WG_SIDE * KLOOP_WG_SIDE * KLOOP_BYTES_PER_POINT,
                       .ws_bytes = 2 * n * n * 4};
    double waves = (double)((wgs + slots - 1) / slots);
    e[ne++] = MAX(0, (m->grid_b2b_s[i] - t0) * 1e12 - kernel_ps(g, &js, wgs)) / waves;
  }
  g->wg_start = ne ? (sim_time)llround(calib_stat_of(e, ne).median_s) : 0;
  /* The CG-like kernels' classes: the model at 100 % over the measured
   * back-to-back time (device-paced) or span, teardown and the dot's
   * second pass off. */
  static const int cls[CALIB_CG_KINDS] = {KC_SPMV, KC_REDUCE, KC_AXPY};
  double empty = m->exec_span.median_s;
  g->reduce_pass = m->cg_side > 0 ? ps_of(m->cg_exec_s[CALIB_CG_DOT] - m->dot_nopass2_exec_s) : 0;
  for (int w = 0; w < CALIB_CG_KINDS && m->cg_side > 0; w++) {
    uint32_t n;
    struct kstep ks = calib_cg_step(m->cg_side, w, &n);
    double t = m->cg_b2b_s[w] > 2 * m->submit.median_s ? m->cg_b2b_s[w] - t0
                                                        : m->cg_exec_s[w] - empty;
    if (w == CALIB_CG_DOT) t -= (double)g->reduce_pass * 1e-12;
    struct gpu_config c = *g;
    c.eff[cls[w]] = c.l2eff[cls[w]] = 100;
    double model = kernel_ps(&c, &ks, n) * 1e-12;
    if (t > 0) g->eff[cls[w]] = g->l2eff[cls[w]] = pct(model / t, 1000);
  }
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
  c->launch_submit = ps_of(m->submit.median_s);
  c->switch_mode = CPU_SWITCH_POLL;
  c->switch_poll_interval = 0;
  struct bus_config *b = &hw->bus;
  b->kind = m->is_gpu ? BUS_PCIE : BUS_APU;
  sim_time rt = ps_of(m->roundtrip.median_s), rest = rt - c->launch_submit - g->teardown_latency;
  b->latency = ps_of(m->read_lat.median_s / 4);
  if (b->latency > rest / 4) b->latency = rest > 0 ? rest / 4 : 0;
  if (m->h2d_bps > 0 && m->d2h_bps > 0) b->bandwidth = (int64_t)llround((m->h2d_bps + m->d2h_bps) / 2);
  b->control_bytes = 0; /* control messages cross in exactly `latency` */
  sim_time l1 = rest - 2 * b->latency;
  g->launch_latency = l1 > 0 ? l1 : 0;
  g->launch_per_queued = 0;
  struct par_table *t = &g->launch_table;
  t->n = 0;
  t->x[t->n] = 1;
  t->y[t->n++] = g->launch_latency;
  for (int k = 1; k < m->n_depths && t->n < PAR_TABLE_MAX; k++) {
    double marg = (m->depth_total_s[k] - m->depth_total_s[0]) / (double)(m->depth[k] - m->depth[0]);
    double enq = m->submit.median_s;
    sim_time l = marg > 1.25 * enq ? ps_of(marg) - g->teardown_latency : 0;
    t->x[t->n] = m->depth[k];
    t->y[t->n++] = l > 0 ? l : 0;
  }
  calib_derive_kernels(m, hw);
  return true;
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
    fprintf(f, "    persistent_jacobi:  # [grid, WGs per CU, wall time per iteration of %d]\n",
            m->pj_iters);
    for (int i = 0; i < m->n_pj; i++)
      fprintf(f, "      - [%" PRId64 ", %" PRId64 ", %" PRId64 "ps]\n", m->pj_grid[i], m->pj_k[i],
              ps_of(m->pj_iter_s[i]));
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
  fprintf(f, "  fit:  # %s = t0 + work / mem_bandwidth over %d grids, weighted 1/T^2\n"
             "    t0: %" PRId64 "ps\n    mem_bandwidth: %" PRId64 "bps\n    r2: %.4f\n",
          fit->from_spans ? "jacobi_exec" : "jacobi_back_to_back (device-paced grids)", fit->points,
          ps_of(fit->t0_s), (int64_t)llround(fit->bw_bps), fit->r2);
  fputs("hardware:\n  cpu:\n", f);
  fprintf(f, "    launch_submit: %" PRId64 "ps  # measured enqueue\n", hw->cpu.launch_submit);
  if (hw->cpu.submit_table.n > 0 && m->is_gpu) {
    fputs("    submit_table: \"", f);
    for (int i = 0; i < hw->cpu.submit_table.n; i++)
      fprintf(f, "%s%" PRId64 ":%" PRId64 "ps", i ? ", " : "", hw->cpu.submit_table.x[i],
              hw->cpu.submit_table.y[i]);
    fputs("\"  # N: mean enqueue cost of launches N/2+1..N of a burst (1: the first)\n", f);
  }
  fputs("    switch_mode: poll            # clFinish spins\n"
        "    switch_poll_interval: 0ps\n",
        f);
  fputs("  gpu:\n", f);
  fprintf(f, "    clock: %" PRId64 "Hz  # CL_DEVICE_MAX_CLOCK_FREQUENCY\n", g->clock);
  fprintf(f, "    cus: %" PRId64 "  # CL_DEVICE_MAX_COMPUTE_UNITS\n", g->cus);
  fprintf(f, "    wgs_per_cu: %" PRId64 "  # chosen: %s\n", g->wgs_per_cu,
          g->wgs_per_cu > 1 ? "2048 items per CU / 256-item WGs" : "one WG per CPU core");
  fprintf(f, "    mem_bandwidth: %" PRId64 "bps  # %s\n", g->mem_bandwidth,
          m->n_k > 0 && m->is_gpu ? "asymptote of the streaming sweep (see mem_latency)" : "fit");
  fprintf(f, "    queues: %" PRId64 "\n", g->queues);
  fprintf(f, "    launch_latency: %" PRId64 "ps  # roundtrip - enqueue - 2 bus latency - t0\n",
          g->launch_latency);
  fprintf(f, "    launch_per_queued: 0ps\n    launch_table: \"");
  for (int i = 0; i < g->launch_table.n; i++)
    fprintf(f, "%s%" PRId64 ":%" PRId64 "ps", i ? ", " : "", g->launch_table.x[i],
            g->launch_table.y[i]);
  fputs("\"  # depth 1: launch_latency; then mean marginal queued-kernel cost - t0 where the "
        "device sets the pace, else 0\n",
        f);
  fprintf(f, "    teardown_latency: %" PRId64 "ps  # fit t0\n", g->teardown_latency);
  if (m->n_k > 0 && m->is_gpu) {
    fprintf(f, "    bw_share: kernel  # a measured kernel runs alone: its WGs share the memory\n");
    fprintf(f, "    wg_items: %" PRId64 "  # the 1D kernels' WGs\n", g->wg_items);
    fprintf(f, "    items_per_cu: %" PRId64 "  # chosen: %s\n", g->items_per_cu,
            m->is_gpu ? "2048 resident items per CU (OpenCL does not report it)" : "one WG per core");
    fprintf(f, "    item_bytes: %" PRId64 "B  # one float load in flight per item\n", g->item_bytes);
    fprintf(f, "    mem_latency: %" PRId64 "ps  # streaming sweep: 1/bw(k) = mem_latency / (k cus items "
               "item_bytes 8) + 1/mem_bandwidth, fitted (GSL)\n",
            g->mem_latency);
    fprintf(f, "    l2_bytes: %" PRId64 "B  # device cache size %" PRId64 "B where the working-set "
               "sweep agrees, else the largest set served over 1.3x the memory peak (0: none)\n",
            g->l2_bytes, m->cache_bytes);
    fprintf(f, "    l2_bandwidth: %" PRId64 "bps  # asymptote through the median of the sets that "
               "fit (full occupancy) and the smallest at 1 WG per CU\n",
            g->l2_bandwidth);
    fprintf(f, "    l2_latency: %" PRId64 "ps  # the same two points' latency term\n", g->l2_latency);
    static const char *const names[KC_COUNT] = {"stream", "stencil", "spmv", "reduce", "axpy"};
    static const char *const from[KC_COUNT] = {
        "the probe itself", "the persistent Jacobi loop (1/bw = a/k + b fitted per level)",
        "the CG-like SpMV alone, full occupancy", "the CG-like dot alone, second pass off",
        "the CG-like AXPY alone"};
    for (int i = 0; i <= KC_AXPY; i++) /* the classes the probes measure */
      fprintf(f, "    eff_%s: %" PRId64 "\n    lat_%s: %" PRId64 "\n    l2eff_%s: %" PRId64
                 "\n    l2lat_%s: %" PRId64 "  # %s\n",
              names[i], g->eff[i], names[i], g->lat[i], names[i], g->l2eff[i], names[i],
              g->l2lat[i], from[i]);
    fprintf(f, "    wg_start: %" PRId64 "ps  # discrete Jacobi, device-paced: (time - teardown - "
               "model compute) / waves, median\n",
            g->wg_start);
    fprintf(f, "    reduce_pass: %" PRId64 "ps  # dot span with its second pass - without\n",
            g->reduce_pass);
    fputs("    barrier_table: \"", f);
    for (int i = 0; i < g->barrier_table.n; i++)
      fprintf(f, "%s%" PRId64 ":%" PRId64 "ps", i ? ", " : "", g->barrier_table.x[i],
              g->barrier_table.y[i]);
    fputs("\"  # WGs: one device-wide barrier (atomic arrive, volatile poll of a generation)\n", f);
  }
  fprintf(f, "  bus:\n    kind: %s\n", hw->bus.kind == BUS_PCIE ? "pcie" : "apu");
  fprintf(f, "    latency: %" PRId64 "ps  # min(read_latency, roundtrip - enqueue - t0) / 4\n", hw->bus.latency);
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

/* ---- the model of the Jacobi loop ---- */

/* HW's groups as the models take them (borrowed from HW). */
static struct hw_config hw_config_of(const struct calib_hw *hw) {
  return (struct hw_config){.gpu = &hw->gpu, .cpu = &hw->cpu, .bus = &hw->bus, .nic = &hw->nic,
                            .net = &hw->net};
}

int64_t calib_predict_iter_ps(const struct calib_hw *hw, int64_t n, int iters, bool sync,
                              int64_t compute_ps) {
  struct hw_config h = hw_config_of(hw);
  int64_t total = kloop_predict_run(&h, n, iters, sync, compute_ps, NULL);
  return (total + iters / 2) / iters;
}


int64_t calib_predict_persist_ps(const struct calib_hw *hw, int64_t n, int iters) {
  g_assert(iters >= 1 && n >= 1);
  struct hw_config h = hw_config_of(hw);
  uint32_t wgs = (uint32_t)(hw->gpu.cus * gpu_occupancy(&hw->gpu, NULL));
  uint32_t tiles = kloop_jacobi_wgs(n);
  int64_t fold = (tiles + wgs - 1) / wgs;
  struct kstep *steps = g_new0(struct kstep, 2 * (size_t)iters);
  for (int i = 0; i < iters; i++) {
    steps[2 * i] = (struct kstep){
        .kind = KS_COMPUTE, .kclass = KC_STENCIL,
        .flops = fold * KLOOP_WG_SIDE * KLOOP_WG_SIDE * KLOOP_FLOPS_PER_POINT,
        .bytes = fold * kloop_wg_bytes(), .ws_bytes = 2 * n * n * 4,
        .sel_count = MIN(wgs, tiles), .sel_stride = 1}; /* WGs past the tiles have none */
    steps[2 * i + 1] = (struct kstep){.kind = KS_BARRIER};
  }
  struct kernel k = {.name = "jacobi_persist", .n_wgs = wgs, .steps = steps,
                     .n_steps = 2 * (size_t)iters};
  struct qcmd q = {.kind = Q_KERNEL, .kernel = 0};
  const struct hstep host[] = {{.kind = HS_LAUNCH, .queue = 0, .qcmd = 0},
                               {.kind = HS_WAIT_KERNEL, .kernel = 0}};
  struct nodeprog prog = {.kernels = &k, .n_kernels = 1, .qcmds = &q, .n_qcmds = 1,
                          .host = host, .n_host = 2};
  int64_t total = sys_run_node(&h, &prog, NULL);
  g_free(steps);
  return (total + iters / 2) / iters;
}

int64_t calib_cg_nnz(int64_t side) { return 5 * side * side - 4 * side; }

struct kstep calib_cg_step(int64_t side, int which, uint32_t *n_wgs) {
  int64_t rows = side * side, wgs = (rows + CALIB_ITEMS - 1) / CALIB_ITEMS;
  int64_t r = CALIB_ITEMS, nnz = (calib_cg_nnz(side) + wgs - 1) / wgs;
  *n_wgs = (uint32_t)wgs;
  switch (which) {
  case CALIB_CG_SPMV: /* row pointer, y and one read of x a row; value and column a non-zero */
    return (struct kstep){.kind = KS_COMPUTE, .kclass = KC_SPMV, .flops = 2 * nnz,
                          .bytes = 12 * r + 8 * nnz, .reuse_bytes = 4 * (nnz - r),
                          .gather_bytes = 4 * rows, .ws_bytes = 12 * rows + 8 * calib_cg_nnz(side)};
  case CALIB_CG_DOT:
    return (struct kstep){.kind = KS_COMPUTE, .kclass = KC_REDUCE, .flops = 2 * r,
                          .bytes = 8 * r, .ws_bytes = 8 * rows};
  default:
    return (struct kstep){.kind = KS_COMPUTE, .kclass = KC_AXPY, .flops = 2 * r,
                          .bytes = 12 * r, .ws_bytes = 12 * rows};
  }
}

int64_t calib_predict_cg_ps(const struct calib_hw *hw, int64_t side, int iters) {
  g_assert(iters >= 1 && side >= 2);
  struct hw_config h = hw_config_of(hw);
  struct kstep st[CALIB_CG_KINDS];
  struct kernel k[CALIB_CG_KINDS];
  struct qcmd q[CALIB_CG_KINDS];
  for (int w = 0; w < CALIB_CG_KINDS; w++) {
    uint32_t n;
    st[w] = calib_cg_step(side, w, &n);
    k[w] = (struct kernel){.name = "cg", .n_wgs = n, .steps = &st[w], .n_steps = 1};
    q[w] = (struct qcmd){.kind = Q_KERNEL, .kernel = (uint32_t)w};
  }
  static const int order[CALIB_CG_PER_ITER] = {CALIB_CG_SPMV, CALIB_CG_DOT, CALIB_CG_AXPY,
                                               CALIB_CG_AXPY, CALIB_CG_DOT, CALIB_CG_AXPY};
  size_t n_host = (size_t)iters * (CALIB_CG_PER_ITER + 1), j = 0;
  struct hstep *host = g_new0(struct hstep, n_host);
  for (int i = 0; i < iters; i++) {
    for (int o = 0; o < CALIB_CG_PER_ITER; o++)
      host[j++] = (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = (uint32_t)order[o]};
    host[j++] = (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = CALIB_CG_AXPY};
  }
  struct nodeprog prog = {.kernels = k, .n_kernels = CALIB_CG_KINDS, .qcmds = q,
                          .n_qcmds = CALIB_CG_KINDS, .host = host, .n_host = n_host};
  int64_t total = sys_run_node(&h, &prog, NULL);
  g_free(host);
  return (total + iters / 2) / iters;
}

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
  const struct sc_node *pj = sc_map_get(me, "persistent_jacobi");
  for (size_t i = 0; pj && pj->kind == SC_SEQ && i < pj->n_items && m->n_pj < CALIB_MAX_PJ; i++) {
    const struct sc_node *it = pj->items[i];
    double g, k, t;
    if (it->kind != SC_SEQ || it->n_items != 3 || !num_of(it->items[0], UNIT_NONE, &g) ||
        !num_of(it->items[1], UNIT_NONE, &k) || !num_of(it->items[2], UNIT_TIME, &t))
      continue;
    m->pj_grid[m->n_pj] = (int64_t)g;
    m->pj_k[m->n_pj] = (int64_t)k;
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
  sc_node_free(root);
  return true;
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
