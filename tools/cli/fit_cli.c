/* `trigsim fit FIT.yaml` (tools/app/fit.h): options, the fit, and the
 * fitted profile fragment written whole (sim/outfile.h) or to stdout. */
#include <glib.h>
#include <stdio.h>

#include "cli.h"
#include "fit.h"
#include "outfile.h"

#define EXIT_INPUT 2

int fit_cmd_fit(int argc, char **argv) {
  char *output = NULL;
  gint jobs = 0;
  gboolean quiet = FALSE;
  const GOptionEntry entries[] = {
      {"out", 'o', 0, G_OPTION_ARG_FILENAME, &output,
       "Write the fitted profile fragment to FILE (whole or not at all), not stdout", "FILE"},
      {"jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "Simulations run at once (default: the cores)", "N"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "No iteration lines on stderr", NULL},
      {NULL}};
  int status = EXIT_INPUT;
  char *err = NULL;
  struct fit *f = NULL;
  if (!cli_parse_options(&argc, &argv, "FIT",
                         "Fit declared parameters to targets; write them as a profile fragment.",
                         entries))
    goto out;
  if (argc != 2) {
    fprintf(stderr, "trigsim: fit: expected one FIT file, got %d arguments\n", argc - 1);
    goto out;
  }
  if (jobs < 0 || jobs > 4096) {
    fprintf(stderr, "trigsim: --jobs: expected a count in [1, 4096], got %d\n", jobs);
    goto out;
  }
  if (!jobs) jobs = (gint)MAX(1u, g_get_num_processors());
  if (!(f = fit_load(argv[1], &err))) goto out;
  if (output && !fit_check_output(f, output, &err)) goto out;
  if ((status = fit_run(f, (unsigned)jobs, quiet ? NULL : stderr, &err))) goto out;
  if (!output) {
    fit_write(f, NULL, stdout);
    status = fflush(stdout) == 0 ? 0 : 1;
    goto out;
  }
  struct outfile o;
  status = 1;
  if (of_open(&o, output, &err)) {
    fit_write(f, output, o.f);
    if (of_commit(&o, &err)) status = 0;
  }
  if (err) {
    char *m = g_strdup_printf("trigsim: %s", err);
    g_free(err);
    err = m;
  }
out:
  if (err) fprintf(stderr, "%s\n", err);
  g_free(err);
  fit_free(f);
  g_free(output);
  return status;
}
