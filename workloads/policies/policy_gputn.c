/* Policy "gputn", GPU triggered networking (LeBeane et al., SC17, Sec. 3-4,
 * Fig. 3, Fig. 6; DESIGN.md Sec. 2): the CPU launches one kernel for the
 * rank's whole program, then registers one triggered put per piece of each
 * send on the NIC (after the launch: relaxed synchronization, Sec. 3.2).
 * The WGs that make a piece store its tag to the NIC trigger address (once
 * per WG, or once per work-item) as soon as their part is done, and poll a
 * flag in memory for a receive. The put fires when its counter reaches the
 * stores of all its producers: the send's `parts` set the granularity (1:
 * kernel level; the kernel's WGs: work-group; between: mixed), its
 * `stores` the work-item level. */
#include "lower.h"

/* Tags are numbered per rank from 1, piece by piece, in op order. The
 * count so far is kept in PP (sends come in op order: linear, not
 * quadratic, in the program's length). */
static uint32_t first_tag(const struct wl_program *p, uint32_t rank, size_t i,
                          struct pol_prog *pp) {
  const struct wl_rank *r = &p->ranks[rank];
  if (i < pp->tag_op) pp->tag_op = 0, pp->tag_next = 1;
  for (size_t k = pp->tag_op; k < i; k++)
    if (r->ops[k].kind == WL_SEND) pp->tag_next += r->ops[k].parts;
  pp->tag_op = i;
  return pp->tag_next;
}

/* The pieces of all of RANK's sends as written: in a loop, execution j of
 * a piece of tag t stores and registers t + j * pieces (nodeprog.h). */
static uint32_t pieces(const struct wl_rank *r) {
  uint64_t n = 0;
  for (size_t k = 0; k < r->n_ops; k++)
    if (r->ops[k].kind == WL_SEND) n += r->ops[k].parts;
  return (uint32_t)MIN(n, UINT32_MAX);
}

/* Registers the send's pieces (host steps after the launch) and stores
 * its tag. */
static struct kstep gputn_send(const struct wl_program *p, uint32_t rank, size_t i, uint32_t wgs,
                               uint32_t selected, struct pol_prog *pp) {
  const struct wl_op *o = &p->ranks[rank].ops[i];
  uint32_t tag = first_tag(p, rank, i, pp), per_part = wgs / o->parts;
  if (!pp->tag_stride) pp->tag_stride = pieces(&p->ranks[rank]); /* once: linear */
  uint32_t stride = pp->tag_stride;
  for (uint32_t j = 0; j < o->parts; j++) {
    struct nic_cmd c = pol_put_part(&pol_gputn, p, rank, i, NIC_TPUT, j);
    c.tag = tag + j;
    c.threshold = (o->parts > 1 ? per_part : selected) * o->stores;
    pol_add_host(pp, (struct hstep){.kind = HS_NIC_CMD, .cmd = pol_add_cmd(pp, c),
                                    .tag_stride = stride});
  }
  return (struct kstep){.kind = KS_TRIGGER, .tag = tag, .tag_div = per_part, .stores = o->stores,
                        .tag_stride = stride};
}

static bool gputn_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                        struct pol_prog *pp, char **err) {
  /* Tags run to pieces * runs: they must fit the NIC's 32 bits. */
  const struct wl_rank *r = &p->ranks[rank];
  uint64_t runs = wl_most_runs(p, rank);
  if (wl_mul_sat(pieces(r) + 1u, runs) > UINT32_MAX) {
    *err = g_strdup_printf("gputn: rank %u: expected at most 2^32 trigger tags, got %u pieces "
                           "run up to %" G_GUINT64_FORMAT " times",
                           rank, pieces(r), runs);
    return false;
  }
  return pol_one_kernel("gputn", p, rank, hw, gputn_send, pp, err);
}

/* A rank is done when its kernel's last WG has ended its last step (for a
 * receiver: when its poll saw the flag), before the kernel's teardown. */
const struct pol_type pol_gputn = {
    .name = "gputn",
    .recv_watcher = pol_watch_gpu,
    .lower = gputn_lower,
    .done = GPU_OUT(WG_LAST_END),
    .graph = {.gpu = true},
    .loops = true,
    .one_kernel = true,
    .libs = 1u << COMM_GPUTN,
    .lib_default = COMM_GPUTN,
};
