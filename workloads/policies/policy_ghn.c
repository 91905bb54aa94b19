/* Policy "ghn", GPU host networking (GPU-TN Sec. 1 and 5.1.1; DESIGN.md
 * Sec. 2): one kernel for the rank's program; when a piece of a send is
 * ready, the last of its WGs to finish writes a request into a GPU-to-CPU
 * queue in host memory; a CPU helper thread polling that queue every
 * cpu.helper_poll_interval builds and posts the put (cpu.helper_service).
 * Receives poll a flag, as in gputn. Needs cpu.helper_threads >= 1: those
 * cores are held for the whole run. */
#include "lower.h"

/* The pieces' puts are the helper's commands cmd .. cmd + parts - 1. */
static struct kstep ghn_send(const struct wl_program *p, uint32_t rank, size_t i, uint32_t wgs,
                             uint32_t selected, struct pol_prog *pp) {
  (void)selected; /* the GPU counts the selected WGs' arrivals */
  const struct wl_op *o = &p->ranks[rank].ops[i];
  uint32_t first = 0;
  for (uint32_t j = 0; j < o->parts; j++) {
    uint32_t c = pol_add_cmd(pp, pol_put_part(&pol_ghn, p, rank, i, NIC_PUT, j));
    if (j == 0) first = c;
  }
  return (struct kstep){.kind = KS_HOST_REQUEST, .cmd = first, .tag_div = pol_part_div(o, wgs)};
}

/* A helper thread serves the GPU's requests: one is needed when any rank sends. */
static bool ghn_check(const struct scenario *sc, const struct hw_config *hw,
                      const struct wl_program *p, char **err) {
  bool sends = false;
  for (uint32_t r = 0; r < p->n_ranks && !sends; r++) sends = wl_count(p, r, WL_SEND) > 0;
  if (hw->cpu->helper_threads >= 1 || !sends) return true;
  *err = wl_error_at(sc, "hardware.cpu.helper_threads",
                      "expected at least 1 for policy ghn (a helper thread serves the GPU's "
                      "requests), got 0");
  return false;
}

static bool ghn_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                      struct pol_prog *pp, char **err) {
  return pol_one_kernel("ghn", p, rank, hw, ghn_send, pp, err);
}

const struct pol_type pol_ghn = {
    .name = "ghn",
    .check = ghn_check,
    .recv_watcher = pol_watch_gpu,
    .lower = ghn_lower,
    .done = GPU_OUT(WG_LAST_END),
    .graph = {.gpu = true},
    .loops = true,
    .one_kernel = true,
    .libs = 1u << COMM_MPI,
    .lib_default = COMM_MPI,
};
