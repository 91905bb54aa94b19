/* The sweep runner: journal lines that round-trip exactly, resume from a
 * journal (a line cut short is dropped, another sweep's journal is not
 * trusted), the same results whatever the thread count, and through the
 * program: `trigsim sweep` bytes equal to `trigsim run`'s for any -j, and a
 * real SIGINT followed by a resume that gives the uninterrupted bytes. */
#include <glib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nic.h"
#include "sweep_run.h"
#include "testutil.h"

static void test_encode_decode_round_trip(void) {
  struct sim_result r[2];
  sim_result_init(&r[0], "gputn");
  sim_result_init(&r[1], "a\tpolicy with tab");
  r[0].total_ps = 4102000;
  r[0].events = 31;
  sim_report_int(&r[0].phases, "cpu compute", UNIT_TIME, -5);
  sim_report_real(&r[0].counters, "nic.mean", 0.1);
  sim_report_int(&r[0].counters, "bytes\nsent", UNIT_SIZE, 72);
  sim_out_put_int(&r[0].counters, "node3.nic", NIC_OUT(PUTS), 4);
  char *line = swr_encode(7, r, 2);
  CU_ASSERT_TRUE(g_str_has_suffix(line, "\tE\n"));
  CU_ASSERT_PTR_NULL(memchr(line, '\n', strlen(line) - 1));
  size_t point = 0, n = 0;
  struct sim_result *back = NULL;
  CU_ASSERT_TRUE_FATAL(swr_decode(line, &point, &back, &n));
  CU_ASSERT_EQUAL(point, 7);
  CU_ASSERT_EQUAL_FATAL(n, 2);
  CU_ASSERT_STRING_EQUAL(back[0].policy, "gputn");
  CU_ASSERT_STRING_EQUAL(back[1].policy, "a\tpolicy with tab");
  CU_ASSERT_EQUAL(back[0].total_ps, 4102000);
  CU_ASSERT_EQUAL(back[0].events, 31);
  const struct sim_report_entry *en = sim_report_find(&back[0].phases, "cpu compute");
  CU_ASSERT_TRUE(en && en->i == -5 && en->dim == UNIT_TIME && !en->is_real);
  /* 0.1 is not exact in binary: the bits come back, not a rounding. */
  en = sim_report_find(&back[0].counters, "nic.mean");
  CU_ASSERT_TRUE(en && en->is_real && en->d == 0.1);
  en = sim_report_find(&back[0].counters, "bytes\nsent");
  CU_ASSERT_TRUE(en && en->i == 72 && en->dim == UNIT_SIZE && !en->decl);
  /* A declared entry comes back with its declaration (the limits tally and
   * the writers read it), an undeclared one without. */
  en = sim_report_find(&back[0].counters, "node3.nic.puts");
  CU_ASSERT_TRUE(en && en->i == 4 && en->decl == NIC_OUT(PUTS));
  for (size_t i = 0; i < n; i++) sim_result_clear(&back[i]);
  g_free(back);
  /* A declaration this program does not know: the line is no point. */
  char *unknown = g_strdup(line), *at = strstr(unknown, "nic:puts");
  CU_ASSERT_PTR_NOT_NULL_FATAL(at);
  memcpy(at, "nic:putz", 8);
  CU_ASSERT_FALSE(swr_decode(unknown, &point, &back, &n));
  g_free(unknown);
  CU_ASSERT_TRUE_FATAL(swr_decode(line, &point, &back, &n));
  for (size_t i = 0; i < n; i++) sim_result_clear(&back[i]);
  g_free(back);
  /* Anything but a whole line is refused: cut anywhere, or no newline. */
  size_t len = strlen(line);
  for (size_t cut = 0; cut < len; cut++) {
    char *part = g_strndup(line, cut);
    char *nl = g_strconcat(part, "\n", NULL);
    CU_ASSERT_FALSE(swr_decode(part, &point, &back, &n));
    if (cut + 1 < len) CU_ASSERT_FALSE(swr_decode(nl, &point, &back, &n));
    g_free(part);
    g_free(nl);
  }
  g_free(line);
  sim_result_clear(&r[0]);
  sim_result_clear(&r[1]);
}

/* A fake point: one run whose total is 10 x the point, counting calls. */
static gint calls;
static bool fake_point(void *user, size_t i, struct sim_result **runs, size_t *n, char **err) {
  g_atomic_int_inc(&calls);
  *runs = g_new0(struct sim_result, 1);
  sim_result_init(&(*runs)[0], "p");
  (*runs)[0].total_ps = (sim_time)(10 * i);
  *n = 1;
  return true;
}

static struct sim_result one(size_t i) {
  struct sim_result r;
  sim_result_init(&r, "p");
  r.total_ps = (sim_time)(10 * i);
  return r;
}

static void append_point(GString *s, size_t i) {
  struct sim_result r = one(i);
  char *line = swr_encode(i, &r, 1);
  g_string_append(s, line);
  g_free(line);
  sim_result_clear(&r);
}

static void test_resume_skips_journaled_points(void) {
  char *dir = g_dir_make_tmp("trigsim-swr-XXXXXX", NULL);
  char *journal = g_build_filename(dir, "r.csv.journal", NULL);
  /* Points 1, 4 and 8 of 10 are done; then a line cut by a kill. */
  GString *s = g_string_new("trigsim-sweep-journal 3 fp1 10\n");
  append_point(s, 1);
  append_point(s, 4);
  append_point(s, 8);
  g_string_append(s, "P\t9\t1\tp\t9");
  CU_ASSERT_TRUE(g_file_set_contents(journal, s->str, (gssize)s->len, NULL));
  struct swr_opts o = {.n_points = 10, .jobs = 3, .journal = journal, .fingerprint = "fp1",
                       .progress = SWR_QUIET};
  struct swr_results res;
  char *err = NULL;
  calls = 0;
  CU_ASSERT_EQUAL(swr_run(&o, fake_point, NULL, &res, &err), SWR_DONE);
  /* 10 points - 3 journaled = 7 run; the cut line was not a point. */
  CU_ASSERT_EQUAL(calls, 7);
  CU_ASSERT_EQUAL(res.resumed, 3);
  for (size_t i = 0; i < 10; i++) {
    CU_ASSERT_EQUAL(res.n_runs[i], 1);
    CU_ASSERT_EQUAL(res.runs[i][0].total_ps, (sim_time)(10 * i));
  }
  swr_results_clear(&res);
  /* The journal now holds the header and 10 whole lines, the cut one gone. */
  char *text = NULL;
  CU_ASSERT_TRUE(g_file_get_contents(journal, &text, NULL, NULL));
  char **lines = g_strsplit(text, "\n", -1);
  CU_ASSERT_EQUAL(g_strv_length(lines), 12);
  CU_ASSERT_STRING_EQUAL(lines[11], "");
  for (int i = 1; i <= 10; i++) CU_ASSERT_TRUE(g_str_has_suffix(lines[i], "\tE"));
  g_strfreev(lines);
  g_free(text);
  /* Run again: everything is journaled, nothing runs. */
  calls = 0;
  CU_ASSERT_EQUAL(swr_run(&o, fake_point, NULL, &res, &err), SWR_DONE);
  CU_ASSERT_EQUAL(calls, 0);
  CU_ASSERT_EQUAL(res.resumed, 10);
  swr_results_clear(&res);
  /* Another sweep (fingerprint) does not trust it: all 10 run again. */
  o.fingerprint = "fp2";
  calls = 0;
  CU_ASSERT_EQUAL(swr_run(&o, fake_point, NULL, &res, &err), SWR_DONE);
  CU_ASSERT_EQUAL(calls, 10);
  CU_ASSERT_EQUAL(res.resumed, 0);
  swr_results_clear(&res);
  /* Nor does a journal of version 1 (entries without their declarations),
   * its lines otherwise this sweep's. */
  char *v1 = g_strdup(s->str);
  memcpy(strstr(v1, "journal 3"), "journal 1", 9);
  CU_ASSERT_TRUE(g_file_set_contents(journal, v1, -1, NULL));
  o.fingerprint = "fp1";
  calls = 0;
  CU_ASSERT_EQUAL(swr_run(&o, fake_point, NULL, &res, &err), SWR_DONE);
  CU_ASSERT_EQUAL(calls, 10);
  swr_results_clear(&res);
  g_free(v1);
  g_unlink(journal);
  g_rmdir(dir);
  g_string_free(s, TRUE);
  g_free(journal);
  g_free(dir);
}

static void test_share_of_a_rank(void) {
  /* Stride 3, offset 1: points 1, 4, 7 of 9. */
  struct swr_opts o = {.n_points = 9, .jobs = 2, .progress = SWR_QUIET, .stride = 3, .offset = 1};
  struct swr_results res;
  char *err = NULL;
  calls = 0;
  CU_ASSERT_EQUAL(swr_run(&o, fake_point, NULL, &res, &err), SWR_DONE);
  CU_ASSERT_EQUAL(calls, 3);
  for (size_t i = 0; i < 9; i++) CU_ASSERT_EQUAL(res.runs[i] != NULL, i % 3 == 1);
  swr_results_clear(&res);
}

/* ---- through the program ---- */

static char *data(const char *name) {
  char *rel = g_build_filename("sweep", name, NULL);
  char *p = tu_data(rel);
  g_free(rel);
  return p;
}

static char *slurp(const char *path) {
  char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL)) return g_strdup("(missing)");
  return text;
}

static void test_same_bytes_for_any_jobs(void) {
  char *f = data("phold.yaml"), *dir = g_dir_make_tmp("trigsim-swr-XXXXXX", NULL);
  char *ref = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", f, "-f", "csv", NULL}, &ref, NULL), 0);
  const char *jobs[] = {"1", "2", "3"};
  for (int k = 0; k < 3; k++) {
    char *out = g_build_filename(dir, "o.csv", NULL), *err = NULL;
    CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"sweep", f, "-j", jobs[k], "-o", out, "--quiet", NULL}, NULL, &err), 0);
    CU_ASSERT_STRING_EQUAL(err, "");
    char *got = slurp(out);
    CU_ASSERT_STRING_EQUAL(got, ref);
    /* Done: the journal is gone. */
    char *journal = g_strconcat(out, ".journal", NULL);
    CU_ASSERT_FALSE(g_file_test(journal, G_FILE_TEST_EXISTS));
    g_unlink(out);
    g_free(journal);
    g_free(got);
    g_free(err);
    g_free(out);
  }
  /* Progress goes to stderr as plain lines when it is not a terminal. */
  char *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"sweep", f, "-j", "2", NULL}, &out, &err), 0);
  CU_ASSERT_STRING_EQUAL(out, ref);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "trigsim sweep: 4/4 points (100%)"));
  g_free(out);
  g_free(err);
  g_free(ref);
  g_rmdir(dir);
  g_free(dir);
  g_free(f);
}

static void test_interrupt_then_resume(void) {
  char *f = data("many.yaml"), *dir = g_dir_make_tmp("trigsim-swr-XXXXXX", NULL);
  char *full = g_build_filename(dir, "full.csv", NULL), *part = g_build_filename(dir, "part.csv", NULL);
  char *journal = g_strconcat(part, ".journal", NULL);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"sweep", f, "-j", "2", "-o", full, "-q", NULL}, NULL, NULL), 0);
  /* Start the same sweep, and interrupt it once its journal holds points. */
  const char *bin = g_getenv("TRIGSIM_BIN");
  const char *argv[] = {bin, "sweep", f, "-j", "1", "-o", part, "-q", NULL};
  GPid pid;
  CU_ASSERT_TRUE_FATAL(g_spawn_async(NULL, (char **)argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL));
  for (int i = 0; i < 20000; i++) {
    char *text = NULL;
    gsize len = 0;
    int lines = 0;
    if (g_file_get_contents(journal, &text, &len, NULL))
      for (gsize k = 0; k < len; k++) lines += text[k] == '\n';
    g_free(text);
    if (lines >= 3) break;
    g_usleep(200);
  }
  kill(pid, SIGINT);
  int wstatus = 0;
  waitpid(pid, &wstatus, 0);
  g_spawn_close_pid(pid);
  /* 130: interrupted; the output is not written, the journal is kept. */
  CU_ASSERT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 130);
  CU_ASSERT_FALSE(g_file_test(part, G_FILE_TEST_EXISTS));
  CU_ASSERT_TRUE(g_file_test(journal, G_FILE_TEST_EXISTS));
  /* As if killed in the middle of an append: a cut line at the end. */
  FILE *j = fopen(journal, "a");
  fputs("P\t399\t1\tnone\t10", j);
  fclose(j);
  char *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"sweep", f, "-j", "2", "-o", part, NULL}, NULL, &err), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "resumed)"));
  char *a = slurp(full), *b = slurp(part);
  CU_ASSERT_STRING_EQUAL(a, b);
  CU_ASSERT_FALSE(g_file_test(journal, G_FILE_TEST_EXISTS));
  g_free(a);
  g_free(b);
  g_free(err);
  g_unlink(full);
  g_unlink(part);
  g_rmdir(dir);
  g_free(journal);
  g_free(full);
  g_free(part);
  g_free(dir);
  g_free(f);
}

static void test_reproduce_writes_figures(void) {
  /* configs/sweeps holds two sweeps with plot: sections. */
  char *configs = g_strdup(g_getenv("TRIGSIM_CONFIGS"));
  char *root = g_path_get_dirname(configs);
  char *script = g_build_filename(root, "tools", "reproduce.sh", NULL);
  char *dir = g_dir_make_tmp("trigsim-repro-XXXXXX", NULL);
  const char *argv[] = {script, "sweeps", "--out", dir, "-j", "2", NULL};
  char **env = g_environ_setenv(g_get_environ(), "TRIGSIM", g_getenv("TRIGSIM_BIN"), TRUE);
  char *out = NULL, *err = NULL;
  int wstatus = -1;
  CU_ASSERT_TRUE(g_spawn_sync(NULL, (char **)argv, env, 0, NULL, NULL, &out, &err, &wstatus, NULL));
  CU_ASSERT_EQUAL(wstatus, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "sweeps: 2 figure(s) in"));
  const char *names[] = {"ping-size", "ping-launch"};
  for (int i = 0; i < 2; i++) {
    char *png = g_strdup_printf("%s/%s.png", dir, names[i]);
    char *md = g_strdup_printf("%s/%s.md", dir, names[i]);
    char *csv = g_strdup_printf("%s/%s.csv", dir, names[i]);
    char *text = slurp(png);
    CU_ASSERT_EQUAL(memcmp(text, "\x89PNG", 4), 0);
    g_free(text);
    text = slurp(md);
    /* ping-size: 14 sizes from 8 B (x 2 each step to 64 KiB); the table's
     * rows are 8B, 16B, ... under the policies cpu, hdn, gds, gputn. */
    if (i == 0) CU_ASSERT_PTR_NOT_NULL(strstr(text, "| workload.size | cpu | hdn | gds | gputn |"));
    if (i == 0) CU_ASSERT_PTR_NOT_NULL(strstr(text, "\n| 65536B |"));
    /* ping-launch plots the speedup over cpu: cpu is the baseline, no column. */
    if (i == 1) CU_ASSERT_PTR_NOT_NULL(strstr(text, "| hardware.gpu.launch_latency | hdn | gds | gputn |"));
    g_free(text);
    g_unlink(png);
    g_unlink(md);
    g_unlink(csv);
    g_free(png);
    g_free(md);
    g_free(csv);
  }
  g_rmdir(dir);
  g_free(out);
  g_free(err);
  g_strfreev(env);
  g_free(dir);
  g_free(script);
  g_free(root);
  g_free(configs);
}

/* Runs tools/NAME with ARGV (NULL-terminated, after the script) and
 * TRIGSIM set: its exit status, *OUT and *ERR. */
static int tool(const char *name, const char *const *argv, char **out, char **err) {
  char *root = g_path_get_dirname(g_getenv("TRIGSIM_CONFIGS"));
  char *script = g_build_filename(root, "tools", name, NULL);
  GPtrArray *a = g_ptr_array_new();
  g_ptr_array_add(a, script);
  for (size_t i = 0; argv[i]; i++) g_ptr_array_add(a, (gpointer)argv[i]);
  g_ptr_array_add(a, NULL);
  char **env = g_environ_setenv(g_get_environ(), "TRIGSIM", g_getenv("TRIGSIM_BIN"), TRUE);
  int wstatus = -1;
  CU_ASSERT_TRUE(g_spawn_sync(NULL, (char **)a->pdata, env, 0, NULL, NULL, out, err, &wstatus, NULL));
  g_strfreev(env);
  g_ptr_array_free(a, TRUE);
  g_free(script);
  g_free(root);
  return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
}

/* plot.sh on a two-axis sweep (issue 33 item 4): a hand-made CSV of a
 * ping over nodes {2, 4} x size {8B, 64B} under cpu and gputn, times in
 * us (cpu: 1, 2 at 2 nodes; 3, 5 at 4 nodes; gputn 0.5, 0.7; 0.9, 1.1).
 * Over size with no filter the nodes axis is averaged, with a warning that
 * names it: cpu at 8B is (1 + 3) / 2 = 2. --where nodes=4 keeps those rows
 * (cpu 3 and 5), a size filter matches the same quantity written
 * otherwise (0.0625KiB is 64B), --facet draws a panel (a table) per
 * node count, --series takes two columns; a filter no row passes is an
 * error naming the values there are. */
static void test_plot_filter_and_facet(void) {
  const char *csv_text =
      "scenario,workload,seed,hardware.network.nodes,workload.size,policy,total_time_ps,events\n"
      "t,ping,1,2,8B,cpu,1000000,10\nt,ping,1,2,8B,gputn,500000,10\n"
      "t,ping,1,2,64B,cpu,2000000,10\nt,ping,1,2,64B,gputn,700000,10\n"
      "t,ping,1,4,8B,cpu,3000000,10\nt,ping,1,4,8B,gputn,900000,10\n"
      "t,ping,1,4,64B,cpu,5000000,10\nt,ping,1,4,64B,gputn,1100000,10\n";
  char *csv = tu_temp_file(".csv", csv_text, strlen(csv_text));
  char *dir = g_dir_make_tmp("trigsim-plot-XXXXXX", NULL);
  char *md = g_build_filename(dir, "t.md", NULL), *svg = g_build_filename(dir, "t.svg", NULL);
  char *out = NULL, *err = NULL, *text = NULL;
#define PLOT(...) tool("plot.sh", (const char *[]){csv, "--x", "workload.size", "--y", "total_time_ps", \
                                                   "--table", md, "--out", svg, __VA_ARGS__, NULL}, &out, &err)
  CU_ASSERT_EQUAL(PLOT("--series", "policy"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "warning: averaging rows that differ in hardware.network.nodes (2, 4"));
  text = slurp(md);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "| 8B | 2 | 0.7 |\n| 64B | 3.5 | 0.9 |\n"));
  g_free(text);
  g_free(out);
  g_free(err);
  CU_ASSERT_EQUAL(PLOT("--series", "policy", "--where", "hardware.network.nodes=4"), 0);
  CU_ASSERT_STRING_EQUAL(err, "");
  text = slurp(md);
  CU_ASSERT_STRING_EQUAL(text, "| workload.size | cpu | gputn |\n|---|---|---|\n| 8B | 3 | 0.9 |\n| 64B | 5 | 1.1 |\n");
  g_free(text);
  g_free(out);
  g_free(err);
  CU_ASSERT_EQUAL(PLOT("--series", "policy", "--facet", "hardware.network.nodes"), 0);
  CU_ASSERT_STRING_EQUAL(err, "");
  text = slurp(md);
  CU_ASSERT_STRING_EQUAL(text, "**hardware.network.nodes = 2**\n\n| workload.size | cpu | gputn |\n|---|---|---|\n"
                               "| 8B | 1 | 0.5 |\n| 64B | 2 | 0.7 |\n\n"
                               "**hardware.network.nodes = 4**\n\n| workload.size | cpu | gputn |\n|---|---|---|\n"
                               "| 8B | 3 | 0.9 |\n| 64B | 5 | 1.1 |\n");
  g_free(text);
  g_free(out);
  g_free(err);
  CU_ASSERT_EQUAL(PLOT("--series", "policy,hardware.network.nodes", "--where", "workload.size=0.0625KiB"), 0);
  CU_ASSERT_PTR_NULL(strstr(err, "warning"));
  text = slurp(md);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "| policy=cpu, hardware.network.nodes=2 | policy=gputn, "
                                      "hardware.network.nodes=2 | policy=cpu, hardware.network.nodes=4 |"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "| 64B | 2 | 0.7 | 5 | 1.1 |\n"));
  g_free(text);
  g_free(out);
  g_free(err);
  CU_ASSERT_EQUAL(PLOT("--where", "hardware.network.nodes=8"), 2);
  CU_ASSERT_STRING_EQUAL(err, "plot.sh: --where: expected a value hardware.network.nodes takes (2, 4), got 8\n");
  g_free(out);
  g_free(err);
  CU_ASSERT_EQUAL(PLOT("--where", "nodes=8"), 2);
  CU_ASSERT_STRING_EQUAL(err, "plot.sh: --where: no column \"nodes\" in the CSV\n");
  g_free(out);
  g_free(err);
#undef PLOT
  g_unlink(md);
  g_unlink(svg);
  g_rmdir(dir);
  g_free(md);
  g_free(svg);
  g_free(dir);
  g_free(csv);
}

/* plot.sh --stack (issue 33 item 1: Fig. 8 as the paper draws it): one
 * bar per policy whose segments are the columns a pattern matches, in the
 * CSV's order, in us; a column 0 in every bar (cp_nic_ps) is left out; two
 * rows of one policy (repetitions) are averaged: hdn's launch (2 + 4) / 2
 * = 3 us, its total 3 + 1.5 = 4.5 us; gputn's 3 + 0.25 = 3.25 us. --y or
 * --series beside --stack, and a pattern no column matches, are errors. */
static void test_plot_stack(void) {
  const char *csv_text = "scenario,workload,seed,rep,policy,total_time_ps,cp_launch_ps,cp_nic_ps,cp_wire_ps\n"
                         "t,ping,1,0,hdn,3500000,2000000,0,1500000\n"
                         "t,ping,1,1,hdn,5500000,4000000,0,1500000\n"
                         "t,ping,1,0,gputn,3250000,3000000,0,250000\n";
  char *csv = tu_temp_file(".csv", csv_text, strlen(csv_text));
  char *dir = g_dir_make_tmp("trigsim-plot-XXXXXX", NULL);
  char *md = g_build_filename(dir, "t.md", NULL), *png = g_build_filename(dir, "t.png", NULL);
  char *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tool("plot.sh", (const char *[]){csv, "--x", "policy", "--stack", "cp_*_ps", "--table", md,
                                                   "--out", png, NULL},
                       &out, &err),
                  0);
  CU_ASSERT_STRING_EQUAL(err, "");
  char *text = slurp(md);
  CU_ASSERT_STRING_EQUAL(text, "| policy | launch | wire | total |\n|---|---|---|---|\n"
                               "| hdn | 3 | 1.5 | 4.5 |\n| gputn | 3 | 0.25 | 3.25 |\n");
  CU_ASSERT_TRUE(g_file_test(png, G_FILE_TEST_EXISTS));
  g_free(text);
  g_free(out);
  g_free(err);
  CU_ASSERT_EQUAL(tool("plot.sh", (const char *[]){csv, "--x", "policy", "--stack", "cp_*_ps", "--y",
                                                   "total_time_ps", "--out", png, NULL},
                       &out, &err),
                  2);
  CU_ASSERT_STRING_EQUAL(err, "plot.sh: --stack: expected no --y with it (the segments are the y), got --y "
                              "total_time_ps\n");
  g_free(out);
  g_free(err);
  CU_ASSERT_EQUAL(tool("plot.sh", (const char *[]){csv, "--x", "policy", "--stack", "phase_*", "--out", png,
                                                   NULL},
                       &out, &err),
                  2);
  CU_ASSERT_STRING_EQUAL(err, "plot.sh: --stack: no column \"phase_*\" in the CSV\n");
  g_free(out);
  g_free(err);
  g_unlink(md);
  g_unlink(png);
  g_rmdir(dir);
  g_free(md);
  g_free(png);
  g_free(dir);
  g_free(csv);
}

/* reproduce.sh draws a counter (the reproductions plot cg. and jacobi.
 * time_per_iteration_ps), though the default CSV is narrow: it sweeps with
 * the counters' summary. The default ping under gputn sends one put:
 * node.nic.puts.sum is 1. */
static void test_reproduce_plots_a_counter(void) {
  char *dir = g_dir_make_tmp("trigsim-mine-XXXXXX", NULL), *outdir = g_build_filename(dir, "out", NULL);
  char *f = g_build_filename(dir, "puts.yaml", NULL);
  char *yaml = g_strdup_printf("include: %s/default.yaml\npolicies: [gputn]\n"
                               "plot: {x: policy, y: node.nic.puts.sum}\n",
                               g_getenv("TRIGSIM_CONFIGS"));
  g_file_set_contents(f, yaml, -1, NULL);
  char *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tool("reproduce.sh", (const char *[]){dir, "--out", outdir, NULL}, &out, &err), 0);
  if (err && *err) fprintf(stderr, "\n  %s\n", err);
  char *md = g_build_filename(outdir, "puts.md", NULL), *text = slurp(md);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "| gputn | 1 |"));
  g_free(text);
  const char *made[] = {"puts.csv", "puts.png", "puts.md"};
  for (size_t i = 0; i < G_N_ELEMENTS(made); i++) {
    char *p = g_build_filename(outdir, made[i], NULL);
    g_unlink(p);
    g_free(p);
  }
  g_rmdir(outdir);
  g_unlink(f);
  g_rmdir(dir);
  g_free(md);
  g_free(out);
  g_free(err);
  g_free(f);
  g_free(yaml);
  g_free(outdir);
  g_free(dir);
}

/* reproduce.sh on a folder of the user's own (not under configs/): a
 * two-axis sweep of the default ping (size 8B, 1KiB x launch latency 1us,
 * 2us; cpu and gputn) whose plot: section facets by the launch latency and
 * keeps one size (where:); its table has a section per latency, and cpu, which
 * launches no kernel (the ping's compute runs on its CPU: policy_cpu.c),
 * has the same time in both. */
static void test_reproduce_any_folder(void) {
  char *dir = g_dir_make_tmp("trigsim-mine-XXXXXX", NULL), *outdir = g_build_filename(dir, "out", NULL);
  char *f = g_build_filename(dir, "mine.yaml", NULL);
  char *yaml = g_strdup_printf(
      "include: %s/default.yaml\npolicies: [cpu, gputn]\n"
      "sweep:\n  axes:\n    - {path: workload.size, values: [8B, 1KiB, 4KiB]}\n"
      "    - {path: hardware.gpu.launch_latency, values: [1us, 2us]}\n"
      "plot:\n  x: workload.size\n  facet: hardware.gpu.launch_latency\n  where: workload.size=x\n",
      g_getenv("TRIGSIM_CONFIGS"));
  /* First a where no row has: the figure fails with the values there are. */
  g_file_set_contents(f, yaml, -1, NULL);
  char *out = NULL, *err = NULL;
  CU_ASSERT_NOT_EQUAL(tool("reproduce.sh", (const char *[]){dir, "--out", outdir, "-j", "2", NULL}, &out, &err), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "--where: expected a value workload.size takes (8B, 1KiB, 4KiB), got x"));
  g_free(out);
  g_free(err);
  char **parts = g_strsplit(yaml, "where: workload.size=x", 2);
  char *yaml2 = g_strconcat(parts[0], "where: [workload.size=8B]", parts[1], NULL);
  g_strfreev(parts);
  g_file_set_contents(f, yaml2, -1, NULL);
  CU_ASSERT_EQUAL(tool("reproduce.sh", (const char *[]){dir, "--out", outdir, "-j", "2", NULL}, &out, &err), 0);
  char *name = g_path_get_basename(dir);
  char *want = g_strdup_printf("%s: 1 figure(s) in", name);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, want));
  CU_ASSERT_PTR_NULL(strstr(err, "warning"));
  char *md = g_build_filename(outdir, "mine.md", NULL);
  char *text = slurp(md);
  const char *a = strstr(text, "**hardware.gpu.launch_latency = 1us**");
  const char *b = strstr(text, "**hardware.gpu.launch_latency = 2us**");
  CU_ASSERT_PTR_NOT_NULL_FATAL(a);
  CU_ASSERT_PTR_NOT_NULL_FATAL(b);
  /* The 8B row of each panel: cpu's cell the same in both. */
  char **ra = g_strsplit(strstr(a, "| 8B |"), " |", 4), **rb = g_strsplit(strstr(b, "| 8B |"), " |", 4);
  CU_ASSERT_STRING_EQUAL(ra[1], rb[1]);
  CU_ASSERT_PTR_NULL(strstr(a, "| 1KiB |")); /* filtered out */
  g_strfreev(ra);
  g_strfreev(rb);
  g_free(text);
  g_free(md);
  g_free(want);
  g_free(name);
  g_free(out);
  g_free(err);
  /* What it wrote, then the folder. */
  const char *made[] = {"mine.csv", "mine.png", "mine.md"};
  for (size_t i = 0; i < G_N_ELEMENTS(made); i++) {
    char *p = g_build_filename(outdir, made[i], NULL);
    CU_ASSERT_TRUE(g_file_test(p, G_FILE_TEST_EXISTS));
    g_unlink(p);
    g_free(p);
  }
  g_rmdir(outdir);
  g_unlink(f);
  g_rmdir(dir);
  g_free(f);
  g_free(yaml);
  g_free(yaml2);
  g_free(outdir);
  g_free(dir);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"encode and decode round trip", test_encode_decode_round_trip},
      {"resume skips journaled points", test_resume_skips_journaled_points},
      {"the share of a rank", test_share_of_a_rank},
      {"same bytes for any -j", test_same_bytes_for_any_jobs},
      {"interrupt, then resume", test_interrupt_then_resume},
      {"reproduce writes figures", test_reproduce_writes_figures},
      {"plot: filter and facet on a two-axis sweep", test_plot_filter_and_facet},
      {"plot: --stack, a stacked bar per x", test_plot_stack},
      {"reproduce.sh plots a counter", test_reproduce_plots_a_counter},
      {"reproduce: any folder, its plot: section's facet and where", test_reproduce_any_folder},
      {NULL, NULL}};
  return tu_run_suite("sweep_run", tests);
}
