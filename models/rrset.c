/* Round-robin over the FIFOs that hold something (see rrset.h). */
#include "rrset.h"

#include <glib.h>
#include <string.h>

uint32_t rr_index(const struct rr_set *s, uint32_t key) {
  uint32_t lo = 0, hi = s->n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->f[mid].key < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

struct rr_fifo *rr_get(struct rr_set *s, uint32_t key) {
  uint32_t i = rr_index(s, key);
  if (i < s->n && s->f[i].key == key) return &s->f[i];
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 4;
    s->f = g_renew(struct rr_fifo, s->f, s->cap);
  }
  if (i < s->n) memmove(&s->f[i + 1], &s->f[i], (s->n - i) * sizeof *s->f);
  s->n++;
  s->f[i] = (struct rr_fifo){.key = key};
  return &s->f[i];
}

void rr_drop(struct rr_set *s, struct rr_fifo *f) {
  g_assert(f >= s->f && f < s->f + s->n && f->head == 0);
  uint32_t i = (uint32_t)(f - s->f);
  if (i + 1 < s->n) memmove(&s->f[i], &s->f[i + 1], (s->n - i - 1) * sizeof *s->f);
  s->n--;
}

uint32_t rr_first_after(const struct rr_set *s, uint32_t last) {
  if (last == UINT32_MAX) return 0;
  uint32_t i = rr_index(s, last + 1);
  return i < s->n ? i : 0;
}

void rr_release(struct rr_set *s) {
  g_free(s->f);
  *s = (struct rr_set){0};
}
