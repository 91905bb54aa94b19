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
  char *out = NULL;
  const GOptionEntry entries[] = {
      {"device", 'd', 0, G_OPTION_ARG_INT, &device, "OpenCL device index over all platforms (default: the first GPU, else 0)",
       "N"},
      {"quick", 'q', 0, G_OPTION_ARG_NONE, &quick,
       "Fewer repetitions, depths up to 64, grids up to 512 (CI)", NULL},
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Write the profile to FILE (required)", "FILE"},
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
  struct calib_meas m;
  struct calib_hw hw;
  struct calib_fit fit;
  if (!calib_dev_measure(d, quick, &m, &err) || !calib_derive(&m, &hw, &fit, &err) ||
      !calib_write_profile(out, &m, &fit, &hw, &err))
    goto out;
  fprintf(stderr, "calibrate: wrote %s\n", out);
  status = 0;
out:
  if (err) fprintf(stderr, "trigsim: %s\n", err);
  g_free(err);
  calib_dev_close(d);
  g_free(out);
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

int calib_cmd_validate_real(int argc, char **argv) {
  int device = -1, iters = 100, reps = 5;
  gboolean quick = FALSE;
  char *grids_text = NULL;
  const GOptionEntry entries[] = {
      {"device", 'd', 0, G_OPTION_ARG_INT, &device, "OpenCL device index over all platforms (default: the first GPU, else 0)",
       "N"},
      {"grids", 'g', 0, G_OPTION_ARG_STRING, &grids_text,
       "Grid sides (default 64,128,256,512,1024,2048,4096)", "N,N,..."},
      {"iters", 'i', 0, G_OPTION_ARG_INT, &iters, "Jacobi iterations per run (100)", "N"},
      {"reps", 'r', 0, G_OPTION_ARG_INT, &reps, "Runs per case after a warm-up; median (5)", "N"},
      {"quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "Grids 64,128,256, 20 iterations, 3 runs (CI)",
       NULL},
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
  if (iters < 1 || reps < 1) {
    fprintf(stderr, "trigsim: --iters, --reps: expected at least 1, got %d, %d\n", iters, reps);
    goto out;
  }
  struct calib_hw hw;
  if (!calib_read_profile(argv[1], &hw, &err)) goto out;
  if (!calib_ocl_available()) {
    status = no_opencl("validate-real");
    goto out;
  }
  status = 1;
  if (!(d = calib_dev_open(device, &err))) {
    if (g_str_has_prefix(err, "--device:")) status = EXIT_INPUT;
    goto out;
  }
  printf("# validate-real: %s; profile %s; %d iterations, median of %d runs\n",
         calib_dev_name(d), argv[1], iters, reps);
  printf("%-6s %6s %14s %14s %8s %7s\n", "case", "grid", "measured/iter", "predicted/iter",
         "error", "spread");
  double errs[2 * CALIB_MAX_GRIDS];
  int n_errs = 0;
  for (int s = 1; s >= 0; s--) {
    for (int i = 0; i < n_grids; i++) {
      double meas, spread;
      if (!calib_dev_jacobi_loop(d, grids[i], iters, s, reps, &meas, &spread, &err)) goto out;
      int64_t pred = calib_predict_iter_ps(&hw, grids[i], iters, s, 0);
      double e = ((double)pred * 1e-12 - meas) / meas;
      errs[n_errs++] = fabs(e);
      printf("%-6s %6" PRId64 " %12.2fus %12.2fus %+7.1f%% %6.1f%%\n", s ? "sync" : "async",
             grids[i], meas * 1e6, (double)pred * 1e-6, 100 * e, 100 * spread);
      fflush(stdout);
    }
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
  return status;
}
