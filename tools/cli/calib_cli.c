/* `trigsim calibrate` and `trigsim validate-real` (calib.h, DESIGN.md
 * Sec. 6): measure a real OpenCL device into a hardware profile, and check
 * the simulator's prediction of a Jacobi loop against a real run. */
#include <glib.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "calib.h"
#include "cli.h"
#include "kloop.h"

#define EXIT_INPUT 2

static int no_opencl(const char *cmd) {
  fprintf(stderr,
          "trigsim: %s: this trigsim was built without OpenCL; install ocl-icd-opencl-dev, "
          "opencl-c-headers and an ICD (pocl-opencl-icd), then reconfigure with cmake\n",
          cmd);
  return 1;
}

int calib_cmd_calibrate(int argc, char **argv) {
  int device = -1;
  gboolean quick = FALSE;
  char *out = NULL, *from = NULL, *cuda = NULL;
  const GOptionEntry entries[] = {
      {"device", 'd', 0, G_OPTION_ARG_INT, &device, "OpenCL device index over all platforms (default: the first GPU, else 0)",
       "N"},
      {"quick", 'q', 0, G_OPTION_ARG_NONE, &quick,
       "Fewer repetitions, depths up to 64, grids up to 512 (CI)", NULL},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Write the profile to FILE (required)", "FILE"},
      {"from", 'f', 0, G_OPTION_ARG_FILENAME, &from,
       "Derive again from the measurements PROFILE records (no device)", "PROFILE"},
      {"cuda", 'c', 0, G_OPTION_ARG_FILENAME, &cuda,
       "Add the launch and signal paths trigsim-cuda-probe measured (its FILE)", "FILE"},
      {NULL}};
  int status = EXIT_INPUT;
  char *err = NULL;
  struct calib_dev *d = NULL;
  if (!cli_parse_options(&argc, &argv, "",
             "Measure the attached OpenCL device and write a hardware profile.", entries))
    goto out;
  if (argc != 1 || !out) {
    fprintf(stderr, "trigsim: calibrate: expected --out FILE and no arguments, got %s\n",
            out ? "extra arguments" : "no --out");
    goto out;
  }
  struct calib_meas m;
  struct calib_hw hw;
  struct calib_fit fit;
  if (from) {
    if (!calib_read_meas(from, &m, &err)) goto out;
    status = 1;
  } else {
    if (!calib_ocl_available()) {
      status = no_opencl("calibrate");
      goto out;
    }
    status = 1;
    if (!(d = calib_dev_open(device, &err))) {
      if (g_str_has_prefix(err, "--device:")) status = EXIT_INPUT;
      goto out;
    }
    fprintf(stderr, "calibrate: measuring %s%s\n", calib_dev_name(d), quick ? " (quick)" : "");
    if (!calib_dev_measure(d, quick, &m, &err)) goto out;
  }
  if (cuda && !calib_read_cuda(cuda, &m.cuda, &err)) {
    status = EXIT_INPUT;
    goto out;
  }
  if (!calib_derive(&m, &hw, &fit, &err) ||
      !calib_write_profile(out, &m, &fit, &hw, &err))
    goto out;
  fprintf(stderr, "calibrate: wrote %s\n", out);
  double e0, e1;
  if (calib_host_moved(&m, &e0, &e1))
    fprintf(stderr, "calibrate: note: the host's enqueue moved from %.2f (the passes' median) to "
                    "%.2f us at the end of the measurements: the host changed state "
                    "(configs/hw/README.md, \"The host's two states\")\n",
            e0 * 1e6, e1 * 1e6);
  status = 0;
out:
  if (err) fprintf(stderr, "trigsim: %s\n", err);
  g_free(err);
  calib_dev_close(d);
  g_free(out);
  g_free(from);
  g_free(cuda);
  return status;
}

static bool parse_grids(const char *text, int64_t *grids, int *n) {
  char **parts = g_strsplit(text, ",", -1);
  bool ok = parts[0] != NULL;
  *n = 0;
  for (char **p = parts; ok && *p; p++) {
    guint64 v;
    ok = *n < CALIB_MAX_GRIDS && g_ascii_string_to_unsigned(g_strstrip(*p), 10, 16, 16384, &v, NULL);
    if (ok) grids[(*n)++] = (int64_t)v;
  }
  g_strfreev(parts);
  return ok;
}

/* A saved validate-real output (--measured), case by case: the measured
 * time and spread, and the device's notes around it, which --measured
 * prints where the device did: "# host now" and "# store:" lines before
 * the case they precede, every other note (a case's placement, the
 * persistent loops' parts and clocks, the host's range) after the case
 * before it. The header's lines and the |error| summary are its own. */
struct saved_case {
  double s, spread;
  GString *before, *after;
};

static void saved_case_free(gpointer p) {
  struct saved_case *c = p;
  g_string_free(c->before, TRUE);
  g_string_free(c->after, TRUE);
  g_free(c);
}

/* "case grid" -> struct saved_case, and in *ITERS the iterations its
 * header names (0: none named). NULL and *ERR when unreadable. */
static GHashTable *saved_load(const char *path, int *iters, char **err) {
  char *text = NULL;
  GError *ge = NULL;
  if (!g_file_get_contents(path, &text, NULL, &ge)) {
    *err = g_strdup_printf("--measured: %s", ge->message);
    g_error_free(ge);
    return NULL;
  }
  GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, saved_case_free);
  char **lines = g_strsplit(text, "\n", -1);
  GString *pending = g_string_new(NULL);
  struct saved_case *last = NULL;
  *iters = 0;
  for (char **l = lines; *l; l++) {
    char name[32];
    long long grid;
    double us, pred, e, spread;
    const char *it = g_str_has_prefix(*l, "# validate-real:") ? strstr(*l, " iterations,") : NULL;
    if (it && !*iters) { /* "...; N iterations, median of R runs" */
      const char *b = it;
      while (b > *l && g_ascii_isdigit(b[-1])) b--;
      *iters = b < it ? atoi(b) : 0;
    }
    if (**l == '#') {
      if (g_str_has_prefix(*l, "# validate-real:") || g_str_has_prefix(*l, "# each case") ||
          g_str_has_prefix(*l, "# |error|"))
        continue;
      bool ahead = g_str_has_prefix(*l, "# host now") || g_str_has_prefix(*l, "# store:");
      g_string_append_printf(ahead || !last ? pending : last->after, "%s\n", *l);
      continue;
    }
    if (sscanf(*l, "%31s %lld %lfus %lfus %lf%% %lf%%", name, &grid, &us, &pred, &e, &spread) != 6)
      continue;
    last = g_new(struct saved_case, 1);
    *last = (struct saved_case){us * 1e-6, spread / 100, pending, g_string_new(NULL)};
    pending = g_string_new(NULL);
    g_hash_table_replace(t, g_strdup_printf("%s %lld", name, grid), last);
  }
  g_string_free(pending, TRUE);
  g_strfreev(lines);
  g_free(text);
  return t;
}

/* The saved case NAME GRID: NULL when it is not there. */
static const struct saved_case *saved_get(GHashTable *t, const char *name, int64_t grid) {
  char *key = g_strdup_printf("%s %" PRId64, name, grid);
  const struct saved_case *v = g_hash_table_lookup(t, key);
  g_free(key);
  return v;
}

/* Measures case C on device D (or, FROM_SAVED, takes it from SC, its saved
 * line): false and *ERR on a device error; *SKIP when there is nothing to
 * compare (not saved, not resident, no coherent host buffer), with a line
 * already printed. */
static bool measure_case(struct calib_dev *d, bool from_saved, const struct saved_case *sc,
                         const struct calib_cuda *cuda, const struct calib_case *c, int reps,
                         int64_t cus, double *meas, double *spread, bool *skip,
                         struct calib_run_state *st, char **err) {
  char buf[16];
  const char *name = calib_case_name(c, buf, sizeof buf);
  *skip = false;
  if (from_saved) {
    *skip = !sc;
    if (sc) *meas = sc->s, *spread = sc->spread;
    return true;
  }
  bool ok = true, res = true;
  switch (c->kind) {
  case CASE_SYNC:
  case CASE_ASYNC:
    ok = calib_dev_jacobi_loop(d, c->size, c->iters, c->kind == CASE_SYNC, reps, meas, spread,
                               err);
    break;
  case CASE_PERSIST:
    ok = calib_dev_persist(d, c->size, cus * c->k, c->iters, reps, meas, spread, &res, st, err);
    if (ok && !res)
      printf("# %s %" PRId64 ": %" PRId64 " WGs are not all resident on this device: no "
             "persistent loop\n", name, c->size, cus * c->k);
    /* and its tiles alone (no barrier, the iterations racing) */
    if (ok && res)
      ok = calib_dev_persist_tiles(d, c->size, cus * c->k, c->iters, reps, &st->tiles, err);
    break;
  case CASE_CG: ok = calib_dev_cg_loop(d, c->size, c->iters, reps, meas, spread, err); break;
  default:
    ok = calib_dev_signal(d, c->kind == CASE_PINGPONG, c->iters, reps, meas, spread, &res, err);
    if (ok && !res && cuda && cuda->present) { /* the same path measured by trigsim-cuda-probe */
      const struct calib_stat *cs = c->kind == CASE_PINGPONG ? &cuda->pingpong : &cuda->store;
      res = cs->median_s > 0;
      *meas = cs->median_s;
      *spread = cs->spread;
    }
    if (ok && !res)
      printf("# %s: this device gives no host buffer coherent during a kernel (trigsim-cuda-probe "
             "measures the path on NVIDIA GPUs; calibrate --cuda records it)\n", name);
    break;
  }
  *skip = !res;
  return ok;
}

int calib_cmd_validate_real(int argc, char **argv) {
  int device = -1, iters = 0, reps = 5; /* iters 0: 100, or a saved table's */
  gboolean quick = FALSE, no_persist = FALSE;
  char *grids_text = NULL, *cg_text = NULL, *measured_path = NULL, *cuda_path = NULL;
  char **sets = NULL;
  struct calib_cuda cuda = {0};
  GHashTable *saved = NULL;
  const GOptionEntry entries[] = {
      {"cuda", 0, 0, G_OPTION_ARG_FILENAME, &cuda_path,
       "Take the signal cases' measurements from trigsim-cuda-probe's FILE where the OpenCL "
       "device gives no coherent host buffer (NVIDIA)", "FILE"},
      {"set", 's', 0, G_OPTION_ARG_STRING_ARRAY, &sets,
       "Override a parameter of every prediction, as run's --set (repeatable)", "PATH=VALUE"},
      {"cg", 'c', 0, G_OPTION_ARG_STRING, &cg_text,
       "CG loop matrix sides (rows = side^2; default 128,512,2048; 0: none)", "N,N,..."},
      {"no-persistent", 0, 0, G_OPTION_ARG_NONE, &no_persist, "Skip the persistent cases", NULL},
      {"measured", 'm', 0, G_OPTION_ARG_FILENAME, &measured_path,
       "Take the measured times from FILE (a saved validate-real output) instead of the device",
       "FILE"},
      {"device", 'd', 0, G_OPTION_ARG_INT, &device, "OpenCL device index over all platforms (default: the first GPU, else 0)",
       "N"},
      {"grids", 'g', 0, G_OPTION_ARG_STRING, &grids_text,
       "Grid sides (default 64,128,256,512,1024,2048,4096)", "N,N,..."},
      {"iters", 'i', 0, G_OPTION_ARG_INT, &iters,
       "Jacobi iterations per run (100; with --measured, the saved table's)", "N"},
      {"reps", 'r', 0, G_OPTION_ARG_INT, &reps, "Runs per case after a warm-up; median (5)", "N"},
      {"quick", 'q', 0, G_OPTION_ARG_NONE, &quick,
       "Grids 64,128,256, CG side 64, 20 iterations, 3 runs (CI)", NULL},
      {NULL}};
  int status = EXIT_INPUT;
  char *err = NULL;
  struct calib_dev *d = NULL;
  int64_t grids[CALIB_MAX_GRIDS];
  int n_grids = 0;
  if (!cli_parse_options(&argc, &argv, "PROFILE",
             "Run the validation cases on the device (Jacobi loops with and without a host sync "
             "per iteration, persistent loops, a CG loop, and where the device shares host memory "
             "the signal path) and print the measured time per iteration beside the prediction "
             "of the same case as a scenario on PROFILE.",
             entries))
    goto out;
  if (argc != 2) {
    fprintf(stderr, "trigsim: validate-real: expected one PROFILE file, got %d arguments\n",
            argc - 1);
    goto out;
  }
  if (quick && !grids_text) grids_text = g_strdup("64,128,256");
  if (quick) {
    iters = 20;
    reps = 3;
  }
  if (!parse_grids(grids_text ? grids_text : "64,128,256,512,1024,2048,4096", grids, &n_grids)) {
    fprintf(stderr, "trigsim: --grids: expected up to %d comma-separated sides 16..16384, got %s\n",
            CALIB_MAX_GRIDS, grids_text);
    goto out;
  }
  int64_t cg_sides[CALIB_MAX_GRIDS];
  int n_cg = 0;
  if (quick && !cg_text) cg_text = g_strdup("64");
  if (cg_text && strcmp(cg_text, "0") == 0) {
    n_cg = 0;
  } else if (!parse_grids(cg_text ? cg_text : "128,512,2048", cg_sides, &n_cg)) {
    fprintf(stderr, "trigsim: --cg: expected up to %d comma-separated sides 16..16384, got %s\n",
            CALIB_MAX_GRIDS, cg_text);
    goto out;
  }
  bool iters_given = iters != 0;
  if (!iters_given) iters = 100;
  if (iters < 1 || reps < 1) {
    fprintf(stderr, "trigsim: --iters, --reps: expected at least 1, got %d, %d\n", iters, reps);
    goto out;
  }
  struct calib_hw hw;
  if (!calib_read_profile(argv[1], &hw, &err)) goto out;
  if (cuda_path && !calib_read_cuda(cuda_path, &cuda, &err)) goto out;
  if (measured_path) {
    int saved_iters = 0;
    if (!(saved = saved_load(measured_path, &saved_iters, &err))) goto out;
    if (saved_iters > 0 && !iters_given) {
      iters = saved_iters; /* predict what was measured */
    } else if (saved_iters > 0 && saved_iters != iters) {
      fprintf(stderr,
              "trigsim: --iters: expected the %d iterations %s measured (its header), got %d\n",
              saved_iters, measured_path, iters);
      status = EXIT_INPUT;
      goto out;
    }
  } else if (!calib_ocl_available()) {
    status = no_opencl("validate-real");
    goto out;
  }
  status = 1;
  if (!saved && !(d = calib_dev_open(device, &err))) {
    if (g_str_has_prefix(err, "--device:")) status = EXIT_INPUT;
    goto out;
  }
  /* The cases: sync and async Jacobi loops, persistent loops at k = 1 ..
   * wgs_per_cu WGs per CU, the CG loop, the store and the ping-pong. */
  GArray *cases = g_array_new(FALSE, FALSE, sizeof(struct calib_case));
  for (int s = 1; s >= 0; s--)
    for (int i = 0; i < n_grids; i++) {
      struct calib_case c = {.kind = s ? CASE_SYNC : CASE_ASYNC, .size = grids[i], .iters = iters};
      g_array_append_val(cases, c);
    }
  for (int i = 0; i < n_grids && !no_persist; i++)
    for (int64_t k = 1; k <= hw.gpu.wgs_per_cu; k++) {
      struct calib_case c = {.kind = CASE_PERSIST, .size = grids[i], .k = k, .iters = iters};
      g_array_append_val(cases, c);
    }
  for (int i = 0; i < n_cg; i++) {
    struct calib_case c = {.kind = CASE_CG, .size = cg_sides[i], .iters = iters};
    g_array_append_val(cases, c);
  }
  struct calib_case store = {.kind = CASE_STORE, .size = 1, .iters = 1};
  struct calib_case pp = {.kind = CASE_PINGPONG, .size = quick ? 200 : 2000, .iters = quick ? 200 : 2000};
  g_array_append_val(cases, store);
  g_array_append_val(cases, pp);
  printf("# validate-real: %s; profile %s; %d iterations, median of %d runs\n",
         saved ? measured_path : calib_dev_name(d), argv[1], iters, reps);
  printf("# each case is the scenario `trigsim run %s --set hardware.network.nodes=1 --set "
         "workload=... --set policies=...` (calib_case_sets)\n",
         argv[1]);
  printf("%-8s %6s %14s %14s %8s %7s\n", "case", "grid", "measured/iter", "predicted/iter",
         "error", "spread");
  double *errs = g_new(double, cases->len + 1);
  int n_errs = 0;
  bool ok = true;
  /* The host's speed now (a shared host's moves within a lease): the empty
   * round trip before each case, printed where the kind of case changes
   * and summed up at the end, beside the profile's. */
  struct calib_meas pm;
  char *perr = NULL;
  bool have_pm = calib_read_meas(argv[1], &pm, &perr);
  double prof_rt = have_pm ? pm.roundtrip.median_s : 0, prof_enq = have_pm ? pm.submit.median_s : 0;
  g_free(perr);
  struct calib_range rt_r = {0}, mhz = {0}, rest_r = {0};
  GString *clocks = g_string_new(NULL), *parts = g_string_new(NULL);
  int last_kind = -1;
  /* The host-paced cases (sync, async, CG: a launch or a host round trip
   * an iteration) run in passes: a pass runs each once (after a warm-up
   * run of its own), the passes 0.2 s apart, and a case's time is the
   * median over the passes. The H200 machines' hosts switch between two
   * states within tenths of a second (tools/calib/probes/host_state.c), so
   * that a case's runs back to back met one state, the next case's perhaps
   * the other; over the passes each case meets them as calibrate's passes
   * did. The other cases (one launch a run) run as before. */
  double *runs = NULL;
  if (!saved) {
    runs = g_new0(double, (size_t)cases->len * (size_t)reps);
    struct calib_range enq_r = {0};
    const gulong gap_us = quick ? 10000 : 200000; /* --quick: CI's seconds */
    for (int p = 0; ok && p < reps; p++) {
      double rt = 0, enq = 0;
      if (p > 0) g_usleep(gap_us);
      ok = calib_dev_roundtrip(d, quick ? 11 : 51, &rt, &err) &&
           calib_dev_enqueue(d, quick ? 5 : 21, &enq, &err);
      if (ok) calib_range_add(&rt_r, rt), calib_range_add(&enq_r, enq);
      for (guint i = 0; ok && i < cases->len; i++) {
        const struct calib_case *c = &g_array_index(cases, struct calib_case, i);
        if (!calib_case_host_paced(c)) continue;
        double spread;
        bool skip;
        struct calib_run_state st = {0};
        ok = measure_case(d, false, NULL, &cuda, c, 1, hw.gpu.cus, &runs[i * (size_t)reps + p],
                          &spread, &skip, &st, &err);
      }
    }
    if (ok) {
      printf("# host-paced cases (sync, async, cg): %d passes %g s apart, one run of each a "
             "pass; the host's enqueue at the passes' starts %.2f .. %.2fus", reps,
             gap_us * 1e-6, enq_r.lo * 1e6, enq_r.hi * 1e6);
      if (prof_enq > 0) printf(" (the profile's %.2fus)", prof_enq * 1e6);
      printf("\n");
    }
  }
  for (guint i = 0; ok && i < cases->len; i++) {
    const struct calib_case *c = &g_array_index(cases, struct calib_case, i);
    double meas, spread;
    bool skip;
    if (!saved && !calib_case_host_paced(c)) {
      double rt = 0, enq = 0;
      ok = calib_dev_roundtrip(d, quick ? 11 : 51, &rt, &err);
      if (!ok) break;
      calib_range_add(&rt_r, rt);
      if ((int)c->kind != last_kind) {
        /* and its enqueue, which paces the async cases (the host's state) */
        ok = calib_dev_enqueue(d, quick ? 5 : 21, &enq, &err);
        if (!ok) break;
        printf("# host now: empty round trip %.2fus", rt * 1e6);
        if (prof_rt > 0) printf(" (the profile's %.2fus)", prof_rt * 1e6);
        printf(", enqueue %.2fus", enq * 1e6);
        if (prof_enq > 0) printf(" (the profile's %.2fus)", prof_enq * 1e6);
        printf("\n");
        last_kind = c->kind;
      }
    }
    if (c->kind == CASE_STORE && !saved && cuda.present && cuda.roundtrip.median_s > 0 &&
        prof_rt > 0)
      /* NVIDIA: the store is trigsim-cuda-probe's, from CUDA's launch call;
       * the prediction takes the profile's OpenCL launch path, and the
       * completion notice derived from that probe's own store (calib.c,
       * derive_signal): the two launch paths' round trips differ by what
       * this case's error mostly is. */
      printf("# store: measured on CUDA's launch path (trigsim-cuda-probe: empty round trip "
             "%.2fus), predicted on the profile's OpenCL one (%.2fus)\n",
             cuda.roundtrip.median_s * 1e6, prof_rt * 1e6);
    struct calib_run_state st = {0};
    char buf[16];
    const char *name = calib_case_name(c, buf, sizeof buf);
    const struct saved_case *sc = saved ? saved_get(saved, name, c->size) : NULL;
    if (runs && calib_case_host_paced(c)) {
      struct calib_stat rs = calib_stat_of(&runs[i * (size_t)reps], (size_t)reps);
      meas = rs.median_s, spread = rs.spread, skip = false;
    } else {
      ok = measure_case(d, saved != NULL, sc, &cuda, c,
                        c->kind >= CASE_STORE ? MAX(reps, 9) : reps, hw.gpu.cus, &meas, &spread,
                        &skip, &st, &err);
    }
    if (!ok || skip) continue;
    int64_t pred;
    ok = calib_case_predict(argv[1], c, (const char *const *)sets, &pred, &err);
    if (!ok) break;
    double e = ((double)pred * 1e-12 - meas) / meas;
    errs[n_errs++] = fabs(e);
    if (sc) fputs(sc->before->str, stdout); /* the device's notes, where it printed them */
    printf("%-8s %6" PRId64 " %12.2fus %12.2fus %+7.1f%% %6.1f%%\n", name, c->size, meas * 1e6,
           (double)pred * 1e-6, 100 * e, 100 * spread);
    if (sc) fputs(sc->after->str, stdout);
    if (st.most > c->k && c->kind == CASE_PERSIST)
      printf("# %s %" PRId64 ": %d WGs on one SM (%" PRId64 " a CU asked)\n", buf, c->size,
             st.most, c->k);
    if (st.tiles > 0) {
      /* The loop against its parts measured apart: its tiles alone and
       * the profile's barrier (measured by a kernel of its own), put
       * together as the model does (calib_persist_iter: the shallower
       * WGs' arrivals done while the deepest still work). Where that
       * holds, a persistent case's error is its tiles' law's. The range
       * at the end; each case's on stderr. */
      int64_t wgs = hw.gpu.cus * c->k, tiles = kloop_jacobi_wgs(c->size);
      double rest = meas - calib_persist_iter(&hw.gpu, tiles, wgs,
                                              st.tiles / (double)((tiles + wgs - 1) / wgs));
      calib_range_add(&rest_r, rest / meas);
      g_string_append_printf(parts, " %s %" PRId64 " %.2f %.2f;", buf, c->size, st.tiles * 1e6,
                             rest * 1e6);
    }
    if (st.mhz > 0) { /* NVIDIA: WG 0's SM clock over the persistent cases */
      calib_range_add(&mhz, st.mhz);
      g_string_append_printf(clocks, " %s %" PRId64 " %.0f;", buf, c->size, st.mhz);
    }
    fflush(stdout);
  }
  if (rest_r.n > 0) { /* the loops against their parts; each case's on stderr */
    printf("# persistent cases: the loop less its tiles alone and the profile's barrier as the model "
           "puts them together: %+.0f .. "
           "%+.0f %% of the loop\n", 100 * rest_r.lo, 100 * rest_r.hi);
    fprintf(stderr, "validate-real: persistent cases' tiles alone and the rest, us:%s\n",
            parts->str);
  }
  g_string_free(parts, TRUE);
  if (mhz.n > 0) /* the persistent cases' clocks; each on stderr where one was under 0.9 */
    printf("# persistent cases: %.0f .. %.0f MHz (WG 0's SM, clock64 over globaltimer)%s\n",
           mhz.lo, mhz.hi, mhz.lo < 0.9 * mhz.hi ? "; each case's on stderr" : "");
  if (mhz.n > 0 && mhz.lo < 0.9 * mhz.hi) fprintf(stderr, "validate-real: clocks:%s\n", clocks->str);
  g_string_free(clocks, TRUE);
  g_array_free(cases, TRUE);
  if (!ok && err && g_str_has_prefix(err, "--set")) status = EXIT_INPUT;
  if (ok && n_errs == 0) err = g_strdup("validate-real: expected at least one case, got none");
  if (ok && n_errs > 0) {
    gsl_sort(errs, 1, (size_t)n_errs);
    if (rt_r.n > 0) {
      printf("# host: empty round trip %.2f .. %.2fus over the cases", rt_r.lo * 1e6,
             rt_r.hi * 1e6);
      if (prof_rt > 0) printf(" (the profile's %.2fus)", prof_rt * 1e6);
      printf("\n");
    }
    printf("# |error|: median %.1f%%, worst %.1f%%\n",
           100 * gsl_stats_median_from_sorted_data(errs, 1, (size_t)n_errs), 100 * errs[n_errs - 1]);
    status = 0;
  }
  g_free(errs);
  g_free(runs);
out:
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  calib_dev_close(d);
  g_free(grids_text);
  g_free(cg_text);
  g_free(measured_path);
  g_free(cuda_path);
  g_strfreev(sets);
  if (saved) g_hash_table_destroy(saved);
  return status;
}
