/* A node's interconnect: the bus (a coherent APU fabric as in GPU-TN
 * Sec. 5.1, or PCIe) joining CPU, GPU and NIC, with the node's memory behind
 * it (DESIGN.md Sec. 3 "Node interconnect").
 *
 * Ports "cpu", "gpu", "nic" (indices = enum pdev). Join them to the devices
 * with zero-latency engine links: the bus charges its own latency. Every
 * message is a pmsg payload slot (proto.h); the bus forwards the same slot
 * (event kind = pmsg kind) and sets m->src_dev to the port it came in on.
 *
 * Timing. A message from a device to dst_dev (CPU, GPU or NIC) is serialized
 * on that destination's direction: start = max(now, busy[dst]),
 * busy[dst] = start + bytes*8/bandwidth (bytes == 0 charges control_bytes),
 * delivered at busy[dst] + latency. Posted writes from one source are never
 * reordered, even towards different destinations (PCIe producer/consumer
 * ordering): a message is delivered no earlier than the previous one from the
 * same source was delivered or absorbed, so a NIC's data write to memory
 * lands before the completion flag that follows it.
 * DEV_MEM: PK_MEM_WRITE is serialized on the memory direction and absorbed at
 * busy[mem] + latency (no reply; the slot is freed). PK_DMA_READ {bytes, op}
 * is answered to its source with PK_DMA_DATA {bytes, op} (the same slot):
 * the data leaves memory at now + mem_latency, is serialized on the source's
 * direction and arrives latency later: uncontended
 * latency + mem_latency + bytes*8/bandwidth after the request.
 * Chains. A device that sends several messages to the bus for one instant,
 * one right after another, may send them as one event: the first, with the
 * handle of the second in pmsg.next, and so on. Their own events would have
 * had consecutive sequence numbers at one time, so the bus would have run
 * them one right after another with nothing between: it handles a chain in
 * that order, each message as above (the NIC's write of a message's last
 * packet and the completion flag behind it).
 * NVLink stores (pmsg.nvl) are passed on at once and only counted; their
 * senders send them with sim_send_via (a relay: no bus event of their own,
 * the same times and order), unless bus.nvl_relay is false, which makes
 * sys_build turn the engine's relays off (the check). */
#ifndef MODELS_BUS_H
#define MODELS_BUS_H

#include <stdint.h>

#include "engine.h"
#include "proto.h"

enum bus_kind { BUS_APU, BUS_PCIE };

/* Group "bus": see bus_params for units, defaults and ranges. */
struct bus_config {
  int kind;              /* enum bus_kind (PAR_ENUM): documentation of intent only */
  sim_time latency;      /* one way, device to device (or to memory) */
  int64_t bandwidth;     /* bits per second, per destination direction */
  sim_time mem_latency;  /* memory access of a DMA read */
  int64_t control_bytes; /* bytes charged for a message with bytes == 0 */
  bool nvl_relay;        /* NVLink stores pass as relays (engine.h), not bus events */
};

extern const struct par_group bus_params;
extern const struct sim_type bus_type;

/* What a bus reports at the end of a run, "node<i>.bus.KEY": its declared
 * outputs (bus_outs; `trigsim outputs bus`), per direction (messages,
 * bytes and serialization time to each device and to memory, messages and
 * bytes from each device) in the order it reports them; BUS_OUT(NAME) is a
 * checked handle (cpu.h's CPU_OUT). */
enum bus_out {
  BUS_OUT_TO_CPU_MSGS, BUS_OUT_TO_CPU_BYTES, BUS_OUT_TO_CPU_BUSY,
  BUS_OUT_FROM_CPU_MSGS, BUS_OUT_FROM_CPU_BYTES,
  BUS_OUT_TO_GPU_MSGS, BUS_OUT_TO_GPU_BYTES, BUS_OUT_TO_GPU_BUSY,
  BUS_OUT_FROM_GPU_MSGS, BUS_OUT_FROM_GPU_BYTES,
  BUS_OUT_TO_NIC_MSGS, BUS_OUT_TO_NIC_BYTES, BUS_OUT_TO_NIC_BUSY,
  BUS_OUT_FROM_NIC_MSGS, BUS_OUT_FROM_NIC_BYTES,
  BUS_OUT_TO_MEM_MSGS, BUS_OUT_TO_MEM_BYTES, BUS_OUT_TO_MEM_BUSY,
  BUS_OUT_DMA_READS, BUS_OUT_COUNT
};
extern const struct sim_out_decl bus_outs[BUS_OUT_COUNT];
extern const struct sim_outputs bus_outputs;
#define BUS_OUT(name) (&bus_outs[BUS_OUT_##name])

/* Adds a bus named NAME ("node3.bus") for node NODE. CFG is borrowed and
 * must outlive the run. */
struct sim_comp *bus_add(struct sim_engine *e, const char *name, const struct bus_config *cfg,
                         uint32_t node);

#endif
