/* Tests for workloads/inputs/sparse.c: Matrix Market reading (symmetric, general
 * with duplicates, pattern, each class of error with its message), Poisson
 * matrices, block and graph partitions with halos derived by hand and
 * checked against a brute-force count, the analytical banded partition by
 * hand and against the same band stored explicitly, and CG iteration
 * counts derived by hand. */
#include "sparse.h"
#include "testutil.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static struct sp_matrix *read_data(const char *name) {
  char *path = tu_data(name);
  char *err = NULL;
  struct sp_matrix *m = sp_matrix_read(path, &err);
  if (!m) fprintf(stderr, "\n  %s\n", err);
  CU_ASSERT_PTR_NOT_NULL(m);
  CU_ASSERT_PTR_NULL(err);
  g_free(err);
  g_free(path);
  return m;
}

/* Rank R's recv from PEER (0 when it reads nothing from PEER). */
static int64_t recv_from(const struct sp_part *p, uint32_t r, uint32_t peer) {
  const struct sp_rank *rk = &p->ranks[r];
  for (size_t k = 0; k < rk->n_recv; k++)
    if (rk->recv[k].peer == peer) return rk->recv[k].elems;
  return 0;
}

/* Checks rank R: its rows, nnz, and recv equal to WANT (N pairs). */
static void expect_rank(const struct sp_part *p, uint32_t r, int64_t row0, int64_t rows, int64_t nnz,
                        size_t n, const int64_t (*want)[2]) {
  const struct sp_rank *rk = &p->ranks[r];
  CU_ASSERT_EQUAL(rk->row0, row0);
  CU_ASSERT_EQUAL(rk->rows, rows);
  CU_ASSERT_EQUAL(rk->nnz, nnz);
  CU_ASSERT_EQUAL(rk->n_recv, n);
  if (rk->n_recv != n) {
    fprintf(stderr, "\n  rank %u: %zu peers, want %zu:", r, rk->n_recv, n);
    for (size_t k = 0; k < rk->n_recv; k++)
      fprintf(stderr, " %u:%" PRId64, rk->recv[k].peer, rk->recv[k].elems);
    return;
  }
  for (size_t k = 0; k < n; k++) {
    CU_ASSERT_EQUAL(rk->recv[k].peer, (uint32_t)want[k][0]);
    CU_ASSERT_EQUAL(rk->recv[k].elems, want[k][1]);
    if (rk->recv[k].peer != (uint32_t)want[k][0] || rk->recv[k].elems != want[k][1])
      fprintf(stderr, "\n  rank %u recv[%zu] = %u:%" PRId64 ", want %" PRId64 ":%" PRId64, r, k,
              rk->recv[k].peer, rk->recv[k].elems, want[k][0], want[k][1]);
  }
}

/* Recomputes every rank's rows, nnz and recv by brute force from the
 * stored entries (O(rows^2): small matrices only) and the part's owners. */
static void check_brute(const struct sp_matrix *m, const struct sp_part *p) {
  int64_t n = sp_matrix_rows(m);
  uint32_t R = p->n_ranks;
  CU_ASSERT_EQUAL(p->rows, n);
  CU_ASSERT_EQUAL(p->nnz, sp_matrix_nnz(m));
  int64_t *rows = g_new0(int64_t, R), *nnz = g_new0(int64_t, R);
  int64_t *need = g_new0(int64_t, (size_t)R * R);
  for (uint32_t r = 0; r < R; r++) {
    for (int64_t c = 0; c < n; c++) {
      bool used = false;
      for (int64_t i = 0; i < n && !used; i++)
        used = sp_part_owner(p, i) == r && sp_matrix_get(m, i, c) != 0.0;
      uint32_t o = sp_part_owner(p, c);
      if (used && o != r) need[(size_t)r * R + o]++;
    }
  }
  for (int64_t i = 0; i < n; i++) {
    uint32_t o = sp_part_owner(p, i);
    CU_ASSERT_FATAL(o < R);
    rows[o]++;
    for (int64_t c = 0; c < n; c++) nnz[o] += sp_matrix_get(m, i, c) != 0.0;
  }
  int64_t total = 0;
  for (uint32_t r = 0; r < R; r++) {
    CU_ASSERT_EQUAL(p->ranks[r].rows, rows[r]);
    CU_ASSERT_EQUAL(p->ranks[r].nnz, nnz[r]);
    total += p->ranks[r].nnz;
    size_t peers = 0;
    for (uint32_t q = 0; q < R; q++) {
      CU_ASSERT_EQUAL(recv_from(p, r, q), need[(size_t)r * R + q]);
      peers += need[(size_t)r * R + q] > 0;
    }
    CU_ASSERT_EQUAL(p->ranks[r].n_recv, peers);
    for (size_t k = 1; k < p->ranks[r].n_recv; k++)
      CU_ASSERT(p->ranks[r].recv[k - 1].peer < p->ranks[r].recv[k].peer);
  }
  CU_ASSERT_EQUAL(total, p->nnz);
  g_free(rows);
  g_free(nnz);
  g_free(need);
}

/* ------------------------------------------------------------ reading */

static void test_read_symmetric(void) {
  /* 6 stored entries, 2 of them off the diagonal and mirrored: 8. */
  struct sp_matrix *m = read_data("sparse/sym4.mtx");
  if (!m) return;
  CU_ASSERT_EQUAL(sp_matrix_rows(m), 4);
  CU_ASSERT_EQUAL(sp_matrix_cols(m), 4);
  CU_ASSERT_EQUAL(sp_matrix_nnz(m), 8);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 0, 0), 4.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 1, 0), -1.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 0, 1), -1.0); /* mirror */
  CU_ASSERT_EQUAL(sp_matrix_get(m, 3, 1), -1.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 1, 3), -1.0); /* mirror */
  CU_ASSERT_EQUAL(sp_matrix_get(m, 3, 3), 4.0);  /* "4e0" */
  CU_ASSERT_EQUAL(sp_matrix_get(m, 2, 0), 0.0);
  /* Two blocks: rank 0 rows {0, 1} reads columns {0, 1} and {0, 1, 3}:
   * column 3 from rank 1; 2 + 3 = 5 non-zeros. Rank 1 rows {2, 3} reads
   * {2} and {1, 3}: column 1 from rank 0; 1 + 2 = 3 non-zeros. */
  struct sp_part *p = sp_partition(m, 2, SP_BLOCKS, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  expect_rank(p, 0, 0, 2, 5, 1, (const int64_t[][2]){{1, 1}});
  expect_rank(p, 1, 2, 2, 3, 1, (const int64_t[][2]){{0, 1}});
  check_brute(m, p);
  sp_part_free(p);
  sp_matrix_free(m);
}

static void test_read_general(void) {
  /* 5 entries, (3,1) twice: 4 stored, (3,1) = 1 + 4. */
  struct sp_matrix *m = read_data("sparse/general3.mtx");
  if (!m) return;
  CU_ASSERT_EQUAL(sp_matrix_rows(m), 3);
  CU_ASSERT_EQUAL(sp_matrix_nnz(m), 4);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 0, 0), 2.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 0, 2), 7.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 2, 0), 5.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 1, 1), -3.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 2, 2), 0.0);
  /* Three ranks of one row each: rank 0 reads columns 0 and 2 (rank 2:
   * 1); rank 1 only its own; rank 2 reads column 0 (rank 0: 1). */
  struct sp_part *p = sp_partition(m, 3, SP_BLOCKS, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  expect_rank(p, 0, 0, 1, 2, 1, (const int64_t[][2]){{2, 1}});
  expect_rank(p, 1, 1, 1, 1, 0, NULL);
  expect_rank(p, 2, 2, 1, 1, 1, (const int64_t[][2]){{0, 1}});
  check_brute(m, p);
  sp_part_free(p);
  sp_matrix_free(m);
  /* Entries out of order and (2,3) three times: 1 + 2 + 4 = 7; the row
   * [. 9 7] holds 2 non-zeros. */
  const char *text = "%%MatrixMarket matrix coordinate real general\n2 3 5\n"
                     "2 3 1\n2 2 9\n1 1 5\n2 3 2\n2 3 4\n";
  char *path = tu_temp_file(".mtx", text, strlen(text));
  m = sp_matrix_read(path, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(sp_matrix_cols(m), 3);
  CU_ASSERT_EQUAL(sp_matrix_nnz(m), 3);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 1, 2), 7.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 1, 1), 9.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 0, 0), 5.0);
  sp_matrix_free(m);
  g_free(path);
}

static void test_read_pattern(void) {
  struct sp_matrix *m = read_data("sparse/pattern3.mtx");
  if (!m) return;
  CU_ASSERT_EQUAL(sp_matrix_nnz(m), 4); /* (1,1), (2,1), (1,2), (3,3) */
  CU_ASSERT_EQUAL(sp_matrix_get(m, 0, 0), 1.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 1, 0), 1.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 0, 1), 1.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 1, 1), 0.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 2, 2), 1.0);
  sp_matrix_free(m);
}

/* Reads PATH, expects failure with exactly "PATH" WANT. */
static void expect_read_error(const char *path, const char *want) {
  char *err = NULL;
  struct sp_matrix *m = sp_matrix_read(path, &err);
  CU_ASSERT_PTR_NULL(m);
  sp_matrix_free(m);
  char *full = g_strconcat(path, want, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(err);
  if (strcmp(err, full)) fprintf(stderr, "\n  got  '%s'\n  want '%s'\n", err, full);
  CU_ASSERT_STRING_EQUAL(err, full);
  g_free(full);
  g_free(err);
}

static void expect_text_error(const char *text, const char *want) {
  char *path = tu_temp_file(".mtx", text, strlen(text));
  expect_read_error(path, want);
  g_free(path);
}

static void test_read_errors(void) {
  char *path = tu_data("sparse/bad_column.mtx");
  expect_read_error(path, ":5: expected a column index in 1..2, got '3'");
  g_free(path);
  expect_read_error("/nonexistent/x.mtx", ": No such file or directory");
  expect_text_error("", ":1: expected '%%MatrixMarket matrix coordinate ...', got end of file");
  expect_text_error("%%MatrixMarket matrix array real general\n2 2\n",
                    ":1: expected coordinate in the banner, got 'array'");
  expect_text_error("%%MatrixMarket matrix coordinate complex general\n",
                    ":1: expected real, integer or pattern in the banner, got 'complex'");
  expect_text_error("%%MatrixMarket matrix coordinate real hermitian\n",
                    ":1: expected general or symmetric in the banner, got 'hermitian'");
  expect_text_error("%%MatrixMarket matrix coordinate real\n",
                    ":1: expected general or symmetric in the banner, got "
                    "'%%MatrixMarket matrix coordinate real'");
  expect_text_error("% a plain comment\n",
                    ":1: expected %%MatrixMarket in the banner, got '%'");
  expect_text_error("%%MatrixMarket matrix coordinate real general\n% c\n2 x 1\n",
                    ":3: expected a size line 'ROWS COLUMNS ENTRIES' (ROWS, COLUMNS >= 1), got '2 x 1'");
  expect_text_error("%%MatrixMarket matrix coordinate real general\n",
                    ":1: expected a size line 'ROWS COLUMNS ENTRIES', got end of file");
  expect_text_error("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n",
                    ":2: expected a square size for a symmetric matrix, got '2 3 1'");
  /* 3 rows + 3 non-zeros = 6 columns at most: the fuzzer's size line
   * declared 355555555 and sized GSL's workspace to 2.8 GB. */
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 7 3\n1 1 1\n2 2 1\n3 7 1\n",
                    ":2: expected at most rows + non-zeros columns, got '7 columns for 3 rows and 3 "
                    "non-zeros'");
  expect_text_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1.0\n",
                    ":3: expected a row index in 1..2, got '0'");
  expect_text_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n",
                    ":3: expected a real value, got 'abc'");
  expect_text_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n",
                    ":3: expected a real value, got '1 1'");
  expect_text_error("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n",
                    ":3: expected an integer value, got '1.5'");
  expect_text_error("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 1.0\n",
                    ":3: expected end of line after the entry, got '1.0'");
  expect_text_error("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1.0\n",
                    ":3: expected an entry on or below the diagonal of a symmetric matrix, got "
                    "'row 1, column 2'");
  expect_text_error("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n2 2 1\n",
                    ":4: expected 3 entries (the size line's count), only 2 read, got end of file");
  expect_text_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 1\n",
                    ":4: expected end of file after 1 entries, got '2 2 1'");
  /* The size line is not trusted: a 67-byte file declaring 10^9 entries
   * fails where its entries end (it used to abort in GSL's allocator),
   * and 2 * 10^9 rows over one entry are refused before any row array. */
  expect_text_error("%%MatrixMarket matrix coordinate real general\n3 3 1000000000\n1 1 1\n",
                    ":3: expected 1000000000 entries (the size line's count), only 1 read, got "
                    "end of file");
  expect_text_error("%%MatrixMarket matrix coordinate real general\n2000000000 3 1\n1 1 1\n",
                    ":2: expected at most as many rows as non-zeros (an empty row makes the "
                    "matrix singular), got '2000000000 rows for 1'");
  /* Only regular files: a device would be read forever. */
  expect_read_error("/dev/zero", ": not a regular file (a character device)");
}

/* ------------------------------------------------------------ Poisson */

static void test_poisson_1d(void) {
  /* tridiag(-1, 2, -1), n = 8: 8 + 2 * 7 = 22 non-zeros. Two blocks of 4:
   * rank 0 rows 0..3 read column 4 (rank 1), rank 1 rows 4..7 read column
   * 3 (rank 0): halo 1 each way; 11 non-zeros each (3 * 4 - 1). */
  struct sp_matrix *m = sp_matrix_poisson(1, 8);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(sp_matrix_rows(m), 8);
  CU_ASSERT_EQUAL(sp_matrix_nnz(m), 22);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 0, 0), 2.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 3, 4), -1.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 4, 3), -1.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 0, 2), 0.0);
  struct sp_part *p = sp_partition(m, 2, SP_BLOCKS, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->n_ranks, 2);
  CU_ASSERT_EQUAL(p->rows, 8);
  CU_ASSERT_EQUAL(p->nnz, 22);
  expect_rank(p, 0, 0, 4, 11, 1, (const int64_t[][2]){{1, 1}});
  expect_rank(p, 1, 4, 4, 11, 1, (const int64_t[][2]){{0, 1}});
  check_brute(m, p);
  sp_part_free(p);
  /* Three blocks 3, 3, 2 (8 % 3 = 2 longer): rows 0..2, 3..5, 6..7; rank 1
   * reads 2 and 6: one from each side. nnz 3*3 - 1 = 8, 9, 2*3 - 1 = 5. */
  p = sp_partition(m, 3, SP_BLOCKS, NULL);
  expect_rank(p, 0, 0, 3, 8, 1, (const int64_t[][2]){{1, 1}});
  expect_rank(p, 1, 3, 3, 9, 2, (const int64_t[][2]){{0, 1}, {2, 1}});
  expect_rank(p, 2, 6, 2, 5, 1, (const int64_t[][2]){{1, 1}});
  check_brute(m, p);
  sp_part_free(p);
  /* More ranks than rows: 8 ranks of one row, 2 empty. */
  p = sp_partition(m, 10, SP_BLOCKS, NULL);
  expect_rank(p, 0, 0, 1, 2, 1, (const int64_t[][2]){{1, 1}});
  expect_rank(p, 7, 7, 1, 2, 1, (const int64_t[][2]){{6, 1}});
  expect_rank(p, 8, 8, 0, 0, 0, NULL);
  expect_rank(p, 9, 8, 0, 0, 0, NULL);
  check_brute(m, p);
  sp_part_free(p);
  sp_matrix_free(m);
}

static void test_poisson_2d(void) {
  /* 5-point on 4 x 4: 16 * 5 less 4 sides * 4 points missing one
   * neighbour = 64. Two blocks of 8 rows = grid rows y = 0, 1 and 2, 3:
   * each reads the other's 4 points next to the cut; 32 non-zeros each. */
  struct sp_matrix *m = sp_matrix_poisson(2, 4);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(sp_matrix_rows(m), 16);
  CU_ASSERT_EQUAL(sp_matrix_nnz(m), 64);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 5, 5), 4.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 5, 1), -1.0); /* (1,1) - (1,0) */
  CU_ASSERT_EQUAL(sp_matrix_get(m, 5, 9), -1.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 3, 4), 0.0); /* (3,0), (0,1): not neighbours */
  struct sp_part *p = sp_partition(m, 2, SP_BLOCKS, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  expect_rank(p, 0, 0, 8, 32, 1, (const int64_t[][2]){{1, 4}});
  expect_rank(p, 1, 8, 8, 32, 1, (const int64_t[][2]){{0, 4}});
  /* Each of those 4 values is read by the one row across the cut from it:
   * 4 remote non-zeros per rank, 1 a row at most. */
  for (uint32_t r = 0; r < 2; r++) {
    CU_ASSERT_EQUAL(p->ranks[r].remote_nnz, 4);
    CU_ASSERT_EQUAL(p->ranks[r].max_remote_row, 1);
  }
  /* Their link requests (sparse.h: a warp of 32 rows, 32-B sectors): the
   * 4 values a rank reads are one sector of the other's. Rank 1's rows 8-11
   * read them at place 0 (their smallest column): one request. Rank 0's
   * rows 4-7 read theirs last: at place 3 (x = 0, 3: 4 non-zeros) and 4
   * (x = 1, 2): two requests. */
  CU_ASSERT_EQUAL(p->ranks[0].remote_sectors, 2);
  CU_ASSERT_EQUAL(p->ranks[1].remote_sectors, 1);
  check_brute(m, p);
  sp_part_free(p);
  sp_matrix_free(m);
  /* 64 x 64 over 2 ranks: each reads the other's 64 values next to the
   * cut, two warps' worth of rows. Rank 1's first line reads them at
   * place 0, each warp 32 values in a row, 8 sectors: 16 requests for 64
   * loads. Rank 0's last line reads them last: the edge points (x = 0,
   * 63) at place 3, the others at 4; its first warp (x = 0-31): x = 0's
   * sector at 3, and x = 1-31's sectors 0-7 at 4: 9; its second (x =
   * 32-63): sectors 8-15 at 4, and x = 63's at 3: 9. So 18. */
  m = sp_matrix_poisson(2, 64);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  p = sp_partition(m, 2, SP_BLOCKS, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->ranks[0].remote_nnz, 64);
  CU_ASSERT_EQUAL(p->ranks[0].remote_sectors, 18);
  CU_ASSERT_EQUAL(p->ranks[1].remote_sectors, 16);
  sp_part_free(p);
  sp_matrix_free(m);
}

static void test_poisson_3d(void) {
  /* 7-point on 3^3: 27 * 7 less 6 faces * 9 = 135. Three blocks of 9 =
   * the z planes. Plane z = 0 misses its 9 down-links and, as a 3 x 3
   * plane, 4 * 3 = 12 in-plane links: 63 - 21 = 42; z = 1: 63 - 12 = 51.
   * Each plane reads the whole 9-point plane next to it. */
  struct sp_matrix *m = sp_matrix_poisson(3, 3);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(sp_matrix_rows(m), 27);
  CU_ASSERT_EQUAL(sp_matrix_nnz(m), 135);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 13, 13), 6.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 13, 4), -1.0);
  CU_ASSERT_EQUAL(sp_matrix_get(m, 13, 22), -1.0);
  struct sp_part *p = sp_partition(m, 3, SP_BLOCKS, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  expect_rank(p, 0, 0, 9, 42, 1, (const int64_t[][2]){{1, 9}});
  expect_rank(p, 1, 9, 9, 51, 2, (const int64_t[][2]){{0, 9}, {2, 9}});
  expect_rank(p, 2, 18, 9, 42, 1, (const int64_t[][2]){{1, 9}});
  check_brute(m, p);
  sp_part_free(p);
  sp_matrix_free(m);
  /* 4^3 over 3 ranks: blocks 22, 21, 21. Rank 0 (rows 0..21) reads, beyond
   * 21: row + 16 for all its rows (22..37), row + 4 for rows 16..21
   * (20..25) and row + 1 for row 21 (22): 22..37 distinct = 16, all rank
   * 1's (22..42); nothing from rank 2 (43..63). */
  m = sp_matrix_poisson(3, 4);
  CU_ASSERT_EQUAL(sp_matrix_nnz(m), 64 * 7 - 6 * 16);
  p = sp_partition(m, 3, SP_BLOCKS, NULL);
  CU_ASSERT_EQUAL(recv_from(p, 0, 1), 16);
  CU_ASSERT_EQUAL(recv_from(p, 0, 2), 0);
  check_brute(m, p);
  sp_part_free(p);
  sp_matrix_free(m);
  CU_ASSERT_PTR_NULL(sp_matrix_poisson(4, 3));
  CU_ASSERT_PTR_NULL(sp_matrix_poisson(2, 0));
}

static void test_partition_errors(void) {
  struct sp_matrix *m = sp_matrix_poisson(1, 4);
  char *err = NULL;
  CU_ASSERT_PTR_NULL(sp_partition(m, 0, SP_BLOCKS, &err));
  CU_ASSERT_STRING_EQUAL(err, "sp_partition: ranks must be >= 1");
  g_free(err);
  sp_matrix_free(m);
  /* Two entries: the reader wants a non-zero per row at least. */
  const char *rect = "%%MatrixMarket matrix coordinate real general\n2 3 2\n1 3 1\n2 1 1\n";
  char *path = tu_temp_file(".mtx", rect, strlen(rect));
  m = sp_matrix_read(path, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  err = NULL;
  CU_ASSERT_PTR_NULL(sp_partition(m, 2, SP_BLOCKS, &err));
  CU_ASSERT_STRING_EQUAL(err, "sp_partition: expected a square matrix, got 2 x 3");
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 1e-6, 10), -1);
  g_free(err);
  g_free(path);
  sp_matrix_free(m);
}

static void test_graph(void) {
  struct sp_matrix *m = sp_matrix_poisson(2, 8);
  char *err = NULL;
  struct sp_part *p = sp_partition(m, 4, SP_GRAPH, &err);
#ifdef TRIGSIM_HAVE_METIS
  if (!p) fprintf(stderr, "\n  %s\n", err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_PTR_NULL(err);
  /* Rows are scattered: row0 -1, rows a count; 64 rows in 4 parts of 16
   * (METIS's default 3% imbalance allows none at 16). Halos as counted by
   * brute force from the owners; every rank reads something. */
  int64_t rows = 0;
  for (uint32_t r = 0; r < 4; r++) {
    CU_ASSERT_EQUAL(p->ranks[r].row0, -1);
    CU_ASSERT(p->ranks[r].rows >= 15 && p->ranks[r].rows <= 17);
    CU_ASSERT(p->ranks[r].n_recv >= 1);
    rows += p->ranks[r].rows;
  }
  CU_ASSERT_EQUAL(rows, 64);
  check_brute(m, p);
  /* 4 quadrants would each read 8 points; METIS should do about as well
   * as strips (4 ranks x 2 neighbours x 8 = 64 in all). */
  int64_t halo = 0;
  for (uint32_t r = 0; r < 4; r++)
    for (size_t k = 0; k < p->ranks[r].n_recv; k++) halo += p->ranks[r].recv[k].elems;
  CU_ASSERT(halo <= 64);
  sp_part_free(p);
  /* 1D n = 4 over 4 (recursive bisection up to 8 parts): one row each,
   * the end rows read 1, the inner ones 2: 6 in all. */
  struct sp_matrix *line = sp_matrix_poisson(1, 4);
  p = sp_partition(line, 4, SP_GRAPH, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  halo = 0;
  for (uint32_t r = 0; r < 4; r++) {
    CU_ASSERT_EQUAL(p->ranks[r].rows, 1);
    for (size_t k = 0; k < p->ranks[r].n_recv; k++) halo += p->ranks[r].recv[k].elems;
  }
  CU_ASSERT_EQUAL(halo, 6);
  check_brute(line, p);
  sp_part_free(p);
  sp_matrix_free(line);
  /* 16 ranks (k-way) on 2D 16 x 16: every row placed, halos consistent. */
  struct sp_matrix *sq = sp_matrix_poisson(2, 16);
  p = sp_partition(sq, 16, SP_GRAPH, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  rows = 0;
  for (uint32_t r = 0; r < 16; r++) rows += p->ranks[r].rows;
  CU_ASSERT_EQUAL(rows, 256);
  check_brute(sq, p);
  sp_part_free(p);
  sp_matrix_free(sq);
  /* One rank: everything local. */
  p = sp_partition(m, 1, SP_GRAPH, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->ranks[0].rows, 64);
  CU_ASSERT_EQUAL(p->ranks[0].n_recv, 0);
  CU_ASSERT_EQUAL(p->ranks[0].nnz, sp_matrix_nnz(m));
  sp_part_free(p);
  /* A non-symmetric pattern: METIS sees A + A^T, halos come from A. */
  struct sp_matrix *g = read_data("sparse/general3.mtx");
  p = sp_partition(g, 2, SP_GRAPH, &err);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  check_brute(g, p);
  sp_part_free(p);
  sp_matrix_free(g);
#else
  CU_ASSERT_PTR_NULL(p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(err);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, "without a graph partitioner"));
  g_free(err);
#endif
  sp_matrix_free(m);
}

/* ------------------------------------------------------------- banded */

static void test_banded_halfwidth(void) {
  CU_ASSERT_EQUAL(sp_banded_halfwidth(1.0), 0);
  CU_ASSERT_EQUAL(sp_banded_halfwidth(2.0), 1);  /* 0.5 rounds away: 3 per row */
  CU_ASSERT_EQUAL(sp_banded_halfwidth(1.9), 0);  /* 0.45 */
  CU_ASSERT_EQUAL(sp_banded_halfwidth(5.0), 2);
  CU_ASSERT_EQUAL(sp_banded_halfwidth(79.45), 39); /* 39.225: 79 per row */
  CU_ASSERT_EQUAL(sp_banded_halfwidth(0.5), -1);
  CU_ASSERT_EQUAL(sp_banded_halfwidth(NAN), -1);
  CU_ASSERT(sp_banded_halfwidth(1e300) > 0);
  /* A band wider than anything: dense, 3 x 3 = 9. */
  struct sp_part *p = sp_partition_banded(3, 1e300, 1);
  CU_ASSERT_EQUAL(p->nnz, 9);
  sp_part_free(p);
  /* 4 rows, 5 per row (h = 2), 2 ranks: rows 0-1 and 2-3; the edges cut
   * rows 1 and 2 to columns 0-3: 4 each, the longest in both ranks. */
  p = sp_partition_banded(4, 5, 2);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->ranks[0].max_row, 4);
  CU_ASSERT_EQUAL(p->ranks[1].max_row, 4);
  sp_part_free(p);
  CU_ASSERT_PTR_NULL(sp_partition_banded(10, 0.5, 2));
  CU_ASSERT_PTR_NULL(sp_partition_banded(0, 3, 2));
  CU_ASSERT_PTR_NULL(sp_partition_banded(10, 3, 0));
}

static void test_banded_small(void) {
  /* 10 rows, 5 per row: h = 2. Blocks 4, 3, 3: [0,4), [4,7), [7,10).
   * Row nnz 3 4 5 5 | 5 5 5 | 5 4 3: 17, 15, 12 = 44 = 50 - 6.
   * Rank 0 reads 4, 5 (rank 1); rank 1 reads 2, 3 (rank 0) and 7, 8
   * (rank 2); rank 2 reads 5, 6 (rank 1). */
  struct sp_part *p = sp_partition_banded(10, 5, 3);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->rows, 10);
  CU_ASSERT_EQUAL(p->nnz, 44);
  expect_rank(p, 0, 0, 4, 17, 1, (const int64_t[][2]){{1, 2}});
  expect_rank(p, 1, 4, 3, 15, 2, (const int64_t[][2]){{0, 2}, {2, 2}});
  expect_rank(p, 2, 7, 3, 12, 1, (const int64_t[][2]){{1, 2}});
  /* Remote non-zeros: rank 0 rows 2 (col 4) and 3 (4, 5): 3, at most 2;
   * rank 1 rows 4 (2, 3), 5 (3 and 7), 6 (7, 8): 6, at most 2; rank 2
   * rows 7 (5, 6) and 8 (6): 3, at most 2. */
  static const int64_t remote[3] = {3, 6, 3};
  for (uint32_t r = 0; r < 3; r++) {
    CU_ASSERT_EQUAL(p->ranks[r].remote_nnz, remote[r]);
    CU_ASSERT_EQUAL(p->ranks[r].max_remote_row, 2);
  }
  sp_part_free(p);
}

static void test_banded_wide(void) {
  /* h = 3 wider than the blocks of 2: 10 rows, 7 per row, 5 ranks:
   * [0,2) [2,4) [4,6) [6,8) [8,10). Row nnz min(i+3, 9) - max(i-3, 0) + 1:
   * 4 5 | 6 7 | 7 7 | 7 6 | 5 4: 9, 13, 14, 13, 9 = 58 = 70 - 12.
   * Rank 2 (rows 4, 5) reads [1, 4): 1 from rank 0, 2 from rank 1, and
   * [6, 9): 2 from rank 3, 1 from rank 4. Rank 0 (rows 0, 1) reads [2, 5):
   * 2 from rank 1, 1 from rank 2. Rank 4 reads [5, 8): rank 2 1, rank 3 2.
   * Rank 1 (rows 2, 3) reads [0, 2) (rank 0: 2) and [4, 7): rank 2 2,
   * rank 3 1. */
  struct sp_part *p = sp_partition_banded(10, 7, 5);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(p->nnz, 58);
  expect_rank(p, 0, 0, 2, 9, 2, (const int64_t[][2]){{1, 2}, {2, 1}});
  expect_rank(p, 1, 2, 2, 13, 3, (const int64_t[][2]){{0, 2}, {2, 2}, {3, 1}});
  expect_rank(p, 2, 4, 2, 14, 4, (const int64_t[][2]){{0, 1}, {1, 2}, {3, 2}, {4, 1}});
  expect_rank(p, 3, 6, 2, 13, 3, (const int64_t[][2]){{1, 1}, {2, 2}, {4, 2}});
  expect_rank(p, 4, 8, 2, 9, 2, (const int64_t[][2]){{2, 1}, {3, 2}});
  sp_part_free(p);
  /* Band wider than the matrix: 4 rows, 9 per row (h = 4 > 3): full. */
  p = sp_partition_banded(4, 9, 2);
  CU_ASSERT_EQUAL(p->nnz, 16);
  expect_rank(p, 0, 0, 2, 8, 1, (const int64_t[][2]){{1, 2}});
  expect_rank(p, 1, 2, 2, 8, 1, (const int64_t[][2]){{0, 2}});
  sp_part_free(p);
  /* More ranks than rows: empty ranks hold and read nothing. */
  p = sp_partition_banded(3, 3, 5);
  CU_ASSERT_EQUAL(p->nnz, 7);
  expect_rank(p, 0, 0, 1, 2, 1, (const int64_t[][2]){{1, 1}});
  expect_rank(p, 1, 1, 1, 3, 2, (const int64_t[][2]){{0, 1}, {2, 1}});
  expect_rank(p, 3, 3, 0, 0, 0, NULL);
  sp_part_free(p);
}

/* The band stored explicitly as a Matrix Market file partitions exactly
 * as the analytical one. */
static void test_banded_vs_stored(void) {
  const struct {
    int64_t rows;
    double nnz;
    uint32_t ranks;
  } cases[] = {{10, 5, 3}, {10, 7, 5}, {37, 9.4, 6}, {50, 13, 7}, {20, 39, 3}, {16, 1, 4}, {33, 6, 33}};
  for (size_t c = 0; c < G_N_ELEMENTS(cases); c++) {
    int64_t n = cases[c].rows, h = sp_banded_halfwidth(cases[c].nnz);
    GString *s = g_string_new("%%MatrixMarket matrix coordinate pattern general\n");
    int64_t count = 0;
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = MAX(0, i - h); j <= MIN(n - 1, i + h); j++) count++;
    g_string_append_printf(s, "%" PRId64 " %" PRId64 " %" PRId64 "\n", n, n, count);
    for (int64_t i = 0; i < n; i++)
      for (int64_t j = MAX(0, i - h); j <= MIN(n - 1, i + h); j++)
        g_string_append_printf(s, "%" PRId64 " %" PRId64 "\n", i + 1, j + 1);
    char *path = tu_temp_file(".mtx", s->str, s->len);
    g_string_free(s, TRUE);
    struct sp_matrix *m = sp_matrix_read(path, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m);
    struct sp_part *a = sp_partition(m, cases[c].ranks, SP_BLOCKS, NULL);
    struct sp_part *b = sp_partition_banded(n, cases[c].nnz, cases[c].ranks);
    CU_ASSERT_EQUAL(a->nnz, b->nnz);
    for (uint32_t r = 0; r < cases[c].ranks; r++) {
      const struct sp_rank *x = &a->ranks[r], *y = &b->ranks[r];
      CU_ASSERT_EQUAL(x->row0, y->row0);
      CU_ASSERT_EQUAL(x->rows, y->rows);
      CU_ASSERT_EQUAL(x->nnz, y->nnz);
      CU_ASSERT_EQUAL(x->remote_nnz, y->remote_nnz);
      CU_ASSERT_EQUAL(x->max_remote_row, y->max_remote_row);
      CU_ASSERT_EQUAL_FATAL(x->n_recv, y->n_recv);
      for (size_t k = 0; k < x->n_recv; k++) {
        CU_ASSERT_EQUAL(x->recv[k].peer, y->recv[k].peer);
        CU_ASSERT_EQUAL(x->recv[k].elems, y->recv[k].elems);
      }
    }
    sp_part_free(a);
    sp_part_free(b);
    sp_matrix_free(m);
    g_free(path);
  }
}

static void test_banded_table1(void) {
  /* Table 1's largest: 4,147,110 rows x 79.45 over 1024 ranks. h = 39:
   * 79 per interior row, 2 * (1 + ... + 39) = 1560 cut at the edges:
   * 4147110 * 79 - 1560 = 327620130. Blocks: 4147110 = 1024 * 4049 + 934,
   * so ranks 0..933 hold 4050 rows, the rest 4049; every inner rank reads
   * 39 entries from each neighbour. */
  double t0 = now_s();
  struct sp_part *p = sp_partition_banded(4147110, 79.45, 1024);
  double dt = now_s() - t0;
  fprintf(stderr, "\n  banded 4147110 x 79.45 over 1024 ranks: %.3f ms\n", dt * 1e3);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT(dt < 1.0);
  CU_ASSERT_EQUAL(p->nnz, INT64_C(327620130));
  expect_rank(p, 0, 0, 4050, 4050 * 79 - 780, 1, (const int64_t[][2]){{1, 39}});
  expect_rank(p, 500, 500 * 4050, 4050, 4050 * 79, 2, (const int64_t[][2]){{499, 39}, {501, 39}});
  expect_rank(p, 934, 934 * 4050, 4049, 4049 * 79, 2, (const int64_t[][2]){{933, 39}, {935, 39}});
  expect_rank(p, 1023, 4147110 - 4049, 4049, 4049 * 79 - 780, 1, (const int64_t[][2]){{1022, 39}});
  int64_t rows = 0, nnz = 0;
  for (uint32_t r = 0; r < 1024; r++) {
    rows += p->ranks[r].rows;
    nnz += p->ranks[r].nnz;
  }
  CU_ASSERT_EQUAL(rows, 4147110);
  CU_ASSERT_EQUAL(nnz, p->nnz);
  sp_part_free(p);
  /* The same rows over 8 GPUs (Table 1's setting) with a band of 1001:
   * h = 500, still one neighbour each way. */
  p = sp_partition_banded(4147110, 1001, 8);
  CU_ASSERT_EQUAL(recv_from(p, 3, 2), 500);
  CU_ASSERT_EQUAL(recv_from(p, 3, 4), 500);
  sp_part_free(p);
}

static void test_poisson_3d_large(void) {
  /* 100^3 = 1,000,000 rows, 7 * 10^6 - 6 * 10^4 = 6,940,000 non-zeros,
   * over 1024 ranks: blocks of 976 or 977 rows (less than a 10^4 plane). */
  double t0 = now_s();
  struct sp_matrix *m = sp_matrix_poisson(3, 100);
  double t1 = now_s();
  struct sp_part *p = sp_partition(m, 1024, SP_BLOCKS, NULL);
  double t2 = now_s();
  fprintf(stderr, "\n  Poisson 3D 100^3: generate %.1f ms, partition over 1024 ranks %.1f ms\n",
          (t1 - t0) * 1e3, (t2 - t1) * 1e3);
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  CU_ASSERT_EQUAL(sp_matrix_nnz(m), 6940000);
  int64_t nnz = 0;
  for (uint32_t r = 0; r < 1024; r++) nnz += p->ranks[r].nnz;
  CU_ASSERT_EQUAL(nnz, 6940000);
  /* Rank 512: 1,000,000 = 1024 * 976 + 576, so ranks 0..575 hold 977
   * rows and rank 512 holds [512 * 977, + 977) = [500224, 501201) (plane
   * z = 50). It reads rows - 10^4 = [490224, 491201) and + 10^4 =
   * [510224, 511201), 977 each, and its 100-off neighbours beyond its
   * edges (the 1-off ones are among them): [500124, 500224), all of rank
   * 511 = [499247, 500224), and [501201, 501301), rank 513's. */
  const struct sp_rank *rk = &p->ranks[512];
  CU_ASSERT_EQUAL(rk->row0, 500224);
  CU_ASSERT_EQUAL(rk->rows, 977);
  int64_t total = 0;
  for (size_t k = 0; k < rk->n_recv; k++) total += rk->recv[k].elems;
  CU_ASSERT_EQUAL(total, 977 + 977 + 100 + 100);
  CU_ASSERT_EQUAL(recv_from(p, 512, 511), 100);
  CU_ASSERT_EQUAL(recv_from(p, 512, 513), 100);
  sp_part_free(p);
  sp_matrix_free(m);
}

/* ----------------------------------------------------------------- CG */

static void test_cg_1d(void) {
  /* 1D Poisson n = 8, b = ones, by hand (||b||^2 = 8):
   *   r0 = 1s; A r0 = e0 + e7, alpha = 8/2 = 4, r1 = (-3,1,1,1,1,1,1,-3),
   *     ||r1||^2 = 24, ratio sqrt(3);
   *   p1 = r1 + 3 p0 = (0,4,4,4,4,4,4,0), A p1 = (-4,4,0,0,0,0,4,-4),
   *     alpha = 24/32, r2 = (0,-2,1,1,1,1,-2,0), ||r2||^2 = 12, ratio sqrt(1.5);
   *   p2 = r2 + p1/2 = (0,0,3,3,3,3,0,0), A p2 = (0,-3,3,0,0,3,-3,0),
   *     alpha = 12/18, r3 = (0,0,-1,1,1,-1,0,0), ratio sqrt(0.5);
   *   p3 = r3 + p2/3 = (0,0,0,2,2,0,0,0), A p3 = (0,0,-2,2,2,-2,0,0),
   *     alpha = 1/2, r4 = 0.
   * Exactly 4 = n/2: b is symmetric under i -> n-1-i, so only the n/2
   * symmetric eigenvectors (odd modes) enter the Krylov space. */
  struct sp_matrix *m = sp_matrix_poisson(1, 8);
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 1e-12, 100), 4);
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 1.0, 100), 0);  /* r0 = b */
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 1.3, 100), 0);  /* r0 already within: 1 <= 1.3 */
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 0.8, 100), 3);  /* sqrt 1.5 > 0.8 >= sqrt 0.5 */
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 0.99, 100), 3); /* 1, sqrt 3, sqrt 1.5 all > 0.99 */
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 0.7, 100), 4);  /* sqrt 0.5 = 0.7071 > 0.7 */
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 1e-12, 2), 2);  /* capped: not converged */
  sp_matrix_free(m);
  /* n = 9: odd modes 1, 3, 5, 7, 9: 5 = ceil(n/2). n = 32: 16. */
  m = sp_matrix_poisson(1, 9);
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 1e-10, 100), 5);
  sp_matrix_free(m);
  m = sp_matrix_poisson(1, 32);
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 1e-8, 100), 16);
  sp_matrix_free(m);
}

static void test_cg_other(void) {
  /* 2D Poisson 4 x 4: eigenvalues l_j + l_k (1D modes j, k); b = ones
   * reaches only odd j and k (1, 3), and swapping x and y merges (1, 3)
   * with (3, 1): 3 distinct eigenvalues, 3 iterations. */
  struct sp_matrix *m = sp_matrix_poisson(2, 4);
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 1e-10, 100), 3);
  sp_matrix_free(m);
  /* sym4: row 3 alone (eigenvalue 4); rows {1, 2, 4} form
   * [[4,-1,0],[-1,4,-1],[0,-1,4]] with eigenvalues 4 - sqrt 2, 4,
   * 4 + sqrt 2, where the 4 mode (1, 0, -1) is orthogonal to b; b meets
   * 4 - sqrt 2, 4 (row 3), 4 + sqrt 2: 3 iterations. */
  m = read_data("sparse/sym4.mtx");
  CU_ASSERT_EQUAL(sp_cg_iterations(m, 1e-10, 100), 3);
  sp_matrix_free(m);
  /* 3D Poisson 20^3 with a tolerance: converges well before the 8000
   * rows, and a tighter tolerance takes more iterations. */
  m = sp_matrix_poisson(3, 20);
  int64_t loose = sp_cg_iterations(m, 1e-3, 10000), tight = sp_cg_iterations(m, 1e-8, 10000);
  fprintf(stderr, "\n  3D Poisson 20^3: %" PRId64 " iterations to 1e-3, %" PRId64 " to 1e-8\n",
          loose, tight);
  CU_ASSERT(loose > 0 && loose < tight && tight < 200);
  sp_matrix_free(m);
}

int main(void) {
  const struct tu_test tests[] = {
      {"read symmetric", test_read_symmetric},
      {"read general, duplicates summed", test_read_general},
      {"read pattern", test_read_pattern},
      {"read errors", test_read_errors},
      {"Poisson 1D", test_poisson_1d},
      {"Poisson 2D", test_poisson_2d},
      {"Poisson 3D", test_poisson_3d},
      {"partition errors", test_partition_errors},
      {"graph partition", test_graph},
      {"banded half-width", test_banded_halfwidth},
      {"banded by hand", test_banded_small},
      {"banded wider than a block", test_banded_wide},
      {"banded against the stored band", test_banded_vs_stored},
      {"banded Table 1 size", test_banded_table1},
      {"Poisson 3D 100^3 over 1024 ranks", test_poisson_3d_large},
      {"CG on 1D Poisson", test_cg_1d},
      {"CG on 2D Poisson, sym4, 3D", test_cg_other},
      {NULL, NULL},
  };
  return tu_run_suite("sparse", tests);
}
