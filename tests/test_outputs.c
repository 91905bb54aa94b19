/* Declared outputs (sim/outputs.h): a toy component type reports by handle
 * and is read back by handle; sim_out_check catches a finish that leaves a
 * declared output out, reports one twice or reports one its type does not
 * declare; a handle of another type is a fault; every group the program
 * declares is well formed and lists with `trigsim outputs`. */
#include <glib.h>
#include <string.h>

#include "engine.h"
#include "phase.h"
#include "testutil.h"
#include "workload.h"

/* The toy: a count, a time, a mean, one reported only by even ids, and a
 * total reported by the first toy under the first part of its name. */
enum toy_out { TOY_COUNT, TOY_SPAN, TOY_MEAN, TOY_EVEN, TOY_TOTAL, TOY_N };
static const struct sim_out_decl toy_outs[] = {
    [TOY_COUNT] = OUT(count, UNIT_NONE, "a count"),
    [TOY_SPAN] = OUT(span, UNIT_TIME, "a time"),
    [TOY_MEAN] = OUT_F(mean, UNIT_NONE, SIM_OUT_REAL, "a mean"),
    [TOY_EVEN] = OUT_F(even, UNIT_SIZE, SIM_OUT_SOME, "bytes, even ids only"),
    [TOY_TOTAL] = OUT_F(toys.count, UNIT_NONE, SIM_OUT_TOTAL | SIM_OUT_SOME, "all toys' counts"),
};
static SIM_OUT_GROUP(toy_outputs, "toy", "a.t<i>.KEY", toy_outs, TOY_N);

/* What the toy's finish does wrong (the test sets it). */
static enum { TOY_RIGHT, TOY_FORGETS, TOY_TWICE, TOY_UNDECLARED } toy_mode;

static void toy_handle(struct sim_comp *c, const struct sim_event *ev) {}

static void toy_finish(struct sim_comp *c, struct sim_report *r) {
  sim_out_int(r, c, TOY_COUNT, 10 + c->id);
  if (toy_mode != TOY_FORGETS) sim_out_int(r, c, TOY_SPAN, 1000 * (int64_t)c->id);
  sim_out_real(r, c, TOY_MEAN, 0.5 * c->id);
  if (c->id % 2 == 0) sim_out_int(r, c, TOY_EVEN, 64);
  if (c->id == 0) sim_out_int(r, c, TOY_TOTAL, 10 + 11 + 12);
  if (toy_mode == TOY_TWICE) sim_out_int(r, c, TOY_COUNT, 0);
  if (toy_mode == TOY_UNDECLARED) sim_report_int(r, "a.t9.made_up", UNIT_NONE, 1);
}

static const struct sim_type toy_type = {
    .name = "toy", .doc = "reports", .outputs = &toy_outputs, .handle = toy_handle,
    .finish = toy_finish};

/* Another type's declarations: handles that are no toy's. */
enum other_out { OTHER_X, OTHER_N };
static const struct sim_out_decl other_outs[] = {[OTHER_X] = OUT(x, UNIT_NONE, "x")};

static struct sim_engine *three_toys(void) {
  struct sim_engine *e = sim_new(1);
  for (int i = 0; i < 3; i++) {
    char name[16];
    g_snprintf(name, sizeof name, "a.t%d", i);
    sim_add(e, &toy_type, name, NULL);
  }
  return e;
}

static void test_report_and_read_by_handle(void) {
  toy_mode = TOY_RIGHT;
  struct sim_engine *e = three_toys();
  struct sim_report r;
  sim_report_init(&r);
  sim_finish(e, &r);
  /* Per toy count, span, mean; even ids 0 and 2 their bytes; toy 0 the
   * total: 3 * 3 + 2 + 1 = 12 entries, in the order reported. */
  CU_ASSERT_EQUAL_FATAL(r.n, 12);
  CU_ASSERT_STRING_EQUAL(r.entries[0].key, "a.t0.count");
  CU_ASSERT_STRING_EQUAL(r.entries[4].key, "a.toys.count"); /* the total: "a" of "a.t0" */
  CU_ASSERT_EQUAL(r.entries[4].i, 33);
  const struct sim_report_entry *en = sim_report_find(&r, "a.t1.span");
  CU_ASSERT_TRUE(en && en->i == 1000 && en->dim == UNIT_TIME && !en->is_real &&
                 en->decl == &toy_outs[TOY_SPAN] && en->comp == 1);
  en = sim_report_find(&r, "a.t2.mean");
  CU_ASSERT_TRUE(en && en->is_real && en->d == 1.0 && en->dim == UNIT_NONE);
  en = sim_report_find(&r, "a.t2.even");
  CU_ASSERT_TRUE(en && en->dim == UNIT_SIZE && en->i == 64);
  /* By handle: toy 2's count is 10 + 2; toy 1 did not report its bytes. */
  struct sim_comp *t1 = sim_comp_get(e, 1), *t2 = sim_comp_get(e, 2);
  CU_ASSERT_EQUAL(sim_out_value(&r, t2, &toy_outs[TOY_COUNT]), 12);
  CU_ASSERT_EQUAL(sim_out_value(&r, t1, &toy_outs[TOY_SPAN]), 1000);
  CU_ASSERT_PTR_NULL(sim_out_get(&r, t1, &toy_outs[TOY_EVEN]));
  CU_ASSERT_PTR_EQUAL(sim_out_get(&r, t2, &toy_outs[TOY_EVEN]), sim_report_find(&r, "a.t2.even"));
  sim_report_clear(&r);
  sim_free(e);
}

/* Runs toy 1's finish under MODE into a fresh report: what sim_out_check
 * says of it (NULL: nothing wrong). */
static char *check_mode(int mode) {
  toy_mode = mode;
  struct sim_engine *e = three_toys();
  struct sim_report r;
  sim_report_init(&r);
  struct sim_comp *t1 = sim_comp_get(e, 1);
  toy_finish(t1, &r);
  char *err = NULL;
  bool ok = sim_out_check(&r, 0, t1, &err);
  CU_ASSERT_EQUAL(ok, err == NULL);
  sim_report_clear(&r);
  sim_free(e);
  toy_mode = TOY_RIGHT;
  return err;
}

static void test_check_catches_a_wrong_finish(void) {
  char *err = check_mode(TOY_RIGHT);
  CU_ASSERT_PTR_NULL(err);
  err = check_mode(TOY_FORGETS);
  CU_ASSERT_STRING_EQUAL(err, "a.t1: never reported a.t1.span, which its type toy declares");
  g_free(err);
  err = check_mode(TOY_TWICE);
  CU_ASSERT_STRING_EQUAL(err, "a.t1: reported a.t1.count twice");
  g_free(err);
  err = check_mode(TOY_UNDECLARED);
  CU_ASSERT_STRING_EQUAL(err, "a.t1: reported a.t9.made_up, which its type toy does not declare");
  g_free(err);
}

static void finish_forgetting(void *arg) {
  toy_mode = TOY_FORGETS;
  struct sim_engine *e = three_toys();
  struct sim_report r;
  sim_report_init(&r);
  sim_finish(e, &r);
}

static void read_other_handle(void *arg) {
  struct sim_engine *e = three_toys();
  struct sim_report r;
  sim_report_init(&r);
  sim_finish(e, &r);
  sim_out_get(&r, sim_comp_get(e, 0), &other_outs[OTHER_X]);
}

static void report_real_as_int(void *arg) {
  struct sim_engine *e = three_toys();
  struct sim_report r;
  sim_report_init(&r);
  sim_out_int(&r, sim_comp_get(e, 0), TOY_MEAN, 1);
}

static void report_past_the_table(void *arg) {
  struct sim_engine *e = three_toys();
  struct sim_report r;
  sim_report_init(&r);
  sim_out_int(&r, sim_comp_get(e, 0), TOY_N, 1);
}

static void expect_fault(void (*fn)(void *), const char *want) {
  char *err = NULL;
  CU_ASSERT_TRUE(tu_dies(fn, NULL, &err));
  if (!strstr(err, want)) fprintf(stderr, "\n  stderr: %s  want: %s\n", err, want);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
  g_free(err);
}

static void test_faults(void) {
  /* sim_finish checks every component: a forgotten output stops the run. */
  expect_fault(finish_forgetting, "sim_finish: a.t0: never reported a.t0.span");
  expect_fault(read_other_handle,
               "a.t0: asked for output x, which its type toy does not declare");
  expect_fault(report_real_as_int, "a.t0: output toy.mean is declared real, reported as an integer");
  expect_fault(report_past_the_table, "a.t0: reports output 5, which its type toy does not declare");
}

static void test_groups_are_well_formed(void) {
  char *err = NULL;
  CU_ASSERT_TRUE(sim_outputs_valid(&toy_outputs, &err));
  /* A hole in the table (an enum entry without its declaration). */
  static const struct sim_out_decl holes[3] = {[0] = OUT(a, UNIT_NONE, "a"),
                                               [2] = OUT(c, UNIT_NONE, "c")};
  const struct sim_outputs g1 = {"holes", "KEY", holes, 3};
  CU_ASSERT_FALSE(sim_outputs_valid(&g1, &err));
  CU_ASSERT_STRING_EQUAL(err, "outputs holes: entry 1 of 3 has no key (a handle without its "
                              "declaration)");
  g_free(err);
  static const struct sim_out_decl twice[] = {OUT(a, UNIT_NONE, "a"), OUT(a, UNIT_TIME, "b")};
  const struct sim_outputs g2 = {"twice", "KEY", twice, 2};
  CU_ASSERT_FALSE(sim_outputs_valid(&g2, &err));
  CU_ASSERT_STRING_EQUAL(err, "outputs twice: key 'a' declared twice");
  g_free(err);
  /* A space only in a phase ("cpu compute"); a phase is a whole time. */
  static const struct sim_out_decl spaced[] = {{"a b", UNIT_TIME, 0, "a"}};
  const struct sim_outputs g3 = {"spaced", "KEY", spaced, 1};
  CU_ASSERT_FALSE(sim_outputs_valid(&g3, &err));
  g_free(err);
  static const struct sim_out_decl ph[] = {{"a b", UNIT_TIME, SIM_OUT_PHASE, "a"},
                                           {"c", UNIT_SIZE, SIM_OUT_PHASE, "c"}};
  const struct sim_outputs g4 = {"ph", "KEY", ph, 1}, g5 = {"ph", "KEY", ph, 2};
  CU_ASSERT_TRUE(sim_outputs_valid(&g4, &err));
  CU_ASSERT_FALSE(sim_outputs_valid(&g5, &err));
  CU_ASSERT_STRING_EQUAL(err, "outputs ph: phase 'c': expected an integer time");
  g_free(err);
  /* Every group the program declares: well formed, names unique; the
   * models' come first, the phases among them, nine in phase.h's order. */
  size_t n;
  const struct sim_outputs *const *g = wl_outputs(&n);
  CU_ASSERT(n >= 6);
  for (size_t i = 0; i < n; i++) {
    err = NULL;
    if (!sim_outputs_valid(g[i], &err)) fprintf(stderr, "\n  %s\n", err);
    CU_ASSERT_PTR_NULL(err);
    g_free(err);
    for (size_t k = 0; k < i; k++) CU_ASSERT_STRING_NOT_EQUAL(g[i]->name, g[k]->name);
  }
  CU_ASSERT_PTR_EQUAL(g[5], &ph_outputs);
  CU_ASSERT_EQUAL(ph_outputs.n_decls, 9);
  CU_ASSERT_STRING_EQUAL(ph_outs[PH_HOST_STACK].key, "host stack");
}

static void test_phases_and_sums(void) {
  struct sim_report ph, counters;
  sim_report_init(&ph);
  sim_report_init(&counters);
  ph_preset(&ph);
  CU_ASSERT_EQUAL_FATAL(ph.n, PH_COUNT);
  CU_ASSERT_STRING_EQUAL(ph.entries[0].key, "launch");
  CU_ASSERT_STRING_EQUAL(ph.entries[PH_WAITING].key, "waiting");
  /* A component's finish adds to the run's phases: 5 + 7 = 12 ps. */
  counters.phases = &ph;
  ph_add(&counters, PH_WIRE, 5);
  ph_add(&counters, PH_WIRE, 7);
  CU_ASSERT_EQUAL(sim_report_find(&ph, "wire")->i, 12);
  CU_ASSERT_EQUAL(counters.n, 0);
  /* Summed into another report by key, declarations kept. */
  struct sim_report sum;
  sim_report_init(&sum);
  sim_report_sum(&sum, &ph);
  sim_report_sum(&sum, &ph);
  CU_ASSERT_EQUAL(sum.n, PH_COUNT);
  const struct sim_report_entry *w = sim_report_find(&sum, "wire");
  CU_ASSERT_TRUE(w && w->i == 24 && w->decl == &ph_outs[PH_WIRE]);
  sim_report_clear(&sum);
  sim_report_clear(&ph);
  sim_report_clear(&counters);
}

/* The listing: each group's keys with their unit and doc, as declared. */
static void test_listing(void) {
  char *out = NULL, *err = NULL;
  CU_ASSERT_EQUAL_FATAL(tu_trigsim((const char *[]){"outputs", NULL}, &out, NULL), 0);
  size_t n;
  const struct sim_outputs *const *g = wl_outputs(&n);
  for (size_t i = 0; i < n; i++) {
    char *head = g_strdup_printf("%s: %s\n", g[i]->name, g[i]->where);
    const char *section = strstr(out, head);
    CU_ASSERT_PTR_NOT_NULL_FATAL(section);
    g_free(head);
    for (size_t k = 0; k < g[i]->n_decls; k++) {
      const struct sim_out_decl *d = &g[i]->decls[k];
      /* "  KEY  <pad>UNIT  <pad>DOC" on one line of the group's section. */
      char *line_start = g_strdup_printf("\n  %s ", d->key);
      const char *at = strstr(section, line_start);
      CU_ASSERT_PTR_NOT_NULL(at);
      if (at) {
        char *line = g_strndup(at + 1, strcspn(at + 1, "\n"));
        CU_ASSERT_PTR_NOT_NULL(strstr(line, sim_out_unit(d)));
        CU_ASSERT_PTR_NOT_NULL(strstr(line, d->doc));
        g_free(line);
      }
      g_free(line_start);
    }
  }
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"outputs", "cpu", NULL}, &out, NULL), 0);
  CU_ASSERT_TRUE(g_str_has_prefix(out, "cpu: node<i>.cpu.KEY"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "  main_done  "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "time (ps)"));
  CU_ASSERT_PTR_NULL(strstr(out, "gpu:"));
  CU_ASSERT_PTR_NULL(strstr(out, "wg_last_end"));
  g_free(out);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"outputs", "swich", NULL}, NULL, &err), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "outputs: expected an output group (did you mean 'switch'?), "
                                     "got swich"));
  g_free(err);
}

int main(void) {
  const struct tu_test tests[] = {
      {"report and read by handle", test_report_and_read_by_handle},
      {"a finish that leaves out, repeats or invents an output", test_check_catches_a_wrong_finish},
      {"a wrong handle is a fault", test_faults},
      {"every declared group is well formed", test_groups_are_well_formed},
      {"phases by handle, reports summed", test_phases_and_sums},
      {"trigsim outputs lists the declarations", test_listing},
      {NULL, NULL},
  };
  return tu_run_suite("outputs", tests);
}
