/* Policy "gputn", GPU triggered networking (LeBeane et al., SC17, Sec. 3-4,
 * Fig. 3, Fig. 6; DESIGN.md Sec. 2): the CPU registers a triggered put per
 * send on the NIC, then launches one kernel for the rank's whole program;
 * its WGs store the put's tag to the NIC trigger address as soon as their
 * part is done, and poll a flag in memory for a receive. */
#include "lower.h"

static uint8_t gputn_watcher(const struct wl_program *p, uint32_t rank, size_t i) {
  (void)p, (void)rank, (void)i;
  return DEV_GPU;
}

/* WGs of the rank's one kernel: those of its compute phases, which must
 * all agree for now (1 when there is none). 0 when they do not. */
static uint32_t kernel_wgs(const struct wl_rank *r) {
  uint32_t n = 0;
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    if (o->kind != WL_COMPUTE) continue;
    if (n && n != o->n_wgs) return 0;
    n = o->n_wgs;
  }
  return n ? n : 1;
}

/* The kernel step of op O; sends take trigger tags 1, 2, ... in order. */
static struct kstep gputn_step(const struct wl_program *p, uint32_t rank, size_t i,
                               uint32_t wgs, uint32_t *tag) {
  const struct wl_op *o = &p->ranks[rank].ops[i];
  switch (o->kind) {
  case WL_COMPUTE:
    return (struct kstep){.kind = KS_COMPUTE, .flops = o->flops_per_wg, .bytes = o->bytes_per_wg};
  case WL_SEND: /* every WG stores the same tag: the put fires after all of them */
    return (struct kstep){.kind = KS_TRIGGER, .tag = ++*tag, .tag_div = wgs};
  case WL_RECV:
    return (struct kstep){.kind = KS_WAIT_FLAG, .flag = wl_recv_ordinal(p, rank, i), .value = 1};
  default: g_assert_not_reached();
  }
}

static bool gputn_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                        struct pol_prog *pp, char **err) {
  (void)hw;
  const struct wl_rank *r = &p->ranks[rank];
  if (r->n_ops == 0) return true;
  uint32_t wgs = kernel_wgs(r), tag = 0;
  if (wgs == 0) {
    *err = g_strdup_printf("gputn: rank %u has compute phases of different WG counts "
                           "(not lowered yet)", rank);
    return false;
  }
  struct kstep *steps = g_new(struct kstep, r->n_ops);
  for (size_t i = 0; i < r->n_ops; i++) {
    steps[i] = gputn_step(p, rank, i, wgs, &tag);
    if (steps[i].kind != KS_TRIGGER) continue;
    /* Registered before the launch; threshold: one store per WG. */
    struct nic_cmd c = pol_put_for(&pol_gputn, p, rank, i, NIC_TPUT);
    c.tag = steps[i].tag;
    c.threshold = wgs;
    pol_add_host(pp, (struct hstep){.kind = HS_NIC_CMD, .cmd = pol_add_cmd(pp, c)});
  }
  uint32_t k = pol_add_kernel(pp, "gputn", wgs, steps, r->n_ops);
  uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = k});
  pol_add_host(pp, (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = qc});
  g_free(steps);
  return true;
}

/* A rank is done when its kernel's last WG has ended its last step (for a
 * receiver: when its poll saw the flag), before the kernel's teardown. */
const struct pol_type pol_gputn = {
    .name = "gputn",
    .recv_watcher = gputn_watcher,
    .lower = gputn_lower,
    .done_key = "gpu.wg_last_end",
};
