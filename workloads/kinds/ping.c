/* The ping workload (ping.h; GPU-TN Sec. 5.2, Fig. 8): a kernel of one
 * cache line's work on rank 0, then one message to rank 1. Runs under every
 * policy that lowers programs (workloads/policies/policy_*.c) but monolithic,
 * which moves no data. */
#include "ping.h"

#include <glib.h>
#include <stddef.h>
#include <string.h>

#include "checks.h"
#include "workload.h"

#define PAR_CONFIG struct ping_config
static const struct par_decl ping_decls[] = {
    PAR(size, PAR_SIZE, "8B", "0B", "1GiB", "bytes rank 0 sends to rank 1"),
    PAR(wgs, PAR_INT, "1", "1", "65536", "work-groups of rank 0's kernel"),
    PAR(flops_per_wg, PAR_INT, "256", "0", "1000000000000",
      "flops of each work-group (tiny: the paper's kernel copies one cache line)"),
    PAR(bytes_per_wg, PAR_SIZE, "0B", "0B", "1GiB", "memory traffic of each work-group"),
};
#undef PAR_CONFIG

const struct par_group ping_params = {
    .name = "ping",
    .doc = "rank 0 computes a tiny kernel and sends a message to rank 1 (GPU-TN Fig. 8)",
    .decls = ping_decls,
    .n_decls = PAR_COUNT(ping_decls),
    .config_size = sizeof(struct ping_config),
};

struct wl_program *wl_ping_program(const struct ping_config *cfg) {
  struct wl_program *p = wl_program_new(2);
  wl_compute(p, 0, (uint32_t)cfg->wgs, cfg->flops_per_wg, cfg->bytes_per_wg);
  wl_kclass(p, 0, KC_STREAM, 0, 0, 0); /* a tiny kernel that streams its bytes once */
  wl_send(p, 0, 1, cfg->size, 1);
  wl_recv(p, 1, 0, cfg->size, 1);
  p->measured_rank = 1;
  return p;
}

/* monolithic drops data movement (policy_monolithic.c): under it a ping's
 * time is rank 0's kernel alone, no message, and a row beside the others
 * would read as a message faster than any. Rejected at its policies item. */
static bool ping_check(const struct wl_ctx *ctx, char **err) {
  const struct scenario *sc = ctx->sc;
  for (size_t i = 0; i < sc->n_policies; i++) {
    if (strcmp(sc->policies[i], "monolithic")) continue;
    const struct sc_node *n = sc_map_get(sc->root, "policies");
    if (n && n->kind == SC_SEQ && i < n->n_items) n = n->items[i];
    *err = sc_error_at(n ? n : sc->root, "policies",
                       "expected a policy that moves the ping's message (monolithic assumes data "
                       "movement free: its time would be the kernel alone), got monolithic");
    return false;
  }
  struct hw_config hw = wl_hw_of(sc);
  return wl_check_nodes(sc, &hw, 2, "ping", err);
}

static struct wl_program *ping_program(const struct wl_ctx *ctx, char **err) {
  (void)err;
  return wl_ping_program(ctx->config);
}

const struct wl_type wl_ping = {
    .params = &ping_params,
    .default_policy = "gputn",
    .check = ping_check,
    .program = ping_program,
};
