/* Sparse matrices for the cg workload (CPU-free ICS23 Sec. 3.4, Table 1):
 * where a matrix comes from (a Matrix Market file, a generated 1D/2D/3D
 * Poisson matrix, or a synthetic banded matrix described only by its rows
 * and non-zeros per row), how its rows are split over ranks (contiguous
 * blocks, or a graph partitioner when one was built in), and what each
 * rank then needs: its rows and non-zeros, and the vector entries it must
 * fetch from each other rank for an SpMV (its halo). Storage and reading
 * go through GSL's gsl_spmatrix. */
#ifndef WL_SPARSE_H
#define WL_SPARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Entries rank `peer` owns that this rank reads in an SpMV. */
struct sp_halo {
  uint32_t peer;
  int64_t elems;
};

struct sp_rank {
  int64_t row0, rows;      /* its rows (contiguous blocks: [row0, row0 + rows)) */
  int64_t nnz;             /* non-zeros in its rows */
  struct sp_halo *recv;    /* peers it reads from, ascending peer order */
  size_t n_recv;
};

struct sp_part {
  uint32_t n_ranks;
  int64_t rows, nnz;       /* of the whole matrix */
  struct sp_rank *ranks;
};

enum sp_partitioner { SP_BLOCKS, SP_GRAPH };

struct sp_matrix; /* an assembled matrix (gsl_spmatrix inside) */

/* Reads a Matrix Market file (coordinate, real/integer/pattern, general or
 * symmetric). NULL and *ERR "PATH:LINE: expected ..., got ..." on bad
 * input. Free with sp_matrix_free. */
struct sp_matrix *sp_matrix_read(const char *path, char **err);
/* The standard Poisson matrix of the 2*DIM+1-point stencil on N^DIM points
 * (DIM 1, 2 or 3), rows in lexicographic order. */
struct sp_matrix *sp_matrix_poisson(int dim, int64_t n);
void sp_matrix_free(struct sp_matrix *m);
int64_t sp_matrix_rows(const struct sp_matrix *m);
int64_t sp_matrix_nnz(const struct sp_matrix *m);

/* Splits M's rows over RANKS ranks (>= 1): SP_BLOCKS gives contiguous
 * blocks of equal rows (the first rows % ranks one longer); SP_GRAPH uses
 * the graph partitioner (false and *ERR when none was built in).
 * Free with sp_part_free. */
struct sp_part *sp_partition(const struct sp_matrix *m, uint32_t ranks, enum sp_partitioner how,
                             char **err);
/* A synthetic banded SPD-like matrix known only by ROWS and NNZ_PER_ROW
 * (>= 1): row i has its non-zeros in the columns nearest i; split in
 * contiguous blocks; each rank's halo is computed without storing the
 * matrix (for Table 1's matrices of up to 330 M non-zeros). */
struct sp_part *sp_partition_banded(int64_t rows, double nnz_per_row, uint32_t ranks);
void sp_part_free(struct sp_part *p);

/* Runs unpreconditioned CG on M x = b (b = all ones, x0 = 0) in double
 * precision until ||r|| / ||b|| <= TOL or MAX_ITERS; returns the
 * iterations taken (MAX_ITERS when it did not converge). */
int64_t sp_cg_iterations(const struct sp_matrix *m, double tol, int64_t max_iters);

#endif
