/* Command-line helpers (cli.h). */
#include "cli.h"

#include <stdio.h>

/* The split arguments and the strings made for them, kept reachable for
 * the rest of the process: argv points into them after parsing, and
 * parsing drops the options it consumed from argv. */
static GPtrArray *split_args, *split_strings;

/* "-j2" as "-j" "2" for a short option that takes a value: GLib takes a
 * short option's value only as the next argument. */
static void split_attached(int *argc, char ***argv, const GOptionEntry *entries) {
  GPtrArray *a = NULL;
  for (int i = 0; i < *argc; i++) {
    const char *s = (*argv)[i];
    const GOptionEntry *takes = NULL;
    if (i > 0 && s[0] == '-' && s[1] && s[1] != '-' && s[2])
      for (const GOptionEntry *e = entries; e->long_name && !takes; e++)
        if (e->short_name == s[1] && e->arg != G_OPTION_ARG_NONE) takes = e;
    if (takes && !a) {
      a = g_ptr_array_new();
      for (int k = 0; k < i; k++) g_ptr_array_add(a, (*argv)[k]);
    }
    if (takes) {
      if (!split_strings) split_strings = g_ptr_array_new();
      g_ptr_array_add(split_strings, g_strndup(s, 2));
      g_ptr_array_add(split_strings, g_strdup(s + 2));
      g_ptr_array_add(a, split_strings->pdata[split_strings->len - 2]);
      g_ptr_array_add(a, split_strings->pdata[split_strings->len - 1]);
    } else if (a) {
      g_ptr_array_add(a, (*argv)[i]);
    }
  }
  if (!a) return;
  *argc = (int)a->len;
  g_ptr_array_add(a, NULL);
  if (!split_args) split_args = g_ptr_array_new();
  g_ptr_array_add(split_args, a);
  *argv = (char **)a->pdata;
}

bool cli_parse_options(int *argc, char ***argv, const char *params, const char *summary,
                       const GOptionEntry *entries) {
  split_attached(argc, argv, entries);
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
