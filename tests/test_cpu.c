/* CPU model: host-step costs, the GPU->CPU control-flow switch (poll and
 * interrupt, record before and after the wait) against a GDS-like path that
 * reaches the NIC without it, and helper threads (bounds, mean P/2 over
 * uniform arrivals, contention); both polls a ps before, exactly on and a
 * ps after a tick (on a tick: seen at that tick); every time derived by
 * hand.
 *
 * The rig: a node's bus (latency B = 100 ns, control messages free), the
 * GPU, the CPU and a fake NIC that records what it receives. GPU defaults:
 * launch L = 1.5 us, teardown T = 1.5 us, fence F = 200 ns. CPU defaults:
 * launch_submit 1 us, build_cmd 200 ns, register_trigger 200 ns (build_cmd's:
 * the same descriptor written as a trigger entry), send 1 us, recv 500 ns. */
#include <glib.h>
#include <gsl/gsl_rng.h>
#include <string.h>

#include "bus.h"
#include "cpu.h"
#include "engine.h"
#include "gpu.h"
#include "nodeprog.h"
#include "proto.h"
#include "testutil.h"

#include "noderig.h"

#define L (1500 * NS)
#define T (1500 * NS)
#define F (200 * NS)

/* Host costs per call, and where the main thread's time went. */
static void test_host_costs(void) {
  static const struct nic_cmd cmds[] = {{.op = NIC_PUT, .dst_node = 1, .bytes = 64},
                                        {.op = NIC_TPUT, .dst_node = 1, .tag = 3, .threshold = 1}};
  static const struct hstep h[] = {
      {.kind = HS_COMPUTE, .time = 2 * US},
      {.kind = HS_NIC_CMD, .cmd = 0, .two_sided = 1},
      {.kind = HS_NIC_CMD, .cmd = 1},
      {.kind = HS_WAIT_FLAG, .flag = 1, .value = 1, .two_sided = 1},
  };
  static const struct nodeprog prog = {.cmds = cmds, .n_cmds = 2, .host = h, .n_host = 4,
                                       .n_flags = 1};
  struct rig r;
  rig_init(&r);
  /* register_trigger apart from build_cmd (by default they are equal), so
   * that which of the two a triggered put pays shows in its time */
  r.cpu.register_trigger = 500 * NS;
  r.script = (struct fn_script){1, {{10 * US, PK_FLAG, DEV_CPU, 0, 1, 1}}};
  rig_build(&r, &prog);
  rig_run(&r);
  /* compute 0-2; put: build 0.2 + send 1 -> leaves 3.2, NIC 3.3 us;
   * triggered put: register 0.5 -> leaves 3.7, NIC 3.8 us; wait from 3.7
   * until the flag arrives at 10.1; recv 0.5 -> done at 10.6 us. */
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 2);
  CU_ASSERT_EQUAL(f->at[0], 3300 * NS);
  CU_ASSERT_EQUAL(f->cmd[0].op, NIC_PUT);
  CU_ASSERT_EQUAL(f->cmd[0].bytes, 64);
  CU_ASSERT_EQUAL(f->at[1], 3800 * NS);
  CU_ASSERT_EQUAL(f->cmd[1].op, NIC_TPUT);
  CU_ASSERT_EQUAL(f->cmd[1].tag, 3);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), 10600 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.compute_time"), 2 * US);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.build_time"), 200 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.send_time"), 1 * US);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.register_time"), 500 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.wait_flag_time"), 6400 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.recv_time"), 500 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.cores_held"), 1);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.nic_cmds"), 2);
  rig_free(&r);
}

/* One kernel of one WG computing 1 us; command 0 a put, command 1 a put
 * pre-posted under cmd_id 4 (GDS). */
static const struct kstep k1_steps[] = {{.kind = KS_COMPUTE, .time = 1 * US}};
static const struct kernel k1[] = {{.name = "k", .n_wgs = 1, .steps = k1_steps, .n_steps = 1}};
static const struct nic_cmd put_cmds[] = {{.op = NIC_PUT, .dst_node = 1, .bytes = 64},
                                          {.op = NIC_POST, .dst_node = 1, .bytes = 64,
                                           .cmd_id = 4}};
static const struct qcmd q_gds[] = {{.kind = Q_KERNEL, .kernel = 0},
                                    {.kind = Q_DOORBELL, .cmd_id = 4}};

/* HDN: launch, wait for the kernel, then post the put. The queue command
 * leaves at 1 us (launch_submit), reaches the GPU at 1.1; launch to 2.6,
 * run to 3.6, teardown to 5.1; the record reaches the CPU at 5.2 us. The
 * wait began at 1.0 us. */
static void hdn_run(int mode, sim_time param, sim_time nic_at, sim_time switch_time) {
  static const struct hstep h[] = {{.kind = HS_LAUNCH, .qcmd = 0},
                                   {.kind = HS_WAIT_KERNEL, .kernel = 0},
                                   {.kind = HS_NIC_CMD, .cmd = 0}};
  static const struct nodeprog prog = {.kernels = k1, .n_kernels = 1, .qcmds = q_gds,
                                       .n_qcmds = 2, .cmds = put_cmds, .n_cmds = 2, .host = h,
                                       .n_host = 3};
  struct rig r;
  rig_init(&r);
  r.cpu.switch_mode = mode;
  if (mode == CPU_SWITCH_POLL) r.cpu.switch_poll_interval = param;
  else r.cpu.interrupt_latency = param;
  rig_build(&r, &prog);
  rig_run(&r);
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 1);
  CU_ASSERT_EQUAL(f->kind[0], PK_NIC_CMD);
  CU_ASSERT_EQUAL(f->at[0], nic_at);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.switch_time"), switch_time);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.wait_kernel_time"), 4200 * NS);
  rig_free(&r);
}

static void test_switch_poll(void) {
  /* Poll every 0.5 us from 1.0: ticks 5.0, 5.5 -> noticed at 5.5 (the
   * switch adds 0.3 us, in [0, 0.5)); build 0.2; NIC at 5.5 + 0.2 + B. */
  hdn_run(CPU_SWITCH_POLL, 500 * NS, 5800 * NS, 300 * NS);
}

static void test_switch_interrupt(void) {
  /* Interrupt 5 us: noticed 5.2 + 5 = 10.2; NIC at 10.2 + 0.2 + B. */
  hdn_run(CPU_SWITCH_INTERRUPT, 5 * US, 10500 * NS, 5 * US);
}

/* Runs PROG on rig R whose host notices a completion at once (interrupts
 * of 0 latency) and wakes late by draws of mean J (cpu.wake_jitter). */
static void jitter_rig(struct rig *r, const struct nodeprog *prog, sim_time j) {
  rig_init(r);
  r->cpu.switch_mode = CPU_SWITCH_INTERRUPT;
  r->cpu.interrupt_latency = 0;
  r->cpu.wake_jitter = j;
  rig_build(r, prog);
  rig_run(r);
}

/* cpu.wake_jitter: a thread that blocked on a kernel wakes late by an
 * exponential draw of that mean from its component's stream. N = 2000
 * launches of a kernel each waited for, interrupts of 0 latency: the
 * switch time is the draws' sum, so its mean per wait is within 10 % of J
 * = 2 us (the mean of 2000 exponential draws has a relative sigma of
 * 1 / sqrt(2000) = 2.2 %); the same run twice gives the same sum (the
 * seeded stream); J = 0 gives none. */
static sim_time jitter_switch(sim_time j) {
  enum { N = 2000 };
  static struct hstep h[2 * N];
  for (int i = 0; i < N; i++) {
    h[2 * i] = (struct hstep){.kind = HS_LAUNCH, .qcmd = 0};
    h[2 * i + 1] = (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = 0};
  }
  static const struct qcmd q[] = {{.kind = Q_KERNEL, .kernel = 0}};
  struct nodeprog prog = {.kernels = k1, .n_kernels = 1, .qcmds = q, .n_qcmds = 1,
                          .host = h, .n_host = 2 * N};
  struct rig r;
  jitter_rig(&r, &prog, j);
  sim_time sw = rep(&r, "node0.cpu.switch_time");
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.kernels"), N);
  rig_free(&r);
  return sw / N;
}

static void test_wake_jitter(void) {
  CU_ASSERT_EQUAL(jitter_switch(0), 0);
  sim_time a = jitter_switch(2 * US), b = jitter_switch(2 * US);
  CU_ASSERT_EQUAL(a, b);
  CU_ASSERT(a > 1800 * NS && a < 2200 * NS);
  if (!(a > 1800 * NS && a < 2200 * NS)) fprintf(stderr, "wake jitter mean %lld ps\n", (long long)a);
}

/* The run's end (models/cpu.h): a kernel still running when the program
 * ends is noticed as if the thread had waited for it from its end, and as
 * late. So a program that launches a kernel and ends has its result when
 * one that launches it and waits for it does, to the ps, with
 * cpu.wake_jitter 2 us as without (the same one draw, the stream's first),
 * and with the jitter later than without. */
static sim_time end_result(bool wait, sim_time j) {
  static const struct hstep h[] = {{.kind = HS_LAUNCH, .qcmd = 0},
                                   {.kind = HS_WAIT_KERNEL, .kernel = 0}};
  static const struct qcmd q[] = {{.kind = Q_KERNEL, .kernel = 0}};
  struct nodeprog prog = {.kernels = k1, .n_kernels = 1, .qcmds = q, .n_qcmds = 1,
                          .host = h, .n_host = wait ? 2 : 1};
  struct rig r;
  jitter_rig(&r, &prog, j);
  sim_time at = rep(&r, "node0.cpu.result_at");
  rig_free(&r);
  return at;
}

static void test_end_jitter(void) {
  sim_time plain = end_result(false, 0);
  CU_ASSERT_EQUAL(end_result(true, 0), plain);
  sim_time late = end_result(false, 2 * US);
  CU_ASSERT_EQUAL(end_result(true, 2 * US), late);
  CU_ASSERT(late > plain);
}

/* A completion record arriving exactly on a poll tick is seen at that tick
 * (cpu.h: the first s + j*switch_poll_interval >= a), a ps before it at
 * the same tick, a ps after it at the next one. As hdn_run with the kernel
 * computing X: the wait begins at s = 1.0 us (launch_submit), the record
 * arrives at a = 1.0 + B + L + X + T + B = 4.2 us + X. P = 0.5 us: ticks
 * at 1.0 + j * 0.5 us; X = 1.3 us puts a on the tick 5.5 us (j = 9). The
 * put reaches the NIC at (seen) + build 0.2 + B. */
static void test_switch_poll_tick(void) {
  static const struct hstep h[] = {{.kind = HS_LAUNCH, .qcmd = 0},
                                   {.kind = HS_WAIT_KERNEL, .kernel = 0},
                                   {.kind = HS_NIC_CMD, .cmd = 0}};
  const sim_time x0 = 1300 * NS, p = 500 * NS;
  /* a = 5.5 us - 1 ps: seen 5.5 (switch 1 ps); a = 5.5: seen 5.5 (0);
   * a = 5.5 + 1 ps: seen 6.0 (P - 1 ps). */
  const sim_time dx[] = {-1, 0, 1};
  const sim_time seen[] = {5500 * NS, 5500 * NS, 6000 * NS};
  for (int i = 0; i < 3; i++) {
    struct kstep steps[] = {{.kind = KS_COMPUTE, .time = x0 + dx[i]}};
    struct kernel k[] = {{.name = "k", .n_wgs = 1, .steps = steps, .n_steps = 1}};
    struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = q_gds, .n_qcmds = 2,
                            .cmds = put_cmds, .n_cmds = 2, .host = h, .n_host = 3};
    struct rig r;
    rig_init(&r);
    r.cpu.switch_mode = CPU_SWITCH_POLL;
    r.cpu.switch_poll_interval = p;
    rig_build(&r, &prog);
    rig_run(&r);
    sim_time arrival = 5500 * NS + dx[i];
    struct fnic *f = rig_nic(&r);
    CU_ASSERT_EQUAL_FATAL(f->n, 1);
    EXPECT_TIME(f->at[0], seen[i] + 200 * NS + B);
    EXPECT_TIME(rep(&r, "node0.cpu.switch_time"), seen[i] - arrival);
    EXPECT_TIME(rep(&r, "node0.cpu.wait_kernel_time"), arrival - 1 * US);
    rig_free(&r);
  }
}

/* GDS-like: the put is pre-posted, the kernel and a doorbell are queued;
 * the GPU front end rings the NIC when the kernel completes: no switch. */
static void test_gds_no_switch(void) {
  static const struct hstep h[] = {{.kind = HS_NIC_CMD, .cmd = 1},
                                   {.kind = HS_LAUNCH, .qcmd = 0},
                                   {.kind = HS_LAUNCH, .qcmd = 1}};
  static const struct nodeprog prog = {.kernels = k1, .n_kernels = 1, .qcmds = q_gds,
                                       .n_qcmds = 2, .cmds = put_cmds, .n_cmds = 2, .host = h,
                                       .n_host = 3};
  struct rig r;
  rig_init(&r);
  rig_build(&r, &prog);
  rig_run(&r);
  /* Post: build 0-0.2, NIC 0.3 us. Kernel: submit 0.2-1.2, GPU 1.3;
   * doorbell: submit 1.2-2.2, GPU 2.3 (queued behind the kernel). Kernel:
   * launch 1.3-2.8, run to 3.8, teardown to 5.3; the doorbell leaves at 5.3
   * and reaches the NIC at 5.4 us, 0.4 us before the HDN poll path (5.8). */
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 2);
  CU_ASSERT_EQUAL(f->kind[0], PK_NIC_CMD);
  CU_ASSERT_EQUAL(f->cmd[0].op, NIC_POST);
  CU_ASSERT_EQUAL(f->at[0], 300 * NS);
  CU_ASSERT_EQUAL(f->kind[1], PK_DOORBELL);
  CU_ASSERT_EQUAL(f->a[1], 4);
  CU_ASSERT_EQUAL(f->at[1], 5400 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.switch_time"), 0);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), 2200 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.doorbells"), 1);
  rig_free(&r);
}

/* The record arrives (5.2 us) before the wait begins (after 10 us of
 * compute: 11.0 us). Poll notices at the wait's start; interrupt at
 * max(start, arrival + latency). */
static void test_switch_record_first(void) {
  static const struct hstep h[] = {{.kind = HS_LAUNCH, .qcmd = 0},
                                   {.kind = HS_COMPUTE, .time = 10 * US},
                                   {.kind = HS_WAIT_KERNEL, .kernel = 0},
                                   {.kind = HS_NIC_CMD, .cmd = 0}};
  static const struct nodeprog prog = {.kernels = k1, .n_kernels = 1, .qcmds = q_gds,
                                       .n_qcmds = 2, .cmds = put_cmds, .n_cmds = 2, .host = h,
                                       .n_host = 4};
  /* poll: 11.0; interrupt 5 us: max(11.0, 10.2) = 11.0; interrupt 12 us:
   * max(11.0, 17.2) = 17.2. The put reaches the NIC 0.2 + B later. */
  const int modes[] = {CPU_SWITCH_POLL, CPU_SWITCH_INTERRUPT, CPU_SWITCH_INTERRUPT};
  const sim_time lat[] = {0, 5 * US, 12 * US};
  const sim_time seen[] = {11 * US, 11 * US, 17200 * NS};
  for (int i = 0; i < 3; i++) {
    struct rig r;
    rig_init(&r);
    r.cpu.switch_mode = modes[i];
    r.cpu.switch_poll_interval = 500 * NS;
    r.cpu.interrupt_latency = lat[i];
    rig_build(&r, &prog);
    rig_run(&r);
    struct fnic *f = rig_nic(&r);
    CU_ASSERT_EQUAL_FATAL(f->n, 1);
    CU_ASSERT_EQUAL(f->at[0], seen[i] + 200 * NS + B);
    CU_ASSERT_EQUAL(rep(&r, "node0.cpu.switch_time"), seen[i] - 11 * US);
    CU_ASSERT_EQUAL(rep(&r, "node0.cpu.wait_kernel_time"), 0);
    rig_free(&r);
  }
}

/* Helper threads: N requests with uniformly distributed arrival phases.
 * Each is taken at the first tick j*P at or after its arrival, so it waits
 * U in [0, P): mean P/2. */
#define NREQ 200
static void test_helper_mean(void) {
  static struct kstep steps[NREQ + 1];
  static sim_time t[NREQ];
  const sim_time p = 1 * US, service = 1 * US, slot = 10 * US;
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(g, 12345);
  /* WG i computes t_i = i * 10 us + u_i, u_i uniform in [0, 10 us) drawn
   * from the GSL stream: its request's phase t_i mod P is uniform. */
  for (int i = 0; i < NREQ; i++) {
    t[i] = i * slot + (sim_time)gsl_rng_uniform_int(g, (unsigned long)slot);
    steps[i] = (struct kstep){.kind = KS_COMPUTE, .time = t[i], .only_wg = (uint32_t)i + 1};
  }
  gsl_rng_free(g);
  steps[NREQ] = (struct kstep){.kind = KS_HOST_REQUEST, .cmd = 0};
  static const struct kernel k[] = {{.name = "req", .n_wgs = NREQ, .steps = steps,
                                     .n_steps = NREQ + 1}};
  static const struct qcmd qc[] = {{.kind = Q_KERNEL, .kernel = 0}};
  static const struct hstep h[] = {{.kind = HS_LAUNCH, .qcmd = 0}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = qc, .n_qcmds = 1,
                                       .cmds = put_cmds, .n_cmds = 1, .host = h, .n_host = 1};
  struct rig r;
  rig_init(&r);
  r.g.cus = 24;
  r.g.wgs_per_cu = 10; /* 240 slots: one wave */
  r.cpu.launch_submit = 0;
  r.cpu.helper_threads = 2;
  r.cpu.helper_poll_interval = p;
  r.cpu.helper_service = service;
  rig_build(&r, &prog);
  rig_run(&r);
  /* Request i reaches the CPU at a_i = B + L + t_i + F + B and the NIC at
   * take_i + service + B. Window i holds request i alone, so requests i-2
   * and i are more than 10 us apart: a request never finds both helpers
   * busy (each busy 1 us, taken within P): wait_i = take_i - a_i in [0, P). */
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, NREQ);
  double sum = 0;
  int in_range = 0;
  for (int i = 0; i < NREQ; i++) {
    sim_time a = B + L + t[i] + F + B;
    sim_time wait = f->at[i] - B - service - a;
    if (wait >= 0 && wait < p) in_range++;
    sum += (double)wait;
  }
  CU_ASSERT_EQUAL(in_range, NREQ);
  /* The mean of N i.i.d. U[0, P) has sd P / sqrt(12 N) = 20.4 ns for
   * N = 200, P = 1 us; 0.1 P = 100 ns is 4.9 sd (the draw is fixed by the
   * seed, so the test is deterministic; the bound says why it is sane). */
  double mean = sum / NREQ;
  CU_ASSERT(mean > 0.4 * (double)p && mean < 0.6 * (double)p);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.helper_wait_time"), (int64_t)sum);
  CU_ASSERT(rep(&r, "node0.cpu.helper_wait_max") < p);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.host_requests"), NREQ);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.cores_held"), 3);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.helper_service_time"), NREQ * service);
  rig_free(&r);
}

/* One helper, two requests at once: the second waits for the helper and
 * then for its next tick. */
static void test_helper_contention(void) {
  static const struct kstep steps[] = {{.kind = KS_HOST_REQUEST, .cmd = 0}};
  static const struct kernel k[] = {{.name = "req", .n_wgs = 2, .steps = steps, .n_steps = 1}};
  static const struct qcmd qc[] = {{.kind = Q_KERNEL, .kernel = 0}};
  static const struct hstep h[] = {{.kind = HS_LAUNCH, .qcmd = 0}};
  static const struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = qc, .n_qcmds = 1,
                                       .cmds = put_cmds, .n_cmds = 1, .host = h, .n_host = 1};
  struct rig r;
  rig_init(&r);
  r.cpu.launch_submit = 0;
  r.cpu.helper_threads = 1;
  r.cpu.helper_poll_interval = 1 * US;
  r.cpu.helper_service = 1500 * NS;
  rig_build(&r, &prog);
  rig_run(&r);
  /* GPU at 0.1, launch to 1.6, fence to 1.8: both requests at the CPU at
   * 1.9 us. First: tick 2.0, service to 3.5, NIC 3.6. Second: the helper
   * is free at 3.5, next tick 4.0, service to 5.5, NIC 5.6 us. Waits
   * 0.1 + 2.1 = 2.2 us. */
  struct fnic *f = rig_nic(&r);
  CU_ASSERT_EQUAL_FATAL(f->n, 2);
  CU_ASSERT_EQUAL(f->at[0], 3600 * NS);
  CU_ASSERT_EQUAL(f->at[1], 5600 * NS);
  CU_ASSERT_EQUAL(f->cmd[1].bytes, 64);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.helper_wait_time"), 2200 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.helper_wait_max"), 2100 * NS);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.cores_held"), 2);
  rig_free(&r);
}

/* A request arriving exactly on a helper's poll tick is taken at that tick
 * (cpu.h: the first tick j*helper_poll_interval at or after its arrival),
 * a ps before it at the same tick, a ps after it at the next. One WG
 * computes X, then requests: at the CPU at a = B + L + X + F + B = 1.9 us
 * + X (launch_submit 0). P = 1 us: X = 100 ns puts a on the tick 2.0 us.
 * The command reaches the NIC at (taken) + service 1 us + B. */
static void test_helper_poll_tick(void) {
  const sim_time x0 = 100 * NS, p = 1 * US, service = 1 * US;
  /* a = 2.0 us - 1 ps: taken 2.0 (waited 1 ps); a = 2.0: taken 2.0 (0);
   * a = 2.0 + 1 ps: taken 3.0 (P - 1 ps). */
  const sim_time dx[] = {-1, 0, 1};
  const sim_time taken[] = {2 * US, 2 * US, 3 * US};
  static const struct qcmd qc[] = {{.kind = Q_KERNEL, .kernel = 0}};
  static const struct hstep h[] = {{.kind = HS_LAUNCH, .qcmd = 0}};
  for (int i = 0; i < 3; i++) {
    struct kstep steps[] = {{.kind = KS_COMPUTE, .time = x0 + dx[i]},
                            {.kind = KS_HOST_REQUEST, .cmd = 0}};
    struct kernel k[] = {{.name = "req", .n_wgs = 1, .steps = steps, .n_steps = 2}};
    struct nodeprog prog = {.kernels = k, .n_kernels = 1, .qcmds = qc, .n_qcmds = 1,
                            .cmds = put_cmds, .n_cmds = 1, .host = h, .n_host = 1};
    struct rig r;
    rig_init(&r);
    r.cpu.launch_submit = 0;
    r.cpu.helper_threads = 1;
    r.cpu.helper_poll_interval = p;
    r.cpu.helper_service = service;
    rig_build(&r, &prog);
    rig_run(&r);
    sim_time arrival = 2 * US + dx[i];
    struct fnic *f = rig_nic(&r);
    CU_ASSERT_EQUAL_FATAL(f->n, 1);
    EXPECT_TIME(f->at[0], taken[i] + service + B);
    EXPECT_TIME(rep(&r, "node0.cpu.helper_wait_time"), taken[i] - arrival);
    rig_free(&r);
  }
}

static void test_params(void) {
  struct cpu_config c;
  par_group_defaults(&cpu_params, &c);
  CU_ASSERT_EQUAL(c.cores, 8);
  CU_ASSERT_EQUAL(c.clock, 4000000000);
  CU_ASSERT_EQUAL(c.switch_mode, CPU_SWITCH_POLL);
  /* One rule: registering a triggered op builds build_cmd's descriptor (GPU-TN
   * Sec. 3.1, 3.3), so the two defaults are one value, 200 ns. */
  CU_ASSERT_EQUAL(c.build_cmd, 200 * NS);
  CU_ASSERT_EQUAL(c.register_trigger, c.build_cmd);
  CU_ASSERT_STRING_EQUAL(cpu_params.name, "cpu");
  char *err = NULL;
  CU_ASSERT_TRUE(cpu_config_check(&c, &err));
  c.helper_threads = 8;
  CU_ASSERT_FALSE(cpu_config_check(&c, &err));
  CU_ASSERT_PTR_NOT_NULL(err);
  g_free(err);
  err = NULL;
  CU_ASSERT_TRUE(par_set(par_group_find(&cpu_params, "switch_mode"), &c, "interrupt", &err));
  CU_ASSERT_EQUAL(c.switch_mode, CPU_SWITCH_INTERRUPT);
}

/* Three launches of the 1 us kernel in a host loop, the queue holding at
 * most DEPTH kernels launched and not completed. */
static void queue_depth_run(int64_t depth, sim_time done, int64_t blocks, sim_time waited) {
  static const struct hstep h[] = {{.kind = HS_LOOP, .count = 3},
                                   {.kind = HS_LAUNCH, .qcmd = 0},
                                   {.kind = HS_END}};
  static const struct nodeprog prog = {.kernels = k1, .n_kernels = 1, .qcmds = q_gds,
                                       .n_qcmds = 2, .cmds = put_cmds, .n_cmds = 2, .host = h,
                                       .n_host = 3};
  struct rig r;
  rig_init(&r);
  r.cpu.launch_queue_depth = depth;
  rig_build(&r, &prog);
  rig_run(&r);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.main_done"), done);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.launches"), 3);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.launch_blocks"), blocks);
  CU_ASSERT_EQUAL(rep(&r, "node0.cpu.wait_kernel_time"), waited);
  CU_ASSERT_EQUAL(rep(&r, "node0.gpu.kernels"), 3);
  rig_free(&r);
}

static void test_launch_queue_depth(void) {
  /* Unbounded (the default 1024): three submits back to back, done at 3 us.
   * Depth 2: the third launch (at 2 us) finds two kernels outstanding and
   * waits for the first one's completion record, which reaches the CPU at
   * 5.2 us (submit 0-1, GPU 1.1, launch to 2.6, run to 3.6, teardown to
   * 5.1, + B); its submit then takes 5.2-6.2 us. The 3.2 us blocked count
   * as waiting for a kernel. */
  queue_depth_run(1024, 3 * US, 0, 0);
  queue_depth_run(2, 6200 * NS, 1, 3200 * NS);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"a launch blocks on a full queue (cpu.launch_queue_depth), in a host loop",
       test_launch_queue_depth},
      {"host step costs and categories", test_host_costs},
      {"HDN control-flow switch, poll", test_switch_poll},
      {"HDN control-flow switch, poll: a ps before, on and after a tick", test_switch_poll_tick},
      {"HDN control-flow switch, interrupt", test_switch_interrupt},
      {"cpu.wake_jitter: a blocked thread wakes late by seeded exponential draws", test_wake_jitter},
      {"cpu.wake_jitter at the run's end: as late as a wait for the last kernel", test_end_jitter},
      {"GDS-like doorbell path has no switch", test_gds_no_switch},
      {"record before the wait", test_switch_record_first},
      {"helper wait in [0, P), mean P/2", test_helper_mean},
      {"helper contention", test_helper_contention},
      {"helper poll: a ps before, on and after a tick", test_helper_poll_tick},
      {"parameters", test_params},
      {NULL, NULL},
  };
  return tu_run_suite("cpu", tests);
}
