/* Running the points of a sweep: a GLib thread pool, a journal of finished
 * points (one line per point, appended whole) that a re-run resumes from,
 * and a progress display. Knows nothing of what a point runs: the caller's
 * callback fills its results. Results come back ordered by point, so the
 * output is the same whatever the number of threads. */
#ifndef SIM_SWEEP_RUN_H
#define SIM_SWEEP_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "result.h"

/* Runs point POINT: sets *RUNS (g_new, each sim_result_init'ed) and *N_RUNS.
 * False and *ERR on a user error. Called from pool threads at once. */
typedef bool (*swr_point_fn)(void *user, size_t point, struct sim_result **runs, size_t *n_runs,
                             char **err);

enum swr_progress { SWR_QUIET, SWR_AUTO /* a bar on a terminal, else plain lines */ };

struct swr_opts {
  size_t n_points;
  unsigned jobs;           /* threads, >= 1 */
  const char *journal;     /* NULL: none (nothing to resume) */
  const char *fingerprint; /* what the journal must have been written for */
  enum swr_progress progress;
  /* Only the points with POINT % STRIDE == OFFSET (an MPI rank's share);
   * STRIDE 0 or 1: all. */
  size_t stride, offset;
};

/* Results per point: runs[i] has n_runs[i] results; NULL where not run. */
struct swr_results {
  size_t n_points;
  struct sim_result **runs;
  size_t *n_runs;
  size_t resumed; /* points read back from the journal */
};

/* SWR_FAILED: a point's callback returned false (its input was checked
 * before the sweep, so the model failed). */
enum swr_status { SWR_DONE = 0, SWR_IO = 1, SWR_FAILED = 3, SWR_INTERRUPTED = 130 };

/* Runs every point of O not already in the journal. SIGINT and SIGTERM stop
 * it between points: what finished is in the journal. *ERR on failure. */
enum swr_status swr_run(const struct swr_opts *o, swr_point_fn fn, void *user,
                        struct swr_results *out, char **err);

void swr_results_clear(struct swr_results *r);

/* One point's results as one journal line (with its '\n'; g_free), and back.
 * Decoding returns false on anything but a whole, well-formed line. */
char *swr_encode(size_t point, const struct sim_result *runs, size_t n_runs);
bool swr_decode(const char *line, size_t *point, struct sim_result **runs, size_t *n_runs);

#endif
