/* The trigsim program as a user meets it: exit statuses, messages, output
 * formats, byte-identical reruns, and no output file left by a failure. */
#include <glib.h>
#include <glib/gstdio.h>
#include <pty.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

static char *data(const char *name) {
  char *rel = g_build_filename("cli", name, NULL);
  char *p = tu_data(rel);
  g_free(rel);
  return p;
}

static void test_version_and_help(void) {
  char *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"--version", NULL}, &out, NULL), 0);
  CU_ASSERT_TRUE(g_str_has_prefix(out, "trigsim "));
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"--help", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "run SCENARIO"));
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", "--help", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "--set"));
  g_free(out);
}

static void test_usage_errors_exit_2(void) {
  char *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){NULL}, NULL, NULL), 2);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"rnu", NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "did you mean 'run'?"));
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "expected one SCENARIO file"));
  g_free(err);
  char *good = data("good.yaml");
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", good, "--format", "xml", NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "--format: expected table, csv or json, got xml"));
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", good, "--seed", "-4", NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "--seed: expected a non-negative integer"));
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", good, "--bogus", NULL}, NULL, &err), 2);
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"params", "phlod", NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "did you mean 'phold'?"));
  g_free(err);
  g_free(good);
}

static void test_bad_scenario_exit_2_with_location(void) {
  char *bad = data("bad_range.yaml"), *err = NULL, *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", bad, NULL}, &out, &err), 2);
  /* lps is on line 3, its value at column 8; range [1, 1048576]. */
  char *want = g_strdup_printf("%s:3:8: workload.lps: expected", bad);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "got 0"));
  CU_ASSERT_STRING_EQUAL(out, "");
  g_free(want);
  g_free(err);
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", bad, NULL}, NULL, NULL), 2);
  g_free(bad);
  bad = data("bad_policy.yaml");
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", bad, NULL}, NULL, &err), 2);
  /* hdn sits at line 3, column 18 of bad_policy.yaml: a policy the program
   * knows, but not one phold runs under. */
  want = g_strdup_printf("%s:3:18: policies: expected a policy phold runs under (none), got hdn",
                         bad);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
  g_free(want);
  g_free(err);
  g_free(bad);
  /* A rule across parameters: helper threads leave the main thread a core.
   * The cpu mapping starts at line 3, column 5. */
  bad = data("bad_helpers.yaml");
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", bad, NULL}, NULL, &err), 2);
  want = g_strdup_printf("%s:3:5: hardware.cpu: expected helper_threads at most cores - 1 = 3, got 4", bad);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
  g_free(want);
  g_free(err);
  g_free(bad);
  char *missing = data("no-such-file.yaml");
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", missing, NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, missing));
  g_free(err);
  g_free(missing);
}

static void test_no_output_file_on_failure(void) {
  char *dir = g_dir_make_tmp("trigsim-cli-XXXXXX", NULL);
  char *res = g_build_filename(dir, "out.json", NULL);
  char *tr = g_build_filename(dir, "trace.json", NULL);
  char *bad = data("bad_range.yaml");
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", bad, "-o", res, "--trace", tr, NULL}, NULL, NULL), 2);
  CU_ASSERT_FALSE(g_file_test(res, G_FILE_TEST_EXISTS));
  CU_ASSERT_FALSE(g_file_test(tr, G_FILE_TEST_EXISTS));
  /* The directory is left empty: no temporary file either. */
  GDir *d = g_dir_open(dir, 0, NULL);
  CU_ASSERT_PTR_NULL(g_dir_read_name(d));
  g_dir_close(d);
  g_rmdir(dir);
  g_free(bad);
  g_free(res);
  g_free(tr);
  g_free(dir);
}

static void test_same_scenario_same_bytes(void) {
  char *good = data("good.yaml");
  const char *formats[] = {"table", "csv", "json"};
  for (int i = 0; i < 3; i++) {
    char *a = NULL, *b = NULL;
    CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", good, "-f", formats[i], NULL}, &a, NULL), 0);
    CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", good, "-f", formats[i], NULL}, &b, NULL), 0);
    CU_ASSERT_TRUE(strlen(a) > 0);
    CU_ASSERT_STRING_EQUAL(a, b);
    g_free(a);
    g_free(b);
  }
  /* Another seed, other bytes. */
  char *a = NULL, *b = NULL;
  tu_trigsim((const char *[]){"run", good, "-f", "csv", NULL}, &a, NULL);
  tu_trigsim((const char *[]){"run", good, "-f", "csv", "--seed", "4", NULL}, &b, NULL);
  CU_ASSERT_STRING_NOT_EQUAL(a, b);
  g_free(a);
  g_free(b);
  g_free(good);
}

static void test_json_and_csv_fields(void) {
  char *good = data("good.yaml"), *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", good, "-f", "json", NULL}, &out, NULL), 0);
  /* end_time 50 us = 50,000,000 ps is the run's total. */
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"policy\": \"none\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"total_time_ps\": 50000000"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"phase_sums\": {\"hold\": "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"scenario\": \"cli-good\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"seed\": 3"));
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", good, "-f", "csv", NULL}, &out, NULL), 0);
  char **lines = g_strsplit(out, "\n", -1);
  /* The default CSV is narrow: no phase sums, no counters; PHOLD has no
   * policy end and no critical path (no node models). */
  CU_ASSERT_STRING_EQUAL(lines[0], "scenario,workload,seed,policy,total_time_ps,policy_end_ps,events");
  CU_ASSERT_TRUE(g_str_has_prefix(lines[1], "cli-good,phold,3,none,50000000,"));
  CU_ASSERT_STRING_EQUAL(lines[2], "");
  g_strfreev(lines);
  g_free(out);
  /* --set overrides the file: end_time 20 us. */
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", good, "-f", "csv", "--set", "workload.end_time=20us", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\ncli-good,phold,3,none,20000000,"));
  g_free(out);
  g_free(good);
}

static void test_trace_written(void) {
  char *good = data("good.yaml");
  char *dir = g_dir_make_tmp("trigsim-cli-XXXXXX", NULL);
  char *tr = g_build_filename(dir, "t.json", NULL);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", good, "--trace", tr, NULL}, NULL, NULL), 0);
  char *text = NULL;
  CU_ASSERT_TRUE(g_file_get_contents(tr, &text, NULL, NULL));
  CU_ASSERT_TRUE(g_str_has_prefix(text, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":["));
  CU_ASSERT_TRUE(g_str_has_suffix(text, "]}\n"));
  /* One named track per LP (4), under the policy's process. */
  int threads = 0;
  for (const char *p = text; (p = strstr(p, "\"thread_name\"")); p++) threads++;
  CU_ASSERT_EQUAL(threads, 4);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "\"args\":{\"name\":\"lp3\"}"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "{\"name\":\"none/system\"}"));
  g_free(text);
  g_unlink(tr);
  g_rmdir(dir);
  g_free(tr);
  g_free(dir);
  g_free(good);
}

static void test_params_listing(void) {
  char *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"params", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "link_latency"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "mean_hold"));
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"params", "phold", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "1048576"));
  g_free(out);
}

/* A CG on a Matrix Market file to a tolerance: tests/data/sparse/sym4.mtx
 * is a 3x3 tridiagonal block (4 on the diagonal, -1 beside it: eigenvalues
 * 4 and 4 +- sqrt 2) plus an isolated 4. b = ones has no component on the
 * block's eigenvector (1, 0, -1) of eigenvalue 4, so it excites three
 * distinct eigenvalues, 4 - sqrt 2, 4, 4 + sqrt 2, and exact CG converges
 * in 3 iterations; the run simulates that many. A missing file is an
 * input error at workload.file. */
static void test_cg_from_a_file_to_a_tolerance(void) {
  char *mtx = tu_data("sparse/sym4.mtx");
  char *text = g_strdup_printf("workload: {kind: cg, source: file, file: '%s', tolerance: 1e-10}\n"
                               "policies: [cpufree]\n"
                               "hardware: {network: {nodes: 2}}\n", mtx);
  char *sc = tu_temp_file(".yaml", text, strlen(text)), *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "json", NULL}, &out, &err), 0);
  CU_ASSERT_PTR_NOT_NULL(out && strstr(out, "\"cg.iterations\": 3"));
  g_free(out);
  g_free(err);
  g_free(text);
  g_free(sc);
  text = g_strdup("workload: {kind: cg, source: file, file: no-such.mtx}\n"
                  "hardware: {network: {nodes: 2}}\npolicies: [cpufree]\n");
  sc = tu_temp_file(".yaml", text, strlen(text));
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, NULL}, NULL, &err), 2);
  /* The file's value sits at line 1, column 42. */
  char *want = g_strdup_printf("%s:1:42: workload.file: expected a readable Matrix Market file", sc);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, want));
  g_free(want);
  g_free(err);
  g_free(text);
  g_free(sc);
  g_free(mtx);
}

/* A model deadlock is not bad input: exit 3, naming the rank, the stalled
 * NICs and what they wait on; located at the policy. gputn is on line 7,
 * column 12 of deadlock.yaml. */
static void test_deadlock_exits_3(void) {
  char *sc = data("deadlock.yaml"), *err = NULL, *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", sc, NULL}, NULL, NULL), 0);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, NULL}, &out, &err), 3);
  char *want = g_strdup_printf("%s:7:12: policies: policy gputn: the model deadlocked: rank 0 "
                               "never finished", sc);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "node 0's NIC stalled with all 2 trigger entries held"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "raise hardware.nic.trigger_entries"));
  CU_ASSERT_STRING_EQUAL(out, "");
  g_free(want);
  g_free(out);
  g_free(err);
  g_free(sc);
}

/* validate rejects what run would, so a sweep never dies half-way: the
 * second point's 3 nodes are too few for 2 x 2 ranks, and nothing is
 * written (-j2: a short option's value attached). */
static void test_validate_catches_what_run_rejects(void) {
  char *sc = data("sweep_nodes.yaml"), *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", sc, NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "hardware.network.nodes: expected at least 4 nodes for "
                                     "jacobi2d (px * py), got 3"));
  g_free(err);
  char *dir = g_dir_make_tmp("trigsim-cli-XXXXXX", NULL);
  char *res = g_build_filename(dir, "out.csv", NULL);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"sweep", sc, "-j2", "-q", "-o", res, NULL}, NULL, NULL),
                  2);
  CU_ASSERT_FALSE(g_file_test(res, G_FILE_TEST_EXISTS));
  char *journal = g_strdup_printf("%s.journal", res);
  CU_ASSERT_FALSE(g_file_test(journal, G_FILE_TEST_EXISTS));
  g_free(journal);
  g_rmdir(dir);
  g_free(res);
  g_free(dir);
  g_free(sc);
  /* A policy's needs too: ghn without a helper thread, at the key. */
  char *good = data("no_policies.yaml");
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", good, "--set", "policies=[ghn]", NULL},
                             NULL, &err),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "hardware.cpu.helper_threads: expected at least 1 for "
                                     "policy ghn"));
  g_free(err);
  g_free(good);
}

/* Inputs that used to eat memory or pass silently. */
static void test_input_limits(void) {
  char *sc = data("include_device.yaml"), *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", sc, NULL}, NULL, &err), 2);
  char *want = g_strdup_printf("%s:1:10: include: expected a readable file, got '/dev/zero' "
                               "(not a regular file (a character device))", sc);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
  g_free(want);
  g_free(err);
  g_free(sc);
  /* link_latency: 1 is no time (it was 1 ps); line 3, column 27. */
  sc = data("bare_number.yaml");
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", sc, NULL}, NULL, &err), 2);
  want = g_strdup_printf("%s:3:27: hardware.network.link_latency: expected a time such as 1.5us, "
                         "got 1 (a bare number: write its unit, e.g. 1.5us)", sc);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
  g_free(want);
  g_free(err);
  g_free(sc);
}

/* Without policies:, a ping runs under its default, gputn (none, the
 * catalog's first, runs no GPU workload). */
/* run --points: the rows of the points picked, as the whole run prints
 * them, in point order whatever the list's order; a point past the sweep
 * is a usage error naming the range. */
static void test_run_some_points(void) {
  char *sc = data("sweep_sizes.yaml"), *all = NULL, *some = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", "-q", NULL}, &all, NULL), 0);
  CU_ASSERT_EQUAL(
      tu_trigsim((const char *[]){"run", sc, "-f", "csv", "-q", "--points", "2,0", NULL}, &some, NULL),
      0);
  char **a = g_strsplit(all ? all : "", "\n", -1), **s = g_strsplit(some ? some : "", "\n", -1);
  /* 3 sizes x 2 policies: header, 6 rows, the empty end; picked: header,
   * the rows of 8B (1, 2) and of 1KiB (5, 6). */
  CU_ASSERT_EQUAL_FATAL(g_strv_length(a), 8);
  CU_ASSERT_EQUAL_FATAL(g_strv_length(s), 6);
  CU_ASSERT_STRING_EQUAL(s[0], a[0]);
  CU_ASSERT_STRING_EQUAL(s[1], a[1]);
  CU_ASSERT_STRING_EQUAL(s[2], a[2]);
  CU_ASSERT_STRING_EQUAL(s[3], a[5]);
  CU_ASSERT_STRING_EQUAL(s[4], a[6]);
  CU_ASSERT_PTR_NOT_NULL(strstr(s[3], ",1KiB,cpu,"));
  g_strfreev(a);
  g_strfreev(s);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "--points", "1-3", NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "--points: expected point numbers or ranges in [0, 2]"));
  g_free(err);
  g_free(all);
  g_free(some);
  g_free(sc);
}

static void test_default_policy(void) {
  char *sc = data("no_policies.yaml"), *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-f", "csv", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nno_policies,ping,1,gputn,"));
  g_free(out);
  g_free(sc);
}

/* The small defects of issue 33, each as a user met it. */

/* `params KEY` shows one parameter's row (its group's header and the
 * columns), by GROUP.KEY, hardware.GROUP.KEY or workload.KEY; a key
 * not declared is a usage error with the nearest key. */
static void test_params_one_key(void) {
  char *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"params", "hardware.gpu.launch_latency", NULL}, &out, NULL), 0);
  /* gpu.c declares launch_latency 1.5us in [0ps, 1s] (GPU-TN Table 2). */
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "launch_latency  time  1.5us"));
  CU_ASSERT_PTR_NULL(strstr(out, "wgs_per_cu")); /* another gpu key: not listed */
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"params", "phold.mean_hold", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "mean_hold"));
  CU_ASSERT_PTR_NULL(strstr(out, "link_latency"));
  g_free(out);
  /* workload.size: every kind with a size (ping's 8B among them), not phold. */
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"params", "workload.size", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "ping: "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "bytes rank 0 sends to rank 1"));
  CU_ASSERT_PTR_NULL(strstr(out, "phold: "));
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"params", "gpu.lunch_latency", NULL}, &out, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "params: expected a parameter of gpu (did you mean "
                                    "'launch_latency'?), got gpu.lunch_latency"));
  CU_ASSERT_STRING_EQUAL(out, "");
  g_free(out);
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"params", "gpx.clock", NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "did you mean 'gpu'?"));
  g_free(err);
}

/* Bare `trigsim`: the usage on stderr, exit 2 (not 0). */
static void test_no_arguments_is_usage(void) {
  char *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){NULL}, &out, &err), 2);
  CU_ASSERT_TRUE(g_str_has_prefix(err, "Usage: trigsim COMMAND"));
  CU_ASSERT_STRING_EQUAL(out, "");
  g_free(out);
  g_free(err);
}

static char *slurp_file(const char *path) {
  char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL)) return g_strdup("");
  return text;
}

/* run takes --out as sweep does, sweep --output as run does: the same
 * bytes as -o. */
static void test_out_and_output_both(void) {
  char *dir = g_dir_make_tmp("trigsim-cli-XXXXXX", NULL);
  char *a = g_build_filename(dir, "a.csv", NULL), *b = g_build_filename(dir, "b.csv", NULL);
  char *good = data("good.yaml"), *sweep = data("sweep_nodes.yaml");
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", good, "-f", "csv", "-o", a, NULL}, NULL, NULL), 0);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", good, "-f", "csv", "--out", b, NULL}, NULL, NULL), 0);
  char *ta = slurp_file(a), *tb = slurp_file(b);
  CU_ASSERT_TRUE(strlen(ta) > 0);
  CU_ASSERT_STRING_EQUAL(ta, tb);
  g_free(ta);
  g_free(tb);
  g_unlink(a);
  g_unlink(b);
  /* sweep --output: a sweep of one point (nodes 4), whole. */
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"sweep", good, "-j", "1", "--output", a, NULL}, NULL, NULL), 0);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"sweep", good, "-j", "1", "--out", b, NULL}, NULL, NULL), 0);
  ta = slurp_file(a);
  tb = slurp_file(b);
  CU_ASSERT_TRUE(g_str_has_prefix(ta, "scenario,"));
  CU_ASSERT_STRING_EQUAL(ta, tb);
  g_free(ta);
  g_free(tb);
  g_unlink(a);
  g_unlink(b);
  g_rmdir(dir);
  g_free(a);
  g_free(b);
  g_free(good);
  g_free(sweep);
  g_free(dir);
}

/* An output that cannot be written is said before anything is simulated:
 * the deadlocking scenario (exit 3 once simulated) exits 1 with the
 * output's message and no word of the deadlock; a folder as the output
 * too; sweep the same. */
static void test_output_checked_before_running(void) {
  char *sc = data("deadlock.yaml"), *err = NULL;
  char *dir = g_dir_make_tmp("trigsim-cli-XXXXXX", NULL);
  char *missing = g_build_filename(dir, "no-such-dir", "out.csv", NULL);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-o", missing, NULL}, NULL, &err), 1);
  char *want = g_strdup_printf("trigsim: %s: cannot write: ", missing);
  CU_ASSERT_TRUE(g_str_has_prefix(err, want));
  CU_ASSERT_PTR_NULL(strstr(err, "deadlocked"));
  g_free(want);
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-o", dir, NULL}, NULL, &err), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot write: Is a directory"));
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"sweep", sc, "-o", missing, NULL}, NULL, &err), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot write"));
  CU_ASSERT_PTR_NULL(strstr(err, "deadlocked"));
  g_free(err);
  /* Nothing was left in the folder (no temporary, no journal). */
  GDir *d = g_dir_open(dir, 0, NULL);
  CU_ASSERT_PTR_NULL(g_dir_read_name(d));
  g_dir_close(d);
  g_rmdir(dir);
  g_free(missing);
  g_free(dir);
  g_free(sc);
}

/* --counters none (the table's default since issue 33): the table alone,
 * a column per policy, no "POLICY: N events" lines; --counters summary
 * adds them. */
static void test_counters_none_prints_no_events(void) {
  char *sc = data("no_policies.yaml"), *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "--counters", "none", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\ntotal "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, " gputn\n"));
  CU_ASSERT_PTR_NULL(strstr(out, " events"));
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NULL(strstr(out, " events")); /* none is the default */
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "-c", "summary", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\ngputn: ")); /* the summary's events line */
  g_free(out);
  g_free(sc);
}

/* A GPU on which no WG ran reports wg_last_end 0, not the model's -1
 * sentinel: under cpu the ping's 256 flops run on rank 0's CPU
 * (policy_cpu.c), so neither GPU runs a WG; the by-kind summary then sums
 * 0 + 0, not -2. */
static void test_no_negative_sentinel(void) {
  char *sc = data("no_policies.yaml"), *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "--set", "policies=[cpu]", "-f", "json",
                                              "--counters", "all", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"node0.gpu.wg_last_end\": 0,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"node1.gpu.wg_last_end\": 0,"));
  CU_ASSERT_PTR_NULL(strstr(out, ": -1"));
  CU_ASSERT_PTR_NULL(strstr(out, "\"sum\": -"));
  g_free(out);
  g_free(sc);
}

/* monolithic moves no data: a ping under it would show a kernel as a
 * message. The ping rejects it at its policies item (line 3, column 17). */
static void test_ping_rejects_monolithic(void) {
  char *sc = data("ping_monolithic.yaml"), *err = NULL, *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", sc, NULL}, &out, &err), 2);
  char *want = g_strdup_printf("%s:3:17: policies: expected a policy that moves the ping's message "
                               "(monolithic assumes data movement free: its time would be the "
                               "kernel alone), got monolithic", sc);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
  CU_ASSERT_STRING_EQUAL(out, "");
  g_free(want);
  g_free(err);
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, NULL}, NULL, NULL), 2);
  g_free(sc);
}

/* Runs trigsim with ARGV (NULL-terminated, without argv[0]) on a
 * pseudo-terminal, as a user at a terminal would, the progress line's
 * silent first second off (TRIGSIM_PROGRESS_DELAY_MS=0): its exit status,
 * and what it wrote (stdout and stderr together) in *OUT. */
static int on_terminal(const char *const *argv, char **out) {
  const char *bin = g_getenv("TRIGSIM_BIN");
  GPtrArray *args = g_ptr_array_new();
  g_ptr_array_add(args, (gpointer)bin);
  for (size_t i = 0; argv[i]; i++) g_ptr_array_add(args, (gpointer)argv[i]);
  g_ptr_array_add(args, NULL);
  int master = -1;
  pid_t pid = forkpty(&master, NULL, NULL, NULL);
  if (pid == 0) {
    setenv("TRIGSIM_PROGRESS_DELAY_MS", "0", 1);
    execv(bin, (char **)args->pdata);
    _exit(127);
  }
  GString *text = g_string_new(NULL);
  char buf[4096];
  ssize_t n;
  while ((n = read(master, buf, sizeof buf)) > 0) g_string_append_len(text, buf, n);
  int status = -1;
  waitpid(pid, &status, 0);
  close(master);
  g_ptr_array_free(args, TRUE);
  *out = g_string_free(text, FALSE);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Progress of a long run (issue 33 item 7): on a terminal a line with the
 * simulated time, events and events/s, and for PHOLD, whose end_time is
 * known, the share done and the time left; erased before the results.
 * Nothing with --quiet, nothing when stderr is no terminal. The run: 256
 * LPs x 8 events each, a hold of 1 us mean: about 2048 events a simulated
 * us, so 2 ms is about 4 M events, past the engine's hook every 2^20. */
static void test_progress_on_a_terminal_only(void) {
  const char *yaml = "name: long\nworkload: {kind: phold, lps: 256, population: 8, end_time: 2ms}\n";
  char *sc = tu_temp_file(".yaml", yaml, strlen(yaml)), *out = NULL;
  CU_ASSERT_EQUAL(on_terminal((const char *[]){"run", sc, "--counters", "none", NULL}, &out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\rphold: simulated "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, " M events/s, "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "% done, about "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\r\033[K")); /* erased */
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "scenario long, workload phold"));
  g_free(out);
  CU_ASSERT_EQUAL(on_terminal((const char *[]){"run", sc, "--counters", "none", "-q", NULL}, &out), 0);
  CU_ASSERT_PTR_NULL(strstr(out, "simulated "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "scenario long, workload phold"));
  g_free(out);
  g_setenv("TRIGSIM_PROGRESS_DELAY_MS", "0", TRUE);
  char *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "--counters", "none", NULL}, &out, &err), 0);
  CU_ASSERT_STRING_EQUAL(err, "");
  g_unsetenv("TRIGSIM_PROGRESS_DELAY_MS");
  g_free(out);
  g_free(err);
  g_free(sc);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"version and help", test_version_and_help},
      {"usage errors exit 2", test_usage_errors_exit_2},
      {"bad scenario exits 2 with its location", test_bad_scenario_exit_2_with_location},
      {"no output file on failure", test_no_output_file_on_failure},
      {"same scenario, same bytes", test_same_scenario_same_bytes},
      {"json and csv fields", test_json_and_csv_fields},
      {"trace written", test_trace_written},
      {"params listing", test_params_listing},
      {"cg from a Matrix Market file to a tolerance", test_cg_from_a_file_to_a_tolerance},
      {"a deadlock exits 3", test_deadlock_exits_3},
      {"validate catches what run rejects", test_validate_catches_what_run_rejects},
      {"input limits", test_input_limits},
      {"default policy", test_default_policy},
      {"run some points of a sweep", test_run_some_points},
      {"params KEY", test_params_one_key},
      {"no arguments: usage, exit 2", test_no_arguments_is_usage},
      {"--out and --output both", test_out_and_output_both},
      {"output checked before running", test_output_checked_before_running},
      {"--counters none prints no events", test_counters_none_prints_no_events},
      {"no negative sentinel in results", test_no_negative_sentinel},
      {"ping rejects monolithic", test_ping_rejects_monolithic},
      {"progress on a terminal only", test_progress_on_a_terminal_only},
      {NULL, NULL}};
  return tu_run_suite("cli", tests);
}
