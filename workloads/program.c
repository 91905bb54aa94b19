/* The per-rank intermediate form (program.h): building, matching sends to
 * receives through a hash index, and the checks every lowering relies on.
 * DESIGN.md Sec. 4. */
#include "program.h"

#include <glib.h>

#include "nodeprog.h"

struct wl_program *wl_program_new(uint32_t n_ranks) {
  g_assert(n_ranks >= 1);
  struct wl_program *p = g_new0(struct wl_program, 1);
  p->n_ranks = n_ranks;
  p->ranks = g_new0(struct wl_rank, n_ranks);
  p->measured_rank = WL_ALL_RANKS;
  return p;
}

void wl_program_free(struct wl_program *p) {
  if (!p) return;
  for (uint32_t r = 0; r < p->n_ranks; r++) g_free(p->ranks[r].ops);
  g_free(p->ranks);
  g_free(p);
}

static void push(struct wl_program *p, uint32_t rank, struct wl_op op) {
  g_assert(rank < p->n_ranks);
  struct wl_rank *r = &p->ranks[rank];
  if (r->n_ops == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 8;
    r->ops = g_renew(struct wl_op, r->ops, r->cap);
  }
  op.lane = op.kind == WL_SYNC ? 0 : r->lane;
  r->ops[r->n_ops++] = op;
  p->checked = false;
}

void wl_compute(struct wl_program *p, uint32_t rank, uint32_t n_wgs, int64_t flops_per_wg,
                int64_t bytes_per_wg) {
  g_assert(n_wgs >= 1 && flops_per_wg >= 0 && bytes_per_wg >= 0);
  push(p, rank, (struct wl_op){.kind = WL_COMPUTE, .n_wgs = n_wgs, .flops_per_wg = flops_per_wg,
                               .bytes_per_wg = bytes_per_wg});
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

void wl_kclass(struct wl_program *p, uint32_t rank, uint8_t kclass, int64_t ws_bytes,
               int64_t reuse_per_wg, int64_t gather_bytes) {
  g_assert(rank < p->n_ranks && kclass < KC_COUNT && ws_bytes >= 0 && reuse_per_wg >= 0 &&
           gather_bytes >= 0);
  struct wl_rank *r = &p->ranks[rank];
  for (size_t i = r->n_ops; i-- > 0;) {
    struct wl_op *o = &r->ops[i];
    if (o->kind != WL_COMPUTE) continue;
    o->kclass = kclass;
    o->ws_bytes = ws_bytes;
    o->reuse_per_wg = reuse_per_wg;
    o->gather_bytes = gather_bytes;
    return;
  }
  g_error("wl_kclass: rank %u has no compute op", rank);
}

void wl_sync(struct wl_program *p, uint32_t rank) {
  push(p, rank, (struct wl_op){.kind = WL_SYNC});
}

void wl_lane(struct wl_program *p, uint32_t rank, uint8_t lane) {
  g_assert(rank < p->n_ranks && lane <= 1);
  p->ranks[rank].lane = lane;
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

/* Index key of a message: (receiver, sender, tag). */
struct msg_key {
  uint32_t dst, src, tag;
};

static guint key_hash(gconstpointer k) {
  const struct msg_key *m = k;
  return (guint)(m->dst * 2654435761u) ^ (guint)(m->src * 40503u) ^ (guint)m->tag;
}

static gboolean key_equal(gconstpointer a, gconstpointer b) {
  const struct msg_key *x = a, *y = b;
  return x->dst == y->dst && x->src == y->src && x->tag == y->tag;
}

/* Indexes every receive by (receiver, sender, tag) into H; numbers flags. */
static bool index_recvs(struct wl_program *p, GHashTable *h, struct msg_key *keys, char **err) {
  size_t n = 0;
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    struct wl_rank *rk = &p->ranks[r];
    uint32_t flag = 1;
    for (size_t i = 0; i < rk->n_ops; i++) {
      struct wl_op *o = &rk->ops[i];
      if (o->kind != WL_RECV) continue;
      o->flag = flag;
      flag += o->parts;
      struct msg_key *k = &keys[n++];
      *k = (struct msg_key){r, o->peer, o->tag};
      if (g_hash_table_contains(h, k)) {
        *err = g_strdup_printf("rank %u op %zu: expected one receive with tag %u from rank %u, "
                               "got two", r, i, o->tag, o->peer);
        return false;
      }
      g_hash_table_insert(h, k, GSIZE_TO_POINTER(i + 1));
    }
    rk->n_flags = flag - 1;
  }
  return true;
}

/* Matches every send against the index, counting what each receive got. */
static bool match_sends(struct wl_program *p, GHashTable *h, GHashTable *got, char **err) {
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    struct wl_rank *rk = &p->ranks[r];
    for (size_t i = 0; i < rk->n_ops; i++) {
      struct wl_op *o = &rk->ops[i];
      if (o->kind != WL_SEND) continue;
      struct msg_key k = {o->peer, r, o->tag};
      size_t j = GPOINTER_TO_SIZE(g_hash_table_lookup(h, &k));
      const struct wl_op *rv = j ? &p->ranks[o->peer].ops[j - 1] : NULL;
      if (!rv || rv->bytes != o->bytes || rv->parts != o->parts) {
        char *got_txt = rv ? g_strdup_printf("%" G_GINT64_FORMAT " B in %u parts", rv->bytes,
                                             rv->parts)
                           : g_strdup("none");
        *err = g_strdup_printf("rank %u op %zu: expected a receive of %" G_GINT64_FORMAT
                               " B in %u parts with tag %u on rank %u, got %s",
                               r, i, o->bytes, o->parts, o->tag, o->peer, got_txt);
        g_free(got_txt);
        return false;
      }
      if (g_hash_table_contains(got, rv)) {
        *err = g_strdup_printf("rank %u op %zu: expected one send with tag %u to rank %u, got two",
                               r, i, o->tag, o->peer);
        return false;
      }
      g_hash_table_add(got, (gpointer)rv);
      o->match = (uint32_t)(j - 1);
    }
  }
  return true;
}

static bool all_received(const struct wl_program *p, GHashTable *got, char **err) {
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *rk = &p->ranks[r];
    for (size_t i = 0; i < rk->n_ops; i++) {
      const struct wl_op *o = &rk->ops[i];
      if (o->kind == WL_RECV && !g_hash_table_contains(got, o)) {
        *err = g_strdup_printf("rank %u op %zu: expected one send with tag %u from rank %u, "
                               "got none", r, i, o->tag, o->peer);
        return false;
      }
    }
  }
  return true;
}

bool wl_program_check(struct wl_program *p, char **err) {
  if (p->checked) return true;
  size_t n_recv = 0;
  for (uint32_t r = 0; r < p->n_ranks; r++) n_recv += wl_count(p, r, WL_RECV);
  struct msg_key *keys = g_new(struct msg_key, n_recv ? n_recv : 1);
  GHashTable *h = g_hash_table_new(key_hash, key_equal);
  GHashTable *got = g_hash_table_new(g_direct_hash, g_direct_equal);
  bool ok = index_recvs(p, h, keys, err) && match_sends(p, h, got, err) &&
            all_received(p, got, err);
  g_hash_table_destroy(got);
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
