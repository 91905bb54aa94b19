/* Calibration against a real device (DESIGN.md Sec. 6): the measurements
 * `trigsim calibrate` takes through OpenCL, how they are reduced (medians,
 * spreads, fits by GSL) into GPU, CPU and bus parameters, the hardware
 * profile they are written to, and the one-node model of a Jacobi loop that
 * `trigsim validate-real` and the `kloop` workload predict with.
 *
 * Derivation (calib_derive), every time a median over repetitions:
 * - cpu.launch_submit = S, host time of one non-blocking kernel enqueue in
 *   a batch of 64; cpu.switch_mode = poll, switch_poll_interval = 0
 *   (clFinish spins).
 * - Compute: per grid, the host wall time per kernel of K Jacobi kernels
 *   enqueued back to back (one clFinish). Where that exceeds 1.5 S the
 *   device, not the enqueue, sets the pace, and those points are fitted,
 *   weighted by 1/T^2 (relative error), to T = G0 + W/bw, W being the
 *   model's own work in bits (calib_jacobi_work_bits: waves times a WG's
 *   bytes times the slots). gpu.teardown_latency = G0 (>= 0),
 *   gpu.mem_bandwidth = bw. Under 2 such points: the profiling execution
 *   spans (START..END) of all grids are fitted instead. The spans are
 *   recorded either way (on NVIDIA's OpenCL they overstate a small kernel:
 *   5.4us for an empty one that back to back costs under 4us).
 * - R = empty-kernel round trip (enqueue + clFinish, no event).
 *   bus.latency = min(small read / 4, (R - S - G0) / 4) (a read crosses 4
 *   times: command, request, data, completion), bus.bandwidth = mean of H2D
 *   and D2H; gpu.launch_latency = R - S - 2 bus.latency - G0 (>= 0): the
 *   model's sync round trip S + 2 bus + launch + G0 then equals R.
 * - gpu.launch_table: depth 1: launch_latency; depth N (2, 4, ... 1024):
 *   with m = (total(N) - total(1)) / (N - 1) the mean marginal cost of a
 *   queued empty kernel (total(N): N enqueued back to back, one clFinish),
 *   m - G0 where m > 1.1 S (the device sets the pace), else 0 (the device's
 *   cost hides behind the enqueue cost and cannot be seen).
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
  double depth_total_s[CALIB_DEPTHS]; /* median wall time of N queued empty kernels */
  double depth_spread[CALIB_DEPTHS];
  int n_grids;
  int64_t grid[CALIB_MAX_GRIDS];
  double grid_exec_s[CALIB_MAX_GRIDS]; /* Jacobi kernel execution span */
  double grid_spread[CALIB_MAX_GRIDS];
  int b2b_kernels;                     /* K */
  double grid_b2b_s[CALIB_MAX_GRIDS];  /* host time per kernel, K back to back */
  double grid_b2b_spread[CALIB_MAX_GRIDS];
};

/* The fitted compute model: T = t0 + work_bits / bw. */
struct calib_fit {
  double t0_s, bw_bps, r2;
  int points;
  bool from_spans; /* fitted to the profiling spans, not back-to-back times */
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
/* The same loop's total time (ps), when the CPU's main thread is done,
 * and the engine events it took (EVENTS may be NULL). */
int64_t calib_predict_run(const struct calib_hw *hw, int64_t n, int iters, bool sync,
                          int64_t compute_ps, uint64_t *events);

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
bool calib_dev_jacobi_exec(struct calib_dev *d, int64_t n, int reps, struct calib_stat *exec,
                           char **err);

/* The device's name and driver ("NAME, driver VERSION"), static storage. */
const char *calib_dev_name(const struct calib_dev *d);

#endif
