/* The messages hardware components exchange, and the small programs that
 * CPUs and GPUs run. Every message travels as an engine payload slot (see
 * sim_payload_new) whose handle is the event's data; the receiver that
 * consumes it frees it. Policies (workloads/policies/policy_*.c) write the programs;
 * the models only execute them. */
#ifndef MODELS_PROTO_H
#define MODELS_PROTO_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

/* Devices of a node, in the order of the bus's ports; DEV_MEM is the
 * memory behind the bus (DMA reads and writes end there). */
enum pdev { DEV_CPU, DEV_GPU, DEV_NIC, DEV_COUNT, DEV_MEM = DEV_COUNT };

enum pkind {
  PK_QUEUE_CMD,   /* CPU -> GPU front end: append a command to an in-order queue */
  PK_KERNEL_DONE, /* GPU -> CPU: a kernel's completion record (noticed per cpu.switch_mode) */
  PK_HOST_REQUEST,/* GPU -> CPU helper threads: a request in the GPU->CPU queue (ghn) */
  PK_NIC_CMD,     /* CPU or GPU -> NIC: a posted command (struct nic_cmd) */
  PK_TRIGGER,     /* GPU -> NIC: system-scope store of a tag to the trigger address */
  PK_DOORBELL,    /* GPU front end -> NIC: start pre-posted command `cmd_id` (GDS) */
  PK_DMA_READ,    /* NIC -> bus memory: read `bytes`; answered by PK_DMA_DATA */
  PK_DMA_DATA,    /* bus memory -> NIC: the data of a DMA read */
  PK_MEM_WRITE,   /* NIC -> bus memory: write `bytes` (payload arriving at a target) */
  PK_FLAG,        /* memory -> watcher: add `b` to flag word `a` (a completion counter) */
  PK_PACKET,      /* network: one packet of a message */
  PK_NIC_ROOM,    /* NIC -> CPU: a = 0: the NIC holds nic.triggered_ops of the host's
                     triggered operations (its next registration waits); a = 1: room again */
  /* Link-level flow control (flow.h), from a switch back to the sender of a
   * packet; their data is not a payload slot. */
  PK_LINK_HOLD,   /* the packet of this index on the link did not leave at its ready time */
  PK_LINK_CREDIT, /* credit back: flow_credit_data(bytes, vl), usable 1 ps after arrival */
};

enum nic_op {
  NIC_PUT,        /* one-sided put of `bytes` to dst_node */
  NIC_GET,        /* one-sided get of `bytes` from dst_node */
  NIC_TPUT,       /* triggered put: registers {tag, threshold} on the trigger list */
  NIC_TGET,       /* triggered get */
  NIC_POST,       /* pre-post a put under cmd_id, started later by a doorbell (GDS) */
};

/* A flag word in a node's memory and who polls it. Flag 0 means none. */
struct pflag {
  uint32_t id;
  uint8_t watcher; /* enum pdev: who is told when it changes */
};

struct nic_cmd {
  uint8_t op;          /* enum nic_op */
  uint32_t dst_node;
  int64_t bytes;
  uint32_t tag;        /* NIC_TPUT/NIC_TGET */
  uint32_t threshold;  /* NIC_TPUT/NIC_TGET, >= 1 */
  uint32_t cmd_id;     /* NIC_POST: the id a doorbell names */
  struct pflag remote; /* set at the target when the data is in its memory */
  struct pflag local;  /* set at the initiator when the send buffer is reusable
                          (put) or the data has arrived (get) */
  uint8_t ack;         /* NIC_PUT: `local` is set when the target's NIC has
                          acknowledged the whole put (remote completion, as
                          nvshmem_quiet waits for: an RC transport's ACK), not
                          when its last packet left */
};

/* The common header of every payload slot. */
struct pmsg {
  uint8_t kind;        /* enum pkind */
  uint8_t dst_dev;     /* enum pdev, for the bus */
  uint8_t src_dev;
  uint8_t queue;       /* PK_QUEUE_CMD: which GPU queue */
  uint8_t nvl;         /* PK_NIC_CMD from the GPU, PK_FLAG: an NVLink store
                          (the SMs write a same-node GPU's memory, kstep.nvl):
                          the bus passes it on at once, it never crosses PCIe */
  uint8_t vl;          /* PK_PACKET: the virtual lane of the hop it is on (flow.h) */
  uint32_t src_node, dst_node;
  int64_t bytes;       /* bytes this message moves across a bus or link */
  uint32_t a, b;       /* kind-specific: PK_QUEUE_CMD a = command index into the
                          node's queue program; PK_TRIGGER a = tag; PK_DOORBELL
                          a = cmd_id; PK_FLAG a = flag id, b = increment;
                          PK_KERNEL_DONE a = kernel index */
  uint64_t op;         /* operation id, for matching replies (DMA, packets);
                          PK_TRIGGER: its flow on a trace (trig_flow; 0: none) */
  uint32_t seq;        /* PK_PACKET: index of this packet in its message */
  union {
    uint32_t count;    /* PK_PACKET: how many packets its message has */
    uint32_t next;     /* to the bus (never a packet): the handle of a message the same
                          device sent to the bus right after this one for the same
                          instant (0: none), handled by the bus right after it (bus.h) */
  };
};
_Static_assert(sizeof(struct pmsg) <= SIM_PAYLOAD_BYTES, "pmsg fits a payload slot");
_Static_assert(sizeof(struct nic_cmd) <= SIM_PAYLOAD_BYTES, "nic_cmd fits a payload slot");

/* A PK_NIC_CMD payload is a struct pmsg followed by nothing: its nic_cmd is
 * carried in a second slot whose handle is in pmsg.op. */

/* The trace's flow id (trace_span_flow) of the K-th trigger store of the
 * GPU of NODE: from the store (a span on its WG's track) to the NIC's match
 * of it. Message flows (nic.c) have the top bit clear. */
static inline uint64_t trig_flow(uint32_t node, uint64_t k) {
  return (uint64_t)1 << 63 | (uint64_t)node << 32 | (k & 0xffffffffu);
}

/* Allocates a payload slot holding a zeroed pmsg of KIND; returns handle. */
static inline uint64_t pmsg_new(struct sim_engine *e, enum pkind kind, struct pmsg **out) {
  uint64_t h = sim_payload_new(e);
  struct pmsg *m = sim_payload(e, h);
  m->kind = (uint8_t)kind;
  *out = m;
  return h;
}

#endif
