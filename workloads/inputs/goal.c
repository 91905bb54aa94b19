/* The GOAL workload (goal.h): a schedule in GOAL, the text format of
 * LogGOPSim and Schedgen (Hoefler et al., "Group Operation Assembly
 * Language", 2009; spcl/LogGOPSim's txt2bin grammar): one op per send,
 * recv and calc, one dependency per `requires` (completion) or
 * `irequires` (start). The file is opened once for all of a scenario's
 * runs (sc_attachment) and read by position from there: a first pass
 * checks it and learns each rank's summary and where its block begins;
 * then it is an op source (source.h), each rank read from its own cursor
 * while the run goes (the lowering driver, workloads/policies/stream.c),
 * or read whole into graph ranks of the per-rank form. And the writer. */
#include "goal.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checks.h"
#include "input.h"
#include "source.h"
#include "workload.h"

#define PAR_CONFIG struct goal_config
static const struct par_decl goal_decls[] = {
    PAR(file, PAR_STRING, "", NULL, NULL, NULL,
      "the GOAL schedule (text, as Schedgen writes it; relative to the scenario file)"),
    PAR(time_unit, PAR_TIME, "1ns", "1ps", "1s", NULL,
      "what one unit of a `calc` value lasts (Schedgen's default: 1ns)"),
    PAR(stream_window, PAR_INT, "256", "0", "16777216", NULL,
      "ops of a rank read ahead that wait for a dependency, when the schedule streams "
      "(configs/README.md: every policy, with any library it takes; each dependency line at "
      "most 16 ops after its op); the ops among which the GPU-driven policies pick a rank's "
      "next (read whole too); 0: read the whole file first, every op"),
    PAR(calc_on, PAR_ENUM, "auto", NULL, NULL, "auto|cpu|gpu",
      "where a calc runs: auto = the GPU under GPU policies, the CPU under cpu; cpu only "
      "under host-driven policies (cpu, hdn, copy, overlap); gpu not under cpu"),
    PAR(read, PAR_ENUM, "stream", NULL, NULL, "stream|whole",
      "stream: as stream_window says; whole: read the whole file first all the same (a rank "
      "still ordered within stream_window): to compare a streamed run with the whole one"),
    PAR(whole_limit, PAR_INT, "33554432", "1", "33554432", NULL,
      "the most ops a schedule may have to be read whole, 2^25 (a streamed run that stops falls "
      "back to it); a longer one streams only, what the whole file would say of it said from "
      "the first pass"),
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

/* Lines of a file read by position through a buffer of its own (each
 * cursor has one, the file one descriptor), each line read in place: its
 * end ('\n') made a NUL. */
struct reader {
  const char *path;
  int fd;
  char *chunk;        /* file bytes from chunk_off on, [at, len) not yet read as lines;
                         a NUL at len, and padding after it */
  size_t cap, len, at;
  off_t chunk_off;
  bool eof, failed;   /* the file's end is in the chunk; a read failed */
  char *buf;          /* the current line, NUL-terminated (in the chunk) */
  const char *pos;    /* next character of the line */
  uint32_t line;      /* 1-based */
  bool in_comment;    /* inside a block comment that began on an earlier line */
  bool too_long;      /* a line longer than GOAL_MAX_LINE: reading stopped */
  unsigned last_len;  /* characters of the last line read, without its end */
  bool len_known;     /* last_len is the current line's (else counted when needed, while
                         the line is still in the chunk: know_len) */
  off_t off;          /* file offset of the next line */
  char **err;
};

/* Bytes the chunk holds past its NUL, so that a word compared at a line's
 * end stays inside it. */
#define CHUNK_PAD 16

/* A reader of FD (PATH) at OFF, after line LINE, a chunk of CAP bytes
 * (more than GOAL_MAX_LINE). */
static void reader_init(struct reader *r, const char *path, int fd, off_t off, uint32_t line,
                        bool in_comment, size_t cap, char **err) {
  *r = (struct reader){.path = path, .fd = fd, .cap = cap, .chunk_off = off, .off = off,
                       .line = line, .in_comment = in_comment, .pos = "", .len_known = true,
                       .err = err};
  r->chunk = g_malloc0(cap + CHUNK_PAD);
}

static void reader_clear(struct reader *r) {
  g_free(r->chunk);
  r->chunk = r->buf = NULL;
}

/* Reads more of the file behind the chunk's unread bytes; false at its end. */
static bool refill(struct reader *r) {
  if (r->eof || r->failed) return false;
  size_t keep = r->len - r->at;
  memmove(r->chunk, r->chunk + r->at, keep);
  r->chunk_off += (off_t)r->at;
  r->at = 0;
  r->len = keep;
  while (r->len < r->cap) {
    ssize_t n = pread(r->fd, r->chunk + r->len, r->cap - r->len, r->chunk_off + (off_t)r->len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r->failed = true;
      break;
    }
    if (n == 0) {
      r->eof = true;
      break;
    }
    r->len += (size_t)n;
  }
  r->chunk[r->len] = '\0';
  return r->len > keep;
}

/* Counts last_len for the current line if not yet (before it leaves the chunk). */
static void know_len(struct reader *r) {
  if (r->len_known) return;
  r->last_len = (unsigned)strcspn(r->buf, "\r\n");
  r->len_known = true;
}

/* The next line, at r->buf (as getline returns it, but its end made a
 * NUL): its length with its end, or -1 at the file's end. A line longer
 * than GOAL_MAX_LINE is cut there. */
static ssize_t next_line(struct reader *r) {
  know_len(r);
  for (;;) {
    char *s = r->chunk + r->at;
    size_t avail = r->len - r->at;
    char *nl = memchr(s, '\n', MIN(avail, (size_t)GOAL_MAX_LINE + 1));
    if (nl || avail > GOAL_MAX_LINE || (r->eof && avail)) {
      size_t n = nl ? (size_t)(nl - s) + 1 : avail;
      r->buf = s;
      if (nl) *nl = '\0';
      r->at += n;
      return (ssize_t)n;
    }
    if (!refill(r)) return -1;
  }
}

/* Sets *ERR to "path:line:col: expected WANT, got <the token at AT>". */
static bool fail_at(struct reader *r, const char *at, const char *want) {
  know_len(r);
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
    ssize_t len = next_line(r);
    if (len < 0) {
      r->pos = "";
      return false;
    }
    r->line++;
    r->off += len;
    r->pos = r->buf;
    if (len > GOAL_MAX_LINE) {
      r->too_long = true;
      r->buf[GOAL_MAX_LINE] = '\0';
      r->pos = "";
      return false;
    }
    r->len_known = false; /* know_len */
  }
}

/* Whether the next token is the word W (consumed if so). */
static inline bool word(struct reader *r, const char *w, size_t n) {
  if (memcmp(r->pos, w, n) || g_ascii_isalnum(r->pos[n]) || r->pos[n] == '_') return false;
  r->pos += n;
  return true;
}
#define WORD(r, w) word(r, w, sizeof w - 1)

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

/* A label ([a-zA-Z][a-zA-Z0-9_]*): where it is on the line and its length
 * (0: none). */
struct slice {
  const char *s;
  uint32_t n;
};

static struct slice label(struct reader *r) {
  const char *s = r->pos;
  if (!g_ascii_isalpha(*s)) return (struct slice){s, 0};
  while (g_ascii_isalnum(*r->pos) || *r->pos == '_') r->pos++;
  return (struct slice){s, (uint32_t)(r->pos - s)};
}

static bool slice_is(struct slice a, const char *w) {
  return a.n == strlen(w) && !memcmp(a.s, w, a.n);
}

/* The end of a statement: only blanks and comments are left on the line. */
static bool end_of_statement(struct reader *r) {
  if (skip_blank(r, false)) return fail_at(r, r->pos, "the end of the statement");
  return true;
}

/* ---- labels ----
 * A rank's labels and the ops they name: open addressing over entries
 * that stay where they are (an op keeps its entry's id as its handle). */

#define LKEY 24
struct lent {
  uint64_t op;
  uint32_t tag, hash;
  uint32_t n;                /* the key's length, 0: a free entry; > LKEY: in heap */
  union {
    char key[LKEY];
    char *heap;
  };
};

struct ltab {
  struct lent *e;            /* entries */
  uint32_t n_e, cap_e;
  GArray *free_e;            /* uint32_t: entries given back */
  uint32_t *idx;             /* entry + 1; 0 empty, UINT32_MAX a deleted one */
  uint32_t mask, used, live;
};

/* Whether the N bytes at A and B are the same (labels are short: no call). */
static inline bool same_bytes(const char *a, const char *b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (a[i] != b[i]) return false;
  return true;
}

static uint32_t lhash(struct slice k) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < k.n; i++) h = (h ^ (uint8_t)k.s[i]) * 16777619u;
  return h ? h : 1;
}

static const char *lkey(const struct lent *e) { return e->n > LKEY ? e->heap : e->key; }

static void ltab_init(struct ltab *t) {
  memset(t, 0, sizeof *t);
  t->free_e = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  t->mask = 63;
  t->idx = g_new0(uint32_t, t->mask + 1);
}

static void ltab_clear(struct ltab *t) {
  for (uint32_t i = 0; i < t->n_e; i++)
    if (t->e[i].n > LKEY) g_free(t->e[i].heap);
  g_free(t->e);
  g_free(t->idx);
  g_array_free(t->free_e, TRUE);
  memset(t, 0, sizeof *t);
}

/* Forgets every label (a new rank). */
static void ltab_reset(struct ltab *t) {
  for (uint32_t i = 0; i < t->n_e; i++)
    if (t->e[i].n > LKEY) g_free(t->e[i].heap), t->e[i].n = 0;
  t->n_e = t->used = t->live = 0;
  g_array_set_size(t->free_e, 0);
  memset(t->idx, 0, (t->mask + 1) * sizeof *t->idx);
}

/* The entry of label K, or NULL; *SLOT: its place in idx (or where it would go). */
static struct lent *ltab_find(const struct ltab *t, struct slice k, uint32_t h, uint32_t *slot) {
  uint32_t i = h & t->mask, first_free = UINT32_MAX;
  for (;; i = (i + 1) & t->mask) {
    uint32_t v = t->idx[i];
    if (v == 0) {
      *slot = first_free != UINT32_MAX ? first_free : i;
      return NULL;
    }
    if (v == UINT32_MAX) {
      if (first_free == UINT32_MAX) first_free = i;
      continue;
    }
    struct lent *e = &t->e[v - 1];
    if (e->hash == h && e->n == k.n && same_bytes(lkey(e), k.s, k.n)) {
      *slot = i;
      return e;
    }
  }
}

static struct lent *ltab_get(const struct ltab *t, struct slice k) {
  uint32_t slot;
  return ltab_find(t, k, lhash(k), &slot);
}

static void ltab_grow(struct ltab *t) {
  uint32_t cap = t->live * 4 > t->mask + 1 ? 2 * (t->mask + 1) : t->mask + 1;
  g_free(t->idx);
  t->mask = cap - 1;
  t->idx = g_new0(uint32_t, cap);
  t->used = 0;
  for (uint32_t i = 0; i < t->n_e; i++) {
    if (!t->e[i].n) continue;
    uint32_t j = t->e[i].hash & t->mask;
    while (t->idx[j]) j = (j + 1) & t->mask;
    t->idx[j] = i + 1;
    t->used++;
  }
}

/* Adds label K of op OP (TAG): its entry's id + 1; 0 when K is taken. */
static uint32_t ltab_add(struct ltab *t, struct slice k, uint64_t op, uint32_t tag) {
  uint32_t h = lhash(k), slot;
  if (ltab_find(t, k, h, &slot)) return 0;
  uint32_t id;
  if (t->free_e->len) {
    id = g_array_index(t->free_e, uint32_t, t->free_e->len - 1);
    g_array_set_size(t->free_e, t->free_e->len - 1);
  } else {
    if (t->n_e == t->cap_e) {
      t->cap_e = t->cap_e ? 2 * t->cap_e : 64;
      t->e = g_renew(struct lent, t->e, t->cap_e);
    }
    id = t->n_e++;
  }
  struct lent *e = &t->e[id];
  e->op = op;
  e->tag = tag;
  e->hash = h;
  e->n = k.n;
  if (k.n > LKEY) e->heap = g_strndup(k.s, k.n);
  else memcpy(e->key, k.s, k.n);
  if (t->idx[slot] == 0) t->used++;
  t->idx[slot] = id + 1;
  t->live++;
  if (t->used * 2 > t->mask + 1) ltab_grow(t); /* linear probing: short runs at half full */
  return id + 1;
}

/* Removes the entry HANDLE (ltab_add's). */
static void ltab_del(struct ltab *t, uint32_t handle) {
  struct lent *e = &t->e[handle - 1];
  uint32_t i = e->hash & t->mask;
  while (t->idx[i] != handle) i = (i + 1) & t->mask;
  t->idx[i] = UINT32_MAX;
  if (e->n > LKEY) g_free(e->heap);
  e->n = 0;
  t->live--;
  uint32_t id = handle - 1;
  g_array_append_val(t->free_e, id);
}

/* ---- statements ---- */

/* What a reading knows of the schedule: its ranks, the rank being read,
 * what a calc unit lasts and where calcs run (enum wl_where). */
struct goal_read {
  uint32_t n_ranks, rank;
  int64_t unit_ps;
  uint8_t calc_on;
};

/* One statement of a rank block. */
enum { ST_OP, ST_DEP, ST_CLOSE };
struct goal_stmt {
  int kind;                /* ST_* */
  struct wl_op op;         /* ST_OP: kind, bytes, peer, tag, parts, stores (send, recv);
                              time_ps, on, n_wgs (calc); line */
  struct slice name, other;/* ST_OP: its label (n 0: none); ST_DEP: NAME [i]requires OTHER */
  const char *at, *oat;    /* where they are on the line (for errors) */
  bool on_start;           /* ST_DEP: irequires */
};

/* The optional `tag T`, `cpu N`, `nic N` of a send or recv (the cpu and nic
 * numbers pick one of several in LogGOPSim; a trigsim node has one host
 * thread and one NIC, so they are read and not modelled). */
static bool suffixes(struct reader *r, uint32_t *tag, bool calc) {
  uint64_t v;
  for (;;) {
    if (!skip_blank(r, false)) return true;
    if (!calc && WORD(r, "tag")) {
      if (!number(r, UINT32_MAX - 1, "a tag (0 or more; -1, any tag, is not modelled)", &v))
        return false;
      *tag = (uint32_t)v;
    } else if (WORD(r, "cpu") || (!calc && WORD(r, "nic"))) {
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
  bool send = WORD(r, "send"), recv = !send && WORD(r, "recv");
  if (send || recv) {
    if (!number(r, (uint64_t)INT64_MAX, "a size in bytes (e.g. 512b)", &v)) return false;
    skip_blank(r, false);
    if (*r->pos != 'b') return fail_at(r, r->pos, "b after the size");
    r->pos++;
    skip_blank(r, false);
    if (!(send ? WORD(r, "to") : WORD(r, "from"))) return fail_at(r, r->pos, send ? "to" : "from");
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
                        .bytes = (int64_t)v, .tag = tag, .parts = 1, .stores = 1};
  } else if (WORD(r, "calc")) {
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

/* ---- the common lines, read fast ----
 * Schedgen and export-goal write `LABEL: send Nb to P tag T`, `LABEL:
 * recv Nb from P tag T`, `LABEL: calc N` and `LABEL requires LABEL`, one
 * space apart, nothing after. fast_statement reads such a line (and only
 * such a line, valid as statement would read it) at once; anything else
 * is left to statement, which reads any line and says what is wrong. */

static inline bool is_label_char(char c) { return g_ascii_isalnum(c) || c == '_'; }

/* The end of a label starting at P ([a-zA-Z][a-zA-Z0-9_]*), or P. */
static inline const char *label_end(const char *p) {
  if (!g_ascii_isalpha(*p)) return p;
  do p++;
  while (is_label_char(*p));
  return p;
}

/* A decimal number at *P of at most MAX, not followed by a letter other
 * than 'b' (number's rule): into *V, *P past it. */
static inline bool fast_number(const char **p, uint64_t max, uint64_t *v) {
  const char *q = *p;
  if (!g_ascii_isdigit(*q)) return false;
  uint64_t x = 0;
  for (; g_ascii_isdigit(*q); q++) {
    unsigned d = (unsigned)(*q - '0');
    if (x > (max - d) / 10) return false;
    x = x * 10 + d;
  }
  if (g_ascii_isalpha(*q) && *q != 'b') return false;
  *v = x;
  *p = q;
  return true;
}

#define FAST_WORD(p, w) (!memcmp(p, w, sizeof w - 1) && (p += sizeof w - 1, true))

/* A statement read fast from FROM to END, the NUL that ends the line: the
 * line's length is known when it starts the line (none of its characters
 * is a \r). */
static inline void whole_line(struct reader *r, const char *from, const char *end) {
  r->pos = end;
  if (from == r->buf) r->last_len = (unsigned)(end - from), r->len_known = true;
}

static bool fast_statement(struct reader *r, const struct goal_read *g, struct goal_stmt *st) {
  const char *p = r->pos, *name = p, *q = label_end(p);
  if (q == p || r->in_comment) return false;
  /* An op's word is no label (statement reads `send ...` as an op). */
  struct slice nm = {name, (uint32_t)(q - name)};
  if (slice_is(nm, "send") || slice_is(nm, "recv") || slice_is(nm, "calc")) return false;
  if (q[0] == ' ' && (q[1] == 'r' || q[1] == 'i')) { /* LABEL requires LABEL */
    const char *w = q + 1;
    bool start = *w == 'i';
    if (!(start ? FAST_WORD(w, "irequires ") : FAST_WORD(w, "requires "))) return false;
    const char *o = w, *e = label_end(o);
    if (e == o || *e) return false;
    /* What a dependency's reader reads (its op is not). */
    st->kind = ST_DEP;
    st->name = nm;
    st->other = (struct slice){o, (uint32_t)(e - o)};
    st->at = name;
    st->oat = o;
    st->on_start = start;
    whole_line(r, name, e);
    return true;
  }
  if (q[0] != ':' || q[1] != ' ') return false;
  const char *at = q + 2, *k = at;
  uint64_t v, peer, tag = 0;
  /* Fields set one by one: a zeroed struct's initializer costs more than
   * the line's parse. (Written into ST: statement clears it on false.) */
  static const struct wl_op none;
  struct wl_op *o = &st->op;
  *o = none;
  if (k[0] == 's' || k[0] == 'r') { /* send Nb to P tag T, recv Nb from P tag T */
    bool send = k[0] == 's';
    if (!(send ? FAST_WORD(k, "send ") : FAST_WORD(k, "recv "))) return false;
    if (!fast_number(&k, (uint64_t)INT64_MAX, &v) || *k++ != 'b') return false;
    if (!(send ? FAST_WORD(k, " to ") : FAST_WORD(k, " from "))) return false;
    if (!fast_number(&k, UINT32_MAX, &peer) || peer >= g->n_ranks || peer == g->rank) return false;
    if (*k && !(FAST_WORD(k, " tag ") && fast_number(&k, UINT32_MAX - 1, &tag))) return false;
    if (*k) return false;
    o->kind = send ? WL_SEND : WL_RECV;
    o->peer = (uint32_t)peer;
    o->bytes = (int64_t)v;
    o->tag = (uint32_t)tag;
    o->parts = o->stores = 1;
  } else if (FAST_WORD(k, "calc ")) {
    if (!fast_number(&k, (uint64_t)INT64_MAX, &v) || *k ||
        v > (uint64_t)(INT64_MAX / g->unit_ps))
      return false;
    o->kind = WL_COMPUTE;
    o->n_wgs = 1;
    o->time_ps = (int64_t)v * g->unit_ps;
    o->on = g->calc_on;
  } else {
    return false;
  }
  o->line = r->line;
  st->kind = ST_OP;
  st->name = nm;
  st->other = (struct slice){NULL, 0};
  st->at = name;
  st->oat = at;
  st->on_start = false;
  whole_line(r, name, k);
  return true;
}

/* The next statement of a rank block into ST (a dependency's end of
 * statement read too). Its slices point into the reader's line: valid
 * until it reads the next. */
static bool statement(struct reader *r, const struct goal_read *g, struct goal_stmt *st) {
  if (!skip_blank(r, true)) {
    memset(st, 0, sizeof *st);
    return fail_at(r, r->pos, "} to close the rank");
  }
  if (fast_statement(r, g, st)) return true;
  memset(st, 0, sizeof *st);
  if (*r->pos == '}') {
    r->pos++;
    st->kind = ST_CLOSE;
    return end_of_statement(r);
  }
  const char *at = r->pos;
  struct slice name = label(r);
  if (!name.n) return fail_at(r, at, "a label, an op or }");
  if (slice_is(name, "send") || slice_is(name, "recv") || slice_is(name, "calc")) {
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
  if (WORD(r, "requires") || (st->on_start = WORD(r, "irequires"))) {
    st->kind = ST_DEP;
    skip_blank(r, false);
    st->oat = r->pos;
    st->other = label(r);
    if (!st->other.n) return fail_at(r, st->oat, "a label");
    return true; /* its end: the caller's, once the labels are checked */
  }
  return fail_at(r, r->pos, ": and an op, requires or irequires");
}

/* ---- reading a schedule: the first pass, or whole ---- */

/* Where a rank block's statements begin (after its `rank R {` line). */
struct goal_at {
  off_t off;       /* -1: the file has no block for the rank (it has no op) */
  uint32_t line;   /* of the line before */
  bool in_comment;
};

/* A channel: messages from src to dst with tag, matched in order; the
 * sends' and receives' counts and a hash of their sizes in order. */
struct chan_key {
  uint32_t src, dst, tag;
};

struct chan_sum {
  struct chan_key key;
  uint64_t n[2], h[2]; /* [0]: sends, [1]: receives */
};

static guint chan_hash(gconstpointer k) {
  const struct chan_key *c = k;
  return (c->src * 2654435761u) ^ (c->dst * 40503u) ^ c->tag;
}

static gboolean chan_equal(gconstpointer a, gconstpointer b) {
  return !memcmp(a, b, sizeof(struct chan_key));
}

/* A schedule opened: the file, and what its first pass learnt. */
struct goal_src {
  struct wl_source src;
  char *path;
  int fd;
  int64_t unit_ps;
  uint8_t calc_on;
  struct goal_at *at;     /* per rank */
  struct wl_sum *sums;    /* per rank */
  bool *chains;           /* per rank: wl_source.chains */
  GHashTable *chans;      /* struct chan_sum (its key first) */
  struct chan_sum *last[2]; /* the channels index_op found last for a send [0] and a
                              receive [1] (a rank talks to few) */
  struct wl_descs *descs; /* its ops' kernels: none */
};

/* A reading of the whole file: into program P (built, at most WL_MAX_OPS
 * ops) or, X, its first pass (checked, indexed). */
struct goal_parse {
  struct reader r;
  struct goal_read g;
  struct wl_program *p;
  struct goal_src *x;
  struct ltab labels;      /* the current rank's */
  uint32_t rank_ops;
  uint64_t ops, max_ops;
  uint32_t lag;            /* the most ops between an op and a dependency line naming
                              it as the one that waits (0: each right after its op) */
  bool forward;            /* some op of the current rank waits for one written after it
                              (only so can a cycle be made) */
  GArray *edges;           /* first pass: the current rank's dependencies, uint32_t pairs */
  bool cycle;              /* first pass: some rank's dependencies make a cycle */
  bool chain;              /* every dependency of the current rank so far: an op requires
                              the op right before it */
  /* The labels of the current rank's last two ops ([1] the last; n 0: none,
   * or longer than LKEY): a dependency names them most often. */
  struct {
    char key[LKEY];
    uint32_t n;
    uint32_t op;
  } recent[2];
};

/* The op label K names in the current rank (the two last first): into *OP;
 * false when none. */
static bool label_op(const struct goal_parse *gp, struct slice k, uint32_t *op) {
  for (int j = 1; j >= 0; j--)
    if (gp->recent[j].n == k.n && same_bytes(gp->recent[j].key, k.s, k.n)) {
      *op = gp->recent[j].op;
      return true;
    }
  const struct lent *e = ltab_get(&gp->labels, k);
  if (e) *op = (uint32_t)e->op;
  return e != NULL;
}

/* The first pass's record of op O of RANK. */
static void index_op(struct goal_src *x, uint32_t rank, const struct wl_op *o) {
  wl_sum_add(&x->sums[rank], o);
  if (o->kind != WL_SEND && o->kind != WL_RECV) return;
  bool recv = o->kind == WL_RECV;
  struct chan_key k = {recv ? o->peer : rank, recv ? rank : o->peer, o->tag};
  struct chan_sum *c = x->last[recv];
  if (!c || memcmp(&c->key, &k, sizeof k)) c = g_hash_table_lookup(x->chans, &k);
  if (!c) {
    c = g_new0(struct chan_sum, 1);
    c->key = k;
    g_hash_table_add(x->chans, c);
  }
  x->last[recv] = c;
  c->n[recv]++;
  c->h[recv] = (c->h[recv] ^ (uint64_t)o->bytes) * UINT64_C(1099511628211);
}

/* Checks ST against the rank's labels and applies it: an op is numbered
 * (and added to the program, or indexed); a dependency's two ops are
 * looked up. */
static bool apply(struct goal_parse *gp, const struct goal_stmt *st) {
  struct reader *r = &gp->r;
  if (st->kind == ST_OP) {
    if (gp->rank_ops == UINT32_MAX - 1) /* labels hold op + 1 */
      return fail_at(r, st->oat, "a rank of at most 2^32 - 2 operations");
    uint32_t i = gp->rank_ops++;
    if (++gp->ops > gp->max_ops) return fail_at(r, st->oat, "a schedule of at most 2^25 operations");
    if (st->name.n && !ltab_add(&gp->labels, st->name, i, 0))
      return fail_at(r, st->oat, "a label not used before in this rank");
    gp->recent[0] = gp->recent[1];
    gp->recent[1].n = st->name.n <= LKEY ? st->name.n : 0;
    gp->recent[1].op = i;
    if (gp->recent[1].n) /* an unnamed op's name is NULL: no memcpy from it */
      memcpy(gp->recent[1].key, st->name.s, gp->recent[1].n);
    const struct wl_op *o = &st->op;
    if (gp->x) {
      index_op(gp->x, gp->g.rank, o);
    } else {
      if (o->kind == WL_SEND)
        wl_send(gp->p, gp->g.rank, o->peer, o->bytes, o->tag);
      else if (o->kind == WL_RECV)
        wl_recv(gp->p, gp->g.rank, o->peer, o->bytes, o->tag);
      else
        wl_calc(gp->p, gp->g.rank, o->time_ps, o->on);
      g_assert(wl_last(gp->p, gp->g.rank) == i);
      gp->p->ranks[gp->g.rank].ops[i].line = o->line;
    }
    return true;
  }
  uint32_t a, b;
  if (!label_op(gp, st->name, &a)) return fail_at(r, st->at, "a label defined earlier in this rank");
  if (!label_op(gp, st->other, &b)) return fail_at(r, st->oat, "a label defined earlier in this rank");
  if (a == b) return fail_at(r, st->oat, "another op than the one that requires it");
  if (!end_of_statement(r)) return false;
  gp->lag = MAX(gp->lag, gp->rank_ops - 1 - a);
  gp->forward |= b > a;
  gp->chain &= !st->on_start && b + 1 == a;
  if (gp->edges) {
    uint32_t e[2] = {b, a};
    g_array_append_vals(gp->edges, e, 2);
  }
  if (gp->p) {
    if (st->on_start)
      wl_irequires(gp->p, gp->g.rank, a, b);
    else
      wl_requires(gp->p, gp->g.rank, a, b);
  }
  return true;
}

/* The statements of `rank R {` up to its `}`. */
static bool rank_body(struct goal_parse *gp) {
  gp->rank_ops = 0;
  for (;;) {
    struct goal_stmt st;
    if (!statement(&gp->r, &gp->g, &st)) return false;
    if (st.kind == ST_CLOSE) return true;
    if (!apply(gp, &st)) return false;
  }
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

/* Whether the dependencies EDGES (pairs: op, the op that waits for it)
 * of a rank of N ops, each an op requiring the op right before it, make
 * it a chain: each op but the first has one. */
static bool is_chain(uint32_t n, const GArray *edges) {
  if (edges->len / 2 + 1 != MAX(n, 1)) return false;
  const uint32_t *e = (const uint32_t *)(const void *)edges->data;
  uint8_t *has = g_new0(uint8_t, MAX(n, 1));
  bool ok = true;
  for (guint k = 0; ok && k < edges->len / 2; k++) ok = !has[e[2 * k + 1]]++;
  g_free(has);
  return ok;
}

/* Reads the schedule of FD (PATH): into a program (X NULL: returned) or
 * its first pass into X (returns NULL). Errors: NULL and *ERR
 * ("path:line:col: workload.file: expected X, got Y", or "expected a
 * readable GOAL file, ..." with no location); NULL, *ERR NULL and
 * *NUM_RANKS set when the schedule has more ranks than MAX_RANKS. */
static struct wl_program *goal_parse(const char *path, int fd, int64_t time_unit_ps,
                                     uint8_t calc_on, uint32_t max_ranks, uint64_t *num_ranks,
                                     char **err, struct goal_src *x) {
  struct goal_parse gp = {.g = {.unit_ps = time_unit_ps, .calc_on = calc_on}, .x = x,
                          .max_ops = x ? UINT64_MAX : WL_MAX_OPS,
                          .edges = x ? g_array_new(FALSE, FALSE, sizeof(uint32_t)) : NULL};
  struct reader *r = &gp.r;
  *err = NULL;
  reader_init(r, path, fd, 0, 0, false, 1 << 20, err);
  ltab_init(&gp.labels);
  uint64_t v;
  bool ok = true;
  if (!skip_blank(r, true) || !WORD(r, "num_ranks")) {
    ok = fail_at(r, r->pos, "num_ranks N first");
  } else if (number(r, UINT32_MAX, "a rank count", &v) && end_of_statement(r)) {
    *num_ranks = v;
    if (v < 1) {
      ok = fail_at(r, r->buf + 9, "num_ranks of at least 1");
    } else if (v > max_ranks) {
      ok = false; /* the caller names the key that limits it */
    } else if (x) {
      gp.g.n_ranks = x->src.n_ranks = (uint32_t)v;
      x->at = g_new(struct goal_at, v);
      x->sums = g_new(struct wl_sum, v);
      x->chains = g_new0(bool, v);
      for (uint32_t i = 0; i < v; i++) {
        x->at[i].off = -1;
        wl_sum_init(&x->sums[i]);
      }
      x->chans = g_hash_table_new_full(chan_hash, chan_equal, g_free, NULL);
    } else {
      gp.p = wl_program_new((uint32_t)v);
      gp.g.n_ranks = (uint32_t)v;
      for (uint32_t i = 0; i < gp.p->n_ranks; i++) wl_graph(gp.p, i);
    }
  } else {
    ok = false;
  }
  bool *seen = ok ? g_new0(bool, gp.g.n_ranks) : NULL;
  while (ok && skip_blank(r, true)) {
    const char *at = r->pos;
    if (!WORD(r, "rank")) {
      ok = fail_at(r, at, "rank R {");
      break;
    }
    const char *rat = (skip_blank(r, false), r->pos);
    if (!number(r, UINT32_MAX, "a rank number", &v)) {
      ok = false;
    } else if (v >= gp.g.n_ranks || seen[v]) {
      ok = fail_at(r, rat, v >= gp.g.n_ranks ? "a rank below num_ranks" : "a rank not given before");
    } else if (skip_blank(r, false), *r->pos != '{') {
      ok = fail_at(r, r->pos, "{");
    } else {
      r->pos++;
      seen[v] = true;
      gp.g.rank = (uint32_t)v;
      ltab_reset(&gp.labels);
      ok = end_of_statement(r);
      if (ok && x) x->at[v] = (struct goal_at){.off = r->off, .line = r->line, .in_comment = r->in_comment};
      gp.forward = false;
      gp.chain = true;
      memset(gp.recent, 0, sizeof gp.recent);
      if (gp.edges) g_array_set_size(gp.edges, 0);
      ok = ok && rank_body(&gp);
      if (ok && x && gp.forward) gp.cycle |= has_cycle(gp.rank_ops, gp.edges);
      if (ok && x) x->chains[v] = gp.chain && is_chain(gp.rank_ops, gp.edges);
    }
  }
  if (r->too_long) {
    g_free(*err);
    *err = g_strdup_printf("%s:%u:%d: workload.file: expected a line of at most %d characters, "
                           "got a longer one", path, r->line, GOAL_MAX_LINE + 1, GOAL_MAX_LINE);
    ok = false;
  } else if (ok && r->in_comment) {
    know_len(r);
    *err = g_strdup_printf("%s:%u:%u: workload.file: expected */ to close the comment, got the "
                           "end of the file", path, r->line, r->last_len + 1);
    ok = false;
  }
  if (ok && r->failed) {
    *err = g_strdup_printf("expected a readable GOAL file, got a read error: %s", path);
    ok = false;
  }
  g_free(seen);
  reader_clear(r);
  ltab_clear(&gp.labels);
  if (gp.edges) g_array_free(gp.edges, TRUE);
  if (x) {
    x->src.lag = gp.lag;
    x->src.cycle = gp.cycle;
    x->src.n_ops = gp.ops;
    return NULL;
  }
  if (!ok) {
    wl_program_free(gp.p);
    return NULL;
  }
  return gp.p;
}

/* FD open on PATH, a regular file; -1 and *ERR when not. */
static int goal_open(const char *path, char **err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    *err = g_strdup_printf("expected a readable GOAL file, got %s: %s", path,
                           fd >= 0 ? "something that is not a regular file" : g_strerror(errno));
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

struct wl_program *wl_goal_read(const char *path, int64_t time_unit_ps, uint8_t calc_on,
                                uint32_t max_ranks, uint64_t *num_ranks, char **err) {
  *err = NULL;
  int fd = goal_open(path, err);
  if (fd < 0) return NULL;
  struct wl_program *p = goal_parse(path, fd, time_unit_ps, calc_on, max_ranks, num_ranks, err, NULL);
  close(fd);
  return p;
}

/* ---- the op source ---- */

/* A label seen by an ops-only cursor: its hash and length. */
struct lmark {
  uint32_t hash, n;
};

/* A rank's cursor: its reader, the labels of its ops taken and not
 * forgotten (ops only: of the last ring_n ops read, op i's at i % ring_n),
 * an op read and left (take false). */
struct wl_cursor {
  struct reader r;
  struct goal_read g;
  struct ltab labels;
  bool ops_only;
  struct lmark *ring;
  uint32_t ring_n;
  uint64_t n_ops;
  bool peeked, ended;
  struct goal_stmt peek;
};

static struct wl_cursor *src_open(void *ctx, uint32_t rank, bool ops_only) {
  struct goal_src *x = ctx;
  struct wl_cursor *c = g_new0(struct wl_cursor, 1);
  const struct goal_at *at = &x->at[rank];
  c->g = (struct goal_read){.n_ranks = x->src.n_ranks, .rank = rank, .unit_ps = x->unit_ps,
                            .calc_on = x->calc_on};
  c->ended = at->off < 0; /* no block: no op */
  reader_init(&c->r, x->path, x->fd, at->off < 0 ? 0 : at->off, at->line, at->in_comment,
              8192, NULL);
  c->ops_only = ops_only;
  if (ops_only) { /* a dependency line comes at most lag ops after its op */
    c->ring_n = x->src.lag + 2;
    c->ring = g_new0(struct lmark, c->ring_n);
  } else {
    ltab_init(&c->labels);
  }
  return c;
}

static void src_close(void *ctx, struct wl_cursor *c) {
  (void)ctx;
  reader_clear(&c->r);
  if (c->ops_only) g_free(c->ring);
  else ltab_clear(&c->labels);
  g_free(c);
}

/* Whether dependency ST read by an ops-only cursor is its chain's: an op
 * read lately requires the end of the op before it (the first pass said
 * so; otherwise the file changed since). */
static bool chain_dep(const struct wl_cursor *c, const struct goal_stmt *st) {
  if (st->on_start) return false;
  struct lmark a = {lhash(st->name), st->name.n}, b = {lhash(st->other), st->other.n};
  for (uint64_t i = c->n_ops; i-- > 1 && c->n_ops - i < c->ring_n;) {
    const struct lmark *m = &c->ring[i % c->ring_n], *p = &c->ring[(i - 1) % c->ring_n];
    if (m->hash == a.hash && m->n == a.n) return p->hash == b.hash && p->n == b.n;
  }
  return false;
}

static int src_next(void *ctx, struct wl_cursor *c, struct wl_item *it, bool take, uint32_t tag) {
  (void)ctx;
  /* Each return sets what its kind of item says (source.h): a zeroed
   * item costs more than the line's parse. */
  if (c->ended) {
    it->kind = WL_ITEM_END;
    return 1;
  }
  struct goal_stmt *st = &c->peek;
  while (!c->peeked) {
    /* The first pass read it: an error means the file changed since. */
    char *err = NULL;
    c->r.err = &err;
    bool ok = statement(&c->r, &c->g, st);
    if (ok && st->kind == ST_DEP) ok = end_of_statement(&c->r);
    c->r.err = NULL;
    g_free(err);
    if (!ok) return -1;
    if (st->kind == ST_CLOSE) {
      c->ended = true;
      it->kind = WL_ITEM_END;
      return 1;
    }
    if (st->kind == ST_DEP && c->ops_only) {
      if (!chain_dep(c, st)) return -1;
      continue;
    }
    if (st->kind == ST_DEP) {
      const struct lent *a = ltab_get(&c->labels, st->name), *b = ltab_get(&c->labels, st->other);
      if (!a) return -1; /* the op that waits was forgotten: not within the lag */
      it->kind = WL_ITEM_DEP;
      it->a = a->op;
      it->ta = a->tag;
      it->b = b ? b->op : WL_GONE;
      it->tb = b ? b->tag : 0;
      it->on_start = st->on_start;
      return 1;
    }
    c->peeked = true;
  }
  if (!take) {
    it->kind = WL_ITEM_OP; /* left for the next call */
    return 2;
  }
  c->peeked = false;
  uint64_t i = c->n_ops++;
  uint32_t handle = 0;
  if (c->ops_only)
    c->ring[i % c->ring_n] = (struct lmark){st->name.n ? lhash(st->name) : 0, st->name.n};
  else if (st->name.n && !(handle = ltab_add(&c->labels, st->name, i, tag)))
    return -1;
  it->kind = WL_ITEM_OP;
  it->op = st->op;
  it->handle = handle;
  return 1;
}

static void src_forget(void *ctx, struct wl_cursor *c, uint32_t handle) {
  (void)ctx;
  if (handle) ltab_del(&c->labels, handle);
}

static struct wl_program *src_program(void *ctx, char **err) {
  struct goal_src *x = ctx;
  uint64_t n = 0;
  struct wl_program *p =
      goal_parse(x->path, x->fd, x->unit_ps, x->calc_on, x->src.n_ranks, &n, err, NULL);
  if (!p && !*err) *err = g_strdup_printf("expected a readable GOAL file, got %s: it changed", x->path);
  return p;
}

/* Op NTH (from 0) of RANK's block that is a KIND (WL_SEND, WL_RECV) with
 * PEER and TAG: its index, line and size. False when there is none. */
static bool goal_find(struct goal_src *x, uint32_t rank, uint8_t kind, uint32_t peer, uint32_t tag,
                      uint64_t nth, uint64_t *op, uint32_t *line, int64_t *bytes) {
  if (x->at[rank].off < 0) return false;
  struct wl_cursor *c = src_open(x, rank, false);
  bool found = false;
  for (uint64_t i = 0; !found;) {
    struct wl_item it;
    if (src_next(x, c, &it, true, 0) != 1 || it.kind == WL_ITEM_END) break;
    if (it.kind != WL_ITEM_OP) continue;
    src_forget(x, c, it.handle);
    const struct wl_op *o = &it.op;
    if (o->kind == kind && o->peer == peer && o->tag == tag && nth-- == 0) {
      *op = i, *line = o->line, *bytes = o->bytes;
      found = true;
    }
    i++;
  }
  src_close(x, c);
  return found;
}

/* The channel whose sends and receives do not pair up that comes first
 * by kind (more sends than receives: an input error; more receives: a
 * deadlock; then differing sizes), then by the rank with one too many,
 * its peer, the tag: into *SUM, *KIND. False when none. */
static bool index_unmatched(const struct goal_src *x, const struct chan_sum **sum, int *kind) {
  GHashTableIter it;
  gpointer k;
  int best = 3; /* 0: more sends, 1: more receives, 2: sizes */
  uint32_t bk[3] = {0};
  g_hash_table_iter_init(&it, x->chans);
  while (g_hash_table_iter_next(&it, &k, NULL)) {
    const struct chan_sum *c = k;
    int kd = c->n[0] > c->n[1] ? 0 : c->n[0] < c->n[1] ? 1 : c->h[0] != c->h[1] ? 2 : 3;
    if (kd > best) continue;
    const struct chan_key *ck = &c->key;
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
    *sum = c;
  }
  *kind = best;
  return best < 3;
}

/* What is wrong with the schedule's messages, said as the whole program
 * says it (program.c, wl_program_check and wl_program_unmatched), naming
 * the op and its line. */
static char *src_unmatched(void *ctx, bool *deadlock) {
  struct goal_src *x = ctx;
  const struct chan_sum *c = NULL;
  int kind;
  *deadlock = false;
  if (!index_unmatched(x, &c, &kind)) return NULL;
  const struct chan_key k = c->key;
  uint64_t op = 0;
  uint32_t line = 0;
  int64_t bytes = 0;
  if (kind == 0 && goal_find(x, k.src, WL_SEND, k.dst, k.tag, c->n[1], &op, &line, &bytes)) {
    char nth[48] = "";
    if (c->n[1]) g_snprintf(nth, sizeof nth, " (message %" G_GUINT64_FORMAT " with that tag)",
                            c->n[1] + 1);
    return g_strdup_printf("rank %u op %" G_GUINT64_FORMAT " (line %u): expected a receive of %"
                           G_GINT64_FORMAT " B in 1 parts with tag %u on rank %u%s, got none",
                           k.src, op, line, bytes, k.tag, k.dst, nth);
  }
  if (kind == 1 && goal_find(x, k.dst, WL_RECV, k.src, k.tag, c->n[0], &op, &line, &bytes)) {
    *deadlock = true;
    return g_strdup_printf("rank %u op %" G_GUINT64_FORMAT " (line %u): expected a send from "
                           "rank %u to match its receive of %" G_GINT64_FORMAT " B with tag %u, "
                           "got none (the schedule would deadlock)", k.dst, op, line, k.src,
                           bytes, k.tag);
  }
  return g_strdup_printf("rank %u: expected its sends to rank %u with tag %u to have the sizes "
                         "of rank %u's receives from it with that tag, in order, got others",
                         k.src, k.dst, k.tag, k.dst);
}

static const struct wl_source_ops goal_ops = {
    .open = src_open,
    .close = src_close,
    .next = src_next,
    .forget = src_forget,
    .program = src_program,
    .unmatched = src_unmatched,
};

/* Whether every channel's sends and receives pair up with the same sizes
 * (by the hash: a collision is caught when the streamed run matches). */
static bool index_matched(const struct goal_src *x) {
  const struct chan_sum *c;
  int kind;
  return !index_unmatched(x, &c, &kind);
}

static void goal_src_free(void *p) {
  struct goal_src *x = p;
  if (!x) return;
  for (uint32_t i = 0; x->sums && i < x->src.n_ranks; i++) wl_sum_clear(&x->sums[i]);
  wl_sum_clear(&x->src.total);
  g_free(x->sums);
  g_free(x->chains);
  g_free(x->at);
  if (x->chans) g_hash_table_destroy(x->chans);
  if (x->fd >= 0) close(x->fd);
  wl_descs_unref(x->descs);
  g_free(x->path);
  g_free(x);
}

/* What goal_src_new reads. */
struct goal_spec {
  const char *path;
  int64_t unit_ps;
  uint8_t calc_on;
  uint32_t max_ranks;
  uint64_t num_ranks;   /* out: when it has more than max_ranks */
};

/* The schedule SPEC names opened and through its first pass; NULL and
 * *ERR as goal_parse says. */
static void *goal_src_new(void *arg, char **err) {
  struct goal_spec *sp = arg;
  *err = NULL;
  int fd = goal_open(sp->path, err);
  if (fd < 0) return NULL;
  struct goal_src *x = g_new0(struct goal_src, 1);
  x->path = g_strdup(sp->path);
  x->fd = fd;
  x->unit_ps = sp->unit_ps;
  x->calc_on = sp->calc_on;
  goal_parse(sp->path, fd, sp->unit_ps, sp->calc_on, sp->max_ranks, &sp->num_ranks, err, x);
  if (*err || !x->at) {
    goal_src_free(x);
    return NULL;
  }
  x->src.ops = &goal_ops;
  x->src.ctx = x;
  x->src.sums = x->sums;
  x->src.chains = x->chains;
  x->src.descs = x->descs = wl_descs_new(); /* a calc names no kernel */
  x->src.matched = index_matched(x);
  x->src.key = "workload.file";
  x->src.lag_rule = "each dependency line at most 16 ops after the op that waits (Schedgen "
                    "writes it right after)";
  wl_sum_init(&x->src.total);
  for (uint32_t i = 0; i < x->src.n_ranks; i++) {
    x->src.total.ops += x->sums[i].ops;
    x->src.total.sends += x->sums[i].sends;
    x->src.total.recvs += x->sums[i].recvs;
    x->src.total.computes += x->sums[i].computes;
  }
  return x;
}

/* ---- the workload ---- */

static const uint8_t goal_where[] = {WL_ON_ANY, WL_ON_CPU, WL_ON_GPU};

/* CTX's schedule, opened once for all of its scenario's runs; NULL and
 * *ERR located at the scenario's key when it cannot be read or has more
 * ranks than nodes. */
static struct goal_src *goal_src_of(const struct wl_ctx *ctx, char **err) {
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
  struct goal_spec sp = {.path = path, .unit_ps = c->time_unit, .calc_on = goal_where[c->calc_on],
                         .max_ranks = (uint32_t)MIN(hw.net->nodes, UINT32_MAX)};
  struct goal_src *x = sc_attachment(ctx->sc, "goal", goal_src_new, &sp, goal_src_free, err);
  if (!x && !*err) {
    char *what = g_strdup_printf("%s's num_ranks", c->file);
    wl_check_nodes(ctx->sc, &hw, sp.num_ranks, what, err);
    g_free(what);
  } else if (!x && !g_str_has_prefix(*err, path)) { /* the file itself: at the key */
    char *why = *err;
    *err = sc_error_at(fn, "workload.file", "%s", why);
    g_free(why);
  }
  g_free(path);
  return x;
}

static struct wl_program *goal_program(const struct wl_ctx *ctx, char **err) {
  struct goal_src *x = goal_src_of(ctx, err);
  return x ? x->src.ops->program(x, err) : NULL;
}

/* A calc placed where the policy runs no compute (calc_on). */
static bool goal_check(const struct wl_ctx *ctx, char **err) {
  const struct goal_config *c = ctx->config;
  const struct sc_node *w = sc_map_get(ctx->sc->root, "workload");
  const struct sc_node *con = sc_map_get(w, "calc_on");
  uint8_t where = goal_where[c->calc_on];
  if (where != WL_ON_ANY && ctx->computes_on && !ctx->computes_on(ctx, where)) {
    *err = sc_error_at(con ? con : w, "workload.calc_on",
                       "expected where policy %s can run a calc (%s), got %s", ctx->policy,
                       ctx->computes_on(ctx, WL_ON_CPU) ? "auto or cpu" : "auto or gpu",
                       c->calc_on == GOAL_ON_CPU ? "cpu" : "gpu");
    return false;
  }
  return true;
}

/* The schedule as an op source, run by the driver: streamed where it can
 * be, else read whole (workloads/policies/stream.c). */
static bool goal_run(const struct wl_ctx *ctx0, struct sim_result *out, char **err) {
  const struct goal_config *c = ctx0->config;
  /* The GPU-driven policies order a rank within the window, read whole or
   * streamed alike. */
  struct wl_ctx ctx = *ctx0;
  ctx.lin_window = (uint32_t)c->stream_window;
  struct goal_src *x = goal_src_of(&ctx, err);
  if (!x) return false;
  struct wl_stream_opts opts = {.window = (uint32_t)c->stream_window,
                                .whole = c->read == GOAL_READ_WHOLE,
                                .whole_limit = (uint64_t)c->whole_limit};
  return ctx.run_source(&ctx, &x->src, &opts, out, err);
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
        int64_t t = wl_cpu_time(cpu, wl_kernel_of(p, o), o);
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
