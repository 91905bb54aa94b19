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

struct gputn_state {
  bool started;
  struct pol_kern kern;
  uint32_t tags;        /* trigger tags used by the sends lowered so far */
  uint64_t sends;       /* sends lowered so far */
};

static void gputn_prepare(struct pol_prep *pr) {
  pol_prep_form(pr, WL_FORM_FUSED);
  pol_prep_library(pr, false);
  pol_prep_loops(pr, POL_LOOPS_KEEP);
  pol_prep_order(pr);
}

/* The pieces of all of the rank's sends as written: in a loop, execution j
 * of a piece of tag t stores and registers t + j * pieces (nodeprog.h). */
static uint32_t pieces(const struct pol_low *L) {
  return (uint32_t)MIN(L->sum->pieces, UINT32_MAX);
}

/* Registers the send's pieces (host steps after the launch) and stores
 * its tag. Tags are numbered per rank from 1, piece by piece, in op order. */
static struct kstep gputn_send(struct pol_low *L, const struct wl_op *o, uint32_t wgs,
                               uint32_t selected) {
  struct gputn_state *s = L->state;
  uint32_t tag = s->tags + 1, per_part = wgs / o->parts, stride = pieces(L);
  s->tags += o->parts;
  for (uint32_t j = 0; j < o->parts; j++) {
    struct nic_cmd c = pol_put_part(L, o, NIC_TPUT, DEV_GPU, j);
    c.tag = tag + j;
    c.threshold = (o->parts > 1 ? per_part : selected) * o->stores;
    pol_add_host(L, (struct hstep){.kind = HS_NIC_CMD, .cmd = pol_add_cmd(L, c),
                                   .tag_stride = stride});
  }
  /* The host's last step: its last registration. */
  if (++s->sends == L->sum->sends) pol_host_closed(L);
  return (struct kstep){.kind = KS_TRIGGER, .tag = tag, .tag_div = per_part, .stores = o->stores,
                        .tag_stride = stride};
}

static bool gputn_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  struct gputn_state *s = L->state;
  if (!s->started) {
    /* Tags run to pieces * runs: they must fit the NIC's 32 bits. */
    uint64_t runs = L->sum->most_runs;
    if (wl_mul_sat(pieces(L) + 1u, runs) > UINT32_MAX) {
      *err = g_strdup_printf("gputn: rank %u: expected at most 2^32 trigger tags, got %u pieces "
                             "run up to %" G_GUINT64_FORMAT " times",
                             L->rank, pieces(L), runs);
      return false;
    }
  }
  if (!o) return true;
  if (!s->started && !L->sum->sends) pol_host_closed(L); /* the launch is all */
  return pol_one_kernel_op(L, &s->kern, &s->started, "gputn", true, gputn_send, o, err);
}

/* A rank is done when its kernel's last WG has ended its last step (for a
 * receiver: when its poll saw the flag), before the kernel's teardown. */
const struct pol_type pol_gputn = {
    .name = "gputn",
    .libs = 1u << COMM_GPUTN,
    .lib_default = COMM_GPUTN,
    .state_size = sizeof(struct gputn_state),
    .prepare = gputn_prepare,
    .lower = gputn_lower,
    .watcher = pol_watch_gpu,
    .computes_on = pol_on_gpu,
    .done = GPU_OUT(WG_LAST_END),
};
