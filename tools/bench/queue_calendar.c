/* Benchmark alternative to sim/queue.c: a calendar queue (Brown 1988). Buckets
 * of width 2^shift ps hold sorted lists, so the (time, seq) order is exact,
 * ties included. The bucket count doubles or halves with the size, and the
 * width is re-estimated from a sample of the earliest events on every resize
 * and periodically. Nodes come from a pooled free list. Bench-only. */
#include "queue.h"

#include <glib.h>
#include <math.h>

#define NIL 0u /* pool slot 0 is never used */
#define MIN_BUCKETS 16u
#define SAMPLE 32

struct cnode {
  struct sim_event ev;
  uint32_t next; /* next in its bucket, or next free slot */
};

struct q_queue {
  struct cnode *pool;
  uint32_t cap, used, free;
  uint32_t *head;  /* nb bucket lists, sorted by (time, seq) */
  uint32_t *tail;  /* last node of each list: appends (ties) cost O(1) */
  uint32_t nb, mask;
  unsigned shift;  /* bucket width is 2^shift ps */
  uint64_t curbn;  /* current bucket number (key >> shift); no event is earlier */
  size_t n;
  uint64_t pops;   /* pops since the last width check */
};

/* Time as an unsigned key with the same order. */
static inline uint64_t key_of(const struct sim_event *e) {
  return (uint64_t)e->time ^ (UINT64_C(1) << 63);
}

struct q_queue *q_new(size_t capacity_hint) {
  struct q_queue *q = g_new0(struct q_queue, 1);
  g_assert(capacity_hint < UINT32_MAX / 2);
  q->cap = (uint32_t)(capacity_hint > 16 ? capacity_hint : 16) + 1;
  q->pool = g_new(struct cnode, q->cap);
  q->used = 1;
  q->nb = MIN_BUCKETS;
  q->mask = q->nb - 1;
  q->head = g_new0(uint32_t, q->nb);
  q->tail = g_new0(uint32_t, q->nb);
  q->shift = 10;
  return q;
}

void q_free(struct q_queue *q) {
  if (!q) return;
  g_free(q->head);
  g_free(q->tail);
  g_free(q->pool);
  g_free(q);
}

static uint32_t node_get(struct q_queue *q) {
  uint32_t i = q->free;
  if (i != NIL) {
    q->free = q->pool[i].next;
    return i;
  }
  if (q->used == q->cap) {
    g_assert(q->cap < UINT32_MAX / 2);
    q->cap *= 2;
    q->pool = g_renew(struct cnode, q->pool, q->cap);
  }
  return q->used++;
}

/* Inserts node I into its bucket, after every event that comes before it. */
static void link_node(struct q_queue *q, uint32_t i) {
  struct cnode *p = q->pool;
  uint64_t bn = key_of(&p[i].ev) >> q->shift;
  uint32_t b = (uint32_t)(bn & q->mask), t = q->tail[b];
  if (t == NIL || q_before(&p[t].ev, &p[i].ev)) {
    p[i].next = NIL;
    *(t == NIL ? &q->head[b] : &p[t].next) = i;
    q->tail[b] = i;
  } else {
    uint32_t *pp = &q->head[b];
    while (q_before(&p[*pp].ev, &p[i].ev)) pp = &p[*pp].next;
    p[i].next = *pp;
    *pp = i;
  }
  if (q->n == 0 || bn < q->curbn) q->curbn = bn;
  q->n++;
}

/* Unlinks and returns the least node (the queue is not empty). */
static uint32_t unlink_min(struct q_queue *q) {
  struct cnode *p = q->pool;
  uint32_t b = (uint32_t)(q->curbn & q->mask);
  for (uint32_t k = 0; k < q->nb; k++) {
    uint32_t h = q->head[b];
    if (h != NIL && (key_of(&p[h].ev) >> q->shift) == q->curbn) {
      if ((q->head[b] = p[h].next) == NIL) q->tail[b] = NIL;
      q->n--;
      return h;
    }
    b = (b + 1) & q->mask;
    q->curbn++;
  }
  /* A whole year without an event: direct search of the bucket heads. */
  uint32_t best = NIL, bb = 0;
  for (uint32_t j = 0; j < q->nb; j++) {
    uint32_t h = q->head[j];
    if (h != NIL && (best == NIL || q_before(&p[h].ev, &p[best].ev))) best = h, bb = j;
  }
  q->curbn = key_of(&p[best].ev) >> q->shift;
  if ((q->head[bb] = p[best].next) == NIL) q->tail[bb] = NIL;
  q->n--;
  return best;
}

/* log2 of the width from the earliest events: 3x their mean separation, after
 * dropping separations over twice the first mean (Brown's estimate). */
static double estimate_log2_width(struct q_queue *q) {
  uint32_t s[SAMPLE];
  int k = 0;
  while (k < SAMPLE && q->n > 0) s[k++] = unlink_min(q);
  for (int j = 0; j < k; j++) link_node(q, s[j]);
  if (k < 3) return (double)q->shift;
  const struct cnode *p = q->pool;
  double span = (double)(p[s[k - 1]].ev.time - p[s[0]].ev.time);
  double avg = span / (k - 1), sum = 0;
  int m = 0;
  for (int j = 1; j < k; j++) {
    double d = (double)(p[s[j]].ev.time - p[s[j - 1]].ev.time);
    if (d <= 2 * avg) sum += d, m++;
  }
  double width = m ? 3 * sum / m : 3 * avg;
  return width < 1 ? 0 : log2(width);
}

/* Rebuilds with NB buckets of width 2^SHIFT. */
static void rebuild(struct q_queue *q, uint32_t nb, unsigned shift) {
  struct cnode *p = q->pool;
  uint32_t all = NIL;
  for (uint32_t b = 0; b < q->nb; b++) {
    uint32_t h = q->head[b];
    while (h != NIL) {
      uint32_t next = p[h].next;
      p[h].next = all;
      all = h;
      h = next;
    }
  }
  g_free(q->head);
  g_free(q->tail);
  q->nb = nb;
  q->mask = nb - 1;
  q->head = g_new0(uint32_t, nb);
  q->tail = g_new0(uint32_t, nb);
  q->shift = shift;
  q->n = 0;
  while (all != NIL) {
    uint32_t next = p[all].next;
    link_node(q, all);
    all = next;
  }
  q->pops = 0;
}

static void resize(struct q_queue *q, uint32_t nb) {
  rebuild(q, nb, (unsigned)lround(estimate_log2_width(q)));
}

void q_push(struct q_queue *q, const struct sim_event *ev) {
  uint32_t i = node_get(q);
  q->pool[i].ev = *ev;
  link_node(q, i);
  if (q->n > 2 * (size_t)q->nb && q->nb < (UINT32_C(1) << 30)) resize(q, 2 * q->nb);
}

int q_pop(struct q_queue *q, struct sim_event *out) {
  if (q->n == 0) return 0;
  uint32_t i = unlink_min(q);
  *out = q->pool[i].ev;
  q->pool[i].next = q->free;
  q->free = i;
  if (q->n < q->nb / 2 && q->nb > MIN_BUCKETS) {
    resize(q, q->nb / 2);
  } else if (++q->pops >= 4 * (uint64_t)q->nb) {
    q->pops = 0;
    double w = estimate_log2_width(q); /* rebuild only when off by over 2x */
    if (fabs(w - q->shift) > 1.0) rebuild(q, q->nb, (unsigned)lround(w));
  }
  return 1;
}

/* The least event is found only by the scan in q_pop: no hint. */
uint32_t q_peek_comp(const struct q_queue *q, uint64_t *seq) {
  *seq = 0;
  return UINT32_MAX;
}

size_t q_size(const struct q_queue *q) { return q->n; }
size_t q_bytes(const struct q_queue *q) {
  return (size_t)q->cap * sizeof(struct cnode) + 2 * (size_t)q->nb * sizeof(uint32_t);
}
const char *q_name(void) { return "calendar queue"; }

/* Fetching ahead is not offered: no events are named past the next. */
const struct sim_event *q_peek_now(const struct q_queue *q, size_t k) {
  (void)q;
  (void)k;
  return NULL;
}
