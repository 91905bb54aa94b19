/* The kloop workload: one node's CPU runs a loop of 2D Jacobi kernels, the
 * loop `trigsim validate-real` times on a real device (tools/calib/). Here:
 * the Jacobi kernel as the calibration dispatches it and the model sees it,
 * and the loop's predicted time. */
#ifndef WL_KLOOP_H
#define WL_KLOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "param.h"
#include "system.h"

/* The Jacobi kernel: 16x16-item WGs, 8 bytes of traffic (one float read,
 * one written) and 4 flops per point. */
#define KLOOP_WG_SIDE 16
#define KLOOP_BYTES_PER_POINT 8
#define KLOOP_FLOPS_PER_POINT 4

extern const struct par_group kloop_params;

/* WGs of the Jacobi kernel on an N x N grid, and the bytes each moves. */
uint32_t kloop_jacobi_wgs(int64_t n);
int64_t kloop_wg_bytes(void);

/* The loop of ITERS Jacobi kernels on an N x N grid on one node of HW, the
 * CPU waiting for each (SYNC) or launching all and waiting once, each
 * kernel one WG of COMPUTE_PS when > 0, else the roofline's: when the CPU's
 * main thread is done (ps), and the engine events it took (EVENTS may be
 * NULL). */
int64_t kloop_predict_run(const struct hw_config *hw, int64_t n, int iters, bool sync,
                          int64_t compute_ps, uint64_t *events);

#endif
