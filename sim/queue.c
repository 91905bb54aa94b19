/* The pending-event set: a radix heap (Ahuja, Mehlhorn, Orlin and Tarjan
 * 1990) in base 16, valid because the engine never schedules before the
 * last event popped. Chosen by the PHOLD benchmark over 4-ary and binary
 * heaps, a pairing heap, calendar and ladder queues (tools/bench/README.md).
 * - Times are read as 16 hexadecimal digits. Bucket (L, d) holds the events
 *   whose time first differs from `last` (the time last popped) in digit L,
 *   where it is d (so d is greater than last's digit L); bucket index
 *   16 L + d orders buckets by time. The `now` array holds the events at
 *   `last`, in seq order, so the order is exactly (time, seq).
 * - A push is one append. A pop takes from `now`, or first empties the
 *   least non-empty bucket into lower ones around its least time (kept at
 *   each append); an event moves at most 16 times, in practice a few: half
 *   as many as in base 2, where a PHOLD event at 64k pending moved 8 times.
 * - Buckets are lists of 32-event chunks (1 KiB, cache-line aligned) from
 *   one pool, freed as they are emptied, so memory follows the pending
 *   count; every access is a sequential copy, which keeps large queues fast
 *   where heaps miss cache. A redistribution prefetches the next chunk.
 * - Each bucket keeps its least time and that event's component, so that
 *   q_peek_comp names the next event's destination (and seq) for the run
 *   loop to prefetch. */
#include "queue.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#define DIGIT_BITS 4
#define RADIX (1 << DIGIT_BITS)
#define NB (64 / DIGIT_BITS * RADIX) /* 256; those with d = 0 stay empty */
#define NW (NB / 64)
#define CHUNK 32
#define NIL UINT32_MAX

/* 1 KiB, cache-line aligned: no event straddles two lines. */
struct chunk {
  struct sim_event ev[CHUNK];
};

struct bucket {
  uint32_t head, tail; /* chunk indices */
  uint32_t fill;       /* events in the tail chunk */
  uint32_t min_comp;   /* destination of an event at the least time */
  uint64_t min_seq;    /* and its seq */
  size_t n;
  uint64_t min;        /* least time in the bucket, kept at each append */
};

struct q_queue {
  struct bucket b[NB];
  struct sim_event *now;      /* events at `last`, by seq */
  size_t now_head, now_n, now_cap;
  struct sim_event *tmp;      /* merge scratch (now_cap) */
  size_t tmp_cap;
  struct chunk **chunks;      /* pool, in blocks of one chunk each */
  uint32_t *next;             /* next[c]: the chunk after c in its list */
  uint32_t n_chunks, chunks_cap, free_chunk;
  uint64_t last;
  size_t n;
  uint64_t nonempty[NW];      /* bit i % 64 of word i / 64: bucket i holds events */
};

static uint32_t chunk_new(struct q_queue *q) {
  if (q->free_chunk != NIL) {
    uint32_t c = q->free_chunk;
    q->free_chunk = q->next[c];
    q->next[c] = NIL;
    return c;
  }
  if (q->n_chunks == q->chunks_cap) {
    q->chunks_cap = q->chunks_cap ? 2 * q->chunks_cap : 64;
    q->chunks = g_renew(struct chunk *, q->chunks, q->chunks_cap);
    q->next = g_renew(uint32_t, q->next, q->chunks_cap);
  }
  q->chunks[q->n_chunks] = aligned_alloc(64, sizeof(struct chunk));
  if (!q->chunks[q->n_chunks]) g_error("q_push: out of memory");
  q->next[q->n_chunks] = NIL;
  return q->n_chunks++;
}

static void chunk_release(struct q_queue *q, uint32_t c) {
  q->next[c] = q->free_chunk;
  q->free_chunk = c;
}

/* The bucket of time T against LAST (T >= LAST), or -1 for `now`. */
static inline int bucket_of(uint64_t t, uint64_t last) {
  if (t == last) return -1;
  int level = (63 - __builtin_clzll(t ^ last)) / DIGIT_BITS;
  return level * RADIX + (int)((t >> (level * DIGIT_BITS)) & (RADIX - 1));
}

/* The least non-empty bucket, or -1. */
static inline int least_bucket(const struct q_queue *q) {
  for (int w = 0; w < NW; w++)
    if (q->nonempty[w]) return w * 64 + __builtin_ctzll(q->nonempty[w]);
  return -1;
}

static void bucket_append(struct q_queue *q, struct bucket *b, const struct sim_event *ev) {
  uint64_t t = (uint64_t)ev->time;
  if (b->n == 0) {
    uint32_t c = chunk_new(q);
    b->head = b->tail = c;
    b->fill = 0;
    b->min = t;
    b->min_comp = ev->comp;
    b->min_seq = ev->seq;
  } else {
    if (t < b->min) {
      b->min = t;
      b->min_comp = ev->comp;
      b->min_seq = ev->seq;
    }
    if (b->fill == CHUNK) {
      uint32_t c = chunk_new(q);
      q->next[b->tail] = c;
      b->tail = c;
      b->fill = 0;
    }
  }
  q->chunks[b->tail]->ev[b->fill++] = *ev;
  b->n++;
}

static inline void add_to_bucket(struct q_queue *q, int i, const struct sim_event *ev) {
  bucket_append(q, &q->b[i], ev);
  q->nonempty[i / 64] |= (uint64_t)1 << (i % 64);
}

/* Appends to `now`, keeping seq order (only an event pushed back by
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
  for (uint32_t c = 0; c < q->n_chunks; c++) free(q->chunks[c]);
  g_free(q->chunks);
  g_free(q->next);
  g_free(q->now);
  g_free(q->tmp);
  g_free(q);
}

void q_push(struct q_queue *q, const struct sim_event *ev) {
  g_assert(ev->time >= 0 && (uint64_t)ev->time >= q->last);
  q->n++;
  int i = bucket_of((uint64_t)ev->time, q->last);
  if (i < 0) now_append(q, ev);
  else add_to_bucket(q, i, ev);
}

/* Orders `now` by seq. It is a few runs already in seq order (each a
 * stretch of one bucket's pushes): runs are merged pairwise, O(n log
 * runs), and a sorted `now` costs one pass (a synchronous program puts
 * thousands of events at one time). */
static void sort_now(struct q_queue *q) {
  struct sim_event *a = q->now;
  size_t n = q->now_n, runs = 1;
  for (size_t k = 1; k < n; k++) runs += a[k].seq < a[k - 1].seq;
  if (runs == 1) return;
  if (q->tmp_cap < n) {
    q->tmp_cap = q->now_cap;
    g_free(q->tmp);
    q->tmp = g_new(struct sim_event, q->tmp_cap);
  }
  size_t *start = g_new(size_t, runs + 1), r = 0;
  start[r++] = 0;
  for (size_t k = 1; k < n; k++)
    if (a[k].seq < a[k - 1].seq) start[r++] = k;
  start[r] = n;
  struct sim_event *src = a, *dst = q->tmp;
  while (runs > 1) {
    size_t out = 0;
    for (size_t i = 0; i < runs; i += 2) {
      size_t lo = start[i], mid = start[MIN(i + 1, runs)], hi = start[MIN(i + 2, runs)];
      size_t x = lo, y = mid, k = lo;
      while (x < mid && y < hi) dst[k++] = src[y].seq < src[x].seq ? src[y++] : src[x++];
      memcpy(dst + k, src + x, (mid - x) * sizeof *dst);
      k += mid - x;
      memcpy(dst + k, src + y, (hi - y) * sizeof *dst);
      start[out++] = lo;
    }
    start[out] = n;
    runs = out;
    struct sim_event *t = src;
    src = dst;
    dst = t;
  }
  if (src != a) memcpy(a, src, n * sizeof *a);
  g_free(start);
}

/* Fetches chunk C's lines ahead of a redistribution's pass over them. */
static inline void prefetch_chunk(const struct q_queue *q, uint32_t c) {
  const char *p = (const char *)q->chunks[c];
  for (size_t l = 0; l < sizeof(struct chunk); l += 64) __builtin_prefetch(p + l);
}

/* Empties the least non-empty bucket around its least time. */
static void redistribute(struct q_queue *q) {
  int i = least_bucket(q);
  g_assert(i >= 0);
  struct bucket src = q->b[i];
  q->b[i] = (struct bucket){0};
  q->nonempty[i / 64] &= ~((uint64_t)1 << (i % 64));
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
  prefetch_chunk(q, src.head);
  if (src.n > CHUNK) prefetch_chunk(q, q->next[src.head]);
  uint64_t m = src.min;
  q->last = m;
  size_t left = src.n;
  for (uint32_t c = src.head; left > 0;) {
    size_t k_end = left < CHUNK ? left : CHUNK;
    struct chunk *ch = q->chunks[c];
    uint32_t next = q->next[c];
    /* The bucket was filled long ago: fetch the chunk after the next one
     * while this one is distributed (the first two: below). */
    if (left > 2 * CHUNK) prefetch_chunk(q, q->next[next]);
    for (size_t k = 0; k < k_end; k++) {
      const struct sim_event *ev = &ch->ev[k];
      int j = bucket_of((uint64_t)ev->time, m);
      if (j < 0) {
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
  if (q->now_n > 1) sort_now(q);
}

int q_pop(struct q_queue *q, struct sim_event *out) {
  if (q->n == 0) return 0;
  if (q->now_head == q->now_n) redistribute(q);
  *out = q->now[q->now_head++];
  q->n--;
  if (q->now_n - q->now_head == 2 && q->n > 2) {
    /* `now` is nearly done: fetch the head of the bucket likely emptied
     * next (more events may yet go to a lesser one: then this is wasted). */
    int i = least_bucket(q);
    if (i >= 0) prefetch_chunk(q, q->b[i].head);
  }
  return 1;
}

uint32_t q_peek_comp(const struct q_queue *q, uint64_t *seq) {
  if (q->now_head < q->now_n) {
    *seq = q->now[q->now_head].seq;
    return q->now[q->now_head].comp;
  }
  int i = least_bucket(q);
  *seq = i < 0 ? 0 : q->b[i].min_seq;
  return i < 0 ? UINT32_MAX : q->b[i].min_comp;
}

const struct sim_event *q_peek_now(const struct q_queue *q, size_t k) {
  size_t i = q->now_head + k;
  return i < q->now_n ? &q->now[i] : NULL;
}

size_t q_size(const struct q_queue *q) { return q->n; }

size_t q_bytes(const struct q_queue *q) {
  return sizeof *q + (size_t)q->n_chunks * sizeof(struct chunk) +
         q->now_cap * sizeof(struct sim_event) + q->chunks_cap * (sizeof(struct chunk *) + sizeof(uint32_t));
}

const char *q_name(void) { return "radix heap"; }
