/* A whole system: nodes of CPU, GPU, NIC and bus on a network, built by
 * sys_build from the default parameters, and one put across it timed end to
 * end by hand. */
#include <glib.h>
#include <string.h>

#include "system.h"
#include "testutil.h"
#include "workload.h"

struct hw {
  struct gpu_config gpu;
  struct cpu_config cpu;
  struct bus_config bus;
  struct nic_config nic;
  struct net_config net;
  struct hw_config cfg;
};

static void hw_defaults(struct hw *h) {
  par_group_defaults(&gpu_params, &h->gpu);
  par_group_defaults(&cpu_params, &h->cpu);
  par_group_defaults(&bus_params, &h->bus);
  par_group_defaults(&nic_params, &h->nic);
  par_group_defaults(&net_params, &h->net);
  h->cfg = (struct hw_config){&h->gpu, &h->cpu, &h->bus, &h->nic, &h->net};
}

static int64_t report(const struct sim_report *r, const char *key) {
  const struct sim_report_entry *en = sim_report_find(r, key);
  CU_ASSERT_PTR_NOT_NULL_FATAL(en);
  return en->i;
}

static void test_put_across_a_star(void) {
  struct hw h;
  hw_defaults(&h);
  /* Node 0's CPU puts 1000 B to node 1, whose CPU waits on the flag. */
  const struct nic_cmd cmds[] = {{.op = NIC_PUT, .dst_node = 1, .bytes = 1000,
                                  .remote = {.id = 1, .watcher = DEV_CPU}}};
  const struct hstep send[] = {{.kind = HS_NIC_CMD, .cmd = 0}};
  const struct hstep wait[] = {{.kind = HS_WAIT_FLAG, .flag = 1, .value = 1}};
  const struct nodeprog p0 = {.cmds = cmds, .n_cmds = 1, .host = send, .n_host = 1, .n_flags = 1};
  const struct nodeprog p1 = {.host = wait, .n_host = 1, .n_flags = 1};
  const struct nodeprog *progs[] = {&p0, &p1};
  struct sim_engine *e = sim_new(1);
  char *err = NULL;
  struct system *s = sys_build(e, &h.cfg, progs, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(s->nodes, 2);
  /* 4 components a node and one switch. */
  CU_ASSERT_EQUAL(sim_comp_count(e), 9);
  sim_run(e, SIM_TIME_MAX, 0);
  struct sim_report r;
  sim_report_init(&r);
  sim_finish(e, &r);
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
  CU_ASSERT_EQUAL(report(&r, "node1.cpu.main_done"), 1129620);
  CU_ASSERT_EQUAL(report(&r, "node0.nic.packets_sent"), 1);
  CU_ASSERT_EQUAL(report(&r, "node1.nic.payload_received"), 1000);
  CU_ASSERT_EQUAL(sim_payloads_live(e), 0);
  sim_report_clear(&r);
  sim_free(e);
  sys_free(s);
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
  /* The catalog keeps gpu, cpu, bus, nic, network in this order. */
  const struct gpu_config *gpu = sc->hardware[0];
  const struct cpu_config *cpu = sc->hardware[1];
  const struct nic_config *nic = sc->hardware[3];
  const struct net_config *net = sc->hardware[4];
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

int main(void) {
  static const struct tu_test tests[] = {
      {"a put across a star, end to end", test_put_across_a_star},
      {"an impossible network is an error", test_bad_shape_is_an_error},
      {"every topology builds 4096 nodes", test_every_topology_builds_4096_nodes},
      {"the GPU-TN profile holds Table 2", test_gputn_profile_is_table_2},
      {NULL, NULL}};
  return tu_run_suite("system", tests);
}
