/* trigsim fit (tools/app/fit.c): parameters recovered from targets the
 * simulator itself made with known values, bounds that hold, errors that
 * name the fit file's key, and the committed GPU-TN fit reproduced byte
 * for byte. */
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fit.h"
#include "points.h"
#include "sweep_run.h"
#include "testutil.h"

/* A ping on the GPU-TN profile under cpu and hdn (a temp file). */
static char *ping_scenario(void) {
  const char *configs = g_getenv("TRIGSIM_CONFIGS");
  g_assert(configs);
  char *text = g_strdup_printf("include: %s/hw/gputn-sc17.yaml\n"
                               "workload: {kind: ping, size: 8B, wgs: 1, flops_per_wg: 256, "
                               "bytes_per_wg: 0B}\n"
                               "policies: [cpu, hdn]\n",
                               configs);
  char *p = tu_temp_file(".yaml", text, strlen(text));
  g_free(text);
  return p;
}

/* Policy POLICY's total time (0: cpu, 1: hdn) and the receiver's
 * recv_time counter of the ping, simulated with SETS. */
static void simulate(const char *scenario, char **sets, size_t policy, double *total_ps,
                     double *recv_ps) {
  struct points pts;
  char *err = NULL;
  CU_ASSERT_TRUE_FATAL(pts_load(scenario, sets, NULL, &pts, &err));
  struct sim_result *runs = NULL;
  size_t n = 0;
  CU_ASSERT_TRUE_FATAL(pts_run_point(&pts, 0, &runs, &n, &err));
  *total_ps = (double)runs[policy].total_ps;
  *recv_ps = (double)sim_report_find(&runs[policy].counters, "node1.cpu.recv_time")->i;
  for (size_t i = 0; i < n; i++) sim_result_clear(&runs[i]);
  g_free(runs);
  pts_free(&pts);
}

static struct fit *load(const char *text, char **err) {
  char *path = tu_temp_file(".fit.yaml", text, strlen(text));
  struct fit *f = fit_load(path, err);
  g_free(path);
  return f;
}

/* The fit file TEXT loaded and run on JOBS threads (NULL when either failed). */
static struct fit *fitted(const char *text, unsigned jobs) {
  char *err = NULL;
  struct fit *f = load(text, &err);
  if (f && fit_run(f, jobs, NULL, &err) != 0) {
    fit_free(f);
    f = NULL;
  }
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  return f;
}

/* Parameter PATH's fitted value and active bound. */
static double value_of(const struct fit *f, const char *path, int *bound) {
  double v = NAN, s = 0;
  int b = 0;
  CU_ASSERT_TRUE(fit_value(f, path, &v, &s, &b));
  if (bound) *bound = b;
  return v;
}

/* What fit_write writes (free). */
static char *written(const struct fit *f, const char *out_path) {
  char *buf = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&buf, &len);
  fit_write(f, out_path, out);
  fclose(out);
  return buf;
}

/* Known values: send 700 ns, recv 300 ns. The cpu ping is then, by hand
 * (tests/test_policy.c's derivation): 1 ns compute + build 200 + send 700
 * + bus 102 + the put's leg 686.26 + recv 300 = 1989.26 ns, and the
 * receiver's recv_time counter is recv itself. Fitted from 1.5 us and
 * 1 us, both come back to within 5 ps (the simulator resolves 1 ps). The
 * recv_time target is read from a file as a [median, spread] pair, as a
 * calibrate profile's measurements are. */
static void test_recovers_known_parameters(void) {
  char *scen = ping_scenario();
  char *sets[] = {"hardware.cpu.send=700ns", "hardware.cpu.recv=300ns", NULL};
  double total = 0, recv = 0;
  simulate(scen, sets, 0, &total, &recv);
  CU_ASSERT_EQUAL(total, 1989260);
  CU_ASSERT_EQUAL(recv, 300000);
  char *meas_text = g_strdup_printf("measured:\n  recv: [%.0fps, 0.01]\n", recv);
  char *meas = tu_temp_file(".yaml", meas_text, strlen(meas_text));
  char *text = g_strdup_printf(
      "scenarios: {ping: %s}\n"
      "parameters:\n"
      "  hardware.cpu.send: {start: 1.5us, min: 100ns, max: 3us}\n"
      "  hardware.cpu.recv: {start: 1us, min: 50ns, max: 2us}\n"
      "targets:\n"
      "  - {scenario: ping, policy: cpu, value: %.0fps}\n"
      "  - {scenario: ping, policy: cpu, counter: node1.cpu.recv_time,\n"
      "     value: {from: %s, key: measured.recv}}\n",
      scen, total, meas);
  struct fit *f = fitted(text, 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  int bound = 9;
  CU_ASSERT_DOUBLE_EQUAL(value_of(f, "hardware.cpu.send", &bound), 700000, 5);
  CU_ASSERT_EQUAL(bound, 0);
  CU_ASSERT_DOUBLE_EQUAL(value_of(f, "hardware.cpu.recv", NULL), 300000, 5);
  double v, sd;
  CU_ASSERT_FALSE(fit_value(f, "hardware.cpu.build_cmd", &v, &sd, &bound));
  /* Two targets, two parameters: 0 degrees of freedom, so no sigma (issue
   * 33: a sigma was printed from the unscaled covariance). */
  CU_ASSERT_TRUE(fit_value(f, "hardware.cpu.send", &v, &sd, &bound));
  CU_ASSERT_TRUE(isnan(sd));
  char *frag = written(f, NULL);
  CU_ASSERT_PTR_NOT_NULL(strstr(frag, "no sigma with as many targets as parameters (0 degrees of freedom)"));
  CU_ASSERT_PTR_NULL(strstr(frag, "(1 sigma)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(frag, "sigma: undetermined"));
  CU_ASSERT_PTR_NOT_NULL(strstr(frag, "dof: 0}"));
  free(frag);
  fit_free(f);
  g_free(text);
  g_free(meas_text);
  g_free(meas);
  g_free(scen);
}

/* A table's point: hardware.gpu.launch_table@1 is the launch latency at
 * queue depth 1 (and, the table's only point, at every depth). With the
 * host noticing a kernel's end at once (switch poll interval 0: no 500 ns
 * staircase, which finite differences cannot follow), the hdn ping with
 * "1:2us" takes 0.5 us longer than with the 1.5 us default: the launch is
 * on its path once (test_policy.c's derivation). Fitted from 3 us, the
 * point comes back to 2 us within 5 ps and the fragment writes the table. */
static void test_recovers_a_table_point(void) {
  char *scen = ping_scenario();
  char *sets[] = {"hardware.gpu.launch_table=1:2us", "hardware.cpu.switch_poll_interval=0ps", NULL};
  char *base_sets[] = {"hardware.cpu.switch_poll_interval=0ps", NULL};
  double total = 0, recv = 0, base = 0;
  simulate(scen, sets, 1, &total, &recv);
  simulate(scen, base_sets, 1, &base, &recv);
  CU_ASSERT_EQUAL(total, base + 500000);
  char *text = g_strdup_printf("scenarios: {ping: %s}\n"
                               "parameters:\n"
                               "  hardware.gpu.launch_table@1: {start: 3us, min: 100ns, max: 10us}\n"
                               "targets:\n"
                               "  - {scenario: ping, policy: hdn, value: %.0fps,\n"
                               "     at: {hardware.cpu.switch_poll_interval: 0ps}}\n",
                               scen, total);
  struct fit *f = fitted(text, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_DOUBLE_EQUAL(value_of(f, "hardware.gpu.launch_table@1", NULL), 2000000, 5);
  char *buf = written(f, NULL);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "    launch_table: \"1:"));
  free(buf);
  fit_free(f);
  g_free(text);
  g_free(scen);
}

/* A target out of reach: the cpu ping at 6.5 us needs send = 6.5 - 1.989
 * + 0.7 = 5.2 us, above the 3 us bound. The fit stops at the bound, never
 * beyond it, and says it is active; every evaluation stayed inside (the
 * logistic map cannot leave it). HDN over CPU, a ratio, goes with it. */
static void test_bounds_hold(void) {
  char *scen = ping_scenario();
  char *text = g_strdup_printf("scenarios: {ping: %s}\n"
                               "parameters:\n"
                               "  hardware.cpu.send: {start: 1.5us, min: 100ns, max: 3us}\n"
                               "targets:\n"
                               "  - {scenario: ping, policy: cpu, value: 6.5us}\n"
                               "  - {scenario: ping, policy: cpu, over: hdn, value: 1.2}\n",
                               scen);
  struct fit *f = fitted(text, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  int bound = 0;
  double v = value_of(f, "hardware.cpu.send", &bound);
  CU_ASSERT_TRUE(v <= 3000000 && v > 2990000);
  CU_ASSERT_EQUAL(bound, 1);
  char *buf = written(f, NULL);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "AT ITS MAX"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "active_bound: max"));
  free(buf);
  fit_free(f);
  g_free(text);
  g_free(scen);
}

/* Two targets one parameter cannot both meet: the receiver's recv_time
 * counter is hardware.cpu.recv itself, wanted at 100 ns and at 400 ns.
 * Relative residuals ((x - 100) / 100, (x - 400) / 400) are least at x =
 * (100 / 100^2 + 400 / 400^2) / (1 / 100^2 + 1 / 400^2) = 117.647 ns: the
 * factor over (4) costs more than the factor under; log residuals (ln(x /
 * 100), ln(x / 400)) at the geometric mean, 200 ns, each target off by
 * the same factor 2. A log residual needs positive targets. */
static void test_log_residual(void) {
  char *scen = ping_scenario();
  const char *forms[] = {"", "options: {residual: relative}\n", "options: {residual: log}\n"};
  const double want[] = {117647, 117647, 200000};
  for (int i = 0; i < 3; i++) {
    char *text = g_strdup_printf(
        "scenarios: {ping: %s}\n"
        "parameters:\n"
        "  hardware.cpu.recv: {start: 1us, min: 10ns, max: 2us}\n"
        "targets:\n"
        "  - {scenario: ping, policy: cpu, counter: node1.cpu.recv_time, value: 100ns}\n"
        "  - {scenario: ping, policy: cpu, counter: node1.cpu.recv_time, value: 400ns}\n%s",
        scen, forms[i]);
    struct fit *f = fitted(text, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_DOUBLE_EQUAL(value_of(f, "hardware.cpu.recv", NULL), want[i], 20);
    char *frag = written(f, NULL);
    CU_ASSERT_PTR_NOT_NULL(strstr(frag, i == 2 ? "residual = weight * ln(achieved / target)"
                                               : "residual = weight * (achieved - target) / |target|"));
    free(frag);
    fit_free(f);
    g_free(text);
  }
  const char *bad[] = {"options: {residual: squared}\n", "options: {residual: log}\n"};
  const char *msg[] = {"options.residual: expected relative or log, got 'squared'",
                       ":5:53: targets[0].value: expected a positive target (options.residual: "
                       "log takes the logarithm of achieved / target), got -1"};
  const char *val[] = {"1.5", "-1"};
  for (int i = 0; i < 2; i++) {
    char *text = g_strdup_printf(
        "scenarios: {ping: %s}\nparameters:\n  hardware.cpu.recv: {start: 1us, min: 10ns, max: 2us}\n"
        "targets:\n  - {scenario: ping, policy: cpu, over: hdn, value: %s}\n%s",
        scen, val[i], bad[i]);
    char *err = NULL;
    struct fit *f = load(text, &err);
    CU_ASSERT_PTR_NULL(f);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, msg[i]));
    if (err && !strstr(err, msg[i])) fprintf(stderr, "got: %s\nwant: %s\n", err, msg[i]);
    g_free(err);
    fit_free(f);
    g_free(text);
  }
  g_free(scen);
}

/* Errors name the fit file's line, column and key: an unknown parameter
 * path (with a hint), a bound outside the declared range, an unknown
 * scenario or policy of a target, and a counter no run reports (found
 * while running). */
static void test_errors_name_the_key(void) {
  char *scen = ping_scenario();
  struct {
    const char *param, *target, *want;
  } cases[] = {
      {"hardware.cpu.sendd: {start: 1us, min: 0ps, max: 2us}", "{scenario: ping, policy: cpu, value: 2us}",
       ":3:3: parameters.hardware.cpu.sendd: expected a declared parameter"},
      {"hardware.cpu.send: {start: 1us, min: 0ps, max: 2s}", "{scenario: ping, policy: cpu, value: 2us}",
       ":3:50: parameters.hardware.cpu.send.max: expected a time in the parameter's declared range [0ps, 1s], got '2s'"},
      {"hardware.cpu.send: {start: 1us, min: 0ps, max: 2us}", "{scenario: pong, policy: cpu, value: 2us}",
       ":5:16: targets[0].scenario: expected one of the fit's scenarios (ping), got 'pong'"},
      {"hardware.cpu.send: {start: 1us, min: 0ps, max: 2us}", "{scenario: ping, policy: gptun, value: 2us}",
       ":5:30: targets[0].policy: expected a policy the ping workload of scenario ping runs (did you "
       "mean 'gputn'?), got 'gptun'"},
  };
  for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
    char *text = g_strdup_printf("scenarios: {ping: %s}\nparameters:\n  %s\ntargets:\n  - %s\n", scen,
                                 cases[i].param, cases[i].target);
    char *err = NULL;
    struct fit *f = load(text, &err);
    CU_ASSERT_PTR_NULL(f);
    CU_ASSERT_PTR_NOT_NULL(err && strstr(err, cases[i].want));
    if (err && !strstr(err, cases[i].want)) fprintf(stderr, "got: %s\nwant: %s\n", err, cases[i].want);
    g_free(err);
    fit_free(f);
    g_free(text);
  }
  /* Through the program: exit 2, the message, no output file. */
  char *text = g_strdup_printf("scenarios: {ping: %s}\nparameters:\n"
                               "  hardware.cpu.send: {start: 1us, min: 0ps, max: 2us}\n"
                               "targets:\n  - {scenario: ping, policy: cpu, counter: node1.cpu.rcv_time, "
                               "value: 300ns}\n",
                               scen);
  char *path = tu_temp_file(".fit.yaml", text, strlen(text));
  char *dir = g_dir_make_tmp("trigsim-fit-XXXXXX", NULL);
  char *out_path = g_build_filename(dir, "fitted.yaml", NULL);
  char *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"fit", path, "-o", out_path, "-q", NULL}, NULL, &err), 2);
  char *want = g_strdup_printf("%s:5:44: targets[0].counter: expected a counter of the run", path);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "did you mean 'node1.cpu.recv_time'?"));
  CU_ASSERT_FALSE(g_file_test(out_path, G_FILE_TEST_EXISTS));
  g_free(want);
  g_free(err);
  g_rmdir(dir);
  g_free(out_path);
  g_free(dir);
  g_free(path);
  g_free(text);
  g_free(scen);
}

/* A scenario that includes the file the fit writes would run every
 * evaluation on the previous fit's values, including values this fit no
 * longer declares: the fit refuses it before running (exit 2, the fit
 * file, the scenario's key, the include's place), and leaves the file as
 * it was; written elsewhere, the same fit passes the check. */
static void test_refuses_its_own_output(void) {
  const char *configs = g_getenv("TRIGSIM_CONFIGS");
  g_assert(configs);
  char *dir = g_dir_make_tmp("trigsim-fit-XXXXXX", NULL);
  char *prev = g_build_filename(dir, "fitted.yaml", NULL);
  const char *prev_text = "hardware:\n  cpu:\n    send: 500ns\n";
  CU_ASSERT_TRUE_FATAL(g_file_set_contents(prev, prev_text, -1, NULL));
  char *scen_text = g_strdup_printf("include: [%s/hw/gputn-sc17.yaml, %s]\n"
                                    "workload: {kind: ping, size: 8B, wgs: 1, flops_per_wg: 256, "
                                    "bytes_per_wg: 0B}\npolicies: [cpu, hdn]\n",
                                    configs, prev);
  char *scen = tu_temp_file(".yaml", scen_text, strlen(scen_text));
  char *text = g_strdup_printf("scenarios: {ping: %s}\nparameters:\n"
                               "  hardware.cpu.send: {start: 1us, min: 0ps, max: 2us}\n"
                               "targets:\n  - {scenario: ping, policy: cpu, value: 2us}\n",
                               scen);
  char *path = tu_temp_file(".fit.yaml", text, strlen(text));
  char *err = NULL;
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"fit", path, "-o", prev, "-q", NULL}, NULL, &err), 2);
  char *want = g_strdup_printf("%s: scenarios.ping: expected a scenario that takes no values from "
                               "the file this fit writes (%s), got %s, which takes one at %s:3:11",
                               path, prev, scen, prev);
  CU_ASSERT_PTR_NOT_NULL(err && strstr(err, want));
  if (err && !strstr(err, want)) fprintf(stderr, "got: %s\nwant: %s\n", err, want);
  char *now = NULL;
  CU_ASSERT_TRUE(g_file_get_contents(prev, &now, NULL, NULL));
  CU_ASSERT_STRING_EQUAL(now, prev_text);
  g_free(err);
  err = NULL;
  struct fit *f = fit_load(path, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  char *other = g_build_filename(dir, "other.yaml", NULL);
  CU_ASSERT_TRUE(fit_check_output(f, other, &err)); /* not there yet */
  CU_ASSERT_TRUE(g_file_set_contents(other, prev_text, -1, NULL));
  CU_ASSERT_TRUE(fit_check_output(f, other, &err)); /* there, but not included */
  CU_ASSERT_FALSE(fit_check_output(f, prev, &err));
  fit_free(f);
  g_free(err);
  g_remove(other);
  g_remove(prev);
  g_rmdir(dir);
  g_free(other);
  g_free(now);
  g_free(want);
  g_free(path);
  g_free(text);
  g_free(scen);
  g_free(scen_text);
  g_free(prev);
  g_free(dir);
}

/* The committed fit of GPU-TN Fig. 8 gives the committed fitted profile,
 * byte for byte, on 1 thread and on 2: the profile is what the fit file
 * says, and the fit is deterministic. */
static void test_committed_gputn_fit_reproduces(void) {
  char *root = g_path_get_dirname(g_getenv("TRIGSIM_CONFIGS"));
  CU_ASSERT_EQUAL_FATAL(g_chdir(root), 0);
  const char *fit_path = "configs/gputn-sc17/fig8.fit.yaml", *out_path = "configs/hw/gputn-sc17-fitted.yaml";
  char *want = NULL;
  CU_ASSERT_TRUE_FATAL(g_file_get_contents(out_path, &want, NULL, NULL));
  for (unsigned jobs = 1; jobs <= 2; jobs++) {
    char *err = NULL;
    struct fit *f = fit_load(fit_path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fit_run(f, jobs, NULL, &err), 0);
    char *buf = written(f, out_path);
    CU_ASSERT_STRING_EQUAL(buf, want);
    free(buf);
    fit_free(f);
  }
  g_free(want);
  g_free(root);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"known parameters recovered from the simulator's own targets", test_recovers_known_parameters},
      {"a table's point recovered", test_recovers_a_table_point},
      {"bounds hold and an active one is reported", test_bounds_hold},
      {"log residuals weigh a factor over and under alike", test_log_residual},
      {"errors name the fit file's key", test_errors_name_the_key},
      {"a scenario that includes the fit's own output is refused", test_refuses_its_own_output},
      {"the committed GPU-TN Fig. 8 fit reproduces its profile", test_committed_gputn_fit_reproduces},
      {NULL, NULL}};
  return tu_run_suite("fit", tests);
}
