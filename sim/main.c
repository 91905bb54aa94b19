/* trigsim: the command line. Subcommands run, validate and params; option
 * parsing by GLib. Exit status: 0 done, 1 an output could not be written,
 * 2 bad input (scenario, option or argument). */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "result.h"
#include "scenario.h"
#include "calib.h"
#include "trace.h"
#include "workload.h"

#define EXIT_INPUT 2

static const char *const commands[] = {"run", "validate", "params", "calibrate", "validate-real"};

static int usage_error(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("trigsim: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs("\n", stderr);
  va_end(ap);
  return EXIT_INPUT;
}

static void print_help(FILE *out) {
  fputs("Usage: trigsim COMMAND [OPTION...]\n\n"
        "Simulates the control paths of multi-GPU, multi-node programs.\n\n"
        "Commands:\n"
        "  run SCENARIO       simulate every policy of a scenario and print the results\n"
        "  validate SCENARIO  check a scenario without running it\n"
        "  params [GROUP]     list every parameter with unit, default, range and doc\n"
        "  calibrate --out PROFILE  measure the OpenCL device into a hardware profile\n"
        "  validate-real PROFILE    real Jacobi loop on the device beside the prediction\n\n"
        "Options:\n"
        "  -h, --help         show this help (also: trigsim COMMAND --help)\n"
        "  --version          print the version\n",
        out);
}

/* Parses OPTIONS out of ARGV; on error prints it and returns false. */
static bool parse_options(int *argc, char ***argv, const char *params, const char *summary,
                          const GOptionEntry *entries) {
  GOptionContext *ctx = g_option_context_new(params);
  g_option_context_set_summary(ctx, summary);
  g_option_context_add_main_entries(ctx, entries, NULL);
  GError *gerr = NULL;
  bool ok = g_option_context_parse(ctx, argc, argv, &gerr);
  if (!ok) {
    usage_error("%s (see trigsim %s --help)", gerr->message, (*argv)[0]);
    g_error_free(gerr);
  }
  g_option_context_free(ctx);
  return ok;
}

static struct scenario *load_scenario(const char *path, char **sets, char **err) {
  size_t n_sets = sets ? g_strv_length(sets) : 0;
  struct scenario *sc = scenario_load(path, (const char *const *)sets, n_sets, &wl_catalog, err);
  if (sc && !wl_check_policies(sc, err)) {
    scenario_free(sc);
    sc = NULL;
  }
  return sc;
}

static bool parse_format(const char *text, enum result_format *fmt) {
  if (!text || !strcmp(text, "table")) *fmt = RESULT_TABLE;
  else if (!strcmp(text, "csv")) *fmt = RESULT_CSV;
  else if (!strcmp(text, "json")) *fmt = RESULT_JSON;
  else return false;
  return true;
}

/* Writes the results to PATH through a temporary file, or to stdout. */
static bool write_results(const char *path, const struct sim_result_set *set,
                          enum result_format fmt) {
  if (!path) {
    result_write(stdout, set, fmt);
    return fflush(stdout) == 0;
  }
  char *tmp = g_strdup_printf("%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  bool ok = f != NULL;
  if (f) {
    result_write(f, set, fmt);
    ok = !ferror(f);
    ok = (fclose(f) == 0) && ok;
    ok = ok && g_rename(tmp, path) == 0;
  }
  if (!ok) {
    fprintf(stderr, "trigsim: %s: cannot write: %s\n", path, g_strerror(errno));
    g_unlink(tmp);
  }
  g_free(tmp);
  return ok;
}

static int cmd_run(int argc, char **argv) {
  char **sets = NULL;
  char *format = NULL, *trace_path = NULL, *seed_text = NULL, *output = NULL;
  const GOptionEntry entries[] = {
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override a parameter (repeatable)",
       "PATH=VALUE"},
      {"format", 'f', 0, G_OPTION_ARG_STRING, &format, "Output format: table (default), csv, json",
       "FORMAT"},
      {"trace", 't', 0, G_OPTION_ARG_FILENAME, &trace_path,
       "Write a Chrome trace-event timeline (opens in Perfetto)", "FILE"},
      {"seed", 0, 0, G_OPTION_ARG_STRING, &seed_text, "Override the scenario's seed", "N"},
      {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write results to FILE, not stdout",
       "FILE"},
      {NULL}};
  int status = EXIT_INPUT;
  struct scenario *sc = NULL;
  struct trace *trace = NULL;
  struct sim_result *runs = NULL;
  size_t n_runs = 0;
  char *err = NULL;
  enum result_format fmt;

  if (!parse_options(&argc, &argv, "SCENARIO", "Simulate every policy of a scenario.", entries))
    goto out;
  if (argc != 2) {
    usage_error("run: expected one SCENARIO file, got %d arguments", argc - 1);
    goto out;
  }
  if (!parse_format(format, &fmt)) {
    usage_error("--format: expected table, csv or json, got %s", format);
    goto out;
  }
  guint64 seed = 0;
  GError *gerr = NULL;
  if (seed_text && !g_ascii_string_to_unsigned(seed_text, 10, 0, G_MAXUINT64, &seed, &gerr)) {
    usage_error("--seed: expected a non-negative integer, got %s", seed_text);
    g_error_free(gerr);
    goto out;
  }
  sc = load_scenario(argv[1], sets, &err);
  if (!sc) goto out;
  if (seed_text) sc->seed = seed;
  if (trace_path && !(trace = trace_open(trace_path, &err))) {
    status = 1;
    goto out;
  }
  const struct wl_type *w = wl_type_of(sc);
  runs = g_new0(struct sim_result, sc->n_policies);
  for (; n_runs < sc->n_policies; n_runs++) {
    struct sim_result *r = &runs[n_runs];
    sim_result_init(r, sc->policies[n_runs]);
    struct wl_ctx ctx = {.sc = sc, .config = sc->workload_config, .policy = sc->policies[n_runs],
                         .seed = sc->seed, .trace = trace};
    if (!w->run(&ctx, r, &err)) {
      n_runs++;
      goto out;
    }
  }
  struct sim_result_set set = {.scenario = sc->name, .workload = w->params->name,
                               .seed = sc->seed, .runs = runs, .n_runs = n_runs};
  status = write_results(output, &set, fmt) ? 0 : 1;
  if (trace) {
    struct trace *t = trace;
    trace = NULL;
    if (status == 0 && !trace_close(t, &err)) status = 1;
    else if (status != 0) trace_abort(t);
  }

out:
  if (err) fprintf(stderr, "%s\n", err);
  if (trace) trace_abort(trace);
  for (size_t i = 0; i < n_runs; i++) sim_result_clear(&runs[i]);
  g_free(runs);
  scenario_free(sc);
  g_free(err);
  g_strfreev(sets);
  g_free(format);
  g_free(trace_path);
  g_free(seed_text);
  g_free(output);
  return status;
}

static int cmd_validate(int argc, char **argv) {
  char **sets = NULL;
  const GOptionEntry entries[] = {
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override a parameter (repeatable)",
       "PATH=VALUE"},
      {NULL}};
  int status = EXIT_INPUT;
  if (!parse_options(&argc, &argv, "SCENARIO", "Check a scenario without running it.", entries))
    goto out;
  if (argc != 2) {
    usage_error("validate: expected one SCENARIO file, got %d arguments", argc - 1);
    goto out;
  }
  char *err = NULL;
  struct scenario *sc = load_scenario(argv[1], sets, &err);
  if (!sc) {
    fprintf(stderr, "%s\n", err);
    g_free(err);
    goto out;
  }
  printf("%s: ok: workload %s, %zu polic%s, seed %" PRIu64 "\n", argv[1],
         wl_type_of(sc)->params->name, sc->n_policies, sc->n_policies == 1 ? "y" : "ies",
         sc->seed);
  scenario_free(sc);
  status = 0;
out:
  g_strfreev(sets);
  return status;
}

static int cmd_params(int argc, char **argv) {
  const GOptionEntry entries[] = {{NULL}};
  if (!parse_options(&argc, &argv, "[GROUP]",
                     "List every parameter: key, type and unit, default, range, doc.", entries))
    return EXIT_INPUT;
  if (argc > 2) return usage_error("params: expected at most one GROUP, got %d", argc - 1);
  const struct sc_catalog *cat = &wl_catalog;
  GPtrArray *groups = g_ptr_array_new();
  for (size_t i = 0; i < cat->n_hardware; i++) g_ptr_array_add(groups, (gpointer)cat->hardware[i]);
  for (size_t i = 0; i < cat->n_workloads; i++) g_ptr_array_add(groups, (gpointer)cat->workloads[i]);
  const char *want = argc == 2 ? argv[1] : NULL;
  int shown = 0;
  for (guint i = 0; i < groups->len; i++) {
    const struct par_group *g = groups->pdata[i];
    if (want && strcmp(want, g->name)) continue;
    if (shown++) fputc('\n', stdout);
    par_group_print(g, stdout);
  }
  int status = 0;
  if (want && !shown) {
    const char **names = g_new(const char *, groups->len);
    for (guint i = 0; i < groups->len; i++) names[i] = ((const struct par_group *)groups->pdata[i])->name;
    const char *hint = par_suggest(want, names, groups->len);
    status = usage_error("params: expected a parameter group%s%s%s, got %s",
                         hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "", want);
    g_free(names);
  }
  g_ptr_array_free(groups, TRUE);
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_help(stderr);
    return EXIT_INPUT;
  }
  const char *cmd = argv[1];
  if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
    print_help(stdout);
    return 0;
  }
  if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
    printf("trigsim %s\n", TRIGSIM_VERSION);
    return 0;
  }
  if (!strcmp(cmd, "run")) return cmd_run(argc - 1, argv + 1);
  if (!strcmp(cmd, "validate")) return cmd_validate(argc - 1, argv + 1);
  if (!strcmp(cmd, "params")) return cmd_params(argc - 1, argv + 1);
  if (!strcmp(cmd, "calibrate")) return calib_cmd_calibrate(argc - 1, argv + 1);
  if (!strcmp(cmd, "validate-real")) return calib_cmd_validate_real(argc - 1, argv + 1);
  const char *hint = par_suggest(cmd, commands, G_N_ELEMENTS(commands));
  return usage_error("expected a command (run, validate, params, calibrate, validate-real)%s%s%s, got '%s'",
                     hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "", cmd);
}
