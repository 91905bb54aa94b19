/* The command line (tools/cli/): helpers shared by the subcommands (main.c
 * and the calibration commands in calib_cli.c). It sits above the engine,
 * the models and the workloads; nothing below includes this header. */
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

/* The calibration subcommands (calib_cli.c): argv[0] is the command name. */
int calib_cmd_calibrate(int argc, char **argv);
int calib_cmd_validate_real(int argc, char **argv);
/* `export-goal` (export_cli.c). */
int export_cmd_goal(int argc, char **argv);
int export_cmd_chakra(int argc, char **argv);

/* `trigsim fit` (fit_cli.c, on tools/app/fit.h): argv[0] is the command name. */
int fit_cmd_fit(int argc, char **argv);

#endif
