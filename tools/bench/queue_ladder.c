/* Bench-only alternative queue: a two-tier ladder queue (after Tang, Goh and Thng,
 * "Ladder Queue", ACM TOMACS 2005), O(1) amortized per event.
 * - far: an unsorted list of events beyond the current window;
 * - window: NB buckets of width 2^shift ps starting at `start`, each an
 *   unsorted singly linked list;
 * - bottom: the current bucket's events, sorted, popped from the end.
 * When the window is used up it is rebuilt from `far`: the width comes from
 * the mean gap between the events popped in the last window (or from far's
 * span at first), the bucket count from the number of pending events. Order
 * is exactly (time, seq): buckets partition time, and the bottom is sorted
 * by both. Events live in one pool of nodes linked by index; the pool only
 * grows, and freed nodes are reused LIFO. */
#include "queue.h"

#include <glib.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NIL UINT32_MAX

struct node {
  struct sim_event ev;
  uint32_t next;
};

struct q_queue {
  struct node *pool;
  uint32_t pool_cap, pool_used, free_head;
  size_t n;               /* pending events in all tiers */

  uint32_t far_head;      /* unsorted list beyond the window */
  size_t n_far;
  uint64_t far_min, far_max;

  uint32_t *bucket;       /* heads, NB of them */
  uint32_t nb, nb_cap, cur;
  uint64_t start;         /* window start time */
  int shift;              /* bucket width 2^shift ps */
  bool active;            /* a window exists */
  bool loaded;            /* bucket cur has been moved into the bottom */

  struct sim_event *bottom; /* sorted descending: next to pop is last */
  size_t n_bottom, bottom_cap;

  /* for the next width: pops and time covered in the current window */
  uint64_t win_pops, win_first, win_last;
};

static inline unsigned __int128 key(const struct sim_event *e) {
  return ((unsigned __int128)(uint64_t)e->time << 64) | e->seq;
}

static uint32_t node_new(struct q_queue *q, const struct sim_event *ev) {
  uint32_t i;
  if (q->free_head != NIL) {
    i = q->free_head;
    q->free_head = q->pool[i].next;
  } else {
    if (q->pool_used == q->pool_cap) {
      q->pool_cap *= 2;
      q->pool = g_renew(struct node, q->pool, q->pool_cap);
    }
    i = q->pool_used++;
  }
  q->pool[i].ev = *ev;
  return i;
}

struct q_queue *q_new(size_t capacity_hint) {
  struct q_queue *q = g_new0(struct q_queue, 1);
  q->pool_cap = capacity_hint > 64 ? (uint32_t)capacity_hint : 64;
  q->pool = g_new(struct node, q->pool_cap);
  q->free_head = NIL;
  q->far_head = NIL;
  q->bottom_cap = 64;
  q->bottom = g_new(struct sim_event, q->bottom_cap);
  return q;
}

void q_free(struct q_queue *q) {
  if (!q) return;
  g_free(q->pool);
  g_free(q->bucket);
  g_free(q->bottom);
  g_free(q);
}

static void far_add(struct q_queue *q, uint32_t i) {
  uint64_t t = (uint64_t)q->pool[i].ev.time;
  if (q->n_far == 0 || t < q->far_min) q->far_min = t;
  if (q->n_far == 0 || t > q->far_max) q->far_max = t;
  q->pool[i].next = q->far_head;
  q->far_head = i;
  q->n_far++;
}

/* Inserts into the sorted bottom (descending by key). */
static void bottom_insert(struct q_queue *q, const struct sim_event *ev) {
  if (q->n_bottom == q->bottom_cap) {
    q->bottom_cap *= 2;
    q->bottom = g_renew(struct sim_event, q->bottom, q->bottom_cap);
  }
  unsigned __int128 k = key(ev);
  size_t lo = 0, hi = q->n_bottom; /* first position whose key is < k */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (key(&q->bottom[mid]) > k) lo = mid + 1;
    else hi = mid;
  }
  memmove(&q->bottom[lo + 1], &q->bottom[lo], (q->n_bottom - lo) * sizeof *ev);
  q->bottom[lo] = *ev;
  q->n_bottom++;
}

void q_push(struct q_queue *q, const struct sim_event *ev) {
  g_assert(ev->time >= 0);
  q->n++;
  uint64_t t = (uint64_t)ev->time;
  if (q->active) {
    g_assert(t >= q->start);
    uint64_t idx = (t - q->start) >> q->shift;
    if (q->loaded && idx <= q->cur) {
      /* In the bucket being popped: keep the bottom sorted. */
      bottom_insert(q, ev);
      return;
    }
    if (idx < q->nb) {
      uint32_t i = node_new(q, ev);
      q->pool[i].next = q->bucket[idx];
      q->bucket[idx] = i;
      return;
    }
  }
  far_add(q, node_new(q, ev));
}

static inline uint64_t pow2_ceil_shift(uint64_t x) {
  int s = 0;
  while (s < 63 && ((uint64_t)1 << s) < x) s++;
  return (uint64_t)s;
}

/* Builds a new window over far's earliest events. */
static void rebuild(struct q_queue *q) {
  uint64_t nb = 16;
  while (nb < q->n_far / 2 && nb < ((uint64_t)1 << 26)) nb *= 2;
  uint64_t width;
  if (q->win_pops > 1 && q->win_last > q->win_first) {
    /* Two events per bucket at the last window's pop rate. */
    width = 2 * (q->win_last - q->win_first) / (q->win_pops - 1);
  } else {
    width = (q->far_max - q->far_min) / nb + 1;
  }
  if (width == 0) width = 1;
  q->shift = (int)pow2_ceil_shift(width);
  if (nb > q->nb_cap) {
    q->bucket = g_renew(uint32_t, q->bucket, nb);
    q->nb_cap = (uint32_t)nb;
  }
  q->nb = (uint32_t)nb;
  for (uint32_t b = 0; b < q->nb; b++) q->bucket[b] = NIL;
  q->start = q->far_min;
  q->cur = 0;
  q->active = true;
  q->loaded = false;
  /* Move far events inside the window into buckets; keep the rest. */
  uint32_t i = q->far_head;
  q->far_head = NIL;
  q->n_far = 0;
  while (i != NIL) {
    uint32_t next = q->pool[i].next;
    uint64_t idx = ((uint64_t)q->pool[i].ev.time - q->start) >> q->shift;
    if (idx < q->nb) {
      q->pool[i].next = q->bucket[idx];
      q->bucket[idx] = i;
    } else {
      far_add(q, i);
    }
    i = next;
  }
  q->win_pops = 0;
}

/* Moves bucket B into the bottom, sorted; its nodes go back to the pool. */
static void load_bucket(struct q_queue *q, uint32_t b) {
  uint32_t i = q->bucket[b];
  q->bucket[b] = NIL;
  while (i != NIL) {
    if (q->n_bottom == q->bottom_cap) {
      q->bottom_cap *= 2;
      q->bottom = g_renew(struct sim_event, q->bottom, q->bottom_cap);
    }
    q->bottom[q->n_bottom++] = q->pool[i].ev;
    uint32_t next = q->pool[i].next;
    q->pool[i].next = q->free_head;
    q->free_head = i;
    i = next;
  }
  /* Buckets hold a few events: insertion sort, descending. */
  struct sim_event *a = q->bottom;
  for (size_t k = 1; k < q->n_bottom; k++) {
    struct sim_event x = a[k];
    unsigned __int128 kx = key(&x);
    size_t j = k;
    while (j > 0 && key(&a[j - 1]) < kx) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = x;
  }
}

/* Fills the empty bottom from the next non-empty bucket, rebuilding the
 * window from far when it is used up. Needs at least one pending event. */
static void refill(struct q_queue *q) {
  for (;;) {
    if (q->active) {
      uint32_t b = q->loaded ? q->cur + 1 : q->cur;
      while (b < q->nb && q->bucket[b] == NIL) b++;
      if (b < q->nb) {
        q->cur = b;
        q->loaded = true;
        load_bucket(q, b);
        return;
      }
      q->active = false;
    }
    g_assert(q->n_far > 0);
    rebuild(q);
  }
}

int q_pop(struct q_queue *q, struct sim_event *out) {
  if (q->n == 0) return 0;
  if (q->n_bottom == 0) refill(q);
  g_assert(q->n_bottom > 0);
  *out = q->bottom[--q->n_bottom];
  q->n--;
  uint64_t t = (uint64_t)out->time;
  if (q->win_pops++ == 0) q->win_first = t;
  q->win_last = t;
  return 1;
}

uint32_t q_peek_comp(const struct q_queue *q, uint64_t *seq) {
  *seq = q->n_bottom ? q->bottom[q->n_bottom - 1].seq : 0;
  return q->n_bottom ? q->bottom[q->n_bottom - 1].comp : UINT32_MAX;
}

size_t q_size(const struct q_queue *q) { return q->n; }

size_t q_bytes(const struct q_queue *q) {
  return (size_t)q->pool_cap * sizeof(struct node) + (size_t)q->nb_cap * sizeof(uint32_t) +
         q->bottom_cap * sizeof(struct sim_event);
}

const char *q_name(void) { return "ladder queue"; }

/* Fetching ahead is not offered: no events are named past the next. */
const struct sim_event *q_peek_now(const struct q_queue *q, size_t k) {
  (void)q;
  (void)k;
  return NULL;
}
