/* The ajacobi workload: synchronous and asynchronous Jacobi iteration on a
 * real sparse system with the numbers in the loop (Tsai, Nayak, Chow,
 * Anzt, "Implementing Asynchronous Jacobi Iteration on GPUs", Sec. IV-V):
 * the normalized 5-point 2D or 7-point 3D Laplacian (diagonal 1) or any
 * Matrix Market matrix with a non-zero diagonal, a right-hand side drawn
 * uniformly from (-0.125, 0.125) by the scenario's seed (GSL), x0 = 0.
 * Each node's host and GPU run the solver as models/relax.h says; this
 * file builds the system, the run and the report.
 *
 * Policies. The solver is not a program the policies lower (its loop ends
 * on the residual, its asynchronous kernel has no step the IR can say:
 * an update reads whatever memory holds), so the control styles live in
 * the relax model and the policy picks one: hdn (the host launches a
 * residual and an update kernel per iteration, and exchanges halos between
 * them) or cpufree (one persistent kernel: grid barriers and signalled puts
 * for the synchronous variant, one-sided puts and no barrier for the
 * asynchronous ones). On one GPU the asynchronous kernel is launched once
 * under either. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <unistd.h>
#include <stddef.h>
#include <string.h>

#include <gsl/gsl_rng.h>

#include "bus.h"
#include "cpu.h"
#include "gpu.h"
#include "input.h"
#include "library.h"
#include "nic.h"
#include "outfile.h"
#include "phase.h"
#include "relax.h"
#include "rng.h"
#include "sparse.h"
#include "system.h"
#include "topology.h"
#include "workload.h"

enum aj_matrix { AJ_LAPLACE2D, AJ_LAPLACE3D, AJ_FILE };

struct ajacobi_config {
  int matrix;
  int64_t grid;
  char *file;
  int variant;
  int64_t subwarp, block, oscb, regs, updates;
  double tolerance;
  bool fence;
  int grain;
  int64_t gpus, sample_every, midway;
  char *curve;
};

/* The most rows a run takes (its memory: the matrix and each GPU's copy
 * of x, about 100 B a row of the 2D Laplacian). */
#define AJ_MAX_ROWS (INT64_C(1) << 23)

#define PAR_CONFIG struct ajacobi_config
static const struct par_decl ajacobi_decls[] = {
    PAR(matrix, PAR_ENUM, "laplace2d", NULL, NULL, "laplace2d|laplace3d|file",
      "the system: the normalized 5-point 2D or 7-point 3D Laplacian (diagonal 1, the study's "
      "Sec. IV-A) on grid^2 or grid^3 points, or a Matrix Market file"),
    PAR(grid, PAR_INT, "100", "2", "4096", "laplace2d/3d: points per side"),
    PAR(file, PAR_STRING, "", NULL, NULL,
      "file: Matrix Market path (relative to the scenario file); every diagonal entry non-zero"),
    PAR(variant, PAR_ENUM, "static", NULL, NULL, "sync|static|dynamic",
      "sync: a residual and an update kernel per iteration (Alg. 1); static: a subwarp per row "
      "(Alg. 2); dynamic: oscb x cus blocks cycling over the rows (Alg. 3)"),
    PAR(subwarp, PAR_INT, "1", "1", "32", "threads per row (1, 2, 4, 8, 16 or 32)"),
    PAR(block, PAR_INT, "128", "32", "1024", "threads per block (a multiple of 32; the study: 128)"),
    PAR(oscb, PAR_INT, "4", "1", "64", "dynamic: oversubscription, blocks = oscb x gpu.cus"),
    PAR(regs, PAR_INT, "32", "0", "255",
      "registers per thread of the solver's kernels, for occupancy (estimate: Ginkgo's kernels "
      "are not measured; a stand-in of the study's Alg. 2/3, tools/calib/probes/ajacobi_regs.cu, takes 32 on sm_80/sm_90; 32 lets 2048 threads reside per V100 SM; 0: no limit)"),
    PAR(updates, PAR_INT, "100", "1", "1000000",
      "updates per row (the study's `update`); sync: iterations"),
    PAR(tolerance, PAR_FLOAT, "0", "0", "1",
      "stop at the first sampled relative residual ||b - Ax|| / ||b|| at or below this (0: run "
      "all updates)"),
    PAR(fence, PAR_BOOL, "true", NULL, NULL,
      "async: __threadfence() after each update (stores visible at once, for its cost); false: "
      "visible gpu.store_visibility later"),
    PAR(grain, PAR_ENUM, "wg", NULL, NULL, "wg|warp",
      "what one event moves: a block's rows, or a warp's (finer, slower to simulate)"),
    PAR(gpus, PAR_INT, "1", "1", "4096",
      "GPUs the rows are split over in contiguous blocks (nodes 0 .. gpus-1)"),
    PAR(sample_every, PAR_INT, "1", "1", "1000000",
      "sweeps' worth of updates (n) between residual samples (sync: iterations)"),
    PAR(midway, PAR_INT, "0", "0", "1000000",
      "the update whose reads' versions are counted by connection type (the study's Fig. 11: "
      "500 of 1000); 0: none"),
    PAR(curve, PAR_STRING, "", NULL, NULL,
      "a CSV of the residual samples (time_ps, updates, residual) written here after the run "
      "(relative to the working directory; every sweep point writes the same file)"),
};
#undef PAR_CONFIG

const struct par_group ajacobi_params = {
    .name = "ajacobi",
    .doc = "synchronous and asynchronous Jacobi with the numbers in the loop (the asynchronous "
           "Jacobi study on a V100)",
    .decls = ajacobi_decls,
    .n_decls = PAR_COUNT(ajacobi_decls),
    .config_size = sizeof(struct ajacobi_config),
};

/* The policies, and the control style each picks (relax.h). */
static const char *const ajacobi_policies[] = {"hdn", "cpufree"};
static const int ajacobi_control[] = {RX_HOST, RX_DEVICE};

static const struct sc_node *key_node(const struct scenario *sc, const char *key) {
  char *path = g_strdup_printf("workload.%s", key);
  const struct sc_node *n = sc_node_near(sc->root, path);
  g_free(path);
  return n;
}

static int control_of(const char *policy) {
  for (size_t k = 0; k < G_N_ELEMENTS(ajacobi_policies); k++)
    if (!strcmp(policy, ajacobi_policies[k])) return ajacobi_control[k];
  g_assert_not_reached(); /* wl_check lets only the list through */
}

/* Rows of the generated Laplacian: grid^dim, or -1 beyond AJ_MAX_ROWS. */
static int64_t laplace_rows(const struct ajacobi_config *c) {
  int dim = c->matrix == AJ_LAPLACE2D ? 2 : 3;
  int64_t rows = 1;
  for (int d = 0; d < dim; d++) {
    if (rows > AJ_MAX_ROWS / c->grid) return -1;
    rows *= c->grid;
  }
  return rows;
}

/* The system's matrix (owned: sp_matrix_free), normalized for the
 * Laplacians; NULL and *ERR at the offending key. */
static struct sp_matrix *load_matrix(const struct wl_ctx *ctx, char **err) {
  const struct ajacobi_config *c = ctx->config;
  if (c->matrix != AJ_FILE) {
    int64_t rows = laplace_rows(c);
    int dim = c->matrix == AJ_LAPLACE2D ? 2 : 3;
    if (rows < 0) {
      *err = sc_error_at(key_node(ctx->sc, "grid"), "workload.grid",
                         "expected at most %" G_GINT64_FORMAT " rows (grid^%d), got %" G_GINT64_FORMAT
                         "^%d", AJ_MAX_ROWS, dim, c->grid, dim);
      return NULL;
    }
    struct sp_matrix *m = sp_matrix_poisson(dim, c->grid);
    g_assert(m);
    /* diagonal 2 dim, -1 off it: scaled symmetrically by D^-1/2 (constant
     * D) it is A / (2 dim), diagonal 1 (the study's Sec. IV-A) */
    gsl_spmatrix_scale(sp_matrix_csr(m), 1.0 / (2.0 * dim));
    return m;
  }
  const struct sc_node *fn = key_node(ctx->sc, "file");
  if (!c->file[0]) {
    *err = sc_error_at(fn, "workload.file", "expected a Matrix Market path for matrix file, got none");
    return NULL;
  }
  char *path = in_path_beside(fn->file, c->file), *why = NULL;
  struct sp_matrix *m = sp_matrix_read(path, &why);
  if (!m) {
    *err = sc_error_at(fn, "workload.file", "expected a readable Matrix Market file: %s", why);
    g_free(why);
  } else if (sp_matrix_rows(m) != sp_matrix_cols(m) || sp_matrix_rows(m) > AJ_MAX_ROWS) {
    *err = sc_error_at(fn, "workload.file",
                       "expected a square matrix of at most %" G_GINT64_FORMAT " rows, got %s: %"
                       G_GINT64_FORMAT " x %" G_GINT64_FORMAT, AJ_MAX_ROWS, path,
                       sp_matrix_rows(m), sp_matrix_cols(m));
    sp_matrix_free(m);
    m = NULL;
  } else {
    const gsl_spmatrix *a = sp_matrix_csr(m);
    for (int64_t i = 0; i < sp_matrix_rows(m); i++) {
      double d = 0;
      for (int k = a->p[i]; k < a->p[i + 1]; k++)
        if (a->i[k] == i) d += a->data[k];
      if (d != 0 && isfinite(d)) continue;
      *err = sc_error_at(fn, "workload.file",
                         "expected a non-zero diagonal (Jacobi divides by it), got %s in row %"
                         G_GINT64_FORMAT " of %s", d == 0 ? "none or 0" : "a non-finite value",
                         i + 1, path);
      sp_matrix_free(m);
      m = NULL;
      break;
    }
  }
  g_free(path);
  return m;
}

static bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* The rules across parameters (and the matrix's rows, ROWS). */
static bool shape_check(const struct wl_ctx *ctx, int64_t rows, char **err) {
  const struct ajacobi_config *c = ctx->config;
  const struct gpu_config *gpu = sc_hardware(ctx->sc, &gpu_params);
  const struct net_config *net = sc_hardware(ctx->sc, &net_params);
  if (!is_pow2(c->subwarp)) {
    *err = sc_error_at(key_node(ctx->sc, "subwarp"), "workload.subwarp",
                       "expected 1, 2, 4, 8, 16 or 32 (a subwarp of a warp), got %" G_GINT64_FORMAT,
                       c->subwarp);
    return false;
  }
  if (c->block % RX_WARP_THREADS) {
    *err = sc_error_at(key_node(ctx->sc, "block"), "workload.block",
                       "expected a multiple of 32 (whole warps), got %" G_GINT64_FORMAT, c->block);
    return false;
  }
  if (c->gpus > net->nodes) {
    *err = sc_error_at(sc_node_near(ctx->sc->root, "hardware.network.nodes"),
                       "hardware.network.nodes",
                       "expected at least workload.gpus (%" G_GINT64_FORMAT ") nodes, got %"
                       G_GINT64_FORMAT, c->gpus, net->nodes);
    return false;
  }
  if (c->gpus > rows) {
    *err = sc_error_at(key_node(ctx->sc, "gpus"), "workload.gpus",
                       "expected at most one GPU per row (%" G_GINT64_FORMAT " rows), got %"
                       G_GINT64_FORMAT, rows, c->gpus);
    return false;
  }
  int64_t subwarps = c->oscb * gpu->cus * c->block / c->subwarp;
  if (c->variant == RX_DYNAMIC && subwarps > rows / c->gpus) {
    *err = sc_error_at(key_node(ctx->sc, "oscb"), "workload.oscb",
                       "expected oscb x gpu.cus x block / subwarp (%" G_GINT64_FORMAT
                       " subwarps) at most a GPU's rows (%" G_GINT64_FORMAT
                       "; Alg. 3 needs num_subwarps <= num_rows), got oscb %" G_GINT64_FORMAT,
                       subwarps, rows / c->gpus, c->oscb);
    return false;
  }
  if (c->variant != RX_SYNC && c->gpus > 1 && control_of(ctx->policy) == RX_HOST) {
    const struct sc_node *n = sc_map_get(ctx->sc->root, "policies");
    *err = sc_error_at(n ? n : key_node(ctx->sc, "variant"), "policies",
                       "expected cpufree for the %s variant on %" G_GINT64_FORMAT
                       " GPUs (its halos are one-sided puts from the kernel; hdn exchanges halos "
                       "between kernels: variant sync), got hdn",
                       c->variant == RX_STATIC ? "static" : "dynamic", c->gpus);
    return false;
  }
  return true;
}

static bool ajacobi_check(const struct wl_ctx *ctx, char **err) {
  const struct ajacobi_config *c = ctx->config;
  int64_t rows;
  if (c->matrix == AJ_FILE) {
    struct sp_matrix *m = load_matrix(ctx, err);
    if (!m) return false;
    rows = sp_matrix_rows(m);
    sp_matrix_free(m);
  } else {
    rows = laplace_rows(c);
    if (rows < 0) {
      struct sp_matrix *m = load_matrix(ctx, err); /* says why */
      g_assert(!m);
      return false;
    }
  }
  if (c->curve[0]) {
    char *dir = g_path_get_dirname(c->curve);
    bool w = g_file_test(dir, G_FILE_TEST_IS_DIR) && g_access(dir, W_OK) == 0;
    g_free(dir);
    if (!w) {
      *err = sc_error_at(key_node(ctx->sc, "curve"), "workload.curve",
                         "expected a file in a writable folder, got %s", c->curve);
      return false;
    }
  }
  return shape_check(ctx, rows, err);
}

/* Adds node NODE's relax component, on both of the bus's ports. */
static void add_node(void *run, struct sim_engine *e, uint32_t node, struct sys_devices *d) {
  char name[48];
  g_snprintf(name, sizeof name, "node%u.relax", node);
  struct sim_comp *c = rx_add(e, name, run, node);
  *d = (struct sys_devices){.cpu = c, .gpu = c, .cpu_port = 0, .gpu_port = 1};
}

/* The residual samples as CSV at PATH. */
static bool write_curve(const struct rx_run *run, const char *policy, const char *path,
                        char **err) {
  size_t n;
  const struct rx_sample *smp = rx_samples(run, &n);
  GString *s = g_string_new("policy,time_ps,updates,residual\n");
  for (size_t k = 0; k < n; k++)
    g_string_append_printf(s, "%s,%" G_GINT64_FORMAT ",%.6f,%.9e\n", policy, smp[k].t,
                           smp[k].updates, smp[k].residual);
  bool ok = of_write_all(path, s->str, s->len, err);
  g_string_free(s, TRUE);
  return ok;
}

static bool ajacobi_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  const struct ajacobi_config *c = ctx->config;
  struct sp_matrix *m = load_matrix(ctx, err);
  if (!m) return false;
  bool shaped = shape_check(ctx, sp_matrix_rows(m), err);
  if (!shaped || ctx->check_only) {
    sp_matrix_free(m);
    return shaped;
  }
  int64_t n = sp_matrix_rows(m);
  /* b uniform in (-0.125, 0.125) (the study's Sec. V), from the seed */
  double *b = g_new(double, (size_t)n);
  gsl_rng *rng = rng_stream_new(ctx->seed, UINT64_C(0x616a6163)); /* "ajac" */
  for (int64_t i = 0; i < n; i++) b[i] = -0.125 + 0.25 * gsl_rng_uniform_pos(rng);
  gsl_rng_free(rng);
  const struct comm_config *comm = sc_hardware(ctx->sc, &comm_params);
  struct hw_config hw = {
      .gpu = sc_hardware(ctx->sc, &gpu_params), .cpu = sc_hardware(ctx->sc, &cpu_params),
      .bus = sc_hardware(ctx->sc, &bus_params), .nic = sc_hardware(ctx->sc, &nic_params),
      .net = sc_hardware(ctx->sc, &net_params), .comm = comm};
  struct rx_setup st = {
      .variant = c->variant, .control = control_of(ctx->policy), .grain = c->grain,
      .subwarp = c->subwarp, .block = c->block, .oscb = c->oscb, .regs = c->regs,
      .updates = c->updates, .tolerance = c->tolerance, .fence = c->fence,
      .sample_every = c->sample_every, .midway = c->midway, .gpus = (uint32_t)c->gpus,
      .nvl_stores = comm->nvlink_stores, .gpu = hw.gpu, .cpu = hw.cpu, .net = hw.net};
  struct rx_run *run = rx_run_new(sp_matrix_csr(m), b, &st, err);
  g_assert(run); /* shape_check said it runs */
  struct sim_engine *e = sim_new(ctx->seed);
  sim_set_trace(e, ctx->trace, ctx->policy);
  struct system *sys = sys_build_with(e, &hw, add_node, run, err);
  bool ok = sys != NULL;
  if (ok) {
    out->events = sim_run(e, SIM_TIME_MAX, 0);
    ph_preset(&out->phases);
    out->counters.phases = &out->phases;
    sim_finish(e, &out->counters);
    out->counters.phases = NULL;
    out->total_ps = rx_end_time(run);
    rx_report(run, "ajacobi", &out->counters);
    if (c->curve[0]) ok = write_curve(run, ctx->policy, c->curve, err);
  }
  sim_free(e);
  sys_free(sys);
  rx_run_free(run);
  g_free(b);
  sp_matrix_free(m);
  return ok;
}

const struct wl_type wl_ajacobi = {
    .params = &ajacobi_params,
    .outputs = &rx_run_outputs,
    .policies = ajacobi_policies,
    .n_policies = G_N_ELEMENTS(ajacobi_policies),
    .default_policy = "hdn",
    .check = ajacobi_check,
    .run = ajacobi_run,
};
