/* `trigsim export-goal` and `export-chakra`: a scenario's per-rank program
 * written as a GOAL schedule (workloads/inputs/goal.h) or as Chakra execution
 * traces (workloads/inputs/chakra.h), so that a built-in workload or a YAML
 * program can be run as GOAL or Chakra, here, in LogGOPSim or in ASTRA-sim. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

#include "chakra.h"
#include "cli.h"
#include "goal.h"
#include "lower.h"
#include "outfile.h"
#include "workload.h"

/* The scenario at PATH (with SETS) into *SC and its per-rank program with
 * its loops written out and, with EXPAND, its collectives as the run's
 * library writes them out; NULL and a message on stderr when the scenario
 * is bad, the workload has none or the program is malformed. */
static struct wl_program *export_program(const char *path, char **sets, bool expand,
                                         struct scenario **scp) {
  char *err = NULL;
  size_t n_sets = sets ? g_strv_length(sets) : 0;
  struct scenario *sc = *scp = scenario_load(path, (const char *const *)sets, n_sets, &wl_catalog, &err);
  if (!sc) {
    fprintf(stderr, "%s\n", err);
    g_free(err);
    return NULL;
  }
  const struct wl_type *w = wl_type_of(sc);
  if (!w->program) {
    const struct sc_node *k = sc_map_get(sc_map_get(sc->root, "workload"), "kind");
    err = sc_error_at(k ? k : sc->root, "workload.kind",
                      "expected a workload with a per-rank program (allreduce, ping, goal, "
                      "program, chakra), got %s", w->params->name);
    fprintf(stderr, "%s\n", err);
    g_free(err);
    return NULL;
  }
  struct wl_ctx ctx = wl_ctx_of(sc, 0);
  struct wl_program *p = w->program(&ctx, &err);
  if (p && expand && wl_has_colls(p)) { /* collectives as the run's library writes them out */
    struct hw_config hw = wl_hw_of(sc);
    const struct pol_type *pol = pol_find(ctx.policy);
    int lib = hw.comm->library != COMM_AUTO ? hw.comm->library
              : pol                         ? pol->lib_default
                                            : COMM_MPI;
    /* the form its policy runs: its calls on a stream or inside its kernel */
    struct pol_prep pr = {.hw = &hw, .ctx = &ctx, .pol = pol, .lib = (uint8_t)lib,
                          .form = WL_FORM_DISCRETE};
    if (pol) pol->prepare(&pr);
    struct wl_lib_opts opts = pol_prep_lib_opts(&pr);
    struct wl_program *x = wl_expand_colls(p, comm_wl_lib(lib), &opts);
    wl_program_free(p);
    p = x;
  }
  if (p && wl_has_loops(p)) { /* GOAL and Chakra have no loops: written out */
    struct wl_program *u = wl_unroll(p);
    wl_program_free(p);
    p = u;
  }
  if (!p || !wl_program_check(p, &err)) {
    fprintf(stderr, "%s\n", err);
    g_free(err);
    wl_program_free(p);
    return NULL;
  }
  return p;
}

int export_cmd_goal(int argc, char **argv) {
  char **sets = NULL, *output = NULL, *unit_text = NULL;
  const GOptionEntry entries[] = {
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override a parameter (repeatable)",
       "PATH=VALUE"},
      {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write the schedule to FILE, not stdout",
       "FILE"},
      {"time-unit", 0, 0, G_OPTION_ARG_STRING, &unit_text,
       "What one calc unit lasts (default 1ns, Schedgen's)", "TIME"},
      {NULL}};
  int status = 2;
  char *err = NULL;
  struct scenario *sc = NULL;
  struct wl_program *p = NULL;
  int64_t unit = 1000;
  if (!cli_parse_options(&argc, &argv, "SCENARIO",
                         "Write the scenario's per-rank program as a GOAL schedule.", entries))
    goto out;
  if (argc != 2) {
    fprintf(stderr, "export-goal: expected one SCENARIO file, got %d arguments\n", argc - 1);
    goto out;
  }
  if (unit_text && (!units_parse_int(unit_text, UNIT_TIME, &unit, &err) || unit < 1)) {
    fprintf(stderr, "--time-unit: %s\n", err ? err : "expected a time of at least 1ps");
    goto out;
  }
  if (!(p = export_program(argv[1], sets, true, &sc))) goto out;
  struct hw_config hw = wl_hw_of(sc);
  struct outfile of = {.f = stdout};
  if (output && !of_open(&of, output, &err)) {
    fprintf(stderr, "%s\n", err);
    status = 1;
    goto out;
  }
  wl_goal_write(p, hw.cpu, unit, of.f);
  status = 0;
  if (output && !of_commit(&of, &err)) {
    fprintf(stderr, "%s\n", err);
    status = 1;
  }
out:
  g_free(err);
  wl_program_free(p);
  if (sc) scenario_free(sc);
  g_strfreev(sets);
  g_free(output);
  g_free(unit_text);
  return status;
}

/* A compute op's time for its Chakra duration: a CPU op's on the CPU, a GPU
 * op's fixed time or roofline time per WG, in waves of the GPU's resident
 * WGs (an estimate: no launch, no contention). */
static sim_time op_duration(const struct wl_kernel *k, const struct wl_op *o, void *arg) {
  const struct hw_config *hw = arg;
  if (o->on == WL_ON_CPU) return wl_cpu_time(hw->cpu, k, o);
  struct kstep st = pol_launch_step(k, o);
  sim_time wg = o->time_ps > 0 ? o->time_ps : gpu_compute_time(hw->gpu, &st);
  uint64_t wave = (uint64_t)MAX(hw->gpu->cus * gpu_occupancy(hw->gpu, NULL), 1);
  uint64_t waves = (o->n_wgs + wave - 1) / wave;
  return waves && (uint64_t)wg > (uint64_t)INT64_MAX / waves ? INT64_MAX : (sim_time)waves * wg;
}

int export_cmd_chakra(int argc, char **argv) {
  char **sets = NULL, *output = NULL;
  const GOptionEntry entries[] = {
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets, "Override a parameter (repeatable)",
       "PATH=VALUE"},
      {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
       "Write PREFIX.0.et, PREFIX.1.et, ... (required)", "PREFIX"},
      {NULL}};
  int status = 2;
  char *err = NULL;
  struct scenario *sc = NULL;
  struct wl_program *p = NULL;
  if (!cli_parse_options(&argc, &argv, "SCENARIO",
                         "Write the scenario's per-rank program as Chakra execution traces, one "
                         "file per rank.", entries))
    goto out;
  if (argc != 2 || !output) {
    fprintf(stderr, "export-chakra: expected one SCENARIO file and -o PREFIX, got %d arguments%s\n",
            argc - 1, output ? "" : " and no -o");
    goto out;
  }
  /* Collectives stay collectives: Chakra has them (COMM_COLL_NODE). */
  if (!(p = export_program(argv[1], sets, false, &sc))) goto out;
  struct hw_config hw = wl_hw_of(sc);
  if (!wl_chakra_write(p, op_duration, &hw, output, &err)) {
    fprintf(stderr, "%s\n", err);
    status = g_str_has_prefix(err, "rank ") ? 2 : 1;
    goto out;
  }
  status = 0;
out:
  g_free(err);
  wl_program_free(p);
  if (sc) scenario_free(sc);
  g_strfreev(sets);
  g_free(output);
  return status;
}
