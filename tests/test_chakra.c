/* Chakra execution traces (workloads/inputs/chakra.c): programs written and
 * read back equal, and equal in every policy's results; a hand-written
 * 2-rank trace timed by hand; compute nodes by duration or by work through
 * the GPU model; a node waiting for two others; process groups
 * mapped to their ranks; every malformed input refused with its file, rank,
 * node and what was expected; traces of Chakra's earlier schema refused. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "chakra.h"
#include "chakra.pb-c.h"
#include "checks.h"
#include "coll.h"
#include "lower.h"
#include "noderig.h"
#include "points.h"
#include "report.h"
#include "scenario.h"
#include "source.h"
#include "testutil.h"
#include "workload.h"

/* Removes DIR and what it holds, and frees its name. */
static void rm_dir(char *dir) {
  char *cmd = g_strdup_printf("rm -rf '%s'", dir);
  CU_ASSERT_EQUAL(system(cmd), 0);
  g_free(cmd);
  g_free(dir);
}

/* ---- hand-written traces ---- */

struct tattr {
  const char *name;
  int kind; /* 0 int64, 1 int32, 2 uint64, 3 bool, 4 string, 5 a list of one uint64 */
  int64_t i;
  const char *s;
};

struct tnode {
  const char *name; /* NULL: "node" */
  uint64_t id;
  int type;
  uint64_t dur_us;
  uint64_t data[4], ctrl[4];
  int n_data, n_ctrl;
  struct tattr a[8];
  int n_a;
  const char *inputs; /* inputs.values */
};

static void put(GByteArray *out, const ProtobufCMessage *m) {
  size_t len = protobuf_c_message_get_packed_size(m);
  for (uint64_t v = len;; v >>= 7) {
    uint8_t b = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
    g_byte_array_append(out, &b, 1);
    if (v <= 0x7f) break;
  }
  guint at = out->len;
  g_byte_array_set_size(out, at + (guint)len);
  protobuf_c_message_pack(m, out->data + at);
}

/* The file of NODES after a GlobalMetadata of VERSION, its last CUT bytes
 * left out, into DIR/NAME.RANK.et. */
static void write_trace(const char *dir, const char *name, uint32_t rank, const char *version,
                        const struct tnode *nodes, size_t n, size_t cut) {
  GByteArray *out = g_byte_array_new();
  ChakraEt__GlobalMetadata m;
  chakra_et__global_metadata__init(&m);
  m.version = (char *)version;
  put(out, &m.base);
  for (size_t i = 0; i < n; i++) {
    const struct tnode *t = &nodes[i];
    ChakraEt__Node nd;
    chakra_et__node__init(&nd);
    ChakraEt__AttributeProto a[8], *ap[8];
    ChakraEt__Uint64List lists[8];
    uint64_t one[8];
    ChakraEt__IOInfo in;
    nd.id = t->id;
    nd.name = (char *)(t->name ? t->name : "node");
    nd.type = t->type;
    nd.duration_micros = t->dur_us;
    nd.n_data_deps = (size_t)t->n_data;
    nd.data_deps = (uint64_t *)t->data;
    nd.n_ctrl_deps = (size_t)t->n_ctrl;
    nd.ctrl_deps = (uint64_t *)t->ctrl;
    for (int k = 0; k < t->n_a; k++) {
      chakra_et__attribute_proto__init(&a[k]);
      a[k].name = (char *)t->a[k].name;
      switch (t->a[k].kind) {
      case 0: a[k].value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_INT64_VAL, a[k].int64_val = t->a[k].i; break;
      case 1: a[k].value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_INT32_VAL, a[k].int32_val = (int32_t)t->a[k].i; break;
      case 2: a[k].value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_UINT64_VAL, a[k].uint64_val = (uint64_t)t->a[k].i; break;
      case 3: a[k].value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_BOOL_VAL, a[k].bool_val = t->a[k].i != 0; break;
      case 5:
        chakra_et__uint64_list__init(&lists[k]);
        one[k] = (uint64_t)t->a[k].i;
        lists[k].n_values = 1, lists[k].values = &one[k];
        a[k].value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_UINT64_LIST, a[k].uint64_list = &lists[k];
        break;
      default: a[k].value_case = CHAKRA_ET__ATTRIBUTE_PROTO__VALUE_STRING_VAL, a[k].string_val = (char *)t->a[k].s;
      }
      ap[k] = &a[k];
    }
    nd.n_attr = (size_t)t->n_a;
    nd.attr = ap;
    if (t->inputs) {
      chakra_et__ioinfo__init(&in);
      in.values = (char *)t->inputs;
      nd.inputs = &in;
    }
    put(out, &nd.base);
  }
  char *path = g_strdup_printf("%s/%s.%u.et", dir, name, rank);
  CU_ASSERT_TRUE(g_file_set_contents(path, (const char *)out->data, (gssize)(out->len - cut), NULL));
  g_free(path);
  g_byte_array_free(out, TRUE);
}

#define COMP 4
#define SEND 5
#define RECV 6
#define COLL 7
#define A_I64(n, v) {n, 0, v, NULL}
#define A_I32(n, v) {n, 1, v, NULL}
#define A_STR(n, v) {n, 4, 0, v}

/* The machine of test_coll.c: host send and receive O = 1 us each, L =
 * 1 us through the switch, G = 1 ns a byte, the bus's DMA and memory
 * write 0.08 ps a byte each, a reduction 1 ns a byte reduced. */
#define O 1000000
#define L 1000000
#define G 1000
#define BUS2(s) ((s) * 16 / 100)
#define RED(s) ((s) * 1000)
#define FLY(s) (L + (s) * G + BUS2(s))

static void machine(struct hw *h, int64_t nodes) { hw_loggp(h, nodes); }

static const struct chakra_opts opts_default = {.compute = CHAKRA_COMPUTE_AUTO, .wgs = 1, .dur_wgs = 1};

/* DIR/NAME read back with options O (NULL: *ERR set). */
static struct wl_program *read_opts(const char *dir, const char *name, uint32_t n,
                                    GHashTable *groups, const struct chakra_opts *o, char **err) {
  char *prefix = g_strdup_printf("%s/%s", dir, name);
  struct wl_program *p = wl_chakra_read(prefix, n, 64, o, groups, err);
  g_free(prefix);
  return p;
}

/* DIR/NAME read back (NULL: *ERR set). */
static struct wl_program *read_back(const char *dir, const char *name, uint32_t n,
                                    GHashTable *groups, char **err) {
  return read_opts(dir, name, n, groups, &opts_default, err);
}

/* P's time under POLICY on the machine (-1 when it fails). */
static sim_time run_time(struct wl_program *p, const char *policy) {
  struct hw h;
  machine(&h, MAX(p->n_ranks, 2));
  struct sim_result r;
  sim_result_init(&r, policy);
  struct wl_ctx ctx = {.seed = 1};
  char *err = NULL;
  sim_time t = pol_run(p, policy, &h.cfg, &ctx, &r, &err) ? r.total_ps : -1;
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  sim_result_clear(&r);
  return t;
}

static void test_two_ranks_by_hand(void) {
  /* Rank 0: a compute of 10 us (node 1), an allreduce of 800 B (node 2,
   * after 1), a send of 1000 B to rank 1 with tag 5 (node 3, after 2).
   * Rank 1: a compute of 20 us, the allreduce, the receive. Under cpu
   * (one host thread, the MPI library: recursive doubling, 800 B <= 2 KiB:
   * one exchange, then the reduction):
   * - rank 0 computes to 10 us, sends (O) to 11 us; its data reaches rank 1
   *   at 11 + FLY(800) = 12.800128 us, long before rank 1 looks;
   * - rank 1 computes to 20 us, sends (O) to 21, receives (O) to 22,
   *   reduces 800 B to 22.8 us, and posts its receive of the send;
   * - rank 1's data reaches rank 0 at 21 + FLY(800) = 22.800128 us; rank 0
   *   receives (O) to 23.800128, reduces to 24.600128, sends 1000 B (O) to
   *   25.600128 us, which reaches rank 1 at 25.600128 + FLY(1000) =
   *   27.60028 us;
   * - rank 1 receives it (O): 28.60028 us, the run's end. */
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL);
  struct tnode r0[] = {
      {.id = 1, .type = COMP, .dur_us = 10},
      {.id = 2, .type = COLL, .data = {1}, .n_data = 1, .a = {A_I64("comm_type", 0), A_I64("comm_size", 800)}, .n_a = 2},
      {.id = 3, .type = SEND, .data = {2}, .n_data = 1,
       .a = {A_I32("comm_src", 0), A_I32("comm_dst", 1), A_I64("comm_size", 1000), A_I32("comm_tag", 5)}, .n_a = 4}};
  struct tnode r1[] = {
      {.id = 1, .type = COMP, .dur_us = 20},
      {.id = 2, .type = COLL, .data = {1}, .n_data = 1, .a = {A_I64("comm_type", 0), A_I64("comm_size", 800)}, .n_a = 2},
      {.id = 3, .type = RECV, .data = {2}, .n_data = 1,
       .a = {A_I32("comm_src", 0), A_I32("comm_dst", 1), A_I64("comm_size", 1000), A_I32("comm_tag", 5)}, .n_a = 4}};
  write_trace(dir, "step", 0, "1.0.0", r0, 3, 0);
  write_trace(dir, "step", 1, "1.0.0", r1, 3, 0);
  char *err = NULL;
  struct wl_program *p = read_back(dir, "step", 0, NULL, &err); /* 0: count the files */
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->n_ranks, 2);
  CU_ASSERT_EQUAL(p->ranks[0].ops[0].time_ps, 10 * SIM_US);
  CU_ASSERT_EQUAL(p->ranks[0].ops[1].kind, WL_COLL);
  CU_ASSERT_EQUAL(p->ranks[1].ops[2].kind, WL_RECV);
  CU_ASSERT_EQUAL(p->ranks[1].ops[2].tag, 5);
  EXPECT_TIME(run_time(p, "cpu"), 21 * SIM_US + FLY(800) + O + RED(800) + O + FLY(1000) + O);
  EXPECT_TIME(run_time(p, "cpu"), 28600288);
  wl_program_free(p);
  g_free(err);
  rm_dir(dir);
}

/* The run's time under hdn of a 1-rank trace DIR/NAME read with compute
 * mode MODE over 4 WGs. */
static sim_time compute_run(const char *dir, const char *name, uint8_t mode) {
  char *err = NULL;
  const struct chakra_opts o = {.compute = mode, .wgs = 4, .dur_wgs = 4};
  struct wl_program *p = read_opts(dir, name, 1, NULL, &o, &err);
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  if (!p) return -1;
  sim_time t = run_time(p, "hdn");
  wl_program_free(p);
  return t;
}

static void test_compute_modes(void) {
  /* One GPU compute node carrying both a recorded duration (5 us) and
   * its work (num_ops 128000 flops, tensor_size 4096 B), read over 4 WGs.
   * - duration: each of the 4 WGs lasts 5 us, no kernel of work;
   * - work: a kernel of 128000 / 4 = 32000 flops and 4096 / 4 = 1024 B a
   *   WG through the GPU model (defaults: 24 CUs x 4 WGs, 128 flops a CU
   *   cycle at 1 GHz, 1092 Gbps): the flops take 32000 x 4 / 128 = 1000 ns,
   *   the bytes 1024 x 8 x 96 / 1092 Gbps = 720.2 ns, so 1000 ns a WG;
   * - auto: the duration where it is not 0, else the work.
   * Under hdn on test_coll's machine (no launch submit, no bus latency,
   * the host sees the end at once): launch 1.5 us, the WGs side by side,
   * teardown 1.5 us: 3 us + a WG's time, 8 us recorded, 4 us as work. */
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL);
  const struct tnode both = {.id = 1, .type = COMP, .dur_us = 5,
                             .a = {A_I64("num_ops", 128000), A_I64("tensor_size", 4096)}, .n_a = 2};
  struct tnode none = both;
  none.dur_us = 0;
  write_trace(dir, "both", 0, "", &both, 1, 0);
  write_trace(dir, "work", 0, "", &none, 1, 0);
  char *err = NULL;
  const struct chakra_opts o = {.compute = CHAKRA_COMPUTE_WORK, .wgs = 4, .dur_wgs = 4};
  struct wl_program *p = read_opts(dir, "both", 1, NULL, &o, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  const struct wl_op *op = &p->ranks[0].ops[0];
  CU_ASSERT_EQUAL(op->n_wgs, 4);
  CU_ASSERT_EQUAL(op->time_ps, 0);
  CU_ASSERT_EQUAL(wl_kernel_of(p, op)->flops_per_wg, 32000);
  CU_ASSERT_EQUAL(wl_kernel_of(p, op)->bytes_per_wg, 1024);
  wl_program_free(p);
  EXPECT_TIME(compute_run(dir, "both", CHAKRA_COMPUTE_DURATION), 3 * SIM_US + 5 * SIM_US);
  EXPECT_TIME(compute_run(dir, "both", CHAKRA_COMPUTE_AUTO), 3 * SIM_US + 5 * SIM_US);
  EXPECT_TIME(compute_run(dir, "both", CHAKRA_COMPUTE_WORK), 3 * SIM_US + 1000 * SIM_NS);
  EXPECT_TIME(compute_run(dir, "work", CHAKRA_COMPUTE_AUTO), 3 * SIM_US + 1000 * SIM_NS);
  /* duration with none recorded: a kernel of no work, launch and teardown. */
  EXPECT_TIME(compute_run(dir, "work", CHAKRA_COMPUTE_DURATION), 3 * SIM_US);
  rm_dir(dir);
}

static void test_two_dependencies(void) {
  /* Rank 0: node 1 computes 5 us; node 2 receives 100 B from rank 1;
   * node 3 (1 us) waits for both, one through ctrl_deps and one through
   * data_deps. Rank 1 computes 30 us, then sends. The receive is the
   * later: its data arrives at 30 + O + FLY(100) = 32.100016 us, the
   * receive (O) ends at 33.100016, node 3 at 34.100016 us. With either
   * kind of dependency on either node, the same: both count. */
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL);
  struct tnode r1[] = {
      {.id = 1, .type = COMP, .dur_us = 30},
      {.id = 2, .type = SEND, .data = {1}, .n_data = 1,
       .a = {A_I32("comm_dst", 0), A_I64("comm_size", 100)}, .n_a = 2}};
  for (int swap = 0; swap < 2; swap++) {
    struct tnode r0[] = {
        {.id = 1, .type = COMP, .dur_us = 5},
        {.id = 2, .type = RECV, .a = {A_I32("comm_src", 1), A_I64("comm_size", 100)}, .n_a = 2},
        {.id = 3, .type = COMP, .dur_us = 1, .ctrl = {swap ? 2 : 1}, .n_ctrl = 1,
         .data = {swap ? 1 : 2}, .n_data = 1}};
    write_trace(dir, "deps", 0, "", r0, 3, 0);
    write_trace(dir, "deps", 1, "", r1, 2, 0);
    char *err = NULL;
    struct wl_program *p = read_back(dir, "deps", 2, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->ranks[0].ops[2].n_deps, 2);
    EXPECT_TIME(run_time(p, "cpu"), 30 * SIM_US + O + FLY(100) + O + 1 * SIM_US);
    wl_program_free(p);
    g_free(err);
  }
  /* A node of no op passes on what it waits for: rank 0's node 3 waits
   * for a metadata node that waits for the receive. */
  struct tnode r0[] = {
      {.id = 1, .type = COMP, .dur_us = 5},
      {.id = 2, .type = RECV, .a = {A_I32("comm_src", 1), A_I64("comm_size", 100)}, .n_a = 2},
      {.id = 4, .type = 1, .data = {2}, .n_data = 1},
      {.id = 3, .type = COMP, .dur_us = 1, .data = {1, 4}, .n_data = 2}};
  write_trace(dir, "deps", 0, "", r0, 4, 0);
  char *err = NULL;
  struct wl_program *p = read_back(dir, "deps", 2, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->ranks[0].n_ops, 3);
  EXPECT_TIME(run_time(p, "cpu"), 30 * SIM_US + O + FLY(100) + O + 1 * SIM_US);
  wl_program_free(p);
  g_free(err);
  rm_dir(dir);
}

static bool says(const char *err, const char *const *want);

static void test_data_deps_only(void) {
  /* workload.deps: data reads data_deps alone (Chakra's et_feeder), for
   * traces whose ctrl_deps name a node's caller: there a node may name
   * itself or a node the file lacks. Rank 0: node 1 computes 5 us, node 2
   * receives 100 B from rank 1, node 3 (1 us) has data_deps {1} and
   * ctrl_deps {2, 3, 99}; rank 1 computes 30 us and sends.
   * - both (the default): refused, node 3 naming itself;
   * - data: node 3 waits for node 1 only and ends at 6 us; the receive
   *   ends the run at 30 + O + FLY(100) + O = 33.100016 us (1 us earlier
   *   than node 3 waiting for it, test_two_dependencies). */
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL);
  struct tnode r0[] = {{.id = 1, .type = COMP, .dur_us = 5},
                       {.id = 2, .type = RECV, .a = {A_I32("comm_src", 1), A_I64("comm_size", 100)}, .n_a = 2},
                       {.id = 3, .type = COMP, .dur_us = 1, .ctrl = {2, 3, 99}, .n_ctrl = 3,
                        .data = {1}, .n_data = 1}};
  struct tnode r1[] = {{.id = 1, .type = COMP, .dur_us = 30},
                       {.id = 2, .type = SEND, .data = {1}, .n_data = 1,
                        .a = {A_I32("comm_dst", 0), A_I64("comm_size", 100)}, .n_a = 2}};
  write_trace(dir, "caller", 0, "", r0, 3, 0);
  write_trace(dir, "caller", 1, "", r1, 2, 0);
  char *err = NULL;
  struct wl_program *p = read_back(dir, "caller", 2, NULL, &err);
  CU_ASSERT_PTR_NULL(p);
  CU_ASSERT_TRUE(says(err, (const char *[]){"caller.0.et: rank 0 node 3", "on other nodes, got itself", NULL}));
  g_free(err);
  err = NULL;
  const struct chakra_opts data = {.compute = CHAKRA_COMPUTE_AUTO, .wgs = 1, .dur_wgs = 1, .data_only = true};
  p = read_opts(dir, "caller", 2, NULL, &data, &err);
  if (err) fprintf(stderr, "%s\n", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->ranks[0].ops[2].n_deps, 1);
  EXPECT_TIME(run_time(p, "cpu"), 30 * SIM_US + O + FLY(100) + O);
  wl_program_free(p);
  /* The scenario key, streamed: the same time. */
  char *yaml = g_strdup_printf("workload: {kind: chakra, files: %s/caller, deps: data}\n"
                               "hardware: {network: {nodes: 2}}\npolicies: [cpu]\n", dir);
  char *path = tu_temp_file(".yaml", yaml, strlen(yaml));
  struct scenario *sc = scenario_load(path, NULL, 0, &wl_catalog, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
  struct wl_ctx ctx = wl_ctx_of(sc, 0);
  p = wl_type_of(sc)->program(&ctx, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->ranks[0].ops[2].n_deps, 1);
  wl_program_free(p);
  scenario_free(sc);
  g_unlink(path);
  g_free(path);
  g_free(yaml);
  g_free(err);
  rm_dir(dir);
}

/* Whether any message of rank R of Q goes to or comes from a rank outside
 * OK (N of them). */
static bool talks_outside(const struct wl_program *q, uint32_t r, const uint32_t *ok, size_t n) {
  for (size_t i = 0; i < q->ranks[r].n_ops; i++) {
    const struct wl_op *o = &q->ranks[r].ops[i];
    if (o->kind != WL_SEND && o->kind != WL_RECV) continue;
    bool in = false;
    for (size_t k = 0; k < n; k++) in |= o->peer == ok[k];
    if (!in) return true;
  }
  return false;
}

static void test_process_groups(void) {
  /* 4 ranks. Process group "1" = {1, 3} comes from PyTorch's
   * process_group:init metadata node in each file (as Chakra's converter
   * writes it, the JSON in ['...']); group "5" = {0, 2} from
   * workload.comm_groups (ASTRA-sim's JSON file). Ranks 1 and 3 allreduce
   * 800 B in group 1, ranks 0 and 2 in group 5; then every rank in the
   * default group ("0", every rank). Written out under mpi, the group
   * allreduces exchange only inside their group: recursive doubling on 2
   * ranks, rank 1 with 3, rank 0 with 2. */
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL);
  const char *pgs = "['[{\"pg_name\": \"0\", \"ranks\": []}, {\"pg_name\": \"1\", \"ranks\": [1, 3]}]']";
  for (uint32_t r = 0; r < 4; r++) {
    bool odd = r % 2;
    struct tnode nodes[] = {
        {.name = "## process_group:init ##", .id = 10, .type = 1, .inputs = pgs},
        {.id = 11, .type = COLL, .a = {A_I64("comm_type", 0), A_I64("comm_size", 800),
                                        A_STR("pg_name", odd ? "1" : "5")}, .n_a = 3},
        {.id = 12, .type = COLL, .data = {11}, .n_data = 1,
         .a = {A_I64("comm_type", 0), A_I64("comm_size", 800), A_STR("pg_name", "0")}, .n_a = 3}};
    write_trace(dir, "pg", r, "1.0.0", nodes, 3, 0);
  }
  char *gpath = g_strdup_printf("%s/groups.json", dir);
  CU_ASSERT_TRUE(g_file_set_contents(gpath, "{\"5\": [0, 2], \"7\": [1, 2, 3], \"9\": [0, 7]}",
                                     -1, NULL));
  char *err = NULL;
  GHashTable *groups = chakra_groups_load(gpath, 8, &err); /* ranks below the nodes, 8 */
  CU_ASSERT_PTR_NOT_NULL_FATAL(groups);
  struct wl_program *p = read_back(dir, "pg", 4, groups, &err);
  if (err) fprintf(stderr, "%s\n", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(wl_groups(p), 2);
  const struct wl_op *c1 = &p->ranks[1].ops[0], *c0 = &p->ranks[0].ops[0];
  CU_ASSERT_EQUAL_FATAL(c1->kind, WL_COLL);
  const struct wl_group *g1 = wl_group_get(p, wl_call_of(p, c1)->group);
  const struct wl_group *g0 = wl_group_get(p, wl_call_of(p, c0)->group);
  CU_ASSERT_EQUAL(g1->n, 2);
  CU_ASSERT_EQUAL(g1->ranks[0], 1);
  CU_ASSERT_EQUAL(g1->ranks[1], 3);
  CU_ASSERT_EQUAL(g0->ranks[0], 0);
  CU_ASSERT_EQUAL(g0->ranks[1], 2);
  CU_ASSERT_EQUAL(wl_call_of(p, &p->ranks[3].ops[1])->group, 0); /* the default group: every rank */
  /* Groups that share no rank may share tags; within a rank, its calls' tags differ. */
  CU_ASSERT_NOT_EQUAL(p->ranks[1].ops[0].tag, p->ranks[1].ops[1].tag);
  struct wl_program *q = wl_expand_colls(p, WL_LIB_MPI, WL_LIB_OPTS(1, 1));
  const uint32_t odd[] = {1, 3}, even[] = {0, 2};
  /* The first call's ops come first on each rank: 3 of them (send,
   * receive, reduce), all inside the group. */
  struct wl_program *first = wl_program_new(4);
  for (uint32_t r = 0; r < 4; r++) {
    for (size_t i = 0; i < 3; i++) wl_push_op(first, r, &q->ranks[r].ops[i]);
    CU_ASSERT_FALSE(talks_outside(first, r, r % 2 ? odd : even, 2));
  }
  CU_ASSERT_EQUAL(q->ranks[1].ops[0].peer, 3);
  CU_ASSERT_EQUAL(q->ranks[2].ops[0].peer, 0);
  wl_program_free(first);
  char *why = NULL;
  CU_ASSERT_TRUE(wl_program_check(q, &why));
  g_free(why);
  wl_program_free(q);
  /* Timed: the group's exchange on 2 ranks, MSG(800) + RED(800) (O + FLY
   * + O + 800 ns), then the 4-rank allreduce, 2 x (MSG(800) + RED(800))
   * (test_coll's recursive doubling): 3 x 4600.128 ns. */
  EXPECT_TIME(run_time(p, "cpu"), 3 * (O + FLY(800) + O + RED(800)));
  wl_program_free(p);
  /* A group of ranks the trace does not have (9: rank 7 of 4) is refused
   * where it is used. */
  for (uint32_t r = 0; r < 4; r++) {
    struct tnode nodes[] = {{.id = 11, .type = COLL, .a = {A_I64("comm_type", 0), A_I64("comm_size", 8),
                                                           A_STR("pg_name", "9")}, .n_a = 3}};
    write_trace(dir, "pg9", r, "", nodes, r == 0 ? 1 : 0, 0);
  }
  p = read_back(dir, "pg9", 4, groups, &err);
  CU_ASSERT_PTR_NULL(p);
  CU_ASSERT_TRUE(says(err, (const char *[]){"pg9.0.et: rank 0 node 11", "process group 9 to hold ranks below 4",
                                            "got rank 7", NULL}));
  g_hash_table_destroy(groups);
  g_free(gpath);
  g_free(err);
  rm_dir(dir);
}

/* The error reading DIR/NAME (N ranks), or NULL when it reads. */
static char *read_error(const char *dir, const char *name, uint32_t n) {
  char *err = NULL;
  struct wl_program *p = read_back(dir, name, n, NULL, &err);
  wl_program_free(p);
  if (!err) return NULL;
  return err;
}

/* Whether ERR holds every string of WANT (NULL-terminated). */
static bool says(const char *err, const char *const *want) {
  if (!err) return false;
  for (size_t i = 0; want[i]; i++)
    if (!strstr(err, want[i])) {
      fprintf(stderr, "missing \"%s\" in: %s\n", want[i], err);
      return false;
    }
  return true;
}

static void test_malformed(void) {
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL);
  struct tnode good0[] = {
      {.id = 1, .type = COMP, .dur_us = 1},
      {.id = 2, .type = SEND, .data = {1}, .n_data = 1, .a = {A_I32("comm_dst", 1), A_I64("comm_size", 64)}, .n_a = 2}};
  struct tnode good1[] = {
      {.id = 7, .type = RECV, .a = {A_I32("comm_src", 0), A_I64("comm_size", 64)}, .n_a = 2}};
  write_trace(dir, "ok", 0, "", good0, 2, 0);
  write_trace(dir, "ok", 1, "", good1, 1, 0);
  char *err = read_error(dir, "ok", 2);
  CU_ASSERT_PTR_NULL(err);
  g_free(err);

  /* A truncated message: the last 3 bytes of rank 0's file cut. */
  write_trace(dir, "cut", 0, "", good0, 2, 3);
  write_trace(dir, "cut", 1, "", good1, 1, 0);
  err = read_error(dir, "cut", 2);
  CU_ASSERT_TRUE(says(err, (const char *[]){"cut.0.et: rank 0", "after node 1", "expected a message of",
                                            "the file is truncated", NULL}));
  g_free(err);

  /* An unknown node type. */
  struct tnode bad_type[] = {{.id = 1, .type = COMP, .dur_us = 1}, {.id = 2, .type = 42}};
  write_trace(dir, "type", 0, "", bad_type, 2, 0);
  err = read_error(dir, "type", 1);
  CU_ASSERT_TRUE(says(err, (const char *[]){"type.0.et: rank 0 node 2", "expected a node type of "
                                            "Chakra's NodeType", "got 42", NULL}));
  g_free(err);

  /* A dependency on a node the file does not have. */
  struct tnode missing[] = {{.id = 1, .type = COMP, .dur_us = 1, .data = {9}, .n_data = 1}};
  write_trace(dir, "dep", 0, "", missing, 1, 0);
  err = read_error(dir, "dep", 1);
  CU_ASSERT_TRUE(says(err, (const char *[]){"dep.0.et: rank 0 node 1", "to name nodes of this file",
                                            "got 9", NULL}));
  g_free(err);

  /* A cycle. */
  struct tnode cycle[] = {{.id = 1, .type = COMP, .data = {2}, .n_data = 1},
                          {.id = 2, .type = COMP, .ctrl = {1}, .n_ctrl = 1}};
  write_trace(dir, "cyc", 0, "", cycle, 2, 0);
  err = read_error(dir, "cyc", 1);
  CU_ASSERT_TRUE(says(err, (const char *[]){"rank 0 node 1", "without a cycle", NULL}));
  g_free(err);

  /* A collective the group's ranks disagree on: rank 1 calls 1600 B. */
  for (uint32_t r = 0; r < 2; r++) {
    struct tnode c[] = {{.id = 3, .type = COLL, .a = {A_I64("comm_type", 0), A_I64("comm_size", r ? 1600 : 800)}, .n_a = 2}};
    write_trace(dir, "coll", r, "", c, 1, 0);
  }
  err = read_error(dir, "coll", 2);
  CU_ASSERT_TRUE(says(err, (const char *[]){"coll.1.et: rank 1 node 3", "expected collective 1 of every rank",
                                            "ALL_REDUCE of 800 B", "as rank 0 calls it (node 3)",
                                            "got ALL_REDUCE of 1600 B", NULL}));
  g_free(err);
  /* ... or on the ranks of a process group: rank 1 says "1" is {0, 1},
   * rank 0 says {0, 1, 2}. */
  for (uint32_t r = 0; r < 3; r++) {
    const char *pg = r == 1 ? "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]']"
                            : "['[{\"pg_name\": \"1\", \"ranks\": [0, 1, 2]}]']";
    struct tnode c[] = {{.id = 1, .type = 1, .inputs = pg},
                        {.id = 3, .type = COLL, .a = {A_I64("comm_type", 0), A_I64("comm_size", 800), A_STR("pg_name", "1")}, .n_a = 3}};
    write_trace(dir, "pgs", r, "", c, 2, 0);
  }
  err = read_error(dir, "pgs", 3);
  CU_ASSERT_TRUE(says(err, (const char *[]){"pgs.1.et: rank 1 node 3", "process group 1", NULL}));
  g_free(err);
  /* A rank that calls fewer of them. */
  for (uint32_t r = 0; r < 2; r++) {
    struct tnode c[] = {{.id = 3, .type = COLL, .a = {A_I64("comm_type", 2), A_I64("comm_size", 800)}, .n_a = 2},
                        {.id = 4, .type = COLL, .a = {A_I64("comm_type", 2), A_I64("comm_size", 800)}, .n_a = 2}};
    write_trace(dir, "few", r, "", c, r ? 1 : 2, 0);
  }
  err = read_error(dir, "few", 2);
  CU_ASSERT_TRUE(says(err, (const char *[]){"few.0.et: rank 0 node 4", "collective 2 of every rank",
                                            "got none on rank 1", NULL}));
  g_free(err);

  /* A receive with no send (rank 0 sends nothing). */
  struct tnode lone[] = {{.id = 1, .type = COMP, .dur_us = 1}};
  write_trace(dir, "recv", 0, "", lone, 1, 0);
  write_trace(dir, "recv", 1, "", good1, 1, 0);
  err = read_error(dir, "recv", 2);
  CU_ASSERT_TRUE(says(err, (const char *[]){"recv.1.et: rank 1 node 7", "expected a COMM_SEND_NODE on rank 0 "
                                            "to rank 1 with comm_tag 0", "got 0 such sends", NULL}));
  g_free(err);
  /* A send with no receive, and one of another size. */
  write_trace(dir, "send", 0, "", good0, 2, 0);
  write_trace(dir, "send", 1, "", lone, 1, 0);
  err = read_error(dir, "send", 2);
  CU_ASSERT_TRUE(says(err, (const char *[]){"send.0.et: rank 0 node 2", "expected a COMM_RECV_NODE", NULL}));
  g_free(err);
  struct tnode other[] = {{.id = 7, .type = RECV, .a = {A_I32("comm_src", 0), A_I64("comm_size", 65)}, .n_a = 2}};
  write_trace(dir, "size", 0, "", good0, 2, 0);
  write_trace(dir, "size", 1, "", other, 1, 0);
  err = read_error(dir, "size", 2);
  CU_ASSERT_TRUE(says(err, (const char *[]){"size.1.et: rank 1 node 7", "the 64 B that rank 0 sends",
                                            "got 65 B", NULL}));
  g_free(err);

  /* Attributes missing or of the wrong type; peers out of range. */
  struct tnode nopeer[] = {{.id = 5, .type = SEND, .a = {A_I64("comm_size", 8)}, .n_a = 1}};
  write_trace(dir, "peer", 0, "", nopeer, 1, 0);
  err = read_error(dir, "peer", 1);
  CU_ASSERT_TRUE(says(err, (const char *[]){"rank 0 node 5", "expected a comm_dst attribute", NULL}));
  g_free(err);
  struct tnode strsize[] = {{.id = 5, .type = COLL, .a = {A_I64("comm_type", 0), A_STR("comm_size", "8")}, .n_a = 2}};
  write_trace(dir, "str", 0, "", strsize, 1, 0);
  err = read_error(dir, "str", 1);
  CU_ASSERT_TRUE(says(err, (const char *[]){"rank 0 node 5", "comm_size as an integer attribute, got a string", NULL}));
  g_free(err);
  struct tnode gather[] = {{.id = 5, .type = COLL, .a = {A_I64("comm_type", 3), A_I64("comm_size", 8)}, .n_a = 2}};
  write_trace(dir, "gat", 0, "", gather, 1, 0);
  err = read_error(dir, "gat", 1);
  CU_ASSERT_TRUE(says(err, (const char *[]){"rank 0 node 5", "got GATHER", NULL}));
  g_free(err);
  struct tnode undefined[] = {{.id = 5, .type = COLL, .a = {A_I64("comm_type", 0), A_I64("comm_size", 8), A_STR("pg_name", "3")}, .n_a = 3}};
  write_trace(dir, "undef", 0, "", undefined, 1, 0);
  err = read_error(dir, "undef", 1);
  CU_ASSERT_TRUE(says(err, (const char *[]){"rank 0 node 5", "pg_name 3 defined", NULL}));
  g_free(err);
  struct tnode dup[] = {{.id = 5, .type = COMP}, {.id = 5, .type = COMP}};
  write_trace(dir, "dup", 0, "", dup, 2, 0);
  err = read_error(dir, "dup", 1);
  CU_ASSERT_TRUE(says(err, (const char *[]){"rank 0 node 5", "unique", NULL}));
  g_free(err);

  /* An empty file; no files at all. */
  char *e0 = g_strdup_printf("%s/empty.0.et", dir);
  CU_ASSERT_TRUE(g_file_set_contents(e0, "", 0, NULL));
  g_free(e0);
  err = read_error(dir, "empty", 1);
  CU_ASSERT_TRUE(says(err, (const char *[]){"empty.0.et: rank 0", "got an empty file", NULL}));
  g_free(err);
  err = read_error(dir, "none", 0);
  CU_ASSERT_TRUE(says(err, (const char *[]){"none.0.et", NULL}));
  g_free(err);

  /* Chakra's proto2 schema: a file that starts with a Node (before
   * 2023-08: field 1 a varint id, no GlobalMetadata), and one whose
   * GlobalMetadata holds its attributes in field 1 (2023-08 to 2023-10). */
  static const uint8_t old_node[] = {0x04, 0x08, 0x01, 0x10, 0x04}; /* {id 1, node_type 4} */
  static const uint8_t old_meta[] = {0x08, 0x0a, 0x06, 0x0a, 0x04, 's', 'c', 'h', 'm'};
  char *p0 = g_strdup_printf("%s/old.0.et", dir), *p1 = g_strdup_printf("%s/older.0.et", dir);
  CU_ASSERT_TRUE(g_file_set_contents(p0, (const char *)old_meta, sizeof old_meta, NULL));
  CU_ASSERT_TRUE(g_file_set_contents(p1, (const char *)old_node, sizeof old_node, NULL));
  err = read_error(dir, "old", 1);
  CU_ASSERT_TRUE(says(err, (const char *[]){"old.0.et: rank 0", "proto3 schema (v0.0.4",
                                            "one of its proto2 schema", "convert them again", NULL}));
  g_free(err);
  err = read_error(dir, "older", 1);
  CU_ASSERT_TRUE(says(err, (const char *[]){"older.0.et: rank 0", "a message that is not one", NULL}));
  g_free(err);
  g_free(p0);
  g_free(p1);
  rm_dir(dir);
}

/* ---- round trips ---- */

/* Whether op X of P and op Y of Q name equal kernels or calls (their
 * tables may number them otherwise; a call's group by its ranks). */
static bool same_desc(const struct wl_program *p, const struct wl_op *x, const struct wl_program *q,
                      const struct wl_op *y) {
  if (x->kind == WL_COMPUTE)
    return !memcmp(wl_kernel_of(p, x), wl_kernel_of(q, y), sizeof(struct wl_kernel));
  if (x->kind != WL_COLL) return x->kernel == y->kernel;
  struct wl_call a = *wl_call_of(p, x), b = *wl_call_of(q, y);
  const struct wl_group *ga = wl_group_get(p, a.group), *gb = wl_group_get(q, b.group);
  if (!ga != !gb || (ga && (ga->n != gb->n || memcmp(ga->ranks, gb->ranks, ga->n * sizeof *ga->ranks))))
    return false;
  a.group = b.group = 0;
  return !memcmp(&a, &b, sizeof a);
}

/* Whether ops X and Y hold the same values, field by field (not their
 * padding). */
static bool same_fields(const struct wl_op *x, const struct wl_op *y) {
#define F(f) (x->f == y->f)
  return F(kind) && F(on) && F(one_sided) && F(lane) && F(pack) && F(host_reads) &&
         F(copies_home) && F(form) && F(fence) && F(n_wgs) && F(kernel) && F(time_ps) && F(peer) && F(tile) &&
         F(bytes) && F(tag) && F(parts) && F(stores) && F(sel.first) && F(sel.stride) &&
         F(sel.count) && F(line) && F(dep_first) && F(n_deps) && F(count) && F(region) &&
         F(match) && F(flag) && F(quiet);
#undef F
}

/* Whether P and Q have the same ops and dependencies. */
static bool same_program(const struct wl_program *p, const struct wl_program *q) {
  if (p->n_ranks != q->n_ranks) return false;
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *a = &p->ranks[r], *b = &q->ranks[r];
    if (a->n_ops != b->n_ops) {
      fprintf(stderr, "rank %u: %zu ops, read back %zu\n", r, a->n_ops, b->n_ops);
      return false;
    }
    for (size_t i = 0; i < a->n_ops; i++) {
      struct wl_op x = a->ops[i], y = b->ops[i];
      x.dep_first = y.dep_first = 0;
      x.line = y.line = 0;
      /* A message's parts and a collective's tag are the writer's to renumber. */
      if (x.kind == WL_COLL) x.tag = y.tag = 0;
      x.match = y.match = x.flag = y.flag = x.quiet = y.quiet = 0;
      bool desc = x.kind == y.kind && same_desc(p, &x, q, &y);
      x.kernel = y.kernel = 0;
      if (!desc || !same_fields(&x, &y)) {
        fprintf(stderr, "rank %u op %zu differs (kind %d / %d)\n", r, i, x.kind, y.kind);
        return false;
      }
      for (uint32_t d = 0; d < x.n_deps; d++) {
        const struct wl_dep *u = &a->deps[a->ops[i].dep_first + d], *v = &b->deps[b->ops[i].dep_first + d];
        if (u->op != v->op || u->on_start != v->on_start) {
          fprintf(stderr, "rank %u op %zu dep %u differs\n", r, i, d);
          return false;
        }
      }
    }
  }
  return true;
}

/* The scenario at configs/NAME, its program written as Chakra and read
 * back: equal ops, and equal results (time, events, every phase) under
 * every policy and under nccl. */
static void round_trip(const char *name) {
  char *path = g_build_filename(g_getenv("TRIGSIM_CONFIGS"), name, NULL);
  char *err = NULL;
  struct scenario *sc = scenario_load(path, NULL, 0, &wl_catalog, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
  const struct wl_type *w = wl_type_of(sc);
  struct wl_ctx ctx = {.sc = sc, .config = sc->workload_config, .policy = sc->policies[0], .seed = 1};
  struct wl_program *p = w->program(&ctx, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL), *prefix = g_build_filename(dir, "rt", NULL);
  struct hw_config hw = wl_hw_of(sc);
  CU_ASSERT_TRUE(wl_chakra_write(p, NULL, NULL, prefix, &err)); /* no durations: not read back */
  struct wl_program *q = wl_chakra_read(prefix, p->n_ranks, 1 << 20, &opts_default, NULL, &err);
  if (err) fprintf(stderr, "%s\n", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(q);
  CU_ASSERT_TRUE(same_program(p, q));
  for (int lib = 0; lib < 2; lib++) {
    struct comm_config comm = *hw.comm;
    comm.library = lib ? COMM_NCCL : COMM_AUTO;
    struct hw_config h2 = hw;
    h2.comm = &comm;
    size_t n_pols;
    const struct pol_type *const *pols = pol_all(&n_pols);
    for (size_t k = 0; k < n_pols; k++) {
      const struct pol_type *pol = pols[k];
      const char *name_k = pol->name;
      if (lib && !(pol->libs & (1u << COMM_NCCL))) continue;
      struct sim_result ra, rb;
      sim_result_init(&ra, name_k);
      sim_result_init(&rb, name_k);
      struct wl_ctx c = {.sc = sc, .seed = 1};
      char *ea = NULL, *eb = NULL;
      bool oa = pol_run(p, name_k, &h2, &c, &ra, &ea);
      bool ob = pol_run(q, name_k, &h2, &c, &rb, &eb);
      CU_ASSERT_EQUAL(oa, ob);
      if (oa && ob) {
        if (ra.total_ps != rb.total_ps)
          fprintf(stderr, "%s %s: %" PRId64 " / %" PRId64 "\n", name, name_k, ra.total_ps, rb.total_ps);
        CU_ASSERT_EQUAL(ra.total_ps, rb.total_ps);
        CU_ASSERT_EQUAL(ra.events, rb.events);
        CU_ASSERT_EQUAL(ra.phases.n, rb.phases.n);
        for (size_t e = 0; e < MIN(ra.phases.n, rb.phases.n); e++)
          CU_ASSERT_EQUAL(ra.phases.entries[e].i, rb.phases.entries[e].i);
      } else if (ea && eb) {
        CU_ASSERT_STRING_EQUAL(ea, eb);
      }
      g_free(ea);
      g_free(eb);
      sim_result_clear(&ra);
      sim_result_clear(&rb);
    }
  }
  wl_program_free(q);
  wl_program_free(p);
  scenario_free(sc);
  g_free(prefix);
  rm_dir(dir);
  g_free(path);
  g_free(err);
}

static void test_round_trip(void) {
  round_trip("programs/pipeline.yaml");
  round_trip("programs/incast.yaml");
  round_trip("programs/alltoall-skew.yaml");
  round_trip("programs/goal-recdoub.yaml");
  round_trip("chakra/dp-step.program.yaml");
  round_trip("chakra/tp-pp-step.program.yaml"); /* process groups */
}

/* ---- op by op ---- */

/* Rank R of X read op by op into rank R of P (graph), every op taken with
 * its index as its tag; FORGET: each op forgotten before the next is taken
 * (a dependency on it then gives no item). *KEPT: the most nodes the
 * cursor held. False when a read fails. */
static bool stream_rank(struct chakra_src *x, uint32_t r, struct wl_program *p, bool forget,
                        size_t *kept) {
  const struct wl_source *src = chakra_src_source(x);
  struct wl_cursor *s = src->ops->open(src->ctx, r, false);
  wl_graph(p, r);
  uint32_t prev = 0;
  uint64_t n = 0;
  bool ok = true;
  *kept = 0;
  for (;;) {
    struct wl_item it;
    /* First without taking: the op waits (2), then taken (the one before
     * forgotten first). */
    int got = src->ops->next(src->ctx, s, &it, false, (uint32_t)n);
    if (got == 2 && forget && n) src->ops->forget(src->ctx, s, prev);
    if (got == 2) got = src->ops->next(src->ctx, s, &it, true, (uint32_t)n);
    if (got != 1) {
      ok = false;
      break;
    }
    if (it.kind == WL_ITEM_END) break;
    if (it.kind == WL_ITEM_DEP) {
      ok &= it.a == n - 1 && it.ta == (uint32_t)it.a && it.tb == (uint32_t)it.b && it.b < it.a;
      if (it.on_start) wl_irequires(p, r, (uint32_t)it.a, (uint32_t)it.b);
      else wl_requires(p, r, (uint32_t)it.a, (uint32_t)it.b);
      continue;
    }
    wl_push_op(p, r, &it.op);
    prev = it.handle;
    n++;
    *kept = MAX(*kept, chakra_cursor_kept(s));
  }
  src->ops->close(src->ctx, s);
  return ok;
}

/* The trace PREFIX (N ranks) read op by op equals it read whole: the same
 * ops, dependencies, groups and collective tags. */
static void streamed_is_whole(const char *prefix, uint32_t n) {
  char *err = NULL;
  struct chakra_src *x = chakra_src_open(prefix, n, &opts_default, NULL, &err);
  if (err) fprintf(stderr, "%s\n", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  CU_ASSERT_TRUE(chakra_src_streams(x));
  struct wl_program *w = chakra_src_program(x, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(w);
  const struct wl_source *src = chakra_src_source(x);
  struct wl_program *p = wl_program_on(n, src->descs);
  for (uint32_t r = 0; r < n; r++) {
    size_t kept;
    CU_ASSERT_TRUE(stream_rank(x, r, p, false, &kept));
    CU_ASSERT_EQUAL(src->sums[r].ops, w->ranks[r].n_ops);
  }
  CU_ASSERT_TRUE(same_program(w, p)); /* the calls' groups too, by their ranks */
  CU_ASSERT_EQUAL(wl_groups(p), wl_groups(w));
  for (uint32_t r = 0; r < n; r++)
    for (size_t i = 0; i < MIN(p->ranks[r].n_ops, w->ranks[r].n_ops); i++)
      CU_ASSERT_EQUAL(p->ranks[r].ops[i].tag, w->ranks[r].ops[i].tag);
  wl_program_free(p);
  wl_program_free(w);
  chakra_src_free(x);
  g_free(err);
}

static void test_streamed_is_whole(void) {
  char *tiny = g_build_filename(g_getenv("TRIGSIM_DATA"), "chakra", "tiny", NULL);
  char *dp = g_build_filename(g_getenv("TRIGSIM_CONFIGS"), "chakra", "traces", "dp-step", NULL);
  char *tp = g_build_filename(g_getenv("TRIGSIM_CONFIGS"), "chakra", "traces", "tp-pp-step", NULL);
  streamed_is_whole(tiny, 2);
  streamed_is_whole(dp, 4);
  streamed_is_whole(tp, 8); /* process groups: tags per group */
  g_free(tiny);
  g_free(dp);
  g_free(tp);
  /* Rank 0 by hand: node 1 computes; node 2 receives from rank 1; node 4,
   * metadata, waits for node 2; node 5, a CPU op skipped (cpu_skip), waits
   * for node 1; node 3 computes after nodes 1, 4 and 1 again (named twice)
   * and starts with node 5 (trigsim_irequires: a node of no op, so once
   * what it waits for is done). Its ops: 0 (node 1), 1 (node 2), 2 (node
   * 3); op 2's items: requires 0, requires 1 (through node 4; 0 once),
   * requires 0 (through node 5, the start dependency): three DEP items. */
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL);
  struct tnode r0[] = {
      {.id = 1, .type = COMP, .dur_us = 5},
      {.id = 2, .type = RECV, .a = {A_I32("comm_src", 1), A_I64("comm_size", 100)}, .n_a = 2},
      {.id = 4, .type = 1, .data = {2}, .n_data = 1},
      {.id = 5, .type = COMP, .dur_us = 7, .data = {1}, .n_data = 1, .a = {{"is_cpu_op", 3, 1, NULL}}, .n_a = 1},
      {.id = 3, .type = COMP, .dur_us = 1, .data = {1, 4}, .n_data = 2, .ctrl = {1}, .n_ctrl = 1,
       .a = {{"trigsim_irequires", 5, 5, NULL}}, .n_a = 1}};
  struct tnode r1[] = {
      {.id = 1, .type = SEND, .a = {A_I32("comm_dst", 0), A_I64("comm_size", 100)}, .n_a = 2}};
  write_trace(dir, "hand", 0, "", r0, 5, 0);
  write_trace(dir, "hand", 1, "", r1, 1, 0);
  char *prefix = g_strdup_printf("%s/hand", dir), *err = NULL;
  struct chakra_opts skip = opts_default;
  skip.cpu_skip = true;
  struct chakra_src *x = chakra_src_open(prefix, 2, &skip, NULL, &err);
  if (err) fprintf(stderr, "%s\n", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  const struct wl_source *src = chakra_src_source(x);
  CU_ASSERT_EQUAL(src->sums[0].ops, 3);
  CU_ASSERT_TRUE(chakra_src_streams(x));
  struct wl_cursor *s = src->ops->open(src->ctx, 0, false);
  struct wl_item it;
  int kinds[8], n = 0;
  uint64_t b[8];
  bool start[8];
  while (n < 8 && src->ops->next(src->ctx, s, &it, true, 0) == 1 && it.kind != WL_ITEM_END) {
    b[n] = it.b, start[n] = it.on_start;
    kinds[n++] = it.kind;
  }
  CU_ASSERT_EQUAL(n, 6);
  CU_ASSERT_TRUE(kinds[0] == WL_ITEM_OP && kinds[1] == WL_ITEM_OP && kinds[2] == WL_ITEM_OP);
  CU_ASSERT_TRUE(kinds[3] == WL_ITEM_DEP && b[3] == 0 && !start[3]);
  CU_ASSERT_TRUE(kinds[4] == WL_ITEM_DEP && b[4] == 1 && !start[4]);
  CU_ASSERT_TRUE(kinds[5] == WL_ITEM_DEP && b[5] == 0 && !start[5]);
  src->ops->close(src->ctx, s);
  chakra_src_free(x);
  streamed_is_whole(prefix, 2);
  /* A dependency on a node written later: the file's order is not the
   * program's, so it does not stream (the whole reader places node 3 first). */
  struct tnode fw[] = {{.id = 1, .type = COMP, .dur_us = 5, .data = {3}, .n_data = 1},
                       {.id = 3, .type = COMP, .dur_us = 1}};
  write_trace(dir, "fw", 0, "", fw, 2, 0);
  g_free(prefix);
  prefix = g_strdup_printf("%s/fw", dir);
  x = chakra_src_open(prefix, 1, &opts_default, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  CU_ASSERT_FALSE(chakra_src_streams(x));
  chakra_src_free(x);
  /* A dependency on no node of the file: the first pass says it, as the
   * whole reader does. */
  fw[0].data[0] = 9;
  write_trace(dir, "fw", 0, "", fw, 2, 0);
  x = chakra_src_open(prefix, 1, &opts_default, NULL, &err);
  CU_ASSERT_PTR_NULL(x);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "fw.0.et: rank 0 node 1: expected its ctrl_deps and "
                                            "data_deps to name nodes of this file, got 9"));
  g_free(err);
  err = NULL;
  /* Sends and receives that do not pair up, and a group's ranks calling
   * different collectives: read whole (which names them), not streamed. */
  r1[0].a[1].i = 200;
  write_trace(dir, "hand", 1, "", r1, 1, 0);
  g_free(prefix);
  prefix = g_strdup_printf("%s/hand", dir);
  x = chakra_src_open(prefix, 2, &skip, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  CU_ASSERT_FALSE(chakra_src_streams(x));
  CU_ASSERT_PTR_NULL(chakra_src_program(x, &err));
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "expected a receive of the 200 B"));
  chakra_src_free(x);
  g_free(err);
  err = NULL;
  struct tnode c0[] = {{.id = 1, .type = COLL, .a = {A_I64("comm_type", 0), A_I64("comm_size", 800)}, .n_a = 2}};
  struct tnode c1[] = {{.id = 1, .type = COLL, .a = {A_I64("comm_type", 0), A_I64("comm_size", 400)}, .n_a = 2}};
  write_trace(dir, "coll", 0, "", c0, 1, 0);
  write_trace(dir, "coll", 1, "", c1, 1, 0);
  g_free(prefix);
  prefix = g_strdup_printf("%s/coll", dir);
  x = chakra_src_open(prefix, 2, &opts_default, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  CU_ASSERT_FALSE(chakra_src_streams(x));
  chakra_src_free(x);
  g_free(prefix);
  g_free(err);
  rm_dir(dir);
}

/* CSV TEXT without its `events` column (the engine's count, not the
 * model's: a kernel read while it runs takes its steps one by one where
 * one written whole skips a WG past the steps it has no part in, in the
 * same simulated time). */
static char *without_events(const char *text) {
  GString *out = g_string_new(NULL);
  gchar **lines = g_strsplit(text, "\n", -1);
  int col = -1;
  for (gchar **l = lines; *l; l++) {
    gchar **f = g_strsplit(*l, ",", -1);
    if (g_str_has_prefix(*l, "scenario,"))
      for (int k = 0; f[k]; k++)
        if (!strcmp(f[k], "events")) col = k;
    for (int k = 0; f[k]; k++)
      if (k != col) g_string_append_printf(out, "%s%s", f[k], f[k + 1] ? "," : "");
    g_string_append_c(out, '\n');
    g_strfreev(f);
  }
  g_strfreev(lines);
  return g_string_free(out, FALSE);
}

/* Scenario configs/chakra/NAME.yaml (its sweep: every policy under every
 * library it takes) with SETS, run in this process: its CSV with every
 * counter (without_events), point after point; *STREAMED: how many runs
 * streamed (sim_result.streamed), of *RUNS. */
static char *run_sweep(const char *name, const char *const *sets, uint64_t *streamed,
                       uint64_t *n_runs) {
  char *path = g_strdup_printf("%s/chakra/%s.yaml", g_getenv("TRIGSIM_CONFIGS"), name);
  struct points pts;
  char *err = NULL;
  GString *out = g_string_new(NULL);
  *streamed = *n_runs = 0;
  if (!pts_load(path, (char **)sets, NULL, &pts, &err)) g_string_append(out, err);
  for (size_t i = 0; !err && i < pts.n; i++) {
    struct sim_result *runs = NULL;
    size_t n = 0;
    if (!pts_run_point(&pts, i, &runs, &n, &err)) {
      g_string_append(out, err);
      break;
    }
    struct sim_result_set set = {.scenario = name, .workload = "chakra", .seed = 1, .runs = runs,
                                 .n_runs = n};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    result_write(f, &set, RESULT_CSV);
    fclose(f);
    char *kept = without_events(text);
    g_string_append(out, kept);
    g_free(kept);
    free(text);
    for (size_t k = 0; k < n; k++) {
      *streamed += runs[k].streamed;
      sim_result_clear(&runs[k]);
    }
    *n_runs += n;
    g_free(runs);
  }
  pts_free(&pts);
  g_free(path);
  g_free(err);
  return g_string_free(out, FALSE);
}

/* A training step's trace streamed (its collectives written out op by op
 * as each library runs them: coll.h, wl_coll_source) gives the bytes it
 * gives read whole, under every policy and library of its sweep (23 runs:
 * host-driven and stream policies with mpi, nccl and nvshmem, gputn with
 * its own, the one-kernel policies): times, phases and every counter (the
 * engine's event count aside: without_events). Each run streams (none
 * falls back to the whole trace). With a window of 4 ops the GPU-driven
 * policies order each rank within 4 ops read whole or streamed alike
 * (wl_lin), a library's collective placed whole; a run that finds none of
 * a window ready runs read whole, the same bytes again. */
static void test_streams_as_whole(void) {
  static const char *const names[] = {"dp-step", "tp-pp-step"};
  static const char *const windows[] = {"workload.stream_window=256", "workload.stream_window=4"};
  /* Under the sanitizers (tests/CMakeLists.txt), tp-pp-step at window 4
   * alone: process groups and a window that runs some policies whole. */
  bool one = g_getenv("TRIGSIM_SANITIZED") != NULL;
  for (size_t t = one; t < G_N_ELEMENTS(names); t++)
    for (size_t w = one; w < G_N_ELEMENTS(windows); w++) {
      const char *whole_sets[] = {windows[w], "workload.read=whole", NULL};
      const char *stream_sets[] = {windows[w], NULL};
      uint64_t s0, n0, s1, n1;
      char *whole = run_sweep(names[t], whole_sets, &s0, &n0);
      char *streamed = run_sweep(names[t], stream_sets, &s1, &n1);
      CU_ASSERT_EQUAL(n0, 23);
      CU_ASSERT_EQUAL(n1, 23);
      CU_ASSERT_EQUAL(s0, 0);
      /* Window 4: some runs of the GPU-driven policies find none of a
       * rank's 4 next ops ready and run read whole (stream.c), alike. */
      if (!w) CU_ASSERT_EQUAL(s1, 23);
      CU_ASSERT_STRING_EQUAL(whole, streamed);
      CU_ASSERT_PTR_NOT_NULL(strstr(whole, ",gds,"));
      CU_ASSERT_PTR_NOT_NULL(strstr(whole, ",monolithic,"));
      g_free(whole);
      g_free(streamed);
    }
}

static void test_stream_memory(void) {
  /* One rank of 2 * N nodes: computes 0, 2, 4, ... each after the
   * metadata node before it, metadata 1, 3, ... each after the compute
   * before it. Read op by op forgetting each op once the next is taken,
   * the cursor holds the op in flight and the metadata nodes read since
   * its last sweep; a sweep (once it holds more than 64, or twice what it
   * kept at the last) drops the metadata whose op is forgotten, keeping
   * the last op and the metadata node after it: so at most 65 nodes at any
   * time. Forgetting nothing, it holds every node: 2 * N. */
  enum { N = 3000 };
  struct tnode *t = g_new0(struct tnode, 2 * N);
  for (uint64_t i = 0; i < 2 * N; i++) {
    t[i] = (struct tnode){.id = i, .type = i % 2 ? 1 : COMP, .dur_us = 1, .n_data = i > 0};
    t[i].data[0] = i - 1;
  }
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL);
  write_trace(dir, "chain", 0, "", t, 2 * N, 0);
  char *prefix = g_strdup_printf("%s/chain", dir), *err = NULL;
  struct chakra_src *x = chakra_src_open(prefix, 1, &opts_default, NULL, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(x);
  CU_ASSERT_EQUAL(chakra_src_source(x)->sums[0].ops, N);
  for (int forget = 0; forget < 2; forget++) {
    struct wl_program *p = wl_program_new(1);
    size_t kept = 0;
    CU_ASSERT_TRUE(stream_rank(x, 0, p, forget, &kept));
    CU_ASSERT_EQUAL(p->ranks[0].n_ops, N);
    /* Each compute after the one before (through its metadata node);
     * forgotten, the one before gives no item. */
    CU_ASSERT_EQUAL(p->ranks[0].ops[N - 1].n_deps, forget ? 0 : 1);
    /* Forgetting nothing: the last metadata node is read after the last op. */
    CU_ASSERT_TRUE(forget ? kept <= 65 : kept == 2 * N - 1);
    wl_program_free(p);
  }
  chakra_src_free(x);
  g_free(prefix);
  g_free(err);
  g_free(t);
  rm_dir(dir);
}

/* Whether files A and B hold the same bytes. */
static bool same_file(const char *a, const char *b) {
  gchar *x = NULL, *y = NULL;
  gsize nx = 0, ny = 0;
  bool same = g_file_get_contents(a, &x, &nx, NULL) && g_file_get_contents(b, &y, &ny, NULL) &&
              nx == ny && !memcmp(x, y, nx);
  if (!same) fprintf(stderr, "%s and %s differ\n", a, b);
  g_free(x);
  g_free(y);
  return same;
}

static void test_cli(void) {
  /* The committed traces of configs/chakra and tests/data/chakra are what
   * export-chakra writes from their programs (tools/chakra-traces.sh). */
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL);
  const char *const srcs[][3] = {{"chakra/dp-step.program.yaml", "chakra/traces/dp-step", "4"},
                                 {"chakra/tp-pp-step.program.yaml", "chakra/traces/tp-pp-step", "8"}};
  for (size_t k = 0; k < G_N_ELEMENTS(srcs); k++) {
    char *src = g_build_filename(g_getenv("TRIGSIM_CONFIGS"), srcs[k][0], NULL);
    char *prefix = g_build_filename(dir, "x", NULL);
    CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"export-chakra", src, "-o", prefix, NULL}, NULL, NULL), 0);
    for (int r = 0; r < atoi(srcs[k][2]); r++) {
      char *mine = g_strdup_printf("%s.%d.et", prefix, r);
      char *kept = g_strdup_printf("%s/%s.%d.et", g_getenv("TRIGSIM_CONFIGS"), srcs[k][1], r);
      CU_ASSERT_TRUE(same_file(mine, kept));
      g_free(mine);
      g_free(kept);
    }
    char *extra = g_strdup_printf("%s.%s.et", prefix, srcs[k][2]); /* no more ranks */
    CU_ASSERT_FALSE(g_file_test(extra, G_FILE_TEST_EXISTS));
    g_free(extra);
    g_free(prefix);
    g_free(src);
  }
  char *tiny = tu_data("chakra/tiny.program.yaml"), *prefix = g_build_filename(dir, "tiny", NULL);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"export-chakra", tiny, "-o", prefix, NULL}, NULL, NULL), 0);
  for (int r = 0; r < 2; r++) {
    char *mine = g_strdup_printf("%s.%d.et", prefix, r), *name = g_strdup_printf("chakra/tiny.%d.et", r);
    char *kept = tu_data(name);
    CU_ASSERT_TRUE(same_file(mine, kept));
    g_free(mine);
    g_free(name);
    g_free(kept);
  }
  /* A workload without a program, and no -o: exit 2. */
  char *out = NULL, *err = NULL;
  char *phold = tu_temp_file(".yaml", "workload: {kind: phold}\n", 24);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"export-chakra", phold, "-o", prefix, NULL}, &out, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "workload.kind: expected a workload with a per-rank program"));
  g_free(out);
  g_free(err);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"export-chakra", tiny, NULL}, &out, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "-o PREFIX"));
  g_free(out);
  g_free(err);
  /* A malformed trace: validate and run exit 2, naming the file, the rank
   * and the node; nothing on stdout. The scenario's own keys: at them. */
  struct tnode bad[] = {{.id = 1, .type = COMP, .dur_us = 1}, {.id = 2, .type = 42}};
  write_trace(dir, "bad", 0, "", bad, 2, 0);
  char *yaml = g_strdup_printf("workload: {kind: chakra, files: %s/bad}\nhardware: {network: {nodes: 2}}\n"
                               "policies: [cpu]\n", dir);
  char *sc = tu_temp_file(".yaml", yaml, strlen(yaml));
  for (int run = 0; run < 2; run++) {
    CU_ASSERT_EQUAL(tu_trigsim((const char *[]){run ? "run" : "validate", sc, NULL}, &out, &err), 2);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "bad.0.et: rank 0 node 2: expected a node type"));
    CU_ASSERT_PTR_NOT_NULL(out && !*out);
    g_free(out);
    g_free(err);
  }
  g_free(sc);
  g_free(yaml);
  yaml = g_strdup_printf("workload: {kind: chakra, files: %s/none}\nhardware: {network: {nodes: 2}}\n"
                         "policies: [cpu]\n", dir);
  sc = tu_temp_file(".yaml", yaml, strlen(yaml));
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", sc, NULL}, &out, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, ".yaml:1:") &&
                         strstr(err, ": workload.files: expected Chakra trace files"));
  g_free(out);
  g_free(err);
  g_free(sc);
  g_free(yaml);
  /* cpu_ops: host where the policy runs from the GPU. */
  yaml = g_strdup_printf("workload: {kind: chakra, files: %s/tiny, cpu_ops: host}\n"
                         "hardware: {network: {nodes: 2}}\npolicies: [gputn]\n", dir);
  sc = tu_temp_file(".yaml", yaml, strlen(yaml));
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"validate", sc, NULL}, &out, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, "workload.cpu_ops: expected where policy gputn can run a CPU op"));
  g_free(out);
  g_free(err);
  g_free(sc);
  g_free(yaml);
  g_free(phold);
  g_free(tiny);
  g_free(prefix);
  rm_dir(dir);
}

static void test_host_calls(void) {
  /* Communication nodes with is_cpu_op true are the host's calls
   * (c10d::allreduce_ as Chakra's PyTorch converter wrote them in 2024,
   * beside the GPU's ncclKernel node that carries the collective): CPU ops
   * of their recorded time, as ASTRA-sim's feeder took any is_cpu_op node,
   * with no comm_type or peer asked for. One rank: a collective call of 7
   * us on the CPU, a send call of 2 us on the CPU, then a GPU compute of 3
   * us after both. Under cpu (one host thread): 7 + 2 + 3 = 12 us; with
   * CPU ops skipped, the compute alone. */
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL);
  struct tnode r0[] = {{.id = 1, .type = COLL, .dur_us = 7, .a = {{"is_cpu_op", 3, 1, NULL}}, .n_a = 1},
                       {.id = 2, .type = SEND, .dur_us = 2, .a = {{"is_cpu_op", 3, 1, NULL}}, .n_a = 1},
                       {.id = 3, .type = COMP, .dur_us = 3, .data = {1, 2}, .n_data = 2}};
  write_trace(dir, "host", 0, "", r0, 3, 0);
  char *err = NULL;
  struct wl_program *p = read_back(dir, "host", 1, NULL, &err);
  if (err) fprintf(stderr, "%s\n", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL_FATAL(p->ranks[0].n_ops, 3);
  for (size_t i = 0; i < 2; i++) {
    CU_ASSERT_EQUAL(p->ranks[0].ops[i].kind, WL_COMPUTE);
    CU_ASSERT_EQUAL(p->ranks[0].ops[i].on, WL_ON_CPU);
  }
  CU_ASSERT_EQUAL(p->ranks[0].ops[0].time_ps, 7 * SIM_US);
  EXPECT_TIME(run_time(p, "cpu"), 12 * SIM_US);
  wl_program_free(p);
  const struct chakra_opts skip = {.compute = CHAKRA_COMPUTE_AUTO, .wgs = 1, .dur_wgs = 1, .cpu_skip = true};
  p = read_opts(dir, "host", 1, NULL, &skip, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->ranks[0].n_ops, 1);
  EXPECT_TIME(run_time(p, "cpu"), 3 * SIM_US);
  wl_program_free(p);
  g_free(err);
  rm_dir(dir);
}

static void test_policy_context(void) {
  /* What a node becomes depends on the run's policy, asked through its
   * context (wl_ctx.computes_on), not the policy layer: rank 0 runs a CPU
   * op of 7 us (is_cpu_op), then a GPU compute of 3 us recorded; rank 1
   * the compute alone. workload.wgs: 4. Under cpu (computes on the host
   * only) the CPU op is kept (cpu_ops: auto) and the compute spans 1 WG;
   * under gputn (the GPU only) the CPU op is skipped and the compute
   * spans the 4 WGs. */
  char *dir = g_dir_make_tmp("chakra-XXXXXX", NULL);
  struct tnode r0[] = {{.id = 1, .type = COMP, .dur_us = 7, .a = {{"is_cpu_op", 3, 1, NULL}}, .n_a = 1},
                       {.id = 2, .type = COMP, .dur_us = 3, .data = {1}, .n_data = 1}};
  write_trace(dir, "ctx", 0, "", r0, 2, 0);
  struct tnode r1[] = {{.id = 2, .type = COMP, .dur_us = 3}};
  write_trace(dir, "ctx", 1, "", r1, 1, 0);
  char *yaml = g_strdup_printf("workload: {kind: chakra, files: %s/ctx, wgs: 4}\n"
                               "hardware: {network: {nodes: 2}}\npolicies: [cpu, gputn]\n", dir);
  char *path = tu_temp_file(".yaml", yaml, strlen(yaml)), *err = NULL;
  struct scenario *sc = scenario_load(path, NULL, 0, &wl_catalog, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
  for (size_t k = 0; k < 2; k++) {
    struct wl_ctx ctx = wl_ctx_of(sc, k);
    struct wl_program *p = wl_type_of(sc)->program(&ctx, &err);
    if (err) fprintf(stderr, "%s\n", err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    const struct wl_rank *r = &p->ranks[0];
    CU_ASSERT_EQUAL(r->n_ops, k ? 1 : 2);
    CU_ASSERT_EQUAL(r->ops[r->n_ops - 1].time_ps, 3 * SIM_US);
    CU_ASSERT_EQUAL(r->ops[r->n_ops - 1].n_wgs, k ? 4 : 1);
    if (!k) CU_ASSERT_EQUAL(r->ops[0].on, WL_ON_CPU);
    wl_program_free(p);
  }
  scenario_free(sc);
  g_unlink(path);
  g_free(path);
  g_free(yaml);
  g_free(err);
  rm_dir(dir);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"a 2-rank trace (compute, allreduce, send/recv) by hand", test_two_ranks_by_hand},
      {"compute: duration, work (through the GPU model) or auto, by hand", test_compute_modes},
      {"a node waits for both of its dependencies, ctrl or data", test_two_dependencies},
      {"deps: data reads data_deps alone (ctrl_deps naming callers)", test_data_deps_only},
      {"process groups: their ranks, from metadata and comm_groups", test_process_groups},
      {"malformed traces: file, rank, node and what was expected", test_malformed},
      {"program -> Chakra -> program: equal ops, equal results", test_round_trip},
      {"export-chakra writes the committed traces; bad input exits 2", test_cli},
      {"a node's op as the policy's context says (computes_on)", test_policy_context},
      {"communication nodes on the CPU are the host's calls, of their time", test_host_calls},
      {"op by op: the program read whole, item for item", test_streamed_is_whole},
      {"op by op: a cursor holds the ops in flight, not the rank", test_stream_memory},
      {"a training step streamed: the bytes read whole give, every policy and library",
       test_streams_as_whole},
      {NULL, NULL}};
  return tu_run_suite("chakra", tests);
}
