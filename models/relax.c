/* Jacobi relaxation with the numbers in the loop (relax.h): the memory of
 * x with staged visibility, the run's numbers and monitor, and the
 * component that schedules a node's host and GPU. Tsai, Nayak, Chow, Anzt
 * (asynchronous Jacobi on GPUs), Alg. 1-3; costs from models/gpu.h. */
#include "relax.h"

#include <glib.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_histogram.h>
#include <gsl/gsl_spblas.h>
#include <gsl/gsl_statistics_uint.h>
#include <math.h>
#include <string.h>

#include "phase.h"
#include "proto.h"
#include "trace.h"

/* ---- the memory of x ---- */

struct rx_store {
  sim_time at;   /* visible from */
  uint64_t seq;  /* staging order: ties */
  int64_t first; /* rows first .. first + n - 1 when rows is NULL */
  int64_t *rows;
  uint32_t n;
  double *vals;
  uint32_t *vers;
};

/* A row's value and version side by side (one cache line for both). */
struct rx_cell {
  double x;
  uint32_t ver;
};

struct rx_mem {
  int64_t n;
  struct rx_cell *c;
  struct rx_store *h; /* a binary min-heap on (at, seq) */
  size_t len, cap;
  uint64_t seq;
};

struct rx_mem *rx_mem_new(int64_t n) {
  struct rx_mem *m = g_new0(struct rx_mem, 1);
  m->n = n;
  m->c = g_new0(struct rx_cell, (size_t)n);
  return m;
}

void rx_mem_free(struct rx_mem *m) {
  if (!m) return;
  for (size_t i = 0; i < m->len; i++) g_free(m->h[i].vals);
  g_free(m->h);
  g_free(m->c);
  g_free(m);
}

static bool store_before(const struct rx_store *a, const struct rx_store *b) {
  return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

void rx_mem_stage(struct rx_mem *m, sim_time at, int64_t first, const int64_t *rows, uint32_t n,
                  const double *vals, const uint32_t *vers) {
  if (n == 0) return;
  /* one block: values, versions, then the rows of a list */
  size_t bytes = n * (sizeof(double) + sizeof(uint32_t)) + (rows ? n * sizeof(int64_t) + 8 : 0);
  char *blk = g_malloc(bytes);
  struct rx_store st = {.at = at, .seq = m->seq++, .first = first, .n = n, .vals = (double *)blk};
  st.vers = (uint32_t *)(blk + n * sizeof(double));
  memcpy(st.vals, vals, n * sizeof(double));
  memcpy(st.vers, vers, n * sizeof(uint32_t));
  if (rows) {
    uintptr_t p = (uintptr_t)(st.vers + n);
    p = (p + 7) & ~(uintptr_t)7;
    st.rows = (int64_t *)p;
    memcpy(st.rows, rows, n * sizeof(int64_t));
  }
  if (m->len == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 64;
    m->h = g_renew(struct rx_store, m->h, m->cap);
  }
  size_t i = m->len++;
  while (i > 0 && store_before(&st, &m->h[(i - 1) / 2])) {
    m->h[i] = m->h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  m->h[i] = st;
}

void rx_mem_advance(struct rx_mem *m, sim_time now) {
  while (m->len > 0 && m->h[0].at <= now) {
    struct rx_store st = m->h[0];
    for (uint32_t k = 0; k < st.n; k++) {
      int64_t row = st.rows ? st.rows[k] : st.first + k;
      m->c[row] = (struct rx_cell){st.vals[k], st.vers[k]};
    }
    g_free(st.vals);
    struct rx_store last = m->h[--m->len];
    size_t i = 0;
    for (;;) {
      size_t l = 2 * i + 1, r = l + 1, s = i;
      const struct rx_store *best = &last;
      if (l < m->len && store_before(&m->h[l], best)) s = l, best = &m->h[l];
      if (r < m->len && store_before(&m->h[r], best)) s = r;
      if (s == i) break;
      m->h[i] = m->h[s];
      i = s;
    }
    if (m->len > 0) m->h[i] = last;
  }
}

double rx_mem_value(const struct rx_mem *m, int64_t row) { return m->c[row].x; }
uint32_t rx_mem_version(const struct rx_mem *m, int64_t row) { return m->c[row].ver; }
size_t rx_mem_pending(const struct rx_mem *m) { return m->len; }

/* ---- the run ---- */

#define RX_TYPES 16 /* off-diagonal counts kept apart per connection type: 0 .. 15+ */
#define RX_AGE_BINS 4096

/* The rows of SRC that DST reads, and the puts that carry them. */
struct rx_edge {
  uint32_t src, dst;
  int64_t *rows; /* global, ascending */
  uint32_t n;
  GQueue snaps;  /* struct rx_snap *: values in flight, oldest first */
  bool busy;     /* a put of this halo has not left yet (async) */
  uint64_t puts, skipped, landed;
};

struct rx_snap {
  double *vals;
  uint32_t *vers;
};

struct rx_gpu {
  int64_t row0, rows;
  struct rx_mem *mem;
  double *own;        /* rows: the latest value stored to each owned row */
  uint32_t *own_ver;
  uint32_t *writer;   /* rows: the unit that stored it (UINT32_MAX: none yet) */
  uint32_t *out, n_out, *in, n_in; /* edge indices */
};

struct rx_node {
  struct rx_run *run;
  uint32_t gpu; /* UINT32_MAX: an idle node */
};

struct rx_run {
  struct rx_setup s;
  struct gpu_config cfg_unit, cfg_block; /* the GPU's with wg_items = a unit's, a block's threads */
  const gsl_spmatrix *a;
  const double *b;
  double bnorm;
  int64_t n, nnz;
  bool unit_diag;
  double *dinv;
  uint8_t *deg;       /* off-diagonal non-zeros per row, at most RX_TYPES - 1 */
  int64_t ws_bytes;   /* the asynchronous kernel's working set */
  int64_t log2s;      /* log2 subwarp */
  bool own_loads;     /* a unit loads its own stores before others see them (fence off) */
  int64_t occ_blocks; /* resident blocks per CU of the asynchronous kernel */
  struct rx_gpu *g;
  struct rx_edge *e;
  uint32_t n_edges;
  struct rx_node *nodes;
  uint32_t n_nodes;
  uint32_t *count;    /* updates stored per row */
  /* monitor */
  int64_t stored, next_sample, sample_rows;
  GArray *samples;
  bool stopped;
  sim_time stop_t, end_t;
  gsl_vector *xw, *rw;
  double lag_sum;
  uint64_t lag_n;
  int64_t lag_min, lag_max;
  gsl_histogram *age[RX_TYPES * RX_TYPES];
  uint32_t age_min[RX_TYPES * RX_TYPES], age_max[RX_TYPES * RX_TYPES];
};

static int64_t row_nnz(const struct rx_run *r, int64_t i) {
  return (int64_t)(r->a->p[i + 1] - r->a->p[i]);
}

static uint32_t gpu_of_row(const struct rx_run *r, int64_t row) {
  uint32_t lo = 0, hi = r->s.gpus - 1;
  while (lo < hi) {
    uint32_t mid = (lo + hi + 1) / 2;
    if (r->g[mid].row0 <= row) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

static int cmp_u64(const void *pa, const void *pb) {
  uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
  return a < b ? -1 : a > b;
}

/* The halos: every (owner, reader) pair of GPUs with the distinct rows the
 * reader's rows read from the owner's. */
static void find_edges(struct rx_run *r) {
  GArray *keys = g_array_new(FALSE, FALSE, sizeof(uint64_t));
  for (uint32_t g = 0; g < r->s.gpus; g++) {
    const struct rx_gpu *gg = &r->g[g];
    for (int64_t i = gg->row0; i < gg->row0 + gg->rows; i++)
      for (int k = r->a->p[i]; k < r->a->p[i + 1]; k++) {
        int64_t j = r->a->i[k];
        if (j >= gg->row0 && j < gg->row0 + gg->rows) continue;
        /* owner, reader, row: rows < 2^31, GPUs < 2^16 */
        uint64_t key = ((uint64_t)gpu_of_row(r, j) << 48) | ((uint64_t)g << 32) | (uint64_t)j;
        g_array_append_val(keys, key);
      }
  }
  g_array_sort(keys, cmp_u64); /* qsort(NULL, 0) is undefined: one GPU has no halo */
  GArray *edges = g_array_new(FALSE, TRUE, sizeof(struct rx_edge));
  GArray *rows = NULL;
  uint64_t prev = UINT64_MAX;
  for (guint k = 0; k <= keys->len; k++) {
    uint64_t key = k < keys->len ? g_array_index(keys, uint64_t, k) : UINT64_MAX;
    if (k < keys->len && key == prev) continue;
    if (rows && (k == keys->len || (key >> 32) != (prev >> 32))) {
      struct rx_edge e = {.src = (uint32_t)(prev >> 48), .dst = (uint32_t)((prev >> 32) & 0xFFFF)};
      e.n = rows->len;
      e.rows = (int64_t *)g_array_free(rows, FALSE);
      g_queue_init(&e.snaps);
      g_array_append_val(edges, e);
      rows = NULL;
    }
    if (k == keys->len) break;
    if (!rows) rows = g_array_new(FALSE, FALSE, sizeof(int64_t));
    int64_t row = (int64_t)(key & 0xFFFFFFFFu);
    g_array_append_val(rows, row);
    prev = key;
  }
  g_array_free(keys, TRUE);
  r->n_edges = edges->len;
  r->e = (struct rx_edge *)g_array_free(edges, FALSE);
  for (uint32_t g = 0; g < r->s.gpus; g++) {
    struct rx_gpu *gg = &r->g[g];
    for (uint32_t k = 0; k < r->n_edges; k++) {
      if (r->e[k].src == g) gg->n_out++;
      if (r->e[k].dst == g) gg->n_in++;
    }
    gg->out = g_new(uint32_t, gg->n_out + 1);
    gg->in = g_new(uint32_t, gg->n_in + 1);
    gg->n_out = gg->n_in = 0;
    for (uint32_t k = 0; k < r->n_edges; k++) {
      if (r->e[k].src == g) gg->out[gg->n_out++] = k;
      if (r->e[k].dst == g) gg->in[gg->n_in++] = k;
    }
  }
}

/* Threads a unit moves at once. */
static int64_t unit_threads(const struct rx_setup *s) {
  return s->grain == RX_WARP ? RX_WARP_THREADS : s->block;
}

struct rx_run *rx_run_new(const gsl_spmatrix *a, const double *b, const struct rx_setup *s,
                          char **err) {
  int64_t n = (int64_t)a->size1;
  g_assert(a->size1 == a->size2 && GSL_SPMATRIX_ISCSR(a) && s->gpus >= 1 && s->updates >= 1);
  g_assert(s->subwarp >= 1 && s->subwarp <= RX_WARP_THREADS && s->block % RX_WARP_THREADS == 0);
  if ((int64_t)s->gpus > n) {
    *err = g_strdup_printf("expected at most one GPU per row (%" G_GINT64_FORMAT " rows), got %u GPUs",
                           n, s->gpus);
    return NULL;
  }
  int64_t subwarps = s->oscb * s->gpu->cus * s->block / s->subwarp;
  if (s->variant == RX_DYNAMIC && subwarps > n / s->gpus) {
    *err = g_strdup_printf("expected at most as many subwarps (oscb x cus x block / subwarp = %"
                           G_GINT64_FORMAT ") as a GPU's rows (%" G_GINT64_FORMAT
                           ": the study's Alg. 3 requires num_subwarps <= num_rows)",
                           subwarps, n / s->gpus);
    return NULL;
  }
  struct rx_run *r = g_new0(struct rx_run, 1);
  r->s = *s;
  r->cfg_unit = *s->gpu;
  r->cfg_unit.wg_items = unit_threads(s);
  r->cfg_block = *s->gpu;
  r->cfg_block.wg_items = s->block;
  r->a = a;
  r->b = b;
  r->n = n;
  r->nnz = (int64_t)a->nz;
  r->dinv = g_new(double, (size_t)n);
  r->deg = g_new(uint8_t, (size_t)n);
  r->unit_diag = true;
  for (int64_t i = 0; i < n; i++) {
    double d = 0;
    int off = 0;
    for (int k = a->p[i]; k < a->p[i + 1]; k++) {
      if (a->i[k] == i) d += a->data[k];
      else off++;
    }
    g_assert(d != 0); /* the caller checks the diagonal */
    r->dinv[i] = 1.0 / d;
    r->unit_diag = r->unit_diag && d == 1.0;
    r->deg[i] = (uint8_t)MIN(off, RX_TYPES - 1);
  }
  r->ws_bytes = 4 * (n + 1) + 12 * r->nnz + 16 * n + (r->unit_diag ? 0 : 8 * n);
  while ((INT64_C(1) << r->log2s) < s->subwarp) r->log2s++;
  r->own_loads = s->variant != RX_SYNC && !s->fence && s->gpu->store_visibility > 0;
  struct kernel k = {.n_wgs = 1, .regs_per_item = (uint32_t)s->regs};
  r->occ_blocks = gpu_occupancy(&r->cfg_block, &k);
  r->g = g_new0(struct rx_gpu, s->gpus);
  int64_t base = n / s->gpus, extra = n % s->gpus;
  for (uint32_t g = 0; g < s->gpus; g++) {
    struct rx_gpu *gg = &r->g[g];
    gg->row0 = g * base + MIN((int64_t)g, extra);
    gg->rows = base + ((int64_t)g < extra);
    gg->mem = rx_mem_new(n);
    gg->own = g_new0(double, (size_t)gg->rows);
    gg->own_ver = g_new0(uint32_t, (size_t)gg->rows);
    gg->writer = g_new(uint32_t, (size_t)gg->rows);
    memset(gg->writer, 0xFF, (size_t)gg->rows * sizeof(uint32_t));
  }
  find_edges(r);
  r->count = g_new0(uint32_t, (size_t)n);
  r->sample_rows = s->sample_every * n;
  r->next_sample = r->sample_rows;
  r->samples = g_array_new(FALSE, FALSE, sizeof(struct rx_sample));
  r->xw = gsl_vector_alloc((size_t)n);
  r->rw = gsl_vector_alloc((size_t)n);
  gsl_vector_const_view bv = gsl_vector_const_view_array(b, (size_t)n);
  r->bnorm = gsl_blas_dnrm2(&bv.vector);
  r->lag_min = INT64_MAX;
  r->lag_max = INT64_MIN;
  r->n_nodes = MAX(s->gpus, 1);
  r->nodes = g_new0(struct rx_node, r->n_nodes);
  return r;
}

void rx_run_free(struct rx_run *r) {
  if (!r) return;
  for (uint32_t g = 0; g < r->s.gpus; g++) {
    rx_mem_free(r->g[g].mem);
    g_free(r->g[g].own);
    g_free(r->g[g].own_ver);
    g_free(r->g[g].writer);
    g_free(r->g[g].out);
    g_free(r->g[g].in);
  }
  for (uint32_t k = 0; k < r->n_edges; k++) {
    struct rx_snap *sn;
    while ((sn = g_queue_pop_head(&r->e[k].snaps))) {
      g_free(sn->vals);
      g_free(sn);
    }
    g_free(r->e[k].rows);
  }
  for (size_t t = 0; t < RX_TYPES * RX_TYPES; t++)
    if (r->age[t]) gsl_histogram_free(r->age[t]);
  gsl_vector_free(r->xw);
  gsl_vector_free(r->rw);
  g_array_free(r->samples, TRUE);
  g_free(r->e);
  g_free(r->g);
  g_free(r->nodes);
  g_free(r->count);
  g_free(r->dinv);
  g_free(r->deg);
  g_free(r);
}

/* ---- the numbers ---- */

/* What unit UNIT of GPU G loads for row J, and its version. */
static inline double load(const struct rx_gpu *g, uint32_t unit, int64_t j, uint32_t *ver) {
  int64_t l = j - g->row0;
  if (l >= 0 && l < g->rows && g->writer[l] == unit) {
    *ver = g->own_ver[l];
    return g->own[l];
  }
  *ver = g->mem->c[j].ver;
  return g->mem->c[j].x;
}

/* Reads kept for the study's Fig. 11: row I's update K read version VER of row J. */
static void note_age(struct rx_run *r, int64_t i, int64_t j, uint32_t ver) {
  size_t t = (size_t)r->deg[i] * RX_TYPES + r->deg[j];
  if (!r->age[t]) {
    size_t bins = (size_t)MIN(r->s.updates + 1, RX_AGE_BINS);
    r->age[t] = gsl_histogram_alloc(bins);
    gsl_histogram_set_ranges_uniform(r->age[t], 0, (double)(r->s.updates + 1));
    r->age_min[t] = UINT32_MAX;
  }
  gsl_histogram_increment(r->age[t], MIN((double)ver, (double)r->s.updates));
  r->age_min[t] = MIN(r->age_min[t], ver);
  r->age_max[t] = MAX(r->age_max[t], ver);
}

/* What the rows of one step cost (relax.h). */
struct rx_cost {
  int64_t rows, nnz;
  int64_t lanes; /* flops issued */
};

/* Adds a row of M non-zeros to C: 2 (s ceil(m / s) + s log2 s + 1) flops
 * issued (relax.h). */
static inline void cost_row(const struct rx_run *r, struct rx_cost *c, int64_t m) {
  int64_t s = r->s.subwarp;
  c->rows++;
  c->nnz += m;
  c->lanes += 2 * (((m + s - 1) >> r->log2s << r->log2s) + s * r->log2s + 1);
}

/* Row I's new value as unit UNIT of GPU G computes it from what it loads
 * now; its version in *VER. Adds to *C and to the lag counters. OWN: the
 * unit's own stores may not be visible yet (fence off): load them from
 * where it stored them. */
static inline double update_row_(struct rx_run *r, const struct rx_gpu *g, uint32_t unit,
                                 int64_t i, uint32_t *ver, struct rx_cost *c, bool own) {
  const gsl_spmatrix *a = r->a;
  const struct rx_cell *mc = g->mem->c;
  uint32_t k = r->count[i] + 1, vi, vj;
  double sum = 0, xi = own ? load(g, unit, i, &vi) : mc[i].x;
  bool midway = r->s.midway > 0 && k == (uint64_t)r->s.midway;
  int64_t lag_sum = 0, lag_min = INT64_MAX, lag_max = INT64_MIN, off = 0;
  int p0 = a->p[i], p1 = a->p[i + 1];
  for (int p = p0; p < p1; p++) {
    int64_t j = a->i[p];
    if (j == i) {
      sum += a->data[p] * xi;
      continue;
    }
    double xj;
    if (own) {
      xj = load(g, unit, j, &vj);
    } else {
      xj = mc[j].x;
      vj = mc[j].ver;
    }
    sum += a->data[p] * xj;
    int64_t lag = (int64_t)k - 1 - (int64_t)vj;
    off++;
    lag_sum += lag;
    lag_min = MIN(lag_min, lag);
    lag_max = MAX(lag_max, lag);
    if (G_UNLIKELY(midway)) note_age(r, i, j, vj);
  }
  if (off > 0) {
    r->lag_sum += (double)lag_sum;
    r->lag_n += (uint64_t)off;
    r->lag_min = MIN(r->lag_min, lag_min);
    r->lag_max = MAX(r->lag_max, lag_max);
  }
  cost_row(r, c, p1 - p0);
  *ver = k;
  return xi + r->dinv[i] * (r->b[i] - sum);
}

static double update_row(struct rx_run *r, const struct rx_gpu *g, uint32_t unit, int64_t i,
                         uint32_t *ver, struct rx_cost *c) {
  return r->own_loads ? update_row_(r, g, unit, i, ver, c, true)
                      : update_row_(r, g, unit, i, ver, c, false);
}

/* The kernel step of C's rows (relax.h), on the GPU config CFG. */
static struct kstep step_of(const struct rx_run *r, const struct rx_cost *c) {
  bool row_per_thread = r->s.subwarp == 1;
  return (struct kstep){
      .kind = KS_COMPUTE,
      .kclass = KC_SPMV,
      .flops = c->lanes,
      .bytes = c->rows * (4 + 8 + 8 + (r->unit_diag ? 0 : 8)) + 12 * c->nnz,
      .reuse_bytes = 8 * c->nnz,
      .gather_bytes = 8 * r->n,
      .ws_bytes = r->ws_bytes,
      .rows = row_per_thread ? c->rows : 0,
      .nnz = row_per_thread ? c->nnz : 0,
  };
}

static int64_t units_per_block(const struct rx_setup *s) {
  return s->grain == RX_WARP ? s->block / RX_WARP_THREADS : 1;
}

/* An asynchronous step of C with ACTIVE threads running on the GPU
 * (relax.h): memory is shared per thread in flight, so a unit of fewer
 * threads (past the last row) is no faster per update. */
static sim_time async_step_time(const struct rx_run *r, const struct rx_cost *c, uint64_t active) {
  struct kstep st = step_of(r, c);
  int64_t occ = r->occ_blocks * units_per_block(&r->s);
  int64_t threads = MAX(1, c->rows * r->s.subwarp);
  const struct gpu_config *cfg = &r->cfg_unit;
  struct gpu_config part;
  if (threads != cfg->wg_items) {
    part = *cfg;
    part.wg_items = threads;
    cfg = &part;
  }
  uint64_t units = MAX(1, (active + (uint64_t)threads - 1) / (uint64_t)threads);
  sim_time t = gpu_step_time(cfg, &st, units, occ);
  if (r->s.fence) t += r->s.gpu->device_fence_latency;
  return t > 0 ? t : 1;
}

sim_time rx_step_time(const struct rx_run *r, int64_t first, int64_t rows, uint64_t active) {
  struct rx_cost c = {0};
  for (int64_t i = r->g[0].row0 + first; i < r->g[0].row0 + first + rows; i++)
    cost_row(r, &c, row_nnz(r, i));
  return async_step_time(r, &c, active);
}

/* ---- the monitor ---- */

static double residual_now(const struct rx_run *r) {
  for (uint32_t g = 0; g < r->s.gpus; g++)
    memcpy(r->xw->data + r->g[g].row0, r->g[g].own, (size_t)r->g[g].rows * sizeof(double));
  memcpy(r->rw->data, r->b, (size_t)r->n * sizeof(double));
  gsl_spblas_dgemv(CblasNoTrans, -1.0, r->a, r->xw, 1.0, r->rw);
  double rn = gsl_blas_dnrm2(r->rw);
  return r->bnorm > 0 ? rn / r->bnorm : rn;
}

double rx_residual(const struct rx_run *r) { return residual_now(r); }

void rx_solution(const struct rx_run *r, double *x) {
  for (uint32_t g = 0; g < r->s.gpus; g++)
    memcpy(x + r->g[g].row0, r->g[g].own, (size_t)r->g[g].rows * sizeof(double));
}

/* After N more updates were stored at NOW: a sample when due, and the
 * stop at the tolerance. */
static void monitor(struct rx_run *r, struct sim_engine *e, int64_t n) {
  r->stored += n;
  if (r->stored < r->next_sample || r->stopped) return;
  while (r->next_sample <= r->stored) r->next_sample += r->sample_rows;
  struct rx_sample smp = {.t = sim_now(e), .updates = (double)r->stored / (double)r->n,
                          .residual = residual_now(r)};
  g_array_append_val(r->samples, smp);
  if (r->s.tolerance > 0 && smp.residual <= r->s.tolerance) {
    r->stopped = true;
    r->stop_t = smp.t;
    sim_stop(e);
  }
}

const struct rx_sample *rx_samples(const struct rx_run *r, size_t *n) {
  *n = r->samples->len;
  return (const struct rx_sample *)r->samples->data;
}

sim_time rx_end_time(const struct rx_run *r) { return r->stopped ? r->stop_t : r->end_t; }
bool rx_converged(const struct rx_run *r) { return r->stopped; }

/* ---- the component ---- */

enum { PORT_CPU, PORT_GPU };
static const char *const rx_ports[] = {"cpu", "gpu"};

/* Self events; data: a unit, or a phase. */
enum { EV_UNIT = 1, EV_HOST, EV_FE, EV_PHASE };
/* The front end's steps (EV_FE). */
enum { FE_LAUNCHED, FE_EXEC_DONE, FE_TORN };
/* Kernels (PK_QUEUE_CMD a, PK_KERNEL_DONE a). */
enum { K_RES, K_UPD, K_SOLVER };
/* The persistent synchronous kernel's phases (EV_PHASE). */
enum { P_RES_END, P_BAR1_END, P_UPD_END, P_HALO_SEEN, P_BAR2_END };
/* What the host does. */
enum { H_SUBMIT, H_BLOCKED, H_WAIT_KERNEL, H_WAIT_HALO, H_DONE };

/* A halo put's flags: at the target (data landed), at the sender (sent). */
#define FLAG_REMOTE(k) (1 + 2 * (k))
#define FLAG_LOCAL(k) (2 + 2 * (k))
#define SYNC_UNIT (UINT32_MAX - 1) /* the synchronous kernels: every load from memory */

struct rx_unit {
  uint32_t block;
  uint32_t steps, done; /* steps to run, steps run */
  int64_t first;        /* static: its first local row; dynamic: its first subwarp */
  uint32_t n;           /* rows (static) or subwarps (dynamic) */
  uint32_t pend;        /* values waiting to be stored at its next event */
  int64_t seg[2];       /* their local rows: seg[0] .. (len0), then seg[1] .. */
  uint32_t len0;
  double *val;          /* its R values and versions in the state's buffers */
  uint32_t *ver;
};

struct rx_cmd {
  uint8_t kind;
  uint32_t iter, depth;
};

struct rx_state {
  struct rx_run *run;
  struct rx_gpu *g;
  uint32_t gi;
  /* the host */
  int host;
  uint64_t submitted, completed, total, want;
  uint32_t h_iter;
  sim_time wait_start, host_done;
  /* the GPU's front end */
  GQueue cmds;
  bool fe_busy;
  sim_time k_launch;
  /* the asynchronous kernel */
  struct rx_unit *units;
  uint32_t n_units, n_blocks, next_block, *block_left;
  uint64_t running, units_left; /* running: threads of the units running */
  int64_t R, S;
  double *pval;
  uint32_t *pver;
  int64_t *list; /* a step's rows (global), for staging */
  /* the synchronous kernels */
  uint32_t iter;
  sim_time t_res, t_upd, t_bar, t_poll;
  bool halo_wait;
  double *tmp;
  uint32_t *tmpv;
  /* counters */
  uint64_t kernels, steps, puts, skipped, landed;
  sim_time launch_time, work_time, teardown_time, wait_time, stack_time, barrier_time;
};

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The residual (RES) or update kernel's work over G's rows. */
static struct kstep sync_total(const struct rx_run *r, const struct rx_gpu *g, bool res) {
  if (!res)
    return (struct kstep){.kind = KS_COMPUTE, .kclass = KC_AXPY, .flops = 2 * g->rows,
                          .bytes = g->rows * (24 + (r->unit_diag ? 0 : 8)),
                          .ws_bytes = r->ws_bytes + 8 * r->n};
  struct rx_cost c = {0};
  for (int64_t i = g->row0; i < g->row0 + g->rows; i++) cost_row(r, &c, row_nnz(r, i));
  struct kstep st = step_of(r, &c);
  st.ws_bytes += 8 * r->n; /* r */
  return st;
}

/* TOTAL's work split over BLOCKS blocks: one block's step. */
static struct kstep per_block(const struct kstep *total, int64_t blocks) {
  struct kstep st = *total;
  st.flops = ceil_div(total->flops, blocks);
  st.bytes = ceil_div(total->bytes, blocks);
  st.reuse_bytes = ceil_div(total->reuse_bytes, blocks);
  st.rows = ceil_div(total->rows, blocks);
  st.nnz = ceil_div(total->nnz, blocks);
  return st;
}

/* A discrete kernel of TOTAL's work in BLOCKS blocks: its waves (relax.h). */
static sim_time discrete_exec(const struct rx_run *r, const struct kstep *total, int64_t blocks) {
  const struct gpu_config *cfg = &r->cfg_block;
  struct kernel k = {.n_wgs = (uint32_t)blocks, .regs_per_item = (uint32_t)r->s.regs};
  int64_t occ = gpu_occupancy(cfg, &k), wave = cfg->cus * occ;
  struct kstep st = per_block(total, blocks);
  int64_t full = blocks / wave, tail = blocks % wave;
  sim_time t = 0;
  if (full) t += full * (gpu_step_time(cfg, &st, (uint64_t)wave, occ) + cfg->wg_start);
  if (tail) t += gpu_step_time(cfg, &st, (uint64_t)tail, occ) + cfg->wg_start;
  return t;
}

/* The persistent kernel's blocks: resident (sized to residency), at most
 * the blocks the rows need. */
static int64_t persistent_blocks(const struct rx_run *r, int64_t need, int64_t *occ) {
  struct kernel k = {.n_wgs = 1, .regs_per_item = (uint32_t)r->s.regs, .persistent = true};
  *occ = gpu_occupancy(&r->cfg_block, &k);
  return MAX(1, MIN(r->cfg_block.cus * *occ, need));
}

static void sync_times(struct rx_state *s) {
  const struct rx_run *r = s->run;
  struct kstep res = sync_total(r, s->g, true), upd = sync_total(r, s->g, false);
  int64_t res_blocks = MAX(1, ceil_div(s->g->rows * r->s.subwarp, r->s.block));
  int64_t upd_blocks = MAX(1, ceil_div(s->g->rows, r->s.block));
  if (r->s.subwarp == 1) res.rows = s->g->rows; /* a row per thread (gpu.h "L1") */
  if (r->s.control == RX_HOST) {
    s->t_res = discrete_exec(r, &res, res_blocks);
    s->t_upd = discrete_exec(r, &upd, upd_blocks);
    return;
  }
  int64_t occ, bp = persistent_blocks(r, res_blocks, &occ);
  struct kstep a = per_block(&res, bp), b = per_block(&upd, bp);
  s->t_res = gpu_step_time(&r->cfg_block, &a, (uint64_t)bp, occ);
  s->t_upd = gpu_step_time(&r->cfg_block, &b, (uint64_t)bp, occ);
  s->t_bar = gpu_barrier_time(r->s.gpu, (uint32_t)bp);
  s->t_poll = gpu_poll_period(r->s.gpu, (uint32_t)bp);
}

/* ---- messages ---- */

static void send_msg(struct sim_comp *c, int port, sim_time delay, enum pkind kind, uint8_t dst,
                     uint32_t a, uint32_t b) {
  struct rx_state *s = c->state;
  struct pmsg *m;
  uint64_t h = pmsg_new(c->eng, kind, &m);
  m->dst_dev = dst;
  m->src_dev = port == PORT_CPU ? DEV_CPU : DEV_GPU;
  m->src_node = m->dst_node = s->gi;
  m->a = a;
  m->b = b;
  sim_send(c, port, delay, (uint16_t)kind, h);
}

/* Posts halo K (a put of its rows' values as G's memory holds them now)
 * DELAY from now: from the host (cpu port, the flag to the target's host)
 * or the kernel (gpu port, the flag to the target's GPU, a local flag back). */
static void post_halo(struct sim_comp *c, uint32_t k, sim_time delay, bool host) {
  struct rx_state *s = c->state;
  struct rx_run *r = s->run;
  struct rx_edge *e = &r->e[k];
  rx_mem_advance(s->g->mem, sim_now(c->eng));
  struct rx_snap *sn = g_new(struct rx_snap, 1);
  sn->vals = g_malloc(e->n * (sizeof(double) + sizeof(uint32_t)));
  sn->vers = (uint32_t *)(sn->vals + e->n);
  for (uint32_t q = 0; q < e->n; q++) {
    sn->vals[q] = s->g->mem->c[e->rows[q]].x;
    sn->vers[q] = s->g->mem->c[e->rows[q]].ver;
  }
  g_queue_push_tail(&e->snaps, sn);
  uint64_t hc = sim_payload_new(c->eng);
  struct nic_cmd *cmd = sim_payload(c->eng, hc);
  *cmd = (struct nic_cmd){.op = NIC_PUT, .dst_node = e->dst, .bytes = 8 * (int64_t)e->n};
  cmd->remote = (struct pflag){FLAG_REMOTE(k), host ? DEV_CPU : DEV_GPU};
  if (!host) cmd->local = (struct pflag){FLAG_LOCAL(k), DEV_GPU};
  struct pmsg *m;
  uint64_t h = pmsg_new(c->eng, PK_NIC_CMD, &m);
  m->dst_dev = DEV_NIC;
  m->src_dev = host ? DEV_CPU : DEV_GPU;
  m->src_node = m->dst_node = s->gi;
  m->op = hc;
  e->puts++;
  s->puts++;
  int port = host ? PORT_CPU : PORT_GPU;
  if (!host && r->s.nvl_stores && net_same_node(r->s.net, e->src, e->dst)) {
    m->nvl = 1; /* the SMs' own stores over NVLink (nic.h) */
    sim_send_via(c, port, delay, PK_NIC_CMD, h, DEV_NIC);
  } else {
    sim_send(c, port, delay, PK_NIC_CMD, h);
  }
  if (!host) e->busy = true;
}

/* ---- the host ---- */

/* When a host that began waiting at S notices what arrived at A. */
static sim_time notice(const struct rx_run *r, sim_time s, sim_time a) {
  if (a <= s) return s;
  if (r->s.cpu->switch_mode == CPU_SWITCH_INTERRUPT) return a + r->s.cpu->interrupt_latency;
  sim_time p = r->s.cpu->switch_poll_interval;
  return p > 0 ? s + (a - s + p - 1) / p * p : a;
}

static bool halos_in(const struct rx_state *s, uint32_t iter) {
  for (uint32_t q = 0; q < s->g->n_in; q++)
    if (s->run->e[s->g->in[q]].landed < iter + 1) return false;
  return true;
}

static void host_wait_kernel(struct sim_comp *c, uint64_t want) {
  struct rx_state *s = c->state;
  s->host = H_WAIT_KERNEL;
  s->want = want;
  s->wait_start = sim_now(c->eng);
  if (s->completed >= want) sim_schedule(c, 0, EV_HOST, 0);
}

/* The host's next move (EV_HOST). */
static void host_step(struct sim_comp *c) {
  struct rx_state *s = c->state;
  struct rx_run *r = s->run;
  const struct cpu_config *cpu = r->s.cpu;
  sim_time now = sim_now(c->eng);
  bool alone = s->g->n_in == 0 && s->g->n_out == 0;
  switch (s->host) {
  case H_SUBMIT:
  case H_BLOCKED:
    if (r->s.control == RX_DEVICE || r->s.variant != RX_SYNC) {
      send_msg(c, PORT_CPU, cpu->launch_submit, PK_QUEUE_CMD, DEV_GPU, K_SOLVER, 0);
      s->launch_time += cpu->launch_submit;
      s->submitted = s->total = 1;
      s->host = H_SUBMIT;
      sim_schedule(c, cpu->launch_submit, EV_HOST, 0);
      s->host = H_WAIT_KERNEL; /* from when the submit returns (below) */
      s->want = 1;
      s->wait_start = now + cpu->launch_submit;
      return;
    }
    if (alone && s->submitted == s->total) {
      host_wait_kernel(c, s->total);
      return;
    }
    if (!alone && s->submitted == 2 * ((uint64_t)s->h_iter + 1)) {
      host_wait_kernel(c, s->submitted);
      return;
    }
    if (s->submitted - s->completed >= (uint64_t)cpu->launch_queue_depth) {
      s->host = H_BLOCKED; /* a completion moves it on */
      return;
    }
    s->host = H_SUBMIT;
    send_msg(c, PORT_CPU, cpu->launch_submit, PK_QUEUE_CMD, DEV_GPU,
             s->submitted % 2 ? K_UPD : K_RES, (uint32_t)(s->submitted / 2));
    s->submitted++;
    s->launch_time += cpu->launch_submit;
    sim_schedule(c, cpu->launch_submit, EV_HOST, 0);
    return;
  case H_WAIT_KERNEL:
    if (s->completed < s->want || now < s->wait_start) return; /* the submit's own event */
    if (r->s.control == RX_DEVICE || r->s.variant != RX_SYNC || alone ||
        s->h_iter + 1 >= (uint64_t)r->s.updates) {
      s->host = H_DONE;
      s->host_done = now;
      r->end_t = MAX(r->end_t, now);
      return;
    }
    for (uint32_t q = 0; q < s->g->n_out; q++) post_halo(c, s->g->out[q], (q + 1) * cpu->send, true);
    s->stack_time += s->g->n_out * cpu->send;
    s->host = H_SUBMIT; /* the halo wait starts when the sends return */
    s->wait_start = now + s->g->n_out * cpu->send;
    s->host = H_WAIT_HALO;
    sim_schedule(c, s->g->n_out * cpu->send, EV_HOST, 1);
    return;
  case H_WAIT_HALO:
    if (now < s->wait_start || !halos_in(s, s->h_iter)) return;
    s->h_iter++;
    s->host = H_SUBMIT;
    sim_schedule(c, 0, EV_HOST, 0);
    return;
  default: return;
  }
}

/* A kernel's completion record reached the host. */
static void host_completion(struct sim_comp *c) {
  struct rx_state *s = c->state;
  s->completed++;
  sim_time now = sim_now(c->eng);
  if (s->host == H_BLOCKED) {
    sim_schedule(c, 0, EV_HOST, 0);
  } else if (s->host == H_WAIT_KERNEL && s->completed >= s->want && now >= s->wait_start) {
    sim_time t = notice(s->run, s->wait_start, now);
    s->wait_time += t - s->wait_start;
    sim_schedule(c, t - now, EV_HOST, 0);
  }
}

/* ---- the GPU ---- */

static void fe_start(struct sim_comp *c) {
  struct rx_state *s = c->state;
  struct rx_cmd *cmd = g_queue_peek_head(&s->cmds);
  if (!cmd || s->fe_busy) return;
  s->fe_busy = true;
  sim_time lt = gpu_launch_time(s->run->s.gpu, cmd->depth);
  s->launch_time += lt;
  s->k_launch = sim_now(c->eng);
  sim_schedule(c, lt, EV_FE, FE_LAUNCHED);
}

static void kernel_end(struct sim_comp *c) {
  struct rx_state *s = c->state;
  s->teardown_time += s->run->s.gpu->teardown_latency;
  sim_schedule(c, s->run->s.gpu->teardown_latency, EV_FE, FE_TORN);
}

/* The whole Jacobi update of G's rows, as the synchronous kernels leave it
 * at NOW (every load from memory; the stores visible from NOW). */
static void sync_update(struct sim_comp *c) {
  struct rx_state *s = c->state;
  struct rx_run *r = s->run;
  struct rx_gpu *g = s->g;
  sim_time now = sim_now(c->eng);
  rx_mem_advance(g->mem, now);
  struct rx_cost cost = {0};
  for (int64_t l = 0; l < g->rows; l++)
    s->tmp[l] = update_row(r, g, SYNC_UNIT, g->row0 + l, &s->tmpv[l], &cost);
  for (int64_t l = 0; l < g->rows; l++) {
    g->own[l] = s->tmp[l];
    g->own_ver[l] = s->tmpv[l];
    g->writer[l] = SYNC_UNIT;
    r->count[g->row0 + l]++;
  }
  rx_mem_stage(g->mem, now, g->row0, NULL, (uint32_t)g->rows, s->tmp, s->tmpv);
  monitor(r, c->eng, g->rows);
}

/* Starts block B's units WG_START from now. */
static void dispatch_block(struct sim_comp *c, uint32_t b) {
  struct rx_state *s = c->state;
  int64_t upb = units_per_block(&s->run->s);
  for (int64_t u = b * upb; u < MIN((int64_t)s->n_units, (b + 1) * upb); u++) {
    s->running += (uint64_t)s->units[u].n * (uint64_t)s->run->s.subwarp;
    sim_schedule(c, s->run->s.gpu->wg_start, EV_UNIT, (uint64_t)u);
  }
}

static void async_start(struct sim_comp *c) {
  struct rx_state *s = c->state;
  int64_t cap = s->run->s.gpu->cus * s->run->occ_blocks;
  while (s->next_block < s->n_blocks && (int64_t)s->next_block < cap)
    dispatch_block(c, s->next_block++);
}

/* Stores unit I's pending values (its step ended now), then posts the
 * halos whose last row it stored. */
static void unit_store(struct sim_comp *c, uint32_t i) {
  struct rx_state *s = c->state;
  struct rx_run *r = s->run;
  struct rx_gpu *g = s->g;
  struct rx_unit *u = &s->units[i];
  for (uint32_t q = 0; q < u->pend; q++) {
    int64_t l = q < u->len0 ? u->seg[0] + q : u->seg[1] + (q - u->len0);
    g->own[l] = u->val[q];
    g->own_ver[l] = u->ver[q];
    g->writer[l] = i;
    r->count[g->row0 + l]++;
  }
  uint32_t n = u->pend;
  u->pend = 0;
  monitor(r, c->eng, n);
  for (uint32_t q = 0; q < g->n_out; q++) {
    struct rx_edge *e = &r->e[g->out[q]];
    int64_t last = e->rows[e->n - 1] - g->row0;
    bool hit = (last >= u->seg[0] && last < u->seg[0] + u->len0) ||
               (n > u->len0 && last >= u->seg[1] && last < u->seg[1] + (n - u->len0));
    if (!hit) continue;
    if (e->busy) {
      e->skipped++;
      s->skipped++;
    } else {
      post_halo(c, g->out[q], r->s.gpu->fence_latency, false);
    }
  }
}

/* Unit I has run all its steps. */
static void unit_end(struct sim_comp *c, uint32_t i) {
  struct rx_state *s = c->state;
  uint32_t b = s->units[i].block;
  s->running -= (uint64_t)s->units[i].n * (uint64_t)s->run->s.subwarp;
  s->units_left--;
  if (--s->block_left[b] == 0 && s->next_block < s->n_blocks) dispatch_block(c, s->next_block++);
  if (s->units_left == 0) {
    s->work_time += sim_now(c->eng) - s->k_launch;
    kernel_end(c);
  }
}

/* Unit I's event: store its last step, then load and compute its next. */
static void unit_event(struct sim_comp *c, uint32_t i) {
  struct rx_state *s = c->state;
  struct rx_run *r = s->run;
  struct rx_gpu *g = s->g;
  struct rx_unit *u = &s->units[i];
  sim_time now = sim_now(c->eng);
  rx_mem_advance(g->mem, now);
  if (u->pend) unit_store(c, i);
  if (r->stopped) return;
  if (u->done == u->steps) {
    unit_end(c, i);
    return;
  }
  int64_t rows = g->rows, len[2] = {0, 0};
  if (r->s.variant == RX_STATIC) {
    u->seg[0] = u->first;
    len[0] = u->n;
  } else {
    int64_t p0 = u->first + (int64_t)u->done * s->S;
    int64_t na = MIN((int64_t)u->n, r->s.updates * rows - p0);
    u->seg[0] = p0 % rows;
    len[0] = MIN(na, rows - u->seg[0]);
    u->seg[1] = 0;
    len[1] = na - len[0];
  }
  struct rx_cost cost = {0};
  uint32_t q = 0;
  for (int k = 0; k < 2; k++)
    for (int64_t l = u->seg[k]; l < u->seg[k] + len[k]; l++, q++) {
      u->val[q] = update_row(r, g, i, g->row0 + l, &u->ver[q], &cost);
      s->list[q] = g->row0 + l;
    }
  u->pend = q;
  u->len0 = (uint32_t)len[0];
  sim_time dur = async_step_time(r, &cost, s->running);
  sim_time vis = now + dur + (r->s.fence ? 0 : r->s.gpu->store_visibility);
  rx_mem_stage(g->mem, vis, 0, s->list, q, u->val, u->ver);
  u->done++;
  s->steps++;
  sim_schedule(c, dur, EV_UNIT, i);
}

/* The persistent synchronous kernel's next phase (EV_PHASE P). */
static void sync_phase(struct sim_comp *c, uint32_t p) {
  struct rx_state *s = c->state;
  struct rx_run *r = s->run;
  sim_time now = sim_now(c->eng);
  switch (p) {
  case P_RES_END:
    s->barrier_time += s->t_bar;
    sim_schedule(c, s->t_bar, EV_PHASE, P_BAR1_END);
    return;
  case P_BAR1_END:
    s->work_time += s->t_upd;
    sim_schedule(c, s->t_upd, EV_PHASE, P_UPD_END);
    return;
  case P_UPD_END:
    sync_update(c);
    if (r->stopped) return;
    if (s->iter + 1 >= (uint64_t)r->s.updates) {
      kernel_end(c);
      return;
    }
    for (uint32_t q = 0; q < s->g->n_out; q++)
      post_halo(c, s->g->out[q], r->s.gpu->fence_latency, false);
    s->wait_start = now;
    s->halo_wait = true;
    if (halos_in(s, s->iter)) {
      s->halo_wait = false;
      sim_schedule(c, 0, EV_PHASE, P_HALO_SEEN);
    }
    return;
  case P_HALO_SEEN:
    s->barrier_time += s->t_bar;
    sim_schedule(c, s->t_bar, EV_PHASE, P_BAR2_END);
    return;
  case P_BAR2_END:
    s->iter++;
    s->work_time += s->t_res;
    sim_schedule(c, s->t_res, EV_PHASE, P_RES_END);
    return;
  default: g_error("%s: unknown phase %u", c->name, p);
  }
}

static void fe_event(struct sim_comp *c, uint32_t what) {
  struct rx_state *s = c->state;
  struct rx_run *r = s->run;
  struct rx_cmd *cmd = g_queue_peek_head(&s->cmds);
  g_assert(cmd);
  switch (what) {
  case FE_LAUNCHED:
    s->kernels++;
    if (cmd->kind == K_SOLVER && r->s.variant != RX_SYNC) {
      async_start(c);
    } else if (cmd->kind == K_SOLVER) {
      s->work_time += s->t_res;
      sim_schedule(c, s->t_res, EV_PHASE, P_RES_END);
    } else {
      sim_time t = cmd->kind == K_RES ? s->t_res : s->t_upd;
      s->work_time += t;
      sim_schedule(c, t, EV_FE, FE_EXEC_DONE);
    }
    return;
  case FE_EXEC_DONE:
    if (cmd->kind == K_UPD) sync_update(c);
    if (r->stopped) return;
    kernel_end(c);
    return;
  case FE_TORN: {
    sim_time now = sim_now(c->eng);
    if (c->traced)
      trace_span(sim_trace(c->eng), sim_track(c),
                 cmd->kind == K_RES ? "residual" : cmd->kind == K_UPD ? "update" : "solver",
                 s->k_launch, now);
    send_msg(c, PORT_GPU, 0, PK_KERNEL_DONE, DEV_CPU, cmd->kind, cmd->iter);
    g_free(g_queue_pop_head(&s->cmds));
    s->fe_busy = false;
    fe_start(c);
    return;
  }
  default: g_error("%s: unknown front-end step %u", c->name, what);
  }
}

/* A halo put's flag (F) reached this node's host or GPU. */
static void flag_in(struct sim_comp *c, uint32_t f) {
  struct rx_state *s = c->state;
  struct rx_run *r = s->run;
  sim_time now = sim_now(c->eng);
  g_assert(f >= 1 && (f - 1) / 2 < r->n_edges);
  struct rx_edge *e = &r->e[(f - 1) / 2];
  if (f % 2 == 0) { /* local: the put has left */
    e->busy = false;
    return;
  }
  struct rx_snap *sn = g_queue_pop_head(&e->snaps);
  g_assert(sn && e->dst == s->gi);
  rx_mem_stage(s->g->mem, now + 1, 0, e->rows, e->n, sn->vals, sn->vers);
  g_free(sn->vals);
  g_free(sn);
  e->landed++;
  s->landed++;
  if (s->host == H_WAIT_HALO && now >= s->wait_start && halos_in(s, s->h_iter)) {
    sim_time t = notice(r, s->wait_start, now);
    s->wait_time += t - s->wait_start;
    sim_schedule(c, t - now, EV_HOST, 0);
  }
  if (s->halo_wait && halos_in(s, s->iter)) {
    s->halo_wait = false;
    sim_time p = s->t_poll > 0 ? s->t_poll : 1;
    sim_time t = s->wait_start + (now - s->wait_start + p - 1) / p * p;
    s->wait_time += t - s->wait_start;
    sim_schedule(c, t - now, EV_PHASE, P_HALO_SEEN);
  }
}

static void bus_in(struct sim_comp *c, int port, uint64_t h) {
  struct rx_state *s = c->state;
  struct pmsg m = *(struct pmsg *)sim_payload(c->eng, h);
  sim_payload_free(c->eng, h);
  switch (m.kind) {
  case PK_QUEUE_CMD: {
    g_assert(port == PORT_GPU);
    struct rx_cmd *cmd = g_new(struct rx_cmd, 1);
    *cmd = (struct rx_cmd){.kind = (uint8_t)m.a, .iter = m.b,
                           .depth = g_queue_get_length(&s->cmds) + 1};
    g_queue_push_tail(&s->cmds, cmd);
    fe_start(c);
    break;
  }
  case PK_KERNEL_DONE: host_completion(c); break;
  case PK_FLAG: flag_in(c, m.a); break;
  default: g_error("%s: unexpected message kind %u from the bus", c->name, m.kind);
  }
}

static void rx_handle(struct sim_comp *c, const struct sim_event *ev) {
  struct rx_state *s = c->state;
  if (!s->g || s->run->stopped) return;
  if (ev->port != SIM_PORT_SELF) {
    bus_in(c, ev->port, ev->data);
    return;
  }
  switch (ev->kind) {
  case EV_UNIT: unit_event(c, (uint32_t)ev->data); break;
  case EV_HOST: host_step(c); break;
  case EV_FE: fe_event(c, (uint32_t)ev->data); break;
  case EV_PHASE: sync_phase(c, (uint32_t)ev->data); break;
  default: g_error("%s: unknown event %u", c->name, ev->kind);
  }
}

static void async_setup(struct rx_state *s) {
  const struct rx_setup *st = &s->run->s;
  int64_t rows = s->g->rows, upb = units_per_block(st);
  s->R = unit_threads(st) / st->subwarp;
  if (st->variant == RX_STATIC) {
    s->n_units = (uint32_t)ceil_div(rows, s->R);
  } else {
    s->n_units = (uint32_t)(st->oscb * st->gpu->cus * upb);
    s->S = (int64_t)s->n_units * s->R;
  }
  s->n_blocks = (uint32_t)ceil_div(s->n_units, upb);
  s->units = g_new0(struct rx_unit, s->n_units);
  s->block_left = g_new0(uint32_t, s->n_blocks);
  s->pval = g_new(double, (size_t)s->n_units * (size_t)s->R);
  s->pver = g_new(uint32_t, (size_t)s->n_units * (size_t)s->R);
  s->list = g_new(int64_t, (size_t)s->R);
  for (uint32_t i = 0; i < s->n_units; i++) {
    struct rx_unit *u = &s->units[i];
    u->block = (uint32_t)(i / upb);
    u->first = (int64_t)i * s->R;
    u->val = s->pval + (size_t)i * (size_t)s->R;
    u->ver = s->pver + (size_t)i * (size_t)s->R;
    if (st->variant == RX_STATIC) {
      u->n = (uint32_t)MIN(s->R, rows - u->first);
      u->steps = (uint32_t)st->updates;
    } else {
      u->n = (uint32_t)s->R;
      u->steps = (uint32_t)ceil_div(st->updates * rows - u->first, s->S);
    }
    s->block_left[u->block]++;
  }
  s->units_left = s->n_units;
}

static void rx_init(struct sim_comp *c) {
  struct rx_state *s = c->state;
  const struct rx_node *nd = c->config;
  s->run = nd->run;
  s->gi = nd->gpu;
  g_queue_init(&s->cmds);
  if (s->gi == UINT32_MAX) return; /* a node the run does not use */
  s->g = &s->run->g[s->gi];
  const struct rx_setup *st = &s->run->s;
  if (st->variant == RX_SYNC) {
    s->tmp = g_new(double, (size_t)s->g->rows);
    s->tmpv = g_new(uint32_t, (size_t)s->g->rows);
    sync_times(s);
    s->total = 2 * (uint64_t)st->updates;
  } else {
    async_setup(s);
  }
  sim_schedule(c, 0, EV_HOST, 0);
}

/* What a node's relax component reports (relax_outputs); a node past the
 * run's GPUs runs nothing and reports nothing. */
static const struct sim_out_decl relax_outs[] = {
    [RX_OUT_KERNELS] = OUT_F(kernels, UNIT_NONE, SIM_OUT_SOME,
                             "kernels completed (a node whose GPU holds rows)"),
    [RX_OUT_STEPS] = OUT_F(steps, UNIT_NONE, SIM_OUT_SOME,
                           "asynchronous steps (a unit's rows updated once) completed"),
    [RX_OUT_HALO_PUTS] = OUT_F(halo_puts, UNIT_NONE, SIM_OUT_SOME, "halo puts posted"),
    [RX_OUT_HALO_PUTS_SKIPPED] = OUT_F(halo_puts_skipped, UNIT_NONE, SIM_OUT_SOME,
                                       "asynchronous halo puts skipped: the previous one had "
                                       "not left yet"),
    [RX_OUT_HALOS_LANDED] = OUT_F(halos_landed, UNIT_NONE, SIM_OUT_SOME,
                                  "halo puts landed in this GPU's memory"),
    [RX_OUT_HOST_DONE] = OUT_F(host_done, UNIT_TIME, SIM_OUT_SOME,
                               "when the host noticed its last kernel ended"),
};
SIM_OUT_GROUP(relax_outputs, "relax", "node<i>.relax.KEY; by kind node.relax.KEY (ajacobi)",
              relax_outs, RX_OUT_COUNT);

static void rx_finish(struct sim_comp *c, struct sim_report *r) {
  struct rx_state *s = c->state;
  if (!s->g) return;
  sim_out_int(r, c, RX_OUT_KERNELS, (int64_t)s->kernels);
  sim_out_int(r, c, RX_OUT_STEPS, (int64_t)s->steps);
  sim_out_int(r, c, RX_OUT_HALO_PUTS, (int64_t)s->puts);
  sim_out_int(r, c, RX_OUT_HALO_PUTS_SKIPPED, (int64_t)s->skipped);
  sim_out_int(r, c, RX_OUT_HALOS_LANDED, (int64_t)s->landed);
  sim_out_int(r, c, RX_OUT_HOST_DONE, s->host_done);
  ph_add(r, PH_LAUNCH, s->launch_time);
  ph_add(r, PH_GPU_WORK, s->work_time + s->barrier_time);
  ph_add(r, PH_TEARDOWN, s->teardown_time);
  ph_add(r, PH_HOST_STACK, s->stack_time);
  ph_add(r, PH_WAITING, s->wait_time);
}

static void rx_destroy(struct sim_comp *c) {
  struct rx_state *s = c->state;
  struct rx_cmd *cmd;
  while ((cmd = g_queue_pop_head(&s->cmds))) g_free(cmd);
  g_free(s->units);
  g_free(s->block_left);
  g_free(s->pval);
  g_free(s->pver);
  g_free(s->list);
  g_free(s->tmp);
  g_free(s->tmpv);
}

const struct sim_type relax_type = {
    .name = "relax",
    .doc = "a node's host and GPU running Jacobi with the numbers in the loop (relax.h)",
    .ports = rx_ports,
    .n_ports = 2,
    .state_size = sizeof(struct rx_state),
    .init = rx_init,
    .handle = rx_handle,
    .finish = rx_finish,
    .destroy = rx_destroy,
    .outputs = &relax_outputs,
    .port_payloads = true,
};

struct sim_comp *rx_add(struct sim_engine *e, const char *name, struct rx_run *r, uint32_t node) {
  static const struct rx_node idle = {NULL, UINT32_MAX}; /* nodes past the GPUs: nothing */
  if (node >= r->s.gpus) return sim_add(e, &relax_type, name, &idle);
  r->nodes[node] = (struct rx_node){r, node};
  return sim_add(e, &relax_type, name, &r->nodes[node]);
}

/* ---- the report ---- */

/* The connection types reported one by one (relax.h "Monitor"): every
 * pair of neighbours in the 5-point 2D (2, 3, 4 off-diagonals) and 7-point
 * 3D (3, 4, 5, 6) Laplacians; reads of other types (a Matrix Market
 * file's) count in the all-types figures only. */
#define RX_AGE_TYPES(X) \
  X(2, 3) X(3, 2) X(3, 3) X(3, 4) X(4, 3) X(4, 4) X(4, 5) X(5, 4) X(5, 5) X(5, 6) X(6, 5) X(6, 6)
#define RX_AGE_PAIR(t, s) {t, s},
static const uint8_t rx_age_types[][2] = {RX_AGE_TYPES(RX_AGE_PAIR)};
#define RX_N_AGE_TYPES G_N_ELEMENTS(rx_age_types)
/* The five statistics of a box plot, per type and over all types, in this order. */
enum { RX_AGE_LQ, RX_AGE_MEDIAN, RX_AGE_UQ, RX_AGE_MIN, RX_AGE_MAX, RX_AGE_STATS };

#define RX_AGE_DOC "the version (updates seen) the reads of each row's midway-th update read, "
#define RX_AGE_DECLS(t, s)                                                                    \
  {"age_lower_quartile." #t "_" #s, UNIT_NONE, SIM_OUT_REAL | SIM_OUT_SOME,                 \
   RX_AGE_DOC "type " #t "_" #s ": lower quartile"},                                        \
  {"age_median." #t "_" #s, UNIT_NONE, SIM_OUT_REAL | SIM_OUT_SOME,                         \
   RX_AGE_DOC "type " #t "_" #s ": median"},                                                \
  {"age_upper_quartile." #t "_" #s, UNIT_NONE, SIM_OUT_REAL | SIM_OUT_SOME,                 \
   RX_AGE_DOC "type " #t "_" #s ": upper quartile"},                                        \
  {"age_min." #t "_" #s, UNIT_NONE, SIM_OUT_SOME, RX_AGE_DOC "type " #t "_" #s ": least"},  \
  {"age_max." #t "_" #s, UNIT_NONE, SIM_OUT_SOME, RX_AGE_DOC "type " #t "_" #s ": most"},

enum rx_run_out {
  RXR_ROWS, RXR_GPUS, RXR_RESIDUAL, RXR_CONVERGED, RXR_TIME_TO_TOLERANCE, RXR_UPDATES_MEAN,
  RXR_UPDATES_MIN, RXR_UPDATES_MAX, RXR_UPDATES_SD, RXR_TIME_PER_UPDATE, RXR_LAG_MEAN,
  RXR_LAG_MIN, RXR_LAG_MAX, RXR_SAMPLES, RXR_AGE_READS,
  RXR_AGE, /* RX_AGE_STATS over all types, then RX_AGE_STATS per type of rx_age_types */
  RXR_COUNT = RXR_AGE + RX_AGE_STATS * (1 + RX_N_AGE_TYPES)
};
static const struct sim_out_decl rx_run_outs[] = {
    [RXR_ROWS] = OUT(rows, UNIT_NONE, "rows of the system"),
    [RXR_GPUS] = OUT(gpus, UNIT_NONE, "GPUs the rows are split over"),
    [RXR_RESIDUAL] = OUT_F(residual, UNIT_NONE, SIM_OUT_REAL,
                           "||b - Ax|| / ||b|| of the latest stored x at the end"),
    [RXR_CONVERGED] = OUT(converged, UNIT_NONE, "1: a sample reached the tolerance"),
    [RXR_TIME_TO_TOLERANCE] = OUT_F(time_to_tolerance_ps, UNIT_TIME, SIM_OUT_SOME,
                                    "when the first sample at or below the tolerance was "
                                    "taken (a run that converged)"),
    [RXR_UPDATES_MEAN] = OUT_F(updates_mean, UNIT_NONE, SIM_OUT_REAL, "updates per row, mean"),
    [RXR_UPDATES_MIN] = OUT(updates_min, UNIT_NONE, "updates of the least-updated row"),
    [RXR_UPDATES_MAX] = OUT(updates_max, UNIT_NONE, "updates of the most-updated row"),
    [RXR_UPDATES_SD] = OUT_F(updates_sd, UNIT_NONE, SIM_OUT_REAL,
                             "updates per row, standard deviation"),
    [RXR_TIME_PER_UPDATE] = OUT(time_per_update_ps, UNIT_TIME,
                                "the run's end / updates_mean (the study's Fig. 3)"),
    [RXR_LAG_MEAN] = OUT_F(read_lag_mean, UNIT_NONE, SIM_OUT_REAL,
                           "update index - 1 - version read, over every read (0: Jacobi)"),
    [RXR_LAG_MIN] = OUT(read_lag_min, UNIT_NONE, "the least lag read (negative: fresher)"),
    [RXR_LAG_MAX] = OUT(read_lag_max, UNIT_NONE, "the largest lag read"),
    [RXR_SAMPLES] = OUT(samples, UNIT_NONE, "residual samples taken"),
    [RXR_AGE_READS] = OUT_F(age_reads, UNIT_NONE, SIM_OUT_SOME,
                            "reads of each row's midway-th update (midway > 0)"),
    [RXR_AGE + RX_AGE_LQ] = OUT_F(age_lower_quartile, UNIT_NONE, SIM_OUT_REAL | SIM_OUT_SOME,
                                  RX_AGE_DOC "all types: lower quartile"),
    [RXR_AGE + RX_AGE_MEDIAN] = OUT_F(age_median, UNIT_NONE, SIM_OUT_REAL | SIM_OUT_SOME,
                                      RX_AGE_DOC "all types: median"),
    [RXR_AGE + RX_AGE_UQ] = OUT_F(age_upper_quartile, UNIT_NONE, SIM_OUT_REAL | SIM_OUT_SOME,
                                  RX_AGE_DOC "all types: upper quartile"),
    [RXR_AGE + RX_AGE_MIN] = OUT_F(age_min, UNIT_NONE, SIM_OUT_SOME, RX_AGE_DOC "all types: least"),
    [RXR_AGE + RX_AGE_MAX] = OUT_F(age_max, UNIT_NONE, SIM_OUT_SOME, RX_AGE_DOC "all types: most"),
    RX_AGE_TYPES(RX_AGE_DECLS)
};
SIM_OUT_GROUP(rx_run_outputs, "ajacobi",
              "ajacobi.KEY; age_*.T_S: T, S the off-diagonals of the reading and the read row",
              rx_run_outs, RXR_COUNT);

/* The K-th smallest (from 0) of the versions H counts: the lower edge of
 * the bin it falls in (exact while the bins are one version wide, updates
 * < RX_AGE_BINS; else to a bin's width). */
static double hist_order(const gsl_histogram *h, double k) {
  double cum = 0, lower, upper;
  for (size_t i = 0; i < h->n; i++) {
    cum += gsl_histogram_get(h, i);
    if (cum > k) {
      gsl_histogram_get_range(h, i, &lower, &upper);
      return lower;
    }
  }
  return gsl_histogram_max(h);
}

/* The Q-quantile of the versions H counts as gsl_stats_quantile_from_sorted_data
 * defines it (linear between the order statistics around (N - 1) Q). */
static double hist_quantile(const gsl_histogram *h, double q) {
  double n = gsl_histogram_sum(h), at = (n - 1) * q, lo = floor(at);
  double v = hist_order(h, lo);
  return at > lo ? v + (at - lo) * (hist_order(h, lo + 1) - v) : v;
}

/* The five statistics of H (its reads' versions, least MN, most MX) from
 * decl FIRST on. */
static void report_ages(struct sim_report *rep, const char *prefix, const gsl_histogram *h,
                        uint32_t mn, uint32_t mx, size_t first) {
  static const double q[] = {[RX_AGE_LQ] = 0.25, [RX_AGE_MEDIAN] = 0.5, [RX_AGE_UQ] = 0.75};
  for (size_t k = RX_AGE_LQ; k <= RX_AGE_UQ; k++)
    sim_out_put_real(rep, prefix, &rx_run_outs[first + k], hist_quantile(h, q[k]));
  sim_out_put_int(rep, prefix, &rx_run_outs[first + RX_AGE_MIN], mn);
  sim_out_put_int(rep, prefix, &rx_run_outs[first + RX_AGE_MAX], mx);
}

void rx_report(const struct rx_run *r, const char *prefix, struct sim_report *rep) {
  unsigned int mn, mx;
  gsl_stats_uint_minmax(&mn, &mx, r->count, 1, (size_t)r->n);
  double mean = gsl_stats_uint_mean(r->count, 1, (size_t)r->n);
  double sd = r->n > 1 ? gsl_stats_uint_sd_m(r->count, 1, (size_t)r->n, mean) : 0;
  sim_time end = rx_end_time(r);
  const struct sim_out_decl *d = rx_run_outs;
  sim_out_put_int(rep, prefix, &d[RXR_ROWS], r->n);
  sim_out_put_int(rep, prefix, &d[RXR_GPUS], r->s.gpus);
  sim_out_put_real(rep, prefix, &d[RXR_RESIDUAL], residual_now(r));
  sim_out_put_int(rep, prefix, &d[RXR_CONVERGED], r->stopped);
  if (r->stopped) sim_out_put_int(rep, prefix, &d[RXR_TIME_TO_TOLERANCE], r->stop_t);
  sim_out_put_real(rep, prefix, &d[RXR_UPDATES_MEAN], mean);
  sim_out_put_int(rep, prefix, &d[RXR_UPDATES_MIN], mn);
  sim_out_put_int(rep, prefix, &d[RXR_UPDATES_MAX], mx);
  sim_out_put_real(rep, prefix, &d[RXR_UPDATES_SD], sd);
  sim_out_put_int(rep, prefix, &d[RXR_TIME_PER_UPDATE],
                  mean > 0 ? (sim_time)llround((double)end / mean) : 0);
  sim_out_put_real(rep, prefix, &d[RXR_LAG_MEAN], r->lag_n ? r->lag_sum / (double)r->lag_n : 0);
  sim_out_put_int(rep, prefix, &d[RXR_LAG_MIN], r->lag_n ? r->lag_min : 0);
  sim_out_put_int(rep, prefix, &d[RXR_LAG_MAX], r->lag_n ? r->lag_max : 0);
  sim_out_put_int(rep, prefix, &d[RXR_SAMPLES], (int64_t)r->samples->len);
  /* every type's histogram has the same bins (note_age): their sum is all reads' */
  gsl_histogram *all = NULL;
  uint32_t amin = UINT32_MAX, amax = 0;
  for (size_t t = 0; t < RX_TYPES * RX_TYPES; t++) {
    if (!r->age[t]) continue;
    if (!all) all = gsl_histogram_clone(r->age[t]);
    else gsl_histogram_add(all, r->age[t]);
    amin = MIN(amin, r->age_min[t]);
    amax = MAX(amax, r->age_max[t]);
  }
  if (!all) return;
  sim_out_put_int(rep, prefix, &d[RXR_AGE_READS], (int64_t)gsl_histogram_sum(all));
  report_ages(rep, prefix, all, amin, amax, RXR_AGE);
  gsl_histogram_free(all);
  for (size_t k = 0; k < RX_N_AGE_TYPES; k++) {
    size_t t = (size_t)rx_age_types[k][0] * RX_TYPES + rx_age_types[k][1];
    if (r->age[t])
      report_ages(rep, prefix, r->age[t], r->age_min[t], r->age_max[t],
                  RXR_AGE + RX_AGE_STATS * (1 + k));
  }
}
