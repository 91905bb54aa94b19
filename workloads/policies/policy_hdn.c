/* Policy "hdn", host-driven networking (DESIGN.md Sec. 2; GPU-TN Sec. 1 and
 * 5.1 "HDN", Fig. 3): the CPU launches one kernel per compute phase, waits
 * for it (control-flow switch), then sends through the host stack. The
 * receiving host polls the data's flag in memory, as the target of GPU-TN
 * Fig. 8 does (Sec. 5.2); "hdn2s" completes a two-sided receive instead
 * (Sec. 5.1's send/recv), paying cpu.recv. Under nccl and nvshmem a
 * collective is the library's kernel, launched and waited for, and so are
 * point-to-point messages (the host code calls the library: wl_group_p2p).
 * A graph rank runs as a graph on the host; a compute the program puts on
 * the CPU (a schedule's calc, DaCe + MPI's host packing of strided faces:
 * jacobi pack host) runs on the host. Under cpu.launch graph each launch
 * is a graph of one kernel, replayed (graph.c): a kernel waited for before
 * the next is launched has nothing to be captured with. */
#include "lower.h"

struct hdn_state {
  struct pol_kern coll; /* the library's collective being written */
};

static void hdn_prepare(struct pol_prep *pr) {
  pol_prep_form(pr, WL_FORM_DISCRETE);
  pol_prep_library(pr, true);
  pol_prep_rendezvous(pr);
  pol_prep_loops(pr, POL_LOOPS_KEEP);
}

/* The host waits until it notices kernel K ended. */
static void wait_kernel(struct pol_low *L, uint32_t k) {
  pol_add_host(L, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = k});
}

/* RECV_POLLS: the host polls a receive's flag (hdn), or completes a
 * two-sided receive (hdn2s). */
static bool hdn_lower_as(bool recv_polls, struct pol_low *L, const struct wl_op *o, char **err) {
  if (!o) { /* the end: under cpu.launch graph each launch a graph of its own */
    pol_capture_graphs(L);
    return true;
  }
  struct hdn_state *s = L->state;
  if (L->span && L->span->region) { /* a library's collective: its kernel, waited for */
    bool first, last;
    if (!pol_coll_op(L, &s->coll, o, &first, &last, err)) return false;
    if (first) {
      uint32_t qc = pol_add_qcmd(L, (struct qcmd){.kind = Q_KERNEL, .kernel = s->coll.id});
      pol_add_host(L, (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = qc});
      wait_kernel(L, s->coll.id);
    }
    return true;
  }
  bool two = !(L->graph && o->one_sided);
  switch (o->kind) {
  case WL_COMPUTE:
    if (o->on == WL_ON_CPU) /* the host computes it (a schedule's calc; host packing) */
      pol_add_host(L, (struct hstep){.kind = HS_COMPUTE, .time = pol_host_time(L, o)});
    else
      wait_kernel(L, pol_launch_compute(L, o, "compute", 0));
    break;
  case WL_SEND: pol_host_send(L, o, two); break;
  case WL_RECV: pol_host_recv(L, o, two && !recv_polls); break;
  case WL_QUIET: /* its puts' ACKs, counted on its flag */
    pol_add_host(L, (struct hstep){.kind = HS_WAIT_FLAG, .flag = o->flag, .value = o->count});
    break;
  case WL_SYNC: break; /* each phase's kernel ends before the host goes on */
  case WL_LOOP:
  case WL_END: pol_add_host(L, pol_loop_hstep(o)); break;
  default: g_assert_not_reached();
  }
  return true;
}

static bool hdn_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  return hdn_lower_as(true, L, o, err);
}

static bool hdn2s_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  return hdn_lower_as(false, L, o, err);
}

const struct pol_type pol_hdn = {
    .name = "hdn",
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
    .state_size = sizeof(struct hdn_state),
    .prepare = hdn_prepare,
    .lower = hdn_lower,
    .watcher = pol_watch_cpu,
    .computes_on = pol_on_either,
    .done = CPU_OUT(MAIN_DONE),
};

const struct pol_type pol_hdn2s = {
    .name = "hdn2s",
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
    .state_size = sizeof(struct hdn_state),
    .prepare = hdn_prepare,
    .lower = hdn2s_lower,
    .watcher = pol_watch_cpu,
    .computes_on = pol_on_either,
    .done = CPU_OUT(MAIN_DONE),
};
