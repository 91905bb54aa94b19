/* Policy "hdn", host-driven networking (DESIGN.md Sec. 2; GPU-TN Sec. 1 and
 * 5.1 "HDN", Fig. 3): the CPU launches one kernel per compute phase, waits
 * for it (control-flow switch), then sends through the host stack. The
 * receiving host polls the data's flag in memory, as the target of GPU-TN
 * Fig. 8 does (Sec. 5.2); "hdn2s" completes a two-sided receive instead
 * (Sec. 5.1's send/recv), paying cpu.recv. */
#include "lower.h"

/* Launch the phase's kernel on queue 0 and wait until the host notices it
 * ended. */
static void hdn_compute(const struct wl_op *o, struct pol_prog *pp) {
  const struct kstep step = pol_launch_step(o);
  uint32_t k = pol_add_kernel(pp, "compute", o->n_wgs, &step, 1);
  uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = k});
  pol_add_host(pp, (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = qc});
  pol_add_host(pp, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = k});
}

static bool hdn_lower_as(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                         const struct hw_config *hw, struct pol_prog *pp, char **err) {
  const struct wl_rank *r = &p->ranks[rank];
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    if (pol_coll_starts(p, rank, i)) { /* a library's collective: its kernel, waited for */
      size_t end;
      int32_t k = pol_coll_kernel(p, rank, i, &end, hw, pp, err);
      if (k < 0) return false;
      uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = (uint32_t)k});
      pol_add_host(pp, (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = qc});
      pol_add_host(pp, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = (uint32_t)k});
      i = end - 1;
      continue;
    }
    switch (o->kind) {
    case WL_COMPUTE: hdn_compute(o, pp); break;
    case WL_SEND: pol_host_send(pol, p, rank, i, pp); break;
    case WL_RECV:
      if (pol->graph.recv_polls)
        pol_add_host(pp, (struct hstep){.kind = HS_WAIT_FLAG, .flag = o->flag, .value = 1});
      else
        pol_host_recv(p, rank, i, pp);
      break;
    case WL_SYNC: break; /* each phase's kernel ends before the host goes on */
    case WL_LOOP:
    case WL_END: pol_add_host(pp, pol_loop_hstep(o)); break;
    default: g_assert_not_reached();
    }
  }
  return true;
}

static bool hdn_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                      struct pol_prog *pp, char **err) {
  return hdn_lower_as(&pol_hdn, p, rank, hw, pp, err);
}

static bool hdn2s_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                        struct pol_prog *pp, char **err) {
  return hdn_lower_as(&pol_hdn2s, p, rank, hw, pp, err);
}

const struct pol_type pol_hdn = {
    .name = "hdn",
    .recv_watcher = pol_watch_cpu,
    .lower = hdn_lower,
    .done = CPU_OUT(MAIN_DONE),
    .graph = {.host = true, .gpu = true, .two_sided = true, .recv_polls = true},
    .loops = true,
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
    .lib_p2p = true,
};

const struct pol_type pol_hdn2s = {
    .name = "hdn2s",
    .recv_watcher = pol_watch_cpu,
    .lower = hdn2s_lower,
    .done = CPU_OUT(MAIN_DONE),
    .graph = {.host = true, .gpu = true, .two_sided = true},
    .loops = true,
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
    .lib_p2p = true,
};
