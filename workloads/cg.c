/* The cg workload (CPU-free ICS23 Sec. 3.4, 4.2, Table 1): unpreconditioned
 * conjugate gradient, standard or pipelined (Ghysels-Vanroose), on a matrix
 * read from a Matrix Market file, generated (1D/2D/3D Poisson), or known
 * only by its rows and non-zeros per row (banded, for Table 1's matrices),
 * its rows split over the ranks (workloads/sparse.h). Per iteration:
 *   standard:  halo of p, SpMV q = A p, dot (p, q), allreduce, 2 AXPYs,
 *              dot (r, r), allreduce, 1 AXPY: 1 SpMV, 2 dots, 3 AXPYs and
 *              two reductions, each followed by a sync (its scalar is needed
 *              everywhere);
 *   pipelined: dots (r, r) and (w, r), one merged allreduce of both in lane 1
 *              overlapping the halo of w and SpMV q = A w in lane 0, then 6
 *              AXPYs: one reduction, overlapped (Sec. 3.4, Listing 2).
 * Allreduce: ceil(log2 N) dissemination rounds (round k: to rank + 2^k,
 * from rank - 2^k) of the scalars' 8 B each, as NVSHMEM's reductions do.
 * Costs on the GPU model: one row per work-item, 1024-item WGs (the paper's
 * block size); SpMV 2 flops and 12 B (value + column index) per non-zero
 * plus 24 B per row (row pointer, x, y); a dot 2 flops and 16 B per row, an
 * AXPY 2 flops and 24 B per row. The run's time is the slowest rank's. */
#include <glib.h>
#include <stddef.h>
#include <string.h>

#include "cg.h"
#include "lower.h"
#include "workload.h"

#define PAR_CONFIG struct cg_config
static const struct par_decl cg_decls[] = {
    PAR(source, PAR_ENUM, "poisson", NULL, NULL, "poisson|file|banded",
      "the matrix: a generated Poisson matrix, a Matrix Market file, or banded by rows and nnz/row"),
    PAR(dim, PAR_INT, "2", "1", "3", NULL, "poisson: dimensions (3, 5 or 7-point stencil)"),
    PAR(n, PAR_INT, "256", "2", "100000000", NULL, "poisson: points per side (n^dim rows)"),
    PAR(file, PAR_STRING, "", NULL, NULL, NULL,
      "file: Matrix Market path (coordinate; relative to the scenario file)"),
    PAR(rows, PAR_INT, "1000000", "1", "10000000000", NULL, "banded: rows (CPU-free Table 1)"),
    PAR(nnz_per_row, PAR_FLOAT, "5", "1", "100000", NULL, "banded: non-zeros per row (Table 1)"),
    PAR(variant, PAR_ENUM, "standard", NULL, NULL, "standard|pipelined",
      "standard CG, or pipelined (one merged reduction overlapping SpMV, 3 more AXPYs)"),
    PAR(iterations, PAR_INT, "1", "1", "1000000", NULL,
      "iterations when tolerance is 0 (the paper runs 5000)"),
    PAR(tolerance, PAR_FLOAT, "0", "0", "1", NULL,
      "> 0: as many iterations as a real double-precision CG needs for ||r||/||b|| <= it "
      "(poisson and file matrices; computed once, before the simulation)"),
    PAR(partitioner, PAR_ENUM, "blocks", NULL, NULL, "blocks|graph",
      "rows in contiguous blocks, or by the graph partitioner (METIS, when built in)"),
    PAR(rows_per_wg, PAR_INT, "1024", "1", "1048576", NULL,
      "rows per WG: one per work-item of a 1024-thread block (CPU-free Sec. 5.2.1)"),
};
#undef PAR_CONFIG

const struct par_group cg_params = {
    .name = "cg",
    .doc = "conjugate gradient, standard or pipelined, on a partitioned sparse matrix (CPU-free Sec. 3.4)",
    .decls = cg_decls,
    .n_decls = PAR_COUNT(cg_decls),
    .config_size = sizeof(struct cg_config),
};

/* Tags: (iteration, use) unique per pair of ranks. */
#define TAG_HALO 60
static uint32_t tag_of(int64_t it, uint32_t use) { return (uint32_t)(it * 64 + use); }

static uint32_t wgs_for(int64_t rows, int64_t per_wg) {
  return (uint32_t)MAX(1, (rows + per_wg - 1) / per_wg);
}

/* A vector op over the rank's rows: FLOPS and BYTES per row. */
static void vec_op(struct wl_program *p, uint32_t r, const struct sp_rank *rk, int64_t per_wg,
                   int64_t flops, int64_t bytes) {
  uint32_t wgs = wgs_for(rk->rows, per_wg);
  int64_t rows = (rk->rows + wgs - 1) / wgs;
  wl_compute(p, r, wgs, rows * flops, rows * bytes);
  /* 16 B a row: a dot product (two reads, partials, a second pass);
   * 24 B: an AXPY-like update (two reads, one write). */
  wl_kclass(p, r, bytes == 16 ? KC_REDUCE : KC_AXPY, rk->rows * bytes, 0, 0);
}

/* SpMV over the rank's rows and non-zeros, all on the vector op's grid. */
static void spmv(struct wl_program *p, uint32_t r, const struct sp_rank *rk, int64_t per_wg) {
  uint32_t wgs = wgs_for(rk->rows, per_wg);
  int64_t nnz = (rk->nnz + wgs - 1) / wgs, rows = (rk->rows + wgs - 1) / wgs;
  wl_compute(p, r, wgs, 2 * nnz, 12 * nnz + 24 * rows);
  /* x is read once per row in the 24 B; the other nnz - rows reads of it
   * are gathers, cached as far as x (its rows and its halo) fits in L2. */
  int64_t halo = 0;
  for (size_t j = 0; j < rk->n_recv; j++) halo += rk->recv[j].elems;
  wl_kclass(p, r, KC_SPMV, 12 * rk->nnz + 24 * rk->rows, 8 * MAX(0, nnz - rows),
            8 * (rk->rows + halo));
}

/* The halo of a vector: what every peer reads of rank R, and what R reads. */
static void halo(struct wl_program *p, const struct sp_part *part, uint32_t r, int64_t it) {
  for (uint32_t q = 0; q < part->n_ranks; q++) {
    const struct sp_rank *qk = &part->ranks[q];
    for (size_t j = 0; j < qk->n_recv; j++)
      if (qk->recv[j].peer == r && q != r)
        wl_send(p, r, q, qk->recv[j].elems * 8, tag_of(it, TAG_HALO));
  }
  const struct sp_rank *rk = &part->ranks[r];
  for (size_t j = 0; j < rk->n_recv; j++)
    if (rk->recv[j].peer != r)
      wl_recv(p, r, rk->recv[j].peer, rk->recv[j].elems * 8, tag_of(it, TAG_HALO));
}

/* An allreduce of SCALARS doubles over all ranks, tagged (it, USE + round). */
static void allreduce(struct wl_program *p, uint32_t r, int64_t it, uint32_t use,
                      int64_t scalars) {
  uint32_t n = p->n_ranks;
  for (uint32_t k = 0; (1u << k) < n; k++) {
    wl_send(p, r, (r + (1u << k)) % n, 8 * scalars, tag_of(it, use + k));
    wl_recv(p, r, (r + n - (1u << k) % n) % n, 8 * scalars, tag_of(it, use + k));
  }
}

static void standard_iteration(struct wl_program *p, const struct sp_part *part, uint32_t r,
                               int64_t it, int64_t per_wg) {
  const struct sp_rank *rk = &part->ranks[r];
  halo(p, part, r, it);
  spmv(p, r, rk, per_wg);
  vec_op(p, r, rk, per_wg, 2, 16); /* (p, q) */
  wl_sync(p, r);
  allreduce(p, r, it, 0, 1);
  wl_sync(p, r);
  vec_op(p, r, rk, per_wg, 2, 24); /* x += alpha p */
  vec_op(p, r, rk, per_wg, 2, 24); /* r -= alpha q */
  vec_op(p, r, rk, per_wg, 2, 16); /* (r, r) */
  wl_sync(p, r);
  allreduce(p, r, it, 20, 1);
  wl_sync(p, r);
  vec_op(p, r, rk, per_wg, 2, 24); /* p = r + beta p */
  wl_sync(p, r);
}

static void pipelined_iteration(struct wl_program *p, const struct sp_part *part, uint32_t r,
                                int64_t it, int64_t per_wg) {
  const struct sp_rank *rk = &part->ranks[r];
  vec_op(p, r, rk, per_wg, 2, 16); /* (r, r) */
  vec_op(p, r, rk, per_wg, 2, 16); /* (w, r) */
  wl_sync(p, r);
  wl_lane(p, r, 1);
  allreduce(p, r, it, 0, 2); /* gamma and delta in one reduction */
  wl_lane(p, r, 0);
  halo(p, part, r, it);
  spmv(p, r, rk, per_wg); /* q = A w */
  wl_sync(p, r);
  for (int k = 0; k < 6; k++) vec_op(p, r, rk, per_wg, 2, 24); /* z s p x r w */
  wl_sync(p, r);
}

struct wl_program *wl_cg_program(const struct cg_config *c, const struct sp_part *part,
                                     int64_t iterations) {
  struct wl_program *p = wl_program_new(part->n_ranks);
  for (uint32_t r = 0; r < part->n_ranks; r++)
    for (int64_t it = 0; it < iterations; it++) {
      if (c->variant == CG_PIPELINED) pipelined_iteration(p, part, r, it, c->rows_per_wg);
      else standard_iteration(p, part, r, it, c->rows_per_wg);
    }
  return p;
}

/* The workload node's KEY, for errors. */
static const struct sc_node *key_node(const struct scenario *sc, const char *key) {
  char *path = g_strdup_printf("workload.%s", key);
  const struct sc_node *n = sc_node_near(sc->root, path);
  g_free(path);
  return n;
}

/* Rows of an assembled (generated or read) matrix: 2^24 (4096^2, 256^3)
 * keeps GSL's triplet and CSR copies of a 7-point matrix near 3 GB. */
#define CG_MAX_ASSEMBLED_ROWS (UINT64_C(1) << 24)

static bool cg_check(const struct wl_ctx *ctx, char **err) {
  const struct cg_config *c = ctx->config;
  struct hw_config hw = pol_hw_of(ctx->sc);
  if (c->source == CG_BANDED && c->tolerance > 0) {
    *err = sc_error_at(key_node(ctx->sc, "tolerance"), "workload.tolerance",
                       "expected 0 for a banded matrix (it has no values), got %g", c->tolerance);
    return false;
  }
  if (c->source == CG_POISSON) {
    uint64_t rows = 1;
    for (int64_t d = 0; d < c->dim; d++) rows = pol_mul_sat(rows, (uint64_t)c->n);
    if (!pol_check_at_most(ctx->sc, "workload.n", "rows n^dim of the generated matrix", rows,
                           CG_MAX_ASSEMBLED_ROWS, err))
      return false;
  }
  if (c->source == CG_BANDED) {
    /* A rank's rows, at most ceil(rows / nodes), in WGs of rows_per_wg. */
    uint64_t nodes = (uint64_t)hw.net->nodes, rows = ((uint64_t)c->rows + nodes - 1) / nodes;
    if (!pol_check_at_most(ctx->sc, "workload.rows_per_wg",
                           "WGs of a rank's vector op (ceil(rows / nodes / rows_per_wg))",
                           (rows + (uint64_t)c->rows_per_wg - 1) / (uint64_t)c->rows_per_wg,
                           WL_MAX_WGS, err))
      return false;
  }
  return true;
}

/* Ops of the program of ITERATIONS on PART: per rank and iteration its
 * halo sends and receives, the reductions' 2 ceil(log2 n) per allreduce
 * (two of them), and at most 12 computes and syncs. */
static uint64_t cg_ops(const struct sp_part *part, int64_t iterations) {
  uint64_t rounds = 0, per_it = 0;
  while ((UINT64_C(1) << rounds) < part->n_ranks) rounds++;
  for (uint32_t r = 0; r < part->n_ranks; r++)
    per_it += 2 * part->ranks[r].n_recv + 4 * rounds + 12;
  return pol_mul_sat(per_it, (uint64_t)iterations);
}

static struct sp_matrix *load_matrix(const struct wl_ctx *ctx, char **err) {
  const struct cg_config *c = ctx->config;
  if (c->source == CG_POISSON) return sp_matrix_poisson((int)c->dim, c->n);
  if (!c->file[0]) {
    *err = sc_error_at(key_node(ctx->sc, "file"), "workload.file",
                       "expected a Matrix Market path for source file, got none");
    return NULL;
  }
  const struct sc_node *fn = key_node(ctx->sc, "file");
  char *dir = g_path_get_dirname(fn->file ? fn->file : ".");
  char *path = g_path_is_absolute(c->file) ? g_strdup(c->file) : g_build_filename(dir, c->file, NULL);
  char *why = NULL;
  struct sp_matrix *m = sp_matrix_read(path, &why);
  if (!m) {
    *err = sc_error_at(fn, "workload.file", "expected a readable Matrix Market file: %s", why);
    g_free(why);
  }
  g_free(path);
  g_free(dir);
  return m;
}

static bool cg_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  const struct cg_config *c = ctx->config;
  struct hw_config hw = pol_hw_of(ctx->sc);
  uint32_t ranks = (uint32_t)hw.net->nodes;
  int64_t iterations = c->iterations;
  struct sp_part *part = NULL;
  if (c->source == CG_BANDED) {
    part = sp_partition_banded(c->rows, c->nnz_per_row, ranks);
  } else {
    struct sp_matrix *m = load_matrix(ctx, err);
    if (!m) return false;
    char *why = NULL;
    part = sp_partition(m, ranks, (enum sp_partitioner)c->partitioner, &why);
    if (!part) {
      *err = sc_error_at(key_node(ctx->sc, "partitioner"), "workload.partitioner", "%s", why);
      g_free(why);
    } else if (c->tolerance > 0) {
      /* At least one: a tolerance the start already meets (x0 = 0, so
       * ||r||/||b|| = 1 <= 1) still runs the iteration that checks it. */
      iterations = MAX(1, sp_cg_iterations(m, c->tolerance, 1000000));
    }
    sp_matrix_free(m);
    if (!part) return false;
  }
  /* The halos are known once partitioned: the program's size is checked here. */
  if (!pol_check_at_most(ctx->sc, "workload.iterations",
                         "program ops (per iteration and rank: halos, reductions, 12 phases)",
                         cg_ops(part, iterations), WL_MAX_OPS, err)) {
    sp_part_free(part);
    return false;
  }
  struct wl_program *p = wl_cg_program(c, part, iterations);
  sp_part_free(part);
  bool ok = pol_run(p, ctx->policy, &hw, ctx, out, err);
  wl_program_free(p);
  if (ok) {
    sim_report_int(&out->counters, "cg.iterations", UNIT_NONE, iterations);
    sim_report_int(&out->counters, "cg.time_per_iteration_ps", UNIT_TIME, out->total_ps / iterations);
  }
  return ok;
}

const struct wl_type wl_cg = {
    .params = &cg_params,
    .policies = pol_names,
    .n_policies = POL_COUNT,
    .default_policy = "cpufree",
    .check = cg_check,
    .run = cg_run,
};
