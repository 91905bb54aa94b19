/* The relax model (models/relax.h): the memory's visibility rule, the
 * synchronous solver against a few lines of GSL, the asynchronous schedule
 * against Gauss-Seidel and against hand-worked stale reads, the fence-off
 * delay, halos over GPUs; and the ajacobi workload's determinism and its
 * bad inputs through the program. */
#include <glib.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_spblas.h>
#include <math.h>
#include <string.h>

#include "noderig.h"
#include "relax.h"
#include "sparse.h"
#include "system.h"
#include "testutil.h"

/* ---- the memory ---- */

static void test_memory_visible_from_its_instant(void) {
  struct rx_mem *m = rx_mem_new(4);
  double v1 = 1.5, v2 = 2.5;
  uint32_t k1 = 1, k2 = 2;
  rx_mem_stage(m, 200, 2, NULL, 1, &v1, &k1); /* row 2 = 1.5 from t = 200 */
  int64_t rows[] = {2};
  rx_mem_stage(m, 150, 0, rows, 1, &v2, &k2); /* row 2 = 2.5 from t = 150, staged later */
  rx_mem_advance(m, 149);
  CU_ASSERT_EQUAL(rx_mem_value(m, 2), 0.0); /* nothing visible before 150 */
  CU_ASSERT_EQUAL(rx_mem_pending(m), 2);
  rx_mem_advance(m, 150);
  CU_ASSERT_EQUAL(rx_mem_value(m, 2), 2.5); /* at its instant, not after */
  CU_ASSERT_EQUAL(rx_mem_version(m, 2), 2);
  rx_mem_advance(m, 199);
  CU_ASSERT_EQUAL(rx_mem_value(m, 2), 2.5);
  rx_mem_advance(m, 200);
  CU_ASSERT_EQUAL(rx_mem_value(m, 2), 1.5); /* the store visible last wins */
  CU_ASSERT_EQUAL(rx_mem_version(m, 2), 1);
  CU_ASSERT_EQUAL(rx_mem_pending(m), 0);
  rx_mem_free(m);
}

/* ---- runs on a small system ---- */

struct rig_rx {
  struct hw h;
  gsl_spmatrix *a; /* owned when not from an sp_matrix */
  struct sp_matrix *sp;
  double *b;
  struct rx_setup s;
};

static void add_node(void *run, struct sim_engine *e, uint32_t node, struct sys_devices *d) {
  char name[32];
  g_snprintf(name, sizeof name, "node%u.relax", node);
  struct sim_comp *c = rx_add(e, name, run, node);
  *d = (struct sys_devices){.cpu = c, .gpu = c, .cpu_port = 0, .gpu_port = 1};
}

/* Runs G's setup to its end; the run (rx_run_free). */
static struct rx_run *run_rig(struct rig_rx *g) {
  g->s.gpu = &g->h.gpu;
  g->s.cpu = &g->h.cpu;
  g->s.net = &g->h.net;
  g->h.net.nodes = g->s.gpus;
  char *err = NULL;
  struct rx_run *r = rx_run_new(g->a, g->b, &g->s, &err);
  if (!r) fprintf(stderr, "rx_run_new: %s\n", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r);
  struct sim_engine *e = sim_new(1);
  struct system *sys = sys_build_with(e, &g->h.cfg, add_node, r, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sys);
  sim_run(e, SIM_TIME_MAX, 0);
  sim_free(e);
  sys_free(sys);
  return r;
}

/* A matrix from dense rows (N x N, zeros left out), CSR. */
static gsl_spmatrix *dense(size_t n, const double *v) {
  gsl_spmatrix *t = gsl_spmatrix_alloc_nzmax(n, n, n * n, GSL_SPMATRIX_TRIPLET);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++)
      if (v[i * n + j] != 0) gsl_spmatrix_set(t, i, j, v[i * n + j]);
  gsl_spmatrix *a = gsl_spmatrix_compress(t, GSL_SPMATRIX_CSR);
  gsl_spmatrix_free(t);
  return a;
}

static void rx_rig_init(struct rig_rx *g, int variant, int control) {
  memset(g, 0, sizeof *g);
  hw_defaults(&g->h);
  g->s = (struct rx_setup){.variant = variant, .control = control, .grain = RX_WG, .subwarp = 1,
                           .block = 128, .oscb = 1, .regs = 0, .updates = 10, .fence = true,
                           .sample_every = 1, .gpus = 1};
}

static void rx_rig_clear(struct rig_rx *g) {
  if (g->sp) sp_matrix_free(g->sp);
  else gsl_spmatrix_free(g->a);
  g_free(g->b);
}

/* The normalized 2D Laplacian on a 4 x 4 grid and b_i = ((i mod 5) - 2) / 16. */
static void laplace_4x4(struct rig_rx *g) {
  g->sp = sp_matrix_poisson(2, 4);
  g->a = sp_matrix_csr(g->sp);
  gsl_spmatrix_scale(g->a, 0.25);
  g->b = g_new(double, 16);
  for (int i = 0; i < 16; i++) g->b[i] = ((i % 5) - 2) / 16.0;
}

/* Synchronous Jacobi on the 4 x 4 Laplacian to 1e-6 stops at the iterate
 * GSL's own loop (r = b - A x; x += D^-1 r) reaches first. */
static void test_sync_equals_gsl(void) {
  for (int control = RX_HOST; control <= RX_DEVICE; control++) {
    struct rig_rx g;
    rx_rig_init(&g, RX_SYNC, control);
    laplace_4x4(&g);
    g.s.updates = 1000;
    g.s.tolerance = 1e-6;
    struct rx_run *r = run_rig(&g);
    /* GSL: the same iteration, counted */
    gsl_vector *x = gsl_vector_calloc(16), *res = gsl_vector_alloc(16);
    gsl_vector_const_view bv = gsl_vector_const_view_array(g.b, 16);
    double bn = gsl_blas_dnrm2(&bv.vector);
    int iters = 0;
    for (;;) {
      gsl_vector_memcpy(res, &bv.vector);
      gsl_spblas_dgemv(CblasNoTrans, -1.0, g.a, x, 1.0, res);
      if (iters > 0 && gsl_blas_dnrm2(res) / bn <= 1e-6) break;
      gsl_vector_add(x, res); /* D = I: the normalized Laplacian */
      iters++;
      CU_ASSERT_FATAL(iters < 1000);
    }
    CU_ASSERT_TRUE(rx_converged(r));
    size_t n;
    const struct rx_sample *smp = rx_samples(r, &n);
    CU_ASSERT_EQUAL(n, (size_t)iters); /* a sample per iteration, the last at the tolerance */
    CU_ASSERT_EQUAL(smp[n - 1].updates, (double)iters);
    double got[16];
    rx_solution(r, got);
    for (int i = 0; i < 16; i++) CU_ASSERT_DOUBLE_EQUAL(got[i], gsl_vector_get(x, i), 1e-15);
    CU_ASSERT_TRUE(rx_residual(r) <= 1e-6);
    gsl_vector_free(x);
    gsl_vector_free(res);
    rx_run_free(r);
    rx_rig_clear(&g);
  }
}

/* The 3 x 3 system of 4 on the diagonal, -1 beside it, b = (1, 2, 3). */
static const double tri3[] = {4, -1, 0, -1, 4, -1, 0, -1, 4};

/* One subwarp (dynamic: 1 block of 32 threads on 1 CU, a subwarp of 32)
 * updates rows 0, 1, 2, 0, ... one at a time, each step's store visible
 * when the next starts: Gauss-Seidel. By hand:
 *   sweep 1: x0 = 1/4 = 0.25, x1 = (2 + 0.25)/4 = 0.5625, x2 = (3 + 0.5625)/4 = 0.890625;
 *   sweep 2: x0 = (1 + 0.5625)/4 = 0.390625, x1 = (2 + 0.390625 + 0.890625)/4 = 0.8203125,
 *            x2 = (3 + 0.8203125)/4 = 0.955078125. */
static void test_fresh_reads_are_gauss_seidel(void) {
  static const double want[2][3] = {{0.25, 0.5625, 0.890625}, {0.390625, 0.8203125, 0.955078125}};
  for (int sweeps = 1; sweeps <= 2; sweeps++) {
    struct rig_rx g;
    rx_rig_init(&g, RX_DYNAMIC, RX_HOST);
    g.a = dense(3, tri3);
    g.b = g_new(double, 3);
    g.b[0] = 1, g.b[1] = 2, g.b[2] = 3;
    g.h.gpu.cus = 1;
    g.s.block = 32;
    g.s.subwarp = 32;
    g.s.grain = RX_WARP;
    g.s.updates = sweeps;
    struct rx_run *r = run_rig(&g);
    double x[3];
    rx_solution(r, x);
    for (int i = 0; i < 3; i++) CU_ASSERT_EQUAL(x[i], want[sweeps - 1][i]);
    rx_run_free(r);
    rx_rig_clear(&g);
  }
}

/* A GPU config whose step times are exact by hand: no latency, no caches,
 * memory 8 Gbps (1 B/ns), flops all but free. */
static void simple_gpu(struct gpu_config *c) {
  c->mem_latency = 0;
  c->l2_bytes = 0;
  c->l1_bytes = 0;
  c->mem_bandwidth = 8000000000;
  c->flops_per_cu_cycle = 1048576;
  c->wg_start = 0;
}

/* Row 0 of 3 non-zeros is slower than rows 1 and 2 of 2 (a warp, a row
 * each, all starting together): row 1's second update starts when its
 * first ends, before row 0's first store is there, and loads x0 = 0:
 *   x1 = 0 + (1 - 0 + 0.5 x0) = 1 after one update, then 1 + (1 - 1 + 0.5 x0) = 1
 * (it would be 1.5 had it seen x0 = 1). */
static void test_read_before_a_later_store_sees_the_old_value(void) {
  static const double a3[] = {1, -0.25, -0.25, -0.5, 1, 0, -0.5, 0, 1};
  struct rig_rx g;
  rx_rig_init(&g, RX_STATIC, RX_HOST);
  simple_gpu(&g.h.gpu);
  g.a = dense(3, a3);
  g.b = g_new(double, 3);
  g.b[0] = g.b[1] = g.b[2] = 1;
  g.s.block = 32;
  g.s.subwarp = 32;
  g.s.grain = RX_WARP;
  g.s.updates = 2;
  struct rx_run *r = run_rig(&g);
  /* by hand, memory time alone (3 units of 32 threads running, R' = 3):
   * row 0: 4 + 8 + 8 + 12 x 3 = 56 B and 24 B of x gathered, 80 B x 8 x 3 /
   * 8 Gbps = 240 ns; row 1: 44 + 16 = 60 B, 180 ns; each + the fence */
  EXPECT_TIME(rx_step_time(r, 0, 1, 96), 240000 + g.h.gpu.device_fence_latency);
  EXPECT_TIME(rx_step_time(r, 1, 1, 96), 180000 + g.h.gpu.device_fence_latency);
  double x[3];
  rx_solution(r, x);
  CU_ASSERT_EQUAL(x[1], 1.0);
  CU_ASSERT_EQUAL(x[2], 1.0);
  /* row 0 (its second update at 240 ns sees both others' first stores,
   * visible from 180 ns): 1 + (1 - 1 + 0.25 + 0.25) = 1.5 */
  CU_ASSERT_EQUAL(x[0], 1.5);
  rx_run_free(r);
  rx_rig_clear(&g);
}

/* The two rows of (1 -0.5; -0.5 1), a warp each, 3 updates, b = (1, 1), the
 * fence FENCE, a store visible VISIBILITY after its step without it. */
static struct rx_run *two_rows(struct rig_rx *g, bool fence, sim_time visibility) {
  static const double a2[] = {1, -0.5, -0.5, 1};
  rx_rig_init(g, RX_STATIC, RX_HOST);
  simple_gpu(&g->h.gpu);
  g->h.gpu.store_visibility = visibility;
  g->a = dense(2, a2);
  g->b = g_new(double, 2);
  g->b[0] = g->b[1] = 1;
  g->s.block = 32;
  g->s.subwarp = 32;
  g->s.grain = RX_WARP;
  g->s.fence = fence;
  g->s.updates = 3;
  return run_rig(g);
}

/* Without the fence a store is visible store_visibility after its step
 * ends. Two rows of 2 non-zeros, a warp each, in lockstep of T: step k runs
 * [kT, (k+1)T] (from the kernel's start); the neighbour's store of step 0
 * is visible from T + d. Step 2 (at 2T) sees it when d <= T:
 *   x^1 = (1, 1); x^2 = 1 + (1 - 1 + 0.5 * 0) = 1 (step 1 at T sees nothing);
 *   x^3 = 1 + (1 - 1 + 0.5 * 1) = 1.5 with d = T, = 1 with d = T + 1 ps.
 * T: 44 B of the row + 16 B of x, 2 units running: 60 x 8 x 2 / 8 Gbps = 120 ns. */
static void test_fence_off_delays_visibility_by_the_stated_amount(void) {
  const sim_time T = 120000;
  for (int late = 0; late <= 1; late++) {
    struct rig_rx g;
    struct rx_run *r = two_rows(&g, false, T + late);
    EXPECT_TIME(rx_step_time(r, 0, 1, 64), T);
    double x[2];
    rx_solution(r, x);
    CU_ASSERT_EQUAL(x[0], late ? 1.0 : 1.5);
    CU_ASSERT_EQUAL(x[1], late ? 1.0 : 1.5);
    rx_run_free(r);
    rx_rig_clear(&g);
  }
  /* with the fence: Jacobi, x^3 = (1.75, 1.75), each step T + device_fence_latency */
  struct rig_rx g;
  struct rx_run *r = two_rows(&g, true, 10 * T);
  EXPECT_TIME(rx_step_time(r, 0, 1, 64), T + g.h.gpu.device_fence_latency);
  double x[2];
  rx_solution(r, x);
  CU_ASSERT_EQUAL(x[0], 1.75);
  CU_ASSERT_EQUAL(x[1], 1.75);
  rx_run_free(r);
  rx_rig_clear(&g);
}

/* Synchronous Jacobi over 2 and 3 GPUs (halos exchanged every iteration,
 * by the hosts or inside the persistent kernels) leaves the iterate of one
 * GPU, to the last bit. */
static void test_sync_halos_keep_jacobi(void) {
  double one[16];
  for (int gpus = 1; gpus <= 3; gpus++)
    for (int control = RX_HOST; control <= RX_DEVICE; control++) {
      struct rig_rx g;
      rx_rig_init(&g, RX_SYNC, control);
      laplace_4x4(&g);
      g.s.updates = 7;
      g.s.gpus = (uint32_t)gpus;
      struct rx_run *r = run_rig(&g);
      double x[16];
      rx_solution(r, x);
      if (gpus == 1 && control == RX_HOST) memcpy(one, x, sizeof one);
      else for (int i = 0; i < 16; i++) CU_ASSERT_EQUAL(x[i], one[i]);
      rx_run_free(r);
      rx_rig_clear(&g);
    }
}

/* The reads of each row's midway-th update, by connection type, on the
 * 4 x 4 Laplacian. Off-diagonals: 4 corners 2, 8 edge points 3, 4
 * interior points 4. A corner reads its 2 edge neighbours (type 2_3: 4 x 2
 * = 8 reads); an edge point a corner, an edge point and an interior point
 * (3_2, 3_3, 3_4: 8 each); an interior point 2 edge and 2 interior points
 * (4_3, 4_4: 4 x 2 = 8 each): 48 reads. Synchronous Jacobi's update K reads
 * version K - 1 everywhere: with midway 3, every figure is 2. */
static void test_midway_ages_by_type(void) {
  struct rig_rx g;
  rx_rig_init(&g, RX_SYNC, RX_HOST);
  laplace_4x4(&g);
  g.s.updates = 7;
  g.s.midway = 3;
  struct rx_run *r = run_rig(&g);
  struct sim_report rep;
  sim_report_init(&rep);
  rx_report(r, "ajacobi", &rep);
  const struct sim_report_entry *en = sim_report_find(&rep, "ajacobi.age_reads");
  CU_ASSERT_TRUE_FATAL(en != NULL);
  CU_ASSERT_EQUAL(en->i, 48);
  static const char *const types[] = {"2_3", "3_2", "3_3", "3_4", "4_3", "4_4"};
  static const char *const stats[] = {"age_lower_quartile", "age_median", "age_upper_quartile",
                                      "age_min", "age_max"};
  for (size_t t = 0; t <= G_N_ELEMENTS(types); t++)
    for (size_t k = 0; k < G_N_ELEMENTS(stats); k++) {
      /* t == the count: over all types, no suffix */
      char *key = t < G_N_ELEMENTS(types)
                      ? g_strdup_printf("ajacobi.%s.%s", stats[k], types[t])
                      : g_strdup_printf("ajacobi.%s", stats[k]);
      en = sim_report_find(&rep, key);
      CU_ASSERT_PTR_NOT_NULL(en);
      if (en) CU_ASSERT_EQUAL(en->is_real ? en->d : (double)en->i, 2.0);
      CU_ASSERT_TRUE(en && en->decl); /* declared (rx_run_outputs) */
      g_free(key);
    }
  /* no 4 x 4 row has 5 or 6 off-diagonals: the 3D types are left out */
  CU_ASSERT_PTR_NULL(sim_report_find(&rep, "ajacobi.age_median.4_5"));
  sim_report_clear(&rep);
  rx_run_free(r);
  rx_rig_clear(&g);
  /* without midway: no ages at all */
  rx_rig_init(&g, RX_SYNC, RX_HOST);
  laplace_4x4(&g);
  g.s.updates = 7;
  r = run_rig(&g);
  sim_report_init(&rep);
  rx_report(r, "ajacobi", &rep);
  CU_ASSERT_PTR_NULL(sim_report_find(&rep, "ajacobi.age_reads"));
  CU_ASSERT_PTR_NOT_NULL(sim_report_find(&rep, "ajacobi.residual"));
  sim_report_clear(&rep);
  rx_run_free(r);
  rx_rig_clear(&g);
}

/* ---- the workload, through the program ---- */

static char *run_out(const char *const *args, int want) {
  char *out = NULL, *err = NULL;
  int st = tu_trigsim(args, &out, &err);
  if (st != want) fprintf(stderr, "exit %d, want %d: %s\n", st, want, err);
  CU_ASSERT_EQUAL(st, want);
  g_free(err);
  return out;
}

static void test_same_seed_same_bytes(void) {
  char *path = tu_data("ajacobi/small.yaml");
  const char *a1[] = {"run", path, "-f", "csv", NULL};
  const char *a2[] = {"run", path, "-f", "csv", "--seed", "2", NULL};
  char *o1 = run_out(a1, 0), *o2 = run_out(a1, 0), *o3 = run_out(a2, 0);
  CU_ASSERT_STRING_EQUAL(o1, o2);
  /* another seed, another right-hand side: another residual */
  CU_ASSERT_TRUE(o1 && o3 && strcmp(o1, o3) != 0);
  g_free(o1);
  g_free(o2);
  g_free(o3);
  g_free(path);
}

/* STDERR of trigsim ARGS (exit 2) names FILE:LINE:COL and KEY. */
static void expect_input_error(const char *const *args, const char *where, const char *key) {
  char *out = NULL, *err = NULL;
  int st = tu_trigsim(args, &out, &err);
  CU_ASSERT_EQUAL(st, 2);
  if (!err || !strstr(err, where) || !strstr(err, key))
    fprintf(stderr, "want %s and %s in: %s\n", where, key, err ? err : "(nothing)");
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, where) ? err : NULL);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, key) ? err : NULL);
  g_free(out);
  g_free(err);
}

static void test_bad_inputs_exit_2_at_their_key(void) {
  char *small = tu_data("ajacobi/small.yaml"), *bad = tu_data("ajacobi/zero_diag.yaml");
  const char *tol[] = {"validate", small, "--set", "workload.tolerance=1.5", NULL};
  expect_input_error(tol, "--set:1:", "workload.tolerance: expected");
  const char *tol_run[] = {"run", small, "--set", "workload.tolerance=-1e-3", NULL};
  expect_input_error(tol_run, "--set:1:", "workload.tolerance: expected");
  /* a row of the Matrix Market file without a diagonal: validate and run */
  const char *diag[] = {"validate", bad, NULL};
  expect_input_error(diag, "zero_diag.yaml:4:", "workload.file: expected a non-zero diagonal");
  const char *diag_run[] = {"run", bad, NULL};
  expect_input_error(diag_run, "zero_diag.yaml:4:", "row 2 of");
  const char *sw[] = {"validate", small, "--set", "workload.subwarp=3", NULL};
  expect_input_error(sw, "--set:1:", "workload.subwarp: expected 1, 2, 4");
  const char *osc[] = {"validate", small, "--set", "workload.variant=dynamic", NULL};
  expect_input_error(osc, "small.yaml:", "workload.oscb: expected");
  const char *pol[] = {"validate", small, "--set", "workload.gpus=2", NULL};
  expect_input_error(pol, "small.yaml:", "policies: expected cpufree");
  g_free(small);
  g_free(bad);
}

int main(void) {
  return tu_run_suite("relax", (const struct tu_test[]){
      {"memory: a store is visible from its instant", test_memory_visible_from_its_instant},
      {"sync Jacobi to a tolerance equals GSL's loop", test_sync_equals_gsl},
      {"fresh reads give Gauss-Seidel (3x3 by hand)", test_fresh_reads_are_gauss_seidel},
      {"a read before a later store sees the old value",
       test_read_before_a_later_store_sees_the_old_value},
      {"fence off delays visibility by store_visibility",
       test_fence_off_delays_visibility_by_the_stated_amount},
      {"sync halos over GPUs keep the Jacobi iterate", test_sync_halos_keep_jacobi},
      {"midway ages by connection type (4x4 by hand)", test_midway_ages_by_type},
      {"same seed, same bytes", test_same_seed_same_bytes},
      {"bad inputs exit 2 at their key", test_bad_inputs_exit_2_at_their_key},
      {NULL, NULL}});
}
