/* Policy "p2p", device-initiated communication under host synchronization
 * (CPU-free ICS23 Sec. 5.1.1 "Baseline P2P" / "Baseline NVSHMEM"): the
 * host launches one kernel per sync-delimited segment of the program (a
 * time step) and waits for it before launching the next; inside, WGs put
 * their data with device-initiated puts (as cpufree) and wait on the
 * incoming signals. The CPU is on the control path once per step. */
#include "lower.h"

static struct kstep p2p_send(const struct wl_program *p, uint32_t rank, size_t i, uint32_t wgs,
                             uint32_t selected, struct pol_prog *pp) {
  (void)selected;
  return pol_lib_send(&pol_p2p, p, rank, i, wgs, pp);
}

static bool p2p_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                      struct pol_prog *pp, char **err) {
  const struct wl_rank *r = &p->ranks[rank];
  for (size_t a = 0; a < r->n_ops;) {
    size_t b = a;
    bool coll = pol_coll_starts(p, rank, a);
    /* A segment, or a library's collective (its own kernel). */
    if (coll)
      while (b < r->n_ops && r->ops[b].region == r->ops[a].region) b++;
    else
      while (b < r->n_ops && r->ops[b].kind != WL_SYNC && r->ops[b].kind != WL_LOOP &&
             r->ops[b].kind != WL_END && !pol_coll_starts(p, rank, b))
        b++;
    if (b > a) {
      size_t end = b;
      int32_t k = coll ? pol_coll_kernel(p, rank, a, &end, hw, pp, err)
                       : pol_kernel_of("p2p", p, rank, a, b, hw, p2p_send, pp, err);
      g_assert(end == b);
      if (k < 0) return false;
      uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = (uint32_t)k});
      pol_add_host(pp, (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = qc});
      pol_add_host(pp, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = (uint32_t)k});
    }
    /* The sync is the kernel boundary; a loop marker comes after one
     * (loops_at_syncs): the host loops over the kernels. A collective's
     * kernel ends where its ops do. */
    if (b == r->n_ops || (r->ops[b].kind != WL_SYNC && r->ops[b].kind != WL_LOOP &&
                          r->ops[b].kind != WL_END)) {
      a = b;
      continue;
    }
    if (r->ops[b].kind != WL_SYNC) pol_add_host(pp, pol_loop_hstep(&r->ops[b]));
    a = b + 1;
  }
  return true;
}

const struct pol_type pol_p2p = {
    .name = "p2p",
    .recv_watcher = pol_watch_gpu,
    .lower = p2p_lower,
    .done = CPU_OUT(MAIN_DONE),
    .graph = {.gpu = true},
    .loops = true,
    .loops_at_syncs = true,
    .one_kernel = true, /* a rank without syncs: one kernel, launched and waited for */
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
};
