/* What the network's parts share: the network parameters (group "network",
 * declared in topology.c), serialization onto a link, and the delivery rule
 * of the two switching modes. Links are the engine's: they carry the
 * latency; bandwidth is paid at the sending port, which is where contention
 * becomes visible.
 *
 * Delivery rule. A packet is sent as one event per hop:
 * - store-and-forward: the event arrives when the packet's tail does
 *   (send delay = wait for the port + serialization);
 * - cut-through: the event arrives when the head does (send delay = wait
 *   for the port); a switch forwards it switch_latency after the head, and
 *   an endpoint has the whole packet one serialization time after the head.
 * A switch takes a packet for its output port when it is ready (arrival +
 * switch latency) and the port is free, choosing among the inputs
 * round-robin, and with credit flow control only when the next switch's
 * input buffer has room for it (switch.h, flow.h). So one packet of S bytes
 * over a path of n switches and n+1 links of latency L and bandwidth B, with
 * switch latency W and no contention, takes
 *   cut-through:       (n+1) L + n W + S*8/B
 *   store-and-forward: (n+1) L + n W + (n+1) S*8/B
 *
 * Physical nodes. An endpoint (a NIC: one GPU with its CPU share and bus) is
 * node i of the network; with gpus_per_node G > 1, endpoints i and j are in
 * the same physical node when i / G == j / G, and packets between them cross
 * that node's intra-node fabric instead of the network: per node one
 * NVSwitch-like crossbar of G ports ("nvl.sw<k>", switch latency
 * intra_switch_latency), joined to each endpoint's NIC by a link of
 * intra_latency at intra_bandwidth each direction. The same delivery rule
 * applies with those numbers (n = 1 switch, 2 links), so a packet sent
 * between two GPUs of a node takes, uncontended,
 *   cut-through:       2 Li + Wi + S*8/Bi
 *   store-and-forward: 2 Li + Wi + 2 S*8/Bi
 * A GPU's sending side serializes all its intra-node packets at Bi (its NIC
 * port), and the crossbar's output port to a GPU serializes all packets into
 * it at Bi: two GPUs sending to one GPU contend at the receiving side. The
 * inter-node network joins every endpoint's NIC (one NIC per GPU, rail-like
 * as in a DGX A100), so network.nodes counts endpoints and must be a
 * multiple of G. */
#ifndef MODELS_NET_H
#define MODELS_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "simtime.h"

enum net_switching { NET_CUT_THROUGH, NET_STORE_FORWARD };
enum net_flow { NET_FLOW_CREDIT, NET_FLOW_NONE };
enum net_topology { NET_STAR, NET_FAT_TREE, NET_TORUS, NET_DRAGONFLY };

struct net_config {
  int topology;            /* enum net_topology (PAR_ENUM) */
  int64_t nodes;
  sim_time link_latency;
  int64_t link_bandwidth;  /* bits per second */
  sim_time switch_latency;
  int switching;           /* enum net_switching (PAR_ENUM) */
  int64_t mtu;             /* bytes of payload per packet */
  int64_t header_bytes;    /* bytes added to every packet on the wire */
  int64_t fat_tree_k;      /* k-ary n-tree: arity */
  int64_t fat_tree_levels; /* k-ary n-tree: levels n (capacity k^n nodes) */
  int64_t torus_x, torus_y, torus_z; /* torus dimensions (z = 1: 2D) */
  int64_t dragonfly_a;     /* routers per group */
  int64_t dragonfly_p;     /* nodes per router */
  int64_t dragonfly_h;     /* global links per router; groups = a*h + 1 */
  int64_t gpus_per_node;   /* G: endpoints per physical node (1, or 0 unset: none share) */
  sim_time intra_latency;  /* each link between a GPU's NIC and its node's crossbar */
  int64_t intra_bandwidth; /* bits per second, per GPU, each direction */
  sim_time intra_switch_latency; /* the node's crossbar (NVSwitch) */
  int flow_control;        /* enum net_flow (PAR_ENUM): credits (flow.h), or unbounded buffers */
  int64_t buffer_bytes;    /* a network switch's input buffer, per port and virtual lane */
  int64_t intra_buffer_bytes; /* the node crossbar's, per port */
};

/* The input buffer a switch of fabric NET gives each port and lane, or 0
 * (no flow control: unbounded). INTRA: the node crossbar. At least one
 * packet of mtu + header_bytes (a lane must hold one whole packet, IBA
 * vol. 1 Sec. 7.9), whatever the parameter says. */
static inline int64_t net_buffer(const struct net_config *n, bool intra) {
  if (n->flow_control != NET_FLOW_CREDIT) return 0;
  int64_t b = intra ? n->intra_buffer_bytes : n->buffer_bytes, packet = n->mtu + n->header_bytes;
  return b > packet ? b : packet;
}

/* True when a packet from endpoint SRC to DST crosses the intra-node fabric
 * (gpus_per_node > 1 and both in one physical node), false when it takes the
 * network (always with gpus_per_node 1: today's behaviour). */
static inline bool net_same_node(const struct net_config *n, uint32_t src, uint32_t dst) {
  uint64_t g = n->gpus_per_node > 1 ? (uint64_t)n->gpus_per_node : 1;
  return g > 1 && src / g == dst / g;
}

/* Time to put BYTES on a link of BW bits/s, rounded up to a picosecond. */
static inline sim_time net_ser_time(int64_t bytes, int64_t bw_bps) {
  unsigned __int128 bits_ps = (unsigned __int128)bytes * 8u * 1000000000000u;
  return (sim_time)((bits_ps + (unsigned __int128)bw_bps - 1) / (unsigned __int128)bw_bps);
}

/* One direction of a link, at its sending end. */
struct net_egress {
  sim_time busy_until;
  int64_t bw_bps;
};

/* Reserves the port for BYTES, starting no earlier than NOW. Returns the
 * send delay for the packet's event under SWITCHING (see above), and the
 * serialization time in *SER. */
static inline sim_time net_egress_send(struct net_egress *q, sim_time now, int64_t bytes,
                                       int switching, sim_time *ser) {
  sim_time start = q->busy_until > now ? q->busy_until : now;
  *ser = net_ser_time(bytes, q->bw_bps);
  q->busy_until = start + *ser;
  return (start - now) + (switching == NET_STORE_FORWARD ? *ser : 0);
}

#endif
