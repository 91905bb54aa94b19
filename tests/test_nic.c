/* NIC: puts (one and several packets, both switching modes), local
 * completion, triggered puts (relaxed and not, kernel-level threshold,
 * batches of work-item stores: firing, crossing the threshold, spilling), a
 * get round trip, doorbells before and after their post, the full
 * trigger list in spill and stall modes, and the host told when the NIC
 * holds nic.triggered_ops of its registrations; every time derived by hand.
 *
 * The rig: two NICs (node0, node1) whose net ports are joined directly by a
 * link of latency L = 100 ns; each NIC's bus port goes to a fake bus over a
 * link of Lb = 20 ns. The fake bus answers PK_DMA_READ with PK_DMA_DATA
 * D = 200 ns after it receives it, and records PK_MEM_WRITE and PK_FLAG
 * (following chains, bus.h, as the bus does).
 * Network: 100 Gbps (8 bits / 100 Gbps = 80 ps per byte), mtu 1000 B,
 * header 50 B, so a full packet is 1050 B = 84 ns on the wire, an 800 B
 * put's packet 850 B = 68 ns, a header-only packet 50 B = 4 ns.
 * NIC: cmd_cost 100 ns, match_latency 10 ns, overflow_lookup 500 ns.
 *
 * A DMA started at NIC time t has its data back at t + Lb + D + Lb = t + 240.
 * With a direct link (no switch) both switching modes deliver a packet of
 * serialization S started at t complete at t + S + L (net.h with n = 0):
 * store-and-forward sends the event at the tail, cut-through at the head
 * and the target adds S. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "engine.h"
#include "net.h"
#include "nic.h"
#include "proto.h"
#include "testutil.h"
#include "topology.h"
#include "trace.h"

#define NS SIM_NS
#define LB (20 * NS)
#define L (100 * NS)
#define D (200 * NS)

/* ---- the fake bus ---- */

#define REC_MAX 32
struct fbus {
  int n_w, n_f, n_dma;
  int64_t dma_bytes[REC_MAX]; /* what each DMA read asked for */
  sim_time w_at[REC_MAX];
  int64_t w_bytes[REC_MAX];
  sim_time f_at[REC_MAX];
  uint32_t f_id[REC_MAX], f_val[REC_MAX];
  uint8_t f_dev[REC_MAX];
  int n_chained; /* events that carried a chain of messages */
  int n_room;     /* PK_NIC_ROOM to the CPU: when, and a */
  sim_time room_at[REC_MAX];
  uint32_t room[REC_MAX];
};

static void fbus_message(struct sim_comp *c, uint64_t h) {
  struct fbus *b = c->state;
  struct pmsg *m = sim_payload(c->eng, h);
  CU_ASSERT_EQUAL(m->src_dev, DEV_NIC);
  switch (m->kind) {
  case PK_DMA_READ:
    CU_ASSERT_EQUAL(m->dst_dev, DEV_MEM);
    if (b->n_dma < REC_MAX) b->dma_bytes[b->n_dma] = m->bytes;
    b->n_dma++;
    m->kind = PK_DMA_DATA;
    m->dst_dev = DEV_NIC;
    m->src_dev = DEV_MEM;
    sim_send(c, 0, D, PK_DMA_DATA, h);
    return;
  case PK_MEM_WRITE:
    CU_ASSERT_FATAL(b->n_w < REC_MAX);
    CU_ASSERT_EQUAL(m->dst_dev, DEV_MEM);
    b->w_at[b->n_w] = sim_now(c->eng);
    b->w_bytes[b->n_w++] = m->bytes;
    break;
  case PK_FLAG:
    CU_ASSERT_FATAL(b->n_f < REC_MAX);
    b->f_at[b->n_f] = sim_now(c->eng);
    b->f_id[b->n_f] = m->a;
    b->f_val[b->n_f] = m->b;
    b->f_dev[b->n_f++] = m->dst_dev;
    break;
  case PK_NIC_ROOM:
    CU_ASSERT_FATAL(b->n_room < REC_MAX);
    CU_ASSERT_EQUAL(m->dst_dev, DEV_CPU);
    b->room_at[b->n_room] = sim_now(c->eng);
    b->room[b->n_room++] = m->a;
    break;
  default: CU_FAIL("unexpected message at the fake bus");
  }
  sim_payload_free(c->eng, h);
}

/* A message and those chained behind it (bus.h), in order, as the bus does;
 * the chain is counted (a write and the flag behind it come as one). */
static void fbus_handle(struct sim_comp *c, const struct sim_event *ev) {
  struct fbus *b = c->state;
  int n = 0;
  for (uint64_t h = ev->data; h; n++) {
    struct pmsg *m = sim_payload(c->eng, h);
    uint64_t next = m->next;
    m->next = 0;
    fbus_message(c, h);
    h = next;
  }
  if (n > 1) b->n_chained++;
}

static const char *const fbus_ports[] = {"nic"};
static const struct sim_type fbus_type = {.name = "fbus", .ports = fbus_ports, .n_ports = 1,
                                          .state_size = sizeof(struct fbus),
                                          .handle = fbus_handle};

/* Time at which flag ID was written at bus B, or -1 (and its count in *N). */
static sim_time flag_at(struct sim_comp *bus, uint32_t id) {
  struct fbus *b = bus->state;
  sim_time at = -1;
  int n = 0;
  for (int i = 0; i < b->n_f; i++)
    if (b->f_id[i] == id) {
      at = b->f_at[i];
      n++;
      CU_ASSERT_EQUAL(b->f_val[i], 1);
    }
  CU_ASSERT(n <= 1);
  return at;
}

/* ---- the rig ---- */

struct rig {
  struct sim_engine *e;
  struct net_config net;
  struct nic_config cfg;
  struct sim_comp *nic[2], *bus[2];
  struct sim_report rep;
};

static struct rig *rig_new(int switching, int entries, int full) {
  struct rig *r = g_new0(struct rig, 1);
  r->e = sim_new(1);
  r->net = (struct net_config){.topology = NET_STAR, .nodes = 2, .link_latency = L,
                               .link_bandwidth = 100000000000, .switch_latency = 100 * NS,
                               .switching = switching, .mtu = 1000, .header_bytes = 50};
  r->cfg = (struct nic_config){.cmd_cost = 100 * NS, .trigger_entries = entries,
                               .trigger_full = full, .overflow_lookup = 500 * NS,
                               .match_latency = 10 * NS};
  char *err = NULL;
  for (uint32_t n = 0; n < 2; n++) {
    char name[32];
    g_snprintf(name, sizeof name, "node%u.nic", n);
    r->nic[n] = nic_add(r->e, name, &r->cfg, &r->net, NULL, n);
    g_snprintf(name, sizeof name, "node%u.bus", n);
    r->bus[n] = sim_add(r->e, &fbus_type, name, NULL);
    CU_ASSERT_TRUE(sim_connect(r->bus[n], 0, r->nic[n], NIC_PORT_BUS, LB, &err));
  }
  CU_ASSERT_TRUE(sim_connect(r->nic[0], NIC_PORT_NET, r->nic[1], NIC_PORT_NET, L, &err));
  sim_report_init(&r->rep);
  return r;
}

/* Runs to the end and collects the report; every payload must be freed. */
static void rig_run(struct rig *r) {
  sim_run(r->e, SIM_TIME_MAX, 0);
  sim_finish(r->e, &r->rep);
  CU_ASSERT_EQUAL(sim_payloads_live(r->e), 0);
}

static int64_t rep(struct rig *r, const char *key) {
  const struct sim_report_entry *en = sim_report_find(&r->rep, key);
  CU_ASSERT_PTR_NOT_NULL_FATAL(en);
  return en->i;
}

static void rig_free(struct rig *r) {
  sim_report_clear(&r->rep);
  sim_free(r->e);
  g_free(r);
}

/* The fake bus of node N sends a message to its NIC at time AT (sent before
 * the run, so it arrives at AT + Lb). */
static void send_cmd(struct rig *r, int n, sim_time at, struct nic_cmd cmd) {
  struct sim_engine *e = r->e;
  uint64_t ch = sim_payload_new(e);
  *(struct nic_cmd *)sim_payload(e, ch) = cmd;
  struct pmsg *m;
  uint64_t h = pmsg_new(e, PK_NIC_CMD, &m);
  m->src_dev = DEV_CPU;
  m->dst_dev = DEV_NIC;
  m->op = ch;
  sim_send(r->bus[n], 0, at, PK_NIC_CMD, h);
}

static void send_small(struct rig *r, int n, sim_time at, enum pkind kind, uint32_t a) {
  struct pmsg *m;
  uint64_t h = pmsg_new(r->e, kind, &m);
  m->src_dev = DEV_GPU;
  m->dst_dev = DEV_NIC;
  m->a = a;
  sim_send(r->bus[n], 0, at, (uint16_t)kind, h);
}

static struct nic_cmd put_cmd(enum nic_op op, int64_t bytes, uint32_t remote, uint32_t local) {
  return (struct nic_cmd){.op = (uint8_t)op, .dst_node = 1, .bytes = bytes, .threshold = 1,
                          .remote = {remote, DEV_GPU}, .local = {local, DEV_CPU}};
}

static struct fbus *fb(struct rig *r, int n) { return r->bus[n]->state; }

/* ---- tests ---- */

static void test_put_one_packet(void) {
  for (int sw = NET_CUT_THROUGH; sw <= NET_STORE_FORWARD; sw++) {
    struct rig *r = rig_new(sw, 16, TL_SPILL);
    send_cmd(r, 0, 0, put_cmd(NIC_PUT, 800, 5, 6));
    rig_run(r);
    /* Command at 20, processed until 120; DMA back at 120 + 240 = 360;
     * the 850 B packet leaves 360..428 and is complete at node1 at
     * 428 + L = 528; write and flag reach node1's bus at 528 + Lb = 548. */
    struct fbus *b1 = fb(r, 1);
    CU_ASSERT_EQUAL(b1->n_w, 1);
    CU_ASSERT_EQUAL(b1->w_at[0], 548 * NS);
    CU_ASSERT_EQUAL(b1->w_bytes[0], 800);
    CU_ASSERT_EQUAL(flag_at(r->bus[1], 5), 548 * NS);
    CU_ASSERT_EQUAL(b1->f_dev[0], DEV_GPU);
    /* The write and the flag behind it reach the bus as one chain; the
     * local flag at node0 comes alone. */
    CU_ASSERT_EQUAL(b1->n_chained, 1);
    CU_ASSERT_EQUAL(fb(r, 0)->n_chained, 0);
    /* Local completion when the tail has left: 428 + Lb = 448, to the CPU. */
    CU_ASSERT_EQUAL(flag_at(r->bus[0], 6), 448 * NS);
    CU_ASSERT_EQUAL(fb(r, 0)->f_dev[0], DEV_CPU);
    CU_ASSERT_EQUAL(fb(r, 0)->n_dma, 1);
    CU_ASSERT_EQUAL(fb(r, 0)->dma_bytes[0], 800); /* less than an mtu: all of it */
    CU_ASSERT_EQUAL(rep(r, "node0.nic.packets_sent"), 1);
    CU_ASSERT_EQUAL(rep(r, "node0.nic.bytes_sent"), 850);
    CU_ASSERT_EQUAL(rep(r, "node1.nic.bytes_received"), 850);
    CU_ASSERT_EQUAL(rep(r, "node0.nic.commands"), 1);
    rig_free(r);
  }
}

static void test_put_several_packets(void) {
  for (int sw = NET_CUT_THROUGH; sw <= NET_STORE_FORWARD; sw++) {
    struct rig *r = rig_new(sw, 16, TL_SPILL);
    send_cmd(r, 0, 0, put_cmd(NIC_PUT, 2500, 5, 6));
    rig_run(r);
    /* 2500 B = 1000 + 1000 + 500: wire 1050, 1050, 550 B = 84, 84, 44 ns,
     * back to back from 360: tails at 444, 528, 572; complete at node1 at
     * +L = 544, 628, 672; at node1's bus +Lb = 564, 648, 692. */
    struct fbus *b1 = fb(r, 1);
    CU_ASSERT_EQUAL_FATAL(b1->n_w, 3);
    sim_time want_at[] = {564 * NS, 648 * NS, 692 * NS};
    int64_t want_bytes[] = {1000, 1000, 500};
    for (int i = 0; i < 3; i++) {
      CU_ASSERT_EQUAL(b1->w_at[i], want_at[i]);
      CU_ASSERT_EQUAL(b1->w_bytes[i], want_bytes[i]);
    }
    CU_ASSERT_EQUAL(b1->n_f, 1); /* one flag, after the last packet */
    CU_ASSERT_EQUAL(flag_at(r->bus[1], 5), 692 * NS);
    /* Local: last tail 572 + Lb = 592. */
    CU_ASSERT_EQUAL(flag_at(r->bus[0], 6), 592 * NS);
    CU_ASSERT_EQUAL(rep(r, "node0.nic.packets_sent"), 3);
    CU_ASSERT_EQUAL(rep(r, "node0.nic.bytes_sent"), 2650);
    CU_ASSERT_EQUAL(rep(r, "node0.nic.payload_sent"), 2500);
    CU_ASSERT_EQUAL(rep(r, "node1.nic.packets_received"), 3);
    /* One DMA read, of the first packet's payload (mtu 1000 B): the rest
     * streams in behind injection. */
    CU_ASSERT_EQUAL(fb(r, 0)->n_dma, 1);
    CU_ASSERT_EQUAL(fb(r, 0)->dma_bytes[0], 1000);
    rig_free(r);
  }
}

static void test_put_zero_bytes(void) {
  for (int sw = NET_CUT_THROUGH; sw <= NET_STORE_FORWARD; sw++) {
    struct rig *r = rig_new(sw, 16, TL_SPILL);
    send_cmd(r, 0, 0, put_cmd(NIC_PUT, 0, 5, 6));
    rig_run(r);
    /* No DMA: at 120 one 50 B header-only packet, 4 ns: tail 124, complete
     * at node1 at 224, flag at 244, no memory write; local flag 144. */
    CU_ASSERT_EQUAL(fb(r, 0)->n_dma, 0);
    CU_ASSERT_EQUAL(fb(r, 1)->n_w, 0);
    CU_ASSERT_EQUAL(flag_at(r->bus[1], 5), 244 * NS);
    CU_ASSERT_EQUAL(flag_at(r->bus[0], 6), 144 * NS);
    CU_ASSERT_EQUAL(rep(r, "node0.nic.bytes_sent"), 50);
    rig_free(r);
  }
}

static void test_triggered_put_registered_first(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 16, TL_SPILL);
  struct nic_cmd c = put_cmd(NIC_TPUT, 800, 5, 0);
  c.tag = 9;
  send_cmd(r, 0, 0, c);
  send_small(r, 0, 300 * NS, PK_TRIGGER, 9);
  rig_run(r);
  /* Registered at 120. Store at 320, matched at 330: fires; DMA back at 570;
   * packet 570..638; node1 at 738; flag at 758. */
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 5), 758 * NS);
  CU_ASSERT_EQUAL(fb(r, 0)->n_f, 0); /* local id 0: no flag */
  CU_ASSERT_EQUAL(rep(r, "node0.nic.ops_fired"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_matched"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_unmatched"), 0);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_in_use_max"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_left"), 0);
  /* One entry from 120 to 330 over a run that ends at 758:
   * mean = 210 / 758. */
  const struct sim_report_entry *en = sim_report_find(&r->rep, "node0.nic.entries_in_use_mean");
  CU_ASSERT_PTR_NOT_NULL_FATAL(en);
  CU_ASSERT_DOUBLE_EQUAL(en->d, 210.0 / 758.0, 1e-12);
  rig_free(r);
}

static void test_triggered_put_relaxed(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 16, TL_SPILL);
  struct nic_cmd c = put_cmd(NIC_TPUT, 800, 5, 6);
  c.tag = 9;
  send_small(r, 0, 0, PK_TRIGGER, 9);
  send_cmd(r, 0, 50 * NS, c);
  rig_run(r);
  /* Store at 20, matched at 30: an entry with counter 1, no operation.
   * Registration at 70, processed until 170: counter 1 >= 1 fires at once;
   * DMA back at 410; packet 410..478; node1 at 578, flag at 598; local
   * flag at 478 + 20 = 498. */
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 5), 598 * NS);
  CU_ASSERT_EQUAL(flag_at(r->bus[0], 6), 498 * NS);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_unmatched"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.ops_fired"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.registrations"), 1);
  rig_free(r);
}

static void test_kernel_level_threshold(void) {
  for (int stores = 3; stores <= 4; stores++) {
    struct rig *r = rig_new(NET_STORE_FORWARD, 16, TL_SPILL);
    struct nic_cmd c = put_cmd(NIC_TPUT, 800, 5, 0);
    c.tag = 2;
    c.threshold = 4; /* the kernel's 4 work-groups */
    send_cmd(r, 0, 0, c);
    for (int i = 0; i < stores; i++) send_small(r, 0, 200 * NS, PK_TRIGGER, 2);
    rig_run(r);
    CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_stored"), stores);
    if (stores == 3) {
      /* 3 < 4: nothing fires; the entry is left with counter 3. */
      CU_ASSERT_EQUAL(fb(r, 1)->n_f, 0);
      CU_ASSERT_EQUAL(rep(r, "node0.nic.ops_fired"), 0);
      CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_left"), 1);
    } else {
      /* Stores at 220 matched one at a time: 230, 240, 250, 260; the 4th
       * fires at 260; DMA back at 500; packet 500..568; flag 668 + 20. */
      CU_ASSERT_EQUAL(flag_at(r->bus[1], 5), 688 * NS);
      CU_ASSERT_EQUAL(rep(r, "node0.nic.ops_fired"), 1);
      CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_left"), 0);
    }
    rig_free(r);
  }
}

/* A PK_TRIGGER of STORES stores of TAG (a WG's work-items), sent by the
 * fake bus of node N at AT (arrives at AT + Lb). */
static void send_stores(struct rig *r, int n, sim_time at, uint32_t tag, uint32_t stores) {
  struct pmsg *m;
  uint64_t h = pmsg_new(r->e, PK_TRIGGER, &m);
  m->src_dev = DEV_GPU;
  m->dst_dev = DEV_NIC;
  m->a = tag;
  m->b = stores;
  sim_send(r->bus[n], 0, at, PK_TRIGGER, h);
}

/* One message of 4 stores does what 4 single stores do
 * (test_kernel_level_threshold): 4 x match_latency, then the put fires. */
static void test_trigger_batch_fires(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 16, TL_SPILL);
  struct nic_cmd c = put_cmd(NIC_TPUT, 800, 5, 0);
  c.tag = 2;
  c.threshold = 4;
  send_cmd(r, 0, 0, c);
  send_stores(r, 0, 200 * NS, 2, 4);
  rig_run(r);
  /* Registered at 120. The batch at 220 costs 4 x 10 = 40 ns: matched at
   * 260, counter 4 = threshold: fires; DMA back at 500; packet 500..568;
   * node1 at 668; flag at 688 (as with four separate stores). */
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 5), 688 * NS);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_stored"), 4);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_matched"), 4);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_unmatched"), 0);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.ops_fired"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_left"), 0);
  rig_free(r);
}

/* A batch crossing the threshold (relaxed synchronization: more stores
 * than the registered put needs): the stores after the firing one find no
 * live entry and allocate a new one (trigger_list.h), which a later
 * registration of the tag then fires at once. A store behind the batch in
 * the FIFO waits for the whole batch's matching. */
static void test_trigger_batch_crosses_threshold(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 16, TL_SPILL);
  struct nic_cmd c2 = put_cmd(NIC_TPUT, 800, 5, 0), c9 = put_cmd(NIC_TPUT, 800, 9, 0);
  struct nic_cmd c2b = put_cmd(NIC_TPUT, 800, 7, 0);
  c2.tag = 2;
  c2.threshold = 3;
  c9.tag = 9;
  c2b.tag = 2;
  c2b.threshold = 2;
  send_cmd(r, 0, 0, c2);
  send_cmd(r, 0, 0, c9);
  send_stores(r, 0, 200 * NS, 2, 5);
  send_stores(r, 0, 200 * NS, 9, 1);
  send_cmd(r, 0, 1000 * NS, c2b);
  rig_run(r);
  /* Commands at 20: tag 2 registered at 120, tag 9 at 220. The batch of 5
   * at 220 costs 50 ns, to 270: stores 1-3 match tag 2's entry, the 3rd
   * fires it (freed); stores 4 and 5 allocate a new tag-2 entry (no op,
   * counter 2): 4 matched + 1 allocated. Flag 5: DMA back at 510, packet
   * 510..578, node1 at 678, flag at 698.
   * The tag-9 store, behind the batch, is matched 270..280 and fires: DMA
   * back at 520, the port busy until 578: packet 578..646, node1 746, flag
   * 9 at 766.
   * The second tag-2 registration (threshold 2) at 1020, processed to 1120:
   * the entry's counter 2 >= 2: fires at once; DMA back at 1360, packet
   * 1360..1428, node1 1528, flag 7 at 1548. */
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 5), 698 * NS);
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 9), 766 * NS);
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 7), 1548 * NS);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_stored"), 6);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_matched"), 5);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_unmatched"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.ops_fired"), 3);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.registrations"), 3);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_left"), 0);
  /* Entries: tag 2 from 120, tag 9 from 220 (2); at 270 tag 2's is freed
   * and a new one taken: at most 2 at once. */
  CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_in_use_max"), 2);
  rig_free(r);
}

/* A batch on a full list (spill): each of its stores is a lookup that
 * writes or searches the host-memory overflow, so each pays
 * overflow_lookup after the batch's matching; the FIFO behind it waits. */
static void test_trigger_batch_spills(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 1, TL_SPILL);
  struct nic_cmd c1 = put_cmd(NIC_TPUT, 800, 1, 0), c3 = put_cmd(NIC_TPUT, 800, 3, 0);
  c1.tag = 1;
  c1.threshold = 2;
  c3.tag = 3;
  c3.threshold = 3;
  send_stores(r, 0, 0, 1, 1);
  send_cmd(r, 0, 0, c1);
  send_stores(r, 0, 100 * NS, 3, 3);
  send_stores(r, 0, 100 * NS, 1, 1);
  send_cmd(r, 0, 2000 * NS, c3);
  rig_run(r);
  /* One entry. Store tag 1 at 20, matched at 30: allocated (list full).
   * Registration of tag 1 at 20..120 attaches to it (counter 1 < 2).
   * Batch of 3 stores of tag 3 at 120, matched to 150: store 1 misses and
   * spills (+500, to 650); stores 2 and 3 miss on-NIC and search the
   * overflow (+500 each, to 1150 and 1650). The tag-1 store behind it is
   * matched 1650..1660 on-NIC: counter 2 fires: DMA back at 1900, packet
   * 1900..1968, node1 2068, flag 1 at 2088. Its entry freed, tag 3's
   * (counter 3) moves in from the overflow. Tag 3's registration at
   * 2020..2120 hits on-NIC and fires at once: DMA back 2360, packet
   * 2360..2428, node1 2528, flag 3 at 2548. */
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 1), 2088 * NS);
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 3), 2548 * NS);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.overflow_lookups"), 3);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.overflow_entries"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_stored"), 5);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_unmatched"), 2); /* tag 1's first, tag 3's first */
  CU_ASSERT_EQUAL(rep(r, "node0.nic.triggers_matched"), 3);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.ops_fired"), 2);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_left"), 0);
  rig_free(r);
}

static void test_get_round_trip(void) {
  for (int sw = NET_CUT_THROUGH; sw <= NET_STORE_FORWARD; sw++) {
    struct rig *r = rig_new(sw, 16, TL_SPILL);
    send_cmd(r, 0, 0, put_cmd(NIC_GET, 800, 0, 3));
    rig_run(r);
    /* Processed 20..120; 50 B request 120..124, complete at node1 at 224;
     * node1 DMA back at 224 + 240 = 464; 850 B reply 464..532, complete at
     * node0 at 632; write and local flag at node0's bus at 652. */
    struct fbus *b0 = fb(r, 0);
    CU_ASSERT_EQUAL_FATAL(b0->n_w, 1);
    CU_ASSERT_EQUAL(b0->w_at[0], 652 * NS);
    CU_ASSERT_EQUAL(b0->w_bytes[0], 800);
    CU_ASSERT_EQUAL(flag_at(r->bus[0], 3), 652 * NS);
    CU_ASSERT_EQUAL(b0->f_dev[0], DEV_CPU);
    CU_ASSERT_EQUAL(fb(r, 1)->n_dma, 1);
    CU_ASSERT_EQUAL(fb(r, 1)->n_f, 0); /* a get sets no flag at the target */
    CU_ASSERT_EQUAL(fb(r, 1)->n_w, 0);
    CU_ASSERT_EQUAL(rep(r, "node0.nic.bytes_sent"), 50);
    CU_ASSERT_EQUAL(rep(r, "node1.nic.bytes_sent"), 850);
    CU_ASSERT_EQUAL(rep(r, "node0.nic.gets"), 1);
    rig_free(r);
  }
}

static void test_doorbell_after_post(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 16, TL_SPILL);
  struct nic_cmd c = put_cmd(NIC_POST, 800, 5, 0);
  c.cmd_id = 4;
  send_cmd(r, 0, 0, c);
  send_small(r, 0, 200 * NS, PK_DOORBELL, 4);
  rig_run(r);
  /* Posted at 120. Doorbell at 220, processed until 320: DMA back at 560;
   * packet 560..628; node1 at 728; flag at 748. */
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 5), 748 * NS);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.doorbells"), 1);
  rig_free(r);
}

static void test_doorbell_before_post(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 16, TL_SPILL);
  struct nic_cmd c = put_cmd(NIC_POST, 800, 5, 0);
  c.cmd_id = 4;
  send_small(r, 0, 0, PK_DOORBELL, 4);
  send_cmd(r, 0, 10 * NS, c);
  rig_run(r);
  /* Doorbell at 20, processed 20..120: no post yet, it waits. Post at 30,
   * processed 120..220: the waiting doorbell starts it; DMA back at 460;
   * packet 460..528; node1 at 628; flag at 648. */
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 5), 648 * NS);
  rig_free(r);
}

static void test_full_list_spill(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 2, TL_SPILL);
  struct nic_cmd c1 = put_cmd(NIC_TPUT, 800, 1, 0), c3 = put_cmd(NIC_TPUT, 800, 3, 0);
  c1.tag = 1;
  c3.tag = 3;
  send_cmd(r, 0, 0, c1);
  send_small(r, 0, 200 * NS, PK_TRIGGER, 2);
  send_small(r, 0, 200 * NS, PK_TRIGGER, 3);
  send_small(r, 0, 200 * NS, PK_TRIGGER, 1);
  send_cmd(r, 0, 2000 * NS, c3);
  rig_run(r);
  /* Tag 1 registered at 120 (1 entry). Stores at 220: tag 2 at 230 takes
   * the second entry; tag 3 at 240 finds the list full and spills to host
   * memory: + 500 -> 740; tag 1 then matches on-NIC at 750 and fires: DMA
   * back at 990, packet 990..1058, node1 at 1158, flag 1 at 1178 (678
   * without the spill). Its entry is refilled with tag 3 from the overflow.
   * Tag 3's registration at 2020..2120 hits on-NIC (no overflow cost):
   * fires at 2120, DMA back at 2360, packet ..2428, flag 3 at 2548. */
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 1), 1178 * NS);
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 3), 2548 * NS);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.overflow_entries"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.overflow_lookups"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_in_use_max"), 2);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_left"), 1); /* tag 2, never registered */
  CU_ASSERT_EQUAL(rep(r, "node0.nic.stalls"), 0);
  rig_free(r);
}

static void test_full_list_stall_fifo(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 2, TL_STALL);
  struct nic_cmd c1 = put_cmd(NIC_TPUT, 800, 1, 0), c2 = put_cmd(NIC_TPUT, 800, 2, 0);
  c1.tag = 1;
  c2.tag = 2;
  send_cmd(r, 0, 0, c1);
  send_small(r, 0, 200 * NS, PK_TRIGGER, 2);
  send_small(r, 0, 200 * NS, PK_TRIGGER, 3);
  send_small(r, 0, 200 * NS, PK_TRIGGER, 1);
  send_cmd(r, 0, 1000 * NS, c2);
  rig_run(r);
  /* Tag 1 registered at 120. Stores at 220: tag 2 at 230 fills the list;
   * tag 3 at 240 stalls at the head of the FIFO, and tag 1 waits behind it.
   * Tag 2's registration (1020..1120) fires at once and frees an entry: the
   * stalled store is applied at 1120 (stalled 880 ns); tag 1 is matched at
   * 1130 and fires. Flag 2: DMA back at 1360, packet 1360..1428, node1 at
   * 1528, flag at 1548. Flag 1: DMA back at 1370, but the port is busy
   * until 1428: packet 1428..1496, node1 at 1596, flag at 1616. */
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 2), 1548 * NS);
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 1), 1616 * NS);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.stalls"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.stall_time"), 880 * NS);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.stalled_at_end"), 0);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.overflow_lookups"), 0);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_left"), 1); /* tag 3 */
  rig_free(r);
}

static void test_full_list_stall_command_queue(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 1, TL_STALL);
  struct nic_cmd c1 = put_cmd(NIC_TPUT, 800, 1, 0), c2 = put_cmd(NIC_TPUT, 800, 2, 0);
  c1.tag = 1;
  c2.tag = 2;
  send_cmd(r, 0, 0, c1);
  send_cmd(r, 0, 10 * NS, c2);
  send_cmd(r, 0, 20 * NS, put_cmd(NIC_PUT, 800, 3, 0));
  send_small(r, 0, 400 * NS, PK_TRIGGER, 1);
  send_small(r, 0, 600 * NS, PK_TRIGGER, 2);
  rig_run(r);
  /* One entry. Tag 1 registered at 120 (full). Tag 2's registration,
   * processed 120..220, stalls at the head of the command queue; the put
   * behind it waits. Store 1 at 420, matched at 430: fires (DMA back 670,
   * packet 670..738, flag 1 at 858) and frees the entry; the registration
   * of tag 2 is applied at 430 (stalled 210 ns); the put is processed
   * 430..530 (DMA back 770, packet 770..838, flag 3 at 958). Store 2 at 620,
   * matched at 630: fires (DMA back 870, packet 870..938, flag 2 at 1058). */
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 1), 858 * NS);
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 3), 958 * NS);
  CU_ASSERT_EQUAL(flag_at(r->bus[1], 2), 1058 * NS);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.stalls"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.stall_time"), 210 * NS);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.entries_left"), 0);
  rig_free(r);
}

/* nic.triggered_ops 2: the host's registrations held from their arrival
 * to their firing; a plain put is not one. */
static void test_triggered_ops_room(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 16, TL_SPILL);
  r->cfg.triggered_ops = 2;
  for (uint32_t t = 1; t <= 3; t++) {
    struct nic_cmd c = put_cmd(NIC_TPUT, 800, t, 0);
    c.tag = t;
    send_cmd(r, 0, (t - 1) * 10 * NS, c);
  }
  send_cmd(r, 0, 30 * NS, put_cmd(NIC_PUT, 800, 4, 0));
  for (uint32_t t = 1; t <= 3; t++) send_small(r, 0, (300 + 100 * t) * NS, PK_TRIGGER, t);
  rig_run(r);
  /* Registrations on the NIC at 20, 30, 40: two held at 30, so the NIC
   * tells the host then (at the bus 20 ns later: 50); the third was on
   * its way (three held). They are registered 20..120, 120..220,
   * 220..320, the put processed 320..420. Stores matched at 430, 530,
   * 630: the first leaves two held, the second one (fewer than 2): room
   * at 530 (the bus at 550); the third none, nothing sent. */
  struct fbus *b = fb(r, 0);
  CU_ASSERT_EQUAL_FATAL(b->n_room, 2);
  CU_ASSERT_EQUAL(b->room_at[0], 50 * NS);
  CU_ASSERT_EQUAL(b->room[0], 0);
  CU_ASSERT_EQUAL(b->room_at[1], 550 * NS);
  CU_ASSERT_EQUAL(b->room[1], 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.ops_fired"), 3);
  rig_free(r);
}

static void test_full_list_stall_deadlock_reported(void) {
  struct rig *r = rig_new(NET_STORE_FORWARD, 1, TL_STALL);
  struct nic_cmd c6 = put_cmd(NIC_TPUT, 800, 6, 0), c5 = put_cmd(NIC_TPUT, 800, 5, 0);
  c6.tag = 6;
  c5.tag = 5;
  send_small(r, 0, 0, PK_TRIGGER, 5);
  send_cmd(r, 0, 0, c6);
  send_cmd(r, 0, 10 * NS, c5);
  rig_run(r);
  /* Store 5 at 20 takes the only entry (matched at 30). Tag 6's
   * registration (20..120) needs a new entry and stalls; tag 5's, which
   * would free the entry, waits behind it: nothing ever fires. */
  CU_ASSERT_EQUAL(fb(r, 1)->n_f, 0);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.ops_fired"), 0);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.stalled_at_end"), 1);
  CU_ASSERT_EQUAL(rep(r, "node0.nic.registrations"), 0);
  rig_free(r);
}

/* A stand-in for a switch on node0's net port: records the packets. */
struct wire {
  int n;
  sim_time at[8];
  struct nic_packet p[8];
};

static void wire_handle(struct sim_comp *c, const struct sim_event *ev) {
  struct wire *w = c->state;
  CU_ASSERT_FATAL(w->n < 8);
  w->at[w->n] = sim_now(c->eng);
  w->p[w->n++] = *(struct nic_packet *)sim_payload(c->eng, ev->data);
  sim_payload_free(c->eng, ev->data);
}

static const struct sim_type wire_type = {.name = "wire", .ports = fbus_ports, .n_ports = 1,
                                          .state_size = sizeof(struct wire),
                                          .handle = wire_handle};

static void test_packets_on_the_wire(void) {
  for (int sw = NET_CUT_THROUGH; sw <= NET_STORE_FORWARD; sw++) {
    struct sim_engine *e = sim_new(1);
    struct net_config net = {.link_bandwidth = 100000000000, .switching = sw, .mtu = 1000,
                             .header_bytes = 50};
    struct nic_config cfg = {.cmd_cost = 100 * NS, .trigger_entries = 16,
                             .match_latency = 10 * NS};
    struct sim_comp *nic = nic_add(e, "node0.nic", &cfg, &net, NULL, 0);
    struct sim_comp *bus = sim_add(e, &fbus_type, "node0.bus", NULL);
    struct sim_comp *sw_c = sim_add(e, &wire_type, "switch0", NULL);
    char *err = NULL;
    CU_ASSERT_TRUE(sim_connect(bus, 0, nic, NIC_PORT_BUS, LB, &err));
    CU_ASSERT_TRUE(sim_connect(nic, NIC_PORT_NET, sw_c, 0, L, &err));
    struct rig r = {.e = e, .bus = {bus}};
    struct nic_cmd c = put_cmd(NIC_PUT, 1500, 5, 0);
    c.remote.watcher = DEV_CPU;
    send_cmd(&r, 0, 0, c);
    sim_run(e, SIM_TIME_MAX, 0);
    /* DMA back at 360; packets of 1050 and 550 B (84, 44 ns) leave
     * 360..444 and 444..488. The event reaches the next hop after L at the
     * head (cut-through: 460, 544) or at the tail (store-and-forward: 544,
     * 588), per net.h. */
    struct wire *w = sw_c->state;
    CU_ASSERT_EQUAL_FATAL(w->n, 2);
    sim_time want[2][2] = {{460 * NS, 544 * NS}, {544 * NS, 588 * NS}};
    /* pmsg.bytes is the payload: 1000 + 500 of 1500 (mtu 1000). */
    int64_t payload_bytes[] = {1000, 500};
    for (int i = 0; i < 2; i++) {
      const struct nic_packet *p = &w->p[i];
      CU_ASSERT_EQUAL(w->at[i], want[sw == NET_STORE_FORWARD][i]);
      CU_ASSERT_EQUAL(p->m.kind, PK_PACKET);
      CU_ASSERT_EQUAL(p->m.src_node, 0);
      CU_ASSERT_EQUAL(p->m.dst_node, 1);
      CU_ASSERT_EQUAL(p->m.bytes, payload_bytes[i]);
      CU_ASSERT_EQUAL(p->m.seq, (uint32_t)i);
      CU_ASSERT_EQUAL(p->m.count, 2);
      CU_ASSERT_EQUAL(p->m.op, w->p[0].m.op);
      CU_ASSERT_NOT_EQUAL(p->m.op, 0);
      CU_ASSERT_EQUAL(p->type, NIC_PT_PUT);
      CU_ASSERT_EQUAL(p->flag_id, 5);
      CU_ASSERT_EQUAL(p->flag_watcher, DEV_CPU);
      CU_ASSERT_EQUAL(p->msg_bytes, 1500);
    }
    struct sim_report rep_;
    sim_report_init(&rep_);
    sim_finish(e, &rep_);
    sim_report_clear(&rep_);
    CU_ASSERT_EQUAL(sim_payloads_live(e), 0);
    sim_free(e);
  }
}


/* ---- send queues: three NICs on a star ---- */

/* Nodes 0-2 on one switch (network defaults but the rig's 100 Gbps, mtu
 * 1000 B, header 50 B, L = 100 ns, switch latency W = 100 ns, cut-through),
 * each NIC with a fake bus; NIC config CFG. */
struct rig3 {
  struct sim_engine *e;
  struct net_config net;
  struct nic_config cfg;
  struct topo *t;
  struct sim_comp *nic[3], *bus[3];
  struct sim_report rep;
};

static struct rig3 *rig3_new(int order, int64_t chunk, int64_t pairs) {
  struct rig3 *r = g_new0(struct rig3, 1);
  r->e = sim_new(1);
  par_group_defaults(&net_params, &r->net);
  r->net.nodes = 3;
  r->net.mtu = 1000;
  r->net.header_bytes = 50;
  par_group_defaults(&nic_params, &r->cfg);
  r->cfg.send_order = order;
  r->cfg.send_chunk = chunk;
  r->cfg.queue_pairs = pairs;
  char *err = NULL;
  r->t = topo_new(&r->net, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(r->t);
  for (uint32_t n = 0; n < 3; n++) {
    char name[32];
    g_snprintf(name, sizeof name, "node%u.nic", n);
    r->nic[n] = nic_add(r->e, name, &r->cfg, topo_config(r->t), NULL, n);
    g_snprintf(name, sizeof name, "node%u.bus", n);
    r->bus[n] = sim_add(r->e, &fbus_type, name, NULL);
    CU_ASSERT_TRUE(sim_connect(r->bus[n], 0, r->nic[n], NIC_PORT_BUS, LB, &err));
  }
  CU_ASSERT_TRUE(topo_build(r->t, r->e, r->nic, NIC_PORT_NET, &err));
  sim_report_init(&r->rep);
  return r;
}

static void rig3_free(struct rig3 *r) {
  sim_report_clear(&r->rep);
  sim_free(r->e);
  topo_free(r->t);
  g_free(r);
}

/* Node 0 puts 4000 B to node 1 (flags 5 local 7) and 4000 B to node 2
 * (flags 6 local 8), both commands at once; returns when the flags land. */
static void two_puts(int order, int64_t pairs, sim_time *a, sim_time *b, sim_time *la,
                     sim_time *lb) {
  struct rig3 *r = rig3_new(order, 1, pairs);
  struct rig r0 = {.e = r->e, .bus = {r->bus[0]}};
  struct nic_cmd c = put_cmd(NIC_PUT, 4000, 5, 7);
  send_cmd(&r0, 0, 0, c);
  c.dst_node = 2;
  c.remote.id = 6;
  c.local.id = 8;
  send_cmd(&r0, 0, 0, c);
  sim_run(r->e, SIM_TIME_MAX, 0);
  CU_ASSERT_EQUAL(sim_payloads_live(r->e), 0);
  *a = flag_at(r->bus[1], 5);
  *b = flag_at(r->bus[2], 6);
  *la = flag_at(r->bus[0], 7);
  *lb = flag_at(r->bus[0], 8);
  rig3_free(r);
}

/* Two messages from one NIC to two destinations, S = 4000 B = 4 packets of
 * 1050 B on the wire (84 ns each, S/B = 336 ns). The commands reach the NIC
 * at 20 and are processed for 100 ns each: DMA reads at 120 and 220, their
 * data back 240 later, at 360 (A, to node 1) and 460 (B, to node 2).
 * Round-robin at packet granularity (the default): A0 360..444 alone, A1
 * 444..528 (B is not ready yet), then in turn from 528: B0, A2, B1, A3
 * (ends 864), B2, B3 (ends 1032). Both finish about 2 S/B after the first
 * start (A 504 ns, B 672 ns after 360), not S/B and 2 S/B.
 * fifo: A0-A3 360..696, B0-B3 696..1032.
 * A packet whose tail leaves the NIC at T is complete at its target at
 * T + 2L + W = T + 300 (cut-through, net.h: the switch forwards it at once);
 * the flag reaches the target's bus Lb = 20 later: A at 864 + 320 = 1184,
 * B at 1032 + 320 = 1352 (fifo: A 1016, B 1352). Local flags at the last
 * tail + Lb: 884 and 1052 (fifo 716 and 1052). One queue pair for both
 * destinations (queue_pairs 1) is fifo's order. */
static void test_send_queues_interleave(void) {
  sim_time a, b, la, lb;
  two_puts(NIC_SEND_RR, 0, &a, &b, &la, &lb);
  EXPECT_TIME(a, 1184 * NS);
  EXPECT_TIME(b, 1352 * NS);
  EXPECT_TIME(la, 884 * NS);
  EXPECT_TIME(lb, 1052 * NS);
  two_puts(NIC_SEND_FIFO, 0, &a, &b, &la, &lb);
  EXPECT_TIME(a, 1016 * NS);
  EXPECT_TIME(b, 1352 * NS);
  EXPECT_TIME(la, 716 * NS);
  EXPECT_TIME(lb, 1052 * NS);
  two_puts(NIC_SEND_RR, 1, &a, &b, &la, &lb);
  EXPECT_TIME(a, 1016 * NS);
  EXPECT_TIME(b, 1352 * NS);
}

/* send_chunk 2: a queue sends two packets in a row. Both commands at once
 * with cmd_cost 0: DMA reads at 20 and 20, data back at 260 for A then B
 * (the fake bus answers in order). A0 260..344, A1 ..428 (A's second in a
 * row), B0 ..512, B1 ..596, A2 ..680, A3 ..764, B2 ..848, B3 ..932: flags
 * at A 764 + 320 = 1084, B 932 + 320 = 1252. With send_chunk 1: A0, B0, A1,
 * B1, A2, B2, A3 (..848), B3 (..932): A 1168, B 1252. */
static void test_send_chunk(void) {
  for (int64_t chunk = 1; chunk <= 2; chunk++) {
    struct rig3 *r = rig3_new(NIC_SEND_RR, chunk, 0);
    r->cfg.cmd_cost = 0;
    struct rig r0 = {.e = r->e, .bus = {r->bus[0]}};
    struct nic_cmd c = put_cmd(NIC_PUT, 4000, 5, 0);
    send_cmd(&r0, 0, 0, c);
    c.dst_node = 2;
    c.remote.id = 6;
    send_cmd(&r0, 0, 0, c);
    sim_run(r->e, SIM_TIME_MAX, 0);
    EXPECT_TIME(flag_at(r->bus[1], 5), (chunk == 2 ? 1084 : 1168) * NS);
    EXPECT_TIME(flag_at(r->bus[2], 6), 1252 * NS);
    rig3_free(r);
  }
}

static void test_params(void) {
  struct nic_config cfg;
  par_group_defaults(&nic_params, &cfg);
  CU_ASSERT_EQUAL(cfg.cmd_cost, 100 * NS);
  CU_ASSERT_EQUAL(cfg.trigger_entries, 16); /* GPU-TN Sec. 3.3 */
  CU_ASSERT_EQUAL(cfg.trigger_full, TL_SPILL);
  CU_ASSERT_EQUAL(cfg.overflow_lookup, 500 * NS);
  CU_ASSERT_EQUAL(cfg.match_latency, 10 * NS);
  CU_ASSERT_EQUAL(cfg.triggered_ops, 4096);
  CU_ASSERT_EQUAL(cfg.send_order, NIC_SEND_RR);
  CU_ASSERT_EQUAL(cfg.send_chunk, 1);
  CU_ASSERT_EQUAL(cfg.queue_pairs, 0);
  char *err = NULL;
  CU_ASSERT_FALSE(par_set(par_group_find(&nic_params, "triggered_ops"), &cfg, "0", &err));
  g_free(err);
  err = NULL;
  CU_ASSERT_TRUE(par_set(par_group_find(&nic_params, "triggered_ops"), &cfg, "16777216", &err));
  CU_ASSERT_TRUE(par_set(par_group_find(&nic_params, "trigger_full"), &cfg, "stall", &err));
  CU_ASSERT_EQUAL(cfg.trigger_full, TL_STALL);
  CU_ASSERT_FALSE(par_set(par_group_find(&nic_params, "trigger_entries"), &cfg, "0", &err));
  g_free(err);
}

static void test_trace_spans(void) {
  char *path = tu_temp_file(".json", "", 0);
  char *err = NULL;
  struct trace *t = trace_open(path, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  struct rig *r = rig_new(NET_CUT_THROUGH, 16, TL_SPILL);
  sim_set_trace(r->e, t, NULL);
  struct nic_cmd c = put_cmd(NIC_TPUT, 2500, 5, 6);
  c.tag = 1;
  send_cmd(r, 0, 0, c);
  send_small(r, 0, 0, PK_TRIGGER, 1);
  send_cmd(r, 0, 0, put_cmd(NIC_GET, 100, 0, 7));
  rig_run(r);
  CU_ASSERT_TRUE(trace_close(t, &err));
  char *text = NULL;
  CU_ASSERT_TRUE_FATAL(g_file_get_contents(path, &text, NULL, NULL));
  const char *want[] = {"triggered put", "\"get\"", "match", "dma read", "tx put",
                        "tx get request", "tx get reply", "put received", "get reply received",
                        "\"nic/trigger\"", "\"node1\""};
  for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
    if (!strstr(text, want[i])) fprintf(stderr, "missing in trace: %s\n", want[i]);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, want[i]));
  }
  g_free(text);
  rig_free(r);
  g_free(path);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"put, one packet, both switching modes", test_put_one_packet},
      {"put, several packets, both switching modes", test_put_several_packets},
      {"put of 0 bytes: one header-only packet", test_put_zero_bytes},
      {"triggered put, registered before the store", test_triggered_put_registered_first},
      {"triggered put, store before registration (relaxed)", test_triggered_put_relaxed},
      {"kernel-level threshold: fires on the n-th store", test_kernel_level_threshold},
      {"a batch of work-item stores: b matches, then fires", test_trigger_batch_fires},
      {"a batch crossing the threshold allocates a new entry", test_trigger_batch_crosses_threshold},
      {"a batch on a full list: each store pays the overflow", test_trigger_batch_spills},
      {"get round trip, both switching modes", test_get_round_trip},
      {"doorbell after its post", test_doorbell_after_post},
      {"doorbell before its post", test_doorbell_before_post},
      {"full trigger list: spill costs overflow_lookup", test_full_list_spill},
      {"full trigger list: stall at the FIFO head", test_full_list_stall_fifo},
      {"full trigger list: stall at the command queue head", test_full_list_stall_command_queue},
      {"full trigger list: stall deadlock is reported", test_full_list_stall_deadlock_reported},
      {"the host's triggered operations held: the NIC tells the host, by hand", test_triggered_ops_room},
      {"packets on the wire: fields and event times per switching mode",
       test_packets_on_the_wire},
      {"send queues: two messages to two nodes interleave, by hand", test_send_queues_interleave},
      {"send queues: send_chunk packets in a row, by hand", test_send_chunk},
      {"parameters: defaults and ranges", test_params},
      {"trace spans on the NIC tracks", test_trace_spans},
      {NULL, NULL},
  };
  return tu_run_suite("nic", tests);
}
