/* The kloop workload: one rank's loop of 2D Jacobi kernels, the loop
 * `trigsim validate-real` times on a real device (tools/calib/). Here: the
 * Jacobi kernel as the calibration dispatches it and the model sees it. */
#ifndef WL_KLOOP_H
#define WL_KLOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "param.h"

/* The Jacobi kernel: 16x16-item WGs, 8 bytes of traffic (one float read,
 * one written) and 4 flops per point. */
#define KLOOP_WG_SIDE 16
#define KLOOP_BYTES_PER_POINT 8
#define KLOOP_FLOPS_PER_POINT 4
#define KLOOP_BUFFERS 2 /* its arguments: the two grids (and the side, an int) */

extern const struct par_group kloop_params;

/* WGs of the Jacobi kernel on an N x N grid, and the bytes each moves. */
uint32_t kloop_jacobi_wgs(int64_t n);
int64_t kloop_wg_bytes(void);

#endif
