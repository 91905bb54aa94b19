/* Command-line helpers (cli.h). */
#include "cli.h"

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
