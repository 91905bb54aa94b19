/* rankcorr: Spearman rank correlation and geometric means of two columns,
 * for comparing a reproduction with a paper's figures (tools/table1.sh).
 * Reads lines "NAME X Y" from a file (or stdin: -); prints n, Spearman's
 * rho of X and Y (GSL's gsl_stats_spearman, ties by average rank) and the
 * geometric means of X and Y. */
#include <glib.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: rankcorr FILE|-   (lines: NAME X Y)\n");
    return 2;
  }
  FILE *f = strcmp(argv[1], "-") ? fopen(argv[1], "r") : stdin;
  if (!f) {
    fprintf(stderr, "rankcorr: %s: cannot open\n", argv[1]);
    return 2;
  }
  GArray *x = g_array_new(FALSE, FALSE, sizeof(double)), *y = g_array_new(FALSE, FALSE, sizeof(double));
  char name[256], line[1024];
  int lineno = 0;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    double a, b;
    if (line[0] == '#' || line[0] == '\n') continue;
    if (sscanf(line, "%255s %lf %lf", name, &a, &b) != 3 || !(a > 0) || !(b > 0)) {
      fprintf(stderr, "rankcorr: %s:%d: expected 'NAME X Y' with X, Y > 0, got '%s'\n", argv[1],
              lineno, g_strchomp(line));
      return 2;
    }
    g_array_append_val(x, a);
    g_array_append_val(y, b);
  }
  if (f != stdin) fclose(f);
  size_t n = x->len;
  if (n < 2) {
    fprintf(stderr, "rankcorr: expected at least 2 rows, got %zu\n", n);
    return 2;
  }
  double *work = g_new(double, 2 * n), lx = 0, ly = 0;
  double rho = gsl_stats_spearman((double *)(void *)x->data, 1, (double *)(void *)y->data, 1, n, work);
  for (size_t i = 0; i < n; i++) {
    lx += log(g_array_index(x, double, i));
    ly += log(g_array_index(y, double, i));
  }
  printf("n %zu spearman %.3f geomean_x %.3f geomean_y %.3f\n", n, rho, exp(lx / n), exp(ly / n));
  g_free(work);
  g_array_free(x, TRUE);
  g_array_free(y, TRUE);
  return 0;
}
