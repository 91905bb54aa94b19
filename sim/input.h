/* Opening what a user names as input (a scenario, an include, a Matrix
 * Market file): only a regular file, and only up to a stated size, so that
 * `include: /dev/zero`, a FIFO or a huge file is an input error instead of
 * a read that never ends or exhausts memory. */
#ifndef SIM_INPUT_H
#define SIM_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The limits: a scenario or include file, and a Matrix Market file. */
#define IN_MAX_SCENARIO_BYTES (INT64_C(16) << 20) /* 16 MiB */
#define IN_MAX_MATRIX_BYTES (INT64_C(1) << 30)    /* 1 GiB */

/* Opens PATH for reading when it is a regular file of at most MAX_BYTES:
 * its descriptor, or -1 and *WHY (g_free) "not a regular file (a
 * character device)", "larger than the 16 MiB limit (N bytes)" or the
 * system's reason. */
int in_open_regular(const char *path, int64_t max_bytes, char **why);

/* Reads all of a regular file PATH of at most MAX_BYTES into *TEXT
 * (NUL-terminated, g_free) and *LEN; false and *WHY as in_open_regular
 * (also when it grew past the limit while read). */
bool in_read_regular(const char *path, int64_t max_bytes, char **text, size_t *len, char **why);

/* PATH as written in FILE (a scenario, a fit file): PATH itself when
 * absolute or when FILE is NULL or in the current folder, else PATH in
 * FILE's folder. Newly allocated (g_free). */
char *in_path_beside(const char *file, const char *path);

#endif
