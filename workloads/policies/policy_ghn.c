/* Policy "ghn", GPU host networking (GPU-TN Sec. 1 and 5.1.1; DESIGN.md
 * Sec. 2): one kernel for the rank's program; when a piece of a send is
 * ready, the last of its WGs to finish writes a request into a GPU-to-CPU
 * queue in host memory; a CPU helper thread polling that queue every
 * cpu.helper_poll_interval builds and posts the put (cpu.helper_service).
 * Receives poll a flag, as in gputn. Needs cpu.helper_threads >= 1: those
 * cores are held for the whole run. */
#include "lower.h"

struct ghn_state {
  bool started;
  struct pol_kern kern;
};

static void ghn_prepare(struct pol_prep *pr) {
  pol_prep_form(pr, WL_FORM_FUSED);
  pol_prep_library(pr, false);
  pol_prep_loops(pr, POL_LOOPS_KEEP);
  pol_prep_order(pr);
}

/* The pieces' puts are the helper's commands cmd .. cmd + parts - 1. */
static struct kstep ghn_send(struct pol_low *L, const struct wl_op *o, uint32_t wgs,
                             uint32_t selected) {
  (void)selected; /* the GPU counts the selected WGs' arrivals */
  uint32_t first = 0;
  for (uint32_t j = 0; j < o->parts; j++) {
    uint32_t c = pol_add_cmd(L, pol_put_part(L, o, NIC_PUT, DEV_GPU, j));
    if (j == 0) first = c;
  }
  return (struct kstep){.kind = KS_HOST_REQUEST, .cmd = first, .tag_div = pol_part_div(o, wgs)};
}

/* A helper thread serves the GPU's requests: one is needed when any rank sends. */
static bool ghn_check(const struct scenario *sc, const struct hw_config *hw,
                      const struct wl_sum *total, char **err) {
  if (hw->cpu->helper_threads >= 1 || !total->sends) return true;
  *err = wl_error_at(sc, "hardware.cpu.helper_threads",
                     "expected at least 1 for policy ghn (a helper thread serves the GPU's "
                     "requests), got 0");
  return false;
}

static bool ghn_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  struct ghn_state *s = L->state;
  if (!o) return true;
  pol_host_closed(L); /* the launch is all the host's main thread does */
  return pol_one_kernel_op(L, &s->kern, &s->started, "ghn", true, ghn_send, o, err);
}

const struct pol_type pol_ghn = {
    .name = "ghn",
    .libs = 1u << COMM_MPI,
    .lib_default = COMM_MPI,
    .state_size = sizeof(struct ghn_state),
    .check = ghn_check,
    .prepare = ghn_prepare,
    .lower = ghn_lower,
    .watcher = pol_watch_gpu,
    .computes_on = pol_on_gpu,
    .done = GPU_OUT(WG_LAST_END),
};
