/* `trigsim fit FIT.yaml` (DESIGN.md Sec. 8, "unknowns are fitted, not
 * guessed twice"): declared parameters fitted to targets (a run's total
 * time, a ratio of two policies' values, a phase or a counter, at given
 * assignments) by GSL's nonlinear least squares (gsl_multifit_nlinear,
 * trust region, finite differences, bounds by a logistic transform), each
 * evaluation running the scenarios in process on the sweep runner's pool.
 * The fitted values are written as a profile fragment with provenance.
 * The fit file's syntax is in configs/README.md. */
#ifndef WL_FIT_H
#define WL_FIT_H

#include <stdbool.h>
#include <stdio.h>

struct fit;

/* Reads and checks fit file PATH: its scenarios are loaded and every
 * parameter path, bound and target is checked before anything runs. NULL
 * and *ERR (g_free, "file:line:col: key.path: expected X, got Y"). */
struct fit *fit_load(const char *path, char **err);

/* Whether fit F may write its fragment to OUT: false and *ERR when one of
 * its scenarios takes values from OUT (an include of the fit's own
 * output), so that the previous fit's values, including ones this fit no
 * longer declares, would stay under every evaluation of this one. */
bool fit_check_output(const struct fit *f, const char *out, char **err);
void fit_free(struct fit *f);

/* Runs the fit on JOBS threads (>= 1), printing one line per iteration to
 * PROGRESS (NULL: quiet). Returns 0, 2 on a user error found while running
 * (an unknown phase or counter, a zero divisor), 130 when interrupted; *ERR. */
int fit_run(struct fit *f, unsigned jobs, FILE *progress, char **err);

/* Writes the fitted values, after fit_run, as a profile fragment to OUT;
 * OUT_PATH (NULL: stdout) places the fragment's include of the fit's
 * `extends:` profile. */
void fit_write(const struct fit *f, const char *out_path, FILE *out);

/* The fitted value of parameter PATH in its base unit (ps, bps, bytes,
 * Hz, or the number), and whether a bound is active (-1 min, 1 max, 0
 * none); false when PATH is not fitted. For tests. */
bool fit_value(const struct fit *f, const char *path, double *value, double *sigma, int *bound);

#endif
