/* Tests for sim/outfile.c: an output appears whole at commit, an abort or a
 * failed open leaves the target as it was and no temporary behind. */
#include "outfile.h"
#include "testutil.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

/* Files in DIR (the temporaries are "PATH.XXXXXX" beside the target). */
static guint count_files(const char *dir) {
  GDir *d = g_dir_open(dir, 0, NULL);
  guint n = 0;
  while (d && g_dir_read_name(d)) n++;
  if (d) g_dir_close(d);
  return n;
}

static char *read_all(const char *path) {
  char *text = NULL;
  return g_file_get_contents(path, &text, NULL, NULL) ? text : NULL;
}

static void test_commit_and_abort(void) {
  char *dir = g_dir_make_tmp("trigsim-outfile-XXXXXX", NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
  char *path = g_build_filename(dir, "out.csv", NULL), *err = NULL;
  CU_ASSERT_TRUE_FATAL(of_write_all(path, "old\n", 4, &err));
  struct outfile o;
  CU_ASSERT_TRUE_FATAL(of_open(&o, path, &err));
  fputs("new\n", o.f);
  fflush(o.f);
  /* Until the commit the target keeps the old text; the temporary is beside it. */
  char *text = read_all(path);
  CU_ASSERT_STRING_EQUAL(text, "old\n");
  g_free(text);
  CU_ASSERT_EQUAL(count_files(dir), 2);
  of_abort(&o);
  text = read_all(path);
  CU_ASSERT_STRING_EQUAL(text, "old\n");
  g_free(text);
  CU_ASSERT_EQUAL(count_files(dir), 1);
  CU_ASSERT_TRUE_FATAL(of_open(&o, path, &err));
  fputs("new\n", o.f);
  CU_ASSERT_TRUE(of_commit(&o, &err));
  text = read_all(path);
  CU_ASSERT_STRING_EQUAL(text, "new\n");
  g_free(text);
  CU_ASSERT_EQUAL(count_files(dir), 1);
  g_unlink(path);
  g_rmdir(dir);
  g_free(path);
  g_free(dir);
}

static void test_cannot_open(void) {
  char *err = NULL;
  CU_ASSERT_FALSE(of_write_all("/nonexistent-dir/x.csv", "x", 1, &err));
  CU_ASSERT_STRING_EQUAL(err, "/nonexistent-dir/x.csv: cannot write: No such file or directory");
  g_free(err);
}

int main(void) {
  const struct tu_test tests[] = {
      {"commit renames, abort leaves the target", test_commit_and_abort},
      {"a directory that does not exist", test_cannot_open},
      {NULL, NULL},
  };
  return tu_run_suite("outfile", tests);
}
