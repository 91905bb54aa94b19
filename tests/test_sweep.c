/* Sweep sections: axis expansion (lists, linear and log ranges, product and
 * zip), repetitions and their seeds, assignments onto the scenario tree, the
 * exact text of malformed-section errors, and `trigsim run/validate` over the
 * points of a sweep. */
#include <glib.h>
#include <string.h>

#include "sweep.h"
#include "testutil.h"

/* Parses TEXT's `sweep:` section; NULL and *ERR on error. ROOT keeps the tree. */
static struct sw_plan *plan_of(const char *text, struct sc_node **root, char **err) {
  *root = sc_load_string(text, "t.yaml", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(*root);
  return sw_plan_parse(sc_map_get(*root, "sweep"), err);
}

/* The labels of point I joined by spaces (g_free). */
static char *labels(const struct sw_plan *p, size_t i) {
  GString *s = g_string_new(NULL);
  for (size_t a = 0; a < p->n_axes; a++)
    g_string_append_printf(s, "%s%s", a ? " " : "", sw_point_label(p, i, a));
  return g_string_free(s, FALSE);
}

static void assert_point(const struct sw_plan *p, size_t i, const char *want) {
  char *got = labels(p, i);
  CU_ASSERT_STRING_EQUAL(got, want);
  g_free(got);
}

static void test_product_of_list_and_linear_range(void) {
  struct sc_node *root;
  char *err = NULL;
  struct sw_plan *p = plan_of("sweep:\n"
                              "  axes:\n"
                              "    - {path: a, values: [x, y]}\n"
                              "    - {path: b.c, range: {from: 10, to: 30, steps: 3}}\n",
                              &root, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  /* 2 values x 3 steps (10, 20, 30: step (30 - 10) / 2), the last axis fastest. */
  CU_ASSERT_EQUAL(p->n_points, 6);
  CU_ASSERT_EQUAL(p->repeat, 1);
  assert_point(p, 0, "x 10");
  assert_point(p, 1, "x 20");
  assert_point(p, 2, "x 30");
  assert_point(p, 3, "y 10");
  assert_point(p, 5, "y 30");
  sw_plan_free(p);
  sc_node_free(root);
}

static void test_log_ranges_keep_units(void) {
  struct sc_node *root;
  char *err = NULL;
  struct sw_plan *p = plan_of("sweep:\n"
                              "  combine: zip\n"
                              "  axes:\n"
                              "    - {path: t, range: {from: 1us, to: 100us, steps: 3, scale: log}}\n"
                              "    - {path: n, range: {from: 2, to: 64, steps: 3, scale: log}}\n"
                              "    - {path: f, range: {from: 0.5, to: 1.5, steps: 3}}\n",
                              &root, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  /* Log steps multiply by (100/1)^(1/2) = 10 and (64/2)^(1/2) = 5.657 (so
   * 2 * 5.657 = 11.31); zipped, 3 points, not 27. */
  CU_ASSERT_EQUAL(p->n_points, 3);
  assert_point(p, 0, "1us 2 0.5");
  assert_point(p, 1, "10us 11.3137085 1");
  assert_point(p, 2, "100us 64 1.5");
  sw_plan_free(p);
  sc_node_free(root);
}

static void test_repeat_and_seeds(void) {
  struct sc_node *root;
  char *err = NULL;
  struct sw_plan *p = plan_of("sweep:\n  repeat: 3\n  axes: [{path: a, values: [1, 2]}]\n", &root,
                              &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  /* 2 values x 3 repetitions, the repetition fastest. */
  CU_ASSERT_EQUAL(p->n_points, 6);
  CU_ASSERT_EQUAL(sw_point_rep(p, 0), 0);
  CU_ASSERT_EQUAL(sw_point_rep(p, 2), 2);
  CU_ASSERT_EQUAL(sw_point_rep(p, 3), 0);
  assert_point(p, 2, "1");
  assert_point(p, 3, "2");
  /* Repetition 0 keeps the scenario's seed; repetition r is splitmix64 of
   * seed + 0x9e3779b97f4a7c15 * (r + 1) (rng_derive): for seed 7, r = 1,
   * z = 7 + 2 * 0x9e3779b97f4a7c15 mod 2^64, mixed, = 309689372594955804. */
  CU_ASSERT_EQUAL(sw_seed(7, 0), 7);
  CU_ASSERT_EQUAL(sw_seed(7, 1), 309689372594955804ULL);
  CU_ASSERT_EQUAL(sw_seed(7, 2), 16616101746815609346ULL);
  sw_plan_free(p);
  sc_node_free(root);
}

static void test_apply_point_sets_paths_and_policy(void) {
  struct sc_node *root;
  char *err = NULL;
  struct sw_plan *p = plan_of("hardware: {gpu: {cus: 4}}\n"
                              "sweep:\n"
                              "  axes:\n"
                              "    - {path: hardware.gpu.cus, values: [8, 16]}\n"
                              "    - {path: policy, values: [cpu, gputn]}\n",
                              &root, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  struct sc_node *tree = sc_node_copy(root);
  /* Point 3 = (16, gputn). */
  CU_ASSERT_TRUE(sw_apply_point(p, 3, tree, &err));
  const struct sc_node *cus = sc_map_get(sc_map_get(sc_map_get(tree, "hardware"), "gpu"), "cus");
  CU_ASSERT_STRING_EQUAL(cus->scalar, "16");
  /* The value keeps the mark of the list item: line 4, column 44. */
  CU_ASSERT_EQUAL(cus->line, 4);
  CU_ASSERT_EQUAL(cus->col, 44);
  CU_ASSERT_STRING_EQUAL(sc_map_get(tree, "policies")->scalar, "gputn");
  /* The base tree is untouched. */
  cus = sc_map_get(sc_map_get(sc_map_get(root, "hardware"), "gpu"), "cus");
  CU_ASSERT_STRING_EQUAL(cus->scalar, "4");
  sc_node_free(tree);
  sw_plan_free(p);
  sc_node_free(root);
}

/* An axis of maps sets several keys at once; a map's label names the
 * point and sets nothing. */
static void test_labelled_maps_set_several_keys(void) {
  struct sc_node *root;
  char *err = NULL;
  struct sw_plan *p = plan_of("workload: {kind: ping, size: 8B}\n"
                              "sweep:\n"
                              "  axes:\n"
                              "    - path: workload\n"
                              "      values:\n"
                              "        - {label: small one, size: 1KiB, wgs: 2}\n"
                              "        - {size: 2KiB}\n",
                              &root, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  assert_point(p, 0, "small one");
  assert_point(p, 1, "{...}");
  struct sc_node *tree = sc_node_copy(root);
  CU_ASSERT_TRUE(sw_apply_point(p, 0, tree, &err));
  const struct sc_node *w = sc_map_get(tree, "workload");
  CU_ASSERT_STRING_EQUAL(sc_map_get(w, "kind")->scalar, "ping"); /* merged, not replaced */
  CU_ASSERT_STRING_EQUAL(sc_map_get(w, "size")->scalar, "1KiB");
  CU_ASSERT_STRING_EQUAL(sc_map_get(w, "wgs")->scalar, "2");
  CU_ASSERT_PTR_NULL(sc_map_get(w, "label"));
  /* the plan's own values keep their label for the next point */
  assert_point(p, 0, "small one");
  sc_node_free(tree);
  sw_plan_free(p);
  sc_node_free(root);
}

/* Parsing TEXT fails with exactly WANT. */
static void assert_error(const char *text, const char *want) {
  struct sc_node *root;
  char *err = NULL;
  struct sw_plan *p = plan_of(text, &root, &err);
  CU_ASSERT_PTR_NULL(p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(err);
  if (strcmp(err, want)) fprintf(stderr, "\n got: %s\nwant: %s\n", err, want);
  CU_ASSERT_STRING_EQUAL(err, want);
  g_free(err);
  sw_plan_free(p);
  sc_node_free(root);
}

static void test_errors_name_the_place(void) {
  assert_error("sweep: 3\n", "t.yaml:1:8: sweep: expected a mapping with axes, combine and repeat, got '3'");
  assert_error("sweep:\n  axis: []\n",
               "t.yaml:2:3: sweep.axis: expected one of axes, combine, repeat (did you mean 'axes'?), got "
               "'axis'");
  assert_error("sweep:\n  axes: []\n", "t.yaml:2:9: sweep.axes: expected a non-empty list of axes, got a sequence");
  assert_error("sweep:\n  axes: [{path: a}]\n",
               "t.yaml:2:10: sweep.axes[0].values: expected a values list or a range, got a mapping");
  assert_error("sweep:\n  axes: [{path: a, values: []}]\n",
               "t.yaml:2:28: sweep.axes[0].values: expected a non-empty list of values, got a sequence");
  assert_error("sweep:\n  axes: [{path: a, range: {from: 1us, to: 8, steps: 2}}]\n",
               "t.yaml:2:43: sweep.axes[0].range.to: expected a time like from, got '8'");
  assert_error("sweep:\n  axes: [{path: a, range: {from: 1, to: 8, steps: 2, scale: ln}}]\n",
               "t.yaml:2:61: sweep.axes[0].range.scale: expected linear or log, got 'ln'");
  assert_error("sweep:\n  axes: [{path: a, range: {from: 0, to: 8, steps: 2, scale: log}}]\n",
               "t.yaml:2:34: sweep.axes[0].range.from: expected a value above 0 on a log scale, got '0'");
  assert_error("sweep:\n  axes: [{path: a, range: {from: 1, to: 8, steps: 0}}]\n",
               "t.yaml:2:51: sweep.axes[0].range.steps: expected an integer in [1, 1000000], got '0'");
  assert_error("sweep:\n  combine: zip\n  axes: [{path: a, values: [1, 2]}, {path: b, values: [1]}]\n",
               "t.yaml:3:44: sweep.axes[1]: expected as many values as axis 0 (2) to zip, got 1");
  assert_error("sweep:\n  axes: [{path: a, values: [1]}, {path: a, values: [2]}]\n",
               "t.yaml:2:41: sweep.axes[1]: expected each path once among the axes, got 'a' again");
  assert_error("sweep:\n  repeat: 0\n  axes: [{path: a, values: [1]}]\n",
               "t.yaml:2:11: sweep.repeat: expected an integer in [1, 100000], got '0'");
}

/* ---- through the program ---- */

static char *data(const char *name) {
  char *rel = g_build_filename("sweep", name, NULL);
  char *p = tu_data(rel);
  g_free(rel);
  return p;
}

/* Issue 33: a log time range rounds its steps to whole ps (the model's
 * resolution) instead of failing on "not a whole number of ps", says so
 * once, and from and to may be in different units of one dimension. */
static void test_time_ranges_round_to_whole_ps(void) {
  struct sc_node *root;
  char *err = NULL;
  struct sw_plan *p = plan_of("sweep:\n"
                              "  combine: zip\n"
                              "  axes:\n"
                              "    - {path: t, range: {from: 1us, to: 100us, steps: 5, scale: log}}\n"
                              "    - {path: u, range: {from: 500ns, to: 2.5us, steps: 5}}\n"
                              "    - {path: s, range: {from: 1KiB, to: 2MiB, steps: 5, scale: log}}\n",
                              &root, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  /* t: ratio (100/1)^(1/4) = 3.16227766: 1us, 3.16227766us = 3162277.66 ps
   * -> 3162278 ps, 10us, 31.6227766us -> 31622777 ps (31622776.6), 100us,
   * each written in from's unit with the digits it needs.
   * u: 500 ns to 2.5 us = 2500 ns, in 4 equal steps of 500 ns, in ns.
   * s: 1 KiB to 2 MiB = 2048 KiB: ratio 2048^(1/4) = 6.727171: 6888.6 B
   * -> 6889 B (6.7275390625KiB), 46340.95 B -> 46341 B (45.2548828125KiB),
   * 311744.1 B -> 311744 B (304.4375KiB). */
  assert_point(p, 0, "1us 500ns 1KiB");
  assert_point(p, 1, "3.162278us 1000ns 6.7275390625KiB");
  assert_point(p, 2, "10us 1500ns 45.2548828125KiB");
  assert_point(p, 3, "31.622777us 2000ns 304.4375KiB");
  assert_point(p, 4, "100us 2500ns 2048KiB");
  /* Said once: the first value rounded, at the range's from (column 31). */
  CU_ASSERT_PTR_NOT_NULL_FATAL(p->note);
  CU_ASSERT_STRING_EQUAL(p->note, "t.yaml:4:31: sweep.axes[0].range: values rounded to a whole ps "
                                  "(3.16227766us is 3.162278us)");
  sw_plan_free(p);
  sc_node_free(root);
  /* Exact steps: nothing to say. */
  p = plan_of("sweep:\n  axes: [{path: t, range: {from: 1us, to: 100us, steps: 3, scale: log}}]\n",
              &root, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_PTR_NULL(p->note);
  sw_plan_free(p);
  sc_node_free(root);
  /* Two dimensions: an error at `to`. */
  assert_error("sweep:\n  axes: [{path: a, range: {from: 1us, to: 8B, steps: 2}}]\n",
               "t.yaml:2:43: sweep.axes[0].range.to: expected a time like from, got '8B'");
  assert_error("sweep:\n  axes: [{path: a, range: {from: 1xs, to: 8, steps: 2}}]\n",
               "t.yaml:2:34: sweep.axes[0].range.from: expected a number, plain or with a unit "
               "(ps ns us ms s, B KiB MiB ..., bps ... Tbps, Hz ... GHz), got '1xs'");
}

/* The same through the program: a GPU launch latency swept on a log scale
 * validates and runs (it failed with "not a whole number of ps" before),
 * and the rounding is said once on stderr, not with --quiet. */
static void test_log_time_sweep_runs(void) {
  const char *configs = g_getenv("TRIGSIM_CONFIGS");
  char *text = g_strdup_printf("include: %s/default.yaml\npolicies: [gputn]\n"
                               "sweep:\n  axes:\n    - {path: hardware.gpu.launch_latency, "
                               "range: {from: 1us, to: 10us, steps: 3, scale: log}}\n", configs);
  char *f = tu_temp_file(".yaml", text, strlen(text));
  char *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", f, NULL}, &out, &err), 0);
  /* sqrt(10) us = 3162277.66 ps -> 3162278 ps. */
  const char *note = strstr(err, "note: ");
  CU_ASSERT_PTR_NOT_NULL_FATAL(note);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "values rounded to a whole ps (3.16227766us is 3.162278us)"));
  CU_ASSERT_PTR_NULL(strstr(note + 1, "note: "));
  g_free(out);
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", f, "-q", "-f", "csv", NULL}, &out, &err), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, ",3.162278us,gputn,"));
  CU_ASSERT_STRING_EQUAL(err, "");
  g_free(out);
  g_free(err);
  g_free(f);
  g_free(text);
}

static void test_run_prints_a_row_per_point(void) {
  char *f = data("phold.yaml"), *out = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", f, "-f", "csv", "-c", "summary", NULL}, &out,
                             NULL), 0);
  char **lines = g_strsplit(out, "\n", -1);
  CU_ASSERT_EQUAL_FATAL(g_strv_length(lines), 6);
  CU_ASSERT_TRUE(g_str_has_prefix(lines[0], "scenario,workload,seed,workload.lps,rep,policy,total_time_ps,"));
  /* lps [2, 4] x repeat 2; seed 3, then rng_derive(3, 1) = 12918135221727111561
   * (splitmix64 of 3 + 2 * 0x9e3779b97f4a7c15); end_time 20 us = 20000000 ps. */
  CU_ASSERT_TRUE(g_str_has_prefix(lines[1], "sweep-phold,phold,3,2,0,none,20000000,"));
  CU_ASSERT_TRUE(g_str_has_prefix(lines[2], "sweep-phold,phold,12918135221727111561,2,1,none,20000000,"));
  CU_ASSERT_TRUE(g_str_has_prefix(lines[3], "sweep-phold,phold,3,4,0,none,20000000,"));
  CU_ASSERT_TRUE(g_str_has_prefix(lines[4], "sweep-phold,phold,12918135221727111561,4,1,none,"));
  /* Another seed draws other events: the repetitions differ. */
  CU_ASSERT_STRING_NOT_EQUAL(strchr(lines[1] + 40, ','), strchr(lines[2] + 57, ','));
  g_strfreev(lines);
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", f, "-f", "json", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "{\"seed\": 3, \"axes\": {\"workload.lps\": \"4\", \"rep\": \"0\"}, \"policy\": \"none\""));
  g_free(out);
  /* --set on the base scenario still applies to every point. */
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", f, "-f", "csv", "-s", "workload.end_time=10us", NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nsweep-phold,phold,3,4,0,none,10000000,"));
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", f, NULL}, &out, NULL), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "sweep of 4 points (1 axis)"));
  g_free(out);
  g_free(f);
}

static void test_bad_axis_stops_before_any_run(void) {
  char *f = data("unknown_param.yaml"), *out = NULL, *err = NULL;
  /* The second axis's path value sits at line 7, column 13. */
  char *want = g_strdup_printf("%s:7:13: workload.lpz: expected a parameter of phold (did you mean 'lps'?), got 'lpz'\n", f);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", f, NULL}, &out, &err), 2);
  CU_ASSERT_STRING_EQUAL(err, want);
  CU_ASSERT_STRING_EQUAL(out, "");
  g_free(err);
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", f, NULL}, NULL, &err), 2);
  CU_ASSERT_STRING_EQUAL(err, want);
  g_free(err);
  g_free(want);
  g_free(f);
  /* The second value of the first axis (line 5, column 40) is out of range. */
  f = data("bad_value.yaml");
  want = g_strdup_printf("%s:5:40: workload.lps: expected an integer in [1, 1048576], got 0\n", f);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", f, "-f", "csv", NULL}, &out, &err), 2);
  CU_ASSERT_STRING_EQUAL(err, want);
  CU_ASSERT_STRING_EQUAL(out, "");
  g_free(err);
  g_free(out);
  g_free(want);
  g_free(f);
}

static void test_plan_and_plot_for_reproduce(void) {
  char *f = data("phold.yaml"), *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", "--plan", f, NULL}, &out, NULL), 0);
  /* 2 values x repeat 2 = 4 points, one axis, no plot section. */
  CU_ASSERT_STRING_EQUAL(out, "points=4\nsweep=1\naxis0=workload.lps\n");
  g_free(out);
  g_free(f);
  /* logx: yes sits at line 5, column 9; a plot: section takes true|false. */
  f = data("bad_plot.yaml");
  char *want = g_strdup_printf("%s:5:9: plot.logx: expected true or false, got 'yes'\n", f);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", f, NULL}, NULL, &err), 2);
  CU_ASSERT_STRING_EQUAL(err, want);
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", "--plan", f, NULL}, NULL, &err), 2);
  CU_ASSERT_STRING_EQUAL(err, want);
  g_free(err);
  g_free(want);
  g_free(f);
  /* a list of plots: one sweep, several figures, each named */
  const char *two = "workload: {kind: ping}\n"
                    "plot:\n"
                    "  - {name: a, y: total_time_ps}\n"
                    "  - {name: b, x: policy, logy: true}\n";
  f = tu_temp_file(".yaml", two, strlen(two));
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", "--plan", f, NULL}, &out, NULL), 0);
  CU_ASSERT_STRING_EQUAL(out, "points=1\nsweep=0\nplots=2\nplot0.name=a\nplot0.y=total_time_ps\n"
                              "plot1.name=b\nplot1.x=policy\nplot1.logy=true\n");
  g_free(out);
  g_free(f);
  const char *unnamed = "workload: {kind: ping}\nplot:\n  - {y: total_time_ps}\n";
  f = tu_temp_file(".yaml", unnamed, strlen(unnamed));
  want = g_strdup_printf("%s:3:5: plot: expected a name: in each plot of a list, got a mapping\n", f);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", f, NULL}, NULL, &err), 2);
  CU_ASSERT_STRING_EQUAL(err, want);
  g_free(err);
  g_free(want);
  g_free(f);
  /* plot.where: COLUMN=VALUE or a list of them; facet a scalar. */
  const char *bad = "workload: {kind: phold}\nplot: {x: a, where: [policy]}\n";
  f = tu_temp_file(".yaml", bad, strlen(bad));
  want = g_strdup_printf("%s:2:22: plot.where: expected COLUMN=VALUE (one line), or a list of them, "
                         "got 'policy'\n", f);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", f, NULL}, NULL, &err), 2);
  CU_ASSERT_STRING_EQUAL(err, want);
  g_free(err);
  g_free(want);
  g_free(f);
  const char *good = "workload: {kind: phold}\nsweep: {axes: [{path: workload.lps, values: [2, 4]}]}\n"
                     "plot: {x: workload.lps, facet: policy, where: [policy=none, workload.lps=4]}\n";
  f = tu_temp_file(".yaml", good, strlen(good));
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", "--plan", f, NULL}, &out, NULL), 0);
  CU_ASSERT_STRING_EQUAL(out, "points=2\nsweep=1\naxis0=workload.lps\nplot.x=workload.lps\n"
                              "plot.facet=policy\nplot.where.0=policy=none\nplot.where.1=workload.lps=4\n");
  g_free(out);
  g_free(f);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"product of a list and a linear range", test_product_of_list_and_linear_range},
      {"log ranges keep units; zip", test_log_ranges_keep_units},
      {"time ranges round to whole ps", test_time_ranges_round_to_whole_ps},
      {"a log time sweep runs", test_log_time_sweep_runs},
      {"repeat and seeds", test_repeat_and_seeds},
      {"apply a point: paths and policy", test_apply_point_sets_paths_and_policy},
      {"errors name the place", test_errors_name_the_place},
      {"run prints a row per point", test_run_prints_a_row_per_point},
      {"a bad axis stops before any run", test_bad_axis_stops_before_any_run},
      {"plan and plot for reproduce.sh", test_plan_and_plot_for_reproduce},
      {"labelled maps set several keys", test_labelled_maps_set_several_keys},
      {NULL, NULL}};
  return tu_run_suite("sweep", tests);
}
