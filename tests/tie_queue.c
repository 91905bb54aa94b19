/* A test-only event queue, linked into test_ties in place of sim/queue.c
 * (never into the simulator): with tieq_salt 0 the engine's order, (time,
 * then sequence); with a salt, the events of one instant grouped by
 * destination component, the destinations in an order the salt shuffles,
 * each destination's events in sequence order (the push order of one link,
 * and of a component's own events, which is physical). What it perturbs is
 * the order among components at one instant, and through it the order in
 * which same-instant events from different senders reach one component.
 * Issue 29; the tie experiment of tools/bench/README.md "Ties between
 * components" did the same with a build option of the engine. */
#include "queue.h"

#include <glib.h>

uint64_t tieq_salt;

struct q_queue {
  GSequence *s; /* struct sim_event *, in order */
};

/* splitmix64's finalizer over (salt, destination, time). */
static uint64_t shuffle_key(const struct sim_event *e) {
  uint64_t h = tieq_salt ^ (uint64_t)e->comp * 0x9E3779B97F4A7C15u ^
               (uint64_t)e->time * 0xC2B2AE3D27D4EB4Fu;
  h ^= h >> 30;
  h *= 0xBF58476D1CE4E5B9u;
  h ^= h >> 27;
  h *= 0x94D049BB133111EBu;
  return h ^ (h >> 31);
}

static gint order(gconstpointer a, gconstpointer b, gpointer user) {
  const struct sim_event *x = a, *y = b;
  (void)user;
  if (x->time != y->time) return x->time < y->time ? -1 : 1;
  if (tieq_salt && x->comp != y->comp) {
    uint64_t hx = shuffle_key(x), hy = shuffle_key(y);
    if (hx != hy) return hx < hy ? -1 : 1;
    return x->comp < y->comp ? -1 : 1;
  }
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct q_queue *q_new(size_t capacity_hint) {
  (void)capacity_hint;
  struct q_queue *q = g_new(struct q_queue, 1);
  q->s = g_sequence_new(g_free);
  return q;
}

void q_free(struct q_queue *q) {
  if (!q) return;
  g_sequence_free(q->s);
  g_free(q);
}

void q_push(struct q_queue *q, const struct sim_event *ev) {
  g_sequence_insert_sorted(q->s, g_memdup2(ev, sizeof *ev), order, NULL);
}

int q_pop(struct q_queue *q, struct sim_event *out) {
  GSequenceIter *it = g_sequence_get_begin_iter(q->s);
  if (g_sequence_iter_is_end(it)) return 0;
  *out = *(const struct sim_event *)g_sequence_get(it);
  g_sequence_remove(it);
  return 1;
}

/* No hints for fetching ahead: they change nothing a run does. */
uint32_t q_peek_comp(const struct q_queue *q, uint64_t *seq) {
  (void)q;
  *seq = 0;
  return UINT32_MAX;
}

const struct sim_event *q_peek_now(const struct q_queue *q, size_t k) {
  (void)q;
  (void)k;
  return NULL;
}

size_t q_size(const struct q_queue *q) { return (size_t)g_sequence_get_length(q->s); }
size_t q_bytes(const struct q_queue *q) { return q_size(q) * sizeof(struct sim_event); }
const char *q_name(void) { return "test: shuffled ties"; }
