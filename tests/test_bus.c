/* Bus model: serialization per destination direction, posted-write order
 * per source, contention between a NIC's DMA data and GPU stores, the DMA
 * read round trip and memory writes; every time derived by hand.
 *
 * The rig: a bus with fake devices on its cpu, gpu and nic ports (zero-
 * latency links), each sending scripted messages and recording what it
 * receives. Bus: latency B = 100 ns, 512 Gbps (64 B = 1 ns, 4096 B = 64 ns,
 * 8 B = 125 ps), mem_latency M = 80 ns, control_bytes 64. */
#include <glib.h>
#include <string.h>

#include "bus.h"
#include "engine.h"
#include "proto.h"
#include "testutil.h"

#define NS SIM_NS
#define B (100 * NS)
#define M (80 * NS)
#define REC_MAX 16

struct dsend {
  sim_time at;
  uint8_t kind, dst_dev;
  int64_t bytes;
  uint64_t op;
  bool chained; /* rides behind the send before it, in one chain (bus.h); same `at` */
};

struct dscript {
  int n;
  struct dsend s[8];
};

struct dev {
  int n;
  uint8_t kind[REC_MAX], src[REC_MAX];
  sim_time at[REC_MAX];
  int64_t bytes[REC_MAX];
  uint64_t op[REC_MAX];
};

static void dev_init(struct sim_comp *c) {
  const struct dscript *sc = c->config;
  for (int i = 0; i < sc->n; i++)
    if (!sc->s[i].chained) sim_schedule(c, sc->s[i].at, 1, (uint64_t)i);
}

static uint64_t dev_msg(struct sim_comp *c, const struct dsend *x) {
  struct pmsg *m;
  uint64_t h = pmsg_new(c->eng, x->kind, &m);
  m->dst_dev = x->dst_dev;
  m->src_dev = 0xEE; /* the bus sets it from the port */
  m->bytes = x->bytes;
  m->op = x->op;
  return h;
}

static void dev_handle(struct sim_comp *c, const struct sim_event *ev) {
  struct dev *d = c->state;
  if (ev->port == SIM_PORT_SELF) {
    const struct dscript *sc = c->config;
    const struct dsend *x = &sc->s[ev->data];
    uint64_t h = dev_msg(c, x);
    struct pmsg *last = sim_payload(c->eng, h);
    for (uint64_t i = ev->data + 1; i < (uint64_t)sc->n && sc->s[i].chained; i++) {
      uint64_t hn = dev_msg(c, &sc->s[i]);
      last->next = (uint32_t)hn;
      last = sim_payload(c->eng, hn);
    }
    sim_send(c, 0, 0, x->kind, h);
    return;
  }
  struct pmsg *m = sim_payload(c->eng, ev->data);
  CU_ASSERT_FATAL(d->n < REC_MAX);
  CU_ASSERT_EQUAL(ev->kind, m->kind);
  d->kind[d->n] = m->kind;
  d->src[d->n] = m->src_dev;
  d->at[d->n] = sim_now(c->eng);
  d->bytes[d->n] = m->bytes;
  d->op[d->n++] = m->op;
  sim_payload_free(c->eng, ev->data);
}

static const char *const dev_ports[] = {"bus"};
static const struct sim_type dev_type = {.name = "dev", .ports = dev_ports, .n_ports = 1,
                                         .state_size = sizeof(struct dev), .init = dev_init,
                                         .handle = dev_handle};

struct rig {
  struct sim_engine *e;
  struct bus_config cfg;
  struct dscript script[DEV_COUNT];
  struct sim_comp *bus, *dev[DEV_COUNT];
  struct sim_report rep;
};

static void rig_init(struct rig *r) {
  memset(r, 0, sizeof *r);
  par_group_defaults(&bus_params, &r->cfg);
  r->cfg.latency = B;
  r->cfg.bandwidth = 512000000000;
  r->cfg.mem_latency = M;
  r->cfg.control_bytes = 64;
  sim_report_init(&r->rep);
}

static void rig_run(struct rig *r) {
  static const char *const names[] = {"node0.cpu", "node0.gpu", "node0.nic"};
  char *err = NULL;
  r->e = sim_new(1);
  r->bus = bus_add(r->e, "node0.bus", &r->cfg, 0);
  for (int d = 0; d < DEV_COUNT; d++) {
    r->dev[d] = sim_add(r->e, &dev_type, names[d], &r->script[d]);
    CU_ASSERT_TRUE(sim_connect(r->bus, d, r->dev[d], 0, 0, &err));
  }
  sim_run(r->e, SIM_TIME_MAX, 0);
  sim_finish(r->e, &r->rep);
  CU_ASSERT_EQUAL(sim_payloads_live(r->e), 0);
}

static struct dev *dev(struct rig *r, int d) { return r->dev[d]->state; }

static int64_t rep(struct rig *r, const char *key) {
  const struct sim_report_entry *en = sim_report_find(&r->rep, key);
  CU_ASSERT_PTR_NOT_NULL(en);
  return en ? en->i : INT64_MIN;
}

static void rig_free(struct rig *r) {
  sim_report_clear(&r->rep);
  sim_free(r->e);
}

/* Serialization per destination; order per source even across
 * destinations; independent sources to different destinations do not
 * interact. */
static void test_serialization(void) {
  struct rig r;
  rig_init(&r);
  /* NIC at 0: 4096 B to the CPU, 64 B to the CPU, a control message to the
   * GPU. GPU at 0: a control message to the NIC. */
  r.script[DEV_NIC] = (struct dscript){3, {{0, PK_FLAG, DEV_CPU, 4096, 1, false},
                                           {0, PK_FLAG, DEV_CPU, 64, 2, false},
                                           {0, PK_FLAG, DEV_GPU, 0, 3, false}}};
  r.script[DEV_GPU] = (struct dscript){1, {{0, PK_TRIGGER, DEV_NIC, 0, 4, false}}};
  rig_run(&r);
  /* To the CPU: 4096 B on [0, 64 ns], at 64 + 100 = 164 ns; 64 B on
   * [64, 65], at 165 ns. To the GPU: 64 B (control) on [0, 1], would arrive
   * at 101 ns, but the NIC's earlier message arrived at 165: at 165 ns. To
   * the NIC from the GPU: 1 + 100 = 101 ns. */
  struct dev *cpu = dev(&r, DEV_CPU), *gpu = dev(&r, DEV_GPU), *nic = dev(&r, DEV_NIC);
  CU_ASSERT_EQUAL_FATAL(cpu->n, 2);
  CU_ASSERT_EQUAL(cpu->at[0], 164 * NS);
  CU_ASSERT_EQUAL(cpu->op[0], 1);
  CU_ASSERT_EQUAL(cpu->at[1], 165 * NS);
  CU_ASSERT_EQUAL(cpu->src[1], DEV_NIC);
  CU_ASSERT_EQUAL_FATAL(gpu->n, 1);
  CU_ASSERT_EQUAL(gpu->at[0], 165 * NS);
  CU_ASSERT_EQUAL_FATAL(nic->n, 1);
  CU_ASSERT_EQUAL(nic->at[0], 101 * NS);
  CU_ASSERT_EQUAL(nic->src[0], DEV_GPU);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.to_cpu_msgs"), 2);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.to_cpu_bytes"), 4096 + 64);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.to_cpu_busy"), 65 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.to_gpu_bytes"), 64);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.from_nic_msgs"), 3);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.from_gpu_msgs"), 1);
  rig_free(&r);
}

/* DMA read round trip, and the data contending with a GPU store on the
 * NIC direction. */
static void test_dma_read(void) {
  struct rig r;
  rig_init(&r);
  r.script[DEV_NIC] = (struct dscript){1, {{0, PK_DMA_READ, DEV_MEM, 4096, 77, false}}};
  r.script[DEV_GPU] = (struct dscript){1, {{100 * NS, PK_TRIGGER, DEV_NIC, 0, 5, false}}};
  rig_run(&r);
  /* The data leaves memory at M = 80 ns, is serialized towards the NIC on
   * [80, 144] and arrives at 144 + 100 = 244 ns = B + M + 64 ns. The GPU's
   * store at 100 ns waits for the direction: [144, 145], at 245 ns (201 ns
   * without the DMA). */
  struct dev *nic = dev(&r, DEV_NIC);
  CU_ASSERT_EQUAL_FATAL(nic->n, 2);
  CU_ASSERT_EQUAL(nic->kind[0], PK_DMA_DATA);
  CU_ASSERT_EQUAL(nic->at[0], B + M + 64 * NS);
  CU_ASSERT_EQUAL(nic->bytes[0], 4096);
  CU_ASSERT_EQUAL(nic->op[0], 77);
  CU_ASSERT_EQUAL(nic->src[0], DEV_MEM);
  CU_ASSERT_EQUAL(nic->kind[1], PK_TRIGGER);
  CU_ASSERT_EQUAL(nic->at[1], 245 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.dma_reads"), 1);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.to_nic_bytes"), 4096 + 64);
  rig_free(&r);
}

/* A memory write is absorbed (no reply) and the flag after it does not
 * overtake it. */
static void test_mem_write_then_flag(void) {
  struct rig r;
  rig_init(&r);
  r.script[DEV_NIC] = (struct dscript){2, {{0, PK_MEM_WRITE, DEV_MEM, 4096, 1, false},
                                           {0, PK_FLAG, DEV_GPU, 8, 2, false}}};
  rig_run(&r);
  /* Write: [0, 64 ns] on the memory direction, absorbed at 164 ns. Flag:
   * 8 B = 125 ps on the GPU direction, would arrive at 100.125 ns; after the
   * write: 164 ns. */
  struct dev *gpu = dev(&r, DEV_GPU);
  CU_ASSERT_EQUAL_FATAL(gpu->n, 1);
  CU_ASSERT_EQUAL(gpu->at[0], 164 * NS);
  CU_ASSERT_EQUAL(dev(&r, DEV_NIC)->n, 0);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.to_mem_msgs"), 1);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.to_mem_bytes"), 4096);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.to_gpu_busy"), 125);
  rig_free(&r);
}

/* A chain (bus.h) does what its messages sent one right after another do:
 * the NIC's write, a flag to the GPU and one to the CPU, once as three
 * sends and once as one chain, with the CPU's command to the GPU at the
 * same instant before them. By hand: CPU command 64 B on the GPU direction
 * [0, 1 ns], at the GPU at 101 ns. Write [0, 64 ns] on memory, absorbed at
 * 164 ns. Flag to the GPU [1, 1.125 ns] + B = 101.125 ns, held behind the
 * write: 164 ns. Flag to the CPU [0, 0.125 ns], 100.125 ns, held: 164 ns. */
static void test_chain(void) {
  struct rig r[2];
  for (int chained = 0; chained < 2; chained++) {
    struct rig *x = &r[chained];
    rig_init(x);
    x->script[DEV_CPU] = (struct dscript){1, {{0, PK_QUEUE_CMD, DEV_GPU, 64, 9, false}}};
    x->script[DEV_NIC] = (struct dscript){3, {{0, PK_MEM_WRITE, DEV_MEM, 4096, 1, false},
                                              {0, PK_FLAG, DEV_GPU, 8, 2, chained},
                                              {0, PK_FLAG, DEV_CPU, 8, 3, chained}}};
    rig_run(x);
    struct dev *gpu = dev(x, DEV_GPU), *cpu = dev(x, DEV_CPU);
    CU_ASSERT_EQUAL_FATAL(gpu->n, 2);
    CU_ASSERT_EQUAL(gpu->op[0], 9);
    CU_ASSERT_EQUAL(gpu->at[0], 101 * NS);
    CU_ASSERT_EQUAL(gpu->op[1], 2);
    CU_ASSERT_EQUAL(gpu->at[1], 164 * NS);
    CU_ASSERT_EQUAL(gpu->src[1], DEV_NIC);
    CU_ASSERT_EQUAL_FATAL(cpu->n, 1);
    CU_ASSERT_EQUAL(cpu->at[0], 164 * NS);
    CU_ASSERT_EQUAL(cpu->kind[0], PK_FLAG);
  }
  /* Every counter alike. Per message chained, one event fewer at the bus
   * and one at the fake NIC, which sends a chain from one event. */
  CU_ASSERT_EQUAL_FATAL(r[0].rep.n, r[1].rep.n);
  for (size_t i = 0; i < r[0].rep.n; i++) {
    CU_ASSERT_STRING_EQUAL(r[0].rep.entries[i].key, r[1].rep.entries[i].key);
    CU_ASSERT_EQUAL(r[0].rep.entries[i].i, r[1].rep.entries[i].i);
  }
  CU_ASSERT_EQUAL(rep(&r[0], "node0.bus.from_nic_msgs"), 3);
  CU_ASSERT_EQUAL(sim_events_executed(r[0].e) - sim_events_executed(r[1].e), 4);
  for (int i = 0; i < 2; i++) rig_free(&r[i]);
}

static void test_params(void) {
  struct bus_config c;
  par_group_defaults(&bus_params, &c);
  CU_ASSERT_EQUAL(c.kind, BUS_APU);
  CU_ASSERT_EQUAL(c.control_bytes, 64);
  CU_ASSERT_STRING_EQUAL(bus_params.name, "bus");
  char *err = NULL;
  CU_ASSERT_TRUE(par_set(par_group_find(&bus_params, "kind"), &c, "pcie", &err));
  CU_ASSERT_EQUAL(c.kind, BUS_PCIE);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"serialization and order", test_serialization},
      {"DMA read round trip and contention", test_dma_read},
      {"memory write, then flag", test_mem_write_then_flag},
      {"a chain does what its messages one after another do", test_chain},
      {"parameters", test_params},
      {NULL, NULL},
  };
  return tu_run_suite("bus", tests);
}
