/* Chrome trace-event JSON writer ("JSON Array Format" inside an object):
 * metadata events name processes and threads, "X" events are spans. */
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
  fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", t->f);
  return t;
}

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

void trace_span(struct trace *t, int track, const char *name, sim_time start, sim_time end) {
  event_head(t, track, "X", name, start);
  fputs(",\"dur\":", t->f);
  put_us(t->f, end - start);
  fputs("}", t->f);
}

void trace_instant(struct trace *t, int track, const char *name, sim_time at) {
  event_head(t, track, "i", name, at);
  fputs(",\"s\":\"t\"}", t->f);
}

static void trace_release(struct trace *t) {
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
