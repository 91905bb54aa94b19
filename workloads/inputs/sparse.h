/* Sparse matrices for the cg workload (CPU-free ICS23 Sec. 3.4, Table 1):
 * where a matrix comes from (a Matrix Market file, a generated 1D/2D/3D
 * Poisson matrix, a synthetic banded matrix described only by its rows
 * and non-zeros per row, or one streamed from a generator: matgen.h), how
 * its rows are split over ranks (contiguous blocks, or a graph partitioner
 * when one was built in), and what each
 * rank then needs: its rows and non-zeros, and the vector entries it must
 * fetch from each other rank for an SpMV (its halo). Storage and reading
 * go through GSL's gsl_spmatrix. */
#ifndef WL_SPARSE_H
#define WL_SPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <glib.h>
#include <gsl/gsl_spmatrix.h>

/* Entries rank `peer` owns that this rank reads in an SpMV. */
struct sp_halo {
  uint32_t peer;
  int64_t elems;
};

struct sp_rank {
  /* Its rows. Contiguous blocks (SP_BLOCKS, sp_partition_banded): the rows
   * [row0, row0 + rows). SP_GRAPH: ROWS is how many rows it holds and ROW0
   * is -1, as they are scattered; sp_part_owner says whose each row is. */
  int64_t row0, rows;
  int64_t nnz;             /* non-zeros in its rows */
  int64_t max_row;         /* its longest row's non-zeros (0 without rows) */
  int64_t remote_nnz;      /* its non-zeros whose column another rank owns */
  int64_t max_remote_row;  /* the most such non-zeros in one of its rows */
  /* The requests its thread-per-row SpMV's remote loads make (sp_warps):
   * per warp of SP_WARP consecutive rows and per place j in the rows, the
   * distinct SP_SECTOR-byte sectors of the owners' x that the warp's
   * lanes read at j; 0: not counted (one a remote non-zero). */
  int64_t remote_sectors;
  struct sp_halo *recv;    /* peers it reads from, ascending peer order */
  size_t n_recv;
};

struct sp_part {
  uint32_t n_ranks;
  int64_t rows, nnz;       /* of the whole matrix */
  struct sp_rank *ranks;
};

enum sp_partitioner { SP_BLOCKS, SP_GRAPH };

/* A row-per-thread SpMV's loads of x (the CPU-free study's gpuSpMV): a
 * warp's lanes issue their j-th non-zero's load together, and the load
 * unit merges the lanes that read one sector into one request; NVIDIA's
 * warps (32 lanes) and sectors (32 B: 4 doubles). */
enum { SP_WARP = 32, SP_SECTOR = 32 };

/* A rank's remote loads, counted as requests: the distinct (place, owner,
 * sector) keys of each warp, summed. sp_warps_add each load, in the
 * rank's row order; sp_warps_take the rank's sum (and start the next). */
struct sp_warps {
  GArray *keys;  /* the current warp's */
  int64_t warp;  /* the warp the keys are of; -1: none yet */
  int64_t total; /* the rank's warps before it */
};
void sp_warps_init(struct sp_warps *w);
/* Row LOCAL (the rank's own numbering: its warp is LOCAL / SP_WARP)
 * reads at its place J the x value at OFFSET of OWNER's rows. */
void sp_warps_add(struct sp_warps *w, int64_t local, int64_t j, uint32_t owner, int64_t offset);
/* The rank's requests; W starts over for the next rank. */
int64_t sp_warps_take(struct sp_warps *w);
void sp_warps_clear(struct sp_warps *w);

struct sp_matrix; /* an assembled matrix (gsl_spmatrix inside) */

/* Reads a Matrix Market file (coordinate, real/integer/pattern, general or
 * symmetric). NULL and *ERR "PATH:LINE: expected ..., got ..." on bad
 * input (*ERR newly allocated, g_free). Pattern entries read as 1; a
 * symmetric file must store only its lower triangle (row >= column), each
 * off-diagonal entry standing for itself and its mirror; duplicates are
 * summed; explicit zeros stay structural non-zeros. Free with
 * sp_matrix_free. */
struct sp_matrix *sp_matrix_read(const char *path, char **err);
/* The standard Poisson matrix of the 2*DIM+1-point stencil on N^DIM points
 * (DIM 1, 2 or 3), rows in lexicographic order (x fastest): diagonal
 * 2*DIM, -1 for each neighbour inside the grid (Dirichlet boundary). NULL
 * for a DIM outside 1..3, N < 1, or more than 2^31 - 1 rows or non-zeros
 * (GSL's int indices). */
struct sp_matrix *sp_matrix_poisson(int dim, int64_t n);
void sp_matrix_free(struct sp_matrix *m);
/* M's storage: a GSL CSR matrix (a->p row pointers, a->i columns, a->data
 * values), still owned by M; a caller may scale or read it in place. */
gsl_spmatrix *sp_matrix_csr(struct sp_matrix *m);
int64_t sp_matrix_rows(const struct sp_matrix *m);
int64_t sp_matrix_cols(const struct sp_matrix *m);
int64_t sp_matrix_nnz(const struct sp_matrix *m);
/* Entry (I, J), 0-based; 0 where none is stored. */
double sp_matrix_get(const struct sp_matrix *m, int64_t i, int64_t j);

/* Splits M's rows over RANKS ranks (>= 1): SP_BLOCKS gives contiguous
 * blocks of equal rows (the first rows % ranks one longer); SP_GRAPH uses
 * the graph partitioner when built with TRIGSIM_HAVE_METIS (METIS on the
 * pattern of A + A^T: recursive bisection up to 8 ranks, k-way beyond;
 * fixed seed, so reproducible), else NULL and *ERR. Each rank's recv from
 * peer p counts the distinct columns of its rows that p owns. NULL and
 * *ERR (g_free) also for a non-square M or RANKS 0.
 * Free with sp_part_free. */
struct sp_part *sp_partition(const struct sp_matrix *m, uint32_t ranks, enum sp_partitioner how,
                             char **err);
/* A synthetic banded SPD-like matrix known only by ROWS and NNZ_PER_ROW
 * (>= 1): row i has its non-zeros in the columns nearest i; split in
 * contiguous blocks; each rank's halo is computed without storing the
 * matrix (for Table 1's matrices of up to 330 M non-zeros).
 * Row i's non-zeros are the columns [i - h, i + h] within [0, ROWS), with
 * h = sp_banded_halfwidth(NNZ_PER_ROW): interior rows have 2h + 1, the
 * odd count nearest NNZ_PER_ROW, the first and last h rows fewer; the
 * part's nnz is the band's exact count, not ROWS * NNZ_PER_ROW. O(ranks)
 * time. NULL for ROWS < 1, RANKS 0 or NNZ_PER_ROW < 1. */
struct sp_part *sp_partition_banded(int64_t rows, double nnz_per_row, uint32_t ranks);
/* round((NNZ_PER_ROW - 1) / 2), halves away from zero (79.45 -> 39, so 79
 * per interior row; 2 -> 1, so 3); -1 for NNZ_PER_ROW < 1. */
int64_t sp_banded_halfwidth(double nnz_per_row);
/* Contiguous blocks of ROWS rows over RANKS ranks (as SP_BLOCKS), with
 * every rank's nnz 0 and no recv yet: for a generator that fills them by
 * streaming its rows (workloads/inputs/matgen.h). Free with sp_part_free. */
struct sp_part *sp_part_new_blocks(int64_t rows, uint32_t ranks);
/* A square N x N matrix assembled row by row: ROW(CTX, i, cols, vals)
 * writes row i's non-zeros (columns ascending, distinct, at most MAX_LEN)
 * and returns how many. NULL when N or the total exceeds GSL's int
 * indices (2^31 - 1). Free with sp_matrix_free. */
struct sp_matrix *sp_matrix_from_rows(int64_t n, int64_t max_len,
                                      int64_t (*row)(void *ctx, int64_t i, int64_t *cols,
                                                     double *vals),
                                      void *ctx);
/* The rank that holds ROW (0 <= ROW < P->rows) in any partition. */
uint32_t sp_part_owner(const struct sp_part *p, int64_t row);
void sp_part_free(struct sp_part *p);

/* Runs unpreconditioned CG on M x = b (b = all ones, x0 = 0) in double
 * precision until ||r|| / ||b|| <= TOL or MAX_ITERS; returns the
 * iterations taken (MAX_ITERS when it did not converge; 0 when TOL >= 1,
 * as r0 = b; -1 for a non-square M). The residual is the recurrence's
 * r = r - alpha A p (gsl_spblas_dgemv, gsl_blas vector operations). */
int64_t sp_cg_iterations(const struct sp_matrix *m, double tol, int64_t max_iters);

#endif
