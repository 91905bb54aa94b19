/* Tests for tools/app/report.c's summary of counters by component kind: the
 * kind of a key, sum, mean, max and where the max is, hand-computed. */
#include "nic.h"
#include "report.h"
#include "result.h"
#include "testutil.h"

#include <glib.h>
#include <math.h>

static void test_summarize(void) {
  struct sim_report r;
  sim_report_init(&r);
  sim_report_int(&r, "node0.nic.puts", UNIT_NONE, 3);
  sim_report_int(&r, "node0.nic.stall_time", UNIT_TIME, 100);
  sim_report_int(&r, "node1.nic.puts", UNIT_NONE, 5);
  sim_report_int(&r, "node1.nic.stall_time", UNIT_TIME, 0);
  sim_report_int(&r, "node12.nic.puts", UNIT_NONE, 5);
  sim_report_real(&r, "node0.nic.entries_in_use_mean", 0.25);
  sim_report_real(&r, "node1.nic.entries_in_use_mean", 1.0);
  sim_report_int(&r, "net.sw0.packets", UNIT_NONE, 7);
  sim_report_int(&r, "net.switches.packets", UNIT_NONE, 7);
  sim_report_int(&r, "lps", UNIT_NONE, 16);
  size_t n = 0;
  struct result_stat *st = result_summarize(&r, &n);
  CU_ASSERT_EQUAL_FATAL(n, 6);
  /* In order of first appearance. puts: 3 + 5 + 5 = 13 over 3 NICs, mean
   * 13/3, max 5 first at node1.nic (node12.nic ties later). */
  CU_ASSERT_STRING_EQUAL(st[0].key, "node.nic.puts");
  CU_ASSERT_FALSE(st[0].single);
  CU_ASSERT_EQUAL(st[0].n, 3);
  CU_ASSERT_DOUBLE_EQUAL(st[0].sum, 13.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(st[0].max, 5.0, 1e-12);
  CU_ASSERT_STRING_EQUAL(st[0].max_at, "node1.nic");
  /* stall_time keeps its unit: 100 + 0 ps, max at node0.nic. */
  CU_ASSERT_STRING_EQUAL(st[1].key, "node.nic.stall_time");
  CU_ASSERT_EQUAL(st[1].dim, UNIT_TIME);
  CU_ASSERT_DOUBLE_EQUAL(st[1].sum, 100.0, 1e-12);
  CU_ASSERT_STRING_EQUAL(st[1].max_at, "node0.nic");
  /* Real values: 0.25 + 1.0, max 1.0 at node1.nic. */
  CU_ASSERT_STRING_EQUAL(st[2].key, "node.nic.entries_in_use_mean");
  CU_ASSERT_TRUE(st[2].is_real);
  CU_ASSERT_DOUBLE_EQUAL(st[2].sum, 1.25, 1e-12);
  CU_ASSERT_STRING_EQUAL(st[2].max_at, "node1.nic");
  /* "net.sw0" is of kind "net.sw"; "net.switches" and "lps" are kinds of
   * their own (no number in the component). */
  CU_ASSERT_STRING_EQUAL(st[3].key, "net.sw.packets");
  CU_ASSERT_FALSE(st[3].single);
  CU_ASSERT_STRING_EQUAL(st[3].max_at, "net.sw0");
  CU_ASSERT_STRING_EQUAL(st[4].key, "net.switches.packets");
  CU_ASSERT_TRUE(st[4].single);
  CU_ASSERT_DOUBLE_EQUAL(st[4].sum, 7.0, 1e-12);
  CU_ASSERT_STRING_EQUAL(st[5].key, "lps");
  CU_ASSERT_TRUE(st[5].single);
  CU_ASSERT_EQUAL(st[5].n, 1);
  result_stats_free(st, n);
  sim_report_clear(&r);
}

/* A kind keeps its entries' declaration (the JSON writer's unit and doc):
 * two NICs' puts, declared, sum to 7 under node.nic.puts. */
static void test_summary_keeps_the_declaration(void) {
  struct sim_report r;
  sim_report_init(&r);
  sim_out_put_int(&r, "node0.nic", NIC_OUT(PUTS), 3);
  sim_out_put_int(&r, "node1.nic", NIC_OUT(PUTS), 4);
  sim_report_int(&r, "lps", UNIT_NONE, 16);
  size_t n = 0;
  struct result_stat *st = result_summarize(&r, &n);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  CU_ASSERT_STRING_EQUAL(st[0].key, "node.nic.puts");
  CU_ASSERT_DOUBLE_EQUAL(st[0].sum, 7.0, 1e-12);
  CU_ASSERT_PTR_EQUAL(st[0].decl, NIC_OUT(PUTS));
  CU_ASSERT_PTR_NULL(st[1].decl);
  result_stats_free(st, n);
  sim_report_clear(&r);
}

static void test_empty(void) {
  struct sim_report r;
  sim_report_init(&r);
  size_t n = 9;
  struct result_stat *st = result_summarize(&r, &n);
  CU_ASSERT_EQUAL(n, 0);
  result_stats_free(st, n);
}

int main(void) {
  const struct tu_test tests[] = {
      {"counters by component kind", test_summarize},
      {"a kind keeps its declaration", test_summary_keeps_the_declaration},
      {"no counters", test_empty},
      {NULL, NULL},
  };
  return tu_run_suite("result", tests);
}
