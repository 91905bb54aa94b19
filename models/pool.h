/* Records of one size in a growable array, reused through a stack of free
 * indices: a NIC's send jobs, a switch's packets in flight. No allocation
 * per record once the array has grown; a record never reused before is
 * zeroed. Indices stay valid across growth (pointers do not). */
#ifndef MODELS_POOL_H
#define MODELS_POOL_H

#include <glib.h>
#include <stdint.h>

struct pool {
  GArray *items;
  GArray *free; /* uint32_t */
};

static inline void pool_init(struct pool *p, size_t elem) {
  p->items = g_array_new(FALSE, TRUE, (guint)elem);
  p->free = g_array_new(FALSE, FALSE, sizeof(uint32_t));
}

static inline void pool_release(struct pool *p) {
  if (p->items) g_array_free(p->items, TRUE);
  if (p->free) g_array_free(p->free, TRUE);
  p->items = p->free = NULL;
}

/* The index of a record to use: one given back, else a new zeroed one. */
static inline uint32_t pool_take(struct pool *p) {
  if (p->free->len) {
    uint32_t i = g_array_index(p->free, uint32_t, p->free->len - 1);
    g_array_set_size(p->free, p->free->len - 1);
    return i;
  }
  g_array_set_size(p->items, p->items->len + 1);
  return p->items->len - 1;
}

static inline void pool_give(struct pool *p, uint32_t i) { g_array_append_val(p->free, i); }

/* Record I of P as a TYPE *. */
#define pool_at(p, type, i) (&g_array_index((p)->items, type, (i)))

#endif
