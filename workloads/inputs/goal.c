/* The GOAL workload (goal.h): a schedule in GOAL, the text format of
 * LogGOPSim and Schedgen (Hoefler et al., "Group Operation Assembly
 * Language", 2009; spcl/LogGOPSim's txt2bin grammar), read into graph ranks
 * of the per-rank form, one op per send, recv and calc, one dependency per
 * `requires` (completion) or `irequires` (start); or streamed: each rank
 * read from its own cursor while it runs ("the streamed run" below, under
 * the host-driven policies; then the GPU-driven ones and gds; issue 13,
 * item 3). */
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
    PAR(stream_window, PAR_INT, "256", "0", "16777216", NULL,
      "ops of a rank read ahead that wait for a dependency, when the schedule streams "
      "(configs/README.md: every policy but gds, with its default library; each "
      "dependency line at most 16 ops after its op); the ops among which the GPU-driven "
      "policies pick a rank's next (read whole too); 0: read the whole file first, every op"),
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
  off_t off;          /* file offset of the next line */
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
    r->off += len;
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
  struct wl_program *p; /* the program built; NULL: only checked (goal_index) */
  uint32_t n_ranks;
  uint32_t rank;
  GHashTable *labels;  /* label -> op index + 1, of the current rank */
  uint32_t rank_ops;   /* ops of the current rank read so far */
  int64_t unit_ps;
  uint8_t calc_on;
  uint64_t ops;        /* read so far, every rank */
  uint64_t max_ops;    /* at most this many (WL_MAX_OPS when building) */
  uint32_t lag;        /* the most ops read between an op and a dependency line naming
                          it as the one that waits (0: each right after its op) */
  bool forward;        /* some op of the current rank waits for one written after it
                          (only so can a cycle be made) */
  GArray *edges;       /* indexing: the current rank's dependencies, uint32_t pairs */
  bool cycle;          /* indexing: some rank's dependencies make a cycle */
};

/* One statement of a rank block, read but not yet applied. */
enum { ST_OP, ST_DEP, ST_CLOSE };
struct goal_stmt {
  int kind;             /* ST_* */
  struct wl_op op;      /* ST_OP: kind, bytes, peer, tag (send, recv); time_ps, on, n_wgs (calc) */
  char *name, *other;   /* ST_OP: its label or NULL; ST_DEP: NAME [i]requires OTHER */
  const char *at, *oat; /* where they are on the line (for errors) */
  bool on_start;        /* ST_DEP: irequires */
};

static void stmt_clear(struct goal_stmt *st) {
  g_free(st->name);
  g_free(st->other);
  memset(st, 0, sizeof *st);
}

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

/* One op after its label (if any): send, recv or calc, into ST->op. */
static bool op(struct reader *r, const struct goal_read *g, struct goal_stmt *st) {
  const char *at = r->pos;
  uint64_t v, peer;
  struct wl_op *o = &st->op;
  st->kind = ST_OP;
  st->oat = at;
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
    if (peer >= g->n_ranks || peer == g->rank) {
      char want[96];
      g_snprintf(want, sizeof want, "a rank other than %u below num_ranks = %u", g->rank,
                 g->n_ranks);
      return fail_at(r, pat, want);
    }
    uint32_t tag = 0;
    if (!suffixes(r, &tag, false)) return false;
    *o = (struct wl_op){.kind = send ? WL_SEND : WL_RECV, .peer = (uint32_t)peer,
                        .bytes = (int64_t)v, .tag = tag};
  } else if (word(r, "calc")) {
    if (!number(r, (uint64_t)INT64_MAX, "a calc time (an integer in time_unit)", &v))
      return false;
    if (v > (uint64_t)(INT64_MAX / g->unit_ps)) return fail_at(r, at, "a calc time below 2^63 ps");
    if (!suffixes(r, NULL, true)) return false;
    *o = (struct wl_op){.kind = WL_COMPUTE, .n_wgs = 1, .time_ps = (int64_t)v * g->unit_ps,
                        .on = g->calc_on};
  } else {
    return fail_at(r, at, "send, recv or calc (put, get and the triggered ops of LogGOPSim 2 "
                          "are not read)");
  }
  o->line = r->line;
  return true;
}

/* The next statement of a rank block into ST (free with stmt_clear). */
static bool statement(struct reader *r, const struct goal_read *g, struct goal_stmt *st) {
  memset(st, 0, sizeof *st);
  if (!skip_blank(r, true)) return fail_at(r, r->pos, "} to close the rank");
  if (*r->pos == '}') {
    r->pos++;
    st->kind = ST_CLOSE;
    return end_of_statement(r);
  }
  const char *at = r->pos;
  char *name = label(r);
  if (!name) return fail_at(r, at, "a label, an op or }");
  if (!strcmp(name, "send") || !strcmp(name, "recv") || !strcmp(name, "calc")) {
    g_free(name);
    r->pos = at; /* an op without a label */
    return op(r, g, st);
  }
  st->name = name;
  st->at = at;
  skip_blank(r, false);
  if (*r->pos == ':') {
    r->pos++;
    skip_blank(r, false);
    return op(r, g, st);
  }
  if (word(r, "requires") || (st->on_start = word(r, "irequires"))) {
    st->kind = ST_DEP;
    skip_blank(r, false);
    st->oat = r->pos;
    st->other = label(r);
    if (!st->other) return fail_at(r, st->oat, "a label");
    return true; /* its end: apply, or the caller */
  }
  return fail_at(r, r->pos, ": and an op, requires or irequires");
}

/* Checks ST against the rank's labels and applies it: an op is numbered
 * (and added to the program, if building); a dependency's two ops are
 * looked up into *A and *B (op indices). */
static bool apply(struct reader *r, struct goal_read *g, const struct goal_stmt *st, uint32_t *a,
                  uint32_t *b) {
  if (st->kind == ST_OP) {
    if (g->rank_ops == UINT32_MAX - 1) /* labels hold op + 1 */
      return fail_at(r, st->oat, "a rank of at most 2^32 - 2 operations");
    uint32_t i = g->rank_ops++;
    if (++g->ops > g->max_ops) return fail_at(r, st->oat, "a schedule of at most 2^25 operations");
    if (st->name && !g_hash_table_insert(g->labels, g_strdup(st->name), GUINT_TO_POINTER(i + 1)))
      return fail_at(r, st->oat, "a label not used before in this rank");
    if (g->p) {
      const struct wl_op *o = &st->op;
      if (o->kind == WL_SEND)
        wl_send(g->p, g->rank, o->peer, o->bytes, o->tag);
      else if (o->kind == WL_RECV)
        wl_recv(g->p, g->rank, o->peer, o->bytes, o->tag);
      else
        wl_calc(g->p, g->rank, o->time_ps, o->on);
      g_assert(wl_last(g->p, g->rank) == i);
      g->p->ranks[g->rank].ops[i].line = o->line;
    }
    return true;
  }
  uint32_t x = GPOINTER_TO_UINT(g_hash_table_lookup(g->labels, st->name));
  uint32_t y = GPOINTER_TO_UINT(g_hash_table_lookup(g->labels, st->other));
  if (!x) return fail_at(r, st->at, "a label defined earlier in this rank");
  if (!y) return fail_at(r, st->oat, "a label defined earlier in this rank");
  if (x == y) return fail_at(r, st->oat, "another op than the one that requires it");
  if (!end_of_statement(r)) return false;
  *a = x - 1, *b = y - 1;
  g->lag = MAX(g->lag, g->rank_ops - 1 - *a);
  g->forward |= *b > *a;
  if (g->edges) {
    uint32_t e[2] = {*b, *a};
    g_array_append_vals(g->edges, e, 2);
  }
  if (g->p) {
    if (st->on_start)
      wl_irequires(g->p, g->rank, *a, *b);
    else
      wl_requires(g->p, g->rank, *a, *b);
  }
  return true;
}

/* The statements of `rank R {` up to its `}`; EACH (if any) sees every op. */
static bool rank_body(struct reader *r, struct goal_read *g,
                      void (*each)(void *ctx, uint32_t rank, const struct wl_op *o), void *ctx) {
  g->rank_ops = 0;
  for (;;) {
    struct goal_stmt st;
    uint32_t a, b;
    bool ok = statement(r, g, &st) && (st.kind == ST_CLOSE || apply(r, g, &st, &a, &b));
    if (ok && st.kind == ST_OP && each) each(ctx, g->rank, &st.op);
    bool close = st.kind == ST_CLOSE;
    stmt_clear(&st);
    if (!ok) return false;
    if (close) return true;
  }
}

/* Where a rank block's statements begin (after its `rank R {` line). */
struct goal_cursor {
  off_t off;       /* -1: the file has no block for the rank (it has no op) */
  uint32_t line;   /* of the line before */
  bool in_comment;
};

/* What a first pass over a schedule learns (goal_parse without a program). */
struct goal_index {
  uint32_t n_ranks;
  struct goal_cursor *at; /* per rank */
  uint64_t ops, calcs;
  uint32_t lag;           /* goal_read.lag */
  bool cycle;             /* goal_read.cycle: the whole-file path says where */
  uint64_t *n_ops, *n_sends, *n_recvs; /* per rank */
  GHashTable *chans;      /* struct chan_key -> struct chan_sum */
  GArray *sum;            /* struct chan_sum, the values */
};

/* A channel: messages from src to dst with tag, matched in order. */
struct chan_key {
  uint32_t src, dst, tag;
};

/* The channel of RANK's send or receive O. */
static struct chan_key chan_of(uint32_t rank, const struct wl_op *o) {
  bool recv = o->kind == WL_RECV;
  return (struct chan_key){recv ? o->peer : rank, recv ? rank : o->peer, o->tag};
}

/* The record of send or receive O's channel in H (chan_of's keys), a new
 * zeroed one of SIZE bytes when the channel is new. */
static void *chan_get(GHashTable *h, uint32_t rank, const struct wl_op *o, size_t size) {
  struct chan_key k = chan_of(rank, o);
  void *c = g_hash_table_lookup(h, &k);
  if (!c) {
    c = g_malloc0(size);
    g_hash_table_insert(h, g_memdup2(&k, sizeof k), c);
  }
  return c;
}

static guint chan_hash(gconstpointer k) {
  const struct chan_key *c = k;
  return (c->src * 2654435761u) ^ (c->dst * 40503u) ^ c->tag;
}

static gboolean chan_equal(gconstpointer a, gconstpointer b) {
  return !memcmp(a, b, sizeof(struct chan_key));
}

/* Sends and receives of a channel: counts and a hash of their sizes in order. */
struct chan_sum {
  uint64_t n[2], h[2]; /* [0]: sends, [1]: receives */
};

static void index_op(void *ctx, uint32_t rank, const struct wl_op *o) {
  struct goal_index *x = ctx;
  x->n_ops[rank]++;
  x->n_sends[rank] += o->kind == WL_SEND;
  x->n_recvs[rank] += o->kind == WL_RECV;
  if (o->kind == WL_COMPUTE) x->calcs++;
  if (o->kind != WL_SEND && o->kind != WL_RECV) return;
  bool recv = o->kind == WL_RECV;
  struct chan_sum *c = chan_get(x->chans, rank, o, sizeof *c);
  c->n[recv]++;
  c->h[recv] = (c->h[recv] ^ (uint64_t)o->bytes) * UINT64_C(1099511628211);
}

/* Whether every channel's sends and receives pair up with the same sizes
 * (by the hash: a collision is caught when the streamed run matches). */
static bool index_matched(const struct goal_index *x) {
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, x->chans);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    const struct chan_sum *c = v;
    if (c->n[0] != c->n[1] || c->h[0] != c->h[1]) return false;
  }
  return true;
}

/* The channel of X whose sends and receives do not pair up that comes
 * first by kind (more sends than receives: an input error; more receives:
 * a deadlock; then differing sizes), then by the rank with one too many,
 * its peer, the tag: into *KEY and *SUM, *KIND. False when none. */
static bool index_unmatched(const struct goal_index *x, struct chan_key *key,
                            const struct chan_sum **sum, int *kind) {
  GHashTableIter it;
  gpointer k, v;
  int best = 3; /* 0: more sends, 1: more receives, 2: sizes */
  uint32_t bk[3] = {0};
  g_hash_table_iter_init(&it, x->chans);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    const struct chan_key *ck = k;
    const struct chan_sum *c = v;
    int kd = c->n[0] > c->n[1] ? 0 : c->n[0] < c->n[1] ? 1 : c->h[0] != c->h[1] ? 2 : 3;
    if (kd > best) continue;
    uint32_t me[3] = {kd == 1 ? ck->dst : ck->src, kd == 1 ? ck->src : ck->dst, ck->tag};
    bool less = kd < best;
    for (int f = 0; !less && f < 3; f++)
      if (me[f] != bk[f]) {
        less = me[f] < bk[f];
        break;
      }
    if (!less) continue;
    best = kd;
    memcpy(bk, me, sizeof bk);
    *key = *ck;
    *sum = c;
  }
  *kind = best;
  return best < 3;
}

/* Op NTH (from 0) of RANK's block indexed in IDX that is a KIND
 * (WL_SEND, WL_RECV) with PEER and TAG: its index, line and size. False
 * when there is none. */
static bool goal_find(const char *path, const struct goal_index *idx, int64_t unit_ps,
                      uint32_t rank, uint8_t kind, uint32_t peer, uint32_t tag, uint64_t nth,
                      uint64_t *op, uint32_t *line, int64_t *bytes) {
  struct goal_cursor at = idx->at[rank];
  char *err = NULL;
  struct reader r = {.path = path, .err = &err, .pos = "", .off = at.off, .line = at.line,
                     .in_comment = at.in_comment};
  r.f = at.off >= 0 ? fopen(path, "r") : NULL;
  bool found = false;
  if (r.f && fseeko(r.f, at.off, SEEK_SET) == 0) {
    struct goal_read g = {.n_ranks = idx->n_ranks, .rank = rank, .unit_ps = unit_ps};
    for (uint64_t i = 0; !found;) {
      struct goal_stmt st;
      bool ok = statement(&r, &g, &st);
      if (ok && st.kind == ST_DEP) ok = end_of_statement(&r);
      bool end = !ok || st.kind == ST_CLOSE;
      if (!end && st.kind == ST_OP) {
        const struct wl_op *o = &st.op;
        if (o->kind == kind && o->peer == peer && o->tag == tag && nth-- == 0) {
          *op = i, *line = o->line, *bytes = o->bytes;
          found = true;
        }
        i++;
      }
      stmt_clear(&st);
      if (end) break;
    }
  }
  g_free(err);
  g_free(r.buf);
  if (r.f) fclose(r.f);
  return found;
}

/* What is wrong with the messages of the schedule at PATH indexed in IDX
 * (index_unmatched), said as the whole-file path says it (program.c,
 * wl_program_check and wl_program_unmatched), naming the op and its line:
 * an input error, or (*DEADLOCK) a receive no send matches. */
static char *goal_unmatched(const char *path, const struct goal_index *idx, int64_t unit_ps,
                            bool *deadlock) {
  struct chan_key k;
  const struct chan_sum *c = NULL;
  int kind;
  *deadlock = false;
  if (!index_unmatched(idx, &k, &c, &kind)) return NULL;
  uint64_t op = 0;
  uint32_t line = 0;
  int64_t bytes = 0;
  if (kind == 0 && goal_find(path, idx, unit_ps, k.src, WL_SEND, k.dst, k.tag, c->n[1], &op,
                             &line, &bytes)) {
    char nth[48] = "";
    if (c->n[1]) g_snprintf(nth, sizeof nth, " (message %" G_GUINT64_FORMAT " with that tag)",
                            c->n[1] + 1);
    return g_strdup_printf("rank %u op %" G_GUINT64_FORMAT " (line %u): expected a receive of %"
                           G_GINT64_FORMAT " B in 1 parts with tag %u on rank %u%s, got none",
                           k.src, op, line, bytes, k.tag, k.dst, nth);
  }
  if (kind == 1 && goal_find(path, idx, unit_ps, k.dst, WL_RECV, k.src, k.tag, c->n[0], &op,
                             &line, &bytes)) {
    *deadlock = true;
    return g_strdup_printf("rank %u op %" G_GUINT64_FORMAT " (line %u): a receive of %"
                           G_GINT64_FORMAT " B with tag %u from rank %u that no send matches: "
                           "the schedule deadlocks", k.dst, op, line, bytes, k.tag, k.src);
  }
  return g_strdup_printf("rank %u: expected its sends to rank %u with tag %u to have the sizes "
                         "of rank %u's receives from it with that tag, in order, got others",
                         k.src, k.dst, k.tag, k.dst);
}

static void index_free(struct goal_index *x) {
  g_free(x->at);
  g_free(x->n_ops);
  g_free(x->n_sends);
  g_free(x->n_recvs);
  if (x->chans) g_hash_table_destroy(x->chans);
  memset(x, 0, sizeof *x);
}

/* Whether the dependencies EDGES (pairs: op, the op that waits for it)
 * among N ops make a cycle (Kahn's algorithm). */
static bool has_cycle(uint32_t n, const GArray *edges) {
  const uint32_t *e = (const uint32_t *)(const void *)edges->data;
  size_t m = edges->len / 2;
  uint32_t *indeg = g_new0(uint32_t, n), *first = g_new0(uint32_t, n + 1), *to = g_new(uint32_t, m + 1);
  for (size_t k = 0; k < m; k++) indeg[e[2 * k + 1]]++, first[e[2 * k] + 1]++;
  for (uint32_t i = 0; i < n; i++) first[i + 1] += first[i];
  uint32_t *fill = g_memdup2(first, (n + 1) * sizeof *fill);
  for (size_t k = 0; k < m; k++) to[fill[e[2 * k]]++] = e[2 * k + 1];
  GArray *ready = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  for (uint32_t i = 0; i < n; i++)
    if (!indeg[i]) g_array_append_val(ready, i);
  uint32_t seen = 0;
  while (ready->len) {
    uint32_t i = g_array_index(ready, uint32_t, ready->len - 1);
    g_array_set_size(ready, ready->len - 1);
    seen++;
    for (uint32_t k = first[i]; k < first[i + 1]; k++)
      if (--indeg[to[k]] == 0) g_array_append_val(ready, to[k]);
  }
  g_array_free(ready, TRUE);
  g_free(indeg);
  g_free(first);
  g_free(to);
  g_free(fill);
  return seen < n;
}

/* Reads the schedule at PATH: into a program (wl_goal_read) when X is
 * NULL, else only checked (the same errors, but no limit on its ops) and
 * indexed into X. */
static struct wl_program *goal_parse(const char *path, int64_t time_unit_ps, uint8_t calc_on,
                                     uint32_t max_ranks, uint64_t *num_ranks, char **err,
                                     struct goal_index *x) {
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
  struct goal_read g = {.unit_ps = time_unit_ps, .calc_on = calc_on,
                        .max_ops = x ? UINT64_MAX : WL_MAX_OPS,
                        .edges = x ? g_array_new(FALSE, FALSE, sizeof(uint32_t)) : NULL};
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
    } else if (x) {
      g.n_ranks = x->n_ranks = (uint32_t)v;
      x->at = g_new(struct goal_cursor, v);
      x->n_ops = g_new0(uint64_t, v);
      x->n_sends = g_new0(uint64_t, v);
      x->n_recvs = g_new0(uint64_t, v);
      for (uint32_t i = 0; i < v; i++) x->at[i].off = -1;
      x->chans = g_hash_table_new_full(chan_hash, chan_equal, g_free, g_free);
    } else {
      g.p = wl_program_new((uint32_t)v);
      g.n_ranks = (uint32_t)v;
      for (uint32_t i = 0; i < g.p->n_ranks; i++) wl_graph(g.p, i);
    }
  } else {
    ok = false;
  }
  bool *seen = ok ? g_new0(bool, g.n_ranks) : NULL;
  while (ok && skip_blank(&r, true)) {
    const char *at = r.pos;
    if (!word(&r, "rank")) {
      ok = fail_at(&r, at, "rank R {");
      break;
    }
    const char *rat = (skip_blank(&r, false), r.pos);
    if (!number(&r, UINT32_MAX, "a rank number", &v)) {
      ok = false;
    } else if (v >= g.n_ranks || seen[v]) {
      ok = fail_at(&r, rat, v >= g.n_ranks ? "a rank below num_ranks" : "a rank not given before");
    } else if (skip_blank(&r, false), *r.pos != '{') {
      ok = fail_at(&r, r.pos, "{");
    } else {
      r.pos++;
      seen[v] = true;
      g.rank = (uint32_t)v;
      g.labels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
      ok = end_of_statement(&r);
      if (ok && x)
        x->at[v] = (struct goal_cursor){.off = r.off, .line = r.line,
                                        .in_comment = r.in_comment};
      g.forward = false;
      if (g.edges) g_array_set_size(g.edges, 0);
      ok = ok && rank_body(&r, &g, x ? index_op : NULL, x);
      if (ok && x && g.forward) g.cycle |= has_cycle(g.rank_ops, g.edges);
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
  if (x) {
    x->ops = g.ops;
    x->lag = g.lag;
    x->cycle = g.cycle;
    if (g.edges) g_array_free(g.edges, TRUE);
    if (!ok) index_free(x);
    return NULL;
  }
  if (!ok) {
    if (g.p) wl_program_free(g.p);
    return NULL;
  }
  return g.p;
}

struct wl_program *wl_goal_read(const char *path, int64_t time_unit_ps, uint8_t calc_on,
                                uint32_t max_ranks, uint64_t *num_ranks, char **err) {
  return goal_parse(path, time_unit_ps, calc_on, max_ranks, num_ranks, err, NULL);
}

/* ---- the streamed run ----
 * A schedule whose dependency lines each follow the op that waits (lag 0,
 * as Schedgen writes them) runs under a host-driven policy without being
 * read whole: a first pass checks it (the same errors) and notes where
 * each rank block begins; then each node's CPU reads its rank from its own
 * cursor while it runs (np_source), as long as fewer than `window` of the
 * ops read wait for a dependency. A send meets its receive when the later
 * of the two is read, in order per (source, destination, tag) as the
 * whole-file matching does; the receive's flag is taken then and given
 * back, with the op's slot and label, once the op has ended. The run is
 * the whole-file run step for step (same times, same counters): where it
 * could not be (an op found ready only after the thread moved on, a size
 * that differs, a deadlock) it stops and the whole-file path runs instead. */

/* The most ops a dependency line may follow the op that waits by (lag),
 * for the schedule to stream: each op is added once that many more are read. */
#define GOAL_MAX_LAG 16

static gint streamed_runs; /* runs may go on in several threads (fit, sweep) */
static uint64_t whole_limit = WL_MAX_OPS; /* the most ops read whole (tests lower it) */

void wl_goal_set_whole_limit(uint64_t ops) { whole_limit = ops ? ops : WL_MAX_OPS; }

static bool streaming = true; /* tests turn it off (wl_goal_set_streaming) */

void wl_goal_set_streaming(bool on) { streaming = on; }

uint64_t wl_goal_streamed(void) { return (uint64_t)g_atomic_int_get(&streamed_runs); }

struct gst_msg {             /* a send or receive read whose peer op is not yet */
  uint32_t flag;             /* the receive's flag at the destination */
  int64_t bytes;
};

struct gst_chan {            /* a channel's ops read and not yet matched (one side only) */
  GQueue q;                  /* struct gst_msg */
  bool recvs;                /* they are receives */
};

/* An op read: its host steps' slots (a GPU calc has two, its launch and
 * the wait for its kernel; anything else one), which of them the CPU has
 * not given back, its label and its receive's flag. */
struct gst_op {
  uint32_t first, last;
  uint8_t live;              /* bit 0: first, bit 1: last */
  char *label;               /* the key in gst_rank.labels, or NULL */
  uint32_t flag;
};

struct gst_pend {
  uint32_t op;               /* index into gst_rank.ops */
  struct hstep st[2];        /* its steps */
  GArray *deps;              /* struct hdep: its first step's */
  bool old;                  /* it also waits for ops given back */
};

/* An array whose elements stay where they are while the run goes on: it
 * grows into a new block, the old ones kept to the end (the GPU holds a
 * running kernel's struct and steps by pointer). */
struct gst_stable {
  void *data;
  size_t cap, size;          /* elements; bytes each */
  GPtrArray *old;
};

static void *stable_at(struct gst_stable *a, size_t i) {
  if (i >= a->cap) {
    size_t cap = MAX(i + 1, 2 * a->cap);
    void *b = g_malloc0(cap * a->size);
    if (a->data) memcpy(b, a->data, a->cap * a->size);
    g_ptr_array_add(a->old, a->data);
    a->data = b;
    a->cap = cap;
  }
  return (char *)a->data + i * a->size;
}

static void stable_free(struct gst_stable *a) {
  g_ptr_array_free(a->old, TRUE);
  g_free(a->data);
}

/* Elements that stay where they are, in blocks of GST_CHUNK made as
 * needed (what is named by pointer only, a kernel's steps: no block is
 * copied or kept twice). */
#define GST_CHUNK 256

struct gst_chunks {
  GPtrArray *blocks;
  size_t size;               /* bytes each */
};

static void *chunk_at(struct gst_chunks *a, size_t i) {
  while (i / GST_CHUNK >= a->blocks->len)
    g_ptr_array_add(a->blocks, g_malloc0(GST_CHUNK * a->size));
  return (char *)a->blocks->pdata[i / GST_CHUNK] + i % GST_CHUNK * a->size;
}

struct gst_rank {
  struct goal_cursor at;     /* the next statement to read */
  bool ended;
  uint64_t n_read;           /* ops read: the next op's index */
  uint64_t n_steps;          /* host steps of the ops read: the next one's index */
  GHashTable *labels;        /* label of an op read and not given back -> op + 1 */
  GArray *ops, *free_ops;    /* struct gst_op; uint32_t */
  GArray *slot_op;           /* per slot: uint32_t, its op */
  GArray *free_slots;        /* uint32_t */
  uint32_t n_slots;
  GArray *free_flags;        /* uint32_t */
  GArray *cmds;              /* struct nic_cmd per slot (a send's) */
  GArray *qcmds;             /* struct qcmd per slot (a launch's) */
  struct gst_stable kernels; /* struct kernel per slot (a GPU calc's wait: its kernel) */
  struct gst_chunks ksteps;  /* its step */
  struct nodeprog np;
  /* The ops read last, each added once the dependency lines that may
   * name it as the op that waits are read: lag + 1 of them, oldest at
   * pend[head]. */
  struct gst_pend *pend;
  uint32_t head, n_pend;
  /* Under a GPU-driven policy (gsd_run): */
  struct wl_lin *lin;        /* the rank's order */
  GArray *rops;              /* struct gsd_op: ops rbase .. n_read - 1 */
  uint64_t rbase, rlo;       /* rlo: the first op not placed */
  bool read_end;             /* the rank's } is read */
  GArray *ks, *hs;           /* struct kstep, struct hstep: the kernel's and the host's
                                steps from kern.base, np.host_base on */
  GQueue kpack;              /* GByteArray chunks of the kernel's steps lowered after ks's
                                (gsd_pack), the first read from byte kpack_off on: what the
                                host's registrations ran ahead by */
  guint kpack_off;
  uint64_t n_packed;         /* steps in kpack */
  struct kernel kern;
  struct qcmd qc;
  uint32_t tag_next, tag_stride; /* pol_prog's (gputn's trigger tags): the next send
                                    lowered + 1, the rank's sends */
  /* Under gds (gsq_run): */
  GQueue placed;             /* struct gsq_op: ops placed, not yet lowered */
  GArray *watch;             /* uint8_t per flag: the receive placed on it has stream
                                work after it (2) or not (1), 0: none placed */
  uint64_t work_left;        /* computes and sends not yet placed */
  uint32_t post;             /* sends lowered (pol_prog.post_next) */
  GArray *free_k, *free_q;   /* uint32_t: kernel and queue command slots given back */
  uint32_t n_k;              /* kernel slots */
  int64_t last_k;            /* the stream's latest kernel's slot, -1: none */
  bool tail_wait;            /* a wait on a flag is on the stream after that kernel */
  uint64_t hpassed;          /* host steps whose flags are given back */
  bool lowered;              /* every op lowered, and the end's wait */
};

struct gst {
  struct reader r;
  struct goal_read g;
  const struct pol_type *pol;
  const struct cpu_config *cpu;
  struct sim_engine *e;
  uint32_t n_ranks, window, lag;
  struct gst_rank *ranks;
  GHashTable *chans;         /* struct chan_key -> struct gst_chan */
  struct np_source src;
  bool diverged;             /* stopped: the whole-file path runs it */
  /* Under a GPU-driven policy (gsd_run): */
  struct np_seq seq;
  const struct hw_config *hw;
  uint8_t lib;
  struct wl_program *scratch; /* the op being lowered, and its receive */
  bool host_sends;           /* the policy's sends add host steps (gputn's registrations) */
  bool flagless;             /* a receive lowered alone makes no step (monolithic) */
  struct hstep frame[2];     /* the host's steps of a kernel: its launch (and p2p's wait) */
  uint32_t n_frame;
  struct kernel kframe;      /* the kernel of a calc alone: its name, WGs, persistence */
  bool check;                /* validate: ops ordered and lowered alone, none matched */
  const struct scenario *sc; /* where a lowering's error is located */
  char *lower_err;           /* the error a lowering stopped the run with, if any */
};

/* Takes the index given back last from FREE into *I; false when none. */
static bool free_pop(GArray *free, uint32_t *i) {
  if (!free->len) return false;
  *i = g_array_index(free, uint32_t, free->len - 1);
  g_array_set_size(free, free->len - 1);
  return true;
}

static uint32_t gst_flag_new(struct gst *x, uint32_t node) {
  struct gst_rank *k = &x->ranks[node];
  uint32_t f;
  if (x->flagless) return 0; /* a policy that moves no data (monolithic) waits on none */
  return free_pop(k->free_flags, &f) ? f : ++k->np.n_flags;
}

static void gst_stop(struct gst *x) {
  x->diverged = true;
  sim_stop(x->e);
}

/* The flag send or receive O of RANK meets its peer op on, or false when
 * their sizes differ. */
static bool gst_match(struct gst *x, uint32_t rank, const struct wl_op *o, uint32_t *flag) {
  bool recv = o->kind == WL_RECV;
  struct gst_chan *c = chan_get(x->chans, rank, o, sizeof *c);
  if (!g_queue_is_empty(&c->q) && c->recvs != recv) {
    struct gst_msg *m = g_queue_pop_head(&c->q);
    *flag = m->flag;
    bool same = m->bytes == o->bytes;
    g_free(m);
    return same;
  }
  struct gst_msg *m = g_new(struct gst_msg, 1);
  *m = (struct gst_msg){.flag = gst_flag_new(x, recv ? rank : o->peer), .bytes = o->bytes};
  c->recvs = recv;
  g_queue_push_tail(&c->q, m);
  *flag = m->flag;
  return true;
}

static void gst_chan_free(gpointer p) {
  struct gst_chan *c = p;
  g_queue_clear_full(&c->q, g_free);
  g_free(c);
}

/* Adds the oldest of K's ops read and not yet added to its CPU. */
static void gst_seal(struct gst *x, struct gst_rank *k, struct sim_comp *cpu) {
  struct gst_pend *q = &k->pend[k->head];
  k->head = (k->head + 1) % (x->lag + 1);
  k->n_pend--;
  if (x->diverged) return;
  const struct gst_op *op = &g_array_index(k->ops, struct gst_op, q->op);
  bool ok = cpu_stream_add(cpu, op->first, k->n_steps++, &q->st[0],
                           (const struct hdep *)(void *)q->deps->data, q->deps->len, q->old);
  if (ok && op->last != op->first) { /* the kernel's wait: once it is launched */
    struct hdep launched = {op->first, 0};
    ok = cpu_stream_add(cpu, op->last, k->n_steps++, &q->st[1], &launched, 1, false);
  }
  if (!ok) gst_stop(x);
}

static uint32_t gst_slot_new(struct gst_rank *k, uint32_t op) {
  uint32_t slot;
  if (!free_pop(k->free_slots, &slot)) {
    slot = k->n_slots++;
    g_array_set_size(k->slot_op, k->n_slots);
    g_array_set_size(k->cmds, k->n_slots);
    g_array_set_size(k->qcmds, k->n_slots);
    k->np.cmds = (const struct nic_cmd *)(void *)k->cmds->data;
    k->np.qcmds = (const struct qcmd *)(void *)k->qcmds->data;
    k->np.n_cmds = k->np.n_qcmds = k->n_slots;
  }
  g_array_index(k->slot_op, uint32_t, slot) = op;
  return slot;
}

/* Op O of RANK, labelled NAME (or not), read: the op read last. */
static bool gst_op(struct gst *x, uint32_t rank, const struct wl_op *o, const char *name) {
  struct gst_rank *k = &x->ranks[rank];
  uint32_t id;
  if (!free_pop(k->free_ops, &id)) {
    id = k->ops->len;
    g_array_set_size(k->ops, id + 1);
  }
  bool kernel = o->kind == WL_COMPUTE && x->pol->graph.gpu && o->on != WL_ON_CPU;
  uint32_t slot = gst_slot_new(k, id), last = kernel ? gst_slot_new(k, id) : slot;
  g_assert(k->n_pend <= x->lag);
  struct gst_pend *q = &k->pend[(k->head + k->n_pend++) % (x->lag + 1)];
  q->op = id;
  q->old = false;
  g_array_set_size(q->deps, 0);
  uint64_t i = k->n_read++;
  uint32_t flag = 0;
  struct hstep st = {.op = (uint32_t)(i + 1)};
  /* As pol_host_graph lowers a graph rank. */
  bool two = x->pol->graph.two_sided;
  if (kernel) { /* launched, then waited for; named by the wait's slot */
    *(struct kstep *)chunk_at(&k->ksteps, last) = pol_launch_step(o);
    *(struct kernel *)stable_at(&k->kernels, last) = (struct kernel){
        .name = "compute", .n_wgs = o->n_wgs, .steps = chunk_at(&k->ksteps, last), .n_steps = 1};
    k->np.kernels = k->kernels.data;
    k->np.n_kernels = k->kernels.cap;
    g_array_index(k->qcmds, struct qcmd, last) = (struct qcmd){.kind = Q_KERNEL, .kernel = last};
    st.kind = HS_LAUNCH;
    st.qcmd = last;
    q->st[1] = (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = last, .op = st.op};
  } else if (o->kind == WL_COMPUTE) {
    st.kind = HS_COMPUTE;
    st.time = pol_cpu_time(x->cpu, o);
  } else if (!gst_match(x, rank, o, &flag)) {
    return false;
  } else if (o->kind == WL_SEND) {
    st.kind = HS_NIC_CMD;
    st.two_sided = two;
    st.cmd = slot;
    g_array_index(k->cmds, struct nic_cmd, slot) = (struct nic_cmd){
        .op = NIC_PUT, .dst_node = o->peer, .bytes = o->bytes, .threshold = 1,
        .remote = {.id = flag, .watcher = x->pol->recv_watcher(NULL, o->peer, 0)}};
    flag = 0;
  } else {
    st.kind = HS_WAIT_FLAG;
    st.two_sided = two && !x->pol->graph.recv_polls;
    st.flag = flag;
    st.value = 1;
  }
  q->st[0] = st;
  char *key = name ? g_strdup(name) : NULL;
  g_array_index(k->ops, struct gst_op, id) = (struct gst_op){
      .first = slot, .last = last, .live = 3, .label = key, .flag = flag};
  if (key) g_hash_table_insert(k->labels, key, GUINT_TO_POINTER(id + 1));
  return true;
}

static void gst_release(void *ctx, uint32_t node, uint32_t slot) {
  struct gst *x = ctx;
  struct gst_rank *k = &x->ranks[node];
  /* An op read and not yet added that waits for it: it ended before now. */
  for (uint32_t j = 0; j < k->n_pend; j++) {
    struct gst_pend *q = &k->pend[(k->head + j) % (x->lag + 1)];
    for (guint d = 0; d < q->deps->len;)
      if (g_array_index(q->deps, struct hdep, d).step == slot) {
        g_array_remove_index_fast(q->deps, d);
        q->old = true;
      } else {
        d++;
      }
  }
  uint32_t id = g_array_index(k->slot_op, uint32_t, slot);
  struct gst_op *op = &g_array_index(k->ops, struct gst_op, id);
  op->live &= (uint8_t)~((slot == op->first ? 1u : 0u) | (slot == op->last ? 2u : 0u));
  g_array_append_val(k->free_slots, slot);
  if (op->live) return;
  if (op->label) g_hash_table_remove(k->labels, op->label); /* frees it */
  if (op->flag) g_array_append_val(k->free_flags, op->flag);
  g_array_append_val(k->free_ops, id);
}

/* Moves the reader to NODE's cursor; false (the run stopped) when it cannot. */
static bool gst_seek(struct gst *x, uint32_t node) {
  struct gst_rank *k = &x->ranks[node];
  struct reader *r = &x->r;
  if (fseeko(r->f, k->at.off, SEEK_SET) != 0) {
    gst_stop(x);
    return false;
  }
  r->off = k->at.off;
  r->line = k->at.line;
  r->in_comment = k->at.in_comment;
  r->pos = "";
  x->g.rank = node;
  return true;
}

/* The next statement into ST; false (the run stopped) when it cannot be
 * read: the first pass read it, so the file changed since. */
static bool gst_next(struct gst *x, struct goal_stmt *st) {
  bool ok = statement(&x->r, &x->g, st);
  if (ok && st->kind == ST_DEP) ok = end_of_statement(&x->r);
  if (ok) return true;
  g_free(*x->r.err);
  *x->r.err = NULL;
  stmt_clear(st);
  gst_stop(x);
  return false;
}

/* Reads NODE's rank on from its cursor: statement after statement, until
 * an op would be read while `window` ops wait for a dependency (the reader
 * goes back before it), or the rank ends. */
static void gst_read(void *ctx, uint32_t node, struct sim_comp *cpu) {
  struct gst *x = ctx;
  struct gst_rank *k = &x->ranks[node];
  struct reader *r = &x->r;
  /* Half a window at least at a time: each read seeks. */
  if (k->ended || x->diverged || cpu_stream_blocked(cpu) > x->window / 2) return;
  if (k->at.off < 0) { /* no block: no op */
    k->ended = true;
    cpu_stream_end(cpu);
    return;
  }
  if (!gst_seek(x, node)) return;
  for (;;) {
    struct goal_cursor before = {.off = r->off, .line = r->line, .in_comment = r->in_comment};
    struct goal_stmt st;
    if (!gst_next(x, &st)) return;
    if (st.kind == ST_DEP) {
      uint32_t a = GPOINTER_TO_UINT(g_hash_table_lookup(k->labels, st.name));
      uint32_t b = GPOINTER_TO_UINT(g_hash_table_lookup(k->labels, st.other));
      struct gst_pend *q = NULL;
      for (uint32_t j = 0; j < k->n_pend && !q; j++) {
        struct gst_pend *c = &k->pend[(k->head + j) % (x->lag + 1)];
        if (c->op + 1 == a) q = c;
      }
      g_assert(q); /* within the lag */
      /* On its start: its first step's; on its end: its last step's. */
      const struct gst_op *on = b ? &g_array_index(k->ops, struct gst_op, b - 1) : NULL;
      if (on && (on->live & (st.on_start ? 1 : 2))) {
        struct hdep d = {st.on_start ? on->first : on->last, st.on_start};
        g_array_append_val(q->deps, d);
      } else {
        q->old = true; /* given back: ended before now */
      }
      stmt_clear(&st);
      continue;
    }
    /* An op: the oldest read can be named as the one that waits no more. */
    if (k->n_pend > x->lag || (st.kind == ST_CLOSE && k->n_pend)) gst_seal(x, k, cpu);
    if (st.kind == ST_CLOSE) {
      while (k->n_pend) gst_seal(x, k, cpu);
      stmt_clear(&st);
      k->ended = true;
      cpu_stream_end(cpu);
      return;
    }
    if (x->diverged || cpu_stream_blocked(cpu) >= x->window) {
      k->at = before;
      stmt_clear(&st);
      return;
    }
    bool fine = gst_op(x, node, &st.op, st.name);
    stmt_clear(&st);
    if (!fine) {
      gst_stop(x);
      return;
    }
    k->at = (struct goal_cursor){.off = r->off, .line = r->line, .in_comment = r->in_comment};
  }
}

static void gst_free(struct gst *x) {
  for (uint32_t i = 0; i < x->n_ranks; i++) {
    struct gst_rank *k = &x->ranks[i];
    g_hash_table_destroy(k->labels);
    g_array_free(k->ops, TRUE);
    g_array_free(k->free_ops, TRUE);
    g_array_free(k->slot_op, TRUE);
    g_array_free(k->qcmds, TRUE);
    stable_free(&k->kernels);
    g_ptr_array_free(k->ksteps.blocks, TRUE);
    g_array_free(k->free_slots, TRUE);
    g_array_free(k->free_flags, TRUE);
    g_array_free(k->cmds, TRUE);
    for (uint32_t j = 0; k->pend && j <= x->lag; j++) g_array_free(k->pend[j].deps, TRUE);
    g_free(k->pend);
    wl_lin_free(k->lin);
    if (k->rops) g_array_free(k->rops, TRUE);
    if (k->ks) g_array_free(k->ks, TRUE);
    g_queue_clear_full(&k->kpack, (GDestroyNotify)g_byte_array_unref);
    if (k->hs) g_array_free(k->hs, TRUE);
    g_queue_clear_full(&k->placed, g_free);
    if (k->watch) g_array_free(k->watch, TRUE);
    if (k->free_k) g_array_free(k->free_k, TRUE);
    if (k->free_q) g_array_free(k->free_q, TRUE);
  }
  wl_program_free(x->scratch);
  g_free(x->lower_err);
  g_free(x->ranks);
  g_hash_table_destroy(x->chans);
  g_free(x->r.buf);
  if (x->r.f) fclose(x->r.f);
}

/* The state both streamed runs keep of rank K, whose block begins AT. */
static void gst_rank_init(struct gst_rank *k, struct goal_cursor at) {
  k->at = at;
  k->labels = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  k->ops = g_array_new(FALSE, TRUE, sizeof(struct gst_op));
  k->free_ops = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  k->slot_op = g_array_new(FALSE, TRUE, sizeof(uint32_t));
  k->qcmds = g_array_new(FALSE, TRUE, sizeof(struct qcmd));
  k->kernels = (struct gst_stable){.size = sizeof(struct kernel), .old = g_ptr_array_new_with_free_func(g_free)};
  k->ksteps = (struct gst_chunks){.size = sizeof(struct kstep),
                                  .blocks = g_ptr_array_new_with_free_func(g_free)};
  k->free_slots = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  k->free_flags = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  k->cmds = g_array_new(FALSE, TRUE, sizeof(struct nic_cmd));
}

/* Opens the streamed run X of the schedule at PATH indexed in IDX under
 * POL: its reader, its channels, its ranks (gst_rank_init). False: the
 * file cannot be opened again (the whole-file path says why). */
static bool gst_open(struct gst *x, const char *path, const struct goal_config *c,
                     uint8_t calc_on, const struct pol_type *pol, const struct hw_config *hw,
                     const struct goal_index *idx, char **err) {
  *x = (struct gst){.pol = pol, .cpu = hw->cpu, .n_ranks = idx->n_ranks, .hw = hw,
                    .window = (uint32_t)c->stream_window, .lag = idx->lag,
                    .lib = pol_library(pol, hw)};
  x->r = (struct reader){.path = path, .err = err, .pos = ""};
  x->r.f = fopen(path, "r");
  if (!x->r.f) return false;
  x->g = (struct goal_read){.n_ranks = idx->n_ranks, .unit_ps = c->time_unit, .calc_on = calc_on};
  x->chans = g_hash_table_new_full(chan_hash, chan_equal, g_free, gst_chan_free);
  x->ranks = g_new0(struct gst_rank, x->n_ranks);
  for (uint32_t i = 0; i < x->n_ranks; i++) gst_rank_init(&x->ranks[i], idx->at[i]);
  return true;
}

/* Ends streamed run X, whose simulation of PROGS (SHAPE: its ranks)
 * returned DONE (1: OUT filled; -1: *ERR), or which diverged (the
 * whole-file path runs it: 0); frees X. */
static int gst_end(struct gst *x, int done, const struct nodeprog **progs,
                   struct wl_program *shape, struct sim_result *out, char **err) {
  if (done == 1 && !x->diverged) {
    g_atomic_int_inc(&streamed_runs);
  } else { /* what the run reported goes */
    char *name = g_strdup(out->policy);
    sim_result_clear(out);
    sim_result_init(out, name);
    g_free(name);
  }
  if (x->diverged) {
    g_free(*err);
    *err = x->lower_err; /* an op that does not lower: its error, else the whole path */
    x->lower_err = NULL;
    done = *err ? -1 : 0;
  }
  wl_program_free(shape);
  g_free(progs);
  gst_free(x);
  return done;
}

/* Whether policy POL runs a schedule streamed: host-driven (a graph on
 * the host; under any library it takes, a graph rank's messages are the
 * policy's own, coll.h), the receiver's CPU watching every receive. */
static bool gst_fits(const struct pol_type *pol, const struct hw_config *hw) {
  return pol->graph.host && (pol->libs & (1u << pol_library(pol, hw))) && !pol->extra_flags &&
         pol->recv_watcher == pol_watch_cpu;
}

/* Runs the indexed schedule IDX streamed. Returns 1 (OUT filled), 0 (it
 * could not keep to the whole-file run: that must run it), or -1 and *ERR
 * (a deadlock). */
static int gst_run(const struct wl_ctx *ctx, const char *path, const struct goal_config *c,
                   uint8_t calc_on, const struct pol_type *pol, const struct hw_config *hw,
                   const struct goal_index *idx, struct sim_result *out, char **err) {
  struct gst x;
  if (!gst_open(&x, path, c, calc_on, pol, hw, idx, err)) return 0;
  x.src = (struct np_source){.ctx = &x, .read = gst_read, .release = gst_release};
  const struct nodeprog **progs = g_new0(const struct nodeprog *, hw->net->nodes);
  for (uint32_t i = 0; i < x.n_ranks; i++) {
    struct gst_rank *k = &x.ranks[i];
    k->pend = g_new0(struct gst_pend, x.lag + 1);
    for (uint32_t j = 0; j <= x.lag; j++)
      k->pend[j].deps = g_array_new(FALSE, FALSE, sizeof(struct hdep));
    k->np.source = &x.src;
    progs[i] = &k->np;
  }
  struct wl_program *shape = wl_program_new(x.n_ranks); /* no op: names ranks in errors */
  x.e = sim_new(ctx->seed);
  sim_set_cp(x.e, ctx->cp);
  int done = pol_simulate_progs(pol, shape, hw, progs, x.e, ctx->trace, out, err) ? 1 : -1;
  /* Stuck with ops left unread (the window held them back): ops the
   * whole-file run starts might have freed it, so it is no deadlock yet. */
  for (uint32_t i = 0; done < 0 && !x.diverged && i < x.n_ranks; i++)
    if (!x.ranks[i].ended) x.diverged = true;
  return gst_end(&x, done, progs, shape, out, err);
}

/* ---- the streamed run under the GPU-driven policies ----
 * gputn, ghn, cpufree, p2p and monolithic lower a rank without syncs into
 * one kernel launched once (pol_one_kernel; p2p: and waited for), op by op in one order of the rank (wl_linearize): a
 * schedule whose dependency lines follow the op that waits by at most
 * GOAL_MAX_LAG ops runs under them without being read whole. The order is
 * the windowed one (program.h, wl_lin): the next op is chosen among the
 * first `window` ops not yet placed, so it is known once those ops and
 * their dependency lines are read; the whole-file path orders a rank by
 * the same rule, so both runs lower the same ops in the same order (when
 * none of the window is ready, a dependency on an op further on, the
 * whole-file path looks past the window: the streamed run stops there). Each node's
 * rank is read from its own cursor, ops added to its wl_lin, and each op
 * placed is lowered by the policy's own lowering (pol_type.lower on a
 * program of that one op and the receive it meets: the same callbacks, the
 * same steps) into the kernel's next step, the host's next steps (gputn's
 * registrations) and NIC commands in slots. The models read the kernel's
 * and the host's steps as windows (nodeprog.h, np_seq): the GPU asks for a
 * step when its WG reaches one not yet lowered, the CPU likewise, and
 * both say which steps are behind them (the GPU sets the flags of the
 * waits among them back to 0 first), so their slots, flags and commands
 * serve later ops. Messages are matched as they are read (gst_match).
 * What stays: the ops read and not yet placed (a window and the lag), the
 * steps lowered that a reader has not passed (gputn's host registers its
 * sends from the start, so its kernel's steps up to the host's last
 * registration are kept, packed beyond the GPU's window: as many as the
 * NIC holds registrations, at most nic.triggered_ops, nic.h), the flags
 * of messages on their way. Where the streamed run could not be the whole
 * run (no op of the window ready; a size that differs; a lowering that asks for more than one WG or a proxy thread
 * that is not there) it stops and the whole-file path runs instead. */

struct gsd_op {
  struct wl_op op;           /* a send's flag: its receive's */
  char *label;               /* its key in gst_rank.labels, or NULL */
  bool placed;
};

static struct gsd_op *gsd_at(struct gst_rank *k, uint64_t i) {
  return &g_array_index(k->rops, struct gsd_op, (guint)(i - k->rbase));
}

/* Drops the first N elements of A, whose first is element *BASE. */
static void gsd_drop(GArray *a, uint64_t *base, uint64_t upto) {
  guint n = (guint)(upto - *base);
  if (n < 64 || 2 * n < a->len) return; /* at most half the array, amortized */
  g_array_remove_range(a, 0, n);
  *base = upto;
}

/* Points K's program at its host's window and its NIC command slots
 * (they may have moved). */
static void gst_point_host(struct gst_rank *k) {
  k->np.host = (const struct hstep *)(void *)k->hs->data;
  k->np.n_host = k->np.host_base + k->hs->len;
  k->np.cmds = (const struct nic_cmd *)(void *)k->cmds->data;
  k->np.n_cmds = k->cmds->len;
}

/* Points NODE's program at its windows (they may have moved). */
static void gsd_point(struct gst *x, uint32_t node) {
  struct gst_rank *k = &x->ranks[node];
  k->kern.steps = (const struct kstep *)(void *)k->ks->data;
  k->kern.n_steps = k->kern.base + k->ks->len;
  gst_point_host(k);
}

/* A slot of array A (the slots given back in FREE) holding element EL. */
static uint32_t slot_put(GArray *a, GArray *free, const void *el) {
  uint32_t slot;
  if (!free_pop(free, &slot)) {
    slot = a->len;
    g_array_set_size(a, slot + 1);
  }
  guint size = g_array_get_element_size(a);
  memcpy(a->data + (size_t)slot * size, el, size);
  return slot;
}

/* A NIC command slot of NODE holding CMD. */
static uint32_t gsd_cmd(struct gst_rank *k, const struct nic_cmd *cmd) {
  return slot_put(k->cmds, k->free_slots, cmd);
}

/* Lowers op O of NODE, the next of its order, with the policy's lowering
 * of a rank of that op alone (a send's receive beside it at its peer)
 * into PP (initialised here; clear it after), the rank's tags and (gds)
 * NIC command ids going on from the ops before; AFTER: stream work follows
 * the receive (O, or a send's at its peer) in its rank's order. False:
 * the lowering failed (x->lower_err says why when the op is an input
 * error: the whole path would refuse it too). */
static bool gst_alone(struct gst *x, uint32_t node, const struct wl_op *o, bool after,
                      struct pol_prog *pp) {
  struct gst_rank *k = &x->ranks[node];
  struct wl_program *p = x->scratch;
  struct wl_op me = *o, recv = {0};
  if (o->kind == WL_SEND || o->kind == WL_RECV) me.parts = 1, me.stores = 1;
  if (o->kind == WL_SEND) {
    recv = (struct wl_op){.kind = WL_RECV, .peer = node, .bytes = o->bytes, .tag = o->tag,
                          .parts = 1, .flag = o->flag, .match = 1};
    me.flag = 0;
    me.match = 0;
    p->ranks[o->peer].ops = &recv;
    p->ranks[o->peer].n_ops = 1;
  } else if (o->kind == WL_RECV) {
    me.match = 1;
  }
  p->ranks[node].ops = &me;
  p->ranks[node].n_ops = 1;
  p->ranks[o->kind == WL_SEND ? o->peer : node].work_after = after;
  p->checked = true;
  pol_prog_init(pp, x->hw, x->lib);
  pp->tag_next = k->tag_next;
  pp->tag_stride = k->tag_stride;
  pp->post_next = k->post;
  pp->post_stride = k->tag_stride;
  char *err = NULL;
  bool ok = x->pol->lower(p, node, x->hw, pp, &err);
  if (ok && pp->proxied && x->hw->cpu->helper_threads < 1) { /* pol_run_checked's */
    err = pol_proxy_error(x->sc, x->lib);
    ok = false;
  }
  if (err && !x->lower_err) x->lower_err = err; /* an input error: said, not run whole */
  else g_free(err);
  p->ranks[node].ops = NULL, p->ranks[node].n_ops = 0;
  p->ranks[node].work_after = false;
  if (o->kind == WL_SEND) {
    p->ranks[o->peer].ops = NULL, p->ranks[o->peer].n_ops = 0;
    p->ranks[o->peer].work_after = false;
  }
  return ok;
}

/* The kernel's steps the GPU may read next (gsd_kernel asks for 16 ahead):
 * the steps lowered beyond them wait packed, so that a host that runs
 * ahead (gputn's registrations) keeps a few bytes a step, not a struct
 * kstep (most of its words are 0). */
#define GSD_KS_WINDOW 64
#define GSD_KPACK_CHUNK 4096 /* bytes: packed steps in chunks, each freed once read */
#define KS_WORDS (sizeof(struct kstep) / sizeof(uint32_t))
_Static_assert(sizeof(struct kstep) % sizeof(uint32_t) == 0 && KS_WORDS <= 64,
               "a kstep packs as at most 64 words");

/* Appends ST to K's packed steps: a mask of its non-zero words, then those
 * words (the bytes as they are: gsd_unpack gives the same struct back). */
static void gsd_pack(struct gst_rank *k, const struct kstep *st) {
  uint32_t w[KS_WORDS], nz[KS_WORDS], n = 0;
  uint64_t mask = 0;
  memcpy(w, st, sizeof w);
  for (uint32_t j = 0; j < KS_WORDS; j++)
    if (w[j]) mask |= (uint64_t)1 << j, nz[n++] = w[j];
  GByteArray *tail = g_queue_peek_tail(&k->kpack);
  if (!tail || tail->len + sizeof mask + n * sizeof *nz > GSD_KPACK_CHUNK) {
    tail = g_byte_array_sized_new(GSD_KPACK_CHUNK);
    g_queue_push_tail(&k->kpack, tail);
  }
  g_byte_array_append(tail, (const guint8 *)&mask, sizeof mask);
  g_byte_array_append(tail, (const guint8 *)nz, n * sizeof *nz);
  k->n_packed++;
}

/* Moves K's oldest packed step to the end of its window; false when none. */
static bool gsd_unpack(struct gst_rank *k) {
  GByteArray *head = g_queue_peek_head(&k->kpack);
  if (!head) return false;
  const guint8 *p = head->data + k->kpack_off;
  uint64_t mask;
  uint32_t w[KS_WORDS] = {0};
  memcpy(&mask, p, sizeof mask);
  p += sizeof mask;
  for (uint32_t j = 0; j < KS_WORDS; j++)
    if (mask >> j & 1) memcpy(&w[j], p, sizeof *w), p += sizeof *w;
  k->kpack_off = (guint)(p - head->data);
  k->n_packed--;
  g_array_set_size(k->ks, k->ks->len + 1);
  memcpy(&g_array_index(k->ks, struct kstep, k->ks->len - 1), w, sizeof w);
  if (k->kpack_off == head->len) { /* all read: freed */
    g_byte_array_unref(g_queue_pop_head(&k->kpack));
    k->kpack_off = 0;
  }
  return true;
}

/* gst_alone for the one-kernel policies: false also when the lowering is
 * not one kernel launched: the streamed run cannot be the whole run. */
static bool gsd_policy(struct gst *x, uint32_t node, const struct wl_op *o, struct pol_prog *pp) {
  return gst_alone(x, node, o, false, pp) && pp->kernels->len == 1 && pp->host->len >= 1;
}

/* Whether op O of NODE lowers, for validate: its program dropped, the
 * rank's send counted as gsd_lower counts it. */
static bool gsd_check_op(struct gst *x, uint32_t node, const struct wl_op *o) {
  struct pol_prog pp;
  bool ok = gsd_policy(x, node, o, &pp);
  if (o->kind == WL_SEND) x->ranks[node].tag_next += 1;
  pol_prog_clear(&pp);
  return ok;
}

/* Lowers op O of NODE (gsd_policy) into the windows. */
static bool gsd_lower(struct gst *x, uint32_t node, const struct wl_op *o) {
  struct gst_rank *k = &x->ranks[node];
  struct pol_prog pp;
  bool ok = gsd_policy(x, node, o, &pp);
  const struct kernel *kk = ok ? &g_array_index(pp.kernels, struct kernel, 0) : NULL;
  ok = ok && kk->n_wgs == k->kern.n_wgs && kk->n_steps <= 1;
  /* The commands a step names get slots (monolithic's barrier puts, for
   * syncs a graph has none of, are never named). */
  if (ok && kk->n_steps) {
    struct kstep st = kk->steps[0];
    if (st.kind == KS_NIC_CMD || st.kind == KS_HOST_REQUEST) {
      ok = st.cmd < pp.cmds->len;
      if (ok) st.cmd = gsd_cmd(k, &g_array_index(pp.cmds, struct nic_cmd, st.cmd));
    }
    if (!k->n_packed && k->ks->len < GSD_KS_WINDOW) g_array_append_val(k->ks, st);
    else gsd_pack(k, &st);
  }
  for (guint j = x->n_frame; ok && j < pp.host->len; j++) { /* after the launch */
    struct hstep h = g_array_index(pp.host, struct hstep, j);
    if (h.kind == HS_NIC_CMD) {
      ok = h.cmd < pp.cmds->len;
      if (ok) h.cmd = gsd_cmd(k, &g_array_index(pp.cmds, struct nic_cmd, h.cmd));
    }
    g_array_append_val(k->hs, h);
  }
  if (o->kind == WL_SEND) k->tag_next += 1;
  pol_prog_clear(&pp);
  gsd_point(x, node);
  return ok;
}

/* Reads NODE's rank on from its cursor: a chunk of ops (a window's worth,
 * at least 16) with their dependency lines, or up to its end. */
static void gsd_read(struct gst *x, uint32_t node) {
  struct gst_rank *k = &x->ranks[node];
  struct reader *r = &x->r;
  if (!gst_seek(x, node)) return;
  uint32_t chunk = MAX(x->window, 16), got = 0;
  for (;;) {
    struct goal_cursor before = {.off = r->off, .line = r->line, .in_comment = r->in_comment};
    struct goal_stmt st;
    if (!gst_next(x, &st)) return;
    if (st.kind == ST_CLOSE) {
      wl_lin_seal(k->lin, k->n_read);
      k->read_end = true;
      stmt_clear(&st);
      return;
    }
    if (st.kind == ST_DEP) {
      uint32_t a = GPOINTER_TO_UINT(g_hash_table_lookup(k->labels, st.name));
      uint32_t b = GPOINTER_TO_UINT(g_hash_table_lookup(k->labels, st.other));
      g_assert(a); /* within the lag: not placed */
      if (b) wl_lin_dep(k->lin, a - 1, b - 1); /* no label: placed already */
      stmt_clear(&st);
      continue;
    }
    if (got == chunk) {
      k->at = before;
      stmt_clear(&st);
      return;
    }
    struct wl_op *o = &st.op;
    if (!x->check && (o->kind == WL_SEND || o->kind == WL_RECV)) {
      if (!gst_match(x, node, o, &o->flag)) {
        stmt_clear(&st);
        gst_stop(x);
        return;
      }
    }
    uint64_t i = k->n_read++;
    got++;
    wl_lin_add(k->lin, o->kind == WL_RECV);
    if (i > x->lag) wl_lin_seal(k->lin, i - x->lag);
    struct gsd_op g = {.op = *o};
    if (st.name) {
      g.label = g_strdup(st.name);
      g_hash_table_insert(k->labels, g.label, GUINT_TO_POINTER((uint32_t)i + 1));
    }
    g_array_append_val(k->rops, g);
    stmt_clear(&st);
    k->at = (struct goal_cursor){.off = r->off, .line = r->line, .in_comment = r->in_comment};
  }
}

/* Places NODE's next op (reading on as needed) into *G, its label
 * forgotten: 1; 0 when every op is placed; -1 when the run stopped (none
 * of the window ready). Once done with *G: gsd_passed. */
static int gsd_next(struct gst *x, uint32_t node, struct gsd_op **g) {
  struct gst_rank *k = &x->ranks[node];
  while (!x->diverged) {
    uint64_t i;
    int got = wl_lin_next(k->lin, k->read_end, false, &i);
    if (got == 0) {
      gsd_read(x, node);
      continue;
    }
    if (got < 0) { /* all placed, or none of the window ready */
      if (!k->read_end || k->rlo < k->n_read) gst_stop(x);
      return x->diverged ? -1 : 0;
    }
    *g = gsd_at(k, i);
    (*g)->placed = true;
    if ((*g)->label) g_hash_table_remove(k->labels, (*g)->label); /* frees it */
    (*g)->label = NULL;
    return 1;
  }
  return -1;
}

/* Forgets the ops NODE read that are placed, up to the first that is not. */
static void gsd_passed(struct gst_rank *k) {
  while (k->rlo < k->n_read && gsd_at(k, k->rlo)->placed) k->rlo++;
  gsd_drop(k->rops, &k->rbase, k->rlo);
}

/* Places and lowers NODE's ops until DONE(x, node, arg) holds or every op
 * is placed. */
static void gsd_produce(struct gst *x, uint32_t node, bool (*done)(struct gst_rank *, uint64_t),
                        uint64_t arg) {
  struct gst_rank *k = &x->ranks[node];
  struct gsd_op *g;
  while (!x->diverged && !done(k, arg) && gsd_next(x, node, &g) > 0) {
    if (!(x->check ? gsd_check_op : gsd_lower)(x, node, &g->op)) gst_stop(x);
    gsd_passed(k);
  }
}

/* Host step I, or every send lowered (only sends add host steps): no more come. */
static bool host_there(struct gst_rank *k, uint64_t i) {
  return k->np.n_host > i || k->tag_next - 1 >= k->tag_stride;
}

/* Never: every op (a check). */
static bool all_placed(struct gst_rank *k, uint64_t i) {
  (void)k, (void)i;
  return false;
}

/* Step I and, so that the GPU asks once a chunk, the chunk after it,
 * lowered (in the window or packed). */
static bool step_there(struct gst_rank *k, uint64_t i) {
  return k->kern.n_steps + k->n_packed > i + 16;
}

static void gsd_host(void *ctx, uint32_t node, uint64_t i) {
  struct gst *x = ctx;
  struct gst_rank *k = &x->ranks[node];
  gsd_drop(k->hs, &k->np.host_base, i);
  gsd_point(x, node);
  if (x->host_sends) gsd_produce(x, node, host_there, i); /* else the launch is all */
}

static void gsd_kernel(void *ctx, uint32_t node, uint32_t kid, uint64_t i, uint64_t done) {
  struct gst *x = ctx;
  struct gst_rank *k = &x->ranks[node];
  g_assert(kid == 0);
  for (uint64_t j = k->kern.base; j < done; j++) { /* flags given back */
    const struct kstep *st = &g_array_index(k->ks, struct kstep, (guint)(j - k->kern.base));
    if (st->kind == KS_WAIT_FLAG) g_array_append_val(k->free_flags, st->flag);
  }
  g_array_remove_range(k->ks, 0, (guint)(done - k->kern.base)); /* a window: a few steps */
  k->kern.base = done;
  gsd_point(x, node);
  gsd_produce(x, node, step_there, i);
  while (k->kern.base + k->ks->len <= i + 16 && gsd_unpack(k)) {
  }
  gsd_point(x, node);
}

static void gsd_cmd_read(void *ctx, uint32_t node, uint32_t cmd) {
  struct gst *x = ctx;
  g_array_append_val(x->ranks[node].free_slots, cmd);
}

/* Whether policy POL runs a schedule streamed from the GPU: one kernel
 * per rank (pol_type.one_kernel; gsd_run) or op by op onto a stream
 * (pol_type.op_by_op, gds; gsq_run), under any library it takes (each op
 * is lowered alone with it: p2p's puts by nccl or nvshmem); its check
 * (ghn's helper thread) met whatever the program. */
static bool gsd_fits(const struct pol_type *pol, const struct hw_config *hw) {
  return (pol->one_kernel || pol->op_by_op) && !pol->graph.host &&
         (pol->libs & (1u << pol_library(pol, hw))) &&
         (!pol->check || hw->cpu->helper_threads >= 1);
}

/* Runs the indexed schedule IDX streamed under GPU-driven POL, as gst_run;
 * for validate (ctx->check_only) orders each rank's ops as the run would
 * and lowers each alone, keeping nothing (1: they stream; 0: a window
 * none of whose ops is ready, or an op lowered alone that the streamed
 * run could not take; -1: an op the policy refuses, *ERR). */
static int gsd_run(const struct wl_ctx *ctx, const char *path, const struct goal_config *c,
                   uint8_t calc_on, const struct pol_type *pol, const struct hw_config *hw,
                   const struct goal_index *idx, struct sim_result *out, char **err) {
  struct gst x;
  if (!gst_open(&x, path, c, calc_on, pol, hw, idx, err)) return 0;
  x.seq = (struct np_seq){.ctx = &x, .host = gsd_host, .kernel = gsd_kernel,
                          .cmd_read = gsd_cmd_read};
  x.scratch = wl_program_new(x.n_ranks);
  /* The host program the policy writes around a rank's kernel, from a
   * calc lowered alone: its launch, then (p2p) its wait; and whether a
   * send adds host steps after the launch (gputn's registrations; a calc
   * and a receive never do): else the host's program is that frame, its
   * end known without reading on. */
  struct wl_op calc = {.kind = WL_COMPUTE, .n_wgs = 1, .time_ps = 1, .on = calc_on};
  struct pol_prog pp;
  bool framed = gsd_policy(&x, 0, &calc, &pp) && pp.host->len <= 2 &&
                g_array_index(pp.host, struct hstep, 0).kind == HS_LAUNCH &&
                (pp.host->len == 1 || g_array_index(pp.host, struct hstep, 1).kind == HS_WAIT_KERNEL);
  if (framed) {
    x.n_frame = pp.host->len;
    memcpy(x.frame, pp.host->data, x.n_frame * sizeof *x.frame);
    x.kframe = g_array_index(pp.kernels, struct kernel, 0);
  }
  pol_prog_clear(&pp);
  if (framed && x.n_ranks > 1) { /* probes, on ranks 0 and 1: their errors are not the file's */
    struct wl_op send = {.kind = WL_SEND, .peer = 1, .bytes = 8, .flag = 1};
    x.host_sends = !gsd_policy(&x, 0, &send, &pp) || pp.host->len > x.n_frame;
    pol_prog_clear(&pp);
    framed = !x.host_sends || x.n_frame == 1; /* registrations, then a wait: not yet */
    if (framed) {
      struct wl_op recv = {.kind = WL_RECV, .peer = 1, .bytes = 8, .flag = 1};
      framed = gsd_policy(&x, 0, &recv, &pp);
      x.flagless = framed && g_array_index(pp.kernels, struct kernel, 0).n_steps == 0;
      pol_prog_clear(&pp);
    }
  }
  g_free(x.lower_err);
  x.lower_err = NULL;
  x.sc = ctx->sc;
  if (!framed) {
    gst_free(&x);
    return 0;
  }
  const struct nodeprog **progs = g_new0(const struct nodeprog *, hw->net->nodes);
  for (uint32_t i = 0; i < x.n_ranks; i++) {
    struct gst_rank *k = &x.ranks[i];
    k->lin = wl_lin_new(x.window);
    k->rops = g_array_new(FALSE, FALSE, sizeof(struct gsd_op));
    k->ks = g_array_new(FALSE, FALSE, sizeof(struct kstep));
    k->hs = g_array_new(FALSE, FALSE, sizeof(struct hstep));
    k->tag_next = 1;
    k->tag_stride = (uint32_t)MIN(idx->n_sends[i], UINT32_MAX);
    progs[i] = &k->np;
    if (!idx->n_ops[i]) continue; /* no kernel (pol_one_kernel) */
    /* A kernel of one WG (calcs of one WG, no lane 1), persistent when
     * written whole or when it waits (kernel.c, shape_of: p2p's). */
    k->kern = x.kframe;
    k->kern.persistent = x.kframe.persistent || idx->n_recvs[i] > 0;
    k->kern.steps = NULL;
    k->kern.n_steps = 0;
    k->qc = (struct qcmd){.kind = Q_KERNEL, .kernel = 0};
    g_array_append_vals(k->hs, x.frame, x.n_frame);
    k->np.kernels = &k->kern;
    k->np.n_kernels = 1;
    k->np.qcmds = &k->qc;
    k->np.n_qcmds = 1;
    k->np.seq = &x.seq;
    gsd_point(&x, i);
  }
  x.e = sim_new(ctx->seed);
  sim_set_cp(x.e, ctx->cp);
  if (ctx->check_only) { /* validate: whether each rank's order streams */
    x.check = true;
    for (uint32_t i = 0; i < x.n_ranks && !x.diverged; i++)
      if (idx->n_ops[i]) gsd_produce(&x, i, all_placed, 0);
    int placed = x.diverged ? 0 : 1;
    if (x.lower_err) {
      *err = x.lower_err;
      x.lower_err = NULL;
      placed = -1;
    }
    sim_free(x.e);
    g_free(progs);
    gst_free(&x);
    return placed;
  }
  for (uint32_t i = 0; i < x.n_ranks && !x.diverged; i++)
    if (idx->n_ops[i]) gsd_produce(&x, i, step_there, 0); /* its first step */
  struct wl_program *shape = wl_program_new(x.n_ranks); /* no op: names ranks in errors */
  int done = -1;
  if (x.diverged) sim_free(x.e);
  else done = pol_simulate_progs(pol, shape, hw, progs, x.e, ctx->trace, out, err) ? 1 : -1;
  return gst_end(&x, done, progs, shape, out, err);
}

/* ---- the streamed run under gds ----
 * gds lowers a rank op by op onto one stream (pol_type.op_by_op): a kernel
 * launched per calc, a pre-post and a doorbell per send, per receive a
 * stream wait when stream work (a calc, a send) follows it in the rank's
 * order, else a wait of the host. It runs a schedule streamed as the
 * policies above do: the windowed order (wl_lin), each op lowered by
 * gds's own lowering of that op alone (gst_alone), the host's steps read
 * as a window (np_seq), and the kernels, queue commands and NIC commands
 * in slots that come back as the models are done with them (the host's
 * completion record of a kernel, the GPU serving a queue command, a
 * command copied). A receive's watcher is known once the receive is
 * placed: the GPU while not all of its rank's calcs and sends are placed.
 * Its sender's pre-post names that watcher, and the sender may lower the
 * send before the receiver has placed that far: so placing and lowering
 * are apart. A rank's placed ops wait in a queue for the host to ask for
 * their steps, and a send whose receive is not placed yet places its
 * peer's ops on until it is (only the order: no lowering, so no other
 * rank is touched but through the matching). What stays is as above,
 * plus the ops placed ahead for a sender (how far two ranks' hosts are
 * apart), the stream's commands not yet served and the kernels running
 * or queued (the host blocks at cpu.launch_queue_depth of them). */

struct gsq_op {              /* an op placed, not yet lowered */
  struct wl_op op;
  bool after;                /* a receive: stream work follows it */
};

/* Points NODE's program at its windows and slots (they may have moved). */
static void gsq_point(struct gst *x, uint32_t node) {
  struct gst_rank *k = &x->ranks[node];
  gst_point_host(k);
  k->np.qcmds = (const struct qcmd *)(void *)k->qcmds->data;
  k->np.n_qcmds = k->qcmds->len;
  k->np.kernels = k->kernels.data;
  k->np.n_kernels = k->n_k;
}

static uint8_t *gsq_watch(struct gst_rank *k, uint32_t flag) {
  if (flag >= k->watch->len) g_array_set_size(k->watch, flag + 1);
  return &g_array_index(k->watch, uint8_t, flag);
}

/* FLAG of NODE, its receive done, may serve another. */
static void gsq_flag_free(struct gst_rank *k, uint32_t flag) {
  *gsq_watch(k, flag) = 0;
  g_array_append_val(k->free_flags, flag);
}

/* Places NODE's next op into its queue of placed ops: 1; 0 when every op
 * is placed; -1 when the run stopped (none of the window ready). */
static int gsq_place(struct gst *x, uint32_t node) {
  struct gst_rank *k = &x->ranks[node];
  struct gsd_op *g;
  int got = gsd_next(x, node, &g);
  if (got <= 0) return got;
  if (!x->check) {
    struct gsq_op *q = g_new(struct gsq_op, 1);
    q->op = g->op;
    q->after = k->work_left > 0;
    if (g->op.kind == WL_RECV) *gsq_watch(k, g->op.flag) = q->after ? 2 : 1;
    else k->work_left--;
    g_queue_push_tail(&k->placed, q);
  }
  gsd_passed(k);
  return 1;
}

/* A kernel slot of NODE holding KK (one step). */
static uint32_t gsq_kernel(struct gst_rank *k, const struct kernel *kk) {
  uint32_t slot;
  if (!free_pop(k->free_k, &slot)) slot = k->n_k++;
  struct kstep *st = chunk_at(&k->ksteps, slot);
  *st = kk->steps[0];
  struct kernel *kn = stable_at(&k->kernels, slot);
  *kn = *kk;
  kn->steps = st;
  return slot;
}

/* Lowers the oldest op NODE placed (Q) with gds's lowering of it alone
 * into the host's window and the slots: the kernel, queue command and NIC
 * command each host step names get slots of their own, and the wait for
 * the stream's last kernel that ends a lowering is kept for the end. A
 * send's receive is placed first (its watcher). False: the streamed run
 * cannot be the whole run. */
static bool gsq_lower(struct gst *x, uint32_t node, const struct gsq_op *q) {
  struct gst_rank *k = &x->ranks[node];
  const struct wl_op *o = &q->op;
  bool after = q->after;
  if (o->kind == WL_SEND) {
    if (o->peer == node) return false; /* the scratch program has one rank's ops there */
    struct gst_rank *to = &x->ranks[o->peer];
    while (!*gsq_watch(to, o->flag))
      if (gsq_place(x, o->peer) <= 0) return false;
    after = *gsq_watch(to, o->flag) == 2;
  }
  struct pol_prog pp;
  bool ok = gst_alone(x, node, o, after, &pp);
  for (guint j = 0; ok && j < pp.host->len; j++) {
    struct hstep h = g_array_index(pp.host, struct hstep, j);
    switch (h.kind) {
    case HS_LAUNCH: {
      struct qcmd qc = g_array_index(pp.qcmds, struct qcmd, h.qcmd);
      if (qc.kind == Q_KERNEL) {
        const struct kernel *kk = &g_array_index(pp.kernels, struct kernel, qc.kernel);
        ok = kk->n_steps == 1;
        if (!ok) break;
        qc.kernel = gsq_kernel(k, kk);
        k->last_k = qc.kernel;
        k->tail_wait = false;
      }
      if (qc.kind == Q_WAIT_FLAG) k->tail_wait = true;
      h.qcmd = slot_put(k->qcmds, k->free_q, &qc);
      break;
    }
    case HS_NIC_CMD: h.cmd = gsd_cmd(k, &g_array_index(pp.cmds, struct nic_cmd, h.cmd)); break;
    case HS_WAIT_KERNEL: ok = j + 1 == pp.host->len; continue; /* the end's (gsq_more) */
    case HS_WAIT_FLAG: case HS_COMPUTE: break;
    default: ok = false;
    }
    if (ok) g_array_append_val(k->hs, h);
  }
  if (o->kind == WL_SEND) k->post++;
  pol_prog_clear(&pp);
  gsq_point(x, node);
  return ok;
}

/* Lowers NODE's next placed op (placing one first when none waits), or
 * after the last the stream's end: a marker behind its waits after its
 * last kernel, if any, and a wait for that kernel. */
static void gsq_more(struct gst *x, uint32_t node) {
  struct gst_rank *k = &x->ranks[node];
  if (g_queue_is_empty(&k->placed)) {
    int got = gsq_place(x, node);
    if (got < 0) return;
    if (got == 0) {
      if (k->tail_wait) { /* a marker behind the waits (policy_gds.c end_waits) */
        struct qcmd qc = {.kind = Q_MARK, .flag = gst_flag_new(x, node)};
        struct hstep h[2] = {{.kind = HS_LAUNCH, .qcmd = slot_put(k->qcmds, k->free_q, &qc)},
                             {.kind = HS_WAIT_FLAG, .flag = qc.flag, .value = 1, .stream_sync = 1}};
        g_array_append_vals(k->hs, h, 2);
      }
      if (k->last_k >= 0) {
        struct hstep h = {.kind = HS_WAIT_KERNEL, .kernel = (uint32_t)k->last_k};
        g_array_append_val(k->hs, h);
      }
      k->lowered = true;
      gsq_point(x, node);
      return;
    }
  }
  struct gsq_op *q = g_queue_pop_head(&k->placed);
  if (!gsq_lower(x, node, q)) gst_stop(x);
  g_free(q);
}

static void gsq_host(void *ctx, uint32_t node, uint64_t i) {
  struct gst *x = ctx;
  struct gst_rank *k = &x->ranks[node];
  for (uint64_t j = MAX(k->hpassed, k->np.host_base); j < i; j++) { /* flags given back */
    const struct hstep *st = &g_array_index(k->hs, struct hstep, (guint)(j - k->np.host_base));
    if (st->kind == HS_WAIT_FLAG) gsq_flag_free(k, st->flag);
  }
  k->hpassed = i;
  gsd_drop(k->hs, &k->np.host_base, i);
  gsq_point(x, node);
  while (!x->diverged && k->np.n_host <= i && !k->lowered) gsq_more(x, node);
}

static void gsq_qcmd_done(void *ctx, uint32_t node, uint32_t q) {
  struct gst *x = ctx;
  struct gst_rank *k = &x->ranks[node];
  const struct qcmd *qc = &g_array_index(k->qcmds, struct qcmd, q);
  if (qc->kind == Q_WAIT_FLAG) gsq_flag_free(k, qc->flag);
  g_array_append_val(k->free_q, q);
}

static void gsq_kernel_done(void *ctx, uint32_t node, uint32_t kid) {
  struct gst *x = ctx;
  g_array_append_val(x->ranks[node].free_k, kid);
}

/* Runs the indexed schedule IDX streamed under POL (gsd_fits, op by op),
 * as gsd_run does. */
static int gsq_run(const struct wl_ctx *ctx, const char *path, const struct goal_config *c,
                   uint8_t calc_on, const struct pol_type *pol, const struct hw_config *hw,
                   const struct goal_index *idx, struct sim_result *out, char **err) {
  struct gst x;
  if (!gst_open(&x, path, c, calc_on, pol, hw, idx, err)) return 0;
  x.seq = (struct np_seq){.ctx = &x, .host = gsq_host, .cmd_read = gsd_cmd_read,
                          .qcmd_done = gsq_qcmd_done, .kernel_done = gsq_kernel_done};
  x.scratch = wl_program_new(x.n_ranks);
  x.check = ctx->check_only;
  x.sc = ctx->sc;
  const struct nodeprog **progs = g_new0(const struct nodeprog *, hw->net->nodes);
  for (uint32_t i = 0; i < x.n_ranks; i++) {
    struct gst_rank *k = &x.ranks[i];
    progs[i] = &k->np;
    if (!idx->n_ops[i]) continue; /* nothing on its stream, no step */
    k->lin = wl_lin_new(x.window);
    k->rops = g_array_new(FALSE, FALSE, sizeof(struct gsd_op));
    k->hs = g_array_new(FALSE, FALSE, sizeof(struct hstep));
    k->watch = g_array_new(FALSE, TRUE, sizeof(uint8_t));
    k->free_k = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    k->free_q = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    k->work_left = idx->n_ops[i] - idx->n_recvs[i];
    k->tag_stride = (uint32_t)MIN(idx->n_sends[i], UINT32_MAX);
    k->last_k = -1;
    k->np.seq = &x.seq;
    gsq_point(&x, i);
  }
  x.e = sim_new(ctx->seed);
  sim_set_cp(x.e, ctx->cp);
  if (x.check) { /* validate: whether each rank's order streams */
    for (uint32_t i = 0; i < x.n_ranks && !x.diverged; i++)
      while (idx->n_ops[i] && gsq_place(&x, i) > 0) {}
    int placed = x.diverged ? 0 : 1;
    sim_free(x.e);
    g_free(progs);
    gst_free(&x);
    return placed;
  }
  struct wl_program *shape = wl_program_new(x.n_ranks); /* no op: names ranks in errors */
  int done = pol_simulate_progs(pol, shape, hw, progs, x.e, ctx->trace, out, err) ? 1 : -1;
  return gst_end(&x, done, progs, shape, out, err);
}

/* ---- the workload ---- */

static const uint8_t goal_where[] = {WL_ON_ANY, WL_ON_CPU, WL_ON_GPU};

/* Reads CTX's schedule into a program, or (X non-NULL) checks and indexes
 * it into X, returning NULL; *ERR located at the scenario's key when the
 * file cannot be read or has more ranks than nodes. */
static struct wl_program *goal_load(const struct wl_ctx *ctx, struct goal_index *x, char **err) {
  const struct goal_config *c = ctx->config;
  struct hw_config hw = wl_hw_of(ctx->sc);
  const struct sc_node *w = sc_map_get(ctx->sc->root, "workload");
  const struct sc_node *fn = sc_map_get(w, "file");
  *err = NULL;
  if (!c->file[0]) {
    *err = sc_error_at(fn ? fn : (w ? w : ctx->sc->root), "workload.file",
                       "expected the path of a GOAL schedule, got none");
    return NULL;
  }
  char *path = in_path_beside(fn ? fn->file : NULL, c->file);
  uint64_t num_ranks = 0;
  struct wl_program *p = goal_parse(path, c->time_unit, goal_where[c->calc_on],
                                    (uint32_t)MIN(hw.net->nodes, UINT32_MAX), &num_ranks, err, x);
  bool failed = x ? !x->at : !p;
  if (failed && !*err) {
    char *what = g_strdup_printf("%s's num_ranks", c->file);
    wl_check_nodes(ctx->sc, &hw, num_ranks, what, err);
    g_free(what);
  } else if (failed && !g_str_has_prefix(*err, path)) { /* the file itself: at the key */
    char *why = *err;
    *err = sc_error_at(fn, "workload.file", "%s", why);
    g_free(why);
  }
  g_free(path);
  return p;
}

static struct wl_program *goal_program(const struct wl_ctx *ctx, char **err) {
  return goal_load(ctx, NULL, err);
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

/* Runs the schedule read whole under CTX's policy. */
static bool run_whole(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  struct wl_program *p = goal_program(ctx, err);
  if (!p) return false;
  bool ok = ctx->run(ctx, p, ctx->policy, out, err);
  wl_program_free(p);
  return ok;
}

/* Runs the schedule streamed where it can (gst_run, gsd_run), else read whole. */
static bool goal_run(const struct wl_ctx *ctx0, struct sim_result *out, char **err) {
  const struct goal_config *c = ctx0->config;
  /* The GPU-driven policies order a rank within the window, read whole or
   * streamed alike. */
  struct wl_ctx wctx = *ctx0;
  wctx.lin_window = (uint32_t)c->stream_window;
  const struct wl_ctx *ctx = &wctx;
  const struct pol_type *pol = pol_find(ctx->policy);
  struct hw_config hw = wl_hw_of(ctx->sc);
  uint8_t calc_on = goal_where[c->calc_on];
  bool gpu = pol && !gst_fits(pol, &hw) && gsd_fits(pol, &hw);
  if (!streaming || !c->stream_window || !pol || !(gpu || gst_fits(pol, &hw)))
    return run_whole(ctx, out, err);
  struct goal_index idx = {0};
  goal_load(ctx, &idx, err);
  if (!idx.at) return false;
  bool fits = idx.ops <= whole_limit, ok = true;
  if (fits && ctx->trace) { /* a streamed run that stops has traced: read whole */
    index_free(&idx);
    return run_whole(ctx, out, err);
  }
  int done = 0;
  struct wl_program *shape = wl_program_new(idx.n_ranks);
  if (pol->check && !pol->check(ctx->sc, &hw, shape, err)) {
    ok = false;
  } else if (idx.lag > GOAL_MAX_LAG || idx.cycle || !index_matched(&idx)) {
    /* The whole-file path runs it, or says what is wrong with it. */
    bool deadlock = false;
    if (!fits && !idx.cycle && idx.lag <= GOAL_MAX_LAG && !index_matched(&idx)) { /* the messages */
      const struct sc_node *fn = sc_map_get(sc_map_get(ctx->sc->root, "workload"), "file");
      char *path = in_path_beside(fn ? fn->file : NULL, c->file);
      *err = goal_unmatched(path, &idx, c->time_unit, &deadlock);
      g_free(path);
      if (deadlock && ctx->check_only) { /* well formed: it deadlocks when run */
        g_free(*err);
        *err = NULL;
      }
    } else if (!fits) {
      char *why = idx.cycle ? g_strdup("dependencies without a cycle, got one")
                            : g_strdup_printf("each dependency line at most %d ops after the op "
                                              "that waits (Schedgen writes it right after), got "
                                              "one %u ops after it", GOAL_MAX_LAG, idx.lag);
      *err = sc_error_at(sc_node_near(ctx->sc->root, "workload.file"), "workload.file",
                         "expected, in a schedule of more than 2^25 operations (it is not read "
                         "whole), %s", why);
      g_free(why);
    }
    if (!fits && !*err) done = 1; /* validate: a deadlock is no input error */
    else
      done = fits ? 0 : -1;
  } else if (ctx->check_only && !gpu) {
    done = 1;
  } else {
    char *path = NULL;
    const struct sc_node *fn = sc_map_get(sc_map_get(ctx->sc->root, "workload"), "file");
    path = in_path_beside(fn ? fn->file : NULL, c->file);
    done = !gpu           ? gst_run(ctx, path, c, calc_on, pol, &hw, &idx, out, err)
           : pol->op_by_op ? gsq_run(ctx, path, c, calc_on, pol, &hw, &idx, out, err)
                           : gsd_run(ctx, path, c, calc_on, pol, &hw, &idx, out, err);
    g_free(path);
    if (done < 0 && fits) { /* a deadlock: the whole-file path names the op as it does */
      g_free(*err);
      *err = NULL;
      done = 0;
    } else if (done == 0 && !fits) {
      *err = sc_error_at(sc_node_near(ctx->sc->root, "workload.stream_window"),
                         "workload.stream_window",
                         "expected a window under which every op is read before it is ready "
                         "(a schedule of more than 2^25 operations cannot be read whole), got "
                         "%" G_GINT64_FORMAT ": raise it", c->stream_window);
      done = -1;
    }
  }
  wl_program_free(shape);
  index_free(&idx);
  if (!ok || done < 0) return false;
  if (done == 1) return true;
  return run_whole(ctx, out, err);
}

const struct wl_type wl_goal = {
    .params = &goal_params,
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
