/* The cg workload: standard or pipelined conjugate gradient on a sparse
 * matrix split over the ranks (CPU-free ICS23 Sec. 3.4, Table 1); see
 * workloads/kinds/cg.c for what an iteration does and costs. */
#ifndef WL_CG_H
#define WL_CG_H

#include "param.h"
#include "program.h"
#include "sparse.h"

enum cg_source { CG_POISSON, CG_FILE, CG_BANDED, CG_CATALOGUE };
enum cg_variant { CG_STANDARD, CG_PIPELINED };
/* Whose CG an iteration follows: the CPU-free code's (ICS23) or aCG's
 * (SC '25; workloads/kinds/cg.c, acg_kernel_iteration and acg_host_iteration). */
enum cg_code { CG_ICS23, CG_ACG };
/* How the SpMV reads the x values other ranks own: a halo exchange of
 * messages before it, or a blocking load of the owner's memory per remote
 * non-zero inside it (the ICS23 code's nvshmem_double_g, Sec. 4.2.2). */
enum cg_x_reads { CG_X_HALO, CG_X_GET };

/* Group "cg": see cg_params for units, defaults and ranges. */
/* workload.kernels: the whole iteration, or one of its operations alone
 * (dot: the standard iteration's two dots; axpy: its three AXPYs; each
 * with the L2 share its place in the iteration leaves it), repeated, a
 * device sync between (calibrate's per-kernel fits) or a host sync
 * (op_sync: host, the CPU-Free code's profiling build, which times each
 * operation and its cudaStreamSynchronize: CG/src/profiling/). */
enum cg_kernels { CG_ITERATION, CG_ONLY_SPMV, CG_ONLY_DOT, CG_ONLY_AXPY, CG_ONLY_COPY,
                  CG_ONLY_BARRIER, CG_ONLY_REDUCE, CG_ONLY_SPMV_BARRIER };

struct cg_config {
  int source;          /* enum cg_source */
  int64_t dim;         /* poisson: 1, 2 or 3 */
  int64_t n;           /* poisson: points per side */
  char *file;          /* file: a Matrix Market path, relative to the scenario */
  int64_t rows;        /* banded */
  double nnz_per_row;  /* banded */
  char *matrix;        /* catalogue: the entry's name */
  char *catalogue;     /* catalogue: its file, relative to the scenario */
  int64_t max_row;     /* catalogue: the longest row in place of the entry's; 0: the entry's */
  int64_t dense_nodes; /* catalogue: dense nodes in place of the entry's; 0: the entry's */
  int variant;         /* enum cg_variant */
  int64_t iterations;  /* fixed count, when tolerance is 0 */
  double tolerance;    /* > 0: iterate as a real CG needs to reach it (poisson, file) */
  int partitioner;     /* enum sp_partitioner */
  int64_t rows_per_wg; /* work-items (rows) per WG */
  int spmv;            /* enum wl_spmv: how the code walks the matrix */
  int code;            /* enum cg_code */
  int x_reads;         /* enum cg_x_reads: how the SpMV gets other ranks' x values */
  int kernels;         /* enum cg_kernels: the iteration, or one of its kernels alone */
  bool op_host_sync;   /* kernels alone: a host sync after each (the code's profiling build) */
};

extern const struct par_group cg_params;

struct gpu_config;

/* ITERATIONS of CFG's variant over PART's ranks, each SpMV stretched to
 * its rank's longest row on GPU (NULL: the mean row's work only); code
 * acg in its forms (program.h, wl_form): its monolithic kernel, and for
 * standard CG its host-driven solver. Free with wl_program_free. */
struct wl_program *wl_cg_program(const struct cg_config *cfg, const struct sp_part *part,
                                 const struct gpu_config *gpu, int64_t iterations);

/* L2 reuse (models/gpu.h "L2 reuse"): the share of buffer B (a bit
 * number) that L2 holds when op J of a cycle of N ops reads it. OPS[q]:
 * the buffers op q touches, one bit each (8 at most); SIZE: their bytes;
 * held whole up to distance K bytes, none from E, linear between. */
double wl_cg_l2_held(const uint8_t *ops, int n, const double *size, int j, int b, double k,
                     double e);

#endif
