/* Policy "p2p", device-initiated communication under host synchronization
 * (CPU-free ICS23 Sec. 5.1.1 "Baseline P2P" / "Baseline NVSHMEM"): the
 * host launches one kernel per sync-delimited span of the program (a
 * time step) and waits for it before launching the next; inside, WGs put
 * their data with device-initiated puts (as cpufree) and wait on the
 * incoming signals. The CPU is on the control path once per step. A
 * library's collective is a kernel of its own, launched and waited for. */
#include "lower.h"

struct p2p_state {
  struct pol_kern kern; /* the span's kernel */
};

static void p2p_prepare(struct pol_prep *pr) {
  pol_prep_form(pr, WL_FORM_DISCRETE);
  pol_prep_library(pr, false);
  pol_prep_loops(pr, POL_LOOPS_AT_SYNCS);
  pol_prep_order(pr);
  pol_prep_coll_kernels(pr); /* a library's collective: a kernel of its own (pol_coll_op) */
}

static struct kstep p2p_send(struct pol_low *L, const struct wl_op *o, uint32_t wgs,
                             uint32_t selected) {
  (void)selected;
  return pol_lib_send(L, o, wgs, false);
}

/* Kernel K launched, and waited for once its steps are done. */
static void launch_wait(struct pol_low *L, uint32_t k) {
  uint32_t qc = pol_add_qcmd(L, (struct qcmd){.kind = Q_KERNEL, .kernel = k});
  pol_add_host(L, (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = qc});
  pol_add_host(L, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = k});
}

static bool p2p_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  struct p2p_state *s = L->state;
  if (!o) return true;
  if (!L->span) {
    /* The sync is the kernel boundary; a loop marker comes after one
     * (POL_LOOPS_AT_SYNCS): the host loops over the kernels. */
    if (o->kind != WL_SYNC) pol_add_host(L, pol_loop_hstep(o));
    return true;
  }
  if (L->span->region) { /* a library's collective: its own kernel */
    bool first, last;
    if (!pol_coll_op(L, &s->kern, o, &first, &last, err)) return false;
    if (first) launch_wait(L, s->kern.id);
    return true;
  }
  if (L->span_first) {
    if (!pol_kern_open(L, &s->kern, "p2p", &L->span->shape, false, false, p2p_send, err)) return false;
    launch_wait(L, s->kern.id);
  }
  return pol_kern_op(L, &s->kern, o, err);
}

const struct pol_type pol_p2p = {
    .name = "p2p",
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
    .state_size = sizeof(struct p2p_state),
    .prepare = p2p_prepare,
    .lower = p2p_lower,
    .watcher = pol_watch_gpu,
    .computes_on = pol_on_gpu,
    .done = CPU_OUT(MAIN_DONE),
};
