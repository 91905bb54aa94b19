#include "testutil.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static GPtrArray *temp_files;

static void remove_temp_files(void) {
  if (!temp_files) return;
  for (guint i = 0; i < temp_files->len; i++) g_unlink(temp_files->pdata[i]);
  g_ptr_array_free(temp_files, TRUE);
  temp_files = NULL;
}

int tu_run_suite(const char *suite, const struct tu_test *tests) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 1;
  CU_pSuite s = CU_add_suite(suite, NULL, NULL);
  for (const struct tu_test *t = tests; t->name; t++) CU_add_test(s, t->name, t->fn);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  unsigned run = CU_get_number_of_tests_run();
  CU_cleanup_registry();
  remove_temp_files();
  return (failed == 0 && run > 0) ? 0 : 1;
}

char *tu_data(const char *name) {
  const char *dir = g_getenv("TRIGSIM_DATA");
  return g_build_filename(dir ? dir : "data", name, NULL);
}

int tu_trigsim(const char *const *argv, char **out, char **err) {
  const char *bin = g_getenv("TRIGSIM_BIN");
  GPtrArray *args = g_ptr_array_new();
  g_ptr_array_add(args, (gpointer)(bin ? bin : "trigsim"));
  for (const char *const *a = argv; *a; a++) g_ptr_array_add(args, (gpointer)*a);
  g_ptr_array_add(args, NULL);
  char *o = NULL, *e = NULL;
  int status = -1;
  GError *gerr = NULL;
  if (!g_spawn_sync(NULL, (char **)args->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &o, &e, &status,
                    &gerr)) {
    e = g_strdup(gerr->message);
    g_error_free(gerr);
    status = -1;
  } else if (WIFEXITED(status)) {
    status = WEXITSTATUS(status);
  } else {
    status = 128 + WTERMSIG(status);
  }
  g_ptr_array_free(args, TRUE);
  if (out) *out = o; else g_free(o);
  if (err) *err = e; else g_free(e);
  return status;
}

bool tu_dies(void (*fn)(void *arg), void *arg, char **err) {
  char *path = NULL;
  int fd = g_file_open_tmp("trigsim-dies-XXXXXX", &path, NULL);
  g_assert(fd >= 0);
  fflush(NULL);
  pid_t pid = fork();
  g_assert(pid >= 0);
  if (pid == 0) {
    dup2(fd, STDERR_FILENO);
    fn(arg);
    _exit(0);
  }
  close(fd);
  int status = 0;
  g_assert(waitpid(pid, &status, 0) == pid);
  char *text = NULL;
  if (!g_file_get_contents(path, &text, NULL, NULL)) text = g_strdup("");
  g_unlink(path);
  g_free(path);
  if (err) *err = text;
  else g_free(text);
  return WIFSIGNALED(status);
}

char *tu_temp_file(const char *suffix, const char *text, size_t len) {
  char *tmpl = g_strdup_printf("trigsim-test-XXXXXX%s", suffix);
  char *path = NULL;
  int fd = g_file_open_tmp(tmpl, &path, NULL);
  g_free(tmpl);
  g_assert(fd >= 0);
  g_assert(write(fd, text, len) == (ssize_t)len);
  close(fd);
  if (!temp_files) {
    temp_files = g_ptr_array_new_with_free_func(g_free);
    atexit(remove_temp_files);
  }
  g_ptr_array_add(temp_files, g_strdup(path));
  return path;
}

int tu_csv_column(const char *head, const char *name) {
  char **cols = g_strsplit(head, ",", -1);
  int at = -1;
  for (int i = 0; cols[i] && at < 0; i++)
    if (!strcmp(cols[i], name)) at = i;
  g_strfreev(cols);
  return at;
}

char *tu_csv_field(const char *line, int i) {
  char **f = g_strsplit(line, ",", -1);
  char *v = i >= 0 && i < (int)g_strv_length(f) ? g_strdup(f[i]) : g_strdup("?");
  g_strfreev(f);
  return v;
}
