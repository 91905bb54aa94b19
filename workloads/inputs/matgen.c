/* Structural matrix generators (matgen.h), standing in for CPU-free ICS23
 * Table 1's SuiteSparse matrices: the nodes of a cube grid (lexicographic,
 * x fastest; only the first ceil(rows / dofs) exist) are coupled by a
 * 5/9/7/27-point stencil, each coupling a full dofs x dofs block (3D
 * elasticity: blocks of 3). Three mechanisms shape it, the same for every
 * matrix, computed from its catalogue entry (rows, nnz, max_row):
 *  - dense clusters: where a longest row is published above the stencil's,
 *    some grid layers are "dense": a dense node couples to its K nearest
 *    nodes (K + 1 = max_row / dofs). Layers (a z-plane in 3D, a grid line
 *    in 2D) turn dense one after the other, in an order drawn from the
 *    seed, the last one partly (its first nodes): as many as nnz allows
 *    (<= the target). Where dropout thins the stencil (below), it leaves
 *    room for dense_nodes of them (0: one layer, the smallest clustered
 *    region holding the longest row). Dense regions the size of a layer
 *    are an estimate (a mesh feature spanning a layer of the ordering); it
 *    is what turns a row-length spread into imbalance between contiguous
 *    blocks, and where a matrix's measured parts tell it, dense_nodes is
 *    fitted to them (configs/matrices.yaml).
 *  - dropout (graph class, or a stencil over the target by more than 1%):
 *    each link between nodes is kept with the probability that brings the
 *    expected nnz 4 standard deviations under the target.
 *  - trim: the remaining difference is made exact by removing x-links'
 *    dof pairs, evenly spaced, or adding pairs on diagonals just beyond the
 *    pattern's reach (row distance g0, g0 + 1, ...).
 * Every coupling rule is symmetric, so the pattern is. */
#include "matgen.h"

#include <glib.h>
#include <gsl/gsl_rstat.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define PAR_CONFIG struct mg_config
static const struct par_decl mg_decls[] = {
    PAR(rows, PAR_INT, "1000", "1", "10000000000", NULL, "rows, exact"),
    PAR(nnz, PAR_INT, "5000", "1", "1000000000000", NULL, "non-zeros, exact"),
    PAR(class, PAR_ENUM, "stencil", NULL, NULL, "stencil|fem|graph",
      "class: stencil (one row per grid point), fem (blocks of dofs per node), graph (links "
      "dropped at random to reach a sparser target)"),
    PAR(dim, PAR_INT, "2", "2", "3", NULL, "grid dimensions"),
    PAR(points, PAR_INT, "5", "5", "27", NULL, "stencil: 5 or 9 (2D), 7 or 27 (3D)"),
    PAR(dofs, PAR_INT, "1", "1", "64", NULL, "rows per grid node (3 for 3D elasticity)"),
    PAR(max_row, PAR_INT, "0", "0", "1000000", NULL,
      "published longest row (0: none published; the grid stays regular)"),
    PAR(dense_nodes, PAR_INT, "0", "0", "10000000000", NULL,
      "dense nodes the dropout leaves room for, where a longest row above the stencil's makes "
      "some (0: one grid layer, the estimate; tools/cpufree-fit.sh stage 5 fits it to a "
      "matrix's SpMV parts)"),
};
#undef PAR_CONFIG

const struct par_group mg_params = {
    .name = "matrix",
    .doc = "a generated sparse matrix by structural class (configs/matrices.yaml)",
    .decls = mg_decls,
    .n_decls = PAR_COUNT(mg_decls),
    .config_size = sizeof(struct mg_config),
};

struct mg_gen {
  struct mg_config c;
  uint64_t seed;
  int64_t n;         /* rows */
  int64_t b;         /* dofs */
  int64_t nodes, s;  /* existing nodes, grid side */
  int dim;
  int n_st;          /* stencil offsets, without 0 */
  int st[26][3];
  uint64_t keep_thr; /* link kept iff hash < keep_thr; UINT64_MAX: all */
  int64_t K;         /* dense: neighbours of a dense node; 0: none */
  int (*cube)[3];    /* the K nearest offsets */
  int64_t layer;     /* nodes per cluster */
  int64_t n_cl;      /* layers */
  int64_t *cl_rank;  /* each layer's place in the dense order */
  int64_t dense_full, dense_part; /* layers of rank < full dense; rank == full: first part nodes */
  bool *near;        /* layer within the cube's radius of a dense node */
  int r;             /* the cube's radius, in layers too */
  int64_t reach;     /* max |row - col| before the trim */
  int64_t del_q, del_e; /* removal: E of Q x-link dof pairs */
  int64_t g0, add_f, add_m, add_p; /* additions: F full diagonals, P of M on the next */
  int64_t max_len;
};

static uint64_t mix(uint64_t x) { /* splitmix64's finalizer */
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static uint64_t hash2(uint64_t seed, uint64_t a, uint64_t b) {
  return mix(mix(seed ^ mix(a)) ^ b);
}

/* floor(A * B / C) without overflow for A, B, C < 2^62. */
static int64_t muldiv(int64_t a, int64_t b, int64_t c) {
  __extension__ unsigned __int128 p = (unsigned __int128)a * (unsigned __int128)b;
  return (int64_t)(p / (unsigned __int128)c);
}

/* ---------------------------------------------------------------- nodes */

static bool dense(const struct mg_gen *g, int64_t k) {
  int64_t rank = g->cl_rank[k / g->layer];
  return rank < g->dense_full || (rank == g->dense_full && k % g->layer < g->dense_part);
}

/* Sets the first D nodes of the dense order dense, and NEAR. */
static void set_dense(struct mg_gen *g, int64_t d) {
  g->dense_full = d / g->layer;
  g->dense_part = d % g->layer;
  memset(g->near, 0, sizeof(bool) * (size_t)g->n_cl);
  for (int64_t c = 0; c < g->n_cl; c++)
    if (g->cl_rank[c] < g->dense_full || (g->cl_rank[c] == g->dense_full && g->dense_part))
      for (int64_t t = MAX(0, c - g->r); t <= MIN(g->n_cl - 1, c + g->r); t++) g->near[t] = true;
}

static bool kept(const struct mg_gen *g, int64_t k, int64_t m) {
  if (g->keep_thr == UINT64_MAX) return true;
  return hash2(g->seed, 2 + (uint64_t)MIN(k, m), (uint64_t)MAX(k, m)) < g->keep_thr;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Node K's coupled nodes, itself included, ascending and distinct, into OUT;
 * returns how many. */
/* The node at offset O from the node at (X, Y, Z) = K, as node_at. */
static inline bool node_off(const struct mg_gen *g, int64_t k, int64_t x, int64_t y, int64_t z,
                            const int o[3], int sign, int64_t *m) {
  int64_t s = g->s, xx = x + sign * o[0], yy = y + sign * o[1], zz = z + sign * o[2];
  if (xx < 0 || xx >= s || yy < 0 || yy >= s || zz < 0 || (g->dim == 2 ? zz != 0 : zz >= s))
    return false;
  int64_t id = k + sign * (o[0] + s * (o[1] + s * o[2]));
  if (id >= g->nodes) return false;
  *m = id;
  return true;
}

static int64_t node_nbrs(const struct mg_gen *g, int64_t k, int64_t *out) {
  int64_t n = 0, m;
  int64_t x = k % g->s, y = (k / g->s) % g->s, z = k / g->s / g->s;
  out[n++] = k;
  for (int t = 0; t < g->n_st; t++)
    if (node_off(g, k, x, y, z, g->st[t], 1, &m) && kept(g, k, m)) out[n++] = m;
  if (g->K && g->near[k / g->layer]) {
    if (dense(g, k))
      for (int64_t t = 0; t < g->K; t++)
        if (node_off(g, k, x, y, z, g->cube[t], 1, &m)) out[n++] = m;
    for (int64_t t = 0; t < g->K; t++)
      if (node_off(g, k, x, y, z, g->cube[t], -1, &m) && dense(g, m)) out[n++] = m;
  }
  if (n > 64) {
    qsort(out, (size_t)n, sizeof *out, cmp_i64);
  } else { /* a stencil's few: insertion sort, no calls */
    for (int64_t t = 1; t < n; t++) {
      int64_t v = out[t], u = t;
      for (; u > 0 && out[u - 1] > v; u--) out[u] = out[u - 1];
      out[u] = v;
    }
  }
  int64_t w = 0;
  for (int64_t t = 0; t < n; t++)
    if (w == 0 || out[t] != out[w - 1]) out[w++] = out[t];
  return w;
}

static int64_t node_rows(const struct mg_gen *g, int64_t k) { return MIN(g->b, g->n - k * g->b); }

/* Non-zeros before the trim of nodes [K0, K1): rows of each node x
 * columns of its nodes. */
static int64_t count_range(const struct mg_gen *g, int64_t k0, int64_t k1, int64_t *buf) {
  int64_t nnz = 0;
  for (int64_t k = k0; k < k1; k++) {
    int64_t len = node_nbrs(g, k, buf), cols = 0;
    for (int64_t t = 0; t < len; t++) cols += node_rows(g, buf[t]);
    nnz += node_rows(g, k) * cols;
  }
  return nnz;
}

static int64_t count_nnz(const struct mg_gen *g, int64_t *buf) {
  return count_range(g, 0, g->nodes, buf);
}

static int64_t count_layer(const struct mg_gen *g, int64_t c, int64_t *buf) {
  return count_range(g, c * g->layer, MIN(g->nodes, (c + 1) * g->layer), buf);
}

/* nnz with the first D nodes of the dense order dense: BASE (none dense)
 * plus what changes in the layers near a dense node (BASE_CL per layer). */
static int64_t count_dense(struct mg_gen *g, int64_t d, int64_t base, const int64_t *base_cl,
                           int64_t *buf) {
  set_dense(g, d);
  int64_t nnz = base;
  for (int64_t c = 0; c < g->n_cl; c++)
    if (g->near[c]) nnz += count_layer(g, c, buf) - base_cl[c];
  return nnz;
}

/* ----------------------------------------------------------------- trim */

/* The x-link of node K (to K + 1): its index, or -1 when it has none. */
static int64_t xlink(const struct mg_gen *g, int64_t k) {
  if (k < 0 || k % g->s == g->s - 1 || k + 1 >= g->n / g->b) return -1; /* both nodes full */
  return (k / g->s) * (g->s - 1) + k % g->s;
}

static int64_t xlinks(const struct mg_gen *g) {
  int64_t whole = g->n / g->b; /* nodes with all their dofs */
  int64_t full = whole / g->s, rem = whole % g->s;
  return full * (g->s - 1) + MAX(rem - 1, 0);
}

/* Whether item Q of Q_TOTAL is one of the E picked evenly: q = floor(e Q / E). */
static bool picked(int64_t q, int64_t q_total, int64_t e_total) {
  if (e_total <= 0) return false;
  int64_t e = muldiv(q, e_total, q_total);
  if (muldiv(e, q_total, e_total) < q) e++;
  return e < e_total && muldiv(e, q_total, e_total) == q;
}

/* Whether the dof pair (row I, column J), J on the x-link's other node, is
 * removed. */
static bool removed(const struct mg_gen *g, int64_t i, int64_t j) {
  if (!g->del_e) return false;
  int64_t ki = i / g->b, kj = j / g->b, lo = MIN(ki, kj);
  if (MAX(ki, kj) != lo + 1) return false;
  int64_t l = xlink(g, lo);
  if (l < 0) return false;
  int64_t a = (ki == lo ? i : j) % g->b, c = (ki == lo ? j : i) % g->b;
  return picked(l * g->b * g->b + a * g->b + c, g->del_q, g->del_e);
}

/* How many of [Q0, Q1) are picked (as picked()): e with floor(e Q / E) in
 * the range are those in [ceil(Q0 E / Q), ceil(Q1 E / Q)). */
static int64_t picked_in(int64_t q0, int64_t q1, int64_t q_total, int64_t e_total) {
  if (e_total <= 0 || q1 <= q0) return 0;
  int64_t e0 = muldiv(q0, e_total, q_total), e1 = muldiv(q1, e_total, q_total);
  if (muldiv(e0, q_total, e_total) < q0) e0++;
  if (muldiv(e1, q_total, e_total) < q1) e1++;
  return MIN(e1, e_total) - MIN(e0, e_total);
}

/* Row I's length given COLS, the number of columns its node's blocks give
 * (before removals): less the removed pairs, plus the added ones. */
static int64_t row_len(const struct mg_gen *g, int64_t i, int64_t cols) {
  int64_t k = i / g->b, d = i % g->b, b2 = g->b * g->b, len = cols;
  if (g->del_e) {
    int64_t l = xlink(g, k);
    if (l >= 0) len -= picked_in(l * b2 + d * g->b, l * b2 + d * g->b + g->b, g->del_q, g->del_e);
    l = xlink(g, k - 1);
    if (l >= 0)
      for (int64_t d1 = 0; d1 < g->b; d1++) len -= picked(l * b2 + d1 * g->b + d, g->del_q, g->del_e);
  }
  len += CLAMP(g->n - i - g->g0, 0, g->add_f) + CLAMP(i - g->g0 + 1, 0, g->add_f);
  if (g->add_p) {
    len += i < g->add_m && picked(i, g->add_m, g->add_p);
    len += i - g->g0 - g->add_f >= 0 && picked(i - g->g0 - g->add_f, g->add_m, g->add_p);
  }
  return len;
}

int64_t mg_gen_row(const struct mg_gen *g, int64_t i, int64_t *cols) {
  int64_t n = 0, k = i / g->b;
  /* Added pairs below: columns i - g0 - t, ascending (t descending). */
  if (g->add_p && i - g->g0 - g->add_f >= 0 && picked(i - g->g0 - g->add_f, g->add_m, g->add_p))
    cols[n++] = i - g->g0 - g->add_f;
  for (int64_t t = g->add_f - 1; t >= 0; t--)
    if (i - g->g0 - t >= 0) cols[n++] = i - g->g0 - t;
  /* The nodes' blocks. */
  int64_t *list = cols + g->max_len / 2; /* scratch: the upper half */
  int64_t len = node_nbrs(g, k, list);
  for (int64_t t = 0; t < len; t++)
    for (int64_t d = 0; d < node_rows(g, list[t]); d++) {
      int64_t j = list[t] * g->b + d;
      if (!removed(g, i, j)) cols[n++] = j;
    }
  for (int64_t t = 0; t < g->add_f; t++)
    if (i + g->g0 + t < g->n) cols[n++] = i + g->g0 + t;
  if (g->add_p && i < g->add_m && picked(i, g->add_m, g->add_p)) cols[n++] = i + g->g0 + g->add_f;
  return n;
}

/* ---------------------------------------------------------------- setup */

static void set_stencil(struct mg_gen *g) {
  int r = g->dim == 3 ? 1 : 0;
  g->n_st = 0;
  for (int dz = -r; dz <= r; dz++)
    for (int dy = -1; dy <= 1; dy++)
      for (int dx = -1; dx <= 1; dx++) {
        int nz = (dx != 0) + (dy != 0) + (dz != 0);
        if (nz == 0) continue;
        bool full = g->c.points == 9 || g->c.points == 27;
        if (!full && nz > 1) continue;
        g->st[g->n_st][0] = dx;
        g->st[g->n_st][1] = dy;
        g->st[g->n_st++][2] = dz;
      }
}

static int cmp_off(const void *a, const void *b) {
  const int *x = a, *y = b;
  int cx = MAX(abs(x[0]), MAX(abs(x[1]), abs(x[2]))), cy = MAX(abs(y[0]), MAX(abs(y[1]), abs(y[2])));
  if (cx != cy) return cx - cy;
  int sx = abs(x[0]) + abs(x[1]) + abs(x[2]), sy = abs(y[0]) + abs(y[1]) + abs(y[2]);
  if (sx != sy) return sx - sy;
  for (int d = 2; d >= 0; d--)
    if (x[d] != y[d]) return x[d] - y[d];
  return 0;
}

/* The K nearest non-zero offsets (Chebyshev, then Manhattan distance);
 * returns the radius they span. */
static int set_cube(struct mg_gen *g) {
  int r = 1;
  while (1) {
    int64_t side = 2 * r + 1, vol = g->dim == 3 ? side * side * side : side * side;
    if (vol - 1 >= g->K) break;
    r++;
  }
  int side = 2 * r + 1, rz = g->dim == 3 ? r : 0;
  int (*all)[3] = g_malloc(sizeof(int[3]) * (size_t)side * side * (2 * rz + 1));
  int64_t n = 0;
  for (int dz = -rz; dz <= rz; dz++)
    for (int dy = -r; dy <= r; dy++)
      for (int dx = -r; dx <= r; dx++)
        if (dx || dy || dz) {
          all[n][0] = dx;
          all[n][1] = dy;
          all[n++][2] = dz;
        }
  qsort(all, (size_t)n, sizeof *all, cmp_off);
  g->cube = all;
  return r;
}

static int64_t reach_of(const struct mg_gen *g, int r) {
  int64_t lin = r * (1 + g->s + (g->dim == 3 ? g->s * g->s : 0));
  return (lin + 1) * g->b;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

bool mg_config_check(const struct mg_config *cc, char **err) {
  bool st_ok = cc->dim == 2 ? (cc->points == 5 || cc->points == 9)
                            : (cc->points == 7 || cc->points == 27);
  if (!st_ok) {
    *err = g_strdup_printf("expected points 5 or 9 for dim 2, 7 or 27 for dim 3, got %" PRId64
                           " for dim %" PRId64, cc->points, cc->dim);
    return false;
  }
  if (cc->max_row > cc->rows) {
    *err = g_strdup_printf("expected max_row <= rows (a row holds at most one non-zero a "
                           "column), got max_row %" PRId64 " for %" PRId64 " rows",
                           cc->max_row, cc->rows);
    return false;
  }
  if (cc->dense_nodes > 0 && cc->max_row <= cc->dofs * cc->points) {
    *err = g_strdup_printf("expected dense_nodes only with a longest row above the stencil's "
                           "(max_row > dofs x points = %" PRId64 "), got dense_nodes %" PRId64
                           " with max_row %" PRId64 ": no node is dense",
                           cc->dofs * cc->points, cc->dense_nodes, cc->max_row);
    return false;
  }
  if (cc->dense_nodes > (cc->rows + cc->dofs - 1) / cc->dofs) {
    *err = g_strdup_printf("expected dense_nodes <= the grid's nodes, ceil(rows / dofs) = %" PRId64
                           ", got %" PRId64, (cc->rows + cc->dofs - 1) / cc->dofs, cc->dense_nodes);
    return false;
  }
  if (cc->nnz < cc->rows || (cc->nnz - cc->rows) % 2) {
    *err = g_strdup_printf("expected nnz >= rows with nnz - rows even (a symmetric pattern with a "
                           "full diagonal), got rows %" PRId64 ", nnz %" PRId64, cc->rows, cc->nnz);
    return false;
  }
  return true;
}

struct mg_gen *mg_gen_new(const struct mg_config *c, uint64_t seed, char **err) {
  if (!mg_config_check(c, err)) return NULL;
  struct mg_gen *g = g_new0(struct mg_gen, 1);
  g->c = *c;
  g->seed = seed;
  g->n = c->rows;
  g->b = c->dofs;
  g->dim = (int)c->dim;
  g->nodes = (c->rows + c->dofs - 1) / c->dofs;
  g->s = (int64_t)floor(pow((double)g->nodes, 1.0 / g->dim));
  while ((g->dim == 3 ? g->s * g->s * g->s : g->s * g->s) < g->nodes) g->s++;
  g->s = MAX(g->s, 2);
  g->keep_thr = UINT64_MAX;
  g->layer = g->dim == 3 ? g->s * g->s : g->s;
  set_stencil(g);
  int r = 1;
  int64_t st_len = g->b * (g->n_st + 1);
  if (c->max_row > st_len) {
    g->K = c->max_row / g->b - 1;
    r = set_cube(g);
    g->r = r;
    g->n_cl = (g->nodes + g->layer - 1) / g->layer;
    g->near = g_new0(bool, g->n_cl); /* none dense until the search below */
    g->cl_rank = g_new(int64_t, g->n_cl);
  }
  int64_t side = 2 * r + 1;
  int64_t vol = g->dim == 3 ? side * side * side : side * side;
  /* Node list: self, stencil, and up to 2 K dense partners before dedup. */
  int64_t list = 1 + g->n_st + 2 * g->K;
  int64_t *buf = g_new(int64_t, list);
  int64_t target = c->nnz;

  /* Dense order: layers by their hash. Links drop around dense_nodes of
   * them where a longest row is published (0: one layer, the smallest
   * clustered region holding it), and the nodes that turn dense are as
   * many as the mean then allows. */
  int64_t d0 = 0;
  if (g->K) {
    int64_t n_cl = g->n_cl;
    struct { uint64_t h; int64_t c; } *ord = g_malloc(sizeof *ord * (size_t)n_cl);
    for (int64_t t = 0; t < n_cl; t++) {
      ord[t].h = hash2(seed, 1, (uint64_t)t);
      ord[t].c = t;
    }
    qsort(ord, (size_t)n_cl, sizeof *ord, cmp_u64); /* by h, the first field */
    for (int64_t t = 0; t < n_cl; t++) g->cl_rank[ord[t].c] = t;
    g_free(ord);
    d0 = MIN(c->dense_nodes > 0 ? c->dense_nodes : g->layer, g->nodes);
    set_dense(g, d0);
  }
  {
    /* Dropout: the graph class always, any class whose full stencil is
     * over the target by more than the 1% the trim removes. Only stencil
     * links drop, not a dense node's. */
    int64_t full = count_nnz(g, buf);
    if (full > target && (c->class == MG_GRAPH || (double)(full - target) > 0.01 * (double)target)) {
      g->keep_thr = 0;
      int64_t none = count_nnz(g, buf), off = full - none;
      double p = (double)(target - none) / (double)off;
      for (int it = 0; it < 2; it++) { /* 4 standard deviations under */
        double links = (double)off / (2.0 * g->b * g->b);
        double sd = 2.0 * g->b * g->b * sqrt(links * MAX(0.0, p * (1 - p)));
        p = MAX(0.0, ((double)(target - none) - 4 * sd) / (double)off);
      }
      g->keep_thr = p >= 1 ? UINT64_MAX : (uint64_t)(p * 18446744073709551616.0);
    }
    if (c->dense_nodes > 0 && g->keep_thr == UINT64_MAX) {
      *err = g_strdup_printf("expected dense_nodes only where links drop around the dense nodes "
                             "(class graph, or a stencil over nnz by more than 1 %%), got "
                             "dense_nodes %" PRId64 " for a %s matrix whose stencil gives %" PRId64
                             " non-zeros against nnz %" PRId64 ": its mean alone sets the dense "
                             "nodes (leave dense_nodes 0)",
                             c->dense_nodes, c->class == MG_FEM ? "fem" : "stencil", full, target);
      mg_gen_free(g);
      g_free(buf);
      return NULL;
    }
  }
  if (g->K) {
    /* The most dense nodes that keep nnz <= target (nnz grows with every
     * dense node): whole layers first, doubling (so the first counts only
     * visit the few layers near the dense ones), then the nodes of the
     * next layer, counting only the layers within reach of it. */
    int64_t n_cl = g->n_cl, layer = g->layer;
    set_dense(g, 0);
    int64_t base = 0, *base_cl = g_new(int64_t, n_cl);
    for (int64_t cl = 0; cl < n_cl; cl++) base += base_cl[cl] = count_layer(g, cl, buf);
    int64_t lo = 0, hi = 1;
    while (hi <= n_cl && count_dense(g, MIN(g->nodes, hi * layer), base, base_cl, buf) <= target) {
      lo = hi;
      hi *= 2;
    }
    hi = MIN(hi - 1, n_cl);
    while (lo < hi) {
      int64_t mid = lo + (hi - lo + 1) / 2;
      if (count_dense(g, MIN(g->nodes, mid * layer), base, base_cl, buf) <= target) lo = mid;
      else hi = mid - 1;
    }
    int64_t dense_nodes = MIN(g->nodes, lo * layer);
    if (dense_nodes < g->nodes) {
      int64_t at = count_dense(g, dense_nodes, base, base_cl, buf), c_next = 0;
      for (int64_t cl = 0; cl < n_cl; cl++)
        if (g->cl_rank[cl] == lo) c_next = cl;
      int64_t w0 = MAX(0, c_next - g->r), w1 = MIN(n_cl - 1, c_next + g->r);
      int64_t *at_cl = g_new(int64_t, w1 - w0 + 1);
      for (int64_t cl = w0; cl <= w1; cl++) at_cl[cl - w0] = count_layer(g, cl, buf);
      int64_t plo = 0, phi = MIN(layer, g->nodes - c_next * layer) - 1;
      while (plo < phi) {
        int64_t mid = plo + (phi - plo + 1) / 2, nnz = at;
        set_dense(g, dense_nodes + mid);
        for (int64_t cl = w0; cl <= w1; cl++) nnz += count_layer(g, cl, buf) - at_cl[cl - w0];
        if (nnz <= target) plo = mid;
        else phi = mid - 1;
      }
      dense_nodes += plo;
      g_free(at_cl);
    }
    set_dense(g, dense_nodes);
    g_free(base_cl);
  }
  int64_t have = count_nnz(g, buf);
  g_free(buf);
  g->reach = reach_of(g, r);
  g->max_len = g->b * (vol + 1);
  int64_t d = target - have;
  if (d < 0) {
    g->del_q = xlinks(g) * g->b * g->b;
    g->del_e = -d / 2;
    if (g->keep_thr != UINT64_MAX || g->del_e > g->del_q) {
      *err = g_strdup_printf("expected a target the class can reach: its stencil gives %" PRId64
                             " non-zeros, %" PRId64 " more than nnz %" PRId64
                             " (try a smaller stencil, or class graph)",
                             have, -d, target);
      mg_gen_free(g);
      return NULL;
    }
  } else if (d > 0) {
    g->g0 = g->reach + 1;
    int64_t pairs = d / 2, t = 0;
    while (g->g0 + t < g->n && pairs >= g->n - g->g0 - t) pairs -= g->n - g->g0 - t++;
    g->add_f = t;
    g->add_m = g->n - g->g0 - t;
    g->add_p = pairs;
    if (pairs > 0 && g->add_m <= 0) {
      *err = g_strdup_printf("expected a target the class can reach: %" PRId64
                             " rows cannot hold nnz %" PRId64, g->n, target);
      mg_gen_free(g);
      return NULL;
    }
    g->max_len += 2 * (g->add_f + 1);
  }
  /* mg_gen_row keeps its node list in the buffer's upper half. */
  g->max_len = 2 * (g->max_len + list);
  return g;
}

void mg_gen_free(struct mg_gen *g) {
  if (!g) return;
  g_free(g->cube);
  g_free(g->near);
  g_free(g->cl_rank);
  g_free(g);
}

int64_t mg_gen_max_len(const struct mg_gen *g) { return g->max_len; }
int64_t mg_gen_rows(const struct mg_gen *g) { return g->n; }

/* ------------------------------------------------------------- consumers */

struct build_ctx {
  const struct mg_gen *g;
};

static int64_t build_row(void *ctx, int64_t i, int64_t *cols, double *vals) {
  const struct mg_gen *g = ((struct build_ctx *)ctx)->g;
  int64_t n = mg_gen_row(g, i, cols);
  for (int64_t t = 0; t < n; t++) vals[t] = cols[t] == i ? (double)(2 * n - 1) : -1.0;
  return n;
}

struct sp_matrix *mg_gen_matrix(const struct mg_gen *g) {
  struct build_ctx ctx = {g};
  return sp_matrix_from_rows(g->n, g->max_len, build_row, &ctx);
}

struct sp_part *mg_gen_partition(const struct mg_gen *g, uint32_t ranks) {
  struct sp_part *p = sp_part_new_blocks(g->n, ranks);
  if (!p) return NULL;
  int64_t *cols = g_new(int64_t, g->max_len);
  GArray *remote = g_array_new(FALSE, FALSE, sizeof(int64_t));
  struct sp_warps warps;
  sp_warps_init(&warps);
  int64_t total = 0;
  for (uint32_t r = 0; r < ranks; r++) {
    struct sp_rank *rk = &p->ranks[r];
    int64_t a = rk->row0, b = rk->row0 + rk->rows, nnz = 0, longest = 0, remote_row = 0;
    g_array_set_size(remote, 0);
    int64_t node = -1, node_cols = 0, lo = 0, hi = 0;
    int64_t *list = cols + g->max_len / 2; /* as mg_gen_row's scratch */
    for (int64_t i = a; i < b; i++) {
      /* Rows whose columns all lie in the block only need their length:
       * from their node's list, once per node. */
      if (i / g->b != node) {
        node = i / g->b;
        int64_t n = node_nbrs(g, node, list);
        node_cols = 0;
        for (int64_t t = 0; t < n; t++) node_cols += node_rows(g, list[t]);
        lo = list[0] * g->b;
        hi = list[n - 1] * g->b + node_rows(g, list[n - 1]);
      }
      bool extras = g->add_f || g->add_p;
      if (lo >= a && hi <= b && (!extras || (i - g->g0 - g->add_f >= a && i + g->g0 + g->add_f < b))) {
        int64_t len = row_len(g, i, node_cols);
        nnz += len;
        longest = MAX(longest, len);
        continue;
      }
      int64_t len = mg_gen_row(g, i, cols);
      nnz += len;
      longest = MAX(longest, len);
      node = -1; /* mg_gen_row used the scratch */
      if (cols[0] >= a && cols[len - 1] < b) continue;
      guint before = remote->len;
      for (int64_t t = 0; t < len; t++)
        if (cols[t] < a || cols[t] >= b) {
          g_array_append_val(remote, cols[t]);
          uint32_t o = sp_part_owner(p, cols[t]);
          sp_warps_add(&warps, i - a, t, o, cols[t] - p->ranks[o].row0);
        }
      remote_row = MAX(remote_row, (int64_t)(remote->len - before));
    }
    rk->nnz = nnz;
    rk->max_row = longest;
    rk->remote_nnz = (int64_t)remote->len; /* one entry per remote non-zero */
    rk->max_remote_row = remote_row;
    rk->remote_sectors = sp_warps_take(&warps);
    total += nnz;
    g_array_sort(remote, cmp_i64); /* (qsort of none passed NULL: undefined) */
    int64_t *v = (int64_t *)(void *)remote->data;
    size_t nr = remote->len;
    /* Distinct columns per owner; owners ascend with columns (blocks). */
    GArray *recv = g_array_new(FALSE, FALSE, sizeof(struct sp_halo));
    for (size_t t = 0; t < nr; t++) {
      if (t > 0 && v[t] == v[t - 1]) continue;
      uint32_t o = sp_part_owner(p, v[t]);
      struct sp_halo *last = recv->len ? &g_array_index(recv, struct sp_halo, recv->len - 1) : NULL;
      if (last && last->peer == o) {
        last->elems++;
      } else {
        struct sp_halo h = {o, 1};
        g_array_append_val(recv, h);
      }
    }
    rk->n_recv = recv->len;
    rk->recv = (struct sp_halo *)(void *)g_array_free(recv, recv->len == 0);
  }
  p->nnz = total;
  g_array_free(remote, TRUE);
  sp_warps_clear(&warps);
  g_free(cols);
  return p;
}

void mg_gen_row_stats(const struct mg_gen *g, struct mg_row_stats *out) {
  int64_t *cols = g_new(int64_t, g->max_len);
  gsl_rstat_workspace *w = gsl_rstat_alloc();
  int64_t lo = INT64_MAX, hi = 0;
  for (int64_t i = 0; i < g->n; i++) {
    int64_t len = mg_gen_row(g, i, cols);
    lo = MIN(lo, len);
    hi = MAX(hi, len);
    gsl_rstat_add((double)len, w);
  }
  out->min = lo;
  out->max = hi;
  out->mean = gsl_rstat_mean(w);
  out->sd = gsl_rstat_sd(w);
  gsl_rstat_free(w);
  g_free(cols);
}
