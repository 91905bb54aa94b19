/* Policy "copy", CPU-controlled discrete kernels with host-initiated copies
 * and no overlap (CPU-free ICS23 Sec. 5.1.1 "Baseline Copy", NVIDIA's
 * multi-GPU programming models jacobi): the host launches each compute
 * phase's kernel and synchronizes with it, then issues one-sided copies of
 * the halos (cudaMemcpyAsync peer copies: cpu.build_cmd each) and waits for
 * the incoming ones before the next launch. */
#include "lower.h"

static bool copy_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                       struct pol_prog *pp, char **err) {
  return pol_host_copies(&pol_copy, p, rank, hw, pp, false, err);
}

const struct pol_type pol_copy = {
    .name = "copy",
    .recv_watcher = pol_watch_cpu,
    .lower = copy_lower,
    .done = CPU_OUT(MAIN_DONE),
    .graph = {.host = true, .gpu = true},
    .loops = true,
    .loops_at_syncs = true,
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
};
