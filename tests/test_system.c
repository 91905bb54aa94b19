/* A whole system: nodes of CPU, GPU, NIC and bus on a network, built by
 * sys_build from the default parameters, and one put across it timed end to
 * end by hand. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "phase.h"
#include "switch.h"
#include "system.h"
#include "noderig.h"
#include "testutil.h"
#include "workload.h"


static int64_t report(const struct sim_report *r, const char *key) {
  const struct sim_report_entry *en = sim_report_find(r, key);
  CU_ASSERT_PTR_NOT_NULL_FATAL(en);
  return en->i;
}

/* Two nodes of the defaults on a star: node 0's CPU puts 1000 B to node
 * 1, whose CPU waits on the flag; built, run and finished into R. */
struct star_put {
  struct hw h;
  struct sim_engine *e;
  struct system *s;
  struct sim_report r;
};

static void star_put_run(struct star_put *x) {
  static const struct nic_cmd cmds[] = {{.op = NIC_PUT, .dst_node = 1, .bytes = 1000,
                                         .remote = {.id = 1, .watcher = DEV_CPU}}};
  static const struct hstep send[] = {{.kind = HS_NIC_CMD, .cmd = 0}};
  static const struct hstep wait[] = {{.kind = HS_WAIT_FLAG, .flag = 1, .value = 1}};
  static const struct nodeprog p0 = {.cmds = cmds, .n_cmds = 1, .host = send, .n_host = 1,
                                     .n_flags = 1};
  static const struct nodeprog p1 = {.host = wait, .n_host = 1, .n_flags = 1};
  const struct nodeprog *progs[] = {&p0, &p1};
  hw_defaults(&x->h);
  x->e = sim_new(1);
  char *err = NULL;
  x->s = sys_build(x->e, &x->h.cfg, progs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(x->s);
  sim_run(x->e, SIM_TIME_MAX, 0);
  sim_report_init(&x->r);
  sim_finish(x->e, &x->r);
}

static void star_put_free(struct star_put *x) {
  sim_report_clear(&x->r);
  sim_free(x->e);
  sys_free(x->s);
}

static void test_put_across_a_star(void) {
  struct star_put x;
  star_put_run(&x);
  struct sim_engine *e = x.e;
  struct system *s = x.s;
  struct sim_report *r = &x.r;
  CU_ASSERT_EQUAL(s->nodes, 2);
  /* 4 components a node and one switch. */
  CU_ASSERT_EQUAL(sim_comp_count(e), 9);
  /* Defaults: cpu.build_cmd 200ns; bus 100ns, 256Gbps, control 64B (2ns),
   * mem_latency 80ns; nic.cmd_cost 100ns; network 100ns links and switch,
   * 100Gbps, cut-through, 64B headers.
   *   200      command built, crosses the bus: + 2 + 100      = 302
   *   402      command processed; DMA read: + 80 mem, 1000 B at
   *            256Gbps 31.25, + 100 back                        = 613.25
   *   packet of 1064 B (85.12 ns at 100Gbps), head: + 100 link  = 713.25
   *   switch + 100, link + 100: head at node 1's NIC           = 913.25
   *   whole packet + 85.12                                      = 998.37
   *   memory write 31.25 + 100 = 1129.62; the flag (0.25 + 100) may not
   *   overtake it: node 1's CPU sees the flag at 1129.62 ns. */
  CU_ASSERT_EQUAL(report(r, "node1.cpu.main_done"), 1129620);
  CU_ASSERT_EQUAL(report(r, "node0.nic.packets_sent"), 1);
  CU_ASSERT_EQUAL(report(r, "node1.nic.payload_received"), 1000);
  CU_ASSERT_EQUAL(sim_payloads_live(e), 0);
  star_put_free(&x);
}

/* C's entries in R are exactly its declared outputs: each under its key
 * ("<name>.<key>", a total under the first part of the name), with its
 * declaration, unit and component; every one not marked SIM_OUT_SOME
 * there; nothing else reported by C. */
static void expect_declared(const struct sim_report *r, struct sim_comp *c) {
  const struct sim_outputs *g = c->type->outputs;
  CU_ASSERT_PTR_NOT_NULL_FATAL(g);
  size_t reported = 0, found = 0;
  for (size_t k = 0; k < g->n_decls; k++) {
    const struct sim_out_decl *d = &g->decls[k];
    char *key = (d->flags & SIM_OUT_TOTAL)
                    ? g_strdup_printf("%.*s.%s", (int)strcspn(c->name, "."), c->name, d->key)
                    : g_strdup_printf("%s.%s", c->name, d->key);
    const struct sim_report_entry *en = sim_report_find(r, key);
    if (!(d->flags & SIM_OUT_SOME)) {
      if (!en) fprintf(stderr, "\n  %s: not reported\n", key);
      CU_ASSERT_PTR_NOT_NULL(en);
    }
    if (en) {
      found++;
      CU_ASSERT_TRUE(en->decl == d && en->comp == c->id && en->dim == d->dim);
    }
    g_free(key);
  }
  for (size_t k = 0; k < r->n; k++) reported += r->entries[k].comp == c->id;
  CU_ASSERT_EQUAL(reported, found);
}

static int64_t node_value(const struct system *s, const struct sim_report *r, uint32_t node,
                          const struct sim_out_decl *d) {
  return sim_out_value(r, sys_node_comp(s, node, d), d);
}

/* For the faults, in a child process. */
struct handle_case {
  struct system *s;
  struct sim_report *r;
};

static void read_switch_handle(void *arg) {
  const struct handle_case *h = arg;
  node_value(h->s, h->r, 0, SW_OUT(TOTAL_PACKETS));
}

static void read_phase_handle(void *arg) {
  const struct handle_case *h = arg;
  node_value(h->s, h->r, 0, &ph_outs[PH_WIRE]);
}

/* The put across the star again: every component reported exactly what
 * its type declares (sim/outputs.h; sim_finish would have stopped the run
 * otherwise: here counted from the report), and a handle resolved against
 * a node reads that node's component. */
static void test_declared_outputs_and_handles(void) {
  struct star_put x;
  star_put_run(&x);
  struct sim_engine *e = x.e;
  struct system *s = x.s;
  struct sim_report *r = &x.r;
  for (uint32_t i = 0; i < sim_comp_count(e); i++) expect_declared(r, sim_comp_get(e, i));
  /* Switch totals under "net", the first part of "net.sw0": 1 packet. */
  const struct sim_report_entry *en = sim_report_find(r, "net.switches.packets");
  CU_ASSERT_TRUE(en && en->i == 1 && en->decl == SW_OUT(TOTAL_PACKETS));
  /* By handle: node 1's CPU saw the flag at 1129.62 ns (as derived in
   * test_put_across_a_star), node 0's ended after its 200 ns build (a put
   * is one-sided: no send); node 0's NIC sent the one packet, node 1's
   * none; no WG ran anywhere (0: the model's -1 sentinel is not reported). */
  CU_ASSERT_PTR_EQUAL(sys_node_comp(s, 1, CPU_OUT(MAIN_DONE)), s->cpu[1]);
  CU_ASSERT_PTR_EQUAL(sys_node_comp(s, 0, NIC_OUT(PACKETS_SENT)), s->nic[0]);
  CU_ASSERT_PTR_EQUAL(sys_node_comp(s, 1, BUS_OUT(DMA_READS)), s->bus[1]);
  CU_ASSERT_EQUAL(node_value(s, r, 1, CPU_OUT(MAIN_DONE)), 1129620);
  CU_ASSERT_EQUAL(node_value(s, r, 0, CPU_OUT(MAIN_DONE)), 200000);
  CU_ASSERT_EQUAL(node_value(s, r, 0, NIC_OUT(PACKETS_SENT)), 1);
  CU_ASSERT_EQUAL(node_value(s, r, 1, NIC_OUT(PACKETS_SENT)), 0);
  CU_ASSERT_EQUAL(node_value(s, r, 0, GPU_OUT(WG_LAST_END)), 0);
  /* A handle of no node component is a fault at first use. */
  struct handle_case hc = {s, r};
  char *msg = NULL;
  CU_ASSERT_TRUE(tu_dies(read_switch_handle, &hc, &msg));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "output switches.packets is no output of a node's CPU, GPU, "
                                     "NIC or bus"));
  g_free(msg);
  CU_ASSERT_TRUE(tu_dies(read_phase_handle, &hc, &msg));
  CU_ASSERT_PTR_NOT_NULL(strstr(msg, "output wire is no output"));
  g_free(msg);
  star_put_free(&x);
}

static void test_bad_shape_is_an_error(void) {
  struct hw h;
  hw_defaults(&h);
  const struct par_decl *d = par_group_find(&net_params, "topology");
  CU_ASSERT_TRUE(par_set(d, &h.net, "torus", NULL));
  h.net.nodes = 17; /* the default torus is 4x4x1: 16 routers */
  struct sim_engine *e = sim_new(1);
  char *err = NULL;
  CU_ASSERT_PTR_NULL(sys_build(e, &h.cfg, NULL, &err));
  CU_ASSERT_PTR_NOT_NULL(err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "network.nodes"));
  CU_ASSERT_EQUAL(sim_comp_count(e), 0);
  g_free(err);
  sim_free(e);
}

static void test_every_topology_builds_4096_nodes(void) {
  const char *kinds[] = {"star", "fat-tree", "torus", "dragonfly"};
  for (int k = 0; k < 4; k++) {
    struct hw h;
    hw_defaults(&h);
    CU_ASSERT_TRUE(par_set(par_group_find(&net_params, "topology"), &h.net, kinds[k], NULL));
    h.net.nodes = 4096;
    h.net.torus_x = h.net.torus_y = h.net.torus_z = 16;
    h.net.dragonfly_a = 12; /* 12 * 6 * (12*6 + 1) = 5256 >= 4096 */
    h.net.dragonfly_p = h.net.dragonfly_h = 6;
    struct sim_engine *e = sim_new(1);
    char *err = NULL;
    struct system *s = sys_build(e, &h.cfg, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_TRUE(sim_comp_count(e) > 4 * 4096);
    sim_free(e);
    sys_free(s);
  }
}

static void test_gputn_profile_is_table_2(void) {
  const char *dir = g_getenv("TRIGSIM_CONFIGS");
  char *path = g_build_filename(dir ? dir : "configs", "hw", "example.yaml", NULL);
  char *err = NULL;
  struct scenario *sc = scenario_load(path, NULL, 0, &wl_catalog, &err);
  if (!sc) fprintf(stderr, "%s\n", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
  const struct gpu_config *gpu = sc_hardware(sc, &gpu_params);
  const struct cpu_config *cpu = sc_hardware(sc, &cpu_params);
  const struct nic_config *nic = sc_hardware(sc, &nic_params);
  const struct net_config *net = sc_hardware(sc, &net_params);
  /* GPU-TN Table 2 and Sec. 3.3. */
  CU_ASSERT_EQUAL(cpu->cores, 8);
  CU_ASSERT_EQUAL(cpu->clock, 4000000000);
  CU_ASSERT_EQUAL(gpu->clock, 1000000000);
  CU_ASSERT_EQUAL(gpu->cus, 24);
  CU_ASSERT_EQUAL(gpu->launch_latency, 1500 * SIM_NS);
  CU_ASSERT_EQUAL(gpu->teardown_latency, 1500 * SIM_NS);
  CU_ASSERT_EQUAL(nic->trigger_entries, 16);
  CU_ASSERT_EQUAL(net->topology, NET_STAR);
  CU_ASSERT_EQUAL(net->link_latency, 100 * SIM_NS);
  CU_ASSERT_EQUAL(net->switch_latency, 100 * SIM_NS);
  CU_ASSERT_EQUAL(net->link_bandwidth, 100000000000);
  scenario_free(sc);
  g_free(path);
}

/* Sets network KEY to TEXT (as a scenario would write it). */
static void net_set(struct hw *h, const char *key, const char *text) {
  char *err = NULL;
  CU_ASSERT_TRUE_FATAL(par_set(par_group_find(&net_params, key), &h->net, text, &err));
}

/* G GPUs per physical node and the intra-node numbers the tests below
 * derive with: 200 ns per link between a NIC and its node's crossbar, a
 * 100 ns crossbar, BW each direction. */
static void intra(struct hw *h, const char *gpus, const char *bw) {
  net_set(h, "gpus_per_node", gpus);
  net_set(h, "intra_latency", "200ns");
  net_set(h, "intra_switch_latency", "100ns");
  net_set(h, "intra_bandwidth", bw);
}

/* Runs PROGS (one per node) on the system H describes; returns the report
 * (sim_report_clear it). */
static struct sim_report run_system(struct hw *h, const struct nodeprog *const *progs,
                                    size_t expect_comps) {
  struct sim_engine *e = sim_new(1);
  char *err = NULL;
  struct system *s = sys_build(e, &h->cfg, progs, &err);
  if (!s) fprintf(stderr, "%s\n", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  if (expect_comps) CU_ASSERT_EQUAL(sim_comp_count(e), expect_comps);
  sim_run(e, SIM_TIME_MAX, 0);
  struct sim_report r;
  sim_report_init(&r);
  sim_finish(e, &r);
  CU_ASSERT_EQUAL(sim_payloads_live(e), 0);
  sim_free(e);
  sys_free(s);
  return r;
}

/* Node SRC's CPU puts 1000 B to node DST, whose CPU waits for flag 1 to
 * reach WAIT; the other nodes run nothing. */
struct put_progs {
  struct nic_cmd cmd;
  struct hstep send, wait;
  struct nodeprog sender, waiter;
};

static void put_progs_init(struct put_progs *pp, uint32_t dst, uint32_t wait) {
  pp->cmd = (struct nic_cmd){.op = NIC_PUT, .dst_node = dst, .bytes = 1000,
                             .remote = {.id = 1, .watcher = DEV_CPU}};
  pp->send = (struct hstep){.kind = HS_NIC_CMD, .cmd = 0};
  pp->wait = (struct hstep){.kind = HS_WAIT_FLAG, .flag = 1, .value = wait};
  pp->sender = (struct nodeprog){.cmds = &pp->cmd, .n_cmds = 1, .host = &pp->send, .n_host = 1,
                                 .n_flags = 1};
  pp->waiter = (struct nodeprog){.host = &pp->wait, .n_host = 1, .n_flags = 1};
}

static void test_same_node_put_crosses_nvlink(void) {
  struct hw h;
  hw_defaults(&h);
  intra(&h, "2", "2400Gbps"); /* NVLink 3: 300 GB/s per direction */
  struct put_progs pp;
  put_progs_init(&pp, 1, 1);
  const struct nodeprog *progs[] = {&pp.sender, &pp.waiter};
  /* 4 components a node, the network's star switch and one crossbar. */
  struct sim_report r = run_system(&h, progs, 10);
  /* As in the star test up to the DMA: the first (only) packet's data is
   * at node 0's NIC at 613.25 ns. Node 1 is in node 0's physical node, so
   * the packet leaves by the nvl port: 1064 wire bytes at 2400 Gbps =
   * 8512 bits / 2400 Gbps = 3.546667 ns -> 3547 ps (rounded up).
   *   head: + 200 link, + 100 crossbar, + 200 link  = 1113.25
   *   whole packet + 3.547                          = 1116.797
   *   memory write 31.25 + 100 = 1248.047; the flag follows it. */
  CU_ASSERT_EQUAL(report(&r, "node1.cpu.main_done"), 1248047);
  CU_ASSERT_EQUAL(report(&r, "nvl.sw0.packets"), 1);
  CU_ASSERT_EQUAL(report(&r, "net.sw0.packets"), 0);
  CU_ASSERT_EQUAL(report(&r, "node1.nic.payload_received"), 1000);
  sim_report_clear(&r);
}

static void test_same_node_put_direct_skips_the_bus(void) {
  struct hw h;
  hw_defaults(&h);
  intra(&h, "2", "2400Gbps");
  h.nic.nvl_direct = true;
  struct put_progs pp;
  put_progs_init(&pp, 1, 1);
  const struct nodeprog *progs[] = {&pp.sender, &pp.waiter};
  struct sim_report r = run_system(&h, progs, 10);
  /* As above, but no DMA read: the command is processed at 402 ns and the
   * packet leaves at once (3.547 ns on NVLink).
   *   head: + 200 link, + 100 crossbar, + 200 link  = 902
   *   whole packet + 3.547                          = 905.547
   *   no memory write across node 1's bus; the flag crosses it alone:
   *   8 B at 256 Gbps (0.25) + 100                   = 1005.797 */
  CU_ASSERT_EQUAL(report(&r, "node1.cpu.main_done"), 1005797);
  CU_ASSERT_EQUAL(report(&r, "node0.nic.dma_reads"), 0);
  CU_ASSERT_EQUAL(report(&r, "node1.bus.to_mem_msgs"), 0);
  CU_ASSERT_EQUAL(report(&r, "node0.nic.nvl_bytes_sent"), 1064);
  CU_ASSERT_EQUAL(report(&r, "node1.nic.payload_received"), 1000);
  sim_report_clear(&r);
}

static void test_same_node_get_stays_on_nvlink(void) {
  struct hw h;
  hw_defaults(&h);
  intra(&h, "2", "2400Gbps");
  /* Node 0 gets 1000 B from node 1 and waits for its local flag. */
  const struct nic_cmd cmds[] = {
      {.op = NIC_GET, .dst_node = 1, .bytes = 1000, .local = {.id = 1, .watcher = DEV_CPU}}};
  const struct hstep steps[] = {{.kind = HS_NIC_CMD, .cmd = 0},
                                {.kind = HS_WAIT_FLAG, .flag = 1, .value = 1}};
  const struct nodeprog p0 = {.cmds = cmds, .n_cmds = 1, .host = steps, .n_host = 2, .n_flags = 1};
  const struct nodeprog *progs[] = {&p0, NULL};
  struct sim_report r = run_system(&h, progs, 10);
  /* Request and reply both cross the crossbar, none the network:
   *   command at the NIC 302, processed 402; request (64 B header: 512
   *   bits at 2400 Gbps = 213.33 -> 214 ps) head at node 1 402 + 500 =
   *   902, whole 902.214; DMA 80 + 31.25 + 100: data 1113.464; reply head
   *   + 500 = 1613.464 at node 0, whole + 3.547 = 1617.011; written
   *   + 31.25 + 100 = 1748.261, the local flag behind it. */
  CU_ASSERT_EQUAL(report(&r, "nvl.sw0.packets"), 2);
  CU_ASSERT_EQUAL(report(&r, "net.sw0.packets"), 0);
  CU_ASSERT_EQUAL(report(&r, "node0.cpu.main_done"), 1748261);
  sim_report_clear(&r);
}

static void test_cross_node_put_through_a_fat_tree(void) {
  struct hw h;
  hw_defaults(&h);
  intra(&h, "8", "2400Gbps");
  net_set(&h, "topology", "fat-tree");
  net_set(&h, "fat_tree_k", "4");
  net_set(&h, "fat_tree_levels", "2");
  h.net.nodes = 16; /* two physical nodes of 8 GPUs; a 4-ary 2-tree holds 16 */
  struct put_progs pp;
  put_progs_init(&pp, 8, 1);
  const struct nodeprog *progs[16] = {[0] = &pp.sender, [8] = &pp.waiter};
  /* 16 x 4 components, 2 x 4 fat-tree switches, 2 crossbars. */
  struct sim_report r = run_system(&h, progs, 74);
  /* Node 8 is in the other physical node: the packet takes the network
   * port at 100 Gbps. Nodes 0 and 8 hang from leaf switches 0 and 2 and
   * meet at level 1: 3 switches, 4 links (fat-tree 2L + 1, L = 1).
   *   data at node 0's NIC                            613.25
   *   head: 4 links x 100 + 3 switches x 100 = + 700 = 1313.25
   *   whole packet: 1064 B at 100 Gbps + 85.12       = 1398.37
   *   memory write 31.25 + 100                        = 1529.62 */
  CU_ASSERT_EQUAL(report(&r, "node8.cpu.main_done"), 1529620);
  CU_ASSERT_EQUAL(report(&r, "net.switches.packets"), 3);
  CU_ASSERT_EQUAL(report(&r, "nvl.switches.packets"), 0);
  sim_report_clear(&r);
}

static void test_two_same_node_senders_contend_at_the_receiver(void) {
  struct hw h;
  hw_defaults(&h);
  /* A slow intra fabric (100 Gbps: 85.12 ns a packet) so that its
   * serialization, not the receiver's bus (31.25 ns a write), sets the
   * pace. */
  intra(&h, "4", "100Gbps");
  h.net.nodes = 4;
  struct put_progs pp;
  put_progs_init(&pp, 2, 2);
  const struct nodeprog *progs[] = {&pp.sender, &pp.sender, &pp.waiter, NULL};
  struct sim_report r = run_system(&h, progs, 4 * 4 + 1 + 1);
  /* Nodes 0 and 1 each put 1000 B to node 2 at the same moment; each sends
   * from its own port (no contention there) and both heads reach the
   * crossbar at 613.25 + 200 = 813.25, ready at 913.25. The crossbar's
   * port into node 2 serializes them: the first 913.25 .. 998.37, the
   * second waits 85.12 ns and starts at 998.37.
   *   first:  head at node 2 1113.25, whole 1198.37, write done
   *           1198.37 + 31.25 = 1229.62 (+ 100 to memory)
   *   second: head 998.37 + 200 = 1198.37, whole + 85.12 = 1283.49,
   *           write 1283.49 + 31.25 + 100 = 1414.74: flag 1 reaches 2. */
  CU_ASSERT_EQUAL(report(&r, "node2.cpu.main_done"), 1414740);
  CU_ASSERT_EQUAL(report(&r, "nvl.sw0.packets"), 2);
  CU_ASSERT_EQUAL(report(&r, "nvl.sw0.max_queue_delay"), 85120);
  sim_report_clear(&r);
}

static void test_one_sender_to_two_same_node_peers_queues_at_its_port(void) {
  struct hw h;
  hw_defaults(&h);
  intra(&h, "4", "100Gbps");
  h.net.nodes = 4;
  /* Node 0 puts 4000 B (one packet) to node 1 and then to node 2. */
  const struct nic_cmd cmds[] = {
      {.op = NIC_PUT, .dst_node = 1, .bytes = 4000, .remote = {.id = 1, .watcher = DEV_CPU}},
      {.op = NIC_PUT, .dst_node = 2, .bytes = 4000, .remote = {.id = 1, .watcher = DEV_CPU}}};
  const struct hstep send[] = {{.kind = HS_NIC_CMD, .cmd = 0}, {.kind = HS_NIC_CMD, .cmd = 1}};
  const struct hstep wait[] = {{.kind = HS_WAIT_FLAG, .flag = 1, .value = 1}};
  const struct nodeprog p0 = {.cmds = cmds, .n_cmds = 2, .host = send, .n_host = 2, .n_flags = 1};
  const struct nodeprog pw = {.host = wait, .n_host = 1, .n_flags = 1};
  const struct nodeprog *progs[] = {&p0, &pw, &pw, NULL};
  struct sim_report r = run_system(&h, progs, 18);
  /* 4000 B: DMA 4000 B at 256 Gbps = 125 ns; a packet of 4064 wire bytes
   * at 100 Gbps = 325.12 ns.
   *   first:  command at the NIC 302, processed 402, data back
   *           402 + 80 + 125 + 100 = 707; node 0's nvl port busy
   *           707 .. 1032.12; head at node 1 707 + 500 = 1207, whole
   *           1532.12, written + 125 + 100 = 1757.12.
   *   second: built 200 ns later, at the NIC 502, processed 602, data
   *           back 907, but the sending port is busy until 1032.12: it
   *           starts then (not 907), head at node 2 1532.12, whole
   *           1857.24, written 2082.24 (1957.12 without the shared port). */
  CU_ASSERT_EQUAL(report(&r, "node1.cpu.main_done"), 1757120);
  CU_ASSERT_EQUAL(report(&r, "node2.cpu.main_done"), 2082240);
  CU_ASSERT_EQUAL(report(&r, "nvl.sw0.max_queue_delay"), 0);
  sim_report_clear(&r);
}

static void test_gpus_per_node_must_divide_nodes(void) {
  struct hw h;
  hw_defaults(&h);
  net_set(&h, "gpus_per_node", "8");
  h.net.nodes = 12;
  struct sim_engine *e = sim_new(1);
  char *err = NULL;
  CU_ASSERT_PTR_NULL(sys_build(e, &h.cfg, NULL, &err));
  CU_ASSERT_STRING_EQUAL(err,
                         "network.nodes: expected a multiple of network.gpus_per_node (8), got 12");
  CU_ASSERT_EQUAL(sim_comp_count(e), 0);
  g_free(err);
  sim_free(e);
  /* In a scenario: exit-2 style, file:line:col of the network mapping. */
  char *dir = g_dir_make_tmp("trigsim-topo-XXXXXX", NULL);
  char *path = g_build_filename(dir, "bad.yaml", NULL);
  const char *text = "hardware:\n"
                     "  network:\n"
                     "    gpus_per_node: 8\n"
                     "    nodes: 12\n"
                     "workload:\n"
                     "  kind: ping\n"
                     "policies: [cpu]\n";
  CU_ASSERT_TRUE_FATAL(g_file_set_contents(path, text, -1, NULL));
  err = NULL;
  struct scenario *sc = scenario_load(path, NULL, 0, &wl_catalog, &err);
  CU_ASSERT_PTR_NULL(sc);
  CU_ASSERT_PTR_NOT_NULL_FATAL(err);
  char *want = g_strdup_printf("%s:3:5: hardware.network: network.nodes: expected a multiple of "
                               "network.gpus_per_node (8), got 12",
                               path);
  if (strcmp(err, want)) fprintf(stderr, "got: %s\nwant: %s\n", err, want);
  CU_ASSERT_STRING_EQUAL(err, want);
  g_free(want);
  g_free(err);
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

static void test_a100_profile_binds(void) {
  const char *dir = g_getenv("TRIGSIM_CONFIGS");
  char *path = g_build_filename(dir ? dir : "configs", "hw", "a100-nvlink-example.yaml", NULL);
  char *err = NULL;
  struct scenario *sc = scenario_load(path, NULL, 0, &wl_catalog, &err);
  if (!sc) fprintf(stderr, "%s\n", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
  const struct gpu_config *gpu = sc_hardware(sc, &gpu_params);
  const struct cpu_config *cpu = sc_hardware(sc, &cpu_params);
  const struct net_config *net = sc_hardware(sc, &net_params);
  /* A100-SXM4-40GB: 108 SMs, 1410 MHz boost, 1555 GB/s; two 1024-thread
   * blocks fit an SM (2048 threads), the persistent kernel's 64 registers
   * allow one (65536 / (64 x 1024)), the discrete SpMV's 32 two; DGX A100:
   * 8 GPUs per node on NVLink 3 (300 GB/s per direction), HDR 200 Gb/s per
   * GPU. */
  CU_ASSERT_EQUAL(gpu->cus, 108);
  CU_ASSERT_EQUAL(gpu->clock, 1410000000);
  CU_ASSERT_EQUAL(gpu->mem_bandwidth, 1555LL * 8 * 1000000000);
  CU_ASSERT_EQUAL(gpu->wgs_per_cu, 2);
  CU_ASSERT_EQUAL(gpu_occupancy(gpu, &(struct kernel){.persistent = true}), 1);
  CU_ASSERT_EQUAL(gpu_occupancy(gpu, &(struct kernel){.persistent = false}), 2);
  CU_ASSERT_EQUAL(cpu->cores, 16); /* 128 cores of two EPYC 7742 over 8 GPUs */
  CU_ASSERT_EQUAL(net->gpus_per_node, 8);
  CU_ASSERT_EQUAL(net->nodes % net->gpus_per_node, 0);
  CU_ASSERT_EQUAL(net->intra_bandwidth, 2400000000000);
  CU_ASSERT_EQUAL(net->link_bandwidth, 200000000000);
  CU_ASSERT_EQUAL(net->topology, NET_FAT_TREE);
  scenario_free(sc);
  g_free(path);
}

/* The cell of COLUMN in a one-row CSV (HEADER, ROW split at commas). */
static const char *csv_cell(char **header, char **row, const char *column) {
  for (int i = 0; header[i] && row[i]; i++)
    if (strcmp(header[i], column) == 0) return row[i];
  CU_FAIL_FATAL("no such column");
  return NULL;
}

/* bus.nvl_relay (bus.h, engine.h "relays"): cpufree CG on 16 A100s, 8 a
 * node, 3 iterations, every counter, with the NVLink stores passing the
 * bus as relays and as bus events: every cell the same but events, which
 * drop by two per store: its command (GPU -> bus -> NIC) and its target's
 * flag (NIC -> bus -> GPU) each skip a bus event (cpufree's stores set no
 * local flag). */
static void test_nvl_relays_change_only_events(void) {
  const char *dir = g_getenv("TRIGSIM_CONFIGS");
  char *path = g_build_filename(dir ? dir : "configs", "cpufree-ics23", "cg-scale-fast.yaml", NULL);
  char *out[2] = {NULL, NULL};
  const char *relay[2] = {"hardware.bus.nvl_relay=true", "hardware.bus.nvl_relay=false"};
  for (int k = 0; k < 2; k++) {
    const char *argv[] = {"run", path, "-f", "csv", "-c", "all", "-q",
                          "--set", "sweep.axes=[{path: hardware.network.nodes, values: [16]}]",
                          "--set", "policies=[cpufree]", "--set", "workload.iterations=3",
                          "--set", relay[k], NULL};
    CU_ASSERT_EQUAL_FATAL(tu_trigsim(argv, &out[k], NULL), 0);
  }
  char **lines[2], **hdr[2], **row[2];
  for (int k = 0; k < 2; k++) {
    lines[k] = g_strsplit(out[k], "\n", 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lines[k][0]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(lines[k][1]);
    hdr[k] = g_strsplit(lines[k][0], ",", -1);
    row[k] = g_strsplit(lines[k][1], ",", -1);
  }
  guint n = g_strv_length(hdr[0]);
  CU_ASSERT_TRUE(n > 1000); /* every counter of 16 nodes */
  CU_ASSERT_EQUAL(g_strv_length(hdr[1]), n);
  CU_ASSERT_EQUAL(g_strv_length(row[0]), n);
  CU_ASSERT_EQUAL(g_strv_length(row[1]), n);
  int differ = 0;
  for (guint i = 0; i < n && i < g_strv_length(row[1]); i++) {
    CU_ASSERT_STRING_EQUAL(hdr[0][i], hdr[1][i]);
    if (strcmp(hdr[0][i], "events") != 0 && strcmp(row[0][i], row[1][i]) != 0) {
      fprintf(stderr, "%s: %s (relays) != %s\n", hdr[0][i], row[0][i], row[1][i]);
      differ++;
    }
  }
  CU_ASSERT_EQUAL(differ, 0);
  int64_t stores = g_ascii_strtoll(csv_cell(hdr[0], row[0], "node.nic.nvl_stores.sum"), NULL, 10);
  int64_t ev_on = g_ascii_strtoll(csv_cell(hdr[0], row[0], "events"), NULL, 10);
  int64_t ev_off = g_ascii_strtoll(csv_cell(hdr[1], row[1], "events"), NULL, 10);
  CU_ASSERT_TRUE(stores > 0);
  CU_ASSERT_EQUAL(ev_off - ev_on, 2 * stores);
  for (int k = 0; k < 2; k++) {
    g_strfreev(lines[k]);
    g_strfreev(hdr[k]);
    g_strfreev(row[k]);
    g_free(out[k]);
  }
  g_free(path);
}

/* The notes a command prints once about the limits its runs hit: two runs'
 * counters, one with switch outputs blocked 300 ns and 200 ns for credit
 * (two fabrics' totals: 500 ns) and a packet that queued 1 us, the other
 * with none (and an undeclared entry of the total's key, 700 ns, not read):
 * the credit note counts 1 of 2 runs and 500 ns in all. */
static void test_limit_notes_credit(void) {
  struct sim_report a, b;
  sim_report_init(&a);
  sim_report_init(&b);
  sim_out_put_int(&a, "net", SW_OUT(TOTAL_CREDIT_STALL), 300000);
  sim_out_put_int(&a, "nvl", SW_OUT(TOTAL_CREDIT_STALL), 200000);
  sim_out_put_int(&a, "net", SW_OUT(TOTAL_MAX_QUEUE_DELAY), 1000000);
  sim_out_put_int(&b, "net", SW_OUT(TOTAL_CREDIT_STALL), 0);
  /* An undeclared entry of the same key is not read (the tally reads by
   * declaration, as main's notes do). */
  sim_report_int(&b, "net.switches.credit_stall", UNIT_TIME, 700000);
  struct sys_limits t = {0};
  sys_limits_tally(&t, &a);
  sys_limits_tally(&t, &b);
  CU_ASSERT_EQUAL(t.hit[SYS_CREDIT], 1);
  CU_ASSERT_EQUAL(t.credit_stall_ps, 500000);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  sys_limits_print(&t, f);
  fclose(f);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "switch ports waited for credit in 1 of 2 runs: 500ns in all"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "packets waited up to 1us at a switch port"));
  free(text);
  sim_report_clear(&a);
  sim_report_clear(&b);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"a put across a star, end to end", test_put_across_a_star},
      {"declared outputs, read by handle", test_declared_outputs_and_handles},
      {"an impossible network is an error", test_bad_shape_is_an_error},
      {"every topology builds 4096 nodes", test_every_topology_builds_4096_nodes},
      {"the GPU-TN profile holds Table 2", test_gputn_profile_is_table_2},
      {"a same-node put crosses NVLink, timed by hand", test_same_node_put_crosses_nvlink},
      {"a same-node put with nvl_direct skips the bus", test_same_node_put_direct_skips_the_bus},
      {"a same-node get stays on NVLink", test_same_node_get_stays_on_nvlink},
      {"a cross-node put through a fat-tree with 8 GPUs a node",
       test_cross_node_put_through_a_fat_tree},
      {"two same-node senders contend at the receiver's crossbar port",
       test_two_same_node_senders_contend_at_the_receiver},
      {"one sender to two same-node peers queues at its port",
       test_one_sender_to_two_same_node_peers_queues_at_its_port},
      {"gpus_per_node must divide nodes", test_gpus_per_node_must_divide_nodes},
      {"NVLink stores as relays change only the event count",
       test_nvl_relays_change_only_events},
      {"the A100 NVLink profile binds", test_a100_profile_binds},
      {"the notes of limits hit: switch ports waiting for credit", test_limit_notes_credit},
      {NULL, NULL}};
  return tu_run_suite("system", tests);
}
