/* The program workload (yprog.h): a per-rank program written in YAML,
 * built into graph ranks of the per-rank form. An op list is a sequence:
 * each op requires the one before it, unless it names what it comes
 * `after` (labels; [] for nothing) or `after_start` (irequires). */
#include "yprog.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "coll.h"
#include "nodeprog.h"
#include "checks.h"
#include "workload.h"

#define PAR_CONFIG struct yprog_config
static const struct par_decl program_decls[] = {
    PAR(ranks, PAR_INT, "0", "0", "1048576", NULL,
      "ranks of the program, rank i on node i (0: one per node)"),
    PAR(groups, PAR_TREE, "", NULL, NULL, NULL,
      "a list of {ranks: all | N | \"A-B\" | [..], ops: [...]}: what those ranks run "
      "(configs/README.md)"),
};
#undef PAR_CONFIG

const struct par_group program_params = {
    .name = "program",
    .doc = "a per-rank program written in YAML: sends, receives, computes, collectives, loops",
    .decls = program_decls,
    .n_decls = PAR_COUNT(program_decls),
    .config_size = sizeof(struct yprog_config),
};

/* ---- expressions ---- */

struct value {
  int64_t v;
  bool unit; /* carries DIM's unit */
};

struct eval {
  const char *s, *pos;
  enum unit_dim dim;
  const char *const *vars;
  const int64_t *vals;
  size_t n;
  char *err;
};

static bool eval_fail(struct eval *e, const char *what) {
  if (!e->err)
    e->err = g_strdup_printf("%s%s at column %d of '%s'", g_str_has_prefix(what, "expected ") ? "" : "expected ",
                             what, (int)(e->pos - e->s) + 1, e->s);
  return false;
}

static void eval_blank(struct eval *e) {
  while (*e->pos == ' ' || *e->pos == '\t') e->pos++;
}

static bool eval_sum(struct eval *e, struct value *out);

static bool eval_primary(struct eval *e, struct value *out) {
  eval_blank(e);
  const char *s = e->pos;
  if (*s == '(') {
    e->pos++;
    if (!eval_sum(e, out)) return false;
    eval_blank(e);
    if (*e->pos != ')') return eval_fail(e, ")");
    e->pos++;
    return true;
  }
  if (g_ascii_isdigit(*s) || *s == '.') {
    while (g_ascii_isalnum(*e->pos) || *e->pos == '.') e->pos++;
    char *tok = g_strndup(s, (gsize)(e->pos - s));
    const char *suf = tok;
    while (g_ascii_isdigit(*suf) || *suf == '.') suf++;
    char *why = NULL;
    bool ok = units_parse_int(tok, *suf ? e->dim : UNIT_NONE, &out->v, &why);
    out->unit = *suf != '\0';
    if (!ok) {
      e->pos = s;
      eval_fail(e, why);
    }
    g_free(why);
    g_free(tok);
    return ok;
  }
  if (g_ascii_isalpha(*s) || *s == '_') {
    while (g_ascii_isalnum(*e->pos) || *e->pos == '_') e->pos++;
    size_t len = (size_t)(e->pos - s);
    for (size_t i = e->n; i-- > 0;) /* innermost first */
      if (strlen(e->vars[i]) == len && !strncmp(e->vars[i], s, len)) {
        *out = (struct value){e->vals[i], false};
        return true;
      }
    e->pos = s;
    return eval_fail(e, "a number, rank, nranks, a loop variable or (");
  }
  return eval_fail(e, "a number, rank, nranks, a loop variable or (");
}

static bool eval_unary(struct eval *e, struct value *out) {
  eval_blank(e);
  if (*e->pos == '-') {
    e->pos++;
    if (!eval_unary(e, out)) return false;
    if (out->v == INT64_MIN) return eval_fail(e, "a value that fits in 64 bits");
    out->v = -out->v;
    return true;
  }
  return eval_primary(e, out);
}

static bool eval_product(struct eval *e, struct value *out) {
  if (!eval_unary(e, out)) return false;
  for (;;) {
    eval_blank(e);
    char op = *e->pos;
    if (op != '*' && op != '/' && op != '%') return true;
    const char *at = e->pos++;
    struct value b;
    if (!eval_unary(e, &b)) return false;
    if (op == '*') {
      if (out->unit && b.unit) return e->pos = at, eval_fail(e, "one factor without a unit");
      if (__builtin_mul_overflow(out->v, b.v, &out->v))
        return e->pos = at, eval_fail(e, "a product that fits in 64 bits");
      out->unit |= b.unit;
      continue;
    }
    if (b.v == 0) return e->pos = at, eval_fail(e, "a divisor other than 0");
    if (b.unit && !out->unit) return e->pos = at, eval_fail(e, "a divisor without a unit");
    if (out->v == INT64_MIN && b.v == -1) return eval_fail(e, "a value that fits in 64 bits");
    if (op == '/') {
      out->v /= b.v;
    } else {
      int64_t m = out->v % b.v; /* floored: the sign of the divisor */
      out->v = (m != 0 && ((m < 0) != (b.v < 0))) ? m + b.v : m;
    }
    out->unit = out->unit && !b.unit;
  }
}

static bool eval_sum(struct eval *e, struct value *out) {
  if (!eval_product(e, out)) return false;
  for (;;) {
    eval_blank(e);
    char op = *e->pos;
    if (op != '+' && op != '-') return true;
    const char *at = e->pos++;
    struct value b;
    if (!eval_product(e, &b)) return false;
    if (b.unit != out->unit) return e->pos = at, eval_fail(e, "terms all with a unit or all without");
    bool ovf = op == '+' ? __builtin_add_overflow(out->v, b.v, &out->v)
                         : __builtin_sub_overflow(out->v, b.v, &out->v);
    if (ovf) return e->pos = at, eval_fail(e, "a sum that fits in 64 bits");
  }
}

/* A sum, or two compared (== != < <= > >=): 1 or 0, without a unit. */
static bool eval_compare(struct eval *e, struct value *out) {
  if (!eval_sum(e, out)) return false;
  eval_blank(e);
  static const char *const ops[] = {"==", "!=", "<=", ">=", "<", ">"};
  size_t k = 0;
  while (k < G_N_ELEMENTS(ops) && strncmp(e->pos, ops[k], strlen(ops[k]))) k++;
  if (k == G_N_ELEMENTS(ops)) return true;
  const char *at = e->pos;
  e->pos += strlen(ops[k]);
  struct value b;
  if (!eval_sum(e, &b)) return false;
  if (b.unit != out->unit) return e->pos = at, eval_fail(e, "sides both with a unit or both without");
  int64_t x = out->v, y = b.v;
  bool r[] = {x == y, x != y, x <= y, x >= y, x < y, x > y};
  *out = (struct value){r[k], false};
  return true;
}

bool wl_yprog_eval(const char *text, enum unit_dim dim, const char *const *vars,
                   const int64_t *vals, size_t n, int64_t *out, char **err) {
  struct eval e = {text, text, dim, vars, vals, n, NULL};
  struct value v;
  bool ok = eval_compare(&e, &v);
  if (ok) {
    eval_blank(&e);
    if (*e.pos) ok = eval_fail(&e, "an operator or the end");
  }
  if (ok && dim != UNIT_NONE && !v.unit) {
    e.err = g_strdup_printf("expected %s with a unit (e.g. %s), got '%s'", units_dim_name(dim),
                            dim == UNIT_SIZE ? "4KiB" : "1us", text);
    ok = false;
  }
  if (ok) *out = v.v;
  else *err = e.err;
  return ok;
}

/* ---- the builder ---- */

/* A label's latest op: its first ops and the ops it ends with. */
struct labelled {
  GArray *first, *tails;
  bool absent; /* its latest op was removed by `if:` (first and tails empty) */
};

static void free_ops(gpointer a) { g_array_free(a, TRUE); }

static void labelled_free(gpointer p) {
  struct labelled *l = p;
  g_array_free(l->first, TRUE);
  g_array_free(l->tails, TRUE);
  g_free(l);
}

struct ybuild {
  struct wl_program *p;
  uint32_t rank;
  GPtrArray *vars;     /* names: rank, nranks, then loop variables */
  GArray *vals;        /* int64_t */
  GHashTable *labels;  /* name -> struct labelled, of this rank */
  GArray *tails;       /* what the next op requires by default */
  GArray *colls;       /* uint32_t per group (0: every rank): collectives so far
                          on this rank, their tag */
  uint64_t total;      /* ops in the program so far, every rank */
  uint64_t mult;       /* the product of the enclosing loops' counts */
  uint64_t steps;      /* ops and loop iterations expanded, all ranks */
  /* Inside a loop (else NULL): the labels its ops (nested ones too) may
   * define, and name -> GArray of the ops each ended with in the loop's
   * previous iteration (`after_prev`; empty in the first). */
  GHashTable *body_labels, *prev;
  char **err;
};

/* What one program may expand to: WL_MAX_OPS ops and loop iterations
 * together, over all ranks (memory; and time: nested loops of empty or
 * `if: 0` bodies add no op, and expanding 2^25 steps takes ~10 s). */
#define YPROG_MAX_STEPS WL_MAX_OPS

/* Counts N expansion steps at node M; false and *ERR past the budget. */
static bool spend(struct ybuild *b, uint64_t n, const struct sc_node *m, const char *path) {
  b->steps += n;
  if (b->steps <= YPROG_MAX_STEPS) return true;
  *b->err = sc_error_at(m, path,
                        "expected a program that expands to at most %" G_GUINT64_FORMAT
                        " ops and loop iterations over all ranks (memory and time), got more "
                        "(loops and ranks multiply)",
                        (uint64_t)YPROG_MAX_STEPS);
  return false;
}

#define COLL_TAG_BASE 0x80000000u

static int cmp_rank(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static bool node_fail(struct ybuild *b, const struct sc_node *n, const char *path, const char *fmt,
                      const char *got) {
  char *msg = g_strdup_printf(fmt, got);
  *b->err = sc_error_at(n, path, "%s", msg);
  g_free(msg);
  return false;
}

/* The scalar KEY of map M evaluated in DIM into *OUT; DEF when absent
 * (HAS_DEF), else an error. */
/* Scalar V at key path KP evaluated in DIM (wl_yprog_eval) into *OUT. */
static bool value_of(struct ybuild *b, const struct sc_node *v, const char *kp, enum unit_dim dim,
                     int64_t *out) {
  if (v->kind != SC_SCALAR)
    return node_fail(b, v, kp, "expected %s, got a list or mapping",
                     dim == UNIT_NONE ? "an integer expression" : units_dim_name(dim));
  char *why = NULL;
  bool ok = wl_yprog_eval(v->scalar, dim, (const char *const *)b->vars->pdata,
                          (const int64_t *)(void *)b->vals->data, b->vals->len, out, &why);
  if (!ok) {
    *b->err = sc_error_at(v, kp, "%s", why);
    g_free(why);
  }
  return ok;
}

static bool field(struct ybuild *b, const struct sc_node *m, const char *path, const char *key,
                  enum unit_dim dim, bool has_def, int64_t def, int64_t *out) {
  const struct sc_node *v = sc_map_get(m, key);
  char *kp = g_strdup_printf("%s.%s", path, key);
  bool ok = true;
  if (v)
    ok = value_of(b, v, kp, dim, out);
  else if (has_def)
    *out = def;
  else
    ok = node_fail(b, m, kp, "expected %s, got nothing",
                   dim == UNIT_NONE ? "an integer expression" : units_dim_name(dim));
  g_free(kp);
  return ok;
}

/* FIELD that must lie in [LO, HI]. */
static bool bounded(struct ybuild *b, const struct sc_node *m, const char *path, const char *key,
                    enum unit_dim dim, bool has_def, int64_t def, int64_t lo, int64_t hi,
                    int64_t *out) {
  if (!field(b, m, path, key, dim, has_def, def, out)) return false;
  if (*out >= lo && *out <= hi) return true;
  const struct sc_node *v = sc_map_get(m, key);
  char *kp = g_strdup_printf("%s.%s", path, key);
  *b->err = sc_error_at(v ? v : m, kp, "expected a value in [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                        "] on rank %u, got %" G_GINT64_FORMAT, lo, hi, b->rank, *out);
  g_free(kp);
  return false;
}

/* Op keys, and the keys every op may have. */
static const char *const op_keys[] = {"compute", "calc",  "send",          "recv",
                                      "put",     "wait",  "loop",          "allreduce",
                                      "reduce_scatter", "allgather", "bcast", "reduce",
                                      "alltoall", "barrier", "quiet", "fence"};
static const char *const common_keys[] = {"label", "after", "after_start", "after_prev", "if"};

static bool in(const char *k, const char *const *set, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(k, set[i])) return true;
  return false;
}

/* The ops of the labels LIST names (a scalar or a list), into OUT: their
 * tails, or (START) their first ops. A label whose op `if:` removed on
 * this rank (in this iteration) names no op; *NAMED (may be NULL) counts
 * the labels that named some. */
static bool label_ops(struct ybuild *b, const struct sc_node *list, const char *path, bool start,
                      GArray *out, size_t *named) {
  size_t n = list->kind == SC_SEQ ? list->n_items : 1;
  for (size_t i = 0; i < n; i++) {
    const struct sc_node *it = list->kind == SC_SEQ ? list->items[i] : list;
    if (it->kind != SC_SCALAR) return node_fail(b, it, path, "expected a label, got %s", "a list or mapping");
    struct labelled *l = g_hash_table_lookup(b->labels, it->scalar);
    if (!l) return node_fail(b, it, path, "expected a label of an earlier op on this rank, got '%s'", it->scalar);
    GArray *src = start ? l->first : l->tails;
    g_array_append_vals(out, src->data, src->len);
    if (named && !l->absent) (*named)++;
  }
  return true;
}

/* `after_prev: LIST`: the ops the labels of LIST ended with in the
 * previous iteration of the innermost loop (none in its first), into OUT. */
static bool prev_ops(struct ybuild *b, const struct sc_node *list, const char *path, GArray *out) {
  if (!b->prev)
    return node_fail(b, list, path, "expected after_prev inside a loop's ops, got it %s",
                     "outside every loop");
  size_t n = list->kind == SC_SEQ ? list->n_items : 1;
  for (size_t i = 0; i < n; i++) {
    const struct sc_node *it = list->kind == SC_SEQ ? list->items[i] : list;
    if (it->kind != SC_SCALAR) return node_fail(b, it, path, "expected a label, got %s", "a list or mapping");
    if (!g_hash_table_contains(b->body_labels, it->scalar))
      return node_fail(b, it, path, "expected a label of an op in this loop's ops, got '%s'", it->scalar);
    GArray *src = g_hash_table_lookup(b->prev, it->scalar);
    if (src) g_array_append_vals(out, src->data, src->len);
  }
  return true;
}

/* Adds to SET every label defined in tree N (an op list, nested loops too). */
static void collect_labels(const struct sc_node *n, GHashTable *set) {
  for (size_t i = 0; i < n->n_pairs; i++) {
    const struct sc_node *v = n->pairs[i].value;
    if (!strcmp(n->pairs[i].key, "label") && v->kind == SC_SCALAR) g_hash_table_add(set, v->scalar);
    else collect_labels(v, set);
  }
  for (size_t i = 0; i < n->n_items; i++) collect_labels(n->items[i], set);
}

static bool ops(struct ybuild *b, const struct sc_node *list, const char *path);

/* Sets the dependencies of the simple op just added: DEPS (requires),
 * STARTS (irequires). */
static void depend(struct ybuild *b, const GArray *deps, const GArray *starts) {
  uint32_t op = wl_last(b->p, b->rank);
  for (guint i = 0; i < deps->len; i++) wl_requires(b->p, b->rank, op, g_array_index(deps, uint32_t, i));
  for (guint i = 0; i < starts->len; i++) wl_irequires(b->p, b->rank, op, g_array_index(starts, uint32_t, i));
}

/* A message op (send, recv, put, wait) into the program. */
static bool message(struct ybuild *b, const char *kind, const struct sc_node *m, const char *path) {
  bool out = !strcmp(kind, "send") || !strcmp(kind, "put");
  int64_t peer, size, tag;
  uint32_t n = b->p->n_ranks;
  if (!bounded(b, m, path, out ? "to" : "from", UNIT_NONE, false, 0, 0, n - 1, &peer) ||
      !bounded(b, m, path, "size", UNIT_SIZE, false, 0, 0, INT64_MAX, &size) ||
      !bounded(b, m, path, "tag", UNIT_NONE, true, 0, 0, COLL_TAG_BASE - 1, &tag))
    return false;
  if ((uint32_t)peer == b->rank) {
    char *kp = g_strdup_printf("%s.%s", path, out ? "to" : "from");
    const struct sc_node *v = sc_map_get(m, out ? "to" : "from");
    *b->err = sc_error_at(v, kp, "expected a rank other than the sender's own (%u)", b->rank);
    g_free(kp);
    return false;
  }
  if (out) wl_send(b->p, b->rank, (uint32_t)peer, size, (uint32_t)tag);
  else wl_recv(b->p, b->rank, (uint32_t)peer, size, (uint32_t)tag);
  if (!strcmp(kind, "put") || !strcmp(kind, "wait"))
    b->p->ranks[b->rank].ops[wl_last(b->p, b->rank)].one_sided = 1;
  return true;
}

static bool compute(struct ybuild *b, const struct sc_node *m, const char *path) {
  int64_t wgs, flops, bytes, time, ws, reuse, gather;
  const int64_t big = INT64_MAX / (1 << 24);
  if (!bounded(b, m, path, "wgs", UNIT_NONE, true, 1, 1, 1 << 24, &wgs) ||
      !bounded(b, m, path, "flops", UNIT_NONE, true, 0, 0, big, &flops) ||
      !bounded(b, m, path, "bytes", UNIT_SIZE, true, 0, 0, big, &bytes) ||
      !bounded(b, m, path, "time", UNIT_TIME, true, 0, 0, big, &time) ||
      !bounded(b, m, path, "working_set", UNIT_SIZE, true, 0, 0, big, &ws) ||
      !bounded(b, m, path, "reuse", UNIT_SIZE, true, 0, 0, big, &reuse) ||
      !bounded(b, m, path, "gather", UNIT_SIZE, true, 0, 0, big, &gather))
    return false;
  long k = 0;
  const struct sc_node *cls = sc_map_get(m, "class");
  if (cls) {
    k = cls->kind == SC_SCALAR ? wl_kclass_named(cls->scalar) : -1;
    if (k < 0) {
      char *kp = g_strdup_printf("%s.class", path);
      *b->err = sc_error_at(cls, kp, "expected a kernel class (streaming, stencil, spmv, "
                            "reduction, axpy, gemm, library), got %s", cls->kind == SC_SCALAR ? cls->scalar : "a list or mapping");
      g_free(kp);
      return false;
    }
  }
  wl_compute(b->p, b->rank, (uint32_t)wgs, flops, bytes);
  wl_kclass(b->p, b->rank, (uint8_t)k, ws, reuse, gather);
  b->p->ranks[b->rank].ops[wl_last(b->p, b->rank)].time_ps = time;
  return true;
}

/* Collective KIND with the parameters in map M (or none when M is a
 * null scalar), entered after DEPS; leaves its completion in DEPS. */
static bool rank_set(const struct sc_node *s, const char *path, uint32_t n, bool *sel, char **err);

/* The group of a collective's `ranks:` (M's; 0: none, or every rank) in
 * *G, its first rank in *FIRST; false and *ERR when the op's rank is not
 * one of them. */
static bool coll_group(struct ybuild *b, const struct sc_node *m, const char *path, uint32_t *g,
                       uint32_t *first) {
  const struct sc_node *rs = sc_map_get(m, "ranks");
  uint32_t n = b->p->n_ranks;
  *g = 0, *first = 0;
  if (!rs) return true;
  char *kp = g_strdup_printf("%s.ranks", path);
  bool *sel = g_new0(bool, n), ok = rank_set(rs, kp, n, sel, b->err);
  GArray *members = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  for (uint32_t r = 0; ok && r < n; r++)
    if (sel[r]) g_array_append_val(members, r);
  if (ok && !sel[b->rank]) {
    *b->err = sc_error_at(rs, kp, "expected ranks that hold the op's rank (%u), got ranks without it",
                          b->rank);
    ok = false;
  }
  if (ok) {
    *first = g_array_index(members, uint32_t, 0);
    if (members->len < n) *g = wl_group_add(b->p, (const uint32_t *)(void *)members->data, members->len);
  }
  g_array_free(members, TRUE);
  g_free(sel);
  g_free(kp);
  return ok;
}

static bool collective(struct ybuild *b, enum wl_coll_kind kind, const struct sc_node *m,
                       const char *path, GArray *deps) {
  static const char *const keys[] = {"size", "elem", "flops_per_elem", "wgs", "root", "algorithm",
                                     "segment", "ranks"};
  if (m->kind == SC_MAP && !sc_check_keys(m, path, keys, G_N_ELEMENTS(keys), b->err)) return false;
  /* Its group: the collective's ranks (a process group), tagged apart from
   * other groups' calls: bit 31, the group (12 bits), the call's place
   * among the group's calls on this rank (2 tags each). */
  uint32_t g, first;
  if (!coll_group(b, m, path, &g, &first)) return false;
  if (g >= 4096) {
    *b->err = sc_error_at(m, path, "expected at most 4095 distinct collective rank sets, got more");
    return false;
  }
  if (g >= b->colls->len) g_array_set_size(b->colls, g + 1);
  uint32_t k = g_array_index(b->colls, uint32_t, g)++;
  struct wl_coll c = {.kind = (uint8_t)kind, .group = g,
                      .tag = COLL_TAG_BASE | (g << 19) | ((WL_COLL_TAGS * k) & ((1u << 19) - 1))};
  int64_t v[6];
  bool sized = kind != WL_BARRIER;
  if (!bounded(b, m, path, "size", UNIT_SIZE, !sized, 0, 0, INT64_MAX / 4, &v[0]) ||
      !bounded(b, m, path, "elem", UNIT_SIZE, true, 4, 1, 1 << 20, &v[1]) ||
      !bounded(b, m, path, "flops_per_elem", UNIT_NONE, true, 1, 0, 1 << 20, &v[2]) ||
      !bounded(b, m, path, "wgs", UNIT_NONE, true, 24, 1, 1 << 24, &v[3]) ||
      !bounded(b, m, path, "root", UNIT_NONE, true, first, 0, b->p->n_ranks - 1, &v[4]) ||
      !bounded(b, m, path, "segment", UNIT_SIZE, true, 0, 0, INT64_MAX / 4, &v[5]))
    return false;
  const struct wl_group *grp = wl_group_get(b->p, g);
  if (grp && !bsearch(&(uint32_t){(uint32_t)v[4]}, grp->ranks, grp->n, sizeof(uint32_t), cmp_rank)) {
    char *kp = g_strdup_printf("%s.root", path);
    const struct sc_node *rn = sc_map_get(m, "root");
    *b->err = sc_error_at(rn ? rn : m, kp, "expected a root among the collective's ranks, got %"
                          G_GINT64_FORMAT, v[4]);
    g_free(kp);
    return false;
  }
  c.bytes = v[0], c.elem = v[1], c.flops_per_elem = v[2], c.wgs = (uint32_t)v[3];
  c.root = (uint32_t)v[4], c.segment_bytes = v[5];
  const struct sc_node *alg = sc_map_get(m, "algorithm");
  if (alg) {
    char *kp = g_strdup_printf("%s.algorithm", path), *want = wl_coll_algo_list(kind);
    enum wl_coll_algo a;
    bool ok = alg->kind == SC_SCALAR && wl_coll_algo_parse(alg->scalar, &a) &&
              wl_coll_has_algo(kind, a);
    if (!ok)
      *b->err = sc_error_at(alg, kp, "expected an algorithm of %s (%s), got %s", wl_coll_names[kind],
                            want, alg->kind == SC_SCALAR ? alg->scalar : "a list or mapping");
    g_free(kp);
    g_free(want);
    if (!ok) return false;
    c.algo = (uint8_t)a;
  }
  /* Refused before it is expanded: a collective past the ops a whole
   * program may have (a tree in too many segments). */
  uint64_t most = wl_coll_max_ops(&c, grp ? grp->n : b->p->n_ranks);
  if (most > WL_MAX_OPS) {
    const struct sc_node *seg = sc_map_get(m, "segment");
    char *kp = seg ? g_strdup_printf("%s.segment", path) : g_strdup(path);
    *b->err = sc_error_at(seg ? seg : m, kp, "expected a collective that expands to at most 2^25 "
                          "ops on a rank, got up to %" G_GUINT64_FORMAT "%s", most,
                          seg ? " (a larger segment makes fewer)" : "");
    g_free(kp);
    return false;
  }
  /* One op, written out when the program is lowered, as the run's
   * library runs it (wl_expand_colls): its dependencies are the call's. */
  wl_collective(b->p, b->rank, &c);
  uint32_t op = wl_last(b->p, b->rank);
  b->p->ranks[b->rank].ops[op].line = (uint32_t)m->line;
  for (guint i = 0; i < deps->len; i++) wl_requires(b->p, b->rank, op, g_array_index(deps, uint32_t, i));
  g_array_set_size(deps, 0);
  g_array_append_val(deps, op);
  return true;
}

static bool loop(struct ybuild *b, const struct sc_node *m, const char *path) {
  int64_t count;
  if (!bounded(b, m, path, "count", UNIT_NONE, false, 0, 0, 1 << 24, &count)) return false;
  const struct sc_node *var = sc_map_get(m, "var"), *body = sc_map_get(m, "ops");
  const char *name = var && var->kind == SC_SCALAR ? var->scalar : "i";
  if (!body || body->kind != SC_SEQ) {
    char *kp = g_strdup_printf("%s.ops", path);
    *b->err = sc_error_at(body ? body : m, kp, "expected a list of ops, got %s", body ? "a scalar or mapping" : "nothing");
    g_free(kp);
    return false;
  }
  g_ptr_array_add(b->vars, (gpointer)name);
  bool ok = true;
  uint64_t start = b->total, outer = b->mult;
  GHashTable *outer_body = b->body_labels, *outer_prev = b->prev;
  b->body_labels = g_hash_table_new(g_str_hash, g_str_equal);
  collect_labels(body, b->body_labels);
  b->prev = NULL;
  b->mult = wl_mul_sat(outer, (uint64_t)count);
  /* Nested loops iterate the product of their counts, ops or not. */
  if (b->mult > YPROG_MAX_STEPS) {
    char *kp = g_strdup_printf("%s.count", path);
    ok = node_fail(b, sc_map_get(m, "count"), kp,
                   "expected loops that iterate at most 2^25 times in all, got %s",
                   "more (the counts multiply)");
    g_free(kp);
    count = 0;
  }
  for (int64_t i = 0; i < count && ok; i++) {
    /* After one iteration, what every iteration of this and the enclosing
     * loops would make must fit (WL_MAX_OPS). */
    if (i == 1 && wl_mul_sat(b->total - start, b->mult) > WL_MAX_OPS) {
      char *kp = g_strdup_printf("%s.count", path);
      ok = node_fail(b, sc_map_get(m, "count"), kp,
                     "expected loops that make at most 2^25 ops in all, got %s",
                     "more (the counts multiply)");
      g_free(kp);
      break;
    }
    if (!(ok = spend(b, 1, m, path))) break;
    /* What after_prev reads: each body label's ops as the iteration
     * before left them (none before the first). */
    if (b->prev) g_hash_table_destroy(b->prev);
    b->prev = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, free_ops);
    GHashTableIter it;
    gpointer key;
    g_hash_table_iter_init(&it, b->body_labels);
    while (i > 0 && g_hash_table_iter_next(&it, &key, NULL)) {
      const struct labelled *l = g_hash_table_lookup(b->labels, key);
      if (l) g_hash_table_insert(b->prev, key, g_array_copy(l->tails));
    }
    g_array_append_val(b->vals, i);
    char *kp = g_strdup_printf("%s.ops", path);
    ok = ops(b, body, kp);
    g_free(kp);
    g_array_set_size(b->vals, b->vals->len - 1);
  }
  g_ptr_array_set_size(b->vars, b->vars->len - 1);
  b->mult = outer;
  if (b->prev) g_hash_table_destroy(b->prev);
  g_hash_table_destroy(b->body_labels);
  b->body_labels = outer_body;
  b->prev = outer_prev;
  return ok;
}

/* One op of a list: map M at PATH. */
static bool op(struct ybuild *b, const struct sc_node *m, const char *path) {
  if (m->kind != SC_MAP) return node_fail(b, m, path, "expected an op (a mapping such as {send: {to: 1, size: 4KiB}}), got %s", "a scalar or list");
  const char *kind = NULL;
  const struct sc_node *body = NULL;
  for (size_t i = 0; i < m->n_pairs; i++) {
    const char *k = m->pairs[i].key;
    if (in(k, common_keys, G_N_ELEMENTS(common_keys))) continue;
    if (!in(k, op_keys, G_N_ELEMENTS(op_keys)) || kind) {
      char *kp = g_strdup_printf("%s.%s", path, k);
      *b->err = sc_error_at(m->pairs[i].value, kp,
                            kind ? "expected one op per list item, got %s and %s"
                                 : "expected an op (compute, calc, send, recv, put, wait, quiet, "
                                   "fence, loop, allreduce, reduce_scatter, allgather, bcast, "
                                   "reduce, alltoall, barrier) or label/after/after_start, got %s%s",
                            kind ? kind : k, kind ? k : "");
      g_free(kp);
      return false;
    }
    kind = k;
    body = m->pairs[i].value;
  }
  if (!kind) return node_fail(b, m, path, "expected an op, got %s", "only label/after/if keys");
  /* `if: EXPR`: the op is there on ranks (and iterations) where EXPR is
   * not 0. */
  int64_t cond = 1;
  if (sc_map_get(m, "if") && !field(b, m, path, "if", UNIT_NONE, false, 0, &cond)) return false;
  if (!cond) {
    /* Removed here: its label names no op (an `after:` of it is ignored)
     * until an op of that label is made again. */
    const struct sc_node *label = sc_map_get(m, "label");
    if (label && label->kind == SC_SCALAR) {
      struct labelled *l = g_new(struct labelled, 1);
      l->first = g_array_new(FALSE, FALSE, sizeof(uint32_t));
      l->tails = g_array_new(FALSE, FALSE, sizeof(uint32_t));
      l->absent = true;
      g_hash_table_replace(b->labels, g_strdup(label->scalar), l);
    }
    return true;
  }
  GArray *deps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  GArray *starts = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  const struct sc_node *after = sc_map_get(m, "after"), *after_start = sc_map_get(m, "after_start");
  const struct sc_node *after_prev = sc_map_get(m, "after_prev");
  bool ok = true;
  size_t named = 0;
  if (after) ok = label_ops(b, after, path, false, deps, &named);
  /* No after:, or one whose every label `if:` removed here: the op
   * before it (an explicit `after: []` is nothing). */
  bool listed = after && (after->kind != SC_SEQ || after->n_items > 0);
  if (ok && (!after || (listed && !named)))
    g_array_append_vals(deps, b->tails->data, b->tails->len);
  if (ok && after_start) ok = label_ops(b, after_start, path, true, starts, NULL);
  if (ok && after_prev) {
    char *pp = g_strdup_printf("%s.after_prev", path);
    ok = prev_ops(b, after_prev, pp, deps);
    g_free(pp);
  }
  char *kp = g_strdup_printf("%s.%s", path, kind);
  uint32_t first = (uint32_t)b->p->ranks[b->rank].n_ops;
  bool simple = !strcmp(kind, "send") || !strcmp(kind, "recv") || !strcmp(kind, "put") ||
                !strcmp(kind, "wait") || !strcmp(kind, "compute") || !strcmp(kind, "calc") ||
                !strcmp(kind, "quiet");
  bool fence = !strcmp(kind, "fence");
  if (ok && !simple && starts->len) ok = node_fail(b, after_start, path, "expected after_start only on a simple op, got it on %s", kind);
  if (!ok) {
  } else if ((fence || !strcmp(kind, "quiet")) &&
             !(body->kind == SC_SCALAR && (!*body->scalar || !strcmp(body->scalar, "~") ||
                                           !strcmp(body->scalar, "null")))) {
    ok = node_fail(b, body, kp, "expected nothing (~), got %s",
                   body->kind == SC_SCALAR ? body->scalar : "a list or mapping");
  } else if (fence) {
    /* nvshmem_fence orders a rank's puts to each PE: the model delivers
     * them in the order issued already (one NIC, first-in first-out
     * links; NVLink alike), so it adds no op and no time. */
  } else if (!strcmp(kind, "quiet")) {
    wl_quiet(b->p, b->rank);
  } else if (!strcmp(kind, "calc")) {
    int64_t t;
    ok = value_of(b, body, kp, UNIT_TIME, &t);
    if (ok && t < 0) ok = node_fail(b, body, kp, "expected a time of at least 0ps, got %s", body->scalar);
    if (ok) wl_calc(b->p, b->rank, t, WL_ON_ANY);
  } else if (body->kind != SC_MAP && !(!strcmp(kind, "barrier") && body->kind == SC_SCALAR)) {
    ok = node_fail(b, body, kp, "expected a mapping of its parameters, got %s", "a scalar or list");
  } else if (!strcmp(kind, "compute")) {
    ok = compute(b, body, kp);
  } else if (simple) {
    ok = message(b, kind, body, kp);
  } else if (!strcmp(kind, "loop")) {
    g_array_set_size(b->tails, 0);
    g_array_append_vals(b->tails, deps->data, deps->len);
    ok = loop(b, body, kp);
    g_array_set_size(deps, 0);
    g_array_append_vals(deps, b->tails->data, b->tails->len);
  } else {
    long k = -1;
    for (int i = 0; i < WL_COLL_COUNT; i++)
      if (!strcmp(kind, wl_coll_names[i])) k = i;
    ok = collective(b, (enum wl_coll_kind)k, body, kp, deps);
  }
  if (ok && strcmp(kind, "loop")) b->total += b->p->ranks[b->rank].n_ops - first;
  if (ok && simple) {
    uint32_t o = wl_last(b->p, b->rank);
    b->p->ranks[b->rank].ops[o].line = (uint32_t)m->line;
    depend(b, deps, starts);
    g_array_set_size(deps, 0);
    g_array_append_val(deps, o);
  }
  if (ok) {
    g_array_set_size(b->tails, 0);
    g_array_append_vals(b->tails, deps->data, deps->len);
    const struct sc_node *label = sc_map_get(m, "label");
    if (label && label->kind == SC_SCALAR) {
      struct labelled *l = g_new(struct labelled, 1);
      l->absent = false;
      l->tails = g_array_copy(deps);
      l->first = g_array_new(FALSE, FALSE, sizeof(uint32_t));
      uint32_t end = (uint32_t)b->p->ranks[b->rank].n_ops;
      if (first < end) g_array_append_val(l->first, first);
      else g_array_append_vals(l->first, deps->data, deps->len);
      g_hash_table_replace(b->labels, g_strdup(label->scalar), l);
    } else if (label) {
      ok = node_fail(b, label, path, "expected a label name, got %s", "a list or mapping");
    }
  }
  g_free(kp);
  g_array_free(deps, TRUE);
  g_array_free(starts, TRUE);
  return ok;
}

static bool ops(struct ybuild *b, const struct sc_node *list, const char *path) {
  for (size_t i = 0; i < list->n_items; i++) {
    char *kp = g_strdup_printf("%s[%zu]", path, i);
    size_t before = b->p->ranks[b->rank].n_ops;
    bool ok = op(b, list->items[i], kp) &&
              spend(b, b->p->ranks[b->rank].n_ops - before, list->items[i], kp);
    g_free(kp);
    if (!ok) return false;
  }
  return true;
}

/* Marks in SEL the ranks spec S names: all, N, "A-B", or a list of those. */
static bool rank_set(const struct sc_node *s, const char *path, uint32_t n, bool *sel, char **err) {
  if (s->kind == SC_SEQ) {
    for (size_t i = 0; i < s->n_items; i++)
      if (!rank_set(s->items[i], path, n, sel, err)) return false;
    return true;
  }
  uint64_t a = 0, z = 0;
  bool ok = s->kind == SC_SCALAR;
  if (ok && !strcmp(s->scalar, "all")) {
    a = 0, z = n - 1;
  } else if (ok) {
    char *end = NULL;
    a = z = g_ascii_strtoull(s->scalar, &end, 10);
    if (end && *end == '-' && end != s->scalar) z = g_ascii_strtoull(end + 1, &end, 10);
    ok = end && !*end && end != s->scalar && a <= z && z < n;
  }
  if (!ok) {
    *err = sc_error_at(s, path, "expected all, a rank below %u, a range \"A-B\" or a list of them, "
                       "got %s", n, s->kind == SC_SCALAR ? s->scalar : "a mapping");
    return false;
  }
  for (uint64_t r = a; r <= z; r++) sel[r] = true;
  return true;
}

struct wl_program *wl_yprog_build(const struct sc_node *groups, uint32_t n, char **err) {
  if (!groups || groups->kind != SC_SEQ || groups->n_items == 0) {
    if (groups) *err = sc_error_at(groups, "workload.groups", "expected a list of {ranks, ops} groups, got %s", groups->kind == SC_SEQ ? "an empty list" : "a scalar or mapping");
    else *err = g_strdup("workload.groups: expected a list of {ranks, ops} groups, got nothing");
    return NULL;
  }
  struct wl_program *p = wl_program_new(n);
  bool *sel = g_new(bool, n);
  struct ybuild b = {.p = p, .err = err, .mult = 1};
  b.vars = g_ptr_array_new();
  b.vals = g_array_new(FALSE, FALSE, sizeof(int64_t));
  b.tails = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  GHashTable **labels = g_new0(GHashTable *, n);
  GArray **colls = g_new0(GArray *, n);
  GArray **tails = g_new0(GArray *, n);
  bool ok = true;
  for (size_t gi = 0; gi < groups->n_items && ok; gi++) {
    const struct sc_node *g = groups->items[gi];
    char *gp = g_strdup_printf("workload.groups[%zu]", gi);
    const struct sc_node *rs = sc_map_get(g, "ranks"), *body = sc_map_get(g, "ops");
    memset(sel, 0, n * sizeof *sel);
    if (g->kind != SC_MAP || !body || body->kind != SC_SEQ) {
      *err = sc_error_at(body ? body : g, gp, "expected {ranks: ..., ops: [a list of ops]}, got %s",
                         g->kind != SC_MAP ? "no mapping" : body ? "ops that are not a list" : "no ops");
      ok = false;
    } else if (rs) {
      char *rp = g_strdup_printf("%s.ranks", gp);
      ok = rank_set(rs, rp, n, sel, err);
      g_free(rp);
    } else {
      memset(sel, 1, n * sizeof *sel);
    }
    char *op_path = g_strdup_printf("%s.ops", gp);
    for (uint32_t r = 0; r < n && ok; r++) {
      if (!sel[r]) continue;
      if (!labels[r]) {
        labels[r] = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, labelled_free);
        tails[r] = g_array_new(FALSE, FALSE, sizeof(uint32_t));
        wl_graph(p, r);
      }
      b.rank = r;
      b.labels = labels[r];
      if (!colls[r]) colls[r] = g_array_new(FALSE, TRUE, sizeof(uint32_t));
      b.colls = colls[r];
      g_array_set_size(b.tails, 0);
      g_array_append_vals(b.tails, tails[r]->data, tails[r]->len);
      int64_t base[2] = {r, n};
      g_ptr_array_set_size(b.vars, 0);
      g_ptr_array_add(b.vars, "rank");
      g_ptr_array_add(b.vars, "nranks");
      g_array_set_size(b.vals, 0);
      g_array_append_vals(b.vals, base, 2);
      ok = ops(&b, body, op_path);
      g_array_set_size(tails[r], 0);
      g_array_append_vals(tails[r], b.tails->data, b.tails->len);
    }
    g_free(op_path);
    g_free(gp);
  }
  for (uint32_t r = 0; r < n; r++) {
    if (labels[r]) g_hash_table_destroy(labels[r]);
    if (tails[r]) g_array_free(tails[r], TRUE);
  }
  g_free(labels);
  g_free(tails);
  for (uint32_t r = 0; r < n; r++)
    if (colls[r]) g_array_free(colls[r], TRUE);
  g_free(colls);
  g_free(sel);
  g_ptr_array_free(b.vars, TRUE);
  g_array_free(b.vals, TRUE);
  g_array_free(b.tails, TRUE);
  if (!ok) {
    wl_program_free(p);
    return NULL;
  }
  return p;
}

/* ---- the workload ---- */

static struct wl_program *yprog_program(const struct wl_ctx *ctx, char **err) {
  const struct yprog_config *c = ctx->config;
  struct hw_config hw = wl_hw_of(ctx->sc);
  uint64_t n = c->ranks ? (uint64_t)c->ranks : (uint64_t)hw.net->nodes;
  if (!wl_check_nodes(ctx->sc, &hw, n, "the program's ranks", err)) return NULL;
  return wl_yprog_build(c->groups, (uint32_t)n, err);
}

const struct wl_type wl_yprog = {
    .params = &program_params,
    .default_policy = "gputn",
    .program = yprog_program,
};
