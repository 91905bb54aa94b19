/* Policy "cpu" (DESIGN.md Sec. 2; GPU-TN Sec. 5.1 "CPU"): no GPU; the CPU
 * computes every phase and sends and receives two-sided through the host
 * network stack. */
#include "lower.h"

static bool cpu_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                      struct pol_prog *pp, char **err) {
  (void)err;
  const struct wl_rank *r = &p->ranks[rank];
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    switch (o->kind) {
    case WL_COMPUTE:
      pol_add_host(pp, (struct hstep){.kind = HS_COMPUTE, .time = pol_cpu_time(hw->cpu, o)});
      break;
    case WL_SEND: pol_host_send(&pol_cpu, p, rank, i, pp); break;
    case WL_RECV: pol_host_recv(p, rank, i, pp); break;
    case WL_SYNC: break; /* the host runs the phases in order */
    case WL_LOOP:
    case WL_END: pol_add_host(pp, pol_loop_hstep(o)); break;
    default: g_assert_not_reached();
    }
  }
  return true;
}

const struct pol_type pol_cpu = {
    .name = "cpu",
    .recv_watcher = pol_watch_cpu,
    .lower = cpu_lower,
    .done = CPU_OUT(MAIN_DONE),
    .graph = {.host = true, .two_sided = true},
    .loops = true,
    .libs = 1u << COMM_MPI,
    .lib_default = COMM_MPI,
};
