/* Bring-your-own workloads (workloads/inputs/goal.c, workloads/inputs/yprog.c,
 * workloads/ir/coll.c) and the graph ranks they make (program.h, models/cpu.c):
 * small GOAL schedules timed by hand under the `cpu` policy, the same
 * pattern as GOAL and as a YAML program, every policy on Schedgen's own
 * output, malformed and deadlocking schedules, expressions, collectives. */
#include <glib.h>
#include <string.h>

#include "allreduce.h"
#include "coll.h"
#include "goal.h"
#include "lower.h"
#include "noderig.h"
#include "points.h"
#include "report.h"
#include "scenario.h"
#include "testutil.h"
#include "workload.h"
#include "yprog.h"

/* The table's policies (workloads/policies/table.c): how many, and the
 * name of the I-th. */
static size_t pol_count(void) {
  size_t n;
  pol_all(&n);
  return n;
}

static const char *pol_name(size_t i) {
  size_t n;
  return pol_all(&n)[i]->name;
}

/* Defaults (tests/test_policy.c derives them): a host send is build_cmd
 * 200 + send 1000 ns on the thread, its command crosses the bus (2 + 100):
 * an 8 B put reaches the target's flag LEG after its command reached the
 * NIC, then the receiving thread spends recv 500 ns. */
#define LEG 686260
#define SEND 1200000 /* thread time of a two-sided send */
#define BUS 102000   /* command over the bus */
#define RECV 500000

static struct wl_program *goal(const char *text, char **err) {
  char *path = tu_temp_file(".goal", text, strlen(text));
  uint64_t n = 0;
  struct wl_program *p = wl_goal_read(path, 1000, WL_ON_ANY, 64, &n, err);
  g_free(path);
  return p;
}

/* P's time under POLICY on NODES default nodes (a helper thread for ghn);
 * -1 and *ERR on an error. Frees P. */
static sim_time run(struct wl_program *p, const char *policy, int64_t nodes, char **err) {
  struct hw h;
  hw_defaults(&h);
  h.net.nodes = nodes;
  h.cpu.helper_threads = 1;
  struct sim_result r;
  sim_result_init(&r, policy);
  struct wl_ctx ctx = {.seed = 1};
  sim_time t = pol_run(p, policy, &h.cfg, &ctx, &r, err) ? r.total_ps : -1;
  sim_result_clear(&r);
  wl_program_free(p);
  return t;
}

static sim_time goal_time(const char *text, const char *policy, int64_t nodes) {
  char *err = NULL;
  struct wl_program *p = goal(text, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  sim_time t = run(p, policy, nodes, &err);
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  return t;
}

static void test_ping(void) {
  /* Rank 0's send leaves the thread at 1200 ns, its command is at the NIC
   * at 1302; rank 1 posted its receive at 0, its flag is set LEG later and
   * its thread completes it in 500 ns. */
  const char *g = "num_ranks 2\n"
                  "rank 0 {\nl1: send 8b to 1 tag 0\n}\n"
                  "rank 1 {\nl1: recv 8b from 0 tag 0\n}\n";
  EXPECT_TIME(goal_time(g, "cpu", 2), SEND + BUS + LEG + RECV);
}

static void test_calc_between_recv_and_send(void) {
  /* Rank 1 receives (done at 1302 + LEG + 500 = 2488.26 ns), computes 1000
   * ns (calc 1000 with time_unit 1 ns), sends back: command at the NIC 102 ns
   * after its 1200 ns on the thread; rank 0 posted its receive at 0 and
   * completes it 500 ns after the flag. */
  const char *g = "num_ranks 2\n"
                  "rank 0 {\nl1: send 8b to 1 tag 0\nl2: recv 8b from 1 tag 0\n}\n"
                  "rank 1 {\n"
                  "l1: recv 8b from 0 tag 0 /* the request */\n"
                  "l2: calc 1000\n"
                  "l3: send 8b to 0 tag 0 // the reply\n"
                  "l2 requires l1\n"
                  "l3 requires l2\n"
                  "}\n";
  sim_time reply = SEND + BUS + LEG + RECV + 1000000;
  EXPECT_TIME(goal_time(g, "cpu", 2), reply + SEND + BUS + LEG + RECV);
}

static void test_gpu_calc_under_hdn_and_copy(void) {
  /* A calc of 8 ns on the GPU, then a send that requires it: under hdn the
   * host submits the kernel (1000), which is at the GPU at 1102, launched
   * at 2602, done at 2610, torn down at 4110; its completion reaches the
   * host at 4212, which has polled every 500 ns since its wait began at
   * 1000: 4500; then the send through the host stack, as the hdn ping of
   * tests/test_policy.c; rank 1's host polls the flag (GPU-TN Fig. 8), or
   * under hdn2s completes a two-sided receive (+ RECV). */
  const char *dep = "num_ranks 2\n"
                    "rank 0 {\nl1: calc 8\nl2: send 8b to 1\nl2 requires l1\n}\n"
                    "rank 1 {\nl1: recv 8b from 0\n}\n";
  EXPECT_TIME(goal_time(dep, "hdn", 2), 4500000 + SEND + BUS + LEG);
  EXPECT_TIME(goal_time(dep, "hdn2s", 2), 4500000 + SEND + BUS + LEG + RECV);
  /* Under copy the send is a one-sided copy (build 200 ns, no host stack)
   * and the receiver polls the flag (no receive cost). */
  EXPECT_TIME(goal_time(dep, "copy", 2), 4500000 + 200000 + BUS + LEG);
  /* Without the dependency the send goes right after the launch (the
   * thread's next task, at 1000): rank 1 is done at 1000 + SEND + BUS +
   * LEG = 2988.26 ns, rank 0 when it noticed its kernel, 4500. */
  const char *indep = "num_ranks 2\n"
                      "rank 0 {\nl1: calc 8\nl2: send 8b to 1\n}\n"
                      "rank 1 {\nl1: recv 8b from 0\n}\n";
  EXPECT_TIME(goal_time(indep, "hdn", 2), 4500000);
}

static void test_irequires_overlaps(void) {
  /* Rank 1 forwards to rank 2 only after its receive from 0 completed
   * (requires), or as soon as the receive was posted (irequires, at 0):
   * then its send runs while rank 0's message is on the way, and rank 2
   * is done at SEND + BUS + LEG + RECV, the receive from 0 on rank 1 in
   * parallel (its completion waits for the thread: 1988.26 ns > 1200). */
  const char *req = "num_ranks 3\n"
                    "rank 0 {\nl1: send 8b to 1 tag 0\n}\n"
                    "rank 1 {\nl1: recv 8b from 0 tag 0\nl2: send 8b to 2 tag 0\nl2 requires l1\n}\n"
                    "rank 2 {\nl1: recv 8b from 1 tag 0\n}\n";
  GString *ig = g_string_new(req);
  g_string_replace(ig, "l2 requires", "l2 irequires", 1);
  char *ireq = g_string_free(ig, FALSE);
  sim_time one = SEND + BUS + LEG + RECV;
  EXPECT_TIME(goal_time(req, "cpu", 3), 2 * one);
  EXPECT_TIME(goal_time(ireq, "cpu", 3), one);
  g_free(ireq);
}

static void test_irequires_at_start(void) {
  /* l2 irequires l1: it is ready when l1 starts (at 0), not when l1 ends.
   * At 3000 ns the thread picks the ready tasks by (ready since, file
   * order): l2 (since 0, before l3) sends at 3000..4200; rank 1 is done at
   * 3000 + SEND + BUS + LEG + RECV. Were l2 ready only when l1 ended
   * (since 3000), l3 (since 0) would run first and push the send back 10
   * ns. */
  const char *g = "num_ranks 2\n"
                  "rank 0 {\nl1: calc 3000\nl2: send 8b to 1 tag 0\nl2 irequires l1\n"
                  "l3: calc 10\n}\n"
                  "rank 1 {\nl1: recv 8b from 0 tag 0\n}\n";
  EXPECT_TIME(goal_time(g, "cpu", 2), 3000000 + SEND + BUS + LEG + RECV);
}

static void test_binomial_bcast(void) {
  /* 8 ranks, root 0, masks 4, 2, 1 (MPICH's binomial tree): the root's
   * three sends leave its thread 1200 ns apart; every other rank forwards
   * once its receive completed. Rank 7 is last: 0 -> 4 (done 2488.26), 4
   * -> 6 (its first send: done 4976.52), 6 -> 7: 7464.78 ns. */
  GString *g = g_string_new("num_ranks 8\n");
  struct wl_coll c = {.kind = WL_BCAST, .bytes = 8, .elem = 1, .wgs = 1, .root = 0};
  struct wl_program *p = wl_coll_program(8, &c);
  sim_time one = SEND + BUS + LEG + RECV;
  EXPECT_TIME(run(p, "cpu", 8, NULL), 3 * one);
  /* The same tree written in GOAL. */
  static const int parent[8] = {-1, 0, 0, 2, 0, 4, 4, 6};
  for (int r = 0; r < 8; r++) {
    g_string_append_printf(g, "rank %d {\n", r);
    if (parent[r] >= 0) g_string_append_printf(g, "r: recv 8b from %d\n", parent[r]);
    int k = 0;
    for (int mask = 4; mask; mask >>= 1)
      for (int c2 = 0; c2 < 8; c2++)
        if (parent[c2] == r && c2 - r == mask) {
          g_string_append_printf(g, "s%d: send 8b to %d\n", k, c2);
          if (parent[r] >= 0) g_string_append_printf(g, "s%d requires r\n", k);
          if (k) g_string_append_printf(g, "s%d requires s%d\n", k, k - 1);
          k++;
        }
    g_string_append(g, "}\n");
  }
  EXPECT_TIME(goal_time(g->str, "cpu", 8), 3 * one);
  g_string_free(g, TRUE);
}

/* A ring of 6 steps on 4 ranks (an allreduce's messages without its
 * reductions) as GOAL. */
static char *ring_goal(void) {
  GString *g = g_string_new("num_ranks 4\n");
  for (int r = 0; r < 4; r++) {
    g_string_append_printf(g, "rank %d {\n", r);
    for (int s = 0; s < 6; s++) {
      g_string_append_printf(g, "s%d: send 8b to %d\nr%d: recv 8b from %d\n", s, (r + 1) % 4, s,
                             (r + 3) % 4);
      if (s) g_string_append_printf(g, "s%d requires r%d\n", s, s - 1);
    }
    g_string_append(g, "}\n");
  }
  return g_string_free(g, FALSE);
}

static const char *const ring_yaml =
    "- ops:\n"
    "  - loop:\n"
    "      count: 6\n"
    "      var: s\n"
    "      ops:\n"
    "        - {label: send, send: {to: (rank + 1) % nranks, size: 8B}}\n"
    "        - {label: got, recv: {from: (rank - 1) % nranks, size: 8B}, after: []}\n";

static struct wl_program *ring_program(char **err) {
  /* Each send requires the previous receive: the loop body's first op
   * requires what the op before it ended with, the receive. */
  struct sc_node *n = sc_load_string(ring_yaml, "ring", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(n);
  struct wl_program *p = wl_yprog_build(n, 4, err);
  sc_node_free(n);
  return p;
}

static void test_ring_by_hand_and_both_ways(void) {
  /* Every step: the send waits for the last receive's completion, takes
   * the thread 1200 ns, and the next receive completes 1302 + LEG + 500
   * later: 6 steps of 2488.26 ns. */
  char *g = ring_goal();
  EXPECT_TIME(goal_time(g, "cpu", 4), 6 * (SEND + BUS + LEG + RECV));
  /* The same ring as a YAML program gives the same time under every
   * policy. */
  for (size_t i = 0; i < pol_count(); i++) {
    char *err = NULL;
    struct wl_program *p = ring_program(&err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    sim_time ty = run(p, pol_name(i), 4, &err);
    sim_time tg = goal_time(g, pol_name(i), 4);
    if (ty != tg || ty <= 0) fprintf(stderr, "%s: program %" G_GINT64_FORMAT " goal %" G_GINT64_FORMAT " %s\n", pol_name(i), ty, tg, err ? err : "");
    CU_ASSERT(ty > 0 && ty == tg);
    g_free(err);
  }
  g_free(g);
}

static void test_schedgen_samples_every_policy(void) {
  /* Schedgen's own output parses and runs under every policy; the
   * recursive-doubling sample's calc (5000 ns) delays its first send. */
  static const char *const files[] = {"binomialtreereduce-8x4KiB.goal",
                                      "pipelinedring-6x64KiB.goal",
                                      "iallreduce-recdoub-4x1KiB-nb.goal"};
  for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
    char *name = g_build_filename("goal", files[f], NULL), *path = tu_data(name);
    g_free(name);
    for (size_t i = 0; i < pol_count(); i++) {
      char *err = NULL;
      uint64_t n = 0;
      struct wl_program *p = wl_goal_read(path, 1000, WL_ON_ANY, 64, &n, &err);
      CU_ASSERT_PTR_NOT_NULL_FATAL(p);
      sim_time t = run(p, pol_name(i), 8, &err);
      if (t <= 0) fprintf(stderr, "%s under %s: %s\n", files[f], pol_name(i), err);
      CU_ASSERT(t > 0);
      g_free(err);
    }
    g_free(path);
  }
}

static void expect_read_error(const char *text, const char *want) {
  char *err = NULL;
  struct wl_program *p = goal(text, &err);
  CU_ASSERT_PTR_NULL(p);
  if (!err || !strstr(err, want)) fprintf(stderr, "got: %s\nwanted: %s\n", err, want);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, want));
  wl_program_free(p);
  g_free(err);
}

static void test_malformed(void) {
  expect_read_error("rank 0 {\n}\n", ":1:1: workload.file: expected num_ranks N first, got rank");
  expect_read_error("num_ranks 2\nrank 0 {\nl1: sendd 8b to 1\n}\n",
                    ":3:5: workload.file: expected send, recv or calc");
  expect_read_error("num_ranks 2\nrank 0 {\nl1: send 8 to 1\n}\n",
                    ":3:12: workload.file: expected b after the size, got to");
  expect_read_error("num_ranks 2\nrank 0 {\nl1: send 8b to 2\n}\n",
                    ":3:16: workload.file: expected a rank other than 0 below num_ranks = 2, got 2");
  expect_read_error("num_ranks 2\nrank 0 {\nl1: recv 8b from -1\n}\n",
                    ":3:18: workload.file: expected a rank (-1, any source, is not modelled), got -1");
  expect_read_error("num_ranks 2\nrank 0 {\nl1: calc 5\nl2 requires l1\n}\n",
                    ":4:1: workload.file: expected a label defined earlier in this rank, got l2");
  expect_read_error("num_ranks 2\nrank 0 {\nl1: calc 5\nl1: calc 6\n}\n",
                    ":4:5: workload.file: expected a label not used before in this rank");
  expect_read_error("num_ranks 2\nrank 0 {\nl1: calc 5 tag 3\n}\n",
                    ":3:12: workload.file: expected cpu N or the end of the statement, got tag");
  expect_read_error("num_ranks 2\nrank 0 {\nl1: calc 5\n", ":3:11: workload.file: expected } to close the rank, got the end of the file");
  expect_read_error("num_ranks 2\nrank 2 {\n}\n", ":2:6: workload.file: expected a rank below num_ranks");
  expect_read_error("num_ranks 2\n/* open\nrank 0 {\n}\n",
                    ":4:2: workload.file: expected */ to close the comment, got the end of the file");
  expect_read_error("num_ranks 2\nrank 0 {\nl1: calc 99999999999999999999\n}\n",
                    ":3:10: workload.file: expected a calc time");
  /* A line no schedule has, and something that is not a file. */
  char *longline = g_strnfill(5000, 'x');
  char *text = g_strdup_printf("num_ranks 2\nrank 0 {\n%s\n}\n", longline);
  expect_read_error(text, ":3:4097: workload.file: expected a line of at most 4096 characters");
  g_free(text);
  g_free(longline);
  char *e2 = NULL;
  uint64_t n2 = 0;
  CU_ASSERT_PTR_NULL(wl_goal_read("/dev/zero", 1000, WL_ON_ANY, 64, &n2, &e2));
  CU_ASSERT_PTR_NOT_NULL(e2 && strstr(e2, "expected a readable GOAL file, got /dev/zero: "
                                          "something that is not a regular file"));
  g_free(e2);
  /* More ranks than nodes: no error text, the caller names the key. */
  char *err = NULL;
  uint64_t n = 0;
  char *path = tu_temp_file(".goal", "num_ranks 65\n", 13);
  CU_ASSERT_PTR_NULL(wl_goal_read(path, 1000, WL_ON_ANY, 64, &n, &err));
  CU_ASSERT_PTR_NULL(err);
  CU_ASSERT_EQUAL(n, 65);
  g_free(path);
}

static void test_deadlocks(void) {
  /* A receive no send matches: found before the run, naming the op. */
  char *err = NULL;
  struct wl_program *p = goal("num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 4\n}\n", &err);
  EXPECT_TIME(run(p, "cpu", 2, &err), -1);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "rank 0 op 0 (line 3): expected a send from rank 1 "
                                            "to match its receive of 8 B with tag 4, got none "
                                            "(the schedule would deadlock)"));
  g_free(err);
  err = NULL;
  /* Both ranks send only after they received: the run deadlocks; the
   * message names the first op that never ended. */
  const char *g = "num_ranks 2\n"
                  "rank 0 {\nl1: recv 8b from 1\nl2: send 8b to 1\nl2 requires l1\n}\n"
                  "rank 1 {\nl1: recv 8b from 0\nl2: send 8b to 0\nl2 requires l1\n}\n";
  p = goal(g, &err);
  EXPECT_TIME(run(p, "hdn", 2, &err), -1);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "rank 0 never finished (its host program waits); "
                                            "rank 0's first op that never ended: rank 0 op 0 "
                                            "(line 3)"));
  g_free(err);
  err = NULL;
  /* A dependency cycle is refused before the run. */
  p = goal("num_ranks 2\nrank 0 {\na: calc 1\nb: calc 1\na requires b\nb requires a\n}\n", &err);
  EXPECT_TIME(run(p, "cpu", 2, &err), -1);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "rank 0 op 0 (line 3): expected dependencies without a "
                                            "cycle"));
  g_free(err);
}

static void expect_eval(const char *text, enum unit_dim dim, int64_t rank, int64_t want) {
  const char *const vars[] = {"rank", "nranks"};
  const int64_t vals[] = {rank, 8};
  int64_t v = -12345;
  char *err = NULL;
  CU_ASSERT_TRUE(wl_yprog_eval(text, dim, vars, vals, 2, &v, &err));
  if (v != want) fprintf(stderr, "%s: %" G_GINT64_FORMAT " (%s)\n", text, v, err ? err : "");
  CU_ASSERT_EQUAL(v, want);
  g_free(err);
}

static void expect_eval_error(const char *text, enum unit_dim dim, const char *want) {
  const char *const vars[] = {"rank", "nranks"};
  const int64_t vals[] = {0, 8};
  int64_t v;
  char *err = NULL;
  CU_ASSERT_FALSE(wl_yprog_eval(text, dim, vars, vals, 2, &v, &err));
  if (!err || !strstr(err, want)) fprintf(stderr, "got: %s\nwanted: %s\n", err, want);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, want));
  g_free(err);
}

static void test_expressions(void) {
  expect_eval("(rank + 1) % nranks", UNIT_NONE, 7, 0);
  expect_eval("(rank - 1) % nranks", UNIT_NONE, 0, 7); /* floored */
  expect_eval("2 + 3 * 4 - 10 / 3", UNIT_NONE, 0, 11);
  expect_eval("-(rank) * 2", UNIT_NONE, 3, -6);
  expect_eval("(rank + 1) * 4KiB", UNIT_SIZE, 1, 8192);
  expect_eval("1.5us + 500ns", UNIT_TIME, 0, 2000000);
  expect_eval("8MiB / nranks", UNIT_SIZE, 0, 1048576);
  expect_eval("rank > 0", UNIT_NONE, 0, 0);
  expect_eval("rank < nranks - 1", UNIT_NONE, 3, 1);
  expect_eval("rank * 2 == 6", UNIT_NONE, 3, 1);
  expect_eval_error("4096", UNIT_SIZE, "expected a size with a unit (e.g. 4KiB), got '4096'");
  expect_eval_error("rank / 0", UNIT_NONE, "expected a divisor other than 0 at column 6");
  expect_eval_error("4KiB * 4KiB", UNIT_SIZE, "expected one factor without a unit");
  expect_eval_error("4KiB + 1", UNIT_SIZE, "expected terms all with a unit or all without");
  expect_eval_error("rank +", UNIT_NONE, "expected a number, rank, nranks, a loop variable or (");
  expect_eval_error("ranks", UNIT_NONE, "at column 1 of 'ranks'");
  expect_eval_error("(rank", UNIT_NONE, "expected )");
  expect_eval_error("rank < 1KiB", UNIT_SIZE, "expected sides both with a unit or both without");
  expect_eval_error("rank + 1KiB", UNIT_NONE, "expected an integer, got 1KiB (a size) at column 8");
  expect_eval_error("9223372036854775807 + 1", UNIT_NONE, "a sum that fits in 64 bits");
}

static void expect_yprog_error(const char *yaml, uint32_t n, const char *want) {
  char *err = NULL;
  struct sc_node *node = sc_load_string(yaml, "t.yaml", &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(node);
  struct wl_program *p = wl_yprog_build(node, n, &err);
  CU_ASSERT_PTR_NULL(p);
  if (!err || !strstr(err, want)) fprintf(stderr, "got: %s\nwanted: %s\n", err, want);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, want));
  wl_program_free(p);
  sc_node_free(node);
  g_free(err);
}

static void test_yprog_errors(void) {
  expect_yprog_error("- ops:\n  - send: {to: rank, size: 8B}\n", 2,
                     "t.yaml:2:16: workload.groups[0].ops[0].send.to: expected a rank other than "
                     "the sender's own (0)");
  expect_yprog_error("- ops:\n  - send: {to: 1, size: 8}\n", 2,
                     "t.yaml:2:25: workload.groups[0].ops[0].send.size: expected a size with a unit");
  expect_yprog_error("- ops:\n  - sned: {to: 1, size: 8B}\n", 2,
                     "t.yaml:2:11: workload.groups[0].ops[0].sned: expected an op (compute");
  expect_yprog_error("- ranks: 3\n  ops: [{calc: 1us}]\n", 2,
                     "t.yaml:1:10: workload.groups[0].ranks: expected all, a rank below 2");
  expect_yprog_error("- ops:\n  - {calc: 1us, after: x}\n", 2,
                     "t.yaml:2:24: workload.groups[0].ops[0]: expected a label of an earlier op on "
                     "this rank, got 'x'");
  expect_yprog_error("- ops:\n  - allreduce: {size: 1KiB, algorithm: binomial}\n", 2,
                     "workload.groups[0].ops[0].allreduce.algorithm: expected an algorithm of "
                     "allreduce (auto, ring, recursive_doubling, rabenseifner, binary_tree, "
                     "double_binary_tree, dissemination, direct), got binomial");
  /* 4096 x 4096 = 2^24 iterations of 4 ops: 2^26 ops, past 2^25. */
  expect_yprog_error("- ops:\n  - loop:\n      count: 4096\n      ops:\n"
                     "        - loop: {count: 4096, ops: [{calc: 1ns}, {calc: 1ns}, {calc: 1ns}, "
                     "{calc: 1ns}]}\n", 2,
                     "t.yaml:5:25: workload.groups[0].ops[0].loop.ops[0].loop.count: expected loops "
                     "that make at most 2^25 ops in all, got more (the counts multiply)");
  /* 65536 x 65536 = 2^32 iterations, refused before any though they make
   * no op (the body never runs: if 0). */
  expect_yprog_error("- ops:\n  - loop:\n      count: 65536\n      ops:\n"
                     "        - loop: {count: 65536, ops: [{calc: 1ns, if: 0}]}\n", 2,
                     "t.yaml:5:25: workload.groups[0].ops[0].loop.ops[0].loop.count: expected loops "
                     "that iterate at most 2^25 times in all, got more (the counts multiply)");
  expect_yprog_error("- ops:\n  - compute: {wgs: 4, bytes: 1KiB, class: sparse}\n", 2,
                     "t.yaml:2:43: workload.groups[0].ops[0].compute.class: expected a kernel class "
                     "(streaming, stencil, spmv, reduction, axpy, gemm, library), got sparse");
  expect_yprog_error("- ops:\n  - recv: {from: (rank + 1) % nranks, size: 1KiB, tag: -1}\n", 2,
                     "recv.tag: expected a value in [0, 2147483647] on rank 0, got -1");
  expect_yprog_error("- ops:\n  - quiet: {to: 1}\n", 2,
                     "t.yaml:2:12: workload.groups[0].ops[0].quiet: expected nothing (~), got a "
                     "list or mapping");
  expect_yprog_error("- ops:\n  - fence: 3\n", 2,
                     "t.yaml:2:12: workload.groups[0].ops[0].fence: expected nothing (~), got 3");
}


/* The ops rank R's op I requires, "a b c" (g_free). */
static char *deps_of(const struct wl_program *p, uint32_t r, size_t i) {
  const struct wl_rank *rk = &p->ranks[r];
  const struct wl_op *o = &rk->ops[i];
  GString *s = g_string_new(NULL);
  for (uint32_t k = 0; k < o->n_deps; k++)
    g_string_append_printf(s, "%s%u", k ? " " : "", rk->deps[o->dep_first + k].op);
  return g_string_free(s, FALSE);
}

static struct wl_program *yprog(const char *yaml, uint32_t n, char **err) {
  struct sc_node *node = sc_load_string(yaml, "t.yaml", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(node);
  struct wl_program *p = wl_yprog_build(node, n, err);
  sc_node_free(node);
  return p;
}

#define EXPECT_DEPS(p, r, i, want)              \
  do {                                          \
    char *d_ = deps_of(p, r, i);                \
    if (strcmp(d_, want)) fprintf(stderr, "line %d: rank %u op %u requires '%s', want '%s'\n", \
                                  __LINE__, (unsigned)(r), (unsigned)(i), d_, want);           \
    CU_ASSERT_STRING_EQUAL(d_, want);           \
    g_free(d_);                                 \
  } while (0)

/* A 1D halo in one group (issue 33: it took three rank groups): the end
 * ranks' sends and receives toward no neighbour are removed by `if:`, and
 * the `after:` of the last compute ignores them there. Rank 0 holds c (op
 * 0), sr (1), rr (2), d (3): d requires sr and rr only; rank 1 holds c,
 * sl, sr, rl, rr, d (0-5): d requires ops 1-4. The same as the halo
 * written in three groups (the ends and the middle) under every policy. */
static const char *const halo_one_group =
    "- ops:\n"
    "  - {label: c, compute: {wgs: 2, flops: 1000}}\n"
    "  - {label: sl, send: {to: rank - 1, size: 1KiB}, if: rank > 0, after: c}\n"
    "  - {label: sr, send: {to: rank + 1, size: 1KiB}, if: rank < nranks - 1, after: c}\n"
    "  - {label: rl, recv: {from: rank - 1, size: 1KiB}, if: rank > 0, after: c}\n"
    "  - {label: rr, recv: {from: rank + 1, size: 1KiB}, if: rank < nranks - 1, after: c}\n"
    "  - {label: d, compute: {wgs: 2, flops: 1000}, after: [sl, sr, rl, rr]}\n";
static const char *const halo_three_groups =
    "- ranks: 0\n"
    "  ops:\n"
    "  - {label: c, compute: {wgs: 2, flops: 1000}}\n"
    "  - {label: sr, send: {to: 1, size: 1KiB}, after: c}\n"
    "  - {label: rr, recv: {from: 1, size: 1KiB}, after: c}\n"
    "  - {compute: {wgs: 2, flops: 1000}, after: [sr, rr]}\n"
    "- ranks: \"1-1\"\n"
    "  ops:\n"
    "  - {label: c, compute: {wgs: 2, flops: 1000}}\n"
    "  - {label: sl, send: {to: 0, size: 1KiB}, after: c}\n"
    "  - {label: sr, send: {to: 2, size: 1KiB}, after: c}\n"
    "  - {label: rl, recv: {from: 0, size: 1KiB}, after: c}\n"
    "  - {label: rr, recv: {from: 2, size: 1KiB}, after: c}\n"
    "  - {compute: {wgs: 2, flops: 1000}, after: [sl, sr, rl, rr]}\n"
    "- ranks: 2\n"
    "  ops:\n"
    "  - {label: c, compute: {wgs: 2, flops: 1000}}\n"
    "  - {label: sl, send: {to: 1, size: 1KiB}, after: c}\n"
    "  - {label: rl, recv: {from: 1, size: 1KiB}, after: c}\n"
    "  - {compute: {wgs: 2, flops: 1000}, after: [sl, rl]}\n";

static void test_yprog_halo_in_one_group(void) {
  char *err = NULL;
  struct wl_program *p = yprog(halo_one_group, 3, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->ranks[0].n_ops, 4);
  CU_ASSERT_EQUAL(p->ranks[1].n_ops, 6);
  CU_ASSERT_EQUAL(p->ranks[2].n_ops, 4);
  EXPECT_DEPS(p, 0, 3, "1 2");
  EXPECT_DEPS(p, 1, 5, "1 2 3 4");
  EXPECT_DEPS(p, 2, 3, "1 2");
  wl_program_free(p);
  for (size_t i = 0; i < pol_count(); i++) {
    if (!strcmp(pol_name(i), "monolithic")) continue; /* moves no data */
    struct wl_program *a = yprog(halo_one_group, 3, &err), *b = yprog(halo_three_groups, 3, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    sim_time ta = run(a, pol_name(i), 3, &err), tb = run(b, pol_name(i), 3, &err);
    if (ta != tb || ta <= 0)
      fprintf(stderr, "%s: one group %" G_GINT64_FORMAT ", three %" G_GINT64_FORMAT " %s\n",
              pol_name(i), ta, tb, err ? err : "");
    CU_ASSERT(ta > 0 && ta == tb);
    g_free(err);
    err = NULL;
  }
  /* When every label after: names was removed, the op follows the one
   * before it (as without after:); `after: []` still means nothing. */
  p = yprog("- ops:\n"
            "  - {label: a, calc: 1us}\n"
            "  - {label: x, calc: 1us, if: rank == 1}\n"
            "  - {calc: 1us, after: [x]}\n"
            "  - {calc: 1us, after: []}\n", 2, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  EXPECT_DEPS(p, 0, 1, "0"); /* rank 0: a (0), the op after x (1), after: [] (2) */
  EXPECT_DEPS(p, 0, 2, "");
  EXPECT_DEPS(p, 1, 2, "1"); /* rank 1: x is op 1 */
  wl_program_free(p);
  /* A label that no op ever had is still an error. */
  expect_yprog_error("- ops:\n  - {calc: 1us, label: a, if: rank == 0}\n  - {calc: 1us, after: [b]}\n",
                     2, "t.yaml:3:25: workload.groups[0].ops[1]: expected a label of an earlier op "
                        "on this rank, got 'b'");
}

/* after_prev: an op of the previous iteration of the innermost loop.
 * Here `a` waits only for the `a` before it (after: [] drops the default
 * on the op before it) and `b` for this iteration's `a`: ops a0 b0 a1 b1
 * a2 b2 are 0-5; a0 requires nothing, a1 requires a0 (0), a2 requires a1
 * (2); b1 requires a1 (2). */
static void test_yprog_after_prev(void) {
  char *err = NULL;
  struct wl_program *p = yprog("- ops:\n"
                               "  - loop:\n"
                               "      count: 3\n"
                               "      ops:\n"
                               "        - {label: a, calc: 1us, after: [], after_prev: a}\n"
                               "        - {label: b, calc: 2us, after: a}\n", 1, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->ranks[0].n_ops, 6);
  EXPECT_DEPS(p, 0, 0, "");
  EXPECT_DEPS(p, 0, 1, "0");
  EXPECT_DEPS(p, 0, 2, "0");
  EXPECT_DEPS(p, 0, 3, "2");
  EXPECT_DEPS(p, 0, 4, "2");
  wl_program_free(p);
  /* A label defined later in the body: the previous iteration's b. */
  p = yprog("- ops:\n"
            "  - loop:\n"
            "      count: 2\n"
            "      ops:\n"
            "        - {label: a, calc: 1us, after: [], after_prev: b}\n"
            "        - {label: b, calc: 2us, after: []}\n", 1, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  EXPECT_DEPS(p, 0, 0, "");
  EXPECT_DEPS(p, 0, 2, "1"); /* a1 after b0 */
  wl_program_free(p);
  expect_yprog_error("- ops:\n  - {label: a, calc: 1us, after_prev: a}\n", 1,
                     "t.yaml:2:39: workload.groups[0].ops[0].after_prev: expected after_prev "
                     "inside a loop's ops, got it outside every loop");
  expect_yprog_error("- ops:\n  - loop:\n      count: 2\n      ops:\n"
                     "        - {label: a, calc: 1us, after_prev: z}\n", 1,
                     "t.yaml:5:45: workload.groups[0].ops[0].loop.ops[0].after_prev: expected a "
                     "label of an op in this loop's ops, got 'z'");
}

/* A YAML program's receive that no send matches: validate rejects it
 * (exit 2), as a send no receive matches. */
static void test_yprog_unmatched_receive(void) {
  const char *yaml = "workload:\n  kind: program\n  groups:\n"
                     "    - ranks: 1\n      ops: [{recv: {from: 0, size: 8B}}]\n"
                     "hardware: {network: {nodes: 2}}\npolicies: [cpu]\n";
  char *sc = tu_temp_file(".yaml", yaml, strlen(yaml)), *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", sc, NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "rank 1 op 0 (line 5): expected a send from rank 0 "
                                            "to match its receive of 8 B with tag 0, got none"));
  g_free(err);
  g_free(sc);
}

static void test_yprog_quiet_fence(void) {
  /* Each rank puts to the next, fences, puts again, quiets, then waits
   * for its own two puts' data. quiet is one op counting the ACKs of the
   * 2 puts before it (their flag after the 2 receives'); fence adds no op
   * (the model delivers a rank's puts to a PE in order) and the second put
   * still follows the first. */
  static const char *const yaml =
      "- ops:\n"
      "  - put: {to: (rank + 1) % nranks, size: 8B}\n"
      "  - fence: ~\n"
      "  - put: {to: (rank + 1) % nranks, size: 8B}\n"
      "  - quiet: ~\n"
      "  - {wait: {from: (rank - 1) % nranks, size: 8B}, after: []}\n"
      "  - {wait: {from: (rank - 1) % nranks, size: 8B}, after: []}\n";
  char *err = NULL;
  struct sc_node *n = sc_load_string(yaml, "t.yaml", &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(n);
  struct wl_program *p = wl_yprog_build(n, 2, &err);
  sc_node_free(n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  const struct wl_rank *r0 = &p->ranks[0];
  CU_ASSERT_EQUAL_FATAL(r0->n_ops, 5);
  CU_ASSERT_EQUAL(r0->ops[2].kind, WL_QUIET);
  CU_ASSERT_EQUAL(r0->ops[1].n_deps, 1);
  CU_ASSERT_EQUAL(r0->deps[r0->ops[1].dep_first].op, 0);
  CU_ASSERT_TRUE(wl_program_check(p, &err));
  CU_ASSERT_EQUAL(r0->ops[2].count, 2);
  CU_ASSERT_EQUAL(r0->ops[2].flag, 3);
  CU_ASSERT_EQUAL(r0->ops[0].quiet, 3);
  CU_ASSERT_EQUAL(r0->ops[1].quiet, 3);
  CU_ASSERT_EQUAL(r0->n_flags, 3);
  /* It runs under every policy (the quiet waits for the ACKs). */
  for (size_t i = 0; i < pol_count(); i++) {
    struct sc_node *m = sc_load_string(yaml, "t.yaml", &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    struct wl_program *q = wl_yprog_build(m, 2, &err);
    sc_node_free(m);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    sim_time t = run(q, pol_name(i), 2, &err);
    if (t <= 0) fprintf(stderr, "%s: %s\n", pol_name(i), err ? err : "");
    CU_ASSERT(t > 0);
    g_free(err);
    err = NULL;
  }
  wl_program_free(p);
}

/* The collective C's time on N ranks under cpu. */
static sim_time coll_time(struct wl_coll c, uint32_t n) {
  char *err = NULL;
  sim_time t = run(wl_coll_program(n, &c), "cpu", MAX(n, 2), &err);
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  return t;
}

static void test_collectives_by_hand(void) {
  sim_time one = SEND + BUS + LEG + RECV; /* a send, its delivery, its receive */
  /* A reduction of 8 B (2 elements of 4 B, no flops) on the CPU moves 3 *
   * 8 = 24 B at 320 Gbps: 0.6 ns. */
  const sim_time red = 600;
  /* Recursive doubling of 8 B on 4 ranks: two exchanges, each send after
   * the previous step's reduction: 2 steps and 2 reductions. */
  struct wl_coll ar = {.kind = WL_ALLREDUCE, .algo = WL_ALG_RECDOUB, .bytes = 8, .elem = 4,
                       .flops_per_elem = 0, .wgs = 1};
  EXPECT_TIME(coll_time(ar, 4), 2 * one + 2 * red);
  /* On 3 ranks (not a power of two): rank 0 folds into rank 1, done at
   * ONE; rank 2's message to rank 1 is there already, so rank 1's thread
   * sends to 2 (SEND, first: the lower op), completes the receive from 2
   * (RECV), sends the result back to 0 (SEND), which rank 0 receives. */
  EXPECT_TIME(coll_time(ar, 3), one + SEND + RECV + SEND + BUS + LEG + RECV + 2 * red);
  /* The ring of 32 B on 4 ranks: chunks of 8 B, 2 (n - 1) = 6 steps; the
   * 3 reduce-scatter reductions each delay the next send. */
  ar.algo = WL_ALG_RING;
  ar.bytes = 32;
  EXPECT_TIME(coll_time(ar, 4), 6 * one + 3 * red);
  /* A dissemination barrier on 5 ranks: ceil(log2 5) = 3 rounds of
   * zero-byte messages; a 0 B put has a header-only packet: its leg is
   * the 8 B one less 8 B of DMA and wire at the target and source... so
   * time it against 3 rounds of the barrier on 2 ranks (one round) instead. */
  struct wl_coll bar = {.kind = WL_BARRIER, .elem = 1, .wgs = 1};
  EXPECT_TIME(coll_time(bar, 5), 3 * coll_time(bar, 2));
  /* A collective of zero bytes on one rank adds nothing. */
  EXPECT_TIME(coll_time(ar, 1), 0);
}

static void test_export_round_trip(void) {
  /* The built-in ring allreduce on 4 ranks, written as GOAL (calcs of the
   * CPU's roofline time, in ps; each op requiring the one before) and read
   * back, takes the same time under cpu: a chain of ops in a graph runs as
   * the sequence does. */
  struct allreduce_config c = {.size = 1 << 16, .elem = 4, .wgs = 8,
                               .granularity = AR_WORK_GROUP, .mixed_wgs = 2, .wg_items = 64,
                               .flops_per_elem = 1};
  char *err = NULL;
  struct wl_program *call = wl_allreduce_program(&c, 4, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(call);
  struct wl_program *looped = wl_expand_colls(call, WL_LIB_MPI, WL_LIB_OPTS(1, 1)); /* as cpu runs it */
  struct wl_program *p = wl_unroll(looped); /* GOAL has no loops */
  wl_program_free(call);
  wl_program_free(looped);
  CU_ASSERT_TRUE_FATAL(wl_program_check(p, &err));
  struct hw h;
  hw_defaults(&h);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  wl_goal_write(p, &h.cpu, 1, f);
  fclose(f);
  char *path = tu_temp_file(".goal", text, len);
  uint64_t n;
  struct wl_program *g = wl_goal_read(path, 1, WL_ON_ANY, 64, &n, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(g);
  sim_time tp = run(p, "cpu", 4, &err), tg = run(g, "cpu", 4, &err);
  CU_ASSERT(tp > 0);
  EXPECT_TIME(tg, tp);
  g_free(path);
  free(text);
  g_free(err);
}

/* `trigsim ARGS` on a scenario running GOAL TEXT under POLICY: its
 * status, its stderr in *ERR. */
static int cli_goal_under(const char *cmd, const char *text, const char *policy, char **err) {
  char *g = tu_temp_file(".goal", text, strlen(text));
  char *yaml = g_strdup_printf("workload: {kind: goal, file: %s}\nhardware: {network: {nodes: 2}}\n"
                               "policies: [%s]\n", g, policy);
  char *sc = tu_temp_file(".yaml", yaml, strlen(yaml));
  const char *argv[] = {cmd, sc, NULL};
  int status = tu_trigsim(argv, NULL, err);
  g_free(sc);
  g_free(yaml);
  g_free(g);
  return status;
}

static int cli_goal(const char *cmd, const char *text, char **err) {
  return cli_goal_under(cmd, text, "cpu", err);
}

static void test_cli_statuses(void) {
  /* A receive no send matches is bad input as a send no receive matches
   * is (issue 33: validate passed it, run exited 3): both exit 2 naming
   * the op, at the scenario's workload.file. */
  const char *dead = "num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag 4\n}\n";
  const char *lone = "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 4\n}\n";
  char *err = NULL;
  for (int i = 0; i < 2; i++) {
    const char *cmd = i ? "run" : "validate";
    CU_ASSERT_EQUAL(cli_goal(cmd, dead, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "rank 0 op 0 (line 3): expected a send from rank 1 "
                                              "to match its receive of 8 B with tag 4, got none "
                                              "(the schedule would deadlock)"));
    g_free(err);
    CU_ASSERT_EQUAL(cli_goal(cmd, lone, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "rank 0 op 0 (line 3): expected a receive of 8 B"));
    g_free(err);
  }
  /* cpu streams schedules (configs/README.md); one whose ranks each wait
   * for the other deadlocks while running: exit 3 naming the first op that
   * never ended and its line, as when read whole. */
  const char *cycle = "num_ranks 2\n"
                      "rank 0 {\nl1: recv 8b from 1\nl2: send 8b to 1\nl2 requires l1\n}\n"
                      "rank 1 {\nl1: recv 8b from 0\nl2: send 8b to 0\nl2 requires l1\n}\n";
  CU_ASSERT_EQUAL(cli_goal("validate", cycle, &err), 0);
  g_free(err);
  CU_ASSERT_EQUAL(cli_goal("run", cycle, &err), 3);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "rank 0's first op that never ended: rank 0 op 0 "
                                            "(line 3)"));
  g_free(err);
  /* Under gds each receive is a stream wait (its send follows it on the
   * stream) and the host has nothing to wait for but the stream: the
   * synchronize at the end waits on a marker behind those waits
   * (policy_gds.c end_waits), so the deadlock is seen (it ran to "2.2 us",
   * exit 0, before), named at the receive the stream is stuck at (the
   * streamed run falls back to the whole file to name it). */
  CU_ASSERT_EQUAL(cli_goal_under("run", cycle, "gds", &err), 3);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "rank 0's first op that never ended: rank 0 op 0 "
                                            "(line 3)"));
  g_free(err);
  /* A dependency cycle is bad input: the first pass of a streamed run
   * sees an op wait for a later one and reads the file whole. */
  const char *loop = "num_ranks 2\nrank 0 {\na: calc 1\nb: calc 1\na requires b\nb requires a\n}\n";
  CU_ASSERT_EQUAL(cli_goal("validate", loop, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "rank 0 op 0 (line 3): expected dependencies without "
                                            "a cycle"));
  g_free(err);
  /* A malformed one is bad input for both. */
  const char *bad = "num_ranks 2\nrank 0 {\nl1: recv 8b form 1\n}\n";
  CU_ASSERT_EQUAL(cli_goal("validate", bad, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, ":3:13: workload.file: expected from, got form"));
  g_free(err);
  CU_ASSERT_EQUAL(cli_goal("run", bad, &err), 2);
  g_free(err);
}

/* The CSV (every counter, JSON too) of GOAL file PATH run in this process
 * under POLICIES on hardware HW (YAML flow-map entries) with OPTS added to
 * the workload, as `run` writes it; *STREAMED: how many of the runs
 * streamed (sim_result.streamed). The runs read whole to compare with
 * add `read: whole` (WHOLE, below). */
static char *run_on(const char *path, const char *policies, const char *hw, const char *opts,
                    uint64_t *streamed) {
  char *yaml = g_strdup_printf("name: s\nworkload: {kind: goal, file: %s%s}\n"
                               "hardware: {%s}\npolicies: [%s]\n",
                               path, opts, hw, policies);
  char *sc = tu_temp_file(".yaml", yaml, strlen(yaml));
  struct points pts;
  char *err = NULL;
  struct sim_result *runs = NULL;
  size_t n = 0;
  char *out;
  if (!pts_load(sc, NULL, NULL, &pts, &err) || !pts_run_point(&pts, 0, &runs, &n, &err)) {
    /* The error, after the scenario's own file:line:col. */
    const char *at = strstr(err, " policies: ");
    out = g_strdup_printf("error:%s", at ? at : err);
  } else {
    struct sim_result_set set = {.scenario = "s", .workload = "goal", .seed = 1, .runs = runs,
                                 .n_runs = n};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    result_write(f, &set, RESULT_CSV);
    result_write(f, &set, RESULT_JSON);
    fclose(f);
    out = g_strdup(text);
    free(text);
  }
  *streamed = 0;
  for (size_t i = 0; i < n; i++) *streamed += runs[i].streamed;
  for (size_t i = 0; i < n; i++) sim_result_clear(&runs[i]);
  g_free(runs);
  pts_free(&pts);
  g_free(sc);
  g_free(yaml);
  g_free(err);
  return out;
}

/* More of the hardware (", comm: {library: nccl}") and of its network
 * (", gpus_per_node: 2") for run_both. */
static const char *run_hw = "", *run_net = "", *run_cpu = "";

/* run_on with NODES nodes and a helper thread (ghn's, a proxy's). */
static char *run_both(const char *path, const char *policies, int nodes, const char *opts,
                      uint64_t *streamed) {
  char *hw = g_strdup_printf("network: {nodes: %d%s}, cpu: {helper_threads: 1%s}%s", nodes,
                             run_net, run_cpu, run_hw);
  char *out = run_on(path, policies, hw, opts, streamed);
  g_free(hw);
  return out;
}

/* Workload options that read a schedule whole all the same (its ranks
 * still ordered within its window). */
#define WHOLE ", read: whole"

/* GOAL TEXT (or the file PATH) run read whole and streamed (with OPTS,
 * a stream_window or nothing) gives the same bytes under the host-driven
 * policies and the GPU-driven ones (gputn, ghn, cpufree, p2p, monolithic:
 * one kernel a rank; gds: a kernel a calc), calcs where each policy puts them (cpu: the CPU, the others: the GPU) and on
 * the CPU (host-driven policies only); WANT[0] and WANT[1] of the runs
 * streamed (the others fell back to the whole file). Read whole, a rank
 * is ordered within the same window (wl_linearize); the default window
 * (256 ops, more than any rank here has) orders it as a window of all. */
static void expect_streams_alike(const char *text, const char *path, int nodes, const char *opts,
                                 const uint64_t want[2]) {
  char *own = text ? tu_temp_file(".goal", text, strlen(text)) : NULL;
  const char *file = own ? own : path;
  static const char *const pols[] = {"cpu, hdn, hdn2s, copy, overlap, gputn, ghn, cpufree, p2p, "
                                     "monolithic, gds",
                                     "cpu, hdn, hdn2s, copy, overlap"};
  static const char *const on[] = {"", ", calc_on: cpu"};
  for (int k = 0; k < 2; k++) {
    char *win_opts = g_strdup_printf("%s%s", on[k], opts);
    uint64_t s0 = 0, s1 = 0;
    char *whole_opts = g_strdup_printf("%s%s", WHOLE, win_opts);
    char *whole = run_both(file, pols[k], nodes, whole_opts, &s0);
    g_free(whole_opts);
    char *streamed = run_both(file, pols[k], nodes, win_opts, &s1);
    if (!*opts) { /* the default window: a rank's order as of old */
      char *all_opts = g_strdup_printf(", stream_window: 0%s", on[k]);
      uint64_t s2 = 0;
      char *all = run_both(file, pols[k], nodes, all_opts, &s2);
      CU_ASSERT_STRING_EQUAL(whole, all);
      g_free(all);
      g_free(all_opts);
    }
    CU_ASSERT_EQUAL(s0, 0);
    CU_ASSERT_EQUAL(s1, want[k]);
    if (s1 != want[k]) fprintf(stderr, "%s%s: %" G_GUINT64_FORMAT " runs streamed\n", file, on[k], s1);
    CU_ASSERT_STRING_EQUAL(whole, streamed);
    CU_ASSERT(strstr(whole, ",cpu,") != NULL);
    g_free(whole);
    g_free(streamed);
    g_free(win_opts);
  }
  g_free(own);
}

static void test_streamed_as_whole(void) {
  /* cpu, hdn, hdn2s, copy and overlap stream (5 runs: host-driven, host
   * MPI), a GPU calc a kernel launched and waited for; gputn, ghn,
   * cpufree, p2p and monolithic (5 runs: one kernel a rank, read a step at
   * a time) and gds (1 run: a stream's commands read as the host submits
   * them). Times and every counter are the same bytes either way. */
  static const char *const files[] = {"binomialtreereduce-8x4KiB.goal",
                                      "pipelinedring-6x64KiB.goal",
                                      "iallreduce-recdoub-4x1KiB-nb.goal"};
  static const uint64_t all[2] = {11, 5}, cpu_only[2] = {7, 5}, none[2] = {6, 0},
                        host_only[2] = {5, 5};
  for (size_t f = 0; f < G_N_ELEMENTS(files); f++) {
    char *name = g_build_filename("goal", files[f], NULL), *path = tu_data(name);
    expect_streams_alike(NULL, path, 8, "", all);
    /* A window of one op waiting: read an op at a time, still alike. The
     * recursive-doubling sample starts with a calc: as a kernel, its wait
     * fills the window until the launch has ended, and the send that
     * follows, ready since the start, is read too late: those runs are
     * read whole instead (the same bytes). In the binomial tree a rank's
     * send waits for the receives written after it: a window of one op
     * holds the send alone, not ready; read whole, the order looks past
     * the window; the GPU-driven runs stop and are read whole (the same
     * bytes). */
    expect_streams_alike(NULL, path, 8, ", stream_window: 1",
                         f == 2 ? cpu_only : f == 0 ? host_only : all);
    g_free(name);
    g_free(path);
  }
  char *ring = ring_goal();
  expect_streams_alike(ring, NULL, 4, ", stream_window: 1", all);
  g_free(ring);
  const char *ireq = "num_ranks 3\n"
                     "rank 0 {\nl1: send 8b to 1 tag 0\n}\n"
                     "rank 1 {\nl1: recv 8b from 0 tag 0\nl2: send 8b to 2 tag 0\n"
                     "l2 irequires l1\n}\n"
                     "rank 2 {\nl1: recv 8b from 1 tag 0\n}\n";
  expect_streams_alike(ireq, NULL, 3, "", all);
  const char *calc = "num_ranks 2\n"
                     "rank 0 {\nl1: send 8b to 1 tag 0\nl2: recv 8b from 1 tag 0\n}\n"
                     "rank 1 {\nl1: recv 8b from 0 tag 0\nl2: calc 1000\nl3: send 8b to 0\n"
                     "l2 requires l1\nl3 requires l2\n}\n";
  /* The dependency lines come 1 and 2 ops after l2 and l3 (lag 2). */
  expect_streams_alike(calc, NULL, 2, ", stream_window: 1", all);
  /* Rank 0's send depends on nothing but comes after a chain of calcs:
   * with one op read ahead it is read only once the thread has moved on,
   * after the time it was ready at. The host-driven streamed runs see
   * that, stop, and the whole file runs instead: the same bytes, none of
   * them streamed. A window of 8 reads it in time. The GPU-driven ones
   * stream either way (their order is the window's, read whole too). */
  const char *late = "num_ranks 2\n"
                     "rank 0 {\nc0: calc 100\nc1: calc 100\nc1 requires c0\nc2: calc 100\n"
                     "c2 requires c1\nc3: calc 100\nc3 requires c2\ns: send 8b to 1\n}\n"
                     "rank 1 {\nr: recv 8b from 0\n}\n";
  expect_streams_alike(late, NULL, 2, ", stream_window: 1", none);
  expect_streams_alike(late, NULL, 2, ", stream_window: 8", all);
}

/* A random schedule of SEED: 2-5 ranks, each send placed in its sender
 * and its receive at a random place in the receiver, calcs, and random
 * dependencies among the ops written so far (some on later ops, some lines
 * a few ops late, some irequires): schedules that run, deadlock, or have
 * a cycle. */
static char *random_goal(guint32 seed) {
  GRand *g = g_rand_new_with_seed(seed);
  int n = g_rand_int_range(g, 2, 6);
  GPtrArray **ops = g_new(GPtrArray *, n);
  for (int r = 0; r < n; r++) ops[r] = g_ptr_array_new_with_free_func(g_free);
  for (int m = g_rand_int_range(g, 1, 40); m > 0; m--) {
    int r = g_rand_int_range(g, 0, n);
    if (g_rand_int_range(g, 0, 10) < 3) {
      g_ptr_array_add(ops[r], g_strdup_printf("calc %d", g_rand_int_range(g, 0, 2000)));
      continue;
    }
    int d = (r + g_rand_int_range(g, 1, n)) % n, bytes = 8 << g_rand_int_range(g, 0, 10);
    int tag = g_rand_int_range(g, 0, 3);
    g_ptr_array_add(ops[r], g_strdup_printf("send %db to %d tag %d", bytes, d, tag));
    /* The receive last (in the order the schedule is made: it cannot
     * deadlock but for waits on later ops), or anywhere after its
     * channel's receives before it (they match in order). */
    char *recv = g_strdup_printf("recv %db from %d tag %d", bytes, r, tag);
    char *chan = strstr(recv, " from ");
    gint after = 0;
    for (guint i = 0; i < ops[d]->len; i++)
      if (strstr(ops[d]->pdata[i], chan)) after = (gint)i + 1;
    g_ptr_array_insert(ops[d], g_rand_boolean(g) ? -1 : g_rand_int_range(g, after, (gint)ops[d]->len + 1),
                       recv);
  }
  GString *t = g_string_new(NULL);
  g_string_printf(t, "num_ranks %d\n", n);
  for (int r = 0; r < n; r++) {
    g_string_append_printf(t, "rank %d {\n", r);
    GString *late = g_string_new(NULL); /* dependency lines held back one op */
    for (guint i = 0; i < ops[r]->len; i++) {
      g_string_append_printf(t, "l%u: %s\n", i, (char *)ops[r]->pdata[i]);
      g_string_append(t, late->str);
      g_string_truncate(late, 0);
      /* One of the 8 ops before waits for this one (which waits for none:
       * no cycle; the line at most 9 ops late, within the streamed lag),
       * or this one for 0-2 earlier ones. */
      bool forward = i && g_rand_int_range(g, 0, 8) == 0;
      for (int k = forward ? 1 : i ? g_rand_int_range(g, 0, 3) : 0; k > 0; k--) {
        guint j = (guint)g_rand_int_range(g, forward ? (gint)MAX(i, 8) - 8 : 0, (gint)i);
        guint a = forward ? j : i, b = forward ? i : j;
        g_string_append_printf(g_rand_boolean(g) ? t : late, "l%u %s l%u\n", a,
                               g_rand_int_range(g, 0, 3) ? "requires" : "irequires", b);
      }
    }
    g_string_append(t, late->str);
    g_string_free(late, TRUE);
    g_string_append(t, "}\n");
  }
  for (int r = 0; r < n; r++) g_ptr_array_free(ops[r], TRUE);
  g_free(ops);
  g_rand_free(g);
  return g_string_free(t, FALSE);
}

static void test_streamed_random(void) {
  /* Forty random schedules, read whole and streamed (one op read ahead,
   * and the default window): the same bytes, or the same error, under
   * cpu, hdn and copy (calcs as kernels), hdn2s and overlap (calcs on the
   * CPU). */
  static const char *const opts[] = {"", ", calc_on: cpu"};
  static const char *const pols[] = {"cpu, hdn, copy", "hdn2s, overlap"};
  uint64_t ran = 0, one_op = 0;
  for (guint32 seed = 1; seed <= 40; seed++) {
    char *text = random_goal(seed);
    char *path = tu_temp_file(".goal", text, strlen(text));
    for (int k = 0; k < 2; k++) {
      char *w0 = g_strdup_printf(", stream_window: 0%s", opts[k]);
      char *w1 = g_strdup_printf(", stream_window: 1%s", opts[k]);
      uint64_t s0, s1, s2;

      char *whole = run_both(path, pols[k], 5, w0, &s0);
      char *one = run_both(path, pols[k], 5, w1, &s1);
      char *dflt = run_both(path, pols[k], 5, opts[k], &s2);
      CU_ASSERT_EQUAL(s0, 0);
      /* With the default window every op of these (fewer than 256 a
       * rank) is read at the start: each run that ends well streams. */
      if (!g_str_has_prefix(whole, "error:")) {
        CU_ASSERT_EQUAL(s2, k ? 2 : 3);
        ran++;
      }
      one_op += s1;
      if (strcmp(whole, one) || strcmp(whole, dflt)) fprintf(stderr, "seed %u:\n%s", seed, text);
      CU_ASSERT_STRING_EQUAL(whole, one);
      CU_ASSERT_STRING_EQUAL(whole, dflt);
      g_free(whole);
      g_free(one);
      g_free(dflt);
      g_free(w0);
      g_free(w1);
    }
    g_free(path);
    g_free(text);
  }
  /* Most end well (68 of the 80: the others have a receive that waits
   * for its own send through dependencies, a deadlock); with one op read
   * ahead, some runs stream (30), the others read an op too late and
   * fall back. */
  CU_ASSERT(ran >= 60);
  CU_ASSERT(one_op > 0);
}

static void test_streamed_random_gpu(void) {
  /* The same forty schedules under gputn, ghn, cpufree, p2p, monolithic and gds, read whole
   * (ordered within the window all the same) and streamed, with one op
   * read ahead and the default window: the same bytes, or the same error.
   * With the default window (every op of a rank in it) the streamed run
   * stops only for a deadlock (the whole-file path names the op): every
   * run that ends well streams; with one op, those whose window holds an
   * op waiting for one written after it stop and are read whole. */
  uint64_t ran = 0, one_op = 0;
  for (guint32 seed = 1; seed <= 40; seed++) {
    char *text = random_goal(seed);
    char *path = tu_temp_file(".goal", text, strlen(text));
    static const char *const opts[] = {", stream_window: 1", ""};
    for (int k = 0; k < 2; k++) {
      uint64_t s0, s1;
      char *whole_opts = g_strdup_printf("%s%s", WHOLE, opts[k]);
      char *whole = run_both(path, "gputn, ghn, cpufree, p2p, monolithic, gds", 5, whole_opts, &s0);
      g_free(whole_opts);
      char *streamed = run_both(path, "gputn, ghn, cpufree, p2p, monolithic, gds", 5, opts[k], &s1);
      CU_ASSERT_EQUAL(s0, 0);
      if (k == 1 && !g_str_has_prefix(whole, "error:")) {
        CU_ASSERT_EQUAL(s1, 6);
        ran++;
      }
      if (k == 0) one_op += s1;
      if (strcmp(whole, streamed)) fprintf(stderr, "seed %u%s:\n%s", seed, opts[k], text);
      CU_ASSERT_STRING_EQUAL(whole, streamed);
      g_free(whole);
      g_free(streamed);
    }
    g_free(path);
    g_free(text);
  }
  /* 29 of the 40 end well (in one order a receive can come before the
   * send it waits for through another rank: a deadlock the graph does not
   * have); with one op read ahead 24 of their 174 runs stream (4 of
   * gds's 29). */
  CU_ASSERT(ran >= 25);
  CU_ASSERT(one_op > 0 && one_op < 6 * ran);
}

/* Libraries other than the policy's own stream too: a GOAL schedule's
 * messages are point-to-point, moved the policy's way (the host-driven
 * policies' graph ranks are not grouped into library calls, coll.h), and
 * p2p lowers each op alone with the library's device put or its proxy
 * thread (lower.c pol_lib_send); gds posts them from the host whatever
 * the library. The forty random schedules under hdn, hdn2s, copy,
 * overlap, p2p and gds with nccl, nvshmem (IBGDA and IBRC), nccl on two
 * GPUs a node (NVLink inside a node) and nccl with a step cost, read
 * whole and streamed: the same bytes or the same error, and every point
 * that ends well streams all six runs. */
static void test_streamed_random_libs(void) {
  static const char *const hws[] = {", comm: {library: nccl}", ", comm: {library: nvshmem}",
                                    ", comm: {library: nvshmem, nvshmem_transport: ibrc}",
                                    ", comm: {library: nccl}",
                                    ", comm: {library: nccl, nccl_step_latency: 1us}"};
  const char *pols = "hdn, hdn2s, copy, overlap, p2p, gds";
  uint64_t ran = 0;
  for (size_t h = 0; h < G_N_ELEMENTS(hws); h++) {
    run_hw = hws[h];
    run_net = h == 3 ? ", gpus_per_node: 2" : "";
    int nodes = h == 3 ? 6 : 5;
    for (guint32 seed = 1; seed <= 40; seed++) {
      char *text = random_goal(seed);
      char *path = tu_temp_file(".goal", text, strlen(text));
      uint64_t s0, s1;
      char *whole = run_both(path, pols, nodes, WHOLE, &s0);
      char *streamed = run_both(path, pols, nodes, "", &s1);
      CU_ASSERT_EQUAL(s0, 0);
      if (!g_str_has_prefix(whole, "error:")) {
        CU_ASSERT_EQUAL(s1, 6);
        ran++;
      }
      if (strcmp(whole, streamed)) fprintf(stderr, "%s seed %u:\n%s", hws[h], seed, text);
      CU_ASSERT_STRING_EQUAL(whole, streamed);
      g_free(whole);
      g_free(streamed);
      g_free(path);
      g_free(text);
    }
  }
  run_hw = run_net = "";
  /* 29 of the 40 end well under p2p's order (test_streamed_random_gpu). */
  CU_ASSERT(ran >= 5 * 25);
}

/* The time of GOAL TEXT under POLICY on 2 nodes with OPTS added to the
 * workload, run as `run` runs it; *STREAMED: whether it streamed. */
static sim_time goal_run_time(const char *text, const char *policy, const char *opts,
                              uint64_t *streamed) {
  char *g = tu_temp_file(".goal", text, strlen(text));
  char *yaml = g_strdup_printf("name: w\nworkload: {kind: goal, file: %s%s}\n"
                               "hardware: {network: {nodes: 2}}\npolicies: [%s]\n",
                               g, opts, policy);
  char *sc = tu_temp_file(".yaml", yaml, strlen(yaml));
  struct points pts;
  char *err = NULL;
  struct sim_result *runs = NULL;
  size_t n = 0;
  sim_time t = -1;
  *streamed = 0;
  if (pts_load(sc, NULL, NULL, &pts, &err) && pts_run_point(&pts, 0, &runs, &n, &err) && n == 1) {
    t = runs[0].policy_end_ps; /* the policy's own end: gputn's last WG */
    *streamed = runs[0].streamed;
  }
  if (err) fprintf(stderr, "%s\n", err);
  for (size_t i = 0; i < n; i++) sim_result_clear(&runs[i]);
  g_free(runs);
  pts_free(&pts);
  g_free(err);
  g_free(sc);
  g_free(yaml);
  g_free(g);
  return t;
}

static void test_window_order_gputn(void) {
  /* Rank 1 receives from rank 0 and computes 1000 ns, neither waiting for
   * the other. Under gputn (tests/test_policy.c's ping) each kernel is
   * launched at 2602; rank 0's registration is on its NIC at 1402, its
   * WG's fence 200: the store leaves 2802, is at the NIC 2904, matched
   * 2914: the put goes as a command at c = 2814 would, rank 1's flag is
   * set at c + LEG = 3500.26 ns. Ordered within a window of all of rank
   * 1's ops (stream_window 0, or the default 256), the calc, a ready op
   * that does not wait, comes first: 2602 + 1000 = 3602, the flag is
   * there: done at 3602. Within a window of one op the receive, written
   * first, is the window: the WG polls from 2602 every 100 ns and sees the
   * flag at 3502, then computes: 4502. Streamed or read whole alike. */
  const char *g = "num_ranks 2\n"
                  "rank 0 {\nl1: send 8b to 1 tag 0\n}\n"
                  "rank 1 {\nl1: recv 8b from 0 tag 0\nl2: calc 1000\n}\n";
  uint64_t s;
  EXPECT_TIME(goal_run_time(g, "gputn", ", stream_window: 0", &s), 3602000);
  CU_ASSERT_EQUAL(s, 0);
  EXPECT_TIME(goal_run_time(g, "gputn", "", &s), 3602000);
  CU_ASSERT_EQUAL(s, 1);
  EXPECT_TIME(goal_run_time(g, "gputn", ", stream_window: 1", &s), 4502000);
  CU_ASSERT_EQUAL(s, 1);
  EXPECT_TIME(goal_run_time(g, "gputn", ", stream_window: 1" WHOLE, &s), 4502000);
  CU_ASSERT_EQUAL(s, 0);
}

/* The CSV and JSON of the GOAL file PATH under gputn on NODES nodes
 * with HW added to the hardware, read whole: the same bytes streamed
 * (which it is). */
static char *gputn_both_ways(const char *path, int nodes, const char *hw) {
  uint64_t s0 = 0, s1 = 0;
  run_hw = hw;
  char *whole = run_both(path, "gputn", nodes, WHOLE, &s0);
  char *streamed = run_both(path, "gputn", nodes, "", &s1);
  run_hw = "";
  CU_ASSERT_EQUAL(s0, 0);
  CU_ASSERT_EQUAL(s1, 1);
  CU_ASSERT_STRING_EQUAL(whole, streamed);
  g_free(streamed);
  return whole;
}

/* The NIC holds at most nic.triggered_ops of the host's registrations;
 * the host's next one waits for one to fire (nic.h). Rank 0 sends three
 * 8 B puts to rank 1 (tags 1, 2, 3), which receives them in order. As in
 * test_window_order_gputn, each kernel is launched at 2602. Rank 0's host
 * (cpu.register_trigger set to 500 ns here, not the default 200, so that
 * its third registration begins after the NIC's notice below)
 * registers at 1000..1500, 1500..2000, 2000..2500: on its NIC at 1602,
 * 2102, 2602, each registered 100 ns later. Its WG's fences end at 2802,
 * 3002, 3202: the stores are matched at 2914, 3114, 3314, and each put
 * goes as a command at c = 2814, 3014, 3214 would: rank 1's flags at c +
 * LEG = 3500.26, 3700.26, 3900.26 ns. Rank 1's WG polls from 2602 every
 * 100 ns: it sees them at 3602, 3702, 3902: done at 3902.
 * With nic.triggered_ops: 1, the NIC holds one at 1602 and tells the host
 * (at the CPU 2 + 100 ns later: 1704). The second registration began at
 * 1500, before it knew (the NIC holds two); the third waits from 2000.
 * Put 1 fires at 2914 (two held: one left), put 2 at 3114 (none): the NIC
 * tells the host, which goes on at 3216: 3216..3716, on the NIC at 3818,
 * processed 100 ns: its store was matched at 3314 (an entry without an
 * operation), so it fires at once, as a command at c = 3818 would: flag
 * at 4504.26; rank 1 sees it at 4602. The host spent 3 * 500 + (3216 -
 * 2000) = 2716 ns in its registrations. Read whole or streamed alike. */
static void test_triggered_ops_bound(void) {
  const char *g = "num_ranks 2\n"
                  "rank 0 {\nl1: send 8b to 1 tag 1\nl2: send 8b to 1 tag 2\n"
                  "l3: send 8b to 1 tag 3\n}\n"
                  "rank 1 {\nl1: recv 8b from 0 tag 1\nl2: recv 8b from 0 tag 2\n"
                  "l3: recv 8b from 0 tag 3\n}\n";
  char *path = tu_temp_file(".goal", g, strlen(g));
  static const char *const hw[] = {"", ", nic: {triggered_ops: 1}"};
  static const char *const want_total[] = {"3902000", "4602000"};
  static const char *const want_reg[] = {"\"node0.cpu.register_time\": 1500000",
                                         "\"node0.cpu.register_time\": 2716000"};
  run_cpu = ", register_trigger: 500ns";
  for (int b = 0; b < 2; b++) {
    char *whole = gputn_both_ways(path, 2, hw[b]);
    char *total = g_strdup_printf("\"policy_end_ps\": %s", want_total[b]); /* gputn's last WG */
    CU_ASSERT_PTR_NOT_NULL(strstr(whole, total));
    if (!strstr(whole, total)) fprintf(stderr, "%s\n", whole);
    g_free(total);
    CU_ASSERT_PTR_NOT_NULL(strstr(whole, want_reg[b])); /* rank 0's host */
    g_free(whole);
  }
  run_cpu = "";
  g_free(path);
}

/* A ring of 4 ranks, 300 sends each, each send requiring the receive
 * before it (tools/bench/goal.sh's): under gputn the host registers a
 * send every 200 ns (cpu.register_trigger), its WG sends one per ring
 * step (a message's leg, about 1.1 us), so the host runs hundreds of
 * registrations ahead: the
 * NIC spills more than 64 entries to its overflow (more than the 16
 * on-NIC ones), and the kernel's steps lowered for those registrations,
 * beyond the GPU's window, wait packed (goal.c). Read whole and streamed,
 * the same bytes; with nic.triggered_ops: 8 too, where the host waits
 * (more than its 300 * 200 ns in registrations) and nothing spills. */
static void test_streamed_registrations_ahead(void) {
  GString *t = g_string_new("num_ranks 4\n");
  for (int r = 0; r < 4; r++) {
    g_string_append_printf(t, "rank %d {\n", r);
    for (int i = 0; i < 300; i++) {
      g_string_append_printf(t, "s%d: send 64b to %d tag 0\nr%d: recv 64b from %d tag 0\n", i,
                             (r + 1) % 4, i, (r + 3) % 4);
      if (i) g_string_append_printf(t, "s%d requires r%d\n", i, i - 1);
    }
    g_string_append(t, "}\n");
  }
  char *path = tu_temp_file(".goal", t->str, t->len);
  static const char *const hw[] = {"", ", nic: {triggered_ops: 8}"};
  for (int b = 0; b < 2; b++) {
    char *whole = gputn_both_ways(path, 4, hw[b]);
    const char *at = strstr(whole, "\"node0.nic.overflow_entries\": ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    long spilled = strtol(at + strlen("\"node0.nic.overflow_entries\": "), NULL, 10);
    at = strstr(whole, "\"node0.cpu.register_time\": ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    long long reg = strtoll(at + strlen("\"node0.cpu.register_time\": "), NULL, 10);
    if (b == 0) {
      CU_ASSERT(spilled > 64);
      CU_ASSERT_EQUAL(reg, 300 * 200000LL);
    } else {
      CU_ASSERT_EQUAL(spilled, 0);
      CU_ASSERT(reg > 300 * 200000LL);
    }
    g_free(whole);
  }
  g_free(path);
  g_string_free(t, TRUE);
}

static void test_gds_watcher_by_hand(void) {
  /* gds, streamed and read whole alike. Rank 0 posts its put (build 200:
   * at the NIC 302, posted 402) and submits the doorbell (200-1200, at the
   * GPU 1302, rung at once: at the NIC c = 1404): rank 1's flag is set at
   * F = c + LEG = 2090.26 ns, on the device the put names.
   * - Stream work after the receive (`after`: the calc waits for it): a
   *   stream wait, watched by the GPU. Rank 1 submits the wait (0-1000)
   *   and the kernel (1000-2000, at the GPU 2102) and waits for the kernel
   *   from 2000. The queue goes on at F + stream_wait_latency 1000 =
   *   3090.26, launches 1500 = 4590.26, the WG computes 1000 = 5590.26,
   *   teardown 1500 = 7090.26, the record at the CPU 7192.26, seen at the
   *   poll (every 500 from 2000) 7500.
   * - Nothing after it (`last`: the calc first, the receive last): the
   *   host waits for the flag from 1000, sees it at once at F; the kernel
   *   (submitted 0-1000, at the GPU 1102, launched 2602, computed 3602,
   *   torn down 5102, its record at 5204) is seen at the poll from F:
   *   F + 7 x 500 = 5590.26.
   * Rank 0's send is lowered when its host starts, before rank 1 has
   * placed its receive: the streamed run places rank 1's ops up to it to
   * name the watcher. A watcher named wrong leaves the flag where nobody
   * waits: no such time. */
  const char *after = "num_ranks 2\nrank 0 {\ns: send 8b to 1\n}\n"
                      "rank 1 {\nr: recv 8b from 0\nc: calc 1000\nc requires r\n}\n";
  const char *last = "num_ranks 2\nrank 0 {\ns: send 8b to 1\n}\n"
                     "rank 1 {\nr: recv 8b from 0\nc: calc 1000\n}\n";
  const char *const texts[] = {after, last};
  const sim_time want[] = {7500000, 2090260 + 7 * 500000};
  for (int t = 0; t < 2; t++) {
    uint64_t s;
    EXPECT_TIME(goal_run_time(texts[t], "gds", "", &s), want[t]);
    CU_ASSERT_EQUAL(s, 1);
    EXPECT_TIME(goal_run_time(texts[t], "gds", ", stream_window: 0", &s), want[t]);
    CU_ASSERT_EQUAL(s, 0);
  }
}

static void test_gds_streams_ahead(void) {
  /* Rank 1 computes 300 chained calcs, then receives the 300 messages
   * rank 0 sends at once, then computes once more after the last: each
   * receive is a stream wait (a calc follows), which rank 1's order shows
   * only once its 300 calcs are placed, while rank 0's host lowers its
   * sends from the start; with cpu.launch_queue_depth 1 rank 1's host
   * waits for each kernel before the next, far behind. Kernel and queue
   * command slots serve one calc after another. Streamed and read whole:
   * the same bytes, under depths 1 and the default, windows 1 and the
   * default. */
  GString *g = g_string_new("num_ranks 2\nrank 0 {\n");
  for (int i = 0; i < 300; i++) g_string_append_printf(g, "s%d: send 8b to 1\n", i);
  g_string_append(g, "}\nrank 1 {\n");
  for (int i = 0; i < 300; i++) {
    g_string_append_printf(g, "c%d: calc 100\n", i);
    if (i) g_string_append_printf(g, "c%d requires c%d\n", i, i - 1);
  }
  for (int i = 0; i < 300; i++) g_string_append_printf(g, "r%d: recv 8b from 0\n", i);
  g_string_append(g, "z: calc 10\nz requires r299\n}\n");
  char *path = tu_temp_file(".goal", g->str, g->len);
  static const char *const hws[] = {"network: {nodes: 2}, cpu: {launch_queue_depth: 1}",
                                    "network: {nodes: 2}"};
  static const char *const opts[] = {"", ", stream_window: 1"};
  for (int h = 0; h < 2; h++)
    for (int o = 0; o < 2; o++) {
      uint64_t s0, s1;
      char *whole_opts = g_strdup_printf("%s%s", WHOLE, opts[o]);
      char *whole = run_on(path, "gds", hws[h], whole_opts, &s0);
      g_free(whole_opts);
      char *streamed = run_on(path, "gds", hws[h], opts[o], &s1);
      CU_ASSERT_EQUAL(s0, 0);
      CU_ASSERT_EQUAL(s1, 1);
      CU_ASSERT_STRING_EQUAL(whole, streamed);
      CU_ASSERT_PTR_NOT_NULL(strstr(whole, "\"node1.gpu.stream_waits\": 300"));
      g_free(whole);
      g_free(streamed);
    }
  /* The forty random schedules, the host held to one kernel in flight. */
  for (guint32 seed = 1; seed <= 40; seed++) {
    char *text = random_goal(seed);
    char *rpath = tu_temp_file(".goal", text, strlen(text));
    uint64_t s0, s1;
    const char *hw = "network: {nodes: 5}, cpu: {launch_queue_depth: 1}";
    char *whole = run_on(rpath, "gds", hw, WHOLE, &s0);
    char *streamed = run_on(rpath, "gds", hw, "", &s1);
    CU_ASSERT_EQUAL(s1, g_str_has_prefix(whole, "error:") ? 0 : 1);
    if (strcmp(whole, streamed)) fprintf(stderr, "seed %u:\n%s", seed, text);
    CU_ASSERT_STRING_EQUAL(whole, streamed);
    g_free(whole);
    g_free(streamed);
    g_free(rpath);
    g_free(text);
  }
  g_free(path);
  g_string_free(g, TRUE);
}

/* GOAL TEXT run in this process under POLICY (OPTS added to the
 * workload): the error pts_load (validate) or the run gave, or NULL;
 * *AT_LOAD: which. */
static char *goal_error_under(const char *text, const char *policy, const char *opts,
                              bool *at_load, uint64_t *streamed) {
  char *g = tu_temp_file(".goal", text, strlen(text));
  char *yaml = g_strdup_printf("name: e\nworkload: {kind: goal, file: %s%s}\n"
                               "hardware: {network: {nodes: 2}}\npolicies: [%s]\n", g, opts,
                               policy);
  char *sc = tu_temp_file(".yaml", yaml, strlen(yaml));
  struct points pts;
  char *err = NULL;
  *streamed = 0;
  *at_load = !pts_load(sc, NULL, NULL, &pts, &err);
  if (!*at_load) {
    struct sim_result *runs = NULL;
    size_t n = 0;
    pts_run_point(&pts, 0, &runs, &n, &err);
    for (size_t i = 0; i < n; i++) *streamed += runs[i].streamed;
    for (size_t i = 0; i < n; i++) sim_result_clear(&runs[i]);
    g_free(runs);
  }
  pts_free(&pts);
  g_free(sc);
  g_free(yaml);
  g_free(g);
  return err;
}

static char *goal_error(const char *text, const char *opts, bool *at_load) {
  uint64_t streamed;
  return goal_error_under(text, "cpu", opts, at_load, &streamed);
}

/* validate rejects what run would under a GPU-driven policy whose
 * schedule streams: cpufree's nvshmem over IBRC posts what crosses nodes
 * through a proxy thread and cpu.helper_threads is 0 (lower.c), which
 * only the lowering of a send finds. The error comes at load (validate),
 * naming the key, whether the schedule fits to be read whole (the whole
 * path says it) or not (whole limit 1: the streamed check lowers each op
 * alone and says it); with a helper thread it loads. Two ranks that only
 * calc load with no helper thread either way: the probes the streamed
 * path lowers (a send from rank 0 to 1) are not the file's. */
static void test_gpu_validate_lowering(void) {
  const char *texts[] = {"num_ranks 2\nrank 0 {\ns: send 8b to 1\n}\nrank 1 {\nr: recv 8b from 0\n}\n",
                         "num_ranks 2\nrank 0 {\nc: calc 5\n}\nrank 1 {\nd: calc 7\n}\n"};
  for (int t = 0; t < 2; t++) {
    char *g = tu_temp_file(".goal", texts[t], strlen(texts[t]));
    for (int whole = 0; whole < 2; whole++) {
      for (int helpers = 0; helpers < 2; helpers++) {
        char *yaml = g_strdup_printf("name: e\nworkload: {kind: goal, file: %s%s}\n"
                                     "hardware: {network: {nodes: 2}, cpu: {helper_threads: %d},"
                                     " comm: {nvshmem_transport: ibrc}}\npolicies: [cpufree]\n",
                                     g, whole ? "" : ", whole_limit: 1", helpers);
        char *sc = tu_temp_file(".yaml", yaml, strlen(yaml));
        struct points pts;
        char *err = NULL;
        bool loaded = pts_load(sc, NULL, NULL, &pts, &err);
        CU_ASSERT_EQUAL(loaded, helpers == 1 || t == 1);
        if (helpers == 0 && t == 0)
          CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "hardware.cpu.helper_threads: expected at least 1"));
        pts_free(&pts);
        g_free(err);
        g_free(sc);
        g_free(yaml);
      }
    }
    g_free(g);
  }
}

/* A traced run that streams and stops part way (the whole-file path runs
 * it then) must not leave the stopped run's timeline in the trace: rank
 * 0's 30 calcs stream under gputn with one op read ahead, and only at its
 * 31st op, a calc that waits for the send written after it, does the
 * window hold no ready op (the first 17 steps are lowered before the
 * simulation starts, the rest while it runs). Each node's CPU core is
 * one track: "cpu/core0" is named twice, once a node, not once per run
 * started. */
static void test_streamed_trace(void) {
  GString *text = g_string_new("num_ranks 2\nrank 0 {\n");
  for (int i = 0; i < 30; i++) g_string_append_printf(text, "c%d: calc 100\n", i);
  g_string_append(text, "x: calc 10\ns: send 8b to 1\nx requires s\n}\n"
                        "rank 1 {\nr: recv 8b from 0\n}\n");
  char *g = tu_temp_file(".goal", text->str, text->len);
  char *yaml = g_strdup_printf("name: t\nworkload: {kind: goal, file: %s, stream_window: 1}\n"
                               "hardware: {network: {nodes: 2}}\npolicies: [gputn]\n", g);
  char *sc = tu_temp_file(".yaml", yaml, strlen(yaml));
  struct points pts;
  char *err = NULL;
  CU_ASSERT_TRUE_FATAL(pts_load(sc, NULL, NULL, &pts, &err));
  char *path = tu_temp_file(".json", "", 0);
  struct trace *t = trace_open(path, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  struct sim_result r;
  sim_result_init(&r, "gputn");
  CU_ASSERT_TRUE(wl_run(pts.sc[0], 0, t, &r, &err));
  CU_ASSERT_TRUE(trace_close(t, &err));
  char *json = NULL;
  CU_ASSERT_TRUE_FATAL(g_file_get_contents(path, &json, NULL, NULL));
  int cores = 0;
  for (const char *q = json; (q = strstr(q, "\"cpu/core0\"")); q++) cores++;
  CU_ASSERT_EQUAL(cores, 2);
  g_free(json);
  sim_result_clear(&r);
  pts_free(&pts);
  g_free(err);
  g_free(path);
  g_free(sc);
  g_free(yaml);
  g_free(g);
  g_string_free(text, TRUE);
}

/* Errors of a schedule too big to be read whole (the limit lowered to 1
 * op): found from the first pass, they read as the whole-file path's, at
 * the same stage (validate or run). */
static void test_streamed_errors(void) {
  static const char *const texts[] = {
      /* a receive no send matches: bad input, found when loaded */
      "num_ranks 2\nrank 0 {\nl1: calc 5\nl2: recv 8b from 1 tag 4\n}\n",
      /* a send no receive matches: bad input */
      "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 4\n}\n"};
  for (size_t t = 0; t < G_N_ELEMENTS(texts); t++) {
    bool load_whole, load_big;
    char *whole = goal_error(texts[t], ", stream_window: 0", &load_whole);
    char *big = goal_error(texts[t], ", whole_limit: 1", &load_big);
    CU_ASSERT_PTR_NOT_NULL(whole);
    CU_ASSERT_TRUE(load_whole);
    CU_ASSERT_EQUAL(load_big, load_whole);
    /* The same after the scenario's own file:line:col. */
    const char *w = whole ? strstr(whole, " policies: ") : NULL;
    const char *b = big ? strstr(big, " policies: ") : NULL;
    if (!w || !b || strcmp(w, b)) fprintf(stderr, "whole: %s\nbig: %s\n", whole, big);
    CU_ASSERT(w && b && !strcmp(w, b));
    g_free(whole);
    g_free(big);
  }
  /* Each rank waits for the other: the streamed run deadlocks and, with
   * no whole file to run instead, names the rank and the op by number;
   * with one op read ahead too, when the ranks are chains (each op
   * requires the one before): a chain's ops left unread wait for the one
   * it is stuck on, so the window held back nothing that could free it. */
  const char *cycle = "num_ranks 2\n"
                      "rank 0 {\nl1: recv 8b from 1\nl2: send 8b to 1\nl2 requires l1\n}\n"
                      "rank 1 {\nl1: recv 8b from 0\nl2: send 8b to 0\nl2 requires l1\n}\n";
  const char *stuck = "num_ranks 2\n"
                      "rank 0 {\nl1: recv 8b from 1\nl2: send 8b to 1\nl2 requires l1\n"
                      "l3: calc 5\nl3 requires l2\nl4: calc 5\nl4 requires l3\n}\n"
                      "rank 1 {\nl1: recv 8b from 0\nl2: send 8b to 0\nl2 requires l1\n}\n";
  const char *const stucks[][2] = {{cycle, ", whole_limit: 1"},
                                   {stuck, ", stream_window: 1, whole_limit: 1"}};
  bool at_load;
  char *err;
  for (size_t t = 0; t < G_N_ELEMENTS(stucks); t++) {
    err = goal_error(stucks[t][0], stucks[t][1], &at_load);
    CU_ASSERT_FALSE(at_load);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "policy cpu: the model deadlocked: rank 0 never "
                                              "finished (its host program waits); rank 0's "
                                              "first op that never ended: rank 0 op 0;"));
    g_free(err);
  }
  /* With one op read ahead, the window is named: in `late` an op ready
   * from the start is read too late; in `held` each rank stops before its
   * send (x waits for r) and the run is stuck with ops unread (read whole,
   * both sends go at 0: not a deadlock). */
  const char *late = "num_ranks 2\n"
                     "rank 0 {\nc0: calc 100\nc1: calc 100\nc1 requires c0\nc2: calc 100\n"
                     "c2 requires c1\ns: send 8b to 1\n}\nrank 1 {\nr: recv 8b from 0\n}\n";
  const char *held = "num_ranks 2\n"
                     "rank 0 {\nr: recv 8b from 1\nx: calc 10\nx requires r\ns: send 8b to 1\n}\n"
                     "rank 1 {\nr: recv 8b from 0\nx: calc 10\nx requires r\ns: send 8b to 0\n}\n";
  const char *const windowed[] = {late, held};
  for (size_t t = 0; t < G_N_ELEMENTS(windowed); t++) {
    err = goal_error(windowed[t], ", stream_window: 1, whole_limit: 1", &at_load);
    CU_ASSERT_FALSE(at_load);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "workload.stream_window: expected a window under "
                                              "which every op is read before it is ready"));
    if (!err || !strstr(err, "workload.stream_window")) fprintf(stderr, "%s\n", err);
    g_free(err);
  }
  /* From the GPU (cpufree, gds): rank 0's calc waits for the send written after it; a
   * window of one op holds the calc alone, not ready (read whole, the
   * order would look past the window): the window is named, by validate.
   * A window of two holds the send too: it streams. */
  const char *fwd = "num_ranks 2\n"
                    "rank 0 {\nc: calc 10\ns: send 8b to 1\nc requires s\n}\n"
                    "rank 1 {\nr: recv 8b from 0\n}\n";
  static const char *const gpu[] = {"cpufree", "gds"};
  for (size_t k = 0; k < G_N_ELEMENTS(gpu); k++) {
    uint64_t streamed;
    err = goal_error_under(fwd, gpu[k], ", stream_window: 1, whole_limit: 1", &at_load, &streamed);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "workload.stream_window: expected a window under "
                                              "which every op is read before it is ready"));
    CU_ASSERT_TRUE(at_load); /* the order needs no simulation: validate says it */
    g_free(err);
    err = goal_error_under(fwd, gpu[k], ", stream_window: 2, whole_limit: 1", &at_load, &streamed);
    CU_ASSERT_PTR_NULL(err);
    CU_ASSERT_EQUAL(streamed, 1);
    g_free(err);
  }
  /* Read whole, `held` runs: each send leaves at 0, the peer's receive
   * completes SEND + BUS + LEG + RECV later, then its 10 ns calc. */
  EXPECT_TIME(goal_time(held, "cpu", 2), SEND + BUS + LEG + RECV + 10000);
}

/* A rank whose ops each require the one before (a chain, Schedgen's usual
 * output) streams as its CPU asks, read an op at a time and run by the
 * graph executor's rules (stream.c, models/cpu.c), with or without the
 * whole file to fall back on (whole_limit 1), and with a window of one
 * op: rank 0 computes 1000 ns, sends (its thread busy SEND, the command
 * BUS later at its NIC, the flag at rank 1 LEG later), then posts its
 * receive; rank 1 completes its receive (RECV), computes 500 ns and
 * replies: rank 0 is done at 1500 ns + 2 (SEND + BUS + LEG + RECV) =
 * 6476.52 ns. The dependency lines of rank 0 come an op late (lag 1).
 * Every counter is the same bytes read whole, under every policy, calcs
 * as kernels (hdn, copy, overlap: launched and waited for) and on the
 * CPU. (Two chains stuck on each other: test_streamed_errors.) */
static void test_chain_streams(void) {
  const char *text = "num_ranks 2\n"
                     "rank 0 {\na: calc 1000\nb: send 8b to 1\nc: recv 8b from 1\n"
                     "b requires a\nc requires b\n}\n"
                     "rank 1 {\nx: recv 8b from 0\ny: calc 500\ny requires x\nz: send 8b to 0\n"
                     "z requires y\n}\n";
  static const char *const opts[] = {"", ", whole_limit: 1", ", stream_window: 1, whole_limit: 1"};
  for (size_t k = 0; k < G_N_ELEMENTS(opts); k++) {
    uint64_t streamed;
    EXPECT_TIME(goal_run_time(text, "cpu", opts[k], &streamed),
                1500000 + 2 * (SEND + BUS + LEG + RECV));
    CU_ASSERT_EQUAL(streamed, 1);
  }
  static const uint64_t all[2] = {11, 5};
  expect_streams_alike(text, NULL, 2, "", all);
  expect_streams_alike(text, NULL, 2, ", stream_window: 1", all);
}

static void test_loggp_profile(void) {
  /* configs/hw/loggp.yaml makes a ping o + L + s G + o: 1500 + 2 x 1250 +
   * ceil(8000 bits / 1333333333 bps) = 6000.001 + 1500 ns, plus the bus's
   * DMA read and memory write of 1000 B at 100 Tbps (0.08 ns each):
   * 11500.161 ns. */
  const char *dir = g_getenv("TRIGSIM_CONFIGS");
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  const char *g = "num_ranks 2\nrank 0 {\nl1: send 1000b to 1\n}\nrank 1 {\nl1: recv 1000b from 0\n}\n";
  char *gp = tu_temp_file(".goal", g, strlen(g));
  char *yaml = g_strdup_printf("include: %s/hw/loggp.yaml\nworkload: {kind: goal, file: %s}\n"
                               "policies: [cpu]\n", dir, gp);
  char *sc = tu_temp_file(".yaml", yaml, strlen(yaml));
  const char *argv[] = {"run", sc, "-f", "csv", "--counters", "none", NULL};
  char *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim(argv, &out, &err), 0);
  CU_ASSERT_PTR_NOT_NULL(out && strstr(out, ",cpu,11500161,"));
  if (!out || !strstr(out, ",cpu,11500161,")) fprintf(stderr, "%s%s\n", out ? out : "", err ? err : "");
  g_free(out);
  g_free(err);
  g_free(sc);
  g_free(yaml);
  g_free(gp);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"GOAL ping, timed by hand", test_ping},
      {"calc between a recv and a send", test_calc_between_recv_and_send},
      {"irequires lets a send overlap a receive", test_irequires_overlaps},
      {"irequires: ready when the other starts", test_irequires_at_start},
      {"a GPU calc under hdn and copy, with and without a dependency", test_gpu_calc_under_hdn_and_copy},
      {"binomial broadcast on 8 ranks, coll and GOAL", test_binomial_bcast},
      {"ring on 4 ranks by hand; GOAL and program agree", test_ring_by_hand_and_both_ways},
      {"Schedgen's samples under every policy", test_schedgen_samples_every_policy},
      {"malformed GOAL: file:line:col", test_malformed},
      {"deadlocks name the rank and op", test_deadlocks},
      {"program expressions", test_expressions},
      {"program errors name the key", test_yprog_errors},
      {"program: a 1D halo in one group", test_yprog_halo_in_one_group},
      {"program: after_prev", test_yprog_after_prev},
      {"program: an unmatched receive is rejected", test_yprog_unmatched_receive},
      {"program quiet and fence", test_yprog_quiet_fence},
      {"collectives timed by hand", test_collectives_by_hand},
      {"a workload exported as GOAL runs the same", test_export_round_trip},
      {"exit statuses: a deadlock 3, unmatched messages and a malformed file 2", test_cli_statuses},
      {"the LogGP profile: a ping is o + L + s G + o", test_loggp_profile},
      {"GOAL streamed gives the bytes of GOAL read whole", test_streamed_as_whole},
      {"errors of a GOAL file too big to read whole", test_streamed_errors},
      {"a chain rank streams an op at a time, by hand and as read whole", test_chain_streams},
      {"random GOAL schedules streamed and read whole", test_streamed_random},
      {"random GOAL schedules streamed from the GPU and read whole", test_streamed_random_gpu},
      {"random GOAL schedules streamed under other libraries", test_streamed_random_libs},
      {"gputn: the window orders a rank, by hand", test_window_order_gputn},
      {"gputn: the NIC's bound on the host's registrations, by hand", test_triggered_ops_bound},
      {"gputn: a host far ahead of its kernel, streamed and read whole", test_streamed_registrations_ahead},
      {"gds: a receive's watcher, streamed and whole, by hand", test_gds_watcher_by_hand},
      {"gds streamed: a sender far ahead, kernels one at a time", test_gds_streams_ahead},
      {"validate finds a GPU-driven lowering's errors in a GOAL schedule", test_gpu_validate_lowering},
      {"a traced GOAL run that would stream and stop leaves one timeline", test_streamed_trace},
      {NULL, NULL}};
  return tu_run_suite("goal", tests);
}
