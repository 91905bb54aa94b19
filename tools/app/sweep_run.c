/* The sweep runner (see sweep_run.h): thread pool, journal, resume,
 * interruption and progress. Journal: a header line
 * "trigsim-sweep-journal 3 FINGERPRINT N_POINTS", then one line per finished
 * point, each written by one append; a line cut short by a kill is dropped
 * (and cut from the file) when the journal is read back. A point's entries
 * carry their declaration (version 2), so a resumed point's counters read
 * as a live run's; each run its policy's own end and critical path
 * (version 3); a journal of another version starts afresh. */
#include "sweep_run.h"

#include "workload.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define JOURNAL_MAGIC "trigsim-sweep-journal 3"

/* Set by SIGINT/SIGTERM while a sweep runs; checked between points. */
static volatile sig_atomic_t swr_stop;

static void on_signal(int sig) {
  (void)sig;
  swr_stop = 1;
}

/* ---- encoding ---- */

/* An entry's declaration travels as "GROUP:KEY" (wl_outputs), "-" for none:
 * both ways, built once. */
static GHashTable *decl_names, *decl_by_name;

static void decl_tables(void) {
  static gsize once;
  if (!g_once_init_enter(&once)) return;
  decl_names = g_hash_table_new_full(NULL, NULL, NULL, g_free);
  decl_by_name = g_hash_table_new(g_str_hash, g_str_equal);
  size_t n;
  const struct sim_outputs *const *g = wl_outputs(&n);
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < g[i]->n_decls; k++) {
      char *name = g_strdup_printf("%s:%s", g[i]->name, g[i]->decls[k].key);
      g_hash_table_insert(decl_names, (gpointer)&g[i]->decls[k], name);
      g_hash_table_insert(decl_by_name, name, (gpointer)&g[i]->decls[k]);
    }
  g_once_init_leave(&once, 1);
}

static void put_report(GString *s, const struct sim_report *r) {
  decl_tables();
  g_string_append_printf(s, "\t%zu", r->n);
  for (size_t k = 0; k < r->n; k++) {
    const struct sim_report_entry *en = &r->entries[k];
    const char *decl = en->decl ? g_hash_table_lookup(decl_names, en->decl) : "-";
    g_assert(decl); /* every declaration is in a group of wl_outputs */
    g_string_append_printf(s, "\t%s", decl);
    char *key = g_strescape(en->key, NULL);
    if (en->is_real) {
      uint64_t bits;
      memcpy(&bits, &en->d, sizeof bits);
      g_string_append_printf(s, "\t%s\t%d\tr\t%016" PRIx64, key, (int)en->dim, bits);
    } else {
      g_string_append_printf(s, "\t%s\t%d\ti\t%" PRId64, key, (int)en->dim, en->i);
    }
    g_free(key);
  }
}

char *swr_encode(size_t point, const struct sim_result *runs, size_t n_runs) {
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "P\t%zu\t%zu", point, n_runs);
  for (size_t i = 0; i < n_runs; i++) {
    char *pol = g_strescape(runs[i].policy, NULL);
    char *end = g_strescape(runs[i].cp_end ? runs[i].cp_end : "", NULL);
    g_string_append_printf(s, "\t%s\t%" PRId64 "\t%" PRId64 "\t%" PRIu64 "\t%s", pol,
                           runs[i].total_ps, runs[i].policy_end_ps, runs[i].events, end);
    g_free(pol);
    g_free(end);
    put_report(s, &runs[i].cp);
    put_report(s, &runs[i].phases);
    put_report(s, &runs[i].counters);
  }
  g_string_append(s, "\tE\n");
  return g_string_free(s, FALSE);
}

struct fields {
  char **f;
  size_t n, at;
};

static const char *next_field(struct fields *fs) { return fs->at < fs->n ? fs->f[fs->at++] : NULL; }

static bool next_u64(struct fields *fs, guint64 max, guint64 *v) {
  const char *t = next_field(fs);
  return t && g_ascii_string_to_unsigned(t, 10, 0, max, v, NULL);
}

static bool next_i64(struct fields *fs, gint64 *v) {
  const char *t = next_field(fs);
  return t && g_ascii_string_to_signed(t, 10, G_MININT64, G_MAXINT64, v, NULL);
}

static bool get_report(struct fields *fs, struct sim_report *r) {
  decl_tables();
  guint64 n = 0, dim = 0;
  if (!next_u64(fs, 1u << 24, &n)) return false;
  for (guint64 k = 0; k < n; k++) {
    const char *dname = next_field(fs);
    const struct sim_out_decl *decl = NULL;
    if (!dname || (strcmp(dname, "-") && !(decl = g_hash_table_lookup(decl_by_name, dname))))
      return false; /* a declaration this program no longer has: run the point again */
    const char *key = next_field(fs);
    if (!key || !next_u64(fs, UNIT_FREQ, &dim)) return false;
    const char *kind = next_field(fs), *val = next_field(fs);
    if (!kind || !val) return false;
    char *ukey = g_strcompress(key);
    if (!strcmp(kind, "r")) {
      guint64 bits;
      double d;
      bool ok = g_ascii_string_to_unsigned(val, 16, 0, G_MAXUINT64, &bits, NULL);
      memcpy(&d, &bits, sizeof d);
      if (ok) sim_report_real(r, ukey, d);
      g_free(ukey);
      if (!ok) return false;
      r->entries[r->n - 1].dim = (enum unit_dim)dim;
      r->entries[r->n - 1].decl = decl;
    } else {
      gint64 i;
      bool ok = !strcmp(kind, "i") && g_ascii_string_to_signed(val, 10, G_MININT64, G_MAXINT64, &i, NULL);
      if (ok) sim_report_int(r, ukey, (enum unit_dim)dim, i);
      g_free(ukey);
      if (!ok) return false;
      r->entries[r->n - 1].decl = decl;
    }
  }
  return true;
}

bool swr_decode(const char *line, size_t *point, struct sim_result **runs, size_t *n_runs) {
  size_t len = strlen(line);
  if (!len || line[len - 1] != '\n') return false;
  char *copy = g_strndup(line, len - 1);
  struct fields fs = {g_strsplit(copy, "\t", -1), 0, 0};
  fs.n = g_strv_length(fs.f);
  g_free(copy);
  guint64 p = 0, n = 0;
  const char *tag = next_field(&fs);
  bool ok = tag && !strcmp(tag, "P") && next_u64(&fs, G_MAXSIZE, &p) && next_u64(&fs, 1u << 20, &n);
  struct sim_result *r = ok ? g_new0(struct sim_result, n ? n : 1) : NULL;
  size_t done = 0;
  for (; ok && done < n; done++) {
    const char *pol = next_field(&fs);
    gint64 total = 0, policy_end = 0;
    guint64 events = 0;
    ok = pol != NULL;
    char *upol = ok ? g_strcompress(pol) : NULL;
    sim_result_init(&r[done], upol ? upol : "");
    g_free(upol);
    ok = ok && next_i64(&fs, &total) && next_i64(&fs, &policy_end) &&
         next_u64(&fs, G_MAXUINT64, &events);
    const char *end = ok ? next_field(&fs) : NULL;
    ok = ok && end;
    if (ok && *end) r[done].cp_end = g_strcompress(end);
    ok = ok && get_report(&fs, &r[done].cp) && get_report(&fs, &r[done].phases) &&
         get_report(&fs, &r[done].counters);
    r[done].total_ps = total;
    r[done].policy_end_ps = policy_end;
    r[done].events = events;
  }
  const char *end = ok ? next_field(&fs) : NULL;
  ok = ok && end && !strcmp(end, "E") && fs.at == fs.n;
  g_strfreev(fs.f);
  if (!ok) {
    for (size_t i = 0; i < done; i++) sim_result_clear(&r[i]);
    g_free(r);
    return false;
  }
  *point = (size_t)p;
  *runs = r;
  *n_runs = (size_t)n;
  return true;
}

/* ---- the journal ---- */

static bool write_all(int fd, const char *buf, size_t len) {
  while (len) {
    ssize_t w = write(fd, buf, len);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    buf += w;
    len -= (size_t)w;
  }
  return true;
}

static bool mine(const struct swr_opts *o, size_t i) {
  return o->stride <= 1 || i % o->stride == o->offset;
}

/* Reads back the journal's finished points into OUT and opens it for
 * appending (*FD); a journal of another sweep, or none, starts afresh. */
static bool journal_open(const struct swr_opts *o, struct swr_results *out, int *fd, char **err) {
  char *header = g_strdup_printf(JOURNAL_MAGIC " %s %zu\n", o->fingerprint ? o->fingerprint : "-",
                                 o->n_points);
  char *text = NULL;
  gsize len = 0, keep = 0;
  bool fresh = true;
  if (g_file_get_contents(o->journal, &text, &len, NULL) && g_str_has_prefix(text, header)) {
    fresh = false;
    keep = strlen(header);
    while (keep < len) {
      const char *nl = memchr(text + keep, '\n', len - keep);
      if (!nl) break;
      char *line = g_strndup(text + keep, (gsize)(nl - (text + keep)) + 1);
      size_t p = 0, n = 0;
      struct sim_result *runs = NULL;
      bool ok = !memchr(text + keep, '\0', (size_t)(nl - (text + keep))) &&
                swr_decode(line, &p, &runs, &n) && p < o->n_points;
      g_free(line);
      if (!ok) {
        if (runs) {
          for (size_t i = 0; i < n; i++) sim_result_clear(&runs[i]);
          g_free(runs);
        }
        break;
      }
      if (out->runs[p] || !mine(o, p)) {
        for (size_t i = 0; i < n; i++) sim_result_clear(&runs[i]);
        g_free(runs);
      } else {
        out->runs[p] = runs;
        out->n_runs[p] = n;
        out->resumed++;
      }
      keep = (gsize)(nl - text) + 1;
    }
  } else if (text && len && o->progress != SWR_QUIET) {
    fprintf(stderr, "trigsim: %s: a journal of another sweep; starting over\n", o->journal);
  }
  g_free(text);
  bool ok;
  if (fresh) {
    *fd = open(o->journal, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    ok = *fd >= 0 && write_all(*fd, header, strlen(header));
  } else {
    ok = truncate(o->journal, (off_t)keep) == 0;
    *fd = ok ? open(o->journal, O_WRONLY | O_APPEND) : -1;
    ok = ok && *fd >= 0;
  }
  if (!ok) *err = g_strdup_printf("trigsim: %s: cannot write the journal: %s", o->journal,
                                  g_strerror(errno));
  g_free(header);
  return ok;
}

/* ---- progress ---- */

struct progress {
  bool on, tty;
  gint64 start, last;
  size_t total, resumed;
};

static void format_eta(double s, char *buf, size_t len) {
  if (s < 0 || s > 1e7) g_snprintf(buf, len, "?");
  else if (s < 60) g_snprintf(buf, len, "%.0fs", s);
  else if (s < 3600) g_snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
  else g_snprintf(buf, len, "%dh%02dm", (int)s / 3600, ((int)s / 60) % 60);
}

static void progress_show(struct progress *pg, size_t done, bool final) {
  if (!pg->on) return;
  gint64 now = g_get_monotonic_time();
  if (!final && now - pg->last < (pg->tty ? 100000 : 1000000)) return;
  pg->last = now;
  double secs = (double)(now - pg->start) / 1e6;
  size_t ran = done - pg->resumed;
  double rate = secs > 0 ? (double)ran / secs : 0;
  char eta[32];
  format_eta(rate > 0 ? (double)(pg->total - done) / rate : -1, eta, sizeof eta);
  char resumed[48] = "";
  if (pg->resumed) g_snprintf(resumed, sizeof resumed, " (%zu resumed)", pg->resumed);
  int pct = pg->total ? (int)(100 * done / pg->total) : 100;
  if (pg->tty) {
    char bar[31];
    int fill = pg->total ? (int)(30 * done / pg->total) : 30;
    for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : '.';
    bar[30] = '\0';
    fprintf(stderr, "\r[%s] %3d%% %zu/%zu points%s  %.1f/s  ETA %s   ", bar, pct, done,
            pg->total, resumed, rate, final ? "0s" : eta);
    if (final) fputc('\n', stderr);
  } else {
    fprintf(stderr, "trigsim sweep: %zu/%zu points (%d%%)%s, %.1f points/s, ETA %s\n", done,
            pg->total, pct, resumed, rate, final ? "0s" : eta);
  }
  fflush(stderr);
}

/* ---- the pool ---- */

struct pool {
  const struct swr_opts *o;
  swr_point_fn fn;
  void *user;
  struct swr_results *out;
  GMutex m;
  GCond c;
  int fd;
  size_t processed; /* tasks finished, run or skipped */
  size_t done;      /* points with results */
  size_t err_point;
  char *err;
  bool io_failed;
};

static void run_task(gpointer data, gpointer user) {
  struct pool *pl = user;
  size_t i = GPOINTER_TO_SIZE(data) - 1;
  struct sim_result *runs = NULL;
  size_t n = 0;
  char *err = NULL;
  g_mutex_lock(&pl->m);
  bool skip = swr_stop || pl->err || pl->io_failed;
  g_mutex_unlock(&pl->m);
  bool ok = !skip && pl->fn(pl->user, i, &runs, &n, &err);
  char *line = ok ? swr_encode(i, runs, n) : NULL;
  g_mutex_lock(&pl->m);
  if (ok && pl->fd >= 0 && !write_all(pl->fd, line, strlen(line))) {
    if (!pl->io_failed)
      pl->err = g_strdup_printf("trigsim: %s: cannot write the journal: %s", pl->o->journal,
                                g_strerror(errno));
    pl->io_failed = true;
    ok = false;
  }
  if (ok) {
    pl->out->runs[i] = runs;
    pl->out->n_runs[i] = n;
    pl->done++;
  } else {
    for (size_t k = 0; k < n; k++) sim_result_clear(&runs[k]);
    g_free(runs);
  }
  if (err && !pl->io_failed && (!pl->err || i < pl->err_point)) {
    g_free(pl->err);
    pl->err = err;
    pl->err_point = i;
    err = NULL;
  }
  pl->processed++;
  g_cond_signal(&pl->c);
  g_mutex_unlock(&pl->m);
  g_free(err);
  g_free(line);
}

enum swr_status swr_run(const struct swr_opts *o, swr_point_fn fn, void *user,
                        struct swr_results *out, char **err) {
  *out = (struct swr_results){.n_points = o->n_points,
                              .runs = g_new0(struct sim_result *, o->n_points ? o->n_points : 1),
                              .n_runs = g_new0(size_t, o->n_points ? o->n_points : 1)};
  struct pool pl = {.o = o, .fn = fn, .user = user, .out = out, .fd = -1};
  if (o->journal && !journal_open(o, out, &pl.fd, err)) return SWR_IO;
  size_t total = 0, todo = 0;
  for (size_t i = 0; i < o->n_points; i++) {
    if (!mine(o, i)) continue;
    total++;
    if (!out->runs[i]) todo++;
  }
  struct progress pg = {.on = o->progress != SWR_QUIET, .tty = isatty(STDERR_FILENO) == 1,
                        .start = g_get_monotonic_time(), .total = total, .resumed = out->resumed};
  pg.last = pg.start;
  struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
  sigemptyset(&sa.sa_mask);
  swr_stop = 0;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  g_mutex_init(&pl.m);
  g_cond_init(&pl.c);
  GThreadPool *pool = g_thread_pool_new(run_task, &pl, (gint)(o->jobs ? o->jobs : 1), FALSE, NULL);
  for (size_t i = 0; i < o->n_points; i++)
    if (mine(o, i) && !out->runs[i]) g_thread_pool_push(pool, GSIZE_TO_POINTER(i + 1), NULL);
  g_mutex_lock(&pl.m);
  while (pl.processed < todo && !swr_stop) {
    g_cond_wait_until(&pl.c, &pl.m, g_get_monotonic_time() + 100000);
    size_t shown = out->resumed + pl.done;
    g_mutex_unlock(&pl.m);
    progress_show(&pg, shown, false);
    g_mutex_lock(&pl.m);
  }
  g_mutex_unlock(&pl.m);
  g_thread_pool_free(pool, TRUE, TRUE);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  size_t finished = out->resumed + pl.done;
  enum swr_status st = SWR_DONE;
  if (pl.err) {
    *err = pl.err;
    st = pl.io_failed ? SWR_IO : SWR_FAILED;
  } else if (finished < total) {
    *err = o->journal ? g_strdup_printf("trigsim: interrupted: %zu of %zu points kept in %s; run "
                                        "the same command again to resume",
                                        finished, total, o->journal)
                      : g_strdup_printf("trigsim: interrupted after %zu of %zu points", finished,
                                        total);
    st = SWR_INTERRUPTED;
  } else {
    progress_show(&pg, finished, true);
  }
  if (pl.fd >= 0 && close(pl.fd) != 0 && st == SWR_DONE) {
    *err = g_strdup_printf("trigsim: %s: cannot write the journal: %s", o->journal,
                           g_strerror(errno));
    st = SWR_IO;
  }
  g_mutex_clear(&pl.m);
  g_cond_clear(&pl.c);
  return st;
}

void swr_results_clear(struct swr_results *r) {
  for (size_t i = 0; i < r->n_points; i++) {
    for (size_t k = 0; r->runs[i] && k < r->n_runs[i]; k++) sim_result_clear(&r->runs[i][k]);
    g_free(r->runs[i]);
  }
  g_free(r->runs);
  g_free(r->n_runs);
  *r = (struct swr_results){0};
}
