/* Credit-based link-level flow control, lossless as InfiniBand's (IBA
 * Specification vol. 1, Sec. 7.9 "Flow Control": per virtual lane, the
 * receiver advertises its free buffer and a sender starts a packet only
 * when the receiver has room for all of it); the same loop as Mellanox's
 * flit-level IB model (github.com/hcyang99/ib_model, ibuf.h and vlarb.h:
 * input buffers per port and VL, credits returned as packets leave them).
 *
 * The receiver of a link direction (a switch's input port) holds LIMIT bytes
 * per virtual lane (network.buffer_bytes). Its sender (a NIC's port or a
 * switch's output) spends credit, the packet's wire bytes, when the packet
 * starts, and may start it only when the lane has that much left. The
 * credit comes back when the packet's tail has left the receiver's buffer
 * (it was forwarded), one link latency later: as if the receiver sent a flow
 * control packet right after every packet it frees, the fastest return the
 * specification allows (it may coalesce them; real receivers do, which only
 * delays credits). A NIC is not a receiver with credits: it drains what it
 * receives into memory (net.h).
 *
 * Exact, with few events. A sender knows when its packet leaves the
 * receiver if the receiver forwards it at its ready time (its head, or tail
 * under store-and-forward, arrives L after it was sent; it is ready W, the
 * switch latency, later; its tail leaves one serialization S after that),
 * and so when the credit is back if nothing held it:
 *   back_at = start + 2L + W + S     (cut-through)
 *   back_at = start + 2L + W + 2S    (store-and-forward)
 * It counts the credit back at back_at with no event. A receiver that does
 * not forward a packet at its ready instant tells the sender at once
 * (PK_LINK_HOLD, data = the packet's index among those sent on the link,
 * counted by both ends; it arrives L after the ready time, S before
 * back_at), and returns the credit when it forwards it: PK_LINK_CREDIT,
 * data = bytes | vl << 32, usable at the forwarded tail's departure + L and
 * delivered 1 ps before it, so that every event of the instant in which it
 * becomes usable sees it (the sender then wakes itself at that instant:
 * flow_credit's caller schedules it). The results are those of a credit
 * event per packet; the events are one per packet that waited.
 *
 * Order. Whatever order the engine runs the events of one instant in, a
 * sender computes the same credit at that instant: credits counted back by
 * time are a function of time, explicit ones arrive an instant early, and a
 * hold arrives before the credit it concerns would have counted. */
#ifndef MODELS_FLOW_H
#define MODELS_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "simtime.h"

#define FLOW_MAX_VL 2 /* virtual lanes: 2 break the cycles of torus and dragonfly routes */

/* A packet sent and not yet known freed: back at AT unless held (DEAD). */
struct flow_ent {
  sim_time at;
  int32_t bytes;
  uint32_t seq; /* its index on the link */
  uint8_t vl;
  bool dead;    /* the receiver held it: its credit comes by a PK_LINK_CREDIT */
};

/* A credit that a PK_LINK_CREDIT returned, usable from AT. */
struct flow_cr {
  sim_time at;
  int32_t bytes;
  uint8_t vl;
};

/* The sending end of one link direction. LIMIT 0: the receiver needs no
 * credits (a NIC, or network.flow_control: none). */
struct flow_out {
  int64_t limit;                  /* bytes of buffer per VL at the receiver */
  int64_t used[FLOW_MAX_VL];      /* credit spent and not back */
  struct flow_ent *heap;          /* packets out, a min-heap on AT */
  uint32_t n, cap;
  struct flow_cr *cr;             /* explicit credits not yet usable */
  uint32_t n_cr, cap_cr;
  uint32_t sent;                  /* packets sent on the link (all VLs) */
};

void flow_init(struct flow_out *f, int64_t limit);
void flow_release(struct flow_out *f);

static inline bool flow_limited(const struct flow_out *f) { return f->limit > 0; }

/* Credit left on lane VL at NOW (what came back by then counted):
 * INT64_MAX when unlimited. */
int64_t flow_room(struct flow_out *f, int vl, sim_time now);

/* A packet of BYTES on lane VL starts now; its credit is back at BACK_AT
 * unless the receiver holds it. Returns its index on the link. */
uint32_t flow_spend(struct flow_out *f, int vl, int64_t bytes, sim_time back_at);

/* The receiver held packet SEQ (PK_LINK_HOLD): its credit is not back at
 * its back_at but by an explicit credit. */
void flow_hold(struct flow_out *f, uint32_t seq);

/* A PK_LINK_CREDIT of BYTES on lane VL, usable from AT. */
void flow_credit(struct flow_out *f, int vl, int64_t bytes, sim_time at);

/* The first time after NOW at which a packet out would be back if not held
 * (held ones included: the answer does not depend on whether a hold has
 * arrived yet), or SIM_TIME_MAX: when a blocked sender looks again. */
sim_time flow_next_back(struct flow_out *f, sim_time now);

/* A sender whose waiting packets have no credit at NOW: blocked since NOW
 * unless it already was (*SINCE), and when it should look again: the next
 * packet out's back_at (flow_next_back), unless a wake for that time is
 * pending already (*WAKE_AT, then set to it); -1: no new wake (the pending
 * one stands, or only explicit credits can come). The time depends on no
 * same-instant order (flow_next_back), so neither does the event. */
static inline sim_time flow_blocked(struct flow_out *f, sim_time now, sim_time *since,
                                    sim_time *wake_at) {
  if (*since < 0) *since = now;
  sim_time at = flow_next_back(f, now);
  if (at == SIM_TIME_MAX || at == *wake_at) return -1;
  *wake_at = at;
  return at;
}

/* The receiving end: a PK_LINK_CREDIT's data and its parts. */
static inline uint64_t flow_credit_data(int64_t bytes, int vl) {
  return (uint64_t)bytes | (uint64_t)vl << 32;
}
static inline int64_t flow_credit_bytes(uint64_t data) { return (int64_t)(data & 0xFFFFFFFFu); }
static inline int flow_credit_vl(uint64_t data) { return (int)(data >> 32); }

/* When the credit of a packet of serialization SER started at START comes
 * back if the receiver (switch latency W, link latency L) forwards it at its
 * ready time; SAF: store-and-forward. */
static inline sim_time flow_back_at(sim_time start, sim_time ser, sim_time l, sim_time w, bool saf) {
  return start + 2 * l + w + (saf ? 2 : 1) * ser;
}

#endif
