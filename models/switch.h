/* A network switch: N ports, deterministic routing by destination node, a
 * fixed switch latency, input buffers with credit flow control (flow.h),
 * and per output port an arbiter that serializes at the link bandwidth (so
 * contention shows), forwarding heads (cut-through) or tails
 * (store-and-forward) per the delivery rule in net.h. GPU-TN paper Table 2
 * gives the reference latency (100 ns).
 *
 * A packet that arrives on input port i (its head, or tail under
 * store-and-forward) is routed to output o at once and is ready W
 * (network.switch_latency) later. It waits in the virtual output queue of
 * (i, its lane) for o: one FIFO per input and lane and output, as the input
 * buffers of Mellanox's IB model (ib_model ibuf.h: "Incoming packets Q per
 * VL per out port") and shared-buffer switch ASICs keep them, so a packet
 * blocked on one output blocks none to another inside the switch; the
 * input's buffer (network.buffer_bytes per lane, its upstream's credits) is
 * what those queues share, and what blocks a link when it is full (head of
 * line blocking across links, congestion trees).
 *
 * The arbiter (one per output): whenever the output is free, at an instant
 * at which some queue's head is ready, it takes the first queue after the
 * one it served last, in the order of (input port, lane), whose head is
 * ready and fits the downstream lane's credit; that head goes at once, and
 * the output is busy for its serialization. Round-robin across inputs at
 * packet granularity, skipping inputs whose packet does not fit (the
 * variant of ib_model's vlarb.cc roundRobinNextRQForVL; a blocked lane
 * never blocks another). It decides in the events of the instant (a
 * packet's ready event, the output's free event, a wake when credit comes
 * back), and every event of an instant sees the same queues, the same
 * output and the same credit (packets are queued W before they are ready,
 * credits come back by time or an instant early: flow.h), so the same
 * packets go whatever order the engine runs same-instant events in. Cost:
 * one event per packet and hop (its ready event) beyond its arrival; one
 * more (the output's free event) for a packet that waits, and for one that
 * waits under flow control a hold and a credit back and a wake at its
 * sender. With network.switch_latency 0 a free or wake event defers itself
 * to the end of its instant once (one more event), so that it sees the
 * packets that arrive at that instant.
 *
 * Lanes: fat-trees (up/down routes) and stars need one; tori use two
 * (dateline: a packet moves to lane 1 when it crosses the wrap-around link
 * of a dimension, back to 0 when it turns into the next one, Dally & Seitz
 * 1987) and dragonflies two (lane 1 after the global hop, Kim et al. 2008),
 * so that credits cannot wait on each other in a cycle. */
#ifndef MODELS_SWITCH_H
#define MODELS_SWITCH_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "net.h"

/* A PK_PACKET's pmsg.bytes is its payload (0..network.mtu bytes); on every
 * link it occupies that plus network.header_bytes. Senders (NICs) and
 * switches both serialize this many bytes with net_egress_send. */
static inline int64_t sw_wire_bytes(const struct net_config *net, int64_t payload_bytes) {
  return payload_bytes + net->header_bytes;
}

/* Packets a message of BYTES needs: ceil(BYTES / mtu), and 1 for an empty
 * message (it still carries a header). */
static inline int64_t sw_packet_count(const struct net_config *net, int64_t bytes) {
  return bytes <= 0 ? 1 : (bytes + net->mtu - 1) / net->mtu;
}

/* The output port of switch SW for a packet to DST_NODE that came in on
 * IN_PORT on lane IN_VL; the lane it leaves on in *OUT_VL. */
typedef int (*sw_route_fn)(const void *ctx, uint32_t sw, int in_port, int in_vl, uint32_t dst_node,
                           int *out_vl);

/* What all switches of one network share, owned by whoever builds them (the
 * topology) and read-only while the simulation runs: every switch's config
 * points here. The switches' component ids are contiguous from FIRST_ID, so a
 * switch's index is its id - FIRST_ID. TYPE is the component type the
 * switches are made with: "switch", whose per-instance state holds
 * MAX_PORTS output ports. */
struct sw_fabric {
  struct sim_type type;
  const struct net_config *net; /* borrowed */
  sw_route_fn route;
  const void *route_ctx; /* borrowed */
  uint32_t max_ports;
  uint32_t n_switches; /* counted by sw_add */
  uint32_t first_id;
  int64_t buffer;      /* input buffer per port and lane; 0: unbounded (no credits) */
  uint8_t n_vls;       /* lanes the routes use (1 or 2) */
};

/* Makes F ready for switches of at most MAX_PORTS ports whose input buffers
 * hold BUFFER bytes per lane (0: unbounded) and whose routes use N_VLS
 * lanes. NET and CTX are borrowed for the life of the switches. */
void sw_fabric_init(struct sw_fabric *f, const struct net_config *net, sw_route_fn route,
                    const void *ctx, uint32_t max_ports, int64_t buffer, int n_vls);

/* Adds the next switch of F (index F->n_switches) to E with N_PORTS
 * (<= max_ports) ports; F is borrowed for the run and the switches of one
 * fabric must be added one after another (contiguous ids). */
struct sim_comp *sw_add(struct sim_engine *e, struct sw_fabric *f, const char *name,
                        uint32_t n_ports);

/* Whether C is a switch (of any fabric). */
bool sw_is_switch(const struct sim_comp *c);

/* Counters of one switch. Bytes are wire bytes (payload + header). */
struct sw_stats {
  uint64_t packets;
  uint64_t bytes;
  sim_time max_queue_ps; /* longest wait for an output port beyond switch_latency */
  uint64_t waited;       /* packets not forwarded at their ready time */
  sim_time credit_stall_ps; /* time outputs had a ready packet but no credit for any */
};
void sw_stats(const struct sim_comp *c, struct sw_stats *out);

/* Reports (declared outputs sw_outs; `trigsim outputs switch`): every
 * switch "<name>.packets", ".bytes", ".max_queue_delay", ".waited",
 * ".credit_stall" while the fabric has at most SW_REPORT_EACH_MAX switches;
 * always the totals "<process>.switches.packets", ".bytes",
 * ".max_queue_delay" (max over switches), ".waited", ".credit_stall" (sums)
 * and ".max_packets" (the busiest switch), reported by switch 0, where
 * <process> is the switch name up to its first '.' ("net", "nvl").
 * SW_OUT(NAME) is a checked handle (cpu.h's CPU_OUT). */
#define SW_REPORT_EACH_MAX 16
enum sw_out {
  SW_OUT_PACKETS, SW_OUT_BYTES, SW_OUT_MAX_QUEUE_DELAY, SW_OUT_WAITED, SW_OUT_CREDIT_STALL,
  SW_OUT_TOTAL_PACKETS, SW_OUT_TOTAL_BYTES, SW_OUT_TOTAL_MAX_QUEUE_DELAY, SW_OUT_TOTAL_WAITED,
  SW_OUT_TOTAL_CREDIT_STALL, SW_OUT_TOTAL_MAX_PACKETS, SW_OUT_COUNT
};
extern const struct sim_out_decl sw_outs[SW_OUT_COUNT];
extern const struct sim_outputs sw_outputs;
#define SW_OUT(name) (&sw_outs[SW_OUT_##name])

#endif
