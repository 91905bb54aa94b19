/* libFuzzer harness: the Chakra reader (workloads/inputs/chakra.h). The
 * input is a trace of 1 to 4 ranks: its first byte gives the ranks n (1 +
 * byte % 4), the next 4 (n - 1) bytes the lengths of the first n - 1 files
 * (little-endian), the rest the files one after another. A program that
 * reads is checked and its collectives written out under mpi and nccl (2
 * ranks a node), then linearized, as a run would; the trace as an op
 * source (its first pass), and where it streams, its collectives written
 * out op by op (wl_coll_source: a first pass through every rank), as a
 * streamed run would. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "chakra.h"
#include "coll.h"
#include "fuzzfile.h"
#include "program.h"
#include "source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  uint32_t n = 1 + data[0] % 4;
  size_t at = 1 + 4 * (size_t)(n - 1);
  if (size < at) return 0;
  const char *path = NULL;
  for (uint32_t r = 0; r < n; r++) {
    size_t len = size - at;
    if (r + 1 < n) {
      const uint8_t *l = data + 1 + 4 * r;
      len = MIN(len, (size_t)l[0] | (size_t)l[1] << 8 | (size_t)l[2] << 16 | (size_t)l[3] << 24);
    }
    char name[32];
    g_snprintf(name, sizeof name, "t.%u.et", r);
    path = fz_write(name, data + at, len);
    at += len;
  }
  char *prefix = g_strndup(path, strlen(path) - strlen(".0.et")); /* n <= 4: one digit */
  char *err = NULL;
  struct chakra_opts o = {.compute = (uint8_t)(data[0] / 4 % 3), .wgs = 4, .dur_wgs = 4,
                          .cpu_skip = data[0] & 0x80};
  struct wl_program *p = wl_chakra_read(prefix, n, 4, &o, NULL, &err);
  if (p) {
    for (int lib = 0; lib < 2; lib++) {
      struct wl_program *q = wl_expand_colls(p, lib ? WL_LIB_NCCL : WL_LIB_MPI, WL_LIB_OPTS(2, 2));
      struct wl_program *u = wl_has_loops(q) ? wl_unroll(q) : NULL;
      struct wl_program *c = u ? u : q;
      if (wl_program_check(c, &err)) {
        struct wl_program *lin = wl_linearize(c, 0, lib == 1);
        wl_program_free(lin);
      }
      g_free(err);
      err = NULL;
      wl_program_free(u);
      wl_program_free(q);
    }
    wl_program_free(p);
  }
  g_free(err);
  err = NULL;
  struct chakra_src *x = chakra_src_open(prefix, n, &o, NULL, &err);
  if (x && chakra_src_streams(x))
    for (int lib = 0; lib < 2; lib++)
      wl_coll_source_free(wl_coll_source(chakra_src_source(x), lib ? WL_LIB_NCCL : WL_LIB_MPI,
                                         WL_LIB_OPTS(2, 2)));
  chakra_src_free(x);
  g_free(err);
  g_free(prefix);
  return 0;
}
