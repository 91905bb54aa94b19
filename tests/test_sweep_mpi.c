/* `mpirun -np 2 trigsim sweep`: the points are shared between the ranks and
 * rank 0 gathers one output with the same bytes as a single process's. */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"

/* Runs mpirun -np NP trigsim ARGS...; returns the exit status. */
static int mpirun(const char *np, const char *const *args, char **out, char **err) {
  GPtrArray *argv = g_ptr_array_new();
  const char *pre[] = {g_getenv("TRIGSIM_MPIEXEC"), "--allow-run-as-root", "--oversubscribe",
                       "-np", np, g_getenv("TRIGSIM_BIN")};
  for (size_t i = 0; i < G_N_ELEMENTS(pre); i++) g_ptr_array_add(argv, (gpointer)pre[i]);
  for (; *args; args++) g_ptr_array_add(argv, (gpointer)*args);
  g_ptr_array_add(argv, NULL);
  /* No ssh or resource manager in a sandbox: every rank on this host. */
  char **env = g_environ_setenv(g_get_environ(), "OMPI_MCA_plm", "isolated", TRUE);
  env = g_environ_setenv(env, "OMPI_MCA_btl_vader_single_copy_mechanism", "none", TRUE);
  env = g_environ_setenv(env, "OMPI_MCA_rmaps_base_oversubscribe", "1", TRUE);
  int wstatus = -1;
  gboolean ok = g_spawn_sync(NULL, (char **)argv->pdata, env, 0, NULL, NULL, out, err, &wstatus, NULL);
  g_strfreev(env);
  g_ptr_array_free(argv, TRUE);
  if (!ok) return -1;
  return g_spawn_check_wait_status(wstatus, NULL) ? 0 : (WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1);
}

static void test_two_ranks_gather_the_same_bytes(void) {
  char *rel = g_build_filename("sweep", "phold.yaml", NULL);
  char *f = tu_data(rel), *ref = NULL, *err = NULL, *out = NULL;
  char *dir = g_dir_make_tmp("trigsim-mpi-XXXXXX", NULL);
  char *csv = g_build_filename(dir, "r.csv", NULL);
  CU_ASSERT_EQUAL(tu_trigsim((const char *[]){"run", f, "-f", "csv", NULL}, &ref, NULL), 0);
  CU_ASSERT_EQUAL(mpirun("2", (const char *[]){"sweep", f, "-j", "1", "-o", csv, NULL}, &out, &err), 0);
  if (!g_file_test(csv, G_FILE_TEST_EXISTS)) fprintf(stderr, "\n%s\n%s\n", out, err);
  char *got = NULL;
  CU_ASSERT_TRUE(g_file_get_contents(csv, &got, NULL, NULL));
  CU_ASSERT_STRING_EQUAL(got, ref);
  /* 4 points over 2 ranks: rank 0, the only one showing progress, ran 2. */
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "trigsim sweep: 2/2 points (100%)"));
  /* The ranks' journals are gone once the output is written. */
  GDir *d = g_dir_open(dir, 0, NULL);
  CU_ASSERT_STRING_EQUAL(g_dir_read_name(d), "r.csv");
  CU_ASSERT_PTR_NULL(g_dir_read_name(d));
  g_dir_close(d);
  g_free(got);
  g_free(out);
  g_free(err);
  /* A bad scenario: exit 2 from every rank, the message once. */
  char *bad = g_build_filename(g_getenv("TRIGSIM_DATA"), "sweep", "bad_value.yaml", NULL);
  CU_ASSERT_EQUAL(mpirun("2", (const char *[]){"sweep", bad, "-o", csv, NULL}, &out, &err), 2);
  const char *first = strstr(err, "workload.lps: expected an integer in [1, 1048576], got 0");
  CU_ASSERT_PTR_NOT_NULL(first);
  if (first) CU_ASSERT_PTR_NULL(strstr(first + 1, "workload.lps: expected"));
  g_free(out);
  g_free(err);
  g_free(bad);
  g_unlink(csv);
  g_rmdir(dir);
  g_free(csv);
  g_free(dir);
  g_free(ref);
  g_free(f);
  g_free(rel);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"two ranks gather the same bytes", test_two_ranks_gather_the_same_bytes}, {NULL, NULL}};
  return tu_run_suite("sweep_mpi", tests);
}
