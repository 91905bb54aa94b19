/* Sweep sections (see sweep.h): parsing with marks, range expansion, point
 * indexing and seed derivation. */
#include "sweep.h"

#include <glib.h>
#include <math.h>
#include <string.h>

#include "rng.h"
#include "units.h"

/* Repetitions and points are capped so that a typo cannot ask for 10^12 runs. */
#define SW_MAX_POINTS 10000000u
#define SW_MAX_STEPS 1000000u

static const char *const sweep_keys[] = {"axes", "combine", "repeat"};
static const char *const axis_keys[] = {"path", "values", "range"};
static const char *const plot_keys[] = {"x",      "y",      "series", "logx",         "logy",
                                        "title",  "xlabel", "ylabel", "speedup_over", "facet",
                                        "where",  "name",   "stack"};
static const char *const range_keys[] = {"from", "to", "steps", "scale"};

static bool fail(char **err, const struct sc_node *n, const char *path, const char *want) {
  *err = sc_error_expected(n, path, want);
  return false;
}

/* A whole number in [LO, HI] from scalar N. */
static bool parse_count(const struct sc_node *n, const char *path, guint64 lo, guint64 hi,
                        size_t *out, char **err) {
  guint64 v = 0;
  if (!n || n->kind != SC_SCALAR ||
      !g_ascii_string_to_unsigned(n->scalar, 10, lo, hi, &v, NULL)) {
    char *want = g_strdup_printf("an integer in [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "]",
                                 lo, hi);
    fail(err, n, path, want);
    g_free(want);
    return false;
  }
  *out = (size_t)v;
  return true;
}

/* "2.5us" -> 2.5 and "us". */
static bool parse_number_unit(const struct sc_node *n, const char *path, double *v, char **unit,
                              char **err) {
  if (!n || n->kind != SC_SCALAR) return fail(err, n, path, "a number, with a unit or not");
  char *end = NULL;
  *v = g_ascii_strtod(n->scalar, &end);
  if (end == n->scalar || !isfinite(*v)) return fail(err, n, path, "a number, with a unit or not");
  *unit = g_strstrip(g_strdup(end));
  return true;
}

/* Prints V (a whole number when it is one, to 1e-9) followed by UNIT. */
static char *format_step(double v, const char *unit) {
  double r = round(v);
  if (fabs(v - r) <= 1e-9 * fmax(1.0, fabs(v)) && fabs(r) < 9e15)
    return g_strdup_printf("%.0f%s", r, unit);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd(buf, sizeof buf, "%.10g", v);
  return g_strdup_printf("%s%s", buf, unit);
}

/* The dimension of UNIT ("" : UNIT_NONE; -1: no unit units.h knows). */
static int unit_dim_of(const char *unit) {
  if (!*unit) return UNIT_NONE;
  static const enum unit_dim dims[] = {UNIT_TIME, UNIT_BANDWIDTH, UNIT_SIZE, UNIT_FREQ};
  char *one = g_strdup_printf("1%s", unit);
  int dim = -1;
  double v;
  char *e = NULL;
  for (size_t i = 0; i < G_N_ELEMENTS(dims) && dim < 0; i++)
    if (units_parse_real(one, dims[i], &v, &e)) dim = (int)dims[i];
    else g_clear_pointer(&e, g_free);
  g_free(one);
  return dim;
}

/* V, a whole number of DIM's base unit, written in UNIT (worth SCALE base
 * units) with the fewest digits that read back as V, or in units_format's
 * unit when no 17 digits do. */
static char *format_in_unit(int64_t v, enum unit_dim dim, const char *unit, double scale) {
  char buf[G_ASCII_DTOSTR_BUF_SIZE], fmt[8];
  for (int digits = 1; digits <= 17; digits++) {
    g_snprintf(fmt, sizeof fmt, "%%.%dg", digits);
    g_ascii_formatd(buf, sizeof buf, fmt, (double)v / scale);
    if (strpbrk(buf, "eE")) continue;
    /* Read back as a scenario reads it: exactly V. */
    char *text = g_strdup_printf("%s%s", buf, unit), *why = NULL;
    int64_t back = 0;
    if (units_parse_int(text, dim, &back, &why) && back == v) return text;
    g_free(why);
    g_free(text);
  }
  char out[64];
  return g_strdup(units_format(v, dim, out, sizeof out));
}

static bool parse_range(const struct sc_node *r, const char *path, struct sw_axis *ax,
                        char **note, char **err) {
  if (r->kind != SC_MAP)
    return fail(err, r, path, "a mapping {from, to, steps, scale: linear|log}");
  if (!sc_check_keys(r, path, range_keys, G_N_ELEMENTS(range_keys), err)) return false;
  char *fpath = g_strdup_printf("%s.from", path), *tpath = g_strdup_printf("%s.to", path);
  char *spath = g_strdup_printf("%s.steps", path), *cpath = g_strdup_printf("%s.scale", path);
  const struct sc_node *from = sc_map_get(r, "from"), *to = sc_map_get(r, "to");
  const struct sc_node *steps = sc_map_get(r, "steps"), *scale = sc_map_get(r, "scale");
  double a = 0, b = 0;
  char *ua = NULL, *ub = NULL;
  size_t n = 0;
  bool log_scale = false;
  bool ok = parse_number_unit(from, fpath, &a, &ua, err) && parse_number_unit(to, tpath, &b, &ub, err);
  /* from and to in units of one dimension (1us to 500ns), each read in
   * its base unit: a and b are then base units (ps, B, bps, Hz). */
  int dim = ok ? unit_dim_of(ua) : UNIT_NONE;
  double sa = 1;
  if (ok && dim < 0) {
    ok = fail(err, from, fpath, "a number, plain or with a unit (ps ns us ms s, B KiB MiB ..., "
                                "bps ... Tbps, Hz ... GHz)");
  } else if (ok && unit_dim_of(ub) != dim) {
    char *want = dim != UNIT_NONE ? g_strdup_printf("%s like from", units_dim_name((enum unit_dim)dim))
                                  : g_strdup("a plain number like from");
    ok = fail(err, to, tpath, want);
    g_free(want);
  } else if (ok && dim != UNIT_NONE) {
    char *one = g_strdup_printf("1%s", ua), *e = NULL;
    double sb = 1;
    units_parse_real(one, (enum unit_dim)dim, &sa, &e);
    g_free(one);
    one = g_strdup_printf("1%s", ub);
    units_parse_real(one, (enum unit_dim)dim, &sb, &e);
    g_free(one);
    a *= sa;
    b *= sb;
  }
  ok = ok && parse_count(steps, spath, 1, SW_MAX_STEPS, &n, err);
  if (ok && scale) {
    log_scale = scale->kind == SC_SCALAR && !strcmp(scale->scalar, "log");
    if (!log_scale && (scale->kind != SC_SCALAR || strcmp(scale->scalar, "linear")))
      ok = fail(err, scale, cpath, "linear or log");
  }
  if (ok && log_scale && (a <= 0 || b <= 0))
    ok = fail(err, a <= 0 ? from : to, a <= 0 ? fpath : tpath, "a value above 0 on a log scale");
  if (ok && n == 1 && a != b)
    ok = fail(err, steps, spath, "at least 2 steps between two different values");
  if (ok && dim != UNIT_NONE && (fabs(a) > 9e18 || fabs(b) > 9e18))
    ok = fail(err, fabs(a) > 9e18 ? from : to, fabs(a) > 9e18 ? fpath : tpath,
              "a value that fits in 64 bits of its base unit");
  for (size_t i = 0; ok && i < n; i++) {
    double f = n > 1 ? (double)i / (double)(n - 1) : 0.0;
    double v = i == 0 ? a : i == n - 1 ? b : log_scale ? a * pow(b / a, f) : a + (b - a) * f;
    struct sc_node *node = sc_node_copy(from);
    g_free(node->scalar);
    if (dim == UNIT_NONE) {
      node->scalar = format_step(v, ua);
    } else {
      /* A value with a unit is a whole number of base units (a time a
       * whole ps): a step between two is rounded to the nearest, said
       * once (the first, in *NOTE) when that moved it. */
      int64_t w = llround(v);
      node->scalar = format_in_unit(w, (enum unit_dim)dim, ua, sa);
      if (fabs(v - (double)w) > 1e-12 * fmax(1e6, fabs(v)) && note && !*note) {
        char exact[G_ASCII_DTOSTR_BUF_SIZE];
        g_ascii_formatd(exact, sizeof exact, "%.10g", v / sa);
        *note = sc_error_at(from, path, "values rounded to a whole %s (%s%s is %s)",
                            dim == UNIT_TIME ? "ps" : dim == UNIT_SIZE ? "byte"
                            : dim == UNIT_BANDWIDTH ? "bps" : "Hz",
                            exact, ua, node->scalar);
      }
    }
    node->quoted = false;
    ax->values[ax->n_values++] = node;
  }
  g_free(ua);
  g_free(ub);
  g_free(fpath);
  g_free(tpath);
  g_free(spath);
  g_free(cpath);
  return ok;
}

static bool parse_axis(const struct sc_node *a, const char *path, struct sw_axis *ax, char **note,
                       char **err) {
  if (a->kind != SC_MAP)
    return fail(err, a, path, "an axis mapping {path: P, values: [...]} or {path: P, range: {...}}");
  if (!sc_check_keys(a, path, axis_keys, G_N_ELEMENTS(axis_keys), err)) return false;
  ax->at = a;
  const struct sc_node *p = sc_map_get(a, "path");
  const struct sc_node *values = sc_map_get(a, "values"), *range = sc_map_get(a, "range");
  char *ppath = g_strdup_printf("%s.path", path);
  char *vpath = g_strdup_printf("%s.%s", path, range ? "range" : "values");
  bool ok = true;
  if (!p || p->kind != SC_SCALAR || !*p->scalar)
    ok = fail(err, p ? p : a, ppath, "a parameter path such as hardware.network.nodes");
  else if (values && range)
    ok = fail(err, range, vpath, "either values or range, not both");
  else if (!values && !range)
    ok = fail(err, a, vpath, "a values list or a range");
  if (ok) {
    ax->path = g_strdup(p->scalar);
    ax->at = p;
  }
  if (ok && values) {
    if (values->kind != SC_SEQ || !values->n_items) {
      ok = fail(err, values, vpath, "a non-empty list of values");
    } else {
      ax->values = g_new0(struct sc_node *, values->n_items);
      for (size_t i = 0; i < values->n_items; i++)
        ax->values[ax->n_values++] = sc_node_copy(values->items[i]);
    }
  } else if (ok) {
    const struct sc_node *steps = range->kind == SC_MAP ? sc_map_get(range, "steps") : NULL;
    guint64 n = 0;
    if (steps && steps->kind == SC_SCALAR)
      g_ascii_string_to_unsigned(steps->scalar, 10, 1, SW_MAX_STEPS, &n, NULL);
    ax->values = g_new0(struct sc_node *, n ? n : 1);
    ok = parse_range(range, vpath, ax, note, err);
  }
  g_free(ppath);
  g_free(vpath);
  return ok;
}

static bool parse_axes(const struct sc_node *axes, struct sw_plan *p, char **err) {
  if (!axes || axes->kind != SC_SEQ || !axes->n_items)
    return fail(err, axes, "sweep.axes", "a non-empty list of axes");
  p->axes = g_new0(struct sw_axis, axes->n_items);
  size_t combos = 1;
  for (size_t i = 0; i < axes->n_items; i++) {
    char *path = g_strdup_printf("sweep.axes[%zu]", i);
    bool ok = parse_axis(axes->items[i], path, &p->axes[p->n_axes++], &p->note, err);
    struct sw_axis *ax = &p->axes[i];
    if (ok && p->zip && i > 0 && ax->n_values != p->axes[0].n_values) {
      char *want = g_strdup_printf("as many values as axis 0 (%zu) to zip", p->axes[0].n_values);
      *err = sc_error_at(ax->at, path, "expected %s, got %zu", want, ax->n_values);
      g_free(want);
      ok = false;
    }
    for (size_t j = 0; ok && j < i; j++) {
      if (strcmp(p->axes[j].path, ax->path)) continue;
      *err = sc_error_at(ax->at, path, "expected each path once among the axes, got '%s' again",
                         ax->path);
      ok = false;
    }
    g_free(path);
    if (!ok) return false;
    combos = p->zip ? ax->n_values : combos * ax->n_values;
    if (combos > SW_MAX_POINTS)
      return fail(err, axes, "sweep.axes", "at most 10000000 points");
  }
  p->n_combos = combos;
  return true;
}

struct sw_plan *sw_plan_parse(const struct sc_node *sweep, char **err) {
  struct sw_plan *p = g_new0(struct sw_plan, 1);
  p->repeat = 1;
  bool ok = true;
  if (sweep->kind != SC_MAP)
    ok = fail(err, sweep, "sweep", "a mapping with axes, combine and repeat");
  ok = ok && sc_check_keys(sweep, "sweep", sweep_keys, G_N_ELEMENTS(sweep_keys), err);
  const struct sc_node *combine = ok ? sc_map_get(sweep, "combine") : NULL;
  if (combine) {
    p->zip = combine->kind == SC_SCALAR && !strcmp(combine->scalar, "zip");
    if (!p->zip && (combine->kind != SC_SCALAR || strcmp(combine->scalar, "product")))
      ok = fail(err, combine, "sweep.combine", "product or zip");
  }
  const struct sc_node *repeat = ok ? sc_map_get(sweep, "repeat") : NULL;
  if (repeat) ok = parse_count(repeat, "sweep.repeat", 1, 100000, &p->repeat, err);
  ok = ok && parse_axes(sc_map_get(sweep, "axes"), p, err);
  if (ok && p->n_combos * p->repeat > SW_MAX_POINTS)
    ok = fail(err, repeat, "sweep.repeat", "at most 10000000 points in all");
  if (ok) {
    p->n_points = p->n_combos * p->repeat;
    return p;
  }
  sw_plan_free(p);
  return NULL;
}

void sw_plan_free(struct sw_plan *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n_axes; i++) {
    for (size_t j = 0; j < p->axes[i].n_values; j++) sc_node_free(p->axes[i].values[j]);
    g_free(p->axes[i].values);
    g_free(p->axes[i].path);
  }
  g_free(p->axes);
  g_free(p->note);
  g_free(p);
}

size_t sw_point_rep(const struct sw_plan *p, size_t i) { return i % p->repeat; }

/* Index of axis AXIS's value at point I. */
static size_t sw_point_value(const struct sw_plan *p, size_t i, size_t axis) {
  size_t combo = i / p->repeat;
  if (p->zip) return combo;
  for (size_t a = p->n_axes; a-- > axis + 1;) combo /= p->axes[a].n_values;
  return combo % p->axes[axis].n_values;
}

/* The `label:` of a mapping value (a configuration named for the result
 * column), or NULL. */
static const char *map_label(const struct sc_node *v) {
  const struct sc_node *l = v->kind == SC_MAP ? sc_map_get(v, "label") : NULL;
  return l && l->kind == SC_SCALAR ? l->scalar : NULL;
}

const char *sw_point_label(const struct sw_plan *p, size_t i, size_t axis) {
  const struct sc_node *v = p->axes[axis].values[sw_point_value(p, i, axis)];
  if (v->kind == SC_SCALAR) return v->scalar;
  if (map_label(v)) return map_label(v);
  return v->kind == SC_MAP ? "{...}" : "[...]";
}

bool sw_apply_point(const struct sw_plan *p, size_t i, struct sc_node *root, char **err) {
  for (size_t a = 0; a < p->n_axes; a++) {
    const struct sw_axis *ax = &p->axes[a];
    const char *path = strcmp(ax->path, "policy") ? ax->path : "policies";
    struct sc_node *v = sc_node_copy(ax->values[sw_point_value(p, i, a)]);
    if (map_label(v)) { /* the label names the point; it sets nothing */
      size_t k = 0;
      while (strcmp(v->pairs[k].key, "label")) k++;
      g_free(v->pairs[k].key);
      sc_node_free(v->pairs[k].value);
      memmove(&v->pairs[k], &v->pairs[k + 1], (v->n_pairs - k - 1) * sizeof v->pairs[0]);
      v->n_pairs--;
    }
    if (!sc_put(root, path, v, ax->at, err)) return false;
  }
  return true;
}

uint64_t sw_seed(uint64_t base, size_t rep) { return rep ? rng_derive(base, rep) : base; }

static void hash_node(GChecksum *h, const struct sc_node *n) {
  char tag[32];
  g_snprintf(tag, sizeof tag, "%d:%zu:%zu:%d:", (int)n->kind, n->n_pairs, n->n_items, n->quoted);
  g_checksum_update(h, (const guchar *)tag, -1);
  if (n->kind == SC_SCALAR) g_checksum_update(h, (const guchar *)n->scalar, (gssize)strlen(n->scalar) + 1);
  for (size_t i = 0; i < n->n_pairs; i++) {
    g_checksum_update(h, (const guchar *)n->pairs[i].key, (gssize)strlen(n->pairs[i].key) + 1);
    hash_node(h, n->pairs[i].value);
  }
  for (size_t i = 0; i < n->n_items; i++) hash_node(h, n->items[i]);
}

char *sw_fingerprint(const struct sc_node *root, const char *extra) {
  GChecksum *h = g_checksum_new(G_CHECKSUM_SHA256);
  hash_node(h, root);
  if (extra) g_checksum_update(h, (const guchar *)extra, -1);
  char *hex = g_strdup(g_checksum_get_string(h));
  g_checksum_free(h);
  return hex;
}

bool sw_plot_check(const struct sc_node *plot, char **err) {
  if (plot->kind == SC_SEQ) { /* several figures of one sweep */
    if (!plot->n_items) return fail(err, plot, "plot", "a mapping or a non-empty list of them");
    for (size_t i = 0; i < plot->n_items; i++) {
      const struct sc_node *name = sc_map_get(plot->items[i], "name");
      if (plot->items[i]->kind == SC_MAP && !name)
        return fail(err, plot->items[i], "plot", "a name: in each plot of a list");
      if (!sw_plot_check(plot->items[i], err)) return false;
      if (name->kind == SC_SCALAR && strpbrk(name->scalar, "/ "))
        return fail(err, name, "plot.name", "a name without '/' or spaces (it names a file)");
    }
    return true;
  }
  if (plot->kind != SC_MAP) return fail(err, plot, "plot", "a mapping with x, y, series, ...");
  if (!sc_check_keys(plot, "plot", plot_keys, G_N_ELEMENTS(plot_keys), err)) return false;
  for (size_t i = 0; i < plot->n_pairs; i++) {
    const struct sc_pair *p = &plot->pairs[i];
    const struct sc_node *v = p->value;
    char *path = g_strdup_printf("plot.%s", p->key);
    bool flag = !strcmp(p->key, "logx") || !strcmp(p->key, "logy");
    bool ok = true;
    if (!strcmp(p->key, "where")) { /* COL=VALUE, or a list of them */
      size_t n = v->kind == SC_SEQ ? v->n_items : 1;
      for (size_t k = 0; ok && k < n; k++) {
        const struct sc_node *w = v->kind == SC_SEQ ? v->items[k] : v;
        if (w->kind != SC_SCALAR || !strchr(w->scalar, '=') || *w->scalar == '=' ||
            strpbrk(w->scalar, "\n\r\t"))
          ok = fail(err, w, path, "COLUMN=VALUE (one line), or a list of them");
      }
      if (ok && v->kind == SC_SEQ && !v->n_items) ok = fail(err, v, path, "COLUMN=VALUE, or a list of them");
      g_free(path);
      if (!ok) return false;
      continue;
    }
    if (v->kind != SC_SCALAR || !*v->scalar || strpbrk(v->scalar, "\n\r\t"))
      ok = fail(err, v, path, flag ? "true or false" : "one line of text");
    else if (flag && strcmp(v->scalar, "true") && strcmp(v->scalar, "false"))
      ok = fail(err, v, path, "true or false");
    g_free(path);
    if (!ok) return false;
  }
  return true;
}
