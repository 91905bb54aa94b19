/* Command-line helpers (cli.h). */
#include "cli.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>

bool cli_parse_options(int *argc, char ***argv, const char *params, const char *summary,
                       const GOptionEntry *entries) {
  GOptionContext *ctx = g_option_context_new(params);
  g_option_context_set_summary(ctx, summary);
  g_option_context_add_main_entries(ctx, entries, NULL);
  GError *gerr = NULL;
  bool ok = g_option_context_parse(ctx, argc, argv, &gerr);
  if (!ok) {
    fprintf(stderr, "trigsim: %s (see trigsim %s --help)\n", gerr->message, (*argv)[0]);
    g_error_free(gerr);
  }
  g_option_context_free(ctx);
  return ok;
}

bool cli_write_output(const char *path, void (*write)(FILE *out, const void *user),
                      const void *user) {
  if (!path) {
    write(stdout, user);
    return fflush(stdout) == 0;
  }
  char *tmp = g_strdup_printf("%s.tmp", path);
  FILE *f = fopen(tmp, "w");
  bool ok = f != NULL;
  if (f) {
    write(f, user);
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
