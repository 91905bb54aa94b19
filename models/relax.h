/* Jacobi relaxation with the numbers in the loop: a node's host thread and
 * GPU running a synchronous or asynchronous Jacobi solver on a real sparse
 * system, each update applied at the simulated instant the GPU performs
 * it, reading what the simulated memory holds then (Tsai, Nayak, Chow,
 * Anzt, "Implementing Asynchronous Jacobi Iteration on GPUs": Alg. 1-3;
 * DESIGN.md Sec. 9 "Numbers in the loop"). Costs come from the GPU model
 * (gpu_step_time, gpu_occupancy, gpu_launch_time, gpu_barrier_time) and
 * the CPU group's costs; messages between GPUs go through the node's bus,
 * NIC and the network.
 *
 * Component "relax", one per node, on two ports: "cpu" (0, joined to the
 * bus's cpu port: launches, kernel completions, host sends and receives)
 * and "gpu" (1, the bus's gpu port: device puts and their flags). Its
 * config is the node's entry of an rx_run, which owns the numbers (matrix,
 * right-hand side, each GPU's memory of x) and the monitor (residual,
 * stop): a workload-owned object, never a global.
 *
 * The system. A x = b, A square CSR (gsl_spmatrix, 0-based) with a
 * non-zero diagonal, x0 = 0. A Jacobi update of row i is
 *   x_i <- x_i + (b_i - sum_j a_ij x_j) / a_ii
 * (the study's x += alpha (b - A x) with alpha = 1 / a_ii, 1 for its
 * normalized Laplacians). Rows are split over GPUs in contiguous blocks;
 * GPU g owns rows [row0, row0 + rows) and reads the others' rows it needs
 * (its halo) from copies in its own memory, written when a put lands.
 *
 * Memory (the visibility model). Each GPU's memory holds a value and a
 * version (how many updates the row had seen) per row. A store is staged
 * with the instant it becomes visible: a load at time t returns the last
 * store visible at or before t, whatever the order in which same-instant
 * events run (a store's visibility is staged when its batch starts, before
 * any load at that instant can happen). A unit's own latest store to a row
 * is always what that unit itself loads (program order).
 * - fence on (`__threadfence()` after each update): a batch's stores are
 *   visible at its end, which includes gpu.device_fence_latency.
 * - fence off: at its end + gpu.store_visibility (a stale L1 line's
 *   lifetime in the loading SM), the same delay for every other unit.
 * - kernel boundaries and grid barriers (the synchronous variants) make
 *   the stores visible at the phase's end.
 * - a halo put: its values (taken from the sender's memory as visible when
 *   the put is posted) are visible at the target 1 ps after its completion
 *   flag arrives there (loads strictly after the arrival).
 *
 * The asynchronous kernels (one launch; blocks of `block` threads, `subwarp`
 * threads per row; Alg. 2 and 3). A unit is what one event moves: a warp
 * (32 threads) or a whole block (grain). A unit's step updates its R =
 * threads / subwarp rows at once: at the step's start it loads every value
 * those rows read and computes their new values; at its end it stores them
 * (staged as above) and the next step starts. Static: unit u holds rows
 * [u R, (u+1) R) for `updates` steps; blocks beyond what fits
 * (gpu_occupancy) wait for earlier blocks to end (waves). Dynamic: oscb *
 * cus blocks, S = blocks * block / subwarp subwarps (S <= rows): subwarp
 * id's k-th row is (id + k S) mod rows while id + k S < updates * rows.
 * Step time: gpu_step_time with the GPU config's wg_items set to the
 * step's threads (its rows x subwarp), R' = ceil(the threads of the units
 * running now / the step's threads) (memory is shared per thread in
 * flight, so a unit past the last row, with fewer rows, is no faster per
 * update), occupancy = resident blocks per CU x units per block, and the step
 * (class spmv) of its rows of m_i non-zeros each:
 *   bytes = sum_i (4 + 12 m_i + 8 + 8 [+ 8 when a_ii != 1])
 *           (a row pointer, 4 B column and 8 B value per non-zero, b_i,
 *            the store of x_i, [the diagonal's inverse])
 *   reuse_bytes = 8 sum_i m_i (x gathered), gather_bytes = 8 n,
 *   ws_bytes = 4 (n + 1) + 12 nnz + 16 n [+ 8 n],
 *   rows, nnz = R, sum m_i when subwarp = 1 (a row per thread: gpu.h "L1"),
 *   flops = sum_i 2 (s ceil(m_i / s) + s log2 s + 1)
 *           (lanes issued: the products, the subwarp's shuffle tree, the update),
 * plus gpu.device_fence_latency when fenced.
 *
 * The synchronous variant (Alg. 1): per iteration a residual kernel r = b -
 * A x (class spmv, as above with r_i stored instead of x_i) and an update
 * kernel x += D^-1 r (class axpy, 8 B of r, 8 B of x read, 8 B written [+ 8
 * B of the diagonal] per row, one thread per row); the whole Jacobi update
 * is applied when the update phase ends. Control (the policy):
 * - RX_HOST (hdn): the host submits each kernel (cpu.launch_submit, then
 *   PK_QUEUE_CMD to the GPU through the bus). The GPU serves them in order:
 *   gpu_launch_time(depth at arrival), the blocks in waves of cus * occ
 *   (each wave gpu_step_time of the average block at R' = its blocks, plus
 *   gpu.wg_start), gpu.teardown_latency, then PK_KERNEL_DONE to the host
 *   through the bus. Alone, the host submits ahead (at most
 *   cpu.launch_queue_depth kernels outstanding); over several GPUs it waits
 *   for the update kernel (noticed per cpu.switch_mode), sends each halo
 *   (cpu.send, then a put through the NIC, its flag to the host), waits for
 *   the halos of the iteration, and launches the next.
 * - RX_DEVICE (cpufree): one persistent kernel of cus * occ blocks, each
 *   phase gpu_step_time of a block's share at R' = all blocks, a grid
 *   barrier (gpu_barrier_time) after each phase; over several GPUs the
 *   blocks post each halo after the update phase (gpu.fence_latency, then a
 *   put to the NIC, its flag to the target's GPU) and poll for the
 *   neighbours' halos of the iteration (noticed at the first poll tick,
 *   gpu_poll_period, at or after the arrival) before the barrier.
 * The asynchronous variants run under either control alone; over several
 * GPUs only RX_DEVICE: after a step that stored the last row of a halo a
 * peer reads, the unit posts that halo as a put (gpu.fence_latency, no
 * signal the peer waits for), unless the previous put of that halo has not
 * left yet (its local completion): then it is skipped (counted).
 *
 * Monitor. The residual ||b - A x|| / ||b|| of the latest stored x (each
 * row's owner) is computed whenever another sample_every * n updates have
 * been stored (sync: every sample_every iterations); the run stops
 * (sim_stop) at the first sample at or below `tolerance`. The end of a run
 * that does not stop is when the last host noticed its kernels ended.
 * Counted: updates per row (spread), the lag of every value read (the
 * updating row's update index - 1 - the version read: 0 for Jacobi,
 * negative for fresher), and, for the reads of each row's `midway`-th
 * update, the versions read by connection type ("T_S": off-diagonal
 * non-zeros of the target row and of the source row), the study's Fig. 11:
 * reported as a box plot's figures (quartiles as gsl_stats_quantile
 * defines them, least, most), over all reads and per type. */
#ifndef MODELS_RELAX_H
#define MODELS_RELAX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_spmatrix.h>

#include "cpu.h"
#include "engine.h"
#include "gpu.h"
#include "net.h"

enum rx_variant { RX_SYNC, RX_STATIC, RX_DYNAMIC };
enum rx_control { RX_HOST, RX_DEVICE };
enum rx_grain { RX_WG, RX_WARP };

#define RX_WARP_THREADS 32

struct rx_setup {
  int variant;          /* enum rx_variant */
  int control;          /* enum rx_control */
  int grain;            /* enum rx_grain */
  int64_t subwarp;      /* threads per row: 1, 2, 4, 8, 16 or 32 */
  int64_t block;        /* threads per block: a multiple of 32 */
  int64_t oscb;         /* RX_DYNAMIC: blocks = oscb * gpu.cus */
  int64_t regs;         /* registers per thread of every kernel (occupancy); 0: no limit */
  int64_t updates;      /* updates per row (sync: iterations), >= 1 */
  double tolerance;     /* stop at a sampled residual <= this; 0: never */
  bool fence;           /* __threadfence() after each update (async) */
  int64_t sample_every; /* sweeps (n updates) between residual samples, >= 1 */
  int64_t midway;       /* the update whose reads' versions are kept; 0: none */
  uint32_t gpus;        /* GPUs the rows are split over (nodes 0 .. gpus-1) */
  bool nvl_stores;      /* a device put to a GPU of the same node is NVLink stores */
  const struct gpu_config *gpu;  /* borrowed, outlive the run */
  const struct cpu_config *cpu;
  const struct net_config *net;
};

struct rx_run;

/* A run of SETUP (copied; its configs borrowed) on A x = B: A (CSR, n x
 * n, every diagonal entry non-zero) and B (n) are borrowed and must
 * outlive the run. NULL and *ERR when the shape cannot run: more GPUs than
 * rows, or a dynamic kernel with more subwarps than a GPU's rows. Free with
 * rx_run_free after the engine. */
struct rx_run *rx_run_new(const gsl_spmatrix *a, const double *b, const struct rx_setup *s,
                          char **err);
void rx_run_free(struct rx_run *r);

extern const struct sim_type relax_type;

/* The relax component's declared outputs (sim/outputs.h; `trigsim outputs
 * relax`), in the order it reports them. */
enum rx_out {
  RX_OUT_KERNELS, RX_OUT_STEPS, RX_OUT_HALO_PUTS, RX_OUT_HALO_PUTS_SKIPPED, RX_OUT_HALOS_LANDED,
  RX_OUT_HOST_DONE, RX_OUT_COUNT
};
extern const struct sim_outputs relax_outputs;
/* What rx_report reports (the ajacobi kind's outputs: `trigsim outputs ajacobi`). */
extern const struct sim_outputs rx_run_outputs;

/* Adds NODE's component named NAME ("node0.relax") running R's GPU NODE
 * (a node >= gpus runs nothing). Ports: 0 "cpu", 1 "gpu". */
struct sim_comp *rx_add(struct sim_engine *e, const char *name, struct rx_run *r, uint32_t node);

/* After the run. */
struct rx_sample {
  sim_time t;        /* when it was taken */
  double updates;    /* updates stored / rows: sweeps' worth */
  double residual;   /* ||b - A x|| / ||b|| */
};
const struct rx_sample *rx_samples(const struct rx_run *r, size_t *n);
/* When the run ended: the stop (tolerance reached) or the last host's
 * notice of its kernels' end; and whether it stopped at the tolerance. */
sim_time rx_end_time(const struct rx_run *r);
bool rx_converged(const struct rx_run *r);
/* The residual of the latest stored x now. */
double rx_residual(const struct rx_run *r);
/* The latest stored x (n values) into X. */
void rx_solution(const struct rx_run *r, double *x);
/* The run's own counters (residual, updates and their spread, time per
 * update, lags, ages read at the midway update over all connection types
 * and for each type of the 2D and 3D Laplacians), declared by
 * rx_run_outputs, under PREFIX ("ajacobi"). */
void rx_report(const struct rx_run *r, const char *prefix, struct sim_report *counters);

/* The duration of one asynchronous step of ROWS rows of R's system from
 * FIRST (GPU 0's local rows; a range, no wrap) with ACTIVE threads of
 * units running, as the model charges it (above), fence included. */
sim_time rx_step_time(const struct rx_run *r, int64_t first, int64_t rows, uint64_t active);

/* A GPU's memory of x (the visibility model above), for the component and
 * tests: values and versions of N rows, and the staged stores. */
struct rx_mem;
struct rx_mem *rx_mem_new(int64_t n);
void rx_mem_free(struct rx_mem *m);
/* Stages N stores to rows FIRST .. FIRST + N - 1 (ROWS NULL) or ROWS[0 ..
 * N-1], visible from AT: VALS and VERS are copied. */
void rx_mem_stage(struct rx_mem *m, sim_time at, int64_t first, const int64_t *rows, uint32_t n,
                  const double *vals, const uint32_t *vers);
/* Makes every store staged visible at or before NOW what loads return. */
void rx_mem_advance(struct rx_mem *m, sim_time now);
double rx_mem_value(const struct rx_mem *m, int64_t row);
uint32_t rx_mem_version(const struct rx_mem *m, int64_t row);
/* Stores staged and not yet visible. */
size_t rx_mem_pending(const struct rx_mem *m);

#endif
