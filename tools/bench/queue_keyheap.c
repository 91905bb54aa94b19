/* Bench-only alternative queue: an implicit 4-ary min-heap of 16-byte keys over a
 * slab of event bodies. Chosen by the PHOLD benchmark against a binary heap,
 * a pairing heap, a calendar queue and a 4-ary heap of whole events (bench only)
 * (tools/bench/README.md).
 * - A key is (time, seq << SLOT_BITS | slot): comparing keys as one 128-bit
 *   number orders by time, then insertion sequence, with no tie lookups.
 * - Keys are half the size of events, so the heap of 64k pending events
 *   (1 MiB) stays in a core's L2; bodies are touched once on push and pop, and
 *   the free list is LIFO, so a push usually reuses the slot just popped.
 * - Pops use bottom-up deletion (Wegener): the hole walks down along the
 *   least children to a leaf, then the displaced last key sifts up, usually
 *   not at all. */
#include "queue.h"

#include <glib.h>
#include <string.h>

#define SLOT_BITS 25 /* up to 33.5 million pending events */
#define SEQ_BITS (64 - SLOT_BITS) /* up to 5.5e11 events per run */

struct q_key {
  uint64_t time;
  uint64_t seq_slot;
};

struct q_body {
  uint32_t comp;
  uint16_t port;
  uint16_t kind;
  uint64_t data;
};

struct q_queue {
  struct q_key *h;       /* heap, n used of cap */
  size_t n, cap;
  struct q_body *body;   /* slots, cap of them */
  uint32_t *free;        /* free slot stack */
  size_t n_free;
};

static inline unsigned __int128 k128(const struct q_key *k) {
  return ((unsigned __int128)k->time << 64) | k->seq_slot;
}

static void grow(struct q_queue *q, size_t cap) {
  q->h = g_renew(struct q_key, q->h, cap);
  q->body = g_renew(struct q_body, q->body, cap);
  q->free = g_renew(uint32_t, q->free, cap);
  /* New slots go on the stack so the lowest is taken first. */
  for (size_t s = cap; s > q->cap; s--) q->free[q->n_free++] = (uint32_t)(s - 1);
  q->cap = cap;
}

struct q_queue *q_new(size_t capacity_hint) {
  struct q_queue *q = g_new0(struct q_queue, 1);
  grow(q, capacity_hint > 16 ? capacity_hint : 16);
  return q;
}

void q_free(struct q_queue *q) {
  if (!q) return;
  g_free(q->h);
  g_free(q->body);
  g_free(q->free);
  g_free(q);
}

static inline void sift_up(struct q_key *h, size_t i, struct q_key k) {
  unsigned __int128 kk = k128(&k);
  while (i > 0) {
    size_t parent = (i - 1) / 4;
    if (kk >= k128(&h[parent])) break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = k;
}

void q_push(struct q_queue *q, const struct sim_event *ev) {
  g_assert(ev->time >= 0);
  if (G_UNLIKELY(ev->seq >> SEQ_BITS))
    g_error("event queue: more than 2^%d events in one run", SEQ_BITS);
  if (q->n == q->cap) {
    if (q->cap >= ((size_t)1 << SLOT_BITS))
      g_error("event queue: more than 2^%d pending events", SLOT_BITS);
    grow(q, q->cap * 2);
  }
  uint32_t slot = q->free[--q->n_free];
  q->body[slot] = (struct q_body){.comp = ev->comp, .port = ev->port, .kind = ev->kind,
                                  .data = ev->data};
  struct q_key k = {.time = (uint64_t)ev->time, .seq_slot = ev->seq << SLOT_BITS | slot};
  sift_up(q->h, q->n++, k);
}

int q_pop(struct q_queue *q, struct sim_event *out) {
  if (q->n == 0) return 0;
  struct q_key *h = q->h;
  struct q_key top = h[0];
  uint32_t slot = (uint32_t)(top.seq_slot & (((uint64_t)1 << SLOT_BITS) - 1));
  const struct q_body *b = &q->body[slot];
  *out = (struct sim_event){.time = (sim_time)top.time, .seq = top.seq_slot >> SLOT_BITS,
                            .comp = b->comp, .port = b->port, .kind = b->kind, .data = b->data};
  q->free[q->n_free++] = slot;
  size_t n = --q->n;
  if (n == 0) return 1;
  size_t i = 0;
  for (;;) {
    size_t c = 4 * i + 1;
    if (c >= n) break;
    size_t best = c, end = c + 4 < n ? c + 4 : n;
    unsigned __int128 bk = k128(&h[c]);
    for (size_t j = c + 1; j < end; j++) {
      unsigned __int128 kj = k128(&h[j]);
      if (kj < bk) {
        bk = kj;
        best = j;
      }
    }
    h[i] = h[best];
    i = best;
  }
  sift_up(h, i, h[n]);
  return 1;
}

uint32_t q_peek_comp(const struct q_queue *q, uint64_t *seq) {
  *seq = 0;
  if (q->n == 0) return UINT32_MAX;
  return q->body[q->h[0].seq_slot & (((uint64_t)1 << SLOT_BITS) - 1)].comp;
}

size_t q_size(const struct q_queue *q) { return q->n; }

size_t q_bytes(const struct q_queue *q) {
  return q->cap * (sizeof(struct q_key) + sizeof(struct q_body) + sizeof(uint32_t));
}

const char *q_name(void) { return "keyed 4-ary heap"; }

/* Fetching ahead is not offered: no events are named past the next. */
const struct sim_event *q_peek_now(const struct q_queue *q, size_t k) {
  (void)q;
  (void)k;
  return NULL;
}
