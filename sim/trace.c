/* Chrome trace-event JSON writer ("JSON Array Format" inside an object):
 * metadata events name processes and threads, "X" events are spans, flows
 * ride on spans (bind_id, flow_in, flow_out; trace.h). */
#include "trace.h"

#include "outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

struct trace {
  struct outfile out; /* through a temporary, renamed at trace_close */
  FILE *f;            /* out.f */
  GHashTable *pids; /* process name -> pid */
  int next_pid, next_tid;
  GArray *track_pid; /* track id -> pid */
  bool first;
  uint32_t run;      /* trace_run_begin's count: the runs' flow ids apart */
  sim_time from, to; /* the window kept */
  GHashTable *nodes; /* kept node numbers (NULL: every node) */
  bool net;          /* with nodes: the switches too */
};

static void put_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

/* Microseconds with picosecond precision, exactly. */
static void put_us(FILE *f, sim_time ps) {
  const char *sign = ps < 0 ? "-" : "";
  uint64_t a = ps < 0 ? (uint64_t)0 - (uint64_t)ps : (uint64_t)ps;
  fprintf(f, "%s%" PRIu64 ".%06" PRIu64, sign, a / 1000000u, a % 1000000u);
}

static void begin_event(struct trace *t) {
  fputs(t->first ? "\n" : ",\n", t->f);
  t->first = false;
}

struct trace *trace_open(const char *path, char **err) {
  struct outfile out;
  if (!of_open(&out, path, err)) return NULL;
  struct trace *t = g_new0(struct trace, 1);
  t->out = out;
  t->f = out.f;
  t->pids = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  t->track_pid = g_array_new(FALSE, FALSE, sizeof(int));
  t->next_pid = 1;
  t->next_tid = 1;
  t->first = true;
  t->from = INT64_MIN;
  t->to = SIM_TIME_MAX;
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", t->f);
  return t;
}

bool trace_filter_nodes(struct trace *t, const char *list, char **err) {
  GHashTable *nodes = g_hash_table_new(g_direct_hash, g_direct_equal);
  bool net = false, ok = *list != '\0';
  char **items = g_strsplit(list, ",", -1);
  for (char **it = items; ok && *it; it++) {
    const char *x = *it;
    if (!strcmp(x, "net")) {
      net = true;
      continue;
    }
    guint64 lo, hi;
    const char *dash = strchr(x, '-');
    char *a = dash ? g_strndup(x, (gsize)(dash - x)) : g_strdup(x);
    ok = g_ascii_string_to_unsigned(a, 10, 0, G_MAXUINT32, &lo, NULL);
    hi = lo;
    if (ok && dash) ok = g_ascii_string_to_unsigned(dash + 1, 10, lo, G_MAXUINT32, &hi, NULL);
    g_free(a);
    if (ok && hi - lo >= (1u << 20)) ok = false; /* a range of a million nodes: not a trace */
    for (guint64 n = lo; ok && n <= hi; n++) g_hash_table_add(nodes, GUINT_TO_POINTER((guint)n + 1));
  }
  g_strfreev(items);
  if (!ok) {
    *err = g_strdup_printf("expected node numbers and ranges, comma-separated, and 'net' for the "
                           "switches (0,2-5,net), got '%s'",
                           list);
    g_hash_table_destroy(nodes);
    return false;
  }
  if (t->nodes) g_hash_table_destroy(t->nodes);
  t->nodes = nodes;
  t->net = net;
  return true;
}

void trace_filter_window(struct trace *t, sim_time from, sim_time to) {
  g_assert(from <= to);
  t->from = from;
  t->to = to;
}

bool trace_keeps(const struct trace *t, const char *name) {
  if (!t->nodes) return true;
  if (g_str_has_prefix(name, "net.")) return t->net;
  if (!g_str_has_prefix(name, "node")) return true;
  guint64 n;
  const char *p = name + 4, *end = p;
  while (g_ascii_isdigit(*end)) end++;
  if (end == p || (*end && *end != '.')) return true; /* not a node's component */
  char *num = g_strndup(p, (gsize)(end - p));
  bool ok = g_ascii_string_to_unsigned(num, 10, 0, G_MAXUINT32, &n, NULL);
  g_free(num);
  return ok && g_hash_table_contains(t->nodes, GUINT_TO_POINTER((guint)n + 1));
}

void trace_run_begin(struct trace *t) { t->run++; }

int trace_track(struct trace *t, const char *process, const char *thread) {
  gpointer v;
  int pid;
  if (g_hash_table_lookup_extended(t->pids, process, NULL, &v)) {
    pid = GPOINTER_TO_INT(v);
  } else {
    pid = t->next_pid++;
    g_hash_table_insert(t->pids, g_strdup(process), GINT_TO_POINTER(pid));
    begin_event(t);
    fprintf(t->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":", pid);
    put_string(t->f, process);
    fputs("}}", t->f);
  }
  int tid = t->next_tid++;
  begin_event(t);
  fprintf(t->f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":",
          pid, tid);
  put_string(t->f, thread);
  fputs("}}", t->f);
  g_array_append_val(t->track_pid, pid);
  return (int)t->track_pid->len - 1;
}

static void event_head(struct trace *t, int track, const char *ph, const char *name, sim_time at) {
  g_assert(track >= 0 && (guint)track < t->track_pid->len);
  begin_event(t);
  fprintf(t->f, "{\"ph\":\"%s\",\"pid\":%d,\"tid\":%d,\"name\":", ph,
          g_array_index(t->track_pid, int, track), track + 1);
  put_string(t->f, name);
  fputs(",\"ts\":", t->f);
  put_us(t->f, at);
}

static bool in_window(const struct trace *t, sim_time start, sim_time end) {
  return end >= t->from && start <= t->to;
}

void trace_span(struct trace *t, int track, const char *name, sim_time start, sim_time end) {
  if (!in_window(t, start, end)) return;
  event_head(t, track, "X", name, start);
  fputs(",\"dur\":", t->f);
  put_us(t->f, end - start);
  fputs("}", t->f);
}

void trace_span_flow(struct trace *t, int track, const char *name, sim_time start, sim_time end,
                     uint64_t id, unsigned dir) {
  g_assert(dir && dir <= (TRACE_FLOW_IN | TRACE_FLOW_OUT));
  if (!in_window(t, start, end)) return;
  event_head(t, track, "X", name, start);
  fputs(",\"dur\":", t->f);
  put_us(t->f, end - start);
  fprintf(t->f, ",\"bind_id\":\"%u.%" PRIx64 "\"%s%s}", t->run, id,
          dir & TRACE_FLOW_IN ? ",\"flow_in\":true" : "",
          dir & TRACE_FLOW_OUT ? ",\"flow_out\":true" : "");
}

void trace_instant(struct trace *t, int track, const char *name, sim_time at) {
  if (!in_window(t, at, at)) return;
  event_head(t, track, "i", name, at);
  fputs(",\"s\":\"t\"}", t->f);
}

static void trace_release(struct trace *t) {
  if (t->nodes) g_hash_table_destroy(t->nodes);
  g_hash_table_destroy(t->pids);
  g_array_free(t->track_pid, TRUE);
  g_free(t);
}

bool trace_close(struct trace *t, char **err) {
  fputs("\n]}\n", t->f);
  bool ok = of_commit(&t->out, err);
  trace_release(t);
  return ok;
}

void trace_abort(struct trace *t) {
  of_abort(&t->out);
  trace_release(t);
}
