/* GPU model: waves under an occupancy limit, launch + work + teardown =
 * a kernel's span, launch cost against queue depth (table and linear fit),
 * front-end serialization, WG flag polling (one flag per group of WGs:
 * flag_div), trigger stores (per WG and per work-item), step selectors,
 * commands and host requests by parts, device-wide barriers, stream
 * wait-on-flag, a copy home (Q_COPY_HOME), a stream marker (Q_MARK), the
 * bandwidth share (bw_share), occupancy and achieved bandwidth (Little's law), tail waves, L2, kernel classes, peer loads,
 * a reduction's second pass (its last WG that runs it), persistent
 * loops and the barrier table; loops (KS_LOOP: the same as the body
 * unrolled, execution indices, parts per execution, queue commands with
 * j); aggregation (gpu.aggregate: the same outcome with one event per WG
 * and per group); every time derived by hand.
 *
 * The rig: a node's bus (latency B = 100 ns, control messages free), the
 * GPU, the CPU and a fake NIC that records what it receives. Unless a test
 * says otherwise the CPU submits with launch_submit = 0 and notices a
 * kernel's completion record the moment it arrives (poll, interval 0), so
 * its main thread ends at (kernel complete) + B: "main_done". The fake NIC's
 * flag writes carry bytes = 0 (free control messages) so that they too
 * cross in exactly B. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "bus.h"
#include "cpu.h"
#include "engine.h"
#include "gpu.h"
#include "nodeprog.h"
#include "proto.h"
#include "testutil.h"
#include "trace.h"

#include "noderig.h"

/* GPU baseline for these tests: launch L = 1.5 us, teardown T = 1.5 us,
 * fence F = 200 ns (the defaults); CPU submits and notices at no cost. */
static void gpu_rig(struct rig *r) {
  rig_init(r);
  r->cpu.launch_submit = 0;
  r->cpu.switch_mode = CPU_SWITCH_POLL;
  r->cpu.switch_poll_interval = 0;
}

#define L (1500 * NS)
#define T (1500 * NS)
#define F (200 * NS)

static const struct qcmd q_k0[] = {{.kind = Q_KERNEL, .kernel = 0}};
static const struct hstep h_launch_wait0[] = {
    {.kind = HS_LAUNCH, .queue = 0, .qcmd = 0},
    {.kind = HS_WAIT_KERNEL, .kernel = 0},
};

/* 2 x CUs WGs with occupancy 1 take two waves. */
static void test_two_waves(void) {
  static const struct kstep steps[] = {{.kind = KS_COMPUTE, .time = 10 * US}};
  static const struct kernel k[] = {{.name = "waves", .n_wgs = 4, .steps = steps, .n_steps = 1}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2};
  for (int cus = 2; cus <= 4; cus += 2) {
    struct rig r;
    gpu_rig(&r);
    r.g.cus = cus;
    r.g.wgs_per_cu = 1;
    rig_build(&r, &prog);
    rig_run(&r);
    /* The queue command reaches the GPU at B = 0.1 us; launch to 1.6 us;
     * 4 WGs of W = 10 us on 2 slots: two waves, 2W = 20 us, to 21.6 us
     * (on 4 slots one wave, to 11.6 us); teardown to 23.1 us (13.1 us);
     * the record reaches the CPU B later: 23.2 us (13.2 us). */
    sim_time expect = cus == 2 ? B + L + 2 * 10 * US + T + B : B + L + 10 * US + T + B;
    CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), expect);
    CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wgs"), 4);
    CU_ASSERT_EQUAL(rep(&r, "node0.gpu.slots_max"), cus);
    CU_ASSERT_EQUAL(rep(&r, "node0.gpu.kernels"), 1);
    CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wg_time"), 4 * 10 * US);
    rig_free(&r);
  }
}

/* Roofline steps; launch + work + teardown equals the kernel's span, and
 * the timeline shows it. */
static void test_span_roofline(void) {
  /* cus 2, wgs_per_cu 2 (4 slots), 128 flops/CU/cycle at 1 GHz, 1024 Gbps.
   * Per slot: 128e9 / 2 = 64 Gflop/s and 1024e9 / 8 / 4 = 32 GB/s.
   * Step 1: 64000 flops = 1 us, 16000 B = 0.5 us -> 1 us (compute-bound).
   * Step 2: 6400 flops = 0.1 us, 96000 B = 3 us -> 3 us (memory-bound).
   * Step 3: time 250 ns overrides its flops. WG time W = 4.25 us. */
  static const struct kstep steps[] = {
      {.kind = KS_COMPUTE, .flops = 64000, .bytes = 16000},
      {.kind = KS_COMPUTE, .flops = 6400, .bytes = 96000},
      {.kind = KS_COMPUTE, .flops = 1000000000, .time = 250 * NS},
  };
  static const struct kernel k[] = {{.name = "roof", .n_wgs = 4, .steps = steps, .n_steps = 3}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2};
  struct rig r;
  gpu_rig(&r);
  r.g.cus = 2;
  r.g.wgs_per_cu = 2;
  r.g.flops_per_cu_cycle = 128;
  r.g.clock = 1000000000;
  r.g.mem_bandwidth = 1024000000000;
  CU_ASSERT_EQUAL(gpu_compute_time(&r.g, &steps[0]), 1 * US);
  CU_ASSERT_EQUAL(gpu_compute_time(&r.g, &steps[1]), 3 * US);
  CU_ASSERT_EQUAL(gpu_compute_time(&r.g, &steps[2]), 250 * NS);
  /* 1 flop: 1/64 ns = 15.625 ps, rounded up to 16 ps. */
  struct kstep one = {.kind = KS_COMPUTE, .flops = 1};
  CU_ASSERT_EQUAL(gpu_compute_time(&r.g, &one), 16);
  rig_build(&r, &prog);
  char *path = tu_temp_file(".json", "", 0);
  char *err = NULL;
  struct trace *t = trace_open(path, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  sim_set_trace(r.e, t, NULL);
  rig_run(&r);
  CU_ASSERT_TRUE(trace_close(t, &err));
  /* Span = L + W + T = 1.5 + 4.25 + 1.5 = 7.25 us, from B to B + 7.25 us;
   * main_done = 2B + 7.25 us = 7.45 us. */
  sim_time w = 4250 * NS;
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), B + L + w + T + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.launch_time"), L);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.teardown_time"), T);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wg_time"), 4 * w);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.wait_kernel_time"), B + L + w + T + B);
  char *json = NULL;
  CU_ASSERT_TRUE(g_file_get_contents(path, &json, NULL, NULL));
  CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"launch\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"roof\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(json, "\"teardown\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(json, "queue0"));
  CU_ASSERT_PTR_NOT_NULL(strstr(json, "cu1.1"));
  g_free(json);
  g_free(path);
  rig_free(&r);
}

/* Three kernels enqueued at once on queue 0 have depths 1, 2, 3 (each is
 * appended while those before it are not complete). */
static void depth_run(int use_table) {
  static const struct kstep steps[] = {{.kind = KS_COMPUTE, .time = 1 * US}};
  static const struct kernel k[] = {{.name = "a", .n_wgs = 1, .steps = steps, .n_steps = 1},
                                    {.name = "b", .n_wgs = 1, .steps = steps, .n_steps = 1},
                                    {.name = "c", .n_wgs = 1, .steps = steps, .n_steps = 1}};
  static const struct qcmd qc[] = {{.kind = Q_KERNEL, .kernel = 0},
                                   {.kind = Q_KERNEL, .kernel = 1},
                                   {.kind = Q_KERNEL, .kernel = 2}};
  static const struct hstep h[] = {{.kind = HS_LAUNCH, .qcmd = 0},
                                   {.kind = HS_LAUNCH, .qcmd = 1},
                                   {.kind = HS_LAUNCH, .qcmd = 2},
                                   {.kind = HS_WAIT_KERNEL, .kernel = 2}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 3, .qcmds = qc, .n_qcmds = 3,
                                       .host = h, .n_host = 4};
  struct rig r;
  gpu_rig(&r);
  r.g.teardown_latency = 1 * US;
  if (use_table) {
    char *err = NULL;
    CU_ASSERT_TRUE(par_set(par_group_find(&gpu_params, "launch_table"), &r.g, "1:2us, 3:6us",
                           &err));
    /* Depth 2 lies halfway: 4 us; beyond the last point it clamps. */
    CU_ASSERT_EQUAL(gpu_launch_time(&r.g, 2), 4 * US);
    CU_ASSERT_EQUAL(gpu_launch_time(&r.g, 9), 6 * US);
  } else {
    r.g.launch_latency = 2 * US;
    r.g.launch_per_queued = 2 * US; /* 2 + 2 (d - 1): 2, 4, 6 us */
    CU_ASSERT_EQUAL(gpu_launch_time(&r.g, 5), 10 * US);
  }
  rig_build(&r, &prog);
  rig_run(&r);
  /* All three reach the GPU at B = 0.1 us. a: launch 2 -> 2.1, run -> 3.1,
   * teardown 1 -> 4.1; b: launch 4 -> 8.1, 9.1, 10.1; c: launch 6 -> 16.1,
   * 17.1, 18.1; its record reaches the CPU at 18.2 us. */
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.launch_time"), 12 * US);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), B + (2 + 1 + 1) * US + (4 + 1 + 1) * US +
                                                      (6 + 1 + 1) * US + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.kernels"), 3);
  rig_free(&r);
}

static void test_launch_table(void) { depth_run(1); }
static void test_launch_linear(void) { depth_run(0); }

/* gpu.queued_launch overlap (CUDA streams): a kernel queued behind another
 * is prepared while that one runs. Launch latency 2 us, launch_gap 0.5 us,
 * teardown 1 us, each kernel 1 us of work.
 * - Both enqueued at once (they reach the GPU at B = 0.1 us): a launches
 *   0.1-2.1, runs to 3.1, tears down to 4.1; b was ready at 0.1 + 2 = 2.1,
 *   so it starts launch_gap after a completes: 4.6, runs to 5.6, tears
 *   down to 6.6; its record reaches the CPU at 6.7 us. Launch time 2 + 0.5
 *   us. Serial, b launches 4.1-6.1 and the CPU has it at 8.2 us.
 * - b enqueued after 3 us of host work (at the GPU 3.1 us): ready at 3.1 +
 *   2 = 5.1, later than 4.1 + 0.5: it starts at 5.1, runs to 6.1, tears
 *   down to 7.1; the CPU has it at 7.2 us (serial: 8.2 us again). */
static void overlap_run(int late, int overlap, sim_time want_done, sim_time want_launch) {
  static const struct kstep steps[] = {{.kind = KS_COMPUTE, .time = 1 * US}};
  static const struct kernel k[] = {{.name = "a", .n_wgs = 1, .steps = steps, .n_steps = 1},
                                    {.name = "b", .n_wgs = 1, .steps = steps, .n_steps = 1}};
  static const struct qcmd qc[] = {{.kind = Q_KERNEL, .kernel = 0},
                                   {.kind = Q_KERNEL, .kernel = 1}};
  static const struct hstep now[] = {{.kind = HS_LAUNCH, .qcmd = 0},
                                     {.kind = HS_LAUNCH, .qcmd = 1},
                                     {.kind = HS_WAIT_KERNEL, .kernel = 1}};
  static const struct hstep later[] = {{.kind = HS_LAUNCH, .qcmd = 0},
                                       {.kind = HS_COMPUTE, .time = 3 * US},
                                       {.kind = HS_LAUNCH, .qcmd = 1},
                                       {.kind = HS_WAIT_KERNEL, .kernel = 1}};
  const struct nodeprog prog = {.kernels = k, .n_kernels = 2, .qcmds = qc, .n_qcmds = 2,
                                .host = late ? later : now, .n_host = late ? 4 : 3};
  struct rig r;
  gpu_rig(&r);
  r.g.launch_latency = 2 * US;
  r.g.teardown_latency = 1 * US;
  char *err = NULL;
  CU_ASSERT_TRUE(par_set(par_group_find(&gpu_params, "queued_launch"), &r.g,
                         overlap ? "overlap" : "serial", &err));
  CU_ASSERT_TRUE(par_set(par_group_find(&gpu_params, "launch_gap"), &r.g, "500ns", &err));
  rig_build(&r, &prog);
  rig_run(&r);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), want_done);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.launch_time"), want_launch);
  rig_free(&r);
}

static void test_queued_launch_overlap(void) {
  overlap_run(0, 1, 6700 * NS, 2500 * NS);
  overlap_run(0, 0, 8200 * NS, 4 * US);
  overlap_run(1, 1, 7200 * NS, 3 * US);
  overlap_run(1, 0, 8200 * NS, 4 * US);
}

/* One front end: launches of different queues serialize, the work does not. */
static void test_front_end_serializes(void) {
  static const struct kstep steps[] = {{.kind = KS_COMPUTE, .time = 1 * US}};
  static const struct kernel k[] = {{.name = "a", .n_wgs = 1, .steps = steps, .n_steps = 1},
                                    {.name = "b", .n_wgs = 1, .steps = steps, .n_steps = 1}};
  static const struct qcmd qc[] = {{.kind = Q_KERNEL, .kernel = 0},
                                   {.kind = Q_KERNEL, .kernel = 1}};
  static const struct hstep h[] = {{.kind = HS_LAUNCH, .queue = 0, .qcmd = 0},
                                   {.kind = HS_LAUNCH, .queue = 1, .qcmd = 1},
                                   {.kind = HS_WAIT_KERNEL, .kernel = 1}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 2, .qcmds = qc, .n_qcmds = 2,
                                       .host = h, .n_host = 3};
  struct rig r;
  gpu_rig(&r);
  rig_build(&r, &prog);
  rig_run(&r);
  /* Both at 0.1 us, each at depth 1 of its queue. a launches 0.1-1.6, b
   * 1.6-3.1 (waits for the front end), runs to 4.1, teardown to 5.6; its
   * record reaches the CPU at 5.7 us. */
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), B + 2 * L + 1 * US + T + B);
  rig_free(&r);
}

/* A 1 us kernel of one WG, then queue command 1 behind it; the host
 * waits on flag 1 as a stream synchronize (test_copy_home,
 * test_stream_mark). */
static const struct kstep k1us_steps[] = {{.kind = KS_COMPUTE, .time = 1 * US}};
static const struct kernel k1us[] = {{.name = "k", .n_wgs = 1, .steps = k1us_steps, .n_steps = 1}};
static const struct hstep h_behind_sync[] = {{.kind = HS_LAUNCH, .queue = 0, .qcmd = 0},
                                             {.kind = HS_LAUNCH, .queue = 0, .qcmd = 1},
                                             {.kind = HS_WAIT_FLAG, .flag = 1, .value = 1,
                                              .stream_sync = 1}};

/* A copy home (Q_COPY_HOME, cudaMemcpyAsync device-to-host) behind a
 * kernel on one queue: the copy engine starts when the kernel has
 * completed, pays copy_start C, then its 8 B cross to host memory and the
 * completion flag follows them to the CPU. Both commands reach the GPU at
 * B = 0.1 us; the kernel launches to 1.6, runs to 2.6, tears down to 4.1;
 * the copy starts then and sends at 4.1 + C = 6.1 us. Its 8 B take 0.125
 * ns on the bus (512 Gbps) and land at 6.1 us + 0.125 ns + B; the flag
 * (free, B) is held behind them (posted writes keep their order), so the
 * host, which waits on the flag as a stream synchronize, is done at
 * 6.200125 us. */
static void test_copy_home(void) {
  static const struct qcmd qc[] = {{.kind = Q_KERNEL, .kernel = 0},
                                   {.kind = Q_COPY_HOME, .flag = 1, .bytes = 8}};
  static const struct nodeprog prog = {.kernels = k1us, .n_kernels = 1, .qcmds = qc,
                                       .n_qcmds = 2, .host = h_behind_sync, .n_host = 3,
                                       .n_flags = 1};
  struct rig r;
  gpu_rig(&r);
  r.g.copy_start = 2 * US;
  rig_build(&r, &prog);
  rig_run(&r);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), B + L + 1 * US + T + 2 * US + 125 + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.to_mem_bytes"), 8);
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.to_mem_msgs"), 1);
  /* A stream synchronize's wait, from 0 (free submits) to the flag. */
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.wait_kernel_time"), rep(&r, "node0.cpu.main_done"));
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.wait_flag_time"), 0);
  rig_free(&r);
}

/* A stream marker (Q_MARK) behind a kernel: once the kernel has
 * completed (launched B + L = 1.6 us, ran to 2.6, torn down to 4.1) the
 * front end sends the marker's flag to the CPU at once; it arrives B
 * later, and the host, waiting on it as a stream synchronize, is done at
 * 4.2 us, all of it a kernel wait. */
static void test_stream_mark(void) {
  static const struct qcmd qc[] = {{.kind = Q_KERNEL, .kernel = 0}, {.kind = Q_MARK, .flag = 1}};
  static const struct nodeprog prog = {.kernels = k1us, .n_kernels = 1, .qcmds = qc,
                                       .n_qcmds = 2, .host = h_behind_sync, .n_host = 3,
                                       .n_flags = 1};
  struct rig r;
  gpu_rig(&r);
  rig_build(&r, &prog);
  rig_run(&r);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), B + L + 1 * US + T + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.wait_kernel_time"), rep(&r, "node0.cpu.main_done"));
  CU_ASSERT_EQUAL(rep(&r, "node0.bus.to_mem_msgs"), 0);
  rig_free(&r);
}

/* A WG waiting on a flag goes on at its first poll tick (start + k P) at
 * or after the flag's arrival (a flag exactly on a tick: that tick, gpu.h);
 * it then triggers, and the store reaches the NIC F + B later. */
static void test_flag_polling(void) {
  static const struct kstep steps[] = {{.kind = KS_WAIT_FLAG, .flag = 1, .value = 1},
                                       {.kind = KS_TRIGGER, .tag = 7, .tag_div = 1}};
  static const struct kernel k[] = {{.name = "poll", .n_wgs = 1, .steps = steps, .n_steps = 2}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2, .n_flags = 1};
  /* The WG starts polling at S = B + L = 1.6 us; P = 1 us: ticks at 1.6,
   * 2.6, 3.6 ... The NIC sends the flag at `send`; it reaches the GPU at
   * send + B. */
  const sim_time p = 1 * US, s0 = B + L;
  const sim_time sends[] = {0,         1500 * NS, 2500 * NS,      3250 * NS,
                            3500 * NS - 1, 3500 * NS, 3500 * NS + 1};
  const sim_time go[] = {s0, s0, s0 + p, s0 + 2 * p, s0 + 2 * p, s0 + 2 * p, s0 + 3 * p};
  sim_time added_sum = 0;
  for (size_t i = 0; i < G_N_ELEMENTS(sends); i++) {
    struct rig r;
    gpu_rig(&r);
    r.g.poll_interval = p;
    r.script = (struct fn_script){1, {{sends[i], PK_FLAG, DEV_GPU, 0, 1, 1}}};
    rig_build(&r, &prog);
    rig_run(&r);
    /* Flag at 0.1 us (before the wait): goes on at S. At S = 1.6 itself
     * (the same instant the WG starts waiting: tick k = 0): S. At 2.6: the
     * tick 2.6 itself. At 3.35: 3.6. At 3.6 us - 1 ps: 3.6. At 3.6: 3.6
     * (exactly on a tick: that tick). At 3.6 us + 1 ps: 4.6. */
    struct fnic *f = rig_nic(&r);
    CU_ASSERT_EQUAL_FATAL(f->n, 1);
    CU_ASSERT_EQUAL(f->kind[0], PK_TRIGGER);
    CU_ASSERT_EQUAL(f->a[0], 7);
    CU_ASSERT_EQUAL(f->at[0], go[i] + F + B);
    sim_time arrival = sends[i] + B, added = go[i] - (arrival > s0 ? arrival : s0);
    CU_ASSERT(added >= 0 && added < p);
    added_sum += added;
    CU_ASSERT_EQUAL(rep(&r, "node0.gpu.poll_time"), go[i] - s0);
    CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), go[i] + F + T + B);
    rig_free(&r);
  }
  /* 0 + 0 + 0 + 0.25 + 1 ps + 0 + (1 us - 1 ps). */
  CU_ASSERT_EQUAL(added_sum, 250 * NS + p);
}

/* A trigger store costs the fence, then crosses the bus; stores of several
 * WGs contend on the bus's NIC direction. Device-initiated commands too. */
static void test_trigger_store(void) {
  static const struct kstep steps[] = {
      {.kind = KS_COMPUTE, .time = 1 * US},
      {.kind = KS_TRIGGER, .tag = 10, .tag_div = 1},
      {.kind = KS_TRIGGER, .tag = 20, .tag_div = 2},
      {.kind = KS_NIC_CMD, .cmd = 1, .only_wg = 2},
  };
  static const struct kernel k[] = {{.name = "trig", .n_wgs = 2, .steps = steps, .n_steps = 4}};
  static const struct nic_cmd cmds[] = {{.op = NIC_PUT, .bytes = 1},
                                        {.op = NIC_PUT, .dst_node = 3, .bytes = 4096}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .cmds = cmds, .n_cmds = 2, .host = h_launch_wait0,
                                       .n_host = 2};
  struct rig r;
  gpu_rig(&r);
  r.bus.control_bytes = 64; /* 64 B at 512 Gbps: 1 ns per control message */
  rig_build(&r, &prog);
  rig_run(&r);
  /* Queue command: 1 ns + B -> GPU at 0.101 us; launch to 1.601; compute
   * to 2.601. Both WGs: fence to 2.801, stores leave together; the NIC
   * direction serializes them 1 ns each: at 2.802 + B = 2.902 (tag 10) and
   * 2.903 (tag 11). Second trigger: fence to 3.001, stores at 3.102 and
   * 3.103, tag 20 + wg / 2 = 20 for both. WG 1 alone: fence to 3.201, its
   * command at 3.302. WG 1 ends at 3.201; teardown to 4.701; the record
   * reaches the CPU at 4.802 us. */
  const sim_time c = 1 * NS, t0 = c + B + L + 1 * US;
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 5);
  const sim_time at[] = {t0 + F + c + B,         t0 + F + 2 * c + B,
                         t0 + 2 * F + c + B,     t0 + 2 * F + 2 * c + B,
                         t0 + 3 * F + c + B};
  const uint32_t tag[] = {10, 11, 20, 20};
  for (int i = 0; i < 5; i++) CU_ASSERT_EQUAL(f->at[i], at[i]);
  for (int i = 0; i < 4; i++) {
    CU_ASSERT_EQUAL(f->kind[i], PK_TRIGGER);
    CU_ASSERT_EQUAL(f->a[i], tag[i]);
  }
  CU_ASSERT_EQUAL(f->kind[4], PK_NIC_CMD);
  CU_ASSERT_EQUAL(f->a[4], 1);
  CU_ASSERT_EQUAL(f->cmd[4].bytes, 4096);
  CU_ASSERT_EQUAL(f->cmd[4].dst_node, 3);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), t0 + 3 * F + T + c + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.triggers"), 4);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.nic_cmds"), 1);
  rig_free(&r);
}

/* Device-wide barrier: B(n) = base + per_wg * n for n WGs arriving at
 * once; each arrive is served in turn, so the release is the latest of an
 * arrival's time + B(the WGs still to come, its own among them) (gpu.h).
 * WG 2 computes for LATE; the other three arrive at once. */
static sim_time barrier_run(sim_time late, struct rig *r) {
  const struct kstep steps[] = {
      {.kind = KS_COMPUTE, .time = late, .only_wg = 3},
      {.kind = KS_BARRIER},
      {.kind = KS_TRIGGER, .tag = 5, .tag_div = 1, .only_wg = 1},
  };
  const struct kernel k[] = {{.name = "bar", .n_wgs = 4, .steps = steps, .n_steps = 3}};
  const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                .host = h_launch_wait0, .n_host = 2};
  gpu_rig(r);
  r->g.cus = 4;
  r->g.wgs_per_cu = 1;
  r->g.barrier_base = 1 * US;
  r->g.barrier_per_wg = 250 * NS;
  rig_build(r, &prog);
  rig_run(r);
  struct fnic *f = rig_nic(r);
  CU_ASSERT_EQUAL_FATAL(f->n, 1);
  CU_ASSERT_EQUAL(f->a[0], 5);
  CU_ASSERT_EQUAL(rep(r, "node0.gpu.barriers"), 1);
  return f->at[0];
}

/* A table whose one-WG barrier costs nothing: WG 2's arrival at 3.6 us
 * is due at once, the same instant as the idle WGs' 1.6 + B(4) = 3.6 (B
 * 0 at 1 WG, 2 us at 4): the release at 3.6, set by their earlier
 * arrival, runs after the last arrival's event (no assertion). */
static void test_barrier_free_last(void) {
  static const struct kstep steps[] = {
      {.kind = KS_COMPUTE, .time = 2 * US, .only_wg = 3},
      {.kind = KS_BARRIER},
      {.kind = KS_TRIGGER, .tag = 5, .tag_div = 1, .only_wg = 1},
  };
  static const struct kernel k[] = {{.name = "bar", .n_wgs = 4, .steps = steps, .n_steps = 3}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2};
  struct rig r;
  gpu_rig(&r);
  r.g.cus = 4;
  r.g.wgs_per_cu = 1;
  r.g.barrier_table = (struct par_table){.n = 2, .x = {1, 4}, .y = {0, 2 * US}};
  rig_build(&r, &prog);
  rig_run(&r);
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 1);
  CU_ASSERT_EQUAL(f->at[0], B + L + 2 * US + F + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.barrier_time"), 0);
  rig_free(&r);
}

static void test_barrier(void) {
  struct rig r;
  /* WGs start at 1.6 us; the three idle ones' arrives are done at 1.6 +
   * B(4) = 1.6 + 1 + 4 x 0.25 = 3.6; WG 2 arrives at 3.6 and, the last
   * of one, pays B(1) = 1.25: all go on at 4.85 (the barrier's cost after
   * the last arrival 1.25 us); WG 0 alone stores: fence to 5.05, at the
   * NIC 5.15 us. Kernel ends 5.05, teardown 6.55, CPU 6.65. */
  sim_time go = B + L + 2 * US + 1250 * NS;
  CU_ASSERT_EQUAL(barrier_run(2 * US, &r), go + F + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.barrier_time"), 1250 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), go + F + T + B);
  rig_free(&r);
  /* WG 2 arrives at 1.6 + 0.5 = 2.1, its B(1) to 3.35: the idle ones'
   * arrives, done at 3.6, set the release (1.5 us after the last arrival). */
  go = B + L + 2 * US;
  CU_ASSERT_EQUAL(barrier_run(500 * NS, &r), go + F + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.barrier_time"), 1500 * NS);
CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), go + F + T + B);
  rig_free(&r);
}

/* Stream wait-on-flag blocks the queue; the kernel behind it launches
 * stream_wait_latency after the flag arrives. A doorbell moves on at once. */
static void test_stream_wait(void) {
  static const struct kstep steps[] = {{.kind = KS_COMPUTE, .time = 1 * US}};
  static const struct kernel k[] = {{.name = "after", .n_wgs = 1, .steps = steps, .n_steps = 1}};
  static const struct qcmd qc[] = {{.kind = Q_WAIT_FLAG, .flag = 1, .value = 2},
                                   {.kind = Q_DOORBELL, .cmd_id = 9},
                                   {.kind = Q_KERNEL, .kernel = 0}};
  static const struct hstep h[] = {{.kind = HS_LAUNCH, .qcmd = 0},
                                   {.kind = HS_LAUNCH, .qcmd = 1},
                                   {.kind = HS_LAUNCH, .qcmd = 2},
                                   {.kind = HS_WAIT_KERNEL, .kernel = 0}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = qc, .n_qcmds = 3,
                                       .host = h, .n_host = 4, .n_flags = 1};
  struct rig r;
  gpu_rig(&r);
  r.g.stream_wait_latency = 1 * US;
  /* Two increments: the flag reaches 2 with the second, sent at 5 us. */
  r.script = (struct fn_script){2, {{2 * US, PK_FLAG, DEV_GPU, 0, 1, 1},
                                    {5 * US, PK_FLAG, DEV_GPU, 0, 1, 1}}};
  rig_build(&r, &prog);
  rig_run(&r);
  /* Flag = 2 at the GPU at 5.1 us; + 1 us: the doorbell leaves at 6.1 (NIC
   * 6.2); the kernel (depth 3: launch_per_queued is 0) launches 6.1-7.6,
   * runs to 8.6, teardown to 10.1; CPU at 10.2 us. */
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 1);
  CU_ASSERT_EQUAL(f->kind[0], PK_DOORBELL);
  CU_ASSERT_EQUAL(f->a[0], 9);
  CU_ASSERT_EQUAL(f->at[0], 5 * US + B + 1 * US + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), 5 * US + B + 1 * US + L + 1 * US + T + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.flag_updates"), 2);
  rig_free(&r);
}

/* The two values of a pair, smallest first (messages the NIC receives at
 * the same instant come in no order these tests rely on). */
static void pair_sorted(const uint32_t *v, uint32_t *lo, uint32_t *hi) {
  *lo = MIN(v[0], v[1]);
  *hi = MAX(v[0], v[1]);
}

/* KS_WAIT_FLAG with flag_div 2: WG w polls flag 1 + w / 2, so WGs 0 and 1
 * poll flag 1 and WGs 2 and 3 flag 2; each pair goes on at its own flag's
 * first poll tick, whatever happens to the other flag. */
static void test_flag_div(void) {
  static const struct kstep steps[] = {
      {.kind = KS_WAIT_FLAG, .flag = 1, .flag_div = 2, .value = 1},
      {.kind = KS_TRIGGER, .tag = 10, .tag_div = 1},
  };
  static const struct kernel k[] = {{.name = "fdiv", .n_wgs = 4, .steps = steps, .n_steps = 2}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2, .n_flags = 2};
  struct rig r;
  gpu_rig(&r);
  const sim_time p = 1 * US, s0 = B + L;
  r.g.poll_interval = p;
  /* Flag 2 first (sent 2.0 us, at the GPU 2.1), flag 1 later (sent 3.25 us,
   * at the GPU 3.35). */
  r.script = (struct fn_script){2, {{2000 * NS, PK_FLAG, DEV_GPU, 0, 2, 1},
                                    {3250 * NS, PK_FLAG, DEV_GPU, 0, 1, 1}}};
  rig_build(&r, &prog);
  rig_run(&r);
  /* All four WGs start polling at S = B + L = 1.6 us; ticks 1.6, 2.6, 3.6.
   * WGs 2, 3 (flag 2 at 2.1): tick 2.6 = S + P; fence: tags 12, 13 at the
   * NIC at 2.6 + F + B = 2.9 us. WGs 0, 1 (flag 1 at 3.35): not released
   * by flag 2; tick 3.6 = S + 2P; tags 10, 11 at 3.9 us. Poll time
   * 2 x 1 + 2 x 2 = 6 us. The kernel ends 3.8, teardown to 5.3, CPU 5.4. */
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 4);
  uint32_t lo, hi;
  for (int i = 0; i < 4; i++) CU_ASSERT_EQUAL(f->kind[i], PK_TRIGGER);
  CU_ASSERT_EQUAL(f->at[0], s0 + p + F + B);
  CU_ASSERT_EQUAL(f->at[1], s0 + p + F + B);
  pair_sorted(&f->a[0], &lo, &hi);
  CU_ASSERT_EQUAL(lo, 12);
  CU_ASSERT_EQUAL(hi, 13);
  CU_ASSERT_EQUAL(f->at[2], s0 + 2 * p + F + B);
  CU_ASSERT_EQUAL(f->at[3], s0 + 2 * p + F + B);
  pair_sorted(&f->a[2], &lo, &hi);
  CU_ASSERT_EQUAL(lo, 10);
  CU_ASSERT_EQUAL(hi, 11);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.poll_time"), 2 * p + 2 * 2 * p);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.flag_updates"), 2);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), s0 + 2 * p + F + T + B);
  rig_free(&r);
}

/* KS_TRIGGER at work-item granularity: one posted message per WG carrying
 * b = stores (one fence, not one per store); stores 0 means 1. */
static void test_trigger_work_items(void) {
  static const struct kstep steps[] = {
      {.kind = KS_TRIGGER, .tag = 5, .tag_div = 1, .stores = 64},
      {.kind = KS_TRIGGER, .tag = 9, .tag_div = 2},
  };
  static const struct kernel k[] = {{.name = "wi", .n_wgs = 2, .steps = steps, .n_steps = 2}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2};
  struct rig r;
  gpu_rig(&r);
  rig_build(&r, &prog);
  rig_run(&r);
  /* WGs start at S = 1.6 us. First step: fence to 1.8; tags 5 and 6 (tag +
   * w / 1), 64 stores each, at the NIC at 1.9 us. Second: fence to 2.0;
   * tag 9 + w / 2 = 9 for both, b = 1, at 2.1 us. Four messages, not
   * 2 x 64 + 2. The kernel ends 2.0, teardown 3.5, CPU 3.6 us. */
  const sim_time s0 = B + L;
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 4);
  uint32_t lo, hi;
  for (int i = 0; i < 4; i++) CU_ASSERT_EQUAL(f->kind[i], PK_TRIGGER);
  for (int i = 0; i < 2; i++) {
    CU_ASSERT_EQUAL(f->at[i], s0 + F + B);
    CU_ASSERT_EQUAL(f->b[i], 64);
    CU_ASSERT_EQUAL(f->at[2 + i], s0 + 2 * F + B);
    CU_ASSERT_EQUAL(f->a[2 + i], 9);
    CU_ASSERT_EQUAL(f->b[2 + i], 1);
  }
  pair_sorted(&f->a[0], &lo, &hi);
  CU_ASSERT_EQUAL(lo, 5);
  CU_ASSERT_EQUAL(hi, 6);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.triggers"), 4);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), s0 + 2 * F + T + B);
  rig_free(&r);
}

/* Selectors: 8 WGs tiling 4 x 2 (WG w at column w % 4, row w / 4). The
 * left edge {first 0, stride 4, count 2} = WGs 0, 4 stores a trigger, the
 * right edge {3, 4, 2} = WGs 3, 7 waits on a flag, WGs {1, 1, 2} = 1, 2
 * post a command; every other WG skips each step at no cost. */
static void test_selectors(void) {
  static const struct kstep steps[] = {
      {.kind = KS_COMPUTE, .time = 1 * US},
      {.kind = KS_TRIGGER, .tag = 10, .tag_div = 1, .sel_first = 0, .sel_stride = 4,
       .sel_count = 2},
      {.kind = KS_WAIT_FLAG, .flag = 1, .value = 1, .sel_first = 3, .sel_stride = 4,
       .sel_count = 2},
      {.kind = KS_NIC_CMD, .cmd = 0, .sel_first = 1, .sel_stride = 1, .sel_count = 2},
  };
  static const struct kernel k[] = {{.name = "edges", .n_wgs = 8, .steps = steps, .n_steps = 4}};
  static const struct nic_cmd cmds[] = {{.op = NIC_PUT, .bytes = 256}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .cmds = cmds, .n_cmds = 1, .host = h_launch_wait0,
                                       .n_host = 2, .n_flags = 1};
  struct rig r;
  gpu_rig(&r); /* poll_interval 100 ns (default) */
  r.script = (struct fn_script){1, {{3000 * NS, PK_FLAG, DEV_GPU, 0, 1, 1}}};
  rig_build(&r, &prog);
  rig_run(&r);
  /* S = 1.6 us, compute to 2.6 for all. WGs 0, 4: fence to 2.8, tags 10,
   * 14 at the NIC at 2.9 us; they skip the wait and the command: end 2.8.
   * WGs 1, 2 skip the trigger and the wait: fence to 2.8, two commands at
   * 2.9 us; end 2.8. WGs 3, 7 skip the trigger, poll from 2.6; the flag
   * reaches the GPU at 3.1 = 2.6 + 5 x 100 ns (a tick): go on at 3.1, skip
   * the command, end 3.1. WGs 5, 6 skip all three: end 2.6.
   * wg_time = 4 x 1.2 + 2 x 1.0 + 2 x 1.5 = 9.8 us; poll 2 x 0.5 us.
   * The kernel ends 3.1, teardown to 4.6, CPU 4.7 us. */
  const sim_time s0 = B + L, t2 = s0 + 1 * US;
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 4);
  uint32_t tags[2], n_trig = 0, n_cmd = 0;
  for (int i = 0; i < 4; i++) {
    CU_ASSERT_EQUAL(f->at[i], t2 + F + B);
    if (f->kind[i] == PK_TRIGGER && n_trig < 2) tags[n_trig++] = f->a[i];
    else if (f->kind[i] == PK_NIC_CMD) {
      n_cmd++;
      CU_ASSERT_EQUAL(f->a[i], 0);
      CU_ASSERT_EQUAL(f->cmd[i].bytes, 256);
    }
  }
  CU_ASSERT_EQUAL_FATAL(n_trig, 2);
  CU_ASSERT_EQUAL(n_cmd, 2);
  uint32_t lo, hi;
  pair_sorted(tags, &lo, &hi);
  CU_ASSERT_EQUAL(lo, 10);
  CU_ASSERT_EQUAL(hi, 14);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.triggers"), 2);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.nic_cmds"), 2);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wgs"), 8);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wg_time"), 4 * (1 * US + F) + 2 * 1 * US + 2 * 1500 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.poll_time"), 2 * 500 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), t2 + 500 * NS + T + B);
  rig_free(&r);
}

/* A reduction performed by WGs 0-2 of a 4-WG kernel (WG 3 is a persistent
 * kernel's communication WG: cpufree CG's, which never runs a dot): its
 * second pass (reduce_pass 3 us) is paid by WG 2, the last WG that runs
 * it. S = B + L; WGs 0, 1 end at S + 1 us, WG 2 at S + 1 + 3 = S + 4 us,
 * WG 3 skips the step and ends at S. wg_time = 1 + 1 + 4 = 6 us; the
 * kernel ends at S + 4 us, teardown T, the CPU B later. (Before the fix
 * the pass went to WG 3, which skips the step: nobody paid it, and the
 * kernel ended at S + 1 us.) The same aggregated and per WG. */
static void reduce_pass_run(int agg) {
  static const struct kstep steps[] = {{.kind = KS_COMPUTE, .kclass = KC_REDUCE, .time = 1 * US,
                                        .sel_first = 0, .sel_stride = 1, .sel_count = 3}};
  static const struct kernel k[] = {{.name = "dot", .n_wgs = 4, .steps = steps, .n_steps = 1}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2};
  struct rig r;
  gpu_rig(&r);
  r.g.reduce_pass = 3 * US;
  r.g.aggregate = agg;
  rig_build(&r, &prog);
  rig_run(&r);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wg_time"), 6 * US);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), B + L + 4 * US + T + B);
  rig_free(&r);
  /* The WG that pays: the selector's last; the kernel's last without one;
   * nobody when one WG does the whole reduction or the step is no dot. */
  CU_ASSERT_EQUAL(gpu_reduce_last_wg(&k[0], &steps[0]), 2);
  struct kstep all = steps[0];
  all.sel_count = 0;
  CU_ASSERT_EQUAL(gpu_reduce_last_wg(&k[0], &all), 3);
  struct kstep strided = steps[0];
  strided.sel_stride = 2, strided.sel_count = 2; /* WGs 0, 2 */
  CU_ASSERT_EQUAL(gpu_reduce_last_wg(&k[0], &strided), 2);
  struct kstep one = steps[0];
  one.sel_count = 1;
  CU_ASSERT_EQUAL(gpu_reduce_last_wg(&k[0], &one), UINT32_MAX);
  struct kstep axpy = all;
  axpy.kclass = KC_AXPY;
  CU_ASSERT_EQUAL(gpu_reduce_last_wg(&k[0], &axpy), UINT32_MAX);
}
static void test_reduce_pass_selected(void) { reduce_pass_run(1); }
static void test_reduce_pass_selected_per_wg(void) { reduce_pass_run(0); }

/* Device-initiated commands (KS_NIC_CMD) and host requests (KS_HOST_REQUEST)
 * by parts: 5 WGs, tag_div 2, parts {0, 1}, {2, 3} and the uneven {4}.
 * Every WG pays the fence; the last of a part to arrive posts command
 * cmd + part, once. A later step posts for the selected WGs {0, 4} as one
 * part (tag_div 5), when the later of the two arrives. */
static void parts_run(uint8_t kind) {
  const struct kstep steps[] = {
      {.kind = KS_COMPUTE, .time = 1 * US, .only_wg = 2},
      {.kind = KS_COMPUTE, .time = 2 * US, .only_wg = 4},
      {.kind = kind, .cmd = 0, .tag_div = 2},
      {.kind = KS_COMPUTE, .time = 3 * US, .only_wg = 1},
      {.kind = kind, .cmd = 3, .tag_div = 5, .sel_first = 0, .sel_stride = 4, .sel_count = 2},
  };
  const struct kernel k[] = {{.name = "parts", .n_wgs = 5, .steps = steps, .n_steps = 5}};
  static const struct nic_cmd cmds[] = {{.op = NIC_PUT, .bytes = 100},
                                        {.op = NIC_PUT, .bytes = 200},
                                        {.op = NIC_PUT, .bytes = 300},
                                        {.op = NIC_PUT, .bytes = 400}};
  const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                .cmds = cmds, .n_cmds = 4, .host = h_launch_wait0, .n_host = 2};
  struct rig r;
  gpu_rig(&r);
  /* A host request reaches the CPU B after it leaves; a free helper with
   * poll interval and service 0 posts it at once: B more to the NIC. */
  r.cpu.helper_threads = 1;
  r.cpu.helper_poll_interval = 0;
  r.cpu.helper_service = 0;
  rig_build(&r, &prog);
  rig_run(&r);
  /* S = 1.6 us. At the parts step: WGs 0, 2, 4 at S, WG 1 at S + 1, WG 3
   * at S + 2. Part 2 = {4} alone (min(2, 5 - 4) = 1): WG 4 posts cmd 2 at
   * S, at the NIC S + F + B = 1.9 us. Part 0: WG 0 arrives, WG 1 last at
   * S + 1: cmd 0 at 2.9 us. Part 1: WG 3 last at S + 2: cmd 1 at 3.9 us.
   * Selected step: WG 4 arrives at S + F = 1.8, WG 0 after its 3 us at
   * S + F + 3 = 4.8 (last): cmd 3 + 0 / 5 = 3 at 5.1 us; WGs 1, 2, 3 skip.
   * Through the CPU each arrives B later. WG 0 ends last at S + 3 + 2F =
   * 5.0 us; teardown to 6.5, CPU 6.6 us. wg_time: WG 0 3.4, WG 1 1.2,
   * WG 2 0.2, WG 3 2.2, WG 4 0.4 (it pays both fences) = 7.4 us. */
  const sim_time s0 = B + L, via = kind == KS_HOST_REQUEST ? B : 0;
  const sim_time at[] = {s0 + F + B, s0 + 1 * US + F + B, s0 + 2 * US + F + B,
                         s0 + F + 3 * US + F + B};
  const uint32_t cmd[] = {2, 0, 1, 3};
  const int64_t bytes[] = {300, 100, 200, 400};
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 4);
  for (int i = 0; i < 4; i++) {
    CU_ASSERT_EQUAL(f->kind[i], PK_NIC_CMD);
    CU_ASSERT_EQUAL(f->at[i], at[i] + via);
    CU_ASSERT_EQUAL(f->a[i], cmd[i]);
    CU_ASSERT_EQUAL(f->cmd[i].bytes, bytes[i]);
  }
  if (kind == KS_NIC_CMD) {
    CU_ASSERT_EQUAL(rep(&r, "node0.gpu.nic_cmds"), 4);
    CU_ASSERT_EQUAL(rep(&r, "node0.gpu.host_requests"), 0);
  } else {
    CU_ASSERT_EQUAL(rep(&r, "node0.gpu.host_requests"), 4);
    CU_ASSERT_EQUAL(rep(&r, "node0.cpu.host_requests"), 4);
    CU_ASSERT_EQUAL(rep(&r, "node0.gpu.nic_cmds"), 0);
  }
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wg_time"), 7400 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), s0 + 3 * US + 2 * F + T + B);
  rig_free(&r);
}

static void test_parts_nic_cmd(void) { parts_run(KS_NIC_CMD); }
static void test_parts_host_request(void) { parts_run(KS_HOST_REQUEST); }

/* bw_share: with "kernel", a kernel of fewer WGs than slots shares
 * mem_bandwidth among its own WGs; with "slots" (the default) each WG has
 * 1/(cus * wgs_per_cu) of it whatever the kernel. */
static void test_bw_share(void) {
  /* cus 2, wgs_per_cu 2 (4 slots), 1024 Gbps = 128 GB/s, 64 Gflop/s per
   * slot (as in test_span_roofline). Step: 6400 flops = 0.1 us, 96000 B.
   * slots: 128 / 4 = 32 GB/s: 3 us for any kernel.
   * kernel: 1 WG: 128 GB/s: 0.75 us; 2 WGs: 64 GB/s: 1.5 us; 3 WGs:
   * 42.67 GB/s: 96000 x 8 x 3 / 1024e9 s = 2.25 us; 4 or 8 WGs (not fewer
   * than the slots): 3 us. A compute-bound step (64000 flops = 1 us,
   * 16000 B = 0.125 us with 1 WG) stays 1 us. */
  struct gpu_config g;
  par_group_defaults(&gpu_params, &g);
  CU_ASSERT_EQUAL(g.bw_share, GPU_BW_SLOTS);
  g.cus = 2;
  g.wgs_per_cu = 2;
  g.flops_per_cu_cycle = 128;
  g.clock = 1000000000;
  g.mem_bandwidth = 1024000000000;
  const struct kstep mem = {.kind = KS_COMPUTE, .flops = 6400, .bytes = 96000};
  const struct kstep fl = {.kind = KS_COMPUTE, .flops = 64000, .bytes = 16000};
  const uint32_t n[] = {1, 2, 3, 4, 8};
  const sim_time kern[] = {750 * NS, 1500 * NS, 2250 * NS, 3 * US, 3 * US};
  for (size_t i = 0; i < G_N_ELEMENTS(n); i++) {
    const struct kernel kn = {.n_wgs = n[i]};
    g.bw_share = GPU_BW_SLOTS;
    CU_ASSERT_EQUAL(gpu_wg_time(&g, &kn, &mem, 0), 3 * US);
    g.bw_share = GPU_BW_KERNEL;
    CU_ASSERT_EQUAL(gpu_wg_time(&g, &kn, &mem, 0), kern[i]);
    CU_ASSERT_EQUAL(gpu_wg_time(&g, &kn, &fl, 0), 1 * US);
  }
  /* gpu_compute_time is the all-slots share in either mode. */
  CU_ASSERT_EQUAL(gpu_compute_time(&g, &mem), 3 * US);

  /* A kernel of 2 WGs running that step: span L + W + T. */
  static const struct kstep steps[] = {{.kind = KS_COMPUTE, .flops = 6400, .bytes = 96000}};
  static const struct kernel k[] = {{.name = "bw", .n_wgs = 2, .steps = steps, .n_steps = 1}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2};
  for (int mode = GPU_BW_SLOTS; mode <= GPU_BW_KERNEL; mode++) {
    struct rig r;
    gpu_rig(&r);
    r.g.cus = 2;
    r.g.wgs_per_cu = 2;
    r.g.flops_per_cu_cycle = 128;
    r.g.clock = 1000000000;
    r.g.mem_bandwidth = 1024000000000;
    r.g.bw_share = mode;
    rig_build(&r, &prog);
    rig_run(&r);
    /* W = 3 us (slots) or 1.5 us (kernel): CPU at B + L + W + T + B. */
    sim_time w = mode == GPU_BW_SLOTS ? 3 * US : 1500 * NS;
    CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), B + L + w + T + B);
    CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wg_time"), 2 * w);
    rig_free(&r);
  }
}

/* The declarations are complete and their defaults valid. */
static void test_params(void) {
  struct gpu_config g;
  par_group_defaults(&gpu_params, &g);
  CU_ASSERT_EQUAL(g.clock, 1000000000);
  CU_ASSERT_EQUAL(g.cus, 24);
  CU_ASSERT_EQUAL(g.launch_latency, 1500 * NS);
  CU_ASSERT_EQUAL(g.teardown_latency, 1500 * NS);
  CU_ASSERT_EQUAL(g.launch_table.n, 0);
  CU_ASSERT_PTR_NOT_NULL(par_group_find(&gpu_params, "barrier_per_wg"));
  CU_ASSERT_STRING_EQUAL(gpu_params.name, "gpu");
  CU_ASSERT_EQUAL(gpu_params.config_size, sizeof g);
}

/* A GPU of 2 CUs and 256-item WGs each keeping 4 B in flight (8192 bits),
 * memory latency 1 us and an asymptote of 8.192 Tbps: a WG moving 1024 B
 * (8192 bits) while R WGs share the memory takes
 *   8192 R (1us / (R 8192) + 1 / 8.192e12) s = 1 us + R ns. */
static void little_gpu(struct gpu_config *g) {
  par_group_defaults(&gpu_params, g);
  g->cus = 2;
  g->wgs_per_cu = 8;
  g->items_per_cu = 2048;
  g->wg_items = 256;
  g->item_bytes = 4;
  g->mem_latency = 1 * US;
  g->mem_bandwidth = 8192000000000;
  g->flops_per_cu_cycle = 1048576; /* flops negligible */
  g->bw_share = GPU_BW_KERNEL;
}

static void test_occupancy_little(void) {
  struct gpu_config g;
  little_gpu(&g);
  const struct kstep st = {.kind = KS_COMPUTE, .bytes = 1024};
  /* Occupancy: min(8 WGs, 2048 / 256 = 8 items) = 8; 1024 items per CU:
   * 4; registers 65536 / (128 * 256) = 2; local memory 48 KiB / 20 KiB = 2;
   * one WG's worth of items: 1. */
  CU_ASSERT_EQUAL(gpu_occupancy(&g, NULL), 8);
  g.items_per_cu = 1024;
  CU_ASSERT_EQUAL(gpu_occupancy(&g, NULL), 4);
  g.items_per_cu = 2048;
  g.regs_per_cu = 65536;
  g.local_mem_per_cu = 48 * 1024;
  const struct kernel kr = {.n_wgs = 1, .regs_per_item = 128};
  const struct kernel kl = {.n_wgs = 1, .local_bytes_per_wg = 20 * 1024};
  CU_ASSERT_EQUAL(gpu_occupancy(&g, &kr), 2);
  CU_ASSERT_EQUAL(gpu_occupancy(&g, &kl), 2);
  g.items_per_cu = 256;
  CU_ASSERT_EQUAL(gpu_occupancy(&g, NULL), 1);
  /* Occupancy 1: a kernel of 2 WGs (one per CU), R = 2: 1.002 us each.
   * Full occupancy (8): 16 WGs, R = 16: 1.016 us; the device moves
   * 16 x 1024 B in 1.016 us instead of 2 x 1024 B in 1.002 us: 7.9 x the
   * bandwidth (latency-bound: it grows with the WGs in flight). */
  const struct kernel k2 = {.n_wgs = 2}, k16 = {.n_wgs = 16};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k2, &st, 0), 1002 * NS);
  g.items_per_cu = 2048;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 15), 1016 * NS);
  /* Achieved bandwidth at R = 16: 1 / (1e-6 / 131072 + 1 / 8.192e12) =
   * 131072 / 1.016e-6 bps. */
  CU_ASSERT_DOUBLE_EQUAL(gpu_achieved_bps(&g, 16, GPU_DRAM, KC_STREAM, 0), 131072 / 1.016e-6, 1);
  /* No latency: the asymptote, shared (the old model): 8192 x 16 bits at
   * 8.192 Tbps = 16 ns. */
  g.mem_latency = 0;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 16 * NS);
  /* A class with half the asymptote and twice the latency: 2 us + 32 ns. */
  g.mem_latency = 1 * US;
  g.eff[KC_SPMV] = 50;
  g.lat[KC_SPMV] = 200;
  const struct kstep sp = {.kind = KS_COMPUTE, .kclass = KC_SPMV, .bytes = 1024};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &sp, 0), 2032 * NS);
}

/* The knee (gpu.h "Achieved bandwidth") on the little GPU at mem_latency
 * 12 ns: with R = 16 WGs in flight (131072 bits) the latency term is 12
 * ns / 131072 bits and the peak's (8.192 Tbps) 16 ns / 131072 bits, so a
 * WG's 8192 bits, shared by 16, take 131072 S_p(x, y) bits: 12 + 16 = 28
 * ns at p = 1 (the sum), sqrt(12^2 + 16^2) = 20 ns at p = 2, and 16 (1 +
 * 0.75^64)^(1/64) ns = 16000.0025 ps at p = 64, 16001 ps rounded up as
 * every step time (the terms scaled first: x^64 alone, about 1e-830, is
 * below the smallest double). L2 takes
 * l2knee_ (a persistent step within L2 at the same latency and peak: 20
 * ns at p = 2 while memory's knee is 1), the class its own (stencil at 1
 * while stream's is 2: 28 ns). */
static void test_knee(void) {
  struct gpu_config g;
  little_gpu(&g);
  g.mem_latency = 12 * NS;
  const struct kernel k16 = {.n_wgs = 16}, pers = {.n_wgs = 16, .persistent = true};
  struct kstep st = {.kind = KS_COMPUTE, .bytes = 1024};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 28 * NS);
  g.knee[KC_STREAM] = 2;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 20 * NS);
  g.knee[KC_STREAM] = 64;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 16 * NS + 1);
  CU_ASSERT_DOUBLE_EQUAL(gpu_knee_sum(3e-14, 4e-14, 2), 5e-14, 1e-27);
  CU_ASSERT_DOUBLE_EQUAL(gpu_knee_sum(3e-14, 4e-14, 1), 7e-14, 1e-27);
  CU_ASSERT_EQUAL(gpu_knee_sum(0, 0, 8), 0);
  g.knee[KC_STREAM] = 1;
  g.l2_bytes = 4 << 20;
  g.l2_bandwidth = 8192000000000;
  g.l2_latency = 12 * NS;
  st.ws_bytes = 1 << 20;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 28 * NS);
  g.l2knee[KC_STREAM] = 2;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 20 * NS);
  st.kclass = KC_STENCIL;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 28 * NS);
  /* A stencil step of a launched kernel takes the launched slot where
   * eff_stencil_launched > 0, from memory here (no L2): at 50 % of the
   * peak its peak term doubles, 12 + 32 = 44 ns; a persistent kernel's
   * keeps the stencil's 12 + 16 = 28 ns; eff 0 (the default): the
   * stencil's. Without a latency (the exact path) 32 and 16 ns. */
  g.l2_bytes = 0;
  CU_ASSERT_EQUAL(g.eff[KC_STENCIL_LAUNCHED], 0);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 28 * NS);
  g.eff[KC_STENCIL_LAUNCHED] = 50;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 44 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 28 * NS);
  g.mem_latency = 0;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 32 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 16 * NS);
  st.kclass = KC_STREAM; /* other classes never take it */
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 16 * NS);
}

/* Issue 28's levels on the little GPU (2 CUs x 8 WGs of 256 items, 4 B
 * in flight each), latencies 0 so that each level is its peak shared by
 * the R WGs of the wave (bw_share kernel): memory 8.192 Tbps, L2 81.92
 * Tbps, L1 163.84 Tbps; a WG's 1024 B = 8192 bits. A kernel of 16 WGs
 * (one wave, R = 16): 8192 x 16 bits = 131072 bits, so 16 ns from memory,
 * 1.6 ns from L2, 0.8 ns from L1. l2_bytes 4 MiB, l2_near_bytes 2 MiB,
 * l1_resident_bytes 64 KiB a CU (128 KiB over both).
 * - ws 1 MiB: L2 either way: 1600 ps. Launched, ws 4 MiB: past the half,
 *   f = 2/4 from L2, the rest from memory: 800 + 8000 = 8800 ps;
 *   persistent: L2 holds it whole: 1600 ps. ws 8 MiB: memory: 16000 ps.
 * - ws 64 KiB: persistent: L1-resident (64 KiB <= 128 KiB): 800 ps;
 *   launched: L2, 1600 ps.
 * - An 8 B element in flight halves the latency term: with mem_latency
 *   1 us, R = 16: 131072 bits x (1 us / (16 x 256 x 8 B x 8 bits) + 1 /
 *   8.192e12) = 131072 / 262144 us + 16 ns = 516 ns (4 B: 131072 /
 *   131072 us + 16 ns = 1016 ns, as test_occupancy_little's R = 16). */
static void test_levels(void) {
  struct gpu_config g;
  little_gpu(&g);
  g.mem_latency = 0;
  g.l2_bytes = 4 << 20;
  g.l2_near_bytes = 2 << 20;
  g.l2_bandwidth = 81920000000000;
  g.l1_resident_bytes = 64 << 10;
  g.l1_bandwidth = 163840000000000;
  const struct kernel launched = {.n_wgs = 16}, pers = {.n_wgs = 16, .persistent = true};
  struct kstep st = {.kind = KS_COMPUTE, .bytes = 1024, .ws_bytes = 1 << 20};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &launched, &st, 0), 1600);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 1600);
  st.ws_bytes = 4 << 20;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &launched, &st, 0), 8800);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 1600);
  st.ws_bytes = 8 << 20;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &launched, &st, 0), 16000);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 16000);
  st.ws_bytes = 64 << 10;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 800);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &launched, &st, 0), 1600);
  /* L2 reuse: 512 of the 1024 B cold (evicted since their last use)
   * come from memory: ws 1 MiB: 800 + 8000 = 8800 ps either way; ws 4
   * MiB launched: the other 512 B half from L2, half from memory, 400 +
   * 4000, + 8000 = 12400 ps; persistent: 800 + 8000. L1-resident steps
   * keep their data in L1 (64 KiB: 800 ps). */
  st.cold_bytes = 512;
  st.ws_bytes = 1 << 20;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &launched, &st, 0), 8800);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 8800);
  st.ws_bytes = 4 << 20;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &launched, &st, 0), 12400);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 8800);
  st.ws_bytes = 64 << 10;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &st, 0), 800);
  st.cold_bytes = 0;
  /* No partition: l2_bytes for every kernel. */
  g.l2_near_bytes = 0;
  st.ws_bytes = 4 << 20;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &launched, &st, 0), 1600);
  little_gpu(&g);
  struct kstep el = {.kind = KS_COMPUTE, .bytes = 1024};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &launched, &el, 0), 1016 * NS);
  el.item_bytes = 8;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &launched, &el, 0), 516 * NS);
}

/* first_wave and reduce_load: a kernel of 4 WGs of 10 us on 2 slots (two
 * waves, occupancy 1), wg_start 1 us, first_wave 2 us: the first wave's
 * WGs start 3 us after the launch and end at 13 us, the second's start 1
 * us later and end at 24 us (the gpu rig: B 0.1, L 1.5, T 1.5: the record
 * at 0.1 + 1.5 + 24 + 1.5 + 0.1 = 27.2 us). A reduction step of 10 us on
 * the same kernel, reduce_load 100 ns: its last WG adds ceil(4 / 256) = 1
 * partial: 10.1 us, the kernel's end 0.1 us later. */
static void test_first_wave_reduce_load(void) {
  static const struct kstep steps[] = {{.kind = KS_COMPUTE, .time = 10 * US}};
  static const struct kernel k[] = {{.name = "waves", .n_wgs = 4, .steps = steps, .n_steps = 1}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2};
  struct rig r;
  gpu_rig(&r);
  r.g.cus = 2;
  r.g.wgs_per_cu = 1;
  r.g.wg_start = 1 * US;
  r.g.first_wave = 2 * US;
  rig_build(&r, &prog);
  rig_run(&r);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), B + L + 3 * US + 10 * US + 1 * US + 10 * US + T + B);
  rig_free(&r);
  struct gpu_config g;
  little_gpu(&g);
  g.reduce_load = 100 * NS;
  const struct kstep red = {.kind = KS_COMPUTE, .kclass = KC_REDUCE, .time = 10 * US};
  const struct kernel k4 = {.n_wgs = 4, .steps = &red, .n_steps = 1};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k4, &red, 3), 10100 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k4, &red, 2), 10 * US);
}

/* Peer loads (nvshmem_double_g over NVLink) on the little GPU: latency
 * 2 us, peak 16.384 Tbps; a WG keeps 256 x 8 B = 16384 bits of them in
 * flight. 512 loads per WG (2 per work-item) with R WGs sharing:
 *   512 x 64 R (2 us / (R 16384) + 1 / 16.384e12) = 4 us + 2R ns,
 * added to the local 1 us + R ns: R = 16: 1.016 + 4.032 = 5.048 us;
 * R = 2: 1.002 + 4.004 = 5.006 us (latency-bound: two blocking loads one
 * after the other per work-item, whatever the WGs in flight). Without a
 * latency the loads cost nothing. At 32 B of the link a load
 * (peer_load_bytes; the bandwidth term x 4): 4 us + 8R ns, so R = 16:
 * 1.016 + 4.128 = 5.144 us, R = 2: 1.002 + 4.016 = 5.018 us. Two loads in
 * flight a work-item (peer_loads_in_flight 2, 8 B): the latency term
 * halves, 2 us + 2R ns: R = 16: 3.048 us, R = 2: 3.006 us. The same
 * 512 loads making 128 link requests (peer_sectors: 4 lanes a sector) at
 * 32 B a request: the latency term stays 4 us, the link 128 x 32 x 8 R /
 * 16.384e12 = 2R ns: R = 16: 1.016 + 4.032 = 5.048 us (as 8 B a load:
 * 128 x 32 = 512 x 8 bytes of link); at 128 B a request, 8R ns: 5.144 us,
 * where 512 requests at 32 B also take 8R ns. */
static void test_peer_loads(void) {
  struct gpu_config g;
  little_gpu(&g);
  g.peer_load_latency = 2 * US;
  g.peer_bandwidth = 16384000000000;
  const struct kernel k2 = {.n_wgs = 2}, k16 = {.n_wgs = 16};
  const struct kstep st = {.kind = KS_COMPUTE, .bytes = 1024, .peer_loads = 512};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 5048 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k2, &st, 0), 5006 * NS);
  g.peer_load_bytes = 32;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 5144 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k2, &st, 0), 5018 * NS);
  g.peer_load_bytes = 8;
  g.peer_loads_in_flight = 2;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 3048 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k2, &st, 0), 3006 * NS);
  g.peer_loads_in_flight = 1;
  const struct kstep sec = {.kind = KS_COMPUTE, .bytes = 1024, .peer_loads = 512,
                            .peer_sectors = 128};
  g.peer_load_bytes = 32;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &sec, 0), 5048 * NS);
  g.peer_load_bytes = 128;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &sec, 0), 5144 * NS);
  g.peer_load_bytes = 8;
  g.peer_load_latency = 0;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k16, &st, 0), 1016 * NS);
}

/* Register-limited occupancy against the CUDA occupancy calculator
 * (cudaOccupancyMaxActiveBlocksPerMultiprocessor, 1024-thread blocks, on
 * an H100; issue 12): the single-kernel CG compiled to 64 registers (one
 * block per SM), its discrete SpMV to 32 and AXPY to 14 (two), a dot of
 * 26 registers and 528 B of shared memory (two). Limits of compute
 * capability 8.0/9.0: 32 blocks, 2048 threads, 64K registers per SM.
 * Hand-derived: 65536 / (64 x 1024) = 1; 65536 / (32 x 1024) = 2;
 * 65536 / (14 x 1024) = 4.6, 2048 / 1024 = 2 binds: 2; 26 registers: 2.46
 * -> 2, and 167936 / 528 = 318 does not bind. cuda-samples'
 * conjugateGradientMultiDeviceCG at 48 registers (sm_80) in 512-thread
 * blocks: 65536 / (48 x 512) = 2.67 -> 2 (the calculator's 1536-register
 * warps agree: 24576 per block, 2 blocks). */
static void test_occupancy_registers(void) {
  struct gpu_config g = {.cus = 132, .wgs_per_cu = 32, .items_per_cu = 2048, .wg_items = 1024,
                         .regs_per_cu = 65536, .local_mem_per_cu = 167936};
  const struct kernel fused = {.n_wgs = 132, .regs_per_item = 64};
  const struct kernel spmv = {.n_wgs = 264, .regs_per_item = 32};
  const struct kernel axpy = {.n_wgs = 264, .regs_per_item = 14};
  const struct kernel dot = {.n_wgs = 264, .regs_per_item = 26, .local_bytes_per_wg = 528};
  CU_ASSERT_EQUAL(gpu_occupancy(&g, &fused), 1);
  CU_ASSERT_EQUAL(gpu_occupancy(&g, &spmv), 2);
  CU_ASSERT_EQUAL(gpu_occupancy(&g, &axpy), 2);
  CU_ASSERT_EQUAL(gpu_occupancy(&g, &dot), 2);
  g.wg_items = 512;
  const struct kernel samples = {.n_wgs = 216, .regs_per_item = 48};
  CU_ASSERT_EQUAL(gpu_occupancy(&g, &samples), 2);
}

/* L1 reuse of a row-per-thread SpMV (gpu.h "L1"), at the residency the
 * registers give. 2 CUs, 256-item WGs, 512 items per CU; 65536 registers:
 * a persistent kernel at 256 a work-item holds 65536 / (256 x 256) = 1 WG
 * per CU, a discrete one at 64 holds min(4, 512 / 256) = 2. Memory
 * 8.192 Tbps and L2 16.384 Tbps, no latency; L1 64 KiB, 128 B lines,
 * 32 B sectors. A WG's step: 256 rows of 32 non-zeros (8192), 12 x 8192 +
 * 24 x 256 = 104448 B streamed. A thread holds fp = min(8 x 32, 128) +
 * min(4 x 32, 128) = 256 B of lines.
 * - 1 WG per CU (the persistent kernel, 2 WGs): 256 threads x 256 B =
 *   64 KiB fit: hit 1; 104448 x 8 x 2 / 8.192e12 s = 204 ns.
 * - 2 WGs per CU (discrete, 4 WGs): 512 x 256 B = 128 KiB, hit 0.5: memory
 *   104448 x 8 x 4 / 8.192e12 = 408 ns, plus 0.5 x 8192 x 256 x 32 / 128
 *   = 262144 B from L2: 262144 x 8 x 4 / 16.384e12 = 512 ns; 920 ns.
 * - Rows of 4 (1024 non-zeros, 12 x 1024 + 24 x 256 = 18432 B): fp = 32 +
 *   16 = 48 B, 512 x 48 = 24 KiB fit at 2 WGs per CU: 18432 x 8 x 4 /
 *   8.192e12 = 72 ns, as without the L1 model. */
static void test_spmv_l1_residency(void) {
  struct gpu_config g;
  nr_spmv_gpu(&g);
  const struct kernel pers = {.n_wgs = 2, .persistent = true}, disc = {.n_wgs = 4};
  CU_ASSERT_EQUAL(gpu_occupancy(&g, &pers), 1);
  CU_ASSERT_EQUAL(gpu_occupancy(&g, &disc), 2);
  const struct kstep sp = {.kind = KS_COMPUTE, .kclass = KC_SPMV, .flops = 2 * 8192,
                           .bytes = 104448, .rows = 256, .nnz = 8192};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &pers, &sp, 0), 204 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &sp, 3), 920 * NS);
  /* Without the L1 model both stream: 408 ns at 2 WGs per CU. */
  g.l1_bytes = 0;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &sp, 3), 408 * NS);
  g.l1_bytes = 64 * 1024;
  const struct kstep shortr = {.kind = KS_COMPUTE, .kclass = KC_SPMV, .flops = 2 * 1024,
                               .bytes = 18432, .rows = 256, .nnz = 1024};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &shortr, 0), 72 * NS);
  /* A kernel's own register count wins over the defaults: 128 -> 2. */
  const struct kernel own = {.n_wgs = 4, .persistent = true, .regs_per_item = 128};
  CU_ASSERT_EQUAL(gpu_occupancy(&g, &own), 2);
}

/* Visits and residency (gpu.h "L1"), on test_spmv_l1_residency's GPU and
 * step (256 rows of 32 non-zeros a WG, fp = 256 B, 104448 B streamed),
 * with spmv_unroll 4: a plain row loop visits its lines once per 4
 * non-zeros, a row read through gets once per non-zero.
 * - Discrete, 4 WGs on 2 CUs (2 a CU, hit 0.5): plain, 0.5 x 8192 / 4 x
 *   256 x 32 / 128 = 65536 B from L2: 65536 x 8 x 4 / 16.384e12 = 128 ns,
 *   + 408 ns streaming = 536 ns; gets, 4 x that: 512 + 408 = 920 ns.
 * - At l1_refill_bandwidth 4.096 Tbps instead of L2's peak: gets,
 *   262144 x 8 x 4 / 4.096e12 = 2048 ns + 408 = 2456 ns.
 * - Residency is what the wave puts on a CU: 2 WGs on 2 CUs are 1 a CU
 *   (hit 1) though 2 would fit: 104448 x 8 x 2 / 8.192e12 = 204 ns, gets
 *   or not. 5 WGs: the tail's one WG is alone on its CU: 104448 x 8 /
 *   8.192e12 = 102 ns, while the first wave's pay as above. */
static void test_spmv_l1_visits(void) {
  struct gpu_config g;
  nr_spmv_gpu(&g);
  g.spmv_unroll = 4;
  const struct kernel disc = {.n_wgs = 4}, two = {.n_wgs = 2}, five = {.n_wgs = 5};
  struct kstep sp = {.kind = KS_COMPUTE, .kclass = KC_SPMV, .flops = 2 * 8192, .bytes = 104448,
                     .rows = 256, .nnz = 8192};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &sp, 3), 536 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &two, &sp, 1), 204 * NS);
  sp.gets = 1;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &sp, 3), 920 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &two, &sp, 1), 204 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &five, &sp, 0), 920 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &five, &sp, 4), 102 * NS);
  g.l1_refill_bandwidth = 4096000000000;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &sp, 3), 2456 * NS);
}

/* Spill (gpu.h "Spill"), on test_spmv_l1_visits's discrete kernel with
 * gets: 4 WGs on 2 CUs, hit 0.5, 262144 B re-read, 408 ns streamed. The
 * resident row lines over the CUs: F = 4 WGs x 256 x 256 B = 256 KiB.
 * - Ramp from 128 to 384 KiB: s = (256 - 128) / (384 - 128) = 0.5; at
 *   l1_refill_mem_bandwidth 2.048 Tbps: L2 131072 x 8 x 4 / 16.384e12 =
 *   256 ns, memory 131072 x 8 x 4 / 2.048e12 = 2048 ns; 2712 ns in all.
 * - Ramp ending at 256 KiB: s = 1, 262144 x 8 x 4 / 2.048e12 = 4096 +
 *   408 = 4504 ns; at memory's own rate (8.192 Tbps, no latency): 1024 +
 *   408 = 1432 ns.
 * - Starting at 256 KiB (F not past it), or no ramp (l1_refill_mem_bytes
 *   0): s = 0, all from L2: 920 ns as before. A step (the end not above
 *   the start, 200 and 100 KiB): F past both, s = 1. */
static void test_spmv_spill(void) {
  struct gpu_config g;
  nr_spmv_gpu(&g);
  g.spmv_unroll = 4;
  const struct kernel disc = {.n_wgs = 4};
  const struct kstep sp = {.kind = KS_COMPUTE, .kclass = KC_SPMV, .flops = 2 * 8192,
                           .bytes = 104448, .rows = 256, .nnz = 8192, .gets = 1};
  g.l1_refill_l2_bytes = 128 * 1024;
  g.l1_refill_mem_bytes = 384 * 1024;
  g.l1_refill_mem_bandwidth = 2048000000000;
  CU_ASSERT_DOUBLE_EQUAL(gpu_spill_share(&g, 256, 4), 0.5, 1e-12);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &sp, 3), 2712 * NS);
  g.l1_refill_mem_bytes = 256 * 1024;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &sp, 3), 4504 * NS);
  g.l1_refill_mem_bandwidth = 0;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &sp, 3), 1432 * NS);
  g.l1_refill_l2_bytes = 256 * 1024;
  g.l1_refill_mem_bytes = 384 * 1024;
  CU_ASSERT_DOUBLE_EQUAL(gpu_spill_share(&g, 256, 4), 0.0, 1e-12);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &sp, 3), 920 * NS);
  g.l1_refill_mem_bytes = 0;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &sp, 3), 920 * NS);
  g.l1_refill_l2_bytes = 200 * 1024;
  g.l1_refill_mem_bytes = 100 * 1024;
  CU_ASSERT_DOUBLE_EQUAL(gpu_spill_share(&g, 256, 4), 1.0, 1e-12);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &disc, &sp, 3), 1432 * NS);
}

/* Waves and a tail: 20 WGs on 2 CUs x 8 = 16 slots: WGs 0-15 share with
 * 16 (1.016 us), the tail's 4 WGs (16-19) with 4 (1.004 us). Through the
 * engine the kernel ends launch + 1.016 + 1.004 us + teardown after the
 * launch, and the dispatch cost wg_start (0.5 us) adds once per wave. */
static void test_tail_wave(void) {
  struct gpu_config g;
  little_gpu(&g);
  const struct kstep st = {.kind = KS_COMPUTE, .bytes = 1024};
  const struct kernel k = {.n_wgs = 20};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k, &st, 0), 1016 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k, &st, 15), 1016 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k, &st, 16), 1004 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k, &st, 19), 1004 * NS);
  /* Slots mode shares among all 16 slots, tail or not. */
  g.bw_share = GPU_BW_SLOTS;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k, &st, 19), 1016 * NS);
  g.bw_share = GPU_BW_KERNEL;
  static const struct kstep steps[] = {{.kind = KS_COMPUTE, .bytes = 1024}};
  static const struct kernel ks[] = {{.name = "tail", .n_wgs = 20, .steps = steps, .n_steps = 1}};
  static const struct nodeprog prog = {.kernels = ks, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2};
  struct rig r;
  gpu_rig(&r);
  little_gpu(&r.g);
  r.g.wg_start = 500 * NS;
  rig_build(&r, &prog);
  rig_run(&r);
  /* WGs start at B + L = 1.6 us: wave 1 ends 1.6 + 0.5 + 1.016, the tail
   * 0.5 + 1.004 later: 4.62 us. */
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wg_last_end"), 4620 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.slots_max"), 16);
  rig_free(&r);
}

/* A persistent loop: 40 tiles of 1024 B on 16 slots folded by 3 into 14
 * WGs (kernel.c does the folding; see test_policy), three iterations with
 * a device-wide barrier between them, barrier table "8:1us, 24:3us".
 * A WG's 3 tiles among 14: 8192 x 3 x 14 x (1us / (14 x 8192) + 1 /
 * 8.192e12) s = 3 us + 42 ns; barrier(14) = 1.75 us. Last WG end: 1.6 +
 * 3 x 3.042 + 2 x 1.75 = 14.226 us; main_done + T + B = 15.826 us. */
static void test_persistent_loop(void) {
#define IT {.kind = KS_COMPUTE, .bytes = 3 * 1024}
#define BAR {.kind = KS_BARRIER}
  static const struct kstep steps[] = {IT, BAR, IT, BAR, IT};
#undef IT
#undef BAR
  static const struct kernel ks[] = {{.name = "pers", .n_wgs = 14, .steps = steps, .n_steps = 5}};
  static const struct nodeprog prog = {.kernels = ks, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2};
  struct rig r;
  gpu_rig(&r);
  little_gpu(&r.g);
  char *err = NULL;
  for (size_t i = 0; i < gpu_params.n_decls; i++)
    if (strcmp(gpu_params.decls[i].key, "barrier_table") == 0)
      CU_ASSERT_TRUE(par_set(&gpu_params.decls[i], &r.g, "8:1us, 24:3us", &err));
  rig_build(&r, &prog);
  rig_run(&r);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wg_last_end"), 14226 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), 15826 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.barriers"), 2);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.barrier_time"), 3500 * NS);
  rig_free(&r);
  g_free(err);
}

/* L2 of 1 MiB at 4 x the memory asymptote (32.768 Tbps) and 0.25 us
 * latency: a WG of 1024 B among 16 takes 0.25 us + 8192 x 16 / 32.768e12 s
 * = 0.254 us when the kernel's working set fits (1 MiB), 1.016 us from
 * memory when it does not (1 MiB + 1 B). SpMV re-reads of a 2 MiB vector:
 * half of them from L2 (h = 1 MiB / 2 MiB). */
static void test_l2_working_set(void) {
  struct gpu_config g;
  little_gpu(&g);
  g.l2_bytes = 1 << 20;
  g.l2_bandwidth = 32768000000000;
  g.l2_latency = 250 * NS;
  const struct kernel k = {.n_wgs = 16};
  struct kstep st = {.kind = KS_COMPUTE, .bytes = 1024, .ws_bytes = 1 << 20};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k, &st, 0), 254 * NS);
  st.ws_bytes = (1 << 20) + 1;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k, &st, 0), 1016 * NS);
  /* 1024 B streamed + 2048 B re-read, h = 0.5: memory 2048 B = 2 x 1.016,
   * L2 1024 B = 0.254: 2.286 us. With the vector in L2 (1 MiB): memory
   * 1.016 + L2 2048 B = 0.25 x 2 + 0.004 x 2 = 0.508: 1.524 us. */
  const struct kstep sp = {.kind = KS_COMPUTE, .kclass = KC_SPMV, .bytes = 1024,
                           .reuse_bytes = 2048, .gather_bytes = 2 << 20, .ws_bytes = 8 << 20};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k, &sp, 0), 2286 * NS);
  struct kstep sp2 = sp;
  sp2.gather_bytes = 1 << 20;
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k, &sp2, 0), 1524 * NS);
  /* A reduction's last WG also pays the second pass. */
  g.reduce_pass = 3 * US;
  const struct kstep red = {.kind = KS_COMPUTE, .kclass = KC_REDUCE, .bytes = 1024};
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k, &red, 14), 1016 * NS);
  CU_ASSERT_EQUAL(gpu_wg_time(&g, &k, &red, 15), 4016 * NS);
}

/* Barrier table "8:1us, 24:3us": 14 WGs -> 1 + (14 - 8) / 16 x 2 = 1.75 us;
 * under 8: 1 us; over 24: 3 us. Empty: base + per WG. Poll table alike. */
static void test_barrier_table(void) {
  struct gpu_config g;
  par_group_defaults(&gpu_params, &g);
  char *err = NULL;
  const struct par_decl *d = NULL;
  for (size_t i = 0; i < gpu_params.n_decls; i++)
    if (strcmp(gpu_params.decls[i].key, "barrier_table") == 0) d = &gpu_params.decls[i];
  CU_ASSERT_PTR_NOT_NULL_FATAL(d);
  CU_ASSERT_EQUAL(gpu_barrier_time(&g, 14), 1 * US + 14 * 10 * NS); /* defaults: 1us + 10ns/WG */
  CU_ASSERT_TRUE(par_set(d, &g, "8:1us, 24:3us", &err));
  CU_ASSERT_EQUAL(gpu_barrier_time(&g, 14), 1750 * NS);
  CU_ASSERT_EQUAL(gpu_barrier_time(&g, 2), 1 * US);
  CU_ASSERT_EQUAL(gpu_barrier_time(&g, 100), 3 * US);
  CU_ASSERT_EQUAL(gpu_poll_period(&g, 14), g.poll_interval);
  g.poll_table = g.barrier_table;
  CU_ASSERT_EQUAL(gpu_poll_period(&g, 16), 2 * US);
  g_free(err);
}


/* ---- loops (np_loops) ---- */

/* What a run shows from outside: the fake NIC's record and the GPU's and
 * CPU's counters. */
static const char *const gpu_keys[] = {
    "queue_cmds", "kernels", "kernels_launched", "wgs", "slots_max", "triggers",
    "host_requests", "nic_cmds", "doorbells", "flag_updates", "barriers", "stream_waits",
    "launch_time", "teardown_time", "barrier_time", "poll_time", "stream_wait_time", "wg_time",
    "wg_last_end"};
#define N_GPU_KEYS G_N_ELEMENTS(gpu_keys)

struct outcome {
  struct fnic nic;
  int64_t v[N_GPU_KEYS + 1]; /* the GPU's counters, then the CPU's main_done */
  uint64_t events;           /* the engine's events (not a simulated quantity) */
  int64_t bus_to_nic;        /* the bus's messages to the NIC */
};

/* Runs PROG on rig R (set up, not built) and records what it shows. */
static void run_outcome(struct rig *r, const struct nodeprog *prog, struct outcome *o) {
  rig_build(r, prog);
  rig_run(r);
  o->nic = *rig_nic(r);
  for (size_t i = 0; i < N_GPU_KEYS; i++) {
    char key[64];
    g_snprintf(key, sizeof key, "node0.gpu.%s", gpu_keys[i]);
    o->v[i] = rep(r, key);
  }
  o->v[N_GPU_KEYS] = rep(r, "node0.cpu.main_done");
  o->events = sim_events_executed(r->e);
  o->bus_to_nic = rep(r, "node0.bus.to_nic_msgs");
  rig_free(r);
}

/* The GPU rig with CUS slots of one WG each, aggregated (AGG) or per WG. */
static void slots_rig(struct rig *r, uint32_t cus, int agg) {
  gpu_rig(r);
  r->g.cus = cus;
  r->g.wgs_per_cu = 1;
  r->g.aggregate = agg;
}

/* Two outcomes are the same: every message at the same time with the same
 * contents, every counter equal. */
static void assert_same_outcome(const struct outcome *a, const struct outcome *b) {
  CU_ASSERT_EQUAL_FATAL(a->nic.n, b->nic.n);
  for (int i = 0; i < a->nic.n; i++) {
    CU_ASSERT_EQUAL(a->nic.kind[i], b->nic.kind[i]);
    CU_ASSERT_EQUAL(a->nic.at[i], b->nic.at[i]);
    CU_ASSERT_EQUAL(a->nic.a[i], b->nic.a[i]);
    CU_ASSERT_EQUAL(a->nic.b[i], b->nic.b[i]);
  }
  for (size_t i = 0; i <= N_GPU_KEYS; i++) {
    CU_ASSERT_EQUAL(a->v[i], b->v[i]);
    if (a->v[i] != b->v[i])
      fprintf(stderr, "%s: %lld vs %lld\n", i < N_GPU_KEYS ? gpu_keys[i] : "main_done",
              (long long)a->v[i], (long long)b->v[i]);
  }
}

/* A body of {compute, trigger, wait} written three times (flags 1, 2, 3,
 * tags 10 + 2i + w) and as a loop of 3 (tag 10, tag_stride 2; ONE flag,
 * counted: execution j waits for (j + 1) x 1) on 2 WGs, fed the same
 * increments at the same times: the same messages at the same times and
 * the same counters. A device-wide barrier in the body works once per
 * iteration. */
static void test_loop_unrolled_same(void) {
  static const struct kstep unrolled[] = {
      {.kind = KS_COMPUTE, .time = 1 * US},
      {.kind = KS_TRIGGER, .tag = 10, .tag_div = 1},
      {.kind = KS_WAIT_FLAG, .flag = 1, .value = 1},
      {.kind = KS_COMPUTE, .time = 1 * US},
      {.kind = KS_TRIGGER, .tag = 12, .tag_div = 1},
      {.kind = KS_WAIT_FLAG, .flag = 2, .value = 1},
      {.kind = KS_COMPUTE, .time = 1 * US},
      {.kind = KS_TRIGGER, .tag = 14, .tag_div = 1},
      {.kind = KS_WAIT_FLAG, .flag = 3, .value = 1},
  };
  static const struct kstep looped[] = {
      {.kind = KS_LOOP, .count = 3},
      {.kind = KS_COMPUTE, .time = 1 * US},
      {.kind = KS_TRIGGER, .tag = 10, .tag_div = 1, .tag_stride = 2},
      {.kind = KS_WAIT_FLAG, .flag = 1, .value = 1},
      {.kind = KS_END},
  };
  static const struct kernel ku[] = {{.name = "u", .n_wgs = 2, .steps = unrolled, .n_steps = 9}};
  static const struct kernel kl[] = {{.name = "l", .n_wgs = 2, .steps = looped, .n_steps = 5}};
  static const struct nodeprog pu = {.kernels = ku, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                     .host = h_launch_wait0, .n_host = 2, .n_flags = 3};
  static const struct nodeprog pl = {.kernels = kl, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                     .host = h_launch_wait0, .n_host = 2, .n_flags = 1};
  struct outcome *ou = g_new0(struct outcome, 1), *ol = g_new0(struct outcome, 1);
  struct rig r;
  gpu_rig(&r);
  r.script = (struct fn_script){3, {{2000 * NS, PK_FLAG, DEV_GPU, 0, 1, 1},
                                    {2100 * NS, PK_FLAG, DEV_GPU, 0, 2, 1},
                                    {6000 * NS, PK_FLAG, DEV_GPU, 0, 3, 1}}};
  run_outcome(&r, &pu, ou);
  gpu_rig(&r);
  r.script = (struct fn_script){3, {{2000 * NS, PK_FLAG, DEV_GPU, 0, 1, 1},
                                    {2100 * NS, PK_FLAG, DEV_GPU, 0, 1, 1},
                                    {6000 * NS, PK_FLAG, DEV_GPU, 0, 1, 1}}};
  run_outcome(&r, &pl, ol);
  assert_same_outcome(ou, ol);
  /* The looped run by hand (poll 100 ns): S = 1.6 us. j = 0: compute to
   * 2.6, fence to 2.8 (tags 10, 11 at the NIC 2.9); flag 1 >= 1 since 2.1:
   * on. j = 1: to 3.8, fence to 4.0 (tags 12, 13 at 4.1); flag 1 >= 2
   * since 2.2: on. j = 2: to 5.0, fence to 5.2 (tags 14, 15 at 5.3);
   * flag 1 >= 3 at 6.1 = 5.2 + 9 x 0.1 us (a tick): on at 6.1, the loop
   * ends, so do the WGs. Poll 2 x 0.9 us, wg_time 2 x 4.5 us; teardown to
   * 7.6, CPU 7.7 us. */
  const sim_time s0 = B + L;
  CU_ASSERT_EQUAL_FATAL(ol->nic.n, 6);
  for (int i = 0; i < 6; i++) {
    CU_ASSERT_EQUAL(ol->nic.kind[i], PK_TRIGGER);
    CU_ASSERT_EQUAL(ol->nic.at[i], s0 + (i / 2 + 1) * (1 * US + F) + B);
  }
  uint32_t lo, hi;
  for (int i = 0; i < 3; i++) {
    pair_sorted(&ol->nic.a[2 * i], &lo, &hi);
    CU_ASSERT_EQUAL(lo, 10 + 2 * (uint32_t)i);
    CU_ASSERT_EQUAL(hi, 11 + 2 * (uint32_t)i);
  }
  CU_ASSERT_EQUAL(ol->v[15], 2 * 900 * NS);        /* poll_time */
  CU_ASSERT_EQUAL(ol->v[17], 2 * 4500 * NS);       /* wg_time */
  CU_ASSERT_EQUAL(ol->v[18], 6100 * NS);           /* wg_last_end */
  CU_ASSERT_EQUAL(ol->v[N_GPU_KEYS], 7700 * NS);   /* main_done */
  CU_ASSERT_STRING_EQUAL(gpu_keys[15], "poll_time");
  CU_ASSERT_STRING_EQUAL(gpu_keys[17], "wg_time");
  CU_ASSERT_STRING_EQUAL(gpu_keys[18], "wg_last_end");

  /* A barrier body: WG 0 computes 1 us, then both meet; three times. */
  static const struct kstep bu[] = {
      {.kind = KS_COMPUTE, .time = 1 * US, .only_wg = 1}, {.kind = KS_BARRIER},
      {.kind = KS_COMPUTE, .time = 1 * US, .only_wg = 1}, {.kind = KS_BARRIER},
      {.kind = KS_COMPUTE, .time = 1 * US, .only_wg = 1}, {.kind = KS_BARRIER},
  };
  static const struct kstep bl[] = {
      {.kind = KS_LOOP, .count = 3},
      {.kind = KS_COMPUTE, .time = 1 * US, .only_wg = 1},
      {.kind = KS_BARRIER},
      {.kind = KS_END},
  };
  static const struct kernel kbu[] = {{.name = "bu", .n_wgs = 2, .steps = bu, .n_steps = 6}};
  static const struct kernel kbl[] = {{.name = "bl", .n_wgs = 2, .steps = bl, .n_steps = 4}};
  static const struct nodeprog pbu = {.kernels = kbu, .n_kernels = 1, .qcmds = q_k0,
                                      .n_qcmds = 1, .host = h_launch_wait0, .n_host = 2};
  static const struct nodeprog pbl = {.kernels = kbl, .n_kernels = 1, .qcmds = q_k0,
                                      .n_qcmds = 1, .host = h_launch_wait0, .n_host = 2};
  gpu_rig(&r);
  run_outcome(&r, &pbu, ou);
  gpu_rig(&r);
  run_outcome(&r, &pbl, ol);
  assert_same_outcome(ou, ol);
  /* Each iteration: WG 1 arrives at once, its arrive done B(2) = 1 us + 2
   * x 10 ns later; WG 0 arrives 1 us in and, the last of one, pays B(1) =
   * 1.01 us (gpu.h): 2.01 us an iteration, the WGs end at S + 3 x 2.01 =
   * 7.63 us; 3 barriers. */
  CU_ASSERT_EQUAL(ol->v[18], s0 + 3 * 2010 * NS);
  CU_ASSERT_EQUAL(ol->v[10], 3); /* barriers */
  CU_ASSERT_STRING_EQUAL(gpu_keys[10], "barriers");
  g_free(ou);
  g_free(ol);
}

/* Nested loops: LOOP 2 { LOOP 3 { trigger tag 100, stride 1 } wait flag
 * 1 >= 1 x (i1 + 1) }. The trigger's execution index is j = i1 x 3 + i2:
 * tags 100 .. 105; the wait's is i1: it waits for 1, then 2. One WG,
 * one increment at 0 and one at 3 us (at the GPU 3.1 us). */
static void test_loop_nested(void) {
  static const struct kstep steps[] = {
      {.kind = KS_LOOP, .count = 2},
      {.kind = KS_LOOP, .count = 3},
      {.kind = KS_TRIGGER, .tag = 100, .tag_div = 1, .tag_stride = 1},
      {.kind = KS_END},
      {.kind = KS_WAIT_FLAG, .flag = 1, .value = 1},
      {.kind = KS_END},
  };
  static const struct kernel k[] = {{.name = "nest", .n_wgs = 1, .steps = steps, .n_steps = 6}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2, .n_flags = 1};
  struct rig r;
  gpu_rig(&r);
  r.script = (struct fn_script){2, {{0, PK_FLAG, DEV_GPU, 0, 1, 1},
                                    {3000 * NS, PK_FLAG, DEV_GPU, 0, 1, 1}}};
  rig_build(&r, &prog);
  rig_run(&r);
  /* S = 1.6 us: three fences, tags 100, 101, 102 at the NIC at S + kF + B
   * (1.9, 2.1, 2.3); the wait (flag 1 >= 1, there since 0.1) passes at
   * 2.2; three more: 103, 104, 105 at 2.5, 2.7, 2.9; the wait for 2 starts
   * at 2.8, the flag reaches 2 at 3.1 = 2.8 + 3 ticks of 100 ns: the WG
   * ends at 3.1 us. */
  const sim_time s0 = B + L;
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 6);
  for (int i = 0; i < 6; i++) {
    CU_ASSERT_EQUAL(f->a[i], 100 + (uint32_t)i);
    CU_ASSERT_EQUAL(f->at[i], s0 + (i + 1) * F + B);
  }
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wg_last_end"), 3100 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.poll_time"), 300 * NS);
  rig_free(&r);
}

/* A command by parts in a loop counts its arrivals per execution: WG 0
 * runs ahead (WG 1 computes 3 us each iteration), so WG 0's arrivals of
 * executions 0 and 1 must not complete a part between them. */
static void test_loop_parts(void) {
  static const struct kstep steps[] = {
      {.kind = KS_LOOP, .count = 2},
      {.kind = KS_COMPUTE, .time = 3 * US, .only_wg = 2},
      {.kind = KS_NIC_CMD, .cmd = 0, .tag_div = 2},
      {.kind = KS_END},
  };
  static const struct kernel k[] = {{.name = "lp", .n_wgs = 2, .steps = steps, .n_steps = 4}};
  static const struct nic_cmd cmds[] = {{.op = NIC_PUT, .bytes = 100}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .cmds = cmds, .n_cmds = 1, .host = h_launch_wait0,
                                       .n_host = 2};
  struct rig r;
  gpu_rig(&r);
  rig_build(&r, &prog);
  rig_run(&r);
  /* S = 1.6 us. WG 0 arrives for j = 0 at S, for j = 1 at S + F, ends at
   * S + 2F. WG 1 arrives for j = 0 at S + 3 (last: cmd 0 at the NIC S + 3
   * + F + B = 4.9 us), for j = 1 at S + 3 + F + 3 = 7.8 (cmd 0 at 8.1 us). */
  const sim_time s0 = B + L;
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 2);
  CU_ASSERT_EQUAL(f->kind[0], PK_NIC_CMD);
  CU_ASSERT_EQUAL(f->at[0], s0 + 3 * US + F + B);
  CU_ASSERT_EQUAL(f->at[1], s0 + 6 * US + 2 * F + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.nic_cmds"), 2);
  rig_free(&r);
}

/* Queue commands carry the host step's execution index j (pmsg.b): the
 * fake NIC submits them here as a host loop's third execution (j = 2)
 * would. Q_WAIT_FLAG value 2 waits for 2 x 3 = 6; Q_DOORBELL cmd_id 5,
 * id_stride 3 rings 5 + 2 x 3 = 11. */
static void test_loop_queue_cmds(void) {
  static const struct qcmd qc[] = {{.kind = Q_WAIT_FLAG, .flag = 1, .value = 2},
                                   {.kind = Q_DOORBELL, .cmd_id = 5, .id_stride = 3}};
  static const struct nodeprog prog = {.qcmds = qc, .n_qcmds = 2, .n_flags = 1};
  struct rig r;
  gpu_rig(&r);
  r.g.stream_wait_latency = 1 * US;
  r.script = (struct fn_script){4, {{0, PK_QUEUE_CMD, DEV_GPU, 0, 0, 2},
                                    {0, PK_QUEUE_CMD, DEV_GPU, 0, 1, 2},
                                    {1 * US, PK_FLAG, DEV_GPU, 0, 1, 5},
                                    {3 * US, PK_FLAG, DEV_GPU, 0, 1, 1}}};
  rig_build(&r, &prog);
  rig_run(&r);
  /* The flag is 5 at 1.1 us (enough for j = 0, not for j = 2), 6 at 3.1:
   * + 1 us, the doorbell leaves at 4.1, at the NIC 4.2 us. */
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 1);
  CU_ASSERT_EQUAL(f->kind[0], PK_DOORBELL);
  CU_ASSERT_EQUAL(f->a[0], 11);
  CU_ASSERT_EQUAL(f->at[0], 3 * US + B + 1 * US + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.stream_wait_time"), 3 * US + B + 1 * US - B);
  rig_free(&r);
}

/* A kernel launched by a host loop's third execution (j = 2, pmsg.b):
 * the host's loops are outermost around its steps, so in its own loop of
 * 2 the step of iteration i has j = 2 x 2 + i: tags 10 + 4 + i, waits for
 * 1 x (5 + i). */
static void test_loop_launch_index(void) {
  static const struct kstep steps[] = {
      {.kind = KS_LOOP, .count = 2},
      {.kind = KS_TRIGGER, .tag = 10, .tag_div = 1, .tag_stride = 1},
      {.kind = KS_WAIT_FLAG, .flag = 1, .value = 1},
      {.kind = KS_END},
  };
  static const struct kernel k[] = {{.name = "lj", .n_wgs = 1, .steps = steps, .n_steps = 4}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .n_flags = 1};
  struct rig r;
  gpu_rig(&r);
  r.script = (struct fn_script){3, {{0, PK_QUEUE_CMD, DEV_GPU, 0, 0, 2},
                                    {0, PK_FLAG, DEV_GPU, 0, 1, 5},
                                    {5 * US, PK_FLAG, DEV_GPU, 0, 1, 1}}};
  rig_build(&r, &prog);
  rig_run(&r);
  /* Launch 0.1-1.6 us. Fence to 1.8: tag 14 at the NIC 1.9; the flag (5
   * since 0.1) passes the wait for 5. Fence to 2.0: tag 15 at 2.1; the
   * wait for 6 from 2.0 sees the increment of 5.1 at its 31st tick: the
   * WG ends at 5.1 us. */
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 2);
  CU_ASSERT_EQUAL(f->a[0], 14);
  CU_ASSERT_EQUAL(f->at[0], B + L + F + B);
  CU_ASSERT_EQUAL(f->a[1], 15);
  CU_ASSERT_EQUAL(f->at[1], B + L + 2 * F + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.wg_last_end"), 5 * US + B);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.poll_time"), 5 * US + B - (B + L + 2 * F));
  rig_free(&r);
}

/* ---- aggregation (gpu.aggregate) ---- */

/* Kernels 0, 1, 2 on queues 0, 1, 2, launched together, then waited for. */
static const struct qcmd q_k012[] = {{.kind = Q_KERNEL, .kernel = 0},
                                     {.kind = Q_KERNEL, .kernel = 1},
                                     {.kind = Q_KERNEL, .kernel = 2}};
static const struct hstep h_launch_wait012[] = {
    {.kind = HS_LAUNCH, .queue = 0, .qcmd = 0}, {.kind = HS_LAUNCH, .queue = 1, .qcmd = 1},
    {.kind = HS_LAUNCH, .queue = 2, .qcmd = 2}, {.kind = HS_WAIT_KERNEL, .kernel = 0},
    {.kind = HS_WAIT_KERNEL, .kernel = 1},      {.kind = HS_WAIT_KERNEL, .kernel = 2}};

/* The little GPU of kernels side by side, aggregated (AGG) or per WG, with
 * fence FENCE, dispatch cost START and a reduction's pass PASS; control
 * messages take 1 ns on the bus, so stores of one instant serialize and
 * their order shows. */
static void mixed_rig(struct rig *r, int agg, sim_time fence, sim_time start, sim_time pass) {
  gpu_rig(r);
  little_gpu(&r->g);
  r->g.fence_latency = fence;
  r->g.wg_start = start;
  r->g.reduce_pass = pass;
  r->g.aggregate = agg;
  r->bus.control_bytes = 64;
}

/* One kernel of 4 WGs of 10 us on 4 slots: per WG, each WG's end is an
 * event; aggregated, the four go on at the same instant in one: 3 events
 * fewer, everything else the same. */
static void test_aggregate_events(void) {
  static const struct kstep steps[] = {{.kind = KS_COMPUTE, .time = 10 * US}};
  static const struct kernel k[] = {{.name = "w", .n_wgs = 4, .steps = steps, .n_steps = 1}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2};
  struct outcome *o[2];
  for (int agg = 0; agg < 2; agg++) {
    o[agg] = g_new0(struct outcome, 1);
    struct rig r;
    slots_rig(&r, 4, agg);
    run_outcome(&r, &prog, o[agg]);
  }
  assert_same_outcome(o[0], o[1]);
  CU_ASSERT_EQUAL(o[0]->events - o[1]->events, 3);
  /* The tail-wave kernel of test_tail_wave (20 WGs on 16 slots, wg_start
   * 0.5 us): per WG 16 + 4 starts and 16 + 4 ends; aggregated one start and
   * one end per wave: 40 - 4 = 36 fewer. */
  static const struct kstep ts[] = {{.kind = KS_COMPUTE, .bytes = 1024}};
  static const struct kernel tk[] = {{.name = "tail", .n_wgs = 20, .steps = ts, .n_steps = 1}};
  static const struct nodeprog tp = {.kernels = tk, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                     .host = h_launch_wait0, .n_host = 2};
  for (int agg = 0; agg < 2; agg++) {
    struct rig r;
    gpu_rig(&r);
    little_gpu(&r.g);
    r.g.wg_start = 500 * NS;
    r.g.aggregate = agg;
    run_outcome(&r, &tp, o[agg]);
  }
  assert_same_outcome(o[0], o[1]);
  CU_ASSERT_EQUAL(o[1]->v[18], 4620 * NS); /* wg_last_end, as in test_tail_wave */
  CU_ASSERT_EQUAL(o[0]->events - o[1]->events, 36);
  g_free(o[0]);
  g_free(o[1]);
}

/* Representative kernels side by side on three queues, run per WG and
 * aggregated: a persistent kernel with a loop (work-group triggers with a
 * tag stride, per-pair flags counted, a barrier each iteration), a waves
 * kernel with a tail (a kernel-level trigger of work-item stores, a
 * reduction's last WG) and a tiling with selectors, a command by parts and
 * a flag. Same messages at the same times in the same order, same
 * counters, same completion; fewer events aggregated. */
static void test_aggregate_same(void) {
  static const struct kstep pers[] = {
      {.kind = KS_LOOP, .count = 3},
      {.kind = KS_COMPUTE, .bytes = 1024},
      {.kind = KS_TRIGGER, .tag = 1, .tag_div = 1, .tag_stride = 4},
      {.kind = KS_WAIT_FLAG, .flag = 1, .flag_div = 2, .value = 1},
      {.kind = KS_BARRIER},
      {.kind = KS_END},
  };
  static const struct kstep waves[] = {
      {.kind = KS_COMPUTE, .kclass = KC_REDUCE, .bytes = 2048},
      {.kind = KS_TRIGGER, .tag = 100, .tag_div = 20, .stores = 64},
  };
  static const struct kstep edges[] = {
      {.kind = KS_COMPUTE, .time = 1 * US},
      {.kind = KS_TRIGGER, .tag = 200, .tag_div = 1, .sel_first = 0, .sel_stride = 4,
       .sel_count = 2},
      {.kind = KS_WAIT_FLAG, .flag = 3, .value = 1, .sel_first = 3, .sel_stride = 4,
       .sel_count = 2},
      {.kind = KS_NIC_CMD, .cmd = 0, .tag_div = 4},
      {.kind = KS_COMPUTE, .time = 500 * NS, .only_wg = 6},
  };
  static const struct kernel k[] = {
      {.name = "pers", .n_wgs = 4, .steps = pers, .n_steps = 6},
      {.name = "waves", .n_wgs = 20, .steps = waves, .n_steps = 2},
      {.name = "edges", .n_wgs = 8, .steps = edges, .n_steps = 5},
  };
  static const struct nic_cmd cmds[] = {{.op = NIC_PUT, .bytes = 64},
                                        {.op = NIC_PUT, .bytes = 128}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 3, .qcmds = q_k012,
                                       .n_qcmds = 3, .cmds = cmds, .n_cmds = 2,
                                       .host = h_launch_wait012, .n_host = 6, .n_flags = 3};
  struct outcome *o[2];
  for (int agg = 0; agg < 2; agg++) {
    o[agg] = g_new0(struct outcome, 1);
    struct rig r;
    mixed_rig(&r, agg, 200 * NS, 100 * NS, 2 * US);
    r.script = (struct fn_script){7, {{2 * US, PK_FLAG, DEV_GPU, 0, 1, 1},
                                      {3 * US, PK_FLAG, DEV_GPU, 0, 2, 1},
                                      {6 * US, PK_FLAG, DEV_GPU, 0, 1, 1},
                                      {6 * US, PK_FLAG, DEV_GPU, 0, 2, 1},
                                      {9 * US, PK_FLAG, DEV_GPU, 0, 1, 1},
                                      {12 * US, PK_FLAG, DEV_GPU, 0, 2, 1},
                                      {4 * US, PK_FLAG, DEV_GPU, 0, 3, 1}}};
    run_outcome(&r, &prog, o[agg]);
  }
  assert_same_outcome(o[0], o[1]);
  /* 3 x 4 work-group stores, 20 kernel-level ones, 2 edge ones; commands:
   * the 2 parts of 4 WGs. */
  CU_ASSERT_EQUAL(o[1]->v[5], 3 * 4 + 20 + 2); /* triggers */
  CU_ASSERT_EQUAL(o[1]->v[7], 2);              /* nic_cmds */
  CU_ASSERT_EQUAL(o[1]->v[10], 3);             /* barriers */
  CU_ASSERT(o[1]->events < o[0]->events);
  g_free(o[0]);
  g_free(o[1]);
}

/* The order of one instant: WGs released by one flag go on in the order of
 * their own events, and a self event scheduled between two of them (a
 * barrier's end) stays between them. Kernel A (1 WG): compute 1.9 us, wait
 * flag 1, barrier (1 us), store tag 50. Kernel B (2 WGs): WG 1 computes
 * 1 us, both wait flag 1, compute 1 us, store tag 60 + w. Poll period 0,
 * control messages 1 ns on the bus (c). */
static void test_aggregate_order(void) {
  static const struct kstep sa[] = {
      {.kind = KS_COMPUTE, .time = 1900 * NS},
      {.kind = KS_WAIT_FLAG, .flag = 1, .value = 1},
      {.kind = KS_BARRIER},
      {.kind = KS_TRIGGER, .tag = 50, .tag_div = 1},
  };
  static const struct kstep sb[] = {
      {.kind = KS_COMPUTE, .time = 1 * US, .only_wg = 2},
      {.kind = KS_WAIT_FLAG, .flag = 1, .value = 1},
      {.kind = KS_COMPUTE, .time = 1 * US},
      {.kind = KS_TRIGGER, .tag = 60, .tag_div = 1},
  };
  static const struct kernel k[] = {{.name = "a", .n_wgs = 1, .steps = sa, .n_steps = 4},
                                    {.name = "b", .n_wgs = 2, .steps = sb, .n_steps = 4}};
  static const struct qcmd qc[] = {{.kind = Q_KERNEL, .kernel = 0},
                                   {.kind = Q_KERNEL, .kernel = 1}};
  static const struct hstep h[] = {{.kind = HS_LAUNCH, .queue = 0, .qcmd = 0},
                                   {.kind = HS_LAUNCH, .queue = 1, .qcmd = 1},
                                   {.kind = HS_WAIT_KERNEL, .kernel = 0},
                                   {.kind = HS_WAIT_KERNEL, .kernel = 1}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 2, .qcmds = qc, .n_qcmds = 2,
                                       .host = h, .n_host = 4, .n_flags = 1};
  struct outcome *o[2];
  for (int agg = 0; agg < 2; agg++) {
    o[agg] = g_new0(struct outcome, 1);
    struct rig r;
    gpu_rig(&r);
    r.g.poll_interval = 0;
    r.g.barrier_base = 1 * US;
    r.g.barrier_per_wg = 0;
    r.g.aggregate = agg;
    r.bus.control_bytes = 64;
    r.script = (struct fn_script){1, {{5 * US, PK_FLAG, DEV_GPU, 0, 1, 1}}};
    run_outcome(&r, &prog, o[agg]);
  }
  assert_same_outcome(o[0], o[1]);
  /* The queue commands reach the GPU at 0.101 and 0.102 us. A: launch to
   * 1.601, its WG waits from 3.501. B: launch 1.601-3.101; WG 0 waits from
   * 3.101, WG 1 from 4.101. The flag (sent at 5) reaches the GPU at 5.101
   * and releases the waiters, latest first: B1, A0, B0. B1 computes to
   * 6.101; A0 is its barrier's last WG: the barrier ends at 6.101; B0
   * computes to 6.101. At 6.101, in that order: B1 stores 61, the barrier
   * releases A0 (50), B0 stores 60; after the fence they leave at 6.301
   * and reach the NIC 1 ns apart from 6.402 us: 61, 50, 60. */
  const uint32_t tags[] = {61, 50, 60};
  CU_ASSERT_EQUAL_FATAL(o[1]->nic.n, 3);
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(o[1]->nic.a[i], tags[i]);
    CU_ASSERT_EQUAL(o[1]->nic.at[i], 6402 * NS + i * NS);
  }
  g_free(o[0]);
  g_free(o[1]);
}

/* Groups (gpu.c "groups"): a CG-like persistent kernel of 5 WGs (4 compute,
 * 1 communicating: selections that part them, a reduction, a command by a
 * part of 4 and one by the single WG, flags of flag_div 2, work-group
 * stores with a tag stride, a barrier each of 3 iterations) beside a
 * waves kernel of 40 WGs on the 11 slots left (tails; WGs that end while
 * it waits for slots; a reduction's last WG; kernel-level stores; parts of
 * 8) and a kernel whose WGs do not all stop at once (singletons). Run per
 * WG and as groups, with and without a fence (no fence: a group's WGs run
 * their following steps one WG after another) and with wg_start: the same
 * messages at the same times in the same order and the same counters. */
static void test_groups_same(void) {
  static const struct kstep cg[] = {
      {.kind = KS_LOOP, .count = 3},
      {.kind = KS_BARRIER},
      {.kind = KS_COMPUTE, .kclass = KC_REDUCE, .bytes = 1024, .sel_first = 0, .sel_stride = 1,
       .sel_count = 4},
      {.kind = KS_NIC_CMD, .cmd = 0, .tag_div = 5, .sel_first = 4, .sel_stride = 1,
       .sel_count = 1},
      {.kind = KS_WAIT_FLAG, .flag = 1, .value = 1, .sel_first = 4, .sel_stride = 1,
       .sel_count = 1},
      {.kind = KS_NIC_CMD, .cmd = 1, .tag_div = 5, .sel_first = 0, .sel_stride = 1,
       .sel_count = 4},
      {.kind = KS_WAIT_FLAG, .flag = 2, .value = 1, .sel_first = 0, .sel_stride = 1,
       .sel_count = 4},
      {.kind = KS_COMPUTE, .kclass = KC_SPMV, .bytes = 2048, .rows = 64, .nnz = 448,
       .sel_first = 0, .sel_stride = 1, .sel_count = 4},
      {.kind = KS_TRIGGER, .tag = 10, .tag_div = 2, .tag_stride = 3},
      {.kind = KS_WAIT_FLAG, .flag = 3, .flag_div = 2, .value = 1},
      {.kind = KS_END},
  };
  static const struct kstep waves[] = {
      {.kind = KS_COMPUTE, .kclass = KC_REDUCE, .bytes = 512},
      {.kind = KS_TRIGGER, .tag = 100, .tag_div = 40, .stores = 8},
      {.kind = KS_NIC_CMD, .cmd = 0, .tag_div = 8},
  };
  static const struct kstep third[] = {
      {.kind = KS_COMPUTE, .time = 700 * NS, .only_wg = 4},
      {.kind = KS_WAIT_FLAG, .flag = 2, .value = 1},
      {.kind = KS_TRIGGER, .tag = 200, .tag_div = 1, .sel_first = 1, .sel_stride = 2,
       .sel_count = 3},
  };
  static const struct kernel k[] = {
      {.name = "cg", .n_wgs = 5, .persistent = true, .steps = cg, .n_steps = G_N_ELEMENTS(cg)},
      {.name = "waves", .n_wgs = 40, .steps = waves, .n_steps = G_N_ELEMENTS(waves)},
      {.name = "third", .n_wgs = 6, .steps = third, .n_steps = G_N_ELEMENTS(third)},
  };
  static const struct nic_cmd cmds[] = {
      {.op = NIC_PUT, .bytes = 64},  {.op = NIC_PUT, .bytes = 128}, {.op = NIC_PUT, .bytes = 192},
      {.op = NIC_PUT, .bytes = 256}, {.op = NIC_PUT, .bytes = 320}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 3, .qcmds = q_k012,
                                       .n_qcmds = 3, .cmds = cmds, .n_cmds = 5,
                                       .host = h_launch_wait012, .n_host = 6, .n_flags = 5};
  /* Each wait of execution j needs (j + 1): 3 in all on flags 1 to 5. */
  static const struct fn_script sc = {8, {{2 * US, PK_FLAG, DEV_GPU, 0, 1, 1},
                                          {2 * US, PK_FLAG, DEV_GPU, 0, 2, 1},
                                          {5 * US, PK_FLAG, DEV_GPU, 0, 3, 3},
                                          {6 * US, PK_FLAG, DEV_GPU, 0, 4, 2},
                                          {9 * US, PK_FLAG, DEV_GPU, 0, 1, 2},
                                          {9 * US, PK_FLAG, DEV_GPU, 0, 5, 3},
                                          {12 * US, PK_FLAG, DEV_GPU, 0, 2, 2},
                                          {12 * US, PK_FLAG, DEV_GPU, 0, 4, 1}}};
  const sim_time fences[] = {200 * NS, 0, 200 * NS}, starts[] = {0, 0, 100 * NS};
  for (int v = 0; v < 3; v++) {
    struct outcome *o[2];
    for (int agg = 0; agg < 2; agg++) {
      o[agg] = g_new0(struct outcome, 1);
      struct rig r;
      mixed_rig(&r, agg, fences[v], starts[v], 1 * US);
      r.script = sc;
      run_outcome(&r, &prog, o[agg]);
    }
    assert_same_outcome(o[0], o[1]);
    /* Stores: 5 WGs x 3 iterations, 40, 3 selected; commands: 2 per
     * iteration, 40 / 8 parts; a barrier per iteration; all three kernels
     * end (main_done set). */
    CU_ASSERT_EQUAL(o[1]->v[5], 5 * 3 + 40 + 3);
    CU_ASSERT_EQUAL(o[1]->v[7], 2 * 3 + 5);
    CU_ASSERT_EQUAL(o[1]->v[10], 3);
    CU_ASSERT_EQUAL(o[1]->v[1], 3);
    CU_ASSERT(o[1]->events < o[0]->events);
    g_free(o[0]);
    g_free(o[1]);
  }
}

/* ---- store trains (gpu.c) ---- */

/* A group's trigger stores of one instant: its first WG's alone, the rest
 * one bus event (a chain), and the bus serves them as the per-WG model's
 * events would, also against a NIC command of the CPU at the bus at the
 * same instant. Kernel: 4 WGs on 4 slots compute 10 us and store tag
 * 1 + w (fence 200 ns). A control message takes 1 ns on the bus (64 B at
 * 512 Gbps), then B = 0.1 us: the launch reaches the GPU at 0.101 us,
 * runs to 1.601 us; the WGs end at 11.601 us, their stores are at the bus
 * at 11.801 us, and the k-th message served there (k from 1) at the NIC at
 * 11.801 us + k ns + B. The CPU, launch free, computes X, then builds a
 * command (build_cmd C), which is at the bus at X + C = 11.801 us too,
 * pushed at X: before the GPU's stores were pushed (X = 11.5 us <
 * 11.601 us: the command is served first, at the NIC at 11.902 us, the
 * stores follow at 11.903 .. 11.906) or after (X = 11.7 us: the stores take
 * 11.902 .. 11.905, the command 11.906). Per WG and aggregated: the same
 * messages at the same times, the same bus and GPU counters; aggregated,
 * 3 WG ends and 3 post-fence steps fewer (one batch each instead of four)
 * and 2 bus events fewer (the chain): 8. */
static void test_store_train(void) {
  static const struct kstep steps[] = {{.kind = KS_COMPUTE, .time = 10 * US},
                                       {.kind = KS_TRIGGER, .tag = 1, .tag_div = 1}};
  static const struct kernel k[] = {{.name = "st", .n_wgs = 4, .steps = steps, .n_steps = 2}};
  static const struct nic_cmd cmds[] = {{.op = NIC_PUT, .bytes = 64}};
  for (int after = 0; after < 2; after++) {
    sim_time x = after ? 11700 * NS : 11500 * NS;
    const struct hstep host[] = {{.kind = HS_LAUNCH, .queue = 0, .qcmd = 0},
                                 {.kind = HS_COMPUTE, .time = x},
                                 {.kind = HS_NIC_CMD, .cmd = 0},
                                 {.kind = HS_WAIT_KERNEL, .kernel = 0}};
    const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                  .cmds = cmds, .n_cmds = 1, .host = host, .n_host = 4};
    struct outcome *o[2];
    for (int agg = 0; agg < 2; agg++) {
      o[agg] = g_new0(struct outcome, 1);
      struct rig r;
      slots_rig(&r, 4, agg);
      r.bus.control_bytes = 64;
      r.cpu.build_cmd = 11801 * NS - x;
      run_outcome(&r, &prog, o[agg]);
    }
    assert_same_outcome(o[0], o[1]);
    CU_ASSERT_EQUAL(o[0]->bus_to_nic, 5);
    CU_ASSERT_EQUAL(o[1]->bus_to_nic, 5);
    CU_ASSERT_EQUAL_FATAL(o[1]->nic.n, 5);
    int cmd_at = after ? 4 : 0; /* where the command is among the five */
    for (int i = 0, tag = 1; i < 5; i++) {
      CU_ASSERT_EQUAL(o[1]->nic.at[i], 11902 * NS + i * NS);
      if (i == cmd_at) {
        CU_ASSERT_EQUAL(o[1]->nic.kind[i], PK_NIC_CMD);
      } else {
        CU_ASSERT_EQUAL(o[1]->nic.kind[i], PK_TRIGGER);
        CU_ASSERT_EQUAL(o[1]->nic.a[i], (uint32_t)tag++);
      }
    }
    CU_ASSERT_EQUAL((int64_t)o[0]->events - (int64_t)o[1]->events, 8);
    g_free(o[0]);
    g_free(o[1]);
  }
}

/* ---- held waits (gpu.aggregate) ---- */

/* Runs PROG per WG and aggregated under flag script SC; both agree, and the
 * stores after the wait reach the NIC as TAGS at AT (records 4.. of the
 * fake NIC: after each WG's first store). Returns per-WG events minus
 * aggregated ones. */
static int64_t held_case(const struct nodeprog *prog, uint32_t cus, const struct fn_script *sc,
                         int n, const uint32_t *tags, const sim_time *at) {
  struct outcome *o[2];
  for (int agg = 0; agg < 2; agg++) {
    o[agg] = g_new0(struct outcome, 1);
    struct rig r;
    slots_rig(&r, cus, agg);
    r.script = *sc;
    run_outcome(&r, prog, o[agg]);
  }
  assert_same_outcome(o[0], o[1]);
  int first = o[1]->nic.n - n;
  CU_ASSERT_EQUAL(first, 4); /* the four first stores */
  for (int i = 0; i < n && first >= 0; i++) {
    CU_ASSERT_EQUAL(o[1]->nic.a[first + i], tags[i]);
    CU_ASSERT_EQUAL(o[1]->nic.at[first + i], at[i]);
  }
  int64_t d = (int64_t)o[0]->events - (int64_t)o[1]->events;
  g_free(o[0]);
  g_free(o[1]);
  return d;
}

/* A batch that only begins flag waits is held, not run (gpu.c "held
 * waits"); flags before its time, at its time, after it, and a WG already
 * waiting when it is held give what its event gives. Kernel: 4 WGs (one
 * per CU) store tag 1 + w (fence F), wait flag 1 + w / 2, compute 1 us,
 * store tag 10 + w. The launch reaches the GPU at B = 0.1 us and ends at
 * 1.6 us; the WGs store at once and would go on to their waits at 1.8 us;
 * a flag sent at t is at the GPU at t + B; polls every 100 ns from 1.8 us;
 * a store at s is at the NIC at s + F + B = s + 0.3 us. WGs released
 * together go on latest first (the list is LIFO): WG 1, then WG 0. */
static void test_held_waits(void) {
  static const struct kstep steps[] = {
      {.kind = KS_TRIGGER, .tag = 1, .tag_div = 1},
      {.kind = KS_WAIT_FLAG, .flag = 1, .flag_div = 2, .value = 1},
      {.kind = KS_COMPUTE, .time = 1 * US},
      {.kind = KS_TRIGGER, .tag = 10, .tag_div = 1},
  };
  static const struct kernel k[] = {{.name = "h", .n_wgs = 4, .steps = steps, .n_steps = 4}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_k0, .n_qcmds = 1,
                                       .host = h_launch_wait0, .n_host = 2, .n_flags = 2};
  /* After: flag 1 at 2.1 us, flag 2 at 2.4 us: WGs 1, 0 go on at 2.1 and
   * store at 3.1 (NIC 3.4); WGs 3, 2 at 2.4, NIC 3.7. Per WG: 4 events at
   * 1.8, 4 resumptions, 4 compute ends, 4 store ends; aggregated: none at
   * 1.8 (held), and one per instant for the rest: 2 + 2 + 2. And the
   * group's first stores (at 1.6 us, four WGs): one bus event for the
   * first, one for the chain of the other three (gpu.c "store trains"): 2
   * fewer; the later pairs' second store is a chain of one. */
  struct fn_script after = {2, {{2000 * NS, PK_FLAG, DEV_GPU, 0, 1, 1},
                                {2300 * NS, PK_FLAG, DEV_GPU, 0, 2, 1}}};
  const uint32_t t_after[] = {11, 10, 13, 12};
  const sim_time at_after[] = {3400 * NS, 3400 * NS, 3700 * NS, 3700 * NS};
  CU_ASSERT_EQUAL(held_case(&prog, 4, &after, 4, t_after, at_after), 16 - 6 + 2);
  /* Before: flag 1 at 1.7 us frees the held batch: at 1.8 WGs 0, 1 find
   * it and go on in batch order (stores at 2.8, NIC 3.1); 2, 3 wait. */
  struct fn_script before = {2, {{1600 * NS, PK_FLAG, DEV_GPU, 0, 1, 1},
                                 {2300 * NS, PK_FLAG, DEV_GPU, 0, 2, 1}}};
  const uint32_t t_before[] = {10, 11, 13, 12};
  const sim_time at_before[] = {3100 * NS, 3100 * NS, 3700 * NS, 3700 * NS};
  CU_ASSERT(held_case(&prog, 4, &before, 4, t_before, at_before) > 0);
  /* At: flag 1 at 1.8 us, after the batch's event in the order (that
   * event was placed at 1.6 us, the flag's at 1.7 us): WGs 1, 0 wait, then
   * go on at once, latest first. */
  struct fn_script at = {2, {{1700 * NS, PK_FLAG, DEV_GPU, 0, 1, 1},
                             {2300 * NS, PK_FLAG, DEV_GPU, 0, 2, 1}}};
  const uint32_t t_at[] = {11, 10, 13, 12};
  const sim_time at_at[] = {3100 * NS, 3100 * NS, 3700 * NS, 3700 * NS};
  CU_ASSERT(held_case(&prog, 4, &at, 4, t_at, at_at) > 0);
  /* A WG already waiting: 5 WGs on one flag; WG 4 skips the first store
   * and waits from 1.6 us, below the held ones. Flag 1 at 2.1 us releases
   * them latest first: 3, 2, 1, 0, then 4 (its poll: 1.6 + 5 x 0.1). */
  static const struct kstep steps5[] = {
      {.kind = KS_TRIGGER, .tag = 1, .tag_div = 1, .sel_first = 0, .sel_stride = 1,
       .sel_count = 4},
      {.kind = KS_WAIT_FLAG, .flag = 1, .value = 1},
      {.kind = KS_COMPUTE, .time = 1 * US},
      {.kind = KS_TRIGGER, .tag = 10, .tag_div = 1},
  };
  static const struct kernel k5[] = {{.name = "h5", .n_wgs = 5, .steps = steps5, .n_steps = 4}};
  static const struct nodeprog prog5 = {.kernels = k5, .n_kernels = 1, .qcmds = q_k0,
                                        .n_qcmds = 1, .host = h_launch_wait0, .n_host = 2,
                                        .n_flags = 1};
  struct fn_script one = {1, {{2000 * NS, PK_FLAG, DEV_GPU, 0, 1, 1}}};
  const uint32_t t5[] = {13, 12, 11, 10, 14};
  const sim_time at5[] = {3400 * NS, 3400 * NS, 3400 * NS, 3400 * NS, 3400 * NS};
  CU_ASSERT(held_case(&prog5, 5, &one, 5, t5, at5) > 0);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"occupancy; a kernel at 1 and at full occupancy (Little's law)", test_occupancy_little},
      {"a stream marker behind a kernel, by hand", test_stream_mark},
      {"a copy home behind a kernel: copy engine start, 8 B to memory, the flag behind them", test_copy_home},
      {"register-limited occupancy as CUDA's calculator gives it", test_occupancy_registers},
      {"row-per-thread SpMV: L1 share at 1 and 2 resident WGs per CU", test_spmv_l1_residency},
      {"row-per-thread SpMV: visits of 4 and of 1 (gets), residency of a wave", test_spmv_l1_visits},
      {"row-per-thread SpMV: re-reads spill to memory past L2 (a ramp, a step, memory's rate)",
       test_spmv_spill},
      {"waves and a tail wave, WG dispatch", test_tail_wave},
      {"working set just under and just over L2; SpMV gathers; second pass", test_l2_working_set},
      {"barrier table interpolation", test_barrier_table},
      {"a persistent loop over tiles with its barriers", test_persistent_loop},
      {"two waves at occupancy 1", test_two_waves},
      {"launch + work + teardown = span (roofline, trace)", test_span_roofline},
      {"launch cost from the depth table", test_launch_table},
      {"queued launch prepared while the kernel before runs (overlap)", test_queued_launch_overlap},
      {"launch cost from the linear fit", test_launch_linear},
      {"one front end serializes launches", test_front_end_serializes},
      {"WG flag polling adds [0, poll_interval)", test_flag_polling},
      {"trigger store = fence + bus", test_trigger_store},
      {"device-wide barrier cost", test_barrier},
      {"a barrier released at its last arrival's instant by an earlier one", test_barrier_free_last},
      {"stream wait-on-flag and doorbell", test_stream_wait},
      {"flag_div: WGs on different flags go on independently", test_flag_div},
      {"trigger with work-item stores: one message, b = stores", test_trigger_work_items},
      {"selectors: only an edge's WGs perform a step", test_selectors},
      {"peer loads: Little's law with their latency, added to the local time", test_peer_loads},
      {"levels: L2 halves, L1 residency, the element in flight", test_levels},
      {"knee exponent: the law's two terms joined at p, per level and class", test_knee},
      {"first wave's cold start, a reduction's second-pass loads", test_first_wave_reduce_load},
      {"a reduction's second pass: the last WG that runs it (not a communication WG)",
       test_reduce_pass_selected},
      {"same, one event per WG", test_reduce_pass_selected_per_wg},
      {"NIC commands by parts: the last WG of each posts", test_parts_nic_cmd},
      {"host requests by parts: the last WG of each posts", test_parts_host_request},
      {"bw_share kernel vs slots", test_bw_share},
      {"parameters", test_params},
      {"loops: a looped body = the same body unrolled (waits, triggers, barriers)",
       test_loop_unrolled_same},
      {"loops: nested execution index (tags, counted waits)", test_loop_nested},
      {"loops: parts count arrivals per execution", test_loop_parts},
      {"loops: queue commands carry j (wait value, doorbell id)", test_loop_queue_cmds},
      {"loops: a kernel's launch index is outermost", test_loop_launch_index},
      {"aggregate: WGs of one instant share an event (hand count)", test_aggregate_events},
      {"aggregate: representative kernels per WG and aggregated agree", test_aggregate_same},
      {"aggregate: the order of one instant is kept", test_aggregate_order},
      {"groups: a CG-like kernel and waves per WG and as groups agree", test_groups_same},
      {"store trains: a group's stores as one bus event, served as per WG, ties kept", test_store_train},
      {"held waits: flags before, at and after a held batch", test_held_waits},
      {NULL, NULL},
  };
  return tu_run_suite("gpu", tests);
}
