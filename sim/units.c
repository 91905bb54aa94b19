/* Values with units (see units.h). Numbers are read as decimal digit strings
 * with a power-of-ten exponent, so "1.5us" or "0.1ns" convert to integer base
 * units exactly; doubles are only made by one correctly rounded strtod. */
#include "units.h"

#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit {
  const char *name;
  enum unit_dim dim;
  int pow10;   /* factor 10^pow10 ... */
  int pow1024; /* ... times 1024^pow1024 */
};

/* The first unit of each dimension is its base unit. */
static const struct unit units[] = {
    {"ps", UNIT_TIME, 0, 0},        {"ns", UNIT_TIME, 3, 0},        {"us", UNIT_TIME, 6, 0},
    {"ms", UNIT_TIME, 9, 0},        {"s", UNIT_TIME, 12, 0},        {"bps", UNIT_BANDWIDTH, 0, 0},
    {"Kbps", UNIT_BANDWIDTH, 3, 0}, {"Mbps", UNIT_BANDWIDTH, 6, 0}, {"Gbps", UNIT_BANDWIDTH, 9, 0},
    {"Tbps", UNIT_BANDWIDTH, 12, 0}, {"B", UNIT_SIZE, 0, 0},        {"KB", UNIT_SIZE, 3, 0},
    {"MB", UNIT_SIZE, 6, 0},        {"GB", UNIT_SIZE, 9, 0},        {"TB", UNIT_SIZE, 12, 0},
    {"KiB", UNIT_SIZE, 0, 1},       {"MiB", UNIT_SIZE, 0, 2},       {"GiB", UNIT_SIZE, 0, 3},
    {"TiB", UNIT_SIZE, 0, 4},       {"Hz", UNIT_FREQ, 0, 0},        {"kHz", UNIT_FREQ, 3, 0},
    {"KHz", UNIT_FREQ, 3, 0},       {"MHz", UNIT_FREQ, 6, 0},       {"GHz", UNIT_FREQ, 9, 0},
};

/* A number as DIGITS x 10^EXP; DIGITS has no leading or trailing zeros and
 * is empty for zero. */
struct dec {
  bool neg;
  GString *digits;
  long exp;
};

enum perr { PE_OK, PE_EMPTY, PE_SYNTAX, PE_TRAILING, PE_UNKNOWN, PE_DIM, PE_FRACTION, PE_RANGE, PE_BARE };

#define EXP_CLAMP 100000L

const char *units_dim_name(enum unit_dim dim) {
  switch (dim) {
  case UNIT_TIME: return "a time";
  case UNIT_BANDWIDTH: return "a bandwidth";
  case UNIT_SIZE: return "a size";
  case UNIT_FREQ: return "a frequency";
  default: return "a number";
  }
}

static const char *dim_example(enum unit_dim dim) {
  switch (dim) {
  case UNIT_TIME: return "1.5us";
  case UNIT_BANDWIDTH: return "100Gbps";
  case UNIT_SIZE: return "8MiB";
  case UNIT_FREQ: return "1GHz";
  default: return "42";
  }
}

static const struct unit *unit_find(const char *name, size_t len) {
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
    if (strlen(units[i].name) == len && !strncmp(units[i].name, name, len)) return &units[i];
  return NULL;
}

static const struct unit *unit_base(enum unit_dim dim) {
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
    if (units[i].dim == dim) return &units[i];
  return NULL;
}

/* Reads an exponent's digits, saturating at EXP_CLAMP. */
static long read_exponent(const char **p) {
  long e = 0;
  for (; g_ascii_isdigit(**p); (*p)++)
    if (e < EXP_CLAMP) e = e * 10 + (**p - '0');
  return e;
}

static void dec_normalize(struct dec *n) {
  GString *d = n->digits;
  size_t lead = 0;
  while (lead < d->len && d->str[lead] == '0') lead++;
  g_string_erase(d, 0, (gssize)lead);
  while (d->len && d->str[d->len - 1] == '0') {
    g_string_truncate(d, d->len - 1);
    n->exp++;
  }
  if (!d->len) n->exp = 0;
}

/* Parses [+-]digits[.digits][e[+-]digits] at *P; false when no digit. */
static bool dec_parse(const char **p, struct dec *n) {
  const char *s = *p;
  n->neg = *s == '-';
  if (*s == '-' || *s == '+') s++;
  long frac = 0;
  for (; g_ascii_isdigit(*s); s++) g_string_append_c(n->digits, *s);
  if (*s == '.')
    for (s++; g_ascii_isdigit(*s); s++, frac++) g_string_append_c(n->digits, *s);
  if (!n->digits->len) return false;
  long e = 0;
  const char *q = s + 1;
  if ((*s == 'e' || *s == 'E') && (*q == '+' || *q == '-')) q++;
  if ((*s == 'e' || *s == 'E') && g_ascii_isdigit(*q)) {
    bool eneg = q[-1] == '-';
    e = read_exponent(&q);
    if (eneg) e = -e;
    s = q;
  }
  n->exp = e - frac;
  dec_normalize(n);
  *p = s;
  return true;
}

/* DIGITS *= M (M small), as schoolbook decimal arithmetic. */
static void dec_mul_small(struct dec *n, unsigned m) {
  GString *d = n->digits;
  unsigned carry = 0;
  for (size_t i = d->len; i-- > 0;) {
    unsigned v = (unsigned)(d->str[i] - '0') * m + carry;
    d->str[i] = (char)('0' + v % 10);
    carry = v / 10;
  }
  for (; carry; carry /= 10) g_string_prepend_c(d, (char)('0' + carry % 10));
  dec_normalize(n);
}

static void dec_scale(struct dec *n, const struct unit *u) {
  for (int i = 0; i < u->pow1024; i++) dec_mul_small(n, 1024);
  if (n->digits->len) n->exp += u->pow10;
}

/* Splits TEXT into number and unit and scales to DIM's base unit. *FOUND is
 * the unit read, if known; *REST is where unexpected text starts. */
static enum perr parse_text(const char *text, enum unit_dim dim, struct dec *n,
                            const struct unit **found, const char **rest) {
  const char *p = text;
  *found = NULL;
  *rest = text;
  if (!*p) return PE_EMPTY;
  if (!dec_parse(&p, n)) return PE_SYNTAX;
  const char *unit = p;
  while (g_ascii_isalpha(*p)) p++;
  size_t ulen = (size_t)(p - unit);
  *rest = p;
  if (ulen) *found = unit_find(unit, ulen);
  if (*p) return PE_TRAILING;
  if (ulen && !*found) return PE_UNKNOWN;
  if (*found && (*found)->dim != dim) return PE_DIM;
  if (*found) dec_scale(n, *found);
  return PE_OK;
}

static enum perr dec_to_int64(const struct dec *n, int64_t *out) {
  const GString *d = n->digits;
  if (!d->len) {
    *out = 0;
    return PE_OK;
  }
  if (n->exp < 0) return PE_FRACTION;
  if ((long)d->len + n->exp > 19) return PE_RANGE;
  uint64_t v = 0;
  for (size_t i = 0; i < d->len; i++) v = v * 10 + (uint64_t)(d->str[i] - '0');
  for (long i = 0; i < n->exp; i++) v *= 10;
  if (v > (uint64_t)INT64_MAX + (n->neg ? 1u : 0u)) return PE_RANGE;
  *out = n->neg ? (int64_t)(0 - v) : (int64_t)v;
  return PE_OK;
}

static char *unit_list(enum unit_dim dim) {
  GString *s = g_string_new(NULL);
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++)
    if (units[i].dim == dim) g_string_append_printf(s, "%s%s", s->len ? ", " : "", units[i].name);
  return g_string_free(s, FALSE);
}

static char *error_detail(enum perr e, const char *rest, enum unit_dim dim, bool integer,
                          const struct unit *u) {
  switch (e) {
  case PE_SYNTAX: return g_strdup("not a number");
  case PE_TRAILING: return g_strdup_printf("unexpected text '%s' at the end", rest);
  case PE_UNKNOWN: {
    if (dim == UNIT_NONE) return g_strdup("no unit allowed");
    char *list = unit_list(dim);
    char *s = g_strdup_printf("unknown unit; use one of %s", list);
    g_free(list);
    return s;
  }
  case PE_DIM: return g_strdup(units_dim_name(u->dim));
  case PE_BARE: return g_strdup_printf("a bare number: write its unit, e.g. %s", dim_example(dim));
  case PE_FRACTION:
    return dim == UNIT_NONE ? g_strdup("not a whole number")
                            : g_strdup_printf("not a whole number of %s", unit_base(dim)->name);
  case PE_RANGE:
    if (!integer) return g_strdup("out of range: too large for a double");
    if (dim == UNIT_NONE) return g_strdup("out of range: too large for a 64-bit count");
    return g_strdup_printf("out of range: too large for a 64-bit count of %s", unit_base(dim)->name);
  default: return NULL;
  }
}

static char *error_message(enum perr e, const char *text, const char *rest, enum unit_dim dim,
                           bool integer, const struct unit *u) {
  char *expected = dim == UNIT_NONE
                       ? g_strdup(integer ? "an integer" : "a number")
                       : g_strdup_printf("%s such as %s", units_dim_name(dim), dim_example(dim));
  char *msg;
  if (e == PE_EMPTY) {
    msg = g_strdup_printf("expected %s, got an empty value", expected);
  } else {
    char *detail = error_detail(e, rest, dim, integer, u);
    msg = g_strdup_printf("expected %s, got %s (%s)", expected, text, detail);
    g_free(detail);
  }
  g_free(expected);
  return msg;
}

static enum perr parse_dec(const char *text, enum unit_dim dim, struct dec *n,
                           const struct unit **u, const char **rest) {
  n->digits = g_string_new(NULL);
  return parse_text(text, dim, n, u, rest);
}

/* A number of a dimension with units, written without one (0 aside: the
 * same in every unit). */
static bool bare(enum unit_dim dim, const struct unit *u, const struct dec *n) {
  return dim != UNIT_NONE && !u && n->digits->len;
}

bool units_parse_int(const char *text, enum unit_dim dim, int64_t *out, char **err) {
  struct dec n;
  const struct unit *u;
  const char *rest;
  text = text ? text : "";
  enum perr e = parse_dec(text, dim, &n, &u, &rest);
  if (e == PE_OK && bare(dim, u, &n)) e = PE_BARE;
  if (e == PE_OK) e = dec_to_int64(&n, out);
  g_string_free(n.digits, TRUE);
  if (e != PE_OK && err) *err = error_message(e, text, rest, dim, true, u);
  return e == PE_OK;
}

bool units_parse_real(const char *text, enum unit_dim dim, double *out, char **err) {
  struct dec n;
  const struct unit *u;
  const char *rest;
  text = text ? text : "";
  enum perr e = parse_dec(text, dim, &n, &u, &rest);
  if (e == PE_OK && bare(dim, u, &n)) e = PE_BARE;
  if (e == PE_OK) {
    const char *digits = n.digits->len ? n.digits->str : "0";
    char *s = g_strdup_printf("%s%se%ld", n.neg ? "-" : "", digits, n.exp);
    double v = g_ascii_strtod(s, NULL);
    g_free(s);
    if (isfinite(v)) *out = v;
    else e = PE_RANGE;
  }
  g_string_free(n.digits, TRUE);
  if (e != PE_OK && err) *err = error_message(e, text, rest, dim, false, u);
  return e == PE_OK;
}

/* MAG in unit U as exact decimal text, or NULL when not exact or below 1. */
static char *format_in(uint64_t mag, const struct unit *u) {
  uint64_t f = 1;
  for (int i = 0; i < u->pow1024; i++) f *= 1024;
  for (int i = 0; i < u->pow10; i++) f *= 10;
  if (mag ? mag < f : f > 1) return NULL;
  uint64_t whole = mag / f, rest = mag % f;
  if (!rest) return g_strdup_printf("%" G_GUINT64_FORMAT "%s", whole, u->name);
  if (u->pow1024) return NULL;
  char *frac = g_strdup_printf("%0*" G_GUINT64_FORMAT, u->pow10, rest);
  size_t len = strlen(frac);
  while (len && frac[len - 1] == '0') frac[--len] = '\0';
  char *s = g_strdup_printf("%" G_GUINT64_FORMAT ".%s%s", whole, frac, u->name);
  g_free(frac);
  return s;
}

char *units_format(int64_t value, enum unit_dim dim, char *buf, int len) {
  uint64_t mag = value < 0 ? 0 - (uint64_t)value : (uint64_t)value;
  char *best = NULL;
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
    if (units[i].dim != dim || !strcmp(units[i].name, "KHz")) continue;
    char *s = format_in(mag, &units[i]);
    if (s && (!best || strlen(s) <= strlen(best))) {
      g_free(best);
      best = s;
    } else {
      g_free(s);
    }
  }
  if (!best) best = g_strdup_printf("%" G_GUINT64_FORMAT, mag);
  g_snprintf(buf, (gulong)len, "%s%s", value < 0 ? "-" : "", best);
  g_free(best);
  return buf;
}
