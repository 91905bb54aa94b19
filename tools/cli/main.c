/* trigsim: the command line. Subcommands run, validate, params, outputs; option
 * parsing by GLib. Exit status: 0 done, 1 an output could not be written,
 * 2 bad input (scenario, option or argument), 3 the model failed (a
 * deadlock or an internal error, after the input was checked), 130
 * interrupted (a sweep). */
#include <errno.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "outfile.h"
#include "report.h"
#include "result.h"
#include "scenario.h"
#include "sweep.h"
#include "sweep_mpi.h"
#include "sweep_run.h"
#include "calib.h"
#include "cli.h"
#include "points.h"
#include "progress.h"
#include "trace.h"
#include "units.h"
#include "system.h"
#include "workload.h"

#define EXIT_INPUT 2
#define EXIT_MODEL 3

static const char *const commands[] = {"run",           "sweep",       "validate",
                                       "params",        "outputs",     "calibrate",
                                       "validate-real", "export-goal", "export-chakra",
                                       "fit"};

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
        "  sweep SCENARIO     run the points of a scenario's sweep: section in parallel\n"
        "  validate SCENARIO  check a scenario without running it\n"
        "  params [GROUP|KEY] list every parameter with unit, default, range and doc (or one)\n"
        "  outputs [GROUP]    list every reported output (counter, phase) with unit and doc\n"
        "  calibrate --out PROFILE  measure the OpenCL device into a hardware profile\n"
        "  validate-real PROFILE    real Jacobi loop on the device beside the prediction\n"
        "  export-goal SCENARIO     write the scenario's per-rank program as a GOAL schedule\n"
        "  export-chakra SCENARIO -o PREFIX  ... as Chakra traces PREFIX.<rank>.et\n"
        "  fit FIT                  fit parameters to targets; write them as a profile fragment\n\n"
        "Options:\n"
        "  -h, --help         show this help (also: trigsim COMMAND --help)\n"
        "  --version          print the version\n",
        out);
}

/* The result columns of the sweep axes: each axis path but `policy` (the
 * policy column shows it), and `rep` when points repeat. */
static GPtrArray *axis_columns(const struct sw_plan *plan) {
  GPtrArray *cols = g_ptr_array_new();
  for (size_t a = 0; plan && a < plan->n_axes; a++)
    if (strcmp(plan->axes[a].path, "policy")) g_ptr_array_add(cols, plan->axes[a].path);
  if (plan && plan->repeat > 1) g_ptr_array_add(cols, (gpointer) "rep");
  return cols;
}

/* Appends point I's axis values (borrowed, or a rep number kept in REPS) to
 * VALUES in the order of axis_columns. */
static void axis_values(const struct sw_plan *plan, size_t i, GPtrArray *values, GPtrArray *reps) {
  for (size_t a = 0; a < plan->n_axes; a++)
    if (strcmp(plan->axes[a].path, "policy")) g_ptr_array_add(values, (gpointer)sw_point_label(plan, i, a));
  if (plan->repeat > 1) {
    char *r = g_strdup_printf("%zu", sw_point_rep(plan, i));
    g_ptr_array_add(reps, r);
    g_ptr_array_add(values, r);
  }
}

static bool parse_format(const char *text, enum result_format *fmt) {
  if (!text || !strcmp(text, "table")) *fmt = RESULT_TABLE;
  else if (!strcmp(text, "csv")) *fmt = RESULT_CSV;
  else if (!strcmp(text, "json")) *fmt = RESULT_JSON;
  else return false;
  return true;
}

static bool parse_counters(const char *text, enum result_counters *c) {
  if (!text) *c = RESULT_COUNTERS_AUTO;
  else if (!strcmp(text, "none")) *c = RESULT_COUNTERS_NONE;
  else if (!strcmp(text, "summary")) *c = RESULT_COUNTERS_SUMMARY;
  else if (!strcmp(text, "all")) *c = RESULT_COUNTERS_ALL;
  else return false;
  return true;
}

/* --critical-path on (default: the time per category), off (large runs:
 * nothing tracked) or chain (also every hop, listed by the table; memory
 * grows with the run's events). Set on every point's scenario; false when
 * TEXT is none of them. */
static bool parse_cp(const char *text, struct points *pts, bool *chain) {
  bool off = text && !strcmp(text, "off");
  *chain = text && !strcmp(text, "chain");
  if (text && !off && !*chain && strcmp(text, "on")) return false;
  for (size_t i = 0; pts && i < pts->n; i++) {
    pts->sc[i]->cp_off = off;
    pts->sc[i]->cp_chain = *chain;
  }
  return true;
}

/* How the results are written. */
struct out_opts {
  const char *path;   /* NULL: stdout */
  enum result_format fmt;
  enum result_counters counters;
  bool seed_given;    /* --seed replaced the scenario's */
  bool chain;         /* --critical-path chain: the table lists the hops */
};

/* The resolved configuration of point 0 (sc_settings_free), the seed's
 * origin --seed when it was given. */
static struct sc_setting *resolve(const struct points *pts, bool seed_given, size_t *n) {
  struct sc_setting *cfg = sc_resolve(pts->sc[0], n);
  for (size_t i = 0; seed_given && i < *n; i++)
    if (!strcmp(cfg[i].path, "seed")) {
      g_free(cfg[i].origin);
      cfg[i].origin = g_strdup("--seed");
    }
  return cfg;
}

/* --dump-config: every point's resolved parameters, "path: value  # origin". */
static void dump_config(const struct points *pts, bool seed_given) {
  for (size_t p = 0; p < pts->n; p++) {
    if (pts->n > 1) printf("%s# point %zu\n", p ? "\n" : "", p);
    size_t n;
    struct points one = {.sc = pts->sc + p, .n = 1};
    struct sc_setting *cfg = resolve(&one, seed_given, &n);
    for (size_t i = 0; i < n; i++) {
      char *line = g_strdup_printf("%s: %s", cfg[i].path, *cfg[i].value ? cfg[i].value : "\"\"");
      printf("%-56s # %s\n", line, cfg[i].origin);
      g_free(line);
    }
    sc_settings_free(cfg, n);
  }
}

/* Says what the sweep's values became (a range rounded to whole ps) on
 * stderr, once, unless QUIET. */
static void note_plan(const struct points *pts, bool quiet) {
  if (!quiet && pts->plan && pts->plan->note) fprintf(stderr, "trigsim: note: %s\n", pts->plan->note);
}

/* Says the resource limits the runs hit on stderr, once (sys_limits). */
static void note_limits(struct sim_result *const *runs, const size_t *n_runs, size_t n_points) {
  struct sys_limits t = {0};
  for (size_t i = 0; i < n_points; i++)
    for (size_t k = 0; k < n_runs[i]; k++) sys_limits_tally(&t, &runs[i][k].counters);
  sys_limits_print(&t, stderr);
}

/* Whether results could be written to PATH (of_check), else *ERR
 * "trigsim: PATH: cannot write: why". */
static bool check_output(const char *path, char **err) {
  char *why = NULL;
  if (of_check(path, &why)) return true;
  *err = g_strdup_printf("trigsim: %s", why);
  g_free(why);
  return false;
}

/* Writes the results to PATH through a temporary file, or to stdout. */
static bool write_results(const char *path, const struct sim_result_set *set,
                          enum result_format fmt) {
  if (!path) {
    result_write(stdout, set, fmt);
    return fflush(stdout) == 0;
  }
  struct outfile out;
  char *err = NULL;
  bool ok = of_open(&out, path, &err);
  if (ok) {
    result_write(out.f, set, fmt);
    ok = of_commit(&out, &err);
  }
  if (!ok) fprintf(stderr, "trigsim: %s\n", err);
  g_free(err);
  return ok;
}

/* Writes the results of every point (RUNS[i], N_RUNS[i] of point i) in
 * point order: one row per (point, policy), with the axis columns. */
static bool emit_points(const struct points *pts, struct sim_result *const *runs,
                        const size_t *n_runs, const struct out_opts *o) {
  size_t total = 0;
  for (size_t i = 0; i < pts->n; i++) total += n_runs[i];
  struct sim_result *flat = g_new0(struct sim_result, total ? total : 1);
  uint64_t *seeds = g_new0(uint64_t, total ? total : 1);
  GPtrArray *cols = axis_columns(pts->plan), *values = g_ptr_array_new();
  GPtrArray *reps = g_ptr_array_new_with_free_func(g_free);
  size_t k = 0;
  for (size_t i = 0; i < pts->n; i++) {
    for (size_t j = 0; j < n_runs[i]; j++, k++) {
      flat[k] = runs[i][j];
      seeds[k] = pts->sc[i]->seed;
      if (pts->plan) axis_values(pts->plan, i, values, reps);
    }
  }
  const struct scenario *sc0 = pts->sc[0];
  size_t n_config = 0;
  struct sc_setting *config = o->fmt == RESULT_JSON ? resolve(pts, o->seed_given, &n_config) : NULL;
  struct sim_result_set set = {.scenario = sc0->name, .workload = wl_type_of(sc0)->params->name,
                               .seed = sc0->seed, .runs = flat, .n_runs = total,
                               .counters = o->counters, .chain = o->chain, .config = config,
                               .n_config = n_config};
  if (pts->plan) {
    set.n_axes = cols->len;
    set.axes = (const char *const *)cols->pdata;
    set.axis_values = (const char *const *)values->pdata;
    set.seeds = seeds;
  }
  bool ok = write_results(o->path, &set, o->fmt);
  sc_settings_free(config, n_config);
  g_ptr_array_free(cols, TRUE);
  g_ptr_array_free(values, TRUE);
  g_ptr_array_free(reps, TRUE);
  g_free(seeds);
  g_free(flat);
  return ok;
}

static int cmd_sweep(int argc, char **argv) {
  char **sets = NULL;
  char *format = NULL, *seed_text = NULL, *output = NULL;
  char *counters = NULL, *cp_text = NULL;
  gint jobs = 0;
  gboolean quiet = FALSE, dump = FALSE;
  const GOptionEntry entries[] = {
      {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
       "Points run at once (default: the cores, shared by the MPI ranks of a host)", "N"},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &output,
       "Write results to FILE (resumable through FILE.journal), not stdout", "FILE"},
      {"output", 0, 0, G_OPTION_ARG_FILENAME, &output, "Same as --out (as run's)", "FILE"},
      {"format", 'f', 0, G_OPTION_ARG_STRING, &format,
       "Output format: csv (default; json when --out ends in .json), json, table", "FORMAT"},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override a parameter (repeatable)",
       "PATH=VALUE"},
      {"seed", 0, 0, G_OPTION_ARG_STRING, &seed_text, "Override the scenario's seed", "N"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
       "No progress and no notes on resource limits on stderr", NULL},
      {"counters", 'c', 0, G_OPTION_ARG_STRING, &counters,
       "Counters and phase sums: none (the table's and CSV's default), summary (by component "
       "kind; JSON's default), all",
       "WHICH"},
      {"critical-path", 0, 0, G_OPTION_ARG_STRING, &cp_text,
       "Track the critical path: on (default), off (large runs), chain (every hop)", "WHICH"},
      {"dump-config", 0, 0, G_OPTION_ARG_NONE, &dump,
       "Print every point's resolved parameters and where each came from; run nothing", NULL},
      {NULL}};
  int status = EXIT_INPUT;
  struct points pts = {0};
  struct swr_results res = {0};
  enum result_counters which;
  char *err = NULL, *journal = NULL, *fp = NULL, *extra = NULL;
  enum result_format fmt = RESULT_CSV;
  guint64 seed = 0;
  struct swm mpi;
  bool loaded = false;
  swm_init(&mpi);

  if (!cli_parse_options(&argc, &argv, "SCENARIO",
                     "Run every point of a scenario's sweep: section on a thread pool.", entries))
    goto out;
  if (argc != 2) {
    usage_error("sweep: expected one SCENARIO file, got %d arguments", argc - 1);
    goto out;
  }
  if (format && !parse_format(format, &fmt)) {
    usage_error("--format: expected table, csv or json, got %s", format);
    goto out;
  }
  if (!format && output && g_str_has_suffix(output, ".json")) fmt = RESULT_JSON;
  if (!parse_counters(counters, &which)) {
    usage_error("--counters: expected none, summary or all, got %s", counters);
    goto out;
  }
  bool chain_ok;
  if (!parse_cp(cp_text, NULL, &chain_ok)) {
    usage_error("--critical-path: expected on, off or chain, got %s", cp_text);
    goto out;
  }
  if (jobs < 0 || jobs > 4096) {
    usage_error("--jobs: expected a count in [1, 4096], got %d", jobs);
    goto out;
  }
  if (seed_text && !g_ascii_string_to_unsigned(seed_text, 10, 0, G_MAXUINT64, &seed, NULL)) {
    usage_error("--seed: expected a non-negative integer, got %s", seed_text);
    goto out;
  }
  if (!pts_load(argv[1], sets, seed_text ? &seed : NULL, &pts, &err)) goto out;
  loaded = true;
  note_plan(&pts, quiet || dump || mpi.rank != 0);
  bool chain;
  parse_cp(cp_text, &pts, &chain); /* checked before loading */
  if (dump) {
    if (mpi.rank == 0) dump_config(&pts, seed_text != NULL);
    status = 0;
    goto out;
  }
  /* An output that cannot be written is said before the points run. */
  if (output && mpi.rank == 0 && !check_output(output, &err)) {
    status = 1;
    goto out;
  }
  /* Under mpirun each rank keeps its own journal of its share. */
  extra = g_strdup_printf("seed %s, rank %d of %d", seed_text ? seed_text : "-", mpi.rank, mpi.size);
  fp = sw_fingerprint(pts.base, extra);
  if (output && mpi.size > 1) journal = g_strdup_printf("%s.journal.%d", output, mpi.rank);
  else if (output) journal = g_strdup_printf("%s.journal", output);
  /* By default the cores, shared between the ranks on this host. */
  const char *local = g_getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  guint64 n_local = 1;
  if (!local || !g_ascii_string_to_unsigned(local, 10, 1, 1u << 20, &n_local, NULL)) n_local = 1;
  if (!jobs) jobs = (gint)MAX(1u, g_get_num_processors() / (guint)n_local);
  struct swr_opts o = {.n_points = pts.n,
                       .jobs = (unsigned)jobs,
                       .journal = journal,
                       .fingerprint = fp,
                       .progress = quiet || mpi.rank != 0 ? SWR_QUIET : SWR_AUTO,
                       .stride = (size_t)mpi.size,
                       .offset = (size_t)mpi.rank};
  status = swm_max_status(&mpi, (int)swr_run(&o, pts_run_point, &pts, &res, &err));
  if (status != 0) goto out;
  if (!swm_gather(&mpi, &res)) {
    err = g_strdup("trigsim: sweep: a rank sent results that could not be read");
    status = 1;
  }
  struct out_opts oo = {.path = output, .fmt = fmt, .counters = which, .seed_given = seed_text};
  if (status == 0 && mpi.rank == 0) {
    status = emit_points(&pts, res.runs, res.n_runs, &oo) ? 0 : 1;
    if (!quiet) note_limits(res.runs, res.n_runs, res.n_points);
  }
  status = swm_max_status(&mpi, status);
  if (status == 0 && journal) g_unlink(journal);

out:
  /* A scenario error is the same on every rank: rank 0 tells it. */
  if (err && (mpi.rank == 0 || loaded)) fprintf(stderr, "%s\n", err);
  swr_results_clear(&res);
  pts_free(&pts);
  swm_finalize(&mpi);
  g_free(err);
  g_free(extra);
  g_free(journal);
  g_free(fp);
  g_strfreev(sets);
  g_free(format);
  g_free(seed_text);
  g_free(output);
  g_free(counters);
  g_free(cp_text);
  return status;
}

/* --trace-window FROM:TO (either side may be empty: from the start, to the
 * end) into *FROM, *TO; false and a usage error otherwise. */
static bool parse_window(const char *text, sim_time *from, sim_time *to) {
  const char *colon = strchr(text, ':');
  bool ok = colon != NULL;
  *from = 0;
  *to = SIM_TIME_MAX;
  char *a = colon ? g_strndup(text, (gsize)(colon - text)) : NULL, *err = NULL;
  if (ok && *a) ok = units_parse_int(a, UNIT_TIME, from, &err);
  g_free(err);
  err = NULL;
  if (ok && colon[1]) ok = units_parse_int(colon + 1, UNIT_TIME, to, &err);
  g_free(err);
  g_free(a);
  if (ok && (*from < 0 || *to < *from)) ok = false;
  if (!ok)
    usage_error("--trace-window: expected FROM:TO, two times with units, 0 <= FROM <= TO "
                "(either may be left out: 10us:, :2ms), got %s",
                text);
  return ok;
}

/* Whether POLICY is one --trace-policy names (all when it names none). */
static bool traced_policy(char **names, const char *policy) {
  return !names || g_strv_contains((const char *const *)names, policy);
}

static int cmd_run(int argc, char **argv) {
  char **sets = NULL;
  char *format = NULL, *trace_path = NULL, *seed_text = NULL, *output = NULL, *counters = NULL;
  char *points_text = NULL;
  char *cp_text = NULL, *trace_policy = NULL, *trace_nodes = NULL, *trace_window = NULL;
  char **trace_pols = NULL;
  gboolean quiet = FALSE, dump = FALSE;
  const GOptionEntry entries[] = {
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override a parameter (repeatable)",
       "PATH=VALUE"},
      {"format", 'f', 0, G_OPTION_ARG_STRING, &format, "Output format: table (default), csv, json",
       "FORMAT"},
      {"trace", 't', 0, G_OPTION_ARG_FILENAME, &trace_path,
       "Write a Chrome trace-event timeline (opens in Perfetto; arrows from each send to its "
       "receive, each trigger to the NIC's match)",
       "FILE"},
      {"trace-policy", 0, 0, G_OPTION_ARG_STRING, &trace_policy,
       "Trace only these policies' runs (comma-separated)", "POLICY[,POLICY]"},
      {"trace-nodes", 0, 0, G_OPTION_ARG_STRING, &trace_nodes,
       "Trace only these nodes' components; net: the switches too", "0,2-5[,net]"},
      {"trace-window", 0, 0, G_OPTION_ARG_STRING, &trace_window,
       "Trace only what overlaps this window of simulated time", "FROM:TO"},
      {"seed", 0, 0, G_OPTION_ARG_STRING, &seed_text, "Override the scenario's seed", "N"},
      {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write results to FILE, not stdout",
       "FILE"},
      {"out", 0, 0, G_OPTION_ARG_FILENAME, &output, "Same as --output (as sweep's)", "FILE"},
      {"counters", 'c', 0, G_OPTION_ARG_STRING, &counters,
       "Counters and phase sums: none (the table's and CSV's default), summary (by component "
       "kind; JSON's default), all",
       "WHICH"},
      {"critical-path", 0, 0, G_OPTION_ARG_STRING, &cp_text,
       "Track the critical path: on (default), off (large runs), chain (every hop)", "WHICH"},
      {"dump-config", 0, 0, G_OPTION_ARG_NONE, &dump,
       "Print the resolved parameters and where each came from; run nothing", NULL},
      {"points", 0, 0, G_OPTION_ARG_STRING, &points_text,
       "Run only these sweep points, numbered from 0 as --dump-config numbers them", "LIST"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet,
       "No progress line (shown on a terminal) and no notes on resource limits on stderr", NULL},
      {NULL}};
  int status = EXIT_INPUT;
  struct points pts = {0};
  struct trace *trace = NULL;
  struct swr_results prs = {0};
  char *err = NULL;
  enum result_format fmt;
  enum result_counters which;

  if (!cli_parse_options(&argc, &argv, "SCENARIO",
                     "Simulate every policy of a scenario (of each point of its sweep).", entries))
    goto out;
  if (argc != 2) {
    usage_error("run: expected one SCENARIO file, got %d arguments", argc - 1);
    goto out;
  }
  if (!parse_format(format, &fmt)) {
    usage_error("--format: expected table, csv or json, got %s", format);
    goto out;
  }
  if (!parse_counters(counters, &which)) {
    usage_error("--counters: expected none, summary or all, got %s", counters);
    goto out;
  }
  bool chain_ok;
  if (!parse_cp(cp_text, NULL, &chain_ok)) {
    usage_error("--critical-path: expected on, off or chain, got %s", cp_text);
    goto out;
  }
  const char *trace_opt = trace_policy ? "--trace-policy" : trace_nodes ? "--trace-nodes"
                          : trace_window ? "--trace-window" : NULL;
  if (trace_opt && !trace_path) {
    usage_error("%s: expected --trace FILE with it, got none", trace_opt);
    goto out;
  }
  sim_time win_from = 0, win_to = SIM_TIME_MAX;
  if (trace_window && !parse_window(trace_window, &win_from, &win_to)) goto out;
  guint64 seed = 0;
  GError *gerr = NULL;
  if (seed_text && !g_ascii_string_to_unsigned(seed_text, 10, 0, G_MAXUINT64, &seed, &gerr)) {
    usage_error("--seed: expected a non-negative integer, got %s", seed_text);
    g_error_free(gerr);
    goto out;
  }
    if (!pts_load_some(argv[1], sets, seed_text ? &seed : NULL, points_text, &pts, &err)) goto out;
  if (trace_policy) { /* each a policy some point runs */
    trace_pols = g_strsplit(trace_policy, ",", -1);
    for (char **p = trace_pols; *p; p++) {
      bool found = false;
      for (size_t i = 0; i < pts.n && !found; i++)
        for (size_t k = 0; k < pts.sc[i]->n_policies && !found; k++)
          found = !strcmp(pts.sc[i]->policies[k], *p);
      if (!found) {
        GString *names = g_string_new(NULL);
        for (size_t k = 0; k < pts.sc[0]->n_policies; k++)
          g_string_append_printf(names, "%s%s", k ? ", " : "", pts.sc[0]->policies[k]);
        usage_error("--trace-policy: expected a policy the scenario runs (%s), got %s", names->str,
                    *p);
        g_string_free(names, TRUE);
        goto out;
      }
    }
  }
  note_plan(&pts, quiet || dump);
  bool chain;
  parse_cp(cp_text, &pts, &chain); /* checked before loading */
  if (dump) {
    dump_config(&pts, seed_text != NULL);
    status = 0;
    goto out;
  }
  /* An output that cannot be written is said before anything runs. */
  if (output && !check_output(output, &err)) {
    status = 1;
    goto out;
  }
  if (trace_path && !(trace = trace_open(trace_path, &err))) {
    status = 1;
    goto out;
  }
  if (trace && trace_nodes && !trace_filter_nodes(trace, trace_nodes, &err)) {
    usage_error("--trace-nodes: %s", err); /* the trace is dropped at out: */
    g_clear_pointer(&err, g_free);
    goto out;
  }
  if (trace && trace_window) trace_filter_window(trace, win_from, win_to);
  progress_start(quiet);
  prs.runs = g_new0(struct sim_result *, pts.n);
  prs.n_runs = g_new0(size_t, pts.n);
  prs.n_points = pts.n;
  for (size_t i = 0; i < pts.n; i++) {
    const struct scenario *sc = pts.sc[i];
    prs.runs[i] = g_new0(struct sim_result, sc->n_policies);
    for (size_t k = 0; pts_picked(&pts, i) && k < sc->n_policies; k++) { /* a point not picked: no rows */
      struct sim_result *r = &prs.runs[i][k];
      sim_result_init(r, sc->policies[k]);
      prs.n_runs[i]++;
      const char *pol = sc->policies[k];
      progress_at(strcmp(pol, "none") ? pol : wl_type_of(sc)->params->name, k, sc->n_policies, i,
                  pts.n);
      if (!wl_run(sc, k, traced_policy(trace_pols, pol) ? trace : NULL, r, &err)) {
        status = EXIT_MODEL; /* the input passed wl_check */
        goto out;
      }
    }
  }
  progress_end();
  struct out_opts oo = {.path = output, .fmt = fmt, .counters = which, .seed_given = seed_text,
                        .chain = chain};
  status = emit_points(&pts, prs.runs, prs.n_runs, &oo) ? 0 : 1;
  if (!quiet) note_limits(prs.runs, prs.n_runs, prs.n_points);
  if (trace) {
    struct trace *t = trace;
    trace = NULL;
    if (status == 0 && !trace_close(t, &err)) status = 1;
    else if (status != 0) trace_abort(t);
  }

out:
  progress_end();
  if (err) fprintf(stderr, "%s\n", err);
  if (trace) trace_abort(trace);
  swr_results_clear(&prs);
  pts_free(&pts);
  g_free(err);
  g_strfreev(sets);
  g_free(format);
  g_free(trace_path);
  g_free(seed_text);
  g_free(output);
  g_free(counters);
  g_free(points_text);
  g_free(cp_text);
  g_free(trace_policy);
  g_free(trace_nodes);
  g_free(trace_window);
  g_strfreev(trace_pols);
  return status;
}

/* One plot map's lines, each key after PREFIX ("plot." or "plotK."); a
 * where: list one line each, PREFIXwhere.K. */
static void print_plot_map(const struct sc_node *plot, const char *prefix) {
  for (size_t i = 0; i < plot->n_pairs; i++) {
    const struct sc_node *v = plot->pairs[i].value;
    if (v->kind == SC_SEQ)
      for (size_t k = 0; k < v->n_items; k++)
        printf("%s%s.%zu=%s\n", prefix, plot->pairs[i].key, k, v->items[k]->scalar);
    else if (!strcmp(plot->pairs[i].key, "where"))
      printf("%swhere.0=%s\n", prefix, v->scalar);
    else
      printf("%s%s=%s\n", prefix, plot->pairs[i].key, v->scalar);
  }
}

/* What tools/reproduce.sh reads: key=value lines (points, axes, plot.*, or
 * plots=N and plotK.* for a list of figures). */
static bool print_plan(const struct points *pts, char **err) {
  const struct sc_node *plot = sc_map_get(pts->base, "plot");
  if (plot && !sw_plot_check(plot, err)) return false;
  printf("points=%zu\nsweep=%d\n", pts->n, pts->plan != NULL);
  for (size_t a = 0; pts->plan && a < pts->plan->n_axes; a++)
    printf("axis%zu=%s\n", a, pts->plan->axes[a].path);
  if (plot && plot->kind == SC_MAP) print_plot_map(plot, "plot.");
  if (plot && plot->kind == SC_SEQ) { /* several figures: plots=N, then plotK.* */
    printf("plots=%zu\n", plot->n_items);
    for (size_t k = 0; k < plot->n_items; k++) {
      char *prefix = g_strdup_printf("plot%zu.", k);
      print_plot_map(plot->items[k], prefix);
      g_free(prefix);
    }
  }
  return true;
}

static int cmd_validate(int argc, char **argv) {
  char **sets = NULL;
  gboolean plan = FALSE, dump = FALSE;
  const GOptionEntry entries[] = {
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override a parameter (repeatable)",
       "PATH=VALUE"},
      {"plan", 0, 0, G_OPTION_ARG_NONE, &plan,
       "Print key=value lines: points, sweep, axisN, plot.KEY, plot.where.K (for tools/reproduce.sh)",
       NULL},
      {"dump-config", 0, 0, G_OPTION_ARG_NONE, &dump,
       "Print every point's resolved parameters and where each came from", NULL},
      {NULL}};
  int status = EXIT_INPUT;
  if (!cli_parse_options(&argc, &argv, "SCENARIO", "Check a scenario without running it.", entries))
    goto out;
  if (argc != 2) {
    usage_error("validate: expected one SCENARIO file, got %d arguments", argc - 1);
    goto out;
  }
  char *err = NULL;
  struct points pts;
  if (!pts_load(argv[1], sets, NULL, &pts, &err)) {
    fprintf(stderr, "%s\n", err);
    g_free(err);
    pts_free(&pts);
    goto out;
  }
  if (dump) {
    dump_config(&pts, false);
    pts_free(&pts);
    status = 0;
    goto out;
  }
  if (plan) {
    bool ok = print_plan(&pts, &err);
    if (!ok) fprintf(stderr, "%s\n", err);
    g_free(err);
    pts_free(&pts);
    status = ok ? 0 : EXIT_INPUT;
    goto out;
  }
  const struct sc_node *plot = sc_map_get(pts.base, "plot");
  if (plot && !sw_plot_check(plot, &err)) {
    fprintf(stderr, "%s\n", err);
    g_free(err);
    pts_free(&pts);
    goto out;
  }
  note_plan(&pts, false);
  const struct scenario *sc = pts.sc[0];
  printf("%s: ok: workload %s, %zu polic%s, seed %" PRIu64, argv[1],
         wl_type_of(sc)->params->name, sc->n_policies, sc->n_policies == 1 ? "y" : "ies",
         sc->seed);
  if (pts.plan)
    printf(", sweep of %zu point%s (%zu ax%s)", pts.n, pts.n == 1 ? "" : "s", pts.plan->n_axes,
           pts.plan->n_axes == 1 ? "is" : "es");
  printf("\n");
  pts_free(&pts);
  status = 0;
out:
  g_strfreev(sets);
  return status;
}

/* "params: expected WHAT (did you mean 'G'?), got WANT" with G the group
 * nearest to WORD; exit 2. */
static int no_such_group(GPtrArray *groups, const char *word, const char *what, const char *want) {
  const char **names = g_new(const char *, groups->len);
  for (guint i = 0; i < groups->len; i++) names[i] = ((const struct par_group *)groups->pdata[i])->name;
  const char *hint = par_suggest(word, names, groups->len);
  int status = usage_error("params: expected %s%s%s%s, got %s", what, hint ? " (did you mean '" : "",
                           hint ? hint : "", hint ? "'?)" : "", want);
  g_free(names);
  return status;
}

/* `params KEY`: KEY is GROUP.KEY, hardware.GROUP.KEY, or workload.KEY (the
 * key in every workload that declares it); prints each match's row. */
static int params_key(GPtrArray *groups, const struct sc_catalog *cat, const char *want) {
  const char *rest = g_str_has_prefix(want, "hardware.") ? want + strlen("hardware.") : want;
  bool any_workload = g_str_has_prefix(want, "workload.");
  const char *dot = any_workload ? want + strlen("workload") : strchr(rest, '.');
  char *gname = g_strndup(rest, (gsize)(dot - rest));
  const char *key = dot + 1;
  int shown = 0;
  const struct par_group *named = NULL;
  for (guint i = 0; i < groups->len; i++) {
    const struct par_group *g = groups->pdata[i];
    bool is_workload = i >= cat->n_hardware;
    if (any_workload ? !is_workload : strcmp(gname, g->name)) continue;
    named = g;
    const struct par_decl *d = par_group_find(g, key);
    if (!d) continue;
    if (shown++) fputc('\n', stdout);
    par_group_print_only(g, d, stdout);
  }
  int status = 0;
  if (!shown && named && !any_workload) {
    const char *hint = par_group_suggest(named, key);
    status = usage_error("params: expected a parameter of %s%s%s%s, got %s", named->name,
                         hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "", want);
  } else if (!shown && any_workload) {
    status = usage_error("params: expected a parameter some workload declares, got %s", want);
  } else if (!shown) {
    status = no_such_group(groups, gname, "GROUP.KEY with a parameter group", want);
  }
  g_free(gname);
  return status;
}

static int cmd_params(int argc, char **argv) {
  const GOptionEntry entries[] = {{NULL}};
  if (!cli_parse_options(&argc, &argv, "[GROUP|KEY]",
                         "List every parameter: key, type and unit, default, range, doc. GROUP "
                         "(gpu, ping, ...) lists one group; KEY one parameter: GROUP.KEY, "
                         "hardware.GROUP.KEY or workload.KEY.",
                         entries))
    return EXIT_INPUT;
  if (argc > 2) return usage_error("params: expected at most one GROUP or KEY, got %d", argc - 1);
  const struct sc_catalog *cat = &wl_catalog;
  GPtrArray *groups = g_ptr_array_new();
  for (size_t i = 0; i < cat->n_hardware; i++) g_ptr_array_add(groups, (gpointer)cat->hardware[i]);
  for (size_t i = 0; i < cat->n_workloads; i++) g_ptr_array_add(groups, (gpointer)cat->workloads[i]);
  const char *want = argc == 2 ? argv[1] : NULL;
  if (want && strchr(want, '.')) {
    int status = params_key(groups, cat, want);
    g_ptr_array_free(groups, TRUE);
    return status;
  }
  int shown = 0;
  for (guint i = 0; i < groups->len; i++) {
    const struct par_group *g = groups->pdata[i];
    if (want && strcmp(want, g->name)) continue;
    if (shown++) fputc('\n', stdout);
    par_group_print(g, stdout);
  }
  int status = 0;
  if (want && !shown) status = no_such_group(groups, want, "a parameter group", want);
  g_ptr_array_free(groups, TRUE);
  return status;
}

static int cmd_outputs(int argc, char **argv) {
  const GOptionEntry entries[] = {{NULL}};
  if (!cli_parse_options(&argc, &argv, "[GROUP]",
                         "List every declared output (what a run reports: counters and phases "
                         "of each component type and workload): key, unit, doc.",
                         entries))
    return EXIT_INPUT;
  if (argc > 2) return usage_error("outputs: expected at most one GROUP, got %d", argc - 1);
  size_t n;
  const struct sim_outputs *const *groups = wl_outputs(&n);
  const char *want = argc == 2 ? argv[1] : NULL;
  int shown = 0;
  for (size_t i = 0; i < n; i++) {
    if (want && strcmp(want, groups[i]->name)) continue;
    if (shown++) fputc('\n', stdout);
    sim_outputs_print(groups[i], stdout);
  }
  if (!want || shown) return 0;
  const char **names = g_new(const char *, n);
  for (size_t i = 0; i < n; i++) names[i] = groups[i]->name;
  const char *hint = par_suggest(want, names, n);
  int status = usage_error("outputs: expected an output group%s%s%s, got %s",
                           hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "", want);
  g_free(names);
  return status;
}

int main(int argc, char **argv) {
  wl_set_device(&calib_device); /* kloop's compute_time: measured */
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
  if (!strcmp(cmd, "sweep")) return cmd_sweep(argc - 1, argv + 1);
  if (!strcmp(cmd, "validate")) return cmd_validate(argc - 1, argv + 1);
  if (!strcmp(cmd, "params")) return cmd_params(argc - 1, argv + 1);
  if (!strcmp(cmd, "outputs")) return cmd_outputs(argc - 1, argv + 1);
  if (!strcmp(cmd, "calibrate")) return calib_cmd_calibrate(argc - 1, argv + 1);
  if (!strcmp(cmd, "validate-real")) return calib_cmd_validate_real(argc - 1, argv + 1);
  if (!strcmp(cmd, "export-goal")) return export_cmd_goal(argc - 1, argv + 1);
  if (!strcmp(cmd, "export-chakra")) return export_cmd_chakra(argc - 1, argv + 1);
  if (!strcmp(cmd, "fit")) return fit_cmd_fit(argc - 1, argv + 1);
  const char *hint = par_suggest(cmd, commands, G_N_ELEMENTS(commands));
  return usage_error("expected a command (run, sweep, validate, params, outputs, calibrate, "
                     "validate-real, export-goal, export-chakra, fit)%s%s%s, got '%s'",
                     hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "", cmd);
}
