/* Sparse matrices for the cg workload (sparse.h): Matrix Market reading and
 * Poisson generation into GSL's gsl_spmatrix (CSR), row partitions (blocks,
 * or METIS when built in) with each rank's SpMV halo, the analytical banded
 * partition, and a reference unpreconditioned CG.
 *
 * Matrix Market: GSL 2.7's gsl_spmatrix_fscanf skips the banner, so it
 * neither expands `symmetric` files (it keeps only the stored triangle) nor
 * reads `pattern` ones (it wants a value on every line), and it reports bad
 * input through gsl_error without a line number. We therefore parse the
 * file here (banner, size line, entries, each error as PATH:LINE: expected
 * X, got Y) into a triplet (COO) gsl_spmatrix, then gsl_spmatrix_compress
 * to CSR. The triplets go straight into its arrays rather than through
 * gsl_spmatrix_set, whose balanced tree (kept for look-ups) costs about as
 * much as the whole parse; as compress keeps duplicates, each CSR row is
 * then sorted by column and its duplicates summed. Explicit zeros are kept
 * (they are structural non-zeros, part of the SpMV's pattern). */
#include "sparse.h"

#include "input.h"

#include <errno.h>
#include <unistd.h>
#include <inttypes.h>
#include <glib.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_spblas.h>
#include <gsl/gsl_spmatrix.h>
#include <gsl/gsl_vector.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef TRIGSIM_HAVE_METIS
#include <metis.h>
#endif

struct sp_matrix {
  gsl_spmatrix *a; /* CSR: a->p row pointers (size1 + 1), a->i columns */
};

/* An sp_part as handed out: the public part first, then, for partitions
 * whose rows are not contiguous blocks, each row's rank. */
struct sp_part_full {
  struct sp_part pub;
  uint32_t *owner; /* NULL for contiguous blocks */
};

/* ---------------------------------------------------------------- reading */

struct mm_reader {
  const char *path;
  FILE *f;
  char *line;
  size_t cap;
  int64_t lineno;
  char **err;
};

/* Reads the next line into r->line without its newline; false at EOF. */
static bool mm_next(struct mm_reader *r) {
  ssize_t n = getline(&r->line, &r->cap, r->f);
  if (n < 0) return false;
  r->lineno++;
  while (n > 0 && (r->line[n - 1] == '\n' || r->line[n - 1] == '\r')) r->line[--n] = '\0';
  return true;
}

static bool blank(const char *s) {
  for (; *s; s++)
    if (*s != ' ' && *s != '\t') return false;
  return true;
}

/* "PATH:LINE: expected WANT, got 'GOT'" (GOT NULL: "got end of file"). */
static void mm_fail(struct mm_reader *r, const char *want, const char *got) {
  if (!r->err) return;
  g_free(*r->err);
  if (got)
    *r->err = g_strdup_printf("%s:%" PRId64 ": expected %s, got '%s'", r->path, r->lineno, want, got);
  else
    *r->err = g_strdup_printf("%s:%" PRId64 ": expected %s, got end of file", r->path, r->lineno,
                              want);
}

/* The blank-separated token at *S: copies it (cut to TOKLEN - 1) into TOK
 * for messages and returns its start, with *END past it; NULL when the
 * line has no more tokens. */
static char *next_token(char **s, char **end, char *tok, size_t toklen) {
  char *p = *s;
  while (*p == ' ' || *p == '\t') p++;
  char *e = p;
  while (*e && *e != ' ' && *e != '\t') e++;
  size_t len = MIN((size_t)(e - p), toklen - 1);
  memcpy(tok, p, len);
  tok[len] = '\0';
  *end = e;
  return e == p ? NULL : p;
}

/* Parses a decimal integer token at *S (skipping blanks) into *V; advances
 * *S past it. False when there is none, it has trailing junk, or overflows. */
static bool parse_i64(char **s, int64_t *v, char *tok, size_t toklen) {
  char *end, *e, *p = next_token(s, &end, tok, toklen);
  if (!p) return false;
  errno = 0;
  long long x = strtoll(p, &e, 10);
  if (e != end || errno) return false;
  *v = x;
  *s = end;
  return true;
}

/* The same for a finite floating-point token. */
static bool parse_double(char **s, double *v, char *tok, size_t toklen) {
  char *end, *e, *p = next_token(s, &end, tok, toklen);
  if (!p) return false;
  double x = strtod(p, &e);
  if (e != end || !isfinite(x)) return false;
  *v = x;
  *s = end;
  return true;
}

/* Appends X at (I, J) to the triplet matrix M (room reserved). */
/* An entry as read, before the matrix is allocated. */
struct mm_entry {
  int i, j;
  double x;
};

static void coo_add(GArray *entries, int i, int j, double x) {
  struct mm_entry e = {i, j, x};
  g_array_append_val(entries, e);
}

struct col_val {
  int col;
  double val;
};

static int cmp_col(const void *a, const void *b) {
  int x = ((const struct col_val *)a)->col, y = ((const struct col_val *)b)->col;
  return (x > y) - (x < y);
}

/* Sorts each row of the CSR matrix A by column and sums duplicates, in
 * place. */
static void csr_sort_merge(gsl_spmatrix *a) {
  size_t n = a->size1;
  int maxlen = 0;
  for (size_t r = 0; r < n; r++) maxlen = MAX(maxlen, a->p[r + 1] - a->p[r]);
  struct col_val *tmp = g_new(struct col_val, maxlen > 0 ? maxlen : 1);
  int w = 0;
  for (size_t r = 0; r < n; r++) {
    int lo = a->p[r], len = a->p[r + 1] - lo;
    for (int k = 0; k < len; k++) tmp[k] = (struct col_val){a->i[lo + k], a->data[lo + k]};
    qsort(tmp, (size_t)len, sizeof *tmp, cmp_col);
    a->p[r] = w;
    for (int k = 0; k < len; k++) {
      if (k > 0 && tmp[k].col == tmp[k - 1].col) {
        a->data[w - 1] += tmp[k].val;
      } else {
        a->i[w] = tmp[k].col;
        a->data[w++] = tmp[k].val;
      }
    }
  }
  a->p[n] = w;
  a->nz = (size_t)w;
  g_free(tmp);
}

enum mm_field { MM_REAL, MM_INTEGER, MM_PATTERN };

struct sp_matrix *sp_matrix_read(const char *path, char **err) {
  struct mm_reader r = {.path = path, .err = err};
  char *why = NULL;
  int fd = in_open_regular(path, IN_MAX_MATRIX_BYTES, &why);
  r.f = fd >= 0 ? fdopen(fd, "r") : NULL;
  if (!r.f) {
    if (fd >= 0) close(fd);
    if (err) {
      g_free(*err);
      *err = g_strdup_printf("%s: %s", path, why ? why : g_strerror(errno));
    }
    g_free(why);
    return NULL;
  }
  gsl_spmatrix *coo = NULL;
  GArray *read = NULL;
  struct sp_matrix *out = NULL;
  char tok[64];
  char what[160];

  /* Banner: %%MatrixMarket matrix coordinate FIELD SYMMETRY */
  if (!mm_next(&r)) {
    r.lineno = 1;
    mm_fail(&r, "'%%MatrixMarket matrix coordinate ...'", NULL);
    goto done;
  }
  enum mm_field field = MM_REAL;
  bool symmetric = false;
  {
    char *words[6] = {0};
    char *copy = g_strdup(r.line);
    char *save = NULL;
    int n = 0;
    for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
      if (n < 6) words[n] = w;
      n++;
    }
    static const char *const want_word[] = {"%%MatrixMarket", "matrix", "coordinate",
                                            "real, integer or pattern", "general or symmetric"};
    bool ok = true;
    for (int k = 0; k < 5 && ok; k++) {
      const char *w = words[k];
      bool good;
      switch (k) {
      case 0: good = w && !strcasecmp(w, "%%MatrixMarket"); break;
      case 1: good = w && !strcasecmp(w, "matrix"); break;
      case 2: good = w && !strcasecmp(w, "coordinate"); break;
      case 3:
        good = w && (!strcasecmp(w, "real") || !strcasecmp(w, "integer") ||
                     !strcasecmp(w, "pattern"));
        if (good)
          field = !strcasecmp(w, "real") ? MM_REAL : !strcasecmp(w, "integer") ? MM_INTEGER
                                                                             : MM_PATTERN;
        break;
      default:
        good = w && (!strcasecmp(w, "general") || !strcasecmp(w, "symmetric"));
        if (good) symmetric = !strcasecmp(w, "symmetric");
        break;
      }
      if (!good) {
        snprintf(what, sizeof what, "%s in the banner", want_word[k]);
        mm_fail(&r, what, w ? w : r.line);
        ok = false;
      }
    }
    if (ok && n > 5) {
      mm_fail(&r, "end of the banner after the symmetry", words[5]);
      ok = false;
    }
    g_free(copy);
    if (!ok) goto done;
  }

  /* Comments and blank lines, then the size line: ROWS COLS ENTRIES. */
  int64_t rows = 0, cols = 0, entries = 0, size_line = 0;
  for (;;) {
    if (!mm_next(&r)) {
      mm_fail(&r, "a size line 'ROWS COLUMNS ENTRIES'", NULL);
      goto done;
    }
    if (r.line[0] == '%' || blank(r.line)) continue;
    char *s = r.line;
    if (!parse_i64(&s, &rows, tok, sizeof tok) || rows < 1 ||
        !parse_i64(&s, &cols, tok, sizeof tok) || cols < 1 ||
        !parse_i64(&s, &entries, tok, sizeof tok) || entries < 0 || !blank(s)) {
      mm_fail(&r, "a size line 'ROWS COLUMNS ENTRIES' (ROWS, COLUMNS >= 1)", r.line);
      goto done;
    }
    size_line = r.lineno;
    break;
  }
  if (rows > INT_MAX || cols > INT_MAX || entries > INT_MAX / (symmetric ? 2 : 1)) {
    mm_fail(&r, "at most 2^31 - 1 rows, columns and non-zeros (GSL's int indices)", r.line);
    goto done;
  }
  if (symmetric && rows != cols) {
    mm_fail(&r, "a square size for a symmetric matrix", r.line);
    goto done;
  }

  /* The size line is not trusted before the entries are read: they are
   * kept as read (a short file declaring 10^9 entries fails at its end, not
   * in the allocator), and the matrix, whose GSL workspace grows with its
   * rows and columns, is allocated once they bound its size. */
  read = g_array_sized_new(FALSE, FALSE, sizeof(struct mm_entry), (guint)MIN(MAX(entries, 1), 4096));
  int64_t seen = 0;
  while (seen < entries) {
    if (!mm_next(&r)) {
      snprintf(what, sizeof what, "%" PRId64 " entries (the size line's count), only %" PRId64 " read",
               entries, seen);
      mm_fail(&r, what, NULL);
      goto done;
    }
    if (r.line[0] == '%' || blank(r.line)) continue;
    char *s = r.line;
    int64_t i, j;
    double x = 1.0;
    if (!parse_i64(&s, &i, tok, sizeof tok) || i < 1 || i > rows) {
      snprintf(what, sizeof what, "a row index in 1..%" PRId64, rows);
      mm_fail(&r, what, tok[0] ? tok : r.line);
      goto done;
    }
    if (!parse_i64(&s, &j, tok, sizeof tok) || j < 1 || j > cols) {
      snprintf(what, sizeof what, "a column index in 1..%" PRId64, cols);
      mm_fail(&r, what, tok[0] ? tok : r.line);
      goto done;
    }
    if (field == MM_REAL) {
      if (!parse_double(&s, &x, tok, sizeof tok)) {
        mm_fail(&r, "a real value", tok[0] ? tok : r.line);
        goto done;
      }
    } else if (field == MM_INTEGER) {
      int64_t v;
      if (!parse_i64(&s, &v, tok, sizeof tok)) {
        mm_fail(&r, "an integer value", tok[0] ? tok : r.line);
        goto done;
      }
      x = (double)v;
    }
    if (!blank(s)) {
      while (*s == ' ' || *s == '\t') s++;
      mm_fail(&r, "end of line after the entry", s);
      goto done;
    }
    if (symmetric && j > i) {
      snprintf(what, sizeof what, "an entry on or below the diagonal of a symmetric matrix");
      snprintf(tok, sizeof tok, "row %" PRId64 ", column %" PRId64, i, j);
      mm_fail(&r, what, tok);
      goto done;
    }
    coo_add(read, (int)(i - 1), (int)(j - 1), x);
    if (symmetric && i != j) coo_add(read, (int)(j - 1), (int)(i - 1), x);
    seen++;
  }
  while (mm_next(&r)) {
    if (r.line[0] == '%' || blank(r.line)) continue;
    snprintf(what, sizeof what, "end of file after %" PRId64 " entries", entries);
    mm_fail(&r, what, r.line);
    goto done;
  }
  /* The CSR form holds a row pointer per row: rows beyond the non-zeros
   * are empty, and a matrix with an empty row is singular (no CG). */
  int64_t nz = read->len;
  if (rows > nz) {
    r.lineno = size_line;
    snprintf(tok, sizeof tok, "%" PRId64 " rows for %" PRId64, rows, nz);
    mm_fail(&r, "at most as many rows as non-zeros (an empty row makes the matrix singular)",
            tok);
    goto done;
  }
  /* Likewise a column beyond rows + non-zeros is empty in a matrix of at
   * most one non-zero per row: such a size line describes mostly nothing
   * and would only size GSL's per-column workspace. */
  if (cols > rows + nz) {
    r.lineno = size_line;
    snprintf(tok, sizeof tok, "%" PRId64 " columns for %" PRId64 " rows and %" PRId64 " non-zeros",
             cols, rows, nz);
    mm_fail(&r, "at most rows + non-zeros columns", tok);
    goto done;
  }
  coo = gsl_spmatrix_alloc_nzmax((size_t)rows, (size_t)cols, (size_t)MAX(nz, 1), GSL_SPMATRIX_COO);
  for (guint k = 0; k < read->len; k++) {
    const struct mm_entry *e = &g_array_index(read, struct mm_entry, k);
    coo->i[k] = e->i;
    coo->p[k] = e->j;
    coo->data[k] = e->x;
  }
  coo->nz = read->len;
  out = g_new0(struct sp_matrix, 1);
  out->a = gsl_spmatrix_compress(coo, GSL_SPMATRIX_CSR);
  csr_sort_merge(out->a);

done:
  if (coo) gsl_spmatrix_free(coo);
  if (read) g_array_free(read, TRUE);
  free(r.line);
  fclose(r.f);
  return out;
}

/* ---------------------------------------------------------------- Poisson */

struct sp_matrix *sp_matrix_poisson(int dim, int64_t n) {
  if (dim < 1 || dim > 3 || n < 1) return NULL;
  int64_t N = n;
  for (int d = 1; d < dim; d++) {
    if (N > INT_MAX / n) return NULL;
    N *= n;
  }
  /* Each of the dim axes has n - 1 links per line, n^(dim-1) lines; each
   * link gives two off-diagonal entries. */
  int64_t nnz = N + 2 * (int64_t)dim * (N / n) * (n - 1);
  if (nnz > INT_MAX) return NULL;
  gsl_spmatrix *a = gsl_spmatrix_alloc_nzmax((size_t)N, (size_t)N, (size_t)nnz, GSL_SPMATRIX_CSR);
  int64_t stride[3] = {1, n, n * n};
  int64_t k = 0;
  for (int64_t row = 0; row < N; row++) {
    a->p[row] = (int)k;
    int64_t coord[3] = {row % n, (row / n) % n, (row / n / n) % n};
    /* Columns ascending: -z, -y, -x, diagonal, +x, +y, +z. */
    for (int d = dim - 1; d >= 0; d--)
      if (coord[d] > 0) {
        a->i[k] = (int)(row - stride[d]);
        a->data[k++] = -1.0;
      }
    a->i[k] = (int)row;
    a->data[k++] = 2.0 * dim;
    for (int d = 0; d < dim; d++)
      if (coord[d] < n - 1) {
        a->i[k] = (int)(row + stride[d]);
        a->data[k++] = -1.0;
      }
  }
  a->p[N] = (int)k;
  a->nz = (size_t)k;
  g_assert(k == nnz);
  struct sp_matrix *m = g_new0(struct sp_matrix, 1);
  m->a = a;
  return m;
}

void sp_matrix_free(struct sp_matrix *m) {
  if (!m) return;
  gsl_spmatrix_free(m->a);
  g_free(m);
}

gsl_spmatrix *sp_matrix_csr(struct sp_matrix *m) { return m->a; }

int64_t sp_matrix_rows(const struct sp_matrix *m) { return (int64_t)m->a->size1; }
int64_t sp_matrix_cols(const struct sp_matrix *m) { return (int64_t)m->a->size2; }
int64_t sp_matrix_nnz(const struct sp_matrix *m) { return (int64_t)m->a->nz; }

double sp_matrix_get(const struct sp_matrix *m, int64_t i, int64_t j) {
  return gsl_spmatrix_get(m->a, (size_t)i, (size_t)j);
}

/* ------------------------------------------------------------- partitions */

/* Contiguous blocks: rank r holds [block_row0(r), block_row0(r + 1)). */
static int64_t block_row0(int64_t rows, uint32_t ranks, uint32_t r) {
  int64_t base = rows / ranks, extra = rows % ranks;
  return (int64_t)r * base + (r < extra ? (int64_t)r : extra);
}

static uint32_t block_owner(int64_t rows, uint32_t ranks, int64_t row) {
  int64_t base = rows / ranks, extra = rows % ranks;
  int64_t split = extra * (base + 1);
  if (row < split) return (uint32_t)(row / (base + 1));
  return (uint32_t)(extra + (row - split) / base);
}

uint32_t sp_part_owner(const struct sp_part *p, int64_t row) {
  const struct sp_part_full *f = (const struct sp_part_full *)p;
  if (f->owner) return f->owner[row];
  return block_owner(p->rows, p->n_ranks, row);
}

static struct sp_part_full *part_new(uint32_t ranks, int64_t rows, int64_t nnz) {
  struct sp_part_full *f = g_new0(struct sp_part_full, 1);
  f->pub.n_ranks = ranks;
  f->pub.rows = rows;
  f->pub.nnz = nnz;
  f->pub.ranks = g_new0(struct sp_rank, ranks);
  return f;
}

void sp_part_free(struct sp_part *p) {
  if (!p) return;
  struct sp_part_full *f = (struct sp_part_full *)p;
  for (uint32_t r = 0; r < p->n_ranks; r++) g_free(p->ranks[r].recv);
  g_free(p->ranks);
  g_free(f->owner);
  g_free(f);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

/* ------------------------------------------------- a warp's remote loads */

struct warp_key {
  int64_t j, sector;
  uint32_t owner;
};

static int cmp_warp_key(const void *a, const void *b) {
  const struct warp_key *x = a, *y = b;
  if (x->j != y->j) return (x->j > y->j) - (x->j < y->j);
  if (x->owner != y->owner) return (x->owner > y->owner) - (x->owner < y->owner);
  return (x->sector > y->sector) - (x->sector < y->sector);
}

void sp_warps_init(struct sp_warps *w) {
  w->keys = g_array_new(FALSE, FALSE, sizeof(struct warp_key));
  w->warp = -1;
  w->total = 0;
}

/* Adds the current warp's distinct keys to the total and empties it. */
static void warp_close(struct sp_warps *w) {
  if (!w->keys->len) return;
  g_array_sort(w->keys, cmp_warp_key);
  const struct warp_key *k = (const struct warp_key *)(void *)w->keys->data;
  w->total++;
  for (guint t = 1; t < w->keys->len; t++) w->total += cmp_warp_key(&k[t], &k[t - 1]) != 0;
  g_array_set_size(w->keys, 0);
}

void sp_warps_add(struct sp_warps *w, int64_t local, int64_t j, uint32_t owner, int64_t offset) {
  if (local / SP_WARP != w->warp) {
    warp_close(w);
    w->warp = local / SP_WARP;
  }
  struct warp_key k = {j, offset * 8 / SP_SECTOR, owner};
  g_array_append_val(w->keys, k);
}

int64_t sp_warps_take(struct sp_warps *w) {
  warp_close(w);
  int64_t n = w->total;
  w->warp = -1;
  w->total = 0;
  return n;
}

void sp_warps_clear(struct sp_warps *w) {
  if (w->keys) g_array_free(w->keys, TRUE);
  w->keys = NULL;
}

/* Fills every rank's nnz, remote non-zeros and recv from A's pattern and
 * the row owners (OWNER, or blocks when NULL): rank r's recv from peer p
 * counts the distinct columns of r's rows that p owns. O(nnz + rows) time: MARK[c]
 * remembers the last rank that counted column c. */
static void part_halos(struct sp_part_full *f, const gsl_spmatrix *a) {
  struct sp_part *p = &f->pub;
  uint32_t R = p->n_ranks;
  int64_t n = p->rows;
  uint32_t *mark = g_new(uint32_t, n);
  for (int64_t c = 0; c < n; c++) mark[c] = UINT32_MAX;
  int64_t *count = g_new0(int64_t, R);
  uint32_t *touched = g_new(uint32_t, R);
  /* Rows of each rank, in ascending order. */
  int64_t *start = NULL, *order = NULL, *local = NULL; /* local: a row's place in its rank */
  if (f->owner) {
    start = g_new0(int64_t, (size_t)R + 1);
    for (int64_t i = 0; i < n; i++) start[f->owner[i] + 1]++;
    for (uint32_t r = 0; r < R; r++) start[r + 1] += start[r];
    order = g_new(int64_t, n);
    local = g_new(int64_t, n);
    int64_t *fill = g_memdup2(start, sizeof(int64_t) * R);
    for (int64_t i = 0; i < n; i++) {
      local[i] = fill[f->owner[i]] - start[f->owner[i]];
      order[fill[f->owner[i]]++] = i;
    }
    g_free(fill);
  }
  struct sp_warps warps;
  sp_warps_init(&warps);
  for (uint32_t r = 0; r < R; r++) {
    struct sp_rank *rk = &p->ranks[r];
    int64_t lo = f->owner ? start[r] : rk->row0;
    int64_t hi = f->owner ? start[r + 1] : rk->row0 + rk->rows;
    size_t nt = 0;
    int64_t nnz = 0, longest = 0, remote = 0, remote_row = 0;
    for (int64_t k = lo; k < hi; k++) {
      int64_t i = f->owner ? order[k] : k, in_row = 0;
      nnz += a->p[i + 1] - a->p[i];
      longest = MAX(longest, (int64_t)(a->p[i + 1] - a->p[i]));
      for (int q = a->p[i]; q < a->p[i + 1]; q++) {
        int64_t c = a->i[q];
        uint32_t o = f->owner ? f->owner[c] : block_owner(n, R, c);
        if (o == r) continue;
        in_row++;
        sp_warps_add(&warps, k - lo, q - a->p[i], o, f->owner ? local[c] : c - block_row0(n, R, o));
        if (mark[c] == r) continue;
        mark[c] = r;
        if (count[o]++ == 0) touched[nt++] = o;
      }
      remote += in_row;
      remote_row = MAX(remote_row, in_row);
    }
    rk->nnz = nnz;
    rk->max_row = longest;
    rk->remote_nnz = remote;
    rk->max_remote_row = remote_row;
    rk->remote_sectors = sp_warps_take(&warps);
    qsort(touched, nt, sizeof *touched, cmp_u32);
    rk->n_recv = nt;
    rk->recv = nt ? g_new(struct sp_halo, nt) : NULL;
    for (size_t t = 0; t < nt; t++) {
      rk->recv[t].peer = touched[t];
      rk->recv[t].elems = count[touched[t]];
      count[touched[t]] = 0;
    }
  }
  g_free(mark);
  g_free(count);
  g_free(touched);
  g_free(start);
  g_free(order);
  g_free(local);
  sp_warps_clear(&warps);
}

static void set_err(char **err, char *msg) {
  if (err) {
    g_free(*err);
    *err = msg;
  } else {
    g_free(msg);
  }
}

#ifdef TRIGSIM_HAVE_METIS
static int cmp_idx(const void *a, const void *b) {
  idx_t x = *(const idx_t *)a, y = *(const idx_t *)b;
  return (x > y) - (x < y);
}

/* METIS k-way on the symmetrised pattern of A without its diagonal;
 * fills OWNER. */
static bool metis_owners(const gsl_spmatrix *a, uint32_t ranks, uint32_t *owner, char **err) {
  idx_t n = (idx_t)a->size1;
  if (ranks == 1) {
    memset(owner, 0, sizeof(uint32_t) * (size_t)n);
    return true;
  }
  /* Adjacency of A + A^T: every off-diagonal (i, j) adds j to i's list and
   * i to j's; lists are then sorted and deduplicated. */
  int64_t *deg = g_new0(int64_t, (size_t)n + 1);
  for (idx_t i = 0; i < n; i++)
    for (int q = a->p[i]; q < a->p[i + 1]; q++)
      if (a->i[q] != i) {
        deg[i + 1]++;
        deg[a->i[q] + 1]++;
      }
  for (idx_t i = 0; i < n; i++) deg[i + 1] += deg[i];
  if (deg[n] > INT32_MAX) {
    g_free(deg);
    set_err(err, g_strdup("SP_GRAPH: the matrix has too many non-zeros for METIS's 32-bit indices"));
    return false;
  }
  idx_t *adj = g_new(idx_t, deg[n] ? deg[n] : 1);
  int64_t *fill = g_memdup2(deg, sizeof(int64_t) * (size_t)n);
  for (idx_t i = 0; i < n; i++)
    for (int q = a->p[i]; q < a->p[i + 1]; q++)
      if (a->i[q] != i) {
        adj[fill[i]++] = a->i[q];
        adj[fill[a->i[q]]++] = i;
      }
  g_free(fill);
  idx_t *xadj = g_new(idx_t, (size_t)n + 1);
  idx_t k = 0;
  for (idx_t i = 0; i < n; i++) {
    xadj[i] = k;
    idx_t *l = adj + deg[i];
    size_t len = (size_t)(deg[i + 1] - deg[i]);
    qsort(l, len, sizeof *l, cmp_idx);
    for (size_t t = 0; t < len; t++)
      if (t == 0 || l[t] != l[t - 1]) adj[k++] = l[t];
  }
  xadj[n] = k;
  g_free(deg);

  idx_t ncon = 1, nparts = (idx_t)ranks, objval = 0;
  idx_t *part = g_new(idx_t, n);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_SEED] = 1; /* reproducible partitions */
  /* As METIS's manual advises: recursive bisection for up to 8 parts (on
   * small graphs k-way leaves parts empty: 1D Poisson n = 4 over 4 gave
   * 0, 2, 2, 0 rows), k-way for more (faster; within 3% of balance). */
  int rc = (ranks <= 8 ? METIS_PartGraphRecursive : METIS_PartGraphKway)(
      &n, &ncon, xadj, adj, NULL, NULL, NULL, &nparts, NULL, NULL, options, &objval, part);
  bool ok = rc == METIS_OK;
  if (ok)
    for (idx_t i = 0; i < n; i++) owner[i] = (uint32_t)part[i];
  else
    set_err(err, g_strdup_printf("SP_GRAPH: METIS_PartGraphKway failed (status %d) for %" PRId64
                                 " rows over %u ranks",
                                 rc, (int64_t)n, ranks));
  g_free(part);
  g_free(xadj);
  g_free(adj);
  return ok;
}
#endif

struct sp_part *sp_partition(const struct sp_matrix *m, uint32_t ranks, enum sp_partitioner how,
                             char **err) {
  const gsl_spmatrix *a = m->a;
  if (ranks < 1) {
    set_err(err, g_strdup("sp_partition: ranks must be >= 1"));
    return NULL;
  }
  if (a->size1 != a->size2) {
    set_err(err, g_strdup_printf("sp_partition: expected a square matrix, got %zu x %zu",
                                 a->size1, a->size2));
    return NULL;
  }
  int64_t n = (int64_t)a->size1;
  struct sp_part_full *f = part_new(ranks, n, (int64_t)a->nz);
  if (how == SP_BLOCKS) {
    for (uint32_t r = 0; r < ranks; r++) {
      f->pub.ranks[r].row0 = block_row0(n, ranks, r);
      f->pub.ranks[r].rows = block_row0(n, ranks, r + 1) - f->pub.ranks[r].row0;
    }
  } else {
#ifdef TRIGSIM_HAVE_METIS
    f->owner = g_new(uint32_t, n);
    if (!metis_owners(a, ranks, f->owner, err)) {
      sp_part_free(&f->pub);
      return NULL;
    }
    for (int64_t i = 0; i < n; i++) f->pub.ranks[f->owner[i]].rows++;
    for (uint32_t r = 0; r < ranks; r++) f->pub.ranks[r].row0 = -1;
#else
    set_err(err, g_strdup("SP_GRAPH: trigsim was built without a graph partitioner (install "
                          "libmetis-dev and reconfigure); use contiguous blocks"));
    sp_part_free(&f->pub);
    return NULL;
#endif
  }
  part_halos(f, a);
  return &f->pub;
}

struct sp_part *sp_part_new_blocks(int64_t rows, uint32_t ranks) {
  if (rows < 1 || ranks < 1) return NULL;
  struct sp_part_full *f = part_new(ranks, rows, 0);
  for (uint32_t r = 0; r < ranks; r++) {
    f->pub.ranks[r].row0 = block_row0(rows, ranks, r);
    f->pub.ranks[r].rows = block_row0(rows, ranks, r + 1) - f->pub.ranks[r].row0;
  }
  return &f->pub;
}

struct sp_matrix *sp_matrix_from_rows(int64_t n, int64_t max_len,
                                      int64_t (*row)(void *ctx, int64_t i, int64_t *cols,
                                                     double *vals),
                                      void *ctx) {
  if (n < 1 || n > INT_MAX || max_len < 1) return NULL;
  int64_t *cols = g_new(int64_t, max_len);
  double *vals = g_new(double, max_len);
  /* First pass: the total, to size the CSR arrays once. */
  int64_t nnz = 0;
  for (int64_t i = 0; i < n; i++) nnz += row(ctx, i, cols, vals);
  struct sp_matrix *m = NULL;
  if (nnz <= INT_MAX) {
    gsl_spmatrix *a = gsl_spmatrix_alloc_nzmax((size_t)n, (size_t)n, (size_t)MAX(nnz, 1),
                                               GSL_SPMATRIX_CSR);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
      a->p[i] = (int)k;
      int64_t len = row(ctx, i, cols, vals);
      for (int64_t t = 0; t < len; t++) {
        a->i[k] = (int)cols[t];
        a->data[k++] = vals[t];
      }
    }
    a->p[n] = (int)k;
    a->nz = (size_t)k;
    m = g_new0(struct sp_matrix, 1);
    m->a = a;
  }
  g_free(cols);
  g_free(vals);
  return m;
}

/* ----------------------------------------------------------------- banded */

int64_t sp_banded_halfwidth(double nnz_per_row) {
  if (!(nnz_per_row >= 1.0)) return -1;     /* also NaN */
  if (nnz_per_row > 1e18) nnz_per_row = 1e18; /* keep llround in range */
  return (int64_t)llround((nnz_per_row - 1.0) / 2.0);
}

struct sp_part *sp_partition_banded(int64_t rows, double nnz_per_row, uint32_t ranks) {
  int64_t h = sp_banded_halfwidth(nnz_per_row);
  if (rows < 1 || ranks < 1 || h < 0) return NULL;
  if (h > rows - 1) h = rows - 1;
  /* Row i: columns [max(0, i - h), min(rows - 1, i + h)], so 2h + 1 less
   * the columns cut off by either edge. */
  struct sp_part_full *f = part_new(ranks, rows, 0);
  struct sp_part *p = &f->pub;
  int64_t total = 0;
  for (uint32_t r = 0; r < ranks; r++) {
    struct sp_rank *rk = &p->ranks[r];
    int64_t a = block_row0(rows, ranks, r), b = block_row0(rows, ranks, r + 1);
    rk->row0 = a;
    rk->rows = b - a;
    if (a == b) continue;
    /* nnz: sum over [a, b) of (2h + 1) - max(0, h - i) - max(0, i + h - (rows - 1)). */
    int64_t nnz = (b - a) * (2 * h + 1);
    /* Lower cut: rows i < h lose h - i; over [a, min(b, h)). */
    int64_t e = b < h ? b : h;
    if (a < e) nnz -= (e - a) * h - (a + e - 1) * (e - a) / 2;
    /* Upper cut: rows i > rows - 1 - h lose i - (rows - 1 - h); over [max(a, rows - h), b). */
    int64_t s = rows - h > a ? rows - h : a;
    if (s < b) {
      int64_t base = rows - 1 - h;
      nnz -= (s + b - 1) * (b - s) / 2 - base * (b - s);
    }
    rk->nnz = nnz;
    /* A row's length is largest nearest the middle row (the edges cut it). */
    int64_t mid = CLAMP((rows - 1) / 2, a, b - 1);
    rk->max_row = 2 * h + 1 - MAX(0, h - mid) - MAX(0, mid + h - (rows - 1));
    total += nnz;
    /* Non-zeros outside [a, b): row i reads a - max(0, i - h) columns
     * below a (rows i < a + h) and min(rows, i + h + 1) - b above b (rows
     * i >= b - h); at most 2h rows read any. */
    int64_t remote = 0, remote_row = 0;
    for (int64_t i = a; i < b; i++) {
      if (i >= a + h && i < b - h) i = b - h; /* rows that read nothing remote */
      if (i >= b) break;
      int64_t n = MAX(0, a - MAX(0, i - h)) + MAX(0, MIN(rows, i + h + 1) - b);
      remote += n;
      remote_row = MAX(remote_row, n);
    }
    rk->remote_nnz = remote;
    rk->max_remote_row = remote_row;
    /* Columns read outside [a, b): [max(0, a - h), a) and [b, min(rows, b + h)). */
    int64_t lo0 = a - h > 0 ? a - h : 0, hi1 = b + h < rows ? b + h : rows;
    size_t cnt = 0;
    uint32_t plo = lo0 < a ? block_owner(rows, ranks, lo0) : r;
    uint32_t phi = hi1 > b ? block_owner(rows, ranks, hi1 - 1) : r;
    cnt = (size_t)(r - plo) + (size_t)(phi - r);
    rk->n_recv = cnt;
    rk->recv = cnt ? g_new(struct sp_halo, cnt) : NULL;
    size_t t = 0;
    for (uint32_t q = plo; q < r; q++) {
      int64_t q0 = block_row0(rows, ranks, q), q1 = block_row0(rows, ranks, q + 1);
      int64_t x0 = q0 > lo0 ? q0 : lo0;
      rk->recv[t].peer = q;
      rk->recv[t++].elems = q1 - x0;
    }
    for (uint32_t q = r + 1; q <= phi; q++) {
      int64_t q0 = block_row0(rows, ranks, q), q1 = block_row0(rows, ranks, q + 1);
      int64_t x1 = q1 < hi1 ? q1 : hi1;
      rk->recv[t].peer = q;
      rk->recv[t++].elems = x1 - q0;
    }
    g_assert(t == cnt);
  }
  p->nnz = total;
  return p;
}

/* -------------------------------------------------------------------- CG */

int64_t sp_cg_iterations(const struct sp_matrix *m, double tol, int64_t max_iters) {
  const gsl_spmatrix *a = m->a;
  if (a->size1 != a->size2) return -1;
  size_t n = a->size1;
  gsl_vector *x = gsl_vector_calloc(n), *r = gsl_vector_alloc(n), *p = gsl_vector_alloc(n),
             *q = gsl_vector_alloc(n);
  gsl_vector_set_all(r, 1.0); /* r = b - A x0 = b */
  gsl_vector_memcpy(p, r);
  double bnorm = gsl_blas_dnrm2(r);
  double rr;
  gsl_blas_ddot(r, r, &rr);
  int64_t it = 0;
  if (sqrt(rr) / bnorm > tol) {
    it = max_iters;
    for (int64_t k = 0; k < max_iters; k++) {
      gsl_spblas_dgemv(CblasNoTrans, 1.0, a, p, 0.0, q);
      double pq;
      gsl_blas_ddot(p, q, &pq);
      if (pq == 0.0) break; /* breakdown: not SPD along p */
      double alpha = rr / pq;
      gsl_blas_daxpy(alpha, p, x);
      gsl_blas_daxpy(-alpha, q, r);
      double rr_new;
      gsl_blas_ddot(r, r, &rr_new);
      if (sqrt(rr_new) / bnorm <= tol) {
        it = k + 1;
        break;
      }
      /* p = r + beta p */
      gsl_blas_dscal(rr_new / rr, p);
      gsl_blas_daxpy(1.0, r, p);
      rr = rr_new;
    }
  }
  gsl_vector_free(x);
  gsl_vector_free(r);
  gsl_vector_free(p);
  gsl_vector_free(q);
  return it;
}
