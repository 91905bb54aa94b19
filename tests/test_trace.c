/* The trace (sim/trace.h): arrows from each send to its receive and from
 * each trigger store to the NIC's match of it (flow events in their second
 * form: bind_id, flow_out, flow_in on spans), and the filters of `trigsim
 * run` (--trace-policy, --trace-nodes, --trace-window). Times of the GPU-TN
 * ping derived from Table 2 as in test_critpath.c. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

/* One "X" event of the trace, as written (one event per line). */
struct span {
  char process[64], thread[64], name[64];
  char ts[32], dur[32]; /* microseconds, as written */
  char bind[64];        /* "" when no flow */
  bool in, out;
};

/* The text of "KEY":"..." or "KEY":number in LINE into OUT (N bytes). */
static bool field(const char *line, const char *key, char *out, size_t n) {
  char *k = g_strdup_printf("\"%s\":", key);
  const char *p = strstr(line, k);
  size_t klen = strlen(k);
  g_free(k);
  if (!p) return false;
  p += klen;
  bool quoted = *p == '"';
  if (quoted) p++;
  size_t len = quoted ? strcspn(p, "\"") : strcspn(p, ",}");
  if (len >= n) return false;
  memcpy(out, p, len);
  out[len] = '\0';
  return true;
}

/* The spans of trace file PATH, with their process and thread names. */
static GArray *read_spans(const char *path) {
  GArray *spans = g_array_new(FALSE, TRUE, sizeof(struct span));
  char *text = NULL;
  CU_ASSERT_TRUE(g_file_get_contents(path, &text, NULL, NULL));
  if (!text) return spans;
  GHashTable *procs = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  GHashTable *threads = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  char **lines = g_strsplit(text, "\n", -1);
  char pid[16], tid[16], name[64];
  for (char **l = lines; *l; l++) {
    if (!strstr(*l, "\"ph\":\"M\"")) continue;
    const char *args = strstr(*l, "\"args\":");
    if (!field(*l, "pid", pid, sizeof pid) || !args || !field(args, "name", name, sizeof name))
      continue;
    if (strstr(*l, "process_name")) g_hash_table_insert(procs, g_strdup(pid), g_strdup(name));
    else if (field(*l, "tid", tid, sizeof tid))
      g_hash_table_insert(threads, g_strdup_printf("%s/%s", pid, tid), g_strdup(name));
  }
  for (char **l = lines; *l; l++) {
    if (!strstr(*l, "\"ph\":\"X\"")) continue;
    struct span s = {0};
    CU_ASSERT_TRUE(field(*l, "pid", pid, sizeof pid) && field(*l, "tid", tid, sizeof tid) &&
                   field(*l, "name", s.name, sizeof s.name) && field(*l, "ts", s.ts, sizeof s.ts) &&
                   field(*l, "dur", s.dur, sizeof s.dur));
    char *key = g_strdup_printf("%s/%s", pid, tid);
    const char *pn = g_hash_table_lookup(procs, pid), *tn = g_hash_table_lookup(threads, key);
    g_free(key);
    g_strlcpy(s.process, pn ? pn : "?", sizeof s.process);
    g_strlcpy(s.thread, tn ? tn : "?", sizeof s.thread);
    field(*l, "bind_id", s.bind, sizeof s.bind);
    s.in = strstr(*l, "\"flow_in\":true") != NULL;
    s.out = strstr(*l, "\"flow_out\":true") != NULL;
    g_array_append_val(spans, s);
  }
  g_strfreev(lines);
  g_hash_table_destroy(procs);
  g_hash_table_destroy(threads);
  g_free(text);
  return spans;
}

/* `trigsim run SCENARIO ARGS... --trace FILE -q`: its status; the spans in
 * *SPANS (when not NULL). */
static int traced_run(const char *scenario, const char *const *args, GArray **spans) {
  char *dir = g_dir_make_tmp("trigsim-trace-XXXXXX", NULL);
  char *path = g_build_filename(dir, "t.json", NULL);
  const char *argv[32] = {"run", scenario};
  size_t n = 2;
  for (; args && *args; args++) argv[n++] = *args;
  argv[n++] = "--trace";
  argv[n++] = path;
  argv[n++] = "-q";
  argv[n] = NULL;
  char *out = NULL, *err = NULL;
  int status = tu_trigsim(argv, &out, &err);
  if (status) fprintf(stderr, "\n  %s\n", err ? err : "");
  if (spans) *spans = status == 0 ? read_spans(path) : g_array_new(FALSE, TRUE, sizeof(struct span));
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
  g_free(out);
  g_free(err);
  return status;
}

static char *config(const char *paper, const char *file) {
  return g_build_filename(g_getenv("TRIGSIM_CONFIGS"), paper, file, NULL);
}

/* The spans of SPANS that carry a flow, in file order. */
static GPtrArray *flow_spans(GArray *spans) {
  GPtrArray *f = g_ptr_array_new();
  for (guint i = 0; i < spans->len; i++)
    if (*g_array_index(spans, struct span, i).bind) g_ptr_array_add(f, &g_array_index(spans, struct span, i));
  return f;
}

static void expect_span(const struct span *s, const char *process, const char *thread,
                        const char *name, const char *ts, const char *dur, bool in, bool out) {
  if (strcmp(s->name, name) || strcmp(s->ts, ts) || strcmp(s->dur, dur) || strcmp(s->process, process) ||
      strcmp(s->thread, thread) || s->in != in || s->out != out)
    fprintf(stderr, "\n  got %s %s %s ts %s dur %s in %d out %d; want %s %s %s ts %s dur %s\n",
            s->process, s->thread, s->name, s->ts, s->dur, s->in, s->out, process, thread, name, ts, dur);
  CU_ASSERT_STRING_EQUAL(s->process, process);
  CU_ASSERT_STRING_EQUAL(s->thread, thread);
  CU_ASSERT_STRING_EQUAL(s->name, name);
  CU_ASSERT_STRING_EQUAL(s->ts, ts);
  CU_ASSERT_STRING_EQUAL(s->dur, dur);
  CU_ASSERT_EQUAL(s->in, in);
  CU_ASSERT_EQUAL(s->out, out);
}

/* GPU-TN ping, node 0 to node 1 (test_critpath.c derives each time from
 * Table 2): the WG's fence and trigger store leave at 2957090 ps for
 * 200 ns (fence_latency); the store crosses the bus (102 ns) and the NIC
 * matches it at 3259090 for 10 ns (match_latency): an arrow from the
 * store to the match. The match fires the triggered put at 3269090 (a
 * "fire" span of no length), whose DMA read takes 180.25 ns: the first
 * packet leaves at 3449340, its 72 B at 100 Gbps 5.76 ns on the tx track;
 * 300 ns of link, switch and link later (3749340) node 1's NIC receives it
 * for 5.76 ns (its tail, cut-through): an arrow from fire to tx to
 * receive. Five spans with flows, two flows, nothing else. */
static void test_gputn_ping_flows(void) {
  char *sc = config("gputn-sc17", "latency.yaml");
  GArray *spans = NULL;
  CU_ASSERT_EQUAL(traced_run(sc, (const char *[]){"--set", "policies=[gputn]", NULL}, &spans), 0);
  GPtrArray *f = flow_spans(spans);
  CU_ASSERT_EQUAL(f->len, 5);
  if (f->len == 5) {
    const struct span *const *s = (const struct span *const *)f->pdata;
    expect_span(s[0], "gputn/node0", "gpu/cu0.0", "trigger", "2.957090", "0.200000", false, true);
    expect_span(s[1], "gputn/node0", "nic/trigger", "match", "3.259090", "0.010000", true, false);
    expect_span(s[2], "gputn/node0", "nic/trigger", "fire", "3.269090", "0.000000", false, true);
    expect_span(s[3], "gputn/node0", "nic/tx", "tx put", "3.449340", "0.005760", true, true);
    expect_span(s[4], "gputn/node1", "nic/rx", "put received", "3.749340", "0.005760", true, false);
    /* the store's flow, then the message's: two ids, each its own */
    CU_ASSERT_STRING_EQUAL(s[0]->bind, s[1]->bind);
    CU_ASSERT_STRING_EQUAL(s[2]->bind, s[3]->bind);
    CU_ASSERT_STRING_EQUAL(s[3]->bind, s[4]->bind);
    CU_ASSERT_STRING_NOT_EQUAL(s[0]->bind, s[2]->bind);
  }
  g_ptr_array_free(f, TRUE);
  g_array_free(spans, TRUE);
  g_free(sc);
}

/* Well-formed on a 2 x 2 Jacobi (4 ranks with periodic neighbours, 4
 * halos each; grid 32 with 16 x 16 WG tiles: 2 x 2 WGs a rank, each face
 * made by the 2 WGs along it) under hdn (host-sent puts) and gputn
 * (GPU-triggered puts): each flow id has exactly one span it leaves
 * (flow_out alone), any number it passes (both), exactly one it enters
 * (flow_in alone), not starting before the span it came from, both ends in
 * the same policy's run. hdn: 4 ranks x 4 halos = 16 arrows tx -> receive.
 * gputn: the same 16 fire -> tx -> receive, and one trigger -> match arrow
 * per store: each put fires after its face's 2 WGs stored, 16 x 2 = 32. */
static void test_flows_well_formed(void) {
  const char *text = "include: %s\n"
                     "name: j\n"
                     "workload: {kind: jacobi2d, px: 2, py: 2, grid: 32, iterations: 1, pack: fused}\n"
                     "policies: [hdn, gputn]\n"
                     "overrides: {hardware.network.nodes: 4}\n";
  char *hw = config("hw", "gputn-sc17-fitted.yaml");
  char *yaml = g_strdup_printf(text, hw);
  char *sc = tu_temp_file(".yaml", yaml, strlen(yaml));
  GArray *spans = NULL;
  CU_ASSERT_EQUAL(traced_run(sc, NULL, &spans), 0);
  GHashTable *outs = g_hash_table_new(g_str_hash, g_str_equal), *ins = g_hash_table_new(g_str_hash, g_str_equal);
  unsigned hdn_flows = 0, gputn_flows = 0, triggers = 0;
  GPtrArray *f = flow_spans(spans);
  for (guint i = 0; i < f->len; i++) {
    const struct span *s = f->pdata[i];
    CU_ASSERT_TRUE(s->in || s->out);
    if (s->out && !s->in) {
      CU_ASSERT_FALSE(g_hash_table_contains(outs, s->bind)); /* one start */
      g_hash_table_insert(outs, (gpointer)s->bind, (gpointer)s);
      if (g_str_has_prefix(s->process, "hdn/")) hdn_flows++;
      else gputn_flows++;
      if (!strcmp(s->name, "trigger")) triggers++;
    }
    if (s->in && !s->out) {
      CU_ASSERT_FALSE(g_hash_table_contains(ins, s->bind)); /* one end */
      g_hash_table_insert(ins, (gpointer)s->bind, (gpointer)s);
    }
  }
  CU_ASSERT_EQUAL(g_hash_table_size(outs), g_hash_table_size(ins));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, outs);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    const struct span *end = g_hash_table_lookup(ins, k), *start = v;
    CU_ASSERT_PTR_NOT_NULL(end);
    if (end) CU_ASSERT_TRUE(g_ascii_strtod(start->ts, NULL) <= g_ascii_strtod(end->ts, NULL));
    /* the same run (policy) at both ends */
    if (end) CU_ASSERT_EQUAL(strchr(start->process, '/') - start->process, strchr(end->process, '/') - end->process);
    if (end) CU_ASSERT_EQUAL(strncmp(start->process, end->process, (size_t)(strchr(end->process, '/') - end->process)), 0);
  }
  CU_ASSERT_EQUAL(hdn_flows, 16);
  CU_ASSERT_EQUAL(triggers, 32);
  CU_ASSERT_EQUAL(gputn_flows, 16 + 32);
  g_ptr_array_free(f, TRUE);
  g_hash_table_destroy(outs);
  g_hash_table_destroy(ins);
  g_array_free(spans, TRUE);
  g_free(sc);
  g_free(yaml);
  g_free(hw);
}

/* The filters: --trace-policy keeps one policy's processes; --trace-nodes 1
 * keeps node 1's components (no node0, no switch) and the critical path's
 * track; --trace-window keeps the spans that overlap it (the ping's: from
 * 3.4 us to 3.5 us, the DMA read 3269090..3449340 overlaps, the launch
 * 0..1347090 does not). */
static void test_filters(void) {
  char *sc = config("gputn-sc17", "latency.yaml");
  GArray *spans = NULL;
  CU_ASSERT_EQUAL(traced_run(sc, (const char *[]){"--trace-policy", "gds", NULL}, &spans), 0);
  CU_ASSERT_TRUE(spans->len > 0);
  for (guint i = 0; i < spans->len; i++)
    CU_ASSERT_TRUE(g_str_has_prefix(g_array_index(spans, struct span, i).process, "gds/"));
  g_array_free(spans, TRUE);
  CU_ASSERT_EQUAL(traced_run(sc, (const char *[]){"--set", "policies=[gputn]", "--trace-nodes", "1", NULL},
                             &spans),
                  0);
  bool saw_node1 = false;
  for (guint i = 0; i < spans->len; i++) {
    const struct span *s = &g_array_index(spans, struct span, i);
    saw_node1 |= !strcmp(s->process, "gputn/node1");
    CU_ASSERT_TRUE(!strcmp(s->process, "gputn/node1") || !strcmp(s->process, "gputn/critical path"));
  }
  CU_ASSERT_TRUE(saw_node1);
  g_array_free(spans, TRUE);
  CU_ASSERT_EQUAL(traced_run(sc, (const char *[]){"--set", "policies=[gputn]", "--trace-window",
                                                  "3.4us:3.5us", NULL},
                             &spans),
                  0);
  bool saw_dma = false;
  for (guint i = 0; i < spans->len; i++) {
    const struct span *s = &g_array_index(spans, struct span, i);
    double a = g_ascii_strtod(s->ts, NULL), b = a + g_ascii_strtod(s->dur, NULL);
    CU_ASSERT_TRUE(b >= 3.4 && a <= 3.5);
    saw_dma |= !strcmp(s->name, "dma read");
  }
  CU_ASSERT_TRUE(saw_dma);
  g_array_free(spans, TRUE);
  g_free(sc);
}

/* Bad filter options exit 2 with one line naming the option, and leave no
 * file; a filter without --trace is an error too. */
static void test_bad_filters(void) {
  char *sc = config("gputn-sc17", "latency.yaml"), *err = NULL;
  CU_ASSERT_EQUAL(traced_run(sc, (const char *[]){"--trace-policy", "cpufree", NULL}, NULL), 2);
  CU_ASSERT_EQUAL(traced_run(sc, (const char *[]){"--trace-nodes", "1-x", NULL}, NULL), 2);
  CU_ASSERT_EQUAL(traced_run(sc, (const char *[]){"--trace-window", "2us:1us", NULL}, NULL), 2);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "--trace-window", "1us:2us", NULL}, NULL, &err), 2);
  CU_ASSERT_STRING_EQUAL(err, "trigsim: --trace-window: expected --trace FILE with it, got none\n");
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", sc, "--trace", "/tmp/trigsim-trace-unused.json",
                                              "--trace-policy", "cpufree", NULL},
                             NULL, &err),
                  2);
  CU_ASSERT_STRING_EQUAL(err, "trigsim: --trace-policy: expected a policy the scenario runs (cpu, hdn, "
                              "gds, gputn), got cpufree\n");
  CU_ASSERT_FALSE(g_file_test("/tmp/trigsim-trace-unused.json", G_FILE_TEST_EXISTS));
  g_free(err);
  g_free(sc);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"GPU-TN ping: trigger -> match, fire -> tx -> receive, by hand", test_gputn_ping_flows},
      {"flows well-formed on a 2 x 2 Jacobi under hdn and gputn", test_flows_well_formed},
      {"--trace-policy, --trace-nodes, --trace-window", test_filters},
      {"bad filters exit 2", test_bad_filters},
      {NULL, NULL}};
  return tu_run_suite("trace", tests);
}
