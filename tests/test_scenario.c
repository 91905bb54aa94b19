/* Tests for the scenario loader: the YAML tree and its marks, includes,
 * --set and overrides, binding onto a small fake catalog, and the exact
 * one-line text of every user error. */
#include <glib.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "scenario.h"
#include "testutil.h"

/* ---- a fake catalog ---- */

struct gpu_cfg {
  int64_t launch_latency_ps;
  int64_t cus;
  int64_t bandwidth_bps;
  char *label;
};

static const struct par_decl gpu_decls[] = {
    {"launch_latency", PAR_TIME, "1.5us", "0", "1s", NULL, "kernel launch latency",
     offsetof(struct gpu_cfg, launch_latency_ps)},
    {"cus", PAR_INT, "4", "1", "1024", NULL, "compute units", offsetof(struct gpu_cfg, cus)},
    {"bandwidth", PAR_BANDWIDTH, "100Gbps", NULL, NULL, NULL, "memory bandwidth",
     offsetof(struct gpu_cfg, bandwidth_bps)},
    {"label", PAR_STRING, "g0", NULL, NULL, NULL, "a name", offsetof(struct gpu_cfg, label)},
};
static const struct par_group gpu_group = {"gpu", "a fake GPU", gpu_decls, PAR_COUNT(gpu_decls),
                                           sizeof(struct gpu_cfg), NULL};

struct nic_cfg {
  int64_t latency_ps;
};
static const struct par_decl nic_decls[] = {
    {"latency", PAR_TIME, "1us", NULL, NULL, NULL, "wire latency", offsetof(struct nic_cfg, latency_ps)},
};
static const struct par_group nic_group = {"nic", "a fake NIC", nic_decls, PAR_COUNT(nic_decls),
                                           sizeof(struct nic_cfg), NULL};

struct phold_cfg {
  int64_t lps;
  double remote;
};
static const struct par_decl phold_decls[] = {
    {"lps", PAR_INT, "4", "1", "1000", NULL, "logical processes", offsetof(struct phold_cfg, lps)},
    {"remote", PAR_FLOAT, "0.5", "0", "1", NULL, "remote fraction", offsetof(struct phold_cfg, remote)},
};
static const struct par_group phold_group = {"phold", "a fake PHOLD", phold_decls,
                                             PAR_COUNT(phold_decls), sizeof(struct phold_cfg), NULL};

struct ping_cfg {
  int64_t size_bytes;
};
static const struct par_decl ping_decls[] = {
    {"size", PAR_SIZE, "8B", NULL, NULL, NULL, "message size", offsetof(struct ping_cfg, size_bytes)},
};
static const struct par_group ping_group = {"ping", "a fake ping", ping_decls, PAR_COUNT(ping_decls),
                                            sizeof(struct ping_cfg), NULL};

static const struct par_group *const hw_groups[] = {&gpu_group, &nic_group};
static const struct par_group *const wl_groups[] = {&phold_group, &ping_group};
static const char *const policies[] = {"cpu", "hdn", "gds"};
static const char *const *policy_names(size_t *n) {
  *n = G_N_ELEMENTS(policies);
  return policies;
}
static const struct sc_catalog cat = {hw_groups, 2, wl_groups, 2, policy_names, NULL};

/* ---- helpers ---- */

static char *data(const char *name) {
  char *rel = g_build_filename("scenario", name, NULL);
  char *p = tu_data(rel);
  g_free(rel);
  return p;
}

static char *yaml_file(const char *text) { return tu_temp_file(".yaml", text, strlen(text)); }

#define GPU(s) ((const struct gpu_cfg *)sc_hardware((s), &gpu_group))
#define NIC(s) ((const struct nic_cfg *)sc_hardware((s), &nic_group))

/* Loads PATH with SETS, asserts failure with exactly the message FMT... */
static void expect_fail(const char *path, const char *const *sets, size_t n_sets, const char *fmt,
                        ...) G_GNUC_PRINTF(4, 5);
static void expect_fail(const char *path, const char *const *sets, size_t n_sets, const char *fmt,
                        ...) {
  va_list ap;
  va_start(ap, fmt);
  char *want = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  char *err = NULL;
  struct scenario *s = scenario_load(path, sets, n_sets, &cat, &err);
  CU_ASSERT_PTR_NULL(s);
  CU_ASSERT_PTR_NOT_NULL_FATAL(err);
  if (strcmp(err, want)) fprintf(stderr, "\n  want: %s\n  got:  %s\n", want, err);
  CU_ASSERT_STRING_EQUAL(err, want);
  CU_ASSERT_PTR_NULL(strchr(err, '\n'));
  scenario_free(s);
  g_free(err);
  g_free(want);
}

/* Writes TEXT to a temporary file and expects FMT, whose one %s is the file. */
static void expect_text_fails(const char *text, const char *fmt) {
  char *p = yaml_file(text);
  char *want = g_strdup_printf(fmt, p);
  expect_fail(p, NULL, 0, "%s", want);
  g_free(want);
  g_free(p);
}

static struct scenario *load_ok(const char *path, const char *const *sets, size_t n_sets) {
  char *err = NULL;
  struct scenario *s = scenario_load(path, sets, n_sets, &cat, &err);
  if (err) fprintf(stderr, "\n  unexpected error: %s\n", err);
  CU_ASSERT_PTR_NULL(err);
  g_free(err);
  return s;
}

/* ---- positive cases ---- */

static void test_include_merge_and_overrides(void) {
  char *p = data("ok_main.yaml");
  struct scenario *s = load_ok(p, NULL, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_STRING_EQUAL(s->name, "from-base"); /* nested include */
  CU_ASSERT_EQUAL(s->seed, 42);
  CU_ASSERT_EQUAL(GPU(s)->launch_latency_ps, 3000000); /* second include wins */
  CU_ASSERT_EQUAL(GPU(s)->cus, 64);                    /* the file wins */
  CU_ASSERT_EQUAL(GPU(s)->bandwidth_bps, 200000000000); /* overrides win */
  CU_ASSERT_STRING_EQUAL(GPU(s)->label, "g0");          /* default */
  CU_ASSERT_EQUAL(NIC(s)->latency_ps, 700000);
  CU_ASSERT_EQUAL(s->workload, 0);
  CU_ASSERT_EQUAL(((struct phold_cfg *)s->workload_config)->lps, 12);
  CU_ASSERT_EQUAL_FATAL(s->n_policies, 2);
  CU_ASSERT_STRING_EQUAL(s->policies[0], "cpu");
  CU_ASSERT_STRING_EQUAL(s->policies[1], "hdn");
  /* Marks survive the merge: the latency came from hw_fast.yaml:4:21. */
  const struct sc_node *gpu = sc_map_get(sc_map_get(s->root, "hardware"), "gpu");
  const struct sc_node *lat = sc_map_get(gpu, "launch_latency");
  CU_ASSERT_PTR_NOT_NULL_FATAL(lat);
  CU_ASSERT_TRUE(g_str_has_suffix(lat->file, "scenario/hw_fast.yaml"));
  CU_ASSERT_EQUAL(lat->line, 4);
  CU_ASSERT_EQUAL(lat->col, 21);
  CU_ASSERT_PTR_NULL(sc_map_get(s->root, "include"));
  CU_ASSERT_PTR_NULL(sc_map_get(s->root, "overrides"));
  scenario_free(s);
  g_free(p);
}

static void test_sets_win_over_file_and_overrides(void) {
  char *p = data("ok_main.yaml");
  const char *sets[] = {"workload.lps=20", "policies=[hdn, gds]", "hardware.gpu.cus=8",
                        "hardware.nic={latency: 1ms}", "name=cli"};
  struct scenario *s = load_ok(p, sets, G_N_ELEMENTS(sets));
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL(((struct phold_cfg *)s->workload_config)->lps, 20);
  CU_ASSERT_EQUAL(GPU(s)->cus, 8);
  CU_ASSERT_EQUAL(GPU(s)->bandwidth_bps, 200000000000);
  CU_ASSERT_EQUAL(GPU(s)->launch_latency_ps, 3000000);
  CU_ASSERT_EQUAL(NIC(s)->latency_ps, 1000000000);
  CU_ASSERT_STRING_EQUAL(s->name, "cli");
  CU_ASSERT_EQUAL_FATAL(s->n_policies, 2);
  CU_ASSERT_STRING_EQUAL(s->policies[0], "hdn");
  CU_ASSERT_STRING_EQUAL(s->policies[1], "gds");
  const struct sc_node *lps = sc_map_get(sc_map_get(s->root, "workload"), "lps");
  CU_ASSERT_STRING_EQUAL(lps->file, "--set");
  CU_ASSERT_EQUAL(lps->line, 1);
  CU_ASSERT_EQUAL(lps->col, 14);
  scenario_free(s);
  g_free(p);
}

static void test_defaults(void) {
  char *p = data("minimal.yaml");
  struct scenario *s = load_ok(p, NULL, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_STRING_EQUAL(s->name, "minimal");
  CU_ASSERT_EQUAL(s->seed, 1);
  CU_ASSERT_EQUAL(GPU(s)->launch_latency_ps, 1500000);
  CU_ASSERT_EQUAL(GPU(s)->cus, 4);
  CU_ASSERT_EQUAL(GPU(s)->bandwidth_bps, 100000000000);
  CU_ASSERT_EQUAL(NIC(s)->latency_ps, 1000000);
  CU_ASSERT_EQUAL(s->workload, 1);
  CU_ASSERT_EQUAL(((struct ping_cfg *)s->workload_config)->size_bytes, 8);
  CU_ASSERT_EQUAL_FATAL(s->n_policies, 1);
  CU_ASSERT_STRING_EQUAL(s->policies[0], "cpu");
  scenario_free(s);
  g_free(p);
}

static void test_policies_scalar_and_seed(void) {
  char *p = yaml_file("workload: {kind: ping, size: 4KiB}\npolicies: gds\n"
                      "seed: 18446744073709551615\n");
  struct scenario *s = load_ok(p, NULL, 0);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  CU_ASSERT_EQUAL_FATAL(s->n_policies, 1);
  CU_ASSERT_STRING_EQUAL(s->policies[0], "gds");
  CU_ASSERT_EQUAL(s->seed, UINT64_MAX);
  CU_ASSERT_EQUAL(((struct ping_cfg *)s->workload_config)->size_bytes, 4096);
  scenario_free(s);
  g_free(p);
}

static void test_tree_and_set(void) {
  char *err = NULL;
  struct sc_node *t = sc_load_string("a:\n  b: [x, 'y']\n", "text", &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(t);
  const struct sc_node *b = sc_map_get(sc_map_get(t, "a"), "b");
  CU_ASSERT_EQUAL_FATAL(b->kind, SC_SEQ);
  CU_ASSERT_EQUAL_FATAL(b->n_items, 2);
  CU_ASSERT_STRING_EQUAL(b->file, "text");
  CU_ASSERT_EQUAL(b->line, 2);
  CU_ASSERT_EQUAL(b->col, 6);
  CU_ASSERT_FALSE(b->items[0]->quoted);
  CU_ASSERT_TRUE(b->items[1]->quoted);
  CU_ASSERT_EQUAL(b->items[1]->col, 10);
  CU_ASSERT_EQUAL(t->pairs[0].line, 1);
  CU_ASSERT_EQUAL(t->pairs[0].col, 1);
  char *msg = sc_error_at(b, "a.b", "expected %s, got %d", "x", 3);
  CU_ASSERT_STRING_EQUAL(msg, "text:2:6: a.b: expected x, got 3");
  g_free(msg);
  CU_ASSERT_TRUE(sc_apply_set(t, "c.d.e=3", &err));
  CU_ASSERT_TRUE(sc_apply_set(t, "a.b=", &err));
  const struct sc_node *e = sc_map_get(sc_map_get(sc_map_get(t, "c"), "d"), "e");
  CU_ASSERT_STRING_EQUAL(e->scalar, "3");
  CU_ASSERT_EQUAL(e->col, 7);
  CU_ASSERT_STRING_EQUAL(sc_map_get(sc_map_get(t, "a"), "b")->scalar, "");
  CU_ASSERT_FALSE(sc_apply_set(t, "noequals", &err));
  CU_ASSERT_STRING_EQUAL(err, "--set:1:1: (document): expected path=value, got 'noequals'");
  g_free(err);
  CU_ASSERT_FALSE(sc_apply_set(t, "a..b=1", &err));
  CU_ASSERT_STRING_EQUAL(err, "--set:1:1: (document): expected path=value, got 'a..b=1'");
  g_free(err);
  CU_ASSERT_FALSE(sc_apply_set(t, "=1", &err));
  CU_ASSERT_STRING_EQUAL(err, "--set:1:1: (document): expected path=value, got '=1'");
  g_free(err);
  CU_ASSERT_FALSE(sc_apply_set(t, "c.d.e.f=1", &err));
  CU_ASSERT_STRING_EQUAL(err, "--set:1:1: c.d.e: expected a mapping to set 'f' in, got '3'");
  g_free(err);
  CU_ASSERT_FALSE(sc_apply_set(t, "x=[1", &err));
  CU_ASSERT_STRING_EQUAL(err, "--set:1:5: (document): invalid YAML: did not find expected ',' or ']'");
  g_free(err);
  sc_node_free(t);
}

static void test_bind_group_directly(void) {
  char *err = NULL;
  struct sc_node *t = sc_load_string("{cus: 9, kind: x}", "s", &err);
  struct gpu_cfg g;
  CU_ASSERT_TRUE(sc_bind_group(t, "hw.gpu", &gpu_group, "kind", &g, &err));
  CU_ASSERT_EQUAL(g.cus, 9);
  CU_ASSERT_EQUAL(g.launch_latency_ps, 1500000);
  par_group_free_config(&gpu_group, &g);
  CU_ASSERT_TRUE(sc_bind_group(NULL, "hw.gpu", &gpu_group, NULL, &g, &err));
  par_group_free_config(&gpu_group, &g);
  CU_ASSERT_FALSE(sc_bind_group(t, "hw.gpu", &gpu_group, NULL, &g, &err));
  CU_ASSERT_STRING_EQUAL(err, "s:1:10: hw.gpu.kind: expected a parameter of gpu, got 'kind'");
  g_free(err);
  par_group_free_config(&gpu_group, &g);
  sc_node_free(t);
}

/* ---- errors ---- */

static void test_error_yaml_syntax(void) {
  char *p = data("bad_syntax.yaml");
  expect_fail(p, NULL, 0, "%s:4:1: (document): invalid YAML: did not find expected ',' or ']'", p);
  g_free(p);
  expect_text_fails("workload:\n  kind: ping\n   lps: 3\n",
                    "%s:3:7: (document): invalid YAML: mapping values are not allowed in this context");
}

static void test_error_wrong_type(void) {
  expect_text_fails("workload:\n  kind: phold\n  lps: [1, 2]\n",
                    "%s:3:8: workload.lps: expected an integer, got a sequence");
  expect_text_fails("workload:\n  kind: phold\n  lps: {a: 1}\n",
                    "%s:3:8: workload.lps: expected an integer, got a mapping");
  expect_text_fails("workload:\n  kind: phold\n  lps: many\n",
                    "%s:3:8: workload.lps: expected an integer, got many (not a number)");
  expect_text_fails("workload: ping\n",
                    "%s:1:11: workload: expected a mapping with a 'kind', got 'ping'");
  expect_text_fails("workload: {kind: ping}\nhardware: [gpu]\n",
                    "%s:2:11: hardware: expected a mapping of hardware groups, got a sequence");
  expect_text_fails("workload: {kind: ping}\nhardware:\n  gpu: 3\n",
                    "%s:3:8: hardware.gpu: expected a mapping of gpu parameters, got '3'");
  expect_text_fails("workload: {kind: ping}\nseed: -1\n",
                    "%s:2:7: seed: expected a non-negative integer, got '-1'");
  expect_text_fails("workload: {kind: ping}\nseed: 18446744073709551616\n",
                    "%s:2:7: seed: expected a non-negative integer of at most "
                    "18446744073709551615, got '18446744073709551616'");
  expect_text_fails("- workload\n",
                    "%s:1:1: (document): expected a mapping with a 'workload' key, got a sequence");
}

static void test_error_unknown_keys(void) {
  expect_text_fails("workload: {kind: ping}\nhardware:\n  gpu:\n    lanch_latency: 2us\n",
                    "%s:4:5: hardware.gpu.lanch_latency: expected a parameter of gpu (did you mean "
                    "'launch_latency'?), got 'lanch_latency'");
  expect_text_fails("workload: {kind: ping}\nhardware:\n  gpu:\n    zzqqxx: 2\n",
                    "%s:4:5: hardware.gpu.zzqqxx: expected a parameter of gpu, got 'zzqqxx'");
  expect_text_fails("worklod: {kind: ping}\n",
                    "%s:1:1: worklod: expected a top-level key (did you mean 'workload'?), got "
                    "'worklod'");
  expect_text_fails("workload: {kind: ping}\nhardware:\n  gpux: {}\n",
                    "%s:3:3: hardware.gpux: expected a hardware group (did you mean 'gpu'?), got "
                    "'gpux'");
  expect_text_fails("workload: {kind: phlod}\n",
                    "%s:1:18: workload.kind: expected a workload kind (did you mean 'phold'?), got "
                    "'phlod'");
  expect_text_fails("workload: {kind: zzzzzzzz}\n",
                    "%s:1:18: workload.kind: expected a workload kind (one of phold, ping), got "
                    "'zzzzzzzz'");
  expect_text_fails("workload: {kind: ping}\npolicies: [cpu, hnd]\n",
                    "%s:2:17: policies: expected a policy (did you mean 'hdn'?), got 'hnd'");
  expect_text_fails("workload: {kind: ping}\noverrides:\n  a..b: 1\n",
                    "%s:3:3: overrides.a..b: expected a dotted parameter path, got 'a..b'");
}

static void test_error_missing_workload(void) {
  expect_text_fails("# no workload\nseed: 3\n",
                    "%s:1:1: workload: expected a 'workload' mapping with a 'kind', got nothing");
  expect_text_fails("workload:\n  lps: 3\n",
                    "%s:2:3: workload.kind: expected a workload kind (one of phold, ping), got nothing");
}

static void test_error_values(void) {
  const char *head = "workload: {kind: ping}\nhardware:\n  gpu:\n";
  struct {
    const char *line, *want;
  } cases[] = {
      /* out of range */
      {"    launch_latency: 2s\n",
       "%s:4:21: hardware.gpu.launch_latency: expected a time in [0, 1s], got 2s"},
      /* bad unit */
      {"    launch_latency: 3parsecs\n",
       "%s:4:21: hardware.gpu.launch_latency: expected a time such as 1.5us, got 3parsecs (unknown "
       "unit; use one of ps, ns, us, ms, s)"},
      /* unit of the wrong dimension */
      {"    bandwidth: 100ns\n",
       "%s:4:16: hardware.gpu.bandwidth: expected a bandwidth such as 100Gbps, got 100ns (a time)"},
      /* integer overflow */
      {"    launch_latency: 1e30s\n",
       "%s:4:21: hardware.gpu.launch_latency: expected a time such as 1.5us, got 1e30s (out of "
       "range: too large for a 64-bit count of ps)"},
      {"    cus: 0\n", "%s:4:10: hardware.gpu.cus: expected an integer in [1, 1024], got 0"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *text = g_strconcat(head, cases[i].line, NULL);
    expect_text_fails(text, cases[i].want);
    g_free(text);
  }
}

static void test_error_includes(void) {
  char *p = data("bad_missing_include.yaml");
  expect_fail(p, NULL, 0,
              "%s:5:5: include: expected a readable file, got 'no-such-profile.yaml' (No such file "
              "or directory)",
              p);
  g_free(p);
  char *a = data("cycle_a.yaml"), *b = data("cycle_b.yaml");
  expect_fail(a, NULL, 0, "%s:1:10: include: expected no include cycle, got %s -> %s -> %s", b, a,
              b, a);
  g_free(a);
  g_free(b);
  char *missing = data("no-such-file.yaml");
  expect_fail(missing, NULL, 0, "%s: cannot read: No such file or directory", missing);
  g_free(missing);
  expect_text_fails("include: {a: 1}\n",
                    "%s:1:10: include: expected a file name or a list of file names, got a mapping");
}

static void test_error_empty(void) {
  char *p = data("empty.yaml");
  expect_fail(p, NULL, 0, "%s:1:1: (document): expected a mapping with a 'workload' key, got an empty file", p);
  g_free(p);
  expect_text_fails("", "%s:1:1: (document): expected a mapping with a 'workload' key, got an empty file");
}

static void expect_bytes_fail(const char *bytes, size_t len, const char *fmt) {
  char *p = tu_temp_file(".yaml", bytes, len);
  char *want = g_strdup_printf(fmt, p);
  expect_fail(p, NULL, 0, "%s", want);
  g_free(want);
  g_free(p);
}

static void test_error_binary_garbage(void) {
  static const char nul[] = "workload:\n  kind: p\0ng\n";
  expect_bytes_fail(nul, sizeof nul - 1,
                    "%s:2:10: (document): invalid YAML: control characters are not allowed");
  static const char utf8[] = "workload: \xff\xfe\x01\n";
  expect_bytes_fail(utf8, sizeof utf8 - 1,
                    "%s:1:11: (document): invalid YAML: invalid leading UTF-8 octet");
  static const char ctl[] = "\x01\x02\x03\x7f";
  expect_bytes_fail(ctl, sizeof ctl - 1,
                    "%s:1:1: (document): invalid YAML: control characters are not allowed");
  /* Random bytes: any one-line error, never a crash. */
  GRand *rng = g_rand_new_with_seed(7);
  static const char alphabet[] = "ab: -[]{},&*!|>'\"#\n\t\\%@`?\x01\x80\xc3\xa9\xff";
  for (int round = 0; round < 300; round++) {
    char buf[64];
    size_t len = (size_t)g_rand_int_range(rng, 1, sizeof buf);
    for (size_t i = 0; i < len; i++)
      buf[i] = alphabet[g_rand_int_range(rng, 0, sizeof alphabet - 1)];
    char *p = tu_temp_file(".yaml", buf, len), *err = NULL;
    struct scenario *s = scenario_load(p, NULL, 0, &cat, &err);
    CU_ASSERT_TRUE(s != NULL || (err && !strchr(err, '\n') && g_str_has_prefix(err, p)));
    scenario_free(s);
    g_free(err);
    g_free(p);
  }
  g_rand_free(rng);
}

static void test_error_duplicates_and_structure(void) {
  expect_text_fails("workload:\n  kind: ping\nseed: 1\nseed: 2\n",
                    "%s:4:1: seed: expected each key once in a mapping, got 'seed' again (first on "
                    "line 3)");
  expect_text_fails("workload:\n  kind: ping\n  kind: phold\n",
                    "%s:3:3: workload.kind: expected each key once in a mapping, got 'kind' again "
                    "(first on line 2)");
  expect_text_fails("workload: {kind: ping}\n---\nseed: 2\n",
                    "%s:2:1: (document): expected one YAML document, got a second one");
  expect_text_fails("workload: &w {kind: ping}\n",
                    "%s:1:11: workload: expected a value (anchors and aliases are not supported), "
                    "got an anchor '&w'");
  expect_text_fails("workload: {kind: ping}\nname: *w\n",
                    "%s:2:7: name: expected a value (anchors and aliases are not supported), got an "
                    "alias '*w'");
  expect_text_fails("workload: {kind: !!str ping}\n",
                    "%s:1:18: workload.kind: expected a value without a tag, got "
                    "'tag:yaml.org,2002:str'");
  expect_text_fails("workload: {kind: ping}\npolicies: [cpu, cpu]\n",
                    "%s:2:17: policies: expected each policy once, got 'cpu' again");
  GString *deep = g_string_new("workload: ");
  for (int i = 0; i < 5000; i++) g_string_append_c(deep, '[');
  char *dp = yaml_file(deep->str), *err = NULL;
  CU_ASSERT_PTR_NULL(scenario_load(dp, NULL, 0, &cat, &err));
  char *want = g_strdup_printf("%s:1:211: workload[0][0]", dp);
  CU_ASSERT_TRUE(g_str_has_prefix(err, want));
  CU_ASSERT_TRUE(g_str_has_suffix(err, "[0]: expected at most 200 levels of nesting, got more"));
  g_free(want);
  g_free(err);
  g_free(dp);
  g_string_free(deep, TRUE);
}

static void test_error_sets(void) {
  char *p = data("minimal.yaml");
  const char *bad_value[] = {"hardware.gpu.cus=0"};
  expect_fail(p, bad_value, 1, "--set:1:18: hardware.gpu.cus: expected an integer in [1, 1024], got 0");
  const char *bad_form[] = {"nonsense"};
  expect_fail(p, bad_form, 1, "--set:1:1: (document): expected path=value, got 'nonsense'");
  const char *bad_key[] = {"hardware.gpu.cuss=3"};
  expect_fail(p, bad_key, 1,
              "--set:1:1: hardware.gpu.cuss: expected a parameter of gpu (did you mean 'cus'?), got "
              "'cuss'");
  const char *bad_kind[] = {"workload.kind=[ping]"};
  expect_fail(p, bad_kind, 1,
              "--set:1:15: workload.kind: expected a workload kind (one of phold, ping), got a "
              "sequence");
  g_free(p);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"include merge, nested include, overrides", test_include_merge_and_overrides},
      {"--set wins over the file and overrides", test_sets_win_over_file_and_overrides},
      {"defaults", test_defaults},
      {"policies scalar, seed", test_policies_scalar_and_seed},
      {"tree marks and sc_apply_set", test_tree_and_set},
      {"sc_bind_group", test_bind_group_directly},
      {"error: YAML syntax", test_error_yaml_syntax},
      {"error: wrong type", test_error_wrong_type},
      {"error: unknown keys with hints", test_error_unknown_keys},
      {"error: missing workload", test_error_missing_workload},
      {"error: range, unit, dimension, overflow", test_error_values},
      {"error: includes", test_error_includes},
      {"error: empty file", test_error_empty},
      {"error: binary garbage", test_error_binary_garbage},
      {"error: duplicates and structure", test_error_duplicates_and_structure},
      {"error: --set", test_error_sets},
      {NULL, NULL},
  };
  return tu_run_suite("scenario", tests);
}
