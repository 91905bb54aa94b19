/* Output files through a temporary and a rename (outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <unistd.h>

static void release(struct outfile *o) {
  g_free(o->path);
  g_free(o->tmp);
  *o = (struct outfile){0};
}

bool of_open(struct outfile *o, const char *path, char **err) {
  *o = (struct outfile){.path = g_strdup(path), .tmp = g_strdup_printf("%s.XXXXXX", path)};
  /* 0666 less the umask, as fopen would create the target. */
  int fd = g_mkstemp_full(o->tmp, O_WRONLY, 0666);
  if (fd >= 0 && !(o->f = fdopen(fd, "w"))) close(fd);
  if (o->f) return true;
  int e = errno;
  if (fd >= 0) g_unlink(o->tmp);
  *err = g_strdup_printf("%s: cannot write: %s", path, g_strerror(e));
  release(o);
  return false;
}

bool of_check(const char *path, char **err) {
  if (g_file_test(path, G_FILE_TEST_IS_DIR)) {
    *err = g_strdup_printf("%s: cannot write: %s", path, g_strerror(EISDIR));
    return false;
  }
  struct outfile o;
  if (!of_open(&o, path, err)) return false;
  of_abort(&o);
  return true;
}

bool of_commit(struct outfile *o, char **err) {
  bool ok = !ferror(o->f);
  int e = ok ? 0 : EIO;
  if (fclose(o->f) != 0 && ok) ok = false, e = errno;
  if (ok && g_rename(o->tmp, o->path) != 0) ok = false, e = errno;
  if (!ok) {
    *err = g_strdup_printf("%s: cannot write: %s", o->path, g_strerror(e));
    g_unlink(o->tmp);
  }
  release(o);
  return ok;
}

void of_abort(struct outfile *o) {
  fclose(o->f);
  g_unlink(o->tmp);
  release(o);
}

bool of_write_all(const char *path, const char *data, size_t len, char **err) {
  struct outfile o;
  if (!of_open(&o, path, err)) return false;
  fwrite(data, 1, len, o.f);
  return of_commit(&o, err);
}
