/* The per-rank intermediate form (program.h): building, matching sends to
 * receives, and the checks every lowering relies on. DESIGN.md Sec. 4. */
#include "program.h"

#include <glib.h>

struct wl_program *wl_program_new(uint32_t n_ranks) {
  g_assert(n_ranks >= 1);
  struct wl_program *p = g_new0(struct wl_program, 1);
  p->n_ranks = n_ranks;
  p->ranks = g_new0(struct wl_rank, n_ranks);
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
  r->ops[r->n_ops++] = op;
}

void wl_compute(struct wl_program *p, uint32_t rank, uint32_t n_wgs, int64_t flops_per_wg,
                int64_t bytes_per_wg) {
  g_assert(n_wgs >= 1 && flops_per_wg >= 0 && bytes_per_wg >= 0);
  push(p, rank, (struct wl_op){.kind = WL_COMPUTE, .n_wgs = n_wgs, .flops_per_wg = flops_per_wg,
                               .bytes_per_wg = bytes_per_wg});
}

void wl_send(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes, uint32_t tag) {
  g_assert(peer < p->n_ranks && peer != rank && bytes >= 0);
  push(p, rank, (struct wl_op){.kind = WL_SEND, .peer = peer, .bytes = bytes, .tag = tag});
}

void wl_recv(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes, uint32_t tag) {
  g_assert(peer < p->n_ranks && peer != rank && bytes >= 0);
  push(p, rank, (struct wl_op){.kind = WL_RECV, .peer = peer, .bytes = bytes, .tag = tag});
}

ptrdiff_t wl_match_recv(const struct wl_program *p, uint32_t src, const struct wl_op *send) {
  g_assert(send->kind == WL_SEND && send->peer < p->n_ranks);
  const struct wl_rank *r = &p->ranks[send->peer];
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    if (o->kind == WL_RECV && o->peer == src && o->tag == send->tag) return (ptrdiff_t)i;
  }
  return -1;
}

uint32_t wl_recv_ordinal(const struct wl_program *p, uint32_t rank, size_t i) {
  const struct wl_rank *r = &p->ranks[rank];
  g_assert(i < r->n_ops && r->ops[i].kind == WL_RECV);
  uint32_t n = 0;
  for (size_t k = 0; k <= i; k++) n += r->ops[k].kind == WL_RECV;
  return n;
}

uint32_t wl_count(const struct wl_program *p, uint32_t rank, enum wl_op_kind kind) {
  const struct wl_rank *r = &p->ranks[rank];
  uint32_t n = 0;
  for (size_t k = 0; k < r->n_ops; k++) n += r->ops[k].kind == kind;
  return n;
}

/* Counts the sends that match receive I of rank DST. */
static uint32_t senders_of(const struct wl_program *p, uint32_t dst, size_t i) {
  const struct wl_op *rv = &p->ranks[dst].ops[i];
  const struct wl_rank *src = &p->ranks[rv->peer];
  uint32_t n = 0;
  for (size_t k = 0; k < src->n_ops; k++) {
    const struct wl_op *o = &src->ops[k];
    if (o->kind == WL_SEND && o->peer == dst && wl_match_recv(p, rv->peer, o) == (ptrdiff_t)i) n++;
  }
  return n;
}

bool wl_program_check(const struct wl_program *p, char **err) {
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *rk = &p->ranks[r];
    for (size_t i = 0; i < rk->n_ops; i++) {
      const struct wl_op *o = &rk->ops[i];
      if (o->kind == WL_SEND) {
        ptrdiff_t j = wl_match_recv(p, r, o);
        if (j < 0 || p->ranks[o->peer].ops[j].bytes != o->bytes) {
          *err = g_strdup_printf("rank %u op %zu: expected a receive of %" G_GINT64_FORMAT
                                 " B with tag %u on rank %u, got none",
                                 r, i, o->bytes, o->tag, o->peer);
          return false;
        }
      } else if (o->kind == WL_RECV && senders_of(p, r, i) != 1) {
        *err = g_strdup_printf("rank %u op %zu: expected one send with tag %u from rank %u, "
                               "got %u", r, i, o->tag, o->peer, senders_of(p, r, i));
        return false;
      }
    }
  }
  return true;
}
