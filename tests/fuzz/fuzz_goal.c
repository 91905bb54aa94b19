/* libFuzzer harness: the GOAL reader (workloads/inputs/goal.h). The input is a
 * schedule file, read with at most 64 ranks; a program that reads is
 * checked (send/receive matching) and linearized, as a run would. */
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzzfile.h"
#include "goal.h"
#include "program.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *path = fz_write("s.goal", data, size);
  char *err = NULL;
  uint64_t ranks = 0;
  struct wl_program *p = wl_goal_read(path, 1000, WL_ON_ANY, 64, &ranks, &err);
  if (p) {
    if (wl_program_check(p, &err)) {
      struct wl_program *lin = wl_linearize(p, 0, false);
      wl_program_free(lin);
      lin = wl_linearize(p, 1 + (uint32_t)(size % 4), false); /* windowed, the fallback past it */
      wl_program_free(lin);
    }
    wl_program_free(p);
  }
  g_free(err);
  return 0;
}
