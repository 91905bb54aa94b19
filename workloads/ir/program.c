/* The per-rank intermediate form (program.h): building, matching sends to
 * receives through a hash index, and the checks every lowering relies on.
 * DESIGN.md Sec. 4. */
#include "program.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "nodeprog.h"

/* ---- kernels and collectives by index ---- */

/* An op stays 96 bytes: what is particular to a kernel lives in its table
 * entry (struct wl_kernel), not in every op. */
_Static_assert(sizeof(struct wl_op) == 96, "struct wl_op is 96 bytes");

struct wl_descs {
  gint refs;
  GArray *kernels;        /* struct wl_kernel; entry 0 zero */
  GArray *calls;          /* struct wl_call; entry 0 zero */
  GHashTable *kernel_at;  /* GBytes of an entry -> its index + 1 */
  GHashTable *call_at;
  GArray *groups;         /* struct wl_group: group g at g - 1 */
};

struct wl_descs *wl_descs_new(void) {
  struct wl_descs *d = g_new0(struct wl_descs, 1);
  d->refs = 1;
  d->kernels = g_array_new(FALSE, TRUE, sizeof(struct wl_kernel));
  d->calls = g_array_new(FALSE, TRUE, sizeof(struct wl_call));
  g_array_set_size(d->kernels, 1);
  g_array_set_size(d->calls, 1);
  d->groups = g_array_new(FALSE, FALSE, sizeof(struct wl_group));
  d->kernel_at = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
  d->call_at = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
  return d;
}

void wl_descs_unref(struct wl_descs *d) {
  if (!d || !g_atomic_int_dec_and_test(&d->refs)) return;
  g_array_free(d->kernels, TRUE);
  g_array_free(d->calls, TRUE);
  g_hash_table_destroy(d->kernel_at);
  g_hash_table_destroy(d->call_at);
  for (guint g = 0; g < d->groups->len; g++) g_free(g_array_index(d->groups, struct wl_group, g).ranks);
  g_array_free(d->groups, TRUE);
  g_free(d);
}

/* EL's index in table A (SIZE bytes an entry; AT: the index of each), added
 * when none equal is there. */
static uint32_t desc_add(GArray *a, GHashTable *at, const void *el, size_t size) {
  if (!memcmp(el, a->data, size)) return 0; /* entry 0: zeros */
  GBytes *b = g_bytes_new(el, size);
  uint32_t i = GPOINTER_TO_UINT(g_hash_table_lookup(at, b));
  if (i) {
    g_bytes_unref(b);
    return i - 1;
  }
  g_array_append_vals(a, el, 1);
  g_hash_table_insert(at, b, GUINT_TO_POINTER(a->len));
  return a->len - 1;
}

uint32_t wl_kernel_add(struct wl_program *p, const struct wl_kernel *k) {
  struct wl_kernel z = *k; /* padding zeroed, so equal entries are equal bytes */
  memset(&z, 0, sizeof z);
  z.flops_per_wg = k->flops_per_wg, z.bytes_per_wg = k->bytes_per_wg, z.kclass = k->kclass;
  z.spmv = k->spmv, z.x_gets = k->x_gets, z.ws_bytes = k->ws_bytes;
  z.reuse_per_wg = k->reuse_per_wg, z.gather_bytes = k->gather_bytes;
  z.rows_per_wg = k->rows_per_wg, z.nnz_per_wg = k->nnz_per_wg, z.peer_per_wg = k->peer_per_wg;
  z.peer_sectors_per_wg = k->peer_sectors_per_wg;
  z.cold_per_wg = k->cold_per_wg;
  z.bal_flops_per_wg = k->bal_flops_per_wg, z.bal_bytes_per_wg = k->bal_bytes_per_wg;
  z.bal_reuse_per_wg = k->bal_reuse_per_wg, z.merge_extra_per_wg = k->merge_extra_per_wg;
  z.lib = k->lib, z.lib_flops_per_wg = k->lib_flops_per_wg, z.lib_bytes_per_wg = k->lib_bytes_per_wg;
  z.block = k->block, z.segments = k->segments, z.segment_len = k->segment_len;
  z.copies = k->copies, z.copy_bytes = k->copy_bytes;
  z.buffers = k->buffers, z.elem_bytes = k->elem_bytes;
  return desc_add(p->descs->kernels, p->descs->kernel_at, &z, sizeof z);
}

uint32_t wl_call_add(struct wl_program *p, const struct wl_call *c) {
  struct wl_call z;
  memset(&z, 0, sizeof z);
  z.kind = c->kind, z.algo = c->algo, z.elem_bytes = c->elem_bytes;
  z.flops_per_elem = c->flops_per_elem, z.segment_bytes = c->segment_bytes;
  z.group = c->group;
  g_assert(c->group <= p->descs->groups->len);
  return desc_add(p->descs->calls, p->descs->call_at, &z, sizeof z);
}

const struct wl_kernel *wl_descs_kernel(const struct wl_descs *d, uint32_t i) {
  g_assert(i < d->kernels->len);
  return &g_array_index(d->kernels, struct wl_kernel, i);
}

const struct wl_kernel *wl_kernel_of(const struct wl_program *p, const struct wl_op *o) {
  return wl_descs_kernel(p->descs, o->kind == WL_COMPUTE ? o->kernel : 0);
}

const struct wl_call *wl_descs_call(const struct wl_descs *d, uint32_t i) {
  g_assert(i < d->calls->len);
  return &g_array_index(d->calls, struct wl_call, i);
}

const struct wl_call *wl_call_of(const struct wl_program *p, const struct wl_op *o) {
  g_assert(o->kind == WL_COLL);
  return wl_descs_call(p->descs, o->kernel);
}

/* ---- programs ---- */

struct wl_program *wl_program_new(uint32_t n_ranks) {
  g_assert(n_ranks >= 1);
  struct wl_program *p = g_new0(struct wl_program, 1);
  p->n_ranks = n_ranks;
  p->ranks = g_new0(struct wl_rank, n_ranks);
  p->measured_rank = WL_ALL_RANKS;
  p->descs = wl_descs_new();
  return p;
}

struct wl_program *wl_program_derive(const struct wl_program *p) {
  struct wl_program *q = g_new0(struct wl_program, 1);
  q->n_ranks = p->n_ranks;
  q->ranks = g_new0(struct wl_rank, p->n_ranks);
  q->measured_rank = p->measured_rank;
  q->forms = p->forms;
  q->descs = p->descs;
  g_atomic_int_inc(&q->descs->refs);
  return q;
}

struct wl_program *wl_program_on(uint32_t n_ranks, struct wl_descs *d) {
  struct wl_program *p = wl_program_new(n_ranks);
  wl_descs_unref(p->descs);
  p->descs = d;
  g_atomic_int_inc(&d->refs);
  return p;
}

void wl_program_free(struct wl_program *p) {
  if (!p) return;
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    g_free(p->ranks[r].ops);
    g_free(p->ranks[r].deps);
  }
  g_free(p->ranks);
  wl_descs_unref(p->descs);
  g_free(p);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

uint32_t wl_group_add(struct wl_program *p, const uint32_t *ranks, uint32_t n) {
  g_assert(n >= 1);
  GArray *gs = p->descs->groups;
  uint32_t *sorted = g_memdup2(ranks, n * sizeof *ranks);
  qsort(sorted, n, sizeof *sorted, cmp_u32);
  for (uint32_t i = 0; i < n; i++) g_assert(sorted[i] < p->n_ranks && (i == 0 || sorted[i] > sorted[i - 1]));
  for (guint g = 0; g < gs->len; g++) {
    const struct wl_group *e = &g_array_index(gs, struct wl_group, g);
    if (e->n == n && !memcmp(e->ranks, sorted, n * sizeof *sorted)) {
      g_free(sorted);
      return g + 1;
    }
  }
  struct wl_group e = {.n = n, .ranks = sorted};
  g_array_append_val(gs, e);
  return gs->len;
}

const struct wl_group *wl_descs_group(const struct wl_descs *d, uint32_t g) {
  g_assert(g <= d->groups->len);
  return g ? &g_array_index(d->groups, struct wl_group, g - 1) : NULL;
}

const struct wl_group *wl_group_get(const struct wl_program *p, uint32_t g) {
  return wl_descs_group(p->descs, g);
}

uint32_t wl_groups(const struct wl_program *p) { return p->descs->groups->len; }

void wl_copy_rank(struct wl_program *q, uint32_t rank, const struct wl_rank *src) {
  g_assert(rank < q->n_ranks && q->ranks[rank].n_ops == 0);
  struct wl_rank *dst = &q->ranks[rank];
  g_free(dst->ops);
  g_free(dst->deps);
  dst->ops = g_memdup2(src->ops, MAX(src->n_ops, 1) * sizeof *src->ops);
  dst->n_ops = dst->cap = src->n_ops;
  dst->deps = g_memdup2(src->deps, MAX(src->n_deps, 1) * sizeof *src->deps);
  dst->n_deps = dst->deps_cap = src->n_deps;
  dst->graph = src->graph;
  q->checked = false;
}

void wl_push_op(struct wl_program *p, uint32_t rank, const struct wl_op *o) {
  g_assert(rank < p->n_ranks);
  struct wl_rank *r = &p->ranks[rank];
  if (r->n_ops == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 8;
    r->ops = g_renew(struct wl_op, r->ops, r->cap);
  }
  r->ops[r->n_ops++] = *o;
  p->checked = false;
  if (o->kind == WL_LOOP) r->depth++;
  else if (o->kind == WL_END) r->depth--;
}

static void push(struct wl_program *p, uint32_t rank, struct wl_op op) {
  g_assert(rank < p->n_ranks);
  struct wl_rank *r = &p->ranks[rank];
  op.lane = op.kind == WL_SYNC || op.kind == WL_LOOP || op.kind == WL_END ? 0 : r->lane;
  op.form = r->form;
  uint8_t depth = r->depth; /* wl_loop and wl_end keep it */
  wl_push_op(p, rank, &op);
  r->depth = depth;
}

void wl_compute(struct wl_program *p, uint32_t rank, uint32_t n_wgs, int64_t flops_per_wg,
                int64_t bytes_per_wg) {
  g_assert(n_wgs >= 1 && flops_per_wg >= 0 && bytes_per_wg >= 0);
  uint32_t k = wl_kernel_add(p, &(struct wl_kernel){.flops_per_wg = flops_per_wg,
                                                    .bytes_per_wg = bytes_per_wg});
  push(p, rank, (struct wl_op){.kind = WL_COMPUTE, .n_wgs = n_wgs, .kernel = k});
}

void wl_send_parts(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes,
                   uint32_t tag, uint32_t parts, uint32_t stores) {
  g_assert(peer < p->n_ranks && peer != rank && bytes >= 0 && parts >= 1 && stores >= 1);
  push(p, rank, (struct wl_op){.kind = WL_SEND, .peer = peer, .bytes = bytes, .tag = tag,
                               .parts = parts, .stores = stores});
}

void wl_recv_parts(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes,
                   uint32_t tag, uint32_t parts) {
  g_assert(peer < p->n_ranks && peer != rank && bytes >= 0 && parts >= 1);
  push(p, rank, (struct wl_op){.kind = WL_RECV, .peer = peer, .bytes = bytes, .tag = tag,
                               .parts = parts});
}

void wl_send(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes, uint32_t tag) {
  wl_send_parts(p, rank, peer, bytes, tag, 1, 1);
}

void wl_recv(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes, uint32_t tag) {
  wl_recv_parts(p, rank, peer, bytes, tag, 1);
}

/* RANK's last compute op (an error if it has none). */
static struct wl_op *last_compute(struct wl_program *p, uint32_t rank, const char *who) {
  struct wl_rank *r = &p->ranks[rank];
  for (size_t i = r->n_ops; i-- > 0;)
    if (r->ops[i].kind == WL_COMPUTE) return &r->ops[i];
  g_error("%s: rank %u has no compute op", who, rank);
}

/* A copy of the kernel of RANK's last compute op (*O), to change and
 * give back with set_kernel. */
static struct wl_kernel last_kernel(struct wl_program *p, uint32_t rank, const char *who,
                                    struct wl_op **o) {
  *o = last_compute(p, rank, who);
  return *wl_kernel_of(p, *o);
}

static void set_kernel(struct wl_program *p, struct wl_op *o, const struct wl_kernel *k) {
  o->kernel = wl_kernel_add(p, k);
}

int wl_kclass_named(const char *name) {
  /* In enum kclass order. */
  static const char *const names[KC_COUNT] = {"streaming", "stencil", "spmv", "reduction",
                                              "axpy", "gemm", "library"};
  for (int i = 0; i < KC_COUNT; i++)
    if (!strcmp(name, names[i])) return i;
  return -1;
}

void wl_kclass(struct wl_program *p, uint32_t rank, uint8_t kclass, int64_t ws_bytes,
               int64_t reuse_per_wg, int64_t gather_bytes) {
  g_assert(rank < p->n_ranks && kclass < KC_COUNT && ws_bytes >= 0 && reuse_per_wg >= 0 &&
           gather_bytes >= 0);
  struct wl_op *o;
  struct wl_kernel k = last_kernel(p, rank, "wl_kclass", &o);
  k.kclass = kclass;
  k.ws_bytes = ws_bytes;
  k.reuse_per_wg = reuse_per_wg;
  k.gather_bytes = gather_bytes;
  set_kernel(p, o, &k);
}

void wl_elem(struct wl_program *p, uint32_t rank, int64_t bytes) {
  g_assert(rank < p->n_ranks && bytes >= 0 && bytes <= 65535);
  struct wl_op *o;
  struct wl_kernel k = last_kernel(p, rank, "wl_elem", &o);
  k.elem_bytes = (uint16_t)bytes;
  set_kernel(p, o, &k);
}

void wl_buffers(struct wl_program *p, uint32_t rank, uint8_t n) {
  g_assert(rank < p->n_ranks);
  struct wl_op *o;
  struct wl_kernel k = last_kernel(p, rank, "wl_buffers", &o);
  k.buffers = n;
  set_kernel(p, o, &k);
}

void wl_spmv_rows(struct wl_program *p, uint32_t rank, int64_t rows_per_wg, int64_t nnz_per_wg) {
  g_assert(rank < p->n_ranks && rows_per_wg >= 0 && nnz_per_wg >= 0);
  struct wl_op *o;
  struct wl_kernel k = last_kernel(p, rank, "wl_spmv_rows", &o);
  k.rows_per_wg = rows_per_wg;
  k.nnz_per_wg = nnz_per_wg;
  set_kernel(p, o, &k);
}

void wl_peer_loads(struct wl_program *p, uint32_t rank, int64_t peer_per_wg,
                   int64_t peer_sectors_per_wg) {
  g_assert(rank < p->n_ranks && peer_per_wg >= 0 && peer_sectors_per_wg >= 0);
  struct wl_op *o;
  struct wl_kernel k = last_kernel(p, rank, "wl_peer_loads", &o);
  k.peer_per_wg = peer_per_wg;
  k.peer_sectors_per_wg = peer_sectors_per_wg;
  set_kernel(p, o, &k);
}

void wl_cold(struct wl_program *p, uint32_t rank, int64_t cold_per_wg) {
  g_assert(rank < p->n_ranks && cold_per_wg >= 0);
  struct wl_op *o;
  struct wl_kernel k = last_kernel(p, rank, "wl_cold", &o);
  k.cold_per_wg = cold_per_wg;
  set_kernel(p, o, &k);
}

void wl_blocking_copies(struct wl_program *p, uint32_t rank, int64_t copies, int64_t copy_bytes) {
  g_assert(rank < p->n_ranks && copies >= 1 && copy_bytes >= 1);
  struct wl_op *o;
  struct wl_kernel k = last_kernel(p, rank, "wl_blocking_copies", &o);
  g_assert(o->on == WL_ON_CPU);
  k.copies = copies;
  k.copy_bytes = copy_bytes;
  set_kernel(p, o, &k);
}

void wl_spmv_gets(struct wl_program *p, uint32_t rank) {
  g_assert(rank < p->n_ranks);
  struct wl_op *o;
  struct wl_kernel k = last_kernel(p, rank, "wl_spmv_gets", &o);
  k.x_gets = 1;
  set_kernel(p, o, &k);
}

void wl_quiet(struct wl_program *p, uint32_t rank) {
  g_assert(rank < p->n_ranks && p->ranks[rank].graph);
  push(p, rank, (struct wl_op){.kind = WL_QUIET});
}

void wl_spmv_alg(struct wl_program *p, uint32_t rank, uint8_t alg, int64_t flops_per_wg,
                 int64_t bytes_per_wg, int64_t reuse_per_wg, int64_t merge_extra_per_wg) {
  g_assert(rank < p->n_ranks && alg <= WL_SPMV_MERGE && flops_per_wg >= 0 && bytes_per_wg >= 0 &&
           reuse_per_wg >= 0 && merge_extra_per_wg >= 0);
  struct wl_op *o;
  struct wl_kernel k = last_kernel(p, rank, "wl_spmv_alg", &o);
  k.spmv = alg;
  k.bal_flops_per_wg = flops_per_wg;
  k.bal_bytes_per_wg = bytes_per_wg;
  k.bal_reuse_per_wg = reuse_per_wg;
  k.merge_extra_per_wg = merge_extra_per_wg;
  set_kernel(p, o, &k);
}

void wl_sync(struct wl_program *p, uint32_t rank) {
  push(p, rank, (struct wl_op){.kind = WL_SYNC});
}

void wl_tile_sync(struct wl_program *p, uint32_t rank) {
  push(p, rank, (struct wl_op){.kind = WL_SYNC, .tile = 1});
}

void wl_library(struct wl_program *p, uint32_t rank, int64_t lib_flops_per_wg,
                int64_t lib_bytes_per_wg) {
  g_assert(rank < p->n_ranks && lib_flops_per_wg >= 0 && lib_bytes_per_wg >= 0);
  struct wl_op *o;
  struct wl_kernel k = last_kernel(p, rank, "wl_library", &o);
  k.lib = 1;
  k.lib_flops_per_wg = lib_flops_per_wg;
  k.lib_bytes_per_wg = lib_bytes_per_wg;
  set_kernel(p, o, &k);
}

void wl_block(struct wl_program *p, uint32_t rank, uint32_t block, int64_t segments,
              int64_t segment_len) {
  g_assert(rank < p->n_ranks && block >= 1 && segments >= 0 && segment_len >= 0);
  struct wl_op *o;
  struct wl_kernel k = last_kernel(p, rank, "wl_block", &o);
  k.block = block;
  k.segments = segments;
  k.segment_len = segment_len;
  set_kernel(p, o, &k);
}

void wl_host_sync(struct wl_program *p, uint32_t rank) {
  push(p, rank, (struct wl_op){.kind = WL_SYNC, .host_reads = 1});
}

void wl_host_copies(struct wl_program *p, uint32_t rank, uint8_t copies) {
  g_assert(copies >= 1);
  push(p, rank, (struct wl_op){.kind = WL_SYNC, .host_reads = 1, .copies_home = copies});
}

void wl_loop(struct wl_program *p, uint32_t rank, uint32_t count) {
  g_assert(rank < p->n_ranks && count >= 1 && !p->ranks[rank].graph);
  struct wl_rank *r = &p->ranks[rank];
  g_assert(r->depth < WL_MAX_DEPTH);
  r->depth++;
  push(p, rank, (struct wl_op){.kind = WL_LOOP, .count = count});
}

void wl_end(struct wl_program *p, uint32_t rank) {
  g_assert(rank < p->n_ranks && p->ranks[rank].depth > 0);
  p->ranks[rank].depth--;
  push(p, rank, (struct wl_op){.kind = WL_END});
}

static uint64_t mul_sat(uint64_t a, uint64_t b) {
  return (a && b > UINT64_MAX / a) ? UINT64_MAX : a * b;
}

bool wl_has_loops(const struct wl_program *p) {
  for (uint32_t r = 0; r < p->n_ranks; r++)
    for (size_t i = 0; i < p->ranks[r].n_ops; i++)
      if (p->ranks[r].ops[i].kind == WL_LOOP) return true;
  return false;
}

bool wl_loops_at_syncs(const struct wl_program *p) {
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *rk = &p->ranks[r];
    uint8_t before = WL_SYNC; /* the last op that is no loop marker; the start counts as a sync */
    for (size_t i = 0; i < rk->n_ops; i++) {
      uint8_t k = rk->ops[i].kind;
      if (k != WL_LOOP && k != WL_END) before = k;
      else if (before != WL_SYNC) return false;
    }
  }
  return true;
}

/* Calls EACH(op, times it runs) for every op of R that is no loop marker. */
static void for_runs(const struct wl_rank *r, void (*each)(const struct wl_op *, uint64_t, void *),
                     void *data) {
  uint64_t mult[WL_MAX_DEPTH + 1] = {1};
  int d = 0;
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    if (o->kind == WL_LOOP) {
      mult[d + 1] = mul_sat(mult[d], o->count);
      d++;
    } else if (o->kind == WL_END) {
      d--;
    } else {
      each(o, mult[d], data);
    }
  }
}

static void add_runs(const struct wl_op *o, uint64_t runs, void *total) {
  (void)o;
  uint64_t *t = total;
  *t = *t + runs < *t ? UINT64_MAX : *t + runs;
}

static void most_runs(const struct wl_op *o, uint64_t runs, void *most) {
  (void)o;
  uint64_t *m = most;
  if (runs > *m) *m = runs;
}

uint64_t wl_unrolled_ops(const struct wl_program *p) {
  uint64_t total = 0;
  for (uint32_t r = 0; r < p->n_ranks; r++) for_runs(&p->ranks[r], add_runs, &total);
  return total;
}

uint64_t wl_most_runs(const struct wl_program *p, uint32_t rank) {
  uint64_t most = 1;
  for_runs(&p->ranks[rank], most_runs, &most);
  return most;
}

/* Appends ops [A, B) of SRC (balanced loops) to DST, loops written out;
 * PEEL: loops of n >= 2 kept as n - 1 iterations and one body after. */
static void copy_ops(const struct wl_rank *src, size_t a, size_t b, struct wl_program *q,
                     uint32_t rank, bool peel) {
  for (size_t i = a; i < b; i++) {
    const struct wl_op *o = &src->ops[i];
    if (o->kind != WL_LOOP) {
      struct wl_rank *r = &q->ranks[rank];
      uint8_t lane = r->lane, form = r->form;
      r->lane = o->lane;
      r->form = o->form;
      push(q, rank, *o);
      r->lane = lane;
      r->form = form;
      continue;
    }
    size_t end = i + 1;
    for (int d = 1; d > 0; end++) d += src->ops[end].kind == WL_LOOP ? 1 : src->ops[end].kind == WL_END ? -1 : 0;
    end--; /* the matching WL_END */
    if (peel) {
      if (o->count >= 2) {
        wl_loop(q, rank, o->count - 1);
        copy_ops(src, i + 1, end, q, rank, true);
        wl_end(q, rank);
      }
      copy_ops(src, i + 1, end, q, rank, true);
    } else {
      for (uint32_t k = 0; k < o->count; k++) copy_ops(src, i + 1, end, q, rank, false);
    }
    i = end;
  }
}

static struct wl_program *transform(const struct wl_program *p, bool peel) {
  struct wl_program *q = wl_program_derive(p);
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *src = &p->ranks[r];
    g_assert(src->depth == 0);
    if (src->graph) { /* graphs hold no loops: a copy */
      wl_copy_rank(q, r, src);
      continue;
    }
    copy_ops(src, 0, src->n_ops, q, r, peel);
    q->ranks[r].lane = src->lane;
  }
  return q;
}

struct wl_program *wl_unroll(const struct wl_program *p) { return transform(p, false); }

struct wl_program *wl_peel_last(const struct wl_program *p) { return transform(p, true); }

void wl_calc(struct wl_program *p, uint32_t rank, int64_t time_ps, uint8_t on) {
  g_assert(time_ps >= 0 && on <= WL_ON_GPU);
  push(p, rank, (struct wl_op){.kind = WL_COMPUTE, .n_wgs = 1, .time_ps = time_ps, .on = on});
}

static int64_t ceil_ps(unsigned __int128 num, unsigned __int128 den) {
  return (int64_t)((num + den - 1) / den);
}

int64_t wl_cpu_time(const struct cpu_config *cpu, const struct wl_kernel *k, const struct wl_op *o) {
  if (o->time_ps > 0) return o->time_ps * (int64_t)o->n_wgs;
  unsigned __int128 flops = (unsigned __int128)o->n_wgs * (uint64_t)k->flops_per_wg;
  unsigned __int128 bytes = (unsigned __int128)o->n_wgs * (uint64_t)k->bytes_per_wg;
  int64_t tf = ceil_ps(flops * SIM_S, (unsigned __int128)(uint64_t)cpu->cores *
                                          (uint64_t)cpu->clock * (uint64_t)cpu->flops_per_cycle);
  int64_t tb = ceil_ps(bytes * 8u * SIM_S, (uint64_t)cpu->mem_bandwidth);
  return MAX(tf, tb);
}

uint32_t wl_last(const struct wl_program *p, uint32_t rank) {
  g_assert(rank < p->n_ranks && p->ranks[rank].n_ops > 0);
  return (uint32_t)(p->ranks[rank].n_ops - 1);
}

void wl_graph(struct wl_program *p, uint32_t rank) {
  g_assert(rank < p->n_ranks);
  p->ranks[rank].graph = true;
}

/* Adds a dependency of OP on ON. Dependencies of one op must be added
 * together, before those of a later op gets any (as GOAL files and the
 * builders write them). */
static void add_dep(struct wl_program *p, uint32_t rank, uint32_t op, uint32_t on, bool start) {
  struct wl_rank *r = &p->ranks[rank];
  g_assert(op < r->n_ops && on < r->n_ops && op != on);
  r->graph = true;
  struct wl_op *o = &r->ops[op];
  if (o->n_deps == 0) {
    o->dep_first = (uint32_t)r->n_deps;
  } else if (o->dep_first + o->n_deps != r->n_deps) {
    /* Another op's dependencies came in between: move this op's to the end. */
    size_t need = r->n_deps + o->n_deps + 1;
    if (need > r->deps_cap) {
      r->deps_cap = MAX(need, 2 * r->deps_cap);
      r->deps = g_renew(struct wl_dep, r->deps, r->deps_cap);
    }
    memmove(&r->deps[r->n_deps], &r->deps[o->dep_first], o->n_deps * sizeof *r->deps);
    o->dep_first = (uint32_t)r->n_deps;
    r->n_deps += o->n_deps;
  }
  if (r->n_deps == r->deps_cap) {
    r->deps_cap = r->deps_cap ? 2 * r->deps_cap : 8;
    r->deps = g_renew(struct wl_dep, r->deps, r->deps_cap);
  }
  r->deps[r->n_deps++] = (struct wl_dep){on, start};
  o->n_deps++;
  p->checked = false;
}

void wl_requires(struct wl_program *p, uint32_t rank, uint32_t op, uint32_t on) {
  add_dep(p, rank, op, on, false);
}

void wl_irequires(struct wl_program *p, uint32_t rank, uint32_t op, uint32_t on) {
  add_dep(p, rank, op, on, true);
}

bool wl_has_graph(const struct wl_program *p) {
  for (uint32_t r = 0; r < p->n_ranks; r++)
    if (p->ranks[r].graph) return true;
  return false;
}

const char *wl_op_where(const struct wl_program *p, uint32_t rank, size_t i, char *buf,
                        size_t size) {
  uint32_t line = p->ranks[rank].ops[i].line;
  if (line)
    g_snprintf(buf, size, "rank %u op %zu (line %u)", rank, i, line);
  else
    g_snprintf(buf, size, "rank %u op %zu", rank, i);
  return buf;
}

void wl_lane(struct wl_program *p, uint32_t rank, uint8_t lane) {
  g_assert(rank < p->n_ranks && lane <= WL_LANE_STREAM);
  p->ranks[rank].lane = lane;
}

void wl_form(struct wl_program *p, uint32_t rank, uint8_t form) {
  g_assert(rank < p->n_ranks && form <= WL_FORM_DISCRETE);
  p->ranks[rank].form = form;
  if (form != WL_FORM_ANY) p->forms |= (uint8_t)(1u << form);
}

struct wl_program *wl_select_form(const struct wl_program *p, uint8_t form) {
  struct wl_program *q = wl_program_derive(p);
  q->forms = 0;
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *src = &p->ranks[r];
    g_assert(!src->graph); /* forms are sequences' */
    for (size_t i = 0; i < src->n_ops; i++)
      if (src->ops[i].form == WL_FORM_ANY || src->ops[i].form == form) {
        struct wl_op o = src->ops[i];
        o.form = WL_FORM_ANY;
        wl_push_op(q, r, &o);
      }
  }
  return q;
}

void wl_pack(struct wl_program *p, uint32_t rank) {
  g_assert(rank < p->n_ranks);
  struct wl_rank *r = &p->ranks[rank];
  g_assert(r->n_ops > 0 && r->ops[r->n_ops - 1].kind == WL_COMPUTE);
  r->ops[r->n_ops - 1].pack = 1;
}

void wl_select(struct wl_program *p, uint32_t rank, struct wl_wgsel sel) {
  struct wl_rank *r = &p->ranks[rank];
  g_assert(r->n_ops > 0 && sel.count >= 1);
  struct wl_op *o = &r->ops[r->n_ops - 1];
  g_assert((o->kind == WL_SEND || o->kind == WL_RECV) && o->parts == 1);
  o->sel = sel;
}

uint32_t wl_count(const struct wl_program *p, uint32_t rank, enum wl_op_kind kind) {
  const struct wl_rank *r = &p->ranks[rank];
  uint32_t n = 0;
  for (size_t k = 0; k < r->n_ops; k++) n += r->ops[k].kind == kind;
  return n;
}

/* Index key of a message: (receiver, sender, tag, k): the k-th such. */
struct msg_key {
  uint32_t dst, src, tag, seq;
};

static guint key_hash(gconstpointer k) {
  const struct msg_key *m = k;
  return (guint)(m->dst * 2654435761u) ^ (guint)(m->src * 40503u) ^ (guint)m->tag ^
         (guint)(m->seq * 97u);
}

static gboolean key_equal(gconstpointer a, gconstpointer b) {
  const struct msg_key *x = a, *y = b;
  return x->dst == y->dst && x->src == y->src && x->tag == y->tag && x->seq == y->seq;
}

/* Message counters: a set of keys whose seq is the count of (dst, src,
 * tag) so far. */
static guint count_hash(gconstpointer k) {
  const struct msg_key *m = k;
  return (guint)(m->dst * 2654435761u) ^ (guint)(m->src * 40503u) ^ (guint)m->tag;
}

static gboolean count_equal(gconstpointer a, gconstpointer b) {
  const struct msg_key *x = a, *y = b;
  return x->dst == y->dst && x->src == y->src && x->tag == y->tag;
}

static GHashTable *counts_new(void) { return g_hash_table_new_full(count_hash, count_equal, g_free, NULL); }

/* The next k for (DST, SRC, TAG) in COUNT. */
static uint32_t next_seq(GHashTable *count, uint32_t dst, uint32_t src, uint32_t tag) {
  struct msg_key k = {dst, src, tag, 0}, *c = g_hash_table_lookup(count, &k);
  if (c) return c->seq++;
  c = g_memdup2(&k, sizeof k);
  c->seq = 1;
  g_hash_table_add(count, c);
  return 0;
}

/* Indexes every receive by (receiver, sender, tag, k) into H; numbers
 * flags. Counting k costs two more lookups a message, so it is kept in
 * DUPS (a message counter) only for the (receiver, sender, tag) that recur:
 * most programs have none. */
static void index_recvs(struct wl_program *p, GHashTable *h, struct msg_key *keys,
                        GHashTable *dups) {
  size_t n = 0;
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    struct wl_rank *rk = &p->ranks[r];
    uint32_t flag = 1;
    for (size_t i = 0; i < rk->n_ops; i++) {
      struct wl_op *o = &rk->ops[i];
      if (o->kind != WL_RECV) continue;
      o->flag = flag;
      o->match = 0; /* no send yet */
      flag += o->parts;
      struct msg_key *k = &keys[n++];
      *k = (struct msg_key){r, o->peer, o->tag, 0};
      if (g_hash_table_contains(h, k)) {
        if (!g_hash_table_contains(dups, k)) next_seq(dups, r, o->peer, o->tag); /* k = 0 seen */
        k->seq = next_seq(dups, r, o->peer, o->tag);
      }
      g_hash_table_insert(h, k, GSIZE_TO_POINTER(i + 1));
    }
    /* Each quiet's flag counts the ACKs of the puts since the previous
     * quiet (in op order: a YAML program's order). */
    size_t since = 0;
    for (size_t i = 0; i < rk->n_ops; i++) rk->ops[i].quiet = 0;
    for (size_t i = 0; i < rk->n_ops; i++) {
      struct wl_op *o = &rk->ops[i];
      if (o->kind != WL_QUIET) continue;
      o->flag = flag;
      o->count = 0;
      for (size_t k = since; k < i; k++) {
        struct wl_op *m = &rk->ops[k];
        m->quiet = m->kind == WL_SEND && m->one_sided ? flag : 0;
        if (m->quiet) o->count += m->parts;
      }
      since = i + 1;
      flag++;
    }
    rk->n_flags = flag - 1;
  }
}

/* Where each op of a rank with loops sits: encl[i] = index of the
 * innermost loop around op i (for a WL_LOOP: around it), NO_LOOP: none;
 * ord[i] of a WL_LOOP = how many loops come before it in the rank. */
#define NO_LOOP UINT32_MAX
struct loops {
  uint32_t *encl, *ord; /* per op; NULL: the rank has no loop */
};

static struct loops *loops_of(const struct wl_program *p) {
  if (!wl_has_loops(p)) return NULL;
  struct loops *l = g_new0(struct loops, p->n_ranks);
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *rk = &p->ranks[r];
    g_assert(rk->depth == 0); /* every loop closed */
    uint32_t stack[WL_MAX_DEPTH + 1], d = 0, n = 0;
    bool any = false;
    for (size_t i = 0; i < rk->n_ops && !any; i++) any = rk->ops[i].kind == WL_LOOP;
    if (!any) continue;
    l[r].encl = g_new(uint32_t, rk->n_ops);
    l[r].ord = g_new0(uint32_t, rk->n_ops);
    for (size_t i = 0; i < rk->n_ops; i++) {
      uint8_t k = rk->ops[i].kind;
      if (k == WL_END) d--;
      l[r].encl[i] = d ? stack[d - 1] : NO_LOOP;
      if (k == WL_LOOP) {
        l[r].ord[i] = n++;
        stack[d++] = (uint32_t)i;
      }
    }
  }
  return l;
}

static void loops_free(struct loops *l, uint32_t n_ranks) {
  if (!l) return;
  for (uint32_t r = 0; r < n_ranks; r++) {
    g_free(l[r].encl);
    g_free(l[r].ord);
  }
  g_free(l);
}

/* Whether op I of rank A and op J of rank B sit in the same loops: as
 * many, numbered alike in their ranks, of the same counts. */
static bool same_loops(const struct wl_program *p, const struct loops *l, uint32_t a, size_t i,
                       uint32_t b, size_t j) {
  uint32_t x = l[a].encl ? l[a].encl[i] : NO_LOOP, y = l[b].encl ? l[b].encl[j] : NO_LOOP;
  while (x != NO_LOOP && y != NO_LOOP) {
    if (l[a].ord[x] != l[b].ord[y] || p->ranks[a].ops[x].count != p->ranks[b].ops[y].count)
      return false;
    x = l[a].encl[x];
    y = l[b].encl[y];
  }
  return x == y;
}

/* Matches every send against the index, marking each receive it meets. */
static bool match_sends(struct wl_program *p, GHashTable *h, GHashTable *dups,
                        const struct loops *loops, char **err) {
  GHashTable *count = counts_new();
  bool any = g_hash_table_size(dups) > 0;
  bool ok = true;
  for (uint32_t r = 0; r < p->n_ranks && ok; r++) {
    struct wl_rank *rk = &p->ranks[r];
    for (size_t i = 0; i < rk->n_ops && ok; i++) {
      struct wl_op *o = &rk->ops[i];
      if (o->kind != WL_SEND) continue;
      struct msg_key k = {o->peer, r, o->tag, 0};
      if (any && g_hash_table_contains(dups, &k)) k.seq = next_seq(count, o->peer, r, o->tag);
      size_t j = GPOINTER_TO_SIZE(g_hash_table_lookup(h, &k));
      struct wl_op *rv = j ? &p->ranks[o->peer].ops[j - 1] : NULL;
      if (rv && rv->match) {
        /* A later send of a (receiver, sender, tag) that has one receive:
         * count which (an error, so the scan is rare). */
        rv = NULL;
        for (size_t e = 0; e < i; e++)
          k.seq += rk->ops[e].kind == WL_SEND && rk->ops[e].peer == o->peer &&
                   rk->ops[e].tag == o->tag;
      }
      if (!rv || rv->bytes != o->bytes || rv->parts != o->parts ||
          rv->one_sided != o->one_sided) {
        char *got_txt = rv ? g_strdup_printf("%" G_GINT64_FORMAT " B in %u parts%s", rv->bytes,
                                             rv->parts, rv->one_sided ? " (one-sided)" : "")
                           : g_strdup("none");
        char at[64], nth[48] = "";
        if (k.seq) g_snprintf(nth, sizeof nth, " (message %u with that tag)", k.seq + 1);
        *err = g_strdup_printf("%s: expected a receive of %" G_GINT64_FORMAT
                               " B in %u parts%s with tag %u on rank %u%s, got %s",
                               wl_op_where(p, r, i, at, sizeof at), o->bytes, o->parts,
                               o->one_sided ? " (one-sided)" : "", o->tag, o->peer, nth, got_txt);
        g_free(got_txt);
        ok = false;
        break;
      }
      if (loops && !same_loops(p, loops, r, i, o->peer, j - 1)) {
        char at[64], rat[64];
        *err = g_strdup_printf("%s: expected the receive it meets (%s) in the same loops "
                               "(written out, the program lowers as is)",
                               wl_op_where(p, r, i, at, sizeof at),
                               wl_op_where(p, o->peer, j - 1, rat, sizeof rat));
        ok = false;
        break;
      }
      rv->match = 1; /* a receive's match: it has a send */
      o->match = (uint32_t)(j - 1);
    }
  }
  g_hash_table_destroy(count);
  return ok;
}

/* Whether op O waits for something outside its rank (a receive, a quiet). */
static int waits(const struct wl_op *o) {
  return o->kind == WL_RECV || o->kind == WL_QUIET;
}

/* ---- the windowed linearization (wl_lin) ----
 * Per op from `base` on: its dependencies not yet placed, its dependents
 * (a list of edges), whether it waits, whether it is placed, its library
 * region. `lo`: the first op not placed; [lo, hi) holds the `window` ops
 * not placed that come first (all of them, window 0). Ready ops (sealed,
 * every dependency placed, not placed) wait in ready[0] (no wait) or
 * ready[1] (a receive), by index. `run`: the region being placed, its next
 * op from `run_at` on. */
struct lin_op {
  uint32_t indeg, succ; /* succ: first edge + 1, 0: none */
  uint32_t region;
  uint8_t placed, waits;
};

struct lin_edge {
  uint64_t to;
  uint32_t next; /* edge + 1, 0: none */
};

struct wl_lin {
  uint32_t window;
  GArray *ops;          /* struct lin_op, op i at i - base */
  uint64_t base, lo, hi, added, sealed;
  uint32_t in_window;   /* ops in [lo, hi) not placed */
  GArray *edges;        /* struct lin_edge */
  uint32_t edge_free;   /* a free edge + 1, chained by next */
  GSequence *ready[2];
  uint32_t run;
  uint64_t run_at;
};

static struct lin_op *lin_at(struct wl_lin *l, uint64_t i) {
  return &g_array_index(l->ops, struct lin_op, (guint)(i - l->base));
}

static gint by_index64(gconstpointer a, gconstpointer b, gpointer data) {
  (void)data;
  const uint64_t *x = a, *y = b;
  return *x < *y ? -1 : *x > *y;
}

static void lin_ready(struct wl_lin *l, uint64_t i) {
  uint64_t *k = g_new(uint64_t, 1);
  *k = i;
  g_sequence_insert_sorted(l->ready[lin_at(l, i)->waits], k, by_index64, NULL);
}

struct wl_lin *wl_lin_new(uint32_t window) {
  struct wl_lin *l = g_new0(struct wl_lin, 1);
  l->window = window;
  l->ops = g_array_new(FALSE, TRUE, sizeof(struct lin_op));
  l->edges = g_array_new(FALSE, FALSE, sizeof(struct lin_edge));
  l->ready[0] = g_sequence_new(g_free);
  l->ready[1] = g_sequence_new(g_free);
  return l;
}

void wl_lin_free(struct wl_lin *l) {
  if (!l) return;
  g_array_free(l->ops, TRUE);
  g_array_free(l->edges, TRUE);
  g_sequence_free(l->ready[0]);
  g_sequence_free(l->ready[1]);
  g_free(l);
}

void wl_lin_add(struct wl_lin *l, bool waits, uint32_t region) {
  /* Ops placed at the front are dropped once they are half the array. */
  guint gone = (guint)(l->lo - l->base);
  if (gone > 64 && 2 * gone > l->ops->len) {
    g_array_remove_range(l->ops, 0, gone);
    l->base = l->lo;
  }
  struct lin_op o = {.waits = waits, .region = region};
  g_array_append_val(l->ops, o);
  l->added++;
}

void wl_lin_dep(struct wl_lin *l, uint64_t a, uint64_t b) {
  g_assert(a >= l->sealed && a < l->added && b < l->added && a != b);
  if (b < l->base || lin_at(l, b)->placed) return;
  uint32_t e;
  if (l->edge_free) {
    e = l->edge_free - 1;
    l->edge_free = g_array_index(l->edges, struct lin_edge, e).next;
  } else {
    e = l->edges->len;
    g_array_set_size(l->edges, e + 1);
  }
  struct lin_op *ob = lin_at(l, b);
  g_array_index(l->edges, struct lin_edge, e) = (struct lin_edge){a, ob->succ};
  ob->succ = e + 1;
  lin_at(l, a)->indeg++;
}

void wl_lin_seal(struct wl_lin *l, uint64_t n) {
  g_assert(n <= l->added);
  for (; l->sealed < n; l->sealed++)
    if (!lin_at(l, l->sealed)->indeg) lin_ready(l, l->sealed);
}

/* Places ready op I. */
static void lin_place(struct wl_lin *l, uint64_t i) {
  struct lin_op *o = lin_at(l, i);
  g_assert(!o->placed && !o->indeg && i < l->sealed);
  o->placed = 1;
  if (i < l->hi) l->in_window--;
  for (uint32_t e = o->succ; e;) {
    struct lin_edge *ed = &g_array_index(l->edges, struct lin_edge, e - 1);
    uint32_t next = ed->next;
    if (--lin_at(l, ed->to)->indeg == 0 && ed->to < l->sealed) lin_ready(l, ed->to);
    ed->next = l->edge_free;
    l->edge_free = e;
    e = next;
  }
  o->succ = 0;
  while (l->lo < l->added && lin_at(l, l->lo)->placed) l->lo++;
}

/* Takes ready op I out of its ready queue. */
static void lin_unready(struct wl_lin *l, uint64_t i) {
  GSequenceIter *it = g_sequence_lookup(l->ready[lin_at(l, i)->waits], &i, by_index64, NULL);
  g_assert(it);
  g_sequence_remove(it);
}

int wl_lin_next(struct wl_lin *l, bool end, bool widen, uint64_t *op) {
  while ((!l->window || l->in_window < l->window) && l->hi < l->added) {
    if (!lin_at(l, l->hi)->placed) l->in_window++;
    l->hi++;
  }
  /* A library region's ops follow the first placed, in their written
   * order (one kernel runs them): each waits only for earlier ops of its
   * region and for what the region's first ops wait for, placed already. */
  if (l->run) {
    uint64_t j = MAX(l->run_at, l->lo);
    while (j < l->added && lin_at(l, j)->placed) j++;
    if (j < l->added && lin_at(l, j)->region == l->run) {
      if (j >= l->sealed) return end ? -1 : 0; /* its dependencies not all added yet */
      lin_unready(l, j);
      lin_place(l, j);
      l->run_at = j + 1;
      *op = j;
      return 1;
    }
    if (j == l->added && !end) return 0; /* the region may go on */
    l->run = 0;
  }
  if (l->lo == l->added && end) return -1;
  /* Window 0 (all ops) is added only at the end. */
  if (!end && (!l->window || l->in_window < l->window || l->sealed < l->hi)) return 0;
  /* The lowest ready op of the window that does not wait, else its lowest
   * receive; none (a dependency on a later op): outside it, as widely. */
  GSequenceIter *it = NULL;
  for (int q = 0; q < 2 && !it; q++) {
    GSequenceIter *b = g_sequence_get_begin_iter(l->ready[q]);
    if (!g_sequence_iter_is_end(b) && *(uint64_t *)g_sequence_get(b) < l->hi) it = b;
  }
  for (int q = 0; q < 2 && !it && widen; q++) {
    GSequenceIter *b = g_sequence_get_begin_iter(l->ready[q]);
    if (!g_sequence_iter_is_end(b)) it = b;
  }
  if (!it) return -1;
  uint64_t i = *(uint64_t *)g_sequence_get(it);
  uint32_t region = lin_at(l, i)->region;
  if (region) { /* its region from its first op on (ready with it: the same wait) */
    while (i > l->lo && lin_at(l, i - 1)->region == region && !lin_at(l, i - 1)->placed) i--;
    l->run = region;
    l->run_at = i + 1;
    lin_unready(l, i);
  } else {
    g_sequence_remove(it);
  }
  lin_place(l, i);
  *op = i;
  return 1;
}

/* One order of graph rank R's ops (wl_linearize) under WINDOW: ORDER[k] =
 * the k-th. Returns how many it could order (fewer than all: a cycle). */
static size_t order_of(const struct wl_rank *r, uint32_t window, bool regions, uint32_t *order) {
  size_t n = r->n_ops;
  struct wl_lin *l = wl_lin_new(window);
  for (size_t i = 0; i < n; i++) wl_lin_add(l, waits(&r->ops[i]), regions ? r->ops[i].region : 0);
  for (size_t i = 0; i < n; i++)
    for (uint32_t d = 0; d < r->ops[i].n_deps; d++)
      wl_lin_dep(l, i, r->deps[r->ops[i].dep_first + d].op);
  wl_lin_seal(l, n);
  size_t k = 0;
  uint64_t i;
  while (k < n && wl_lin_next(l, true, true, &i) == 1) order[k++] = (uint32_t)i;
  wl_lin_free(l);
  return k;
}

/* Graph ranks: no syncs, and dependencies that some order satisfies. */
static bool check_graphs(const struct wl_program *p, char **err) {
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *rk = &p->ranks[r];
    if (!rk->graph) continue;
    char at[64];
    for (size_t i = 0; i < rk->n_ops; i++)
      if (rk->ops[i].kind == WL_SYNC || rk->ops[i].kind == WL_LOOP) {
        *err = g_strdup_printf("%s: expected no device sync or loop in a rank with dependencies",
                               wl_op_where(p, r, i, at, sizeof at));
        return false;
      }
    uint32_t *order = g_new(uint32_t, rk->n_ops + 1);
    size_t n = order_of(rk, 0, false, order); /* a cycle check: any order */
    if (n < rk->n_ops) {
      bool *seen = g_new0(bool, rk->n_ops);
      for (size_t k = 0; k < n; k++) seen[order[k]] = true;
      size_t i = 0;
      while (seen[i]) i++;
      *err = g_strdup_printf("%s: expected dependencies without a cycle, got one through this op",
                             wl_op_where(p, r, i, at, sizeof at));
      g_free(seen);
    }
    g_free(order);
    if (n < rk->n_ops) return false;
  }
  return true;
}

bool wl_program_check(struct wl_program *p, char **err) {
  if (p->checked) return true;
  size_t n_recv = 0;
  for (uint32_t r = 0; r < p->n_ranks; r++) n_recv += wl_count(p, r, WL_RECV);
  struct msg_key *keys = g_new(struct msg_key, n_recv ? n_recv : 1);
  GHashTable *h = g_hash_table_new(key_hash, key_equal);
  GHashTable *dups = counts_new();
  bool ok = check_graphs(p, err);
  struct loops *loops = ok ? loops_of(p) : NULL;
  if (ok) index_recvs(p, h, keys, dups);
  ok = ok && match_sends(p, h, dups, loops, err);
  loops_free(loops, p->n_ranks);
  g_hash_table_destroy(dups);
  g_hash_table_destroy(h);
  g_free(keys);
  p->checked = ok;
  return ok;
}

const struct wl_op *wl_matching_recv(const struct wl_program *p, uint32_t rank, size_t i) {
  g_assert(p->checked);
  const struct wl_op *o = &p->ranks[rank].ops[i];
  g_assert(o->kind == WL_SEND);
  return &p->ranks[o->peer].ops[o->match];
}

struct wl_program *wl_linearize(const struct wl_program *p, uint32_t window, bool regions) {
  g_assert(p->checked);
  struct wl_program *q = wl_program_derive(p);
  uint32_t **pos = g_new0(uint32_t *, p->n_ranks); /* old index -> new, graph ranks */
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *src = &p->ranks[r];
    struct wl_rank *dst = &q->ranks[r];
    dst->ops = g_memdup2(src->ops, MAX(src->n_ops, 1) * sizeof *src->ops);
    dst->n_ops = dst->cap = src->n_ops;
    dst->n_flags = src->n_flags;
    if (!src->graph || !src->n_ops) continue;
    uint32_t *order = g_new(uint32_t, src->n_ops);
    size_t n = order_of(src, window, regions, order);
    g_assert(n == src->n_ops); /* wl_program_check found no cycle */
    pos[r] = g_new(uint32_t, src->n_ops);
    for (size_t k = 0; k < src->n_ops; k++) {
      dst->ops[k] = src->ops[order[k]];
      dst->ops[k].n_deps = dst->ops[k].dep_first = 0;
      dst->ops[k].lane = 0;
      pos[r][order[k]] = (uint32_t)k;
    }
    g_free(order);
  }
  for (uint32_t r = 0; r < q->n_ranks; r++)
    for (size_t i = 0; i < q->ranks[r].n_ops; i++) {
      struct wl_op *o = &q->ranks[r].ops[i];
      if (o->kind == WL_SEND && pos[o->peer]) o->match = pos[o->peer][o->match];
    }
  for (uint32_t r = 0; r < p->n_ranks; r++) g_free(pos[r]);
  g_free(pos);
  q->checked = true;
  return q;
}

bool wl_program_unmatched(const struct wl_program *p, char **err) {
  g_assert(p->checked);
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *rk = &p->ranks[r];
    for (size_t i = 0; i < rk->n_ops; i++) {
      const struct wl_op *o = &rk->ops[i];
      if (o->kind == WL_RECV && !o->match) {
        char at[64];
        *err = g_strdup_printf("%s: expected a send from rank %u to match its receive of %"
                               G_GINT64_FORMAT " B with tag %u, got none (the schedule would "
                               "deadlock)", wl_op_where(p, r, i, at, sizeof at), o->peer, o->bytes,
                               o->tag);
        return true;
      }
    }
  }
  return false;
}
