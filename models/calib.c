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

uint32_t calib_jacobi_wgs(int64_t n) {
  int64_t side = (n + CALIB_WG_SIDE - 1) / CALIB_WG_SIDE;
  return (uint32_t)(side * side);
}

static int64_t jacobi_wg_bytes(void) {
  return (int64_t)CALIB_WG_SIDE * CALIB_WG_SIDE * CALIB_BYTES_PER_POINT;
}

double calib_jacobi_work_bits(int64_t n, int64_t cus, int64_t wgs_per_cu) {
  int64_t slots = cus * wgs_per_cu;
  int64_t waves = ((int64_t)calib_jacobi_wgs(n) + slots - 1) / slots;
  return (double)waves * (double)jacobi_wg_bytes() * 8.0 * (double)slots;
}

static int64_t wgs_per_cu_of(const struct calib_meas *m) { return m->is_gpu ? 8 : 1; }

/* Fits the compute model to M's grids (calib.h, calib_jacobi_work_bits). */
static bool calib_fit_compute(const struct calib_meas *m, int64_t wgs_per_cu, struct calib_fit *fit) {
  double x[CALIB_MAX_GRIDS], y[CALIB_MAX_GRIDS];
  size_t n = 0;
  for (int i = 0; i < m->n_grids; i++) {
    if (!(m->grid_b2b_s[i] > 1.5 * m->submit.median_s)) continue;
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
    sim_time l = marg > 1.1 * m->submit.median_s ? ps_of(marg) - g->teardown_latency : 0;
    t->x[t->n] = m->depth[k];
    t->y[t->n++] = l > 0 ? l : 0;
  }
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
             "# value from the measurements is in models/calib.h. Times are medians; spread =\n"
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
  fprintf(f, "  fit:  # %s = t0 + work / mem_bandwidth over %d grids, weighted 1/T^2\n"
             "    t0: %" PRId64 "ps\n    mem_bandwidth: %" PRId64 "bps\n    r2: %.4f\n",
          fit->from_spans ? "jacobi_exec" : "jacobi_back_to_back (device-paced grids)", fit->points,
          ps_of(fit->t0_s), (int64_t)llround(fit->bw_bps), fit->r2);
  fputs("hardware:\n  cpu:\n", f);
  fprintf(f, "    launch_submit: %" PRId64 "ps  # measured enqueue\n", hw->cpu.launch_submit);
  fputs("    switch_mode: poll            # clFinish spins\n"
        "    switch_poll_interval: 0ps\n",
        f);
  fputs("  gpu:\n", f);
  fprintf(f, "    clock: %" PRId64 "Hz  # CL_DEVICE_MAX_CLOCK_FREQUENCY\n", g->clock);
  fprintf(f, "    cus: %" PRId64 "  # CL_DEVICE_MAX_COMPUTE_UNITS\n", g->cus);
  fprintf(f, "    wgs_per_cu: %" PRId64 "  # chosen: %s\n", g->wgs_per_cu,
          g->wgs_per_cu > 1 ? "2048 items per CU / 256-item WGs" : "one WG per CPU core");
  fprintf(f, "    mem_bandwidth: %" PRId64 "bps  # fit\n", g->mem_bandwidth);
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

int64_t calib_predict_iter_ps(const struct calib_hw *hw, int64_t n, int iters, bool sync,
                              int64_t compute_ps) {
  int64_t total = calib_predict_run(hw, n, iters, sync, compute_ps, NULL);
  return (total + iters / 2) / iters;
}


int64_t calib_predict_run(const struct calib_hw *hw, int64_t n, int iters, bool sync,
                          int64_t compute_ps, uint64_t *events) {
  g_assert(iters >= 1 && n >= 1);
  struct kstep step = {.kind = KS_COMPUTE};
  struct kernel k = {.name = "jacobi", .steps = &step, .n_steps = 1};
  if (compute_ps > 0) {
    step.time = compute_ps;
    k.n_wgs = 1;
  } else {
    step.flops = (int64_t)CALIB_WG_SIDE * CALIB_WG_SIDE * CALIB_FLOPS_PER_POINT;
    step.bytes = jacobi_wg_bytes();
    k.n_wgs = calib_jacobi_wgs(n);
  }
  struct qcmd q = {.kind = Q_KERNEL, .kernel = 0};
  size_t n_host = sync ? 2 * (size_t)iters : (size_t)iters + 1;
  struct hstep *host = g_new0(struct hstep, n_host);
  size_t j = 0;
  for (int i = 0; i < iters; i++) {
    host[j++] = (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = 0};
    if (sync) host[j++] = (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = 0};
  }
  if (!sync) host[j++] = (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = 0};
  g_assert(j == n_host);
  struct nodeprog prog = {.kernels = &k, .n_kernels = 1, .qcmds = &q, .n_qcmds = 1,
                          .host = host, .n_host = n_host};
  struct net_config net = hw->net;
  net.topology = NET_STAR;
  net.nodes = 1;
  struct hw_config h = {.gpu = &hw->gpu, .cpu = &hw->cpu, .bus = &hw->bus, .nic = &hw->nic,
                        .net = &net};
  const struct nodeprog *progs[] = {&prog};
  struct sim_engine *e = sim_new(1);
  char *err = NULL;
  struct system *s = sys_build(e, &h, progs, &err);
  if (!s) g_error("calib: one-node system: %s", err);
  uint64_t ran = sim_run(e, SIM_TIME_MAX, 0);
  if (events) *events = ran;
  struct sim_report rep;
  sim_report_init(&rep);
  sim_finish(e, &rep);
  const struct sim_report_entry *en = sim_report_find(&rep, "node0.cpu.main_done");
  g_assert(en && en->i > 0);
  int64_t total = en->i;
  sim_report_clear(&rep);
  sim_free(e);
  sys_free(s);
  g_free(host);
  return total;
}
