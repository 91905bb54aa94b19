/* Calibration against a real device (DESIGN.md Sec. 6 and 9): the
 * measurements `trigsim calibrate` takes through OpenCL (and, with --cuda,
 * those of trigsim-cuda-probe), how they are reduced (medians, spreads,
 * fits by GSL) into GPU, CPU and bus parameters, the hardware profile they
 * are written to, and validate-real's cases: each a one-node scenario on
 * the profile run through the catalog as `trigsim run` runs it
 * (calib_cases.c). Where a derivation needs the model's prediction it runs
 * the same scenarios (calib_case_predict).
 *
 * Derivation (calib_derive), every time a median over repetitions:
 * - The host's enqueue (issue 28, "the launch path as applications drive
 *   it"): cpu.launch_submit = S, host time of one empty-kernel enqueue in
 *   a batch of 64; cpu.submit_table: the burst of empty enqueues after a
 *   wait, position 1: T(1), position N (2 .. 1024): (T(N) - T(N/2)) /
 *   (N/2), the mean of positions N/2+1 .. N; cpu.launch_per_buffer: the
 *   slope of a line fitted (GSL) to the enqueue against the buffer
 *   arguments set before it (0 .. 8). The ND-range's dimensions and size
 *   and scalar arguments are recorded (enqueue_dims, enqueue_big_grid,
 *   enqueue_scalar3), not modelled: on the H200 they move the enqueue by
 *   under 5 %.
 * - Compute: per grid, the host wall time per kernel of K Jacobi kernels
 *   enqueued back to back (one clFinish). Where that exceeds 2 S the
 *   device sets the pace, and those points are fitted, weighted by 1/T^2,
 *   to T = G0 + W/bw, W the model's own work in bits
 *   (calib_jacobi_work_bits). gpu.teardown_latency = G0 (>= 0),
 *   gpu.mem_bandwidth = bw. Under 2 such points: the profiling spans.
 * - The signal path (a ping-pong round trip P and a store seen from its
 *   launch, T_st, from trigsim-cuda-probe on an NVIDIA GPU or calibrate's
 *   own probe on a device that shares host memory): a round trip crosses
 *   the bus twice, so bus.latency = P / 2 (gpu.fence_latency = 0: not
 *   separable from the crossing); a kernel's completion reaches a waiting
 *   host R - T_st later than its store would (R: the same API's empty
 *   round trip): the runtime's completion processing, cpu.switch_mode =
 *   interrupt with interrupt_latency = R - T_st + G0 (>= 0). Without
 *   them: bus.latency = min(small read / 4, (R - S - G0) / 4), the switch
 *   a spin (poll, interval 0).
 * - A blocked wait's lateness (cpu.wake_jitter, models/cpu.h): empty
 *   kernels with events, each enqueued once the host's clFinish of the one
 *   before returned; on the device's clock the gap from one's END to the
 *   next's START is the completion's notice, the host's wake, its enqueue
 *   and the launch, the wake's lateness its only unbounded part. Taken as
 *   a shifted exponential (as tools/calib/probes/wake_skew.cu measured it
 *   on an H200 pair's host, on the GPUs' %globaltimer): its q-quantile is
 *   the shift + J ln(1 / (1 - q)), so J = (p50 - p01) / (ln 2 - ln(1 /
 *   0.99)) (calib_wake_jitter): from two quantiles, not the mean, which
 *   one preempted wait of the host would move. The mean less p01 is
 *   recorded beside it (0.99 J for an exponential: the shape's check).
 * - R = empty-kernel round trip (a median); gpu.launch_latency = R - J ln
 *   2 - S(1) - 2 bus.latency - G0 - notice (>= 0): the round trip's
 *   median holds its wait's median lateness, J ln 2, which the model
 *   draws on top (a mean, J), so the model's round trip is R's shift + J,
 *   the mean a loop of them takes. bus.bandwidth = mean of H2D and D2H.
 * - gpu.copy_start = (empty kernel + blocking 8 B read) - J ln 2 - S(1) -
 *   S(2) - 2 bus.latency - notice: in the model the read is a copy command
 *   enqueued behind the kernel, started once the kernel is done, its flag
 *   crossing back, the host's wait for it drawing its lateness
 *   (cpu.pageable_copy 0: the split between the copy engine and the host
 *   is not measured).
 * - gpu.launch_table: depth 1: launch_latency; depth N: the mean marginal
 *   cost of a queued empty kernel, m = (total(N) - total(1)) / (N - 1),
 *   m - G0 where m > 1.25 S (device-paced), else launch_latency: the
 *   device's cost is hidden behind the enqueue, not gone (a queued Jacobi
 *   kernel of 4 waves on the H200 runs at 4.96 us a kernel, 1.5 us over
 *   its compute, where the enqueue takes 4.44).
 * - gpu.graph_launch is not calibrated: tools/calib/graph_probe.cu
 *   measures it (the model's default is its H200 figure).
 * - gpu.cus, clock; wgs_per_cu = 8 on a GPU (2048 resident items / 256),
 *   1 on a CPU device.
 * Kernels as the device runs them (GPUs only: PoCL's work-item loops do
 * not vectorize the grid-stride probes, and the Jacobi fit stays):
 * - mem_latency, mem_bandwidth: streaming (b = a + p over 1 GiB, cus * k
 *   WGs of 256 items, k = 1 .. wgs_per_cu) fitted to 1/bw(k) = L / (k cus
 *   256 * 4 B * 8) + 1/P: Little's law with the loaded latency.
 * - l2_bytes: the largest working set (full occupancy) served at over 1.3
 *   x the largest set's rate. l2_latency, l2_bandwidth: the same law
 *   through the median of those sets at full occupancy and, at 1 WG per
 *   CU, the median of the shifted stream (elements that move between WGs,
 *   so that L1 keeps none) over them.
 * - l2_near_bytes (Hopper's L2 halves): the largest working set a pointer
 *   chase of one work-item crosses at its small sets' latency (within
 *   10 %), where a larger set within l2_bytes is 30 % slower (the far
 *   half); else 0.
 * - L1: the largest working set (over the CUs) the stream at 1 WG per CU,
 *   each work-item re-reading its own elements, serves at its small sets'
 *   rate (within 1.3x); l1_bandwidth = the full occupancy rate there,
 *   l1_latency = the bits a CU keeps in flight at 1 WG per CU over the
 *   1-WG rate there. l1_resident_bytes (asked by persistent steps only)
 *   from the persistent Jacobi loop itself at 1 and at 2 WGs per CU (its
 *   grids), the larger: per CU, the largest grid's two arrays below the
 *   first grid moved under the smallest grid's rate / 1.3, where that rate
 *   is over 1.3x the largest grid's within L2, else none (the stream's
 *   without two grids at either). The stream's own L1 moved between 4, 8 and 12
 *   MiB over the H200's CUs from one process to the next where the Jacobi
 *   loop's did not (its 1024^2 grid at L2's pace in all three). Between
 *   512 and 1024 the loop's time a point grows gradually (4.4, 5.4, 6.6,
 *   8.0, 9.8 ps at 512, 640, 768, 896, 1024 on the H200, 10.3 at 2048):
 *   a share of hits, not a boundary; the levels' fits keep the boundary.
 * - barrier_table: one device-wide barrier against 1, 4, 16, 64 and cus
 *   * k WGs, (T(104 barriers) - T(4)) / 100; WG counts not all resident
 *   are left out.
 * - The stencil class at each level (l1lat_/l1eff_, l2lat_/l2eff_,
 *   lat_/eff_stencil, and knee_/l2knee_/l1knee_stencil): the persistent
 *   Jacobi loop's tiles (grids 512 .. 4096, k = 1, 2, 4, 8), per iteration
 *   the slope between runs of 50 and 500 iterations (a run's fixed cost,
 *   its launch, wait and whatever else it pays once, falls out; on the
 *   H200 that is 14 - 24 us a run, twice the empty round trip, which a
 *   per-iteration wall time of 50 spread over them). The model composes
 *   the loop from its tiles and the barrier table, so the tiles' time is
 *   what the class must give, and two measurements bound it from above:
 *   the loop's slope less the barrier as the model composes the loop
 *   (calib_persist_tile: the WGs with a tile fewer, or none, arrive early
 *   and their arrives are done while the deepest work; models/gpu.h
 *   KS_BARRIER), which keeps whatever the loop pays beyond its two parts
 *   (validate-real's parts on the H200, 2026-11-30 18:01: +0.5, +1.0,
 *   +1.7 us an iteration at 2048^2 and 6, 7, 8 WGs a CU; they flattened
 *   the L2 points from 4 to 8 WGs a CU where the tiles alone still gain
 *   17 - 23 %), and the tiles alone (the loop's kernel without its
 *   barrier, the same two lengths), whose iterations race: WGs iterations
 *   apart read and write both grids at once, which from memory costs more
 *   than the loop in step (the same round: at 4096^2 and 8 WGs a CU
 *   calibrate's tiles alone took 63.9 us an iteration against 53.8 for the
 *   whole loop; at 4 WGs 80.9 against 83.0). Each point is the tighter of the
 *   two; a loop left with under a third of its time once the barrier is
 *   off bounds nothing. An older profile has the loop only; the oldest's
 *   one run is its wall time per iteration less the round trip's share.
 *   The points are
 *   fitted to the level's law (1/bw = S_p(a/k, b), models/gpu.h
 *   "Achieved bandwidth") as percentages of its latency and peak, and its
 *   knee exponent p: for each p the line y^p = a^p x^p + b^p (x = 1/k, y
 *   = 1/bw) by relative least squares, p in [1, CALIB_KNEE_MAX] the one of
 *   least squared relative error in y (a scan in steps of 0.25, then
 *   GSL's Brent minimiser), rounded to 0.01; points at fewer than 3
 *   different k give p = 1, the sum. A level is the grids whose two arrays
 *   fit L1 per CU, L2, or neither. Where the fitted asymptote exceeds the
 *   level's peak the efficiency is 100 % and the latency term alone is
 *   refitted (the sum's asymptotes are extrapolations from k <= 8: on the
 *   H200 the stencil's from DRAM read 122 % of the stream's).
 * - first_wave: the Jacobi grids of one wave (at most cus * wgs_per_cu
 *   WGs): their execution span - the empty kernel's - the model's compute
 *   (the sync kloop scenario at the grid - the same with a 1 ps kernel),
 *   median: the cold start of a kernel's first wave.
 * - wg_start: discrete Jacobi grids with b2b > 2 S: (b2b - the async
 *   kloop scenario's time per kernel with wg_start 0) / waves, median.
 * - eff_spmv, eff_reduce, eff_axpy (and l2eff_): the largest percentage
 *   (<= 100) whose prediction of the cg workload's kernel alone (kernels:
 *   spmv, dot, axpy; one rank, gds, 32 back to back on the probe's
 *   2048^2-row Poisson matrix) is not faster than measured, bisected;
 *   reduce_load = (the dot's span with its second pass - without) /
 *   ceil(its WGs / 256), the partials each item of the last WG adds one
 *   after another (reduce_pass 0: one size measured, no fixed part). */
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
#define CALIB_MAX_WS 24    /* working-set sizes */
#define CALIB_MAX_ARGK 8   /* argument counts of the enqueue probe */
#define CALIB_MAX_BAR 24   /* barrier WG counts */
#define CALIB_MAX_PJ 64    /* persistent Jacobi (grid, WGs per CU) cases */
#define CALIB_KNEE_MAX 16  /* the largest knee exponent calibrate fits (gpu.h "Achieved bandwidth") */
#define CALIB_ITEMS 256    /* work-items per WG of the 1D kernels */
#define CALIB_ITEM_BYTES 4 /* one float load in flight per work-item */
/* The CG-like kernels (the cg workload's, in double precision). */
enum { CALIB_CG_SPMV, CALIB_CG_DOT, CALIB_CG_AXPY, CALIB_CG_KINDS };

/* A median and its spread (interquartile range / median). */
struct calib_stat {
  double median_s;
  double spread;
};

/* What the CUDA probe (tools/calib/cuda_probe.cu, `trigsim-cuda-probe`)
 * measured, read from its file (calibrate --cuda). Times in seconds. */
struct calib_cuda {
  bool present;
  char device[128], driver[64], date[32];
  int reps;
  struct calib_stat launch;     /* host time of one <<<1,1>>> launch, batches of 64 */
  struct calib_stat roundtrip;  /* launch + cudaStreamSynchronize of an empty kernel */
  int n_args;
  int64_t args[CALIB_MAX_ARGK];
  double args_s[CALIB_MAX_ARGK]; /* one launch with N pointer arguments */
  struct calib_stat store;      /* launch to the kernel's store seen in mapped host memory */
  struct calib_stat pingpong;   /* host flag -> persistent kernel -> host flag, a round trip */
};

/* Everything calibrate measured, and where. Times in seconds. */
struct calib_meas {
  char device[128], vendor[128], driver[128], platform[128], version[128];
  char date[32];      /* ISO 8601 UTC */
  bool is_gpu, quick;
  int reps, warmups;
  int64_t cus, clock_hz;
  struct calib_stat submit, roundtrip, launch_span, exec_span, read_lat;
  struct calib_stat submit_end;   /* the enqueue again, at the end (0: not measured) */
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
  double pj_iter_s[CALIB_MAX_PJ];      /* persistent Jacobi, time per iteration: the slope
                                        * between runs of pj_iters and pj_iters_long (0:
                                        * an older profile's wall time per iteration) */
  double pj_fixed_s[CALIB_MAX_PJ];     /* a run's fixed cost: wall(pj_iters) - pj_iters x slope */
  double pj_tiles_s[CALIB_MAX_PJ];     /* the same loop's tiles alone (no barrier, the
                                        * iterations racing): the slope between the two
                                        * lengths; 0: not measured (an older profile) */
  int pj_iters, pj_iters_long;
  int n_burst;
  int64_t burst[CALIB_DEPTHS];
  double burst_enq_s[CALIB_DEPTHS];    /* host time to enqueue N empty kernels */
  int64_t cg_side;                     /* CG-like kernels on a side^2-row Poisson matrix */
  double cg_b2b_s[CALIB_CG_KINDS];     /* host time per kernel, 32 back to back */
  double cg_exec_s[CALIB_CG_KINDS];
  double dot_nopass2_exec_s;           /* the dot without its second pass */
  /* The launch path as applications drive it (zero when not measured). */
  int n_argk;
  int64_t argk[CALIB_MAX_ARGK];        /* buffer arguments set before each enqueue */
  double argk_enq_s[CALIB_MAX_ARGK];   /* host time of one enqueue with them, batches of 64 */
  double args3_once_s;                 /* 3 buffer arguments set once, then enqueues only */
  double scal3_enq_s;                  /* 3 int arguments set before each enqueue */
  double dims_enq_s[3];                /* empty kernel on a 1-, 2-, 3-dimensional ND-range */
  double big_enq_s;                    /* empty kernel of 65536 WGs of 256 items */
  double burst_empty_s[CALIB_DEPTHS];  /* host time to enqueue N empty kernels (burst[]) */
  /* The L2 at 1 WG per CU (ws[]), and a pointer chase of one work-item. */
  double ws_k1_bps[CALIB_MAX_WS];      /* each work-item re-reads its own elements */
  double ws_k1_rot_bps[CALIB_MAX_WS];  /* each pass shifted: the elements move between WGs */
  int n_chase;
  int64_t chase_ws[CALIB_MAX_WS];
  double chase_s[CALIB_MAX_WS];        /* one dependent load (128 B lines, random cycle) */
  /* The signal path through host memory during a kernel (sig_ok false:
   * the platform gives no coherent host buffer, not measured). */
  bool sig_ok;
  struct calib_stat sig_store;         /* enqueue to a kernel's store seen by the spinning host */
  struct calib_stat sig_pingpong;      /* host store -> persistent kernel -> host, one round trip */
  int sig_rounds;
  struct calib_stat copy_rt;           /* empty kernel + blocking 8 B read (the copy home) */
  /* A blocked wait's lateness: on the device's clock, the gap from one
   * empty kernel's END to the next one's START, each enqueued when the
   * host's clFinish of the one before returned (wake_n gaps; 0: not
   * measured). */
  int wake_n;
  double wake_p01_s, wake_p50_s, wake_mean_s;
  struct calib_cuda cuda;              /* calibrate --cuda: the CUDA probe's file */
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

/* A loop timed at two lengths, PER1 and PER2 a run's time per iteration
 * at N1 and N2 iterations: *SLOPE its time per iteration, *FIXED what a
 * run pays once (the intercept). */
void calib_two_lengths(double per1, int n1, double per2, int n2, double *slope, double *fixed);

/* The mean of a shifted exponential from its 1st percentile P01 and median
 * P50 (s): (p50 - p01) / (ln 2 - ln(1 / 0.99)); 0 when P50 <= P01. */
double calib_wake_jitter(double p01, double p50);

/* Whether the host's enqueue moved by over 15 % between the start and the
 * end of M's measurements (the H200 machines' hosts switch between about
 * 3.4 and 4.8 us from one process to the next, and now and then within
 * one: configs/hw/README.md); *FROM and *TO its two medians (s). False
 * when the end was not measured. */
bool calib_host_moved(const struct calib_meas *m, double *from, double *to);

/* The host-paced measurements (tools/calib/probes/host_state.c: on the
 * H200 machines' shared hosts an enqueue switches between about 4.1 and
 * 5.4 us from one tenth of a second to the next, on any CPU) are taken in
 * CALIB_HOST_PASSES passes apart in time (calibrate --quick: 2); each value
 * is the median over the passes. */
enum { CALIB_HOST_PASSES = 5 };

/* OUT: PASS[0] with each host-paced value (the launch path's table, the
 * round trip, the spans, the wake gaps, the queue's depths, the small read,
 * the Jacobi kernel's spans and back-to-back times, the bursts, the copy
 * home) the median over the N passes (a calib_stat: its median and its
 * spread each the median of the passes'). The counts (n_depths, n_grids,
 * n_burst, n_argk) are PASS[0]'s; every pass has the same. */
void calib_meas_host_median(const struct calib_meas *pass, int n, struct calib_meas *out);

/* Fits y = a + b x weighted by 1/y^2 (GSL); false when under 2 points or
 * the fit is degenerate. R2 is the weighted coefficient of determination. */
bool calib_fit_rel(const double *x, const double *y, size_t n, double *a, double *b, double *r2);

/* Non-zeros of the 5-point Poisson matrix on a SIDE x SIDE grid. */
int64_t calib_cg_nnz(int64_t side);

/* The model's work, in bits, of the Jacobi kernel on an N x N grid under
 * CUS x WGS_PER_CU slots: ceil(wgs / slots) * wg_bytes * 8 * slots, so that
 * its duration is work / mem_bandwidth (gpu_compute_time). */
double calib_jacobi_work_bits(int64_t n, int64_t cus, int64_t wgs_per_cu);

/* Fills HW (defaults first) from M, as the header says (its scenario fits
 * run on a profile written to a temporary folder). False and *ERR when the
 * measurements cannot be fitted. */
bool calib_derive(const struct calib_meas *m, struct calib_hw *hw, struct calib_fit *fit,
                  char **err);

/* Writes the profile (provenance + hardware) to PATH through PATH.tmp and a
 * rename. False and *ERR (g_free) when it cannot be written. */
bool calib_write_profile(const char *path, const struct calib_meas *m, const struct calib_fit *fit,
                         const struct calib_hw *hw, char **err);

/* Reads the measurements a profile's provenance records back into M
 * (calibrate --from: derive again without the device). False and *ERR. */
bool calib_read_meas(const char *path, struct calib_meas *m, char **err);

/* Reads the file trigsim-cuda-probe wrote (a `cuda:` map) into C. False
 * and *ERR "file:line:col: cuda...: expected X, got Y". */
bool calib_read_cuda(const char *path, struct calib_cuda *c, char **err);

/* Reads a profile (or any scenario fragment's hardware: section) into HW;
 * false and *ERR "file:line:col: key: expected X, got Y". */
bool calib_read_profile(const char *path, struct calib_hw *hw, char **err);

/* ---- validate-real's cases as scenarios (calib_cases.c) ---- */

enum calib_case_kind {
  CASE_SYNC,     /* kloop under hdn: a kernel, then the host waits, per iteration */
  CASE_ASYNC,    /* kloop (sync: false) under gds: all enqueued, one wait */
  CASE_PERSIST,  /* kloop under cpufree, wgs_per_cu k: one persistent kernel */
  CASE_CG,       /* the cg workload (standard, one rank) under gds */
  CASE_STORE,    /* the signal workload: a kernel's store seen by the host */
  CASE_PINGPONG, /* the signal workload: host <-> kernel round trips */
};

struct calib_case {
  enum calib_case_kind kind;
  int64_t size;    /* grid side, or the CG matrix's side (side^2 rows) */
  int64_t k;       /* CASE_PERSIST: WGs per CU */
  int iters;       /* iterations (kernels, CG iterations, round trips) */
  int only;        /* CASE_CG: 0 the iteration, 1 its SpMV, 2 a dot, 3 an AXPY alone */
};

/* The case's name in validate-real's table ("sync", "pers3", "cg"); BUF
 * (N bytes) may hold it. */
const char *calib_case_name(const struct calib_case *c, char *buf, size_t n);

/* Whether case C launches a kernel or waits on the host each iteration
 * (sync, async, CG): its time moves with the host's state, and
 * validate-real runs such cases in passes. */
bool calib_case_host_paced(const struct calib_case *c);

/* The --set assignments that make a profile case C's scenario (EXTRA
 * first, NULL-terminated or NULL), NULL-terminated (g_strfreev). */
char **calib_case_sets(const struct calib_case *c, const char *const *extra);

/* The predicted time per iteration (ps) of case C on the profile at
 * PROFILE with EXTRA sets: the scenario loaded, checked and run as `trigsim
 * run PROFILE --set ...` runs it (a round trip for CASE_PINGPONG: twice
 * the iterations, minus once). False and *ERR. */
bool calib_case_predict(const char *profile, const struct calib_case *c, const char *const *extra,
                        int64_t *per_iter_ps, char **err);

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

/* The empty kernel's round trip (enqueue + clFinish, s) measured now:
 * median of REPS after a few warm-ups. validate-real brackets its cases with
 * it, because a shared host's speed moves within a lease. */
bool calib_dev_roundtrip(struct calib_dev *d, int reps, double *s, char **err);
/* Host time of one empty-kernel enqueue, batches of 64, median of REPS
 * (calibrate's `enqueue`, measured again). */
bool calib_dev_enqueue(struct calib_dev *d, int reps, double *s, char **err);

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
/* How a persistent loop ran, where the device tells (NVIDIA: %smid,
 * %clock64, %globaltimer; else zeros): the most WGs one SM held in any run,
 * and WG 0's SM clock over the loop (clock64 ticks over globaltimer
 * nanoseconds), the median over the runs. */
struct calib_run_state {
  int most;
  double mhz;
  double tiles; /* validate-real: the same loop's tiles alone, s an iteration (0: not measured) */
};
/* The lowest and highest of N values added (calib_range_add). */
struct calib_range {
  double lo, hi;
  int n;
};
void calib_range_add(struct calib_range *r, double x);
/* The persistent Jacobi loop's iteration as the model composes it (models/
 * gpu.h, KS_BARRIER): TILES tiles grid-strided over WGS WGs, TILE_S
 * seconds each; the FOLD = ceil(TILES / WGS) deep WGs arrive last and pay
 * B(their number), the others (FOLD - 1 tiles, or none) B(WGS) from their
 * arrival; B from G's barrier. Seconds. */
double calib_persist_iter(const struct gpu_config *g, int64_t tiles, int64_t wgs, double tile_s);
/* Its inverse: the time of one tile that gives an iteration of ITER_S (0
 * when no tile time does: ITER_S under the barrier alone). */
double calib_persist_tile(const struct gpu_config *g, int64_t tiles, int64_t wgs, double iter_s);
/* A persistent run's record W (NVIDIA): N WGs' SM ids, then WG 0's clock64
 * ticks and globaltimer nanoseconds over the loop, each as low and high
 * 32-bit words: *MOST the most WGs one SM held, *MHZ the clock (0 when the
 * timer did not move). */
void calib_place_summary(const uint32_t *w, size_t n, int *most, double *mhz);
/* Host wall time per iteration of one persistent Jacobi kernel of WGS WGs
 * looping ITERS times over an N x N grid (a device-wide barrier each);
 * ST (may be NULL): how it ran. */
bool calib_dev_persist(struct calib_dev *d, int64_t n, int64_t wgs, int iters, int reps,
                       double *per_iter_s, double *spread, bool *resident,
                       struct calib_run_state *st, char **err);
/* The same loop without its barrier (the iterations racing): the tiles'
 * time an iteration alone, median of REPS. */
bool calib_dev_persist_tiles(struct calib_dev *d, int64_t n, int64_t wgs, int iters, int reps,
                             double *per_iter_s, char **err);
/* Host wall time per iteration of the CG-like loop on the SIDE^2-row
 * Poisson matrix: the cg workload's standard iteration on one rank under
 * gds (SpMV, dot, its scalar read home; AXPY, AXPY, dot, read home; AXPY,
 * clFinish). */
bool calib_dev_cg_loop(struct calib_dev *d, int64_t side, int iters, int reps, double *per_iter_s,
                       double *spread, char **err);
/* Kernel WHICH (CALIB_CG_*) alone: host time per kernel of 32 back to back
 * and its execution span; PASS2 0: the dot skips its second pass. */
bool calib_dev_cg_kernel(struct calib_dev *d, int64_t side, int which, int pass2, int reps,
                         double *b2b_s, double *exec_s, char **err);

/* The signal path through a host buffer during a kernel (a device that
 * shares host memory: a CPU device; false *SEEN elsewhere, or when the
 * stores were not seen in time): the enqueue to a kernel's store seen by
 * the spinning host (PINGPONG false), or host <-> persistent kernel round
 * trips (ROUNDS of them, per round trip): median *S of REPS and *SPREAD. */
bool calib_dev_signal(struct calib_dev *d, bool pingpong, int rounds, int reps, double *s,
                      double *spread, bool *seen, char **err);

/* Median execution span (s) of the Jacobi kernel on an N x N grid. */
bool calib_dev_jacobi_exec(struct calib_dev *d, int64_t n, int reps, struct calib_stat *exec,
                           char **err);

/* The device's name and driver ("NAME, driver VERSION"), static storage. */
const char *calib_dev_name(const struct calib_dev *d);

/* The OpenCL devices as workloads time kernels on them (workload.h
 * wl_device; the command line registers it with wl_set_device). */
extern const struct wl_device calib_device;

#endif
