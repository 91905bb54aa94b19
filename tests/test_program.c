/* The per-rank intermediate form (workloads/ir/program.h): flags numbered per
 * rank by parts, send-receive matching (match indexes, wl_matching_recv),
 * n_flags, the errors wl_program_check reports and wl_select. Every expected index is counted by hand from the ops. */
#include <glib.h>
#include <string.h>

#include "program.h"
#include "testutil.h"

/* Rank 1 receives three messages, with compute phases between them:
 *   op 0 compute, op 1 recv from 0 tag 1 (1 part), op 2 compute,
 *   op 3 recv from 0 tag 2 (4 parts), op 4 recv from 2 tag 1 (2 parts).
 * Rank 0 sends tag 2 before tag 1; rank 2 sends tag 1 and receives
 * nothing; rank 0 receives one message from rank 2. */
static struct wl_program *three_ranks(void) {
  struct wl_program *p = wl_program_new(3);
  wl_compute(p, 0, 4, 100, 0);
  wl_send_parts(p, 0, 1, 4000, 2, 4, 1);
  wl_send(p, 0, 1, 100, 1);
  wl_recv(p, 0, 2, 8, 5);
  wl_compute(p, 1, 4, 100, 0);
  wl_recv(p, 1, 0, 100, 1);
  wl_compute(p, 1, 4, 100, 0);
  wl_recv_parts(p, 1, 0, 4000, 2, 4);
  wl_recv_parts(p, 1, 2, 64, 1, 2);
  wl_send_parts(p, 2, 1, 64, 1, 2, 64);
  wl_send(p, 2, 0, 8, 5);
  return p;
}

static void test_flags_and_matches(void) {
  struct wl_program *p = three_ranks();
  char *err = NULL;
  CU_ASSERT_TRUE_FATAL(wl_program_check(p, &err));
  CU_ASSERT_PTR_NULL(err);
  /* Rank 1's flags, the first of each receive, in op order: op 1 (1 part)
   * flag 1; op 3 (4 parts) flags 2..5; op 4 (2 parts) flags 6..7:
   * n_flags 7. Rank 0: one receive, flag 1. Rank 2: none. */
  const struct wl_rank *r1 = &p->ranks[1];
  CU_ASSERT_EQUAL(r1->ops[1].flag, 1);
  CU_ASSERT_EQUAL(r1->ops[3].flag, 2);
  CU_ASSERT_EQUAL(r1->ops[4].flag, 6);
  CU_ASSERT_EQUAL(r1->n_flags, 7);
  CU_ASSERT_EQUAL(p->ranks[0].ops[3].flag, 1);
  CU_ASSERT_EQUAL(p->ranks[0].n_flags, 1);
  CU_ASSERT_EQUAL(p->ranks[2].n_flags, 0);
  /* Matches are op indexes at the peer: rank 0 op 1 (tag 2) -> rank 1 op
   * 3; op 2 (tag 1) -> op 1; rank 2 op 0 (tag 1 to rank 1) -> op 4 (the
   * same tag from another sender is another message); op 1 -> rank 0
   * op 3. */
  CU_ASSERT_EQUAL(p->ranks[0].ops[1].match, 3);
  CU_ASSERT_EQUAL(p->ranks[0].ops[2].match, 1);
  CU_ASSERT_EQUAL(p->ranks[2].ops[0].match, 4);
  CU_ASSERT_EQUAL(p->ranks[2].ops[1].match, 3);
  CU_ASSERT_PTR_EQUAL(wl_matching_recv(p, 0, 1), &r1->ops[3]);
  CU_ASSERT_PTR_EQUAL(wl_matching_recv(p, 2, 0), &r1->ops[4]);
  CU_ASSERT_EQUAL(wl_matching_recv(p, 2, 1)->flag, 1);
  /* Counts. */
  CU_ASSERT_EQUAL(wl_count(p, 1, WL_RECV), 3);
  CU_ASSERT_EQUAL(wl_count(p, 1, WL_COMPUTE), 2);
  CU_ASSERT_EQUAL(wl_count(p, 0, WL_SEND), 2);
  CU_ASSERT_EQUAL(wl_count(p, 2, WL_SYNC), 0);
  /* Idempotent; adding an op makes it check again. */
  CU_ASSERT_TRUE(wl_program_check(p, &err));
  CU_ASSERT_EQUAL(r1->n_flags, 7);
  CU_ASSERT_FALSE(wl_program_unmatched(p, &err));
  wl_recv(p, 2, 0, 8, 9);
  /* Its sends pair up, but this receive would wait for ever: an error of
   * its own, in the house format. */
  CU_ASSERT_TRUE(wl_program_check(p, &err));
  CU_ASSERT_TRUE(wl_program_unmatched(p, &err));
  CU_ASSERT_PTR_NOT_NULL(
      err && strstr(err, "rank 2 op 2: expected a send from rank 0 to match its receive of 8 B "
                         "with tag 9, got none (the schedule would deadlock)"));
  g_free(err);
  wl_program_free(p);
}

/* Checks P and expects it to fail (or, with DEADLOCK, to pass and have a
 * receive no send matches) with an error containing WANT. */
static void expect_failure(struct wl_program *p, bool deadlock, const char *want) {
  char *err = NULL;
  CU_ASSERT_EQUAL(wl_program_check(p, &err), deadlock);
  if (deadlock) CU_ASSERT_TRUE(wl_program_unmatched(p, &err));
  CU_ASSERT_PTR_NOT_NULL(err);
  if (err && !strstr(err, want)) fprintf(stderr, "got: %s\nwanted: %s\n", err, want);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, want));
  g_free(err);
  wl_program_free(p);
}

static void expect_error(struct wl_program *p, const char *want) { expect_failure(p, false, want); }

static void test_errors(void) {
  struct wl_program *p;
  /* A receive with no send. */
  p = wl_program_new(2);
  wl_compute(p, 1, 1, 1, 0);
  wl_recv(p, 1, 0, 100, 3);
  expect_failure(p, true, "rank 1 op 1: expected a send from rank 0 to match its receive of "
                          "100 B with tag 3, got none (the schedule would deadlock)");
  /* Two sends to one receive (same tag): they match in program order, the
   * second finds none. */
  p = wl_program_new(2);
  wl_send(p, 0, 1, 100, 3);
  wl_send(p, 0, 1, 100, 3);
  wl_recv(p, 1, 0, 100, 3);
  expect_error(p, "rank 0 op 1: expected a receive of 100 B in 1 parts with tag 3 on rank 1 "
                  "(message 2 with that tag), got none");
  /* A send whose receive has different bytes. */
  p = wl_program_new(2);
  wl_send(p, 0, 1, 100, 3);
  wl_recv(p, 1, 0, 200, 3);
  expect_error(p, "rank 0 op 0: expected a receive of 100 B in 1 parts with tag 3 on rank 1, "
                  "got 200 B in 1 parts");
  /* ... or different parts. */
  p = wl_program_new(2);
  wl_send_parts(p, 0, 1, 100, 3, 2, 1);
  wl_recv_parts(p, 1, 0, 100, 3, 4);
  expect_error(p, "rank 0 op 0: expected a receive of 100 B in 2 parts with tag 3 on rank 1, "
                  "got 100 B in 4 parts");
  /* Two receives with one (sender, tag) and one send: the second is left. */
  p = wl_program_new(2);
  wl_send(p, 0, 1, 100, 3);
  wl_recv(p, 1, 0, 100, 3);
  wl_recv(p, 1, 0, 100, 3);
  expect_failure(p, true, "rank 1 op 1: expected a send from rank 0 to match its receive of "
                          "100 B with tag 3, got none");
}

static void test_select_last_op(void) {
  struct wl_program *p = wl_program_new(2);
  wl_compute(p, 0, 8, 10, 0);
  wl_send(p, 0, 1, 64, 1);
  wl_select(p, 0, (struct wl_wgsel){0, 4, 2});
  wl_send(p, 0, 1, 64, 2);
  wl_recv(p, 1, 0, 64, 1);
  wl_recv(p, 1, 0, 64, 2);
  wl_select(p, 1, (struct wl_wgsel){3, 4, 2});
  wl_compute(p, 1, 8, 10, 0);
  /* The selector lands on the op just added, and only there. */
  const struct wl_op *s1 = &p->ranks[0].ops[1], *s2 = &p->ranks[0].ops[2];
  CU_ASSERT_EQUAL(s1->sel.first, 0);
  CU_ASSERT_EQUAL(s1->sel.stride, 4);
  CU_ASSERT_EQUAL(s1->sel.count, 2);
  CU_ASSERT_EQUAL(s2->sel.count, 0);
  const struct wl_op *r1 = &p->ranks[1].ops[0], *r2 = &p->ranks[1].ops[1];
  CU_ASSERT_EQUAL(r1->sel.count, 0);
  CU_ASSERT_EQUAL(r2->sel.first, 3);
  CU_ASSERT_EQUAL(r2->sel.stride, 4);
  CU_ASSERT_EQUAL(r2->sel.count, 2);
  char *err = NULL;
  CU_ASSERT_TRUE(wl_program_check(p, &err));
  /* The selector does not change matching or flags. */
  CU_ASSERT_EQUAL(s1->match, 0);
  CU_ASSERT_EQUAL(s2->match, 1);
  CU_ASSERT_EQUAL(r2->flag, 2);
  wl_program_free(p);
}

static void test_linearize(void) {
  /* Rank 0: recv A (0), recv B (1), send C after A (2), compute D (3),
   * send E after B (4). One order for the GPU: what does not wait first
   * (D), then a receive only when nothing else is ready (A), what it
   * freed (C), the next receive (B), then E: 3 0 2 1 4. */
  struct wl_program *p = wl_program_new(3);
  wl_recv(p, 0, 1, 8, 1);
  wl_recv(p, 0, 2, 8, 2);
  wl_send(p, 0, 1, 8, 3);
  wl_requires(p, 0, 2, 0);
  wl_compute(p, 0, 4, 10, 0);
  wl_send(p, 0, 2, 8, 4);
  wl_requires(p, 0, 4, 1);
  /* Ranks 1 and 2: their halves, as sequences. */
  wl_send(p, 1, 0, 8, 1);
  wl_recv(p, 1, 0, 8, 3);
  wl_send(p, 2, 0, 8, 2);
  wl_recv(p, 2, 0, 8, 4);
  char *err = NULL;
  CU_ASSERT_TRUE_FATAL(wl_program_check(p, &err));
  struct wl_program *q = wl_linearize(p, 0, false);
  const struct wl_rank *r = &q->ranks[0];
  CU_ASSERT_FALSE(r->graph);
  static const int want[5][2] = {{WL_COMPUTE, 0}, {WL_RECV, 1}, {WL_SEND, 3}, {WL_RECV, 2},
                                 {WL_SEND, 4}};
  for (int k = 0; k < 5; k++) {
    CU_ASSERT_EQUAL(r->ops[k].kind, want[k][0]);
    CU_ASSERT_EQUAL(r->ops[k].tag, (uint32_t)want[k][1] * (r->ops[k].kind != WL_COMPUTE));
  }
  /* Flags kept; rank 1's send (tag 1) now meets rank 0's op 1, and rank
   * 0's sends meet their receives where they are. */
  CU_ASSERT_EQUAL(r->ops[1].flag, p->ranks[0].ops[0].flag);
  CU_ASSERT_PTR_EQUAL(wl_matching_recv(q, 1, 0), &r->ops[1]);
  CU_ASSERT_PTR_EQUAL(wl_matching_recv(q, 2, 0), &r->ops[3]);
  CU_ASSERT_PTR_EQUAL(wl_matching_recv(q, 0, 2), &q->ranks[1].ops[1]);
  wl_program_free(q);
  /* Within a window of the first W ops not placed: W = 2 holds A and B,
   * both receives: A; then B, C: C (freed by A); B, D: D; B, E: B (E
   * waits for it); E: 0 2 3 1 4. W = 1: the program's order, 0 1 2 3 4.
   * W = 5 (all of them): as W = 0. Tags say which op: A 1, B 2, C 3, D
   * (a compute) 0, E 4. */
  static const struct {
    uint32_t window;
    uint32_t tags[5];
  } orders[] = {{2, {1, 3, 0, 2, 4}}, {1, {1, 2, 3, 0, 4}}, {5, {0, 1, 3, 2, 4}}};
  for (size_t w = 0; w < G_N_ELEMENTS(orders); w++) {
    q = wl_linearize(p, orders[w].window, false);
    for (int k = 0; k < 5; k++) CU_ASSERT_EQUAL(q->ranks[0].ops[k].tag, orders[w].tags[k]);
    wl_program_free(q);
  }
  wl_program_free(p);
  /* X waits for Y, written after it: a window of one holds X alone, not
   * ready; the order looks past it: Y, then X. */
  p = wl_program_new(2);
  wl_send(p, 0, 1, 8, 7); /* X */
  wl_send(p, 0, 1, 8, 8); /* Y */
  wl_requires(p, 0, 0, 1);
  wl_recv(p, 1, 0, 8, 7);
  wl_recv(p, 1, 0, 8, 8);
  CU_ASSERT_TRUE_FATAL(wl_program_check(p, &err));
  q = wl_linearize(p, 1, false);
  CU_ASSERT_EQUAL(q->ranks[0].ops[0].tag, 8);
  CU_ASSERT_EQUAL(q->ranks[0].ops[1].tag, 7);
  wl_program_free(q);
  wl_program_free(p);
  /* Built op by op: a window of all ops (0) is known only at the end, a
   * window of one once its op is added and sealed. Ops 0 (a receive) and
   * 1 (a compute), no dependency: window 0 gives nothing (0) until the
   * end, then 1 (the compute, which does not wait), then 0; window 1
   * gives op 0 at once (it alone is the window). */
  struct wl_lin *l = wl_lin_new(0);
  uint64_t op = 99;
  wl_lin_add(l, true, 0);
  wl_lin_add(l, false, 0);
  wl_lin_seal(l, 2);
  CU_ASSERT_EQUAL(wl_lin_next(l, false, false, &op), 0);
  CU_ASSERT_EQUAL(wl_lin_next(l, true, false, &op), 1);
  CU_ASSERT_EQUAL(op, 1);
  CU_ASSERT_EQUAL(wl_lin_next(l, true, false, &op), 1);
  CU_ASSERT_EQUAL(op, 0);
  CU_ASSERT_EQUAL(wl_lin_next(l, true, false, &op), -1);
  wl_lin_free(l);
  l = wl_lin_new(1);
  wl_lin_add(l, true, 0);
  wl_lin_add(l, false, 0);
  wl_lin_seal(l, 2);
  CU_ASSERT_EQUAL(wl_lin_next(l, false, false, &op), 1);
  CU_ASSERT_EQUAL(op, 0);
  wl_lin_free(l);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"flags per rank by parts, match indexes, n_flags", test_flags_and_matches},
      {"check errors: unmatched, doubled, mismatched", test_errors},
      {"wl_select restricts the last op", test_select_last_op},
      {"wl_linearize: waits as late as dependencies allow (within a window), matches kept",
       test_linearize},
      {NULL, NULL}};
  return tu_run_suite("program", tests);
}
