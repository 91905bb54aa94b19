/* Tests for sim/param.c: defaults bound by offset, typed set with range
 * checks and their messages, enum/bool/string handling, key suggestions and
 * the printed table. */
#include "param.h"
#include "testutil.h"

#include <glib.h>
#include <string.h>

struct cfg {
  int64_t count;
  double prob;
  bool trace;
  int64_t launch_latency;
  int64_t bw;
  int64_t buf;
  int64_t clock;
  int topo;
  char *name;
  struct par_table launch;
  int64_t header_bytes;
};

#define PAR_CONFIG struct cfg
static const struct par_decl decls[] = {
    PAR(count, PAR_INT, "16", "1", "1024", NULL, "how many"),
    PAR(prob, PAR_FLOAT, "0.5", "0", "1", NULL, "a probability"),
    PAR(trace, PAR_BOOL, "false", NULL, NULL, NULL, "write a trace"),
    PAR(launch_latency, PAR_TIME, "1.5us", "0ps", "1s", NULL, "kernel launch latency"),
    PAR(bw, PAR_BANDWIDTH, "100Gbps", "1bps", NULL, NULL, "link bandwidth"),
    PAR(buf, PAR_SIZE, "8MiB", NULL, "1GiB", NULL, "buffer size"),
    PAR(clock, PAR_FREQ, "1.41GHz", NULL, NULL, NULL, "core clock"),
    PAR(topo, PAR_ENUM, "fat-tree", NULL, NULL, "star|fat-tree|torus", "network shape"),
    PAR(name, PAR_STRING, "gpu0", NULL, NULL, NULL, "label"),
    PAR(launch, PAR_TABLE, "1:3us, 8:5us, 64:12us", "0ps", "1s", NULL, "launch by queue depth"),
    PAR(header_bytes, PAR_SIZE, "64B", "0B", "64KiB", NULL, "bytes per header"),
};
#undef PAR_CONFIG

static const struct par_group group = {
    .name = "test",
    .doc = "a group for the tests",
    .decls = decls,
    .n_decls = PAR_COUNT(decls),
    .config_size = sizeof(struct cfg),
};

static const struct par_decl *find(const char *key) {
  const struct par_decl *d = par_group_find(&group, key);
  CU_ASSERT_PTR_NOT_NULL_FATAL(d);
  return d;
}

/* Sets KEY to TEXT, expecting failure with message WANT; CONFIG unchanged. */
static void expect_reject(struct cfg *c, const char *key, const char *text, const char *want) {
  struct cfg before = *c;
  char *err = NULL;
  CU_ASSERT_FALSE(par_set(find(key), c, text, &err));
  CU_ASSERT_PTR_NOT_NULL_FATAL(err);
  if (strcmp(err, want)) fprintf(stderr, "\n  got  '%s'\n  want '%s'\n", err, want);
  CU_ASSERT_STRING_EQUAL(err, want);
  CU_ASSERT_EQUAL(memcmp(&before, c, sizeof before), 0);
  g_free(err);
}

static void expect_accept(struct cfg *c, const char *key, const char *text) {
  char *err = NULL;
  bool ok = par_set(find(key), c, text, &err);
  if (!ok) fprintf(stderr, "\n  %s=%s: %s\n", key, text, err);
  CU_ASSERT_TRUE(ok);
  CU_ASSERT_PTR_NULL(err);
  g_free(err);
}

static void test_defaults(void) {
  struct cfg c;
  memset(&c, 0xAB, sizeof c); /* defaults must not depend on prior contents */
  par_group_defaults(&group, &c);
  CU_ASSERT_EQUAL(c.count, 16);
  CU_ASSERT_EQUAL(c.prob, 0.5);
  CU_ASSERT_EQUAL(c.trace, false);
  CU_ASSERT_EQUAL(c.launch_latency, 1500000);   /* 1.5 x 10^6 ps */
  CU_ASSERT_EQUAL(c.bw, 100000000000);          /* 100 x 10^9 bps */
  CU_ASSERT_EQUAL(c.buf, 8388608);              /* 8 x 2^20 B */
  CU_ASSERT_EQUAL(c.clock, 1410000000);         /* 1.41 x 10^9 Hz */
  CU_ASSERT_EQUAL(c.topo, 1);                   /* index of fat-tree */
  CU_ASSERT_STRING_EQUAL(c.name, "gpu0");
  par_group_free_config(&group, &c);
  CU_ASSERT_PTR_NULL(c.name);
}

static void test_set_values(void) {
  struct cfg c;
  par_group_defaults(&group, &c);
  expect_accept(&c, "count", "1024");
  CU_ASSERT_EQUAL(c.count, 1024);
  expect_accept(&c, "prob", "1e-1");
  CU_ASSERT_EQUAL(c.prob, 0.1);
  expect_accept(&c, "launch_latency", "0.1ns");
  CU_ASSERT_EQUAL(c.launch_latency, 100);        /* 0.1 x 10^3 ps */
  expect_accept(&c, "bw", "12.5Gbps");
  CU_ASSERT_EQUAL(c.bw, 12500000000);
  expect_accept(&c, "buf", "2KB");
  CU_ASSERT_EQUAL(c.buf, 2000);
  expect_accept(&c, "clock", "500MHz");
  CU_ASSERT_EQUAL(c.clock, 500000000);
  par_group_free_config(&group, &c);
}

static void test_range(void) {
  struct cfg c;
  par_group_defaults(&group, &c);
  /* inclusive bounds */
  expect_accept(&c, "launch_latency", "0ps");
  CU_ASSERT_EQUAL(c.launch_latency, 0);
  expect_accept(&c, "launch_latency", "1s");
  CU_ASSERT_EQUAL(c.launch_latency, 1000000000000);
  expect_accept(&c, "count", "1");
  expect_accept(&c, "buf", "1GiB");
  CU_ASSERT_EQUAL(c.buf, 1073741824);             /* 2^30 */
  expect_reject(&c, "launch_latency", "2s", "expected a time in [0ps, 1s], got 2s");
  expect_reject(&c, "launch_latency", "-1ps", "expected a time in [0ps, 1s], got -1ps");
  expect_reject(&c, "count", "1025", "expected an integer in [1, 1024], got 1025");
  expect_reject(&c, "count", "0", "expected an integer in [1, 1024], got 0");
  expect_reject(&c, "prob", "1.5", "expected a number in [0, 1], got 1.5");
  expect_reject(&c, "bw", "0bps", "expected a bandwidth of at least 1bps, got 0bps");
  expect_reject(&c, "buf", "1.5GiB", "expected a size of at most 1GiB, got 1.5GiB");
  par_group_free_config(&group, &c);
}

static void test_type_errors(void) {
  struct cfg c;
  par_group_defaults(&group, &c);
  expect_reject(&c, "launch_latency", "100Gbps",
                "expected a time such as 1.5us, got 100Gbps (a bandwidth)");
  expect_reject(&c, "bw", "100ns", "expected a bandwidth such as 100Gbps, got 100ns (a time)");
  expect_reject(&c, "count", "2.5", "expected an integer, got 2.5 (not a whole number)");
  expect_reject(&c, "count", "", "expected an integer, got an empty value");
  expect_reject(&c, "prob", "half", "expected a number, got half (not a number)");
  /* A bare number of a quantity with units is an error... */
  expect_reject(&c, "launch_latency", "1",
                "expected a time such as 1.5us, got 1 (a bare number: write its unit, e.g. 1.5us)");
  expect_reject(&c, "buf", "8",
                "expected a size such as 8MiB, got 8 (a bare number: write its unit, e.g. 8MiB)");
  /* ...but 0, and a size whose key names its unit (bytes). */
  expect_accept(&c, "launch_latency", "0");
  CU_ASSERT_EQUAL(c.launch_latency, 0);
  expect_accept(&c, "header_bytes", "128");
  CU_ASSERT_EQUAL(c.header_bytes, 128);
  expect_reject(&c, "header_bytes", "70000", "expected a size in [0B, 64KiB], got 70000");
  par_group_free_config(&group, &c);
}

static void test_bool(void) {
  struct cfg c;
  par_group_defaults(&group, &c);
  expect_accept(&c, "trace", "true");
  CU_ASSERT_TRUE(c.trace);
  expect_accept(&c, "trace", "false");
  CU_ASSERT_FALSE(c.trace);
  expect_reject(&c, "trace", "yes", "expected true or false, got yes");
  expect_reject(&c, "trace", "1", "expected true or false, got 1");
  expect_reject(&c, "trace", "True", "expected true or false, got True");
  par_group_free_config(&group, &c);
}

static void test_enum(void) {
  struct cfg c;
  par_group_defaults(&group, &c);
  expect_accept(&c, "topo", "torus");
  CU_ASSERT_EQUAL(c.topo, 2);
  expect_accept(&c, "topo", "star");
  CU_ASSERT_EQUAL(c.topo, 0);
  expect_reject(&c, "topo", "fattree",
                "expected one of star, fat-tree, torus, got fattree (did you mean fat-tree?)");
  expect_reject(&c, "topo", "mesh", "expected one of star, fat-tree, torus, got mesh");
  char *want = par_expected(find("topo"));
  CU_ASSERT_STRING_EQUAL(want, "one of star, fat-tree, torus");
  g_free(want);
  par_group_free_config(&group, &c);
}

static void test_string(void) {
  struct cfg c;
  par_group_defaults(&group, &c);
  expect_accept(&c, "name", "nic7"); /* the old copy is freed (ASan would see a leak) */
  CU_ASSERT_STRING_EQUAL(c.name, "nic7");
  expect_accept(&c, "name", "");
  CU_ASSERT_STRING_EQUAL(c.name, "");
  par_group_free_config(&group, &c);
  CU_ASSERT_PTR_NULL(c.name);
}

static void test_expected_and_dims(void) {
  const char *keys[] = {"count", "prob", "trace", "launch_latency", "bw", "buf", "clock", "name"};
  const char *want[] = {"an integer", "a number", "true or false", "a time",
                        "a bandwidth", "a size", "a frequency", "a string"};
  for (size_t i = 0; i < G_N_ELEMENTS(keys); i++) {
    char *s = par_expected(find(keys[i]));
    CU_ASSERT_STRING_EQUAL(s, want[i]);
    g_free(s);
  }
  CU_ASSERT_EQUAL(par_type_dim(PAR_TIME), UNIT_TIME);
  CU_ASSERT_EQUAL(par_type_dim(PAR_BANDWIDTH), UNIT_BANDWIDTH);
  CU_ASSERT_EQUAL(par_type_dim(PAR_SIZE), UNIT_SIZE);
  CU_ASSERT_EQUAL(par_type_dim(PAR_FREQ), UNIT_FREQ);
  CU_ASSERT_EQUAL(par_type_dim(PAR_INT), UNIT_NONE);
  CU_ASSERT_PTR_NULL(par_group_find(&group, "nope"));
}

static void test_suggest(void) {
  /* "lanch_latency": one insertion from "launch_latency"; limit max(2, 13/3=4) */
  CU_ASSERT_STRING_EQUAL(par_group_suggest(&group, "lanch_latency"), "launch_latency");
  CU_ASSERT_STRING_EQUAL(par_group_suggest(&group, "cont"), "count");
  /* "zzzz": nearest keys ("bw", "buf") are 4 edits away; limit max(2, 4/3) = 2 */
  CU_ASSERT_PTR_NULL(par_group_suggest(&group, "zzzz"));
  CU_ASSERT_PTR_NULL(par_group_suggest(&group, "count")); /* exact: no suggestion */
  const char *cands[] = {"abcd", "abce", "xyz"};
  /* "abcf" is 1 from both "abcd" and "abce": the first wins */
  CU_ASSERT_STRING_EQUAL(par_suggest("abcf", cands, 3), "abcd");
  /* "xy" is 4 edits from "abcd" and "abce" but 1 from "xyz" */
  CU_ASSERT_STRING_EQUAL(par_suggest("xy", cands, 3), "xyz");
  /* limit grows with length: 12 chars -> 4 edits allowed, 5 are not */
  const char *longc[] = {"abcdefghijkl"};
  CU_ASSERT_STRING_EQUAL(par_suggest("abcdefghWXYZ", longc, 1), "abcdefghijkl"); /* 4 */
  CU_ASSERT_PTR_NULL(par_suggest("abcdefgVWXYZ", longc, 1));                     /* 5 */
  CU_ASSERT_PTR_NULL(par_suggest("x", cands, 0));
}

static void test_print(void) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  par_group_print(&group, f);
  fclose(f);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "test: a group for the tests\n"));
  /* key column is as wide as "launch_latency" (14), type as "bandwidth" (9),
   * default as "1:3us, 8:5us, 64:12us" (21), range as
   * "star|fat-tree|torus" (19); columns are separated by two spaces */
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "  launch_latency  time       1.5us                  [0ps, 1s]            kernel launch latency\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "  count           int        16                     [1, 1024]            how many\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "  trace           bool       false                  -                    write a trace\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "  bw              bandwidth  100Gbps                >= 1bps              link bandwidth\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "  topo            enum       fat-tree               star|fat-tree|torus  network shape\n"));
  if (!strstr(text, "  count           int")) fputs(text, stderr);
  free(text);
}

static void test_table(void) {
  struct cfg c;
  par_group_defaults(&group, &c);
  CU_ASSERT_EQUAL(c.launch.n, 3);
  /* Clamped below the first point and above the last. */
  CU_ASSERT_EQUAL(par_table_eval(&c.launch, 0), 3 * SIM_US);
  CU_ASSERT_EQUAL(par_table_eval(&c.launch, 1), 3 * SIM_US);
  CU_ASSERT_EQUAL(par_table_eval(&c.launch, 100), 12 * SIM_US);
  /* Depth 4: 3us + (4-1)/(8-1) * 2us = 3.857142857us -> 3857143 ps. */
  CU_ASSERT_EQUAL(par_table_eval(&c.launch, 4), 3857143);
  /* Depth 36: 5us + (36-8)/(64-8) * 7us = 8.5us. */
  CU_ASSERT_EQUAL(par_table_eval(&c.launch, 36), 8500 * SIM_NS);
  expect_accept(&c, "launch", " 2:1us ,4:2us");
  CU_ASSERT_EQUAL(c.launch.n, 2);
  CU_ASSERT_EQUAL(par_table_eval(&c.launch, 3), 1500 * SIM_NS);
  expect_accept(&c, "launch", "");
  CU_ASSERT_EQUAL(c.launch.n, 0);
  const char *want = "expected a table of N:time points such as 1:3us, 8:5us, got ";
  char *m = g_strdup_printf("%s'1:3us, 1:4us' (1 does not rise above 1)", want);
  expect_reject(&c, "launch", "1:3us, 1:4us", m);
  g_free(m);
  m = g_strdup_printf("%s'1:3us, 2' ('2' has no ':')", want);
  expect_reject(&c, "launch", "1:3us, 2", m);
  g_free(m);
  m = g_strdup_printf("%s'1:2s' (2s is out of range)", want);
  expect_reject(&c, "launch", "1:2s", m);
  g_free(m);
  m = g_strdup_printf("%s'1:3Gbps' (expected a time such as 1.5us, got 3Gbps (a bandwidth))", want);
  expect_reject(&c, "launch", "1:3Gbps", m);
  g_free(m);
  par_group_free_config(&group, &c);
}

int main(void) {
  const struct tu_test tests[] = {
      {"defaults", test_defaults},
      {"set values", test_set_values},
      {"range", test_range},
      {"type errors", test_type_errors},
      {"bool", test_bool},
      {"enum", test_enum},
      {"string", test_string},
      {"expected phrases", test_expected_and_dims},
      {"suggest", test_suggest},
      {"print", test_print},
      {"table", test_table},
      {NULL, NULL},
  };
  return tu_run_suite("param", tests);
}
