/* The pending-event set: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan
 * 1990), valid because the engine never schedules before the last event
 * popped. Chosen by the PHOLD benchmark over 4-ary and binary heaps, a
 * pairing heap, calendar and ladder queues (tools/bench/README.md).
 * - Bucket i > 0 holds the events whose time first differs from `last` (the
 *   time last popped) at bit i-1; bucket 0 holds the events at `last`,
 *   in seq order, so the order is exactly (time, seq).
 * - A push is one append. A pop takes from bucket 0, or first empties the
 *   least non-empty bucket into lower ones around its least time; an event
 *   moves at most 64 times, in practice a few.
 * - Buckets > 0 are lists of 32-event chunks from one pool, freed as they are
 *   emptied, so memory follows the pending count; every access is a
 *   sequential copy, which keeps large queues fast where heaps miss cache. */
#include "queue.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#define NB 65
#define CHUNK 32
#define NIL UINT32_MAX

struct chunk {
  struct sim_event ev[CHUNK];
  uint32_t next;
};

struct bucket {
  uint32_t head, tail; /* chunk indices */
  uint32_t fill;       /* events in the tail chunk */
  uint32_t min_comp;   /* destination of an event at the least time */
  size_t n;
  uint64_t min;        /* least time in the bucket, kept at each append */
};

struct q_queue {
  struct bucket b[NB];        /* b[0] unused: bucket 0 is `now` */
  struct sim_event *now;      /* bucket 0: events at `last`, by seq */
  size_t now_head, now_n, now_cap;
  struct chunk **chunks;      /* pool, in blocks of one chunk each */
  uint32_t n_chunks, chunks_cap, free_chunk;
  uint64_t last;
  size_t n;
  uint64_t nonempty;          /* bit i-1 set: bucket i holds events */
};

static uint32_t chunk_new(struct q_queue *q) {
  if (q->free_chunk != NIL) {
    uint32_t c = q->free_chunk;
    q->free_chunk = q->chunks[c]->next;
    q->chunks[c]->next = NIL;
    return c;
  }
  if (q->n_chunks == q->chunks_cap) {
    q->chunks_cap = q->chunks_cap ? 2 * q->chunks_cap : 64;
    q->chunks = g_renew(struct chunk *, q->chunks, q->chunks_cap);
  }
  q->chunks[q->n_chunks] = g_new(struct chunk, 1);
  q->chunks[q->n_chunks]->next = NIL;
  return q->n_chunks++;
}

static void chunk_release(struct q_queue *q, uint32_t c) {
  q->chunks[c]->next = q->free_chunk;
  q->free_chunk = c;
}

static inline int bucket_of(uint64_t t, uint64_t last) {
  return t == last ? 0 : 64 - __builtin_clzll(t ^ last);
}

static void bucket_append(struct q_queue *q, struct bucket *b, const struct sim_event *ev) {
  uint64_t t = (uint64_t)ev->time;
  if (b->n == 0) {
    uint32_t c = chunk_new(q);
    b->head = b->tail = c;
    b->fill = 0;
    b->min = t;
    b->min_comp = ev->comp;
  } else {
    if (t < b->min) {
      b->min = t;
      b->min_comp = ev->comp;
    }
    if (b->fill == CHUNK) {
      uint32_t c = chunk_new(q);
      q->chunks[b->tail]->next = c;
      b->tail = c;
      b->fill = 0;
    }
  }
  q->chunks[b->tail]->ev[b->fill++] = *ev;
  b->n++;
}

static inline void add_to_bucket(struct q_queue *q, int i, const struct sim_event *ev) {
  bucket_append(q, &q->b[i], ev);
  q->nonempty |= (uint64_t)1 << (i - 1);
}

/* Appends to bucket 0, keeping seq order (only an event pushed back by
 * sim_run's stop at a time limit arrives out of order). */
static void now_append(struct q_queue *q, const struct sim_event *ev) {
  if (q->now_head > 0 && q->now_head == q->now_n) q->now_head = q->now_n = 0;
  if (q->now_n == q->now_cap) {
    q->now_cap = q->now_cap ? 2 * q->now_cap : 64;
    q->now = g_renew(struct sim_event, q->now, q->now_cap);
  }
  size_t k = q->now_n++;
  while (k > q->now_head && q->now[k - 1].seq > ev->seq) {
    q->now[k] = q->now[k - 1];
    k--;
  }
  q->now[k] = *ev;
}

struct q_queue *q_new(size_t capacity_hint) {
  struct q_queue *q = g_new0(struct q_queue, 1);
  q->free_chunk = NIL;
  return q;
}

void q_free(struct q_queue *q) {
  if (!q) return;
  for (uint32_t c = 0; c < q->n_chunks; c++) g_free(q->chunks[c]);
  g_free(q->chunks);
  g_free(q->now);
  g_free(q);
}

void q_push(struct q_queue *q, const struct sim_event *ev) {
  g_assert(ev->time >= 0 && (uint64_t)ev->time >= q->last);
  q->n++;
  int i = bucket_of((uint64_t)ev->time, q->last);
  if (i == 0) now_append(q, ev);
  else add_to_bucket(q, i, ev);
}

static int cmp_seq(const void *a, const void *b) {
  const struct sim_event *x = a, *y = b;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Empties the least non-empty bucket around its least time. */
static void redistribute(struct q_queue *q) {
  g_assert(q->nonempty);
  int i = __builtin_ctzll(q->nonempty) + 1;
  struct bucket src = q->b[i];
  q->b[i] = (struct bucket){0};
  q->nonempty &= q->nonempty - 1;
  q->now_head = q->now_n = 0;
  if (src.n == 1) {
    /* The common case in small queues: the one event becomes `now`. */
    const struct sim_event *ev = &q->chunks[src.head]->ev[0];
    q->last = (uint64_t)ev->time;
    if (q->now_cap == 0) {
      q->now_cap = 64;
      q->now = g_new(struct sim_event, q->now_cap);
    }
    q->now[q->now_n++] = *ev;
    chunk_release(q, src.head);
    return;
  }
  /* The least time was kept at each append: one pass over the events. */
  uint64_t m = src.min;
  q->last = m;
  size_t left = src.n;
  for (uint32_t c = src.head; left > 0;) {
    size_t k_end = left < CHUNK ? left : CHUNK;
    struct chunk *ch = q->chunks[c];
    uint32_t next = ch->next;
    /* Release first: the appends below may reuse it, after we read it. */
    for (size_t k = 0; k < k_end; k++) {
      const struct sim_event *ev = &ch->ev[k];
      int j = bucket_of((uint64_t)ev->time, m);
      if (j == 0) {
        if (q->now_n == q->now_cap) {
          q->now_cap = q->now_cap ? 2 * q->now_cap : 64;
          q->now = g_renew(struct sim_event, q->now, q->now_cap);
        }
        q->now[q->now_n++] = *ev;
      } else {
        add_to_bucket(q, j, ev);
      }
    }
    chunk_release(q, c);
    left -= k_end;
    c = next;
  }
  /* Within a chunk list events are in push order, but the bucket mixes
   * events pushed against different `last`s: order the new now by seq. */
  if (q->now_n > 1) qsort(q->now, q->now_n, sizeof *q->now, cmp_seq);
}

int q_pop(struct q_queue *q, struct sim_event *out) {
  if (q->n == 0) return 0;
  if (q->now_head == q->now_n) redistribute(q);
  *out = q->now[q->now_head++];
  q->n--;
  return 1;
}

uint32_t q_peek_comp(const struct q_queue *q) {
  if (q->now_head < q->now_n) return q->now[q->now_head].comp;
  if (!q->nonempty) return UINT32_MAX;
  return q->b[__builtin_ctzll(q->nonempty) + 1].min_comp;
}

size_t q_size(const struct q_queue *q) { return q->n; }

size_t q_bytes(const struct q_queue *q) {
  return (size_t)q->n_chunks * sizeof(struct chunk) + q->now_cap * sizeof(struct sim_event) +
         q->chunks_cap * sizeof(struct chunk *);
}

const char *q_name(void) { return "radix heap"; }
