/* Policy "cpu" (DESIGN.md Sec. 2; GPU-TN Sec. 5.1 "CPU"): no GPU; the CPU
 * computes every phase and sends and receives two-sided through the host
 * network stack. A graph rank runs as a graph on the host: each op starts
 * once its dependencies hold, as in LogGOPSim (models/cpu.c); a one-sided
 * put of a YAML program and its wait go without the host stack. */
#include "lower.h"

static void cpu_prepare(struct pol_prep *pr) {
  pol_prep_form(pr, WL_FORM_DISCRETE);
  pol_prep_library(pr, false);
  pol_prep_rendezvous(pr);
  pol_prep_loops(pr, POL_LOOPS_KEEP);
}

static bool cpu_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  (void)err;
  if (!o) return true;
  bool two = !(L->graph && o->one_sided);
  switch (o->kind) {
  case WL_COMPUTE:
    pol_add_host(L, (struct hstep){.kind = HS_COMPUTE, .time = pol_cpu_time(L, o)});
    break;
  case WL_SEND: pol_host_send(L, o, two); break;
  case WL_RECV: pol_host_recv(L, o, two); break;
  case WL_QUIET: /* its puts' ACKs, counted on its flag */
    pol_add_host(L, (struct hstep){.kind = HS_WAIT_FLAG, .flag = o->flag, .value = o->count});
    break;
  case WL_SYNC: break; /* the host runs the phases in order */
  case WL_LOOP:
  case WL_END: pol_add_host(L, pol_loop_hstep(o)); break;
  default: g_assert_not_reached();
  }
  return true;
}

const struct pol_type pol_cpu = {
    .name = "cpu",
    .libs = 1u << COMM_MPI,
    .lib_default = COMM_MPI,
    .prepare = cpu_prepare,
    .lower = cpu_lower,
    .watcher = pol_watch_cpu,
    .computes_on = pol_on_cpu,
    .done = CPU_OUT(MAIN_DONE),
};
