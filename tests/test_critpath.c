/* The critical path (sim/engine.h: each event's cause and the category of
 * the time to it; models/phase.h: the categories) and the one end of a run
 * (result.h: the last measured rank's result usable by its host), on the
 * GPU-TN paper's Fig. 8 ping (configs/gputn-sc17/latency.yaml: the Table 2
 * hardware with the fitted host costs), derived hop by hop from the
 * parameters; and the end on a profile where everything is free. */
#include <glib.h>
#include <string.h>

#include "testutil.h"

/* `run --critical-path chain -f json` of scenario SC (the latency scenario
 * when NULL) under POLICY. */
static char *chain_json_of(const char *scenario, const char *policy) {
  char *sc = scenario ? g_strdup(scenario)
                      : g_build_filename(g_getenv("TRIGSIM_CONFIGS"), "gputn-sc17", "latency.yaml", NULL);
  char *set = g_strdup_printf("policies=[%s]", policy);
  char *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "--set", set, "--critical-path", "chain",
                                              "-f", "json", "-c", "none", NULL},
                             &out, NULL),
                  0);
  g_free(sc);
  g_free(set);
  return out ? out : g_strdup("");
}

static char *chain_json(const char *policy) { return chain_json_of(NULL, policy); }

/* Each of HOPS (N, as the JSON writes them) appears in OUT, in this order. */
static void expect_hops(const char *out, const char *const *hops, size_t n) {
  const char *at = out;
  for (size_t i = 0; i < n; i++) {
    char *want = g_strdup_printf("{\"where\": %s}", hops[i]);
    const char *p = strstr(at, want);
    if (!p) fprintf(stderr, "\n  hop %zu not found (in order): %s\n", i, want);
    CU_ASSERT_PTR_NOT_NULL(p);
    if (p) at = p + strlen(want);
    g_free(want);
  }
}

#define HOP(where, cat, s, e) \
  "\"" where "\", \"category\": \"" cat "\", \"start_ps\": " #s ", \"end_ps\": " #e

/* GPU-TN ping, node 0 to node 1 (times in ps). Profile: launch_submit
 * 1347090 (fitted), bus latency 100 ns at 256 Gbps, GPU launch_latency
 * 1.5 us, teardown 1.5 us, fence 200 ns, poll_interval 100 ns; NIC
 * match_latency 10 ns; links 100 ns at 100 Gbps, one switch of 100 ns,
 * 64 B headers; host poll (switch_poll_interval) 500 ns.
 *   node0.cpu launch call: 0 .. 1347090.
 *   node0.bus: the launch command crosses the bus: 100 ns + 64 B at
 *     256 Gbps (2 ns) = 102 ns: 1449090.
 *   node0.gpu launch latency 1.5 us: 2949090.
 *   its one WG computes 256 flops at 128 flops/cycle/CU shared by 4 WGs a
 *     CU at 1 GHz: 256 / 32 = 8 ns: 2957090; then the fence, 200 ns: 3157090
 *     (both gpu_work: the WG's steps).
 *   node0.bus: the trigger store, 102 ns: 3259090.
 *   node0.nic matches it: 10 ns: 3269090.
 *   node0.bus: the put's DMA read of its 8 B: 100 ns bus + 80 ns memory +
 *     8 B at 256 Gbps (0.25 ns) = 180.25 ns: 3449340.
 *   wire: link 100 ns (3549340), switch 100 ns (3649340), link 100 ns
 *     (3749340), the 72 B packet's tail at 100 Gbps 5.76 ns (3755100).
 *   node1.bus: the 8 B write to memory, 100.25 ns: 3855350 (the flag).
 *   node1.gpu: its WG polls from its start, 1347090 + 102000 + 1500000 =
 *     2949090, every 100 ns: the first tick >= 3855350 is 3949090 (waiting
 *     93.74 ns), where its kernel's last WG ends: the policy's own end.
 *   teardown 1.5 us: 5449090; the completion record crosses the bus,
 *     102 ns: 5551090.
 *   node1.cpu ended its program (the launch) at 1347090 and notices the
 *     record at its next poll: 1347090 + 9 x 500000 = 5847090 (switch
 *     296 ns): the end of the run. */
static void test_gputn_ping(void) {
  char *out = chain_json("gputn");
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"total_time_ps\": 5847090, \"policy_end_ps\": 3949090"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"ended_at\": \"node1.cpu\""));
  static const char *const hops[] = {
      HOP("node0.cpu", "launch", 0, 1347090),
      HOP("node0.bus", "bus", 1347090, 1449090),
      HOP("node0.gpu", "launch", 1449090, 2949090),
      HOP("node0.gpu", "gpu_work", 2949090, 2957090),
      HOP("node0.gpu", "gpu_work", 2957090, 3157090),
      HOP("node0.bus", "bus", 3157090, 3259090),
      HOP("node0.nic", "nic", 3259090, 3269090),
      HOP("node0.bus", "bus", 3269090, 3449340),
      HOP("node0.nic ->", "wire", 3449340, 3549340),
      HOP("net.sw0", "wire", 3549340, 3649340),
      HOP("net.sw0 ->", "wire", 3649340, 3749340),
      HOP("node1.nic", "wire", 3749340, 3755100),
      HOP("node1.bus", "bus", 3755100, 3855350),
      HOP("node1.gpu", "waiting", 3855350, 3949090),
      HOP("node1.gpu", "teardown", 3949090, 5449090),
      HOP("node1.bus", "bus", 5449090, 5551090),
      HOP("node1.cpu", "switch", 5551090, 5847090),
  };
  expect_hops(out, hops, G_N_ELEMENTS(hops));
  /* The categories partition the end: launch 1347090 + 1500000 = 2847090;
   * bus 102000 x 3 + 180250 + 100250 = 586500; wire 305760. */
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"launch\": 2847090"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"bus\": 586500"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"wire\": 305760"));
  g_free(out);
}

/* HDN ping: the same launch and WG (to 2957090), then the kernel's
 * teardown before anything leaves: 1.5 us, 4457090; the record crosses
 * the bus, 102 ns: 4559090; node0's host has waited since its launch
 * call ended (1347090) and polls every 500 ns: 1347090 + 7 x 500000 =
 * 4847090 (switch 288 ns); it builds the put (200 ns) and sends it
 * through the host stack (send, fitted 200002 ps): 5247092; the command
 * crosses the bus (102 ns): 5349092; the NIC processes it (cmd_cost
 * 100 ns): 5449092; then the DMA read, wire and node 1's memory write as
 * under GPU-TN (180.25 + 305.76 + 100.25 ns): 6035352, where node 1's
 * host, polling memory, sees the flag at once: the end, and its own. What
 * GPU-TN leaves out on node 0: the teardown, the bus back, the switch,
 * the host stack and the NIC's command cost (1.5 us + 102 + 288 + 400.002
 * + 102 + 100 ns), for its fence (200 ns), trigger store (102 ns) and
 * match (10 ns). */
static void test_hdn_ping(void) {
  char *out = chain_json("hdn");
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"total_time_ps\": 6035352, \"policy_end_ps\": 6035352"));
  static const char *const hops[] = {
      HOP("node0.cpu", "launch", 0, 1347090),
      HOP("node0.bus", "bus", 1347090, 1449090),
      HOP("node0.gpu", "launch", 1449090, 2949090),
      HOP("node0.gpu", "gpu_work", 2949090, 2957090),
      HOP("node0.gpu", "teardown", 2957090, 4457090),
      HOP("node0.bus", "bus", 4457090, 4559090),
      HOP("node0.cpu", "switch", 4559090, 4847090),
      HOP("node0.cpu", "host_stack", 4847090, 5247092),
      HOP("node0.bus", "bus", 5247092, 5349092),
      HOP("node0.nic", "nic", 5349092, 5449092),
      HOP("node0.bus", "bus", 5449092, 5629342),
      HOP("node0.nic ->", "wire", 5629342, 5729342),
      HOP("net.sw0", "wire", 5729342, 5829342),
      HOP("net.sw0 ->", "wire", 5829342, 5929342),
      HOP("node1.nic", "wire", 5929342, 5935102),
      HOP("node1.bus", "bus", 5935102, 6035352),
  };
  expect_hops(out, hops, G_N_ELEMENTS(hops));
  g_free(out);
}

/* A 2-rank halo: jacobi2d, px 2, py 1, not periodic (one neighbour each),
 * one 16 x 16 grid a rank (one WG: wg_tile 16), one iteration, halos
 * written by the sweep (pack: fused), on the ping's hardware. Each rank
 * sends its 16-point x face, 16 x 4 B = 64 B, to the other; both ranks do
 * the same at the same times, and the end is the lower rank's (the first
 * of equal ends), so the path runs from node 1 to node 0.
 * gputn: node1.cpu launches (launch_submit 1347090), then registers the
 *   triggered put (register_trigger 200 ns: its program ends at 1547090);
 *   the launch crosses the bus (102 ns) and starts 1.5 us later: 2949090.
 *   The WG: 256 points x 5 flops = 1280 flops at 32 flops a cycle (128 a
 *   CU shared by 4 WGs) at 1 GHz: 40 ns, more than its 256 x 8 B of memory
 *   traffic at 1092 Gbps (15 ns): 2989090; the fence 200 ns
 *   (3189090); the trigger store crosses the bus, 102 ns (3291090); the
 *   NIC matches it, 10 ns (3301090); the DMA read of 64 B, 100 + 80 ns +
 *   64 B at 256 Gbps (2 ns) = 182 ns (3483090); link, switch, link
 *   300 ns (3783090) and the 128 B packet's tail at 100 Gbps, 10.24 ns
 *   (3793330); node 0's bus writes it, 100 ns + 2 ns (3895330). Node 0's
 *   WG, past its own fence at 3189090, polls every 100 ns: 3189090 +
 *   8 x 100 ns = 3989090 is the first tick after (waiting 93.76 ns): its
 *   kernel ends, the policy's own end. Teardown 1.5 us (5489090), the
 *   record over the bus 102 ns (5591090); node0.cpu, polling every
 *   500 ns since its program ended at 1547090, notices it at 1547090 +
 *   9 x 500 ns = 6047090 (switch 456 ns): the end.
 * hdn: the same launch and WG to 2989090, then the teardown, 1.5 us
 *   (4489090), the record over the bus (4591090); node1.cpu, polling since
 *   its launch call ended (1347090), notices it at 1347090 + 7 x 500 ns =
 *   4847090 (256 ns); builds the put (build_cmd 200 ns) and sends it
 *   (send, fitted 200002 ps): 5247092; the command over the bus, 102 ns
 *   (5349092); the NIC's cmd_cost 100 ns (5449092); then the same DMA read,
 *   wire and write as under gputn (182 + 310.24 + 102 ns): 6043332, where
 *   node 0's host sees the flag: the end, and hdn's own. */
static void test_halo_2ranks(void) {
  const char *text = "include: %s\n"
                     "name: halo2\n"
                     "workload: {kind: jacobi2d, px: 2, py: 1, periodic: false, grid: 16,\n"
                     "           iterations: 1, pack: fused}\n"
                     "overrides: {hardware.network.nodes: 2}\n";
  char *hw = g_build_filename(g_getenv("TRIGSIM_CONFIGS"), "hw", "gputn-sc17-fitted.yaml", NULL);
  char *yaml = g_strdup_printf(text, hw);
  char *sc = tu_temp_file(".yaml", yaml, strlen(yaml));
  char *out = chain_json_of(sc, "gputn");
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"total_time_ps\": 6047090, \"policy_end_ps\": 3989090"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"ended_at\": \"node0.cpu\""));
  static const char *const gputn[] = {
      HOP("node1.cpu", "launch", 0, 1347090),
      HOP("node1.bus", "bus", 1347090, 1449090),
      HOP("node1.gpu", "launch", 1449090, 2949090),
      HOP("node1.gpu", "gpu_work", 2949090, 2989090),
      HOP("node1.gpu", "gpu_work", 2989090, 3189090),
      HOP("node1.bus", "bus", 3189090, 3291090),
      HOP("node1.nic", "nic", 3291090, 3301090),
      HOP("node1.bus", "bus", 3301090, 3483090),
      HOP("node1.nic ->", "wire", 3483090, 3583090),
      HOP("net.sw0", "wire", 3583090, 3683090),
      HOP("net.sw0 ->", "wire", 3683090, 3783090),
      HOP("node0.nic", "wire", 3783090, 3793330),
      HOP("node0.bus", "bus", 3793330, 3895330),
      HOP("node0.gpu", "waiting", 3895330, 3989090),
      HOP("node0.gpu", "teardown", 3989090, 5489090),
      HOP("node0.bus", "bus", 5489090, 5591090),
      HOP("node0.cpu", "switch", 5591090, 6047090),
  };
  expect_hops(out, gputn, G_N_ELEMENTS(gputn));
  g_free(out);
  out = chain_json_of(sc, "hdn");
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"total_time_ps\": 6043332, \"policy_end_ps\": 6043332"));
  static const char *const hdn[] = {
      HOP("node1.cpu", "launch", 0, 1347090),
      HOP("node1.bus", "bus", 1347090, 1449090),
      HOP("node1.gpu", "launch", 1449090, 2949090),
      HOP("node1.gpu", "gpu_work", 2949090, 2989090),
      HOP("node1.gpu", "teardown", 2989090, 4489090),
      HOP("node1.bus", "bus", 4489090, 4591090),
      HOP("node1.cpu", "switch", 4591090, 4847090),
      HOP("node1.cpu", "host_stack", 4847090, 5247092),
      HOP("node1.bus", "bus", 5247092, 5349092),
      HOP("node1.nic", "nic", 5349092, 5449092),
      HOP("node1.bus", "bus", 5449092, 5631092),
      HOP("node1.nic ->", "wire", 5631092, 5731092),
      HOP("net.sw0", "wire", 5731092, 5831092),
      HOP("net.sw0 ->", "wire", 5831092, 5931092),
      HOP("node0.nic", "wire", 5931092, 5941332),
      HOP("node0.bus", "bus", 5941332, 6043332),
  };
  expect_hops(out, hdn, G_N_ELEMENTS(hdn));
  g_free(out);
  g_free(sc);
  g_free(yaml);
  g_free(hw);
}

/* Where nothing costs anything (no launch, teardown, polls, host stack,
 * NIC, bus or wire latency, no headers, control messages of 0 B, an empty
 * message, no compute), the only time left is the completion flag's 8 B
 * (nic.h's NIC_FLAG_BYTES) crossing node 1's bus at 256 Gbps: 250 ps. Every
 * policy that moves the data ends there: one definition, whatever drives
 * the program (monolithic, which moves no data, is left out). */
static void test_end_equal_when_free(void) {
  const char *text =
      "name: free\n"
      "workload: {kind: ping, size: 0B, wgs: 1, flops_per_wg: 0, bytes_per_wg: 0B}\n"
      "policies: [cpu, hdn, gds, gputn, cpufree, copy, p2p]\n"
      "hardware:\n"
      "  cpu: {launch_submit: 0ps, send: 0ps, recv: 0ps, build_cmd: 0ps, register_trigger: 0ps,\n"
      "        switch_poll_interval: 0ps, pageable_copy: 0ps}\n"
      "  gpu: {launch_latency: 0ps, teardown_latency: 0ps, fence_latency: 0ps, poll_interval: 0ps,\n"
      "        stream_wait_latency: 0ps, copy_start: 0ps, barrier_base: 0ps, barrier_per_wg: 0ps,\n"
      "        wg_start: 0ps}\n"
      "  bus: {latency: 0ps, mem_latency: 0ps, control_bytes: 0B}\n"
      "  nic: {cmd_cost: 0ps, match_latency: 0ps}\n"
      "  network: {link_latency: 0ps, switch_latency: 0ps, header_bytes: 0B}\n";
  char *sc = tu_temp_file(".yaml", text, strlen(text)), *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", "-q", NULL}, &out, &err), 0);
  if (err && *err) fprintf(stderr, "\n  %s\n", err);
  char **lines = g_strsplit(out ? out : "", "\n", -1);
  CU_ASSERT_EQUAL(g_strv_length(lines), 9); /* header, 7 policies, "" */
  for (size_t i = 1; lines[i] && *lines[i]; i++) {
    char **f = g_strsplit(lines[i], ",", -1);
    /* scenario, workload, seed, policy, total_time_ps, policy_end_ps */
    CU_ASSERT_TRUE(g_strv_length(f) > 5);
    if (g_strv_length(f) > 5) {
      if (strcmp(f[4], "250")) fprintf(stderr, "\n  %s: total %s\n", f[3], f[4]);
      CU_ASSERT_STRING_EQUAL(f[4], "250");
    }
    g_strfreev(f);
  }
  g_strfreev(lines);
  g_free(out);
  g_free(err);
  g_free(sc);
}

/* The default CSV's header on a node run: the axes, the policy, both ends,
 * the engine's events and one column per critical-path category
 * (models/phase.h's enum cp_cat, in order), names without spaces. */
static void test_csv_header(void) {
  char *sc = g_build_filename(g_getenv("TRIGSIM_CONFIGS"), "default.yaml", NULL), *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", "-q", NULL}, &out, NULL), 0);
  char *head = out ? g_strndup(out, strcspn(out, "\n")) : g_strdup("");
  CU_ASSERT_STRING_EQUAL(head,
                         "scenario,workload,seed,policy,total_time_ps,policy_end_ps,events,"
                         "cp_other_ps,cp_launch_ps,cp_cpu_compute_ps,cp_gpu_work_ps,cp_teardown_ps,"
                         "cp_switch_ps,cp_host_stack_ps,cp_nic_ps,cp_bus_ps,cp_wire_ps,"
                         "cp_waiting_ps");
  g_free(head);
  g_free(out);
  g_free(sc);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"GPU-TN ping: hops by hand, the end after the teardown", test_gputn_ping},
      {"HDN ping: hops by hand; which hops GPU-TN leaves out", test_hdn_ping},
      {"2-rank halo under GPU-TN and HDN: hops by hand", test_halo_2ranks},
      {"end of a run equal across policies when everything is free", test_end_equal_when_free},
      {"the default CSV header", test_csv_header},
      {NULL, NULL}};
  return tu_run_suite("critpath", tests);
}
