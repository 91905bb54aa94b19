/* The progress line of `trigsim run` on a terminal (progress.c). */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

/* Shows progress from now on when stderr is a terminal and not QUIET. */
void progress_start(bool quiet);
/* The run that starts next: policy WHAT, K of N, of point POINT of POINTS. */
void progress_at(const char *what, size_t k, size_t n, size_t point, size_t points);
/* Erases the line, if one was shown, and stops. */
void progress_end(void);

#endif
