/* Benchmark alternative to sim/queue.c: a pairing heap (Fredman et al. 1986)
 * with two-pass merging. Nodes live in one growable pool addressed by 32-bit
 * index, recycled through a free list: no allocation per event. Bench-only. */
#include "queue.h"

#include <glib.h>

#define NIL 0u /* pool slot 0 is never used */

struct node {
  struct sim_event ev;
  uint32_t child;   /* leftmost child */
  uint32_t sibling; /* next sibling; next free slot when free */
};

struct q_queue {
  struct node *pool;
  uint32_t cap;   /* slots in pool, slot 0 included */
  uint32_t used;  /* slots ever handed out, slot 0 included */
  uint32_t free;  /* head of the free list */
  uint32_t root;
  size_t n;
};

struct q_queue *q_new(size_t capacity_hint) {
  struct q_queue *q = g_new0(struct q_queue, 1);
  g_assert(capacity_hint < UINT32_MAX / 2);
  q->cap = (uint32_t)(capacity_hint > 16 ? capacity_hint : 16) + 1;
  q->pool = g_new(struct node, q->cap);
  q->used = 1;
  return q;
}

void q_free(struct q_queue *q) {
  if (!q) return;
  g_free(q->pool);
  g_free(q);
}

static uint32_t node_get(struct q_queue *q) {
  uint32_t i = q->free;
  if (i != NIL) {
    q->free = q->pool[i].sibling;
    return i;
  }
  if (q->used == q->cap) {
    g_assert(q->cap < UINT32_MAX / 2);
    q->cap *= 2;
    q->pool = g_renew(struct node, q->pool, q->cap);
  }
  return q->used++;
}

/* Links two roots (siblings ignored); the loser becomes the winner's
 * leftmost child. */
static inline uint32_t meld(struct node *p, uint32_t a, uint32_t b) {
  if (q_before(&p[b].ev, &p[a].ev)) {
    uint32_t t = a;
    a = b;
    b = t;
  }
  p[b].sibling = p[a].child;
  p[a].child = b;
  return a;
}

void q_push(struct q_queue *q, const struct sim_event *ev) {
  uint32_t i = node_get(q);
  struct node *p = q->pool;
  p[i].ev = *ev;
  p[i].child = NIL;
  p[i].sibling = NIL;
  q->root = q->root == NIL ? i : meld(p, q->root, i);
  q->n++;
}

/* Two-pass merge of a sibling list: meld pairs left to right, stacking the
 * results (linked through sibling), then meld the stack right to left. */
static uint32_t merge_pairs(struct node *p, uint32_t first) {
  uint32_t stack = NIL;
  while (first != NIL) {
    uint32_t a = first, b = p[a].sibling;
    if (b == NIL) {
      p[a].sibling = stack;
      stack = a;
      break;
    }
    first = p[b].sibling;
    uint32_t m = meld(p, a, b);
    p[m].sibling = stack;
    stack = m;
  }
  if (stack == NIL) return NIL;
  uint32_t r = stack;
  stack = p[r].sibling;
  while (stack != NIL) {
    uint32_t next = p[stack].sibling;
    r = meld(p, r, stack);
    stack = next;
  }
  p[r].sibling = NIL;
  return r;
}

int q_pop(struct q_queue *q, struct sim_event *out) {
  if (q->root == NIL) return 0;
  struct node *p = q->pool;
  uint32_t r = q->root;
  *out = p[r].ev;
  q->root = merge_pairs(p, p[r].child);
  p[r].sibling = q->free;
  q->free = r;
  q->n--;
  return 1;
}

uint32_t q_peek_comp(const struct q_queue *q, uint64_t *seq) {
  *seq = q->root == NIL ? 0 : q->pool[q->root].ev.seq;
  return q->root == NIL ? UINT32_MAX : q->pool[q->root].ev.comp;
}

size_t q_size(const struct q_queue *q) { return q->n; }
size_t q_bytes(const struct q_queue *q) { return (size_t)q->cap * sizeof(struct node); }
const char *q_name(void) { return "pairing heap"; }

/* Fetching ahead is not offered: no events are named past the next. */
const struct sim_event *q_peek_now(const struct q_queue *q, size_t k) {
  (void)q;
  (void)k;
  return NULL;
}
