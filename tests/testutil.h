/* Shared helpers for the CUnit suites: running a suite, running the trigsim
 * program and capturing its output, a fault in a child process, locating
 * test data. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <CUnit/Basic.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

/* CU_ASSERT_EQUAL on two times (ps) that prints both when they differ. */
#define EXPECT_TIME(got, want)                                                        \
  do {                                                                                \
    int64_t got_ = (got), want_ = (want);                                             \
    if (got_ != want_)                                                                \
      fprintf(stderr, "line %d: got %" PRId64 " ps, want %" PRId64 " ps\n", __LINE__, \
              got_, want_);                                                           \
    CU_ASSERT_EQUAL(got_, want_);                                                     \
  } while (0)

struct tu_test {
  const char *name;
  CU_TestFunc fn;
};

/* Registers the tests as one suite named SUITE, runs it, returns the exit
 * status for main (0 when every test passed). */
int tu_run_suite(const char *suite, const struct tu_test *tests);

/* Path of a file under tests/data (newly allocated, g_free). */
char *tu_data(const char *name);

/* Runs the trigsim program with ARGV (NULL-terminated, without argv[0]) and
 * returns its exit status; *OUT and *ERR (may be NULL) receive stdout and
 * stderr, newly allocated. */
int tu_trigsim(const char *const *argv, char **out, char **err);

/* Runs FN(ARG) in a child process: true when it died of a signal (a
 * g_error, a failed g_assert: a fault the program must not survive), with
 * what it wrote to stderr in *ERR (may be NULL; g_free). False when FN
 * returned. */
bool tu_dies(void (*fn)(void *arg), void *arg, char **err);

/* Writes TEXT to a new temporary file with the given suffix and returns its
 * path (g_free); the file is removed at exit. */
char *tu_temp_file(const char *suffix, const char *text, size_t len);

/* Index of column NAME in CSV header line HEAD, or -1. */
int tu_csv_column(const char *head, const char *name);

/* Field I of CSV line LINE (no quoted commas in these rows), newly
 * allocated; "?" when there is none. */
char *tu_csv_field(const char *line, int i);

#endif
