/* Scenarios (see scenario.h): libyaml events into a tree with file:line:col
 * marks on every node and key, `include:` merging with cycle detection,
 * --set and `overrides:` assignments, and binding onto declared parameters. */
#include "scenario.h"

#include "input.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <glib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

/* Deeper documents are refused rather than risking the stack. */
#define SC_MAX_DEPTH 200

static const char *const top_keys[] = {"include",  "name",      "seed",  "hardware", "workload",
                                       "policies", "overrides", "sweep", "plot",     "provenance"};

/* ---- messages ---- */

/* Escapes control bytes so that a message stays on one line. */
static char *one_line(char *msg) {
  GString *s = g_string_sized_new(strlen(msg));
  for (const unsigned char *c = (const unsigned char *)msg; *c; c++) {
    if (*c == '\n') g_string_append(s, "\\n");
    else if (*c == '\t') g_string_append(s, "\\t");
    else if (*c < 0x20 || *c == 0x7f) g_string_append_printf(s, "\\x%02x", *c);
    else g_string_append_c(s, (char)*c);
  }
  g_free(msg);
  return g_string_free(s, FALSE);
}

static char *vmsg_at(const char *file, int line, int col, const char *path, const char *fmt,
                     va_list ap) {
  char *text = g_strdup_vprintf(fmt, ap);
  const char *p = path && *path ? path : "(document)";
  char *msg = file ? g_strdup_printf("%s:%d:%d: %s: %s", file, line, col, p, text)
                   : g_strdup_printf("%s: %s", p, text);
  g_free(text);
  return one_line(msg);
}

static char *msg_at(const char *file, int line, int col, const char *path, const char *fmt, ...)
    G_GNUC_PRINTF(5, 6);
static char *msg_at(const char *file, int line, int col, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = vmsg_at(file, line, col, path, fmt, ap);
  va_end(ap);
  return m;
}

char *sc_error_at(const struct sc_node *n, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = vmsg_at(n ? n->file : NULL, n ? n->line : 0, n ? n->col : 0, path, fmt, ap);
  va_end(ap);
  return m;
}

/* What a node is, for the "got" half of a message (g_free). */
static char *describe(const struct sc_node *n) {
  if (!n) return g_strdup("nothing");
  if (n->kind == SC_MAP) return g_strdup("a mapping");
  if (n->kind == SC_SEQ) return g_strdup("a sequence");
  if (!*n->scalar) return g_strdup("an empty value");
  if (g_utf8_strlen(n->scalar, -1) <= 60) return g_strdup_printf("'%s'", n->scalar);
  char *cut = g_utf8_substring(n->scalar, 0, 57);
  char *d = g_strdup_printf("'%s...'", cut);
  g_free(cut);
  return d;
}

char *sc_error_expected(const struct sc_node *n, const char *path, const char *want) {
  char *got = describe(n);
  char *msg = sc_error_at(n, path, "expected %s, got %s", want, got);
  g_free(got);
  return msg;
}

bool sc_check_keys(const struct sc_node *m, const char *path, const char *const *keys,
                   size_t n_keys, char **err) {
  for (size_t i = 0; i < m->n_pairs; i++) {
    const struct sc_pair *p = &m->pairs[i];
    bool known = false;
    for (size_t k = 0; k < n_keys; k++) known = known || !strcmp(p->key, keys[k]);
    if (known) continue;
    const char *hint = par_suggest(p->key, keys, n_keys);
    GString *list = g_string_new(NULL);
    for (size_t k = 0; k < n_keys; k++) g_string_append_printf(list, "%s%s", k ? ", " : "", keys[k]);
    char *kpath = path ? g_strdup_printf("%s.%s", path, p->key) : g_strdup(p->key);
    *err = msg_at(p->file, p->line, p->col, kpath, "expected one of %s%s%s%s, got '%s'", list->str,
                  hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "", p->key);
    g_free(kpath);
    g_string_free(list, TRUE);
    return false;
  }
  return true;
}

/* " (did you mean 'x'?)" or "" (g_free). */
static char *hint_text(const char *hint) {
  return hint ? g_strdup_printf(" (did you mean '%s'?)", hint) : g_strdup("");
}

static char *child_path(const char *path, const char *key) {
  return path && *path ? g_strdup_printf("%s.%s", path, key) : g_strdup(key);
}

/* ---- nodes ---- */

static struct sc_node *new_node(enum sc_kind kind, const char *file, int line, int col) {
  struct sc_node *n = g_new0(struct sc_node, 1);
  n->kind = kind;
  n->file = file;
  n->line = line;
  n->col = col;
  if (kind == SC_SCALAR) n->scalar = g_strdup("");
  return n;
}

void sc_node_free(struct sc_node *n) {
  if (!n) return;
  for (size_t i = 0; i < n->n_pairs; i++) {
    g_free(n->pairs[i].key);
    sc_node_free(n->pairs[i].value);
  }
  for (size_t i = 0; i < n->n_items; i++) sc_node_free(n->items[i]);
  g_free(n->pairs);
  g_free(n->items);
  g_free(n->scalar);
  g_free(n);
}

struct sc_node *sc_node_copy(const struct sc_node *n) {
  struct sc_node *c = new_node(n->kind, n->file, n->line, n->col);
  g_free(c->scalar);
  c->scalar = g_strdup(n->scalar);
  c->quoted = n->quoted;
  c->pairs = g_new0(struct sc_pair, n->n_pairs);
  for (size_t i = 0; i < n->n_pairs; i++) {
    const struct sc_pair *p = &n->pairs[i];
    c->pairs[i] = (struct sc_pair){g_strdup(p->key), p->file, p->line, p->col, sc_node_copy(p->value)};
  }
  c->n_pairs = n->n_pairs;
  c->items = g_new0(struct sc_node *, n->n_items);
  for (size_t i = 0; i < n->n_items; i++) c->items[i] = sc_node_copy(n->items[i]);
  c->n_items = n->n_items;
  return c;
}

static struct sc_pair *find_pair(const struct sc_node *m, const char *key) {
  if (!m || m->kind != SC_MAP) return NULL;
  for (size_t i = 0; i < m->n_pairs; i++)
    if (!strcmp(m->pairs[i].key, key)) return &m->pairs[i];
  return NULL;
}

const struct sc_node *sc_map_get(const struct sc_node *m, const char *key) {
  const struct sc_pair *p = find_pair(m, key);
  return p ? p->value : NULL;
}

const struct sc_node *sc_node_near(const struct sc_node *root, const char *path) {
  char **keys = g_strsplit(path, ".", -1);
  const struct sc_node *n = root;
  for (char **k = keys; *k && n; k++) {
    const struct sc_node *next = sc_map_get(n, *k);
    if (!next) break;
    n = next;
  }
  g_strfreev(keys);
  return n;
}

/* Appends KEY (taken) -> VALUE (taken) to map M. */
static void append_pair(struct sc_node *m, char *key, const char *file, int line, int col,
                        struct sc_node *value) {
  m->pairs = g_renew(struct sc_pair, m->pairs, m->n_pairs + 1);
  m->pairs[m->n_pairs++] = (struct sc_pair){key, file, line, col, value};
}

/* Removes KEY from map M and returns its value (NULL if absent). */
static struct sc_node *take_key(struct sc_node *m, const char *key) {
  struct sc_pair *p = find_pair(m, key);
  if (!p) return NULL;
  struct sc_node *v = p->value;
  g_free(p->key);
  size_t i = (size_t)(p - m->pairs);
  memmove(p, p + 1, (m->n_pairs - i - 1) * sizeof *p);
  m->n_pairs--;
  return v;
}

static bool is_null(const struct sc_node *n) {
  return n->kind == SC_SCALAR && !n->quoted && !*n->scalar;
}

/* Merges map SRC (consumed) into map DST: maps merge key by key; any other
 * value of SRC replaces DST's when SRC_WINS, and is dropped otherwise. */
static void merge(struct sc_node *dst, struct sc_node *src, bool src_wins) {
  for (size_t i = 0; i < src->n_pairs; i++) {
    struct sc_pair *p = &src->pairs[i];
    struct sc_pair *q = find_pair(dst, p->key);
    if (!q) {
      append_pair(dst, p->key, p->file, p->line, p->col, p->value);
      continue;
    }
    if (q->value->kind == SC_MAP && p->value->kind == SC_MAP) {
      merge(q->value, p->value, src_wins);
    } else if (src_wins) {
      sc_node_free(q->value);
      *q = (struct sc_pair){q->key, p->file, p->line, p->col, p->value};
    } else {
      sc_node_free(p->value);
    }
    g_free(p->key);
  }
  g_free(src->pairs);
  g_free(src->scalar);
  g_free(src);
}

/* ---- YAML events to nodes ---- */

struct rd {
  yaml_parser_t parser;
  const char *file; /* interned */
  const char *text;
  size_t len;
  int col_offset; /* added to columns on line 1 (a --set value) */
  char *err;
};

/* Line and column of byte OFF: reader errors carry an offset, not a mark. */
static void rd_offset_mark(const struct rd *r, size_t off, int *line, int *col) {
  int l = 1, c = 1;
  for (size_t i = 0; i < off && i < r->len; i++) {
    unsigned char b = (unsigned char)r->text[i];
    if (b == '\n') l++, c = 1;
    else if ((b & 0xC0) != 0x80) c++;
  }
  *line = l;
  *col = c + (l == 1 ? r->col_offset : 0);
}

/* A --set value is one line: a mark past its end points just after it. */
static void rd_mark(const struct rd *r, yaml_mark_t m, int *line, int *col) {
  if (r->col_offset > 0 && m.line > 0 && !memchr(r->text, '\n', r->len)) {
    rd_offset_mark(r, r->len, line, col);
    return;
  }
  *line = (int)m.line + 1;
  *col = (int)m.column + 1 + (m.line == 0 ? r->col_offset : 0);
}

static bool rd_fail_yaml(struct rd *r) {
  int line, col;
  if (r->parser.error == YAML_READER_ERROR) rd_offset_mark(r, r->parser.problem_offset, &line, &col);
  else rd_mark(r, r->parser.problem_mark, &line, &col);
  const char *problem = r->parser.problem ? r->parser.problem : "out of memory";
  r->err = msg_at(r->file, line, col, NULL, "invalid YAML: %s", problem);
  return false;
}

static bool rd_next(struct rd *r, yaml_event_t *ev) {
  return yaml_parser_parse(&r->parser, ev) ? true : rd_fail_yaml(r);
}

static bool rd_fail(struct rd *r, yaml_mark_t m, const char *path, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);
static bool rd_fail(struct rd *r, yaml_mark_t m, const char *path, const char *fmt, ...) {
  int line, col;
  rd_mark(r, m, &line, &col);
  va_list ap;
  va_start(ap, fmt);
  r->err = vmsg_at(r->file, line, col, path, fmt, ap);
  va_end(ap);
  return false;
}

/* Anchors, aliases and tags are refused: scenarios are plain data. */
static bool rd_check_plain(struct rd *r, const yaml_event_t *ev, const char *path) {
  const yaml_char_t *anchor = NULL, *tag = NULL;
  if (ev->type == YAML_ALIAS_EVENT)
    return rd_fail(r, ev->start_mark, path,
                   "expected a value (anchors and aliases are not supported), got an alias '*%s'",
                   ev->data.alias.anchor);
  if (ev->type == YAML_SCALAR_EVENT) anchor = ev->data.scalar.anchor, tag = ev->data.scalar.tag;
  if (ev->type == YAML_SEQUENCE_START_EVENT)
    anchor = ev->data.sequence_start.anchor, tag = ev->data.sequence_start.tag;
  if (ev->type == YAML_MAPPING_START_EVENT)
    anchor = ev->data.mapping_start.anchor, tag = ev->data.mapping_start.tag;
  if (anchor)
    return rd_fail(r, ev->start_mark, path,
                   "expected a value (anchors and aliases are not supported), got an anchor '&%s'",
                   anchor);
  if (tag) return rd_fail(r, ev->start_mark, path, "expected a value without a tag, got '%s'", tag);
  return true;
}

static struct sc_node *rd_scalar(struct rd *r, const yaml_event_t *ev, const char *path) {
  const char *v = (const char *)ev->data.scalar.value;
  size_t len = ev->data.scalar.length;
  if (memchr(v, '\0', len)) {
    rd_fail(r, ev->start_mark, path, "expected text, got a NUL character");
    return NULL;
  }
  int line, col;
  rd_mark(r, ev->start_mark, &line, &col);
  struct sc_node *n = new_node(SC_SCALAR, r->file, line, col);
  g_free(n->scalar);
  n->scalar = g_strndup(v, len);
  n->quoted = ev->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
              ev->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE;
  return n;
}

static struct sc_node *rd_node(struct rd *r, yaml_event_t *ev, const char *path, int depth);

/* Reads a map key from KEY_EV (consumed): a plain scalar. */
static char *rd_key(struct rd *r, yaml_event_t *ev, const char *path, int *line, int *col) {
  char *key = NULL;
  rd_mark(r, ev->start_mark, line, col);
  if (ev->type == YAML_MAPPING_START_EVENT || ev->type == YAML_SEQUENCE_START_EVENT)
    rd_fail(r, ev->start_mark, path, "expected a scalar key, got a %s",
            ev->type == YAML_MAPPING_START_EVENT ? "mapping" : "sequence");
  else if (rd_check_plain(r, ev, path)) {
    struct sc_node *n = rd_scalar(r, ev, path);
    if (n) key = g_strdup(n->scalar);
    sc_node_free(n);
  }
  yaml_event_delete(ev);
  return key;
}

/* Reads one key and its value into map M; KEY_EV is consumed. */
static bool rd_entry(struct rd *r, struct sc_node *m, yaml_event_t *key_ev, const char *path,
                     int depth) {
  int line, col;
  char *key = rd_key(r, key_ev, path, &line, &col);
  if (!key) return false;
  char *kpath = child_path(path, key);
  const struct sc_pair *dup = find_pair(m, key);
  struct sc_node *v = NULL;
  yaml_event_t ev;
  if (dup)
    r->err = msg_at(r->file, line, col, kpath,
                    "expected each key once in a mapping, got '%s' again (first on line %d)", key,
                    dup->line);
  else if (rd_next(r, &ev))
    v = rd_node(r, &ev, kpath, depth + 1);
  g_free(kpath);
  if (!v) {
    g_free(key);
    return false;
  }
  append_pair(m, key, r->file, line, col, v);
  return true;
}

static struct sc_node *rd_map(struct rd *r, struct sc_node *m, const char *path, int depth) {
  for (;;) {
    yaml_event_t ev;
    if (!rd_next(r, &ev)) break;
    if (ev.type == YAML_MAPPING_END_EVENT) {
      yaml_event_delete(&ev);
      return m;
    }
    if (!rd_entry(r, m, &ev, path, depth)) break;
  }
  sc_node_free(m);
  return NULL;
}

static struct sc_node *rd_seq(struct rd *r, struct sc_node *s, const char *path, int depth) {
  for (;;) {
    yaml_event_t ev;
    if (!rd_next(r, &ev)) break;
    if (ev.type == YAML_SEQUENCE_END_EVENT) {
      yaml_event_delete(&ev);
      return s;
    }
    char *ipath = g_strdup_printf("%s[%zu]", path && *path ? path : "", s->n_items);
    struct sc_node *item = rd_node(r, &ev, ipath, depth + 1);
    g_free(ipath);
    if (!item) break;
    s->items = g_renew(struct sc_node *, s->items, s->n_items + 1);
    s->items[s->n_items++] = item;
  }
  sc_node_free(s);
  return NULL;
}

/* Builds the node that starts with EV (consumed) and everything under it. */
static struct sc_node *rd_node(struct rd *r, yaml_event_t *ev, const char *path, int depth) {
  struct sc_node *n = NULL;
  int line, col;
  rd_mark(r, ev->start_mark, &line, &col);
  if (depth > SC_MAX_DEPTH)
    rd_fail(r, ev->start_mark, path, "expected at most %d levels of nesting, got more",
            SC_MAX_DEPTH);
  else if (!rd_check_plain(r, ev, path))
    n = NULL;
  else if (ev->type == YAML_SCALAR_EVENT)
    n = rd_scalar(r, ev, path);
  else if (ev->type == YAML_MAPPING_START_EVENT)
    n = new_node(SC_MAP, r->file, line, col);
  else if (ev->type == YAML_SEQUENCE_START_EVENT)
    n = new_node(SC_SEQ, r->file, line, col);
  else
    rd_fail(r, ev->start_mark, path, "expected a value, got a YAML event of type %d", ev->type);
  yaml_event_type_t type = ev->type;
  yaml_event_delete(ev);
  if (n && type == YAML_MAPPING_START_EVENT) return rd_map(r, n, path, depth);
  if (n && type == YAML_SEQUENCE_START_EVENT) return rd_seq(r, n, path, depth);
  return n;
}

/* Reads the stream: nothing (*OUT = NULL) or exactly one document. */
static bool rd_stream(struct rd *r, struct sc_node **out) {
  yaml_event_t ev;
  if (!rd_next(r, &ev)) return false; /* stream start */
  yaml_event_delete(&ev);
  if (!rd_next(r, &ev)) return false;
  bool empty = ev.type == YAML_STREAM_END_EVENT;
  yaml_event_delete(&ev); /* document start */
  if (empty) return true;
  if (!rd_next(r, &ev)) return false;
  struct sc_node *root = rd_node(r, &ev, NULL, 0);
  if (root && rd_next(r, &ev)) { /* document end */
    yaml_event_delete(&ev);
    if (rd_next(r, &ev)) {
      if (ev.type == YAML_STREAM_END_EVENT) *out = root;
      else rd_fail(r, ev.start_mark, NULL, "expected one YAML document, got a second one");
      yaml_event_delete(&ev);
    }
  }
  if (!*out) sc_node_free(root);
  return *out != NULL;
}

/* Parses TEXT (LEN bytes, may hold NULs) named FILE; *OUT is NULL for an
 * empty stream. */
static bool parse_text(const char *text, size_t len, const char *file, int col_offset,
                       struct sc_node **out, char **err) {
  struct rd r = {.file = file, .text = text, .len = len, .col_offset = col_offset};
  *out = NULL;
  if (!yaml_parser_initialize(&r.parser)) {
    *err = msg_at(file, 1, 1, NULL, "invalid YAML: out of memory");
    return false;
  }
  yaml_parser_set_input_string(&r.parser, (const unsigned char *)text, len);
  bool ok = rd_stream(&r, out);
  yaml_parser_delete(&r.parser);
  if (!ok) *err = r.err;
  else g_free(r.err);
  return ok;
}

struct sc_node *sc_load_string(const char *text, const char *source, char **err) {
  const char *file = g_intern_string(source);
  struct sc_node *n = NULL;
  if (!parse_text(text, strlen(text), file, 0, &n, err)) return NULL;
  return n ? n : new_node(SC_SCALAR, file, 1, 1);
}

/* ---- files and includes ---- */

struct chain {
  GPtrArray *real;  /* identities of the files being read (g_free) */
  GPtrArray *names; /* the same as opened (interned) */
};

/* Reads PATH whole; on failure returns false with the errno in *ERRNUM. */
/* "device:inode" names a file however the path to it is spelled; NULL with
 * errno set when it cannot be read. */
static char *file_identity(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return NULL;
  return g_strdup_printf("%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
}

static char *read_error(const char *file, const struct sc_node *inc, const char *why) {
  if (!inc) return one_line(g_strdup_printf("%s: cannot read: %s", file, why));
  return sc_error_at(inc, "include", "expected a readable file, got '%s' (%s)", inc->scalar, why);
}

static char *cycle_error(const struct chain *c, const char *real, const char *file,
                         const struct sc_node *inc) {
  guint k = 0;
  while (strcmp(c->real->pdata[k], real)) k++;
  GString *s = g_string_new(NULL);
  for (; k < c->names->len; k++) g_string_append_printf(s, "%s -> ", (char *)c->names->pdata[k]);
  g_string_append(s, file);
  char *msg = sc_error_at(inc, "include", "expected no include cycle, got %s", s->str);
  g_string_free(s, TRUE);
  return msg;
}

static bool in_chain(const struct chain *c, const char *real) {
  for (guint i = 0; i < c->real->len; i++)
    if (!strcmp(c->real->pdata[i], real)) return true;
  return false;
}

/* A file's document must be a mapping. */
static bool check_top(const char *file, const struct sc_node *root, bool main, char **err) {
  const char *want = main ? "a mapping with a 'workload' key" : "a mapping";
  if (!root || is_null(root)) {
    *err = msg_at(file, 1, 1, NULL, "expected %s, got an empty file", want);
    return false;
  }
  if (root->kind == SC_MAP) return true;
  char *got = describe(root);
  *err = sc_error_at(root, NULL, "expected %s, got %s", want, got);
  g_free(got);
  return false;
}

static struct sc_node *load_tree(const char *path, const struct sc_node *inc, struct chain *c,
                                 char **err);

/* The include value's file names: a string or a list of strings. */
static bool include_items(const struct sc_node *inc, GPtrArray *items, char **err) {
  if (inc->kind == SC_SCALAR) g_ptr_array_add(items, (gpointer)inc);
  for (size_t i = 0; inc->kind == SC_SEQ && i < inc->n_items; i++)
    g_ptr_array_add(items, inc->items[i]);
  const struct sc_node *bad = inc->kind == SC_MAP ? inc : NULL;
  for (guint i = 0; !bad && i < items->len; i++) {
    const struct sc_node *n = items->pdata[i];
    if (n->kind != SC_SCALAR || !*n->scalar) bad = n;
  }
  if (!bad) return true;
  char *got = describe(bad);
  *err = sc_error_at(bad, "include", "expected a file name or a list of file names, got %s", got);
  g_free(got);
  return false;
}

/* Replaces ROOT's `include:` by the included files' contents, ROOT's own
 * keys winning, later includes winning over earlier ones. */
static bool expand_includes(struct sc_node *root, const char *path, struct chain *c, char **err) {
  struct sc_node *inc = take_key(root, "include");
  if (!inc) return true;
  GPtrArray *items = g_ptr_array_new();
  bool ok = include_items(inc, items, err);
  struct sc_node *all = new_node(SC_MAP, root->file, root->line, root->col);
  for (guint i = 0; ok && i < items->len; i++) {
    const struct sc_node *item = items->pdata[i];
    char *ipath = in_path_beside(path, item->scalar);
    struct sc_node *sub = load_tree(ipath, item, c, err);
    g_free(ipath);
    if (sub) merge(all, sub, true);
    ok = sub != NULL;
  }
  merge(root, all, false);
  g_ptr_array_free(items, TRUE);
  sc_node_free(inc);
  return ok;
}

/* Parses PATH (named from include node INC, or the main file when NULL) and
 * expands its includes. */
static struct sc_node *load_tree(const char *path, const struct sc_node *inc, struct chain *c,
                                 char **err) {
  const char *file = g_intern_string(path);
  char *real = file_identity(path);
  char *why = real ? NULL : g_strdup(g_strerror(errno));
  char *text = NULL;
  size_t len = 0;
  struct sc_node *root = NULL;
  bool ok = false;
  if (!real || !in_read_regular(path, IN_MAX_SCENARIO_BYTES, &text, &len, &why))
    *err = read_error(file, inc, why);
  else if (in_chain(c, real)) *err = cycle_error(c, real, file, inc);
  else ok = parse_text(text, len, file, 0, &root, err) && check_top(file, root, !inc, err);
  if (ok) {
    g_ptr_array_add(c->real, g_strdup(real));
    g_ptr_array_add(c->names, (gpointer)file);
    ok = expand_includes(root, path, c, err);
    g_ptr_array_remove_index(c->real, c->real->len - 1);
    g_ptr_array_remove_index(c->names, c->names->len - 1);
  }
  g_free(real);
  g_free(why);
  g_free(text);
  if (ok) return root;
  sc_node_free(root);
  return NULL;
}

struct sc_node *sc_load_file(const char *path, char **err) {
  struct chain c = {g_ptr_array_new_with_free_func(g_free), g_ptr_array_new()};
  struct sc_node *root = load_tree(path, NULL, &c, err);
  g_ptr_array_free(c.real, TRUE);
  g_ptr_array_free(c.names, TRUE);
  return root;
}

/* ---- assignments: --set and overrides ---- */

/* The components of a dotted path, or NULL when one is empty (g_strfreev). */
static char **split_path(const char *text, size_t len) {
  char *p = g_strstrip(g_strndup(text, len));
  char **comps = g_strsplit(p, ".", -1);
  bool ok = *p != '\0';
  for (char **c = comps; ok && *c; c++) ok = **c != '\0';
  g_free(p);
  if (ok) return comps;
  g_strfreev(comps);
  return NULL;
}

/* Puts VALUE (consumed) at COMPS under map ROOT, creating maps on the way;
 * FILE, LINE, COL mark the assignment. */
static bool put_path(struct sc_node *root, char **comps, struct sc_node *value, const char *file,
                     int line, int col, char **err) {
  struct sc_node *cur = root;
  char *path = g_strdup(comps[0]);
  bool ok = true;
  for (size_t i = 0; ok && comps[i + 1]; i++) {
    struct sc_pair *p = find_pair(cur, comps[i]);
    if (p && p->value->kind != SC_MAP) {
      char *got = describe(p->value);
      *err = msg_at(file, line, col, path, "expected a mapping to set '%s' in, got %s",
                    comps[i + 1], got);
      g_free(got);
      ok = false;
      break;
    }
    if (!p) {
      struct sc_node *m = new_node(SC_MAP, file, line, col);
      append_pair(cur, g_strdup(comps[i]), file, line, col, m);
      cur = m;
    } else {
      cur = p->value;
    }
    char *next = child_path(path, comps[i + 1]);
    g_free(path);
    path = next;
  }
  g_free(path);
  if (!ok) {
    sc_node_free(value);
    return false;
  }
  struct sc_node *wrap = new_node(SC_MAP, file, line, col);
  append_pair(wrap, g_strdup(comps[g_strv_length(comps) - 1]), file, line, col, value);
  merge(cur, wrap, true);
  return true;
}

bool sc_apply_set(struct sc_node *root, const char *assignment, char **err) {
  const char *src = g_intern_string("--set");
  const char *eq = strchr(assignment, '=');
  char **comps = eq ? split_path(assignment, (size_t)(eq - assignment)) : NULL;
  if (comps && (!root || root->kind != SC_MAP)) {
    *err = sc_error_expected(root, NULL, "a mapping to assign into");
    g_strfreev(comps);
    return false;
  }
  if (!comps) {
    *err = msg_at(src, 1, 1, NULL, "expected path=value, got '%s'", assignment);
    g_strfreev(comps);
    return false;
  }
  int off = (int)(eq - assignment) + 1;
  struct sc_node *value = NULL;
  bool ok = parse_text(eq + 1, strlen(eq + 1), src, off, &value, err);
  if (ok && !value) value = new_node(SC_SCALAR, src, 1, off + 1);
  ok = ok && put_path(root, comps, value, src, 1, 1, err);
  g_strfreev(comps);
  return ok;
}

bool sc_put(struct sc_node *root, const char *path, struct sc_node *value,
            const struct sc_node *at, char **err) {
  char **comps = split_path(path, strlen(path));
  if (!comps || !root || root->kind != SC_MAP) {
    *err = sc_error_at(at, path, "expected a dotted parameter path, got '%s'", path);
    g_strfreev(comps);
    sc_node_free(value);
    return false;
  }
  bool ok = put_path(root, comps, value, at->file, at->line, at->col, err);
  g_strfreev(comps);
  return ok;
}

/* Applies the map OV (consumed) of dotted paths to values onto ROOT. */
static bool apply_overrides(struct sc_node *root, struct sc_node *ov, char **err) {
  bool ok = true;
  if (ov->kind != SC_MAP) {
    char *got = describe(ov);
    *err = sc_error_at(ov, "overrides", "expected a mapping of dotted paths to values, got %s", got);
    g_free(got);
    ok = false;
  }
  for (size_t i = 0; ok && i < ov->n_pairs; i++) {
    struct sc_pair *p = &ov->pairs[i];
    char **comps = split_path(p->key, strlen(p->key));
    char *kpath = child_path("overrides", p->key);
    if (!comps)
      *err = msg_at(p->file, p->line, p->col, kpath, "expected a dotted parameter path, got '%s'",
                    p->key);
    ok = comps && put_path(root, comps, p->value, p->file, p->line, p->col, err);
    if (comps) p->value = NULL;
    g_strfreev(comps);
    g_free(kpath);
  }
  sc_node_free(ov);
  return ok;
}

/* The file's overrides, then the command line's sets. */
static bool apply_assignments(struct sc_node *root, const char *const *sets, size_t n_sets,
                              char **err) {
  struct sc_node *ov = take_key(root, "overrides");
  if (ov && !apply_overrides(root, ov, err)) return false;
  for (size_t i = 0; i < n_sets; i++)
    if (!sc_apply_set(root, sets[i], err)) return false;
  return true;
}

/* ---- binding ---- */

static char *unknown_param(const struct sc_pair *p, const char *kpath, const struct par_group *g) {
  char *hint = hint_text(par_group_suggest(g, p->key));
  char *msg = msg_at(p->file, p->line, p->col, kpath, "expected a parameter of %s%s, got '%s'",
                     g->name, hint, p->key);
  g_free(hint);
  return msg;
}

static bool bind_pair(const struct sc_pair *p, const char *path, const struct par_group *g,
                      void *config, char **err) {
  char *kpath = child_path(path, p->key);
  const struct par_decl *d = par_group_find(g, p->key);
  bool ok = false;
  if (!d) {
    *err = unknown_param(p, kpath, g);
  } else if (d->type == PAR_TREE && p->value->kind != SC_SCALAR) {
    *(const void **)((char *)config + d->offset) = p->value;
    ok = true;
  } else if (p->value->kind != SC_SCALAR) {
    char *want = par_expected(d), *got = describe(p->value);
    *err = sc_error_at(p->value, kpath, "expected %s, got %s", want, got);
    g_free(want);
    g_free(got);
  } else {
    char *e = NULL;
    ok = par_set(d, config, p->value->scalar, &e);
    if (!ok) *err = sc_error_at(p->value, kpath, "%s", e ? e : "expected a valid value");
    g_free(e);
  }
  g_free(kpath);
  return ok;
}

bool sc_bind_group(const struct sc_node *m, const char *path, const struct par_group *g,
                   const char *skip_key, void *config, char **err) {
  par_group_defaults(g, config);
  if (!m || is_null(m)) return true;
  if (m->kind != SC_MAP) {
    char *got = describe(m);
    *err = sc_error_at(m, path, "expected a mapping of %s parameters, got %s", g->name, got);
    g_free(got);
    return false;
  }
  for (size_t i = 0; i < m->n_pairs; i++) {
    if (skip_key && !strcmp(m->pairs[i].key, skip_key)) continue;
    if (!bind_pair(&m->pairs[i], path, g, config, err)) return false;
  }
  char *why = NULL;
  if (g->check && !g->check(config, &why)) {
    *err = sc_error_at(m, path, "%s", why);
    g_free(why);
    return false;
  }
  return true;
}

/* ---- the scenario ---- */

/* Index of NAME among N names, or -1. */
static long name_index(const char *name, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return (long)i;
  return -1;
}

static const char **group_names(const struct par_group *const *groups, size_t n) {
  const char **names = g_new0(const char *, n + 1);
  for (size_t i = 0; i < n; i++) names[i] = groups[i]->name;
  return names;
}

/* "expected WHAT (did you mean 'x'?), got 'name'", or with the list of
 * NAMES when none is close. */
static char *unknown_name(const char *file, int line, int col, const char *path, const char *what,
                          const char *name, const char *const *names, size_t n) {
  const char *hint = par_suggest(name, names, n);
  GString *list = g_string_new(NULL);
  for (size_t i = 0; i < n; i++) g_string_append_printf(list, "%s%s", i ? ", " : "", names[i]);
  char *extra = hint ? g_strdup_printf("did you mean '%s'?", hint)
                     : g_strdup_printf("one of %s", list->str);
  char *msg = msg_at(file, line, col, path, "expected %s (%s), got '%s'", what, extra, name);
  g_string_free(list, TRUE);
  g_free(extra);
  return msg;
}

static bool check_top_keys(const struct sc_node *root, char **err) {
  for (size_t i = 0; i < root->n_pairs; i++) {
    const struct sc_pair *p = &root->pairs[i];
    if (!strcmp(p->key, "include") || !strcmp(p->key, "overrides")) {
      *err = msg_at(p->file, p->line, p->col, p->key,
                    "expected a parameter path (not include or overrides), got '%s'", p->key);
      return false;
    }
    if (name_index(p->key, top_keys, G_N_ELEMENTS(top_keys)) >= 0) continue;
    *err = unknown_name(p->file, p->line, p->col, p->key, "a top-level key", p->key, top_keys,
                        G_N_ELEMENTS(top_keys));
    return false;
  }
  return true;
}

static bool load_name(struct scenario *s, char **err) {
  const struct sc_node *n = sc_map_get(s->root, "name");
  if (n && (n->kind != SC_SCALAR || !*n->scalar)) {
    *err = sc_error_expected(n, "name", "a non-empty name");
    return false;
  }
  if (n) {
    s->name = g_strdup(n->scalar);
    return true;
  }
  s->name = g_path_get_basename(s->path);
  char *dot = strrchr(s->name, '.');
  if (dot && dot != s->name) *dot = '\0';
  return true;
}

static bool load_seed(struct scenario *s, char **err) {
  const struct sc_node *n = sc_map_get(s->root, "seed");
  if (!n) return true;
  bool digits = n->kind == SC_SCALAR && *n->scalar;
  for (const char *c = digits ? n->scalar : ""; *c; c++) digits = digits && g_ascii_isdigit(*c);
  if (!digits) {
    *err = sc_error_expected(n, "seed", "a non-negative integer");
    return false;
  }
  errno = 0;
  s->seed = g_ascii_strtoull(n->scalar, NULL, 10);
  if (errno == ERANGE) {
    *err = sc_error_expected(n, "seed", "a non-negative integer of at most 18446744073709551615");
    return false;
  }
  return true;
}

static bool check_hardware_names(const struct sc_node *hw, const struct sc_catalog *cat,
                                 char **err) {
  const char **names = group_names(cat->hardware, cat->n_hardware);
  bool ok = true;
  for (size_t i = 0; ok && i < hw->n_pairs; i++) {
    const struct sc_pair *p = &hw->pairs[i];
    if (name_index(p->key, names, cat->n_hardware) >= 0) continue;
    char *path = child_path("hardware", p->key);
    *err = unknown_name(p->file, p->line, p->col, path, "a hardware group", p->key, names,
                        cat->n_hardware);
    g_free(path);
    ok = false;
  }
  g_free(names);
  return ok;
}

static bool load_hardware(struct scenario *s, char **err) {
  const struct sc_catalog *cat = s->catalog;
  const struct sc_node *hw = sc_map_get(s->root, "hardware");
  if (hw && !is_null(hw) && hw->kind != SC_MAP) {
    *err = sc_error_expected(hw, "hardware", "a mapping of hardware groups");
    return false;
  }
  if (hw && hw->kind == SC_MAP && !check_hardware_names(hw, cat, err)) return false;
  for (size_t i = 0; i < cat->n_hardware; i++) {
    const struct par_group *g = cat->hardware[i];
    char *path = child_path("hardware", g->name);
    s->hardware[i] = g_malloc0(g->config_size);
    bool ok = sc_bind_group(sc_map_get(hw, g->name), path, g, NULL, s->hardware[i], err);
    g_free(path);
    if (!ok) return false;
  }
  return true;
}

/* Finds the catalog workload named by workload.kind of W. */
static bool find_workload(const struct scenario *s, const struct sc_node *w, size_t *idx,
                          char **err) {
  const struct sc_catalog *cat = s->catalog;
  const struct sc_node *kind = sc_map_get(w, "kind");
  const char **names = group_names(cat->workloads, cat->n_workloads);
  char *list = g_strjoinv(", ", (char **)names);
  long i = kind && kind->kind == SC_SCALAR ? name_index(kind->scalar, names, cat->n_workloads) : -1;
  char *want = g_strdup_printf("a workload kind (one of %s)", list);
  if (!kind) *err = sc_error_at(w, "workload.kind", "expected %s, got nothing", want);
  else if (kind->kind != SC_SCALAR || !*kind->scalar) *err = sc_error_expected(kind, "workload.kind", want);
  else if (i < 0)
    *err = unknown_name(kind->file, kind->line, kind->col, "workload.kind", "a workload kind",
                        kind->scalar, names, cat->n_workloads);
  g_free(want);
  g_free(list);
  g_free(names);
  *idx = (size_t)i;
  return i >= 0;
}

static bool load_workload(struct scenario *s, char **err) {
  const struct sc_node *w = sc_map_get(s->root, "workload");
  if (!w) {
    *err = msg_at(s->root->file, 1, 1, "workload",
                  "expected a 'workload' mapping with a 'kind', got nothing");
    return false;
  }
  if (w->kind != SC_MAP) {
    *err = sc_error_expected(w, "workload", "a mapping with a 'kind'");
    return false;
  }
  size_t idx;
  if (!find_workload(s, w, &idx, err)) return false;
  const struct par_group *g = s->catalog->workloads[idx];
  s->workload = idx;
  s->workload_config = g_malloc0(g->config_size);
  return sc_bind_group(w, "workload", g, "kind", s->workload_config, err);
}

static bool add_policy(struct scenario *s, const struct sc_node *n, char **err) {
  size_t n_can;
  const char *const *can = s->catalog->policies(&n_can);
  if (n->kind != SC_SCALAR || !*n->scalar) {
    *err = sc_error_expected(n, "policies", "a policy name");
    return false;
  }
  if (name_index(n->scalar, can, n_can) < 0) {
    *err = unknown_name(n->file, n->line, n->col, "policies", "a policy", n->scalar, can, n_can);
    return false;
  }
  if (name_index(n->scalar, (const char *const *)s->policies, s->n_policies) >= 0) {
    *err = sc_error_at(n, "policies", "expected each policy once, got '%s' again", n->scalar);
    return false;
  }
  s->policies[s->n_policies++] = g_strdup(n->scalar);
  return true;
}

static bool load_policies(struct scenario *s, char **err) {
  const struct sc_node *n = sc_map_get(s->root, "policies");
  const struct sc_catalog *cat = s->catalog;
  if (!n) {
    size_t n_can;
    const char *const *can = cat->policies(&n_can);
    s->policies = g_new0(char *, 2);
    const char *def = cat->default_policy ? cat->default_policy(s->workload) : NULL;
    if (!def && n_can) def = can[0];
    s->policies[0] = g_strdup(def);
    s->n_policies = n_can ? 1 : 0;
    return true;
  }
  if (n->kind == SC_MAP || (n->kind == SC_SEQ && !n->n_items)) {
    *err = sc_error_expected(n, "policies", "a list of policy names");
    return false;
  }
  s->policies = g_new0(char *, n->kind == SC_SEQ ? n->n_items + 1 : 2);
  if (n->kind == SC_SCALAR) return add_policy(s, n, err);
  for (size_t i = 0; i < n->n_items; i++)
    if (!add_policy(s, n->items[i], err)) return false;
  return true;
}

struct sc_node *sc_load_scenario_tree(const char *path, const char *const *sets, size_t n_sets,
                                      char **err) {
  struct sc_node *root = sc_load_file(path, err);
  if (root && !apply_assignments(root, sets, n_sets, err)) {
    sc_node_free(root);
    root = NULL;
  }
  return root;
}

/* sc_attachment's table: key -> value, each freed by its own function. */
struct sc_attached {
  GMutex lock;
  GHashTable *values; /* char * -> struct sc_value */
};

struct sc_value {
  void *data;
  void (*free_fn)(void *data);
};

static void value_free(gpointer p) {
  struct sc_value *v = p;
  if (v->free_fn) v->free_fn(v->data);
  g_free(v);
}

void *sc_attachment(const struct scenario *sc, const char *key, void *(*make)(void *arg, char **err),
                    void *arg, void (*free_fn)(void *data), char **err) {
  /* The table is made with the scenario (scenario_from_tree): a cache
   * that changes nothing a reader of the scenario sees. */
  struct sc_attached *a = sc->attached;
  g_mutex_lock(&a->lock);
  struct sc_value *v = g_hash_table_lookup(a->values, key);
  void *data = v ? v->data : make(arg, err);
  if (!v && data) {
    v = g_new(struct sc_value, 1);
    *v = (struct sc_value){data, free_fn};
    g_hash_table_insert(a->values, g_strdup(key), v);
  }
  g_mutex_unlock(&a->lock);
  return data;
}

struct scenario *scenario_from_tree(struct sc_node *root, const char *path,
                                    const struct sc_catalog *cat, char **err) {
  struct scenario *s = g_new0(struct scenario, 1);
  s->path = g_strdup(path);
  s->seed = 1;
  s->catalog = cat;
  s->hardware = g_new0(void *, cat->n_hardware + 1);
  s->root = root;
  s->attached = g_new0(struct sc_attached, 1);
  g_mutex_init(&s->attached->lock);
  s->attached->values = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, value_free);
  bool ok = check_top_keys(s->root, err) && load_name(s, err) && load_seed(s, err) &&
            load_hardware(s, err) && load_workload(s, err) && load_policies(s, err);
  if (ok) return s;
  scenario_free(s);
  return NULL;
}

struct scenario *scenario_load(const char *path, const char *const *sets, size_t n_sets,
                               const struct sc_catalog *cat, char **err) {
  struct sc_node *root = sc_load_scenario_tree(path, sets, n_sets, err);
  return root ? scenario_from_tree(root, path, cat, err) : NULL;
}

void scenario_free(struct scenario *s) {
  if (!s) return;
  if (s->attached) {
    g_hash_table_destroy(s->attached->values);
    g_mutex_clear(&s->attached->lock);
    g_free(s->attached);
  }
  for (size_t i = 0; s->hardware && i < s->catalog->n_hardware; i++) {
    if (!s->hardware[i]) continue;
    par_group_free_config(s->catalog->hardware[i], s->hardware[i]);
    g_free(s->hardware[i]);
  }
  if (s->workload_config) {
    par_group_free_config(s->catalog->workloads[s->workload], s->workload_config);
    g_free(s->workload_config);
  }
  g_strfreev(s->policies);
  g_free(s->hardware);
  g_free(s->name);
  g_free(s->path);
  sc_node_free(s->root);
  g_free(s);
}

const void *sc_hardware(const struct scenario *s, const struct par_group *g) {
  for (size_t i = 0; i < s->catalog->n_hardware; i++)
    if (s->catalog->hardware[i] == g) return s->hardware[i];
  g_error("sc_hardware: %s is not a hardware group of the catalog", g->name);
}

/* ---- the resolved configuration ---- */

static void add_setting(GArray *out, char *path, const char *value, const struct sc_node *n) {
  struct sc_setting st = {.path = path, .value = g_strdup(value ? value : "")};
  if (!n) st.origin = g_strdup("default");
  else if (n->file == g_intern_string("--set")) st.origin = g_strdup("--set");
  else st.origin = g_strdup_printf("%s:%d:%d", n->file, n->line, n->col);
  g_array_append_val(out, st);
}

/* Each declaration of G at PATH, from map M (may be NULL). */
static void add_group(GArray *out, const char *path, const struct par_group *g,
                      const struct sc_node *m) {
  for (size_t i = 0; i < g->n_decls; i++) {
    const struct par_decl *d = &g->decls[i];
    const struct sc_node *v = sc_map_get(m, d->key);
    bool given = v && v->kind == SC_SCALAR;
    add_setting(out, g_strdup_printf("%s.%s", path, d->key), given ? v->scalar : d->def,
                given ? v : NULL);
  }
}

struct sc_setting *sc_resolve(const struct scenario *s, size_t *n) {
  GArray *out = g_array_new(FALSE, TRUE, sizeof(struct sc_setting));
  const struct sc_node *root = s->root;
  add_setting(out, g_strdup("name"), s->name, sc_map_get(root, "name"));
  char seed[32];
  g_snprintf(seed, sizeof seed, "%" G_GUINT64_FORMAT, s->seed);
  add_setting(out, g_strdup("seed"), seed, sc_map_get(root, "seed"));
  char *pols = g_strjoinv(", ", s->policies);
  add_setting(out, g_strdup("policies"), pols, sc_map_get(root, "policies"));
  g_free(pols);
  const struct sc_node *w = sc_map_get(root, "workload");
  const struct par_group *wg = s->catalog->workloads[s->workload];
  add_setting(out, g_strdup("workload.kind"), wg->name, sc_map_get(w, "kind"));
  add_group(out, "workload", wg, w);
  const struct sc_node *hw = sc_map_get(root, "hardware");
  for (size_t i = 0; i < s->catalog->n_hardware; i++) {
    const struct par_group *g = s->catalog->hardware[i];
    char *path = g_strdup_printf("hardware.%s", g->name);
    add_group(out, path, g, sc_map_get(hw, g->name));
    g_free(path);
  }
  *n = out->len;
  return (struct sc_setting *)(void *)g_array_free(out, FALSE);
}

void sc_settings_free(struct sc_setting *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    g_free(v[i].path);
    g_free(v[i].value);
    g_free(v[i].origin);
  }
  g_free(v);
}
