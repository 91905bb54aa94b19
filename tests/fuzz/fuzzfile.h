/* The harnesses' one helper: an input written to a file that the loaders
 * then read as a user's file would be. */
#ifndef FUZZFILE_H
#define FUZZFILE_H

#include <stddef.h>

/* Writes LEN bytes of DATA to NAME in this process's temporary folder
 * (made on first use) and returns its path (kept for the process). With
 * plain stdio: g_file_set_contents syncs the disk on every input. */
const char *fz_write(const char *name, const void *data, size_t len);

#endif
