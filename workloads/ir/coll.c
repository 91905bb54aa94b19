/* Collectives as graph ops (coll.h): each algorithm written per rank with
 * the dependencies MPICH's implementation has between its steps (NCCL's,
 * for the trees). */
#include "coll.h"

#include <stdlib.h>
#include <string.h>

#include "nodeprog.h"

static int cmp_rank(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

const char *const wl_coll_names[WL_COLL_COUNT] = {
    "allreduce", "reduce_scatter", "allgather", "bcast", "reduce", "alltoall", "barrier"};
const char *const wl_coll_algo_names[WL_ALG_COUNT] = {
    "auto", "ring", "recursive_doubling", "rabenseifner", "binary_tree", "double_binary_tree",
    "binomial", "dissemination", "direct"};

bool wl_coll_has_algo(enum wl_coll_kind kind, enum wl_coll_algo algo) {
  switch (algo) {
  case WL_ALG_AUTO: return true;
  case WL_ALG_RING: return kind == WL_ALLREDUCE || kind == WL_REDUCE_SCATTER || kind == WL_ALLGATHER;
  case WL_ALG_RECDOUB: return kind == WL_ALLREDUCE || kind == WL_ALLGATHER;
  case WL_ALG_RABENSEIFNER: return kind == WL_ALLREDUCE || kind == WL_REDUCE_SCATTER;
  case WL_ALG_BINARY_TREE:
  case WL_ALG_DOUBLE_BINARY_TREE: return kind == WL_ALLREDUCE || kind == WL_BCAST || kind == WL_REDUCE;
  case WL_ALG_BINOMIAL: return kind == WL_BCAST || kind == WL_REDUCE;
  case WL_ALG_DISSEMINATION: return kind == WL_BARRIER || kind == WL_ALLREDUCE;
  case WL_ALG_DIRECT: return kind == WL_ALLTOALL || kind == WL_ALLREDUCE;
  default: return false;
  }
}

bool wl_coll_algo_parse(const char *name, enum wl_coll_algo *algo) {
  for (int i = 0; i < WL_ALG_COUNT; i++)
    if (!strcmp(name, wl_coll_algo_names[i])) {
      *algo = (enum wl_coll_algo)i;
      return true;
    }
  return false;
}

char *wl_coll_algo_list(enum wl_coll_kind kind) {
  GString *s = g_string_new(NULL);
  for (int i = 0; i < WL_ALG_COUNT; i++)
    if (wl_coll_has_algo(kind, (enum wl_coll_algo)i))
      g_string_append_printf(s, "%s%s", s->len ? ", " : "", wl_coll_algo_names[i]);
  return g_string_free(s, FALSE);
}

/* One rank's expansion under way. The algorithms number the collective's
 * ranks by their place among them (0 .. n - 1: the rank itself in a
 * collective of every rank, its index in the group's ascending list
 * otherwise); a message's peer becomes a rank of the program only when
 * the op is written (at). */
struct build {
  struct wl_program *p;
  uint32_t rank, n;      /* this rank's place, and the collective's ranks */
  const struct wl_coll *c;
  GArray *entry;         /* what the collective's first ops require */
  uint32_t me;           /* this rank in the program */
  const uint32_t *ranks; /* the program's rank at each place; NULL: the place */
  uint32_t root;         /* the root's place */
};

#define NONE UINT32_MAX

/* The program's rank at place V. */
static uint32_t at(const struct build *b, uint32_t v) {
  return b->ranks ? b->ranks[v] : v;
}

/* The place of rank R in group G (NONE when it is not a member). */
static uint32_t place_of(const struct wl_group *g, uint32_t r) {
  const uint32_t *hit = bsearch(&r, g->ranks, g->n, sizeof r, cmp_rank);
  return hit ? (uint32_t)(hit - g->ranks) : NONE;
}

/* Makes the op just added require ops A and B (NONE: not) or, when both
 * are NONE, the collective's entry. Returns the op. */
static uint32_t after(struct build *b, uint32_t a, uint32_t c) {
  uint32_t op = wl_last(b->p, b->me);
  if (a == NONE && c == NONE) {
    for (guint i = 0; i < b->entry->len; i++)
      wl_requires(b->p, b->me, op, g_array_index(b->entry, uint32_t, i));
  }
  if (a != NONE) wl_requires(b->p, b->me, op, a);
  if (c != NONE) wl_requires(b->p, b->me, op, c);
  return op;
}

/* A send (receive) of BYTES to (from) PEER with the call's tag plus
 * TREE, after ops A and C (after()). */
static uint32_t send_on(struct build *b, uint32_t tree, uint32_t peer, int64_t bytes, uint32_t a,
                        uint32_t c) {
  g_assert(bytes >= 0);
  wl_send(b->p, b->me, at(b, peer), bytes, b->c->tag + tree);
  return after(b, a, c);
}

static uint32_t recv_on(struct build *b, uint32_t tree, uint32_t peer, int64_t bytes, uint32_t a,
                        uint32_t c) {
  g_assert(bytes >= 0);
  wl_recv(b->p, b->me, at(b, peer), bytes, b->c->tag + tree);
  return after(b, a, c);
}

static uint32_t send(struct build *b, uint32_t peer, int64_t bytes, uint32_t a, uint32_t c) {
  return send_on(b, 0, peer, bytes, a, c);
}

static uint32_t recv(struct build *b, uint32_t peer, int64_t bytes, uint32_t a) {
  return recv_on(b, 0, peer, bytes, a, NONE);
}

/* Reducing BYTES of received data into the local ones: reads two, writes
 * one (3 * bytes of traffic), flops_per_elem per element, on `wgs` WGs. */
static uint32_t reduce(struct build *b, int64_t bytes, uint32_t a, uint32_t c) {
  const struct wl_coll *k = b->c;
  int64_t elems = (bytes + k->elem - 1) / k->elem, per_wg = (elems + k->wgs - 1) / k->wgs;
  wl_compute(b->p, b->me, k->wgs, per_wg * k->flops_per_elem, per_wg * 3 * k->elem);
  wl_kclass(b->p, b->me, KC_AXPY, 3 * bytes, 0, 0); /* acc += recv: two reads, one write */
  return after(b, a, c);
}

/* The collective's completion: ops A and B. */
static void finish(struct build *b, uint32_t a, uint32_t c) {
  g_array_set_size(b->entry, 0);
  if (a != NONE) g_array_append_val(b->entry, a);
  if (c != NONE) g_array_append_val(b->entry, c);
}

/* Elements of the vector (the last one may be partial). */
static int64_t elems(const struct wl_coll *c) {
  return (c->bytes + c->elem - 1) / c->elem;
}

/* The fold of a non-power-of-two rank count (Thakur et al. Sec. 4.4, as
 * MPICH's recursive doubling and Rabenseifner allreduce have it): with p2
 * the largest power of two <= n and rem = n - p2, each even rank below
 * 2 rem sends its vector to the odd rank above, which reduces it, and gets
 * the result back at the end; the p2 ranks left renumber to newrank. */
struct fold {
  uint32_t p2, rem;
  int64_t newrank; /* -1: folded away */
  uint32_t last;   /* the fold's reduction (odd ranks below 2 rem), or NONE */
};

static struct fold fold_in(struct build *b) {
  struct fold f = {.p2 = 1, .last = NONE};
  uint32_t n = b->n, r = b->rank;
  while (f.p2 * 2 <= n) f.p2 *= 2;
  f.rem = n - f.p2;
  if (r < 2 * f.rem) {
    if (r % 2 == 0) {
      uint32_t s = send(b, r + 1, b->c->bytes, NONE, NONE);
      uint32_t got = recv(b, r + 1, b->c->bytes, NONE);
      finish(b, s, got);
      f.newrank = -1;
      return f;
    }
    uint32_t got = recv(b, r - 1, b->c->bytes, NONE);
    f.last = reduce(b, b->c->bytes, got, NONE);
    f.newrank = r / 2;
  } else {
    f.newrank = (int64_t)r - f.rem;
  }
  return f;
}

/* The real rank of NEWRANK under fold F. */
static uint32_t fold_rank(const struct fold *f, uint32_t newrank) {
  return newrank < f->rem ? newrank * 2 + 1 : newrank + f->rem;
}

/* The end of the fold: odd ranks below 2 rem send the result back, after
 * LAST and LS; the collective completes with those. */
static void fold_out(struct build *b, const struct fold *f, uint32_t last, uint32_t ls) {
  if (b->rank < 2 * f->rem) ls = send(b, b->rank - 1, b->c->bytes, last, ls);
  finish(b, last, ls);
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

/* Recursive doubling (Thakur et al. Sec. 4.4): after the fold, the p2
 * ranks left exchange and reduce whole vectors with partner newrank ^ mask
 * for mask = 1, 2, 4, ... */
static void allreduce_recdoub(struct build *b) {
  struct fold f = fold_in(b);
  if (f.newrank < 0) return;
  uint32_t last = f.last, last_send = NONE;
  int64_t bytes = b->c->bytes;
  for (uint32_t mask = 1; mask < f.p2; mask <<= 1) {
    uint32_t peer = fold_rank(&f, (uint32_t)f.newrank ^ mask);
    last_send = send(b, peer, bytes, last, NONE);
    uint32_t got = recv(b, peer, bytes, last);
    last = reduce(b, bytes, got, last_send);
  }
  fold_out(b, &f, last, last_send);
}

/* Elements in pieces [0, I) of COUNT cut into P2 pieces, the first
 * count % p2 one element longer (MPICH's cnts[]). */
static int64_t below(int64_t count, uint32_t p2, uint32_t i) {
  return (int64_t)i * (count / p2) + MIN((int64_t)i, count % p2);
}

/* Rabenseifner's allreduce as MPICH writes it
 * (src/mpi/coll/allreduce/allreduce_intra_reduce_scatter_allgather.c; Thakur
 * et al. Sec. 4.4): after the fold, the vector is cut into p2 pieces of
 * count / p2 elements (the first count % p2 one more); a reduce-scatter by
 * recursive halving (mask 1, 2, .. p2 / 2: the rank whose newrank has the
 * mask's bit clear keeps the lower half of its range and sends the upper
 * one, the other the reverse; it reduces the half it keeps) leaves each
 * rank one piece, and an allgather by recursive doubling (the same
 * partners in reverse order, exchanging the range kept at that step for
 * the one sent) gathers them. Each step is a sendrecv: the next begins
 * once both ended. Below one element per piece MPICH uses recursive
 * doubling instead, and so does this. */
static void allreduce_rabenseifner(struct build *b) {
  int64_t count = elems(b->c), elem = b->c->elem;
  uint32_t p2 = 1;
  while (p2 * 2 <= b->n) p2 *= 2;
  if (count < p2) {
    allreduce_recdoub(b);
    return;
  }
  struct fold f = fold_in(b);
  if (f.newrank < 0) return;
  uint32_t nr = (uint32_t)f.newrank, lo = 0, hi = p2, steps = 0;
  int64_t kept[32], sent[32]; /* bytes kept and sent at each halving */
  uint32_t peers[32];
  uint32_t last = f.last, ls = NONE;
  for (uint32_t mask = 1; mask < p2; mask <<= 1, steps++) {
    uint32_t peer = fold_rank(&f, nr ^ mask), mid = lo + (hi - lo) / 2;
    bool lower = !(nr & mask);
    int64_t low = (below(count, p2, mid) - below(count, p2, lo)) * elem;
    int64_t high = (below(count, p2, hi) - below(count, p2, mid)) * elem;
    kept[steps] = lower ? low : high;
    sent[steps] = lower ? high : low;
    peers[steps] = peer;
    if (lower) hi = mid;
    else lo = mid;
    ls = send(b, peer, sent[steps], last, NONE);
    uint32_t got = recv(b, peer, kept[steps], last);
    last = reduce(b, kept[steps], got, ls);
  }
  while (steps-- > 0) {
    uint32_t s = send(b, peers[steps], kept[steps], last, ls);
    last = recv_on(b, 0, peers[steps], sent[steps], last, ls);
    ls = s;
  }
  fold_out(b, &f, last, ls);
}

/* Reduce-scatter by recursive halving (MPICH's
 * reduce_scatter_intra_recursive_halving.c, for commutative operations;
 * Thakur et al. Sec. 4.3): each rank's result is one block of ceil(count
 * / n) elements. Non-powers of two fold first: each even rank below 2 rem
 * sends its whole vector to the odd rank above, which reduces it and later
 * sends it its block; newrank i < rem then stands for two blocks. The p2
 * ranks halve their range of newranks each step (mask 1, 2, ..: the lower
 * half kept where the newrank's bit is clear), sending the other half's
 * blocks and reducing the kept half's. */
static void reduce_scatter_halving(struct build *b) {
  uint32_t n = b->n, r = b->rank, p2 = 1;
  while (p2 * 2 <= n) p2 *= 2;
  uint32_t rem = n - p2;
  int64_t block = (b->c->bytes / b->c->elem + n - 1) / n * b->c->elem;
  uint32_t last = NONE, ls = NONE, nr;
  if (r < 2 * rem && r % 2 == 0) { /* folded away: its block comes back at the end */
    uint32_t s = send(b, r + 1, b->c->bytes, NONE, NONE);
    finish(b, recv(b, r + 1, block, NONE), s);
    return;
  }
  if (r < 2 * rem) {
    last = reduce(b, b->c->bytes, recv(b, r - 1, b->c->bytes, NONE), NONE);
    nr = r / 2;
  } else {
    nr = r - rem;
  }
  struct fold f = {.p2 = p2, .rem = rem};
  uint32_t lo = 0, hi = p2;
  for (uint32_t mask = 1; mask < p2; mask <<= 1) {
    uint32_t mid = lo + (hi - lo) / 2, peer = fold_rank(&f, nr ^ mask);
    /* Blocks of newranks [x, y): one each, two below rem. */
    int64_t low = ((int64_t)(mid - lo) + (MIN(mid, rem) - MIN(lo, rem))) * block;
    int64_t high = ((int64_t)(hi - mid) + (MIN(hi, rem) - MIN(mid, rem))) * block;
    bool lower = !(nr & mask);
    if (lower) hi = mid;
    else lo = mid;
    ls = send(b, peer, lower ? high : low, last, NONE);
    last = reduce(b, lower ? low : high, recv(b, peer, lower ? low : high, last), ls);
  }
  if (r < 2 * rem) ls = send(b, r - 1, block, last, ls);
  finish(b, last, ls);
}

/* Allgather by recursive doubling (MPICH's
 * allgather_intra_recursive_doubling.c; Thakur et al. Sec. 4.1) on a
 * power-of-two count: step k exchanges the 2^k blocks gathered so far with
 * rank ^ 2^k. Other counts take the ring, as MPICH's choice by size does
 * for them (it uses Bruck's algorithm for short ones). */
static void allgather_recdoub(struct build *b) {
  uint32_t last = NONE, ls = NONE;
  for (uint32_t mask = 1; mask < b->n; mask <<= 1) {
    ls = send(b, b->rank ^ mask, b->c->bytes * mask, last, NONE);
    last = recv_on(b, 0, b->rank ^ mask, b->c->bytes * mask, last, ls);
  }
  finish(b, last, ls);
}

/* NCCL's binary tree (ncclGetBtree, src/graph/trees.cc) over N ranks
 * rooted at 0, for rank V: its parent and its up to two children (NONE
 * where there is none). With bit the lowest set bit of v, the parent is
 * (v ^ bit) | (bit << 1), or v ^ bit where that is out of range; the
 * children are v - bit / 2 and v + l for the largest l in bit / 2, bit /
 * 4, .. 1 that stays in range; the root's one child is the largest power
 * of two below n. Leaves and inner nodes alternate: every odd rank is a
 * leaf. */
struct tnode {
  uint32_t up, down[2];
};

static struct tnode btree(uint32_t n, uint32_t v) {
  struct tnode t = {NONE, {NONE, NONE}};
  uint32_t bit = 1;
  while (bit < n && !(bit & v)) bit <<= 1;
  if (v == 0) {
    if (n > 1) t.down[0] = bit >> 1;
    return t;
  }
  t.up = (v ^ bit) | (bit << 1);
  if (t.up >= n) t.up = v ^ bit;
  if (bit > 1) t.down[0] = v - (bit >> 1);
  for (uint32_t l = bit >> 1; l > 0 && t.down[1] == NONE; l >>= 1)
    if (v + l < n) t.down[1] = v + l;
  return t;
}

/* The tree T's node of V with every rank mapped through MAP: x -> (x *
 * MUL + ADD) mod n for MUL +1 or -1. */
static struct tnode tmap(struct tnode t, uint32_t n, int64_t mul, int64_t add) {
  uint32_t *f[3] = {&t.up, &t.down[0], &t.down[1]};
  for (int i = 0; i < 3; i++)
    if (*f[i] != NONE) *f[i] = (uint32_t)((((int64_t)*f[i] * mul + add) % n + n) % n);
  return t;
}

/* NCCL's double binary tree (ncclGetDtree): the first tree is the binary
 * tree; the second mirrors it (rank n - 1 - v) when n is even and shifts
 * it by one rank (v + 1) when n is odd, so that a leaf of one tree is an
 * inner node of the other (Sanders, Speck and Traeff, "Two-tree algorithms
 * for full bandwidth broadcast, reduction and scan", Parallel Computing
 * 2009; NCCL 2.4). */
static struct tnode dtree_second(uint32_t n, uint32_t v) {
  if (n % 2) return tmap(btree(n, (v + n - 1) % n), n, 1, 1);
  return tmap(btree(n, n - 1 - v), n, -1, (int64_t)n - 1);
}

/* The second tree of a bcast or reduce from rank 0 (ranks renumbered so
 * that the root is 0): NCCL's second tree is rooted at r1 (n - 1, or 1
 * on an odd count), where rank 0 is a leaf (even n) or has one child (odd
 * n: the shifted node n - 1 has only v - bit / 2). It is re-rooted at 0:
 * rank 0 leaves its parent and takes r1 as a child, so that the root
 * sends the second half to r1 (bcast) or gets it from r1 (reduce), and
 * the rest of the tree is NCCL's. The first tree carries the other half
 * from (to) 0 as in the binary tree. (NCCL runs its trees for allreduce
 * only; this is the double tree's bcast and reduce of Sanders et al.) */
static struct tnode dtree_rooted(uint32_t n, uint32_t v) {
  struct tnode t = dtree_second(n, v), owner = dtree_second(n, 0);
  uint32_t r1 = n % 2 ? 1 : n - 1;
  if (v == 0) {
    g_assert(t.down[1] == NONE);
    t.up = NONE;
    t.down[t.down[0] == NONE ? 0 : 1] = r1;
    return t;
  }
  if (v == owner.up) {
    for (int k = 0; k < 2; k++)
      if (t.down[k] == 0) t.down[k] = NONE;
  }
  if (v == r1) t.up = 0;
  return t;
}

/* Runs BYTES (whole elements, the last maybe partial) through tree node T of this rank (real ranks), on tag offset TREE, in
 * segments of the call's segment_bytes: with UP each segment is received
 * from the children, reduced into the local one (child 0 then child 1,
 * one reduction after another) and sent to the parent; with DOWN it is
 * received from the parent (the root: taken from its reduction, or from
 * its own buffer) and sent to each child. Sends to one peer go in segment
 * order; every receive is posted at the start, as NCCL's kernel and a
 * segmented MPI tree post theirs. The last op of each chain goes to
 * ENDS. */
static void tree_run(struct build *b, struct tnode t, uint32_t tree, int64_t bytes, bool up,
                     bool down, GArray *ends) {
  if (bytes <= 0) return;
  int64_t elem = b->c->elem, count = (bytes + elem - 1) / elem;
  int64_t seg = b->c->segment_bytes > 0 ? MAX(b->c->segment_bytes / elem, 1) : count;
  uint32_t red = NONE, up_send = NONE, got = NONE, down_send[2] = {NONE, NONE};
  for (int64_t first = 0; first < count; first += seg) {
    int64_t sb = MIN(seg * elem, bytes - first * elem);
    uint32_t ready = NONE;
    if (up) {
      for (int k = 0; k < 2; k++) {
        if (t.down[k] == NONE) continue;
        uint32_t r = recv_on(b, tree, t.down[k], sb, NONE, NONE);
        red = reduce(b, sb, r, red);
        ready = red;
      }
      if (t.up != NONE) up_send = send_on(b, tree, t.up, sb, ready, up_send);
    }
    if (down) {
      if (t.up != NONE) ready = got = recv_on(b, tree, t.up, sb, NONE, NONE);
      for (int k = 0; k < 2; k++)
        if (t.down[k] != NONE)
          down_send[k] = send_on(b, tree, t.down[k], sb, ready, down_send[k]);
    }
  }
  uint32_t chain[5] = {red, up_send, got, down_send[0], down_send[1]};
  for (int i = 0; i < 5; i++)
    if (chain[i] != NONE) g_array_append_val(ends, chain[i]);
}

/* Trees of the whole program: allreduce on NCCL's trees rooted at rank 0
 * (reduce up, broadcast down; the double tree carries the first half of
 * the elements, rounded up, on the first tree and the rest on the second),
 * bcast and reduce on the trees renumbered so that the root is 0 (the
 * second one re-rooted: dtree_rooted). */
static void coll_tree(struct build *b, bool two) {
  const struct wl_coll *c = b->c;
  uint32_t n = b->n, root = c->kind == WL_ALLREDUCE ? 0 : b->root;
  uint32_t v = (b->rank + n - root) % n;
  bool up = c->kind != WL_BCAST, down = c->kind != WL_REDUCE;
  struct tnode t0 = tmap(btree(n, v), n, 1, root);
  GArray *ends = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  int64_t first = two ? (elems(c) + 1) / 2 * c->elem : c->bytes;
  first = MIN(first, c->bytes);
  tree_run(b, t0, 0, first, up, down, ends);
  struct tnode t1 = c->kind == WL_ALLREDUCE ? dtree_second(n, v) : tmap(dtree_rooted(n, v), n, 1, root);
  if (two) tree_run(b, t1, 1, c->bytes - first, up, down, ends);
  if (ends->len) {
    g_array_set_size(b->entry, 0);
    g_array_append_vals(b->entry, ends->data, ends->len);
  }
  g_array_free(ends, TRUE);
}

/* Binomial tree from root (Thakur et al. Sec. 4.1), on ranks renumbered so
 * that the root is 0. */
static void bcast_binomial(struct build *b) {
  uint32_t n = b->n, v = (b->rank + n - b->root) % n, mask = 1, got = NONE;
  while (mask < n) {
    if (v & mask) {
      got = recv(b, (v - mask + b->root) % n, b->c->bytes, NONE);
      break;
    }
    mask <<= 1;
  }
  uint32_t last = got;
  for (mask >>= 1; mask > 0; mask >>= 1)
    if (v + mask < n) last = send(b, (v + mask + b->root) % n, b->c->bytes, got, NONE);
  finish(b, got, last == got ? NONE : last);
}

static void reduce_binomial(struct build *b) {
  uint32_t n = b->n, v = (b->rank + n - b->root) % n, last = NONE;
  for (uint32_t mask = 1; mask < n; mask <<= 1) {
    if (v & mask) {
      last = send(b, ((v & ~mask) + b->root) % n, b->c->bytes, last, NONE);
      break;
    }
    if ((v | mask) < n) {
      uint32_t got = recv(b, ((v | mask) + b->root) % n, b->c->bytes, NONE);
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

/* Marks send OP of B's rank with what it orders (enum wl_fence). */
static void fenced(struct build *b, uint32_t op, enum wl_fence f) {
  b->p->ranks[b->me].ops[op].fence = (uint8_t)f;
}

/* Round k sends to rank + 2^k and waits for rank - 2^k (Hensgen, Finkel
 * and Manber 1988). Each send is a flag: the first orders what came
 * before the call (WL_FENCE_ENTRY), the others nothing. */
static void barrier_dissemination(struct build *b) {
  uint32_t last = NONE, ls = NONE;
  for (uint32_t mask = 1; mask < b->n; mask <<= 1) {
    ls = send(b, (b->rank + mask) % b->n, 0, last, NONE);
    fenced(b, ls, mask == 1 ? WL_FENCE_ENTRY : WL_FENCE_NONE);
    last = recv(b, (b->rank + b->n - mask) % b->n, 0, last);
  }
  finish(b, last, ls);
}

/* One stage of the direct allreduce among the N places PEERS (this rank's
 * own among them), after op PREV (NONE: the entry): the vector stored to
 * each other place, its flags in its words (WL_FENCE_NONE), then one
 * reduction of the n - 1 received, once all are in. Its sends go into
 * ENDS; returns the reduction. */
static uint32_t allpush(struct build *b, const uint32_t *peers, uint32_t n, uint32_t prev,
                        GArray *ends) {
  int64_t bytes = b->c->bytes;
  for (uint32_t i = 0; i < n; i++) {
    if (peers[i] == b->rank) continue;
    uint32_t s = send(b, peers[i], bytes, prev, NONE);
    fenced(b, s, WL_FENCE_NONE);
    g_array_append_val(ends, s);
  }
  uint32_t first = NONE, got = NONE;
  for (uint32_t i = 0; i < n; i++) {
    if (peers[i] == b->rank) continue;
    got = recv(b, peers[i], bytes, prev);
    if (first == NONE) first = got;
  }
  uint32_t red = reduce(b, bytes * (n - 1), first, NONE);
  for (uint32_t op = first + 1; op <= got; op++) /* the other receives, written in a row */
    wl_requires(b->p, b->me, red, op);
  return red;
}

/* Allreduce by direct stores (NVSHMEM's LL all-push, rdxn_device.cuh
 * nvshmemi_gpu_rdxn_hierarchical_fcollect_threadgroup): over every rank at
 * once, or, with c.per_node, among each node's ranks, then among the
 * ranks at the same place of every node. */
static void allreduce_direct(struct build *b) {
  uint32_t pn = b->c->per_node, n = b->n;
  bool two = pn > 1 && pn < n && n % pn == 0 && !b->ranks;
  GArray *ends = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  uint32_t *peers = g_new(uint32_t, n);
  uint32_t last;
  if (two) {
    uint32_t base = b->rank / pn * pn, nodes = n / pn;
    for (uint32_t i = 0; i < pn; i++) peers[i] = base + i;
    last = allpush(b, peers, pn, NONE, ends);
    for (uint32_t k = 0; k < nodes; k++) peers[k] = k * pn + b->rank % pn;
    last = allpush(b, peers, nodes, last, ends);
  } else {
    for (uint32_t i = 0; i < n; i++) peers[i] = i;
    last = allpush(b, peers, n, NONE, ends);
  }
  g_array_append_val(ends, last);
  g_array_set_size(b->entry, 0);
  g_array_append_vals(b->entry, ends->data, ends->len);
  g_free(peers);
  g_array_free(ends, TRUE);
}

/* Allreduce by dissemination: round k sends the whole vector to rank +
 * 2^k, waits for rank - 2^k and reduces it: ceil(log2 n) rounds on any
 * rank count (a whole reduction only on a power of two: beyond, a
 * rank's share arrives twice). */
static void allreduce_dissemination(struct build *b) {
  uint32_t last = NONE, ls = NONE;
  for (uint32_t mask = 1; mask < b->n; mask <<= 1) {
    ls = send(b, (b->rank + mask) % b->n, b->c->bytes, last, NONE);
    uint32_t got = recv(b, (b->rank + b->n - mask) % b->n, b->c->bytes, last);
    last = reduce(b, b->c->bytes, got, last);
  }
  finish(b, last, ls);
}

void wl_coll(struct wl_program *p, uint32_t rank, const struct wl_coll *c, GArray *entry) {
  g_assert(rank < p->n_ranks && c->kind < WL_COLL_COUNT && c->elem >= 1 && c->wgs >= 1 &&
           c->bytes >= 0 && c->segment_bytes >= 0 && c->root < p->n_ranks &&
           wl_coll_has_algo(c->kind, c->algo));
  const struct wl_group *g = wl_group_get(p, c->group);
  struct build b = {.p = p, .rank = rank, .n = p->n_ranks, .c = c, .entry = entry, .me = rank,
                    .root = c->root};
  if (g) { /* over the group's ranks, by place */
    b.rank = place_of(g, rank), b.root = place_of(g, c->root);
    b.n = g->n, b.ranks = g->ranks;
    g_assert(b.rank != NONE && b.root != NONE);
  }
  wl_graph(p, rank);
  if (b.n < 2 || (c->bytes == 0 && c->kind != WL_BARRIER)) return;
  if (c->algo == WL_ALG_BINARY_TREE || c->algo == WL_ALG_DOUBLE_BINARY_TREE) {
    coll_tree(&b, c->algo == WL_ALG_DOUBLE_BINARY_TREE);
    return;
  }
  switch (c->kind) {
  case WL_ALLREDUCE:
    if (c->algo == WL_ALG_RING) allreduce_ring(&b);
    else if (c->algo == WL_ALG_DISSEMINATION) allreduce_dissemination(&b);
    else if (c->algo == WL_ALG_DIRECT) allreduce_direct(&b);
    else if (c->algo == WL_ALG_RECDOUB || (c->algo == WL_ALG_AUTO && c->bytes <= WL_MPI_SHORT_BYTES))
      allreduce_recdoub(&b);
    else allreduce_rabenseifner(&b);
    break;
  case WL_REDUCE_SCATTER: {
    if (c->algo == WL_ALG_RABENSEIFNER) {
      reduce_scatter_halving(&b);
      break;
    }
    uint32_t ls, made = ring(&b, (c->bytes / c->elem + b.n - 1) / b.n * c->elem, true, NONE, &ls);
    finish(&b, made, ls);
    break;
  }
  case WL_ALLGATHER: {
    if (c->algo == WL_ALG_RECDOUB && !(b.n & (b.n - 1))) {
      allgather_recdoub(&b);
      break;
    }
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

uint64_t wl_coll_max_ops(const struct wl_coll *c, uint32_t n_ranks) {
  if (n_ranks < 2 || (c->bytes == 0 && c->kind != WL_BARRIER)) return 0;
  if (c->algo == WL_ALG_BINARY_TREE || c->algo == WL_ALG_DOUBLE_BINARY_TREE) {
    /* Per segment and tree: 2 receives and 2 reductions up, a send up, a
     * receive and 2 sends down. */
    uint64_t count = (uint64_t)elems(c), seg = count;
    if (c->segment_bytes > 0) seg = (uint64_t)MAX(c->segment_bytes / c->elem, 1);
    return 2 * 8 * ((count + seg - 1) / seg);
  }
  /* The ring's 3 (n - 1) ops twice is the most of the others. */
  return 6 * (uint64_t)n_ranks + 64;
}

struct wl_program *wl_coll_program(uint32_t n_ranks, const struct wl_coll *c) {
  g_assert(c->group == 0);
  struct wl_program *p = wl_program_new(n_ranks);
  GArray *after = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  for (uint32_t r = 0; r < n_ranks; r++) {
    g_array_set_size(after, 0);
    wl_coll(p, r, c, after);
  }
  g_array_free(after, TRUE);
  return p;
}

/* ---- collectives as one op, expanded per library ---- */

const char *const wl_lib_names[WL_LIB_COUNT] = {"mpi", "nccl", "nvshmem", "gputn"};

void wl_collective(struct wl_program *p, uint32_t rank, const struct wl_coll *c) {
  g_assert(rank < p->n_ranks && c->kind < WL_COLL_COUNT &&
           c->elem >= 1 && c->bytes >= 0 && c->segment_bytes >= 0 && c->root < p->n_ranks &&
           wl_coll_has_algo(c->kind, c->algo));
  const struct wl_group *g = wl_group_get(p, c->group);
  g_assert(!g || (place_of(g, rank) != NONE && place_of(g, c->root) != NONE));
  uint32_t call = wl_call_add(p, &(struct wl_call){.kind = (uint8_t)c->kind,
                                                    .algo = (uint8_t)c->algo,
                                                    .elem_bytes = c->elem,
                                                    .flops_per_elem = c->flops_per_elem,
                                                    .segment_bytes = c->segment_bytes,
                                                    .group = c->group});
  wl_push_op(p, rank, &(struct wl_op){.kind = WL_COLL, .kernel = call, .bytes = c->bytes,
                                      .n_wgs = c->wgs, .peer = c->root, .tag = c->tag,
                                      .parts = MAX(c->parts, 1), .stores = MAX(c->stores, 1),
                                      .lane = p->ranks[rank].lane,
                                      .form = p->ranks[rank].form});
}

/* Whether rank SRC holds a collective op. */
static bool rank_has_colls(const struct wl_rank *src) {
  for (size_t i = 0; i < src->n_ops; i++)
    if (src->ops[i].kind == WL_COLL) return true;
  return false;
}

bool wl_has_colls(const struct wl_program *p) {
  for (uint32_t r = 0; r < p->n_ranks; r++)
    if (rank_has_colls(&p->ranks[r])) return true;
  return false;
}

/* The ranks of collective C of P that share a node, PER_NODE ranks a
 * node, as the places chan_ring numbers: PER_NODE for a collective of
 * every rank; for a group, its ranks on each node when every node of it
 * holds that many (the last maybe fewer: consecutive places, as its
 * ranks ascend), else 1 (a plain ring over the places). */
static uint32_t coll_per_node(const struct wl_program *p, const struct wl_coll *c,
                              uint32_t per_node) {
  const struct wl_group *g = wl_group_get(p, c->group);
  uint32_t pn = MAX(per_node, 1);
  if (!g) return per_node;
  uint32_t k = 0;
  while (k < g->n && g->ranks[k] / pn == g->ranks[0] / pn) k++;
  for (uint32_t i = 0; i < g->n; i++) {
    uint32_t first = i / k * k; /* its block's first place */
    bool same = g->ranks[i] / pn == g->ranks[first] / pn;
    bool apart = first == 0 || g->ranks[first] / pn != g->ranks[first - 1] / pn;
    if (!same || !apart) return 1;
  }
  return k;
}

/* The nodes of PER_NODE ranks collective C of P spans (its ranks
 * ascend). */
static uint32_t coll_nodes(const struct wl_program *p, const struct wl_coll *c, uint32_t per_node) {
  const struct wl_group *g = wl_group_get(p, c->group);
  uint32_t pn = MAX(per_node, 1);
  if (!g) return p->n_ranks == 0 ? 1 : (p->n_ranks - 1) / pn + 1;
  uint32_t nodes = 1;
  for (uint32_t i = 1; i < g->n; i++) nodes += g->ranks[i] / pn != g->ranks[i - 1] / pn;
  return nodes;
}

/* The ranks collective C of P runs over. */
static uint32_t coll_size(const struct wl_program *p, const struct wl_coll *c) {
  const struct wl_group *g = wl_group_get(p, c->group);
  return g ? g->n : p->n_ranks;
}

/* ---- NCCL's tuner (NCCL 2.15, src/graph/tuning.cc) ---- */

const char *const wl_nccl_proto_names[WL_PROTO_COUNT] = {"auto", "ll", "ll128", "simple"};

/* Its tables by [tree, ring][LL, LL128, Simple]: base latency (us), the
 * latency a step adds over NVLink and over the network; per GPU
 * generation [volta, ampere, hopper]: LL's most bandwidth by node count
 * (1, 2, more; across nodes by CPU vendor: Intel's row is Volta's, AMD's
 * Ampere's but for one node) and a tree channel's (GB/s). */
static const double nccl_base_lat[2][3] = {{4.4, 4.4, 0}, {3.6, 10.0, 8.4}};
static const double nccl_nvl_lat[2][3] = {{.52, 1.25, 28}, {.47, 1.9, 3.4}};
static const double nccl_net_lat[2][3] = {{5.0, 8.5, 28}, {2.7, 4.0, 9.6}};
static const double nccl_ll_max_bw[3][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}};
static const double nccl_tree_ch_bw[3][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {24.0, 23.6, 17.8}};
#define NCCL_LL128_CH_BW 20.0
/* "Trees are not perfectly sticking to the model for medium sizes": its
 * tree bandwidth's factor by log2(bytes / 64), 64 B to 256 MiB. */
static const double nccl_tree_fix[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

static int nccl_log2i(int64_t v) {
  int l = 0;
  while (v >>= 1) l++;
  return l;
}

double wl_nccl_time(enum wl_coll_kind kind, enum wl_coll_algo algo, enum wl_nccl_proto proto,
                    int64_t bytes, uint32_t n, uint32_t nodes, const struct wl_lib_opts *o) {
  bool tree = algo == WL_ALG_BINARY_TREE || algo == WL_ALG_DOUBLE_BINARY_TREE;
  if (proto == WL_PROTO_AUTO || proto >= WL_PROTO_COUNT || (!tree && algo != WL_ALG_RING) ||
      (tree && kind != WL_ALLREDUCE) || kind == WL_ALLTOALL || kind == WL_BARRIER || n < 2)
    return -1; /* NCCL's alltoall is its point-to-point (Simple in 2.15) */
  int a = tree ? 0 : 1, p = proto - WL_PROTO_LL, gpu = MIN(o->nccl_gpu, WL_NCCL_HOPPER);
  nodes = CLAMP(nodes, 1, n);
  bool ar = kind == WL_ALLREDUCE, rsag = kind == WL_REDUCE_SCATTER || kind == WL_ALLGATHER;
  double nsteps = ar ? 2.0 * (n - 1) : rsag ? n - 1 : n;
  double inter = ar ? (nodes > 1 ? 2.0 * nodes : 0) : rsag ? nodes - 1 : nodes;
  int i2 = nodes <= 2 ? (int)nodes - 1 : 2;
  double ll_max = nccl_ll_max_bw[nodes == 1 ? gpu : o->nccl_amd ? 1 : 0][i2];
  double ch = MAX(o->channels, 1), ppn = (double)n / nodes;
  double bus = nodes <= 2 ? o->busbw_intra : o->busbw_inter;
  if (gpu == WL_NCCL_AMPERE) bus = MIN(bus, 235.0);
  if (!tree && proto == WL_PROTO_LL)
    bus = MIN(ll_max, bus * (nodes > 1 || ar || kind == WL_REDUCE ? 1.0 / 4 : 1.0 / 3));
  if (!tree && proto == WL_PROTO_LL128) bus = MIN(bus * (ppn < 2 ? 0.7 : 0.92), NCCL_LL128_CH_BW * ch);
  if (tree) bus = MIN(bus * .92, ch * nccl_tree_ch_bw[gpu][i2]);
  if (tree && proto == WL_PROTO_LL) bus = MIN(bus / 3.8, ll_max);
  if (tree && proto == WL_PROTO_LL128)
    bus = MIN(bus * (nodes == 1 ? 7.0 / 9 : 120.0 / 128), NCCL_LL128_CH_BW * ch);
  double bw = bus * (tree ? .5 : n / nsteps);
  double lat = nccl_base_lat[a][p], intra = nccl_nvl_lat[a][p], net = nccl_net_lat[a][p];
  if (nodes > 1 && proto == WL_PROTO_LL) intra *= 1.8;
  if (tree) {
    lat += 2 * ((n / nodes - 1) * intra + nccl_log2i(nodes) * net);
  } else if (kind == WL_REDUCE || kind == WL_BCAST) {
    /* Its rings differ by channel (sameChannels 0); Simple's step takes
     * the tree's chunk latency. */
    double step = nodes > 1 ? nccl_net_lat[proto == WL_PROTO_SIMPLE ? 0 : 1][p]
                            : nccl_nvl_lat[proto == WL_PROTO_SIMPLE ? 0 : 1][p];
    lat += nsteps * step;
  } else {
    lat += (nsteps - inter) * intra + inter * net;
  }
  if (bw <= 0) return -1;
  int lg = nccl_log2i(bytes >> 6);
  if (tree && lg < 23) bw *= nccl_tree_fix[p][lg];
  if (!tree && proto == WL_PROTO_SIMPLE && nodes > 1 && ar && bytes >= n / 16.0 * 65536)
    lat *= 1.9; /* "plateau effect of ring" */
  return lat + (double)bytes / (1000 * bw);
}

int64_t wl_nccl_wire_bytes(enum wl_nccl_proto proto, int64_t bytes) {
  if (bytes <= 0) return bytes;
  if (proto == WL_PROTO_LL) return bytes > INT64_MAX / 2 - 8 ? INT64_MAX : (bytes + 7) / 8 * 16;
  if (proto == WL_PROTO_LL128)
    return bytes / 120 > INT64_MAX / 128 - 1 ? INT64_MAX : (bytes + 119) / 120 * 128;
  return bytes;
}

/* C's bytes as NCCL counts them: an allgather's and a reduce-scatter's
 * whole buffer (src/enqueue.cc: nBytes *= nRanks, their count per rank). */
static int64_t nccl_bytes(const struct wl_coll *c, uint32_t n) {
  if (c->kind != WL_ALLGATHER) return c->bytes; /* a reduce-scatter's bytes are its whole input */
  return c->bytes > INT64_MAX / MAX(n, 1) ? INT64_MAX : c->bytes * n;
}

/* The protocol of call C of N ranks by algorithm ALGO: forced, or the
 * fastest by NCCL's tuner (ties to the first, LL, LL128, Simple, as
 * getAlgoInfo's strict <); Simple for what the tuner has no time for. */
static enum wl_nccl_proto nccl_pick(const struct wl_coll *c, uint32_t n, uint32_t nodes,
                                    const struct wl_lib_opts *o, enum wl_coll_algo algo,
                                    double *best) {
  enum wl_nccl_proto pick = WL_PROTO_SIMPLE;
  *best = -1;
  for (int p = WL_PROTO_LL; p < WL_PROTO_COUNT; p++) {
    if (o->nccl_proto != WL_PROTO_AUTO && p != o->nccl_proto) continue;
    double t = wl_nccl_time((enum wl_coll_kind)c->kind, algo, (enum wl_nccl_proto)p,
                            nccl_bytes(c, n), n, nodes, o);
    if (t >= 0 && (*best < 0 || t < *best)) *best = t, pick = (enum wl_nccl_proto)p;
  }
  if (*best < 0) *best = 1e300, pick = o->nccl_proto != WL_PROTO_AUTO ? o->nccl_proto : WL_PROTO_SIMPLE;
  return pick;
}

static double nccl_best(const struct wl_coll *c, uint32_t n, uint32_t nodes,
                        const struct wl_lib_opts *o, enum wl_coll_algo algo) {
  double t;
  nccl_pick(c, n, nodes, o, algo, &t);
  return t;
}

/* The protocol NCCL runs call C (its algorithm chosen) of N ranks on
 * NODES nodes in. Bcast and reduce, which coll.h writes as trees, take
 * the ring's: they are rings in NCCL. */
static uint8_t nccl_proto(const struct wl_coll *c, uint32_t n, uint32_t nodes,
                          const struct wl_lib_opts *o) {
  enum wl_coll_algo a = c->algo;
  if (c->kind == WL_BCAST || c->kind == WL_REDUCE) a = WL_ALG_RING;
  double t;
  return (uint8_t)nccl_pick(c, n, nodes, o, a, &t);
}

/* Largest vector NVSHMEM reduces through its LL all-push
 * (NVSHMEM_FCOLLECT_LL_THRESHOLD's default, src/include/env_defs.h), and
 * the most bytes of every rank's vector together it takes that way (its
 * work array: NVSHMEMI_REDUCE_MIN_WRKDATA_SIZE = SYNC_SIZE = 27648 longs,
 * src/include/nvshmemi_constants.h). */
#define NVSHMEM_LL_MAX_BYTES 2048
#define NVSHMEM_REDUCE_WORK_BYTES (27648 * 8)

/* The algorithm LIB runs collective C of N ranks on NODES nodes with when
 * C asks for none (auto). */
static enum wl_coll_algo lib_algo(enum wl_lib lib, const struct wl_coll *c, uint32_t n,
                                  uint32_t nodes, const struct wl_lib_opts *opts) {
  if (c->algo != WL_ALG_AUTO) return (enum wl_coll_algo)c->algo;
  switch (lib) {
  case WL_LIB_MPI:
    /* MPICH's allreduce choice as configured: a forced algorithm, else by
     * size (recursive doubling is also what Rabenseifner falls back to
     * below one element per power-of-two rank, allreduce_rabenseifner). */
    if (c->kind != WL_ALLREDUCE) return WL_ALG_AUTO;
    if (opts->mpi_allreduce != WL_ALG_AUTO) return (enum wl_coll_algo)opts->mpi_allreduce;
    return c->bytes <= opts->mpi_short_bytes ? WL_ALG_RECDOUB : WL_ALG_RABENSEIFNER;
  case WL_LIB_NCCL:
    /* NCCL's ring inside a node (its tree there is a chain, which coll.h
     * does not write); across nodes its allreduce takes the double
     * binary tree (NCCL 2.4, "Massively Scale Your Deep Learning Training
     * with NCCL 2.4", NVIDIA blog 2019: trees for latency at scale) where
     * its tuner predicts the tree faster in its fastest protocol
     * (nccl_best), the ring elsewhere. Bcast
     * and reduce are rings in NCCL (src/device/broadcast.h, reduce.h),
     * modelled by the double binary tree re-rooted at the root, the
     * closest pipelined form coll.h has. */
    if (nodes > 1 && wl_coll_has_algo(c->kind, WL_ALG_DOUBLE_BINARY_TREE) &&
        nccl_best(c, n, nodes, opts, WL_ALG_DOUBLE_BINARY_TREE) <
            nccl_best(c, n, nodes, opts, WL_ALG_RING))
      return WL_ALG_DOUBLE_BINARY_TREE;
    if (wl_coll_has_algo(c->kind, WL_ALG_RING)) return WL_ALG_RING;
    if (wl_coll_has_algo(c->kind, WL_ALG_DOUBLE_BINARY_TREE)) return WL_ALG_DOUBLE_BINARY_TREE;
    return WL_ALG_AUTO;
  case WL_LIB_NVSHMEM:
    /* NVSHMEM 2.7 (coll.h): the LL all-push for a small even count of
     * >= 4 B elements over every rank, else recursive exchange of radix 2
     * (recursive doubling; its fold for a count of ranks that is not a
     * power of two is NVSHMEM's step 1 and 3). */
    if (c->kind != WL_ALLREDUCE) return WL_ALG_AUTO;
    if (!c->group && c->elem >= 4 && elems(c) % 2 == 0 && c->bytes <= NVSHMEM_LL_MAX_BYTES &&
        (int64_t)n * c->bytes <= NVSHMEM_REDUCE_WORK_BYTES)
      return WL_ALG_DIRECT;
    return WL_ALG_RECDOUB;
  default: return WL_ALG_AUTO; /* gputn: MPICH's default choice by size (WL_ALG_AUTO) */
  }
}

/* C, a call of P, as LIB runs it: its algorithm (lib_algo), NCCL's
 * protocol and, for NVSHMEM's reductions over every rank, the node size
 * of their hierarchical form. */
static void lib_choose(struct wl_coll *c, enum wl_lib lib, const struct wl_program *p,
                       const struct wl_lib_opts *opts) {
  uint32_t n = coll_size(p, c), nodes = coll_nodes(p, c, opts->per_node);
  c->algo = lib_algo(lib, c, n, nodes, opts);
  if (lib == WL_LIB_NVSHMEM && !c->group) c->per_node = opts->per_node;
  if (lib == WL_LIB_NCCL) c->proto = nccl_proto(c, n, nodes, opts);
}

/* Appends O to rank R of Q in the lane and region of collective op CALL. */
static void push_in(struct wl_program *q, uint32_t r, struct wl_op o, const struct wl_op *call,
                    uint32_t region) {
  o.lane = o.kind == WL_LOOP || o.kind == WL_END ? 0 : call->lane;
  o.region = region;
  wl_push_op(q, r, &o);
}

/* NCCL's channels (hardware.comm.nccl_channels): a collective's bytes are
 * cut into one part per channel, each a ring of its own run by its own
 * CUDA block. NCCL uses fewer channels for small calls: while nBytes <
 * nc x nThreads x threadThreshold it drops one (src/enqueue.cc,
 * getAlgoInfo's "Ring/Tree channel tuning"): Simple 512 threads
 * (NCCL_SIMPLE_MAX_NTHREADS) x 64 B (NCCL_SIMPLE_THREAD_THRESHOLD), LL 512
 * (NCCL_LL_MAX_NTHREADS) x 8 B x the ring's ranks (the ring's LL
 * threshold is NCCL_LL_THREAD_THRESHOLD x nRanks, src/graph/tuning.cc),
 * LL128 640 (NCCL_LL128_MAX_NTHREADS) x 8 B (src/include/comm.h,
 * devcomm.h). */
uint32_t wl_nccl_channels(int64_t bytes, uint32_t channels, enum wl_nccl_proto proto, uint32_t n) {
  int64_t per = proto == WL_PROTO_LL      ? 512 * 8 * (int64_t)MAX(n, 1)
                : proto == WL_PROTO_LL128 ? 640 * 8
                                          : 512 * 64;
  int64_t nc = MAX((int64_t)channels, 1);
  while (nc > 1 && bytes < nc * per) nc--;
  return (uint32_t)nc;
}

/* The channels NCCL runs ring collective C on, of N ranks: by its whole
 * buffer (nccl_bytes). */
static uint32_t ring_channels(const struct wl_coll *c, uint32_t n, uint32_t channels) {
  return wl_nccl_channels(nccl_bytes(c, n), channels, (enum wl_nccl_proto)c->proto, n);
}

/* NCCL's protocol on the messages of call C, ops FROM on of rank R of Q:
 * each send and receive moves its protocol's wire bytes (LL's and
 * LL128's flags beside the data), and a send fences its data only in
 * Simple (wl_nccl_proto). */
static void nccl_wire(struct wl_program *q, uint32_t r, size_t from, const struct wl_coll *c) {
  bool simple = c->proto == WL_PROTO_AUTO || c->proto == WL_PROTO_SIMPLE;
  struct wl_rank *t = &q->ranks[r];
  for (size_t k = from; k < t->n_ops; k++) {
    struct wl_op *o = &t->ops[k];
    if (o->kind != WL_SEND && o->kind != WL_RECV) continue;
    /* Whatever the algorithm marked (a dissemination barrier's later
     * rounds: NVSHMEM's flag stores), NCCL's Simple fences every step. */
    if (o->kind == WL_SEND) o->fence = simple ? WL_FENCE_DATA : WL_FENCE_NONE;
    if (!simple) o->bytes = wl_nccl_wire_bytes((enum wl_nccl_proto)c->proto, o->bytes);
  }
}

/* The time NVSHMEM's call C of N ranks spends on its GPU beyond its
 * rounds (wl_lib_opts), 0 for a call of another library or kind, or one
 * that writes out to nothing (one rank; zero bytes but a barrier). */
static int64_t call_latency(const struct wl_coll *c, uint32_t n, enum wl_lib lib,
                            const struct wl_lib_opts *o) {
  if (lib != WL_LIB_NVSHMEM || n < 2 || (c->bytes == 0 && c->kind != WL_BARRIER)) return 0;
  return c->kind == WL_BARRIER ? o->nvshmem_barrier_ps
         : c->kind == WL_ALLREDUCE ? o->nvshmem_reduce_ps
                                   : 0;
}

/* The compute op of a call's own time PS: one WG's (NVSHMEM's call is
 * one thread's, or one block's, however many WGs the call's reductions
 * take; on the call's WGs the time would repeat once per wave of them). */
static struct wl_op call_latency_op(int64_t ps) {
  return (struct wl_op){.kind = WL_COMPUTE, .n_wgs = 1, .time_ps = ps};
}

/* Rank R's neighbours on channel K's ring of N ranks, PER_NODE to a
 * node: every node's GPUs in order, starting at GPU K (mod the node's
 * GPUs), then the next node's: channel k leaves each node from its GPU
 * k - 1 and enters the next at GPU k, so that channels take turns over
 * the node's NICs (one per GPU, models/net.h), as NCCL's rings on a DGX
 * A100 do ("Channel 0-1: 0->1->..->7 -> NIC7 ..; Channel 2-3:
 * 1->2->..->0 -> NIC0", NVIDIA/nccl issue 320; two channels a NIC,
 * issue 1245). Inside one node every channel is the same ring. */
static void chan_ring(uint32_t n, uint32_t per_node, uint32_t k, uint32_t r, uint32_t *left,
                      uint32_t *right) {
  uint32_t g = MAX(per_node, 1), node = r / g, base = node * g, size = MIN(g, n - base);
  uint32_t first = base + k % size, last = base + (k % size + size - 1) % size;
  uint32_t nodes = (n + g - 1) / g;
  if (nodes == 1) {
    *left = (r + n - 1) % n, *right = (r + 1) % n;
    return;
  }
  /* The rotated order: first, first + 1, .. wrapping inside the node. */
  *right = base + (r - base + 1) % size;
  *left = base + (r - base + size - 1) % size;
  uint32_t next = (node + 1) % nodes, prev = (node + nodes - 1) % nodes;
  uint32_t nsize = MIN(g, n - next * g), psize = MIN(g, n - prev * g);
  if (r == last) *right = next * g + k % nsize;
  if (r == first) *left = prev * g + (k % psize + psize - 1) % psize;
}

/* The ring allreduce of C on rank R of Q's N ranks as the allreduce
 * workload has always written it: two loops of n - 1 steps (the program
 * stays as long as one step whatever n), reduce-scatter with tag, then
 * allgather with tag + 1 (a reduce-scatter or allgather: that loop
 * alone, an allgather's chunk being a rank's whole part); each message in CALL's parts and stores, each
 * reduction C's WGs (none when CALL's n_wgs is 0). On CHANNELS channels
 * (chan_ring) each step sends one chunk on every channel, then waits for
 * every channel's, then reduces them: channel k's send and receive are
 * WG k's (mod the grid; messages in one part), as each NCCL channel is a
 * CUDA block of its own, so that one channel's put and flag wait do not
 * wait for another's; the reduction is every WG's. */
static void seq_ring(struct wl_program *q, uint32_t r, const struct wl_op *call,
                     const struct wl_coll *c, uint32_t region, uint32_t per_node,
                     uint32_t channels) {
  /* A group's ring runs over its places (coll_per_node: its ranks on a
   * node), each neighbour then the program's rank at that place. */
  const struct wl_group *g = wl_group_get(q, c->group);
  uint32_t n = g ? g->n : q->n_ranks, v = g ? place_of(g, r) : r;
  per_node = coll_per_node(q, c, per_node);
  int64_t total = c->bytes / c->elem;
  int64_t elems = ((total + channels - 1) / channels + n - 1) / n, chunk = elems * c->elem;
  if (c->kind == WL_ALLGATHER) /* each step forwards one rank's part of a channel */
    elems = ((c->bytes + c->elem - 1) / c->elem + channels - 1) / channels, chunk = elems * c->elem;
  int64_t per_wg = (elems * channels + c->wgs - 1) / c->wgs;
  uint32_t parts = MAX(call->parts, 1), stores = MAX(call->stores, 1);
  uint32_t grid = call->n_wgs > 0 ? c->wgs : 1;
  /* allreduce: reduce-scatter, then allgather; the others one of them. */
  uint32_t from = c->kind == WL_ALLGATHER ? 1 : 0, to = c->kind == WL_REDUCE_SCATTER ? 1 : 2;
  for (uint32_t half = from; half < to; half++) {
    push_in(q, r, (struct wl_op){.kind = WL_LOOP, .count = n - 1}, call, region);
    for (int recv = 0; recv < 2; recv++)
      for (uint32_t k = 0; k < channels; k++) {
        uint32_t left, right;
        chan_ring(n, per_node, k, v, &left, &right);
        if (g) left = g->ranks[left], right = g->ranks[right];
        struct wl_op m = {.kind = recv ? WL_RECV : WL_SEND, .peer = recv ? left : right,
                          .bytes = chunk, .tag = c->tag + half, .parts = parts,
                          .stores = recv ? 0 : stores};
        if (channels > 1 && parts == 1) m.sel = (struct wl_wgsel){k % grid, 1, 1};
        push_in(q, r, m, call, region);
      }
    if (half == 0 && call->n_wgs > 0) {
      uint32_t k = wl_kernel_add(q, &(struct wl_kernel){.flops_per_wg = per_wg * c->flops_per_elem,
                                                        .bytes_per_wg = per_wg * 3 * c->elem,
                                                        .kclass = KC_AXPY,
                                                        .ws_bytes = 3 * chunk * channels});
      push_in(q, r, (struct wl_op){.kind = WL_COMPUTE, .n_wgs = c->wgs, .kernel = k}, call,
              region);
    }
    push_in(q, r, (struct wl_op){.kind = WL_END}, call, region);
  }
}


/* The collective that op O of P (WL_COLL) calls. */
static struct wl_coll call_of(const struct wl_program *p, const struct wl_op *o) {
  const struct wl_call *k = wl_call_of(p, o);
  return (struct wl_coll){.kind = k->kind, .algo = k->algo, .bytes = o->bytes,
                          .elem = k->elem_bytes, .flops_per_elem = k->flops_per_elem,
                          .wgs = MAX(o->n_wgs, 1), .root = o->peer, .tag = o->tag,
                          .segment_bytes = k->segment_bytes, .group = k->group};
}

uint32_t wl_expand_call(struct wl_program *q, uint32_t r, const struct wl_op *o, enum wl_lib lib,
                        const struct wl_lib_opts *opts, uint32_t region, const GArray *deps,
                        GArray *after) {
  struct wl_coll c = call_of(q, o);
  lib_choose(&c, lib, q, opts);
  size_t before = q->ranks[r].n_ops;
  g_array_set_size(after, 0);
  uint32_t n = coll_size(q, &c);
  if (lib == WL_LIB_NCCL && c.algo == WL_ALG_RING && c.bytes > 0 && n > 1) {
    /* NCCL's rings on their channels, as on sequence ranks (seq_ring):
     * written out, each op after the one before (one kernel runs them
     * in order). */
    struct wl_program *one = wl_program_derive(q);
    seq_ring(one, r, o, &c, 0, opts->per_node, ring_channels(&c, n, opts->channels));
    struct wl_program *flat = wl_unroll(one);
    for (size_t k = 0; k < flat->ranks[r].n_ops; k++) {
      wl_push_op(q, r, &flat->ranks[r].ops[k]);
      if (k > 0) wl_requires(q, r, wl_last(q, r), wl_last(q, r) - 1);
    }
    uint32_t end = wl_last(q, r);
    g_array_append_val(after, end);
    wl_program_free(flat);
    wl_program_free(one);
  } else {
    /* NVSHMEM's own time first: the call's first ops require it. */
    int64_t own = call_latency(&c, n, lib, opts);
    if (own > 0) {
      struct wl_op lat = call_latency_op(own);
      wl_push_op(q, r, &lat);
      uint32_t k = wl_last(q, r);
      g_array_append_val(after, k);
    }
    wl_coll(q, r, &c, after);
  }
  if (lib == WL_LIB_NCCL) nccl_wire(q, r, before, &c);
  struct wl_rank *t = &q->ranks[r];
  if (t->n_ops == before) return NONE;
  for (size_t k = before; k < t->n_ops; k++) {
    t->ops[k].line = o->line;
    t->ops[k].lane = o->lane;
    t->ops[k].region = region;
  }
  /* The call's first ops (those wl_coll gave its empty entry) wait for
   * what the call waited for. */
  for (size_t k = before; k < t->n_ops; k++) {
    if (q->ranks[r].ops[k].n_deps) continue;
    for (guint d = 0; d < deps->len; d++) {
      const struct wl_dep *dp = &g_array_index(deps, struct wl_dep, d);
      if (dp->on_start) wl_irequires(q, r, (uint32_t)k, dp->op);
      else wl_requires(q, r, (uint32_t)k, dp->op);
    }
  }
  return (uint32_t)before;
}

/* The dependencies (of Q's rank) an op of graph rank SRC that requires op
 * J gets: J's copy, the ops a collective's expansion ended with (RES[J]),
 * or, for a collective that expanded to nothing (one rank, zero bytes),
 * what it required itself (RES[J] holds that too). On a collective's
 * start: its first op's (COPY[J]; NONE when it has none). */
static void dep_on(GArray *out, const struct wl_dep *d, const uint32_t *copy, GArray **res) {
  if (res[d->op] && d->on_start && copy[d->op] != NONE) { /* the call's start: its first op's */
    struct wl_dep x = {copy[d->op], 1};
    g_array_append_val(out, x);
  } else if (res[d->op]) {
    for (guint k = 0; k < res[d->op]->len; k++) g_array_append_val(out, g_array_index(res[d->op], struct wl_dep, k));
  } else {
    struct wl_dep x = {copy[d->op], d->on_start};
    g_array_append_val(out, x);
  }
}

/* Graph rank R of P (SRC, holding collective ops) into Q with each call
 * written out as LIB runs it (algorithm C.algo chosen by the caller):
 * its first ops require what the call required, and what required the
 * call requires the ops it ended with. A call may only require earlier
 * ops (YAML programs, the only source of them on graph ranks, refer back
 * to labels). Its reductions cost a phase whatever their WGs (wgs >= 1). */
static void expand_graph_rank(struct wl_program *q, uint32_t r, const struct wl_rank *src,
                              enum wl_lib lib, bool device, const struct wl_lib_opts *opts) {
  wl_graph(q, r);
  uint32_t *copy = g_new0(uint32_t, MAX(src->n_ops, 1));
  GArray **res = g_new0(GArray *, MAX(src->n_ops, 1));
  GArray *after = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  GArray *deps = g_array_new(FALSE, FALSE, sizeof(struct wl_dep));
  uint32_t calls = 0;
  for (size_t i = 0; i < src->n_ops; i++) {
    const struct wl_op *o = &src->ops[i];
    if (o->kind != WL_COLL) {
      struct wl_op e = *o;
      e.n_deps = e.dep_first = 0;
      wl_push_op(q, r, &e);
      copy[i] = wl_last(q, r);
      continue;
    }
    calls++;
    g_array_set_size(deps, 0);
    for (uint32_t d = 0; d < o->n_deps; d++) {
      const struct wl_dep *dp = &src->deps[o->dep_first + d];
      g_assert(dp->op < i);
      dep_on(deps, dp, copy, res);
    }
    res[i] = g_array_new(FALSE, FALSE, sizeof(struct wl_dep));
    copy[i] = wl_expand_call(q, r, o, lib, opts, device ? calls : 0, deps, after);
    if (copy[i] == NONE) { /* nothing: its dependents wait for what it waited for */
      g_array_append_vals(res[i], deps->data, deps->len);
      continue;
    }
    for (guint k = 0; k < after->len; k++) {
      struct wl_dep x = {g_array_index(after, uint32_t, k), 0};
      g_array_append_val(res[i], x);
    }
  }
  /* The other ops' dependencies, now that every op has its place. */
  for (size_t i = 0; i < src->n_ops; i++) {
    const struct wl_op *o = &src->ops[i];
    if (o->kind == WL_COLL) continue;
    g_array_set_size(deps, 0);
    for (uint32_t d = 0; d < o->n_deps; d++) dep_on(deps, &src->deps[o->dep_first + d], copy, res);
    for (guint d = 0; d < deps->len; d++) {
      const struct wl_dep *dp = &g_array_index(deps, struct wl_dep, d);
      if (dp->on_start) wl_irequires(q, r, copy[i], dp->op);
      else wl_requires(q, r, copy[i], dp->op);
    }
  }
  for (size_t i = 0; i < src->n_ops; i++)
    if (res[i]) g_array_free(res[i], TRUE);
  g_free(res);
  g_free(copy);
  g_array_free(after, TRUE);
  g_array_free(deps, TRUE);
}

struct wl_program *wl_expand_colls(const struct wl_program *p, enum wl_lib lib,
                                   const struct wl_lib_opts *opts) {
  uint32_t per_node = opts->per_node;
  struct wl_program *q = wl_program_derive(p), *tmp = wl_program_derive(p);
  GArray *after = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  bool device = lib == WL_LIB_NCCL || lib == WL_LIB_NVSHMEM;
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *src = &p->ranks[r];
    if (src->graph) { /* a YAML program's: its calls in place, dependencies kept */
      if (rank_has_colls(src))
        expand_graph_rank(q, r, src, lib, device, opts);
      else wl_copy_rank(q, r, src);
      continue;
    }
    uint32_t calls = 0;
    for (size_t i = 0; i < src->n_ops; i++) {
      const struct wl_op *o = &src->ops[i];
      if (o->kind != WL_COLL) {
        wl_push_op(q, r, o);
        continue;
      }
      calls++;
      struct wl_coll c = call_of(p, o);
      lib_choose(&c, lib, p, opts);
      uint32_t n = coll_size(p, &c);
      if (n < 2 || (c.bytes == 0 && c.kind != WL_BARRIER)) continue;
      size_t from = q->ranks[r].n_ops;
      int64_t own = call_latency(&c, n, lib, opts);
      if (own > 0) push_in(q, r, call_latency_op(own), o, device ? calls : 0);
      if (c.algo == WL_ALG_RING && (c.kind == WL_ALLREDUCE || lib == WL_LIB_NCCL)) {
        seq_ring(q, r, o, &c, device ? calls : 0, per_node,
                 lib == WL_LIB_NCCL ? ring_channels(&c, n, opts->channels) : 1);
      } else {
        struct wl_rank *t = &tmp->ranks[r];
        t->n_ops = t->n_deps = 0;
        g_array_set_size(after, 0);
        wl_coll(tmp, r, &c, after);
        /* The graph's ops in the order written: each algorithm adds a
         * rank's ops in an order its dependencies allow (a send after what
         * it forwards, a reduction after its receive). */
        for (size_t k = 0; k < t->n_ops; k++) {
          struct wl_op e = t->ops[k];
          e.n_deps = e.dep_first = 0;
          if (e.kind == WL_COMPUTE && o->n_wgs == 0) continue; /* too small to cost a phase */
          push_in(q, r, e, o, device ? calls : 0);
        }
      }
      if (lib == WL_LIB_NCCL) nccl_wire(q, r, from, &c);
    }
    g_free(tmp->ranks[r].ops);
    g_free(tmp->ranks[r].deps);
    tmp->ranks[r] = (struct wl_rank){0};
  }
  g_array_free(after, TRUE);
  wl_program_free(tmp);
  return q;
}

/* ---- rewrites of sequence ranks ---- */

/* A copy of P whose sequence ranks REWRITE writes into Q (rank R, from
 * SRC) and whose graph ranks are copied as they are. */
typedef void (*seq_rewrite)(struct wl_program *q, uint32_t r, const struct wl_rank *src,
                            const void *arg);
static struct wl_program *rewrite_seqs(const struct wl_program *p, seq_rewrite rewrite,
                                       const void *arg) {
  struct wl_program *q = wl_program_derive(p);
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    if (p->ranks[r].graph) wl_copy_rank(q, r, &p->ranks[r]);
    else rewrite(q, r, &p->ranks[r], arg);
  }
  return q;
}

/* ---- MPI's rendezvous protocol ---- */

bool wl_rendezvous_needed(const struct wl_program *p, int64_t eager_limit) {
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    if (p->ranks[r].graph) continue;
    for (size_t i = 0; i < p->ranks[r].n_ops; i++) {
      const struct wl_op *o = &p->ranks[r].ops[i];
      if ((o->kind == WL_SEND || o->kind == WL_RECV) && o->bytes > eager_limit) return true;
    }
  }
  return false;
}

/* Whether op O ends a phase (where receives are posted anew). */
static bool phase_mark(const struct wl_op *o) {
  return o->kind == WL_SYNC || o->kind == WL_LOOP || o->kind == WL_END;
}

static void rendezvous_rank(struct wl_program *q, uint32_t r, const struct wl_rank *src,
                            const void *arg) {
  int64_t eager_limit = *(const int64_t *)arg;
  for (size_t a = 0; a < src->n_ops;) {
    size_t b = a;
    while (b < src->n_ops && !phase_mark(&src->ops[b])) b++;
    /* The phase's receives are posted at its start (MPI_Irecv before the
     * MPI_Isends, as halo exchanges are written): each large one sends
     * its clear-to-send now. */
    for (size_t i = a; i < b; i++) {
      const struct wl_op *o = &src->ops[i];
      if (o->kind != WL_RECV || o->bytes <= eager_limit) continue;
      wl_push_op(q, r, &(struct wl_op){.kind = WL_SEND, .peer = o->peer, .bytes = 0,
                                       .tag = o->tag | WL_CTS_TAG, .parts = 1, .stores = 1,
                                       .lane = o->lane, .line = o->line});
    }
    for (size_t i = a; i < b; i++) {
      const struct wl_op *o = &src->ops[i];
      if (o->kind == WL_SEND && o->bytes > eager_limit) /* the data waits for its CTS */
        wl_push_op(q, r, &(struct wl_op){.kind = WL_RECV, .peer = o->peer, .bytes = 0,
                                         .tag = o->tag | WL_CTS_TAG, .parts = 1,
                                         .lane = o->lane, .line = o->line});
      wl_push_op(q, r, o);
    }
    if (b < src->n_ops) wl_push_op(q, r, &src->ops[b]);
    a = b + 1;
  }
}

struct wl_program *wl_rendezvous(const struct wl_program *p, int64_t eager_limit) {
  return rewrite_seqs(p, rendezvous_rank, &eager_limit);
}

/* ---- point-to-point through a device library ---- */

static void group_rank(struct wl_program *q, uint32_t r, const struct wl_rank *src,
                       const void *arg) {
  (void)arg;
  uint32_t next = 0; /* regions: the collectives' first, then the groups' */
  for (size_t i = 0; i < src->n_ops; i++) next = MAX(next, src->ops[i].region);
  bool open = false;
  uint8_t lane = 0;
  for (size_t i = 0; i < src->n_ops; i++) {
    struct wl_op o = src->ops[i];
    bool msg = (o.kind == WL_SEND || o.kind == WL_RECV) && !o.region;
    if (msg && (!open || o.lane != lane)) next++, lane = o.lane;
    open = msg;
    if (msg) o.region = next;
    wl_push_op(q, r, &o);
  }
}

struct wl_program *wl_group_p2p(const struct wl_program *p) {
  return rewrite_seqs(p, group_rank, NULL);
}

/* ---- a library's protocol cost per step ---- */

static void step_rank(struct wl_program *q, uint32_t r, const struct wl_rank *src,
                      const void *arg) {
  int64_t step_ps = *(const int64_t *)arg;
  for (size_t i = 0; i < src->n_ops; i++) {
    const struct wl_op *o = &src->ops[i];
    if (o->kind == WL_SEND && o->region) {
      /* On the grid of the region's reductions (one kernel, one grid). */
      uint32_t wgs = 1;
      for (size_t k = i; k-- > 0 && src->ops[k].region == o->region;)
        if (src->ops[k].kind == WL_COMPUTE) wgs = src->ops[k].n_wgs;
      for (size_t k = i + 1; wgs == 1 && k < src->n_ops && src->ops[k].region == o->region; k++)
        if (src->ops[k].kind == WL_COMPUTE) wgs = src->ops[k].n_wgs;
      wl_push_op(q, r, &(struct wl_op){.kind = WL_COMPUTE, .n_wgs = wgs, .time_ps = step_ps,
                                       .lane = o->lane, .region = o->region});
    }
    wl_push_op(q, r, o);
  }
}

struct wl_program *wl_step_cost(const struct wl_program *p, int64_t step_ps) {
  g_assert(step_ps > 0);
  return rewrite_seqs(p, step_rank, &step_ps);
}
