/* Switches and topologies: packet timing against net.h's analytical formulas
 * (both switching modes), pipelining, output-port contention, routing of
 * every pair on small instances of each topology, shape checks, the
 * build cost of 4096-node networks, and nodes of several GPUs
 * (network.gpus_per_node): every pair's timing through the crossbar or the
 * network, contention at the receiving side, shapes.
 *
 * Defaults used throughout: link L = 100 ns, switch W = 100 ns, B = 100 Gbps
 * (one byte = 80 ps on a link), header 64 B, mtu 4 KiB. A payload of 1000 B
 * is 1064 wire bytes: ser = 1064 * 80 ps = 85.12 ns. */
#include "flow.h"
#include "proto.h"
#include "switch.h"
#include "testutil.h"
#include "topology.h"
#include "trace.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

/* ---- a stand-in NIC: ports "net" and "nvl"; sends its messages in the
 * order they start, cut into packets, one packet at a time when the port is
 * free and the switch it feeds has credit for it (models/flow.h), and
 * records when each packet it receives is complete (head + one
 * serialization under cut-through, the tail's arrival under
 * store-and-forward). ---- */

enum { TK_SEND = 1, TK_TX, TK_WAKE };

struct tmsg {
  uint32_t src, dst;
  int64_t bytes;
  sim_time at;         /* when the source starts it */
  sim_time expect;     /* expected completion of its last packet, or -1 */
  sim_time done[8];    /* completion of packets 0..7 */
  uint32_t got;        /* packets received */
  sim_time last;       /* completion of the last one received */
  uint32_t wrong_node; /* packets delivered to a node other than dst */
  uint32_t sent;       /* packets sent */
};

static struct tmsg *g_msgs;
static size_t g_n_msgs;

/* One port's sending side: busy_until, credit, and the messages to send in
 * order (indices into g_msgs). */
struct ttx {
  struct net_egress eg;
  struct flow_out flow;
  GQueue fifo;
  sim_time tx_at, wake_at;
};

/* Port 0 "net" to the network, port 1 "nvl" to the node's crossbar (used
 * only with network.gpus_per_node > 1, net.h). */
struct tnic_state {
  struct ttx tx[2];
};

static void tnic_init(struct sim_comp *c) {
  const struct net_config *net = c->config;
  struct tnic_state *s = c->state;
  for (int p = 0; p < 2; p++) {
    struct ttx *t = &s->tx[p];
    t->eg.bw_bps = p ? net->intra_bandwidth : net->link_bandwidth;
    t->tx_at = t->wake_at = -1;
    g_queue_init(&t->fifo);
    bool sw = c->ports[p].connected && sw_is_switch(sim_comp_get(c->eng, c->ports[p].peer));
    flow_init(&t->flow, sw ? net_buffer(net, p == 1) : 0);
  }
}

static void tnic_destroy(struct sim_comp *c) {
  struct tnic_state *s = c->state;
  for (int p = 0; p < 2; p++) {
    g_queue_clear(&s->tx[p].fifo);
    flow_release(&s->tx[p].flow);
  }
}

/* Port P sends its head message's next packet if it is free and has
 * credit; makes sure it looks again when it can. */
static void tnic_try(struct sim_comp *c, int p) {
  const struct net_config *net = c->config;
  struct tnic_state *s = c->state;
  struct sim_engine *e = c->eng;
  struct ttx *t = &s->tx[p];
  sim_time now = sim_now(e);
  if (g_queue_is_empty(&t->fifo)) return;
  if (t->eg.busy_until > now) {
    if (t->tx_at != t->eg.busy_until) {
      t->tx_at = t->eg.busy_until;
      sim_schedule(c, t->tx_at - now, TK_TX, (uint64_t)p);
    }
    return;
  }
  size_t i = GPOINTER_TO_SIZE(g_queue_peek_head(&t->fifo));
  struct tmsg *msg = &g_msgs[i];
  int64_t n = sw_packet_count(net, msg->bytes);
  int64_t payload = msg->bytes - (int64_t)msg->sent * net->mtu;
  if (payload > net->mtu) payload = net->mtu;
  if (payload < 0) payload = 0;
  int64_t wire = sw_wire_bytes(net, payload);
  if (flow_room(&t->flow, 0, now) < wire) {
    sim_time at = flow_next_back(&t->flow, now);
    if (at != SIM_TIME_MAX && at != t->wake_at) {
      t->wake_at = at;
      sim_schedule(c, at - now, TK_WAKE, (uint64_t)p);
    }
    return;
  }
  struct pmsg *m;
  uint64_t h = pmsg_new(e, PK_PACKET, &m);
  m->src_node = msg->src;
  m->dst_node = msg->dst;
  m->bytes = payload;
  m->op = i;
  m->seq = msg->sent;
  m->count = (uint32_t)n;
  sim_time ser;
  sim_time delay = net_egress_send(&t->eg, now, wire, net->switching, &ser);
  sim_time w = p ? net->intra_switch_latency : net->switch_latency;
  flow_spend(&t->flow, 0, wire,
             flow_back_at(now, ser, c->ports[p].latency_ps, w, net->switching == NET_STORE_FORWARD));
  sim_send(c, p, delay, PK_PACKET, h);
  if (++msg->sent == n) g_queue_pop_head(&t->fifo);
  if (!g_queue_is_empty(&t->fifo)) {
    t->tx_at = t->eg.busy_until;
    sim_schedule(c, ser, TK_TX, (uint64_t)p);
  }
}

static void tnic_handle(struct sim_comp *c, const struct sim_event *ev) {
  const struct net_config *net = c->config;
  struct tnic_state *s = c->state;
  struct sim_engine *e = c->eng;
  if (ev->port == SIM_PORT_SELF) {
    if (ev->kind == TK_SEND) {
      struct tmsg *msg = &g_msgs[ev->data];
      int p = net_same_node(net, msg->src, msg->dst) ? 1 : 0;
      g_queue_push_tail(&s->tx[p].fifo, GSIZE_TO_POINTER(ev->data));
      tnic_try(c, p);
      return;
    }
    struct ttx *t = &s->tx[ev->data];
    if (ev->kind == TK_TX && t->tx_at == sim_now(e)) t->tx_at = -1;
    if (ev->kind == TK_WAKE && t->wake_at == sim_now(e)) t->wake_at = -1;
    tnic_try(c, (int)ev->data);
    return;
  }
  if (ev->kind == PK_LINK_HOLD) {
    flow_hold(&s->tx[ev->port].flow, (uint32_t)ev->data);
    return;
  }
  if (ev->kind == PK_LINK_CREDIT) {
    flow_credit(&s->tx[ev->port].flow, flow_credit_vl(ev->data), flow_credit_bytes(ev->data),
                sim_now(e) + 1);
    sim_schedule(c, 1, TK_WAKE, ev->port);
    return;
  }
  struct pmsg *m = sim_payload(e, ev->data);
  struct tmsg *msg = &g_msgs[m->op];
  sim_time done = sim_now(e);
  if (net->switching == NET_CUT_THROUGH)
    done += net_ser_time(sw_wire_bytes(net, m->bytes),
                         ev->port == 1 ? net->intra_bandwidth : net->link_bandwidth);
  if (m->dst_node != c->id) msg->wrong_node++;
  if (m->seq < 8) msg->done[m->seq] = done;
  if (done > msg->last) msg->last = done;
  msg->got++;
  sim_payload_free(e, ev->data);
}

static const char *const tnic_ports[] = {"net", "nvl"};
static const struct sim_type tnic_type = {
    .name = "tnic",
    .doc = "test endpoint",
    .ports = tnic_ports,
    .n_ports = 2,
    .state_size = sizeof(struct tnic_state),
    .init = tnic_init,
    .handle = tnic_handle,
    .destroy = tnic_destroy,
};

/* ---- a small world: N test NICs (component ids 0..N-1 = node ids) and the
 * network ---- */

struct world {
  struct sim_engine *e;
  struct topo *t;
  struct sim_comp **nics;
  uint32_t n;
};

static struct net_config defaults(void) {
  struct net_config c;
  par_group_defaults(&net_params, &c);
  return c;
}

static struct world world_new(const struct net_config *cfg) {
  struct world w = {0};
  char *err = NULL;
  w.t = topo_new(cfg, &err);
  if (!w.t) fprintf(stderr, "topo_new: %s\n", err);
  g_assert(w.t);
  w.n = topo_nodes(w.t);
  w.e = sim_new(1);
  w.nics = g_new(struct sim_comp *, w.n);
  for (uint32_t i = 0; i < w.n; i++) {
    char name[32];
    snprintf(name, sizeof name, "node%u.nic", i);
    w.nics[i] = sim_add(w.e, &tnic_type, name, topo_config(w.t));
  }
  if (!topo_build(w.t, w.e, w.nics, 0, &err)) fprintf(stderr, "topo_build: %s\n", err);
  if (!err && !topo_build_intra(w.t, w.e, w.nics, 1, &err))
    fprintf(stderr, "topo_build_intra: %s\n", err);
  g_free(err);
  return w;
}

static void world_free(struct world *w) {
  sim_free(w->e);
  topo_free(w->t);
  g_free(w->nics);
  g_free(g_msgs);
  g_msgs = NULL;
  g_n_msgs = 0;
}

/* Queues a message; returns its index in g_msgs. */
static size_t add_msg(struct world *w, uint32_t src, uint32_t dst, int64_t bytes, sim_time at,
                      sim_time expect) {
  static size_t cap;
  if (!g_msgs) cap = 0;
  if (g_n_msgs == cap) g_msgs = g_renew(struct tmsg, g_msgs, cap = cap ? 2 * cap : 64);
  g_msgs[g_n_msgs] =
      (struct tmsg){.src = src, .dst = dst, .bytes = bytes, .at = at, .expect = expect};
  sim_schedule(w->nics[src], at, TK_SEND, g_n_msgs);
  return g_n_msgs++;
}

static void run(struct world *w) {
  sim_run(w->e, SIM_TIME_MAX, 0);
  CU_ASSERT_EQUAL(sim_payloads_live(w->e), 0);
}

/* Single-message world: returns the completion time of the last packet. */
static sim_time one_message(struct net_config cfg, uint32_t src, uint32_t dst, int64_t bytes) {
  struct world w = world_new(&cfg);
  add_msg(&w, src, dst, bytes, 0, -1);
  run(&w);
  sim_time t = g_msgs[0].last;
  CU_ASSERT_EQUAL(g_msgs[0].got, (uint32_t)sw_packet_count(&cfg, bytes));
  CU_ASSERT_EQUAL(g_msgs[0].wrong_node, 0);
  world_free(&w);
  return t;
}

static struct net_config star(int64_t nodes, int switching) {
  struct net_config c = defaults();
  c.topology = NET_STAR;
  c.nodes = nodes;
  c.switching = switching;
  return c;
}

static struct net_config fat_tree(int64_t k, int64_t levels, int64_t nodes, int switching) {
  struct net_config c = star(nodes, switching);
  c.topology = NET_FAT_TREE;
  c.fat_tree_k = k;
  c.fat_tree_levels = levels;
  return c;
}

static struct net_config torus(int64_t x, int64_t y, int64_t z, int64_t nodes, int switching) {
  struct net_config c = star(nodes, switching);
  c.topology = NET_TORUS;
  c.torus_x = x, c.torus_y = y, c.torus_z = z;
  return c;
}

static struct net_config dragonfly(int64_t a, int64_t p, int64_t h, int64_t nodes, int switching) {
  struct net_config c = star(nodes, switching);
  c.topology = NET_DRAGONFLY;
  c.dragonfly_a = a, c.dragonfly_p = p, c.dragonfly_h = h;
  return c;
}

/* ---- timing ---- */

static void test_defaults(void) {
  struct net_config c = defaults();
  CU_ASSERT_EQUAL(c.topology, NET_STAR);
  CU_ASSERT_EQUAL(c.switching, NET_CUT_THROUGH);
  CU_ASSERT_EQUAL(c.link_latency, 100 * SIM_NS);
  CU_ASSERT_EQUAL(c.switch_latency, 100 * SIM_NS);
  CU_ASSERT_EQUAL(c.link_bandwidth, 100000000000);
  CU_ASSERT_EQUAL(c.mtu, 4096);
  CU_ASSERT_EQUAL(c.header_bytes, 64);
  CU_ASSERT_EQUAL(net_ser_time(1064, c.link_bandwidth), 85120);
}

/* Star, one packet of 1000 B payload (ser 85.12 ns), h = 1 switch:
 *   cut-through       2L + W + ser   = 200 + 100 + 85.12  = 385.12 ns
 *   store-and-forward 2L + W + 2 ser = 300 + 170.24       = 470.24 ns */
static void test_one_packet_star(void) {
  CU_ASSERT_EQUAL(one_message(star(4, NET_CUT_THROUGH), 1, 3, 1000), 385120);
  CU_ASSERT_EQUAL(one_message(star(4, NET_STORE_FORWARD), 1, 3, 1000), 470240);
}

/* Multi-hop, one packet of 1000 B:
 * - 2-ary 3-tree, 0 -> 7: common ancestor at level 2, h = 2*2 + 1 = 5:
 *   CT  6L + 5W + ser   = 600 + 500 + 85.12  = 1185.12 ns
 *   SAF 6L + 5W + 6 ser = 1100 + 510.72      = 1610.72 ns
 * - 4x4 torus, 0 -> 10 = (2,2): 2 + 2 ring hops (ties toward +), h = 5: same.
 * - dragonfly a=2 p=1 h=1 (3 groups of 2 routers), 0 (group 0 router 0) ->
 *   5 (group 2 router 1): global link j = (2-0-1) mod 3 = 1 sits on router 1
 *   (local hop), lands on group 2's link a*h-1-j = 0 on router 0 (local hop
 *   to router 1): h = 4. CT 5L + 4W + ser = 985.12 ns; SAF 900 + 5 ser =
 *   1325.6 ns. */
static void test_one_packet_multi_hop(void) {
  CU_ASSERT_EQUAL(one_message(fat_tree(2, 3, 8, NET_CUT_THROUGH), 0, 7, 1000), 1185120);
  CU_ASSERT_EQUAL(one_message(fat_tree(2, 3, 8, NET_STORE_FORWARD), 0, 7, 1000), 1610720);
  CU_ASSERT_EQUAL(one_message(torus(4, 4, 1, 16, NET_CUT_THROUGH), 0, 10, 1000), 1185120);
  CU_ASSERT_EQUAL(one_message(torus(4, 4, 1, 16, NET_STORE_FORWARD), 0, 10, 1000), 1610720);
  CU_ASSERT_EQUAL(one_message(dragonfly(2, 1, 1, 6, NET_CUT_THROUGH), 0, 5, 1000), 985120);
  CU_ASSERT_EQUAL(one_message(dragonfly(2, 1, 1, 6, NET_STORE_FORWARD), 0, 5, 1000), 1325600);
}

/* Star, 10000 B = packets of 4096, 4096, 1808 payload: wire 4160, 4160,
 * 1872 B, ser 332.8, 332.8, 149.76 ns. The NIC sends heads at 0, 332.8,
 * 665.6 ns.
 * Cut-through: packet i reaches the switch at head + L, leaves W later, the
 * port is free just then (the previous packet ends exactly there): done
 * at 2L + W + sum of sers up to i: 632.8, 965.6, 1115.36 ns; no queueing.
 * Store-and-forward: tails reach the switch at 432.8, 765.6, 915.36;
 * starts max(tail + W, busy) = 532.8, 865.6, max(1015.36, 1198.4) =
 * 1198.4 (queued 183.04 ns); tails reach the target L + ser after the
 * start: 965.6, 1298.4, 1448.16 ns. */
static void test_pipelining_star(void) {
  struct net_config cfg = star(2, NET_CUT_THROUGH);
  struct world w = world_new(&cfg);
  add_msg(&w, 0, 1, 10000, 0, -1);
  run(&w);
  CU_ASSERT_EQUAL(g_msgs[0].got, 3);
  CU_ASSERT_EQUAL(g_msgs[0].done[0], 632800);
  CU_ASSERT_EQUAL(g_msgs[0].done[1], 965600);
  CU_ASSERT_EQUAL(g_msgs[0].done[2], 1115360);
  struct sw_stats st;
  sw_stats(sim_comp_get(w.e, topo_first_switch_id(w.t)), &st);
  CU_ASSERT_EQUAL(st.packets, 3);
  CU_ASSERT_EQUAL(st.bytes, 4160 + 4160 + 1872);
  CU_ASSERT_EQUAL(st.max_queue_ps, 0);
  world_free(&w);

  cfg = star(2, NET_STORE_FORWARD);
  w = world_new(&cfg);
  add_msg(&w, 0, 1, 10000, 0, -1);
  run(&w);
  CU_ASSERT_EQUAL(g_msgs[0].done[0], 965600);
  CU_ASSERT_EQUAL(g_msgs[0].done[1], 1298400);
  CU_ASSERT_EQUAL(g_msgs[0].done[2], 1448160);
  sw_stats(sim_comp_get(w.e, topo_first_switch_id(w.t)), &st);
  CU_ASSERT_EQUAL(st.max_queue_ps, 183040);
  world_free(&w);
}

/* 3 full packets (12288 B, ser 332.8 ns each) over the 5 switches of the
 * 2-ary 3-tree, 0 -> 7. With equal packets nothing queues:
 *   CT  6L + 5W + 3 ser       = 1100 + 998.4  = 2098.4 ns
 *   SAF 6L + 5W + (5 + 3) ser = 1100 + 2662.4 = 3762.4 ns
 * (the first packet pays 6 sers, each later one one more). */
static void test_pipelining_multi_hop(void) {
  CU_ASSERT_EQUAL(one_message(fat_tree(2, 3, 8, NET_CUT_THROUGH), 0, 7, 3 * 4096), 2098400);
  CU_ASSERT_EQUAL(one_message(fat_tree(2, 3, 8, NET_STORE_FORWARD), 0, 7, 3 * 4096), 3762400);
}

/* Star, nodes 0 and 1 each send 1000 B (ser 85.12 ns) to node 2 at t = 0.
 * Both heads reach the switch at 100 ns; node 0's event is first.
 * CT: A starts at 200, done 300 + 85.12 = 385.12; B waits for the port
 *   until 285.12, done 470.24 ns (one ser later; queued 85.12 ns).
 * SAF: tails at the switch at 185.12; A starts 285.12, ends 370.24, done
 *   470.24; B starts 370.24, done 555.36 ns. */
static void test_contention(void) {
  for (int mode = 0; mode < 2; mode++) {
    struct net_config cfg = star(3, mode);
    struct world w = world_new(&cfg);
    add_msg(&w, 0, 2, 1000, 0, -1);
    add_msg(&w, 1, 2, 1000, 0, -1);
    run(&w);
    sim_time a = mode == NET_CUT_THROUGH ? 385120 : 470240;
    CU_ASSERT_EQUAL(g_msgs[0].last, a);
    CU_ASSERT_EQUAL(g_msgs[1].last, a + 85120);
    struct sw_stats st;
    sw_stats(sim_comp_get(w.e, topo_first_switch_id(w.t)), &st);
    CU_ASSERT_EQUAL(st.max_queue_ps, 85120);

    struct sim_report r;
    sim_report_init(&r);
    sim_finish(w.e, &r);
    const struct sim_report_entry *en = sim_report_find(&r, "net.sw0.packets");
    CU_ASSERT(en && en->i == 2);
    en = sim_report_find(&r, "net.sw0.bytes");
    CU_ASSERT(en && en->i == 2 * 1064 && en->dim == UNIT_SIZE);
    en = sim_report_find(&r, "net.sw0.max_queue_delay");
    CU_ASSERT(en && en->i == 85120 && en->dim == UNIT_TIME);
    en = sim_report_find(&r, "net.switches.packets");
    CU_ASSERT(en && en->i == 2);
    sim_report_clear(&r);
    world_free(&w);

    /* Different output ports do not contend: 0 -> 2 and 1 -> 3 at once
     * both take the single-packet time. */
    cfg = star(4, mode);
    w = world_new(&cfg);
    add_msg(&w, 0, 2, 1000, 0, -1);
    add_msg(&w, 1, 3, 1000, 0, -1);
    run(&w);
    CU_ASSERT_EQUAL(g_msgs[0].last, a);
    CU_ASSERT_EQUAL(g_msgs[1].last, a);
    world_free(&w);
  }
}

/* Empty messages pay the latencies and the header's serialization only:
 * 64 B = 5.12 ns. Star: CT 300 + 5.12 = 305.12 ns, SAF 300 + 2 * 5.12 =
 * 310.24 ns. With no header nothing is serialized: 2L + W = 300 ns in both
 * modes, and 6L + 5W = 1100 ns over the 2-ary 3-tree from 0 to 7. */
static void test_small_messages(void) {
  CU_ASSERT_EQUAL(one_message(star(2, NET_CUT_THROUGH), 0, 1, 0), 305120);
  CU_ASSERT_EQUAL(one_message(star(2, NET_STORE_FORWARD), 0, 1, 0), 310240);
  for (int mode = 0; mode < 2; mode++) {
    struct net_config c = star(2, mode);
    c.header_bytes = 0;
    CU_ASSERT_EQUAL(one_message(c, 0, 1, 0), 300000);
    c = fat_tree(2, 3, 8, mode);
    c.header_bytes = 0;
    CU_ASSERT_EQUAL(one_message(c, 0, 7, 0), 1100000);
    /* Empty packets take no time on an output, so three of them ready at
     * one instant all leave at it (300 ns each), credits or not. */
    for (int flow = 0; flow < 2; flow++) {
      c = star(4, mode);
      c.header_bytes = 0;
      c.flow_control = flow ? NET_FLOW_NONE : NET_FLOW_CREDIT;
      struct world w = world_new(&c);
      for (uint32_t n = 0; n < 3; n++) add_msg(&w, n, 3, 0, 0, -1);
      run(&w);
      for (int m = 0; m < 3; m++) {
        CU_ASSERT_EQUAL(g_msgs[m].got, 1);
        EXPECT_TIME(g_msgs[m].last, 300000);
      }
      world_free(&w);
    }
  }
}


/* ---- arbiters and credits (issue 29) ---- */

/* Nodes 0 (A) and 1 (B) each send 3 packets of 4096 B (wire 4160 B, ser
 * 332.8 ns) to node 2 at t = 0, star, cut-through. Each NIC sends back to
 * back (0, 332.8, 665.6 ns): heads at the switch 100 ns later, ready W =
 * 100 ns after that: 200, 532.8, 865.6 for both inputs. The output to node
 * 2 takes, when free, the first ready head after the input it served last
 * (switch.h): 200 A0 (inputs 0 and 1 tie; none served yet: input 0);
 * 532.8 B0 (input 1 after 0); 865.6 A1; 1198.4 B1; 1531.2 A2; 1864.0 B2.
 * Each is complete at node 2 one link latency and one ser after it
 * starts at the output: start + 432.8: A 632.8, 1298.4, 1964.0; B 965.6, 1631.2, 2296.8 ns. All but A0
 * waited past their ready time (5); the longest, B2, from 865.6 to 1864.0
 * (998.4 ns). */
static void test_arbiter_alternates(void) {
  struct net_config cfg = star(3, NET_CUT_THROUGH);
  struct world w = world_new(&cfg);
  add_msg(&w, 0, 2, 3 * 4096, 0, -1);
  add_msg(&w, 1, 2, 3 * 4096, 0, -1);
  run(&w);
  const sim_time a[] = {632800, 1298400, 1964000}, b[] = {965600, 1631200, 2296800};
  for (int i = 0; i < 3; i++) {
    EXPECT_TIME(g_msgs[0].done[i], a[i]);
    EXPECT_TIME(g_msgs[1].done[i], b[i]);
  }
  struct sw_stats st;
  sw_stats(sim_comp_get(w.e, topo_first_switch_id(w.t)), &st);
  CU_ASSERT_EQUAL(st.waited, 5);
  CU_ASSERT_EQUAL(st.max_queue_ps, 998400);
  CU_ASSERT_EQUAL(st.credit_stall_ps, 0);
  world_free(&w);
}

/* A victim behind a full buffer. Star of 4, cut-through, mtu 1000 B, header
 * 64 B (wire 1064 B, ser S = 85.12 ns), input buffers of one packet
 * (buffer_bytes 1064). Node 0 sends A0, A1 to node 2, then the victim V
 * to node 3; node 1 sends B0, B1 to node 2; all at t = 0.
 * A sender's credit for a packet it starts at t is back at t + 2L + W + S
 * = t + 385.12 if the switch forwards it at its ready time (flow.h).
 * - A0 and B0 start at 0, ready at 200: the output to 2 takes A0 (input
 *   0 first), 200..285.12; B0 waits: its sender is told (hold), and its
 *   credit comes back explicitly when it leaves: 285.12 + S + L = 470.24.
 * - Node 0: A1 waits for A0's credit, 385.12; A1 ready 585.12, out at
 *   once (done 770.24); V waits for A1's credit, 770.24; ready 970.24 on
 *   the idle output to 3: done 970.24 + L + S = 1155.36 ns.
 * - Node 1: B1 starts at 470.24, ready 670.24, when A1's serialization ends:
 *   out at once, done 855.36. B0 done 285.12 + 185.12 = 470.24.
 * With unbounded buffers (flow_control none) node 0 sends A0, A1, V back to
 * back (0, 85.12, 170.24): V ready at 370.24, out at once, done 555.36 ns;
 * the output to 2 serves A0 200, B0 285.12, A1 370.24, B1 455.36. */
static void test_victim_behind_full_buffer(void) {
  for (int flow = 0; flow < 2; flow++) {
    struct net_config cfg = star(4, NET_CUT_THROUGH);
    cfg.mtu = 1000;
    cfg.buffer_bytes = 1064;
    cfg.flow_control = flow ? NET_FLOW_NONE : NET_FLOW_CREDIT;
    struct world w = world_new(&cfg);
    add_msg(&w, 0, 2, 2000, 0, -1);
    add_msg(&w, 0, 3, 1000, 0, -1);
    add_msg(&w, 1, 2, 2000, 0, -1);
    run(&w);
    if (flow == 0) {
      EXPECT_TIME(g_msgs[0].done[0], 385120);
      EXPECT_TIME(g_msgs[0].done[1], 770240);
      EXPECT_TIME(g_msgs[1].last, 1155360);
      EXPECT_TIME(g_msgs[2].done[0], 470240);
      EXPECT_TIME(g_msgs[2].done[1], 855360);
    } else {
      EXPECT_TIME(g_msgs[0].done[1], 555360);
      EXPECT_TIME(g_msgs[1].last, 555360);
      EXPECT_TIME(g_msgs[2].done[0], 470240);
      EXPECT_TIME(g_msgs[2].done[1], 640480);
    }
    struct sw_stats st;
    sw_stats(sim_comp_get(w.e, topo_first_switch_id(w.t)), &st);
    CU_ASSERT_EQUAL(st.waited, flow ? 3 : 1); /* none: B0, A1, B1 wait for the output */
    world_free(&w);
  }
}

/* A 3-node credit loop on a fat-tree's up/down routes: 2-ary 2-tree (leaf
 * switches 0 {nodes 0, 1} and 1 {2, 3}; spines 2 and 3, d-mod-k: a packet
 * to node d climbs to spine 2 + d % 2). Flows 0 -> 2, 2 -> 1, 1 -> 0 of 8
 * packets of 1000 B (wire 1064, ser S = 85.12 ns), input buffers of one
 * packet, cut-through. Routes go up, then down: no cycle of buffers waiting
 * on each other, so it must complete. The flows share no port (0 -> 2
 * climbs to spine 2, 2 -> 1 to spine 3, 1 -> 0 turns in leaf 0). Each hop
 * forwards a packet at its ready time, its credit back 2L + W + S = 385.12
 * ns after its start, just when the next packet is ready there: a sender
 * starts one every 385.12 ns and each arrives after its path's latency.
 * - 0 -> 2 and 2 -> 1, 3 switches: 4L + 3W + S = 785.12 ns, the last
 *   (7th after the first) at 785.12 + 7 x 385.12 = 785.12 + 2695.84
 *   = 3480.96 ns;
 * - 1 -> 0, 1 switch: 2L + W + S = 385.12, the last at 8 x 385.12 =
 *   3080.96 ns. */
static void test_credit_loop_fat_tree(void) {
  struct net_config cfg = fat_tree(2, 2, 4, NET_CUT_THROUGH);
  cfg.mtu = 1000;
  cfg.buffer_bytes = 1064;
  struct world w = world_new(&cfg);
  add_msg(&w, 0, 2, 8000, 0, -1);
  add_msg(&w, 2, 1, 8000, 0, -1);
  add_msg(&w, 1, 0, 8000, 0, -1);
  run(&w);
  for (int m = 0; m < 3; m++) {
    CU_ASSERT_EQUAL(g_msgs[m].got, 8);
    CU_ASSERT_EQUAL(g_msgs[m].wrong_node, 0);
  }
  EXPECT_TIME(g_msgs[0].done[0], 785120);
  EXPECT_TIME(g_msgs[0].last, 3480960);
  EXPECT_TIME(g_msgs[1].last, 3480960);
  EXPECT_TIME(g_msgs[2].done[0], 385120);
  EXPECT_TIME(g_msgs[2].last, 3080960);
  world_free(&w);
}

/* Lanes on a torus and a dragonfly (switch.h). A ring of 4 routers (4x1 torus; ports 1 and
 * 2 are x+ and x-). A packet leaving router 3 on x+ (to 0) crosses the
 * dateline: lane 1; going on from 0 to 1 it keeps lane 1; a packet from
 * the node (port 0) starts on lane 0; going x- from router 0 (to 3)
 * crosses too. Then a load that could deadlock with one lane: each node
 * sends 16 packets two hops on (ties go +: 0 -> 2, 1 -> 3, 2 -> 0, 3 ->
 * 1), so that the four x+ links form a cycle of buffers of one packet
 * each; with the dateline's second lane every packet arrives. */
static void test_torus_lanes(void) {
  struct net_config cfg = torus(4, 1, 1, 4, NET_CUT_THROUGH);
  cfg.mtu = 1000;
  cfg.buffer_bytes = 1064;
  char *err = NULL;
  struct topo *t = topo_new(&cfg, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(topo_lanes(t), 2);
  int vl = -1;
  CU_ASSERT_EQUAL(topo_route_vl(t, 3, 0, 0, 1, &vl), 1);
  CU_ASSERT_EQUAL(vl, 1);
  CU_ASSERT_EQUAL(topo_route_vl(t, 0, 2, 1, 1, &vl), 1); /* in on x- of 0 = from 3 going + */
  CU_ASSERT_EQUAL(vl, 1);
  CU_ASSERT_EQUAL(topo_route_vl(t, 1, 0, 0, 2, &vl), 1);
  CU_ASSERT_EQUAL(vl, 0);
  CU_ASSERT_EQUAL(topo_route_vl(t, 0, 0, 0, 3, &vl), 2);
  CU_ASSERT_EQUAL(vl, 1);
  topo_free(t);

  /* Dragonfly a=2 p=1 h=1 (ports: 0 the node, 1 local, 2 global), 0 -> 5
   * (test_one_packet_multi_hop's path): router 0 local to 1 on lane 0;
   * router 1 global to group 2 (router 4) on lane 0; router 4, in by its
   * global port, local to 5 on lane 1; router 5 to its node. */
  struct net_config dcfg = dragonfly(2, 1, 1, 6, NET_CUT_THROUGH);
  t = topo_new(&dcfg, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  CU_ASSERT_EQUAL(topo_lanes(t), 2);
  CU_ASSERT_EQUAL(topo_route_vl(t, 0, 0, 0, 5, &vl), 1);
  CU_ASSERT_EQUAL(vl, 0);
  CU_ASSERT_EQUAL(topo_route_vl(t, 1, 1, 0, 5, &vl), 2);
  CU_ASSERT_EQUAL(vl, 0);
  CU_ASSERT_EQUAL(topo_route_vl(t, 4, 2, 0, 5, &vl), 1);
  CU_ASSERT_EQUAL(vl, 1);
  CU_ASSERT_EQUAL(topo_route_vl(t, 5, 1, 1, 5, &vl), 0);
  CU_ASSERT_EQUAL(vl, 0);
  topo_free(t);

  struct world w = world_new(&cfg);
  for (uint32_t n = 0; n < 4; n++) add_msg(&w, n, (n + 2) % 4, 16000, 0, -1);
  run(&w);
  for (int m = 0; m < 4; m++) {
    CU_ASSERT_EQUAL(g_msgs[m].got, 16);
    CU_ASSERT_EQUAL(g_msgs[m].wrong_node, 0);
  }
  world_free(&w);
}

/* ---- routing ---- */

/* Hop counts derived independently of topology.c:
 * - star: 1;
 * - k-ary n-tree: up to the nearest common ancestor, at the level L where
 *   src / k^(L+1) == dst / k^(L+1) first holds, and down: 2L + 1;
 * - torus: 1 + the sum over dimensions of the ring distance
 *   min(d, D - d);
 * - dragonfly: checked against a breadth-first search only where it must
 *   agree (same router 1, same group 2) and otherwise bounded (3 or 4, one
 *   global link). */
static int expected_hops(const struct net_config *c, uint32_t s, uint32_t d) {
  switch (c->topology) {
  case NET_STAR: return 1;
  case NET_FAT_TREE: {
    int L = 0;
    for (uint32_t a = s / (uint32_t)c->fat_tree_k, b = d / (uint32_t)c->fat_tree_k; a != b; L++)
      a /= (uint32_t)c->fat_tree_k, b /= (uint32_t)c->fat_tree_k;
    return 2 * L + 1;
  }
  case NET_TORUS: {
    int64_t dims[3] = {c->torus_x, c->torus_y, c->torus_z};
    int hops = 1;
    int64_t sx = s, dx = d;
    for (int i = 0; i < 3; i++) {
      int64_t delta = ((dx % dims[i]) - (sx % dims[i]) + dims[i]) % dims[i];
      hops += (int)(delta < dims[i] - delta ? delta : dims[i] - delta);
      sx /= dims[i], dx /= dims[i];
    }
    return hops;
  }
  default: return -1;
  }
}

/* Follows the route hop by hop over the links the engine holds; returns the
 * switches crossed, or -1 if the packet ends anywhere but at DST. Counts
 * global (inter-group) links of a dragonfly in *GLOBALS. */
static int walk(const struct world *w, uint32_t src, uint32_t dst, int *globals) {
  uint32_t first = topo_first_switch_id(w->t), nsw = topo_switch_count(w->t);
  const struct net_config *c = topo_config(w->t);
  *globals = 0;
  const struct sim_port *p = &w->nics[src]->ports[0];
  if (!p->connected) return -1;
  uint32_t at = p->peer;
  for (int hops = 1; hops <= 64; hops++) {
    if (at < first || at >= first + nsw) return -1;
    uint32_t sw = at - first;
    int out = topo_route(w->t, sw, dst);
    struct sim_comp *s = sim_comp_get(w->e, at);
    if (out < 0 || (uint32_t)out >= s->n_ports || !s->ports[out].connected) return -1;
    uint32_t next = s->ports[out].peer;
    if (c->topology == NET_DRAGONFLY && next >= first) {
      uint32_t a = (uint32_t)c->dragonfly_a;
      if ((next - first) / a != sw / a) (*globals)++;
    }
    if (next < w->n) return next == dst ? hops : -1;
    at = next;
  }
  return -1;
}

/* Shortest path in switches between the switches of SRC and DST. */
static int bfs_hops(const struct world *w, uint32_t src, uint32_t dst) {
  uint32_t first = topo_first_switch_id(w->t), nsw = topo_switch_count(w->t);
  int *dist = g_new(int, nsw);
  uint32_t *q = g_new(uint32_t, nsw);
  for (uint32_t i = 0; i < nsw; i++) dist[i] = -1;
  uint32_t from = w->nics[src]->ports[0].peer - first, to = w->nics[dst]->ports[0].peer - first;
  size_t head = 0, tail = 0;
  dist[from] = 1;
  q[tail++] = from;
  while (head < tail) {
    uint32_t u = q[head++];
    struct sim_comp *s = sim_comp_get(w->e, first + u);
    for (uint32_t i = 0; i < s->n_ports; i++) {
      if (!s->ports[i].connected || s->ports[i].peer < first) continue;
      uint32_t v = s->ports[i].peer - first;
      if (dist[v] < 0) dist[v] = dist[u] + 1, q[tail++] = v;
    }
  }
  int d = dist[to];
  g_free(dist);
  g_free(q);
  return d;
}

static void check_all_pairs(struct net_config cfg) {
  struct world w = world_new(&cfg);
  unsigned bad_walk = 0, bad_hops = 0, bad_bfs = 0;
  for (uint32_t s = 0; s < w.n; s++)
    for (uint32_t d = 0; d < w.n; d++) {
      int globals, walked = walk(&w, s, d, &globals), hops = topo_hops(w.t, s, d);
      if (walked != hops) bad_walk++;
      if (cfg.topology != NET_DRAGONFLY) {
        if (hops != expected_hops(&cfg, s, d)) bad_hops++;
        if (s != d && hops != bfs_hops(&w, s, d)) bad_bfs++;
      } else {
        uint32_t rs = s / (uint32_t)cfg.dragonfly_p, rd = d / (uint32_t)cfg.dragonfly_p;
        uint32_t a = (uint32_t)cfg.dragonfly_a;
        int want_globals = rs / a != rd / a;
        if (globals != want_globals) bad_hops++;
        if (rs == rd && hops != 1) bad_hops++;
        if (rs != rd && rs / a == rd / a && hops != 2) bad_hops++;
        if (rs / a != rd / a && (hops < 2 || hops > 4)) bad_hops++;
        if (s != d && hops < bfs_hops(&w, s, d)) bad_bfs++;
      }
    }
  CU_ASSERT_EQUAL(bad_walk, 0);
  CU_ASSERT_EQUAL(bad_hops, 0);
  CU_ASSERT_EQUAL(bad_bfs, 0);
  if (bad_walk || bad_hops || bad_bfs)
    fprintf(stderr, "topology %d nodes %u: walk %u hops %u bfs %u bad\n", cfg.topology, w.n,
            bad_walk, bad_hops, bad_bfs);
  world_free(&w);
}

static void test_routing_all_pairs(void) {
  check_all_pairs(star(5, 0));
  check_all_pairs(fat_tree(2, 3, 8, 0));
  check_all_pairs(fat_tree(3, 2, 9, 0));
  check_all_pairs(fat_tree(4, 3, 50, 0)); /* partly filled */
  check_all_pairs(fat_tree(3, 1, 3, 0));  /* one level: a star */
  check_all_pairs(torus(4, 3, 2, 24, 0));
  check_all_pairs(torus(3, 3, 1, 9, 0));
  check_all_pairs(torus(2, 2, 2, 8, 0));
  check_all_pairs(torus(5, 1, 1, 4, 0)); /* a ring, one router without a node */
  check_all_pairs(torus(1, 6, 1, 6, 0));
  check_all_pairs(dragonfly(4, 2, 2, 72, 0));
  check_all_pairs(dragonfly(2, 1, 1, 6, 0));
  check_all_pairs(dragonfly(3, 2, 1, 20, 0)); /* 4 groups, partly filled */
  check_all_pairs(dragonfly(1, 3, 2, 9, 0));  /* one router per group */
}

/* Hand-derived routes and hop counts. */
static void test_routes_by_hand(void) {
  /* 2-ary 3-tree: switches 0-3 leaves, 4-7 level 1, 8-11 top; ports 0,1
   * down and 2,3 up. Node 5 = binary 101 hangs from leaf 2, port 1. From
   * leaf 0 towards 5: up port 2 + digit0(5) = 3 (d-mod-k). At the top
   * switch 8 + s: down port digit2(5) = 1. Hops 0 -> 1: 1, 0 -> 2: 3,
   * 0 -> 5: 5. */
  struct net_config c = fat_tree(2, 3, 8, 0);
  struct world w = world_new(&c);
  CU_ASSERT_EQUAL(topo_switch_count(w.t), 12);
  CU_ASSERT_EQUAL(topo_route(w.t, 0, 5), 3);
  CU_ASSERT_EQUAL(topo_route(w.t, 2, 5), 1);
  CU_ASSERT_EQUAL(topo_route(w.t, 9, 5), 1);
  CU_ASSERT_EQUAL(topo_hops(w.t, 0, 1), 1);
  CU_ASSERT_EQUAL(topo_hops(w.t, 0, 2), 3);
  CU_ASSERT_EQUAL(topo_hops(w.t, 0, 5), 5);
  world_free(&w);

  /* 4x3x2 torus, router r = x + 4y + 12z; ports 0 node, 1/2 +x/-x,
   * 3/4 +y/-y, 5/6 +z/-z. From 0 to 3 = (3,0,0): ring distance 1 going -x.
   * To 2 = (2,0,0): a tie, + wins. To 16 = (0,1,1): x done, +y. To 15 =
   * (3,0,1): -x first. Hops 0 -> 23 = (3,2,1): 1 + 1 + 1 + 1 = 4. */
  c = torus(4, 3, 2, 24, 0);
  w = world_new(&c);
  CU_ASSERT_EQUAL(topo_route(w.t, 0, 3), 2);
  CU_ASSERT_EQUAL(topo_route(w.t, 0, 2), 1);
  CU_ASSERT_EQUAL(topo_route(w.t, 0, 16), 3);
  CU_ASSERT_EQUAL(topo_route(w.t, 0, 15), 2);
  CU_ASSERT_EQUAL(topo_route(w.t, 5, 5), 0);
  CU_ASSERT_EQUAL(topo_hops(w.t, 0, 23), 4);
  world_free(&w);

  /* Dragonfly a=4 p=2 h=2: 9 groups of 4 routers, 72 nodes; router ports
   * 0-1 nodes, 2-4 local, 5-6 global. Node 0 (group 0, router 0) to node 71
   * (router 35 = group 8, router 3): j = (8-0-1) mod 9 = 7 on router 7/2 =
   * 3, global port 7%2 = 1 (port 6); it lands on group 8's link 8-1-7 = 0,
   * router 0, which goes local to router 3. Route at router 0: local to
   * router 3 = port 2 + 2 = 4; at router 3: port 6. Hops: 4. Node 0 to 8
   * (router 4 = group 1, router 0): j = 0 on router 0 itself (port 5),
   * lands on link 7 = router 3 of group 1, local to router 0: hops 3. */
  c = dragonfly(4, 2, 2, 72, 0);
  w = world_new(&c);
  CU_ASSERT_EQUAL(topo_switch_count(w.t), 36);
  CU_ASSERT_EQUAL(topo_route(w.t, 0, 71), 4);
  CU_ASSERT_EQUAL(topo_route(w.t, 3, 71), 6);
  CU_ASSERT_EQUAL(topo_route(w.t, 35, 71), 1);
  CU_ASSERT_EQUAL(topo_hops(w.t, 0, 71), 4);
  CU_ASSERT_EQUAL(topo_route(w.t, 0, 8), 5);
  CU_ASSERT_EQUAL(topo_hops(w.t, 0, 8), 3);
  CU_ASSERT_EQUAL(topo_hops(w.t, 0, 1), 1);
  CU_ASSERT_EQUAL(topo_hops(w.t, 0, 7), 2);
  world_free(&w);
}

/* Every pair sends one packet of 1000 B, each pair alone in its own 20 us
 * window so nothing contends: completion = start + (h+1)L + hW + ser (CT)
 * or + (h+1)(L + ser) + hW (SAF), h = topo_hops, checked against the
 * walk above. */
static void check_all_pairs_timing(struct net_config cfg) {
  struct world w = world_new(&cfg);
  sim_time L = cfg.link_latency, W = cfg.switch_latency, ser = 85120, slot = 20 * SIM_US;
  for (uint32_t s = 0; s < w.n; s++)
    for (uint32_t d = 0; d < w.n; d++) {
      sim_time h = topo_hops(w.t, s, d), at = (sim_time)g_n_msgs * slot;
      sim_time expect =
          at + (h + 1) * L + h * W + (cfg.switching == NET_CUT_THROUGH ? 1 : h + 1) * ser;
      add_msg(&w, s, d, 1000, at, expect);
    }
  run(&w);
  unsigned bad = 0;
  for (size_t i = 0; i < g_n_msgs; i++)
    if (g_msgs[i].got != 1 || g_msgs[i].wrong_node || g_msgs[i].last != g_msgs[i].expect) bad++;
  CU_ASSERT_EQUAL(bad, 0);
  world_free(&w);
}

static void test_timing_all_pairs(void) {
  for (int mode = 0; mode < 2; mode++) {
    check_all_pairs_timing(star(4, mode));
    check_all_pairs_timing(fat_tree(2, 3, 8, mode));
    check_all_pairs_timing(torus(3, 2, 2, 12, mode));
    check_all_pairs_timing(dragonfly(2, 2, 1, 12, mode));
  }
}

/* ---- shapes ---- */

static void expect_reject(struct net_config c, const char *msg) {
  char *err = NULL;
  struct topo *t = topo_new(&c, &err);
  CU_ASSERT_PTR_NULL(t);
  CU_ASSERT_PTR_NOT_NULL(err);
  if (err && strcmp(err, msg) != 0) fprintf(stderr, "\n got  %s\n want %s\n", err, msg);
  CU_ASSERT(err && strcmp(err, msg) == 0);
  topo_free(t);
  g_free(err);
}

static void test_shape_checks(void) {
  expect_reject(fat_tree(8, 4, 5000, 0),
                "network.nodes: expected at most 4096 for a fat-tree with fat_tree_k 8 and "
                "fat_tree_levels 4 (k^levels nodes), got 5000");
  expect_reject(torus(5, 4, 3, 61, 0),
                "network.nodes: expected at most 60 for a 5x4x3 torus (torus_x*torus_y*torus_z, "
                "one node per router), got 61");
  expect_reject(dragonfly(4, 2, 2, 73, 0),
                "network.nodes: expected at most 72 for a dragonfly with dragonfly_a 4, "
                "dragonfly_p 2, dragonfly_h 2 (a*p*(a*h+1) nodes), got 73");
  expect_reject(
      star(70000, 0),
      "network.nodes: expected at most 65534 for a star (the ports of one switch), got 70000");
  expect_reject(fat_tree(64, 6, 10, 0),
                "network.fat_tree_levels: a 64-ary 6-tree has 6442450944 switches; expected at "
                "most 4194304 (fewer levels, or a smaller fat_tree_k)");

  /* Automatic levels (fat_tree_levels 0): the fewest with k^n >= nodes. */
  char *err = NULL;
  struct net_config c = fat_tree(16, 0, 4096, 0);
  struct topo *t = topo_new(&c, &err);
  CU_ASSERT_EQUAL(topo_switch_count(t), 3 * 256); /* 16^3 = 4096: 3 levels of 16^2 */
  topo_free(t);
  c = fat_tree(16, 0, 4097, 0);
  t = topo_new(&c, &err);
  CU_ASSERT_EQUAL(topo_switch_count(t), 4 * 4096);
  topo_free(t);
  c = fat_tree(16, 0, 2, 0);
  t = topo_new(&c, &err);
  CU_ASSERT_EQUAL(topo_switch_count(t), 1);
  topo_free(t);
  /* The exact capacities are accepted. */
  c = torus(5, 4, 3, 60, 0);
  t = topo_new(&c, &err);
  CU_ASSERT_PTR_NOT_NULL(t);
  topo_free(t);
  c = dragonfly(4, 2, 2, 72, 0);
  t = topo_new(&c, &err);
  CU_ASSERT_PTR_NOT_NULL(t);
  topo_free(t);
}

/* ---- scale, reports, trace ---- */

static void build_timed(struct net_config c, const char *what) {
  gint64 t0 = g_get_monotonic_time();
  struct world w = world_new(&c);
  gint64 t1 = g_get_monotonic_time();
  /* A shift permutation: node i sends 4 KiB to node (i + n/2 + 1) mod n. */
  for (uint32_t i = 0; i < w.n; i++) add_msg(&w, i, (i + w.n / 2 + 1) % w.n, 4096, 0, -1);
  run(&w);
  gint64 t2 = g_get_monotonic_time();
  unsigned bad = 0;
  for (size_t i = 0; i < g_n_msgs; i++) bad += g_msgs[i].got != 1 || g_msgs[i].wrong_node;
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(t1 - t0 < 1000000);
  if (g_getenv("TEST_NETWORK_VERBOSE"))
    fprintf(stderr, "\n  %s: %u switches, build %.1f ms, permutation run %.1f ms", what,
            topo_switch_count(w.t), (t1 - t0) / 1e3, (t2 - t1) / 1e3);
  world_free(&w);
}

static void test_build_4096(void) {
  build_timed(star(4096, 0), "star 4096");
  build_timed(fat_tree(16, 3, 4096, 0), "16-ary 3-tree");
  build_timed(fat_tree(8, 4, 4096, 0), "8-ary 4-tree");
  build_timed(torus(16, 16, 16, 4096, 0), "16x16x16 torus");
  build_timed(dragonfly(8, 8, 8, 4096, 0), "dragonfly a8 p8 h8");
}

/* Many switches: only the totals are reported. 2-ary 5-tree: 5 * 16 = 80
 * switches. One packet 0 -> 31 crosses 2*4 + 1 = 9 of them. */
static void test_report_aggregates(void) {
  struct net_config c = fat_tree(2, 5, 32, 0);
  struct world w = world_new(&c);
  add_msg(&w, 0, 31, 1000, 0, -1);
  run(&w);
  struct sim_report r;
  sim_report_init(&r);
  sim_finish(w.e, &r);
  CU_ASSERT_PTR_NULL(sim_report_find(&r, "net.sw0.packets"));
  const struct sim_report_entry *en = sim_report_find(&r, "net.switches.packets");
  CU_ASSERT(en && en->i == 9);
  en = sim_report_find(&r, "net.switches.bytes");
  CU_ASSERT(en && en->i == 9 * 1064);
  en = sim_report_find(&r, "net.switches.max_packets");
  CU_ASSERT(en && en->i == 1);
  /* Alone on its path it never waits: no packet waited, no credit stall. */
  en = sim_report_find(&r, "net.switches.waited");
  CU_ASSERT(en && en->i == 0);
  en = sim_report_find(&r, "net.switches.credit_stall");
  CU_ASSERT(en && en->i == 0 && en->dim == UNIT_TIME);
  CU_ASSERT_EQUAL(r.n, 6);
  sim_report_clear(&r);
  world_free(&w);
}

static void test_trace(void) {
  char *path = tu_temp_file(".json", "", 0);
  char *err = NULL;
  struct trace *tr = trace_open(path, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(tr);
  struct net_config cfg = star(3, NET_CUT_THROUGH);
  struct world w = world_new(&cfg);
  sim_set_trace(w.e, tr, NULL);
  add_msg(&w, 0, 2, 1000, 0, -1);
  add_msg(&w, 1, 2, 1000, 0, -1);
  run(&w);
  CU_ASSERT(trace_close(tr, &err));
  char *text = NULL;
  CU_ASSERT(g_file_get_contents(path, &text, NULL, NULL));
  /* One track for output port 2 of net.sw0, two "link" spans on it. */
  CU_ASSERT(text && strstr(text, "\"sw0/p2\"") != NULL);
  CU_ASSERT(text && strstr(text, "\"net\"") != NULL);
  CU_ASSERT(text && strstr(text, "\"sw0/p0\"") == NULL);
  int spans = 0;
  for (const char *s = text; s && (s = strstr(s, "\"link\"")); s++) spans++;
  CU_ASSERT_EQUAL(spans, 2);
  g_free(text);
  world_free(&w);
  g_free(path);
}

/* ---- nodes of several GPUs (network.gpus_per_node, net.h) ---- */

/* G endpoints a physical node; intra-node links Li = 200 ns, crossbar
 * Wi = 50 ns, Bi = 800 Gbps (1064 wire bytes = 8512 bits = 10.64 ns). */
static struct net_config with_gpus(struct net_config c, int64_t g) {
  c.gpus_per_node = g;
  c.intra_latency = 200 * SIM_NS;
  c.intra_switch_latency = 50 * SIM_NS;
  c.intra_bandwidth = 800000000000;
  return c;
}

/* Every pair alone in its 20 us window, as check_all_pairs_timing: pairs of
 * one physical node cross its crossbar, 2 Li + Wi + ser_i (CT) or
 * 2 (Li + ser_i) + Wi (SAF); the others the network, as before. */
static void check_all_pairs_timing_gpus(struct net_config cfg) {
  struct world w = world_new(&cfg);
  CU_ASSERT_EQUAL(topo_intra_switch_count(w.t), w.n / (uint32_t)cfg.gpus_per_node);
  sim_time L = cfg.link_latency, W = cfg.switch_latency, ser = 85120, slot = 20 * SIM_US;
  sim_time Li = cfg.intra_latency, Wi = cfg.intra_switch_latency, ser_i = 10640;
  bool ct = cfg.switching == NET_CUT_THROUGH;
  unsigned same = 0;
  for (uint32_t s = 0; s < w.n; s++)
    for (uint32_t d = 0; d < w.n; d++) {
      sim_time at = (sim_time)g_n_msgs * slot, expect;
      if (s / cfg.gpus_per_node == d / cfg.gpus_per_node) {
        expect = at + 2 * Li + Wi + (ct ? 1 : 2) * ser_i;
        same++;
      } else {
        sim_time h = topo_hops(w.t, s, d);
        expect = at + (h + 1) * L + h * W + (ct ? 1 : h + 1) * ser;
      }
      add_msg(&w, s, d, 1000, at, expect);
    }
  CU_ASSERT_EQUAL(same, w.n * (uint32_t)cfg.gpus_per_node);
  run(&w);
  unsigned bad = 0;
  for (size_t i = 0; i < g_n_msgs; i++)
    if (g_msgs[i].got != 1 || g_msgs[i].wrong_node || g_msgs[i].last != g_msgs[i].expect) bad++;
  CU_ASSERT_EQUAL(bad, 0);
  world_free(&w);
}

static void test_gpus_per_node_timing_all_pairs(void) {
  for (int mode = 0; mode < 2; mode++) {
    check_all_pairs_timing_gpus(with_gpus(star(4, mode), 2));
    check_all_pairs_timing_gpus(with_gpus(fat_tree(2, 3, 8, mode), 2));
    check_all_pairs_timing_gpus(with_gpus(fat_tree(2, 3, 8, mode), 4));
    check_all_pairs_timing_gpus(with_gpus(fat_tree(4, 2, 16, mode), 8));
    check_all_pairs_timing_gpus(with_gpus(torus(3, 2, 2, 12, mode), 3));
    check_all_pairs_timing_gpus(with_gpus(dragonfly(2, 2, 1, 12, mode), 4));
  }
}

/* Two GPUs of one node send 1000 B to a third at once: both heads reach
 * the crossbar at Li = 200 ns, ready at 250; its port into the receiver
 * serializes them (10.64 ns each), so the second completes one ser_i
 * later: 2 Li + Wi + ser_i = 460.64 ns and 471.28 ns. Two GPUs sending to
 * two different GPUs do not contend. */
static void test_gpus_per_node_contention(void) {
  struct net_config c = with_gpus(fat_tree(4, 2, 16, NET_CUT_THROUGH), 8);
  struct world w = world_new(&c);
  add_msg(&w, 0, 2, 1000, 0, 460640);
  add_msg(&w, 1, 2, 1000, 0, 471280);
  add_msg(&w, 4, 5, 1000, 0, 460640);
  add_msg(&w, 6, 7, 1000, 0, 460640);
  run(&w);
  sim_time got[4];
  for (int i = 0; i < 4; i++) got[i] = g_msgs[i].last;
  /* Which of the two senders wins the port is fixed by event order, not
   * asserted; the pair of times is. */
  sim_time first = MIN(got[0], got[1]), second = MAX(got[0], got[1]);
  CU_ASSERT_EQUAL(first, 460640);
  CU_ASSERT_EQUAL(second, 471280);
  CU_ASSERT_EQUAL(got[2], 460640);
  CU_ASSERT_EQUAL(got[3], 460640);
  world_free(&w);
}

static void test_gpus_per_node_shapes(void) {
  expect_reject(with_gpus(fat_tree(4, 2, 12, 0), 8),
                "network.nodes: expected a multiple of network.gpus_per_node (8), got 12");
  expect_reject(with_gpus(star(9, 0), 2),
                "network.nodes: expected a multiple of network.gpus_per_node (2), got 9");
  /* The parameter check of the group says the same (a scenario prints it
   * at the network mapping's file:line:col). */
  struct net_config c = with_gpus(star(9, 0), 2);
  char *err = NULL;
  CU_ASSERT_FALSE(net_params.check(&c, &err));
  CU_ASSERT_STRING_EQUAL(err,
                         "network.nodes: expected a multiple of network.gpus_per_node (2), got 9");
  g_free(err);
  /* G = 1: no crossbars, whatever the intra numbers. */
  c = star(4, 0);
  struct world w = world_new(&c);
  CU_ASSERT_EQUAL(topo_intra_switch_count(w.t), 0);
  CU_ASSERT_EQUAL(sim_comp_count(w.e), 5);
  world_free(&w);
  /* 1024 GPUs, 8 a node, on the default 16-ary fat-tree (3 levels, 768
   * switches): 128 crossbars named nvl.sw0 .. nvl.sw127. */
  c = with_gpus(fat_tree(16, 0, 1024, 0), 8);
  w = world_new(&c);
  CU_ASSERT_EQUAL(topo_switch_count(w.t), 768);
  CU_ASSERT_EQUAL(topo_intra_switch_count(w.t), 128);
  CU_ASSERT_EQUAL(sim_comp_count(w.e), 1024 + 768 + 128);
  CU_ASSERT_STRING_EQUAL(sim_comp_get(w.e, 1024 + 768 + 127)->name, "nvl.sw127");
  world_free(&w);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"defaults", test_defaults},
      {"one packet, star", test_one_packet_star},
      {"one packet, multi-hop", test_one_packet_multi_hop},
      {"pipelining, star", test_pipelining_star},
      {"pipelining, multi-hop", test_pipelining_multi_hop},
      {"contention on an output port", test_contention},
      {"small messages", test_small_messages},
      {"arbiter: two inputs alternate, by hand", test_arbiter_alternates},
      {"credits: a victim behind a full buffer, released as credits return", test_victim_behind_full_buffer},
      {"credits: a 3-node loop on a fat-tree's up/down routes, by hand", test_credit_loop_fat_tree},
      {"credits: torus and dragonfly lanes, a ring that one lane could deadlock", test_torus_lanes},
      {"routes by hand", test_routes_by_hand},
      {"routing, every pair", test_routing_all_pairs},
      {"timing, every pair", test_timing_all_pairs},
      {"gpus per node: timing, every pair", test_gpus_per_node_timing_all_pairs},
      {"gpus per node: contention at the receiving side", test_gpus_per_node_contention},
      {"gpus per node: shapes", test_gpus_per_node_shapes},
      {"shape checks", test_shape_checks},
      {"4096 nodes", test_build_4096},
      {"report aggregates", test_report_aggregates},
      {"trace", test_trace},
      {NULL, NULL},
  };
  return tu_run_suite("network", tests);
}
