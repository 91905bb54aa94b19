/* Policy "overlap", CPU-controlled discrete kernels overlapping
 * communication on a second stream (CPU-free ICS23 Sec. 5.1.1 "Baseline
 * Overlap", and Sec. 5.2.1 "CPU-Controlled Pipelined CG": one stream
 * computes while the other communicates): lane 1 ops (a stencil's boundary,
 * pipelined CG's reduction) go on GPU queue 1, lane 0 on queue 0; the host
 * waits for a kernel only when a copy of its data, a sync or the end needs
 * it, and issues the copies itself (cpu.build_cmd each). */
#include "lower.h"

static bool overlap_check(const struct scenario *sc, const struct hw_config *hw,
                          const struct wl_program *p, char **err) {
  (void)p;
  if (hw->gpu->queues >= 2) return true;
  *err = wl_error_at(sc, "hardware.gpu.queues",
                      "expected at least 2 for policy overlap (a second stream), got %" G_GINT64_FORMAT,
                      hw->gpu->queues);
  return false;
}

static bool overlap_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                          struct pol_prog *pp, char **err) {
  return pol_host_copies(&pol_overlap, p, rank, hw, pp, true, err);
}

const struct pol_type pol_overlap = {
    .name = "overlap",
    .check = overlap_check,
    .recv_watcher = pol_watch_cpu,
    .lower = overlap_lower,
    .done = CPU_OUT(MAIN_DONE),
    .graph = {.host = true, .gpu = true},
    .loops = true,
    .loops_at_syncs = true,
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
};
