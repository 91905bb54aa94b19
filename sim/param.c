/* Parameter declarations (see param.h): parse and range-check a value, store
 * it at the declared offset, suggest the nearest key for a typo, and print
 * the group as the `trigsim params` table, after SST's ELI documentation. */
#include "param.h"

#include <glib.h>
#include <math.h>
#include <string.h>

enum unit_dim par_type_dim(enum par_type type) {
  switch (type) {
  case PAR_TIME:
  case PAR_TABLE: return UNIT_TIME;
  case PAR_BANDWIDTH: return UNIT_BANDWIDTH;
  case PAR_SIZE: return UNIT_SIZE;
  case PAR_FREQ: return UNIT_FREQ;
  default: return UNIT_NONE;
  }
}

static const char *type_name(enum par_type type) {
  static const char *const names[] = {"int",  "float", "bool",   "time", "bandwidth",
                                      "size", "freq",  "enum",   "string", "table",
                                      "yaml"};
  g_assert((size_t)type < G_N_ELEMENTS(names));
  return names[type];
}

static bool is_integral(enum par_type t) {
  return t == PAR_INT || t == PAR_TIME || t == PAR_BANDWIDTH || t == PAR_SIZE || t == PAR_FREQ;
}

/* The choices of an enum declaration, newly allocated (g_strfreev). */
static char **enum_choices(const struct par_decl *d) {
  g_assert(d->choices);
  return g_strsplit(d->choices, "|", -1);
}

char *par_expected(const struct par_decl *d) {
  switch (d->type) {
  case PAR_INT: return g_strdup("an integer");
  case PAR_FLOAT: return g_strdup("a number");
  case PAR_BOOL: return g_strdup("true or false");
  case PAR_STRING: return g_strdup("a string");
  case PAR_TABLE: return g_strdup("a table of N:time points such as 1:3us, 8:5us");
  case PAR_TREE: return g_strdup("a YAML list or mapping");
  case PAR_ENUM: {
    char **c = enum_choices(d);
    char *list = g_strjoinv(", ", c);
    char *s = g_strdup_printf("one of %s", list);
    g_free(list);
    g_strfreev(c);
    return s;
  }
  default: return g_strdup(units_dim_name(par_type_dim(d->type)));
  }
}

/* "in [0ps, 1s]", "of at least 1", "of at most 1s", or "" with no bounds. */
static char *range_phrase(const struct par_decl *d) {
  if (d->min && d->max) return g_strdup_printf(" in [%s, %s]", d->min, d->max);
  if (d->min) return g_strdup_printf(" of at least %s", d->min);
  if (d->max) return g_strdup_printf(" of at most %s", d->max);
  return g_strdup("");
}

static char *range_error(const struct par_decl *d, const char *text) {
  char *what = par_expected(d), *range = range_phrase(d);
  char *msg = g_strdup_printf("expected %s%s, got %s", what, range, text);
  g_free(what);
  g_free(range);
  return msg;
}

/* A bound is part of the program: failing to parse it is an internal error. */
static int64_t bound_int(const struct par_decl *d, const char *text) {
  int64_t v = 0;
  char *err = NULL;
  if (!units_parse_int(text, par_type_dim(d->type), &v, &err))
    g_error("parameter %s: bad bound '%s': %s", d->key, text, err);
  return v;
}

static double bound_real(const struct par_decl *d, const char *text) {
  double v = 0;
  char *err = NULL;
  if (!units_parse_real(text, UNIT_NONE, &v, &err))
    g_error("parameter %s: bad bound '%s': %s", d->key, text, err);
  return v;
}

/* The unit a bare number for D is taken in: B for a size whose key names
 * its unit ("header_bytes: 64"); NULL for every other parameter, where a
 * bare number of a quantity with units is an error ("latency: 1"). */
static const char *par_bare_unit(const struct par_decl *d) {
  return d->type == PAR_SIZE && g_str_has_suffix(d->key, "_bytes") ? "B" : NULL;
}

static bool set_int(const struct par_decl *d, void *field, const char *text, char **err) {
  int64_t v;
  size_t len = strlen(text);
  char *with = par_bare_unit(d) && len && g_ascii_isdigit(text[len - 1])
                   ? g_strconcat(text, par_bare_unit(d), NULL)
                   : NULL;
  bool ok = units_parse_int(with ? with : text, par_type_dim(d->type), &v, err);
  if (ok && ((d->min && v < bound_int(d, d->min)) || (d->max && v > bound_int(d, d->max)))) {
    *err = range_error(d, text);
    ok = false;
  }
  if (ok) *(int64_t *)field = v;
  g_free(with);
  return ok;
}

static bool set_float(const struct par_decl *d, void *field, const char *text, char **err) {
  double v;
  if (!units_parse_real(text, UNIT_NONE, &v, err)) return false;
  if ((d->min && v < bound_real(d, d->min)) || (d->max && v > bound_real(d, d->max))) {
    *err = range_error(d, text);
    return false;
  }
  *(double *)field = v;
  return true;
}

static bool set_bool(void *field, const char *text, char **err) {
  bool t = !strcmp(text, "true");
  if (!t && strcmp(text, "false")) {
    *err = g_strdup_printf("expected true or false, got %s", *text ? text : "an empty value");
    return false;
  }
  *(bool *)field = t;
  return true;
}

static bool set_enum(const struct par_decl *d, void *field, const char *text, char **err) {
  char **c = enum_choices(d);
  guint n = g_strv_length(c);
  for (guint i = 0; i < n; i++) {
    if (strcmp(c[i], text)) continue;
    *(int *)field = (int)i;
    g_strfreev(c);
    return true;
  }
  const char *hint = par_suggest(text, (const char *const *)c, n);
  char *what = par_expected(d);
  *err = g_strdup_printf("expected %s, got %s%s%s%s", what, *text ? text : "an empty value",
                         hint ? " (did you mean " : "", hint ? hint : "", hint ? "?)" : "");
  g_free(what);
  g_strfreev(c);
  return false;
}

/* "1:3us, 8:5us": points with strictly rising integer X and time Y, each Y
 * within the declaration's range. */
static bool set_table(const struct par_decl *d, void *field, const char *text, char **err) {
  struct par_table t = {0};
  char *expected = par_expected(d);
  char **items = g_strsplit(text, ",", -1);
  bool ok = true;
  for (int i = 0; ok && items[i]; i++) {
    char *item = g_strstrip(items[i]);
    if (!*item && !items[i + 1] && i == 0) break; /* "" is the empty table */
    char *colon = strchr(item, ':');
    char *why = NULL;
    if (!colon) {
      why = g_strdup_printf("'%s' has no ':'", item);
    } else if (t.n == PAR_TABLE_MAX) {
      why = g_strdup_printf("more than %d points", PAR_TABLE_MAX);
    } else {
      *colon = '\0';
      char *xs = g_strstrip(item), *ys = g_strstrip(colon + 1), *sub = NULL;
      int64_t x, y;
      if (!units_parse_int(xs, UNIT_NONE, &x, &sub) || !units_parse_int(ys, UNIT_TIME, &y, &sub))
        why = sub;
      else if (t.n > 0 && x <= t.x[t.n - 1])
        why = g_strdup_printf("%s does not rise above %" G_GINT64_FORMAT, xs, t.x[t.n - 1]);
      else if ((d->min && y < bound_int(d, d->min)) || (d->max && y > bound_int(d, d->max)))
        why = g_strdup_printf("%s is out of range", ys);
      else {
        t.x[t.n] = x;
        t.y[t.n] = y;
        t.n++;
      }
      if (why && sub && why != sub) g_free(sub);
    }
    if (why) {
      *err = g_strdup_printf("expected %s, got '%s' (%s)", expected, text, why);
      g_free(why);
      ok = false;
    }
  }
  g_strfreev(items);
  g_free(expected);
  if (ok) *(struct par_table *)field = t;
  return ok;
}

int64_t par_table_eval(const struct par_table *t, int64_t x) {
  g_assert(t->n > 0);
  if (x <= t->x[0]) return t->y[0];
  for (int i = 1; i < t->n; i++) {
    if (x > t->x[i]) continue;
    /* Linear between points i-1 and i, rounded to nearest. */
    double f = (double)(x - t->x[i - 1]) / (double)(t->x[i] - t->x[i - 1]);
    return t->y[i - 1] + (int64_t)llround(f * (double)(t->y[i] - t->y[i - 1]));
  }
  return t->y[t->n - 1];
}

bool par_set(const struct par_decl *d, void *config, const char *text, char **err) {
  char *field = (char *)config + d->offset;
  char *ignored = NULL;
  if (!err) err = &ignored;
  bool ok = true;
  if (!text) text = "";
  if (is_integral(d->type)) ok = set_int(d, field, text, err);
  else if (d->type == PAR_FLOAT) ok = set_float(d, field, text, err);
  else if (d->type == PAR_BOOL) ok = set_bool(field, text, err);
  else if (d->type == PAR_ENUM) ok = set_enum(d, field, text, err);
  else if (d->type == PAR_TABLE) ok = set_table(d, field, text, err);
  else if (d->type == PAR_TREE) {
    *(const void **)field = NULL;
    if (*text) {
      ok = false;
      *err = g_strdup_printf("expected a YAML list or mapping, got '%s'", text);
    }
  } else {
    g_free(*(char **)field);
    *(char **)field = g_strdup(text);
  }
  g_free(ignored);
  return ok;
}

void par_group_defaults(const struct par_group *g, void *config) {
  for (size_t i = 0; i < g->n_decls; i++) {
    const struct par_decl *d = &g->decls[i];
    g_assert(d->offset < g->config_size);
    if (d->type == PAR_STRING) {
      /* CONFIG may be uninitialised: store without freeing what is there. */
      *(char **)((char *)config + d->offset) = g_strdup(d->def);
      continue;
    }
    char *err = NULL;
    if (!d->def || !par_set(d, config, d->def, &err))
      g_error("%s.%s: bad default: %s", g->name, d->key, err ? err : "missing");
  }
}

void par_group_free_config(const struct par_group *g, void *config) {
  for (size_t i = 0; i < g->n_decls; i++) {
    if (g->decls[i].type != PAR_STRING) continue;
    char **field = (char **)((char *)config + g->decls[i].offset);
    g_free(*field);
    *field = NULL;
  }
}

const struct par_decl *par_group_find(const struct par_group *g, const char *key) {
  for (size_t i = 0; i < g->n_decls; i++)
    if (!strcmp(g->decls[i].key, key)) return &g->decls[i];
  return NULL;
}

const char *par_group_suggest(const struct par_group *g, const char *key) {
  const char **keys = g_new(const char *, g->n_decls + 1);
  for (size_t i = 0; i < g->n_decls; i++) keys[i] = g->decls[i].key;
  const char *hint = par_suggest(key, keys, g->n_decls);
  g_free(keys);
  return hint;
}

/* Levenshtein distance with one rolling row. */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  size_t *row = g_new(size_t, lb + 1);
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  size_t d = row[lb];
  g_free(row);
  return d;
}

/* Close enough: distance at most max(2, len(WORD)/3); an exact match is not
 * a suggestion; ties go to the earlier candidate. */
const char *par_suggest(const char *word, const char *const *candidates, size_t n) {
  size_t limit = MAX((size_t)2, strlen(word) / 3);
  const char *best = NULL;
  size_t best_d = limit + 1;
  for (size_t i = 0; i < n; i++) {
    size_t d = edit_distance(word, candidates[i]);
    if (d > 0 && d < best_d) {
      best = candidates[i];
      best_d = d;
    }
  }
  return best;
}

static char *range_cell(const struct par_decl *d) {
  if (d->type == PAR_ENUM) return g_strdup(d->choices);
  if (d->type == PAR_TABLE && (d->min || d->max))
    return g_strdup_printf("times in [%s, %s]", d->min ? d->min : "-", d->max ? d->max : "-");
  if (!d->min && !d->max) return g_strdup("-");
  if (!d->max) return g_strdup_printf(">= %s", d->min);
  if (!d->min) return g_strdup_printf("<= %s", d->max);
  return g_strdup_printf("[%s, %s]", d->min, d->max);
}

void par_group_print(const struct par_group *g, FILE *out) { par_group_print_only(g, NULL, out); }

void par_group_print_only(const struct par_group *g, const struct par_decl *only, FILE *out) {
  const char *head[4] = {"key", "type", "default", "range"};
  int w[4];
  for (int c = 0; c < 4; c++) w[c] = (int)strlen(head[c]);
  char **cells = g_new0(char *, 4 * g->n_decls);
  for (size_t i = 0; i < g->n_decls; i++) {
    const struct par_decl *d = &g->decls[i];
    if (only && d != only) continue;
    cells[4 * i] = g_strdup(d->key);
    cells[4 * i + 1] = g_strdup(type_name(d->type));
    cells[4 * i + 2] = g_strdup(d->def && *d->def ? d->def : "-");
    cells[4 * i + 3] = range_cell(d);
    for (int c = 0; c < 4; c++) w[c] = MAX(w[c], (int)strlen(cells[4 * i + c]));
  }
  fprintf(out, "%s: %s\n", g->name, g->doc ? g->doc : "");
  fprintf(out, "  %-*s  %-*s  %-*s  %-*s  doc\n", w[0], head[0], w[1], head[1], w[2], head[2], w[3],
          head[3]);
  for (size_t i = 0; i < g->n_decls; i++) {
    char **r = &cells[4 * i];
    if (only && &g->decls[i] != only) continue;
    fprintf(out, "  %-*s  %-*s  %-*s  %-*s  %s\n", w[0], r[0], w[1], r[1], w[2], r[2], w[3], r[3],
            g->decls[i].doc ? g->decls[i].doc : "");
    for (int c = 0; c < 4; c++) g_free(r[c]);
  }
  g_free(cells);
}
