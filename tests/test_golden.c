/* Golden outputs (after SST's refFiles): every shipped scenario under
 * configs/ is run as a user runs it (`trigsim run SCENARIO -f csv -q -c summary`: with the
 * phase sums and counters, which the models must keep) and
 * its CSV compared with the committed tests/golden/<path>.csv, so a README
 * table cannot drift from what the code prints. What is compared is what
 * the models predict (times, phases, counters); the `events` column (how
 * many events the engine took, which every engine optimisation moves) is
 * left out of the goldens and of the comparison: it is only checked to be
 * a positive count here, and reported by tools/golden.sh. A difference
 * names the scenario, the row (its axis values and policy) and the column,
 * with both values. `tools/golden.sh --update` rewrites the goldens after a
 * change that is meant to move them; review the diff.
 *   test_golden DIR/NAME   one scenario, configs/DIR/NAME.yaml
 *   test_golden --complete every scenario has a golden, every golden a
 *                          scenario, no golden holds events
 *   test_golden DIR/NAME --points LIST
 *                          only those sweep points (`trigsim run --points`),
 *                          compared with the golden's rows of the same axis
 *                          values and policy: what ctest runs of the
 *                          heavy scenarios (tests/CMakeLists.txt), whose
 *                          every row tools/golden.sh compares
 *   test_golden --compare  the comparison itself, on hand-made CSV */
#include <glib.h>
#include <stdbool.h>
#include <string.h>

#include "points.h"
#include "testutil.h"

static const char *scenario_arg; /* "gputn-sc17/latency", or "--complete" */
static const char *points_arg;   /* NULL, or the sweep points run (`run --points`) */

static const char *configs_dir(void) {
  const char *d = g_getenv("TRIGSIM_CONFIGS");
  return d ? d : "configs";
}

static const char *golden_dir(void) {
  const char *d = g_getenv("TRIGSIM_GOLDEN");
  return d ? d : "golden";
}

/* The fields of one CSV line (RFC 4180 quoting, as tools/app/report.c writes). */
static GPtrArray *csv_fields(const char *line) {
  GPtrArray *f = g_ptr_array_new_with_free_func(g_free);
  GString *cur = g_string_new(NULL);
  bool quoted = false;
  for (const char *p = line;; p++) {
    if (quoted) {
      if (*p == '"' && p[1] == '"') g_string_append_c(cur, '"'), p++;
      else if (*p == '"') quoted = false;
      else if (*p) g_string_append_c(cur, *p);
      else break;
      continue;
    }
    if (*p == '"') quoted = true;
    else if (*p == ',' || !*p) {
      g_ptr_array_add(f, g_strdup(cur->str));
      g_string_truncate(cur, 0);
      if (!*p) break;
    } else g_string_append_c(cur, *p);
  }
  g_string_free(cur, TRUE);
  return f;
}

/* Lines of TEXT without the empty last one. */
static char **lines_of(const char *text) {
  char **l = g_strsplit(text, "\n", -1);
  guint n = g_strv_length(l);
  if (n && !*l[n - 1]) {
    g_free(l[n - 1]);
    l[n - 1] = NULL;
  }
  return l;
}

/* Row I's name for people: the columns between seed and policy (the sweep
 * axes) and the policy, "workload.size=8B, policy=gputn". */
static char *row_name(const GPtrArray *head, const GPtrArray *row) {
  GString *s = g_string_new(NULL);
  for (guint c = 3; c < head->len && c < row->len; c++) {
    g_string_append_printf(s, "%s%s=%s", s->len ? ", " : "", (char *)head->pdata[c],
                           (char *)row->pdata[c]);
    if (!strcmp(head->pdata[c], "policy")) break;
  }
  return g_string_free(s, FALSE);
}

/* Column names made unique by occurrence ("workload" twice: the kind and a
 * sweep axis over the workload map): the K-th "x" is "x", then "x#2", ...;
 * the keys in HEAD's order (g_ptr_array_free). */
static GPtrArray *col_keys(const GPtrArray *head) {
  GPtrArray *k = g_ptr_array_new_with_free_func(g_free);
  GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint c = 0; c < head->len; c++) {
    guint n = GPOINTER_TO_UINT(g_hash_table_lookup(seen, head->pdata[c])) + 1;
    g_hash_table_insert(seen, head->pdata[c], GUINT_TO_POINTER(n));
    g_ptr_array_add(k, n == 1 ? g_strdup(head->pdata[c])
                              : g_strdup_printf("%s#%u", (char *)head->pdata[c], n));
  }
  g_hash_table_destroy(seen);
  return k;
}

/* The column engine bookkeeping prints: not a golden's. */
#define EVENTS_COLUMN "events"

/* Compares GOT with WANT (CSV texts) into *REPORT, GOT's events column
 * left out; the number of differences (at most 20 are described). A golden
 * with an events column differs ("goldens leave it out"). */
static int compare(const char *name, const char *want, const char *got, GString *report) {
  char **w = lines_of(want), **g = lines_of(got);
  int diffs = 0;
  if (!w[0] || !g[0]) {
    g_string_append_printf(report, "%s: %s output\n", name, g[0] ? "empty golden" : "empty");
    diffs = 1;
  } else {
    GPtrArray *wf = csv_fields(w[0]), *gf = csv_fields(g[0]);
    GPtrArray *wh = col_keys(wf), *gh = col_keys(gf);
    g_ptr_array_free(wf, TRUE);
    g_ptr_array_free(gf, TRUE);
    GHashTable *gcol = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint c = 0; c < gh->len; c++)
      if (strcmp(gh->pdata[c], EVENTS_COLUMN))
        g_hash_table_insert(gcol, gh->pdata[c], GUINT_TO_POINTER(c + 1));
    GHashTable *wcol = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint c = 0; c < wh->len; c++) {
      g_hash_table_insert(wcol, wh->pdata[c], GUINT_TO_POINTER(c + 1));
      if (!strcmp(wh->pdata[c], EVENTS_COLUMN)) {
        if (diffs++ < 20)
          g_string_append_printf(report, "%s: column %s: in the golden; goldens leave engine "
                                 "bookkeeping out\n", name, EVENTS_COLUMN);
      } else if (!g_hash_table_contains(gcol, wh->pdata[c]) && diffs++ < 20) {
        g_string_append_printf(report, "%s: column %s: in the golden, no longer printed\n", name,
                               (char *)wh->pdata[c]);
      }
    }
    for (guint c = 0; c < gh->len; c++)
      if (strcmp(gh->pdata[c], EVENTS_COLUMN) && !g_hash_table_contains(wcol, gh->pdata[c]) &&
          diffs++ < 20)
        g_string_append_printf(report, "%s: column %s: printed, not in the golden\n", name,
                               (char *)gh->pdata[c]);
    guint nw = g_strv_length(w), ng = g_strv_length(g);
    if (nw != ng && diffs++ < 20)
      g_string_append_printf(report, "%s: %u rows in the golden, %u printed\n", name, nw - 1,
                             ng - 1);
    for (guint i = 1; i < nw && i < ng; i++) {
      GPtrArray *wr = csv_fields(w[i]), *gr = csv_fields(g[i]);
      char *rn = NULL;
      for (guint c = 0; c < wh->len && c < wr->len; c++) {
        guint gc = GPOINTER_TO_UINT(g_hash_table_lookup(gcol, wh->pdata[c]));
        if (!gc) continue;
        const char *gv = gc - 1 < gr->len ? gr->pdata[gc - 1] : "(missing)";
        if (!strcmp(wr->pdata[c], gv)) continue;
        if (diffs++ >= 20) continue;
        if (!rn) rn = row_name(wh, wr);
        g_string_append_printf(report, "%s: row %u (%s): %s: golden %s, printed %s\n", name, i, rn,
                               (char *)wh->pdata[c], (char *)wr->pdata[c], gv);
      }
      g_free(rn);
      g_ptr_array_free(wr, TRUE);
      g_ptr_array_free(gr, TRUE);
    }
    if (diffs > 20) g_string_append_printf(report, "%s: ... %d differences in all\n", name, diffs);
    g_hash_table_destroy(gcol);
    g_hash_table_destroy(wcol);
    g_ptr_array_free(wh, TRUE);
    g_ptr_array_free(gh, TRUE);
  }
  g_strfreev(w);
  g_strfreev(g);
  return diffs;
}

/* Rows of CSV text GOT whose events are not a positive count (every run
 * takes at least one event); -1 when GOT has no events column. */
static int events_not_positive(const char *got) {
  char **l = lines_of(got);
  int bad = -1;
  if (l[0]) {
    GPtrArray *h = csv_fields(l[0]);
    guint col = 0;
    for (guint c = 0; c < h->len && !col; c++)
      if (!strcmp(h->pdata[c], EVENTS_COLUMN)) col = c + 1;
    for (guint i = 1; col && l[i]; i++) {
      GPtrArray *r = csv_fields(l[i]);
      guint64 v = 0;
      bool ok = col - 1 < r->len &&
                g_ascii_string_to_unsigned(r->pdata[col - 1], 10, 1, G_MAXUINT64, &v, NULL);
      if (bad < 0) bad = 0;
      bad += !ok;
      g_ptr_array_free(r, TRUE);
    }
    if (col && bad < 0) bad = 0;
    g_ptr_array_free(h, TRUE);
  }
  g_strfreev(l);
  return bad;
}

/* Appends FIELDS as a CSV line (RFC 4180 quoting where needed). */
static void csv_line(GString *out, const GPtrArray *fields, const bool *keep) {
  bool first = true;
  for (guint c = 0; c < fields->len; c++) {
    if (!keep[c]) continue;
    const char *v = fields->pdata[c];
    if (!first) g_string_append_c(out, ',');
    first = false;
    if (!strpbrk(v, ",\"\n")) {
      g_string_append(out, v);
      continue;
    }
    g_string_append_c(out, '"');
    for (const char *q = v; *q; q++) {
      if (*q == '"') g_string_append_c(out, '"');
      g_string_append_c(out, *q);
    }
    g_string_append_c(out, '"');
  }
  g_string_append_c(out, '\n');
}

/* The golden of the points a run picked (g_free): of WANT's rows, N_POINTS
 * runs of equally many (a point's policies, in point order), those of the
 * points PICK flags; and WANT's columns less those GOT does not print that
 * are empty in every row kept (a counter of a component only other points
 * have: a switch that one GPU lacks). NULL when the rows do not divide. */
static char *golden_subset(const char *want, const char *got, guint n_points, const bool *pick) {
  char **w = lines_of(want), **g = lines_of(got);
  guint nw = g_strv_length(w);
  GString *out = NULL;
  if (w[0] && g[0] && n_points && (nw - 1) % n_points == 0) {
    guint per = (nw - 1) / n_points;
    out = g_string_new(NULL);
    GPtrArray *wh = csv_fields(w[0]), *gh = csv_fields(g[0]);
    GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    for (guint r = 1; r < nw; r++)
      if (pick[(r - 1) / per]) g_ptr_array_add(rows, csv_fields(w[r]));
    GPtrArray *gkeys = col_keys(gh), *wkeys = col_keys(wh);
    bool *keep = g_new(bool, wh->len);
    for (guint c = 0; c < wh->len; c++) {
      keep[c] = false;
      for (guint t = 0; t < gkeys->len && !keep[c]; t++)
        keep[c] = !strcmp(gkeys->pdata[t], wkeys->pdata[c]);
      for (guint r = 0; r < rows->len && !keep[c]; r++) {
        const GPtrArray *f = rows->pdata[r];
        keep[c] = c < f->len && *(const char *)f->pdata[c];
      }
    }
    csv_line(out, wh, keep);
    for (guint r = 0; r < rows->len; r++) csv_line(out, rows->pdata[r], keep);
    g_free(keep);
    g_ptr_array_free(gkeys, TRUE);
    g_ptr_array_free(wkeys, TRUE);
    g_ptr_array_free(rows, TRUE);
    g_ptr_array_free(wh, TRUE);
    g_ptr_array_free(gh, TRUE);
  }
  g_strfreev(w);
  g_strfreev(g);
  return out ? g_string_free(out, FALSE) : NULL;
}

/* The points of a golden of WANT's rows when a run of the K points PICK
 * flags (of at most CAP) printed GOT's: every point prints as many rows
 * (its policies); 0 when the counts do not say so (a bad list, a golden
 * that does not divide, a point past the golden's). Counted, not asked of
 * `validate --plan`, which checks every point (minutes under ASan). */
static guint points_in(const char *want, const char *got, const bool *pick, guint cap) {
  char **w = lines_of(want), **g = lines_of(got);
  guint nw = g_strv_length(w), ng = g_strv_length(g), k = 0, last = 0, n = 0;
  for (guint i = 0; i < cap; i++)
    if (pick[i]) k++, last = i;
  if (k && nw > 1 && ng > 1 && (ng - 1) % k == 0) {
    guint per = (ng - 1) / k;
    if ((nw - 1) % per == 0 && last < (nw - 1) / per) n = (nw - 1) / per;
  }
  g_strfreev(w);
  g_strfreev(g);
  return n;
}

static void test_scenario(void) {
  char *yaml = g_strdup_printf("%s/%s.yaml", configs_dir(), scenario_arg);
  char *golden = g_strdup_printf("%s/%s.csv", golden_dir(), scenario_arg);
  char *want = NULL, *got = NULL, *err = NULL;
  if (!g_file_get_contents(golden, &want, NULL, NULL)) {
    fprintf(stderr, "\n  %s: no golden; run tools/golden.sh --update and review it\n", golden);
    CU_FAIL("no golden");
  } else {
    const char *argv_all[] = {"run", yaml, "-f", "csv", "-q", "-c", "summary", NULL};
    const char *argv_some[] = {"run", yaml, "-f", "csv", "-q", "-c", "summary", "--points", points_arg, NULL};
    int st = tu_trigsim(points_arg ? argv_some : argv_all, &got, &err);
    if (st != 0) fprintf(stderr, "\n  %s: exit %d: %s\n", yaml, st, err);
    CU_ASSERT_EQUAL(st, 0);
    if (st == 0 && points_arg) { /* the golden's rows of those points */
      char **rows = lines_of(want);
      guint cap = g_strv_length(rows); /* no more points than rows */
      g_strfreev(rows);
      bool *pick = pts_pick_parse(points_arg, cap, NULL);
      guint n = pick ? points_in(want, got, pick, cap) : 0;
      char *some = n ? golden_subset(want, got, n, pick) : NULL;
      if (!some)
        fprintf(stderr, "\n  %s: %u points, --points %s, a golden of rows a point: not so\n", golden,
                n, points_arg);
      CU_ASSERT_PTR_NOT_NULL_FATAL(some);
      g_free(pick);
      g_free(want);
      want = some;
    }
    GString *report = g_string_new(NULL);
    int diffs = st == 0 ? compare(scenario_arg, want, got, report) : 0;
    if (diffs)
      fprintf(stderr, "\n%s(if the change is meant: tools/golden.sh --update, then review the diff)\n",
              report->str);
    CU_ASSERT_EQUAL(diffs, 0);
    g_string_free(report, TRUE);
    /* Not compared, but still a count the engine must have taken. */
    if (st == 0) CU_ASSERT_EQUAL(events_not_positive(got), 0);
  }
  g_free(want);
  g_free(got);
  g_free(err);
  g_free(golden);
  g_free(yaml);
}

/* Paths under ROOT (relative, without SUFFIX) of the files ending in SUFFIX. */
static void collect(const char *root, const char *rel, const char *suffix, GPtrArray *out) {
  char *dir = rel ? g_build_filename(root, rel, NULL) : g_strdup(root);
  GDir *d = g_dir_open(dir, 0, NULL);
  for (const char *n; d && (n = g_dir_read_name(d));) {
    char *sub = rel ? g_build_filename(rel, n, NULL) : g_strdup(n);
    char *full = g_build_filename(root, sub, NULL);
    if (g_file_test(full, G_FILE_TEST_IS_DIR)) collect(root, sub, suffix, out);
    else if (g_str_has_suffix(n, suffix))
      g_ptr_array_add(out, g_strndup(sub, strlen(sub) - strlen(suffix)));
    g_free(full);
    g_free(sub);
  }
  if (d) g_dir_close(d);
  g_free(dir);
}

static bool contains(const GPtrArray *a, const char *s) {
  for (guint i = 0; i < a->len; i++)
    if (!strcmp(a->pdata[i], s)) return true;
  return false;
}

static void test_complete(void) {
  GPtrArray *yamls = g_ptr_array_new_with_free_func(g_free);
  GPtrArray *goldens = g_ptr_array_new_with_free_func(g_free);
  collect(configs_dir(), NULL, ".yaml", yamls);
  collect(golden_dir(), NULL, ".csv", goldens);
  CU_ASSERT(goldens->len > 0);
  for (guint i = 0; i < yamls->len; i++) {
    const char *rel = yamls->pdata[i];
    if (contains(goldens, rel)) continue;
    /* Hardware profiles and other includes are not scenarios. */
    char *yaml = g_strdup_printf("%s/%s.yaml", configs_dir(), rel);
    bool scenario = tu_trigsim((const char *[]){"validate", yaml, NULL}, NULL, NULL) == 0;
    if (scenario) fprintf(stderr, "\n  %s: a scenario without a golden (tools/golden.sh --update)\n", yaml);
    CU_ASSERT_FALSE(scenario);
    g_free(yaml);
  }
  for (guint i = 0; i < goldens->len; i++) {
    bool ok = contains(yamls, goldens->pdata[i]);
    if (!ok) fprintf(stderr, "\n  %s/%s.csv: no such scenario in configs/ (tools/golden.sh --update)\n",
                     golden_dir(), (char *)goldens->pdata[i]);
    CU_ASSERT_TRUE(ok);
    /* Engine bookkeeping is no golden's (tools/golden.sh writes it out). */
    char *path = g_strdup_printf("%s/%s.csv", golden_dir(), (char *)goldens->pdata[i]), *text = NULL;
    bool events = g_file_get_contents(path, &text, NULL, NULL) && events_not_positive(text) >= 0;
    if (events) fprintf(stderr, "\n  %s: holds an events column (tools/golden.sh --update)\n", path);
    CU_ASSERT_FALSE(events);
    g_free(text);
    g_free(path);
  }
  g_ptr_array_free(yamls, TRUE);
  g_ptr_array_free(goldens, TRUE);
}

/* ---- the comparison itself ---- */

/* A golden of two policies (no events) and what a run prints (events
 * between the total and the phases, as tools/app/report.c writes them). */
static const char *const golden_text =
    "scenario,workload,seed,policy,total_time_ps,phase_launch_ps,node.nic.puts.sum\n"
    "s,ping,1,cpu,2489260,0,1\n"
    "s,ping,1,gputn,3602000,5000000,2\n";

static int compare_with(const char *got, GString *report) {
  g_string_truncate(report, 0);
  return compare("s", golden_text, got, report);
}

static void test_compare_ignores_events(void) {
  GString *report = g_string_new(NULL);
  /* Events moved (12 -> 13, 30 -> 29), every prediction the same: equal. */
  CU_ASSERT_EQUAL(compare_with("scenario,workload,seed,policy,total_time_ps,events,phase_launch_ps,"
                               "node.nic.puts.sum\n"
                               "s,ping,1,cpu,2489260,13,0,1\n"
                               "s,ping,1,gputn,3602000,29,5000000,2\n",
                               report),
                  0);
  CU_ASSERT_STRING_EQUAL(report->str, "");
  /* A time that moved by 1 ps is one difference, named by row and column. */
  CU_ASSERT_EQUAL(compare_with("scenario,workload,seed,policy,total_time_ps,events,phase_launch_ps,"
                               "node.nic.puts.sum\n"
                               "s,ping,1,cpu,2489260,12,0,1\n"
                               "s,ping,1,gputn,3602001,30,5000000,2\n",
                               report),
                  1);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(report->str, "row 2 (policy=gputn): total_time_ps: golden 3602000, printed 3602001"));
  /* So is a counter, and a phase. */
  CU_ASSERT_EQUAL(compare_with("scenario,workload,seed,policy,total_time_ps,events,phase_launch_ps,"
                               "node.nic.puts.sum\n"
                               "s,ping,1,cpu,2489260,12,1,1\n"
                               "s,ping,1,gputn,3602000,30,5000000,3\n",
                               report),
                  2);
  CU_ASSERT_PTR_NOT_NULL(strstr(report->str, "row 1 (policy=cpu): phase_launch_ps: golden 0, printed 1"));
  CU_ASSERT_PTR_NOT_NULL(strstr(report->str, "node.nic.puts.sum: golden 2, printed 3"));
  g_string_free(report, TRUE);
}

static void test_compare_golden_with_events(void) {
  /* A golden that still holds events differs, whatever the events. */
  GString *report = g_string_new(NULL);
  const char *with = "scenario,workload,seed,policy,total_time_ps,events\ns,ping,1,cpu,5,12\n";
  CU_ASSERT_EQUAL(compare("s", with, with, report), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(report->str, "column events: in the golden; goldens leave engine "
                                             "bookkeeping out"));
  /* A printed events column that is not a positive count is caught apart. */
  CU_ASSERT_EQUAL(events_not_positive(with), 0);
  CU_ASSERT_EQUAL(events_not_positive("policy,events\ncpu,0\ngds,x\nhdn,3\n"), 2);
  CU_ASSERT_EQUAL(events_not_positive(golden_text), -1);
  g_string_free(report, TRUE);
}

static void test_compare_subset(void) {
  /* A golden of three points (size 8B, 16B, 32B) of two policies; a run of
   * the second point only is compared with rows 3 and 4, and a time moved
   * there is found. */
  const char *want = "scenario,workload,seed,workload.size,policy,total_time_ps\n"
                     "s,ping,1,8B,cpu,10\ns,ping,1,8B,gputn,20\n"
                     "s,ping,1,16B,cpu,30\ns,ping,1,16B,gputn,40\n"
                     "s,ping,1,32B,cpu,50\ns,ping,1,32B,gputn,60\n";
  const char *got = "scenario,workload,seed,workload.size,policy,total_time_ps,events\n"
                    "s,ping,1,16B,cpu,30,5\ns,ping,1,16B,gputn,41,6\n";
  bool *pick = pts_pick_parse("1", 7, NULL);
  CU_ASSERT_FATAL(pick && !pick[0] && pick[1] && !pick[2]);
  char *some = golden_subset(want, got, 3, pick);
  CU_ASSERT_STRING_EQUAL(some, "scenario,workload,seed,workload.size,policy,total_time_ps\n"
                               "s,ping,1,16B,cpu,30\ns,ping,1,16B,gputn,40\n");
  GString *report = g_string_new(NULL);
  CU_ASSERT_EQUAL(compare("s", some, got, report), 1);
  CU_ASSERT_PTR_NOT_NULL(
      strstr(report->str, "row 2 (workload.size=16B, policy=gputn): total_time_ps: golden 40, printed 41"));
  g_free(some);
  /* 2 rows printed for 1 point: 2 a point, 6 golden rows: 3 points; a
   * point 3 is past them, and 4 rows printed for one point do not divide
   * the golden's 6. */
  CU_ASSERT_EQUAL(points_in(want, got, pick, 7), 3);
  bool fourth[] = {false, false, false, true};
  CU_ASSERT_EQUAL(points_in(want, got, fourth, 4), 0);
  CU_ASSERT_EQUAL(points_in(want, "h\n1\n2\n3\n4\n", pick, 7), 0);
  g_free(pick);
  /* Points 0 and 2 ("0,2"; "2-0" and "3" are no lists of 3 points); 7
   * rows do not divide into 3 points. */
  pick = pts_pick_parse("0,2", 3, NULL);
  CU_ASSERT_FATAL(pick && pick[0] && !pick[1] && pick[2]);
  CU_ASSERT_PTR_NULL(pts_pick_parse("2-0", 3, NULL));
  CU_ASSERT_PTR_NULL(pts_pick_parse("3", 3, NULL));
  CU_ASSERT_PTR_NULL(golden_subset("h,a,b,c\n1\n2\n3\n4\n5\n6\n7\n", got, 3, pick));
  g_free(pick);
  /* The golden's switch counter, empty at 16B (one GPU: no switch) and
   * not printed by a run of that point alone: dropped; at 8B, where it has
   * a value, kept and missed ("no longer printed"). */
  const char *sw = "scenario,workload,seed,workload.size,policy,total_time_ps,sw.packets.sum\n"
                   "s,ping,1,8B,cpu,10,4\ns,ping,1,16B,cpu,30,\n";
  const char *got16 = "scenario,workload,seed,workload.size,policy,total_time_ps,events\n"
                      "s,ping,1,16B,cpu,30,5\n";
  bool second[] = {false, true}, first[] = {true, false};
  some = golden_subset(sw, got16, 2, second);
  CU_ASSERT_STRING_EQUAL(some, "scenario,workload,seed,workload.size,policy,total_time_ps\n"
                               "s,ping,1,16B,cpu,30\n");
  g_free(some);
  const char *got8 = "scenario,workload,seed,workload.size,policy,total_time_ps,events\n"
                     "s,ping,1,8B,cpu,10,5\n";
  some = golden_subset(sw, got8, 2, first);
  g_string_truncate(report, 0);
  CU_ASSERT_EQUAL(compare("s", some, got8, report), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(report->str, "column sw.packets.sum: in the golden, no longer printed"));
  g_free(some);
  /* A field with a comma keeps its quotes. */
  const char *q = "scenario,workload,seed,workload,policy,total_time_ps\n"
                  "s,aj,1,\"sync, 100\",hdn,7\n";
  bool one[] = {true};
  some = golden_subset(q, q, 1, one);
  CU_ASSERT_STRING_EQUAL(some, q);
  g_free(some);
  g_string_free(report, TRUE);
}

int main(int argc, char **argv) {
  if (argc == 4 && !strcmp(argv[2], "--points")) points_arg = argv[3];
  else if (argc != 2) {
    fprintf(stderr, "usage: test_golden DIR/NAME [--points LIST] | --complete | --compare\n");
    return 2;
  }
  scenario_arg = argv[1];
  if (!strcmp(argv[1], "--compare")) {
    const struct tu_test tests[] = {
        {"events are not compared, a moved time or counter is", test_compare_ignores_events},
        {"a golden holding events differs", test_compare_golden_with_events},
        {"a run of some points is compared with their rows", test_compare_subset},
        {NULL, NULL},
    };
    return tu_run_suite("golden compare", tests);
  }
  bool complete = !strcmp(argv[1], "--complete");
  const struct tu_test tests[] = {
      {complete ? "every scenario has a golden" : argv[1], complete ? test_complete : test_scenario},
      {NULL, NULL},
  };
  return tu_run_suite("golden", tests);
}
