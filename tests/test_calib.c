/* Calibration (tools/calib/calib.h) with synthetic measurements: statistics and
 * fits, the derivation of parameters, the profile writer/reader round trip,
 * the one-node Jacobi loop model, and the command-line errors. No device. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "calib.h"
#include "testutil.h"

#define US 1000000 /* ps */
#define NS 1000

static void test_stat_median_spread(void) {
  double x[] = {5, 1, 3, 2, 4};
  struct calib_stat s = calib_stat_of(x, 5);
  /* Sorted 1 2 3 4 5: median 3; quartiles (GSL, linear) 2 and 4:
   * spread (4 - 2) / 3. */
  CU_ASSERT_DOUBLE_EQUAL(s.median_s, 3, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(s.spread, 2.0 / 3.0, 1e-12);
  double y[] = {4, 1, 3, 2};
  /* Even count: median (2 + 3) / 2. */
  CU_ASSERT_DOUBLE_EQUAL(calib_stat_of(y, 4).median_s, 2.5, 1e-12);
}

static void test_fit_relative(void) {
  /* Exact line y = 2 + 3x: any weighting recovers it, R^2 = 1. */
  double x[] = {1, 2, 3, 10}, y[] = {5, 8, 11, 32};
  double a, b, r2;
  CU_ASSERT_TRUE(calib_fit_rel(x, y, 4, &a, &b, &r2));
  CU_ASSERT_DOUBLE_EQUAL(a, 2, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(b, 3, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(r2, 1, 1e-9);
  /* Weights 1/y^2 make relative errors count: points (1, 1), (2, 2), (100, 110).
   * Unweighted least squares would follow the large point; here the two
   * small points, weighted 1 and 1/4 against 1/12100, hold the line near
   * y = x: slope within 10% of 1, intercept near 0. */
  double x2[] = {1, 2, 100}, y2[] = {1, 2, 110};
  CU_ASSERT_TRUE(calib_fit_rel(x2, y2, 3, &a, &b, &r2));
  CU_ASSERT_TRUE(fabs(b - 1) < 0.1);
  CU_ASSERT_TRUE(fabs(a) < 0.1);
  CU_ASSERT_FALSE(calib_fit_rel(x, y, 1, &a, &b, &r2)); /* one point: no line */
}

static void test_jacobi_work(void) {
  /* 64 / 16 = 4 WGs a side: 16 WGs; 65 needs 5 a side: 25. */
  CU_ASSERT_EQUAL(kloop_jacobi_wgs(64), 16);
  CU_ASSERT_EQUAL(kloop_jacobi_wgs(65), 25);
  /* 2 slots: 16 WGs = 8 waves of 16*16*8 B = 2048 B a WG on each of 2 slots:
   * 8 * 2048 * 8 bits * 2 = 262144 bits. 128: 64 WGs, 32 waves: 1048576. */
  CU_ASSERT_DOUBLE_EQUAL(calib_jacobi_work_bits(64, 2, 1), 262144, 1e-6);
  CU_ASSERT_DOUBLE_EQUAL(calib_jacobi_work_bits(128, 2, 1), 1048576, 1e-6);
}

/* Synthetic measurements of a 2-CU CPU device: enqueue S = 1us, round trip
 * R = 20us, small read 8us, back-to-back Jacobi time G0 + W/bw with
 * G0 = 2us, bw = 1e11 bits/s: grid 64: 2 + 262144/1e11 s = 4.62144us,
 * grid 128: 2 + 10.48576 = 12.48576us (both above 1.5 S: device-paced).
 * Queued empty kernels: 1: 20us, 2: 25us, 4: 32us. */
static void synth(struct calib_meas *m) {
  memset(m, 0, sizeof *m);
  g_strlcpy(m->device, "synthetic \"dev\"", sizeof m->device);
  g_strlcpy(m->date, "2026-01-01T00:00:00Z", sizeof m->date);
  m->cus = 2;
  m->clock_hz = 2000000000;
  m->reps = 7;
  m->submit.median_s = 1e-6;
  m->roundtrip.median_s = 20e-6;
  m->read_lat.median_s = 8e-6;
  m->h2d_bps = 1e11;
  m->d2h_bps = 2e11;
  m->n_depths = 3;
  m->depth[0] = 1, m->depth[1] = 2, m->depth[2] = 4;
  m->depth_total_s[0] = 20e-6, m->depth_total_s[1] = 25e-6, m->depth_total_s[2] = 32e-6;
  m->n_grids = 2;
  m->grid[0] = 64, m->grid[1] = 128;
  m->grid_b2b_s[0] = 4.62144e-6, m->grid_b2b_s[1] = 12.48576e-6;
  m->grid_exec_s[0] = 9e-6, m->grid_exec_s[1] = 9e-6; /* ignored: b2b points suffice */
  m->b2b_kernels = 16;
}

static void test_derive(void) {
  struct calib_meas m;
  struct calib_hw hw;
  struct calib_fit fit;
  char *err = NULL;
  synth(&m);
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_FALSE(fit.from_spans);
  CU_ASSERT_EQUAL(fit.points, 2);
  CU_ASSERT_DOUBLE_EQUAL(fit.bw_bps, 1e11, 1e3);
  CU_ASSERT_EQUAL(hw.gpu.teardown_latency, 2 * US);       /* G0 */
  CU_ASSERT_TRUE(llabs(hw.gpu.mem_bandwidth - 100000000000) < 1000);
  CU_ASSERT_EQUAL(hw.gpu.cus, 2);
  CU_ASSERT_EQUAL(hw.gpu.wgs_per_cu, 1);                  /* not a GPU */
  CU_ASSERT_EQUAL(hw.gpu.clock, 2000000000);
  CU_ASSERT_EQUAL(hw.cpu.launch_submit, 1 * US);
  CU_ASSERT_EQUAL(hw.cpu.switch_poll_interval, 0);
  CU_ASSERT_EQUAL(hw.cpu.buffer_table.n, 0); /* no enqueue_args measured */
  /* The enqueue against its buffer arguments, 1, 1.5, 1.6 us at 0, 1, 2:
   * the table as measured less the no-argument enqueue (0, 0.5, 0.6 us);
   * the slope past it by least squares: x mean 1, y mean 4.1/3 us,
   * sum (x - 1)(y - ymean) = 0.6 us over sum (x - 1)^2 = 2: 0.3 us. */
  m.n_argk = 3;
  m.argk[0] = 0, m.argk[1] = 1, m.argk[2] = 2;
  m.argk_enq_s[0] = 1e-6, m.argk_enq_s[1] = 1.5e-6, m.argk_enq_s[2] = 1.6e-6;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_EQUAL(hw.cpu.buffer_table.n, 3);
  CU_ASSERT_EQUAL(hw.cpu.buffer_table.x[2], 2);
  CU_ASSERT_EQUAL(hw.cpu.buffer_table.y[0], 0);
  CU_ASSERT_EQUAL(hw.cpu.buffer_table.y[1], 500000);
  CU_ASSERT_EQUAL(hw.cpu.buffer_table.y[2], 600000);
  CU_ASSERT_TRUE(llabs(hw.cpu.launch_per_buffer - 300000) <= 1);
  m.n_argk = 0;
  /* R - S - G0 = 17us; bus = min(8/4, 17/4) = 2us; launch = 17 - 2*2 = 13us. */
  CU_ASSERT_EQUAL(hw.bus.latency, 2 * US);
  CU_ASSERT_EQUAL(hw.gpu.launch_latency, 13 * US);
  CU_ASSERT_EQUAL(hw.bus.bandwidth, 150000000000);        /* (1e11 + 2e11) / 2 */
  CU_ASSERT_EQUAL(hw.cpu.wake_jitter, 0);                 /* no wake gaps measured */
  /* The host's enqueue at the start (1 us) and the end: 1.1 us is within
   * 15 %, 1.2 us is not; none measured at the end, nothing to say. */
  double e0, e1;
  CU_ASSERT_FALSE(calib_host_moved(&m, &e0, &e1));
  m.submit_end.median_s = 1.1e-6;
  CU_ASSERT_FALSE(calib_host_moved(&m, &e0, &e1));
  m.submit_end.median_s = 1.2e-6;
  CU_ASSERT_TRUE(calib_host_moved(&m, &e0, &e1));
  CU_ASSERT_DOUBLE_EQUAL(e0, 1e-6, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(e1, 1.2e-6, 1e-15);
  m.submit_end.median_s = 0.8e-6;
  CU_ASSERT_TRUE(calib_host_moved(&m, &e0, &e1));
  m.submit_end.median_s = 0;
  /* The wake gaps of a shifted exponential, shift 4 us, mean J = 2 us:
   * p01 = 4 + 2 ln(1 / 0.99) = 4.0201007 us, p50 = 4 + 2 ln 2 =
   * 5.3862944 us. J comes back from the two quantiles (2 us, to the
   * ps), and the round trip's median loses its wait's median lateness,
   * J ln 2 = 1.3862944 us: launch 13 - 1.3862944 = 11.6137056 us, so the
   * model's round trip is R's shift + J, its mean. */
  m.wake_n = 2000;
  m.wake_p01_s = 4e-6 + 2e-6 * log(1 / 0.99);
  m.wake_p50_s = 4e-6 + 2e-6 * log(2.0);
  m.wake_mean_s = 6e-6;
  CU_ASSERT_DOUBLE_EQUAL(calib_wake_jitter(m.wake_p01_s, m.wake_p50_s), 2e-6, 1e-15);
  CU_ASSERT_EQUAL(calib_wake_jitter(5e-6, 5e-6), 0);      /* no spread: no lateness */
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_TRUE(llabs(hw.cpu.wake_jitter - 2 * US) <= 1);
  CU_ASSERT_TRUE(llabs(hw.gpu.launch_latency - 11613706) <= 1);
  /* The copy home loses it too: the same read's wait. R(copy) 30 us - J
   * ln 2 - S(1) 1 - S(2) 1 - 2 x bus 2 us (no notice): 22.6137056 us. */
  m.copy_rt.median_s = 30e-6;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_TRUE(llabs(hw.gpu.copy_start - 22613706) <= 1);
  m.copy_rt.median_s = 0;
  m.wake_n = 0;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  /* Depth 2: m = 5us > 1.1 S: 5 - 2 = 3us; depth 4: m = 12/3 = 4us: 2us. */
  CU_ASSERT_EQUAL(hw.gpu.launch_table.n, 3);
  CU_ASSERT_EQUAL(hw.gpu.launch_table.y[0], 13 * US);
  CU_ASSERT_EQUAL(hw.gpu.launch_table.x[1], 2);
  CU_ASSERT_EQUAL(hw.gpu.launch_table.y[1], 3 * US);
  CU_ASSERT_EQUAL(hw.gpu.launch_table.y[2], 2 * US);
  /* Enqueue-paced queue (m <= 1.25 S): the device's cost is hidden, not
   * gone: depth 1's launch, 13 us. */
  m.depth_total_s[1] = 21e-6;
  CU_ASSERT_TRUE(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_EQUAL(hw.gpu.launch_table.y[1], 13 * US);
  /* Only one device-paced grid: the profiling spans are fitted instead. */
  m.grid_b2b_s[0] = 1.2e-6;
  m.grid_exec_s[0] = 4.62144e-6, m.grid_exec_s[1] = 12.48576e-6;
  CU_ASSERT_TRUE(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_TRUE(fit.from_spans);
  CU_ASSERT_EQUAL(hw.gpu.teardown_latency, 2 * US);
  /* Times that fall with the grid fit no model. */
  m.grid_exec_s[1] = 1e-6;
  CU_ASSERT_FALSE(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_PTR_NOT_NULL(err);
  g_free(err);
}

/* Synthetic sweeps of a 2-CU GPU with 4 WGs per CU: streaming bandwidth
 * from the law 1/bw(k) = L / (k 2 256 4 B 8) + 1/P with L = 200 ns and P =
 * 8 Tbps (k = 1: 16384 bits in flight, bw = 1 / (200e-9 / 16384 + 1 / 8e12)
 * = 80.4 Gbps); the working-set sweep by the law with 1 ns and 32 Tbps up
 * to 4 MiB (21.6 Tbps at k = 4: over 1.3 P, so L2) and by the memory's
 * beyond; the device cache 4 MiB; a barrier table; the profile
 * written, its measurements read back (calibrate --from) and derived
 * again give the same hardware. */
static double law_bps(double k, double lat_s, double peak) {
  return 1.0 / (lat_s / (k * 2 * 256 * 4 * 8) + 1.0 / peak);
}

/* synth's device with its streaming law (L = 200 ns, P = 8 Tbps at 1-4
 * WGs a CU) and a working-set sweep: 1 and 4 MiB at L2's law (1 ns, 32
 * Tbps), 64 MiB at memory's. */
static void synth_caches(struct calib_meas *m) {
  synth(m);
  m->is_gpu = true;
  m->max_wgs_per_cu = 4;
  m->cache_bytes = 4 << 20;
  m->n_k = 4;
  for (int i = 0; i < 4; i++) {
    m->k[i] = i + 1;
    m->k_bps[i] = law_bps(i + 1, 200e-9, 8e12);
  }
  m->n_ws = 3;
  m->ws[0] = 1 << 20, m->ws[1] = 4 << 20, m->ws[2] = 64 << 20;
  m->ws_bps[0] = m->ws_bps[1] = law_bps(4, 1e-9, 32e12), m->ws_bps[2] = law_bps(4, 200e-9, 8e12);
  m->ws_small_k1_bps = law_bps(1, 1e-9, 32e12);
}

/* L1 residency (calib.c): the largest set the re-reading stream at 1 WG a
 * CU serves at its small sets' rate is resident, whatever the CU count:
 * on 3 CUs the 4 MiB set fast at 1 WG a CU (100 Tbps, against L2's 32
 * Tbps) gives l1_resident_bytes = ceil(4194304 / 3) = 1398102 B, so that
 * the model's test (ws <= l1_resident_bytes x cus) admits the set itself
 * (floor, 1398101 x 3 = 4194303, did not). */
static void test_derive_l1_resident_rounds_up(void) {
  struct calib_meas m;
  synth_caches(&m);
  m.cus = 3;
  m.ws_k1_bps[0] = m.ws_k1_bps[1] = 100e12, m.ws_k1_bps[2] = law_bps(1, 200e-9, 8e12);
  struct calib_hw hw;
  struct calib_fit fit;
  char *err = NULL;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_EQUAL(hw.gpu.l1_resident_bytes, 1398102);
  CU_ASSERT_TRUE(hw.gpu.l1_resident_bytes * 3 >= (4 << 20));
  g_free(err);
}

static void test_derive_kernels_round_trip(void) {
  struct calib_meas m;
  synth_caches(&m);
  m.n_bar = 2;
  m.bar_wgs[0] = 2, m.bar_wgs[1] = 8;
  m.bar_s[0] = 1e-6, m.bar_s[1] = 3e-6;
  m.bar_resident[0] = m.bar_resident[1] = true;
  struct calib_hw hw, again;
  struct calib_fit fit;
  char *err = NULL;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  /* The law recovered: L = 200 ns, P = 8 Tbps; L2 = 4 MiB (the device's
   * size, which the sweep brackets: fast at 4 MiB, slow at 64), its law
   * 1 ns and 32 Tbps; the barrier table as measured. */
  CU_ASSERT_TRUE(llabs(hw.gpu.mem_latency - 200000) <= 2);
  CU_ASSERT_TRUE(llabs(hw.gpu.mem_bandwidth - 8000000000000) < 1000000);
  CU_ASSERT_EQUAL(hw.gpu.l2_bytes, 4 << 20);
  CU_ASSERT_TRUE(llabs(hw.gpu.l2_latency - 1000) <= 2);
  CU_ASSERT_TRUE(llabs(hw.gpu.l2_bandwidth - 32000000000000) < 10000000);
  CU_ASSERT_EQUAL(hw.gpu.wgs_per_cu, 4);
  CU_ASSERT_EQUAL(hw.gpu.items_per_cu, 1024);
  CU_ASSERT_EQUAL(hw.gpu.barrier_table.n, 2);
  CU_ASSERT_EQUAL(hw.gpu.barrier_table.y[1], 3 * US);
  char *dir = g_dir_make_tmp("calib-XXXXXX", NULL);
  char *path = g_build_filename(dir, "p.yaml", NULL);
  CU_ASSERT_TRUE_FATAL(calib_write_profile(path, &m, &fit, &hw, &err));
  struct calib_meas back;
  CU_ASSERT_TRUE_FATAL(calib_read_meas(path, &back, &err));
  CU_ASSERT_EQUAL(back.n_k, 4);
  CU_ASSERT_EQUAL(back.n_ws, 3);
  CU_ASSERT_EQUAL(back.wake_n, 0); /* not measured: not written */
  CU_ASSERT_EQUAL(back.submit_end.median_s, 0);
  CU_ASSERT_TRUE(back.is_gpu);
  CU_ASSERT_TRUE_FATAL(calib_derive(&back, &again, &fit, &err));
  /* Written in whole ps and bps, read back: the same within rounding. */
  CU_ASSERT_TRUE(llabs(again.gpu.mem_latency - hw.gpu.mem_latency) <= 2);
  CU_ASSERT_TRUE(llabs(again.gpu.mem_bandwidth - hw.gpu.mem_bandwidth) < 1000000);
  CU_ASSERT_EQUAL(again.gpu.l2_bytes, hw.gpu.l2_bytes);
  CU_ASSERT_EQUAL(memcmp(&again.gpu.barrier_table, &hw.gpu.barrier_table, sizeof hw.gpu.barrier_table), 0);
  struct calib_hw prof;
  CU_ASSERT_TRUE_FATAL(calib_read_profile(path, &prof, &err));
  CU_ASSERT_EQUAL(prof.gpu.mem_latency, hw.gpu.mem_latency);
  CU_ASSERT_EQUAL(prof.gpu.bw_share, GPU_BW_KERNEL);
  /* A profile without measurements cannot be derived again. */
  char *bare = g_build_filename(dir, "bare.yaml", NULL);
  g_file_set_contents(bare, "hardware:\n  gpu:\n    cus: 2\n", -1, NULL);
  CU_ASSERT_FALSE(calib_read_meas(bare, &back, &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "provenance.measured: expected the measurements"));
  g_free(err);
  g_unlink(bare);
  g_unlink(path);
  g_rmdir(dir);
  g_free(bare);
  g_free(path);
  g_free(dir);
}

/* The persistent Jacobi loop's per-iteration times: the slope between two
 * run lengths has no launch in it; an older profile's one run (wall time
 * per iteration of pj_iters, 3 items an entry) has the round trip's share,
 * which the derivation takes off. Both forms give the same stencil class;
 * the 4-item entries come back from the profile with their fixed cost. */
/* The stencil class's knee (calib.h): persistent Jacobi points at 512^2
 * (2 MiB: L2 on synth_caches' 4 MiB), 2 CUs at k = 1, 2, 4 WGs a CU, so
 * 1024 tiles over 2k WGs, each WG's share full: 1024 x 16 x 16 x 8 B x 8
 * = 16777216 bits an iteration. Their times follow S_3(4/k, 1) us:
 * (64 + 1)^(1/3) = 4.0207, (8 + 1)^(1/3) = 2.0801, (1 + 1)^(1/3) = 1.2599
 * us. Three k, three unknowns: the fit finds p = 3 and the class's law
 * then gives each point's rate to within the percentages' rounding (the
 * asymptote 16.78 Tbps is 52 % of synth's 32 Tbps L2, +-1 %). Without
 * the third k the fit keeps the sum (p = 1), the line in 1/k through the
 * first two: 3.8812 / k + 0.1395 us, at k = 4 1.1098 us against 1.2599,
 * its rate 13.5 % over. */
static void test_persistent_knee(void) {
  struct calib_meas m;
  synth_caches(&m);
  m.pj_iters = 5, m.pj_iters_long = 50;
  static const int64_t k[] = {1, 2, 4};
  double t[3];
  for (int i = 0; i < 3; i++) {
    t[i] = cbrt(pow(4.0 / (double)k[i], 3) + 1) * 1e-6;
    m.pj_grid[i] = 512, m.pj_k[i] = k[i];
    m.pj_iter_s[i] = t[i];
    m.pj_fixed_s[i] = 60e-6;
  }
  m.n_pj = 3;
  struct calib_hw hw;
  struct calib_fit fit;
  char *err = NULL;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_DOUBLE_EQUAL(hw.gpu.l2knee[KC_STENCIL], 3.0, 1e-9);
  CU_ASSERT_EQUAL(hw.gpu.l2eff[KC_STENCIL], 52);
  double worst1 = 0;
  for (int i = 0; i < 3; i++) {
    double bps = 16777216 / t[i];
    double got = gpu_achieved_bps(&hw.gpu, (uint64_t)(2 * k[i]), GPU_L2, KC_STENCIL, 0);
    CU_ASSERT_DOUBLE_EQUAL(got / bps, 1, 0.015);
  }
  /* A sharp knee at these rates: p = 14 from S_14(4/k, 1) us (y^p of
   * 1/bps, about 6e-14, to the 14th is 1e-182, its weight y^-2p beyond the
   * largest double: the fit scales y first). */
  struct calib_meas m14 = m;
  for (int i = 0; i < 3; i++) m14.pj_iter_s[i] = pow(pow(4.0 / (double)k[i], 14) + 1, 1.0 / 14) * 1e-6;
  struct calib_hw h14;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m14, &h14, &fit, &err));
  CU_ASSERT_DOUBLE_EQUAL(h14.gpu.l2knee[KC_STENCIL], 14.0, 1e-9);
  struct calib_meas m1 = m;
  m1.n_pj = 2; /* k = 1, 2 */
  struct calib_hw sum;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m1, &sum, &fit, &err));
  CU_ASSERT_DOUBLE_EQUAL(sum.gpu.l2knee[KC_STENCIL] > 1 ? sum.gpu.l2knee[KC_STENCIL] : 1, 1, 1e-9);
  for (int i = 0; i < 3; i++) {
    double bps = 16777216 / t[i];
    double got = gpu_achieved_bps(&sum.gpu, (uint64_t)(2 * k[i]), GPU_L2, KC_STENCIL, 0);
    worst1 = fmax(worst1, fabs(got / bps - 1));
  }
  CU_ASSERT_TRUE(worst1 > 0.03);
  /* Measured alone and faster than the loop, the tiles are the points:
   * the loop 1 us slower at each k (what it pays beyond its parts; no
   * barrier table here) moves nothing, and their five-item entries come
   * back from the profile to the ps. */
  struct calib_meas mt = m;
  for (int i = 0; i < 3; i++) {
    mt.pj_tiles_s[i] = t[i];
    mt.pj_iter_s[i] = t[i] + 1e-6;
  }
  struct calib_hw ht;
  CU_ASSERT_TRUE_FATAL(calib_derive(&mt, &ht, &fit, &err));
  CU_ASSERT_DOUBLE_EQUAL(ht.gpu.l2knee[KC_STENCIL], 3.0, 1e-9);
  CU_ASSERT_EQUAL(ht.gpu.l2eff[KC_STENCIL], hw.gpu.l2eff[KC_STENCIL]);
  CU_ASSERT_EQUAL(ht.gpu.l2lat[KC_STENCIL], hw.gpu.l2lat[KC_STENCIL]);
  /* Both bound the loop's tiles from above: where the racing tiles alone
   * are the slower (1 us more here), the loop's own time is the point. */
  struct calib_meas mr = m;
  for (int i = 0; i < 3; i++) mr.pj_tiles_s[i] = t[i] + 1e-6;
  struct calib_hw hr;
  CU_ASSERT_TRUE_FATAL(calib_derive(&mr, &hr, &fit, &err));
  CU_ASSERT_DOUBLE_EQUAL(hr.gpu.l2knee[KC_STENCIL], 3.0, 1e-9);
  CU_ASSERT_EQUAL(hr.gpu.l2eff[KC_STENCIL], hw.gpu.l2eff[KC_STENCIL]);
  char *path = tu_temp_file(".yaml", "", 0);
  CU_ASSERT_TRUE_FATAL(calib_write_profile(path, &mt, &fit, &ht, &err));
  struct calib_meas back;
  CU_ASSERT_TRUE_FATAL(calib_read_meas(path, &back, &err));
  CU_ASSERT_EQUAL_FATAL(back.n_pj, 3);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_DOUBLE_EQUAL(back.pj_tiles_s[i], t[i], 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(back.pj_iter_s[i], t[i] + 1e-6, 1e-12);
  }
  /* The knee as the profile keeps it, read by the scenario path. */
  struct calib_hw prof;
  CU_ASSERT_TRUE_FATAL(calib_read_profile(path, &prof, &err));
  CU_ASSERT_DOUBLE_EQUAL(prof.gpu.l2knee[KC_STENCIL], 3.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(prof.gpu.knee[KC_STREAM], 1.0, 1e-9);
  /* A stencil kernel launched per phase: fitted to the tiles alone only.
   * Without them none (eff 0: it runs as the stencil class); with tiles
   * alone faster than the loop, the stencil's own values; with racing
   * tiles at half the loop's rate at every k (2 S_3(4/k, 1) us), the
   * same knee, half the L2 share and twice its latency, while the
   * stencil class keeps the loop's. No point at memory: its values there
   * are the stencil's. */
  CU_ASSERT_EQUAL(hw.gpu.eff[KC_STENCIL_LAUNCHED], 0);
  CU_ASSERT_EQUAL(prof.gpu.l2eff[KC_STENCIL_LAUNCHED], ht.gpu.l2eff[KC_STENCIL]);
  CU_ASSERT_DOUBLE_EQUAL(prof.gpu.l2knee[KC_STENCIL_LAUNCHED], 3.0, 1e-9);
  CU_ASSERT_EQUAL(prof.gpu.eff[KC_STENCIL_LAUNCHED], ht.gpu.eff[KC_STENCIL]);
  struct calib_meas mh = m;
  for (int i = 0; i < 3; i++) mh.pj_tiles_s[i] = 2 * t[i];
  struct calib_hw hh;
  CU_ASSERT_TRUE_FATAL(calib_derive(&mh, &hh, &fit, &err));
  CU_ASSERT_EQUAL(hh.gpu.l2eff[KC_STENCIL], hw.gpu.l2eff[KC_STENCIL]);
  CU_ASSERT_DOUBLE_EQUAL(hh.gpu.l2knee[KC_STENCIL_LAUNCHED], 3.0, 1e-9);
  CU_ASSERT_EQUAL(hh.gpu.l2eff[KC_STENCIL_LAUNCHED], 26);
  CU_ASSERT(llabs(hh.gpu.l2lat[KC_STENCIL_LAUNCHED] - 2 * hw.gpu.l2lat[KC_STENCIL]) <= 1);
  CU_ASSERT_EQUAL(hh.gpu.eff[KC_STENCIL_LAUNCHED], hh.gpu.eff[KC_STENCIL]);
  g_free(path);
  g_free(err);
}

static void test_persistent_two_lengths(void) {
  /* 3 us an iteration over 50 (150 us) and 2.1 us over 500 (1050 us):
   * 900 us for 450 more, 2 us each; 150 - 100 = 50 us once. */
  double slope, fixed;
  calib_two_lengths(3e-6, 50, 2.1e-6, 500, &slope, &fixed);
  CU_ASSERT_DOUBLE_EQUAL(slope, 2e-6, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(fixed, 50e-6, 1e-14);
  struct calib_meas m;
  synth_caches(&m);
  m.pj_iters = 5, m.pj_iters_long = 50;
  static const int64_t grid[] = {512, 512, 512, 1024, 1024, 1024};
  static const int64_t k[] = {1, 2, 4, 1, 2, 4};
  /* 2 MB (L2: synth's 4 MiB) and 8 MB (memory): per iteration a / k + b. */
  static const double t[] = {40e-6, 24e-6, 16e-6, 160e-6, 96e-6, 64e-6};
  for (int i = 0; i < 6; i++) {
    m.pj_grid[i] = grid[i], m.pj_k[i] = k[i];
    m.pj_iter_s[i] = t[i];
    m.pj_fixed_s[i] = 60e-6;
  }
  m.n_pj = 6;
  struct calib_hw hw, old, again;
  struct calib_fit fit;
  char *err = NULL;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_NOT_EQUAL(hw.gpu.l2lat[KC_STENCIL], 0);
  /* The fixed cost beyond the model's (the same scenarios each time): 5
   * us more measured is 5 us more persistent_teardown, to the ps; an
   * older profile (one length) has none. */
  sim_time td = hw.gpu.persistent_teardown;
  CU_ASSERT_TRUE(td > 0);
  for (int i = 0; i < 6; i++) m.pj_fixed_s[i] += 5e-6;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_EQUAL(hw.gpu.persistent_teardown - td, 5 * US);
  for (int i = 0; i < 6; i++) m.pj_fixed_s[i] -= 5e-6;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_NOT_EQUAL(hw.gpu.lat[KC_STENCIL], 0);
  /* The older form: each time is the wall time of 5 per iteration, the
   * round trip (20 us) spread over them: 4 us more each. */
  struct calib_meas m1 = m;
  m1.pj_iters_long = 0;
  for (int i = 0; i < 6; i++) m1.pj_iter_s[i] = t[i] + 20e-6 / 5;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m1, &old, &fit, &err));
  CU_ASSERT_EQUAL(old.gpu.persistent_teardown, 0);
  CU_ASSERT_EQUAL(old.gpu.l2lat[KC_STENCIL], hw.gpu.l2lat[KC_STENCIL]);
  CU_ASSERT_EQUAL(old.gpu.l2eff[KC_STENCIL], hw.gpu.l2eff[KC_STENCIL]);
  CU_ASSERT_EQUAL(old.gpu.lat[KC_STENCIL], hw.gpu.lat[KC_STENCIL]);
  CU_ASSERT_EQUAL(old.gpu.eff[KC_STENCIL], hw.gpu.eff[KC_STENCIL]);
  /* Read as the slope, the older times would be slower: the share is
   * what tells them apart. */
  m1.pj_iters_long = 50;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m1, &old, &fit, &err));
  CU_ASSERT_NOT_EQUAL(old.gpu.l2eff[KC_STENCIL], hw.gpu.l2eff[KC_STENCIL]);
  /* Written and read back: both lengths, the slopes and the fixed costs. */
  char *path = tu_temp_file(".yaml", "", 0);
  CU_ASSERT_TRUE_FATAL(calib_write_profile(path, &m, &fit, &hw, &err));
  struct calib_meas back;
  CU_ASSERT_TRUE_FATAL(calib_read_meas(path, &back, &err));
  CU_ASSERT_EQUAL(back.pj_iters, 5);
  CU_ASSERT_EQUAL(back.pj_iters_long, 50);
  CU_ASSERT_EQUAL(back.n_pj, 6);
  CU_ASSERT_EQUAL(back.pj_grid[3], 1024);
  CU_ASSERT_EQUAL(back.pj_k[5], 4);
  CU_ASSERT_DOUBLE_EQUAL(back.pj_iter_s[5], 64e-6, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(back.pj_fixed_s[5], 60e-6, 1e-12);
  CU_ASSERT_TRUE_FATAL(calib_derive(&back, &again, &fit, &err));
  CU_ASSERT_EQUAL(again.gpu.lat[KC_STENCIL], hw.gpu.lat[KC_STENCIL]);
  /* An older profile's one length is written as it was read (3 items),
   * so that calibrate --from keeps its points. */
  m1.pj_iters_long = 0;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m1, &old, &fit, &err));
  CU_ASSERT_TRUE_FATAL(calib_write_profile(path, &m1, &fit, &old, &err));
  CU_ASSERT_TRUE_FATAL(calib_read_meas(path, &back, &err));
  CU_ASSERT_EQUAL(back.pj_iters_long, 0);
  CU_ASSERT_EQUAL(back.n_pj, 6);
  CU_ASSERT_DOUBLE_EQUAL(back.pj_iter_s[0], 40e-6 + 20e-6 / 5, 1e-12);
  g_free(path);
}

/* A persistent step's L1 from the persistent Jacobi loop at 1 WG per CU
 * (calib.c, persist_residency), on synth's 2 CUs with L2 4 MiB: the
 * model's work is proportional to n^2, so per iteration n^2 x 50 ps is a
 * rate twice that of n^2 x 100 ps. Grids 256 and 320 fast, 384 and 512
 * slow: the largest fast set is 320^2's two arrays, 819200 B, over 2 CUs
 * 409600 B. 320 slow and 384 fast: below the first slow grid only 256^2,
 * 524288 B: 262144 B. The smallest grid no faster than the largest within
 * L2 (1.3x): no residency. */
static void test_persistent_residency(void) {
  struct calib_meas m;
  synth_caches(&m);
  m.pj_iters = 5, m.pj_iters_long = 50;
  static const int64_t grid[] = {256, 320, 384, 512};
  double fast[] = {50e-12, 50e-12, 100e-12, 100e-12};
  m.n_pj = 4;
  for (int i = 0; i < 4; i++) m.pj_grid[i] = grid[i], m.pj_k[i] = 1;
  struct calib_hw hw;
  struct calib_fit fit;
  char *err = NULL;
  for (int i = 0; i < 4; i++) m.pj_iter_s[i] = (double)(grid[i] * grid[i]) * fast[i];
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_EQUAL(hw.gpu.l1_resident_bytes, 409600);
  fast[1] = 100e-12, fast[2] = 50e-12;
  for (int i = 0; i < 4; i++) m.pj_iter_s[i] = (double)(grid[i] * grid[i]) * fast[i];
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_EQUAL(hw.gpu.l1_resident_bytes, 262144);
  for (int i = 0; i < 4; i++) m.pj_iter_s[i] = (double)(grid[i] * grid[i]) * 100e-12;
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_EQUAL(hw.gpu.l1_resident_bytes, 0);
}

static void test_profile_round_trip(void) {
  struct calib_meas m;
  struct calib_hw hw, back;
  struct calib_fit fit;
  char *err = NULL;
  synth(&m);
  /* The enqueue against its buffers (0, 1, 3: 1, 1.25, 2 us), as
   * calibrate measures it: cpu.buffer_table 0, 250 ns, 1 us. */
  m.n_argk = 3;
  m.argk[0] = 0, m.argk[1] = 1, m.argk[2] = 3;
  m.argk_enq_s[0] = 1e-6, m.argk_enq_s[1] = 1.25e-6, m.argk_enq_s[2] = 2e-6;
  /* Wake gaps p01 1 us, median 2.366 us: J = 1.366 us / 0.6830968 =
   * 1999.716 ns. */
  m.wake_n = 500, m.wake_p01_s = 1e-6, m.wake_p50_s = 2.366e-6, m.wake_mean_s = 3e-6;
  m.submit_end.median_s = 1.3e-6; /* the enqueue again at the end: recorded, read back */
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  CU_ASSERT_TRUE(llabs(hw.cpu.wake_jitter - 1999716) <= 1);
  char *dir = g_dir_make_tmp("calib-XXXXXX", NULL);
  char *path = g_build_filename(dir, "p.yaml", NULL);
  CU_ASSERT_TRUE_FATAL(calib_write_profile(path, &m, &fit, &hw, &err));
  char *tmp = g_strdup_printf("%s.tmp", path);
  CU_ASSERT_FALSE(g_file_test(tmp, G_FILE_TEST_EXISTS)); /* renamed into place */
  CU_ASSERT_TRUE_FATAL(calib_read_profile(path, &back, &err));
  CU_ASSERT_EQUAL(memcmp(&back.gpu, &hw.gpu, sizeof hw.gpu), 0);
  CU_ASSERT_EQUAL(back.cpu.launch_submit, hw.cpu.launch_submit);
  CU_ASSERT_EQUAL(back.cpu.buffer_table.n, 3);
  CU_ASSERT_EQUAL(back.cpu.buffer_table.x[2], 3);
  CU_ASSERT_EQUAL(back.cpu.buffer_table.y[1], 250000);
  CU_ASSERT_EQUAL(back.cpu.buffer_table.y[2], 1000000);
  CU_ASSERT_EQUAL(back.cpu.launch_per_buffer, hw.cpu.launch_per_buffer);
  CU_ASSERT_EQUAL(back.cpu.wake_jitter, hw.cpu.wake_jitter);
  /* The gaps themselves come back with the measurements. */
  struct calib_meas mb;
  CU_ASSERT_TRUE_FATAL(calib_read_meas(path, &mb, &err));
  CU_ASSERT_EQUAL(mb.wake_n, 500);
  CU_ASSERT_DOUBLE_EQUAL(mb.submit_end.median_s, 1.3e-6, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(mb.wake_p01_s, 1e-6, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(mb.wake_p50_s, 2.366e-6, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(mb.wake_mean_s, 3e-6, 1e-12);
  CU_ASSERT_EQUAL(back.cpu.switch_mode, hw.cpu.switch_mode);
  CU_ASSERT_EQUAL(back.cpu.switch_poll_interval, 0);
  CU_ASSERT_EQUAL(memcmp(&back.bus, &hw.bus, sizeof hw.bus), 0);
  char *text = NULL;
  g_file_get_contents(path, &text, NULL, NULL);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "device: \"synthetic \\\"dev\\\"\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "date: \"2026-01-01T00:00:00Z\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "repetitions: 7"));
  g_free(text);
  /* A bad profile: file:line:col and key. */
  char *bad = g_build_filename(dir, "bad.yaml", NULL);
  g_file_set_contents(bad, "hardware:\n  gpu:\n    cus: many\n", -1, NULL);
  CU_ASSERT_FALSE(calib_read_profile(bad, &back, &err));
  char *want = g_strdup_printf("%s:3:10: hardware.gpu.cus: expected", bad);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, want));
  g_free(want);
  g_free(err);
  g_unlink(bad);
  g_unlink(path);
  g_rmdir(dir);
  g_free(bad);
  g_free(tmp);
  g_free(path);
  g_free(dir);
}

/* The Jacobi loop through the scenario path (calib_case_predict: the
 * profile, kloop under hdn and gds, as `trigsim run` runs it), compute a
 * fixed 5 us kernel (workload.compute_time):
 * - sync: submit 1 + bus 2 + launch 13 + 5 + teardown 2 + bus 2 = 25 us
 *   an iteration; each launch takes 2 buffers, 0.5 us each with
 *   cpu.launch_per_buffer 500ns: 26 us. With cpu.buffer_table
 *   "0:0ps, 1:300ns, 3:2us" 2 buffers lie between 1 and 3: 300 + (2000 -
 *   300) / 2 = 1150 ns, 26.15 us; with "0:0ps, 1:300ns" and
 *   launch_per_buffer 500ns the second is past the table: 300 + 500 =
 *   800 ns, 25.8 us.
 * - async (gds: one stream, one wait at the end), 4 kernels: launches at
 *   1, 2, 3, 4 us reach the GPU at 3, 4, 5, 6 us at depths 1, 2, 3, 4:
 *   launch 13, 3, 2.5 (between 3 and 2), 2 us. One at a time, each + 5 +
 *   2: k1 3..23, k2 23..33, k3 33..42.5, k4 42.5..51.5; its record crosses
 *   the bus: 53.5 us / 4 = 13.375 us. */
static void test_predict_loop(void) {
  struct calib_meas m;
  struct calib_hw hw;
  struct calib_fit fit;
  char *err = NULL;
  synth(&m);
  CU_ASSERT_TRUE_FATAL(calib_derive(&m, &hw, &fit, &err));
  char *dir = g_dir_make_tmp("calib-XXXXXX", NULL);
  char *path = g_build_filename(dir, "p.yaml", NULL);
  CU_ASSERT_TRUE_FATAL(calib_write_profile(path, &m, &fit, &hw, &err));
  const char *const five[] = {"workload.compute_time=5us", NULL};
  const char *const buf[] = {"workload.compute_time=5us", "hardware.cpu.launch_per_buffer=500ns",
                             NULL};
  struct calib_case sync = {.kind = CASE_SYNC, .size = 64, .iters = 3};
  struct calib_case async = {.kind = CASE_ASYNC, .size = 64, .iters = 4};
  int64_t ps = 0;
  CU_ASSERT_TRUE(calib_case_predict(path, &sync, five, &ps, &err));
  CU_ASSERT_EQUAL(ps, 25 * US);
  CU_ASSERT_TRUE(calib_case_predict(path, &sync, buf, &ps, &err));
  CU_ASSERT_EQUAL(ps, 26 * US);
  const char *const tab[] = {"workload.compute_time=5us",
                             "hardware.cpu.buffer_table=0:0ps, 1:300ns, 3:2us", NULL};
  CU_ASSERT_TRUE(calib_case_predict(path, &sync, tab, &ps, &err));
  CU_ASSERT_EQUAL(ps, 26150000);
  const char *const past[] = {"workload.compute_time=5us", "hardware.cpu.buffer_table=0:0ps, 1:300ns",
                              "hardware.cpu.launch_per_buffer=500ns", NULL};
  CU_ASSERT_TRUE(calib_case_predict(path, &sync, past, &ps, &err));
  CU_ASSERT_EQUAL(ps, 25800000);
  CU_ASSERT_TRUE(calib_case_predict(path, &async, five, &ps, &err));
  CU_ASSERT_EQUAL(ps, 13375000);
  /* Roofline: grid 64 = 8 waves of 2048 B * 8 * 2 slots / 1e11 bits/s =
   * 0.32768us each: 2.62144us; the flops do not bind. Sync: 20 +
   * 2.62144 = 22.62144us. */
  CU_ASSERT_TRUE(calib_case_predict(path, &sync, NULL, &ps, &err));
  CU_ASSERT_TRUE(llabs(ps - 22621440) <= 8);
  /* A persistent run pays gpu.persistent_teardown once, at its end: 10
   * iterations with 3 us of it are 300 ns an iteration slower, to the ps;
   * a discrete (sync) loop's kernels are not persistent: unmoved. */
  struct calib_case pers = {.kind = CASE_PERSIST, .size = 64, .k = 1, .iters = 10};
  const char *const td[] = {"workload.compute_time=5us", "hardware.gpu.persistent_teardown=3us",
                            NULL};
  int64_t without = 0;
  CU_ASSERT_TRUE(calib_case_predict(path, &pers, five, &without, &err));
  CU_ASSERT_TRUE(calib_case_predict(path, &pers, td, &ps, &err));
  CU_ASSERT_EQUAL(ps - without, 300000);
  CU_ASSERT_TRUE(calib_case_predict(path, &sync, td, &ps, &err));
  CU_ASSERT_EQUAL(ps, 25 * US);
  /* The case is the scenario `run` sees: its sets name the workload and
   * the policy. */
  char **sets = calib_case_sets(&async, NULL);
  CU_ASSERT_STRING_EQUAL(sets[0], "hardware.network.nodes=1");
  CU_ASSERT_PTR_NOT_NULL(strstr(sets[1], "kind: kloop, grid: 64, iterations: 4, sync: false"));
  CU_ASSERT_STRING_EQUAL(sets[2], "policies=[gds]");
  g_strfreev(sets);
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

/* The signal path from its parameters (the signal workload, through the
 * scenario path): bus 2 us, fence 0.5 us, the WG polls at no interval.
 * store: submit 1 + bus 2 + launch 13 + fence 0.5 + bus 2 = 18.5 us.
 * pingpong: the host's store crosses the bus (2), the waiting WG goes on
 * at once, fences (0.5) and stores back across the bus (2): 4.5 us a
 * round trip. With a poll interval of 3 us: the WG's wait begins where its
 * store's fence ends, x; the host sees the store at x + 2 and its answer
 * reaches the GPU at x + 4; the WG's ticks are x + 3k: it goes on at x +
 * 6 and fences to x + 6.5: 6.5 us a round. */
static void test_signal_path(void) {
  const char *text = "hardware:\n"
                     "  cpu: {launch_submit: 1us, switch_poll_interval: 0ps}\n"
                     "  bus: {latency: 2us, control_bytes: 0B}\n"
                     "  gpu: {launch_latency: 13us, teardown_latency: 2us, fence_latency: 500ns, "
                     "poll_interval: 0ps}\n";
  char *p = tu_temp_file(".yaml", text, strlen(text));
  struct calib_case store = {.kind = CASE_STORE, .size = 1, .iters = 1};
  struct calib_case pp = {.kind = CASE_PINGPONG, .size = 10, .iters = 10};
  int64_t ps = 0;
  char *err = NULL;
  CU_ASSERT_TRUE(calib_case_predict(p, &store, NULL, &ps, &err));
  CU_ASSERT_EQUAL(ps, 18500 * NS);
  CU_ASSERT_TRUE(calib_case_predict(p, &pp, NULL, &ps, &err));
  CU_ASSERT_EQUAL(ps, 4500 * NS);
  const char *const poll[] = {"hardware.gpu.poll_interval=3us", NULL};
  CU_ASSERT_TRUE(calib_case_predict(p, &pp, poll, &ps, &err));
  CU_ASSERT_EQUAL(ps, 6500 * NS);
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  g_free(p);
}

/* validate-real --measured on the committed H200 profile and the saved
 * table SAVED, the sync case at 64^2 only (ITERS: its -i, or NULL): the
 * exit status, stdout and stderr. */
static int measured_run(const char *saved, const char *iters, char **out, char **err) {
  const char *configs = g_getenv("TRIGSIM_CONFIGS");
  g_assert(configs);
  char *profile = g_build_filename(configs, "hw", "h200-opencl.yaml", NULL);
  const char *argv[] = {"validate-real", profile, "--measured", saved, "-g", "64", "--cg", "0",
                        "--no-persistent", iters ? "-i" : NULL, iters, NULL};
  *out = *err = NULL;
  int rc = tu_trigsim(argv, out, err);
  g_free(profile);
  return rc;
}

/* validate-real --measured predicts what the saved table measured: its
 * header's iteration count unless --iters is given, and a different
 * --iters is refused (exit 2), since a loop's time per iteration depends
 * on how many iterations share its launch and final wait. */
static void test_measured_iterations(void) {
  const char *table = "# validate-real: dev; profile p.yaml; 1000 iterations, median of 5 runs\n"
                      "case       grid  measured/iter predicted/iter    error  spread\n"
                      "sync         64        10.00us        10.00us    +0.0%    1.0%\n";
  char *saved = tu_temp_file(".txt", table, strlen(table));
  char *out, *err;
  CU_ASSERT_EQUAL(measured_run(saved, NULL, &out, &err), 0);
  CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "; 1000 iterations, median of 5 runs"));
  g_free(out);
  g_free(err);
  CU_ASSERT_EQUAL(measured_run(saved, "100", &out, &err), 2);
  char *want = g_strdup_printf("--iters: expected the 1000 iterations %s measured (its header), "
                               "got 100", saved);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, want));
  g_free(want);
  g_free(out);
  g_free(err);
  g_remove(saved);
  g_free(saved);
}

/* validate-real --measured prints the saved table's device notes where
 * the device printed them: the host's state before the case it preceded,
 * a case's own note after it; its header and summary are its own. */
static void test_measured_notes(void) {
  const char *table = "# validate-real: dev; profile p.yaml; 100 iterations, median of 5 runs\n"
                      "# each case is the scenario `trigsim run p.yaml ...`\n"
                      "case       grid  measured/iter predicted/iter    error  spread\n"
                      "# host now: empty round trip 9.00us, enqueue 4.00us\n"
                      "sync         64        10.00us        10.00us    +0.0%    1.0%\n"
                      "# sync 64: a note of its own\n"
                      "# |error|: median 0.0%, worst 0.0%\n";
  char *saved = tu_temp_file(".txt", table, strlen(table));
  char *out, *err;
  CU_ASSERT_EQUAL(measured_run(saved, NULL, &out, &err), 0);
  const char *host = out ? strstr(out, "# host now: empty round trip 9.00us, enqueue 4.00us\nsync  ")
                         : NULL;
  CU_ASSERT_PTR_NOT_NULL(host);
  const char *own = host ? strstr(host, "%\n# sync 64: a note of its own\n") : NULL;
  CU_ASSERT_PTR_NOT_NULL(own);
  /* the saved header and summary are not repeated */
  CU_ASSERT_PTR_NULL(out ? strstr(out, "profile p.yaml") : NULL);
  CU_ASSERT_PTR_NULL(out ? strstr(out, "worst 0.0%\n") : NULL);
  g_free(out);
  g_free(err);
  g_remove(saved);
  g_free(saved);
}

/* The persistent loop's record on NVIDIA: WGs' SM ids, then WG 0's clock
 * ticks and timer nanoseconds as low and high words. */
static void test_place_summary(void) {
  int most = -1;
  double mhz = -1;
  /* 5 WGs, SM 7 three times; 1980000 ticks over 1000000 ns: 1980 MHz */
  const uint32_t even[] = {3, 7, 9, 11, 13, 1980000u, 0, 1000000u, 0};
  calib_place_summary(even, 5, &most, &mhz);
  CU_ASSERT_EQUAL(most, 1);
  CU_ASSERT_DOUBLE_EQUAL(mhz, 1980.0, 1e-9);
  const uint32_t doubled[] = {3, 7, 7, 9, 7, 0, 0, 0, 0};
  calib_place_summary(doubled, 5, &most, &mhz);
  CU_ASSERT_EQUAL(most, 3);
  CU_ASSERT_EQUAL(mhz, 0); /* the timer did not move: no clock */
  /* SM 0 counts (no NULL key); the high words: 2^32 + 2^31 ticks over
   * 2^32 ns (4.29 s at 1500 MHz) */
  const uint32_t high[] = {0, 0, 1u << 31, 1, 0, 1};
  calib_place_summary(high, 2, &most, &mhz);
  CU_ASSERT_EQUAL(most, 2);
  CU_ASSERT_DOUBLE_EQUAL(mhz, 1500.0, 1e-9);
}

/* validate-real's ranges: the lowest and highest of what was added,
 * negatives and zero among them. */
static void test_range(void) {
  struct calib_range r = {0};
  calib_range_add(&r, 3);
  CU_ASSERT_EQUAL(r.n, 1);
  CU_ASSERT_EQUAL(r.lo, 3);
  CU_ASSERT_EQUAL(r.hi, 3);
  calib_range_add(&r, -1);
  calib_range_add(&r, 0);
  CU_ASSERT_EQUAL(r.n, 3);
  CU_ASSERT_EQUAL(r.lo, -1);
  CU_ASSERT_EQUAL(r.hi, 3);
}

/* calibrate's host-paced passes: each value the median over the passes, a
 * statistic's median and spread each apart; what no pass measures apart
 * (the streaming sweep) and the counts are the first pass's. Three passes
 * of a host in its fast (4.1 us), slow (5.4) and fast (4.2) state: 4.2 us,
 * whichever pass was slow. */
static void test_host_passes(void) {
  struct calib_meas p[3];
  memset(p, 0, sizeof p);
  const double enq[3] = {4.1e-6, 5.4e-6, 4.2e-6}, spread[3] = {0.3, 0.1, 0.2};
  for (int i = 0; i < 3; i++) {
    p[i].submit = (struct calib_stat){enq[i], spread[i]};
    p[i].n_argk = 2;
    p[i].argk_enq_s[0] = enq[(i + 1) % 3];    /* 5.4, 4.2, 4.1: 4.2 */
    p[i].argk_enq_s[1] = enq[i] + 1e-6;       /* 5.1, 6.4, 5.2: 5.2 */
    p[i].argk_enq_s[2] = (i + 1) * 1e-6;      /* beyond n_argk: pass 0's */
    p[i].n_grids = 1;
    p[i].grid_b2b_s[0] = enq[2 - i];          /* 4.2, 5.4, 4.1: 4.2 */
    p[i].wake_p50_s = (10 - i) * 1e-6;        /* 10, 9, 8: 9 */
    p[i].k_bps[0] = 1e12 * (i + 1);           /* not host-paced: pass 0's */
  }
  struct calib_meas m;
  calib_meas_host_median(p, 3, &m);
  CU_ASSERT_DOUBLE_EQUAL(m.submit.median_s, 4.2e-6, 1e-18);
  CU_ASSERT_DOUBLE_EQUAL(m.submit.spread, 0.2, 1e-15);
  CU_ASSERT_DOUBLE_EQUAL(m.argk_enq_s[0], 4.2e-6, 1e-18);
  CU_ASSERT_DOUBLE_EQUAL(m.argk_enq_s[1], 5.2e-6, 1e-18);
  CU_ASSERT_DOUBLE_EQUAL(m.argk_enq_s[2], 1e-6, 1e-18);
  CU_ASSERT_DOUBLE_EQUAL(m.grid_b2b_s[0], 4.2e-6, 1e-18);
  CU_ASSERT_DOUBLE_EQUAL(m.wake_p50_s, 9e-6, 1e-18);
  CU_ASSERT_DOUBLE_EQUAL(m.k_bps[0], 1e12, 1);
  CU_ASSERT_EQUAL(m.n_argk, 2);
  /* the passes are left as they were (the median sorts copies) */
  CU_ASSERT_DOUBLE_EQUAL(p[1].submit.median_s, 5.4e-6, 1e-18);
  /* validate-real runs in passes the cases that launch or wait each
   * iteration, and the others (one launch a run) as before */
  const enum calib_case_kind paced[] = {CASE_SYNC, CASE_ASYNC, CASE_CG},
                             whole[] = {CASE_PERSIST, CASE_STORE, CASE_PINGPONG};
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_TRUE(calib_case_host_paced(&(struct calib_case){.kind = paced[i]}));
    CU_ASSERT_FALSE(calib_case_host_paced(&(struct calib_case){.kind = whole[i]}));
  }
}

/* The persistent loop as the model composes it, and back: B from a table
 * 1 us at 1 WG, 2 us at 100 (linear between: B(50) = 1 + 49 / 99 us). */
static void test_persist_compose(void) {
  struct gpu_config g = {0};
  g.barrier_table = (struct par_table){.n = 2, .x = {1, 100}, .y = {1 * US, 2 * US}};
  const double us = 1e-6, b50 = (1 + 49.0 / 99) * us, b10 = (1 + 9.0 / 99) * us;
  /* 250 tiles over 100 WGs, 1 us each: 50 WGs 3 deep arrive last and pay
   * B(50); the other 50, 2 deep, are due 2 + B(100) = 4 us */
  CU_ASSERT_DOUBLE_EQUAL(calib_persist_iter(&g, 250, 100, us), 3 * us + b50, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(calib_persist_tile(&g, 250, 100, 3 * us + b50), us, 1e-12);
  /* 101 tiles, 0.1 us each: the 99 one-deep WGs' 0.1 + B(100) = 2.1 us
   * is later than the last WG's 0.2 + B(1) = 1.2 */
  CU_ASSERT_DOUBLE_EQUAL(calib_persist_iter(&g, 101, 100, 0.1 * us), 2.1 * us, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(calib_persist_tile(&g, 101, 100, 2.1 * us), 0.1 * us, 1e-12);
  /* 10 tiles: 90 WGs idle, due at B(100) = 2 us; a 0.5 us tile hides
   * behind them (its WGs due 0.5 + B(10)), and an iteration of 2 us says
   * nothing of the tile: 0; a 2 us tile sets it: 2 + B(10) */
  CU_ASSERT_DOUBLE_EQUAL(calib_persist_iter(&g, 10, 100, 0.5 * us), 2 * us, 1e-12);
  CU_ASSERT_EQUAL(calib_persist_tile(&g, 10, 100, 2 * us), 0);
  CU_ASSERT_DOUBLE_EQUAL(calib_persist_iter(&g, 10, 100, 2 * us), 2 * us + b10, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(calib_persist_tile(&g, 10, 100, 2 * us + b10), 2 * us, 1e-12);
}

static void test_cli_errors(void) {
  char *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"calibrate", NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected --out FILE"));
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate-real", NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected one PROFILE file"));
  g_free(err);
  char *bad = tu_temp_file(".yaml", "hardware:\n  cpu:\n    launch_submit: soon\n", 41);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate-real", bad, NULL}, NULL, &err), 2);
  char *want = g_strdup_printf("%s:3:20: hardware.cpu.launch_submit: expected", bad);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
  g_free(want);
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate-real", "--grids", "64,x", bad, NULL}, NULL,
                             &err),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "--grids: expected"));
  g_free(err);
  g_free(bad);
}

/* A level whose persistent points fit no a/k + b is said on stderr: an
 * H200 calibration's two L1 points (the 512^2 loop at 1 WG a CU in its
 * slow state, 2.4x slower than at 2; tests/data/calib/h200-l1-slow.yaml) grow
 * faster than the WGs. */
static void test_stencil_fit_note(void) {
  const char *data = g_getenv("TRIGSIM_DATA");
  CU_ASSERT_PTR_NOT_NULL_FATAL(data);
  char *p = g_build_filename(data, "calib", "h200-l1-slow.yaml", NULL);
  char *out = tu_temp_file(".yaml", "", 0), *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"calibrate", "--from", p, "--out", out, NULL}, NULL,
                             &err),
                  0);
  CU_ASSERT_TRUE(err && strstr(err, "points at L1 (1 WG(s) a CU") != NULL);
  CU_ASSERT_PTR_NULL(err ? strstr(err, "points at L2") : NULL); /* L2's fit */
  g_free(err);
  g_unlink(out);
  g_free(out);
  g_free(p);
}

/* The committed profiles are includable by a scenario, and binding them is
 * deterministic (their provenance is ignored). */
static void test_committed_profiles_bind(void) {
  const char *configs = g_getenv("TRIGSIM_CONFIGS");
  CU_ASSERT_PTR_NOT_NULL_FATAL(configs);
  const char *names[] = {"h100-opencl.yaml", "pocl-cpu.yaml"};
  for (size_t i = 0; i < G_N_ELEMENTS(names); i++) {
    char *p = g_build_filename(configs, "hw", names[i], NULL);
    struct calib_hw hw;
    char *err = NULL;
    CU_ASSERT_TRUE(calib_read_profile(p, &hw, &err));
    if (err) fprintf(stderr, "%s\n", err);
    g_free(err);
    g_free(p);
  }
}

/* Hardware in the loop: compute_time measured reads the cache beside the
 * scenario; with neither a cached entry nor a device it is an exit-2 error
 * at the key. Sync loop, exec 7us: compute = 7 - teardown 2 = 5us; each
 * iteration submit 1 + bus 2 + launch 13 + 5 + teardown 2 + bus 2 = 25us;
 * 3 iterations: 75us. */
static void test_measured_compute_cache(void) {
  char *dir = g_dir_make_tmp("kloop-XXXXXX", NULL);
  char *sc = g_build_filename(dir, "s.yaml", NULL);
  char *cache = g_build_filename(dir, "measured-cache.yaml", NULL);
  g_file_set_contents(sc,
                      "hardware:\n"
                      "  cpu: {launch_submit: 1us, switch_poll_interval: 0ps}\n"
                      "  bus: {latency: 2us, control_bytes: 0B}\n"
                      "  gpu: {launch_latency: 13us, teardown_latency: 2us}\n"
                      "workload: {kind: kloop, grid: 64, iterations: 3, compute_time: measured, "
                      "device: 1024}\n"
                      "policies: [hdn]\n",
                      -1, NULL);
  char *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, NULL}, &out, &err), 2);
  char *want = g_strdup_printf("%s:5:64: workload.compute_time: expected a cached measurement", sc);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
  CU_ASSERT_STRING_EQUAL(out, "");
  g_free(want);
  g_free(out);
  g_free(err);
  g_file_set_contents(cache, "measured:\n  jacobi-64:\n    exec: 7us\n", -1, NULL);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", "-c", "summary", NULL}, &out,
                             NULL), 0);
  /* kloop runs through the policy driver (hdn): the host waits for each
   * kernel's completion, so the policy ends when the host sees the last one,
   * the end of the run: policy_end_ps = total_time_ps. 27 engine events: per
   * synchronized iteration one per WG (1 here) and 8 of control (launch to
   * completion seen), 3 x (1 + 8). */
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "s,kloop,1,hdn,75000000,75000000,27,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, ",25000000,")); /* per_iteration */
  g_free(out);
  /* A fixed time needs no device: compute 5us directly, the same 75us. */
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", "--set",
                                              "workload.compute_time=5us", NULL},
                             &out, NULL),
                  0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, ",75000000,"));
  g_free(out);
  g_unlink(cache);
  g_unlink(sc);
  g_rmdir(dir);
  g_free(cache);
  g_free(sc);
  g_free(dir);
}

/* A scenario including the committed H100 profile runs deterministically
 * from it. Sync, grid 4096: 256^2 = 65536 WGs of 2048 B (16384 bits) on
 * 132 x 8 = 1056 slots: 62 full waves and a tail of 64. The stencil class
 * out of L2 (2 x 4096^2 x 4 B = 128 MiB > 48 MiB): latency 1.45 x
 * 172161 ps, asymptote 1.31 x 33756070575862 bps; a WG among R takes
 * 16384 R (lat / (R 8192) + 1 / asym) = 2 lat + 16384 R / asym:
 * R = 1056: 499266.9 + 391256.6 -> 890524 ps (890523 after the
 * double's rounding); R = 64: 499266.9 + 23712.5 -> 522980 ps; each wave
 * also pays wg_start 388641 ps: 62 x (890523 + 388641) + 522980 + 388641
 * = 80219789 ps. Plus the profile's round trip: launch_submit 3806312 +
 * bus 1337172 + launch 2674344 + teardown 0 + bus 1337172 = 9155000 ps
 * (the measured roundtrip): 89374789 ps per iteration. */
static void test_run_on_committed_profile(void) {
  const char *configs = g_getenv("TRIGSIM_CONFIGS");
  CU_ASSERT_PTR_NOT_NULL_FATAL(configs);
  char *hw = g_build_filename(configs, "hw", "h100-opencl.yaml", NULL);
  char *text = g_strdup_printf("include: %s\n"
                               "workload: {kind: kloop, grid: 4096, iterations: 2}\n"
                               "policies: [hdn]\n",
                               hw);
  char *sc = tu_temp_file(".yaml", text, strlen(text));
  char *a = NULL, *b = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", "-c", "summary", NULL}, &a, NULL), 0);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", "-c", "summary", NULL}, &b, NULL), 0);
  CU_ASSERT_STRING_EQUAL(a, b);
  /* Events: per iteration two per wave (its WGs' dispatch, wg_start > 0,
   * and their step: the WGs of a wave go on together, gpu.aggregate) of
   * the 63 (62 x 1056 + 64) and 8 of control, 2 x (2 x 63 + 8) = 268. The
   * policy's end (hdn: the host's notice of the last kernel) is the run's. */
  CU_ASSERT_PTR_NOT_NULL(strstr(a, ",hdn,178749578,178749578,268,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(a, ",89374789,")); /* per_iteration */
  g_free(a);
  g_free(b);
  g_free(sc);
  g_free(text);
  g_free(hw);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"median and spread", test_stat_median_spread},
      {"relative-error line fit", test_fit_relative},
      {"Jacobi work in the model", test_jacobi_work},
      {"parameters derived from measurements", test_derive},
      {"profile writer/reader round trip", test_profile_round_trip},
      {"persistent loop: slope of two run lengths, or an older profile's one run", test_persistent_two_lengths},
      {"persistent loop: the stencil class's knee exponent fitted", test_persistent_knee},
      {"persistent step's L1 from the persistent loop at 1 WG per CU", test_persistent_residency},
      {"occupancy, L2 and barrier sweeps: derived, written, read back", test_derive_kernels_round_trip},
      {"L1 residency rounds up to the set measured fast", test_derive_l1_resident_rounds_up},
      {"Jacobi loop through the scenario path, sync and async, buffers", test_predict_loop},
      {"signal path from its parameters (store, ping-pong)", test_signal_path},
      {"the persistent loop's SM placement and clock record", test_place_summary},
      {"a range of values, negatives among them", test_range},
      {"host-paced values: the median over calibrate's passes", test_host_passes},
      {"the persistent loop composed as the model does, and back", test_persist_compose},
      {"calibrate and validate-real input errors", test_cli_errors},
      {"validate-real --measured predicts the saved table's iterations", test_measured_iterations},
      {"validate-real --measured keeps the device's notes in place", test_measured_notes},
      {"committed profiles bind", test_committed_profiles_bind},
      {"a level whose persistent points fit no a/k + b is said", test_stencil_fit_note},
      {"measured compute time from the cache", test_measured_compute_cache},
      {"a run on the committed H100 profile", test_run_on_committed_profile},
      {NULL, NULL}};
  return tu_run_suite("calib", tests);
}
