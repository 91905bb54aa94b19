/* Bench-only alternative queue (the shipped one until the radix heap): an
 * implicit 4-ary min-heap of 32-byte events.
 * Measured by the PHOLD benchmark (tools/bench/README.md) with a binary heap,
 * a pairing heap, a calendar queue, a two-tier ladder queue and a heap of
 * 16-byte keys over a slab: shallower than a binary heap, four siblings
 * share two cache lines, and it needs no per-event allocation.
 * Pops use bottom-up deletion (Wegener): the hole walks down along the
 * smallest children to a leaf without comparing against the displaced last
 * element, which then sifts up the few levels it needs, usually none. */
#include "queue.h"

#include <glib.h>
#include <string.h>

struct q_queue {
  struct sim_event *a;
  size_t n, cap;
};

/* (time, seq) as one unsigned 128-bit key: times are never negative. */
static inline unsigned __int128 key(const struct sim_event *e) {
  return ((unsigned __int128)(uint64_t)e->time << 64) | e->seq;
}

struct q_queue *q_new(size_t capacity_hint) {
  struct q_queue *q = g_new0(struct q_queue, 1);
  q->cap = capacity_hint > 16 ? capacity_hint : 16;
  q->a = g_new(struct sim_event, q->cap);
  return q;
}

void q_free(struct q_queue *q) {
  if (!q) return;
  g_free(q->a);
  g_free(q);
}

static void sift_up(struct sim_event *a, size_t i, const struct sim_event *ev) {
  unsigned __int128 k = key(ev);
  while (i > 0) {
    size_t parent = (i - 1) / 4;
    if (k >= key(&a[parent])) break;
    a[i] = a[parent];
    i = parent;
  }
  a[i] = *ev;
}

void q_push(struct q_queue *q, const struct sim_event *ev) {
  g_assert(ev->time >= 0);
  if (q->n == q->cap) {
    q->cap *= 2;
    q->a = g_renew(struct sim_event, q->a, q->cap);
  }
  sift_up(q->a, q->n++, ev);
}

int q_pop(struct q_queue *q, struct sim_event *out) {
  if (q->n == 0) return 0;
  struct sim_event *a = q->a;
  *out = a[0];
  size_t n = --q->n;
  if (n == 0) return 1;
  /* Walk the hole from the root down to a leaf along the least children. */
  size_t i = 0;
  for (;;) {
    size_t c = 4 * i + 1;
    if (c >= n) break;
    size_t best = c;
    unsigned __int128 bk = key(&a[c]);
    size_t end = c + 4 < n ? c + 4 : n;
    for (size_t k = c + 1; k < end; k++) {
      unsigned __int128 kk = key(&a[k]);
      if (kk < bk) {
        bk = kk;
        best = k;
      }
    }
    a[i] = a[best];
    i = best;
  }
  /* Fill it with the last element, sifted up to its place. */
  struct sim_event last = a[n];
  sift_up(a, i, &last);
  return 1;
}

uint32_t q_peek_comp(const struct q_queue *q, uint64_t *seq) {
  *seq = q->n ? q->a[0].seq : 0;
  return q->n ? q->a[0].comp : UINT32_MAX;
}

size_t q_size(const struct q_queue *q) { return q->n; }
size_t q_bytes(const struct q_queue *q) { return q->cap * sizeof(struct sim_event); }
const char *q_name(void) { return "4-ary heap"; }

/* Fetching ahead is not offered: no events are named past the next. */
const struct sim_event *q_peek_now(const struct q_queue *q, size_t k) {
  (void)q;
  (void)k;
  return NULL;
}
