/* Policy "hdn", host-driven networking (DESIGN.md Sec. 2; GPU-TN Sec. 1 and
 * 5.1 "HDN", Fig. 3): the CPU launches one kernel per compute phase, waits
 * for it (control-flow switch), then sends through the host stack. The
 * receiving host polls the data's flag in memory, as the target of GPU-TN
 * Fig. 8 does (Sec. 5.2); "hdn-2s" completes a two-sided receive instead. */
#include "lower.h"

/* Launch the phase's kernel on queue 0 and wait until the host notices it
 * ended. */
static void hdn_compute(const struct wl_op *o, struct pol_prog *pp) {
  const struct kstep step = {.kind = KS_COMPUTE, .flops = o->flops_per_wg,
                             .bytes = o->bytes_per_wg};
  uint32_t k = pol_add_kernel(pp, "compute", o->n_wgs, &step, 1);
  uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = k});
  pol_add_host(pp, (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = qc});
  pol_add_host(pp, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = k});
}

/* A receive: the host polls the flag (hdn), or a two-sided receive
 * completes when it is set (hdn-2s, paying cpu.recv). */
static void hdn_recv(const struct wl_program *p, uint32_t rank, size_t i, bool two_sided,
                     struct pol_prog *pp) {
  if (two_sided) pol_host_recv(p, rank, i, pp);
  else pol_add_host(pp, (struct hstep){.kind = HS_WAIT_FLAG, .flag = p->ranks[rank].ops[i].flag,
                                       .value = 1});
}

static bool hdn_lower_as(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                         struct pol_prog *pp) {
  const struct wl_rank *r = &p->ranks[rank];
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    switch (o->kind) {
    case WL_COMPUTE: hdn_compute(o, pp); break;
    case WL_SEND: pol_host_send(pol, p, rank, i, pp); break;
    case WL_RECV: hdn_recv(p, rank, i, pol == &pol_hdn_2s, pp); break;
    case WL_SYNC: break; /* each phase's kernel ends before the host goes on */
    default: g_assert_not_reached();
    }
  }
  return true;
}

static bool hdn_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                      struct pol_prog *pp, char **err) {
  (void)hw, (void)err;
  return hdn_lower_as(&pol_hdn, p, rank, pp);
}

static bool hdn_2s_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                         struct pol_prog *pp, char **err) {
  (void)hw, (void)err;
  return hdn_lower_as(&pol_hdn_2s, p, rank, pp);
}

const struct pol_type pol_hdn = {
    .name = "hdn",
    .recv_watcher = pol_watch_cpu,
    .lower = hdn_lower,
    .done_key = "cpu.main_done",
};

const struct pol_type pol_hdn_2s = {
    .name = "hdn-2s",
    .recv_watcher = pol_watch_cpu,
    .lower = hdn_2s_lower,
    .done_key = "cpu.main_done",
};
