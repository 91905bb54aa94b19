/* The allreduce workload (allreduce.h): the ring algorithm written into the
 * per-rank form, 2 (N - 1) steps per rank. A reduction reads two chunks
 * and writes one: 3 * elem bytes of traffic and flops_per_elem flops per
 * element. Runs under every lowering policy. */
#include "allreduce.h"

#include <glib.h>
#include <stddef.h>

#include "coll.h"
#include "checks.h"
#include "workload.h"

#define PAR_CONFIG struct allreduce_config
static const struct par_decl allreduce_decls[] = {
    PAR(size, PAR_SIZE, "8MiB", "0B", "64GiB", NULL, "bytes every rank contributes (GPU-TN Fig. 10: 8 MB)"),
    PAR(elem, PAR_SIZE, "4B", "1B", "64B", NULL, "bytes per element (single precision, Sec. 5.4.1)"),
    PAR(wgs, PAR_INT, "24", "1", "65536", NULL,
      "WGs of each reduction (24: one per CU of the Table 2 GPU)"),
    PAR(granularity, PAR_ENUM, "work-group", NULL, NULL, "work-item|work-group|kernel|mixed",
      "what one trigger covers (GPU-TN Sec. 3; the paper's allreduce uses work-group)"),
    PAR(mixed_wgs, PAR_INT, "8", "1", "65536", NULL, "granularity mixed: WGs per message (threshold k)"),
    PAR(wg_items, PAR_INT, "256", "1", "1024", NULL,
      "work-items per WG: the stores per WG at work-item granularity"),
    PAR(flops_per_elem, PAR_INT, "1", "0", "1000000", NULL, "flops per element reduced (a binary add)"),
};
#undef PAR_CONFIG

const struct par_group allreduce_params = {
    .name = "allreduce",
    .doc = "ring allreduce (reduce-scatter + allgather) over every node (GPU-TN Fig. 10)",
    .decls = allreduce_decls,
    .n_decls = PAR_COUNT(allreduce_decls),
    .config_size = sizeof(struct allreduce_config),
};

struct wl_program *wl_allreduce_program(const struct allreduce_config *c, uint32_t n,
                                        char **err) {
  g_assert(n >= 2);
  uint32_t wgs = (uint32_t)c->wgs, parts = 1, stores = 1;
  switch (c->granularity) {
  case AR_WORK_ITEM: parts = wgs, stores = (uint32_t)c->wg_items; break;
  case AR_WORK_GROUP: parts = wgs; break;
  case AR_MIXED:
    if (c->wgs % c->mixed_wgs) {
      *err = g_strdup_printf("workload.mixed_wgs: expected a divisor of wgs = %u, got %" G_GINT64_FORMAT,
                             wgs, c->mixed_wgs);
      return NULL;
    }
    parts = wgs / (uint32_t)c->mixed_wgs;
    break;
  default: break;
  }
  /* One ring allreduce, as one collective op: the library writes it out
   * (coll.h). Under mpi and gputn that is two loops of n - 1 steps:
   * reduce-scatter (a step sends a chunk right, receives one from the left
   * and adds it in: 3 elem bytes of traffic per element, KC_AXPY), then
   * allgather (a step passes a reduced chunk on); each message in the
   * granularity's pieces. */
  struct wl_program *p = wl_program_new(n);
  struct wl_coll ring = {.kind = WL_ALLREDUCE, .algo = WL_ALG_RING, .bytes = c->size,
                         .elem = c->elem, .flops_per_elem = c->flops_per_elem, .wgs = wgs,
                         .tag = 0, .parts = parts, .stores = stores};
  for (uint32_t r = 0; r < n; r++) wl_collective(p, r, &ring);
  return p;
}

bool wl_allreduce_check(const struct wl_ctx *ctx, const struct allreduce_config *c,
                        const char *what, char **err) {
  struct hw_config hw = wl_hw_of(ctx->sc);
  if (!wl_check_nodes(ctx->sc, &hw, 2, what, err)) return false;
  if (c->granularity == AR_MIXED && c->wgs % c->mixed_wgs) {
    *err = wl_error_at(ctx->sc, "workload.mixed_wgs",
                        "expected a divisor of wgs = %" G_GINT64_FORMAT ", got %" G_GINT64_FORMAT,
                        c->wgs, c->mixed_wgs);
    return false;
  }
  /* The program is two loops per rank whatever n; a policy that runs it
   * written out holds it to WL_MAX_OPS (pol_run). */
  return true;
}

static bool allreduce_check(const struct wl_ctx *ctx, char **err) {
  return wl_allreduce_check(ctx, ctx->config, "allreduce", err);
}

static struct wl_program *allreduce_program(const struct wl_ctx *ctx, char **err) {
  struct hw_config hw = wl_hw_of(ctx->sc);
  return wl_allreduce_program(ctx->config, (uint32_t)hw.net->nodes, err);
}

const struct wl_type wl_allreduce = {
    .params = &allreduce_params,
    .default_policy = "gputn",
    .check = allreduce_check,
    .program = allreduce_program,
};
