/* Opening a user's input files (input.h): regular files within a limit. */
#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISSOCK(m)) return "a socket";
  return "not a plain file";
}

static char *limit_text(int64_t max_bytes) {
  return max_bytes % (1 << 30) == 0 ? g_strdup_printf("%" G_GINT64_FORMAT " GiB", max_bytes >> 30)
                                    : g_strdup_printf("%" G_GINT64_FORMAT " MiB", max_bytes >> 20);
}

static char *too_large(int64_t max_bytes, const char *size) {
  char *lim = limit_text(max_bytes);
  char *why = g_strdup_printf("larger than the %s limit (%s)", lim, size);
  g_free(lim);
  return why;
}

int in_open_regular(const char *path, int64_t max_bytes, char **why) {
  /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *why = g_strdup(g_strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    *why = g_strdup(g_strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    *why = g_strdup_printf("not a regular file (%s)", kind_of(st.st_mode));
  } else if ((int64_t)st.st_size > max_bytes) {
    char *size = g_strdup_printf("%" G_GINT64_FORMAT " bytes", (int64_t)st.st_size);
    *why = too_large(max_bytes, size);
    g_free(size);
  } else {
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    return fd;
  }
  close(fd);
  return -1;
}

bool in_read_regular(const char *path, int64_t max_bytes, char **text, size_t *len, char **why) {
  int fd = in_open_regular(path, max_bytes, why);
  if (fd < 0) return false;
  GString *buf = g_string_new(NULL);
  char chunk[16384];
  ssize_t got;
  while ((got = read(fd, chunk, sizeof chunk)) > 0 && (int64_t)buf->len <= max_bytes)
    g_string_append_len(buf, chunk, got);
  int errnum = errno;
  close(fd);
  if (got < 0 || (int64_t)buf->len > max_bytes) {
    *why = got < 0 ? g_strdup(g_strerror(errnum)) : too_large(max_bytes, "it grew while read");
    g_string_free(buf, TRUE);
    return false;
  }
  *len = buf->len;
  *text = g_string_free(buf, FALSE);
  return true;
}

char *in_path_beside(const char *file, const char *path) {
  if (!file || g_path_is_absolute(path)) return g_strdup(path);
  char *dir = g_path_get_dirname(file);
  char *out = strcmp(dir, ".") ? g_build_filename(dir, path, NULL) : g_strdup(path);
  g_free(dir);
  return out;
}
