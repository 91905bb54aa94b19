/* A network switch: N ports, deterministic routing by destination node, a
 * fixed switch latency, and per-output-port serialization at the link
 * bandwidth (so contention shows), forwarding heads (cut-through) or tails
 * (store-and-forward) per the delivery rule in net.h. GPU-TN paper Table 2
 * gives the reference latency (100 ns). */
#ifndef MODELS_SWITCH_H
#define MODELS_SWITCH_H

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

/* The output port of switch SW for a packet to DST_NODE. */
typedef int (*sw_route_fn)(const void *ctx, uint32_t sw, uint32_t dst_node);

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
};

/* Makes F ready for switches of at most MAX_PORTS ports. NET and CTX are
 * borrowed for the life of the switches. */
void sw_fabric_init(struct sw_fabric *f, const struct net_config *net, sw_route_fn route,
                    const void *ctx, uint32_t max_ports);

/* Adds the next switch of F (index F->n_switches) to E with N_PORTS
 * (<= max_ports) ports; F is borrowed for the run and the switches of one
 * fabric must be added one after another (contiguous ids). */
struct sim_comp *sw_add(struct sim_engine *e, struct sw_fabric *f, const char *name,
                        uint32_t n_ports);

/* Counters of one switch. Bytes are wire bytes (payload + header). */
struct sw_stats {
  uint64_t packets;
  uint64_t bytes;
  sim_time max_queue_ps; /* longest wait for an output port beyond switch_latency */
};
void sw_stats(const struct sim_comp *c, struct sw_stats *out);

/* Reports (declared outputs sw_outs; `trigsim outputs switch`): every
 * switch "<name>.packets", ".bytes", ".max_queue_delay" while the fabric
 * has at most SW_REPORT_EACH_MAX switches; always the totals
 * "<process>.switches.packets", ".bytes", ".max_queue_delay" (max over
 * switches) and ".max_packets" (the busiest switch), reported by switch 0,
 * where <process> is the switch name up to its first '.' ("net", "nvl").
 * SW_OUT(NAME) is a checked handle (cpu.h's CPU_OUT). */
#define SW_REPORT_EACH_MAX 16
enum sw_out {
  SW_OUT_PACKETS, SW_OUT_BYTES, SW_OUT_MAX_QUEUE_DELAY, SW_OUT_TOTAL_PACKETS, SW_OUT_TOTAL_BYTES,
  SW_OUT_TOTAL_MAX_QUEUE_DELAY, SW_OUT_TOTAL_MAX_PACKETS, SW_OUT_COUNT
};
extern const struct sim_out_decl sw_outs[SW_OUT_COUNT];
extern const struct sim_outputs sw_outputs;
#define SW_OUT(name) (&sw_outs[SW_OUT_##name])

#endif
