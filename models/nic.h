/* A Portals-4-like NIC with the GPU-TN extension (SC17, Sec. 3; DESIGN.md
 * Sec. 3 "NIC"): a command queue, a trigger FIFO and trigger list, GDS
 * doorbells, DMA through the node's bus, segmentation into MTU packets and
 * one-sided put/get with completion flags.
 *
 * Ports: "bus" (0) to the node's bus, "net" (1) to the network (a switch,
 * or another NIC), "nvl" (2) to the physical node's intra-node crossbar
 * (joined only when network.gpus_per_node > 1). A packet whose destination
 * is in the same physical node (net_same_node, net.h) leaves by "nvl",
 * serialized at network.intra_bandwidth on that port's own egress; every
 * other packet leaves by "net" at network.link_bandwidth. A packet received
 * on a port is complete by that port's bandwidth (cut-through). Nothing
 * else depends on the port. Every message is a payload slot (proto.h); the NIC sends
 * with event kind = the pmsg kind, and reads the kind of what it receives
 * from the pmsg.
 *
 * Timing.
 * - PK_NIC_CMD and PK_DOORBELL enter one command queue served in order, one
 *   at a time, nic.cmd_cost each. At the end of its cost a command acts:
 *   NIC_PUT/NIC_GET start; NIC_TPUT/NIC_TGET register {tag, threshold} on
 *   the trigger list (+ nic.overflow_lookup when the lookup searched the
 *   host-memory overflow); NIC_POST stores the put under cmd_id; a doorbell
 *   starts the put posted under its cmd_id, or, with none yet, waits and the
 *   post starts it when processed (one doorbell starts one post).
 * - PK_TRIGGER {a = tag, b = stores (0 = 1)} goes into a FIFO popped one
 *   at a time: its b stores (a WG's work-items at work-item granularity)
 *   act on the list one after the other after b * nic.match_latency (+ nic.overflow_lookup when it
 *   searched or wrote the overflow). A fired entry's operation starts at
 *   the end of that time.
 * - Full list: see trigger_list.h. In stall mode the store (registration)
 *   stays at the head of the FIFO (command queue), blocking those behind
 *   it, and is applied at once, at no further cost, when an entry is freed.
 * - The host's triggered operations: a NIC_TPUT/NIC_TGET from the CPU is
 *   held from its arrival (in the command queue, then on the list) until it
 *   fires. When nic.triggered_ops are held (Portals 4's max_triggered_ops)
 *   the NIC sends PK_NIC_ROOM {a = 0} to the CPU, whose next registration
 *   waits (cpu.h); when one fires and fewer are held again, PK_NIC_ROOM
 *   {a = 1}. Registrations already on their way when the CPU learns it
 *   join (the NIC holds a few more). Nothing is sent while fewer are held:
 *   a run that never holds that many is as without the bound. A config
 *   with 0 (tests) has no bound.
 * - Starting a put: PK_DMA_READ {min(bytes, mtu), op = operation handle}
 *   to DEV_MEM through the bus (the first packet's payload: the rest of the
 *   DMA streams in behind injection, as a NIC pipelines its reads, which
 *   assumes the bus outpaces the link); the bus answers PK_DMA_DATA with
 *   the same op. Then ceil(bytes/mtu) packets (one header-only packet for 0 bytes, which skips
 *   the DMA) are reserved back to back on the net port with net_egress_send
 *   at net.link_bandwidth (net.h). The local flag is written when the last
 *   packet's tail has left the NIC.
 * - An NVLink store (a PK_NIC_CMD with pmsg.nvl, kstep.nvl): the GPU's SMs
 *   write the peer GPU's memory themselves. The NIC model stands in for the
 *   GPU's NVLink port: the put starts at once (no command queue, no
 *   cmd_cost, no DMA read), leaves by the nvl port, is not written across
 *   the target's bus, and its flags (target and local) are NVLink stores.
 * - nic.nvl_direct: a put to a same-node GPU skips the DMA read, and at the
 *   target a packet that came by the nvl port is not written across the
 *   bus (NVLink moves it between the GPUs' memories); its flag still is.
 * - A get sends a header-only request; the target NIC DMA-reads the data
 *   when the request is complete and sends it back as packets; the
 *   initiator writes them to memory and sets the local flag after the last.
 *   A get's remote flag is not used.
 * - Receiving: a packet is complete on arrival (store-and-forward) or one
 *   serialization time of its wire bytes after its head (cut-through); its
 *   payload is then written with PK_MEM_WRITE to DEV_MEM, and after the
 *   message's last packet the completion flag follows in bus order.
 * - Flags: PK_FLAG {a = flag id, b = 1, bytes = 8} to the flag's watcher
 *   (dst_dev) through the bus. b is an increment of a completion counter:
 *   memory should add it, so that a flag reused every iteration reaches k.
 *
 * Packets on the net port are struct nic_packet slots (below): a pmsg with
 * what the target needs after it, in the same slot. Switches must forward
 * the slot's handle unchanged (and may only read the pmsg prefix).
 */
#ifndef MODELS_NIC_H
#define MODELS_NIC_H

#include <stdint.h>

#include "engine.h"
#include "net.h"
#include "nodeprog.h"
#include "proto.h"
#include "trigger_list.h"

enum nic_port { NIC_PORT_BUS, NIC_PORT_NET, NIC_PORT_NVL };

/* Group "nic": see nic_params for units, defaults and ranges. */
struct nic_config {
  sim_time cmd_cost;        /* per-command processing (commands, doorbells) */
  int64_t trigger_entries;  /* active on-NIC trigger entries */
  int trigger_full;         /* enum tl_full: spill | stall (PAR_ENUM) */
  sim_time overflow_lookup; /* a lookup that searches/writes the host-memory overflow */
  sim_time match_latency;   /* pop and match one trigger store */
  bool nvl_direct;          /* same-node data moves HBM to HBM over NVLink: no bus DMA */
  int64_t triggered_ops;    /* the host's triggered operations held before the host waits;
                               0: no bound */
};

enum nic_ptype {
  NIC_PT_PUT,     /* put data: flag_* is the remote completion flag */
  NIC_PT_GET_REQ, /* get request (header only): msg_bytes are asked for */
  NIC_PT_GET_REP, /* get reply data; m.op is the initiator's message id */
  NIC_PT_ACK,     /* header only: the target has the whole put m.op (nic_cmd.ack) */
};

/* A PK_PACKET slot. m.src_node/m.dst_node: endpoints; m.a: a put's
 * packets ask for an ACK (nic_cmd.ack); m.bytes: the packet's
 * payload (0..mtu; net.header_bytes more travel on the wire, see switch.h); m.op: message id, unique per initiator
 * (for a get reply: the id of the get); m.seq/m.count: this packet's index
 * and the message's packet count. */
struct nic_packet {
  struct pmsg m;
  uint8_t type;         /* enum nic_ptype */
  uint8_t flag_watcher; /* NIC_PT_PUT: enum pdev of the remote flag's watcher */
  uint8_t store;        /* NIC_PT_PUT: the GPU's NVLink stores (pmsg.nvl) */
  uint32_t flag_id;     /* NIC_PT_PUT: remote flag id (0: none) */
  int64_t msg_bytes;    /* payload bytes of the whole message (get request: asked for) */
};
_Static_assert(sizeof(struct nic_packet) <= SIM_PAYLOAD_BYTES, "nic_packet fits a payload slot");

extern const struct par_group nic_params;
extern const struct sim_type nic_type;

/* What a NIC reports at the end of a run, "node<i>.nic.KEY": its declared
 * outputs (nic_outs; `trigsim outputs nic`), in the order it reports them;
 * NIC_OUT(NAME) is a checked handle (cpu.h's CPU_OUT). */
enum nic_out {
  NIC_OUT_COMMANDS, NIC_OUT_NVL_STORES, NIC_OUT_DOORBELLS, NIC_OUT_REGISTRATIONS, NIC_OUT_PUTS,
  NIC_OUT_GETS, NIC_OUT_DMA_READS, NIC_OUT_TRIGGERS_STORED, NIC_OUT_TRIGGERS_MATCHED,
  NIC_OUT_TRIGGERS_UNMATCHED, NIC_OUT_OPS_FIRED, NIC_OUT_ENTRIES_IN_USE_MEAN,
  NIC_OUT_ENTRIES_IN_USE_MAX, NIC_OUT_ENTRIES_LEFT, NIC_OUT_OVERFLOW_ENTRIES,
  NIC_OUT_OVERFLOW_LOOKUPS, NIC_OUT_STALLS, NIC_OUT_STALL_TIME, NIC_OUT_STALLED_AT_END,
  NIC_OUT_PACKETS_SENT, NIC_OUT_BYTES_SENT, NIC_OUT_NVL_BYTES_SENT, NIC_OUT_PAYLOAD_SENT,
  NIC_OUT_PACKETS_RECEIVED, NIC_OUT_BYTES_RECEIVED, NIC_OUT_PAYLOAD_RECEIVED, NIC_OUT_COUNT
};
extern const struct sim_out_decl nic_outs[NIC_OUT_COUNT];
extern const struct sim_outputs nic_outputs;
#define NIC_OUT(name) (&nic_outs[NIC_OUT_##name])

/* Adds a NIC named NAME ("node3.nic") for node NODE to E. CFG, NET and PROG
 * (may be NULL) are borrowed and must outlive the run. */
struct sim_comp *nic_add(struct sim_engine *e, const char *name, const struct nic_config *cfg,
                         const struct net_config *net, const struct nodeprog *prog, uint32_t node);

#endif
