/* The CPU-free ICS23 baseline policies (workloads/policies/policy_copy.c,
 * policy_overlap.c, policy_p2p.c, policy_monolithic.c), each timed by hand
 * from the default parameters on the smallest program that shows what the
 * policy does: copy serializes kernels and copies, overlap lets the
 * boundary's copy go while the interior computes, p2p returns to the host
 * at every sync, monolithic drops data movement and pays only barriers.
 *
 * Defaults (as in test_policy.c): bus 100 ns, 256 Gbps, 64 B control
 * messages (2 ns), memory 80 ns; nic.cmd_cost 100 ns; links and switch
 * 100 ns, 100 Gbps, 64 B headers, cut-through; cpu launch_submit 1 us,
 * build_cmd 200 ns, switch poll every 500 ns; gpu launch 1.5 us, teardown
 * 1.5 us, fence 200 ns, flag poll every 100 ns, barrier 1 us + 10 ns per
 * WG; a WG of 256 flops takes 256 * 4 / 128 = 8 ns (4 WGs share a CU's
 * 128 flops a cycle at 1 GHz). */
#include <glib.h>
#include <string.h>

#include "lower.h"
#include "noderig.h"
#include "ping.h"
#include "testutil.h"

/* P (consumed) under POLICY on NODES default nodes: its time, or -1. */
static sim_time run(struct wl_program *p, const char *policy, int64_t nodes) {
  struct hw h;
  hw_defaults(&h);
  h.net.nodes = nodes;
  struct sim_result r;
  sim_result_init(&r, policy);
  char *err = NULL;
  struct wl_ctx ctx = {.seed = 1};
  /* The policy's own end (policy_end_ps): the derivations below stop at
   * the last WG's end for the GPU-ended baselines (monolithic), at the host
   * program's end for the others; total_time_ps adds a kernel still
   * running then (its teardown and the host's notice). */
  sim_time t = pol_run(p, policy, &h.cfg, &ctx, &r, &err) ? r.policy_end_ps : -1;
  if (err) fprintf(stderr, "\n  %s: %s\n", policy, err);
  g_free(err);
  sim_result_clear(&r);
  wl_program_free(p);
  return t;
}

/* GPU-TN Fig. 8: rank 0 computes 1 WG of 256 flops and sends 8 B. */
static struct wl_program *ping(void) {
  struct ping_config cfg = {.size = 8, .wgs = 1, .flops_per_wg = 256, .bytes_per_wg = 0};
  return wl_ping_program(&cfg);
}

/* Rank 0: a boundary kernel (lane 1, 1 WG of 256 flops), an interior
 * kernel (lane 0, 1 WG of 25600 flops: 800 ns), then the boundary's 8 B to
 * rank 1 (lane 1). */
static struct wl_program *boundary_and_interior(void) {
  struct wl_program *p = wl_program_new(2);
  wl_lane(p, 0, 1);
  wl_compute(p, 0, 1, 256, 0);
  wl_lane(p, 0, 0);
  wl_compute(p, 0, 1, 25600, 0);
  wl_lane(p, 0, 1);
  wl_send(p, 0, 1, 8, 1);
  wl_recv(p, 1, 0, 8, 1);
  p->measured_rank = 1;
  return p;
}

/* The 8 B put's leg, from its command reaching the sender's NIC at c to the
 * receiver's flag: command 100, DMA 80 + 0.25 + 100; a 72 B packet (5.76
 * ns) over link, switch, link (300); memory write 0.25 + 100:
 * c + 686.26 ns. */
#define LEG 686260

/* A kernel launched by the host: submitted by 1000, at the GPU 1102 (bus
 * 100 + 2), launched at 2602. Its end reaches the CPU a bus crossing
 * (102) after the teardown; the waiting CPU sees it at its next 500 ns
 * poll. */

static void test_copy(void) {
  /* Ping: kernel launched 2602, WG 2610, teardown 4110, at the CPU 4212,
   * seen at 4500 (the CPU has polled since 1000). The copy: build 200,
   * the command crosses the bus: c = 4802; the receiver's CPU, polling
   * its flag, sees it at c + LEG. */
  CU_ASSERT_EQUAL(run(ping(), "copy", 2), 4802000 + LEG);
  /* Boundary first, as above, seen at 4500; then the interior kernel:
   * submitted 5500, launched 7102, WG 800 ns: 7902, teardown 9402, at the
   * CPU 9504, seen at 10000 (polling since 5500). Only then the copy:
   * c = 10000 + 200 + 102 = 10302. */
  CU_ASSERT_EQUAL(run(boundary_and_interior(), "copy", 2), 10302000 + LEG);
}

static void test_overlap(void) {
  /* Ping has one lane: the same as copy. */
  CU_ASSERT_EQUAL(run(ping(), "overlap", 2), 4802000 + LEG);
  /* The boundary goes on queue 1 (submitted by 1000, launched 2602, WG
   * 2610, teardown 4110, at the CPU 4212); the interior on queue 0 is
   * submitted 1000..2000 and runs beside it on a free CU. The host waits
   * for the boundary only (polling since 2000): 4500, and copies at once:
   * c = 4802, as if the interior were not there. */
  CU_ASSERT_EQUAL(run(boundary_and_interior(), "overlap", 2), 4802000 + LEG);
}

/* Rank 0: compute, sync, compute, then 8 B to rank 1, which receives. */
static struct wl_program *two_steps_then_send(void) {
  struct wl_program *p = wl_program_new(2);
  wl_compute(p, 0, 1, 256, 0);
  wl_sync(p, 0);
  wl_compute(p, 0, 1, 256, 0);
  wl_send(p, 0, 1, 8, 1);
  wl_recv(p, 1, 0, 8, 1);
  p->measured_rank = 1;
  return p;
}

static void test_p2p(void) {
  /* Ping, one kernel a rank. Rank 0: WG 2610, fence 200, its put command
   * crosses the bus: c = 2912; the flag at c + LEG = 3598.26. Rank 1's
   * kernel (launched 2602) polls every 100 ns: sees it at 3602, tears
   * down 5102, at the CPU 5204; its host, waiting since 1000, sees it at
   * 5500: the rank is done when its host is. */
  CU_ASSERT_EQUAL(run(ping(), "p2p", 2), 5500000);
  /* With a sync, rank 0 runs two kernels, the host between them: the
   * first ends at the CPU at 4212, seen 4500; the second is submitted
   * 5500, launched 7102, WG 7110, fence: c = 7412, flag at 8098.26.
   * Rank 1's kernel sees it at 2602 + 55 x 100 = 8102, tears down 9602,
   * at the CPU 9704, seen at 10000. */
  CU_ASSERT_EQUAL(run(two_steps_then_send(), "p2p", 2), 10000000);
}

/* Every rank: compute, 8 B to the next rank and from the previous (none
 * on one rank), sync, compute (1 WG of 256 flops each). */
static struct wl_program *barrier_program(uint32_t ranks) {
  struct wl_program *p = wl_program_new(ranks);
  for (uint32_t r = 0; r < ranks; r++) {
    wl_compute(p, r, 1, 256, 0);
    if (ranks > 1) {
      wl_send(p, r, (r + 1) % ranks, 8, 1);
      wl_recv(p, r, (r + ranks - 1) % ranks, 8, 1);
    }
    wl_sync(p, r);
    wl_compute(p, r, 1, 256, 0);
  }
  return p;
}

static void test_monolithic(void) {
  /* Data movement is free: rank 1's receive is dropped, its (empty) WG
   * ends as its kernel launches, at 2602. */
  CU_ASSERT_EQUAL(run(ping(), "monolithic", 2), 2602000);
  /* One rank: launched 2602, WG 2610; its sync follows no receive (no
   * data crossed GPUs): a grid barrier alone (1000 + 10 x 1 WG = 1010):
   * 3620, the second compute: 3628. */
  CU_ASSERT_EQUAL(run(barrier_program(1), "monolithic", 2), 3628000);
  /* Two ranks: the sync follows a receive: a grid barrier, then the
   * dissemination, then a grid barrier again. One round after the first
   * grid barrier (3620): the WG's
   * zero-byte put leaves after the fence (3820), crosses the bus (3922),
   * command 100 (4022), no DMA for no bytes, a 64 B header packet over
   * link, switch, link (300 + 5.12), a zero-byte memory write (100): the
   * peer's flag at 4427.12, seen at the WG's next 100 ns poll: 4520 (its
   * wait began at 3620). Then 1010 + 8: 5538. */
  CU_ASSERT_EQUAL(run(barrier_program(2), "monolithic", 2), 5538000);
  /* Four ranks: ceil(log2 4) = 2 rounds of 900 ns each: 4638 + 1800. */
  CU_ASSERT_EQUAL(run(barrier_program(4), "monolithic", 4), 6438000);
}

int main(void) {
  const struct tu_test tests[] = {
      {"copy: kernels and copies one after another", test_copy},
      {"overlap: the boundary's copy beside the interior", test_overlap},
      {"p2p: device puts, the host at every sync", test_p2p},
      {"monolithic: free data, barriers only", test_monolithic},
      {NULL, NULL},
  };
  return tu_run_suite("baselines", tests);
}
