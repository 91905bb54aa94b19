/* Input files for the fuzz harnesses (fuzzfile.h). */
#include "fuzzfile.h"

#include <glib.h>
#include <stdio.h>
#include <stdlib.h>

static char *dir;
static GHashTable *paths; /* name -> path */

const char *fz_write(const char *name, const void *data, size_t len) {
  if (!dir) {
    dir = g_dir_make_tmp("trigsim-fuzz-XXXXXX", NULL);
    paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    if (!dir) abort();
  }
  char *path = g_hash_table_lookup(paths, name);
  if (!path) {
    path = g_build_filename(dir, name, NULL);
    g_hash_table_insert(paths, g_strdup(name), path);
  }
  FILE *f = fopen(path, "w");
  if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) abort();
  return path;
}
