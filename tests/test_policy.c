/* The execution policies (workloads/policies/policy_*.c) lowering workloads onto the
 * hardware models: the GPU-TN Fig. 8 ping under each policy timed by hand
 * from the default parameters, and the shapes the workloads give the
 * lowerings (ring steps, halos, trigger granularities, folding a kernel
 * that waits, with its edge selectors). */
#include <glib.h>
#include <string.h>

#include "allreduce.h"
#include "cg.h"
#include "coll.h"
#include "jacobi.h"
#include "library.h"
#include "lower.h"
#include "ping.h"
#include "noderig.h"
#include "testutil.h"

/* The defaults on NODES nodes, with a helper thread (for ghn). */
static void hw_nodes(struct hw *h, int64_t nodes) {
  hw_defaults(h);
  h->net.nodes = nodes;
  h->cpu.helper_threads = 1;
}

/* Runs P under POLICY; the policy's own end (policy_end_ps: the host
 * program's end, or the last WG's for the GPU-ended policies), which the
 * derivations here follow, or -1 (with *ERR) on an error. The end of a
 * run as total_time_ps defines it (the result usable by the host) is
 * derived in test_critpath.c. */
static sim_time run(struct wl_program *p, const char *policy, struct hw *h,
                    struct sim_result *out, char **err) {
  sim_result_init(out, policy);
  struct wl_ctx ctx = {.seed = 1};
  if (!pol_run(p, policy, &h->cfg, &ctx, out, err)) return -1;
  return out->policy_end_ps;
}

/* run(), an error printed and freed. */
static sim_time run_printed(struct wl_program *p, const char *policy, struct hw *h,
                            struct sim_result *out) {
  char *err = NULL;
  sim_time t = run(p, policy, h, out, &err);
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  return t;
}

static int64_t counter(const struct sim_result *r, const char *key) {
  const struct sim_report_entry *e = sim_report_find(&r->counters, key);
  CU_ASSERT_PTR_NOT_NULL_FATAL(e);
  return e->i;
}

/* The ping's time under POLICY on the defaults: 8 B after a kernel of one
 * WG of 256 flops. */
static sim_time ping_time(const char *policy) {
  struct hw h;
  hw_nodes(&h, 2);
  struct ping_config cfg = {.size = 8, .wgs = 1, .flops_per_wg = 256, .bytes_per_wg = 0};
  struct wl_program *p = wl_ping_program(&cfg);
  struct sim_result r;
  sim_time t = run_printed(p, policy, &h, &r);
  sim_result_clear(&r);
  wl_program_free(p);
  return t;
}

/* Defaults: bus 100 ns, 256 Gbps, 64 B control messages (2 ns), memory
 * 80 ns; nic.cmd_cost 100 ns; links and switch 100 ns, 100 Gbps, 64 B
 * headers, cut-through; cpu launch_submit 1 us, send 1 us, recv 500 ns,
 * build_cmd 200 ns, register_trigger 200 ns, switch poll 500 ns, helper
 * poll 1 us, helper service 1 us; gpu launch 1.5 us, teardown 1.5 us,
 * fence 200 ns, poll 100 ns; the WG's 256 flops take 256 * 4 / 128 = 8 ns.
 *
 * The put's leg, from its command reaching the sender's NIC at c:
 *   + 100 command, + 80 + 0.25 + 100 DMA of 8 B          = c + 280.25
 *   a 72 B packet (5.76 ns): head over link, switch, link + 300,
 *   whole at the target NIC + 5.76                        = c + 586.01
 *   memory write 0.25 + 100, the flag behind it           = c + 686.26 */
#define LEG 686260

static void test_ping_cpu(void) {
  /* 256 flops on 8 cores * 4 GHz * 8 = 1 ns; build 200 + send 1000; the
   * command crosses the bus (2 + 100): c = 1303 ns; the receiver's flag at
   * c + LEG, then recv 500. */
  CU_ASSERT_EQUAL(ping_time("cpu"), 1303000 + LEG + 500000);
}

static void test_ping_hdn(void) {
  /* Submit 1000; queue command at the GPU 1102; launch 1500 = 2602; WG
   * 8 ns = 2610; teardown 1500 = 4110; completion at the CPU 4212; the
   * CPU began waiting at 1000 and polls every 500: 4500. Send 200 + 1000 =
   * 5700, c = 5802; the target's host polls the flag (GPU-TN Sec. 5.2):
   * done at c + LEG. */
  CU_ASSERT_EQUAL(ping_time("hdn"), 5802000 + LEG);
}

static void test_ping_hdn2s(void) {
  /* As hdn, but the target completes a two-sided receive: + recv 500. */
  CU_ASSERT_EQUAL(ping_time("hdn2s"), 5802000 + LEG + 500000);
}

static void test_ping_gds(void) {
  /* Kernel submitted 1000, at the GPU 1102, launched 2602, WG 2610,
   * teardown 4110. The put is posted in program order: build 200 (1000 ->
   * 1200), at the NIC 1302, posted 1402; the doorbell (submitted 2200,
   * queued behind the kernel) rings at teardown: at the NIC c = 4212. The
   * receiver's CPU polls the flag: done at c + LEG. */
  CU_ASSERT_EQUAL(ping_time("gds"), 4212000 + LEG);
}

/* gds: a stream synchronize waits for the stream's waits on flags too
 * (Q_MARK). Rank 1 runs kernel k0, receives the ping (a stream wait: a
 * kernel follows), then its host reads a value (wl_host_sync) and
 * launches k1. Rank 0 is the gds ping: the flag reaches rank 1 at
 * F = c + LEG = 4898.26 ns. Rank 1's host submits k0 (0-1000), the wait
 * (-2000) and the marker (-3000), then waits. k0 tears down by 4110; the
 * queue waits for the flag: F + stream_wait_latency 1000 = 5898.26; the
 * marker's flag reaches the CPU + 102 = 6000.26, seen at the host's poll
 * (every 500 from 3000) 6500; k1 submitted 7500, at the GPU 7602,
 * launched 9102, WG 9110, torn down 10610, its record at the CPU 10712,
 * seen at 7500 + 7 x 500 = 11000. Waiting for k0 instead (the bug this
 * replaced), the host launched k1 at 4500 and it ran right behind the
 * flag: done about 2.5 us earlier. */
static void test_gds_sync_waits_for_stream_waits(void) {
  struct hw h;
  hw_nodes(&h, 2);
  struct wl_program *q = wl_program_new(2);
  wl_compute(q, 0, 1, 256, 0);
  wl_kclass(q, 0, KC_STREAM, 0, 0, 0);
  wl_send(q, 0, 1, 8, 1);
  wl_compute(q, 1, 1, 256, 0);
  wl_kclass(q, 1, KC_STREAM, 0, 0, 0);
  wl_recv(q, 1, 0, 8, 1);
  wl_host_sync(q, 1);
  wl_compute(q, 1, 1, 256, 0);
  wl_kclass(q, 1, KC_STREAM, 0, 0, 0);
  q->measured_rank = 1;
  struct sim_result r;
  CU_ASSERT_EQUAL(run_printed(q, "gds", &h, &r), 11000000);
  CU_ASSERT_EQUAL(counter(&r, "node1.gpu.queue_cmds"), 4); /* k0, wait, marker, k1 */
  CU_ASSERT_EQUAL(counter(&r, "node1.cpu.kernel_waits"), 2); /* the synchronize, the end */
  sim_result_clear(&r);
  wl_program_free(q);
}

static void test_ping_gputn(void) {
  /* Launch first: kernel at the GPU 1102, launched 2602, WG 2610; then
   * the registration (200) reaches the NIC at 1302, registered 1402. The
   * WG's fence 200: store leaves 2810, at the NIC 2912, matched 2922 and
   * fires: the put starts 100 ns earlier than a command arriving at c
   * would, so c = 2822. The receiver's WG polls from 2602 every 100 ns and
   * sees the flag (c + LEG = 3508.26) at 3602. */
  CU_ASSERT_EQUAL(ping_time("gputn"), 3602000);
}

static void test_ping_cpufree(void) {
  /* WG ends its compute at 2610; fence 200, the put-with-signal command
   * leaves 2810 and reaches the NIC at c = 2912; flag at 3598.26; the
   * receiver's poll sees it at 3602. */
  CU_ASSERT_EQUAL(ping_time("cpufree"), 3602000);
}

static void test_ping_ghn(void) {
  /* WG's request leaves 2810 after the fence, at the CPU 2912; the helper
   * polls every 1 us from 0: takes it at 3000, service 1000, command at
   * the NIC c = 4102; flag 4788.26; the receiver's poll sees it at
   * 2602 + 22 * 100 = 4802. */
  CU_ASSERT_EQUAL(ping_time("ghn"), 4802000);
}

/* The ping's time under POLICY with library LIB (nvshmem over
 * TRANSPORT), or an allreduce of 8 B on 2 ranks when ALLREDUCE. */
static int64_t step_latency; /* nccl_step_latency of lib_time's runs */
static int proto;          /* nccl_protocol of lib_time's runs (enum wl_nccl_proto) */
static int64_t reduce_latency; /* nvshmem_reduce_latency of lib_time's runs */
static int64_t stream_reduce_latency; /* nvshmem_on_stream_reduce_latency of lib_time's runs */

static sim_time lib_time(const char *policy, int lib, int transport, bool allreduce) {
  struct hw h;
  hw_nodes(&h, 2);
  struct comm_config comm;
  nr_comm(&comm, lib);
  comm.nvshmem_transport = transport;
  comm.mpi_eager_limit = INT64_MAX;
  comm.nccl_step_latency = step_latency;
  comm.nccl_protocol = proto;
  comm.nvshmem_reduce_latency = reduce_latency;
  comm.nvshmem_on_stream_reduce_latency = stream_reduce_latency;
  h.cfg.comm = &comm;
  struct ping_config cfg = {.size = 8, .wgs = 1, .flops_per_wg = 256, .bytes_per_wg = 0};
  struct wl_program *p;
  if (allreduce) {
    p = wl_program_new(2);
    struct wl_coll c = {.kind = WL_ALLREDUCE, .algo = WL_ALG_AUTO, .bytes = 8, .elem = 8,
                        .flops_per_elem = 1, .wgs = 0};
    for (uint32_t r = 0; r < 2; r++) wl_collective(p, r, &c);
  } else {
    p = wl_ping_program(&cfg);
  }
  struct sim_result r;
  char *err = NULL;
  sim_time t = run(p, policy, &h, &r, &err);
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  sim_result_clear(&r);
  wl_program_free(p);
  return t;
}

static void test_library_ping(void) {
  /* nvshmem over IBRC under cpufree: the WG's put goes to the proxy
   * thread as ghn's request does: 4802 ns (test_ping_ghn). */
  CU_ASSERT_EQUAL(lib_time("cpufree", COMM_NVSHMEM, COMM_IBRC, false), 4802000);
  CU_ASSERT_EQUAL(lib_time("cpufree", COMM_NVSHMEM, COMM_IBGDA, false), 3602000);
  /* nccl under hdn, the two ranks on different nodes: rank 0's compute
   * kernel as in test_ping_hdn, noticed at 4500; the send is an NCCL
   * kernel: submit 1000 (5500), at the GPU 5602, launched 7102; its WG's
   * fence 200: the request for the proxy thread leaves 7302, at the CPU
   * 7404; the proxy polls every 1 us: takes it at 8000, service 1000,
   * the command at the NIC c = 9102; the flag at c + LEG = 9788.26.
   * Rank 1's receive is an NCCL kernel too: submitted 1000, launched 2602,
   * its WG polls every 100 ns: sees the flag at 9802; teardown 1500 =
   * 11302, the completion at the CPU 11404, which polls every 500 from
   * 1000: 11500. */
  CU_ASSERT_EQUAL(lib_time("hdn", COMM_NCCL, COMM_IBGDA, false), 11500000);
  /* With a step latency of 1 us, the send's WG takes 1 us more: the
   * request reaches the CPU at 8404, the proxy takes it at 9000, the
   * command is at the NIC at 10102, the flag at 10788.26; the receiver's
   * WG sees it at 10802, ends, teardown 12302, completion at the CPU
   * 12404, noticed 12500. */
  step_latency = SIM_US;
  CU_ASSERT_EQUAL(lib_time("hdn", COMM_NCCL, COMM_IBGDA, false), 12500000);
  step_latency = 0;
}

static void test_library_allreduce(void) {
  /* 8 B on 2 ranks under cpufree (nvshmem: one dissemination round): each
   * rank's kernel launched at 2602, its WG posts the put after the fence
   * (2802, at the NIC c = 2904: flag at c + LEG = 3590.26) and polls its
   * own flag from 2802 every 100 ns: 3602 on both ranks. */
  CU_ASSERT_EQUAL(lib_time("cpufree", COMM_NVSHMEM, COMM_IBGDA, true), 3602000);
  /* Under hdn with nvshmem: the same round as one on-stream kernel per
   * rank, launched by the host (submit 1000, at the GPU 1102, launched
   * 2602), then as above the WG ends at 3602; teardown 1500 = 5102, the
   * completion at the CPU 5204, which polls every 500 from 1000: 5500. */
  CU_ASSERT_EQUAL(lib_time("hdn", COMM_NVSHMEM, COMM_IBGDA, true), 5500000);
  /* NVSHMEM's own time a reduction (hardware.comm.nvshmem_reduce_latency)
   * of 1 us: each rank's WG spends it before its round. Under cpufree the
   * WG computes from 2602 to 3602, fences to 3802, the put at the NIC
   * 3904, its flag at 4590.26; the WG polls from 3802 every 100 ns: 4602.
   * Under hdn the on-stream kernel's WG likewise ends at 4602, teardown
   * 1500 = 6102, the completion at the CPU 6204, noticed at 6500. */
  reduce_latency = SIM_US;
  CU_ASSERT_EQUAL(lib_time("cpufree", COMM_NVSHMEM, COMM_IBGDA, true), 4602000);
  CU_ASSERT_EQUAL(lib_time("hdn", COMM_NVSHMEM, COMM_IBGDA, true), 6500000);
  /* Not NCCL's: its run as above (8.5 us). */
  CU_ASSERT_EQUAL(lib_time("hdn", COMM_NCCL, COMM_IBGDA, true), 8500000);
  /* A call on a stream (hdn: nvshmemx_*_on_stream, a kernel of its own)
   * adds nvshmem_on_stream_reduce_latency, 2 us, to the 1 us; one called
   * inside the kernel (cpufree) does not: 4602 as above. Under hdn the
   * WG computes 3 us from 2602 to 5602, fences to 5802, the put at the
   * NIC 5904, its flag at 6590.26; polling from 5802 every 100 ns the WG
   * sees it at 6602; teardown 1500 = 8102, the completion at the CPU
   * 8204, noticed at 8500. */
  stream_reduce_latency = 2 * SIM_US;
  CU_ASSERT_EQUAL(lib_time("cpufree", COMM_NVSHMEM, COMM_IBGDA, true), 4602000);
  CU_ASSERT_EQUAL(lib_time("hdn", COMM_NVSHMEM, COMM_IBGDA, true), 8500000);
  stream_reduce_latency = 0;
  reduce_latency = 0;
  /* Under hdn with nccl, the 2 ranks on different nodes: NCCL's tuner
   * (coll.h, wl_nccl_time) takes the ring in LL (Ring/LL 12.7 us against
   * Tree/LL 14.4 us on 2 ranks of 2 nodes), 16 B on the wire for the
   * 8 B, no fence. One kernel per rank launched at 2602; each sends its
   * reduce-scatter step at once: the request for the proxy at the CPU
   * 2704, taken at the proxy's poll 3000, service 1000, the command at
   * the NIC c = 4102, the flag at the peer at c + LEG16 (LEG with 8 B
   * more: 0.25 DMA, 0.64 on the wire, 0.25 written) = 4789.4. Each WG
   * polls from 2602 every 100 ns: sees it at 4802, sends its allgather
   * step: at the CPU 4904, taken 5000, at the NIC 6102, its flag 6789.4,
   * seen 6802; teardown 1500 = 8302, the completion at the CPU 8404,
   * noticed at 8500 (polls every 500 from 1000). */
  CU_ASSERT_EQUAL(lib_time("hdn", COMM_NCCL, COMM_IBGDA, true), 8500000);
  /* Forced to Simple (NCCL_PROTO=Simple): the same ring, 8 B, each step
   * fenced (200). The first request leaves at 2802, at the CPU 2904:
   * still taken at 3000. The second leaves at 5002, at the CPU 5104:
   * taken at 6000, a poll later: 9500. */
  proto = WL_PROTO_SIMPLE;
  CU_ASSERT_EQUAL(lib_time("hdn", COMM_NCCL, COMM_IBGDA, true), 9500000);
  proto = WL_PROTO_AUTO;
  /* Under gputn: MPICH's recursive doubling, one round of triggered puts
   * (test_ping_gputn): each kernel launched at 2602, the registration at
   * the NIC registered at 1402; the WG's fence 200: its trigger store leaves 2802, at
   * the NIC 2904, matched 2914 and fires as a command at c = 2814 would:
   * the flag at c + LEG = 3500.26; the WG polls from 2802 every 100 ns:
   * sees it at 3502 on both ranks (done: the last WG's end). */
  CU_ASSERT_EQUAL(lib_time("gputn", COMM_GPUTN, COMM_IBGDA, true), 3502000);
}

/* The ping as graph ranks with a quiet after the put (when QUIET) and a
 * calc of 1 us after that, under POLICY. */
static sim_time quiet_time(const char *policy, bool quiet) {
  struct hw h;
  hw_nodes(&h, 2);
  struct wl_program *p = wl_program_new(2);
  wl_graph(p, 0);
  wl_graph(p, 1);
  wl_compute(p, 0, 1, 256, 0);
  wl_send(p, 0, 1, 8, 0);
  p->ranks[0].ops[1].one_sided = 1;
  wl_requires(p, 0, 1, 0);
  if (quiet) {
    wl_quiet(p, 0);
    wl_requires(p, 0, 2, 1);
  }
  wl_calc(p, 0, SIM_US, WL_ON_ANY);
  wl_requires(p, 0, wl_last(p, 0), wl_last(p, 0) - 1);
  wl_recv(p, 1, 0, 8, 0);
  p->ranks[1].ops[0].one_sided = 1;
  struct sim_result r;
  char *err = NULL;
  sim_time t = run(p, policy, &h, &r, &err);
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  if (quiet) CU_ASSERT_EQUAL(sim_report_find(&r.counters, "node1.nic.packets_sent")->i, 1);
  sim_result_clear(&r);
  wl_program_free(p);
  return t;
}

static void test_quiet(void) {
  /* cpufree: as test_ping_cpufree the put's command reaches the NIC at c
   * = 2912 and its packet is whole at the target NIC at c + 586.01; the
   * target's NIC then acknowledges it: a header-only packet (64 B, 5.12
   * ns) over link, switch and link (300 ns), whole at the initiator at c +
   * 891.13, whose NIC writes the quiet's flag across the bus (100 + 2 ns):
   * c + 993.13 = 3905.13. The WG polls from 2810 (after posting the put)
   * every 100 ns: 3910, then the calc's 1 us: 4910 ns, after the receiver
   * (3602). Without the quiet the calc runs from 2810: 3810 ns. */
  CU_ASSERT_EQUAL(quiet_time("cpufree", true), 4910000);
  CU_ASSERT_EQUAL(quiet_time("cpufree", false), 3810000);
  /* Under hdn the host waits for the ACK before the calc's kernel. */
  CU_ASSERT(quiet_time("hdn", true) > quiet_time("hdn", false));
}

static void test_ghn_needs_a_helper(void) {
  struct hw h;
  hw_nodes(&h, 2);
  h.cpu.helper_threads = 0;
  struct ping_config cfg = {.size = 8, .wgs = 1, .flops_per_wg = 256};
  struct wl_program *p = wl_ping_program(&cfg);
  struct sim_result r;
  char *err = NULL;
  CU_ASSERT_EQUAL(run(p, "ghn", &h, &r, &err), -1);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "helper_threads: expected at least 1"));
  g_free(err);
  sim_result_clear(&r);
  wl_program_free(p);
}

static void test_allreduce_ring_shape(void) {
  /* 4 ranks, 1 MiB of 4 B elements, 8 WGs: chunks of 65536 elements
   * (256 KiB), 8192 per WG: 3 reduce-scatter steps with a reduction of
   * 8192 flops and 98304 B per WG, then 3 allgather steps. */
  struct allreduce_config c = {.size = 1 << 20, .elem = 4, .wgs = 8,
                               .granularity = AR_WORK_GROUP, .mixed_wgs = 2, .wg_items = 64,
                               .flops_per_elem = 1};
  char *err = NULL;
  struct wl_program *call = wl_allreduce_program(&c, 4, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(call);
  /* One collective op a rank, which GPU-TN's library writes out. */
  CU_ASSERT_EQUAL(call->ranks[0].n_ops, 1);
  CU_ASSERT_EQUAL(call->ranks[0].ops[0].kind, WL_COLL);
  struct wl_program *p = wl_expand_colls(call, WL_LIB_GPUTN, WL_LIB_OPTS(1, 1));
  wl_program_free(call);
  CU_ASSERT_TRUE(wl_program_check(p, &err));
  /* Written once: loop(3){send, recv, reduce} loop(3){send, recv}, a
   * flag per piece of each receive as written (a flag counts arrivals). */
  for (uint32_t r = 0; r < 4; r++) {
    CU_ASSERT_EQUAL(wl_count(p, r, WL_LOOP), 2);
    CU_ASSERT_EQUAL(wl_count(p, r, WL_SEND), 2);
    CU_ASSERT_EQUAL(wl_count(p, r, WL_RECV), 2);
    CU_ASSERT_EQUAL(wl_count(p, r, WL_COMPUTE), 1);
    CU_ASSERT_EQUAL(p->ranks[r].n_flags, 2 * 8);
    CU_ASSERT_EQUAL(p->ranks[r].ops[0].count, 3);
  }
  CU_ASSERT_EQUAL(wl_unrolled_ops(p), 4 * 15);
  /* Written out: 6 steps of a send and a receive, 3 with a reduction. */
  struct wl_program *u = wl_unroll(p);
  CU_ASSERT_FALSE(wl_has_loops(u));
  CU_ASSERT_TRUE(wl_program_check(u, &err));
  for (uint32_t r = 0; r < 4; r++) {
    CU_ASSERT_EQUAL(wl_count(u, r, WL_SEND), 6);
    CU_ASSERT_EQUAL(wl_count(u, r, WL_RECV), 6);
    CU_ASSERT_EQUAL(wl_count(u, r, WL_COMPUTE), 3);
    CU_ASSERT_EQUAL(u->ranks[r].n_flags, 6 * 8); /* a flag per piece */
  }
  wl_program_free(u);
  const struct wl_op *o = &p->ranks[1].ops[1];
  CU_ASSERT_EQUAL(o->kind, WL_SEND);
  CU_ASSERT_EQUAL(o->peer, 2);
  CU_ASSERT_EQUAL(o->bytes, 262144);
  CU_ASSERT_EQUAL(o->parts, 8);
  const struct wl_op *red = &p->ranks[1].ops[3];
  CU_ASSERT_EQUAL(red->kind, WL_COMPUTE);
  CU_ASSERT_EQUAL(wl_kernel_of(p, red)->flops_per_wg, 8192);
  CU_ASSERT_EQUAL(wl_kernel_of(p, red)->bytes_per_wg, 98304);
  wl_program_free(p);
  /* Mixed: WGs per message must divide the WGs. */
  c.granularity = AR_MIXED;
  c.mixed_wgs = 3;
  CU_ASSERT_PTR_NULL(wl_allreduce_program(&c, 4, &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "mixed_wgs: expected a divisor of wgs = 8, got 3"));
  g_free(err);
}

/* Registrations and trigger stores of a gputn allreduce at granularity G. */
static void gputn_triggers(int g, int64_t *regs, int64_t *stores, sim_time *t) {
  struct hw h;
  hw_nodes(&h, 4);
  struct allreduce_config c = {.size = 1 << 20, .elem = 4, .wgs = 8, .granularity = g,
                               .mixed_wgs = 2, .wg_items = 64, .flops_per_elem = 1};
  char *err = NULL;
  struct wl_program *p = wl_allreduce_program(&c, 4, &err);
  struct sim_result r;
  *t = run(p, "gputn", &h, &r, &err);
  CU_ASSERT_TRUE(*t > 0);
  *regs = counter(&r, "node0.nic.registrations");
  *stores = counter(&r, "node0.nic.triggers_stored");
  sim_result_clear(&r);
  wl_program_free(p);
}

static void test_gputn_granularities(void) {
  /* 6 sends per rank, 8 WGs. Kernel: 1 put per send, each WG stores once:
   * 6 registrations, 48 stores. Work-group: 8 puts per send: 48 and 48.
   * Mixed, 2 WGs a put: 24 and 48. Work-item: 8 puts per send, 64 stores
   * per WG: 48 and 3072. */
  int64_t regs, stores;
  sim_time tk, twg, tmix, twi;
  gputn_triggers(AR_KERNEL, &regs, &stores, &tk);
  CU_ASSERT_EQUAL(regs, 6);
  CU_ASSERT_EQUAL(stores, 48);
  gputn_triggers(AR_WORK_GROUP, &regs, &stores, &twg);
  CU_ASSERT_EQUAL(regs, 48);
  CU_ASSERT_EQUAL(stores, 48);
  gputn_triggers(AR_MIXED, &regs, &stores, &tmix);
  CU_ASSERT_EQUAL(regs, 24);
  CU_ASSERT_EQUAL(stores, 48);
  gputn_triggers(AR_WORK_ITEM, &regs, &stores, &twi);
  CU_ASSERT_EQUAL(regs, 48);
  CU_ASSERT_EQUAL(stores, 3072);
  /* Work-item stores cost the NIC 64 matches per WG per send more than
   * work-group ones, for the same messages. */
  CU_ASSERT_TRUE(twi > twg);
}

/* The bytes rank 0's op 1 packs in all its WGs, 0 when it is no pack
 * phase (the faces go straight out); frees P. */
static int64_t pack_bytes(struct wl_program *p) {
  const struct wl_op *o = &p->ranks[0].ops[1];
  int64_t bytes = o->kind == WL_COMPUTE && o->pack ? o->n_wgs * wl_kernel_of(p, o)->bytes_per_wg : 0;
  wl_program_free(p);
  return bytes;
}

static void test_jacobi_halos(void) {
  /* 3 x 3 periodic ranks, 64 x 64 points in 16 x 16 tiles: 4 x 4 = 16 WGs.
   * Rank 4 (the middle) sends to 3, 5, 1, 7 (left, right, up, down), 64 *
   * 4 B each, made by the WGs of that edge: left = 0, 4, 8, 12. Its left
   * and right edges are columns (strided) and are packed first by one
   * kernel: 128 points, one WG of 256 work-items, each point read as a
   * whole 32 B sector and written as 4 B: 128 x 36 = 4608 B; the same
   * kernel unpacks after the receives. */
  struct jacobi2d_config c = {.grid = 64, .px = 3, .py = 3, .periodic = true,
                              .iterations = 2, .elem = 4, .flops_per_point = 5,
                              .bytes_per_point = 8, .wg_tile = 16, .compute = true};
  struct wl_program *p = wl_jacobi2d_program(&c);
  char *err = NULL;
  CU_ASSERT_TRUE_FATAL(wl_program_check(p, &err));
  const struct wl_rank *r = &p->ranks[4];
  CU_ASSERT_EQUAL(wl_count(p, 4, WL_SEND), 8);
  CU_ASSERT_EQUAL(wl_count(p, 4, WL_SYNC), 1);
  const struct wl_op *o = &r->ops[0];
  CU_ASSERT_EQUAL(o->kind, WL_COMPUTE);
  CU_ASSERT_EQUAL(o->n_wgs, 16);
  CU_ASSERT_EQUAL(wl_kernel_of(p, o)->flops_per_wg, 256 * 5);
  const struct wl_op *pack = &r->ops[1], *unpack = &r->ops[10];
  CU_ASSERT_TRUE(pack->kind == WL_COMPUTE && pack->pack && unpack->kind == WL_COMPUTE &&
                 unpack->pack);
  CU_ASSERT_EQUAL(pack->n_wgs, 1);
  CU_ASSERT_EQUAL(wl_kernel_of(p, pack)->bytes_per_wg, 4608);
  CU_ASSERT_EQUAL(wl_kernel_of(p, pack)->kclass, KC_STREAM);
  CU_ASSERT_EQUAL(wl_kernel_of(p, unpack)->bytes_per_wg, 4608);
  const uint32_t peers[] = {3, 5, 1, 7};
  for (int d = 0; d < 4; d++) {
    CU_ASSERT_EQUAL(r->ops[2 + d].peer, peers[d]);
    CU_ASSERT_EQUAL(r->ops[2 + d].bytes, 256);
  }
  CU_ASSERT_EQUAL(r->ops[2].sel.first, 0);
  CU_ASSERT_EQUAL(r->ops[2].sel.stride, 4);
  CU_ASSERT_EQUAL(r->ops[2].sel.count, 4);
  wl_program_free(p);
  /* An open 1 x 2 grid: each rank has one neighbour, across a column:
   * packed (64 x 36 = 2304 B), then sent. */
  c.px = 2, c.py = 1, c.periodic = false, c.iterations = 1;
  p = wl_jacobi2d_program(&c);
  CU_ASSERT_EQUAL(wl_count(p, 0, WL_SEND), 1);
  CU_ASSERT_EQUAL(p->ranks[0].ops[2].peer, 1);
  CU_ASSERT_EQUAL(pack_bytes(p), 2304);
  /* pack: fused: the sweep writes the column itself. */
  c.pack = JACOBI_PACK_FUSED;
  CU_ASSERT_EQUAL(pack_bytes(wl_jacobi2d_program(&c)), 0);
  /* Split by rows (px = 1, the CPU-free reproduction): the faces are rows,
   * contiguous: no pack. */
  c.px = 1, c.py = 2, c.pack = JACOBI_PACK_KERNEL;
  CU_ASSERT_EQUAL(pack_bytes(wl_jacobi2d_program(&c)), 0);
  /* 3D, 8^3 points of 8 B split along y (py = 2): a y face is 8 rows of
   * nx = 8 points, 64 B apart from one z plane to the next: 8 runs of 64 B
   * (2 sectors each) read, 512 B written: 1024 B in one WG (32 x 32 work-
   * items). Split along z instead, the face is a whole plane: no pack. */
  struct jacobi3d_config c3 = {.nx = 8, .ny = 8, .nz = 8, .px = 1, .py = 2, .pz = 1,
                               .iterations = 1, .elem = 8, .flops_per_point = 7,
                               .bytes_per_point = 16, .wg_tile = 32, .compute = true};
  CU_ASSERT_EQUAL(pack_bytes(wl_jacobi3d_program(&c3)), 1024);
  c3.py = 1, c3.pz = 2;
  CU_ASSERT_EQUAL(pack_bytes(wl_jacobi3d_program(&c3)), 0);
}

/* The pack kernel of a strided halo: an open 2 x 1 grid of 64 x 64 points
 * of 4 B, so rank 0 sends its right column (64 points) to rank 1. The
 * pack is one WG (64 work-items of a 256-item WG) moving 64 x (32 B sector
 * read + 4 B written) = 2304 B; at a memory bandwidth of 8 Tbps (1 B/ps,
 * no latency, the kernel alone on the memory) it takes 2304 ps. Under hdn
 * a short kernel costs 4500 ns (test_cg_hdn: submit 1000, at the CPU 3204
 * ns + its work later, noticed at the host's next 500 ns poll: 4500 for
 * work up to 296 ns), so the pack and the unpack add 2 x 4500 ns to the
 * fused run (the peer's column, as much later, arrives in time); under
 * cpufree the WGs store the column themselves: no kernel, the same time
 * as fused. */
static void test_jacobi_pack_kernel(void) {
  struct jacobi2d_config c = {.grid = 64, .px = 2, .py = 1, .iterations = 1, .elem = 4,
                              .flops_per_point = 5, .bytes_per_point = 8, .wg_tile = 16,
                              .compute = true};
  struct hw h;
  hw_nodes(&h, 2);
  h.gpu.mem_bandwidth = 8000000000000;
  h.gpu.bw_share = GPU_BW_KERNEL;
  struct wl_program *p = wl_jacobi2d_program(&c);
  const struct wl_op *o = &p->ranks[0].ops[1];
  CU_ASSERT_TRUE_FATAL(o->kind == WL_COMPUTE && o->pack);
  struct kstep st = pol_compute_step(wl_kernel_of(p, o), o, 1);
  struct kernel k = {.n_wgs = o->n_wgs};
  CU_ASSERT_EQUAL(gpu_wg_time(&h.gpu, &k, &st, 0), 2304);
  sim_time t[2][2]; /* [policy hdn, cpufree][pack kernel, fused] */
  int64_t kernels[2] = {0, 0};
  char *err = NULL;
  for (int pol = 0; pol < 2; pol++)
    for (int f = 0; f < 2; f++) {
      c.pack = f ? JACOBI_PACK_FUSED : JACOBI_PACK_KERNEL;
      struct wl_program *q = wl_jacobi2d_program(&c);
      struct sim_result r;
      t[pol][f] = run(q, pol ? "cpufree" : "hdn", &h, &r, &err);
      if (err) fprintf(stderr, "%s\n", err);
      if (f == 0) kernels[pol] = counter(&r, "node0.gpu.kernels");
      sim_result_clear(&r);
      wl_program_free(q);
    }
  CU_ASSERT_EQUAL(kernels[0], 3); /* the sweep, the pack, the unpack */
  CU_ASSERT_EQUAL(t[0][0] - t[0][1], 2 * 4500 * NS);
  CU_ASSERT_EQUAL(kernels[1], 1);
  CU_ASSERT_EQUAL(t[1][0], t[1][1]);
  g_free(err);
  wl_program_free(p);
}

/* A ping-pong of 32-WG kernels (an 8 x 4 tiling: WG w at column w % 8,
 * row w / 8) whose halos are edges: rank 0 sends its right edge {7, 8, 4}
 * (WGs 7, 15, 23, 31) at 2 stores per WG and waits for the reply; rank 1
 * waits, computes and sends back its left edge {0, 8, 4} (WGs 0, 8, 16,
 * 24) at 3 stores per WG; rank 2 only computes. */
static struct wl_program *edge_pingpong(void) {
  struct wl_program *p = wl_program_new(3);
  wl_compute(p, 0, 32, 1000, 0);
  wl_send_parts(p, 0, 1, 64, 1, 1, 2);
  wl_select(p, 0, (struct wl_wgsel){7, 8, 4});
  wl_recv(p, 0, 1, 64, 2);
  wl_recv(p, 1, 0, 64, 1);
  wl_compute(p, 1, 32, 1000, 0);
  wl_send_parts(p, 1, 0, 64, 2, 1, 3);
  wl_select(p, 1, (struct wl_wgsel){0, 8, 4});
  wl_compute(p, 2, 32, 1000, 0);
  return p;
}

/* One-kernel policies size the kernel to residency: with more WGs than
 * slots, each WG does fold = ceil(wgs / slots) WGs' work, or up to twice
 * that when a larger fold keeps the edge selectors progressions; the
 * selectors fold with it. */
static void test_fold_keeps_edges(void) {
  struct fold_case {
    int64_t cus, wgs_per_cu;
    int64_t wgs;             /* the folded kernel's WGs (ranks 0 and 1) */
    int64_t wgs2;            /* rank 2's (no selectors) */
    int64_t stores0, stores1; /* trigger stores at node0's and node1's NIC */
  };
  /* 12 slots: fold ceil(32 / 12) = 3 would lose the edges (stride 8 is
   * neither <= 3 nor a multiple of 3: the image {2, 5, 7, 10} is no
   * progression, all 11 WGs would send); 4 keeps them: 8 WGs. Right edge
   * {7, 8, 4} -> {1, 2, 4}: 4 x 2 = 8 stores; left {0, 2, 4}: 4 x 3 = 12.
   * Rank 2 has no selectors: fold 3, ceil(32 / 3) = 11 WGs.
   * 16 slots: fold 2, 16 WGs; {3, 4, 4} and {0, 4, 4}: 8 and 12.
   * 32 slots: no fold, 32 WGs; the edges as given: 8 and 12.
   * 1 slot: fold 32, 1 WG; the image is WG 0 alone: it makes the whole
   * send, 2 and 3. With the selectors lost at 16 slots: 16 x 2 = 32 and
   * 16 x 3 = 48. */
  const struct fold_case cases[] = {
      {6, 2, 8, 11, 8, 12}, {4, 4, 16, 16, 8, 12}, {8, 4, 32, 32, 8, 12}, {1, 1, 1, 1, 2, 3}};
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    const struct fold_case *fc = &cases[i];
    struct hw h;
    hw_nodes(&h, 3);
    h.gpu.cus = fc->cus;
    h.gpu.wgs_per_cu = fc->wgs_per_cu;
    struct wl_program *p = edge_pingpong();
    struct sim_result r;
    char *err = NULL;
    CU_ASSERT_TRUE(run(p, "gputn", &h, &r, &err) > 0);
    if (err) fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL(counter(&r, "node0.gpu.wgs"), fc->wgs);
    CU_ASSERT_EQUAL(counter(&r, "node1.gpu.wgs"), fc->wgs);
    /* Rank 2 neither waits nor syncs, but its one kernel is the whole
     * program: persistent, sized to residency too. */
    CU_ASSERT_EQUAL(counter(&r, "node2.gpu.wgs"), fc->wgs2);
    CU_ASSERT_EQUAL(counter(&r, "node0.nic.triggers_stored"), fc->stores0);
    CU_ASSERT_EQUAL(counter(&r, "node1.nic.triggers_stored"), fc->stores1);
    /* One message per storing WG: stores / stores per WG. */
    CU_ASSERT_EQUAL(counter(&r, "node0.gpu.triggers"), fc->stores0 / 2);
    CU_ASSERT_EQUAL(counter(&r, "node1.gpu.triggers"), fc->stores1 / 3);
    /* The thresholds count the same selected WGs: each put fires. */
    CU_ASSERT_EQUAL(counter(&r, "node0.nic.ops_fired"), 1);
    CU_ASSERT_EQUAL(counter(&r, "node1.nic.ops_fired"), 1);
    CU_ASSERT_EQUAL(counter(&r, "node0.nic.entries_left"), 0);
    CU_ASSERT_EQUAL(counter(&r, "node1.nic.entries_left"), 0);
    g_free(err);
    sim_result_clear(&r);
    wl_program_free(p);

    /* cpufree: the last selected WG to arrive posts the put, once. */
    p = edge_pingpong();
    err = NULL;
    CU_ASSERT_TRUE(run(p, "cpufree", &h, &r, &err) > 0);
    if (err) fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL(counter(&r, "node0.gpu.wgs"), fc->wgs);
    CU_ASSERT_EQUAL(counter(&r, "node1.gpu.wgs"), fc->wgs);
    CU_ASSERT_EQUAL(counter(&r, "node0.gpu.nic_cmds"), 1);
    CU_ASSERT_EQUAL(counter(&r, "node1.gpu.nic_cmds"), 1);
    CU_ASSERT_EQUAL(counter(&r, "node0.nic.puts"), 1);
    CU_ASSERT_EQUAL(counter(&r, "node1.nic.puts"), 1);
    g_free(err);
    sim_result_clear(&r);
    wl_program_free(p);
  }
  /* The persistent kernel's registers set its residency: 8 CUs of 4 slots
   * (1024 items, 256-item WGs), 65536 registers; persistent_regs 128:
   * 65536 / (128 x 256) = 2 WGs per CU, 16 slots: the 16-slot case above
   * (16 WGs a rank). discrete_regs does not apply to it. */
  struct hw h;
  hw_nodes(&h, 3);
  h.gpu.cus = 8;
  h.gpu.wgs_per_cu = 4;
  h.gpu.wg_items = 256;
  h.gpu.items_per_cu = 1024;
  h.gpu.regs_per_cu = 65536;
  h.gpu.persistent_regs = 128;
  h.gpu.discrete_regs = 256;
  struct wl_program *p = edge_pingpong();
  struct sim_result r;
  char *err = NULL;
  CU_ASSERT_TRUE(run(p, "cpufree", &h, &r, &err) > 0);
  if (err) fprintf(stderr, "%s\n", err);
  CU_ASSERT_EQUAL(counter(&r, "node0.gpu.wgs"), 16);
  CU_ASSERT_EQUAL(counter(&r, "node2.gpu.wgs"), 16);
  CU_ASSERT_EQUAL(counter(&r, "node0.gpu.slots_max"), 16);
  g_free(err);
  sim_result_clear(&r);
  wl_program_free(p);
}

/* A selection whose stride is below the fold: 32 WGs folded by 3 (12
 * slots, as above) into 11; rank 0's send is made by WGs {0, 2, 4} = 0, 2,
 * 4, 6, which folded WGs 0 (originals 0-2), 1 (3-5) and 2 (6-8) cover.
 * The image {0, 0, 1, 2} = {0, 1, 2} is a progression (first 0, stride 1,
 * count 3), so by fold_sel's rule (kernel.c: all WGs only when the image
 * is not one) 3 WGs store, once each: 3 stores, not 11; the threshold
 * counts the same 3. Rank 1's reply is made by all 11: 11 stores. */
static void test_fold_small_stride(void) {
  struct hw h;
  hw_nodes(&h, 2);
  h.gpu.cus = 6;
  h.gpu.wgs_per_cu = 2;
  struct wl_program *p = wl_program_new(2);
  wl_compute(p, 0, 32, 1000, 0);
  wl_send(p, 0, 1, 64, 1);
  wl_select(p, 0, (struct wl_wgsel){0, 2, 4});
  wl_recv(p, 0, 1, 64, 2);
  wl_recv(p, 1, 0, 64, 1);
  wl_compute(p, 1, 32, 1000, 0);
  wl_send(p, 1, 0, 64, 2);
  struct sim_result r;
  char *err = NULL;
  CU_ASSERT_TRUE(run(p, "gputn", &h, &r, &err) > 0);
  if (err) fprintf(stderr, "%s\n", err);
  CU_ASSERT_EQUAL(counter(&r, "node0.gpu.wgs"), 11);
  CU_ASSERT_EQUAL(counter(&r, "node0.nic.triggers_stored"), 3);
  CU_ASSERT_EQUAL(counter(&r, "node0.gpu.triggers"), 3);
  CU_ASSERT_EQUAL(counter(&r, "node0.nic.ops_fired"), 1);
  CU_ASSERT_EQUAL(counter(&r, "node1.nic.triggers_stored"), 11);
  g_free(err);
  sim_result_clear(&r);
  wl_program_free(p);
}

/* A persistent kernel is sized to residency: 40 tiles of 1024 B, three
 * iterations with a sync between, on 2 CUs x 8 WGs of 256 items (16
 * slots): monolithic launches one kernel of ceil(40 / ceil(40 / 16)) = 14
 * WGs each looping over 3 tiles; each sync (no data crossed GPUs before
 * it) is a grid barrier: 2 device-wide barriers of 14 WGs, 1.75 us each
 * from the table "8:1us, 24:3us" (test_gpu derives such a loop's time).
 * With 48 slots: 40 WGs of one tile, barriers of 1 + (40 - 8) / 16 x 2 =
 * 5 us clamped to the last point, 3 us. */
static void test_persistent_residency(void) {
  for (int wpc = 8; wpc <= 24; wpc += 16) {
    struct hw h;
    hw_nodes(&h, 1);
    h.gpu.cus = 2;
    h.gpu.wgs_per_cu = wpc;
    h.gpu.items_per_cu = 256 * wpc;
    char *err = NULL;
    for (size_t i = 0; i < gpu_params.n_decls; i++)
      if (strcmp(gpu_params.decls[i].key, "barrier_table") == 0)
        CU_ASSERT_TRUE(par_set(&gpu_params.decls[i], &h.gpu, "8:1us, 24:3us", &err));
    struct wl_program *p = wl_program_new(1);
    for (int it = 0; it < 3; it++) {
      if (it) wl_sync(p, 0);
      wl_compute(p, 0, 40, 0, 1024);
      wl_kclass(p, 0, KC_STENCIL, 40 * 1024, 0, 0);
    }
    struct sim_result r;
    CU_ASSERT_TRUE(run(p, "monolithic", &h, &r, &err) > 0);
    if (err) fprintf(stderr, "%s\n", err);
    CU_ASSERT_EQUAL(counter(&r, "node0.gpu.wgs"), wpc == 8 ? 14 : 40);
    CU_ASSERT_EQUAL(counter(&r, "node0.gpu.barriers"), 2);
    CU_ASSERT_EQUAL(counter(&r, "node0.gpu.barrier_time"), wpc == 8 ? 7 * US / 2 : 6 * US);
    g_free(err);
    sim_result_clear(&r);
    wl_program_free(p);
  }
}

static void test_unmatched_send_is_an_error(void) {
  struct wl_program *p = wl_program_new(2);
  wl_send(p, 0, 1, 100, 7);
  wl_recv(p, 1, 0, 100, 8);
  char *err = NULL;
  CU_ASSERT_FALSE(wl_program_check(p, &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "rank 0 op 0: expected a receive of 100 B"));
  g_free(err);
  wl_program_free(p);
}

static void test_deadlock_is_an_error(void) {
  /* Each rank waits for the other's message before sending its own: the
   * program matches, but no host ever gets past its receive. */
  struct hw h;
  hw_nodes(&h, 2);
  struct wl_program *p = wl_program_new(2);
  wl_recv(p, 0, 1, 8, 1);
  wl_send(p, 0, 1, 8, 2);
  wl_recv(p, 1, 0, 8, 2);
  wl_send(p, 1, 0, 8, 1);
  struct sim_result r;
  char *err = NULL;
  CU_ASSERT_EQUAL(run(p, "hdn", &h, &r, &err), -1);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "policy hdn: the model deadlocked: rank 0 never finished"));
  g_free(err);
  sim_result_clear(&r);
  wl_program_free(p);
}

/* One standard CG iteration on the 1D Poisson matrix of 8 rows over 2 ranks
 * (rows 0-3 and 4-7: 11 non-zeros each, a halo of one entry each way), on
 * the defaults with a memory bandwidth of 8 Tbps (1 B/ps), bw_share kernel
 * and a flop rate that makes flops negligible (1 ps): one 1024-row WG per
 * op, SpMV 12 * 11 + 20 * 4 = 212 ps plus its gathers of x beyond one per
 * row, 8 * (11 - 4) = 56 ps (no L2: from memory): 268 ps, a dot 16 * 4 =
 * 64 ps, an AXPY 96 ps; each dot after its reset kernel (1 thread zeroing
 * 8 B: 8 ps), which the one-kernel lowerings drop (wl_pack). */
static sim_time cg_time_of(const char *policy, uint32_t ranks, int code) {
  struct hw h;
  hw_nodes(&h, ranks);
  h.gpu.mem_bandwidth = 8000000000000;
  h.gpu.bw_share = GPU_BW_KERNEL;
  h.gpu.flops_per_cu_cycle = 1048576;
  struct sp_matrix *m = sp_matrix_poisson(1, 8);
  char *err = NULL;
  struct sp_part *part = sp_partition(m, ranks, SP_BLOCKS, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(part);
  struct cg_config c = {.variant = CG_STANDARD, .rows_per_wg = 1024, .code = code};
  struct wl_program *p = wl_cg_program(&c, part, NULL, 1);
  struct sim_result r;
  sim_time t = run(p, policy, &h, &r, &err);
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  sim_result_clear(&r);
  wl_program_free(p);
  sp_part_free(part);
  sp_matrix_free(m);
  return t;
}

static sim_time cg_time(const char *policy) { return cg_time_of(policy, 2, CG_ICS23); }

/* The iteration is the CPU-free code's as its runtime logs ran it
 * (workloads/kinds/cg.c): halo, SpMV, 2 grid syncs, dot, sync, allreduce,
 * sync, 2 AXPYs, sync, dot, sync, allreduce, barrier, sync, AXPY, barrier,
 * sync: 8 syncs, 2 barriers (one dissemination round of a zero-byte
 * message on 2 ranks, sent and waited for by WG 0), 2 allreduces. */
static void test_cg_cpufree(void) {
  /* One persistent kernel per rank, launched at 1102 + 1500 = 2602 (ns).
   * Halo put: fence 200, at the NIC c = 2802 + 102 = 2904, the peer's flag
   * at c + LEG = 3590.26; the WG polls from 2802 every 100: 3602. SpMV:
   * 3602.268. A barrier from t: fence 200, bus 102, command 100, a 64 B
   * header over link, switch, link 305.12, a zero-byte write 100: the
   * peer's flag at t + 807.12, seen by WG 0 polling from t + 200: t + 900.
   * A grid barrier over the persistent grid at residency (cus x
 * wgs_per_cu = 24 x 4 = 96 WGs, policy_cpufree.c), B(n) = 1000 + 10 n
 * for n WGs still to come (gpu.h): the 95 WGs without work arrive as soon
 * as they are released (the first time at the launch), theirs due B(96) =
 * 1960 later; WG 0, with the work, arrives last and pays B(1) = 1010; the
 * later of the two releases. An allreduce from t: flag at t + 302 + LEG,
 * seen at t + 1000.
 *   grid: max(2602 + 1960, 3602.268 + 1010) = 4612.268; grid (all at
 *   once) 6572.268; dot (0.064), grid: max(6572.268 + 1960, 6572.332 +
 *   1010) = 8532.268; allreduce 9532.268, grid max(8532.268 + 1960,
 *   9532.268 + 1010) = 10542.268; 2 AXPYs (0.096 each), grid 10542.268 +
 *   1960 = 12502.268; dot, grid 14462.268; allreduce 15462.268, barrier
 *   16362.268, grid 16362.268 + 1010 = 17372.268; AXPY 17372.364,
 *   barrier 18272.364, grid max(17372.268 + 1960, 18272.364 + 1010) =
 *   19332.268. */
  CU_ASSERT_EQUAL(cg_time("cpufree"), 19332268);
}

static void test_cg_hdn(void) {
  /* Halo: build 200 + send 1000, c = 1302, the peer's flag at 1988.26,
   * seen by the polling host at once. A kernel costs 4500 when its work is
   * < 398 ps: submit 1000; done at the CPU 102 + 1500 + work + 1500 + 102
   * later, noticed at the next 500 ns poll tick: 3500 after the submit.
   * Syncs cost nothing more (each kernel ends before the host goes on). A
   * barrier: the zero-byte put's flag 1302 + 100 + 305.12 + 100.25 =
   * 1807.37 after the host starts it; an allreduce's 1988.26.
   *   SpMV 6488.26, reset + dot 15488.26, allreduce 17476.52, 2 AXPYs
   *   26476.52, reset + dot 35476.52, allreduce 37464.78, barrier
   *   39272.15, AXPY 43772.15, barrier 45579.52 (each dot's reset: one
   *   more kernel, 4500).
   * hdn2s pays recv 500 on each of the 5 receives: 48079.52. */
  CU_ASSERT_EQUAL(cg_time("hdn"), 45579520);
  CU_ASSERT_EQUAL(cg_time("hdn2s"), 48079520);
}

/* How an SpMV is walked (wl_spmv): a library call where it is a kernel of
 * its own, one row per work-item inside a fused kernel. The GPU of
 * test_gpu.c's L1 test (nr_spmv_gpu): 2 CUs, 256-item WGs, 512 items per
 * CU; 65536 registers, a persistent kernel at 256 a work-item holds 1 WG
 * per CU, a discrete one at 64 holds 2; memory 8.192 Tbps, L2 16.384
 * Tbps, no latency; L1 64 KiB, 128 B lines, 32 B sectors. The op: 4 WGs
 * of 256 rows of 32 non-zeros, 104448 B a WG as written (rows stretched to
 * the longest, here by 2: the row-balanced form moves 52224 B, an
 * in-kernel merge-path one 26112 B more).
 * - Row per work-item, launched (2 WGs per CU, R = 4): 920 ns (test_gpu:
 *   408 ns streamed + 512 ns of L1 misses re-read from L2); fused into a
 *   persistent kernel (1 WG per CU, R = 2; 256 x 256 B of lines fit the
 *   L1): 104448 x 8 x 2 / 8.192e12 = 204 ns.
 * - Coalesced (no row footprint, not stretched), launched (the library's):
 *   52224 x 8 x 4 / 8.192e12 = 204 ns; fused (merge-path): 78336 x 8 x 2
 *   / 8.192e12 = 153 ns.
 * Through the policies, one rank: hdn launches the op (4 WGs, one wave):
 * submit 1000, then bus 102 + launch 1500 + the WG + teardown 1500 + bus
 * 102, noticed at the host's next 500 ns poll: row 5124 -> 5500 ns,
 * library and merge 4408 -> 4500 ns (test_cg_hdn's kernel cost); cpufree
 * folds the 4 WGs onto its 2 resident ones (2 WGs' work each), so library
 * runs as row (the fused kernel cannot call it) and merge is 2 x (204 -
 * 153) = 102 ns faster. */
static struct wl_program *spmv_program(uint8_t alg) {
  struct wl_program *p = wl_program_new(1);
  wl_compute(p, 0, 4, 2 * 8192, 104448);
  wl_kclass(p, 0, KC_SPMV, 0, 0, 0);
  wl_spmv_rows(p, 0, 256, 8192);
  wl_spmv_alg(p, 0, alg, 2 * 8192 / 2, 104448 / 2, 0, 26112);
  return p;
}

static void test_spmv_algorithms(void) {
  struct hw h;
  hw_nodes(&h, 1);
  nr_spmv_gpu(&h.gpu);
  const struct kernel pers = {.n_wgs = 2, .persistent = true}, disc = {.n_wgs = 4};
  sim_time launched[3], fused[3], t_hdn[3], t_free[3];
  for (uint8_t alg = WL_SPMV_ROW; alg <= WL_SPMV_MERGE; alg++) {
    struct wl_program *p = spmv_program(alg);
    const struct wl_op *o = &p->ranks[0].ops[0];
    const struct wl_kernel *k = wl_kernel_of(p, o);
    struct kstep l = pol_launch_step(k, o), f = pol_compute_step(k, o, 1);
    launched[alg] = gpu_wg_time(&h.gpu, &disc, &l, 0);
    fused[alg] = gpu_wg_time(&h.gpu, &pers, &f, 0);
    char *err = NULL;
    struct sim_result r;
    t_hdn[alg] = run(p, "hdn", &h, &r, &err);
    sim_result_clear(&r);
    t_free[alg] = run(p, "cpufree", &h, &r, &err);
    sim_result_clear(&r);
    if (err) fprintf(stderr, "%s\n", err);
    g_free(err);
    wl_program_free(p);
  }
  CU_ASSERT_EQUAL(launched[WL_SPMV_ROW], 920 * NS);
  CU_ASSERT_EQUAL(launched[WL_SPMV_LIBRARY], 204 * NS);
  CU_ASSERT_EQUAL(launched[WL_SPMV_MERGE], 204 * NS);
  CU_ASSERT_EQUAL(fused[WL_SPMV_ROW], 204 * NS);
  CU_ASSERT_EQUAL(fused[WL_SPMV_LIBRARY], 204 * NS);
  CU_ASSERT_EQUAL(fused[WL_SPMV_MERGE], 153 * NS);
  CU_ASSERT_TRUE(t_hdn[WL_SPMV_ROW] > 0 && t_free[WL_SPMV_ROW] > 0);
  CU_ASSERT_EQUAL(t_hdn[WL_SPMV_ROW], 5500 * NS);
  CU_ASSERT_EQUAL(t_hdn[WL_SPMV_LIBRARY], 4500 * NS);
  CU_ASSERT_EQUAL(t_hdn[WL_SPMV_LIBRARY], t_hdn[WL_SPMV_MERGE]);
  CU_ASSERT_EQUAL(t_free[WL_SPMV_ROW], t_free[WL_SPMV_LIBRARY]);
  CU_ASSERT_EQUAL(t_free[WL_SPMV_ROW] - t_free[WL_SPMV_MERGE], 102 * NS);
}

/* The cg workload's SpMV (cg.c): written as row per work-item, with its
 * row-balanced form beside it. A banded matrix of 4096 rows of 7 (the
 * band's edges cut 2 x (3 + 2 + 1) = 12: 28660 non-zeros) on one rank in
 * 1024-row WGs: 4 WGs, ceil(28660 / 4) = 7165 non-zeros a WG, 2 flops and
 * 12 B each plus 20 B a row: 14330 flops, 85980 + 20480 = 106460 B, and 8 x (7165 - 1024)
 * = 49128 B of x gathered beyond one a row, in both forms (no GPU given:
 * no stretch); a merge-path SpMV moves 16 x 1024 + ceil(4 x (1024 + 7165)
 * / 6) = 16384 + 5460 = 21844 B more (y zeroed and updated atomically,
 * start rows). */
static void test_cg_spmv_forms(void) {
  struct sp_part *part = sp_partition_banded(4096, 7, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(part);
  CU_ASSERT_EQUAL(part->ranks[0].nnz, 28660);
  for (int alg = WL_SPMV_ROW; alg <= WL_SPMV_MERGE; alg++) {
    struct cg_config c = {.variant = CG_PIPELINED, .rows_per_wg = 1024, .spmv = alg};
    struct wl_program *p = wl_cg_program(&c, part, NULL, 1);
    const struct wl_op *sp = NULL;
    for (size_t i = 0; i < p->ranks[0].n_ops; i++)
      if (p->ranks[0].ops[i].kind == WL_COMPUTE &&
          wl_kernel_of(p, &p->ranks[0].ops[i])->kclass == KC_SPMV)
        sp = &p->ranks[0].ops[i];
    CU_ASSERT_PTR_NOT_NULL_FATAL(sp);
    const struct wl_kernel *k = wl_kernel_of(p, sp);
    CU_ASSERT_EQUAL(k->spmv, alg);
    CU_ASSERT_EQUAL(sp->n_wgs, 4);
    CU_ASSERT_EQUAL(k->rows_per_wg, 1024);
    CU_ASSERT_EQUAL(k->nnz_per_wg, 7165);
    CU_ASSERT_EQUAL(k->bytes_per_wg, 106460);
    CU_ASSERT_EQUAL(k->bal_bytes_per_wg, 106460);
    CU_ASSERT_EQUAL(k->bal_flops_per_wg, 14330);
    CU_ASSERT_EQUAL(k->bal_reuse_per_wg, 49128);
    CU_ASSERT_EQUAL(k->merge_extra_per_wg, 21844);
    struct kstep l = pol_launch_step(k, sp);
    CU_ASSERT_EQUAL(l.rows, alg == WL_SPMV_ROW ? 1024 : 0);
    wl_program_free(p);
  }
  sp_part_free(part);
}

/* workload.spmv takes row, library or merge; anything else exits 2 naming
 * the key and its place (line 2, column 70: the value). */
static void test_cg_spmv_bad_value(void) {
  const char *text = "policies: [hdn]\n"
                     "workload: {kind: cg, source: banded, rows: 64, nnz_per_row: 7, spmv: vector}\n";
  char *sc = tu_temp_file(".yaml", text, strlen(text)), *out = NULL, *err = NULL;
  const char *argv[] = {"run", sc, NULL};
  CU_ASSERT_EQUAL(tu_trigsim(argv, &out, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, ":2:70: workload.spmv: expected one of row, library, "
                                            "merge, got vector"));
  if (err && !strstr(err, "workload.spmv")) fprintf(stderr, "%s\n", err);
  CU_ASSERT_PTR_NOT_NULL(out && !out[0] ? out : NULL);
  g_free(out);
  g_free(err);
  g_free(sc);
}

/* 3 CG iterations of VARIANT and CODE under POLICY on PART: the time, and
 * node 0's grid barriers and NIC commands per iteration in *BARRIERS and
 * *CMDS. Code acg gets the GPU model, its same-address atomics at
 * ATOMIC_PS (its dots' phases; 0: none); code ics23 none. */
static sim_time cg_counts(const struct sp_part *part, const char *policy, int variant, int code,
                          sim_time atomic_ps, int64_t *barriers, int64_t *cmds) {
  struct hw h;
  hw_nodes(&h, 2);
  h.gpu.atomic_same_address = atomic_ps;
  /* a grid barrier of the same cost whatever the WGs still to come: the WG
   * with the work arrives last and sets each release (gpu.h), so what it
   * does shows in full */
  h.gpu.barrier_per_wg = 0;
  struct cg_config c = {.variant = variant, .rows_per_wg = 1024, .code = code};
  struct wl_program *p = wl_cg_program(&c, part, code == CG_ACG ? &h.gpu : NULL, 3);
  struct sim_result r;
  sim_time t = run_printed(p, policy, &h, &r);
  CU_ASSERT_TRUE(t > 0);
  *barriers = counter(&r, "node0.gpu.barriers") / 3;
  *cmds = counter(&r, "node0.gpu.nic_cmds") / 3;
  sim_result_clear(&r);
  wl_program_free(p);
  return t;
}

/* Grid barriers (node.gpu.barriers) per CG iteration, 3 iterations on the
 * 1D Poisson matrix of 8 rows over 2 ranks: cpufree runs the CPU-free
 * code's 8 (standard: CG/src_nvshmem/baseline/persistent-standard-nvshmem.cu,
 * BaselinePersistentStandardNVSHMEM::multiGpuConjugateGradient) and 5
 * (pipelined: CG/src_nvshmem/single-stream/pipelined-nvshmem.cu,
 * SingleStreamPipelinedNVSHMEM::multiGpuConjugateGradient) cg::sync(grid)
 * per iteration, and its nvshmem_barrier_all() (2 and 2, as the runtime
 * logs ran it, 8c7e4ee: one dissemination round each on 2 ranks, a put by
 * WG 0); its NIC commands per iteration: standard 1 halo + 2 allreduce + 2
 * barrier puts = 5, pipelined 1 + 1 + 2 = 4. monolithic (data free) turns
 * the syncs that follow a receive into grid + dissemination + grid:
 * standard 4 of 8 (after the SpMV's halo, the first reduction, the second
 * reduction's barrier, the update's barrier): 4 x 2 + 4 = 12 grid
 * barriers and 4 rounds; pipelined 2 of 5: 7 and 2.
 * aCG's kernel (code acg) under cpufree: grid barriers 10 (standard) and
 * 8 (pipelined) an iteration, NIC commands 1 halo put + 1 readytoreceive
 * signal + 2 reductions (one dissemination round each on 2 ranks) = 4 and
 * 1 + 1 + 1 = 3 (the CPU-free code's: 8 and 5 barriers, 5 and 4 commands,
 * its 2 and 2 nvshmem_barrier_all). The atomics: each dot's phase is the grid's warps
 * times gpu.atomic_same_address: one 1024-row WG (8 rows fit one), 32
 * warps, x 1 ns = 32 ns; two dots an iteration: 64 ns over 3 iterations =
 * 192 ns more than with free atomics (the ranks are symmetric: no wait
 * absorbs it; the grid barrier costs the same for any number of WGs
 * still to come, so the idle WGs' early arrivals do not either). */
static void test_cg_barriers_per_iteration(void) {
  struct sp_matrix *m = sp_matrix_poisson(1, 8);
  char *err = NULL;
  struct sp_part *part = sp_partition(m, 2, SP_BLOCKS, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(part);
  static const struct {
    int variant, code;
    const char *policy;
    int64_t barriers, cmds;
  } want[] = {{CG_STANDARD, CG_ICS23, "cpufree", 8, 5}, {CG_PIPELINED, CG_ICS23, "cpufree", 5, 4},
              {CG_STANDARD, CG_ICS23, "monolithic", 12, 4},
              {CG_PIPELINED, CG_ICS23, "monolithic", 7, 2}, {CG_STANDARD, CG_ACG, "cpufree", 10, 4},
              {CG_PIPELINED, CG_ACG, "cpufree", 8, 3}};
  for (size_t i = 0; i < G_N_ELEMENTS(want); i++) {
    int64_t b, c;
    sim_time t = cg_counts(part, want[i].policy, want[i].variant, want[i].code, 0, &b, &c);
    CU_ASSERT_EQUAL(b, want[i].barriers);
    CU_ASSERT_EQUAL(c, want[i].cmds);
    if (want[i].code == CG_ACG) /* the dots' atomics at 1 ns */
      CU_ASSERT_EQUAL(cg_counts(part, "cpufree", want[i].variant, CG_ACG, 1000, &b, &c) - t, 192000);
  }
  g_free(err);
  sp_part_free(part);
  sp_matrix_free(m);
}

/* Ops of one aCG iteration (workload.code acg, workloads/kinds/cg.c) on the 1D
 * Poisson matrix of 8 rows over RANKS ranks, in its FUSED form (its
 * monolithic kernel) or its discrete one, counted by kind: syncs,
 * collectives, halo sends and receives, atomic phases (computes with a
 * time of their own), pack phases (wl_op.pack), computes in all. */
struct acg_count {
  int64_t syncs, colls, sends, recvs, atomics, packs, computes;
};

static struct acg_count acg_ops(uint32_t ranks, int variant, bool fused) {
  struct hw h;
  hw_nodes(&h, ranks);
  h.gpu.atomic_same_address = 1000;
  struct sp_matrix *m = sp_matrix_poisson(1, 8);
  char *err = NULL;
  struct sp_part *part = sp_partition(m, ranks, SP_BLOCKS, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(part);
  struct cg_config c = {.variant = variant, .rows_per_wg = 1024, .code = CG_ACG};
  struct wl_program *p = wl_cg_program(&c, part, &h.gpu, 1);
  struct acg_count n = {0};
  const struct wl_rank *r = &p->ranks[0];
  uint8_t form = fused ? WL_FORM_FUSED : WL_FORM_DISCRETE;
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    if (o->form != WL_FORM_ANY && o->form != form) continue; /* the other form's */
    n.syncs += o->kind == WL_SYNC;
    n.colls += o->kind == WL_COLL;
    n.sends += o->kind == WL_SEND;
    n.recvs += o->kind == WL_RECV;
    n.computes += o->kind == WL_COMPUTE;
    n.atomics += o->kind == WL_COMPUTE && o->time_ps > 0;
    n.packs += o->kind == WL_COMPUTE && o->pack;
  }
  wl_program_free(p);
  sp_part_free(part);
  sp_matrix_free(m);
  g_free(err);
  return n;
}

/* Counted from ParCoreLab/aCG acg/cg-kernels-cuda.cu and acg/cgcuda.c:
 * - acgsolvercuda_cg_kernel's loop (standard, fused), 2 GPUs: 10
 *   cg::sync(grid) (2 around the scalars' reset, 3 in the halo: before
 *   and after nvshmem_quiet, after the unpack; 1 after the border SpMV, 1
 *   after each ddot, 1 after each nvshmem_double_sum_reduce), 2 reductions,
 *   no nvshmem_barrier_all, one halo put and wait; computes: dzero, pack,
 *   merge SpMV, unpack, border SpMV, ddot + its atomics, 2 AXPYs, ddot +
 *   atomics, AYPX = 12; 2 sends and 2 receives: the halo, and the
 *   readytoreceive signal back after the unpack. One GPU: 5 syncs (the
 *   halo's 3 and the reductions' 2 go), computes 12 - 3 = 9, no reduction.
 * - acgsolvercuda_cg_pipelined_preconditioned_kernel's loop (Jacobi off),
 *   2 GPUs: 8 syncs (reset, after the dots, after the reduction, the halo's
 *   3, after the border SpMV, after the update), 1 reduction of 2 doubles,
 *   the halo and its signal back;
 *   computes: 2 x (ddot + atomics), 2 dzero, pack, SpMV, unpack, border,
 *   update = 11. One GPU: 5 syncs, 8 computes.
 * - acgsolvercuda_solvempi's loop (host-driven, 2 GPUs): pack and unpack
 *   kernels (pack phases), local and border SpMVs, 2 cublasDdot (no
 *   atomics), 3 AXPY kernels = 9 computes, 2 allreduces, no barrier; 5
 *   syncs (kernel boundaries where the next phase reads the last's). */
static void test_cg_acg_structure(void) {
  static const struct {
    uint32_t ranks;
    int variant;
    bool fused;
    struct acg_count want;
  } cases[] = {
      {2, CG_STANDARD, true, {10, 2, 2, 2, 2, 0, 12}},
      {1, CG_STANDARD, true, {5, 0, 0, 0, 2, 0, 9}},
      {2, CG_PIPELINED, true, {8, 1, 2, 2, 2, 0, 11}},
      {1, CG_PIPELINED, true, {5, 0, 0, 0, 2, 0, 8}},
      {2, CG_STANDARD, false, {5, 2, 1, 1, 0, 2, 9}},
  };
  for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
    struct acg_count n = acg_ops(cases[k].ranks, cases[k].variant, cases[k].fused);
    const struct acg_count *w = &cases[k].want;
    CU_ASSERT_EQUAL(n.syncs, w->syncs);
    CU_ASSERT_EQUAL(n.colls, w->colls);
    CU_ASSERT_EQUAL(n.sends, w->sends);
    CU_ASSERT_EQUAL(n.recvs, w->recvs);
    CU_ASSERT_EQUAL(n.atomics, w->atomics);
    CU_ASSERT_EQUAL(n.packs, w->packs);
    CU_ASSERT_EQUAL(n.computes, w->computes);
    if (n.syncs != w->syncs || n.computes != w->computes)
      fprintf(stderr, "case %zu: syncs %" PRId64 " computes %" PRId64 "\n", k, n.syncs, n.computes);
  }
}


/* aCG's kernel on one rank, by hand (the defaults of cg_time: 1 B/ps,
 * flops free; no GPU model to the program: no stretch, no atomic phase):
 * the 1D Poisson matrix of 8 rows, 22 non-zeros, one WG. Launched at
 * 1102 + 1500 = 2602 ns; dzero 8 x 8 = 64 ps; 2 grid syncs of 1000 + 10
 * x 96 WGs (the grid at residency, 24 CUs x 4) = 1960 ns; SpMV 12 x 22 + 20 x 8 = 424 ps plus its gathers beyond
 * one per row, 8 x (22 - 8) = 112: 536 ps; sync; dot 16 x 8 = 128 ps;
 * sync; 2 AXPYs 2 x 192, dot 128; sync; AYPX 192. Each sync's release is
 * its 95 idle WGs' (arrived when released, due B(96) = 1960 later), not
 * the working WG's (its work under 1 ns, then B(1) = 1010; gpu.h): 5
 * syncs 9800 ns, and the work after the last, the AYPX's 192 ps: done at
 * 2602 + 9800 + 0.192 = 12402.192 ns. */
static void test_cg_acg_one_rank_by_hand(void) {
  CU_ASSERT_EQUAL(cg_time_of("cpufree", 1, CG_ACG), 12402192);
}

/* workload.code: an unknown value, and aCG's pipelined CG under a policy
 * that launches kernels one by one (its host-driven pipelined solver is
 * not modelled, only its monolithic kernel); workload.x_reads
 * get where it cannot be: exit 2 naming the key, nothing on stdout. */
static void test_cg_code_bad_input(void) {
  static const struct {
    const char *policy, *extra, *want;
  } cases[] = {
      {"cpufree", "code: fast", "workload.code: expected one of ics23, acg, got fast"},
      {"gds", "code: acg, variant: pipelined",
       "workload.code: expected ics23 under policy gds with variant pipelined"},
      {"hdn", "code: acg, variant: pipelined",
       "workload.code: expected ics23 under policy hdn with variant pipelined"},
      /* x_reads get needs NVLink loads: GPUs of one node (the default
       * network: 2 nodes of one GPU), code ics23, the row-per-thread SpMV. */
      {"cpufree", "x_reads: get", "workload.x_reads: expected halo (get needs all GPUs in one node"},
      {"cpufree", "x_reads: get, code: acg", "workload.x_reads: expected halo (get needs code ics23)"},
      {"gds", "x_reads: get, spmv: library", "workload.x_reads: expected halo (get needs spmv row)"},
      {"cpufree", "x_reads: put", "workload.x_reads: expected one of halo, get, got put"},
  };
  for (size_t k = 0; k < G_N_ELEMENTS(cases); k++) {
    char *text = g_strdup_printf("policies: [%s]\nworkload: {kind: cg, source: banded, rows: 64, "
                                 "nnz_per_row: 7, %s}\n", cases[k].policy, cases[k].extra);
    char *sc = tu_temp_file(".yaml", text, strlen(text)), *out = NULL, *err = NULL;
    const char *argv[] = {"run", sc, NULL};
    CU_ASSERT_EQUAL(tu_trigsim(argv, &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, cases[k].want) && strstr(err, ":2:") ? err : NULL);
    if (!err || !strstr(err, cases[k].want)) fprintf(stderr, "%s\n", err ? err : "(no error)");
    CU_ASSERT_PTR_NOT_NULL(out && !out[0] ? out : NULL);
    g_free(out);
    g_free(err);
    g_free(sc);
    g_free(text);
  }
}

/* The integer counter KEY ("name": value) of a JSON report, -1 if absent. */
static int64_t json_counter(const char *out, const char *key) {
  char *pat = g_strdup_printf("\"%s\": ", key);
  const char *at = out ? strstr(out, pat) : NULL;
  int64_t v = at ? g_ascii_strtoll(at + strlen(pat), NULL, 10) : -1;
  g_free(pat);
  return v;
}

/* Runs scenario TEXT (freed) with -f json, expecting exit 0: its output
 * (g_free). */
static char *run_json(char *text) {
  char *sc = tu_temp_file(".yaml", text, strlen(text)), *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "json", NULL}, &out, &err), 0);
  g_free(err);
  g_free(sc);
  g_free(text);
  return out;
}

/* x_reads get marks the row-per-thread SpMV as read through gets (the
 * ICS23 code's nvshmem_double_g for every x value), and the lowered step
 * carries it to the GPU model (gpu.h "L1": one non-zero per visit); a
 * halo read does not. A banded matrix of 4096 rows on 2 ranks. */
static void test_cg_spmv_gets(void) {
  struct sp_part *part = sp_partition_banded(4096, 7, 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(part);
  for (int get = 0; get < 2; get++) {
    struct cg_config c = {.variant = CG_STANDARD, .rows_per_wg = 1024,
                          .x_reads = get ? CG_X_GET : CG_X_HALO};
    struct wl_program *p = wl_cg_program(&c, part, NULL, 1);
    int spmvs = 0;
    for (size_t i = 0; i < p->ranks[1].n_ops; i++) {
      const struct wl_op *o = &p->ranks[1].ops[i];
      const struct wl_kernel *k = wl_kernel_of(p, o);
      if (o->kind != WL_COMPUTE || k->kclass != KC_SPMV) continue;
      spmvs++;
      CU_ASSERT_EQUAL(k->x_gets, get);
      CU_ASSERT_EQUAL(pol_compute_step(k, o, 1).gets, get);
    }
    CU_ASSERT(spmvs > 0);
    wl_program_free(p);
  }
  sp_part_free(part);
}

/* cpufree standard CG under x_reads (halo, get) with a peer load latency
 * of LAT_NS on a 64-row tridiagonal matrix, 2 GPUs of one node: *PUTS the
 * NIC puts of rank 0, the return the time per iteration. */
static int64_t cg_x_reads_run(const char *reads, int lat_ns, int64_t *puts, int64_t *remote) {
  char *text = g_strdup_printf(
      "policies: [cpufree]\nhardware: {network: {nodes: 2, gpus_per_node: 2}, gpu: "
      "{peer_load_latency: %dns}}\nworkload: {kind: cg, source: banded, rows: 64, nnz_per_row: 3, "
      "x_reads: %s}\n", lat_ns, reads);
  char *out = run_json(text);
  int64_t t = json_counter(out, "cg.time_per_iteration_ps");
  *puts = json_counter(out, "node0.nic.puts");
  *remote = json_counter(out, "node0.cg.remote_nnz");
  g_free(out);
  return t;
}

/* x_reads get (the ICS23 code's nvshmem_double_g): rows [0, 32) and [32,
 * 64) of a tridiagonal matrix each read one value of the other, in one
 * row (remote_nnz 1). With get no halo put is made (rank 0's puts: the
 * halo's one fewer than with halo; the rest are the reductions' and
 * barriers'), and the SpMV waits for that load instead: one more
 * microsecond of latency adds more than nothing and at most the one
 * row's chain, 1 us, to the iteration (one SpMV). */
static void test_cg_x_reads_get(void) {
  int64_t puts_halo, puts_get, puts_get2, remote;
  cg_x_reads_run("halo", 1000, &puts_halo, &remote);
  CU_ASSERT_EQUAL(remote, 1);
  int64_t t1 = cg_x_reads_run("get", 1000, &puts_get, &remote);
  int64_t t2 = cg_x_reads_run("get", 2000, &puts_get2, &remote);
  CU_ASSERT(puts_halo > 0);
  CU_ASSERT_EQUAL(puts_get, puts_halo - 1);
  CU_ASSERT_EQUAL(puts_get2, puts_get);
  CU_ASSERT(t2 > t1);
  CU_ASSERT(t2 - t1 <= 1000000);
}

/* The CPU-controlled baselines of the CPU-free code synchronize the host
 * with the stream where they need a scalar (CG/src_nvshmem/baseline/
 * discrete-standard-nvshmem.cu: after each dot is copied home and at the
 * iteration's end, 3; discrete-pipelined-nvshmem.cu: after the dots, after
 * the reductions and the SpMV, at the end, 3 on one stream). Under gds the
 * host waits there and nowhere else but the end: 2 iterations, 3 x 2 + 1
 * = 7 kernel waits per rank for both variants. */
static void test_cg_gds_host_syncs(void) {
  static const char *const variants[] = {"standard", "pipelined"};
  for (size_t k = 0; k < G_N_ELEMENTS(variants); k++) {
    char *text = g_strdup_printf("policies: [gds]\nworkload: {kind: cg, source: banded, rows: 64, "
                                 "nnz_per_row: 3, variant: %s, iterations: 2}\n", variants[k]);
    char *out = run_json(text);
    CU_ASSERT_EQUAL(json_counter(out, "node0.cpu.kernel_waits"), 7);
    CU_ASSERT_EQUAL(json_counter(out, "node1.cpu.kernel_waits"), 7);
    g_free(out);
  }
}

/* cg under gds, VARIANT, 2 iterations on 2 GPUs, with the copy engine's
 * start at START_NS and the host's pageable staging at STAGE_NS: the run's
 * time; *STAGED: rank 0's host compute time (its staging work). */
static int64_t cg_copy_run(const char *variant, int start_ns, int stage_ns, int64_t *staged) {
  char *text = g_strdup_printf(
      "policies: [gds]\nhardware: {gpu: {copy_start: %dns}, cpu: {pageable_copy: %dns}}\n"
      "workload: {kind: cg, source: banded, rows: 64, nnz_per_row: 3, variant: %s, "
      "iterations: 2}\n", start_ns, stage_ns, variant);
  char *out = run_json(text);
  int64_t t = json_counter(out, "node0.cpu.main_done");
  *staged = json_counter(out, "node0.cpu.compute_time");
  g_free(out);
  return t;
}

/* The scalars the baselines copy home (8 B cudaMemcpyAsync into pageable
 * memory): standard one before the alpha sync and one before the beta
 * sync, pipelined two before the sync after the SpMV; 2 per iteration in
 * both. Each is a copy command on the stream that the host waits for
 * (the copy returns once done), then its staging work. Every copy is on
 * the critical path, so over 2 iterations (4 copies) one more microsecond
 * of copy_start adds 4 us to the run, and one more of pageable_copy 4 us
 * too; the host's compute time is 4 x pageable_copy (1.4 us: 5.6 us). */
static void test_cg_gds_copies_home(void) {
  static const char *const variants[] = {"standard", "pipelined"};
  for (size_t k = 0; k < G_N_ELEMENTS(variants); k++) {
    int64_t staged, staged2;
    int64_t t = cg_copy_run(variants[k], 2500, 1400, &staged);
    CU_ASSERT_EQUAL(staged, 4 * 1400 * NS);
    CU_ASSERT_EQUAL(cg_copy_run(variants[k], 3500, 1400, &staged2) - t, 4 * US);
    CU_ASSERT_EQUAL(cg_copy_run(variants[k], 2500, 2400, &staged2) - t, 4 * US);
    CU_ASSERT_EQUAL(staged2, 4 * 2400 * NS);
  }
}

/* The CPU's roofline (pol_cpu_time, lower.h; cpu.flops_per_cycle and
 * cpu.mem_bandwidth, models/cpu.h): a compute op of N WGs on every core
 * takes the larger of N * flops / (cores * clock * flops_per_cycle) and
 * N * bytes * 8 / mem_bandwidth, each rounded up to a ps. A one-rank
 * program of that op alone under cpu is done when it is.
 * Defaults: 8 cores * 4 GHz * 8 = 256 Gflop/s; mem_bandwidth set to
 * 384 Gbps (48 GB/s) so that the memory term has a fraction of a ps too. */
static sim_time cpu_op_time(uint32_t wgs, int64_t flops, int64_t bytes, int64_t *compute) {
  struct hw h;
  hw_nodes(&h, 1);
  h.cpu.mem_bandwidth = 384000000000;
  struct wl_program *p = wl_program_new(1);
  wl_compute(p, 0, wgs, flops, bytes);
  struct sim_result r;
  sim_time t = run_printed(p, "cpu", &h, &r);
  *compute = t >= 0 ? counter(&r, "node0.cpu.compute_time") : -1;
  sim_result_clear(&r);
  wl_program_free(p);
  return t;
}

/* A new policy is one file plus one line of the table (workloads/policies/
 * table.c); a program that links trigsim adds its own with pol_register.
 * The toy policy here is that file, written in the test: a host-driven
 * policy whose every compute op takes 1 us per WG on the CPU whatever its
 * flops, messages two-sided through the host stack as under cpu. */
static bool toy_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  (void)err;
  if (!o) return true;
  switch (o->kind) {
  case WL_COMPUTE:
    pol_add_host(L, (struct hstep){.kind = HS_COMPUTE, .time = SIM_US * (sim_time)o->n_wgs});
    break;
  case WL_SEND: pol_host_send(L, o, true); break;
  case WL_RECV: pol_host_recv(L, o, true); break;
  case WL_SYNC: break; /* the host runs the phases in order */
  default: *err = g_strdup("toy: an op it does not lower"); return false;
  }
  return true;
}

static void toy_prepare(struct pol_prep *pr) {
  pol_prep_form(pr, WL_FORM_DISCRETE);
  pol_prep_library(pr, false);
  pol_prep_loops(pr, POL_LOOPS_UNROLL);
}

static const struct pol_type pol_toy = {
    .name = "toy",
    .libs = 1u << COMM_MPI,
    .lib_default = COMM_MPI,
    .prepare = toy_prepare,
    .lower = toy_lower,
    .watcher = pol_watch_cpu,
    .computes_on = pol_on_cpu,
    .done = CPU_OUT(MAIN_DONE),
};

/* The toy registered from here runs programs by its name, as a built-in
 * one does; a second registration of the name is refused.
 * One rank, computes of 2 and 3 WGs: 2 us + 3 us = 5 us, all of it CPU
 * compute time. Two ranks, rank 0 computing 2 WGs of 256 flops and then
 * sending 8 B to rank 1, which receives it: the same messages as under
 * cpu, only the compute differs. Under cpu the compute takes 2 * 256 flops
 * / (8 cores * 4 GHz * 8 flops/cycle = 256 Gflop/s) = 2 ns = 2000 ps
 * (test_cpu_roofline), under the toy 2 us: its total is cpu's plus
 * 2000000 - 2000 = 1998000 ps. */
static void test_toy_policy(void) {
  CU_ASSERT_PTR_NULL(pol_find("toy"));
  CU_ASSERT_TRUE(pol_register(&pol_toy));
  CU_ASSERT_FALSE(pol_register(&pol_toy));
  CU_ASSERT_PTR_EQUAL(pol_find("toy"), &pol_toy);
  struct hw h;
  hw_nodes(&h, 1);
  struct wl_program *p = wl_program_new(1);
  wl_compute(p, 0, 2, 1000, 0);
  wl_compute(p, 0, 3, 1000, 0);
  struct sim_result r;
  EXPECT_TIME(run_printed(p, "toy", &h, &r), 5 * SIM_US);
  EXPECT_TIME(counter(&r, "node0.cpu.compute_time"), 5 * SIM_US);
  sim_result_clear(&r);
  wl_program_free(p);
  sim_time t[2];
  const char *pols[2] = {"cpu", "toy"};
  for (int k = 0; k < 2; k++) {
    hw_nodes(&h, 2);
    p = wl_program_new(2);
    wl_compute(p, 0, 2, 256, 0);
    wl_send(p, 0, 1, 8, 0);
    wl_recv(p, 1, 0, 8, 0);
    t[k] = run_printed(p, pols[k], &h, &r);
    sim_result_clear(&r);
    wl_program_free(p);
  }
  CU_ASSERT_TRUE(t[0] > 0);
  EXPECT_TIME(t[1] - t[0], 1998000);
}

static void test_cpu_roofline(void) {
  int64_t compute;
  /* Compute-bound: 3 WGs * 1000 flops / 256 Gflop/s = 11.71875 ns, up to
   * 11719 ps; memory 3 * 8 B * 8 / 384 Gbps = 0.5 ns. The larger: 11719. */
  EXPECT_TIME(cpu_op_time(3, 1000, 8, &compute), 11719);
  EXPECT_TIME(compute, 11719);
  /* Memory-bound: 3 WGs * 100 flops / 256 Gflop/s = 1.171875 ns (1172 ps);
   * memory 3 * 1001 B * 8 = 24024 bits / 384 Gbps = 62.5625 ns, up to
   * 62563 ps. The larger: 62563. */
  EXPECT_TIME(cpu_op_time(3, 100, 1001, &compute), 62563);
  EXPECT_TIME(compute, 62563);
  /* Both exact and equal: 3 * 1024 flops / 256 Gflop/s = 12 ns and
   * 3 * 192 B * 8 = 4608 bits / 384 Gbps = 12 ns: 12000 ps, not a ps
   * more (rounding up adds nothing to a whole ps). */
  EXPECT_TIME(cpu_op_time(3, 1024, 192, &compute), 12000);
}

/* A send in parts carries bytes / parts in each part but the last, which
 * carries the rest (pol_put_part): 12290 B in 3 parts is 4096 + 4096 +
 * 4098 B. With the 4 KiB MTU that is 1 + 1 + 2 packets (the last part's
 * 2 B a packet of their own): 4 packets and 12290 B of payload leave node
 * 0 and arrive at node 1. Under each policy that splits a send into NIC
 * commands per part: gputn (triggered puts), cpufree and p2p (device
 * puts), ghn (the helper's puts). */
static void test_split_send_remainder(void) {
  static const char *const policies[] = {"gputn", "cpufree", "p2p", "ghn"};
  for (size_t k = 0; k < G_N_ELEMENTS(policies); k++) {
    struct hw h;
    hw_nodes(&h, 2);
    struct wl_program *p = wl_program_new(2);
    wl_compute(p, 0, 3, 256, 0);
    wl_kclass(p, 0, KC_STREAM, 0, 0, 0);
    wl_send_parts(p, 0, 1, 12290, 1, 3, 1);
    wl_recv_parts(p, 1, 0, 12290, 1, 3);
    wl_compute(p, 1, 3, 256, 0); /* WGs that consume the parts */
    wl_kclass(p, 1, KC_STREAM, 0, 0, 0);
    struct sim_result r;
    sim_time t = run_printed(p, policies[k], &h, &r);
    CU_ASSERT_TRUE(t > 0);
    if (t > 0) {
      CU_ASSERT_EQUAL(counter(&r, "node0.nic.payload_sent"), 12290);
      CU_ASSERT_EQUAL(counter(&r, "node0.nic.packets_sent"), 4);
      CU_ASSERT_EQUAL(counter(&r, "node1.nic.payload_received"), 12290);
      CU_ASSERT_EQUAL(counter(&r, "node1.nic.packets_received"), 4);
    }
    sim_result_clear(&r);
    wl_program_free(p);
  }
}

/* Each policy names when a rank is done by a handle (lower.h, .done): the
 * CPU's main_done or the GPU's wg_last_end, read on the measured rank. The
 * ping measures rank 1: its total is node 1's entry of that output, looked
 * up here by key, and differs from node 0's (the sender finishes first
 * under the host-driven policies; under gputn node 0's last WG ends before
 * node 1's, whose kernel waits for the data). */
static void test_done_handle_reads_the_measured_rank(void) {
  size_t n;
  const struct pol_type *const *all = pol_all(&n);
  for (size_t i = 0; i < n; i++) {
    const struct pol_type *pol = all[i];
    bool cpu = pol->done == CPU_OUT(MAIN_DONE);
    CU_ASSERT_TRUE(cpu || pol->done == GPU_OUT(WG_LAST_END));
    struct hw h;
    hw_nodes(&h, 2);
    struct ping_config cfg = {.size = 8, .wgs = 1, .flops_per_wg = 256, .bytes_per_wg = 0};
    struct wl_program *p = wl_ping_program(&cfg);
    struct sim_result r;
    sim_time t = run_printed(p, pol->name, &h, &r);
    if (t >= 0) {
      t = r.policy_end_ps; /* the done handle gives the policy's own end */
      char *key1 = g_strdup_printf("node1.%s.%s", cpu ? "cpu" : "gpu", pol->done->key);
      char *key0 = g_strdup_printf("node0.%s.%s", cpu ? "cpu" : "gpu", pol->done->key);
      if (t != counter(&r, key1)) fprintf(stderr, "\n  %s: total %" PRId64 ", %s\n", pol->name, t, key1);
      CU_ASSERT_EQUAL(t, counter(&r, key1));
      CU_ASSERT_NOT_EQUAL(t, counter(&r, key0));
      g_free(key1);
      g_free(key0);
    }
    sim_result_clear(&r);
    wl_program_free(p);
  }
}

int main(void) {
  static const struct tu_test tests[] = {
      {"persistent kernels sized to residency", test_persistent_residency},
      {"the done handle reads the measured rank", test_done_handle_reads_the_measured_rank},
      {"ping under cpu, by hand", test_ping_cpu},
      {"a toy policy registered from the test runs programs", test_toy_policy},
      {"the CPU's roofline: the larger of compute and memory, each up to a ps", test_cpu_roofline},
      {"a split send's last part carries the remainder", test_split_send_remainder},
      {"cg x_reads get: no halo put, the SpMV waits for its peer loads", test_cg_x_reads_get},
      {"cg x_reads get: the SpMV step is marked as read through gets", test_cg_spmv_gets},
      {"cg under gds: the host waits where the baseline copies a scalar home", test_cg_gds_host_syncs},
      {"cg under gds: the scalars copied home, copy engine and staging on the critical path", test_cg_gds_copies_home},
      {"ping under hdn, by hand", test_ping_hdn},
      {"ping under hdn2s (two-sided receive), by hand", test_ping_hdn2s},
      {"ping under gds, by hand", test_ping_gds},
      {"gds: a stream synchronize waits for the stream's waits on flags, by hand", test_gds_sync_waits_for_stream_waits},
      {"ping under gputn, by hand", test_ping_gputn},
      {"ping under cpufree, by hand", test_ping_cpufree},
      {"a ping through nvshmem (IBGDA, IBRC) and nccl, by hand", test_library_ping},
      {"an allreduce through nvshmem, nccl and gputn, by hand", test_library_allreduce},
      {"nvshmem_quiet: the put's ACK, by hand", test_quiet},
      {"ping under ghn, by hand", test_ping_ghn},
      {"ghn needs a helper thread", test_ghn_needs_a_helper},
      {"allreduce: the ring's steps", test_allreduce_ring_shape},
      {"gputn: trigger granularities", test_gputn_granularities},
      {"jacobi2d: halos and edges", test_jacobi_halos},
      {"jacobi2d: a strided halo's pack kernel, by hand", test_jacobi_pack_kernel},
      {"one kernel that waits folds; edge selectors fold with it", test_fold_keeps_edges},
      {"a selection with a stride below the fold folds to a range", test_fold_small_stride},
      {"an unmatched send is an error", test_unmatched_send_is_an_error},
      {"a deadlocked run is an error", test_deadlock_is_an_error},
      {"one CG iteration under cpufree, by hand", test_cg_cpufree},
      {"one CG iteration under hdn and hdn2s, by hand", test_cg_hdn},
      {"CG: grid syncs and barriers per iteration, as the CPU-free code and aCG; its atomics by hand", test_cg_barriers_per_iteration},
      {"SpMV: a library where launched, row per work-item where fused, merge-path both, by hand", test_spmv_algorithms},
      {"CG: the SpMV op as written and row-balanced", test_cg_spmv_forms},
      {"CG: an unknown workload.spmv exits 2 naming the key", test_cg_spmv_bad_value},
      {"CG code acg: syncs, reductions, halo, atomics per iteration, as aCG", test_cg_acg_structure},
      {"CG code acg: one rank's iteration by hand", test_cg_acg_one_rank_by_hand},
      {"CG: bad workload.code and x_reads exit 2 naming the key", test_cg_code_bad_input},
      {NULL, NULL}};
  return tu_run_suite("policy", tests);
}
