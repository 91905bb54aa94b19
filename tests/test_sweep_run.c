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

int main(void) {
  static const struct tu_test tests[] = {
      {"encode and decode round trip", test_encode_decode_round_trip},
      {"resume skips journaled points", test_resume_skips_journaled_points},
      {"the share of a rank", test_share_of_a_rank},
      {"same bytes for any -j", test_same_bytes_for_any_jobs},
      {"interrupt, then resume", test_interrupt_then_resume},
      {"reproduce writes figures", test_reproduce_writes_figures},
      {NULL, NULL}};
  return tu_run_suite("sweep_run", tests);
}
