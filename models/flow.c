/* Credit-based link-level flow control at a link's sending end (see
 * flow.h; IBA Specification vol. 1, Sec. 7.9). */
#include "flow.h"

#include <glib.h>

void flow_init(struct flow_out *f, int64_t limit) {
  g_assert(limit >= 0);
  *f = (struct flow_out){.limit = limit};
}

void flow_release(struct flow_out *f) {
  g_free(f->heap);
  g_free(f->cr);
  f->heap = NULL;
  f->cr = NULL;
  f->n = f->cap = f->n_cr = f->cap_cr = 0;
}

/* ---- the min-heap of packets out, on their back_at ---- */

static void heap_swap(struct flow_ent *h, uint32_t a, uint32_t b) {
  struct flow_ent t = h[a];
  h[a] = h[b];
  h[b] = t;
}

static void heap_pop(struct flow_out *f) {
  struct flow_ent *h = f->heap;
  h[0] = h[--f->n];
  for (uint32_t i = 0;;) {
    uint32_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < f->n && h[l].at < h[m].at) m = l;
    if (r < f->n && h[r].at < h[m].at) m = r;
    if (m == i) break;
    heap_swap(h, i, m);
    i = m;
  }
}

/* Counts back what is back by NOW: packets out whose back_at has come (a
 * held one's credit comes by flow_credit instead) and explicit credits. */
static void settle(struct flow_out *f, sim_time now) {
  while (f->n && f->heap[0].at <= now) {
    if (!f->heap[0].dead) f->used[f->heap[0].vl] -= f->heap[0].bytes;
    heap_pop(f);
  }
  for (uint32_t i = 0; i < f->n_cr;) {
    if (f->cr[i].at <= now) {
      f->used[f->cr[i].vl] -= f->cr[i].bytes;
      f->cr[i] = f->cr[--f->n_cr];
    } else {
      i++;
    }
  }
}

int64_t flow_room(struct flow_out *f, int vl, sim_time now) {
  if (!f->limit) return INT64_MAX;
  g_assert(vl >= 0 && vl < FLOW_MAX_VL);
  settle(f, now);
  g_assert(f->used[vl] >= 0);
  return f->limit - f->used[vl];
}

uint32_t flow_spend(struct flow_out *f, int vl, int64_t bytes, sim_time back_at) {
  uint32_t seq = f->sent++;
  if (!f->limit) return seq;
  g_assert(vl >= 0 && vl < FLOW_MAX_VL && bytes >= 0 && bytes <= INT32_MAX);
  f->used[vl] += bytes;
  g_assert(f->used[vl] <= f->limit);
  if (f->n == f->cap) {
    f->cap = f->cap ? 2 * f->cap : 16;
    f->heap = g_renew(struct flow_ent, f->heap, f->cap);
  }
  uint32_t i = f->n++;
  f->heap[i] = (struct flow_ent){.at = back_at, .bytes = (int32_t)bytes, .seq = seq,
                                 .vl = (uint8_t)vl};
  while (i > 0 && f->heap[(i - 1) / 2].at > f->heap[i].at) {
    heap_swap(f->heap, i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
  return seq;
}

void flow_hold(struct flow_out *f, uint32_t seq) {
  if (!f->limit) return;
  /* A hold arrives before its packet's back_at: the packet is still out. */
  for (uint32_t i = 0; i < f->n; i++)
    if (f->heap[i].seq == seq) {
      g_assert(!f->heap[i].dead);
      f->heap[i].dead = true;
      return;
    }
  g_error("flow_hold: packet %u is not out on this link", seq);
}

void flow_credit(struct flow_out *f, int vl, int64_t bytes, sim_time at) {
  if (!f->limit) return;
  g_assert(vl >= 0 && vl < FLOW_MAX_VL && bytes >= 0);
  if (f->n_cr == f->cap_cr) {
    f->cap_cr = f->cap_cr ? 2 * f->cap_cr : 8;
    f->cr = g_renew(struct flow_cr, f->cr, f->cap_cr);
  }
  f->cr[f->n_cr++] = (struct flow_cr){.at = at, .bytes = (int32_t)bytes, .vl = (uint8_t)vl};
}

sim_time flow_next_back(struct flow_out *f, sim_time now) {
  settle(f, now);
  return f->n ? f->heap[0].at : SIM_TIME_MAX;
}
