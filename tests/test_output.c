/* What `run` and `sweep` print (tools/cli/main.c, tools/app/report.c): counters
 * by component kind by default, --counters all|none|summary, the resolved
 * configuration (--dump-config, JSON) with where each value came from, and
 * the note on stderr when a run hits a resource limit. */
#include <glib.h>
#include <string.h>

#include "testutil.h"

/* 2 x 2 periodic Jacobi, one iteration, on the GPU-TN hardware with one
 * trigger-list entry per NIC. Under gputn each rank registers one
 * triggered put per halo: 4 puts (a periodic 2 x 2 grid still sends 4
 * halos, left and right to the same rank), 1 fits the list, 3 spill; over
 * 4 ranks 3 x 4 = 12 entries spilled, 3 on every NIC (the first NIC,
 * node0.nic, is the max on a tie). The cpu policy uses no trigger list. */
static char *overflow_scenario(void) {
  char *hw = g_build_filename(g_getenv("TRIGSIM_CONFIGS"), "hw", "gputn-sc17.yaml", NULL);
  char *text = g_strdup_printf("include: %s\n"
                               "name: ovf\n"
                               "workload: {kind: jacobi2d, px: 2, py: 2, grid: 64}\n"
                               "policies: [gputn, cpu]\n"
                               "overrides:\n"
                               "  hardware.network.nodes: 4\n"
                               "  hardware.nic.trigger_entries: 1\n",
                               hw);
  char *path = tu_temp_file(".yaml", text, strlen(text));
  g_free(text);
  g_free(hw);
  return path;
}

static void expect_field(const char *head, const char *row, const char *col, const char *want) {
  char *v = tu_csv_field(row, tu_csv_column(head, col));
  if (strcmp(v, want)) fprintf(stderr, "\n  %s: got %s, want %s\n", col, v, want);
  CU_ASSERT_STRING_EQUAL(v, want);
  g_free(v);
}

static void test_csv_counters_by_kind(void) {
  char *sc = overflow_scenario(), *out = NULL;
  CU_ASSERT_EQUAL_FATAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", "-q", "--counters",
                                                   "summary", NULL}, &out, NULL), 0);
  char **lines = g_strsplit(out, "\n", -1);
  CU_ASSERT_EQUAL_FATAL(g_strv_length(lines), 4); /* header, gputn, cpu, "" */
  const char *h = lines[0];
  CU_ASSERT_EQUAL(tu_csv_column(h, "node0.nic.puts"), -1); /* no per-component columns */
  expect_field(h, lines[1], "policy", "gputn");
  expect_field(h, lines[1], "node.nic.overflow_entries.sum", "12");
  expect_field(h, lines[1], "node.nic.overflow_entries.mean", "3");
  expect_field(h, lines[1], "node.nic.overflow_entries.max", "3");
  expect_field(h, lines[1], "node.nic.overflow_entries.max_at", "node0.nic");
  expect_field(h, lines[2], "node.nic.overflow_entries.sum", "0");
  /* 4 halos a rank, each one put, under either policy: 16 in all. */
  expect_field(h, lines[2], "node.nic.puts.sum", "16");
  /* A component without a number is a kind of its own: one column. */
  CU_ASSERT(tu_csv_column(h, "net.switches.packets") > 0);
  CU_ASSERT_EQUAL(tu_csv_column(h, "net.switches.packets.sum"), -1);
  g_strfreev(lines);
  g_free(out);

  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", "-q", "--counters", "all", NULL},
                             &out, NULL), 0);
  char *head = g_strndup(out, strcspn(out, "\n"));
  CU_ASSERT(tu_csv_column(head, "node.nic.puts.sum") > 0);
  CU_ASSERT(tu_csv_column(head, "node3.nic.puts") > 0);
  g_free(head);
  g_free(out);

  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", "-q", "--counters", "none", NULL},
                             &out, NULL), 0);
  head = g_strndup(out, strcspn(out, "\n"));
  CU_ASSERT_PTR_NULL(strstr(head, ".nic."));
  CU_ASSERT_EQUAL(tu_csv_column(head, "phase_sum_nic_ps"), -1); /* nor the phase sums */
  CU_ASSERT(tu_csv_column(head, "cp_nic_ps") > 0);            /* the critical path stays */
  g_free(head);
  g_free(out);

  char *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "--counters", "some", NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "--counters: expected none, summary or all, got some"));
  g_free(err);
  g_free(sc);
}

static void test_table_counters(void) {
  char *sc = overflow_scenario(), *out = NULL;
  /* By default the table alone: totals and the critical path, no counters
   * and no phase sums (issue 33: it fits a screen). */
  CU_ASSERT_EQUAL_FATAL(tu_trigsim((const char *[]){"run", sc, "-q", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "critical path (share of total)"));
  CU_ASSERT_PTR_NULL(strstr(out, "counter (by component kind)"));
  CU_ASSERT_PTR_NULL(strstr(out, "phase sums"));
  g_free(out);
  CU_ASSERT_EQUAL_FATAL(tu_trigsim((const char *[]){"run", sc, "-q", "-c", "summary", NULL}, &out,
                                   NULL), 0);
  /* The policy table comes first, then the phase sums, then the kinds. */
  const char *table = strstr(out, "total ");
  const char *sums = strstr(out, "phase sums");
  const char *kinds = strstr(out, "counter (by component kind)");
  CU_ASSERT_PTR_NOT_NULL_FATAL(table);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sums);
  CU_ASSERT_PTR_NOT_NULL_FATAL(kinds);
  CU_ASSERT(table < sums && sums < kinds);
  CU_ASSERT_PTR_NOT_NULL(strstr(sums, "waiting"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "node.nic.overflow_entries"));
  CU_ASSERT_PTR_NULL(strstr(out, "node0.nic.puts"));
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-q", "-c", "all", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "node.nic.overflow_entries"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "node0.nic.puts"));
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-q", "-c", "none", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NULL(strstr(out, "node.nic"));
  CU_ASSERT_PTR_NULL(strstr(out, "gputn: ")); /* no events line either (issue 33) */
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "gputn "));
  g_free(out);
  g_free(sc);
}

/* Occurrences of NEEDLE in HAY. */
static int count(const char *hay, const char *needle) {
  int n = 0;
  for (const char *p = hay; (p = strstr(p, needle)); p++) n++;
  return n;
}

static void test_limits_said_once(void) {
  char *sc = overflow_scenario(), *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", NULL}, NULL, &err), 0);
  CU_ASSERT_EQUAL(count(err, "trigsim: note: "), 1);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(err, "trigsim: note: the trigger list overflowed in 1 of 2 runs: 12 entries spilled"));
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", "--quiet", NULL}, NULL, &err), 0);
  CU_ASSERT_STRING_EQUAL(err, "");
  g_free(err);
  /* A sweep of 2 points says it once for all 4 runs: 2 x 12 spilled. */
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"sweep", sc, "-j", "1", "--set",
                                              "sweep.axes=[{path: workload.iterations, values: [1, 1]}]",
                                              NULL},
                             NULL, &err),
                  0);
  CU_ASSERT_EQUAL(count(err, "trigsim: note: "), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "overflowed in 2 of 4 runs: 24 entries spilled"));
  g_free(err);
  g_free(sc);
}

/* Line of OUT that starts with PREFIX (g_free), or NULL. */
static char *line_of(const char *out, const char *prefix) {
  char **lines = g_strsplit(out, "\n", -1);
  char *found = NULL;
  for (int i = 0; lines[i] && !found; i++)
    if (g_str_has_prefix(lines[i], prefix)) found = g_strdup(lines[i]);
  g_strfreev(lines);
  return found;
}

static void expect_origin(const char *out, const char *key_value, const char *origin) {
  char *l = line_of(out, key_value);
  CU_ASSERT_PTR_NOT_NULL_FATAL(l);
  if (!g_str_has_suffix(l, origin)) fprintf(stderr, "\n  got '%s', want it to end in '%s'\n", l, origin);
  CU_ASSERT_TRUE(g_str_has_suffix(l, origin));
  g_free(l);
}

static void test_resolved_configuration(void) {
  char *sc = overflow_scenario(), *out = NULL;
  char *hw = g_build_filename(g_getenv("TRIGSIM_CONFIGS"), "hw", "gputn-sc17.yaml", NULL);
  CU_ASSERT_EQUAL_FATAL(tu_trigsim((const char *[]){"run", sc, "--dump-config", "--set",
                                                    "hardware.gpu.cus=8", NULL},
                                   &out, NULL),
                        0);
  expect_origin(out, "hardware.gpu.cus: 8 ", "# --set");
  /* workload: on line 3; px's value in column 32 of "workload: {kind: jacobi2d, px: 2, ...". */
  char *at = g_strdup_printf("# %s:3:32", sc);
  expect_origin(out, "workload.px: 2 ", at);
  g_free(at);
  /* The file's overrides: on line 7, the value in column 33. */
  at = g_strdup_printf("# %s:7:33", sc);
  expect_origin(out, "hardware.nic.trigger_entries: 1 ", at);
  g_free(at);
  expect_origin(out, "workload.periodic: true ", "# default");
  /* From the included profile: launch_latency is on its line 31. */
  char *l = line_of(out, "hardware.gpu.launch_latency: 1.5us ");
  CU_ASSERT_PTR_NOT_NULL(l && strstr(l, hw) && strstr(l, ":31:"));
  g_free(l);
  CU_ASSERT_PTR_NULL(strstr(out, "policy ")); /* nothing ran */
  g_free(out);

  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-q", "-f", "json", "--seed", "9", NULL}, &out,
                             NULL),
                  0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"seed\": {\"value\": \"9\", \"from\": \"--seed\"}"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"workload.periodic\": {\"value\": \"true\", \"from\": \"default\"}"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"counters_by_kind\": {"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"node.nic.overflow_entries\": {\"n\": 4, \"sum\": 12, \"mean\": 3, "
                                     "\"max\": 3, \"max_at\": \"node0.nic\"}"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"node3.nic.overflow_entries\": 3"));
  /* The declared outputs it holds, with unit and doc (sim/outputs.h):
   * phases by key, counters by kind. */
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"outputs\": {\n    \"critical_path\": {\n      \"other\": "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n    \"phase_sums\": {\n      \"launch\": "
                                     "{\"unit\": \"time (ps)\", \"doc\": \"CPU launch calls"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"node.nic.overflow_entries\": {\"unit\": \"count\", "
                                     "\"doc\": \"entries spilled to the overflow in host memory\"}"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"node.nic.bytes_sent\": {\"unit\": \"size (B)\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"net.switches.max_queue_delay\": {\"unit\": \"time (ps)\""));
  g_free(out);
  g_free(hw);
  g_free(sc);
}

int main(void) {
  const struct tu_test tests[] = {
      {"csv: counters by component kind", test_csv_counters_by_kind},
      {"table: policies and phases first, then kinds", test_table_counters},
      {"resource limits said once on stderr", test_limits_said_once},
      {"resolved configuration and its origins", test_resolved_configuration},
      {NULL, NULL},
  };
  return tu_run_suite("output", tests);
}
