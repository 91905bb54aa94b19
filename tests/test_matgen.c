/* Tests for workloads/inputs/matgen.c: every class gives exactly its rows and
 * non-zeros, a symmetric SPD matrix (a real CG converges), row lengths
 * that meet their targets, streamed block partitions equal to those of the
 * assembled matrix, a 2D stencil's halo derived by hand, errors; and the
 * cg workload's per-rank counters on a hand-built matrix, and its SpMV
 * stretched to the longest row. */
#include "cg.h"
#include "gpu.h"
#include "matgen.h"
#include "program.h"
#include "scenario.h"
#include "testutil.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

/* Builds C's generator (seed 1), checking it exists. */
static struct mg_gen *gen(struct mg_config c) {
  char *err = NULL;
  struct mg_gen *g = mg_gen_new(&c, 1, &err);
  if (!g) fprintf(stderr, "\n  %s\n", err);
  CU_ASSERT_PTR_NOT_NULL(g);
  g_free(err);
  return g;
}

/* Rows, nnz, symmetry and SPD-ness of G's matrix for C. */
static void check_matrix(const struct mg_gen *g, const struct mg_config *c) {
  struct sp_matrix *m = mg_gen_matrix(g);
  CU_ASSERT_EQUAL(sp_matrix_rows(m), c->rows);
  CU_ASSERT_EQUAL(sp_matrix_nnz(m), c->nnz);
  /* Symmetric pattern and values: every stored (i, j) has (j, i). */
  int64_t *cols = g_new(int64_t, mg_gen_max_len(g));
  int64_t asym = 0, total = 0;
  for (int64_t i = 0; i < c->rows; i++) {
    int64_t n = mg_gen_row(g, i, cols);
    total += n;
    for (int64_t t = 0; t < n; t++) {
      if (t > 0) CU_ASSERT(cols[t] > cols[t - 1]); /* ascending, distinct */
      if (sp_matrix_get(m, i, cols[t]) != sp_matrix_get(m, cols[t], i) ||
          sp_matrix_get(m, cols[t], i) == 0.0)
        asym++;
    }
  }
  CU_ASSERT_EQUAL(asym, 0);
  CU_ASSERT_EQUAL(total, c->nnz);
  /* SPD: strictly diagonally dominant with a positive diagonal, so CG
   * converges; to 1e-8 in far fewer steps than rows (the condition number
   * is at most (4m + 1) / 1 for the longest row m, so sqrt(kappa) * ln(2e8)
   * / 2 steps bound it: under 20 * sqrt(4 * 302 + 1) < 700). */
  int64_t it = sp_cg_iterations(m, 1e-8, 1000);
  CU_ASSERT(it > 1 && it < 700);
  g_free(cols);
  sp_matrix_free(m);
}

/* The streamed partition equals that of the assembled matrix. */
static void check_partition(const struct mg_gen *g, uint32_t ranks) {
  struct sp_matrix *m = mg_gen_matrix(g);
  char *err = NULL;
  struct sp_part *want = sp_partition(m, ranks, SP_BLOCKS, &err);
  struct sp_part *got = mg_gen_partition(g, ranks);
  CU_ASSERT_EQUAL(got->nnz, want->nnz);
  for (uint32_t r = 0; r < ranks; r++) {
    const struct sp_rank *a = &got->ranks[r], *b = &want->ranks[r];
    CU_ASSERT_EQUAL(a->row0, b->row0);
    CU_ASSERT_EQUAL(a->rows, b->rows);
    CU_ASSERT_EQUAL(a->nnz, b->nnz);
    CU_ASSERT_EQUAL(a->remote_nnz, b->remote_nnz);
    CU_ASSERT_EQUAL(a->max_remote_row, b->max_remote_row);
    CU_ASSERT_EQUAL(a->remote_sectors, b->remote_sectors);
    CU_ASSERT_EQUAL(a->n_recv, b->n_recv);
    for (size_t k = 0; k < MIN(a->n_recv, b->n_recv); k++) {
      CU_ASSERT_EQUAL(a->recv[k].peer, b->recv[k].peer);
      CU_ASSERT_EQUAL(a->recv[k].elems, b->recv[k].elems);
    }
  }
  sp_part_free(got);
  sp_part_free(want);
  sp_matrix_free(m);
}

/* 2D 5-point on a 4 x 4 grid: 16 rows; 2 * 4 * 3 = 24 links, 48
 * off-diagonal entries, 64 non-zeros in all, so no trim. Over 4 ranks each
 * holds one grid line of 4 rows: the end lines have rows of 3, 4, 4, 3
 * (14), the middle ones 4, 5, 5, 4 (18); each reads the 4 values of each
 * adjacent line: rank 0 reads 4 from 1; rank 1 reads 4 from 0 and 4 from 2.
 * Each value across a cut is read by one row (the point next to it): 4
 * remote non-zeros per adjacent line; a row reads one per adjacent line
 * (a middle line's rows read lines y - 1 and y + 1: 2 a row, the end
 * lines' 1).
 * Over 2 ranks: 14 + 18 = 32 each, each reads the other's nearest line (4).
 * Link requests (one warp a rank: its 4 or 8 rows): a line's 4 values are
 * one 32-B sector of their owner. The line below is read at place 0 of
 * each row (its smallest column): one request. The line above is read at
 * each row's last place: 3 for the edge points (x = 0, 3: 4 non-zeros, or
 * 3 on the first line), 4 for the middle ones: two places, two requests.
 * So over 4 ranks 2, 3, 3, 1 (the first line reads only above, the last
 * only below); over 2, rank 0's second line reads above (2), rank 1's
 * first line below (1). */
static void test_stencil_2d_halo_by_hand(void) {
  struct mg_config c = {16, 64, MG_STENCIL, 2, 5, 1, 0, 0};
  struct mg_gen *g = gen(c);
  check_matrix(g, &c);
  struct sp_part *p = mg_gen_partition(g, 4);
  static const int64_t nnz[4] = {14, 18, 18, 14};
  for (uint32_t r = 0; r < 4; r++) {
    CU_ASSERT_EQUAL(p->ranks[r].row0, 4 * r);
    CU_ASSERT_EQUAL(p->ranks[r].rows, 4);
    CU_ASSERT_EQUAL(p->ranks[r].nnz, nnz[r]);
    size_t want_peers = r == 0 || r == 3 ? 1 : 2;
    CU_ASSERT_EQUAL(p->ranks[r].n_recv, want_peers);
    for (size_t k = 0; k < p->ranks[r].n_recv; k++) {
      CU_ASSERT_EQUAL(p->ranks[r].recv[k].elems, 4);
      CU_ASSERT_EQUAL(llabs((long long)p->ranks[r].recv[k].peer - (long long)r), 1);
    }
    CU_ASSERT_EQUAL(p->ranks[r].remote_nnz, 4 * (int64_t)want_peers);
    CU_ASSERT_EQUAL(p->ranks[r].max_remote_row, (int64_t)want_peers);
  }
  static const int64_t sectors4[4] = {2, 3, 3, 1};
  for (uint32_t r = 0; r < 4; r++) CU_ASSERT_EQUAL(p->ranks[r].remote_sectors, sectors4[r]);
  sp_part_free(p);
  p = mg_gen_partition(g, 2);
  CU_ASSERT_EQUAL(p->ranks[0].remote_sectors, 2);
  CU_ASSERT_EQUAL(p->ranks[1].remote_sectors, 1);
  for (uint32_t r = 0; r < 2; r++) {
    CU_ASSERT_EQUAL(p->ranks[r].nnz, 32);
    CU_ASSERT_EQUAL(p->ranks[r].n_recv, 1);
    CU_ASSERT_EQUAL(p->ranks[r].recv[0].peer, 1 - r);
    CU_ASSERT_EQUAL(p->ranks[r].recv[0].elems, 4);
    CU_ASSERT_EQUAL(p->ranks[r].remote_nnz, 4);
    CU_ASSERT_EQUAL(p->ranks[r].max_remote_row, 1);
  }
  sp_part_free(p);
  mg_gen_free(g);
}

/* Every class and mechanism: exact rows and nnz, symmetric, SPD, and the
 * streamed partition equal to the assembled one.
 *  - fem 27-point, 3 dofs, 3000 rows (1000 nodes, a 10^3 grid): the mean
 *    75 is above the grid's (boundaries lose neighbours), so pairs are added;
 *  - the same at mean 40: links drop (fem over its target by > 1%);
 *  - graph 2D 5-point, 4000 rows, mean 4.75: links drop, then pairs added;
 *  - fem with a longest row of 300: dense layers;
 *  - 3D 7-point, 10^4 rows, 500 under the full stencil: pairs removed;
 *  - rows not a multiple of dofs (a last node with 2 of its 3 rows). */
static void test_classes_exact_symmetric_spd(void) {
  static const struct mg_config cs[] = {
      {3000, 3000 * 75, MG_FEM, 3, 27, 3, 0, 0},
      {3000, 3000 * 40 + 2, MG_FEM, 3, 27, 3, 0, 0},
      {4000, 4000 * 5 - 1000, MG_GRAPH, 2, 5, 1, 0, 0},
      {6000, 6000 * 30, MG_FEM, 3, 27, 3, 300, 0},
      {10000, 10000 * 7 - 4000 - 500, MG_STENCIL, 3, 7, 1, 0, 0},
      {2999, 2999 * 61, MG_FEM, 3, 27, 3, 0, 0},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cs); i++) {
    struct mg_gen *g = gen(cs[i]);
    if (!g) continue;
    check_matrix(g, &cs[i]);
    check_partition(g, 5);
    mg_gen_free(g);
  }
}

/* Row lengths against their targets: the mean is nnz / rows exactly; with
 * a published longest row M, the longest is M within the dofs rounding
 * (a dense node couples to K = M / dofs - 1 nodes: 3 (K + 1) = 300 for M =
 * 300) plus the few a node bordering two dense ones gains (within 5%); the
 * spread is skewed (sd above the regular grid's, the longest many sds
 * above the mean). Without one, the longest stays the stencil's 27 * 3 =
 * 81 plus the added diagonals (2 per added full diagonal, at most 2 here
 * as the mean is only a few above the grid's). */
static void test_row_lengths_meet_targets(void) {
  struct mg_config dense = {6000, 6000 * 30, MG_FEM, 3, 27, 3, 300, 0};
  struct mg_gen *g = gen(dense);
  struct mg_row_stats st;
  mg_gen_row_stats(g, &st);
  CU_ASSERT_DOUBLE_EQUAL(st.mean, 30.0, 1e-9);
  CU_ASSERT(st.max >= 300 && st.max <= 315);
  CU_ASSERT(st.max > st.mean + 4 * st.sd);
  mg_gen_free(g);

  struct mg_config graph = {5000, 5000 * 12, MG_GRAPH, 3, 27, 1, 120, 0};
  g = gen(graph);
  mg_gen_row_stats(g, &st);
  CU_ASSERT_DOUBLE_EQUAL(st.mean, 12.0, 1e-9);
  CU_ASSERT(st.max >= 120 && st.max <= 126);
  mg_gen_free(g);

  struct mg_config regular = {3000, 3000 * 75, MG_FEM, 3, 27, 3, 0, 0};
  g = gen(regular);
  mg_gen_row_stats(g, &st);
  CU_ASSERT_DOUBLE_EQUAL(st.mean, 75.0, 1e-9);
  CU_ASSERT(st.max >= 81 && st.max <= 81 + 2 * 8);
  mg_gen_free(g);

  /* ecology2's catalogue entry: a 2D 5-point grid, longest row 5 (published). */
  struct mg_config eco = {999999, 4995991, MG_STENCIL, 2, 5, 1, 5, 0};
  g = gen(eco);
  mg_gen_row_stats(g, &st);
  CU_ASSERT_EQUAL(st.max, 5);
  CU_ASSERT_DOUBLE_EQUAL(st.mean, 4995991.0 / 999999.0, 1e-9);
  mg_gen_free(g);
}

/* The most non-zeros of a part over the mean. */
static double nnz_imbalance(const struct sp_part *p) {
  int64_t max = 0;
  for (uint32_t r = 0; r < p->n_ranks; r++) max = MAX(max, p->ranks[r].nnz);
  return (double)max * p->n_ranks / (double)p->nnz;
}

/* Dense layers make contiguous blocks unequal; a regular grid does not. A
 * dense layer's nodes have rows of 300 against a mean of 30, so the rank
 * holding it carries well above the mean (> 1.3x), while the regular grid
 * of the same mean stays within its boundary effects (< 1.15x). */
static void test_dense_layers_imbalance_blocks(void) {
  struct mg_config dense = {6000, 6000 * 30, MG_FEM, 3, 27, 3, 300, 0};
  struct mg_config flat = {6000, 6000 * 30, MG_FEM, 3, 27, 3, 0, 0};
  double imb[2];
  for (int k = 0; k < 2; k++) {
    struct mg_gen *g = gen(k ? flat : dense);
    struct sp_part *p = mg_gen_partition(g, 8);
    imb[k] = nnz_imbalance(p);
    sp_part_free(p);
    mg_gen_free(g);
  }
  CU_ASSERT(imb[0] > 1.3);
  CU_ASSERT(imb[1] < 1.15);
}

/* Rows of at least LEN non-zeros in G. */
static int64_t rows_at_least(const struct mg_gen *g, int64_t len) {
  int64_t *cols = g_new(int64_t, mg_gen_max_len(g)), n = 0;
  for (int64_t i = 0; i < mg_gen_rows(g); i++) n += mg_gen_row(g, i, cols) >= len;
  g_free(cols);
  return n;
}

/* dense_nodes: the dense nodes dropout leaves room for. A graph of 5000
 * nodes (an 18^3 grid: layers of 324), mean 12 under the 27-point
 * stencil's 27, longest row 120 (a dense node couples to its K = 119
 * nearest, of which dropout and the grid's edge keep most).
 *  - 0 is one layer: the same matrix as dense_nodes 324, row for row;
 *  - 20: the rows of at least 60 (over
 *    twice the stencil's 27: dense nodes) number at least the 20, and at
 *    most the few more the dropout's 4 standard deviations hold (sd <=
 *    sqrt(links), links <= 13 x 5000: 4 sd <= 1020 non-zeros, a dense
 *    node adding well over 50: at most 20 more, 40), with the layer's well
 *    over twice as many;
 *  - fewer dense nodes, less imbalance over 8 contiguous blocks. */
static void test_dense_nodes(void) {
  struct mg_config c = {5000, 5000 * 12, MG_GRAPH, 3, 27, 1, 120, 0};
  struct mg_gen *g0 = gen(c);
  c.dense_nodes = 324;
  struct mg_gen *gl = gen(c);
  c.dense_nodes = 20;
  struct mg_gen *g20 = gen(c);
  CU_ASSERT_PTR_NOT_NULL_FATAL(g0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(gl);
  CU_ASSERT_PTR_NOT_NULL_FATAL(g20);
  int64_t *a = g_new(int64_t, mg_gen_max_len(g0)), *b = g_new(int64_t, mg_gen_max_len(gl));
  bool same = mg_gen_max_len(g0) == mg_gen_max_len(gl);
  for (int64_t i = 0; same && i < mg_gen_rows(g0); i++) {
    int64_t n = mg_gen_row(g0, i, a);
    same = n == mg_gen_row(gl, i, b) && memcmp(a, b, sizeof *a * (size_t)n) == 0;
  }
  CU_ASSERT(same);
  g_free(a);
  g_free(b);
  int64_t d0 = rows_at_least(g0, 60), d20 = rows_at_least(g20, 60);
  CU_ASSERT(d20 >= 20 && d20 <= 40);
  CU_ASSERT(d0 > 2 * d20);
  check_matrix(g20, &c);
  check_partition(g20, 5);
  struct sp_part *p0 = mg_gen_partition(g0, 8), *p20 = mg_gen_partition(g20, 8);
  CU_ASSERT(nnz_imbalance(p20) < nnz_imbalance(p0));
  sp_part_free(p0);
  sp_part_free(p20);
  mg_gen_free(g0);
  mg_gen_free(gl);
  mg_gen_free(g20);
}

/* dense_nodes only where it acts: with a dense region (a longest row above
 * the stencil's: 5-point, 1 dof, so above 5), within the grid's nodes, and
 * where links drop around it (a stencil whose grid gives fewer than nnz
 * keeps every link: its mean alone sets the dense nodes). */
static void test_dense_nodes_errors(void) {
  char *err = NULL;
  struct mg_config flat = {1000, 5000, MG_GRAPH, 2, 5, 1, 5, 10};
  CU_ASSERT_PTR_NULL(mg_gen_new(&flat, 1, &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "expected dense_nodes only with a longest row above "
                                            "the stencil's (max_row > dofs x points = 5), got "
                                            "dense_nodes 10 with max_row 5"));
  g_free(err);
  err = NULL;
  struct mg_config many = {1000, 4000, MG_GRAPH, 2, 5, 1, 30, 1001};
  CU_ASSERT_PTR_NULL(mg_gen_new(&many, 1, &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "expected dense_nodes <= the grid's nodes, "
                                            "ceil(rows / dofs) = 1000, got 1001"));
  g_free(err);
  err = NULL;
  struct mg_config kept = {4096, 40000, MG_STENCIL, 2, 5, 1, 30, 10};
  CU_ASSERT_PTR_NULL(mg_gen_new(&kept, 1, &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "expected dense_nodes only where links drop around "
                                            "the dense nodes"));
  g_free(err);
}

#ifdef TRIGSIM_HAVE_METIS
/* METIS balances rows, not non-zeros: on the dense-layer matrix its parts
 * still differ (> 1.1x the mean nnz), while on the regular one they stay
 * within 1.1x. */
static void test_dense_layers_imbalance_metis(void) {
  struct mg_config dense = {6000, 6000 * 30, MG_FEM, 3, 27, 3, 300, 0};
  struct mg_config flat = {6000, 6000 * 30, MG_FEM, 3, 27, 3, 0, 0};
  double imb[2];
  for (int k = 0; k < 2; k++) {
    struct mg_gen *g = gen(k ? flat : dense);
    struct sp_matrix *m = mg_gen_matrix(g);
    char *err = NULL;
    struct sp_part *p = sp_partition(m, 8, SP_GRAPH, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    imb[k] = nnz_imbalance(p);
    sp_part_free(p);
    sp_matrix_free(m);
    mg_gen_free(g);
  }
  CU_ASSERT(imb[0] > 1.1);
  CU_ASSERT(imb[1] < 1.1);
}
#endif

/* Same seed, same pattern; another seed drops other links. */
static void test_deterministic_from_seed(void) {
  struct mg_config c = {4000, 4000 * 5 - 1000, MG_GRAPH, 2, 5, 1, 0, 0};
  char *err = NULL;
  struct mg_gen *a = mg_gen_new(&c, 7, &err), *b = mg_gen_new(&c, 7, &err),
                *d = mg_gen_new(&c, 8, &err);
  int64_t *x = g_new(int64_t, mg_gen_max_len(a)), *y = g_new(int64_t, mg_gen_max_len(a));
  int64_t same = 0, differ = 0;
  for (int64_t i = 0; i < c.rows; i++) {
    int64_t n = mg_gen_row(a, i, x), m = mg_gen_row(b, i, y);
    same += n == m && !memcmp(x, y, sizeof *x * (size_t)n);
    m = mg_gen_row(d, i, y);
    differ += n != m || memcmp(x, y, sizeof *x * (size_t)n);
  }
  CU_ASSERT_EQUAL(same, c.rows);
  CU_ASSERT(differ > c.rows / 10);
  g_free(x);
  g_free(y);
  mg_gen_free(a);
  mg_gen_free(b);
  mg_gen_free(d);
}

/* Targets no symmetric pattern with a full diagonal can meet. */
static void test_impossible_targets(void) {
  char *err = NULL;
  struct mg_config odd = {100, 501, MG_STENCIL, 2, 5, 1, 0, 0};
  CU_ASSERT_PTR_NULL(mg_gen_new(&odd, 1, &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "nnz - rows even"));
  g_free(err);
  err = NULL;
  struct mg_config st = {100, 500, MG_STENCIL, 2, 7, 1, 0, 0};
  CU_ASSERT_PTR_NULL(mg_gen_new(&st, 1, &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "expected points 5 or 9 for dim 2"));
  g_free(err);
  err = NULL;
  /* 10 rows cannot hold 102 non-zeros (at most 100). */
  struct mg_config over = {10, 10 * 10 + 2, MG_STENCIL, 2, 5, 1, 0, 0};
  CU_ASSERT_PTR_NULL(mg_gen_new(&over, 1, &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "cannot hold nnz 102"));
  g_free(err);
}

/* Hand-built, 6 rows over 2 ranks (blocks of 3): rows 0-2 form a full 3 x
 * 3 block (9), rows 3-5 only their diagonal (3), and (2, 3) couples them.
 * Rank 0: 9 + 1 = 10 non-zeros, rank 1: 3 + 1 = 4; mean 7, so the
 * imbalance is 10 / 7 = 1.4286; each reads 1 value of the other (halo in
 * 1, out 1) and has 1 neighbour. Longest rows: row 2 (columns 0-3) 4,
 * row 3 (columns 2, 3) 2. */
static void test_cg_reports_per_rank_load(void) {
  static const char mtx[] = "%%MatrixMarket matrix coordinate pattern symmetric\n"
                            "6 6 10\n1 1\n2 1\n3 1\n2 2\n3 2\n3 3\n4 3\n4 4\n5 5\n6 6\n";
  char *m = tu_temp_file(".mtx", mtx, strlen(mtx));
  char *text = g_strdup_printf("workload: {kind: cg, source: file, file: '%s'}\n"
                               "policies: [cpufree]\nhardware: {network: {nodes: 2}}\n", m);
  char *sc = tu_temp_file(".yaml", text, strlen(text)), *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "json", NULL}, &out, &err), 0);
  static const char *const want[] = {
      "\"node0.cg.rows\": 3",      "\"node0.cg.nnz\": 10",      "\"node1.cg.nnz\": 4",
      "\"node0.cg.halo_in\": 1",   "\"node0.cg.halo_out\": 1",  "\"node1.cg.neighbours\": 1",
      "\"node0.cg.max_row\": 4",   "\"node1.cg.max_row\": 2",
      "\"node.cg.nnz\": {\"n\": 2, \"sum\": 14, \"mean\": 7, \"max\": 10, \"max_at\": \"node0.cg\"}",
      "\"cg.nnz_imbalance\": 1.42857",
  };
  for (size_t k = 0; k < G_N_ELEMENTS(want); k++) {
    bool found = out && strstr(out, want[k]);
    CU_ASSERT(found);
    if (!found) fprintf(stderr, "\n  missing %s", want[k]);
  }
  g_free(out);
  g_free(err);
  g_free(text);
  g_free(sc);
  g_free(m);
}

/* The SpMV tests' GPU: 1 CU x 1 WG of 1 item with 8 B in flight, 64 ns
 * memory latency, 1 Gbps, no L2, the SpMV class at the peak. */
static struct gpu_config tiny_gpu(void) {
  struct gpu_config g = {.clock = 1000000000, .cus = 1, .wgs_per_cu = 1, .flops_per_cu_cycle = 1,
                         .mem_bandwidth = 1000000000, .mem_latency = 64000, .wg_items = 1,
                         .item_bytes = 8, .bw_share = GPU_BW_KERNEL};
  g.eff[KC_SPMV] = g.lat[KC_SPMV] = 100;
  return g;
}

/* Rank 0's SpMV kernel (a copy) and its WGs in the CG program of C on
 * PART and G; false without one. */
static bool spmv_kernel(const struct cg_config *c, const struct sp_part *part,
                        const struct gpu_config *g, struct wl_kernel *kn, uint32_t *n_wgs) {
  struct wl_program *p = wl_cg_program(c, part, g, 1);
  bool found = false;
  for (size_t i = 0; i < p->ranks[0].n_ops && !found; i++) {
    const struct wl_op *o = &p->ranks[0].ops[i];
    if (o->kind == WL_COMPUTE && wl_kernel_of(p, o)->kclass == KC_SPMV) {
      *kn = *wl_kernel_of(p, o);
      *n_wgs = o->n_wgs;
      found = true;
    }
  }
  wl_program_free(p);
  return found;
}

/* The SpMV of one rank: 2 rows of 1 and 3 non-zeros (nnz 4, longest 3),
 * one row per WG (rows_per_wg 1), on a GPU of 1 CU x 1 WG of 1 item with
 * 8 B in flight, 64 ns memory latency, 1 Gbps, no L2 (tiny_gpu). Per WG, the mean
 * work: 2 non-zeros and 1 row: 12 x 2 + 20 = 44 B (20 B a row: its 4 B
 * row pointer, x's 8 B, y's 8 B; cg.c) plus 8 x (2 - 1) = 8 B of x
 * gathers: 52 B = 416 bit. R = 1: 1 / bw = 64 ns / 64 bit + 1 ns/bit = 2
 * ns/bit, so a WG takes 832 ns and the two (two waves of 1) 1664 ns. The
 * longest row's WG: 12 x 3 + 20 = 56 B + 8 x 2 = 16 B = 576 bit = 1152 ns,
 * longer than the last wave's 832 ns: the kernel lasts 1664 - 832 + 1152 =
 * 1984 ns, a stretch of 1984 / 1664 = 1.192308. Per WG: flops ceil(4 x
 * 1.192308) = ceil(4.77) = 5, bytes ceil(44 x 1.192308) = ceil(52.46) =
 * 53, gathers ceil(8 x 1.192308) = ceil(9.54) = 10. With a longest row of
 * 2 (the mean: regular) nothing stretches: 4, 44, 8. Without a GPU model
 * neither. */
static void test_spmv_stretched_to_longest_row(void) {
  struct gpu_config g = tiny_gpu();
  struct sp_rank rk = {.row0 = 0, .rows = 2, .nnz = 4};
  struct sp_part part = {.n_ranks = 1, .rows = 2, .nnz = 4, .ranks = &rk};
  struct cg_config c = {.variant = CG_STANDARD, .rows_per_wg = 1};
  static const struct {
    int64_t max_row;
    bool gpu;
    int64_t flops, bytes, reuse;
  } cases[] = {{3, true, 5, 53, 10}, {2, true, 4, 44, 8}, {3, false, 4, 44, 8}};
  for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
    rk.max_row = cases[k].max_row;
    struct wl_kernel kn;
    uint32_t wgs;
    CU_ASSERT_FATAL(spmv_kernel(&c, &part, cases[k].gpu ? &g : NULL, &kn, &wgs));
    CU_ASSERT_EQUAL(wgs, 2);
    CU_ASSERT_EQUAL(kn.flops_per_wg, cases[k].flops);
    CU_ASSERT_EQUAL(kn.bytes_per_wg, cases[k].bytes);
    CU_ASSERT_EQUAL(kn.reuse_per_wg, cases[k].reuse);
  }
}

/* The same rank with gpu.row_chain_latency 1 us (gpu.h "Row chain"): one
 * work-item's row loop lasts its non-zeros one after another, in place of
 * the longest row's WG timed alone above. A row a
 * work-item (rows_per_wg 1, 1 item), plain loads (x_reads default) with
 * spmv_unroll 1: the longest row's 3 non-zeros take 3 us, past the WG's
 * 1152 ns above, so the kernel lasts 1664 - 832 + 3000 = 3832 ns, a
 * stretch of 2.302885: flops ceil(9.21) = 10, bytes ceil(101.33) = 102,
 * gathers ceil(18.42) = 19. A regular rank (longest row 2, the mean) is
 * held to its chain too: 2 us, 1664 - 832 + 2000 = 2832 ns, 1.701923: 7,
 * ceil(74.88) = 75, ceil(13.62) = 14. With spmv_unroll 4 (4 loads in
 * flight) the longest row's chain is 750 ns: it replaces the WG's 1152 ns
 * (Little's law at one WG, the same chain at the memory's throughput
 * latency) and ends within the last wave's 832 ns, so nothing stretches:
 * 4, 44, 8. */
static void test_spmv_row_chain(void) {
  struct gpu_config g = tiny_gpu();
  g.row_chain_latency = 1000000;
  struct sp_rank rk = {.row0 = 0, .rows = 2, .nnz = 4};
  struct sp_part part = {.n_ranks = 1, .rows = 2, .nnz = 4, .ranks = &rk};
  struct cg_config c = {.variant = CG_STANDARD, .rows_per_wg = 1};
  static const struct {
    int64_t max_row, unroll;
    int64_t flops, bytes, reuse;
  } cases[] = {{3, 1, 10, 102, 19}, {2, 1, 7, 75, 14}, {3, 4, 4, 44, 8}};
  for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
    rk.max_row = cases[k].max_row;
    g.spmv_unroll = cases[k].unroll;
    struct wl_kernel kn;
    uint32_t wgs;
    CU_ASSERT_FATAL(spmv_kernel(&c, &part, &g, &kn, &wgs));
    CU_ASSERT_EQUAL(kn.flops_per_wg, cases[k].flops);
    CU_ASSERT_EQUAL(kn.bytes_per_wg, cases[k].bytes);
    CU_ASSERT_EQUAL(kn.reuse_per_wg, cases[k].reuse);
  }
}

/* The row with the most remote values under gets (gpu.h "Row chain"):
 * the rank above with 2 of its 4 non-zeros owned elsewhere, x read by
 * gets, a peer load 10 us (one in flight, the link's rate without
 * effect), row_chain_latency 1 us. A WG's mean work: 44 B (704 ns, as
 * above; no gathers: its 2 non-zeros less its row less its remote one)
 * and 1 peer load, 10 us: 10704 ns, two waves 21408 ns. The most-remote
 * row's work-item: with max_remote_row 2, its 2 remote loads one after
 * another, 20 us, and no other non-zero (m = 2): 20 us, past the longest
 * row's 3 us chain, so 21408 - 10704 + 20000 = 30704 ns, a stretch of
 * 1.434230: flops ceil(5.74) = 6, bytes ceil(63.11) = 64, peer loads
 * ceil(1.43) = 2 a WG. With max_remote_row 1: 1 remote load (10 us) and
 * its row's other non-zero (1 us): 11 us, 21704 ns, 1.013827: 5, ceil(44.61)
 * = 45, ceil(1.01) = 2. */
static void test_spmv_row_chain_remote(void) {
  struct gpu_config g = tiny_gpu();
  g.row_chain_latency = 1000000;
  g.peer_load_latency = 10000000;
  g.peer_bandwidth = INT64_C(1000000000000000000); /* the link without effect */
  g.peer_load_bytes = 8;
  g.peer_loads_in_flight = 1;
  struct sp_rank rk = {.row0 = 0, .rows = 2, .nnz = 4, .max_row = 3, .remote_nnz = 2};
  struct sp_part part = {.n_ranks = 1, .rows = 2, .nnz = 4, .ranks = &rk};
  struct cg_config c = {.variant = CG_STANDARD, .rows_per_wg = 1, .x_reads = CG_X_GET};
  static const struct {
    int64_t max_remote_row;
    int64_t flops, bytes, peer;
  } cases[] = {{2, 6, 64, 2}, {1, 5, 45, 2}};
  for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
    rk.max_remote_row = cases[k].max_remote_row;
    struct wl_kernel kn;
    uint32_t wgs;
    CU_ASSERT_FATAL(spmv_kernel(&c, &part, &g, &kn, &wgs));
    CU_ASSERT_EQUAL(kn.flops_per_wg, cases[k].flops);
    CU_ASSERT_EQUAL(kn.bytes_per_wg, cases[k].bytes);
    CU_ASSERT_EQUAL(kn.peer_per_wg, cases[k].peer);
  }
}

/* A catalogue entry runs by name; an unknown name is an error at its key. */
static void test_cg_from_the_catalogue(void) {
  static const char cat[] = "matrices:\n"
                            "  tiny:\n"
                            "    about: {kind: test}\n"
                            "    rows: 16\n    nnz: 64\n    class: stencil\n"
                            "    dim: 2\n    points: 5\n    dofs: 1\n";
  char *cf = tu_temp_file(".yaml", cat, strlen(cat));
  char *text = g_strdup_printf("workload: {kind: cg, source: catalogue, catalogue: '%s', "
                               "matrix: tiny}\npolicies: [cpufree]\nhardware: {network: {nodes: 4}}\n",
                               cf);
  char *sc = tu_temp_file(".yaml", text, strlen(text)), *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "json", NULL}, &out, &err), 0);
  /* As in test_stencil_2d_halo_by_hand: lines of 14, 18, 18, 14. */
  CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"node1.cg.nnz\": 18"));
  CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"node1.cg.halo_in\": 8"));
  CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"node1.cg.neighbours\": 2"));
  g_free(out);
  g_free(err);
  g_free(text);
  g_free(sc);
  text = g_strdup_printf("workload: {kind: cg, source: catalogue, catalogue: '%s', matrix: huge}\n"
                         "policies: [cpufree]\nhardware: {network: {nodes: 4}}\n", cf);
  sc = tu_temp_file(".yaml", text, strlen(text));
  err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "workload.matrix: expected a matrix of the catalogue"));
  g_free(err);
  g_free(text);
  g_free(sc);
  g_free(cf);
}

/* The run of catalogue entry t (4096 rows, 5-point 2D stencil, 40000
 * non-zeros, longest row MAX_ROW) with SETS, as JSON; NULL when it fails
 * (*ERR: its stderr). */
static char *entry_run(const char *entry, const char *set, char **err);
static char *max_row_run(int64_t max_row, const char *set, char **err) {
  char *entry = g_strdup_printf("    rows: 4096\n    nnz: 40000\n"
                                "    class: stencil\n    dim: 2\n    points: 5\n    dofs: 1\n"
                                "    max_row: %" PRId64 "\n", max_row);
  char *out = entry_run(entry, set, err);
  g_free(entry);
  return out;
}

/* The run of catalogue entry t (its lines ENTRY) with SET, as JSON; NULL
 * when it fails (*ERR: its stderr). */
static char *entry_run(const char *entry, const char *set, char **err) {
  char *cat = g_strdup_printf("matrices:\n  t:\n%s", entry);
  char *cf = tu_temp_file(".yaml", cat, strlen(cat));
  char *text = g_strdup_printf("workload: {kind: cg, source: catalogue, catalogue: '%s', "
                               "matrix: t}\npolicies: [cpufree]\nhardware: {network: {nodes: 2}}\n",
                               cf);
  char *sc = tu_temp_file(".yaml", text, strlen(text)), *out = NULL;
  int rc = tu_trigsim((const char *[]){"run", sc, "-f", "json", "--set", set, NULL}, &out, err);
  if (rc != 0) g_clear_pointer(&out, g_free);
  g_free(sc);
  g_free(text);
  g_free(cf);
  g_free(cat);
  return out;
}

/* The longest row over the ranks in run OUT's JSON (-1: none). */
static int64_t longest_row(const char *out) {
  const char *at = out ? strstr(out, "\"node.cg.max_row\": {") : NULL;
  const char *m = at ? strstr(at, "\"max\": ") : NULL;
  return m ? g_ascii_strtoll(m + strlen("\"max\": "), NULL, 10) : -1;
}

/* workload.max_row stands in for the entry's longest row: the entry
 * with 30 run with max_row 50 is the entry with 50, counter for counter
 * and time for time; 0 keeps the entry's (a longest row of M within the
 * bound "row lengths meet their targets" gives: M to 1.05 M, dofs 1);
 * a longest row longer than the rows is an error at workload.max_row. */
static void test_cg_max_row_override(void) {
  char *err = NULL;
  char *own = max_row_run(30, "workload.max_row=0", &err), *over = NULL, *as50 = NULL;
  g_free(err);
  err = NULL;
  CU_ASSERT(longest_row(own) >= 30 && longest_row(own) <= 31);
  over = max_row_run(30, "workload.max_row=50", &err);
  g_free(err);
  err = NULL;
  as50 = max_row_run(50, "workload.max_row=0", &err);
  g_free(err);
  err = NULL;
  CU_ASSERT_PTR_NOT_NULL_FATAL(over);
  CU_ASSERT_PTR_NOT_NULL_FATAL(as50);
  /* The scenarios' echo differs (names, where each value came from);
   * the run's results, from its policy's row on, are the same bytes. */
  static const char run[] = "\"policy\": \"cpufree\", \"total_time_ps\"";
  const char *a = strstr(over, run), *b = strstr(as50, run), *c = own ? strstr(own, run) : NULL;
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_STRING_EQUAL(a, b);
  CU_ASSERT(c && strcmp(a, c) != 0);
  CU_ASSERT(longest_row(over) >= 50 && longest_row(over) <= 52);
  g_free(own);
  g_free(over);
  g_free(as50);
  CU_ASSERT_PTR_NULL(max_row_run(30, "workload.max_row=1000000", &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "workload.max_row: expected a longest row the "
                                            "generator can build 't' with, got 1000000: "
                                            "expected max_row <= rows"));
  g_free(err);
}

/* workload.dense_nodes stands in for the entry's, as max_row: a 2D graph
 * entry (4096 rows, mean 4 under the 5-point stencil's 5: links drop;
 * longest row 30) with dense_nodes 0 run with the override 10 is the
 * entry with 10, result for result, and not the entry's own (one grid
 * line, 64 nodes); more than the grid's 4096 nodes is an error at
 * workload.dense_nodes. */
static void test_cg_dense_nodes_override(void) {
  static const char base[] = "    rows: 4096\n    nnz: 16384\n    class: graph\n    dim: 2\n"
                             "    points: 5\n    dofs: 1\n    max_row: 30\n";
  char *with10 = g_strdup_printf("%s    dense_nodes: 10\n", base), *err = NULL;
  char *own = entry_run(base, "workload.dense_nodes=0", &err);
  g_clear_pointer(&err, g_free);
  char *over = entry_run(base, "workload.dense_nodes=10", &err);
  g_clear_pointer(&err, g_free);
  char *as10 = entry_run(with10, "workload.dense_nodes=0", &err);
  g_clear_pointer(&err, g_free);
  CU_ASSERT_PTR_NOT_NULL_FATAL(own);
  CU_ASSERT_PTR_NOT_NULL_FATAL(over);
  CU_ASSERT_PTR_NOT_NULL_FATAL(as10);
  static const char run[] = "\"policy\": \"cpufree\", \"total_time_ps\"";
  const char *a = strstr(over, run), *b = strstr(as10, run), *c = strstr(own, run);
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  CU_ASSERT_STRING_EQUAL(a, b);
  CU_ASSERT(c && strcmp(a, c) != 0);
  g_free(own);
  g_free(over);
  g_free(as10);
  g_free(with10);
  CU_ASSERT_PTR_NULL(entry_run(base, "workload.dense_nodes=5000", &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "workload.dense_nodes: expected a dense node count "
                                            "the generator can build 't' with, got 5000: expected "
                                            "dense_nodes <= the grid's nodes, ceil(rows / dofs) "
                                            "= 4096, got 5000"));
  g_free(err);
}

/* Every entry of configs/matrices.yaml binds, and the smallest ones
 * generate exactly (the large ones take seconds: tools/table1.sh). */
static void test_shipped_catalogue(void) {
  const char *dir = g_getenv("TRIGSIM_CONFIGS");
  char *path = g_build_filename(dir ? dir : "configs", "matrices.yaml", NULL), *err = NULL;
  struct sc_node *root = sc_load_file(path, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(root);
  const struct sc_node *ms = sc_map_get(root, "matrices");
  CU_ASSERT_EQUAL(ms->n_pairs, 18);
  for (size_t i = 0; i < ms->n_pairs; i++) {
    struct mg_config c;
    CU_ASSERT(sc_bind_group(ms->pairs[i].value, "m", &mg_params, "about", &c, &err));
    if (c.nnz > 2000000) continue;
    struct mg_gen *g = gen(c);
    struct sp_part *p = mg_gen_partition(g, 8);
    CU_ASSERT_EQUAL(p->nnz, c.nnz);
    /* The ranks' longest rows, streamed, meet the whole matrix's. */
    struct mg_row_stats st;
    mg_gen_row_stats(g, &st);
    int64_t longest = 0;
    for (uint32_t r = 0; r < p->n_ranks; r++) longest = MAX(longest, p->ranks[r].max_row);
    CU_ASSERT_EQUAL(longest, st.max);
    sp_part_free(p);
    mg_gen_free(g);
  }
  sc_node_free(root);
  g_free(path);
}

/* models/gpu.h "L2 reuse", derived by hand; sizes in MiB (keep 40, evict
 * 56, an H200's). The probe's cycle (tools/calib/probes/l2_keep.cu): an
 * AXPY over x, y (16 each), a stream of S, the same AXPY: x's distance
 * at the second is S + 32 whatever phi: S = 8: 40, held; S = 16: 48,
 * half; S = 24: 56, none; at the first AXPY (just after the second) 32,
 * held. An SpMV over a matrix of 100 and p (4), then a dot of p: at
 * phi, 4 + (1 - phi) 100, from 104 to 4; held whole for phi >= 0.64,
 * none for phi <= 0.48, linear between (mean 1/2 over 0.16): 0.36 +
 * 0.08 = 0.44. A buffer only one op touches has the whole cycle between:
 * p read by op 1 alone of {M}, {p}: 100 + 4, none. */
static void test_l2_held(void) {
  const uint8_t probe[] = {1 | 2, 4, 1 | 2}, spmv[] = {1 | 2, 2}, lone[] = {1, 2};
  double sz[8] = {16, 16, 0, 0, 0, 0, 0, 0};
  for (int s = 8; s <= 24; s += 8) {
    sz[2] = s;
    double want = s == 8 ? 1.0 : s == 16 ? 0.5 : 0.0;
    CU_ASSERT_DOUBLE_EQUAL(wl_cg_l2_held(probe, 3, sz, 2, 0, 40, 56), want, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(wl_cg_l2_held(probe, 3, sz, 2, 1, 40, 56), want, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(wl_cg_l2_held(probe, 3, sz, 0, 0, 40, 56), 1.0, 1e-12);
  }
  double s2[8] = {100, 4, 0, 0, 0, 0, 0, 0};
  CU_ASSERT_DOUBLE_EQUAL(wl_cg_l2_held(spmv, 2, s2, 1, 1, 40, 56), 0.44, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(wl_cg_l2_held(lone, 2, s2, 1, 1, 40, 56), 0.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(wl_cg_l2_held(lone, 2, s2, 1, 1, 200, 200), 1.0, 1e-12);
}

/* The CPU-Free code's per-operation parts (workload.kernels axpy, dot):
 * the standard iteration's three AXPYs and two dots, each with the L2
 * share its place leaves it, derived by hand from the cycle (cg.c: M|p|s,
 * p|s, x|p, r|s, r, p|r) with keep = evict = K (a step: held iff the
 * distance <= K). One rank of 1024 rows and 10240 non-zeros: M = 12 x
 * 10240 + 4 x 1025 = 126980 B, a vector V = 8192 B; K = 40000 B (>= 4 V,
 * < M + 4 V). Saxpy 1 (x, p): x untouched since the op before, so the
 * whole cycle between (M + 4 V): cold, 8 B a row; p used by Dot 1 just
 * before (2 V): held. Saxpy 2 (r, s): r last in Saxpy 3, the SpMV
 * between: cold; s from Dot 1 (3 V to 4 V): held. Saxpy 3: p from Saxpy 1
 * (4 V to 3 V), r from Dot 2 (V to 2 V): held. Dot 1 (p, s) right after
 * the SpMV: the distance falls from M + 2 V to 2 V as both sweep, held
 * for (K - 2 V) / M = 23616 / 126980 of it, so 16 x (1 - 0.185982) =
 * 13.0243 B a row cold; Dot 2 (r, after Saxpy 2): held. At 256 rows a WG
 * (4 WGs): Saxpy 1 and 2 2048 B a WG, Dot 1 ceil(3334.22) = 3335 B. Without
 * the model (K = 0) none is cold; the dot part has its two resets. */
static void test_cg_parts_l2_shares(void) {
  struct gpu_config g = {.clock = 1000000000, .cus = 1, .wgs_per_cu = 1, .flops_per_cu_cycle = 1,
                         .mem_bandwidth = 1000000000, .wg_items = 1, .item_bytes = 8,
                         .l2_keep_bytes = 40000, .l2_evict_bytes = 40000};
  struct sp_rank rk = {.row0 = 0, .rows = 1024, .nnz = 10240, .max_row = 10};
  struct sp_part part = {.n_ranks = 1, .rows = 1024, .nnz = 10240, .ranks = &rk};
  static const struct {
    int kernels;
    int64_t keep;
    size_t n;
    int64_t cold[3];
  } cases[] = {{CG_ONLY_AXPY, 40000, 3, {2048, 2048, 0}}, {CG_ONLY_DOT, 40000, 2, {3335, 0}},
               {CG_ONLY_AXPY, 0, 3, {0, 0, 0}}, {CG_ONLY_DOT, 0, 2, {0, 0}}};
  for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
    g.l2_keep_bytes = g.l2_evict_bytes = cases[k].keep;
    struct cg_config c = {.variant = CG_STANDARD, .rows_per_wg = 256,
                          .kernels = cases[k].kernels, .op_host_sync = true};
    struct wl_program *p = wl_cg_program(&c, &part, &g, 1);
    size_t n = 0, resets = 0;
    for (size_t i = 0; i < p->ranks[0].n_ops; i++) {
      const struct wl_op *op = &p->ranks[0].ops[i];
      if (op->kind != WL_COMPUTE) continue;
      const struct wl_kernel *kn = wl_kernel_of(p, op);
      if (kn->kclass == KC_STREAM) {
        resets++;
        continue;
      }
      CU_ASSERT_EQUAL(kn->kclass, cases[k].kernels == CG_ONLY_DOT ? KC_REDUCE : KC_AXPY);
      CU_ASSERT_EQUAL(op->n_wgs, 4);
      if (n < cases[k].n) CU_ASSERT_EQUAL(kn->cold_per_wg, cases[k].cold[n]);
      n++;
    }
    CU_ASSERT_EQUAL(n, cases[k].n);
    CU_ASSERT_EQUAL(resets, cases[k].kernels == CG_ONLY_DOT ? 2 : 0);
    wl_program_free(p);
  }
}

int main(void) {
  static const struct tu_test tests[] = {
      {"2D stencil halo by hand", test_stencil_2d_halo_by_hand},
      {"classes: exact, symmetric, SPD, streamed = assembled", test_classes_exact_symmetric_spd},
      {"row lengths meet their targets", test_row_lengths_meet_targets},
      {"dense layers unbalance blocks", test_dense_layers_imbalance_blocks},
      {"dense_nodes: the dense nodes dropout leaves room for", test_dense_nodes},
      {"dense_nodes only where it acts", test_dense_nodes_errors},
#ifdef TRIGSIM_HAVE_METIS
      {"dense layers unbalance METIS parts", test_dense_layers_imbalance_metis},
#endif
      {"deterministic from the seed", test_deterministic_from_seed},
      {"impossible targets", test_impossible_targets},
      {"cg reports per-rank load", test_cg_reports_per_rank_load},
      {"SpMV stretched to its longest row", test_spmv_stretched_to_longest_row},
      {"SpMV held to a work-item's row chain", test_spmv_row_chain},
      {"SpMV held to the most-remote row's chain", test_spmv_row_chain_remote},
      {"cg from the catalogue", test_cg_from_the_catalogue},
      {"workload.max_row replaces the entry's", test_cg_max_row_override},
      {"workload.dense_nodes replaces the entry's", test_cg_dense_nodes_override},
      {"shipped catalogue", test_shipped_catalogue},
      {"L2 reuse: held shares of a CG cycle's buffers", test_l2_held},
      {"L2 reuse: the parts' AXPYs and dots where the iteration has them", test_cg_parts_l2_shares},
      {NULL, NULL},
  };
  return tu_run_suite("matgen", tests);
}
