/* Command-line helpers shared by the subcommands (sim/main.c and the
 * calibration commands in models/calib_cli.c). */
#ifndef SIM_CLI_H
#define SIM_CLI_H

#include <glib.h>
#include <stdbool.h>

/* Parses ENTRIES out of ARGV (GLib options; PARAMS and SUMMARY for
 * --help). On error prints "trigsim: MESSAGE (see trigsim CMD --help)" to
 * stderr and returns false: the caller exits with status 2. A short
 * option's value may be attached ("-j2" as "-j 2"). */
bool cli_parse_options(int *argc, char ***argv, const char *params, const char *summary,
                       const GOptionEntry *entries);

#endif
