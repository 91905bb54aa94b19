/* The Jacobi stencil workloads. jacobi2d: a 5-point relaxation on a px x py
 * grid of ranks, each holding grid x grid points (GPU-TN Sec. 5.3, Fig. 9;
 * CPU-free Sec. 3.3, Fig. 5); jacobi3d: a 7-point one on px x py x pz ranks
 * of nx x ny x nz points, a slab decomposition along z by default (CPU-free
 * Fig. 6). Points are tiled into WGs of wg_tile x wg_tile points of one
 * z-plane; per iteration every rank computes, then exchanges one face with
 * each neighbour, made and consumed by the WGs on that face; faces that are
 * not contiguous in memory are packed before and unpacked after (jacobi.c).
 * With overlap,
 * the boundary is computed first by WGs of its own (lane 1) and sent while
 * the interior is computed (CPU-free Sec. 3.3, Listing 1). The run's time
 * is when the last rank is done. */
#ifndef WL_JACOBI_H
#define WL_JACOBI_H

#include <stdbool.h>

#include "param.h"
#include "program.h"

/* How strided faces reach a contiguous buffer (the pack choices). */
/* How strided faces become contiguous messages: a pack kernel, the sweep's
 * own stores, or the host (DaCe + MPI's host-side packing, issue 31; the
 * host-driven hdn lowers it on the CPU, other policies as a kernel). */
enum jacobi_pack { JACOBI_PACK_KERNEL, JACOBI_PACK_FUSED, JACOBI_PACK_HOST };

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
  bool overlap;            /* boundary first, sent while the interior computes */
  bool compute;            /* false: no work, communication and control only */
  int pack;                /* enum jacobi_pack */
};

/* Group "jacobi3d". */
struct jacobi3d_config {
  int64_t nx, ny, nz;      /* points of one rank's domain */
  int64_t px, py, pz;      /* ranks along each axis (default: a slab along z) */
  bool periodic;
  int64_t iterations;
  int64_t elem;
  int64_t flops_per_point;
  int64_t bytes_per_point;
  int64_t wg_tile;
  bool compute;
  int pack;                /* enum jacobi_pack */
  int64_t ops;             /* array operations the update is written as, each a kernel */
};

extern const struct par_group jacobi2d_params, jacobi3d_params;

/* The rank programs of CFG; free with wl_program_free. */
struct wl_program *wl_jacobi2d_program(const struct jacobi2d_config *cfg);
struct wl_program *wl_jacobi3d_program(const struct jacobi3d_config *cfg);

#endif
