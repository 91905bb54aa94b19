/* libFuzzer harness: the Matrix Market reader (workloads/inputs/sparse.h). A
 * matrix that reads is partitioned in two blocks and, when square, run a
 * few CG iterations. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzzfile.h"
#include "sparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fz_write("m.mtx", data, size);
  char *err = NULL;
  struct sp_matrix *m = sp_matrix_read(path, &err);
  if (m) {
    struct sp_part *p = sp_partition(m, 2, SP_BLOCKS, &err);
    if (p) sp_part_free(p);
    sp_cg_iterations(m, 1e-6, 20);
    sp_matrix_free(m);
  }
  g_free(err);
  return 0;
}
