/* Policy "cpu" (DESIGN.md Sec. 2; GPU-TN Sec. 5.1 "CPU"): no GPU; the CPU
 * computes every phase and sends and receives two-sided through the host
 * network stack. */
#include "lower.h"

static sim_time ceil_ps(unsigned __int128 num, unsigned __int128 den) {
  return (sim_time)((num + den - 1) / den);
}

/* A compute phase on all cores, through a roofline: the larger of
 * n_wgs * flops_per_wg / (cores * clock * flops_per_cycle) and
 * n_wgs * bytes_per_wg * 8 / mem_bandwidth, each rounded up to a ps. */
static sim_time cpu_phase_time(const struct cpu_config *cpu, const struct wl_op *o) {
  unsigned __int128 flops = (unsigned __int128)o->n_wgs * (uint64_t)o->flops_per_wg;
  unsigned __int128 bytes = (unsigned __int128)o->n_wgs * (uint64_t)o->bytes_per_wg;
  sim_time tf = ceil_ps(flops * SIM_S, (unsigned __int128)(uint64_t)cpu->cores *
                                           (uint64_t)cpu->clock * (uint64_t)cpu->flops_per_cycle);
  sim_time tb = ceil_ps(bytes * 8u * SIM_S, (uint64_t)cpu->mem_bandwidth);
  return MAX(tf, tb);
}

static bool cpu_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                      struct pol_prog *pp, char **err) {
  (void)err;
  const struct wl_rank *r = &p->ranks[rank];
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    switch (o->kind) {
    case WL_COMPUTE:
      pol_add_host(pp, (struct hstep){.kind = HS_COMPUTE, .time = cpu_phase_time(hw->cpu, o)});
      break;
    case WL_SEND: pol_host_send(&pol_cpu, p, rank, i, pp); break;
    case WL_RECV: pol_host_recv(p, rank, i, pp); break;
    case WL_SYNC: break; /* the host runs the phases in order */
    default: g_assert_not_reached();
    }
  }
  return true;
}

const struct pol_type pol_cpu = {
    .name = "cpu",
    .recv_watcher = pol_watch_cpu,
    .lower = cpu_lower,
    .done_key = "cpu.main_done",
};
