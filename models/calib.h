/* Calibration against a real device (DESIGN.md Sec. 6): the measurements
 * `trigsim calibrate` takes through OpenCL, how they are reduced (medians,
 * spreads, fits by GSL) into GPU, CPU and bus parameters, the hardware
 * profile they are written to, and the one-node model of a Jacobi loop that
 * `trigsim validate-real` and the `kloop` workload predict with.
 *
 * Derivation (calib_derive), with every time a median over repetitions:
 * - cpu.launch_submit = host time of one non-blocking kernel enqueue;
 *   cpu.switch_mode = poll, switch_poll_interval = 0 (clFinish spins).
 * - bus.latency = small device-to-host read / 4 (request, read, data and
 *   completion crossings), bus.bandwidth = mean of H2D and D2H bandwidth.
 * - The Jacobi kernel's execution span (profiling START..END) at several
 *   grids is fitted, weighted by 1/T^2 (relative error), to T = T0 + W/bw
 *   where W is the model's own work in bits (calib_jacobi_work_bits: waves
 *   times a WG's bytes times the slots). gpu.teardown_latency = T0,
 *   gpu.mem_bandwidth = bw.
 * - gpu.launch_latency = empty-kernel round trip (enqueue + clFinish) -
 *   launch_submit - 2 bus.latency - T0 (>= 0): the model's sync round trip
 *   then equals the measured one.
 * - gpu.launch_table: depth 1: launch_latency; depth N (2, 4, ... 1024):
 *   the mean marginal cost of a queued empty kernel after the first,
 *   (total(N) - total(1)) / (N - 1) - T0 (>= 0), total(N) being the wall
 *   time of N empty kernels enqueued back to back and one clFinish.
 * - gpu.cus = compute units, clock = max clock, wgs_per_cu = 8 on a GPU
 *   (2048 resident items / 256-item WGs), 1 on a CPU device. */
#ifndef MODELS_CALIB_H
#define MODELS_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bus.h"
#include "cpu.h"
#include "gpu.h"
#include "net.h"
#include "nic.h"

/* Jacobi kernel as the model sees it: 16x16-item WGs, 8 bytes of traffic
 * (one float read, one written) and 4 flops per point. */
#define CALIB_WG_SIDE 16
#define CALIB_BYTES_PER_POINT 8
#define CALIB_FLOPS_PER_POINT 4
#define CALIB_DEPTHS 11 /* 1, 2, 4, ... 1024 */
#define CALIB_MAX_GRIDS 16

/* A median and its spread (interquartile range / median). */
struct calib_stat {
  double median_s;
  double spread;
};

/* Everything calibrate measured, and where. Times in seconds. */
struct calib_meas {
  char device[128], vendor[128], driver[128], platform[128], version[128];
  char date[32];      /* ISO 8601 UTC */
  bool is_gpu, quick;
  int reps, warmups;
  int64_t cus, clock_hz;
  struct calib_stat submit, roundtrip, launch_span, exec_span, read_lat;
  double h2d_bps, d2h_bps; /* bits per second */
  int n_depths;
  int64_t depth[CALIB_DEPTHS];
  struct calib_stat depth_total; /* unused placeholder for symmetry */
  double depth_total_s[CALIB_DEPTHS]; /* median wall time of N queued empty kernels */
  double depth_spread[CALIB_DEPTHS];
  int n_grids;
  int64_t grid[CALIB_MAX_GRIDS];
  double grid_exec_s[CALIB_MAX_GRIDS]; /* Jacobi kernel execution span */
  double grid_spread[CALIB_MAX_GRIDS];
};

/* The fitted compute model: T = t0 + work_bits / bw. */
struct calib_fit {
  double t0_s, bw_bps, r2;
};

/* The hardware groups a profile sets, bound (defaults for what it omits). */
struct calib_hw {
  struct gpu_config gpu;
  struct cpu_config cpu;
  struct bus_config bus;
  struct nic_config nic;
  struct net_config net;
};

/* Median and (q75 - q25) / median of N samples (sorted in place). */
struct calib_stat calib_stat_of(double *x, size_t n);

/* Fits y = a + b x weighted by 1/y^2 (GSL); false when under 2 points or
 * the fit is degenerate. R2 is the weighted coefficient of determination. */
bool calib_fit_rel(const double *x, const double *y, size_t n, double *a, double *b, double *r2);

/* WGs of the Jacobi kernel on an N x N grid. */
uint32_t calib_jacobi_wgs(int64_t n);
/* The model's work, in bits, of the Jacobi kernel on an N x N grid under
 * CUS x WGS_PER_CU slots: ceil(wgs / slots) * wg_bytes * 8 * slots, so that
 * its duration is work / mem_bandwidth (gpu_compute_time). */
double calib_jacobi_work_bits(int64_t n, int64_t cus, int64_t wgs_per_cu);

/* Fits the compute model to M's grids (see above). */
bool calib_fit_compute(const struct calib_meas *m, int64_t wgs_per_cu, struct calib_fit *fit);

/* Fills HW (defaults first) from M, as the header says. False and *ERR when
 * the measurements cannot be fitted. */
bool calib_derive(const struct calib_meas *m, struct calib_hw *hw, struct calib_fit *fit,
                  char **err);

/* Writes the profile (provenance + hardware) to PATH through PATH.tmp and a
 * rename. False and *ERR (g_free) when it cannot be written. */
bool calib_write_profile(const char *path, const struct calib_meas *m, const struct calib_fit *fit,
                         const struct calib_hw *hw, char **err);

/* Reads a profile (or any scenario fragment's hardware: section) into HW;
 * false and *ERR "file:line:col: key: expected X, got Y". */
bool calib_read_profile(const char *path, struct calib_hw *hw, char **err);

/* Simulated time per iteration (ps) of ITERS Jacobi kernels on an N x N
 * grid on node 0 of HW: the CPU launches each and waits for it (SYNC), or
 * launches all back to back and waits once. COMPUTE_PS > 0 replaces the
 * roofline: one WG of that duration per kernel. */
int64_t calib_predict_iter_ps(const struct calib_hw *hw, int64_t n, int iters, bool sync,
                              int64_t compute_ps);

/* ---- the device side (calib_ocl.c) ---- */

/* True when the program was built with OpenCL. */
bool calib_ocl_available(void);

struct calib_dev;

/* Opens device INDEX (counting over all platforms; -1: the first GPU, else
 * device 0). NULL and *ERR. */
struct calib_dev *calib_dev_open(int index, char **err);
void calib_dev_close(struct calib_dev *d);

/* Takes every measurement into M (device info included). QUICK: fewer
 * repetitions, depths up to 64, grids up to 512. */
bool calib_dev_measure(struct calib_dev *d, bool quick, struct calib_meas *m, char **err);

/* Host wall time per iteration (s) of ITERS Jacobi kernels on an N x N
 * grid, synchronized each iteration or once; median of REPS runs after one
 * warm-up run. *SPREAD gets the spread. */
bool calib_dev_jacobi_loop(struct calib_dev *d, int64_t n, int iters, bool sync, int reps,
                           double *per_iter_s, double *spread, char **err);

/* Median execution span (s) of the Jacobi kernel on an N x N grid. */
bool calib_dev_jacobi_exec(struct calib_dev *d, int64_t n, int reps, double *exec_s, char **err);

/* The device's name and driver ("NAME, driver VERSION"), static storage. */
const char *calib_dev_name(const struct calib_dev *d);

/* The subcommands (calib_cli.c): argv[0] is the command name. */
int calib_cmd_calibrate(int argc, char **argv);
int calib_cmd_validate_real(int argc, char **argv);

#endif
