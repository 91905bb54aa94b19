/* Output files written whole or not at all: the text goes to a temporary
 * file beside the target (same directory, so the rename is atomic) and is
 * renamed into place only when every byte was written; on any error the
 * temporary is removed and the target is left as it was (STYLE.md). */
#ifndef SIM_OUTFILE_H
#define SIM_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct outfile {
  FILE *f;    /* write here between of_open and of_commit/of_abort */
  char *path; /* owned */
  char *tmp;  /* owned: "PATH.XXXXXX" */
};

/* Opens a temporary for PATH. False and *ERR "PATH: cannot write: why"
 * (g_free) when it cannot be created. */
bool of_open(struct outfile *o, const char *path, char **err);

/* Whether PATH could be written now (a temporary made and removed beside
 * it; PATH no directory): checked before a long run, so that a missing
 * folder is said at once. False and *ERR as of_open's. */
bool of_check(const char *path, char **err);

/* Closes the temporary and renames it onto the path. False and *ERR when a
 * write, the close or the rename failed (the temporary is then removed).
 * Releases O either way. */
bool of_commit(struct outfile *o, char **err);

/* Closes and removes the temporary; the path is untouched. Releases O. */
void of_abort(struct outfile *o);

/* The whole of DATA (LEN bytes) to PATH through of_open/of_commit. */
bool of_write_all(const char *path, const char *data, size_t len, char **err);

#endif
