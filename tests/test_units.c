/* Tests for sim/units.c: every unit of every dimension against hand-derived
 * base-unit counts, each class of error with its message, and format/parse
 * round trips. */
#include "testutil.h"
#include "units.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* Parses TEXT as DIM and checks it equals WANT. */
static void expect_int(const char *text, enum unit_dim dim, int64_t want) {
  int64_t v = -12345;
  char *err = NULL;
  bool ok = units_parse_int(text, dim, &v, &err);
  if (!ok) fprintf(stderr, "\n  %s: %s\n", text, err);
  CU_ASSERT_TRUE(ok);
  CU_ASSERT_EQUAL(v, want);
  g_free(err);
}

/* Parses TEXT as DIM, expects failure, returns the message (g_free). */
static char *expect_fail(const char *text, enum unit_dim dim) {
  int64_t v = -12345;
  char *err = NULL;
  CU_ASSERT_FALSE(units_parse_int(text, dim, &v, &err));
  CU_ASSERT_EQUAL(v, -12345); /* untouched on error */
  CU_ASSERT_PTR_NOT_NULL(err);
  return err ? err : g_strdup("");
}

static void expect_fail_msg(const char *text, enum unit_dim dim, const char *want) {
  char *err = expect_fail(text, dim);
  if (strcmp(err, want)) fprintf(stderr, "\n  got  '%s'\n  want '%s'\n", err, want);
  CU_ASSERT_STRING_EQUAL(err, want);
  g_free(err);
}

static void expect_fail_has(const char *text, enum unit_dim dim, const char *part) {
  char *err = expect_fail(text, dim);
  if (!strstr(err, part)) fprintf(stderr, "\n  '%s' lacks '%s'\n", err, part);
  CU_ASSERT_PTR_NOT_NULL(strstr(err, part));
  g_free(err);
}

static void test_time_units(void) {
  expect_int("7ps", UNIT_TIME, 7);
  expect_int("7ns", UNIT_TIME, 7000);                /* 7 x 10^3 */
  expect_int("1.5us", UNIT_TIME, 1500000);           /* 1.5 x 10^6 */
  expect_int("2ms", UNIT_TIME, 2000000000);          /* 2 x 10^9 */
  expect_int("3s", UNIT_TIME, 3000000000000);        /* 3 x 10^12 */
  expect_int("0.1ns", UNIT_TIME, 100);               /* 0.1 x 10^3, exact */
  expect_int("1e3ns", UNIT_TIME, 1000000);           /* 1000 x 10^3 */
  expect_int("2.5E-3s", UNIT_TIME, 2500000000);      /* 2.5 ms = 2.5 x 10^9 */
  expect_int("0.000001us", UNIT_TIME, 1);            /* 10^-6 x 10^6 */
  expect_int("0", UNIT_TIME, 0);                     /* 0 needs no unit */
  expect_int("-4ns", UNIT_TIME, -4000);
  expect_int("+4ns", UNIT_TIME, 4000);
  expect_int(".5ns", UNIT_TIME, 500);
  expect_int("0s", UNIT_TIME, 0);
  expect_int("9223372.036854775807s", UNIT_TIME, INT64_MAX); /* 2^63-1 ps */
  expect_int("-9223372.036854775808s", UNIT_TIME, INT64_MIN);
}

static void test_bandwidth_units(void) {
  expect_int("9bps", UNIT_BANDWIDTH, 9);
  expect_int("2Kbps", UNIT_BANDWIDTH, 2000);              /* decimal: 2 x 10^3 */
  expect_int("3.5Mbps", UNIT_BANDWIDTH, 3500000);         /* 3.5 x 10^6 */
  expect_int("100Gbps", UNIT_BANDWIDTH, 100000000000);    /* 100 x 10^9 */
  expect_int("1.6Tbps", UNIT_BANDWIDTH, 1600000000000);   /* 1.6 x 10^12 */
  expect_int("12.5e9bps", UNIT_BANDWIDTH, 12500000000);   /* base unit */
}

static void test_size_units(void) {
  expect_int("64B", UNIT_SIZE, 64);
  expect_int("2KB", UNIT_SIZE, 2000);                /* 2 x 10^3 */
  expect_int("3MB", UNIT_SIZE, 3000000);             /* 3 x 10^6 */
  expect_int("1.5GB", UNIT_SIZE, 1500000000);        /* 1.5 x 10^9 */
  expect_int("2TB", UNIT_SIZE, 2000000000000);       /* 2 x 10^12 */
  expect_int("4KiB", UNIT_SIZE, 4096);               /* 4 x 2^10 */
  expect_int("8MiB", UNIT_SIZE, 8388608);            /* 8 x 2^20 */
  expect_int("1.5GiB", UNIT_SIZE, 1610612736);       /* 1.5 x 2^30 = 3 x 2^29 */
  expect_int("2TiB", UNIT_SIZE, 2199023255552);      /* 2 x 2^40 = 2^41 */
  expect_int("0.5KiB", UNIT_SIZE, 512);              /* 2^10 / 2 */
  expect_int("0.0009765625KiB", UNIT_SIZE, 1);       /* 2^-10 x 2^10 */
}

static void test_freq_units(void) {
  expect_int("50Hz", UNIT_FREQ, 50);
  expect_int("3kHz", UNIT_FREQ, 3000);               /* 3 x 10^3 */
  expect_int("3KHz", UNIT_FREQ, 3000);               /* both spellings */
  expect_int("1.41MHz", UNIT_FREQ, 1410000);         /* 1.41 x 10^6 */
  expect_int("1GHz", UNIT_FREQ, 1000000000);         /* 10^9 */
  expect_int("1.755GHz", UNIT_FREQ, 1755000000);
}

static void test_plain_numbers(void) {
  expect_int("42", UNIT_NONE, 42);
  expect_int("1e3", UNIT_NONE, 1000);
  expect_int("-7", UNIT_NONE, -7);
  expect_int("2.50e1", UNIT_NONE, 25);               /* 2.5 x 10 */
  expect_fail_msg("1.5", UNIT_NONE, "expected an integer, got 1.5 (not a whole number)");
  expect_fail_msg("5us", UNIT_NONE, "expected an integer, got 5us (a time)");
  expect_fail_msg("5x", UNIT_NONE, "expected an integer, got 5x (no unit allowed)");
}

static void test_wrong_dimension(void) {
  expect_fail_msg("100ns", UNIT_BANDWIDTH,
                  "expected a bandwidth such as 100Gbps, got 100ns (a time)");
  expect_fail_msg("100Gbps", UNIT_TIME, "expected a time such as 1.5us, got 100Gbps (a bandwidth)");
  /* A bare number is no time: "latency: 1" used to be 1 ps silently. */
  expect_fail_msg("250", UNIT_TIME,
                  "expected a time such as 1.5us, got 250 (a bare number: write its unit, e.g. "
                  "1.5us)");
  expect_fail_has("12.5e9", UNIT_BANDWIDTH, "a bare number");
  expect_fail_msg("8MiB", UNIT_FREQ, "expected a frequency such as 1GHz, got 8MiB (a size)");
  expect_fail_msg("1GHz", UNIT_SIZE, "expected a size such as 8MiB, got 1GHz (a frequency)");
}

static void test_unknown_unit(void) {
  expect_fail_msg("5furlongs", UNIT_TIME,
                  "expected a time such as 1.5us, got 5furlongs "
                  "(unknown unit; use one of ps, ns, us, ms, s)");
  expect_fail_has("1GBPS", UNIT_BANDWIDTH, "unknown unit");   /* case-sensitive */
  expect_fail_has("1gbps", UNIT_BANDWIDTH, "unknown unit");
  expect_fail_has("1kb", UNIT_SIZE, "unknown unit");
  expect_fail_has("1US", UNIT_TIME, "unknown unit");
  expect_fail_has("1e", UNIT_TIME, "unknown unit");           /* exponent without digits */
}

static void test_overflow(void) {
  expect_fail_msg("1e30s", UNIT_TIME,
                  "expected a time such as 1.5us, got 1e30s "
                  "(out of range: too large for a 64-bit count of ps)");
  /* 2^63 ps = 9223372.036854775808 s, one past INT64_MAX */
  expect_fail_has("9223372.036854775808s", UNIT_TIME, "out of range");
  expect_fail_has("10000000TiB", UNIT_SIZE, "out of range");  /* 10^7 x 2^40 > 2^63 */
  expect_fail_has("1e99999999999999999", UNIT_NONE, "out of range");
  expect_fail_has("-1e30s", UNIT_TIME, "out of range");
  /* 20 digits: would wrap a uint64 (2^64 + 1 = 18446744073709551617 -> 1) */
  expect_fail_has("18446744073709551617", UNIT_NONE, "out of range");
  expect_fail_has("100000000000000000000", UNIT_NONE, "out of range"); /* 10^20 */
}

static void test_fraction(void) {
  expect_fail_msg("1.5ps", UNIT_TIME,
                  "expected a time such as 1.5us, got 1.5ps (not a whole number of ps)");
  expect_fail_has("0.0001ns", UNIT_TIME, "not a whole number");    /* 0.1 ps */
  expect_fail_has("0.5B", UNIT_SIZE, "not a whole number of B");
  expect_fail_has("0.0001KiB", UNIT_SIZE, "not a whole number");   /* 0.1024 B */
  expect_fail_has("1e-99999999999s", UNIT_TIME, "not a whole number");
}

static void test_garbage(void) {
  expect_fail_msg("", UNIT_TIME, "expected a time such as 1.5us, got an empty value");
  expect_fail_msg(NULL, UNIT_TIME, "expected a time such as 1.5us, got an empty value");
  expect_fail_msg("abc", UNIT_TIME, "expected a time such as 1.5us, got abc (not a number)");
  expect_fail_msg("1us x", UNIT_TIME,
                  "expected a time such as 1.5us, got 1us x (unexpected text ' x' at the end)");
  expect_fail_has("1us2", UNIT_TIME, "unexpected text '2'");
  expect_fail_has("1.2.3ns", UNIT_TIME, "unexpected text '.3ns'");
  expect_fail_has(" 1us", UNIT_TIME, "not a number");
  expect_fail_has("nan", UNIT_TIME, "not a number");
  expect_fail_has("inf", UNIT_NONE, "not a number");
  expect_fail_has("-", UNIT_NONE, "not a number");
  expect_fail_has(".", UNIT_NONE, "not a number");
  expect_fail_has("0x10", UNIT_NONE, "unexpected text");
}

static void test_parse_real(void) {
  double v = 0;
  char *err = NULL;
  CU_ASSERT_TRUE(units_parse_real("0.25", UNIT_NONE, &v, &err));
  CU_ASSERT_EQUAL(v, 0.25);
  CU_ASSERT_TRUE(units_parse_real("1.5ps", UNIT_TIME, &v, &err)); /* fractions allowed */
  CU_ASSERT_EQUAL(v, 1.5);
  CU_ASSERT_TRUE(units_parse_real("1.1us", UNIT_TIME, &v, &err)); /* 1.1e6, correctly rounded */
  CU_ASSERT_EQUAL(v, 1100000.0);
  CU_ASSERT_TRUE(units_parse_real("0.5KiB", UNIT_SIZE, &v, &err));
  CU_ASSERT_EQUAL(v, 512.0);
  CU_ASSERT_TRUE(units_parse_real("1e30s", UNIT_TIME, &v, &err)); /* 1e42 ps fits a double */
  CU_ASSERT_DOUBLE_EQUAL(v, 1e42, 1e27);
  CU_ASSERT_FALSE(units_parse_real("1e400", UNIT_NONE, &v, &err));
  CU_ASSERT_STRING_EQUAL(err, "expected a number, got 1e400 (out of range: too large for a double)");
  g_free(err);
  err = NULL;
  CU_ASSERT_FALSE(units_parse_real("nan", UNIT_NONE, &v, &err));
  CU_ASSERT_STRING_EQUAL(err, "expected a number, got nan (not a number)");
  g_free(err);
  err = NULL;
  CU_ASSERT_FALSE(units_parse_real("3ns", UNIT_BANDWIDTH, &v, &err));
  CU_ASSERT_STRING_EQUAL(err, "expected a bandwidth such as 100Gbps, got 3ns (a time)");
  g_free(err);
}

static void expect_format(int64_t v, enum unit_dim dim, const char *want) {
  char buf[64];
  units_format(v, dim, buf, sizeof buf);
  if (strcmp(buf, want)) fprintf(stderr, "\n  format %lld: got '%s' want '%s'\n", (long long)v, buf, want);
  CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_format(void) {
  expect_format(0, UNIT_TIME, "0ps");
  expect_format(1500000, UNIT_TIME, "1.5us");
  expect_format(100, UNIT_TIME, "100ps");
  expect_format(1500, UNIT_TIME, "1.5ns");         /* shorter than 1500ps */
  expect_format(1500, UNIT_SIZE, "1.5KB");         /* ties with 1500B go to the larger unit */
  expect_format(3000000000000, UNIT_TIME, "3s");
  expect_format(1234567, UNIT_TIME, "1234567ps");  /* shorter than 1.234567us */
  expect_format(-2000, UNIT_TIME, "-2ns");
  expect_format(100000000000, UNIT_BANDWIDTH, "100Gbps");
  expect_format(1600000000000, UNIT_BANDWIDTH, "1.6Tbps");
  expect_format(8388608, UNIT_SIZE, "8MiB");
  expect_format(2000, UNIT_SIZE, "2KB");
  expect_format(1024, UNIT_SIZE, "1KiB");
  expect_format(1000, UNIT_SIZE, "1KB");
  expect_format(64, UNIT_SIZE, "64B");
  expect_format(1000000000, UNIT_FREQ, "1GHz");
  expect_format(3000, UNIT_FREQ, "3kHz");
  expect_format(42, UNIT_NONE, "42");
  expect_format(INT64_MIN, UNIT_NONE, "-9223372036854775808");
  char small[5];
  units_format(1500000, UNIT_TIME, small, sizeof small); /* truncated, terminated */
  CU_ASSERT_STRING_EQUAL(small, "1.5u");
}

static void test_round_trip(void) {
  const int64_t values[] = {0, 1, 999, 1000, 1024, 1500, 4096, 1234567, 8388608, 100000000000,
                            3 * ((int64_t)1 << 40), INT64_MAX, INT64_MIN + 1, -1536};
  const enum unit_dim dims[] = {UNIT_NONE, UNIT_TIME, UNIT_BANDWIDTH, UNIT_SIZE, UNIT_FREQ};
  for (size_t d = 0; d < G_N_ELEMENTS(dims); d++) {
    for (size_t i = 0; i < G_N_ELEMENTS(values); i++) {
      char buf[64];
      int64_t back = 0;
      units_format(values[i], dims[d], buf, sizeof buf);
      CU_ASSERT_TRUE(units_parse_int(buf, dims[d], &back, NULL));
      CU_ASSERT_EQUAL(back, values[i]);
    }
  }
}

static void test_dim_names(void) {
  CU_ASSERT_STRING_EQUAL(units_dim_name(UNIT_TIME), "a time");
  CU_ASSERT_STRING_EQUAL(units_dim_name(UNIT_BANDWIDTH), "a bandwidth");
  CU_ASSERT_STRING_EQUAL(units_dim_name(UNIT_SIZE), "a size");
  CU_ASSERT_STRING_EQUAL(units_dim_name(UNIT_FREQ), "a frequency");
  CU_ASSERT_STRING_EQUAL(units_dim_name(UNIT_NONE), "a number");
}

int main(void) {
  const struct tu_test tests[] = {
      {"time units", test_time_units},
      {"bandwidth units", test_bandwidth_units},
      {"size units", test_size_units},
      {"frequency units", test_freq_units},
      {"plain numbers", test_plain_numbers},
      {"wrong dimension", test_wrong_dimension},
      {"unknown unit", test_unknown_unit},
      {"overflow", test_overflow},
      {"fractional base units", test_fraction},
      {"empty, garbage, trailing text", test_garbage},
      {"parse real", test_parse_real},
      {"format", test_format},
      {"format round trip", test_round_trip},
      {"dimension names", test_dim_names},
      {NULL, NULL},
  };
  return tu_run_suite("units", tests);
}
