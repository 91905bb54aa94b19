/* Command-line helpers shared by the subcommands (sim/main.c and the
 * calibration commands in models/calib_cli.c). */
#ifndef SIM_CLI_H
#define SIM_CLI_H

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

/* Parses ENTRIES out of ARGV (GLib options; PARAMS and SUMMARY for
 * --help). On error prints "trigsim: MESSAGE (see trigsim CMD --help)" to
 * stderr and returns false: the caller exits with status 2. */
bool cli_parse_options(int *argc, char ***argv, const char *params, const char *summary,
                       const GOptionEntry *entries);

/* Calls WRITE(out, USER) on stdout when PATH is NULL, else on PATH.tmp
 * renamed to PATH once whole. On failure prints "trigsim: PATH: cannot
 * write: REASON", leaves no file, and returns false (exit status 1). */
bool cli_write_output(const char *path, void (*write)(FILE *out, const void *user),
                      const void *user);

#endif
