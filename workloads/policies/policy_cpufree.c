/* Policy "cpufree", persistent CPU-free execution (Ismayilov and Erten,
 * ICS23, Sec. 3; DESIGN.md Sec. 2): the CPU launches one persistent kernel
 * holding the rank's whole program; thread-block specialization is modelled
 * by the last WG of a piece to finish (an atomic arrive after its fence)
 * posting a device-initiated put-with-signal straight to the NIC
 * (NVSHMEM/IBGDA-like: nic.cmd_cost, no CPU, no trigger list); receives wait
 * on the signal word; syncs are device-wide barriers, over a grid launched
 * at residency (pol_kern_open: pad). */
#include "lower.h"

struct cpufree_state {
  bool started;
  struct pol_kern kern;
};

static void cpufree_prepare(struct pol_prep *pr) {
  pol_prep_form(pr, WL_FORM_FUSED);
  pol_prep_library(pr, false);
  pol_prep_loops(pr, POL_LOOPS_KEEP);
  pol_prep_order(pr);
}

static struct kstep cpufree_send(struct pol_low *L, const struct wl_op *o, uint32_t wgs,
                                 uint32_t selected) {
  (void)selected; /* the GPU counts the selected WGs' arrivals */
  return pol_lib_send(L, o, wgs, false);
}

static bool cpufree_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  struct cpufree_state *s = L->state;
  if (!o) return true;
  pol_host_closed(L); /* the launch is all the host does */
  return pol_one_kernel_op(L, &s->kern, &s->started, "cpufree", true, true, cpufree_send, o, err);
}

const struct pol_type pol_cpufree = {
    .name = "cpufree",
    .libs = 1u << COMM_NVSHMEM,
    .lib_default = COMM_NVSHMEM,
    .state_size = sizeof(struct cpufree_state),
    .prepare = cpufree_prepare,
    .lower = cpufree_lower,
    .watcher = pol_watch_gpu,
    .computes_on = pol_on_gpu,
    .done = GPU_OUT(WG_LAST_END),
};
