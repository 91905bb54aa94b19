/* The pending-event set. Order is total and deterministic: by time, then by
 * the sequence number the engine stamps at insertion. A push may not be
 * earlier than the last event popped (the engine never schedules into the
 * past). One implementation in the tree (a radix heap, chosen by
 * measurement: see tools/bench/README.md); the benchmark links alternatives
 * behind this same header. */
#ifndef SIM_QUEUE_H
#define SIM_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include "simtime.h"

/* An event: a 32-byte header with an inline 8-byte payload. Larger payloads
 * live in the receiving model's own pools and travel as an index. */
struct sim_event {
  sim_time time;
  uint64_t seq;    /* insertion order, breaks ties */
  uint32_t comp;   /* destination component id */
  uint16_t port;   /* destination port, or SIM_PORT_SELF */
  uint16_t kind;   /* model-defined */
  uint64_t data;   /* model-defined inline payload */
};

struct q_queue;

struct q_queue *q_new(size_t capacity_hint);
void q_free(struct q_queue *q);
void q_push(struct q_queue *q, const struct sim_event *ev);
/* Removes the least event into *OUT; returns 0 when empty. */
int q_pop(struct q_queue *q, struct sim_event *out);
/* The destination component of the event that will pop next if nothing
 * earlier is pushed first, or UINT32_MAX when not known cheaply, and its
 * seq in *SEQ (0 when not known): a hint, only for prefetching. */
uint32_t q_peek_comp(const struct q_queue *q, uint64_t *seq);
/* The event K places after the one that will pop next (K = 0: that one)
 * when it is due at the same time as it and nothing earlier is pushed
 * meanwhile, else NULL: for fetching ahead (sim_type.prefetch). */
const struct sim_event *q_peek_now(const struct q_queue *q, size_t k);
size_t q_size(const struct q_queue *q);
/* Bytes the queue holds for its events now (capacity, not just size). */
size_t q_bytes(const struct q_queue *q);
/* Name of the implementation, for benchmark reports. */
const char *q_name(void);

/* The order: returns true when A must run before B. */
static inline int q_before(const struct sim_event *a, const struct sim_event *b) {
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

#endif
