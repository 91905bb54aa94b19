/* The GOAL workload (goal.h): a schedule in GOAL, the text format of
 * LogGOPSim and Schedgen (Hoefler et al., "Group Operation Assembly
 * Language", 2009; spcl/LogGOPSim's txt2bin grammar), read into graph ranks
 * of the per-rank form, one op per send, recv and calc, one dependency per
 * `requires` (completion) or `irequires` (start). */
#include "goal.h"

#include <errno.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>

#include "input.h"
#include "lower.h"
#include "workload.h"

#define PAR_CONFIG struct goal_config
static const struct par_decl goal_decls[] = {
    PAR(file, PAR_STRING, "", NULL, NULL, NULL,
      "the GOAL schedule (text, as Schedgen writes it; relative to the scenario file)"),
    PAR(time_unit, PAR_TIME, "1ns", "1ps", "1s", NULL,
      "what one unit of a `calc` value lasts (Schedgen's default: 1ns)"),
    PAR(calc_on, PAR_ENUM, "auto", NULL, NULL, "auto|cpu|gpu",
      "where a calc runs: auto = the GPU under GPU policies, the CPU under cpu; cpu only "
      "under host-driven policies (cpu, hdn, copy, overlap); gpu not under cpu"),
};
#undef PAR_CONFIG

const struct par_group goal_params = {
    .name = "goal",
    .doc = "a GOAL schedule (LogGOPSim/Schedgen): sends, receives, calcs and their dependencies",
    .decls = goal_decls,
    .n_decls = PAR_COUNT(goal_decls),
    .config_size = sizeof(struct goal_config),
};

/* ---- the reader ---- */

/* No GOAL statement comes near this; a longer line is not a schedule. */
#define GOAL_MAX_LINE 4096

struct reader {
  const char *path;
  FILE *f;
  char *buf;          /* the current line (getline) */
  size_t cap;
  const char *pos;    /* next character of the line */
  uint32_t line;      /* 1-based */
  bool in_comment;    /* inside a block comment that began on an earlier line */
  bool too_long;      /* a line longer than GOAL_MAX_LINE: reading stopped */
  unsigned last_len;  /* characters of the last line read, without its end */
  char **err;
};

/* Sets *ERR to "path:line:col: expected WANT, got <the token at AT>". */
static bool fail_at(struct reader *r, const char *at, const char *want) {
  if (!r->buf || at < r->buf || at > r->buf + strlen(r->buf)) { /* past the last line */
    *r->err = g_strdup_printf("%s:%u:%u: workload.file: expected %s, got the end of the file",
                              r->path, MAX(r->line, 1), r->last_len + 1, want);
    return false;
  }
  size_t n = strcspn(at, " \t\r\n");
  char *got = n ? g_strndup(at, MIN(n, 40)) : g_strdup(*at == '\0' || *at == '\n' ? "the end of the line" : "a space");
  *r->err = g_strdup_printf("%s:%u:%u: %s: expected %s, got %s", r->path, r->line,
                            (unsigned)(at - r->buf) + 1, "workload.file", want, got);
  g_free(got);
  return false;
}

/* Skips spaces and comments; reads further lines only when MULTILINE.
 * Returns false at the end of the line (or file). */
static bool skip_blank(struct reader *r, bool multiline) {
  for (;;) {
    if (r->in_comment) {
      const char *end = strstr(r->pos, "*/");
      if (!end) {
        if (!multiline) return false;
        goto next_line;
      }
      r->in_comment = false;
      r->pos = end + 2;
      continue;
    }
    while (*r->pos == ' ' || *r->pos == '\t' || *r->pos == '\r') r->pos++;
    if (r->pos[0] == '/' && r->pos[1] == '*') {
      r->in_comment = true;
      r->pos += 2;
      continue;
    }
    if ((r->pos[0] == '/' && r->pos[1] == '/') || *r->pos == '\n' || *r->pos == '\0') {
      if (!multiline) return false;
      goto next_line;
    }
    return true;
  next_line:
    if (r->too_long) return false;
    ssize_t len = getline(&r->buf, &r->cap, r->f);
    if (len < 0) {
      r->pos = "";
      return false;
    }
    r->line++;
    r->pos = r->buf;
    r->last_len = (unsigned)strcspn(r->buf, "\r\n");
    if (len > GOAL_MAX_LINE) {
      r->too_long = true;
      r->buf[GOAL_MAX_LINE] = '\0';
      r->pos = "";
      return false;
    }
  }
}

/* Whether the next token is the word W (consumed if so). */
static bool word(struct reader *r, const char *w) {
  size_t n = strlen(w);
  if (strncmp(r->pos, w, n) || g_ascii_isalnum(r->pos[n]) || r->pos[n] == '_') return false;
  r->pos += n;
  return true;
}

/* An unsigned decimal integer at most MAX into *V. */
static bool number(struct reader *r, uint64_t max, const char *what, uint64_t *v) {
  skip_blank(r, false);
  const char *at = r->pos;
  if (!g_ascii_isdigit(*at)) return fail_at(r, at, what);
  uint64_t x = 0;
  while (g_ascii_isdigit(*r->pos)) {
    unsigned d = (unsigned)(*r->pos++ - '0');
    if (x > (max - d) / 10) return fail_at(r, at, what);
    x = x * 10 + d;
  }
  if (g_ascii_isalpha(*r->pos) && *r->pos != 'b') return fail_at(r, at, what);
  *v = x;
  return true;
}

/* A label ([a-zA-Z][a-zA-Z0-9_]*) into a new string, or NULL. */
static char *label(struct reader *r) {
  const char *s = r->pos;
  if (!g_ascii_isalpha(*s)) return NULL;
  while (g_ascii_isalnum(*r->pos) || *r->pos == '_') r->pos++;
  return g_strndup(s, (gsize)(r->pos - s));
}

/* The end of a statement: only blanks and comments are left on the line. */
static bool end_of_statement(struct reader *r) {
  if (skip_blank(r, false)) return fail_at(r, r->pos, "the end of the statement");
  return true;
}

struct goal_read {
  struct wl_program *p;
  uint32_t rank;
  GHashTable *labels;  /* label -> op index + 1, of the current rank */
  int64_t unit_ps;
  uint8_t calc_on;
  uint64_t ops;        /* read so far, every rank */
};

/* The optional `tag T`, `cpu N`, `nic N` of a send or recv (the cpu and nic
 * numbers pick one of several in LogGOPSim; a trigsim node has one host
 * thread and one NIC, so they are read and not modelled). */
static bool suffixes(struct reader *r, uint32_t *tag, bool calc) {
  uint64_t v;
  for (;;) {
    if (!skip_blank(r, false)) return true;
    if (!calc && word(r, "tag")) {
      if (!number(r, UINT32_MAX - 1, "a tag (0 or more; -1, any tag, is not modelled)", &v))
        return false;
      *tag = (uint32_t)v;
    } else if (word(r, "cpu") || (!calc && word(r, "nic"))) {
      if (!number(r, 255, "a CPU or NIC number", &v)) return false;
    } else {
      return fail_at(r, r->pos, calc ? "cpu N or the end of the statement"
                                     : "tag T, cpu N, nic N or the end of the statement");
    }
  }
}

/* One op after its label (if any): send, recv or calc. */
static bool op(struct reader *r, struct goal_read *g, const char *name) {
  const char *at = r->pos;
  uint64_t v, peer;
  bool send = word(r, "send"), recv = !send && word(r, "recv");
  if (send || recv) {
    if (!number(r, (uint64_t)INT64_MAX, "a size in bytes (e.g. 512b)", &v)) return false;
    skip_blank(r, false);
    if (*r->pos != 'b') return fail_at(r, r->pos, "b after the size");
    r->pos++;
    skip_blank(r, false);
    if (!word(r, send ? "to" : "from")) return fail_at(r, r->pos, send ? "to" : "from");
    const char *pat = (skip_blank(r, false), r->pos);
    if (!number(r, UINT32_MAX, "a rank (-1, any source, is not modelled)", &peer)) return false;
    if (peer >= g->p->n_ranks || peer == g->rank) {
      char want[96];
      g_snprintf(want, sizeof want, "a rank other than %u below num_ranks = %u", g->rank,
                 g->p->n_ranks);
      return fail_at(r, pat, want);
    }
    uint32_t tag = 0;
    if (!suffixes(r, &tag, false)) return false;
    if (send)
      wl_send(g->p, g->rank, (uint32_t)peer, (int64_t)v, tag);
    else
      wl_recv(g->p, g->rank, (uint32_t)peer, (int64_t)v, tag);
  } else if (word(r, "calc")) {
    if (!number(r, (uint64_t)INT64_MAX, "a calc time (an integer in time_unit)", &v))
      return false;
    if (v > (uint64_t)(INT64_MAX / g->unit_ps)) return fail_at(r, at, "a calc time below 2^63 ps");
    if (!suffixes(r, NULL, true)) return false;
    wl_calc(g->p, g->rank, (int64_t)v * g->unit_ps, g->calc_on);
  } else {
    return fail_at(r, at, "send, recv or calc (put, get and the triggered ops of LogGOPSim 2 "
                          "are not read)");
  }
  uint32_t i = wl_last(g->p, g->rank);
  g->p->ranks[g->rank].ops[i].line = r->line;
  if (++g->ops > WL_MAX_OPS) return fail_at(r, at, "a schedule of at most 2^25 operations");
  if (name && !g_hash_table_insert(g->labels, g_strdup(name), GUINT_TO_POINTER(i + 1)))
    return fail_at(r, at, "a label not used before in this rank");
  return true;
}

/* `NAME requires|irequires OTHER`. */
static bool dependency(struct reader *r, struct goal_read *g, const char *name, const char *at,
                       bool on_start) {
  skip_blank(r, false);
  const char *oat = r->pos;
  char *other = label(r);
  if (!other) return fail_at(r, oat, "a label");
  uint32_t a = GPOINTER_TO_UINT(g_hash_table_lookup(g->labels, name));
  uint32_t b = GPOINTER_TO_UINT(g_hash_table_lookup(g->labels, other));
  g_free(other);
  if (!a) return fail_at(r, at, "a label defined earlier in this rank");
  if (!b) return fail_at(r, oat, "a label defined earlier in this rank");
  if (a == b) return fail_at(r, oat, "another op than the one that requires it");
  if (!end_of_statement(r)) return false;
  if (on_start)
    wl_irequires(g->p, g->rank, a - 1, b - 1);
  else
    wl_requires(g->p, g->rank, a - 1, b - 1);
  return true;
}

/* The statements of `rank R {` up to its `}`. */
static bool rank_body(struct reader *r, struct goal_read *g) {
  for (;;) {
    if (!skip_blank(r, true)) return fail_at(r, r->pos, "} to close the rank");
    if (*r->pos == '}') {
      r->pos++;
      return end_of_statement(r);
    }
    const char *at = r->pos;
    char *name = label(r);
    bool ok;
    if (!name) {
      ok = fail_at(r, at, "a label, an op or }");
    } else if (!strcmp(name, "send") || !strcmp(name, "recv") || !strcmp(name, "calc")) {
      r->pos = at; /* an op without a label */
      ok = op(r, g, NULL);
    } else {
      skip_blank(r, false);
      if (*r->pos == ':') {
        r->pos++;
        skip_blank(r, false);
        ok = op(r, g, name);
      } else if (word(r, "requires")) {
        ok = dependency(r, g, name, at, false);
      } else if (word(r, "irequires")) {
        ok = dependency(r, g, name, at, true);
      } else {
        ok = fail_at(r, r->pos, ": and an op, requires or irequires");
      }
    }
    g_free(name);
    if (!ok) return false;
  }
}

struct wl_program *wl_goal_read(const char *path, int64_t time_unit_ps, uint8_t calc_on,
                                uint32_t max_ranks, uint64_t *num_ranks, char **err) {
  struct reader r = {.path = path, .line = 0, .err = err};
  *err = NULL;
  r.f = fopen(path, "r");
  struct stat st;
  if (!r.f || fstat(fileno(r.f), &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = g_strdup_printf("expected a readable GOAL file, got %s: %s", path,
                           r.f ? "something that is not a regular file" : g_strerror(errno));
    if (r.f) fclose(r.f);
    return NULL;
  }
  r.pos = "";
  struct goal_read g = {.unit_ps = time_unit_ps, .calc_on = calc_on};
  uint64_t v;
  bool ok = true;
  if (!skip_blank(&r, true) || !word(&r, "num_ranks")) {
    ok = fail_at(&r, r.pos, "num_ranks N first");
  } else if (number(&r, UINT32_MAX, "a rank count", &v) && end_of_statement(&r)) {
    *num_ranks = v;
    if (v < 1) {
      ok = fail_at(&r, r.buf + 9, "num_ranks of at least 1");
    } else if (v > max_ranks) {
      ok = false; /* the caller names the key that limits it */
    } else {
      g.p = wl_program_new((uint32_t)v);
      for (uint32_t i = 0; i < g.p->n_ranks; i++) wl_graph(g.p, i);
    }
  } else {
    ok = false;
  }
  bool *seen = ok ? g_new0(bool, g.p->n_ranks) : NULL;
  while (ok && skip_blank(&r, true)) {
    const char *at = r.pos;
    if (!word(&r, "rank")) {
      ok = fail_at(&r, at, "rank R {");
      break;
    }
    const char *rat = (skip_blank(&r, false), r.pos);
    if (!number(&r, UINT32_MAX, "a rank number", &v)) {
      ok = false;
    } else if (v >= g.p->n_ranks || seen[v]) {
      ok = fail_at(&r, rat, v >= g.p->n_ranks ? "a rank below num_ranks" : "a rank not given before");
    } else if (skip_blank(&r, false), *r.pos != '{') {
      ok = fail_at(&r, r.pos, "{");
    } else {
      r.pos++;
      seen[v] = true;
      g.rank = (uint32_t)v;
      g.labels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
      ok = end_of_statement(&r) && rank_body(&r, &g);
      g_hash_table_destroy(g.labels);
    }
  }
  if (r.too_long) {
    g_free(*err);
    *err = g_strdup_printf("%s:%u:%d: workload.file: expected a line of at most %d characters, "
                           "got a longer one", path, r.line, GOAL_MAX_LINE + 1, GOAL_MAX_LINE);
    ok = false;
  } else if (ok && r.in_comment) {
    *err = g_strdup_printf("%s:%u:%u: workload.file: expected */ to close the comment, got the "
                           "end of the file", path, r.line, r.last_len + 1);
    ok = false;
  }
  if (ok && ferror(r.f)) {
    *err = g_strdup_printf("expected a readable GOAL file, got a read error: %s", path);
    ok = false;
  }
  g_free(seen);
  g_free(r.buf);
  fclose(r.f);
  if (!ok) {
    if (g.p) wl_program_free(g.p);
    return NULL;
  }
  return g.p;
}

/* ---- the workload ---- */

static struct wl_program *goal_program(const struct wl_ctx *ctx, char **err) {
  const struct goal_config *c = ctx->config;
  struct hw_config hw = pol_hw_of(ctx->sc);
  const struct sc_node *w = sc_map_get(ctx->sc->root, "workload");
  const struct sc_node *fn = sc_map_get(w, "file");
  if (!c->file[0]) {
    *err = sc_error_at(fn ? fn : (w ? w : ctx->sc->root), "workload.file",
                       "expected the path of a GOAL schedule, got none");
    return NULL;
  }
  char *path = in_path_beside(fn ? fn->file : NULL, c->file);
  static const uint8_t where[] = {WL_ON_ANY, WL_ON_CPU, WL_ON_GPU};
  uint64_t num_ranks = 0;
  struct wl_program *p = wl_goal_read(path, c->time_unit, where[c->calc_on],
                                      (uint32_t)MIN(hw.net->nodes, UINT32_MAX), &num_ranks, err);
  if (!p && !*err) {
    char *what = g_strdup_printf("%s's num_ranks", c->file);
    pol_check_nodes(ctx->sc, &hw, num_ranks, what, err);
    g_free(what);
  } else if (!p && !g_str_has_prefix(*err, path)) { /* the file itself: at the key */
    char *why = *err;
    *err = sc_error_at(fn, "workload.file", "%s", why);
    g_free(why);
  }
  g_free(path);
  return p;
}

/* A calc placed where the policy runs no compute (calc_on). */
static bool goal_check(const struct wl_ctx *ctx, char **err) {
  const struct goal_config *c = ctx->config;
  const struct pol_type *pol = pol_find(ctx->policy);
  const struct sc_node *w = sc_map_get(ctx->sc->root, "workload");
  const struct sc_node *con = sc_map_get(w, "calc_on");
  if (pol && ((c->calc_on == GOAL_ON_CPU && !pol->graph.host) ||
              (c->calc_on == GOAL_ON_GPU && !pol->graph.gpu))) {
    *err = sc_error_at(con ? con : w, "workload.calc_on",
                       "expected where policy %s can run a calc (%s), got %s", ctx->policy,
                       pol->graph.host ? "auto or cpu" : "auto or gpu",
                       c->calc_on == GOAL_ON_CPU ? "cpu" : "gpu");
    return false;
  }
  return true;
}

static bool goal_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  return pol_run_program(ctx, goal_program, out, err);
}

const struct wl_type wl_goal = {
    .params = &goal_params,
    .policies = pol_names,
    .n_policies = POL_COUNT,
    .default_policy = "gputn",
    .check = goal_check,
    .run = goal_run,
    .program = goal_program,
};

/* ---- the writer ---- */

void wl_goal_write(const struct wl_program *p, const struct cpu_config *cpu, int64_t time_unit_ps,
                   FILE *f) {
  fprintf(f, "num_ranks %u\n", p->n_ranks);
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    const struct wl_rank *rk = &p->ranks[r];
    fprintf(f, "\nrank %u {\n", r);
    int64_t prev = -1; /* a sequence rank's last op written */
    for (size_t i = 0; i < rk->n_ops; i++) {
      const struct wl_op *o = &rk->ops[i];
      switch (o->kind) {
      case WL_COMPUTE: {
        sim_time t = pol_cpu_time(cpu, o);
        fprintf(f, "l%zu: calc %" G_GINT64_FORMAT "\n", i, (t + time_unit_ps - 1) / time_unit_ps);
        break;
      }
      case WL_SEND:
      case WL_RECV:
        fprintf(f, "l%zu: %s %" G_GINT64_FORMAT "b %s %u tag %u\n", i,
                o->kind == WL_SEND ? "send" : "recv", o->bytes,
                o->kind == WL_SEND ? "to" : "from", o->peer, o->tag);
        break;
      default: continue; /* a sync: the chain orders everything already */
      }
      if (rk->graph) {
        for (uint32_t d = 0; d < o->n_deps; d++) {
          const struct wl_dep *dp = &rk->deps[o->dep_first + d];
          fprintf(f, "l%zu %s l%u\n", i, dp->on_start ? "irequires" : "requires", dp->op);
        }
      } else {
        if (prev >= 0) fprintf(f, "l%zu requires l%" G_GINT64_FORMAT "\n", i, prev);
        prev = (int64_t)i;
      }
    }
    fprintf(f, "}\n");
  }
}
