/* The jacobi2d workload (jacobi.h): per iteration, one compute phase of
 * ceil(grid / wg_tile)^2 WGs, then a halo of grid * elem bytes to and from
 * each neighbour, made and consumed by the WGs on that edge of the tiling.
 * Iterations are separated by a sync (the next sweep reads the neighbours'
 * points). Runs under every lowering policy. */
#include "jacobi.h"

#include <glib.h>
#include <stddef.h>

#include "lower.h"
#include "workload.h"

#define P(key, type, def, min, max, doc) \
  {#key, type, def, min, max, NULL, doc, offsetof(struct jacobi2d_config, key)}
static const struct par_decl jacobi2d_decls[] = {
    P(grid, PAR_INT, "1024", "2", "1048576", "points per side of one rank's N x N domain"),
    P(px, PAR_INT, "2", "1", "4096", "ranks along x"),
    P(py, PAR_INT, "2", "1", "4096", "ranks along y"),
    P(periodic, PAR_BOOL, "true", NULL, NULL,
      "wrap the rank grid around, so every rank has 4 neighbours"),
    P(iterations, PAR_INT, "1", "1", "100000", "sweeps (GPU-TN Fig. 9: one)"),
    P(elem, PAR_SIZE, "4B", "1B", "64B", "bytes per point (single precision)"),
    P(flops_per_point, PAR_INT, "5", "0", "1000000", "flops per point update (4 adds, 1 multiply)"),
    P(bytes_per_point, PAR_SIZE, "8B", "0B", "1MiB",
      "memory traffic per point update (read once, write once; neighbours hit in cache)"),
    P(wg_tile, PAR_INT, "16", "1", "1024", "a WG updates wg_tile x wg_tile points (16 x 16 = 256 work-items)"),
};
#undef P

const struct par_group jacobi2d_params = {
    .name = "jacobi2d",
    .doc = "2D Jacobi: compute, then halos to 4 neighbours, per iteration (GPU-TN Fig. 9)",
    .decls = jacobi2d_decls,
    .n_decls = PAR_COUNT(jacobi2d_decls),
    .config_size = sizeof(struct jacobi2d_config),
};

enum { LEFT, RIGHT, UP, DOWN };

/* Rank of the neighbour of (x, y) in direction D, or -1 at an open edge. */
static int64_t neighbour(const struct jacobi2d_config *c, int64_t x, int64_t y, int d) {
  int64_t dx = d == LEFT ? -1 : d == RIGHT ? 1 : 0, dy = d == UP ? -1 : d == DOWN ? 1 : 0;
  int64_t nx = x + dx, ny = y + dy;
  if (c->periodic) nx = (nx + c->px) % c->px, ny = (ny + c->py) % c->py;
  if (nx < 0 || nx >= c->px || ny < 0 || ny >= c->py) return -1;
  int64_t r = ny * c->px + nx;
  return r == y * c->px + x ? -1 : r; /* a 1-wide periodic grid has no neighbour */
}

/* The WGs on edge D of a T x T tiling (WG w = row * T + column). */
static struct wl_wgsel edge(uint32_t t, int d) {
  switch (d) {
  case LEFT: return (struct wl_wgsel){0, t, t};
  case RIGHT: return (struct wl_wgsel){t - 1, t, t};
  case UP: return (struct wl_wgsel){0, 1, t};
  default: return (struct wl_wgsel){(t - 1) * t, 1, t};
  }
}

static const int opposite[] = {RIGHT, LEFT, DOWN, UP};

struct wl_program *wl_jacobi2d_program(const struct jacobi2d_config *c) {
  uint32_t ranks = (uint32_t)(c->px * c->py);
  struct wl_program *p = wl_program_new(ranks);
  uint32_t t = (uint32_t)((c->grid + c->wg_tile - 1) / c->wg_tile);
  int64_t pts = c->wg_tile * c->wg_tile, halo = c->grid * c->elem;
  for (uint32_t r = 0; r < ranks; r++) {
    int64_t x = r % c->px, y = r / c->px;
    for (int64_t it = 0; it < c->iterations; it++) {
      if (it > 0) wl_sync(p, r);
      wl_compute(p, r, t * t, pts * c->flops_per_point, pts * c->bytes_per_point);
      /* A halo sent towards D is tagged (it, D); its receiver gets it from
       * its opposite side. */
      for (int d = 0; d < 4; d++) {
        int64_t n = neighbour(c, x, y, d);
        if (n < 0) continue;
        wl_send(p, r, (uint32_t)n, halo, (uint32_t)(it * 4 + d));
        wl_select(p, r, edge(t, d));
      }
      for (int d = 0; d < 4; d++) {
        int64_t n = neighbour(c, x, y, d);
        if (n < 0) continue;
        wl_recv(p, r, (uint32_t)n, halo, (uint32_t)(it * 4 + opposite[d]));
        wl_select(p, r, edge(t, d));
      }
    }
  }
  return p;
}

static bool jacobi2d_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  const struct jacobi2d_config *c = ctx->config;
  struct hw_config hw = pol_hw_of(ctx->sc);
  if (!pol_check_nodes(ctx->sc, &hw, (uint64_t)(c->px * c->py), "jacobi2d (px * py)", err))
    return false;
  struct wl_program *p = wl_jacobi2d_program(c);
  bool ok = pol_run(p, ctx->policy, &hw, ctx->seed, ctx->trace, out, err);
  wl_program_free(p);
  return ok;
}

const struct wl_type wl_jacobi2d = {
    .params = &jacobi2d_params,
    .policies = pol_names,
    .n_policies = POL_COUNT,
    .run = jacobi2d_run,
};
