/* Policy "hdn", host-driven networking (DESIGN.md Sec. 2; GPU-TN Sec. 1 and
 * 5.1 "HDN", Fig. 3): the CPU launches one kernel per compute phase, waits
 * for it (control-flow switch), then sends and receives two-sided. */
#include "lower.h"

/* Launch the phase's kernel on queue 0 and wait until the host notices it
 * ended. */
static void hdn_compute(const struct wl_op *o, struct pol_prog *pp) {
  const struct kstep step = pol_compute_step(o, 1);
  uint32_t k = pol_add_kernel(pp, "compute", o->n_wgs, &step, 1);
  uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = k});
  pol_add_host(pp, (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = qc});
  pol_add_host(pp, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = k});
}

static bool hdn_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                      struct pol_prog *pp, char **err) {
  (void)hw, (void)err;
  const struct wl_rank *r = &p->ranks[rank];
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    switch (o->kind) {
    case WL_COMPUTE: hdn_compute(o, pp); break;
    case WL_SEND: pol_host_send(&pol_hdn, p, rank, i, pp); break;
    case WL_RECV: pol_host_recv(p, rank, i, pp); break;
    case WL_SYNC: break; /* each phase's kernel ends before the host goes on */
    default: g_assert_not_reached();
    }
  }
  return true;
}

const struct pol_type pol_hdn = {
    .name = "hdn",
    .recv_watcher = pol_watch_cpu,
    .lower = hdn_lower,
    .done_key = "cpu.main_done",
    .graph = {.host = true, .gpu = true, .two_sided = true},
};
