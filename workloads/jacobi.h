/* The jacobi2d workload: a 5-point Jacobi relaxation on a px x py grid of
 * ranks, each holding grid x grid points tiled into WGs of wg_tile x
 * wg_tile points; per iteration every rank computes, then exchanges one
 * halo row/column with each of its 4 neighbours (GPU-TN Sec. 5.3, Fig. 9;
 * CPU-free Sec. 4, Fig. 5). The run's time is when the last rank is done. */
#ifndef WL_JACOBI_H
#define WL_JACOBI_H

#include <stdbool.h>

#include "param.h"
#include "program.h"

/* Group "jacobi2d": see jacobi2d_params for units, defaults and ranges. */
struct jacobi2d_config {
  int64_t grid;            /* points per side of one rank's domain */
  int64_t px, py;          /* ranks along x and y */
  bool periodic;           /* wrap around: every rank has 4 neighbours */
  int64_t iterations;
  int64_t elem;            /* bytes per point */
  int64_t flops_per_point;
  int64_t bytes_per_point; /* memory traffic per point updated */
  int64_t wg_tile;         /* a WG updates wg_tile x wg_tile points */
};

extern const struct par_group jacobi2d_params;

/* The px * py rank program of CFG; free with wl_program_free. */
struct wl_program *wl_jacobi2d_program(const struct jacobi2d_config *cfg);

#endif
