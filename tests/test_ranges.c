/* Every declared parameter at its minimum and at its maximum, one at a
 * time, on a small scenario of its group (tests/data/ranges/): `validate`
 * then a short `run` of the trigsim program. Cases come from the catalog's
 * declaration tables, so a new parameter is tested without editing this
 * file. The rules (README, exit statuses): no crash, no signal, no status
 * but 0, 2 or 3; and validate passes only what run accepts. */
#include <glib.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"
#include "workload.h"

/* Seconds one trigsim call may take before it counts as a hang; a
 * sanitizer build (about 10x slower) sets TRIGSIM_CASE_LIMIT_S. */
#define CASE_LIMIT_S "60"

/* Where a value is legal but simulates for long, the case also sets
 * others that shorten it without changing what is tested (the value is
 * still bound, checked, lowered and simulated), and its run leaves the
 * critical path untracked, as large runs do (`--critical-path off`: a
 * third of the time of 10^6 allreduces). */
static const struct {
  const char *group, *key, *value, *also;
} shorten[] = {
    /* 1000 s of 1 us holds is 10^9 events: hold and link for 1 s instead. */
    {"phold", "end_time", "1000s", "workload.mean_hold=1s,workload.link_latency=1s"},
    /* A 1 ps hold until 2 us is 2 * 10^6 events per LP: stop at 10 ns. */
    {"phold", "mean_hold", "1ps", "workload.end_time=10ns"},
    /* 10^5 sweeps: under cpufree alone (gputn's spilled trigger list
     * makes its run quadratic in the sweeps). */
    {"jacobi2d", "iterations", "100000", "policies=[cpufree]"},
    {"jacobi3d", "iterations", "100000", "policies=[cpufree]"},
    /* 10^6 CG iterations (a loop: the program stays one iteration long)
     * are 10^8 events under cpufree: under cpu, the fewest per iteration,
     * on one node (6 * 10^6 events; across two, each iteration's
     * allreduce crosses the switch and the case takes over 3 min under
     * ASan). */
    {"cg", "iterations", "1000000", "policies=[cpu],hardware.network.nodes=1"},
    /* 10^6 allreduces: 66 events each under hdn (91 s in CI's ASan
     * build, 180 s on a loaded machine), 24 under cpufree. */
    {"collective", "iterations", "1000000", "policies=[cpufree]"},
    /* 10^6 updates of each of 64 rows: 3 s in release; of 4 rows (a 2 x 2
     * grid) 0.4 s. */
    {"ajacobi", "updates", "1000000", "workload.grid=2"},
    /* 10^6 times a chain of 4 steps: under gds and hdn a kernel a step
     * (4.2 and 3.6 s in release, 180 s under ASan): under cpufree, one
     * kernel (1.9 s). */
    {"chain", "iterations", "1000000", "policies=[cpufree]"},
    /* 64 GiB in 4 KiB packets is 10^7 packets per step: 1 GiB ones. */
    {"allreduce", "size", "64GiB", "hardware.network.mtu=1GiB"},
    {"collective", "size", "16GiB", "hardware.network.mtu=1GiB"},
};

/* The status of trigsim ARGS..., killed after CASE_LIMIT_S; *ERR stderr. */
static int trigsim_limited(const char *const *args, char **err) {
  const char *bin = g_getenv("TRIGSIM_BIN");
  GPtrArray *a = g_ptr_array_new();
  g_ptr_array_add(a, (gpointer) "timeout");
  g_ptr_array_add(a, (gpointer) "-s");
  g_ptr_array_add(a, (gpointer) "KILL");
  const char *limit = g_getenv("TRIGSIM_CASE_LIMIT_S");
  g_ptr_array_add(a, (gpointer)(limit ? limit : CASE_LIMIT_S));
  g_ptr_array_add(a, (gpointer)(bin ? bin : "trigsim"));
  for (const char *const *p = args; *p; p++) g_ptr_array_add(a, (gpointer)*p);
  g_ptr_array_add(a, NULL);
  int status = -1;
  char *out = NULL;
  if (!g_spawn_sync(NULL, (char **)a->pdata, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, err,
                    &status, NULL))
    status = -1;
  else if (WIFEXITED(status))
    status = WEXITSTATUS(status); /* timeout's 137 for a kill */
  else
    status = 128 + WTERMSIG(status);
  g_free(out);
  g_ptr_array_free(a, TRUE);
  return status;
}

/* The last line of TEXT, for a failure report. */
static char *last_line(const char *text) {
  char *t = g_strstrip(g_strdup(text ? text : ""));
  const char *nl = strrchr(t, '\n');
  char *l = g_strdup(nl ? nl + 1 : t);
  g_free(t);
  return l;
}

/* One case: PATH=VALUE on BASE. Appends a line to FAILS when it breaks a rule. */
static void run_case(const char *base, const char *path, const char *value, const char *also,
                     GString *fails, unsigned *n_cases) {
  char *set = g_strdup_printf("%s=%s", path, value), *verr = NULL, *rerr = NULL;
  GPtrArray *sets = g_ptr_array_new_with_free_func(g_free);
  g_ptr_array_add(sets, g_strdup("--set"));
  g_ptr_array_add(sets, g_strdup(set));
  char **extra = g_strsplit(also ? also : "", ",", -1);
  for (char **e = extra; *e; e++) {
    g_ptr_array_add(sets, g_strdup("--set"));
    g_ptr_array_add(sets, g_strdup(*e));
  }
  g_strfreev(extra);
  const char *vargs[20] = {"validate", base}, *rargs[20] = {"run", base, "-f", "csv"};
  g_assert(sets->len <= 10);
  for (guint i = 0; i < sets->len; i++) vargs[2 + i] = rargs[4 + i] = sets->pdata[i];
  if (also) {
    rargs[4 + sets->len] = "--critical-path";
    rargs[5 + sets->len] = "off";
  }
  gint64 t0 = g_get_monotonic_time();
  int v = trigsim_limited(vargs, &verr);
  int r = trigsim_limited(rargs, &rerr);
  double s = (double)(g_get_monotonic_time() - t0) / 1e6;
  if (s > 2) fprintf(stderr, "  (slow case: %s took %.1f s)\n", set, s);
  g_ptr_array_free(sets, TRUE);
  (*n_cases)++;
  char *vl = last_line(verr), *rl = last_line(rerr);
  if (v != 0 && v != 2)
    g_string_append_printf(fails, "  %s: validate exited %d: %s\n", set, v, vl);
  if (r != 0 && r != 2 && r != 3)
    g_string_append_printf(fails, "  %s: run exited %d: %s\n", set, r, rl);
  else if (v == 0 && r == 2)
    g_string_append_printf(fails, "  %s: validate passed, run rejected: %s\n", set, rl);
  g_free(vl);
  g_free(rl);
  g_free(verr);
  g_free(rerr);
  g_free(set);
}

/* Every bounded parameter of G at both ends; PREFIX "hardware.gpu." or "workload.". */
static void run_group(const struct par_group *g, const char *base_name, const char *prefix,
                      GString *fails, unsigned *n_cases) {
  char *rel = g_strdup_printf("ranges/%s.yaml", base_name);
  char *base = tu_data(rel);
  g_free(rel);
  /* Every group needs its base scenario: without one, every case would
   * "pass" as an input error. */
  if (!g_file_test(base, G_FILE_TEST_IS_REGULAR))
    g_string_append_printf(fails, "  %s: no base scenario %s\n", g->name, base);
  for (size_t i = 0; i < g->n_decls; i++) {
    const struct par_decl *d = &g->decls[i];
    if (!d->min && !d->max) continue;
    char *path = g_strdup_printf("%s%s", prefix, d->key);
    const char *ends[2] = {d->min, d->max};
    for (int e = 0; e < 2; e++) {
      if (!ends[e]) continue;
      /* A table's range bounds its times: one point at that time. */
      char *value = d->type == PAR_TABLE ? g_strdup_printf("1:%s", ends[e]) : g_strdup(ends[e]);
      const char *also = NULL;
      for (size_t k = 0; k < G_N_ELEMENTS(shorten); k++)
        if (!strcmp(shorten[k].group, g->name) && !strcmp(shorten[k].key, d->key) &&
            !strcmp(shorten[k].value, value))
          also = shorten[k].also;
      run_case(base, path, value, also, fails, n_cases);
      g_free(value);
    }
    g_free(path);
  }
  g_free(base);
}

static void test_every_parameter_at_both_ends(void) {
  GString *fails = g_string_new(NULL);
  unsigned n_cases = 0;
  for (size_t h = 0; h < wl_catalog.n_hardware; h++) {
    const struct par_group *g = wl_catalog.hardware[h];
    char *prefix = g_strdup_printf("hardware.%s.", g->name);
    run_group(g, "hardware", prefix, fails, &n_cases);
    g_free(prefix);
  }
  for (size_t w = 0; w < wl_catalog.n_workloads; w++) {
    const struct par_group *g = wl_catalog.workloads[w];
    run_group(g, g->name, "workload.", fails, &n_cases);
  }
  fprintf(stderr, "(%u cases) ", n_cases);
  if (fails->len) fprintf(stderr, "\nparameter-range cases that break the rules:\n%s", fails->str);
  /* At least the ~160 bounded parameters of the catalog, two ends each. */
  CU_ASSERT_TRUE(n_cases > 200);
  CU_ASSERT_EQUAL(fails->len, 0);
  g_string_free(fails, TRUE);
}

int main(void) {
  return tu_run_suite("ranges", (const struct tu_test[]){
                                    {"every parameter at both ends", test_every_parameter_at_both_ends},
                                    {NULL, NULL}});
}
