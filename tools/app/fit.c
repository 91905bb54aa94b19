/* `trigsim fit` (see fit.h): the fit file, its evaluation through the
 * sweep runner (tools/app/sweep_run.h, tools/app/points.h), GSL's
 * gsl_multifit_nlinear on logistic-transformed parameters, and the profile
 * fragment with provenance it writes. */
#include "fit.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_multifit_nlinear.h>
#include <math.h>
#include <string.h>

#include "input.h"
#include "points.h"
#include "sweep_run.h"
#include "units.h"
#include "workload.h"

#define EXIT_INPUT 2

/* A target's quantity: the run's end (total_time_ps), the policy's own end
 * (`end: policy`, policy_end_ps), a phase sum or a counter. */
enum quantity { Q_TOTAL, Q_POLICY_END, Q_PHASE, Q_COUNTER };

struct fit_param {
  char *path;                  /* "hardware.cpu.send", or "hardware.cpu.submit_table@64" */
  char *set_path;              /* the path it is applied at (without "@X") */
  int64_t x;                   /* a table point's X (a PAR_TABLE parameter) */
  const struct par_decl *decl;
  const struct sc_node *node;  /* its entry in the fit file (marks) */
  double lo, hi, start;        /* base units (ps, bps, bytes, Hz, number) */
  char *why;                   /* NULL: none given */
  double value, sigma;         /* after the fit */
  int bound;                   /* -1 min, 1 max, 0 none */
};

struct fit_target {
  char *name;
  const struct sc_node *node;  /* the target's mapping */
  size_t run;                  /* into fit.runs */
  char *policy, *over;         /* OVER NULL: not a ratio */
  enum quantity q;
  char *key;                   /* phase or counter name */
  const struct sc_node *key_node;
  char *key_path;              /* "targets[0].counter", for messages */
  double value, weight;        /* target in base units */
  enum unit_dim dim;           /* of VALUE as written; UNIT_NONE for plain numbers */
  double achieved;
};

/* A scenario run the targets need: scenario SCEN with the assignments of
 * AT (a target's `at:` map, or NULL), under POLICIES. */
struct fit_run {
  size_t scen;
  const struct sc_node *at;
  char *at_text;               /* canonical text of AT, to share runs */
  GPtrArray *policies;         /* char * */
};

struct fit_scen {
  char *name, *path;
  struct sc_node *tree;        /* loaded once, copied per evaluation */
  const struct scenario *bound;/* bound as written, for checks */
  struct points checked;       /* owns BOUND */
};

struct fit {
  char *path, *name, *extends; /* EXTENDS: absolute path, or NULL */
  struct sc_node *root;
  struct fit_scen *scens;
  size_t n_scens;
  struct fit_param *params;
  size_t n_params;
  struct fit_target *targets;
  size_t n_targets;
  struct fit_run *runs;
  size_t n_runs;
  size_t max_iter;
  double fd_step;              /* logistic-space step of the central differences */
  bool log_residual;           /* options.residual: log: weight * ln(achieved / target) */
  /* Run state. */
  unsigned jobs;
  FILE *progress;
  char *err;
  int status;
  size_t evals, iterations;
  double chi2, chi2_start;
  const char *reason;
};

/* ---- messages ---- */

static bool fail(char **err, const struct sc_node *n, const char *path, const char *want) {
  *err = sc_error_expected(n, path, want);
  return false;
}

/* A key's place, for messages about the key itself. */
static struct sc_node key_at(const struct sc_pair *p) {
  return (struct sc_node){.file = p->file, .line = p->line, .col = p->col};
}

static const struct sc_node *want_scalar(const struct sc_node *n, const char *path,
                                         const char *want, char **err) {
  if (n && n->kind == SC_SCALAR && *n->scalar) return n;
  fail(err, n, path, want);
  return NULL;
}

/* A number with or without a unit: its value in the unit's base and its
 * dimension (UNIT_NONE for a plain number). */
static bool parse_quantity(const struct sc_node *n, const char *path, double *v,
                           enum unit_dim *dim, char **err) {
  static const enum unit_dim dims[] = {UNIT_NONE, UNIT_TIME, UNIT_BANDWIDTH, UNIT_SIZE, UNIT_FREQ};
  for (size_t i = 0; n && n->kind == SC_SCALAR && i < G_N_ELEMENTS(dims); i++) {
    char *why = NULL;
    if (units_parse_real(n->scalar, dims[i], v, &why)) {
      *dim = dims[i];
      return true;
    }
    g_free(why);
  }
  return fail(err, n, path, "a number, or a value with a unit such as 1.5us");
}

/* The suffix of DIM's base unit: a value with units is never bare. */
static const char *base_unit(enum unit_dim dim) {
  switch (dim) {
  case UNIT_TIME: return "ps";
  case UNIT_BANDWIDTH: return "bps";
  case UNIT_SIZE: return "B";
  case UNIT_FREQ: return "Hz";
  default: return "";
  }
}

/* ---- loading ---- */

/* The declaration PATH names: hardware.GROUP.KEY, or workload.KEY of
 * every scenario's workload. */
static const struct par_decl *resolve_param(struct fit *f, const char *path,
                                            const struct sc_node *at, char **err) {
  char **c = g_strsplit(path, ".", -1);
  guint64 x = 0;
  char *point = strchr(c[0] ? c[g_strv_length(c) - 1] : "", '@');
  bool bad_point = point && (!g_ascii_string_to_unsigned(point + 1, 10, 0, G_MAXINT64, &x, NULL));
  if (point) *point = '\0';
  guint n = g_strv_length(c);
  const struct par_decl *d = NULL;
  const struct par_group *g = NULL;
  const char *key = NULL;
  if (n == 3 && !strcmp(c[0], "hardware")) {
    for (size_t i = 0; i < wl_catalog.n_hardware && !g; i++)
      if (!strcmp(wl_catalog.hardware[i]->name, c[1])) g = wl_catalog.hardware[i];
    key = c[2];
  } else if (n == 2 && !strcmp(c[0], "workload") && f->n_scens > 0) {
    g = wl_catalog.workloads[f->scens[0].bound->workload];
    for (size_t s = 1; s < f->n_scens && g; s++)
      if (wl_catalog.workloads[f->scens[s].bound->workload] != g) g = NULL;
    key = c[1];
  }
  if (g) d = par_group_find(g, key);
  if (!d) {
    const char *hint = g ? par_group_suggest(g, key) : NULL;
    char *want = g_strdup_printf("a declared parameter (hardware.GROUP.KEY, or workload.KEY when "
                                 "every scenario runs one workload; trigsim params lists them%s%s%s)",
                                 hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
    char *kp = g_strdup_printf("parameters.%s", path);
    *err = sc_error_at(at, kp, "expected %s, got '%s'", want, path);
    g_free(kp);
    g_free(want);
  } else if ((d->type == PAR_TABLE) != (point != NULL) || bad_point ||
             (d->type != PAR_INT && d->type != PAR_FLOAT && d->type != PAR_TIME &&
              d->type != PAR_BANDWIDTH && d->type != PAR_SIZE && d->type != PAR_FREQ &&
              d->type != PAR_TABLE)) {
    char *kp = g_strdup_printf("parameters.%s", path);
    *err = sc_error_at(at, kp, "expected a numeric parameter (a number, time, bandwidth, size "
                               "or frequency) or a table's point (PATH@X, X an integer), got '%s'",
                       path);
    g_free(kp);
    d = NULL;
  }
  g_strfreev(c);
  return d;
}

/* A bound or start value of parameter P, in its declared unit and range. */
static bool param_value(const struct fit_param *p, const struct sc_node *n, const char *path,
                        double *v, char **err) {
  enum unit_dim dim = par_type_dim(p->decl->type);
  char *why = NULL;
  if (!want_scalar(n, path, "a value", err)) return false;
  if (!units_parse_real(n->scalar, dim, v, &why)) {
    *err = sc_error_at(n, path, "%s", why);
    g_free(why);
    return false;
  }
  /* The declared range: par_set on a scratch value says it as `params` does. */
  union { int64_t i; double d; struct par_table t; } scratch;
  char text[64];
  if (p->decl->type == PAR_FLOAT) g_ascii_formatd(text, sizeof text, "%.17g", *v);
  else if (p->decl->type == PAR_TABLE)
    g_snprintf(text, sizeof text, "%lld:%lldps", (long long)p->x, (long long)llround(*v));
  else g_snprintf(text, sizeof text, "%lld%s", (long long)llround(*v), base_unit(dim));
  struct par_decl d = *p->decl;
  d.offset = 0;
  bool ok = par_set(&d, &scratch, text, &why);
  if (!ok) {
    *err = sc_error_at(n, path, "expected %s in the parameter's declared range [%s, %s], got '%s'",
                       units_dim_name(dim), p->decl->min ? p->decl->min : "-",
                       p->decl->max ? p->decl->max : "-", n->scalar);
    g_free(why);
  }
  return ok;
}

static bool load_param(struct fit *f, const struct sc_pair *pr, struct fit_param *p, char **err) {
  static const char *const keys[] = {"start", "min", "max", "why"};
  struct sc_node at = key_at(pr);
  char *path = g_strdup_printf("parameters.%s", pr->key);
  bool ok = false;
  p->path = g_strdup(pr->key);
  p->node = pr->value;
  if (!(p->decl = resolve_param(f, pr->key, &at, err))) goto out;
  char *sign = strchr(p->path, '@');
  p->set_path = sign ? g_strndup(p->path, (gsize)(sign - p->path)) : g_strdup(p->path);
  if (sign) p->x = g_ascii_strtoll(sign + 1, NULL, 10);
  for (size_t q = 0; q < (size_t)(p - f->params); q++)
    if (!strcmp(f->params[q].path, p->path)) {
      fail(err, &at, path, "each parameter (or table point) once");
      goto out;
    }
  const struct sc_node *m = pr->value;
  if (m->kind != SC_MAP) {
    fail(err, m, path, "a mapping with start, min, max (and why)");
    goto out;
  }
  if (!sc_check_keys(m, path, keys, G_N_ELEMENTS(keys), err)) goto out;
  char *sp = g_strdup_printf("%s.start", path), *lp = g_strdup_printf("%s.min", path),
       *hp = g_strdup_printf("%s.max", path);
  ok = param_value(p, sc_map_get(m, "min"), lp, &p->lo, err) &&
       param_value(p, sc_map_get(m, "max"), hp, &p->hi, err) &&
       param_value(p, sc_map_get(m, "start"), sp, &p->start, err);
  if (ok && !(p->lo < p->hi)) ok = fail(err, sc_map_get(m, "max"), hp, "a value above min");
  if (ok && !(p->start > p->lo && p->start < p->hi))
    ok = fail(err, sc_map_get(m, "start"), sp, "a value strictly between min and max");
  const struct sc_node *why = sc_map_get(m, "why");
  if (ok && why) {
    char *wp = g_strdup_printf("%s.why", path);
    ok = want_scalar(why, wp, "a one-line reason for the bounds", err) != NULL;
    if (ok) p->why = g_strdup(why->scalar);
    g_free(wp);
  }
  g_free(sp);
  g_free(lp);
  g_free(hp);
out:
  g_free(path);
  return ok;
}

static bool known_policy(const struct scenario *sc, const char *name) {
  size_t n;
  const char *const *can = sc->catalog->policies(&n);
  for (size_t i = 0; i < n; i++)
    if (!strcmp(can[i], name)) return true;
  return false;
}

/* The canonical text of an `at:` map (its pairs in order), to share runs. */
static char *at_text(const struct sc_node *at) {
  GString *s = g_string_new(NULL);
  for (size_t i = 0; at && i < at->n_pairs; i++)
    g_string_append_printf(s, "%s=%s;", at->pairs[i].key,
                           at->pairs[i].value->kind == SC_SCALAR ? at->pairs[i].value->scalar : "?");
  return g_string_free(s, FALSE);
}

static size_t run_for(struct fit *f, size_t scen, const struct sc_node *at) {
  char *text = at_text(at);
  for (size_t r = 0; r < f->n_runs; r++)
    if (f->runs[r].scen == scen && !strcmp(f->runs[r].at_text, text)) {
      g_free(text);
      return r;
    }
  f->runs = g_renew(struct fit_run, f->runs, f->n_runs + 1);
  f->runs[f->n_runs] = (struct fit_run){.scen = scen, .at = at, .at_text = text,
                                        .policies = g_ptr_array_new_with_free_func(g_free)};
  return f->n_runs++;
}

static void run_add_policy(struct fit_run *r, const char *policy) {
  for (guint i = 0; i < r->policies->len; i++)
    if (!strcmp(r->policies->pdata[i], policy)) return;
  g_ptr_array_add(r->policies, g_strdup(policy));
}

/* A policy name of target PATH: one the program knows and the scenario's
 * workload runs. */
static bool check_policy(const struct fit_scen *s, const struct sc_node *n, const char *path,
                         char **err) {
  if (!want_scalar(n, path, "a policy", err)) return false;
  if (known_policy(s->bound, n->scalar)) {
    size_t n_can;
    const char *const *can = wl_policies_of(wl_type_of(s->bound), &n_can);
    for (size_t k = 0; k < n_can; k++)
      if (!strcmp(can[k], n->scalar)) return true;
  }
  size_t n_all;
  const char *const *all = s->bound->catalog->policies(&n_all);
  const char *hint = par_suggest(n->scalar, all, n_all);
  *err = sc_error_at(n, path, "expected a policy the %s workload of scenario %s runs%s%s%s, got '%s'",
                     wl_type_of(s->bound)->params->name, s->name, hint ? " (did you mean '" : "",
                     hint ? hint : "", hint ? "'?)" : "", n->scalar);
  return false;
}

/* A target's value taken from a file, VALUE being {from: FILE, key:
 * a.b.c} (a calibrate profile's raw measurements): the scalar at the key,
 * the first item of a [median, spread] pair, or a {median: ...} map's
 * median. *TREE (sc_node_free) holds the file; NULL and *ERR otherwise. */
static const struct sc_node *measured_value(const struct fit *f, const struct sc_node *value,
                                            const char *path, struct sc_node **tree, char **err) {
  static const char *const keys[] = {"from", "key"};
  if (!sc_check_keys(value, path, keys, G_N_ELEMENTS(keys), err)) return NULL;
  char *fp = g_strdup_printf("%s.from", path), *kp = g_strdup_printf("%s.key", path);
  const struct sc_node *from = want_scalar(sc_map_get(value, "from"), fp, "a YAML file, relative to the fit file", err);
  const struct sc_node *key = from ? want_scalar(sc_map_get(value, "key"), kp, "a dotted key path", err) : NULL;
  const struct sc_node *n = NULL;
  if (key) {
    char *file = in_path_beside(f->path, from->scalar);
    if (!g_file_test(file, G_FILE_TEST_IS_REGULAR))
      fail(err, from, fp, "an existing YAML file, relative to the fit file");
    else if ((*tree = sc_load_file(file, err))) {
      char **c = g_strsplit(key->scalar, ".", -1);
      n = *tree;
      for (size_t i = 0; n && c[i]; i++) n = sc_map_get(n, c[i]);
      if (n && n->kind == SC_SEQ && n->n_items > 0) n = n->items[0];
      else if (n && n->kind == SC_MAP) n = sc_map_get(n, "median");
      if (!n || n->kind != SC_SCALAR) {
        char *want = g_strdup_printf("a key of %s holding a value, a [median, spread] pair or a "
                                     "{median: ...} map", from->scalar);
        fail(err, key, kp, want);
        g_free(want);
        n = NULL;
      }
      g_strfreev(c);
    }
    g_free(file);
  }
  g_free(fp);
  g_free(kp);
  return n;
}

static bool load_target(struct fit *f, size_t i, const struct sc_node *m, char **err) {
  static const char *const keys[] = {"name",    "scenario", "policy", "over",  "phase",
                                     "counter", "end",      "at",     "value", "weight"};
  struct fit_target *t = &f->targets[i];
  char *path = g_strdup_printf("targets[%zu]", i);
  char *kp = NULL;
  struct sc_node *measured = NULL; /* a file a value is taken from */
  bool ok = false;
  t->node = m;
  t->weight = 1;
  if (m->kind != SC_MAP) {
    fail(err, m, path, "a mapping with scenario, policy, value");
    goto out;
  }
  if (!sc_check_keys(m, path, keys, G_N_ELEMENTS(keys), err)) goto out;
#define KP(k) (g_free(kp), kp = g_strdup_printf("%s.%s", path, k))
  const struct sc_node *n = sc_map_get(m, "scenario");
  if (!want_scalar(n, KP("scenario"), "the name of one of the fit's scenarios", err)) goto out;
  size_t s = 0;
  while (s < f->n_scens && strcmp(f->scens[s].name, n->scalar)) s++;
  if (s == f->n_scens) {
    GString *names = g_string_new(NULL);
    for (size_t k = 0; k < f->n_scens; k++)
      g_string_append_printf(names, "%s%s", k ? ", " : "", f->scens[k].name);
    *err = sc_error_at(n, kp, "expected one of the fit's scenarios (%s), got '%s'", names->str,
                       n->scalar);
    g_string_free(names, TRUE);
    goto out;
  }
  const struct fit_scen *sc = &f->scens[s];
  n = sc_map_get(m, "policy");
  if (!check_policy(sc, n, KP("policy"), err)) goto out;
  t->policy = g_strdup(n->scalar);
  if ((n = sc_map_get(m, "over"))) {
    if (!check_policy(sc, n, KP("over"), err)) goto out;
    t->over = g_strdup(n->scalar);
  }
  const struct sc_node *ph = sc_map_get(m, "phase"), *ct = sc_map_get(m, "counter");
  if (ph && ct) {
    fail(err, ct, KP("counter"), "either phase or counter, not both");
    goto out;
  }
  t->q = ph ? Q_PHASE : ct ? Q_COUNTER : Q_TOTAL;
  const struct sc_node *end = sc_map_get(m, "end");
  if (end) {
    if (ph || ct) {
      fail(err, end, KP("end"), "end only on a time target (not with phase or counter)");
      goto out;
    }
    if (!want_scalar(end, KP("end"), "run or policy", err)) goto out;
    if (strcmp(end->scalar, "run") && strcmp(end->scalar, "policy")) {
      *err = sc_error_at(end, kp, "expected run or policy, got '%s'", end->scalar);
      goto out;
    }
    if (!strcmp(end->scalar, "policy")) t->q = Q_POLICY_END;
  }
  if ((t->key_node = ph ? ph : ct)) {
    if (!want_scalar(t->key_node, KP(ph ? "phase" : "counter"),
                     ph ? "a phase name such as host stack" : "a counter such as node0.nic.puts", err))
      goto out;
    t->key = g_strdup(t->key_node->scalar);
    t->key_path = g_strdup(kp);
  }
  n = sc_map_get(m, "value");
  KP("value");
  if (n && n->kind == SC_MAP && !(n = measured_value(f, n, kp, &measured, err))) goto out;
  if (!parse_quantity(n, kp, &t->value, &t->dim, err)) goto out;
  if (t->value == 0) {
    fail(err, n, kp, "a non-zero value (residuals are relative to it)");
    goto out;
  }
  if (t->over && t->dim != UNIT_NONE) {
    fail(err, n, kp, "a plain number (a ratio of two policies' values)");
    goto out;
  }
  if (!t->over && t->q != Q_COUNTER) {
    if (t->dim != UNIT_NONE && t->dim != UNIT_TIME) {
      fail(err, n, kp, "a time such as 3.5us (or a number of picoseconds)");
      goto out;
    }
    t->dim = UNIT_TIME;
  }
  if ((n = sc_map_get(m, "weight"))) {
    enum unit_dim d;
    if (!parse_quantity(n, KP("weight"), &t->weight, &d, err)) goto out;
    if (d != UNIT_NONE || !(t->weight > 0)) {
      fail(err, n, kp, "a positive number");
      goto out;
    }
  }
  const struct sc_node *at = sc_map_get(m, "at");
  if (at && (at->kind != SC_MAP || at->n_pairs == 0)) {
    fail(err, at, KP("at"), "a mapping of parameter paths to values, as --set takes");
    goto out;
  }
  for (size_t k = 0; at && k < at->n_pairs; k++)
    for (size_t q = 0; q < f->n_params; q++)
      if (!strcmp(at->pairs[k].key, f->params[q].set_path)) {
        struct sc_node where = key_at(&at->pairs[k]);
        char *ap = g_strdup_printf("%s.at.%s", path, at->pairs[k].key);
        *err = sc_error_at(&where, ap, "expected a path that is not fitted, got '%s' (a parameter)",
                           at->pairs[k].key);
        g_free(ap);
        goto out;
      }
  n = sc_map_get(m, "name");
  if (n && !want_scalar(n, KP("name"), "a name", err)) goto out;
  t->name = n ? g_strdup(n->scalar)
              : g_strdup_printf("%s %s%s%s", t->key ? t->key : t->q == Q_POLICY_END ? "policy_end_ps" : "total_time_ps", t->policy,
                                t->over ? " / " : "", t->over ? t->over : "");
  t->run = run_for(f, s, at);
  run_add_policy(&f->runs[t->run], t->policy);
  if (t->over) run_add_policy(&f->runs[t->run], t->over);
  ok = true;
#undef KP
out:
  sc_node_free(measured);
  g_free(kp);
  g_free(path);
  return ok;
}

static bool load_scenarios(struct fit *f, const struct sc_node *m, char **err) {
  if (!m || m->kind != SC_MAP || m->n_pairs == 0)
    return fail(err, m ? m : f->root, "scenarios", "a mapping of names to scenario files");
  char *dir = g_path_get_dirname(f->path);
  f->scens = g_new0(struct fit_scen, m->n_pairs);
  bool ok = true;
  for (size_t i = 0; ok && i < m->n_pairs; i++) {
    const struct sc_pair *p = &m->pairs[i];
    char *kp = g_strdup_printf("scenarios.%s", p->key);
    struct fit_scen *s = &f->scens[f->n_scens];
    ok = want_scalar(p->value, kp, "a scenario file, relative to the fit file", err) != NULL;
    if (ok) {
      s->name = g_strdup(p->key);
      s->path = g_path_is_absolute(p->value->scalar) ? g_strdup(p->value->scalar)
                                                     : g_build_filename(dir, p->value->scalar, NULL);
      f->n_scens++;
      struct scenario *sc = NULL;
      if (!g_file_test(s->path, G_FILE_TEST_IS_REGULAR)) {
        ok = fail(err, p->value, kp, "an existing scenario file, relative to the fit file");
        g_free(kp);
        break;
      }
      ok = (s->tree = sc_load_scenario_tree(s->path, NULL, 0, err)) != NULL &&
           (sc = scenario_from_tree(sc_node_copy(s->tree), s->path, &wl_catalog, err)) != NULL &&
           pts_add(&s->checked, sc, err);
      if (ok) s->bound = sc;
    }
    g_free(kp);
  }
  g_free(dir);
  return ok;
}

/* Whether PATH is the file that OUT_ST describes (same device and inode). */
static bool same_file(const char *path, const GStatBuf *out_st) {
  GStatBuf st;
  return g_stat(path, &st) == 0 && st.st_dev == out_st->st_dev && st.st_ino == out_st->st_ino;
}

/* The first node of N, in file order, read from the file OUT_ST describes;
 * OTHER holds the file names (interned by the loader) already found not
 * to be it. NULL when none is. */
static const struct sc_node *node_from(const struct sc_node *n, const GStatBuf *out_st,
                                       GHashTable *other) {
  if (n->file && !g_hash_table_contains(other, n->file)) {
    if (same_file(n->file, out_st)) return n;
    g_hash_table_add(other, (gpointer)n->file);
  }
  const struct sc_node *m = NULL;
  for (size_t i = 0; !m && i < n->n_pairs; i++) m = node_from(n->pairs[i].value, out_st, other);
  for (size_t i = 0; !m && i < n->n_items; i++) m = node_from(n->items[i], out_st, other);
  return m;
}

bool fit_check_output(const struct fit *f, const char *out, char **err) {
  GStatBuf out_st;
  if (g_stat(out, &out_st) != 0) return true; /* not written yet: nothing can include it */
  GHashTable *other = g_hash_table_new(g_direct_hash, g_direct_equal);
  const struct sc_node *at = NULL;
  size_t i = 0;
  for (; !at && i < f->n_scens; i++) at = node_from(f->scens[i].tree, &out_st, other);
  g_hash_table_destroy(other);
  if (!at) return true;
  const struct fit_scen *s = &f->scens[i - 1];
  *err = g_strdup_printf("%s: scenarios.%s: expected a scenario that takes no values from the file "
                         "this fit writes (%s), got %s, which takes one at %s:%d:%d: the previous "
                         "fit's values would stay under every evaluation; include the profile the "
                         "fit extends instead",
                         f->path, s->name, out, s->path, at->file, at->line, at->col);
  return false;
}

struct fit *fit_load(const char *path, char **err) {
  static const char *const keys[] = {"name", "extends", "scenarios", "parameters", "targets",
                                     "options"};
  struct fit *f = g_new0(struct fit, 1);
  f->path = g_strdup(path);
  f->max_iter = 100;
  f->fd_step = 1e-2;
  if (!(f->root = sc_load_file(path, err))) goto fail;
  if (f->root->kind != SC_MAP) {
    fail(err, f->root, "(fit file)", "a mapping with scenarios, parameters and targets");
    goto fail;
  }
  if (!sc_check_keys(f->root, NULL, keys, G_N_ELEMENTS(keys), err)) goto fail;
  const struct sc_node *n = sc_map_get(f->root, "name");
  if (n && !want_scalar(n, "name", "a name", err)) goto fail;
  char *base = g_path_get_basename(path);
  f->name = n ? g_strdup(n->scalar) : base;
  if (n) g_free(base);
  if ((n = sc_map_get(f->root, "extends"))) {
    if (!want_scalar(n, "extends", "a profile file, relative to the fit file", err)) goto fail;
    char *p = in_path_beside(path, n->scalar);
    f->extends = g_canonicalize_filename(p, NULL);
    g_free(p);
    if (!g_file_test(f->extends, G_FILE_TEST_IS_REGULAR)) {
      fail(err, n, "extends", "an existing profile file");
      goto fail;
    }
  }
  if (!load_scenarios(f, sc_map_get(f->root, "scenarios"), err)) goto fail;
  const struct sc_node *pm = sc_map_get(f->root, "parameters");
  if (!pm || pm->kind != SC_MAP || pm->n_pairs == 0) {
    fail(err, pm ? pm : f->root, "parameters",
         "a mapping of parameter paths to {start, min, max}");
    goto fail;
  }
  f->params = g_new0(struct fit_param, pm->n_pairs);
  for (; f->n_params < pm->n_pairs; f->n_params++)
    if (!load_param(f, &pm->pairs[f->n_params], &f->params[f->n_params], err)) {
      f->n_params++;
      goto fail;
    }
  const struct sc_node *tm = sc_map_get(f->root, "targets");
  if (!tm || tm->kind != SC_SEQ || tm->n_items == 0) {
    fail(err, tm ? tm : f->root, "targets", "a sequence of targets");
    goto fail;
  }
  f->targets = g_new0(struct fit_target, tm->n_items);
  for (; f->n_targets < tm->n_items; f->n_targets++)
    if (!load_target(f, f->n_targets, tm->items[f->n_targets], err)) {
      f->n_targets++;
      goto fail;
    }
  if (f->n_targets < f->n_params) {
    char *want = g_strdup_printf("at least as many targets as parameters (%zu)", f->n_params);
    *err = sc_error_at(tm, "targets", "expected %s, got %zu", want, f->n_targets);
    g_free(want);
    goto fail;
  }
  const struct sc_node *om = sc_map_get(f->root, "options");
  if (om) {
    static const char *const okeys[] = {"max_iterations", "fd_step", "residual"};
    if (om->kind != SC_MAP) {
      fail(err, om, "options", "a mapping with max_iterations, fd_step, residual");
      goto fail;
    }
    if (!sc_check_keys(om, "options", okeys, G_N_ELEMENTS(okeys), err)) goto fail;
    guint64 it = 0;
    if ((n = sc_map_get(om, "max_iterations")) &&
        (n->kind != SC_SCALAR || !g_ascii_string_to_unsigned(n->scalar, 10, 1, 10000, &it, NULL))) {
      fail(err, n, "options.max_iterations", "an integer in [1, 10000]");
      goto fail;
    }
    if (n) f->max_iter = (size_t)it;
    if ((n = sc_map_get(om, "fd_step"))) {
      enum unit_dim d;
      if (!parse_quantity(n, "options.fd_step", &f->fd_step, &d, err)) goto fail;
      if (d != UNIT_NONE || !(f->fd_step >= 1e-6 && f->fd_step <= 1)) {
        fail(err, n, "options.fd_step", "a number in [1e-6, 1]");
        goto fail;
      }
    }
    if ((n = sc_map_get(om, "residual"))) {
      if (n->kind != SC_SCALAR ||
          (strcmp(n->scalar, "relative") && strcmp(n->scalar, "log"))) {
        fail(err, n, "options.residual", "relative or log");
        goto fail;
      }
      f->log_residual = !strcmp(n->scalar, "log");
      for (size_t t = 0; f->log_residual && t < f->n_targets; t++)
        if (!(f->targets[t].value > 0)) {
          const struct sc_node *v = sc_map_get(f->targets[t].node, "value");
          char *key = g_strdup_printf("targets[%zu].value", t);
          *err = sc_error_at(v ? v : f->targets[t].node, key,
                             "expected a positive target (options.residual: log takes the "
                             "logarithm of achieved / target), got %g", f->targets[t].value);
          g_free(key);
          goto fail;
        }
    }
  }
  return f;
fail:
  fit_free(f);
  return NULL;
}

void fit_free(struct fit *f) {
  if (!f) return;
  for (size_t i = 0; i < f->n_scens; i++) {
    g_free(f->scens[i].name);
    g_free(f->scens[i].path);
    sc_node_free(f->scens[i].tree);
    pts_free(&f->scens[i].checked);
  }
  for (size_t i = 0; i < f->n_params; i++) {
    g_free(f->params[i].path);
    g_free(f->params[i].set_path);
    g_free(f->params[i].why);
  }
  for (size_t i = 0; i < f->n_targets; i++) {
    g_free(f->targets[i].name);
    g_free(f->targets[i].policy);
    g_free(f->targets[i].over);
    g_free(f->targets[i].key);
    g_free(f->targets[i].key_path);
  }
  for (size_t i = 0; i < f->n_runs; i++) {
    g_free(f->runs[i].at_text);
    g_ptr_array_free(f->runs[i].policies, TRUE);
  }
  g_free(f->scens);
  g_free(f->params);
  g_free(f->targets);
  g_free(f->runs);
  sc_node_free(f->root);
  g_free(f->path);
  g_free(f->name);
  g_free(f->extends);
  g_free(f->err);
  g_free(f);
}

/* ---- the bound transform ---- */

/* x = lo + (hi - lo) / (1 + e^-u): every u is a value strictly inside the
 * bounds, so the solver works unconstrained. */
static double to_x(const struct fit_param *p, double u) { return p->lo + (p->hi - p->lo) / (1 + exp(-u)); }
static double to_u(const struct fit_param *p, double x) { return log((x - p->lo) / (p->hi - x)); }
static double dx_du(const struct fit_param *p, double u) {
  double s = 1 / (1 + exp(-u));
  return (p->hi - p->lo) * s * (1 - s);
}

/* Whether parameter I is the first one applied at its path (a table's
 * points share one). */
static bool first_of_path(const struct fit *f, size_t i) {
  for (size_t q = 0; q < i; q++)
    if (!strcmp(f->params[q].set_path, f->params[i].set_path)) return false;
  return true;
}

static int by_x(const void *a, const void *b) {
  const struct fit_param *p = *(const struct fit_param *const *)a, *q = *(const struct fit_param *const *)b;
  return (p->x > q->x) - (p->x < q->x);
}

/* The text parameter I is applied with, at values X[]: integral types
 * rounded to their base unit ("1234ps"); a table, every point fitted at
 * its path in rising X, "X:Yps". */
static char *value_text(const struct fit *f, size_t i, const double *x) {
  const struct fit_param *p = &f->params[i];
  if (p->decl->type == PAR_FLOAT) {
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    return g_strdup(g_ascii_formatd(buf, sizeof buf, "%.17g", x[i]));
  }
  if (p->decl->type != PAR_TABLE)
    return g_strdup_printf("%lld%s", (long long)llround(x[i]), base_unit(par_type_dim(p->decl->type)));
  GPtrArray *pts = g_ptr_array_new();
  for (size_t q = 0; q < f->n_params; q++)
    if (!strcmp(f->params[q].set_path, p->set_path)) g_ptr_array_add(pts, &f->params[q]);
  qsort(pts->pdata, pts->len, sizeof(gpointer), by_x);
  GString *s = g_string_new(NULL);
  for (guint k = 0; k < pts->len; k++) {
    const struct fit_param *q = pts->pdata[k];
    g_string_append_printf(s, "%s%lld:%lldps", k ? ", " : "", (long long)q->x,
                           (long long)llround(x[q - f->params]));
  }
  g_ptr_array_free(pts, TRUE);
  return g_string_free(s, FALSE);
}

/* The readable form of value X of P (units_format; a number otherwise). */
static char *value_label(const struct fit_param *p, double x) {
  if (isnan(x)) return g_strdup("undetermined");
  enum unit_dim dim = par_type_dim(p->decl->type);
  char buf[64];
  if (p->decl->type == PAR_FLOAT) return g_strdup_printf("%.6g", x);
  if (dim == UNIT_NONE) return g_strdup_printf("%lld", (long long)llround(x));
  return g_strdup(units_format(llround(x), dim, buf, sizeof buf));
}

/* ---- evaluation ---- */

static struct sc_node *scalar_at(const struct sc_node *at, const char *text) {
  struct sc_node *n = sc_node_copy(&(struct sc_node){.kind = SC_SCALAR, .file = at->file,
                                                     .line = at->line, .col = at->col, .scalar = ""});
  g_free(n->scalar);
  n->scalar = g_strdup(text);
  return n;
}

/* Binds run R of the fit with parameter values X (base units) into PTS. */
static bool bind_run(struct fit *f, const struct fit_run *r, const double *x, struct points *pts,
                     char **err) {
  const struct fit_scen *s = &f->scens[r->scen];
  struct sc_node *tree = sc_node_copy(s->tree);
  bool ok = true;
  for (size_t i = 0; ok && r->at && i < r->at->n_pairs; i++) {
    const struct sc_pair *p = &r->at->pairs[i];
    struct sc_node at = key_at(p);
    ok = sc_put(tree, p->key, sc_node_copy(p->value), &at, err);
  }
  for (size_t i = 0; ok && i < f->n_params; i++) {
    if (!first_of_path(f, i)) continue; /* a table, applied whole at its first point */
    char *text = value_text(f, i, x);
    ok = sc_put(tree, f->params[i].set_path, scalar_at(f->params[i].node, text),
                f->params[i].node, err);
    g_free(text);
  }
  GString *pol = g_string_new("[");
  for (guint i = 0; i < r->policies->len; i++)
    g_string_append_printf(pol, "%s%s", i ? ", " : "", (const char *)r->policies->pdata[i]);
  g_string_append(pol, "]");
  struct sc_node *seq = ok ? sc_load_string(pol->str, "fit", err) : NULL;
  g_string_free(pol, TRUE);
  ok = ok && seq && sc_put(tree, "policies", seq, f->root, err);
  if (!ok) {
    sc_node_free(tree);
    return false;
  }
  struct scenario *sc = scenario_from_tree(tree, s->path, &wl_catalog, err);
  return sc && pts_add(pts, sc, err);
}

static const struct sim_result *result_of(const struct sim_result *runs, size_t n,
                                          const char *policy) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(runs[i].policy, policy)) return &runs[i];
  g_assert_not_reached();
}

/* Target T's quantity in run RES, or false and *ERR at the target. */
static bool quantity_of(const struct fit_target *t, const struct sim_result *res, double *v,
                        char **err) {
  if (t->q == Q_TOTAL || t->q == Q_POLICY_END) {
    *v = (double)(t->q == Q_TOTAL ? res->total_ps : res->policy_end_ps);
    return true;
  }
  const struct sim_report *rep = t->q == Q_PHASE ? &res->phases : &res->counters;
  const struct sim_report_entry *e = sim_report_find(rep, t->key);
  if (e) {
    *v = e->is_real ? e->d : (double)e->i;
    if (t->over || t->dim == UNIT_NONE || t->dim == e->dim) return true;
    *err = sc_error_at(t->key_node, t->key_path,
                       "expected a quantity in the unit of the target's value (%s), got %s, which is %s",
                       units_dim_name(t->dim), t->key, units_dim_name(e->dim));
    return false;
  }
  const char **keys = g_new(const char *, rep->n ? rep->n : 1);
  for (size_t i = 0; i < rep->n; i++) keys[i] = rep->entries[i].key;
  const char *hint = par_suggest(t->key, keys, rep->n);
  *err = sc_error_at(t->key_node, t->key_path,
                     "expected a %s of the run (trigsim run --format json lists them%s%s%s), got '%s'",
                     t->q == Q_PHASE ? "phase" : "counter", hint ? "; did you mean '" : "",
                     hint ? hint : "", hint ? "'?" : "", t->key);
  g_free(keys);
  return false;
}

/* Runs the fit's runs at each of the K parameter vectors X[k] (x space)
 * on the pool, and fills ACH[k * n_targets + t] with target t's achieved
 * value. False with f->err and f->status on failure. */
static bool evaluate(struct fit *f, const double *const *x, size_t k_n, double *ach) {
  struct points pts = {0};
  struct swr_results res = {0};
  char *err = NULL;
  bool ok = true;
  for (size_t k = 0; ok && k < k_n; k++)
    for (size_t r = 0; ok && r < f->n_runs; r++) ok = bind_run(f, &f->runs[r], x[k], &pts, &err);
  if (ok) {
    struct swr_opts o = {.n_points = pts.n, .jobs = f->jobs, .progress = SWR_QUIET};
    enum swr_status st = swr_run(&o, pts_run_point, &pts, &res, &err);
    ok = st == SWR_DONE;
    if (!ok) f->status = (int)st;
  } else {
    f->status = EXIT_INPUT;
  }
  for (size_t k = 0; ok && k < k_n; k++)
    for (size_t t = 0; ok && t < f->n_targets; t++) {
      const struct fit_target *tg = &f->targets[t];
      size_t p = k * f->n_runs + tg->run;
      double a = 0, b = 1;
      ok = quantity_of(tg, result_of(res.runs[p], res.n_runs[p], tg->policy), &a, &err);
      if (ok && tg->over) ok = quantity_of(tg, result_of(res.runs[p], res.n_runs[p], tg->over), &b, &err);
      if (ok && b == 0) {
        err = sc_error_at(sc_map_get(tg->node, "over"), "over",
                          "expected a non-zero quantity under %s to divide by, got 0", tg->over);
        ok = false;
      }
      if (!ok) f->status = EXIT_INPUT;
      ach[k * f->n_targets + t] = a / b;
    }
  f->evals += k_n;
  swr_results_clear(&res);
  pts_free(&pts);
  if (!ok && !f->err) f->err = err;
  else g_free(err);
  return ok;
}

/* Residual of target T achieving A: weight * (A - target) / |target|;
 * with LOG (options.residual: log, every target positive) weight *
 * ln(A / target), which weighs a factor over and the same factor under
 * alike (the relative residual charges 2x over 1.0 and 2x under 0.5, so
 * that targets the model cannot all meet pull it under). A value not
 * positive counts as e^-745 of the target. */
static double residual(const struct fit_target *t, double a, bool log_res) {
  if (log_res) return t->weight * (a > 0 ? log(a / t->value) : -745.0);
  return t->weight * (a - t->value) / fabs(t->value);
}

static void x_of(const struct fit *f, const gsl_vector *u, double *x) {
  for (size_t i = 0; i < f->n_params; i++) x[i] = to_x(&f->params[i], gsl_vector_get(u, i));
}

static int fit_f(const gsl_vector *u, void *user, gsl_vector *r) {
  struct fit *f = user;
  double *x = g_new(double, f->n_params), *ach = g_new(double, f->n_targets);
  x_of(f, u, x);
  const double *xs[1] = {x};
  bool ok = evaluate(f, xs, 1, ach);
  for (size_t t = 0; ok && t < f->n_targets; t++) {
    f->targets[t].achieved = ach[t];
    gsl_vector_set(r, t, residual(&f->targets[t], ach[t], f->log_residual));
  }
  g_free(x);
  g_free(ach);
  return ok ? GSL_SUCCESS : GSL_EBADFUNC;
}

/* The Jacobian by central differences in u, all 2p evaluations in one
 * batch on the pool. GSL's own finite differences step by h |u_j|, which
 * vanishes near u = 0 (a start halfway between the bounds) and would fall
 * below the 1 ps the simulator resolves; this steps by a fixed h in u. */
static int fit_df(const gsl_vector *u, void *user, gsl_matrix *J) {
  struct fit *f = user;
  size_t p = f->n_params, n = f->n_targets;
  double *x = g_new(double, 2 * p * p), *ach = g_new(double, 2 * p * n);
  const double **xs = g_new(const double *, 2 * p);
  for (size_t j = 0; j < p; j++)
    for (int side = 0; side < 2; side++) {
      double *xj = &x[(2 * j + side) * p];
      x_of(f, u, xj);
      double uj = gsl_vector_get(u, j) + (side ? f->fd_step : -f->fd_step);
      xj[j] = to_x(&f->params[j], uj);
      xs[2 * j + side] = xj;
    }
  bool ok = evaluate(f, xs, 2 * p, ach);
  for (size_t j = 0; ok && j < p; j++)
    for (size_t t = 0; t < n; t++) {
      double lo = residual(&f->targets[t], ach[(2 * j) * n + t], f->log_residual);
      double hi = residual(&f->targets[t], ach[(2 * j + 1) * n + t], f->log_residual);
      gsl_matrix_set(J, t, j, (hi - lo) / (2 * f->fd_step));
    }
  g_free(x);
  g_free(ach);
  g_free(xs);
  return ok ? GSL_SUCCESS : GSL_EBADFUNC;
}

static void print_params(const struct fit *f, const gsl_vector *u, FILE *out) {
  for (size_t i = 0; i < f->n_params; i++) {
    char *v = value_label(&f->params[i], to_x(&f->params[i], gsl_vector_get(u, i)));
    fprintf(out, " %s=%s", f->params[i].path, v);
    g_free(v);
  }
}

static void on_iteration(const size_t iter, void *user, const gsl_multifit_nlinear_workspace *w) {
  struct fit *f = user;
  f->iterations = iter;
  if (!f->progress) return;
  double chi = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(w));
  fprintf(f->progress, "fit: iteration %zu: cost %.6g:", iter, chi * chi);
  print_params(f, gsl_multifit_nlinear_position(w), f->progress);
  fputc('\n', f->progress);
  fflush(f->progress);
}

int fit_run(struct fit *f, unsigned jobs, FILE *progress, char **err) {
  size_t p = f->n_params, n = f->n_targets;
  f->jobs = jobs ? jobs : 1;
  f->progress = progress;
  f->status = 0;
  gsl_multifit_nlinear_fdf fdf = {.f = fit_f, .df = fit_df, .n = n, .p = p, .params = f};
  gsl_multifit_nlinear_parameters fp = gsl_multifit_nlinear_default_parameters();
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &fp, n, p);
  gsl_vector *u0 = gsl_vector_alloc(p);
  for (size_t i = 0; i < p; i++) gsl_vector_set(u0, i, to_u(&f->params[i], f->params[i].start));
  gsl_set_error_handler_off();
  int info = 0, st = gsl_multifit_nlinear_init(u0, &fdf, w);
  if (st == GSL_SUCCESS) {
    double c = gsl_blas_dnrm2(gsl_multifit_nlinear_residual(w));
    f->chi2_start = c * c;
    if (progress) {
      fprintf(progress, "fit: %s: %zu parameter(s), %zu target(s), %zu run(s) per evaluation\n",
              f->name, p, n, f->n_runs);
    }
    st = gsl_multifit_nlinear_driver(f->max_iter, 1e-8, 1e-10, 1e-10, on_iteration, f, &info, w);
  }
  int status = 0;
  if (f->status) {
    status = f->status;
  } else if (st != GSL_SUCCESS && st != GSL_EMAXITER && st != GSL_ENOPROG) {
    f->err = g_strdup_printf("trigsim: fit: %s: the solver failed: %s", f->path, gsl_strerror(st));
    status = 1;
  }
  if (status == 0) {
    f->reason = st == GSL_EMAXITER && f->iterations >= f->max_iter ? "maximum iterations reached"
                : st != GSL_SUCCESS ? "no step reduced the cost (a zero or step-like response?)"
                : info == 1         ? "converged: small step"
                                    : "converged: small gradient";
    /* The targets at the solution, and the covariance from its Jacobian:
     * (J^T J)^-1 in u, scaled by chi2 / dof when dof > 0, mapped to x by
     * the transform's slope (delta method). */
    const gsl_vector *u = gsl_multifit_nlinear_position(w);
    gsl_vector *r = gsl_vector_alloc(n);
    fit_f(u, f, r);
    double c = gsl_blas_dnrm2(r);
    f->chi2 = c * c;
    gsl_vector_free(r);
    gsl_matrix *cov = gsl_matrix_alloc(p, p);
    gsl_multifit_nlinear_covar(gsl_multifit_nlinear_jac(w), 1e-12, cov);
    /* With as many targets as parameters (0 degrees of freedom) the fit
     * passes through every target: no residual is left to scale the
     * covariance by, so no sigma (NAN) rather than an unscaled one. */
    double scale = n > p ? f->chi2 / (double)(n - p) : NAN;
    for (size_t i = 0; i < p; i++) {
      struct fit_param *q = &f->params[i];
      double ui = gsl_vector_get(u, i);
      q->value = to_x(q, ui);
      /* A parameter no target responds to at the difference step (a zero
       * column, dropped by the covariance's pivoted QR: unused, or a
       * step-like response such as a time rounded to a poll) has no
       * uncertainty to give: NAN. */
      double var = gsl_matrix_get(cov, i, i);
      q->sigma = var > 0 && n > p ? dx_du(q, ui) * sqrt(var * scale) : NAN;
      double tol = 1e-3 * (q->hi - q->lo);
      q->bound = q->value - q->lo < tol ? -1 : q->hi - q->value < tol ? 1 : 0;
    }
    gsl_matrix_free(cov);
    if (progress)
      fprintf(progress, "fit: done after %zu iterations, %zu evaluations (%s), cost %.6g\n",
              f->iterations, f->evals, f->reason, f->chi2);
  }
  gsl_vector_free(u0);
  gsl_multifit_nlinear_free(w);
  if (status) {
    *err = f->err;
    f->err = NULL;
    if (!*err) *err = g_strdup("trigsim: fit: interrupted");
  }
  return status;
}

bool fit_value(const struct fit *f, const char *path, double *value, double *sigma, int *bound) {
  for (size_t i = 0; i < f->n_params; i++)
    if (!strcmp(f->params[i].path, path)) {
      *value = f->params[i].value;
      *sigma = f->params[i].sigma;
      *bound = f->params[i].bound;
      return true;
    }
  return false;
}

/* ---- the fragment ---- */

/* FILE relative to directory DIR (both canonical). */
static char *relative_to(const char *dir, const char *file) {
  char **a = g_strsplit(dir, "/", -1), **b = g_strsplit(file, "/", -1);
  size_t i = 0;
  while (a[i] && b[i] && b[i + 1] && !strcmp(a[i], b[i])) i++;
  GString *s = g_string_new(NULL);
  for (size_t k = i; a[k]; k++)
    if (*a[k]) g_string_append(s, "../");
  for (size_t k = i; b[k]; k++) g_string_append_printf(s, "%s%s", b[k], b[k + 1] ? "/" : "");
  g_strfreev(a);
  g_strfreev(b);
  return g_string_free(s, FALSE);
}

/* A YAML double-quoted string. */
static void put_quoted(FILE *out, const char *s) {
  char *e = g_strescape(s, NULL);
  fprintf(out, "\"%s\"", e);
  g_free(e);
}

static char *target_label(const struct fit_target *t, double v) {
  char buf[64];
  if (t->over || t->dim == UNIT_NONE) return g_strdup_printf("%.6g", v);
  return g_strdup(units_format(llround(v), t->dim, buf, sizeof buf));
}

static int by_set_path(const void *a, const void *b) {
  const struct fit_param *p = *(const struct fit_param *const *)a, *q = *(const struct fit_param *const *)b;
  int c = strcmp(p->set_path, q->set_path);
  return c ? c : (p > q) - (p < q);
}

/* The fitted values as nested maps: parameters sharing a path prefix
 * share the map (hardware: cpu: send: ...), sorted by path; a table's
 * points make one value. */
static void write_values(const struct fit *f, FILE *out) {
  const struct fit_param **order = g_new(const struct fit_param *, f->n_params);
  double *vals = g_new(double, f->n_params);
  for (size_t i = 0; i < f->n_params; i++) {
    order[i] = &f->params[i];
    vals[i] = f->params[i].value;
  }
  qsort(order, f->n_params, sizeof *order, by_set_path);
  char **prev = NULL;
  for (size_t k = 0; k < f->n_params; k++) {
    const struct fit_param *p = order[k];
    size_t i = (size_t)(p - f->params);
    if (!first_of_path(f, i)) continue;
    char **c = g_strsplit(p->set_path, ".", -1);
    guint n = g_strv_length(c), same = 0;
    while (prev && prev[same] && same + 1 < n && !strcmp(prev[same], c[same])) same++;
    for (guint d = same; d + 1 < n; d++) fprintf(out, "%*s%s:\n", (int)(2 * d), "", c[d]);
    if (p->decl->type == PAR_TABLE) {
      char *v = value_text(f, i, vals);
      fprintf(out, "%*s%s: \"%s\"  # fitted at each point: see provenance.parameters%s%s\n",
              (int)(2 * (n - 1)), "", c[n - 1], v, p->why ? ": " : "", p->why ? p->why : "");
      g_free(v);
    } else {
      char *v = value_label(p, p->value), *s = value_label(p, p->sigma), *lo = value_label(p, p->lo),
           *hi = value_label(p, p->hi);
      char *unc = p->bound ? g_strdup("no uncertainty at a bound")
                  : f->n_targets <= f->n_params
                      ? g_strdup("no sigma with as many targets as parameters (0 degrees of freedom)")
                  : isnan(p->sigma) ? g_strdup("undetermined: no target responds to it at the "
                                               "fit's step (unused, or a step-like response)")
                                    : g_strdup_printf("+- %s (1 sigma)", s);
      fprintf(out, "%*s%s: %s  # fitted: %s, bounds [%s, %s]%s%s%s%s\n", (int)(2 * (n - 1)), "",
              c[n - 1], v, unc, lo, hi, p->bound ? ", AT ITS " : "",
              p->bound < 0 ? "MIN" : p->bound > 0 ? "MAX" : "", p->why ? ": " : "",
              p->why ? p->why : "");
      g_free(unc);
      g_free(v);
      g_free(s);
      g_free(lo);
      g_free(hi);
    }
    g_strfreev(prev);
    prev = c;
  }
  g_strfreev(prev);
  g_free(order);
  g_free(vals);
}

void fit_write(const struct fit *f, const char *out_path, FILE *out) {
  fprintf(out, "# Profile fragment written by `trigsim fit %s` (trigsim %s): %s.\n", f->path,
          TRIGSIM_VERSION, f->name);
  fprintf(out, "# Do not edit the values by hand: change the fit file and run the fit again.\n");
  if (f->extends) {
    char *dir = g_path_get_dirname(out_path ? out_path : ".");
    char *cdir = g_canonicalize_filename(dir, NULL);
    char *rel = relative_to(cdir, f->extends);
    fprintf(out, "include: %s\n", rel);
    g_free(rel);
    g_free(cdir);
    g_free(dir);
  }
  write_values(f, out);
  fprintf(out, "provenance:\n  tool: \"trigsim %s fit\"\n  fit: ", TRIGSIM_VERSION);
  put_quoted(out, f->path);
  fprintf(out, "\n  method: \"gsl_multifit_nlinear, trust region (Levenberg-Marquardt), central "
               "differences (step %g in u), bounds by x = min + (max - min) / (1 + e^-u); "
               "residual = weight * %s\"\n",
          f->fd_step, f->log_residual ? "ln(achieved / target)" : "(achieved - target) / |target|");
  fprintf(out, "  result: {iterations: %zu, evaluations: %zu, stop: \"%s\", cost_start: %.6g, cost: %.6g, dof: %zu}\n",
          f->iterations, f->evals, f->reason ? f->reason : "not run", f->chi2_start, f->chi2,
          f->n_targets - f->n_params);
  fprintf(out, "  parameters:\n");
  for (size_t i = 0; i < f->n_params; i++) {
    const struct fit_param *p = &f->params[i];
    char *v = value_label(p, p->value), *s = value_label(p, p->sigma), *lo = value_label(p, p->lo),
         *hi = value_label(p, p->hi), *st = value_label(p, p->start);
    fprintf(out, "    %s: {value: %s, sigma: %s, start: %s, min: %s, max: %s, active_bound: %s",
            p->path, v, s, st, lo, hi, p->bound < 0 ? "min" : p->bound > 0 ? "max" : "none");
    if (p->why) {
      fprintf(out, ", why: ");
      put_quoted(out, p->why);
    }
    fprintf(out, "}\n");
    g_free(v);
    g_free(s);
    g_free(lo);
    g_free(hi);
    g_free(st);
  }
  fprintf(out, "  targets:\n");
  for (size_t i = 0; i < f->n_targets; i++) {
    const struct fit_target *t = &f->targets[i];
    char *tv = target_label(t, t->value), *av = target_label(t, t->achieved);
    fprintf(out, "    - {name: ");
    put_quoted(out, t->name);
    fprintf(out, ", scenario: %s, target: %s, achieved: %s, residual: %.4g, weight: %g}\n",
            f->scens[f->runs[t->run].scen].name, tv, av, residual(t, t->achieved, f->log_residual), t->weight);
    g_free(tv);
    g_free(av);
  }
}
