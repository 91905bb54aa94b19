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
 *   m - G0 where m > 1.25 S (the device sets the pace; 1.25: above the
 *   enqueue noise seen on the H100), else 0 (the device's
 *   cost hides behind the enqueue cost and cannot be seen).
 * - gpu.cus = compute units, clock = max clock, wgs_per_cu = 8 on a GPU
 *   (2048 resident items / 256-item WGs), 1 on a CPU device.
 * Kernels as the device runs them (calib_derive_kernels; GPUs only: on
 * PoCL the grid-stride probes do not vectorize and the Jacobi fit stays):
 * - mem_latency, mem_bandwidth: streaming kernel (b = a + p over 1 GiB,
 *   cus * k WGs of 256 items, k = 1 .. wgs_per_cu) fitted to 1/bw(k) =
 *   L / (k cus 256 * 4 B * 8) + 1/P (GSL, weighted 1/y^2): the loaded
 *   latency of Little's law. bw_share kernel, wg_items 256, item_bytes 4.
 * - l2_bytes: the device's cache size if the working-set sweep (1 MiB ..
 *   512 MiB at full occupancy) agrees, else the largest set served over
 *   1.3 x P. l2_latency, l2_bandwidth: the same law through the median of
 *   those sets at full occupancy and the smallest at k = 1.
 * - barrier_table: one device-wide barrier (atomic arrive on a counter, a
 *   volatile poll of a generation word) against 1, 4, 16, 64 and cus * k
 *   WGs, (T(104 barriers) - T(4)) / 100; WG counts that were not all
 *   resident (the poll gave up) are left out.
 * - lat_stencil, eff_stencil (l2lat_, l2eff_ for grids whose two arrays
 *   fit in L2): the persistent Jacobi loop (grids 512 .. 4096, k = 1, 2,
 *   4, 8), per iteration minus the barrier and the launch share, fitted to
 *   the same law, as percentages of the streaming kernel's L and P.
 * - wg_start: discrete Jacobi grids with b2b > 2 S: (b2b - G0 - model
 *   compute) / waves, median (the block dispatch cost per wave).
 * - eff_spmv, eff_reduce, eff_axpy (and l2eff_): the CG-like kernels alone
 *   on a 2048^2-row Poisson matrix, model at 100 % / measured (b2b - G0, or
 *   span - empty span when enqueue-paced); reduce_pass = the dot's span
 *   with its second pass - without.
 * - The enqueue cost against the burst (N Jacobi enqueues, N = 1 .. 1024)
 *   is recorded only: too noisy on the H100 to make cpu.submit_table. */
#ifndef CALIB_CALIB_H
#define CALIB_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bus.h"
#include "cpu.h"
#include "gpu.h"
#include "net.h"
#include "kloop.h"
#include "nic.h"
#include "workload.h"

#define CALIB_DEPTHS 11 /* 1, 2, 4, ... 1024 */
#define CALIB_MAX_GRIDS 16
#define CALIB_MAX_K 16     /* WGs per CU measured: 1 .. max */
#define CALIB_MAX_WS 16    /* working-set sizes */
#define CALIB_MAX_BAR 24   /* barrier WG counts */
#define CALIB_MAX_PJ 64    /* persistent Jacobi (grid, WGs per CU) cases */
#define CALIB_ITEMS 256    /* work-items per WG of the 1D kernels */
#define CALIB_ITEM_BYTES 4 /* one float load in flight per work-item */
/* The CG-like loop: kernels and their order in one iteration. */
enum { CALIB_CG_SPMV, CALIB_CG_DOT, CALIB_CG_AXPY, CALIB_CG_KINDS };
#define CALIB_CG_PER_ITER 6 /* SpMV, dot, AXPY, AXPY, dot, AXPY, then clFinish */

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
  /* Occupancy and caches (zero when not measured). */
  int64_t max_wgs_per_cu;              /* resident 256-item WGs per CU the device allows */
  int64_t cache_bytes;                 /* CL_DEVICE_GLOBAL_MEM_CACHE_SIZE */
  int64_t stream_big_bytes;            /* working set of the occupancy sweep (out of L2) */
  int n_k;
  int64_t k[CALIB_MAX_K];              /* WGs per CU */
  double k_bps[CALIB_MAX_K];           /* streaming bandwidth at cus * k WGs (read + write) */
  int n_ws;
  int64_t ws[CALIB_MAX_WS];            /* working set (both arrays), bytes */
  double ws_bps[CALIB_MAX_WS];         /* at max_wgs_per_cu */
  double ws_small_k1_bps;              /* smallest working set at 1 WG per CU */
  int n_bar;
  int64_t bar_wgs[CALIB_MAX_BAR];
  double bar_s[CALIB_MAX_BAR];         /* one device-wide barrier */
  bool bar_resident[CALIB_MAX_BAR];
  int n_pj;
  int64_t pj_grid[CALIB_MAX_PJ], pj_k[CALIB_MAX_PJ];
  double pj_iter_s[CALIB_MAX_PJ];      /* persistent Jacobi, wall time per iteration */
  int pj_iters;
  int n_burst;
  int64_t burst[CALIB_DEPTHS];
  double burst_enq_s[CALIB_DEPTHS];    /* host time to enqueue N empty kernels */
  int64_t cg_side;                     /* CG-like kernels on a side^2-row Poisson matrix */
  double cg_b2b_s[CALIB_CG_KINDS];     /* host time per kernel, 32 back to back */
  double cg_exec_s[CALIB_CG_KINDS];
  double dot_nopass2_exec_s;           /* the dot without its second pass */
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

/* Non-zeros of the 5-point Poisson matrix on a SIDE x SIDE grid. */
int64_t calib_cg_nnz(int64_t side);

/* The model of the persistent Jacobi loop: one kernel of cus * wgs_per_cu
 * WGs (HW's), each looping over ceil(tiles / WGs) 16x16 tiles per
 * iteration, a device-wide barrier after each; launched once, waited once.
 * Time per iteration (ps). */
int64_t calib_predict_persist_ps(const struct calib_hw *hw, int64_t n, int iters);
/* The model of the CG-like loop (CALIB_CG_PER_ITER kernels of their
 * classes, then a wait), per iteration (ps). */
int64_t calib_predict_cg_ps(const struct calib_hw *hw, int64_t side, int iters);
/* The kernel steps of CG-like kernel WHICH on SIDE^2 rows (one WG's). */
struct kstep calib_cg_step(int64_t side, int which, uint32_t *n_wgs);

/* The model's work, in bits, of the Jacobi kernel on an N x N grid under
 * CUS x WGS_PER_CU slots: ceil(wgs / slots) * wg_bytes * 8 * slots, so that
 * its duration is work / mem_bandwidth (gpu_compute_time). */
double calib_jacobi_work_bits(int64_t n, int64_t cus, int64_t wgs_per_cu);

/* Fills HW (defaults first) from M, as the header says. False and *ERR when
 * the measurements cannot be fitted. */
bool calib_derive(const struct calib_meas *m, struct calib_hw *hw, struct calib_fit *fit,
                  char **err);

/* The occupancy, cache, barrier, burst and class parameters from M's
 * sweeps (calib_derive calls it last; nothing when M has no sweeps). */
void calib_derive_kernels(const struct calib_meas *m, struct calib_hw *hw);

/* Writes the profile (provenance + hardware) to PATH through PATH.tmp and a
 * rename. False and *ERR (g_free) when it cannot be written. */
bool calib_write_profile(const char *path, const struct calib_meas *m, const struct calib_fit *fit,
                         const struct calib_hw *hw, char **err);

/* Reads the measurements a profile's provenance records back into M
 * (calibrate --from: derive again without the device). False and *ERR. */
bool calib_read_meas(const char *path, struct calib_meas *m, char **err);

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

/* Streaming bandwidth (bits/s, read + write) over a working set of BYTES
 * with WGS WGs of 256 items looping over it (median of REPS). */
bool calib_dev_stream(struct calib_dev *d, int64_t bytes, int64_t wgs, int reps, double *bps,
                      char **err);
/* One device-wide barrier of WGS WGs (s); *RESIDENT false when they were
 * not all resident (the spin gave up). */
bool calib_dev_barrier(struct calib_dev *d, int64_t wgs, int reps, double *per_s, bool *resident,
                       char **err);
/* Whether WGS WGs are co-resident (one device-wide barrier completes). */
bool calib_dev_resident(struct calib_dev *d, int64_t wgs, bool *resident, char **err);
/* Host wall time per iteration of one persistent Jacobi kernel of WGS WGs
 * looping ITERS times over an N x N grid (a device-wide barrier each). */
bool calib_dev_persist(struct calib_dev *d, int64_t n, int64_t wgs, int iters, int reps,
                       double *per_iter_s, double *spread, bool *resident, char **err);
/* Host wall time per iteration of the CG-like loop (CALIB_CG_PER_ITER
 * kernels, one clFinish) on the SIDE^2-row Poisson matrix. */
bool calib_dev_cg_loop(struct calib_dev *d, int64_t side, int iters, int reps, double *per_iter_s,
                       double *spread, char **err);
/* Kernel WHICH (CALIB_CG_*) alone: host time per kernel of 32 back to back
 * and its execution span; PASS2 0: the dot skips its second pass. */
bool calib_dev_cg_kernel(struct calib_dev *d, int64_t side, int which, int pass2, int reps,
                         double *b2b_s, double *exec_s, char **err);

/* Median execution span (s) of the Jacobi kernel on an N x N grid. */
bool calib_dev_jacobi_exec(struct calib_dev *d, int64_t n, int reps, struct calib_stat *exec,
                           char **err);

/* The device's name and driver ("NAME, driver VERSION"), static storage. */
const char *calib_dev_name(const struct calib_dev *d);

/* The OpenCL devices as workloads time kernels on them (workload.h
 * wl_device; the command line registers it with wl_set_device). */
extern const struct wl_device calib_device;

#endif
