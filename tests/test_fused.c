/* Fused programs (issue 31; Baydamirli, Ben-Nun and Unat, "Autonomous
 * Execution for Multi-GPU Systems: Compiler Support"): a two-step program
 * lowered as two launches (gds), one fused persistent kernel with a grid
 * sync or a tile sync between the steps (cpufree), and a replayed graph
 * (gds under cpu.launch graph); concurrent specialised blocks; the fused
 * kernel's single block size on a reduction; library calls; the Jacobi
 * baselines of the study's scaling runs (DaCe + MPI's host packing, a task
 * runtime's per-task overhead), each timed by hand from the parameters. */
#include <glib.h>
#include <string.h>

#include "jacobi.h"
#include "lower.h"
#include "noderig.h"
#include "testutil.h"

/* The defaults on one node. Those the derivations use: cpu launch_submit
 * 1 us, switch poll 500 ns, graph_launch 1.1 us; bus 100 ns + 64 B of
 * control at 256 Gbps (2 ns) = 102 ns a message; gpu launch 1.5 us,
 * teardown 1.5 us, graph_launch 740 ns, barrier 1 us + 10 ns a WG,
 * tile_sync 50 ns; 24 CUs x 4 WGs of 256 items = 96 slots; no memory
 * latency, no L2: a WG's streaming step moves bytes * 8 * 96 / 1092 Gbps. */
static void hw_one(struct hw *h) {
  hw_defaults(h);
  h->net.nodes = 1;
}

/* The policy's end (policy_end_ps: the last step's work done, as the
 * derivations below count it; the run's total adds the persistent
 * kernel's teardown and the host noticing it, test_chain_workload). */
static sim_time run(struct wl_program *p, const char *policy, struct hw *h) {
  struct sim_result out;
  sim_result_init(&out, policy);
  struct wl_ctx ctx = {.seed = 1};
  char *err = NULL;
  sim_time t = pol_run(p, policy, &h->cfg, &ctx, &out, &err) ? out.policy_end_ps : -1;
  if (err) fprintf(stderr, "%s: %s\n", policy, err);
  g_free(err);
  sim_result_clear(&out);
  return t;
}

/* 13650 B per WG: 13650 * 8 * 96 / 1092e9 s = 9.6 us a WG, at 96 slots. */
#define STEP_BYTES 13650
#define STEP (9600 * NS)
/* The part every lowering shares: submit 1 us, the command over the bus. */
#define SUBMIT (1 * US + 102 * NS)

/* Two streaming steps of 96 WGs; between them a grid sync, a tile sync
 * (TILE) or none at all (the second on lane 1, concurrent: CONCURRENT). */
static struct wl_program *two_steps(bool tile) {
  struct wl_program *p = wl_program_new(1);
  p->measured_rank = 0;
  wl_compute(p, 0, 96, 0, STEP_BYTES);
  if (tile) wl_tile_sync(p, 0);
  else wl_sync(p, 0);
  wl_compute(p, 0, 96, 0, STEP_BYTES);
  return p;
}

static void test_two_steps_fused(void) {
  struct hw h;
  hw_one(&h);
  struct wl_program *p = two_steps(false);
  /* One launch, step, grid sync over 96 WGs (1 us + 960 ns), step; the
   * run ends with the last WG (cpufree's done: gpu.wg_last_end):
   *   1.102 + 1.5 + 9.6 + 1.96 + 9.6 = 23.762 us. */
  CU_ASSERT_EQUAL(run(p, "cpufree", &h), SUBMIT + 1500 * NS + STEP + 1960 * NS + STEP);
  wl_program_free(p);
  p = two_steps(true);
  /* A tile sync instead: 50 ns, no wait for the other WGs: 21.852 us. */
  CU_ASSERT_EQUAL(run(p, "cpufree", &h), SUBMIT + 1500 * NS + STEP + 50 * NS + STEP);
  wl_program_free(p);
}

static void test_two_steps_launched(void) {
  struct hw h;
  hw_one(&h);
  struct wl_program *p = two_steps(false);
  /* Two launches on one stream (gds): kernel 1 on the GPU at 1.102 us,
   * launch 1.5, step 9.6, teardown 1.5; the second (submitted at 1 us,
   * queued) launches after it: 1.5 + 9.6 + 1.5; its completion crosses the
   * bus (102 ns) at 26.404 us; the host, waiting since its second submit
   * ended (2 us), polls every 500 ns: it notices at 26.5 us. */
  sim_time done = SUBMIT + 2 * (1500 * NS + STEP + 1500 * NS) + 102 * NS;
  CU_ASSERT_EQUAL(done, 26404 * NS);
  CU_ASSERT_EQUAL(run(p, "gds", &h), 26500 * NS);
  /* The tile sync is a kernel boundary here: the same. */
  wl_program_free(p);
  p = two_steps(true);
  CU_ASSERT_EQUAL(run(p, "gds", &h), 26500 * NS);
  wl_program_free(p);
}

static void test_two_steps_graph(void) {
  struct hw h;
  hw_one(&h);
  h.cpu.launch = CPU_LAUNCH_GRAPH;
  struct wl_program *p = two_steps(false);
  /* One replay call (1.1 us) submits both; each node launched by the
   * front end in 740 ns, no teardown between them, the last's 1.5 us:
   *   1.1 + 0.102 + 0.74 + 9.6 + 0.74 + 9.6 + 1.5 = 23.382 us, its
   * completion on the host at 23.484; polls from 1.1 us every 500 ns:
   * 1.1 + 45 x 0.5 = 23.6 us. */
  sim_time done = 1100 * NS + 102 * NS + 2 * (740 * NS + STEP) + 1500 * NS + 102 * NS;
  CU_ASSERT_EQUAL(done, 23484 * NS);
  CU_ASSERT_EQUAL(run(p, "gds", &h), 23600 * NS);
  wl_program_free(p);
}

/* hdn waits for each kernel before it launches the next: under cpu.launch
 * graph each launch is a graph of its own (nothing to capture it with).
 * Replayed: the call 1.1 us, the command on the GPU at 1.202, the node's
 * launch 0.74, the step 9.6, its teardown 1.5 (the replay's last node),
 * the completion on the host at 13.144; polling from 1.1 us every 500 ns
 * it notices at 1.1 + 25 x 0.5 = 13.6. The second alike from 13.6:
 * completion at 26.744, noticed at 14.7 + 25 x 0.5 = 27.2 us. Launched
 * directly (submit 1 us, launch 1.5 us): completions at 13.804 and
 * 27.804, noticed at 1 + 26 x 0.5 = 14 and 15 + 26 x 0.5 = 28 us. */
static void test_two_steps_graph_each(void) {
  struct hw h;
  hw_one(&h);
  struct wl_program *p = two_steps(false);
  CU_ASSERT_EQUAL(run(p, "hdn", &h), 28000 * NS);
  h.cpu.launch = CPU_LAUNCH_GRAPH;
  CU_ASSERT_EQUAL(run(p, "hdn", &h), 27200 * NS);
  wl_program_free(p);
}

/* A on lane 0 (64 WGs) and B on lane 1 (32 WGs) beside it, a sync, then C
 * (64 WGs): the fused kernel runs A and B on specialised WGs at once. */
static void test_concurrent_blocks(void) {
  struct hw h;
  hw_one(&h);
  for (int concurrent = 0; concurrent < 2; concurrent++) {
    struct wl_program *p = wl_program_new(1);
    p->measured_rank = 0;
    wl_compute(p, 0, 64, 0, STEP_BYTES);
    if (concurrent) wl_lane(p, 0, 1);
    else wl_sync(p, 0);
    wl_compute(p, 0, 32, 0, STEP_BYTES);
    wl_lane(p, 0, 0);
    wl_sync(p, 0);
    wl_compute(p, 0, 64, 0, STEP_BYTES);
    /* Each WG moves its bytes with a 1/96 share (bw_share slots): 9.6 us.
     * Concurrent: a kernel of 64 + 32 WGs; A and B at once, the barrier
     * over 96 WGs (1.96 us), C: 1.102 + 1.5 + 9.6 + 1.96 + 9.6 = 23.762.
     * In turn: a grid of 64 (B on its first 32, the others skip it),
     * launched at residency as cpufree's grid is (24 x 4 = 96 WGs, the 32
     * left over only join the barriers), two barriers over 96 WGs whose
     * idle WGs arrive at once and early (gpu.h): after A the 64 busy WGs
     * arrive last and pay B(64) = 1 + 0.64 = 1.64 us, after B the 32 busy
     * ones B(32) = 1.32 (the idle ones' B(96) = 1.96 is over by then):
     * 1.102 + 1.5 + 3 * 9.6 + 1.64 + 1.32 = 34.362 us. */
    sim_time want = concurrent ? SUBMIT + 1500 * NS + 2 * STEP + 1960 * NS
                               : SUBMIT + 1500 * NS + 3 * STEP + 1640 * NS + 1320 * NS;
    CU_ASSERT_EQUAL(run(p, "cpufree", &h), want);
    wl_program_free(p);
  }
}

/* A on a stream of its own (WL_LANE_STREAM, 32 WGs), then B on the main
 * stream (64 WGs), under gds (test_two_steps_launched's costs). On one
 * stream (gpu.queues 1, or A on plain lane 1) B waits for A: 26.5 us as
 * there. On two: A submitted from 0 to 1 us goes to queue 1, on the GPU
 * at 1.102, launched 2.602, its WGs (a 1/96 share each) 9.6 us to 12.202,
 * teardown 1.5 to 13.702; B, submitted from 1 to 2 us, on queue 0 at
 * 2.102, waits for the front end (one launch at a time, gpu.h): launched
 * 2.602 + 1.5 = 4.102 beside A (the GPU has the 96 slots for both), to
 * 13.702, teardown to 15.202, its completion on the host at 15.304. The
 * end waits for the second stream first: A's completion on the host at
 * 13.804, noticed at the host's poll from 2 us every 500 ns: 14.0; then
 * B's, polled from 14.0: 15.5 us. */
static void test_lane_stream_gds(void) {
  for (int mode = 0; mode < 3; mode++) { /* 0: own stream; 1: 1 queue; 2: plain lane 1 */
    struct hw h;
    hw_one(&h);
    if (mode == 1) h.gpu.queues = 1;
    struct wl_program *p = wl_program_new(1);
    p->measured_rank = 0;
    wl_lane(p, 0, mode == 2 ? 1 : WL_LANE_STREAM);
    wl_compute(p, 0, 32, 0, STEP_BYTES);
    wl_lane(p, 0, 0);
    wl_compute(p, 0, 64, 0, STEP_BYTES);
    CU_ASSERT_EQUAL(run(p, "gds", &h), mode == 0 ? 15500 * NS : 26500 * NS);
    wl_program_free(p);
  }
}

/* A reduction of 96 WGs whose own kernel uses 32-item blocks, 4 rows a
 * WG: fused, at the GPU's 256 items, each row reduces over log2(256/32) =
 * 3 more tree levels, each a tile sync: 4 * 3 * 50 ns = 600 ns a WG. */
static void test_reduction_block_size(void) {
  struct hw h;
  hw_one(&h);
  for (int block = 0; block < 2; block++) {
    struct wl_program *p = wl_program_new(1);
    p->measured_rank = 0;
    wl_compute(p, 0, 96, 0, STEP_BYTES);
    wl_kclass(p, 0, KC_REDUCE, 0, 0, 0);
    if (block) wl_block(p, 0, 32, 96 * 4, 0);
    sim_time extra = block ? 600 * NS : 0;
    CU_ASSERT_EQUAL(run(p, "cpufree", &h), SUBMIT + 1500 * NS + STEP + extra);
    /* Launched on its own (gds), it runs at its own block: no extra.
     * 1.102 + 1.5 + 9.6 + 1.5 + 0.102 = 13.804, noticed at 14 us. */
    CU_ASSERT_EQUAL(run(p, "gds", &h), 14000 * NS);
    wl_program_free(p);
  }
  /* Rows of 64 elements: tiles of 64 items, 256 / 64 = 4 side by side in a
   * WG, one more level (log2(64 / 32)) each: its 4 rows at once, 50 ns. */
  struct wl_program *p = wl_program_new(1);
  p->measured_rank = 0;
  wl_compute(p, 0, 96, 0, STEP_BYTES);
  wl_kclass(p, 0, KC_REDUCE, 0, 0, 0);
  wl_block(p, 0, 32, 96 * 4, 64);
  CU_ASSERT_EQUAL(run(p, "cpufree", &h), SUBMIT + 1500 * NS + STEP + 50 * NS);
  wl_program_free(p);
}

/* A GEMM-like step of 96 WGs of 2^20 flops each: 2^20 * 4 / (128 * 1 GHz)
 * = 32.768 us at the peak. Generated (class gemm at feff 25 %): 131.072
 * us; the library's call (feff 200 %): 16.384 us where launched; a fused
 * kernel cannot call it and runs the generated form. */
static void test_library_call(void) {
  struct hw h;
  hw_one(&h);
  h.gpu.feff[KC_GEMM] = 25;
  h.gpu.feff[KC_LIBRARY] = 200;
  struct wl_program *p = wl_program_new(1);
  p->measured_rank = 0;
  wl_compute(p, 0, 96, 1 << 20, 0);
  wl_kclass(p, 0, KC_GEMM, 0, 0, 0);
  CU_ASSERT_EQUAL(run(p, "cpufree", &h), SUBMIT + 1500 * NS + 131072 * NS);
  wl_library(p, 0, 1 << 20, 0);
  CU_ASSERT_EQUAL(run(p, "cpufree", &h), SUBMIT + 1500 * NS + 131072 * NS);
  /* gds: 1.102 + 1.5 + 16.384 + 1.5 + 0.102 = 20.588, noticed at 21 us. */
  CU_ASSERT_EQUAL(run(p, "gds", &h), 21000 * NS);
  wl_program_free(p);
}

/* The chain workload (workloads/kinds/chain.c) as `trigsim run` reads it:
 * two streaming steps of 96 WGs, 13650 B a WG (1310400 B each), the second
 * after a tile sync, on one node: the program of two_steps(true), so the
 * policies end at cpufree 21.852 us and gds 26.5 us as derived above. The
 * run ends when the host has seen its last kernel complete: gds's last
 * teardown and completion are in its 26.5 us already; cpufree's kernel
 * then tears down (1.5 us) and its completion crosses the bus (102 ns):
 * 23.454 us, seen at the host's next 500 ns poll, 23.5 us. */
static void test_chain_workload(void) {
  static const char yaml[] =
      "name: t\n"
      "hardware:\n  network: {nodes: 1}\n"
      "workload:\n  kind: chain\n  steps:\n"
      "    - {name: a, class: streaming, wgs: 96, bytes: 1310400B}\n"
      "    - {name: b, class: streaming, wgs: 96, bytes: 1310400B, sync: tile}\n"
      "policies: [cpufree, gds]\n";
  char *path = tu_temp_file(".yaml", yaml, sizeof yaml - 1), *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", path, "-f", "csv", "-q", NULL}, &out, NULL), 0);
  /* Rows: scenario,workload,seed,policy,total_time_ps,policy_end_ps,... */
  CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\nt,chain,1,cpufree,23500000,21852000,"));
  CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\nt,chain,1,gds,26500000,26500000,"));
  g_free(out);
  g_free(path);
}

/* The chain's steps are checked where they are written: file:line:col of
 * the step (line 7 the first, 8 the second; column 7 the step's `{`). */
static void expect_chain_error(const char *steps, const char *want) {
  char *yaml = g_strdup_printf("name: t\nhardware:\n  network: {nodes: 1}\nworkload:\n"
                               "  kind: chain\n  steps:\n%s\n", steps);
  char *path = tu_temp_file(".yaml", yaml, strlen(yaml)), *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", path, NULL}, NULL, &err), 2);
  if (!err || !strstr(err, want)) fprintf(stderr, "got: %s\nwanted: %s\n", err, want);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, want));
  g_free(err);
  g_free(path);
  g_free(yaml);
}

static void test_chain_errors(void) {
  /* A library call is a step's library: form, not a class. */
  expect_chain_error("    - {name: a, class: library, wgs: 4}",
                     ".yaml:7:24: workload.steps[0].class: expected a kernel class (streaming, "
                     "stencil, spmv, reduction, axpy, gemm), got 'library'");
  expect_chain_error("    - {name: a, bytes: 4B}",
                     ".yaml:7:7: workload.steps[0].wgs: expected a number, got nothing");
  expect_chain_error("    - {name: a, wgs: 4, concurrent: true}",
                     ".yaml:7:7: workload.steps[0]: expected a first step that is not concurrent");
  expect_chain_error("    - {name: a, wgs: 4}\n    - {name: b, wgs: 4, concurrent: true, sync: tile}",
                     ".yaml:8:49: workload.steps[1].sync: expected no sync on a concurrent step");
  expect_chain_error("    - {name: a, wgs: 4, block: 32}",
                     ".yaml:7:7: workload.steps[0].rows: expected the reductions (rows) of a step "
                     "with a block, got nothing");
  expect_chain_error("    - {name: a, wgs: 4, sync: block}",
                     ".yaml:7:31: workload.steps[0].sync: expected grid or tile, got 'block'");
}

/* The study's Jacobi at 2 GPUs: 3 sweeps of a 64 x 64 x 8 slab each
 * (jacobi3d: 2 ranks along z; along x for the 2D tiling), under BASE. */
static sim_time jacobi2(const char *policy, struct hw *h, int pack, int64_t ops, int64_t px) {
  struct jacobi3d_config c = {.nx = 64, .ny = 64, .nz = 8, .px = px, .py = 1, .pz = 3 - px,
                              .iterations = 3, .elem = 8, .flops_per_point = 7,
                              .bytes_per_point = 16, .wg_tile = 16, .compute = true,
                              .pack = pack, .ops = ops};
  struct wl_program *p = wl_jacobi3d_program(&c);
  sim_time t = run(p, policy, h);
  wl_program_free(p);
  return t;
}

/* One blocking copy of 8 B between GPU and pageable host memory
 * (sys_blocking_copy) at the defaults: the host submits it (launch_submit
 * 1 us), the command crosses the bus (100 ns + 64 B of control at 256 Gbps,
 * 2 ns), the copy engine starts (copy_start 2.5 us), the flag crosses back
 * (102 ns; the 8 B of data, 0.25 ns to memory, ahead of it): it arrives
 * 2704 ns into the host's wait, noticed at the next 500 ns poll, 3000 ns;
 * then pageable_copy 1.4 us: 1000 + 3000 + 1400 = 5400 ns. Under interrupt
 * (5 us): 1000 + 2704 + 5000 + 1400 = 10104 ns. The host's wait blocks,
 * so with cpu.wake_jitter 1.78 us it wakes late by that mean, not a draw
 * (one time serves every copy): 10104 + 1780 = 11884 ns, whatever the
 * jitter's stream would have drawn. */
static void test_blocking_copy(void) {
  struct hw h;
  hw_defaults(&h);
  CU_ASSERT_EQUAL(sys_blocking_copy(&h.cfg, 8), 5400 * NS);
  h.cpu.switch_mode = CPU_SWITCH_INTERRUPT;
  CU_ASSERT_EQUAL(sys_blocking_copy(&h.cfg, 8), 10104 * NS);
  h.cpu.wake_jitter = 1780 * NS;
  CU_ASSERT_EQUAL(sys_blocking_copy(&h.cfg, 8), 11884 * NS);
}

/* DaCe + MPI (hdn, pack: host) at 2 GPUs, a 2D 64 x 64 domain a GPU (nz =
 * 1, as configs/autonomous-exec/jacobi2d-dace.yaml) split along x, 3
 * sweeps: each rank hands its x face (64 points, runs of one 8 B point) to
 * MPI as a strided datatype, which packs it a point at a time, 64 blocking
 * copies of 8 B (5400 ns each, test_blocking_copy), and unpacks the face
 * it gets the same way. Against pack: fused (no pack phases; the same
 * sweep kernels, sends and receives) and both ranks alike, every host step
 * after the first pack moves by the copies: 3 sweeps x (pack + unpack) x
 * 64 x 5400 ns = 2073.6 us. The host's traffic (64 x (32 + 8) B = 2560 B a
 * face at cpu.mem_bandwidth) counts for nothing where the policy has a
 * GPU. */
static void test_jacobi_dace_host_packing(void) {
  struct hw h;
  hw_defaults(&h);
  h.net.nodes = 2;
  struct jacobi3d_config c = {.nx = 64, .ny = 64, .nz = 1, .px = 2, .py = 1, .pz = 1,
                              .iterations = 3, .elem = 8, .flops_per_point = 5,
                              .bytes_per_point = 16, .wg_tile = 16, .compute = true,
                              .pack = JACOBI_PACK_HOST, .ops = 1};
  struct wl_program *p = wl_jacobi3d_program(&c);
  sim_time host = run(p, "hdn", &h);
  wl_program_free(p);
  c.pack = JACOBI_PACK_FUSED;
  p = wl_jacobi3d_program(&c);
  sim_time fused = run(p, "hdn", &h);
  wl_program_free(p);
  CU_ASSERT(host > 0 && fused > 0);
  CU_ASSERT_EQUAL(host - fused, 3 * 2 * 64 * 5400 * NS);
  /* z slabs (the 3D runs) have no strided face: host packing costs nothing. */
  CU_ASSERT_EQUAL(jacobi2("hdn", &h, JACOBI_PACK_HOST, 1, 1),
                  jacobi2("hdn", &h, JACOBI_PACK_FUSED, 1, 1));
}

/* A task runtime (copy, cpu.task_overhead) at 2 GPUs in z slabs: the host
 * issues, a sweep, OPS kernel launches and one copy of its face, each
 * paying the overhead on the one main thread; both ranks alike, so 20 us
 * more each moves the run by 3 sweeps x (OPS + 1) x 20 us. */
static void test_jacobi_task_overhead(void) {
  struct hw h;
  hw_defaults(&h);
  h.net.nodes = 2;
  for (int64_t ops = 1; ops <= 3; ops += 2) {
    h.cpu.task_overhead = 0;
    sim_time none = jacobi2("copy", &h, JACOBI_PACK_FUSED, ops, 1);
    h.cpu.task_overhead = 20 * US;
    sim_time some = jacobi2("copy", &h, JACOBI_PACK_FUSED, ops, 1);
    CU_ASSERT(none > 0);
    CU_ASSERT_EQUAL(some - none, 3 * (ops + 1) * 20 * US);
  }
}

int main(void) {
  static const struct tu_test tests[] = {
      {"two steps fused: grid sync, tile sync", test_two_steps_fused},
      {"two steps launched", test_two_steps_launched},
      {"two steps replayed as a graph", test_two_steps_graph},
      {"two steps waited for: a graph each", test_two_steps_graph_each},
      {"concurrent specialised blocks", test_concurrent_blocks},
      {"gds: lane 1 on a stream of its own", test_lane_stream_gds},
      {"a reduction at the fused block size", test_reduction_block_size},
      {"a library call where launched", test_library_call},
      {"the chain workload: two steps as two_steps(true)", test_chain_workload},
      {"the chain workload's errors", test_chain_errors},
      {"a blocking copy between GPU and host", test_blocking_copy},
      {"Jacobi at 2 GPUs: DaCe + MPI's host packing", test_jacobi_dace_host_packing},
      {"Jacobi at 2 GPUs: a task runtime's per-task overhead", test_jacobi_task_overhead},
      {NULL, NULL},
  };
  return tu_run_suite("fused", tests);
}
