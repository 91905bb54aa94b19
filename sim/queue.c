/* The pending-event set as an implicit 4-ary min-heap of 32-byte events.
 * Chosen over a binary heap, a pairing heap and a calendar queue by the PHOLD
 * benchmark (tools/bench/README.md): shallower than a binary heap, its four
 * children share a cache line, and it needs no per-event allocation. */
#include "queue.h"

#include <glib.h>
#include <string.h>

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
    size_t parent = (i - 1) / 4;
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
    size_t c = 4 * i + 1;
    if (c >= n) break;
    size_t best = c, end = c + 4 < n ? c + 4 : n;
    for (size_t k = c + 1; k < end; k++)
      if (q_before(&q->a[k], &q->a[best])) best = k;
    if (!q_before(&q->a[best], &last)) break;
    q->a[i] = q->a[best];
    i = best;
  }
  if (n > 0) q->a[i] = last;
  return 1;
}

size_t q_size(const struct q_queue *q) { return q->n; }
size_t q_bytes(const struct q_queue *q) { return q->cap * sizeof(struct sim_event); }
const char *q_name(void) { return "4-ary heap"; }
