/* Benchmark alternative to sim/queue.c: an implicit binary min-heap of
 * 32-byte events (same sift-with-a-hole code as the 4-ary heap, two children
 * per node). Bench-only; never linked into the simulator. */
#include "queue.h"

#include <glib.h>

struct q_queue {
  struct sim_event *a;
  size_t n, cap;
};

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

void q_push(struct q_queue *q, const struct sim_event *ev) {
  if (q->n == q->cap) {
    q->cap *= 2;
    q->a = g_renew(struct sim_event, q->a, q->cap);
  }
  size_t i = q->n++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!q_before(ev, &q->a[parent])) break;
    q->a[i] = q->a[parent];
    i = parent;
  }
  q->a[i] = *ev;
}

int q_pop(struct q_queue *q, struct sim_event *out) {
  if (q->n == 0) return 0;
  *out = q->a[0];
  struct sim_event last = q->a[--q->n];
  size_t n = q->n, i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n) break;
    if (c + 1 < n && q_before(&q->a[c + 1], &q->a[c])) c++;
    if (!q_before(&q->a[c], &last)) break;
    q->a[i] = q->a[c];
    i = c;
  }
  if (n > 0) q->a[i] = last;
  return 1;
}

uint32_t q_peek_comp(const struct q_queue *q, uint64_t *seq) {
  *seq = q->n ? q->a[0].seq : 0;
  return q->n ? q->a[0].comp : UINT32_MAX;
}

size_t q_size(const struct q_queue *q) { return q->n; }
size_t q_bytes(const struct q_queue *q) { return q->cap * sizeof(struct sim_event); }
const char *q_name(void) { return "binary heap"; }

/* Fetching ahead is not offered: no events are named past the next. */
const struct sim_event *q_peek_now(const struct q_queue *q, size_t k) {
  (void)q;
  (void)k;
  return NULL;
}
