/* Collectives as graph ops (coll.h): each algorithm written per rank with
 * the dependencies MPICH's implementation has between its steps. */
#include "coll.h"

const char *const wl_coll_names[WL_COLL_COUNT] = {
    "allreduce", "reduce_scatter", "allgather", "bcast", "reduce", "alltoall", "barrier"};
const char *const wl_coll_algo_names[WL_ALG_COUNT] = {
    "auto", "ring", "recursive-doubling", "binomial", "dissemination", "direct"};

bool wl_coll_has_algo(enum wl_coll_kind kind, enum wl_coll_algo algo) {
  switch (algo) {
  case WL_ALG_AUTO: return true;
  case WL_ALG_RING: return kind == WL_ALLREDUCE || kind == WL_REDUCE_SCATTER || kind == WL_ALLGATHER;
  case WL_ALG_RECDOUB: return kind == WL_ALLREDUCE;
  case WL_ALG_BINOMIAL: return kind == WL_BCAST || kind == WL_REDUCE;
  case WL_ALG_DISSEMINATION: return kind == WL_BARRIER;
  case WL_ALG_DIRECT: return kind == WL_ALLTOALL;
  default: return false;
  }
}

/* One rank's expansion under way. */
struct build {
  struct wl_program *p;
  uint32_t rank, n;
  const struct wl_coll *c;
  GArray *entry; /* what the collective's first ops require */
};

#define NONE UINT32_MAX

/* Makes the op just added require ops A and B (NONE: not) or, when both
 * are NONE, the collective's entry. Returns the op. */
static uint32_t after(struct build *b, uint32_t a, uint32_t c) {
  uint32_t op = wl_last(b->p, b->rank);
  if (a == NONE && c == NONE) {
    for (guint i = 0; i < b->entry->len; i++)
      wl_requires(b->p, b->rank, op, g_array_index(b->entry, uint32_t, i));
  }
  if (a != NONE) wl_requires(b->p, b->rank, op, a);
  if (c != NONE) wl_requires(b->p, b->rank, op, c);
  return op;
}

static uint32_t send(struct build *b, uint32_t peer, int64_t bytes, uint32_t a, uint32_t c) {
  wl_send(b->p, b->rank, peer, bytes, b->c->tag);
  return after(b, a, c);
}

static uint32_t recv(struct build *b, uint32_t peer, int64_t bytes, uint32_t a) {
  wl_recv(b->p, b->rank, peer, bytes, b->c->tag);
  return after(b, a, NONE);
}

/* Reducing BYTES of received data into the local ones: reads two, writes
 * one (3 * bytes of traffic), flops_per_elem per element, on `wgs` WGs. */
static uint32_t reduce(struct build *b, int64_t bytes, uint32_t a, uint32_t c) {
  const struct wl_coll *k = b->c;
  int64_t elems = (bytes + k->elem - 1) / k->elem, per_wg = (elems + k->wgs - 1) / k->wgs;
  wl_compute(b->p, b->rank, k->wgs, per_wg * k->flops_per_elem, per_wg * 3 * k->elem);
  return after(b, a, c);
}

/* The collective's completion: ops A and B. */
static void finish(struct build *b, uint32_t a, uint32_t c) {
  g_array_set_size(b->entry, 0);
  if (a != NONE) g_array_append_val(b->entry, a);
  if (c != NONE) g_array_append_val(b->entry, c);
}

/* Ring over n - 1 steps (Thakur et al. Sec. 4.2): each step sends the
 * chunk made last to the right and receives one from the left; with
 * REDUCE the received chunk is added to the local one before it moves on.
 * Returns the last send in *LS and the last receive (or reduction). */
static uint32_t ring(struct build *b, int64_t chunk, bool with_reduce, uint32_t start, uint32_t *ls) {
  uint32_t right = (b->rank + 1) % b->n, left = (b->rank + b->n - 1) % b->n;
  uint32_t made = start, last_send = NONE;
  for (uint32_t s = 0; s + 1 < b->n; s++) {
    last_send = send(b, right, chunk, made, last_send == NONE ? NONE : last_send);
    uint32_t got = recv(b, left, chunk, start);
    made = with_reduce ? reduce(b, chunk, got, NONE) : got;
  }
  *ls = last_send;
  return made;
}

static void allreduce_ring(struct build *b) {
  int64_t chunk = (b->c->bytes / b->c->elem + b->n - 1) / b->n * b->c->elem;
  uint32_t ls;
  uint32_t rs = ring(b, chunk, true, NONE, &ls);
  uint32_t ag = ring(b, chunk, false, rs, &ls);
  finish(b, ag, ls);
}

/* Recursive doubling (Thakur et al. Sec. 4.4): with p2 the largest power of
 * two <= n and rem = n - p2, the first 2 rem ranks fold in pairs (the even
 * one sends its vector to the odd one and gets the result back at the
 * end); the p2 ranks left exchange and reduce whole vectors with partner
 * newrank ^ mask for mask = 1, 2, 4, ... */
static void allreduce_recdoub(struct build *b) {
  uint32_t n = b->n, r = b->rank, p2 = 1;
  int64_t bytes = b->c->bytes;
  while (p2 * 2 <= n) p2 *= 2;
  uint32_t rem = n - p2, last = NONE;
  int64_t newrank;
  if (r < 2 * rem) {
    if (r % 2 == 0) {
      uint32_t s = send(b, r + 1, bytes, NONE, NONE);
      uint32_t got = recv(b, r + 1, bytes, NONE);
      finish(b, s, got);
      return;
    }
    uint32_t got = recv(b, r - 1, bytes, NONE);
    last = reduce(b, bytes, got, NONE);
    newrank = r / 2;
  } else {
    newrank = (int64_t)r - rem;
  }
  uint32_t last_send = NONE;
  for (uint32_t mask = 1; mask < p2; mask <<= 1) {
    uint32_t nr = (uint32_t)newrank ^ mask, peer = nr < rem ? nr * 2 + 1 : nr + rem;
    last_send = send(b, peer, bytes, last, NONE);
    uint32_t got = recv(b, peer, bytes, last);
    last = reduce(b, bytes, got, last_send);
  }
  if (r < 2 * rem) last_send = send(b, r - 1, bytes, last, NONE); /* odd: the result back */
  finish(b, last, last_send);
}

/* Binomial tree from root (Thakur et al. Sec. 4.1), on ranks renumbered so
 * that the root is 0. */
static void bcast_binomial(struct build *b) {
  uint32_t n = b->n, v = (b->rank + n - b->c->root) % n, mask = 1, got = NONE;
  while (mask < n) {
    if (v & mask) {
      got = recv(b, (v - mask + b->c->root) % n, b->c->bytes, NONE);
      break;
    }
    mask <<= 1;
  }
  uint32_t last = got;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n) last = send(b, (v + mask + b->c->root) % n, b->c->bytes, got, NONE);
  finish(b, got, last == got ? NONE : last);
}

static void reduce_binomial(struct build *b) {
  uint32_t n = b->n, v = (b->rank + n - b->c->root) % n, last = NONE;
  for (uint32_t mask = 1; mask < n; mask <<= 1) {
    if (v & mask) {
      last = send(b, ((v & ~mask) + b->c->root) % n, b->c->bytes, last, NONE);
      break;
    }
    if ((v | mask) < n) {
      uint32_t got = recv(b, ((v | mask) + b->c->root) % n, b->c->bytes, NONE);
      last = reduce(b, b->c->bytes, got, last);
    }
  }
  finish(b, last, NONE);
}

/* Every pair exchanges: the sends to rank + i and the receives from
 * rank - i, i = 1 .. n - 1, all posted at once (MPICH's scattered
 * alltoall). */
static void alltoall_direct(struct build *b) {
  GArray *ends = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  for (uint32_t i = 1; i < b->n; i++) {
    uint32_t s = send(b, (b->rank + i) % b->n, b->c->bytes, NONE, NONE);
    uint32_t r = recv(b, (b->rank + b->n - i) % b->n, b->c->bytes, NONE);
    g_array_append_val(ends, s);
    g_array_append_val(ends, r);
  }
  g_array_set_size(b->entry, 0);
  g_array_append_vals(b->entry, ends->data, ends->len);
  g_array_free(ends, TRUE);
}

/* Round k sends to rank + 2^k and waits for rank - 2^k (Hensgen, Finkel
 * and Manber 1988). */
static void barrier_dissemination(struct build *b) {
  uint32_t last = NONE, ls = NONE;
  for (uint32_t mask = 1; mask < b->n; mask <<= 1) {
    ls = send(b, (b->rank + mask) % b->n, 0, last, NONE);
    last = recv(b, (b->rank + b->n - mask) % b->n, 0, last);
  }
  finish(b, last, ls);
}

void wl_coll(struct wl_program *p, uint32_t rank, const struct wl_coll *c, GArray *entry) {
  g_assert(rank < p->n_ranks && c->kind < WL_COLL_COUNT && c->elem >= 1 && c->wgs >= 1 &&
           c->bytes >= 0 && c->root < p->n_ranks && wl_coll_has_algo(c->kind, c->algo));
  struct build b = {p, rank, p->n_ranks, c, entry};
  wl_graph(p, rank);
  if (b.n < 2) return;
  switch (c->kind) {
  case WL_ALLREDUCE:
    if (c->algo == WL_ALG_RECDOUB || (c->algo == WL_ALG_AUTO && c->bytes < 2048))
      allreduce_recdoub(&b);
    else
      allreduce_ring(&b);
    break;
  case WL_REDUCE_SCATTER: {
    uint32_t ls, made = ring(&b, (c->bytes / c->elem + b.n - 1) / b.n * c->elem, true, NONE, &ls);
    finish(&b, made, ls);
    break;
  }
  case WL_ALLGATHER: {
    uint32_t ls, made = ring(&b, c->bytes, false, NONE, &ls);
    finish(&b, made, ls);
    break;
  }
  case WL_BCAST: bcast_binomial(&b); break;
  case WL_REDUCE: reduce_binomial(&b); break;
  case WL_ALLTOALL: alltoall_direct(&b); break;
  case WL_BARRIER: barrier_dissemination(&b); break;
  default: g_assert_not_reached();
  }
}
