/* Round-robin service of FIFOs that come and go: a switch output's virtual
 * output queues (one per input port and lane with packets for it) and a
 * NIC port's send queues (one per connection with messages to send). Only
 * the FIFOs that hold something are kept, sorted by key, so that a round
 * starts after the key served last (round-robin across inputs, as the
 * output arbiter of Mellanox's IB model, ib_model vlarb.h) at a cost that
 * follows what is waiting, not the port or node count. Items live in the
 * caller's pool, linked by the caller; a FIFO holds 1-based indices. */
#ifndef MODELS_RRSET_H
#define MODELS_RRSET_H

#include <stdint.h>

struct rr_fifo {
  uint32_t key;
  uint32_t head, tail; /* the caller's item indices + 1; 0: none */
};

struct rr_set {
  struct rr_fifo *f; /* sorted by key, none empty */
  uint32_t n, cap;
};

/* The FIFO of KEY, made (empty, head 0) when there is none; the pointer is
 * good until the next rr_get or rr_drop. */
struct rr_fifo *rr_get(struct rr_set *s, uint32_t key);
/* Removes FIFO F (emptied by the caller). */
void rr_drop(struct rr_set *s, struct rr_fifo *f);
/* Where a round that starts after key LAST begins: the index of the first
 * FIFO whose key is greater, or 0 (wrapping around). */
uint32_t rr_first_after(const struct rr_set *s, uint32_t last);
/* The index of the first FIFO whose key is >= KEY (n when none). */
uint32_t rr_index(const struct rr_set *s, uint32_t key);
void rr_release(struct rr_set *s);

#endif
