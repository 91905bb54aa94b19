/* Policy "cpufree", persistent CPU-free execution (Ismayilov and Erten,
 * ICS23, Sec. 3; DESIGN.md Sec. 2): the CPU launches one persistent kernel
 * holding the rank's whole program; thread-block specialization is modelled
 * by the last WG of a piece to finish (an atomic arrive after its fence)
 * posting a device-initiated put-with-signal straight to the NIC
 * (NVSHMEM/IBGDA-like: nic.cmd_cost, no CPU, no trigger list); receives wait
 * on the signal word; syncs are device-wide barriers. */
#include "lower.h"

static struct kstep cpufree_send(const struct wl_program *p, uint32_t rank, size_t i,
                                 uint32_t wgs, uint32_t selected, struct pol_prog *pp) {
  (void)selected; /* the GPU counts the selected WGs' arrivals */
  return pol_lib_send(&pol_cpufree, p, rank, i, wgs, pp);
}

static bool cpufree_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                          struct pol_prog *pp, char **err) {
  return pol_one_kernel("cpufree", p, rank, hw, cpufree_send, pp, err);
}

const struct pol_type pol_cpufree = {
    .name = "cpufree",
    .recv_watcher = pol_watch_gpu,
    .lower = cpufree_lower,
    .done = GPU_OUT(WG_LAST_END),
    .graph = {.gpu = true},
    .loops = true,
    .one_kernel = true,
    .libs = 1u << COMM_NVSHMEM,
    .lib_default = COMM_NVSHMEM,
};
