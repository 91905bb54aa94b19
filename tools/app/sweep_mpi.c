/* MPI distribution of sweep points (see sweep_mpi.h): one gather of the
 * journal-line encoding of each rank's results to rank 0. */
#include "sweep_mpi.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#ifdef TRIGSIM_MPI
#include <mpi.h>

static bool under_mpirun(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

void swm_init(struct swm *m) {
  *m = (struct swm){.rank = 0, .size = 1};
  if (!under_mpirun()) return;
  int provided;
  MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &m->size);
  m->active = true;
}

void swm_finalize(struct swm *m) {
  if (m->active) MPI_Finalize();
  m->active = false;
}

int swm_max_status(const struct swm *m, int status) {
  if (!m->active) return status;
  int all = status;
  MPI_Allreduce(&status, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return all;
}

/* Rank 0 decodes TEXT (LEN bytes of whole lines) into R. */
static bool take_lines(const char *text, size_t len, struct swr_results *r) {
  size_t at = 0;
  while (at < len) {
    const char *nl = memchr(text + at, '\n', len - at);
    if (!nl) return false;
    char *line = g_strndup(text + at, (gsize)(nl - (text + at)) + 1);
    size_t p = 0, n = 0;
    struct sim_result *runs = NULL;
    bool ok = swr_decode(line, &p, &runs, &n) && p < r->n_points && !r->runs[p];
    g_free(line);
    if (!ok) {
      for (size_t i = 0; runs && i < n; i++) sim_result_clear(&runs[i]);
      g_free(runs);
      return false;
    }
    r->runs[p] = runs;
    r->n_runs[p] = n;
    at = (size_t)(nl - text) + 1;
  }
  return true;
}

bool swm_gather(const struct swm *m, struct swr_results *r) {
  if (!m->active || m->size == 1) return true;
  GString *mine = g_string_new(NULL);
  if (m->rank != 0) {
    for (size_t i = 0; i < r->n_points; i++) {
      if (!r->runs[i]) continue;
      char *line = swr_encode(i, r->runs[i], r->n_runs[i]);
      g_string_append(mine, line);
      g_free(line);
    }
  }
  int len = (int)mine->len;
  int *lens = m->rank == 0 ? g_new0(int, m->size) : NULL;
  MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  int *displs = NULL;
  char *all = NULL;
  long total = 0;
  if (m->rank == 0) {
    displs = g_new0(int, m->size);
    for (int k = 0; k < m->size; k++) {
      displs[k] = (int)total;
      total += lens[k];
    }
    all = g_malloc(total ? (gsize)total : 1);
  }
  MPI_Gatherv(mine->str, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
  bool ok = m->rank != 0 || take_lines(all, (size_t)total, r);
  g_string_free(mine, TRUE);
  g_free(lens);
  g_free(displs);
  g_free(all);
  return ok;
}

#else

void swm_init(struct swm *m) { *m = (struct swm){.rank = 0, .size = 1}; }
void swm_finalize(struct swm *m) { (void)m; }
int swm_max_status(const struct swm *m, int status) {
  (void)m;
  return status;
}
bool swm_gather(const struct swm *m, struct swr_results *r) {
  (void)m;
  (void)r;
  return true;
}

#endif
