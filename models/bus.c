/* The node bus (see bus.h): per-destination serialization, posted-write
 * ordering per source, DMA reads answered from the memory behind it. */
#include "bus.h"

#include <glib.h>
#include <stddef.h>

#include "net.h"
#include "phase.h"
#include "trace.h"

#define N_DIR (DEV_COUNT + 1) /* CPU, GPU, NIC, MEM */
_Static_assert(DEV_CPU == 0 && DEV_GPU == 1 && DEV_NIC == 2 && DEV_MEM == 3,
               "bus_outs lists the directions in enum pdev's order");
_Static_assert(BUS_OUT_TO_GPU_MSGS == BUS_OUT_TO_CPU_MSGS + 5 &&
                   BUS_OUT_TO_NIC_MSGS == BUS_OUT_TO_GPU_MSGS + 5 &&
                   BUS_OUT_TO_MEM_MSGS == BUS_OUT_TO_NIC_MSGS + 5 &&
                   BUS_OUT_DMA_READS == BUS_OUT_TO_MEM_MSGS + 3,
               "five outputs a device direction, three to memory (bus_finish)");

static const char *const dir_names[N_DIR] = {"cpu", "gpu", "nic", "mem"};

struct bus_state {
  uint32_t node;
  sim_time busy[N_DIR];      /* per destination direction: serialization ends */
  sim_time last_from[N_DIR]; /* per source: when its last message was delivered */
  uint64_t msgs_to[N_DIR], msgs_from[N_DIR], dma_reads;
  int64_t bytes_to[N_DIR], bytes_from[N_DIR];
  sim_time busy_time[N_DIR]; /* serialization time per destination direction */
  int track[N_DIR];
  bool tracks_made;
};

#define PAR_CONFIG struct bus_config
static const struct par_decl bus_decls[] = {
    PAR(kind, PAR_ENUM, "apu", NULL, NULL, "apu|pcie",
      "what the numbers describe (documentation only): apu = coherent SoC fabric (GPU-TN "
      "Sec. 5.1); for pcie use e.g. latency 500ns, bandwidth 128Gbps"),
    PAR(latency, PAR_TIME, "100ns", "0ps", "1ms", NULL,
      "one-way latency of a posted write between devices or to memory (APU fabric ~100ns; "
      "PCIe gen3 through the root complex ~500ns)"),
    PAR(bandwidth, PAR_BANDWIDTH, "256Gbps", "1Mbps", "100Tbps", NULL,
      "bandwidth of each destination direction (APU/PCIe gen4 x16 ~256Gbps; gen3 x16 128Gbps)"),
    PAR(mem_latency, PAR_TIME, "80ns", "0ps", "1ms", NULL,
      "memory access of a DMA read, from the request entering the bus until the data leaves "
      "memory (DDR4-2133, Table 2: ~80ns)"),
    PAR(control_bytes, PAR_SIZE, "64B", "0B", "1MiB", NULL,
      "bytes charged for a control message (bytes == 0): one cache line / small TLP"),
    PAR(nvl_relay, PAR_BOOL, "true", NULL, NULL, NULL,
      "an NVLink store, which the bus only passes on, makes no bus event of its own (an "
      "engine relay: same times, same order); false: one bus event each (to check)"),
};
#undef PAR_CONFIG

const struct par_group bus_params = {
    .name = "bus",
    .doc = "node bus joining CPU, GPU and NIC, with the node's memory behind it",
    .decls = bus_decls,
    .n_decls = PAR_COUNT(bus_decls),
    .config_size = sizeof(struct bus_config),
};

static const char *const bus_ports[] = {"cpu", "gpu", "nic"};

static const char *kind_name(uint8_t kind) {
  static const char *const names[] = {"queue cmd", "kernel done", "host request", "nic cmd",
                                      "trigger",   "doorbell",    "dma read",     "dma data",
                                      "mem write", "flag",        "packet",       "nic room"};
  return kind < G_N_ELEMENTS(names) ? names[kind] : "message";
}

/* Reserves direction DIR for BYTES from NOW on; returns when they are all
 * on it (add the latency for the arrival). */
static sim_time bus_serialize(struct sim_comp *c, int dir, int64_t bytes, sim_time now,
                              uint8_t kind) {
  const struct bus_config *cfg = c->config;
  struct bus_state *s = c->state;
  int64_t charged = bytes > 0 ? bytes : cfg->control_bytes;
  sim_time start = s->busy[dir] > now ? s->busy[dir] : now;
  sim_time ser = net_ser_time(charged, cfg->bandwidth);
  s->busy[dir] = start + ser;
  s->busy_time[dir] += ser;
  s->msgs_to[dir]++;
  s->bytes_to[dir] += charged;
  if (G_UNLIKELY(c->traced) && ser > 0) {
    if (!s->tracks_made) {
      s->tracks_made = true;
      for (int d = 0; d < N_DIR; d++) {
        char sub[16];
        g_snprintf(sub, sizeof sub, "to_%s", dir_names[d]);
        s->track[d] = sim_track_sub(c, sub);
      }
    }
    trace_span(sim_trace(c->eng), s->track[dir], kind_name(kind), start, start + ser);
  }
  return s->busy[dir];
}

/* Counts message M from device SRC in. */
static void count_from(struct sim_comp *c, int src, struct pmsg *m) {
  const struct bus_config *cfg = c->config;
  struct bus_state *s = c->state;
  m->src_dev = (uint8_t)src;
  s->msgs_from[src]++;
  s->bytes_from[src] += m->bytes > 0 ? m->bytes : cfg->control_bytes;
}

/* Handles message H from device SRC. */
static void bus_message(struct sim_comp *c, int src, uint64_t h) {
  const struct bus_config *cfg = c->config;
  struct bus_state *s = c->state;
  sim_time now = sim_now(c->eng);
  struct pmsg *m = sim_payload(c->eng, h);
  count_from(c, src, m);
  if (m->dst_dev == DEV_MEM) {
    if (m->kind == PK_DMA_READ) {
      /* The request is folded into mem_latency; the data is serialized back. */
      s->dma_reads++;
      sim_time at = bus_serialize(c, src, m->bytes, now + cfg->mem_latency, PK_DMA_DATA) +
                    cfg->latency;
      if (at < s->last_from[DEV_MEM]) at = s->last_from[DEV_MEM];
      s->last_from[DEV_MEM] = at;
      m->kind = PK_DMA_DATA;
      m->dst_dev = (uint8_t)src;
      m->src_dev = DEV_MEM;
      sim_send(c, src, at - now, PK_DMA_DATA, h);
    } else if (m->kind == PK_MEM_WRITE) {
      sim_time at = bus_serialize(c, DEV_MEM, m->bytes, now, m->kind) + cfg->latency;
      if (at > s->last_from[src]) s->last_from[src] = at;
      sim_payload_free(c->eng, h);
    } else {
      g_error("%s: message kind %u (%s) cannot go to memory", c->name, m->kind,
              kind_name(m->kind));
    }
    return;
  }
  if (m->dst_dev >= DEV_COUNT)
    g_error("%s: message kind %u (%s) to unknown device %u", c->name, m->kind, kind_name(m->kind),
            m->dst_dev);
  int dst = m->dst_dev;
  if (m->nvl) { /* an NVLink store: the GPU's own fabric, not this bus */
    sim_send(c, dst, 0, m->kind, h);
    return;
  }
  sim_time at = bus_serialize(c, dst, m->bytes, now, m->kind) + cfg->latency;
  if (at < s->last_from[src]) at = s->last_from[src];
  s->last_from[src] = at;
  sim_send(c, dst, at - now, m->kind, h);
}

/* A message, and the ones chained behind it (pmsg.next), one after the
 * other: what their own events would have done, those events having run
 * one right after another. */
static void bus_handle(struct sim_comp *c, const struct sim_event *ev) {
  if (ev->port >= DEV_COUNT) g_error("%s: unexpected self event", c->name);
  for (uint64_t h = ev->data; h;) {
    struct pmsg *m = sim_payload(c->eng, h);
    uint64_t next = m->next;
    m->next = 0;
    bus_message(c, ev->port, h);
    h = next;
  }
}

/* An NVLink store passing as a relay (sim_send_via) out of port ev->port:
 * what bus_message does with it, but the send. Its sender set src_dev (a
 * device's port on the bus is its enum pdev). */
static void bus_relay(struct sim_comp *c, const struct sim_event *ev) {
  struct pmsg *m = sim_payload(c->eng, ev->data);
  g_assert(m->nvl && m->next == 0 && m->dst_dev == ev->port && m->src_dev < DEV_COUNT);
  count_from(c, m->src_dev, m);
}

const struct sim_out_decl bus_outs[] = {
    [BUS_OUT_TO_CPU_MSGS] = OUT(to_cpu_msgs, UNIT_NONE, "messages delivered to the CPU"),
    [BUS_OUT_TO_CPU_BYTES] = OUT(to_cpu_bytes, UNIT_SIZE, "bytes delivered to the CPU"),
    [BUS_OUT_TO_CPU_BUSY] = OUT(to_cpu_busy, UNIT_TIME, "serialization time toward the CPU"),
    [BUS_OUT_FROM_CPU_MSGS] = OUT(from_cpu_msgs, UNIT_NONE, "messages sent by the CPU"),
    [BUS_OUT_FROM_CPU_BYTES] = OUT(from_cpu_bytes, UNIT_SIZE, "bytes sent by the CPU"),
    [BUS_OUT_TO_GPU_MSGS] = OUT(to_gpu_msgs, UNIT_NONE, "messages delivered to the GPU"),
    [BUS_OUT_TO_GPU_BYTES] = OUT(to_gpu_bytes, UNIT_SIZE, "bytes delivered to the GPU"),
    [BUS_OUT_TO_GPU_BUSY] = OUT(to_gpu_busy, UNIT_TIME, "serialization time toward the GPU"),
    [BUS_OUT_FROM_GPU_MSGS] = OUT(from_gpu_msgs, UNIT_NONE, "messages sent by the GPU"),
    [BUS_OUT_FROM_GPU_BYTES] = OUT(from_gpu_bytes, UNIT_SIZE, "bytes sent by the GPU"),
    [BUS_OUT_TO_NIC_MSGS] = OUT(to_nic_msgs, UNIT_NONE, "messages delivered to the NIC"),
    [BUS_OUT_TO_NIC_BYTES] = OUT(to_nic_bytes, UNIT_SIZE, "bytes delivered to the NIC"),
    [BUS_OUT_TO_NIC_BUSY] = OUT(to_nic_busy, UNIT_TIME, "serialization time toward the NIC"),
    [BUS_OUT_FROM_NIC_MSGS] = OUT(from_nic_msgs, UNIT_NONE, "messages sent by the NIC"),
    [BUS_OUT_FROM_NIC_BYTES] = OUT(from_nic_bytes, UNIT_SIZE, "bytes sent by the NIC"),
    [BUS_OUT_TO_MEM_MSGS] = OUT(to_mem_msgs, UNIT_NONE, "messages delivered to memory"),
    [BUS_OUT_TO_MEM_BYTES] = OUT(to_mem_bytes, UNIT_SIZE, "bytes delivered to memory"),
    [BUS_OUT_TO_MEM_BUSY] = OUT(to_mem_busy, UNIT_TIME, "serialization time toward memory"),
    [BUS_OUT_DMA_READS] = OUT(dma_reads, UNIT_NONE, "DMA reads answered from memory"),
};
SIM_OUT_GROUP(bus_outputs, "bus", "node<i>.bus.KEY; by kind node.bus.KEY", bus_outs,
              BUS_OUT_COUNT);

/* Each direction's first output (to_X_msgs); from_X_msgs follow its to_X_busy. */
static const unsigned dir_out[N_DIR] = {BUS_OUT_TO_CPU_MSGS, BUS_OUT_TO_GPU_MSGS,
                                        BUS_OUT_TO_NIC_MSGS, BUS_OUT_TO_MEM_MSGS};

static void bus_finish(struct sim_comp *c, struct sim_report *r) {
  struct bus_state *s = c->state;
  for (int d = 0; d < N_DIR; d++) {
    unsigned o = dir_out[d];
    sim_out_int(r, c, o, (int64_t)s->msgs_to[d]);
    sim_out_int(r, c, o + 1, s->bytes_to[d]);
    sim_out_int(r, c, o + 2, s->busy_time[d]);
    if (d == DEV_MEM) continue;
    sim_out_int(r, c, o + 3, (int64_t)s->msgs_from[d]);
    sim_out_int(r, c, o + 4, s->bytes_from[d]);
  }
  sim_out_int(r, c, BUS_OUT_DMA_READS, (int64_t)s->dma_reads);
}

const struct sim_type bus_type = {
    .name = "bus",
    .doc = "a node bus (APU fabric or PCIe) with the node's memory behind it",
    .params = &bus_params,
    .ports = bus_ports,
    .n_ports = DEV_COUNT,
    .state_size = sizeof(struct bus_state),
    .handle = bus_handle,
    .outputs = &bus_outputs,
    .finish = bus_finish,
    .relay = bus_relay,
    .cp_cat = CP_BUS,
    .cp_link = CP_BUS,
    .port_payloads = true,
};

struct sim_comp *bus_add(struct sim_engine *e, const char *name, const struct bus_config *cfg,
                         uint32_t node) {
  g_assert(cfg && cfg->bandwidth > 0 && cfg->latency >= 0 && cfg->mem_latency >= 0 &&
           cfg->control_bytes >= 0);
  struct sim_comp *c = sim_add(e, &bus_type, name, cfg);
  struct bus_state *s = c->state;
  s->node = node;
  return c;
}
