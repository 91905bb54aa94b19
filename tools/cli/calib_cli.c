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
  char *out = NULL, *from = NULL;
  const GOptionEntry entries[] = {
      {"device", 'd', 0, G_OPTION_ARG_INT, &device, "OpenCL device index over all platforms (default: the first GPU, else 0)",
       "N"},
      {"quick", 'q', 0, G_OPTION_ARG_NONE, &quick,
       "Fewer repetitions, depths up to 64, grids up to 512 (CI)", NULL},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Write the profile to FILE (required)", "FILE"},
      {"from", 'f', 0, G_OPTION_ARG_FILENAME, &from,
       "Derive again from the measurements PROFILE records (no device)", "PROFILE"},
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
  if (!calib_derive(&m, &hw, &fit, &err) ||
      !calib_write_profile(out, &m, &fit, &hw, &err))
    goto out;
  fprintf(stderr, "calibrate: wrote %s\n", out);
  status = 0;
out:
  if (err) fprintf(stderr, "trigsim: %s\n", err);
  g_free(err);
  calib_dev_close(d);
  g_free(out);
  g_free(from);
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

/* A saved validate-real output (--measured): "case grid" -> {measured s,
 * spread}. NULL and *ERR when unreadable. */
static GHashTable *saved_load(const char *path, char **err) {
  char *text = NULL;
  GError *ge = NULL;
  if (!g_file_get_contents(path, &text, NULL, &ge)) {
    *err = g_strdup_printf("--measured: %s", ge->message);
    g_error_free(ge);
    return NULL;
  }
  GHashTable *t = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  char **lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l; l++) {
    char name[32];
    long long grid;
    double us, pred, e, spread;
    if (**l == '#' || sscanf(*l, "%31s %lld %lfus %lfus %lf%% %lf%%", name, &grid, &us, &pred, &e,
                             &spread) != 6)
      continue;
    double *v = g_new(double, 2);
    v[0] = us * 1e-6;
    v[1] = spread / 100;
    g_hash_table_replace(t, g_strdup_printf("%s %lld", name, grid), v);
  }
  g_strfreev(lines);
  g_free(text);
  return t;
}

/* The saved case NAME GRID: false when it is not there. */
static bool saved_get(GHashTable *t, const char *name, int64_t grid, double *meas, double *spread) {
  char *key = g_strdup_printf("%s %" PRId64, name, grid);
  const double *v = g_hash_table_lookup(t, key);
  g_free(key);
  if (!v) return false;
  *meas = v[0];
  *spread = v[1];
  return true;
}

int calib_cmd_validate_real(int argc, char **argv) {
  int device = -1, iters = 100, reps = 5;
  gboolean quick = FALSE, no_persist = FALSE;
  char *grids_text = NULL, *cg_text = NULL, *measured_path = NULL;
  GHashTable *saved = NULL;
  const GOptionEntry entries[] = {
      {"cg", 'c', 0, G_OPTION_ARG_STRING, &cg_text,
       "CG-like loop matrix sides (rows = side^2; default 128,512,2048; 0: none)", "N,N,..."},
      {"no-persistent", 0, 0, G_OPTION_ARG_NONE, &no_persist, "Skip the persistent cases", NULL},
      {"measured", 'm', 0, G_OPTION_ARG_FILENAME, &measured_path,
       "Take the measured times from FILE (a saved validate-real output) instead of the device",
       "FILE"},
      {"device", 'd', 0, G_OPTION_ARG_INT, &device, "OpenCL device index over all platforms (default: the first GPU, else 0)",
       "N"},
      {"grids", 'g', 0, G_OPTION_ARG_STRING, &grids_text,
       "Grid sides (default 64,128,256,512,1024,2048,4096)", "N,N,..."},
      {"iters", 'i', 0, G_OPTION_ARG_INT, &iters, "Jacobi iterations per run (100)", "N"},
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
             "Run a Jacobi loop on the device, with and without a host sync per iteration, and "
             "print the measured and predicted time per iteration.",
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
  if (iters < 1 || reps < 1) {
    fprintf(stderr, "trigsim: --iters, --reps: expected at least 1, got %d, %d\n", iters, reps);
    goto out;
  }
  struct calib_hw hw;
  if (!calib_read_profile(argv[1], &hw, &err)) goto out;
  if (measured_path) {
    if (!(saved = saved_load(measured_path, &err))) goto out;
  } else if (!calib_ocl_available()) {
    status = no_opencl("validate-real");
    goto out;
  }
  status = 1;
  if (!saved && !(d = calib_dev_open(device, &err))) {
    if (g_str_has_prefix(err, "--device:")) status = EXIT_INPUT;
    goto out;
  }
  printf("# validate-real: %s; profile %s; %d iterations, median of %d runs\n",
         saved ? measured_path : calib_dev_name(d), argv[1], iters, reps);
  printf("%-6s %6s %14s %14s %8s %7s\n", "case", "grid", "measured/iter", "predicted/iter",
         "error", "spread");
  double errs[(2 + 64) * CALIB_MAX_GRIDS + CALIB_MAX_GRIDS];
  int n_errs = 0;
  for (int s = 1; s >= 0; s--) {
    for (int i = 0; i < n_grids; i++) {
      double meas, spread;
      if (saved) {
        if (!saved_get(saved, s ? "sync" : "async", grids[i], &meas, &spread)) continue;
      } else if (!calib_dev_jacobi_loop(d, grids[i], iters, s, reps, &meas, &spread, &err)) {
        goto out;
      }
      int64_t pred = calib_predict_iter_ps(&hw, grids[i], iters, s, 0);
      double e = ((double)pred * 1e-12 - meas) / meas;
      errs[n_errs++] = fabs(e);
      printf("%-6s %6" PRId64 " %12.2fus %12.2fus %+7.1f%% %6.1f%%\n", s ? "sync" : "async",
             grids[i], meas * 1e6, (double)pred * 1e-6, 100 * e, 100 * spread);
      fflush(stdout);
    }
  }
  /* Persistent Jacobi: one kernel of cus * k WGs looping over the tiles. */
  int64_t kmax = hw.gpu.wgs_per_cu;
  for (int i = 0; i < n_grids && !no_persist; i++) {
    for (int64_t k = 1; k <= kmax; k++) {
      double meas, spread;
      bool resident = true;
      char name[16];
      g_snprintf(name, sizeof name, "pers%" PRId64, k);
      if (saved) {
        if (!saved_get(saved, name, grids[i], &meas, &spread)) continue;
      } else if (!calib_dev_persist(d, grids[i], hw.gpu.cus * k, iters, reps, &meas, &spread,
                                    &resident, &err)) {
        goto out;
      }
      if (!resident) {
        printf("# pers%" PRId64 " %" PRId64 ": %" PRId64 " WGs are not all resident on this device: "
               "no persistent loop\n", k, grids[i], hw.gpu.cus * k);
        continue;
      }
      struct calib_hw hk = hw;
      hk.gpu.wgs_per_cu = k;
      int64_t pred = calib_predict_persist_ps(&hk, grids[i], iters);
      double e = ((double)pred * 1e-12 - meas) / meas;
      errs[n_errs++] = fabs(e);
      printf("%-6s %6" PRId64 " %12.2fus %12.2fus %+7.1f%% %6.1f%%\n", name, grids[i],
             meas * 1e6, (double)pred * 1e-6, 100 * e, 100 * spread);
      fflush(stdout);
    }
  }
  /* The CG-like loop: SpMV, dot, AXPY, AXPY, dot, AXPY, then a wait. */
  for (int i = 0; i < n_cg; i++) {
    double meas, spread;
    if (saved) {
      if (!saved_get(saved, "cg", cg_sides[i], &meas, &spread)) continue;
    } else if (!calib_dev_cg_loop(d, cg_sides[i], iters, reps, &meas, &spread, &err)) {
      goto out;
    }
    int64_t pred = calib_predict_cg_ps(&hw, cg_sides[i], iters);
    double e = ((double)pred * 1e-12 - meas) / meas;
    errs[n_errs++] = fabs(e);
    printf("%-6s %6" PRId64 " %12.2fus %12.2fus %+7.1f%% %6.1f%%\n", "cg", cg_sides[i], meas * 1e6,
           (double)pred * 1e-6, 100 * e, 100 * spread);
    fflush(stdout);
  }
  if (n_errs == 0) {
    err = g_strdup("validate-real: expected at least one case, got none");
    goto out;
  }
  gsl_sort(errs, 1, (size_t)n_errs);
  printf("# |error|: median %.1f%%, worst %.1f%%\n",
         100 * gsl_stats_median_from_sorted_data(errs, 1, (size_t)n_errs), 100 * errs[n_errs - 1]);
  status = 0;
out:
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  calib_dev_close(d);
  g_free(grids_text);
  g_free(cg_text);
  g_free(measured_path);
  if (saved) g_hash_table_destroy(saved);
  return status;
}
