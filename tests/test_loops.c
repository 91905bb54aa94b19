/* Loops in the per-rank form and the node programs (program.h, nodeprog.h
 * np_loops): written out by hand, matched loop for loop, and run under
 * every policy with the same times and counters as the program written
 * out (the scale issue: a loop is how a program stays short, never a
 * change of what it does). */
#include <glib.h>
#include <string.h>

#include "allreduce.h"
#include "cg.h"
#include "coll.h"
#include "jacobi.h"
#include "lower.h"
#include "noderig.h"
#include "sparse.h"
#include "testutil.h"

static uint8_t kinds_of(const struct wl_program *p, uint32_t r, char *out) {
  const char *c = "CSRYLE"; /* compute send recv sync loop end */
  size_t n = p->ranks[r].n_ops;
  for (size_t i = 0; i < n; i++) out[i] = c[p->ranks[r].ops[i].kind];
  out[n] = 0;
  return 0;
}

static void test_unroll_and_peel(void) {
  /* Rank 0: C loop(3){ S loop(2){ C } } R, rank 1 the receives and sends
   * that meet them, written out: 1 + 3 * (1 + 2) + 1 = 11 ops on rank 0. */
  struct wl_program *p = wl_program_new(2);
  wl_compute(p, 0, 1, 1, 1);
  wl_loop(p, 0, 3);
  wl_send(p, 0, 1, 8, 0);
  wl_loop(p, 0, 2);
  wl_compute(p, 0, 1, 1, 1);
  wl_end(p, 0);
  wl_end(p, 0);
  wl_recv(p, 0, 1, 8, 1);
  wl_loop(p, 1, 3);
  wl_recv(p, 1, 0, 8, 0);
  wl_end(p, 1);
  wl_send(p, 1, 0, 8, 1);
  CU_ASSERT_TRUE(wl_has_loops(p));
  CU_ASSERT_FALSE(wl_loops_at_syncs(p)); /* the loop opens after a compute */
  CU_ASSERT_EQUAL(wl_unrolled_ops(p), 11 + 4);
  char k[64];
  struct wl_program *u = wl_unroll(p);
  kinds_of(u, 0, k);
  CU_ASSERT_STRING_EQUAL(k, "CSCCSCCSCCR");
  kinds_of(u, 1, k);
  CU_ASSERT_STRING_EQUAL(k, "RRRS");
  CU_ASSERT_FALSE(wl_has_loops(u));
  /* Peeled: loop(2){ S loop(1){C} C } S loop(1){C} C. */
  struct wl_program *q = wl_peel_last(p);
  kinds_of(q, 0, k);
  CU_ASSERT_STRING_EQUAL(k, "CLSLCECESLCECR");
  CU_ASSERT_EQUAL(q->ranks[0].ops[1].count, 2);
  CU_ASSERT_EQUAL(q->ranks[0].ops[3].count, 1);
  CU_ASSERT_EQUAL(wl_unrolled_ops(q), wl_unrolled_ops(p));
  char *err = NULL;
  /* Rank 0's sends sit in loop 0 (count 3), rank 1's receives too. */
  CU_ASSERT_TRUE(wl_program_check(p, &err));
  CU_ASSERT_EQUAL(p->ranks[1].n_flags, 1); /* one flag counts the three */
  CU_ASSERT_TRUE(wl_program_check(u, &err));
  CU_ASSERT_EQUAL(u->ranks[1].n_flags, 3);
  wl_program_free(q);
  wl_program_free(u);
  wl_program_free(p);
}

static void test_loops_must_match(void) {
  /* Three sends in a loop met by three receives written out: the program
   * is right, but not loop for loop; the check says so, and pol_run runs
   * it written out. Under cpu each message is send 1000 + build 200 on the
   * thread, and the receiver's recv 500 after it lands. */
  struct wl_program *p = wl_program_new(2);
  wl_loop(p, 0, 3);
  wl_send(p, 0, 1, 8, 0);
  wl_end(p, 0);
  for (int i = 0; i < 3; i++) wl_recv(p, 1, 0, 8, 0);
  char *err = NULL;
  CU_ASSERT_FALSE(wl_program_check(p, &err));
  CU_ASSERT_PTR_NOT_NULL_FATAL(err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "rank 0 op 1: expected the receive it meets (rank 1 op 0) "
                                     "in the same loops"));
  g_free(err);
  err = NULL;
  struct wl_program *u = wl_unroll(p);
  struct hw h;
  hw_defaults(&h);
  h.net.nodes = 2;
  struct sim_result a, b;
  sim_result_init(&a, "cpu");
  sim_result_init(&b, "cpu");
  struct wl_ctx ctx = {.seed = 1};
  CU_ASSERT_TRUE(pol_run(p, "cpu", &h.cfg, &ctx, &a, &err));
  CU_ASSERT_TRUE(pol_run(u, "cpu", &h.cfg, &ctx, &b, &err));
  CU_ASSERT(a.total_ps > 0);
  CU_ASSERT_EQUAL(a.total_ps, b.total_ps);
  sim_result_clear(&a);
  sim_result_clear(&b);
  wl_program_free(u);
  wl_program_free(p);
}

/* Runs P and P written out under POLICY on H; asserts the same time, the
 * same events and every counter alike. */
static void same_both_ways(const char *what, struct wl_program *p, const char *policy,
                           struct hw *h) {
  struct wl_program *u = wl_unroll(p);
  struct sim_result a, b;
  sim_result_init(&a, policy);
  sim_result_init(&b, policy);
  struct wl_ctx ctx = {.seed = 1};
  char *ea = NULL, *eb = NULL;
  bool oa = pol_run(p, policy, &h->cfg, &ctx, &a, &ea);
  bool ob = pol_run(u, policy, &h->cfg, &ctx, &b, &eb);
  CU_ASSERT_EQUAL(oa, ob);
  if (oa && ob) {
    if (a.total_ps != b.total_ps)
      fprintf(stderr, "%s under %s: looped %" G_GINT64_FORMAT " ps, written out %" G_GINT64_FORMAT
                      " ps\n", what, policy, a.total_ps, b.total_ps);
    CU_ASSERT(a.total_ps > 0);
    CU_ASSERT_EQUAL(a.total_ps, b.total_ps);
    CU_ASSERT_EQUAL(a.events, b.events);
    CU_ASSERT_EQUAL(a.counters.n, b.counters.n);
    for (size_t i = 0; i < a.counters.n && i < b.counters.n; i++) {
      const struct sim_report_entry *x = &a.counters.entries[i], *y = &b.counters.entries[i];
      CU_ASSERT_STRING_EQUAL(x->key, y->key);
      if (x->i != y->i)
        fprintf(stderr, "%s under %s: %s looped %" G_GINT64_FORMAT " written out %" G_GINT64_FORMAT
                        "\n", what, policy, x->key, x->i, y->i);
      CU_ASSERT_EQUAL(x->i, y->i);
    }
  } else {
    CU_ASSERT_STRING_EQUAL(ea ? ea : "", eb ? eb : "");
  }
  g_free(ea);
  g_free(eb);
  sim_result_clear(&a);
  sim_result_clear(&b);
  wl_program_free(u);
}

/* same_both_ways under every policy of the table (workloads/policies/
 * table.c) on NODES nodes of the defaults, with a helper thread (for ghn). */
static void every_policy(const char *what, struct wl_program *p, int64_t nodes) {
  size_t n;
  const struct pol_type *const *all = pol_all(&n);
  for (size_t k = 0; k < n; k++) {
    struct hw h;
    hw_defaults(&h);
    h.net.nodes = nodes;
    h.cpu.helper_threads = 1;
    same_both_ways(what, p, all[k]->name, &h);
  }
}

static void test_allreduce_both_ways(void) {
  /* 5 ranks (not a power of two), 20 KiB, 4 WGs: every trigger granularity
   * under every policy. */
  static const uint8_t grans[] = {AR_WORK_GROUP, AR_KERNEL, AR_WORK_ITEM, AR_MIXED};
  for (size_t g = 0; g < G_N_ELEMENTS(grans); g++) {
    struct allreduce_config c = {.size = 20480, .elem = 4, .wgs = 4, .granularity = grans[g],
                                 .mixed_wgs = 2, .wg_items = 8, .flops_per_elem = 1};
    char *err = NULL;
    struct wl_program *call = wl_allreduce_program(&c, 5, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(call);
    /* The ring's two loops, as the mpi and gputn libraries write it. */
    struct wl_program *p = wl_expand_colls(call, WL_LIB_GPUTN, WL_LIB_OPTS(1, 1));
    CU_ASSERT_TRUE(wl_has_loops(p));
    every_policy("allreduce", p, 5);
    wl_program_free(p);
    wl_program_free(call);
  }
}

static void test_cg_both_ways(void) {
  /* 4 iterations of standard and pipelined CG on a 2D Poisson matrix of
   * 16 x 16 rows over 4 ranks. */
  struct sp_matrix *m = sp_matrix_poisson(2, 16);
  char *err = NULL;
  struct sp_part *part = sp_partition(m, 4, SP_BLOCKS, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(part);
  for (int v = 0; v < 2; v++) {
    struct cg_config c = {.variant = v ? CG_PIPELINED : CG_STANDARD, .rows_per_wg = 16};
    struct wl_program *p = wl_cg_program(&c, part, NULL, 4);
    CU_ASSERT_TRUE(wl_has_loops(p));
    /* An iteration ends with a sync: copy, overlap and p2p keep the loop. */
    CU_ASSERT_TRUE(wl_loops_at_syncs(p));
    every_policy(v ? "pipelined cg" : "standard cg", p, 4);
    wl_program_free(p);
  }
  sp_part_free(part);
  sp_matrix_free(m);
}

static void test_jacobi_both_ways(void) {
  /* 3 sweeps of a periodic 2 x 2 Jacobi, with and without overlap. */
  for (int ov = 0; ov < 2; ov++) {
    struct jacobi2d_config c = {.grid = 64, .px = 2, .py = 2, .periodic = true,
                                .iterations = 3, .elem = 4, .flops_per_point = 5,
                                .bytes_per_point = 8, .wg_tile = 16, .compute = true,
                                .overlap = ov};
    struct wl_program *p = wl_jacobi2d_program(&c);
    CU_ASSERT_TRUE(wl_has_loops(p));
    /* A sweep ends with its faces, not a sync: copy, overlap and p2p get
     * it written out. */
    CU_ASSERT_FALSE(wl_loops_at_syncs(p));
    every_policy(ov ? "jacobi overlap" : "jacobi", p, 4);
    wl_program_free(p);
  }
}

int main(void) {
  static const struct tu_test tests[] = {
      {"loops written out and peeled by hand", test_unroll_and_peel},
      {"messages must match loop for loop, else written out", test_loops_must_match},
      {"allreduce: looped and written out alike, every policy", test_allreduce_both_ways},
      {"CG: looped and written out alike, every policy", test_cg_both_ways},
      {"Jacobi: looped and written out alike, every policy", test_jacobi_both_ways},
      {NULL, NULL}};
  return tu_run_suite("loops", tests);
}
