/* The first pass over a rank (summary.h): counts, and the shape of each
 * run of ops a kernel could hold, op by op. */
#include "summary.h"

#include <glib.h>
#include <string.h>

void wl_sum_init(struct wl_sum *s) {
  memset(s, 0, sizeof *s);
  s->runs[0] = 1;
  s->most_runs = 1;
}

static void shape_clear(struct wl_shape *h) {
  g_free(h->sels);
  memset(h, 0, sizeof *h);
}

void wl_sum_clear(struct wl_sum *s) {
  shape_clear(&s->all);
  for (uint64_t k = 0; k < s->n_spans; k++) shape_clear(&s->spans[k].shape);
  g_free(s->spans);
  memset(s, 0, sizeof *s);
}

/* As kernel.c's shape of a range: packs dropped, lane 1 apart, the lane 0
 * grid, and the selectors a fold must keep. */
static void shape_add(struct wl_shape *h, const struct wl_op *o) {
  if (!wl_in_lane1(o) && o->sel.count > 0) {
    bool seen = false;
    for (uint32_t k = 0; k < h->n_sels && !seen; k++)
      seen = !memcmp(&h->sels[k], &o->sel, sizeof o->sel);
    if (!seen) {
      if (h->n_sels == h->cap_sels) {
        h->cap_sels = h->cap_sels ? 2 * h->cap_sels : 4;
        h->sels = g_renew(struct wl_wgsel, h->sels, h->cap_sels);
      }
      h->sels[h->n_sels++] = o->sel;
    }
  }
  if (o->kind == WL_COMPUTE && o->pack) return;
  h->waits |= o->kind == WL_SYNC || o->kind == WL_RECV;
  if (wl_in_lane1(o)) {
    h->lane1 = true;
    if (o->kind == WL_COMPUTE) h->n1 = MAX(h->n1, o->n_wgs);
    return;
  }
  if (o->kind != WL_COMPUTE) return;
  if (h->n0 && h->n0 != o->n_wgs) h->mixed = true;
  h->n0 = MAX(h->n0, o->n_wgs);
}

/* A sync or loop marker ends a span, but inside a collective's ops (a
 * library that writes its steps in a loop): those are the collective's. */
static bool delimits(const struct wl_op *o) {
  return !o->region && (o->kind == WL_SYNC || o->kind == WL_LOOP || o->kind == WL_END);
}

void wl_sum_add(struct wl_sum *s, const struct wl_op *o) {
  uint64_t i = s->ops++;
  s->sends += o->kind == WL_SEND;
  s->recvs += o->kind == WL_RECV;
  s->computes += o->kind == WL_COMPUTE;
  s->syncs += o->kind == WL_SYNC;
  s->colls += o->kind == WL_COLL;
  if (o->kind == WL_SEND) s->pieces += o->parts;
  if (o->kind == WL_LOOP) {
    g_assert(s->depth < WL_MAX_DEPTH);
    uint64_t r = s->runs[s->depth], c = o->count;
    s->runs[++s->depth] = r && c > UINT64_MAX / r ? UINT64_MAX : r * c;
  } else if (o->kind == WL_END) {
    g_assert(s->depth > 0);
    s->depth--;
  } else {
    s->most_runs = MAX(s->most_runs, s->runs[s->depth]);
  }
  shape_add(&s->all, o);
  if (delimits(o)) {
    s->open = false;
    return;
  }
  struct wl_span *sp = s->n_spans ? &s->spans[s->n_spans - 1] : NULL;
  if (!s->open || sp->region != o->region) {
    if (s->n_spans == s->cap_spans) {
      s->cap_spans = s->cap_spans ? 2 * s->cap_spans : 4;
      s->spans = g_renew(struct wl_span, s->spans, s->cap_spans);
    }
    sp = &s->spans[s->n_spans++];
    *sp = (struct wl_span){.first = i, .region = o->region};
    s->open = true;
  }
  sp->n++;
  shape_add(&sp->shape, o);
}

void wl_sum_merge(struct wl_sum *t, const struct wl_sum *s) {
  t->ops += s->ops, t->sends += s->sends, t->recvs += s->recvs, t->computes += s->computes;
  t->syncs += s->syncs, t->pieces += s->pieces, t->colls += s->colls;
}

void wl_sum_rank(const struct wl_program *p, uint32_t rank, struct wl_sum *s) {
  const struct wl_rank *r = &p->ranks[rank];
  wl_sum_init(s);
  for (size_t i = 0; i < r->n_ops; i++) wl_sum_add(s, &r->ops[i]);
}

const struct wl_span *wl_sum_span(const struct wl_sum *s, uint64_t i, uint64_t *at) {
  while (*at < s->n_spans && s->spans[*at].first + s->spans[*at].n <= i) (*at)++;
  if (*at == s->n_spans || s->spans[*at].first > i) return NULL;
  return &s->spans[*at];
}
