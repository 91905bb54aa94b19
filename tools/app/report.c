/* Table, CSV and JSON writers for run results. */
#include "report.h"

#include <glib.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

/* Keys of one report field across all runs, in order of first appearance. */
static GPtrArray *union_keys(const struct sim_result_set *set, size_t offset) {
  GPtrArray *keys = g_ptr_array_new();
  GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
  for (size_t i = 0; i < set->n_runs; i++) {
    const struct sim_report *r = (const void *)((const char *)&set->runs[i] + offset);
    for (size_t k = 0; k < r->n; k++)
      if (g_hash_table_add(seen, r->entries[k].key)) g_ptr_array_add(keys, r->entries[k].key);
  }
  g_hash_table_destroy(seen);
  return keys;
}

static void put_value(FILE *out, const struct sim_report_entry *en) {
  if (en->is_real) fprintf(out, "%.10g", en->d);
  else fprintf(out, "%" PRId64, en->i);
}

/* ---- counters by component kind ---- */

/* Splits KEY into its kind (digits of the component dropped) into KIND;
 * false when the component has no digits (a kind of its own). */
static bool kind_of(const char *key, GString *kind, const char **component_end) {
  const char *dot = strrchr(key, '.');
  *component_end = dot;
  g_string_truncate(kind, 0);
  bool digits = false;
  for (const char *p = key; dot && p < dot; p++) {
    if (g_ascii_isdigit(*p)) digits = true;
    else g_string_append_c(kind, *p);
  }
  if (!digits) return false;
  g_string_append(kind, dot);
  return true;
}

static double value_of(const struct sim_report_entry *en) {
  return en->is_real ? en->d : (double)en->i;
}

struct result_stat *result_summarize(const struct sim_report *r, size_t *n) {
  GArray *out = g_array_new(FALSE, TRUE, sizeof(struct result_stat));
  GHashTable *at = g_hash_table_new(g_str_hash, g_str_equal); /* key -> 1 + index */
  GString *kind = g_string_new(NULL);
  for (size_t k = 0; k < r->n; k++) {
    const struct sim_report_entry *en = &r->entries[k];
    const char *end;
    bool grouped = kind_of(en->key, kind, &end);
    const char *key = grouped ? kind->str : en->key;
    size_t i = GPOINTER_TO_SIZE(g_hash_table_lookup(at, key));
    double v = value_of(en);
    if (!i) {
      struct result_stat st = {.key = g_strdup(key), .single = !grouped, .is_real = en->is_real,
                               .dim = en->dim, .max = v, .decl = en->decl,
                               .max_at = grouped ? g_strndup(en->key, (gsize)(end - en->key))
                                                 : g_strdup(en->key)};
      g_array_append_val(out, st);
      i = out->len;
      g_hash_table_insert(at, g_array_index(out, struct result_stat, i - 1).key, GSIZE_TO_POINTER(i));
    }
    struct result_stat *st = &g_array_index(out, struct result_stat, i - 1);
    st->n++;
    st->sum += v;
    st->is_real = st->is_real || en->is_real;
    if (v > st->max) {
      st->max = v;
      g_free(st->max_at);
      st->max_at = g_strndup(en->key, (gsize)(end - en->key));
    }
  }
  g_string_free(kind, TRUE);
  g_hash_table_destroy(at);
  *n = out->len;
  return (struct result_stat *)(void *)g_array_free(out, FALSE);
}

void result_stats_free(struct result_stat *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    g_free(s[i].key);
    g_free(s[i].max_at);
  }
  g_free(s);
}

/* Every run's summary (freed by free_summaries). */
struct summaries {
  struct result_stat **stats;
  size_t *n;
  size_t runs;
};

static struct summaries summarize_all(const struct sim_result_set *set) {
  struct summaries s = {g_new0(struct result_stat *, set->n_runs + 1),
                        g_new0(size_t, set->n_runs + 1), set->n_runs};
  for (size_t i = 0; i < set->n_runs; i++)
    s.stats[i] = result_summarize(&set->runs[i].counters, &s.n[i]);
  return s;
}

static void free_summaries(struct summaries *s) {
  for (size_t i = 0; i < s->runs; i++) result_stats_free(s->stats[i], s->n[i]);
  g_free(s->stats);
  g_free(s->n);
}

/* The summary keys of every run, in order of first appearance, each with
 * whether it is a single key (GPOINTER 1) or a kind (2). */
static GPtrArray *union_stats(const struct summaries *s, GHashTable *single) {
  GPtrArray *keys = g_ptr_array_new();
  GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
  for (size_t i = 0; i < s->runs; i++)
    for (size_t k = 0; k < s->n[i]; k++) {
      const struct result_stat *st = &s->stats[i][k];
      if (!g_hash_table_add(seen, st->key)) continue;
      g_ptr_array_add(keys, st->key);
      if (st->single) g_hash_table_add(single, st->key);
    }
  g_hash_table_destroy(seen);
  return keys;
}

static const struct result_stat *find_stat(const struct result_stat *s, size_t n, const char *key) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(s[i].key, key)) return &s[i];
  return NULL;
}

/* A summary number: an integer when the kind's values are integers and
 * the number is whole (the mean may not be). */
static void put_number(FILE *out, double v, bool is_real) {
  if (!is_real && v == (double)(int64_t)v) fprintf(out, "%" PRId64, (int64_t)v);
  else fprintf(out, "%.10g", v);
}

static void put_json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(out, "\\%c", ch);
    else if (ch < 0x20) fprintf(out, "\\u%04x", ch);
    else fputc(ch, out);
  }
  fputc('"', out);
}

static void put_json_report(FILE *out, const struct sim_report *r) {
  fputc('{', out);
  for (size_t k = 0; k < r->n; k++) {
    if (k) fputs(", ", out);
    put_json_string(out, r->entries[k].key);
    fputs(": ", out);
    put_value(out, &r->entries[k]);
  }
  fputc('}', out);
}

static void put_json_summary(FILE *out, const struct result_stat *st, size_t n) {
  fputc('{', out);
  for (size_t k = 0; k < n; k++) {
    fputs(k ? ",\n       " : "\n       ", out);
    put_json_string(out, st[k].key);
    if (st[k].single) {
      fputs(": ", out);
      put_number(out, st[k].sum, st[k].is_real);
      continue;
    }
    fprintf(out, ": {\"n\": %zu, \"sum\": ", st[k].n);
    put_number(out, st[k].sum, st[k].is_real);
    fputs(", \"mean\": ", out);
    put_number(out, st[k].sum / (double)st[k].n, true);
    fputs(", \"max\": ", out);
    put_number(out, st[k].max, st[k].is_real);
    fputs(", \"max_at\": ", out);
    put_json_string(out, st[k].max_at);
    fputc('}', out);
  }
  fputc('}', out);
}

static void put_json_config(FILE *out, const struct sim_result_set *set) {
  fputs(",\n  \"config\": {", out);
  for (size_t i = 0; i < set->n_config; i++) {
    const struct sc_setting *c = &set->config[i];
    fputs(i ? ",\n    " : "\n    ", out);
    put_json_string(out, c->path);
    fputs(": {\"value\": ", out);
    put_json_string(out, c->value);
    fputs(", \"from\": ", out);
    put_json_string(out, c->origin);
    fputc('}', out);
  }
  fputs(set->n_config ? "\n  }" : "}", out);
}

/* One declared output: "KEY": {"unit": ..., "doc": ...}. */
static void put_json_decl(FILE *out, const char *key, const struct sim_out_decl *d, bool first) {
  fputs(first ? "\n      " : ",\n      ", out);
  put_json_string(out, key);
  fputs(": {\"unit\": ", out);
  put_json_string(out, sim_out_unit(d));
  fputs(", \"doc\": ", out);
  put_json_string(out, d->doc);
  fputc('}', out);
}

/* The declared outputs the runs hold: every phase, and every counter kind
 * (as counters_by_kind names it; a component's own key, "node3.nic.puts",
 * is of kind "node.nic.puts"), with unit and doc. */
static void put_json_outputs(FILE *out, const struct sim_result_set *set) {
  fputs(",\n  \"outputs\": {\n    \"critical_path\": {", out);
  bool first = true;
  for (size_t i = 0; i < set->n_runs; i++)
    if (set->runs[i].cp.n) {
      for (size_t k = 0; k < set->runs[i].cp.n; k++) {
        const struct sim_report_entry *en = &set->runs[i].cp.entries[k];
        if (en->decl) put_json_decl(out, en->key, en->decl, k == 0);
      }
      first = false;
      break;
    }
  fputs(first ? "}" : "\n    }", out);
  fputs(",\n    \"phase_sums\": {", out);
  GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
  first = true;
  for (size_t i = 0; i < set->n_runs; i++)
    for (size_t k = 0; k < set->runs[i].phases.n; k++) {
      const struct sim_report_entry *en = &set->runs[i].phases.entries[k];
      if (!en->decl || !g_hash_table_add(seen, en->key)) continue;
      put_json_decl(out, en->key, en->decl, first);
      first = false;
    }
  fputs(first ? "}" : "\n    }", out);
  g_hash_table_remove_all(seen);
  if (set->counters != RESULT_COUNTERS_NONE) {
    fputs(",\n    \"counters\": {", out);
    struct summaries sums = summarize_all(set);
    first = true;
    for (size_t i = 0; i < sums.runs; i++)
      for (size_t k = 0; k < sums.n[i]; k++) {
        const struct result_stat *st = &sums.stats[i][k];
        if (!st->decl || !g_hash_table_add(seen, st->key)) continue;
        put_json_decl(out, st->key, st->decl, first);
        first = false;
      }
    fputs(first ? "}" : "\n    }", out);
    g_hash_table_destroy(seen); /* before the keys it borrows */
    seen = NULL;
    free_summaries(&sums);
  }
  if (seen) g_hash_table_destroy(seen);
  fputs("\n  }", out);
}

/* A run's critical path: where it ended, its time per category and, when
 * tracked, its hops. */
static void put_json_critical_path(FILE *out, const struct sim_result *r) {
  fputs(",\n     \"critical_path\": {\"ended_at\": ", out);
  put_json_string(out, r->cp_end ? r->cp_end : "");
  fputs(", \"categories\": ", out);
  put_json_report(out, &r->cp);
  if (r->n_hops) {
    fputs(",\n       \"chain\": [", out);
    for (size_t h = 0; h < r->n_hops; h++) {
      fputs(h ? ",\n         {\"where\": " : "\n         {\"where\": ", out);
      put_json_string(out, r->hops[h].where);
      fputs(", \"category\": ", out);
      put_json_string(out, r->hops[h].cat);
      fprintf(out, ", \"start_ps\": %" PRId64 ", \"end_ps\": %" PRId64 "}", r->hops[h].start,
              r->hops[h].end);
    }
    fputs("]", out);
  }
  fputc('}', out);
}

static void write_json(FILE *out, const struct sim_result_set *set) {
  fputs("{\n  \"scenario\": ", out);
  put_json_string(out, set->scenario);
  fputs(",\n  \"workload\": ", out);
  put_json_string(out, set->workload);
  fprintf(out, ",\n  \"seed\": %" PRIu64, set->seed);
  if (set->config) put_json_config(out, set);
  fputs(",\n  \"runs\": [", out);
  for (size_t i = 0; i < set->n_runs; i++) {
    const struct sim_result *r = &set->runs[i];
    fputs(i ? ",\n    {" : "\n    {", out);
    if (set->seeds) fprintf(out, "\"seed\": %" PRIu64 ", ", set->seeds[i]);
    if (set->n_axes) {
      fputs("\"axes\": {", out);
      for (size_t a = 0; a < set->n_axes; a++) {
        if (a) fputs(", ", out);
        put_json_string(out, set->axes[a]);
        fputs(": ", out);
        put_json_string(out, set->axis_values[i * set->n_axes + a]);
      }
      fputs("}, ", out);
    }
    fputs("\"policy\": ", out);
    put_json_string(out, r->policy);
    fprintf(out, ", \"total_time_ps\": %" PRId64 ", \"policy_end_ps\": %" PRId64
                 ", \"events\": %" PRIu64,
            r->total_ps, r->policy_end_ps, r->events);
    if (r->cp.n) put_json_critical_path(out, r);
    fputs(",\n     \"phase_sums\": ", out);
    put_json_report(out, &r->phases);
    if (set->counters != RESULT_COUNTERS_NONE) {
      size_t n;
      struct result_stat *st = result_summarize(&r->counters, &n);
      fputs(",\n     \"counters_by_kind\": ", out);
      put_json_summary(out, st, n);
      result_stats_free(st, n);
      fputs(",\n     \"counters\": ", out);
      put_json_report(out, &r->counters);
    }
    fputc('}', out);
  }
  fputs("\n  ]", out);
  /* Last, so that a key's first appearance is still a run's value. */
  put_json_outputs(out, set);
  fputs("\n}\n", out);
}

static void put_csv_field(FILE *out, const char *s) {
  if (!strpbrk(s, ",\"\n")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

/* A column name: KEY with its spaces as underscores ("cpu compute"). */
static void put_csv_name(FILE *out, const char *prefix, const char *key, const char *suffix) {
  fprintf(out, ",%s", prefix);
  for (const char *k = key; *k; k++) fputc(*k == ' ' ? '_' : *k, out);
  fputs(suffix, out);
}

static void write_csv(FILE *out, const struct sim_result_set *set) {
  bool summary = set->counters != RESULT_COUNTERS_NONE;
  GPtrArray *phases = summary ? union_keys(set, offsetof(struct sim_result, phases))
                              : g_ptr_array_new();
  GPtrArray *cps = union_keys(set, offsetof(struct sim_result, cp));
  bool all = set->counters == RESULT_COUNTERS_ALL;
  GPtrArray *counters = all ? union_keys(set, offsetof(struct sim_result, counters)) : g_ptr_array_new();
  struct summaries sums = summary ? summarize_all(set) : (struct summaries){0};
  GHashTable *single = g_hash_table_new(g_str_hash, g_str_equal);
  GPtrArray *stats = summary ? union_stats(&sums, single) : g_ptr_array_new();
  fputs("scenario,workload,seed", out);
  for (size_t a = 0; a < set->n_axes; a++) {
    fputc(',', out);
    put_csv_field(out, set->axes[a]);
  }
  fputs(",policy,total_time_ps,policy_end_ps,events", out);
  for (guint j = 0; j < cps->len; j++) put_csv_name(out, "cp_", cps->pdata[j], "_ps");
  for (guint j = 0; j < phases->len; j++) put_csv_name(out, "phase_sum_", phases->pdata[j], "_ps");
  /* Per kind: KEY.sum, KEY.mean, KEY.max, KEY.max_at; a single key: KEY. */
  static const char *const cols[] = {"sum", "mean", "max", "max_at"};
  for (guint j = 0; j < stats->len; j++) {
    const char *key = stats->pdata[j];
    if (g_hash_table_contains(single, key)) {
      fputc(',', out);
      put_csv_field(out, key);
      continue;
    }
    for (size_t c = 0; c < G_N_ELEMENTS(cols); c++) {
      char *col = g_strdup_printf("%s.%s", key, cols[c]);
      fputc(',', out);
      put_csv_field(out, col);
      g_free(col);
    }
  }
  for (guint j = 0; j < counters->len; j++) {
    fputc(',', out);
    put_csv_field(out, counters->pdata[j]);
  }
  fputc('\n', out);
  for (size_t i = 0; i < set->n_runs; i++) {
    const struct sim_result *r = &set->runs[i];
    put_csv_field(out, set->scenario);
    fputc(',', out);
    put_csv_field(out, set->workload);
    fprintf(out, ",%" PRIu64 ",", set->seeds ? set->seeds[i] : set->seed);
    for (size_t a = 0; a < set->n_axes; a++) {
      put_csv_field(out, set->axis_values[i * set->n_axes + a]);
      fputc(',', out);
    }
    put_csv_field(out, r->policy);
    fprintf(out, ",%" PRId64 ",", r->total_ps);
    if (r->policy_end_ps >= 0) fprintf(out, "%" PRId64, r->policy_end_ps);
    fprintf(out, ",%" PRIu64, r->events);
    for (guint j = 0; j < cps->len; j++) {
      const struct sim_report_entry *en = sim_report_find(&r->cp, cps->pdata[j]);
      fputc(',', out);
      if (en) put_value(out, en);
    }
    for (guint j = 0; j < phases->len; j++) {
      const struct sim_report_entry *en = sim_report_find(&r->phases, phases->pdata[j]);
      fputc(',', out);
      if (en) put_value(out, en);
    }
    for (guint j = 0; j < stats->len; j++) {
      const struct result_stat *st = find_stat(sums.stats[i], sums.n[i], stats->pdata[j]);
      bool one = g_hash_table_contains(single, stats->pdata[j]);
      if (!st) {
        fputs(one ? "," : ",,,,", out);
        continue;
      }
      fputc(',', out);
      put_number(out, st->sum, st->is_real);
      if (one) continue;
      fputc(',', out);
      put_number(out, st->sum / (double)st->n, true);
      fputc(',', out);
      put_number(out, st->max, st->is_real);
      fputc(',', out);
      put_csv_field(out, st->max_at);
    }
    for (guint j = 0; j < counters->len; j++) {
      const struct sim_report_entry *en = sim_report_find(&r->counters, counters->pdata[j]);
      fputc(',', out);
      if (en) put_value(out, en);
    }
    fputc('\n', out);
  }
  if (summary) free_summaries(&sums);
  g_hash_table_destroy(single);
  g_ptr_array_free(stats, TRUE);
  g_ptr_array_free(phases, TRUE);
  g_ptr_array_free(cps, TRUE);
  g_ptr_array_free(counters, TRUE);
}

/* A time for people: four significant digits in the largest unit that
 * keeps the value at least 1 (the machine formats keep every picosecond). */
static char *human_time(sim_time ps, char *buf, int len) {
  static const struct { const char *unit; double scale; } units[] = {
      {"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}};
  for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
    if ((double)ps >= units[i].scale || (double)-ps >= units[i].scale) {
      g_snprintf(buf, len, "%.4g%s", (double)ps / units[i].scale, units[i].unit);
      return buf;
    }
  }
  g_snprintf(buf, len, "%" PRId64 "ps", ps);
  return buf;
}

static void put_human(FILE *out, const struct sim_report_entry *en, int width) {
  char buf[64];
  if (en->is_real) g_snprintf(buf, sizeof buf, "%.6g", en->d);
  else if (en->dim == UNIT_TIME) human_time(en->i, buf, sizeof buf);
  else units_format(en->i, en->dim, buf, sizeof buf);
  fprintf(out, " %*s", width, buf);
}

/* A summary number for people, in the kind's unit. */
static void put_human_stat(FILE *out, double v, const struct result_stat *st, int width) {
  /* A mean in a unit is rounded to it; a plain count's mean keeps its fraction. */
  bool real = st->is_real || (st->dim == UNIT_NONE && v != (double)(int64_t)v);
  struct sim_report_entry en = {.dim = st->dim, .is_real = real, .i = (int64_t)llround(v), .d = v};
  put_human(out, &en, width);
}

/* The counters of one run by component kind; kinds zero everywhere are
 * left out (--counters all shows every one). */
static void write_table_summary(FILE *out, const struct sim_report *counters) {
  size_t n, zero = 0;
  struct result_stat *st = result_summarize(counters, &n);
  fprintf(out, "  %-36s %12s %12s %12s  %s\n", "counter (by component kind)", "sum", "mean", "max",
          "max at");
  for (size_t k = 0; k < n; k++) {
    if (st[k].sum == 0 && st[k].max == 0) {
      zero++;
      continue;
    }
    fprintf(out, "  %-36s", st[k].key);
    put_human_stat(out, st[k].sum, &st[k], 12);
    if (st[k].single) {
      fputc('\n', out);
      continue;
    }
    put_human_stat(out, st[k].sum / (double)st[k].n, &st[k], 12);
    put_human_stat(out, st[k].max, &st[k], 12);
    fprintf(out, "  %s (of %zu)\n", st[k].max_at, st[k].n);
  }
  if (zero) fprintf(out, "  (%zu more, zero on every component)\n", zero);
  result_stats_free(st, n);
}

/* The index of the run that run I's speedup is over: the first run of
 * its point (same seed and axis values), i.e. its point's first policy. */
static size_t base_run(const struct sim_result_set *set, size_t i) {
  for (size_t j = 0; j < i; j++) {
    bool same = !set->seeds || set->seeds[j] == set->seeds[i];
    for (size_t a = 0; same && a < set->n_axes; a++)
      same = !strcmp(set->axis_values[j * set->n_axes + a], set->axis_values[i * set->n_axes + a]);
    if (same) return j;
  }
  return i;
}

/* The critical-path categories some run spent time in, in declared order. */
static GPtrArray *cp_used(const struct sim_result_set *set) {
  GPtrArray *all = union_keys(set, offsetof(struct sim_result, cp)), *used = g_ptr_array_new();
  for (guint j = 0; j < all->len; j++)
    for (size_t i = 0; i < set->n_runs; i++) {
      const struct sim_report_entry *en = sim_report_find(&set->runs[i].cp, all->pdata[j]);
      if (en && en->i > 0) {
        g_ptr_array_add(used, all->pdata[j]);
        break;
      }
    }
  g_ptr_array_free(all, TRUE);
  return used;
}

/* One point: a column per policy, a row per total and critical-path
 * category (time and share of the total). */
static void write_table_point(FILE *out, const struct sim_result_set *set) {
  int w = 14;
  for (size_t i = 0; i < set->n_runs; i++) w = MAX(w, (int)strlen(set->runs[i].policy));
  char buf[64], cell[96];
  fprintf(out, "%-22s", "");
  for (size_t i = 0; i < set->n_runs; i++) fprintf(out, " %*s", w, set->runs[i].policy);
  fprintf(out, "\n%-22s", "total");
  for (size_t i = 0; i < set->n_runs; i++)
    fprintf(out, " %*s", w, human_time(set->runs[i].total_ps, buf, sizeof buf));
  fprintf(out, "\nspeedup over %-9.9s", set->runs[0].policy);
  for (size_t i = 0; i < set->n_runs; i++) {
    g_snprintf(cell, sizeof cell, "%.2fx",
               set->runs[i].total_ps > 0
                   ? (double)set->runs[0].total_ps / (double)set->runs[i].total_ps : 1.0);
    fprintf(out, " %*s", w, cell);
  }
  fprintf(out, "\n%-22s", "policy's own end");
  for (size_t i = 0; i < set->n_runs; i++)
    fprintf(out, " %*s", w, set->runs[i].policy_end_ps < 0 ? "-"
                            : human_time(set->runs[i].policy_end_ps, buf, sizeof buf));
  fputc('\n', out);
  GPtrArray *used = cp_used(set);
  if (used->len) {
    fputs("critical path (share of total)\n", out);
    for (guint j = 0; j < used->len; j++) {
      fprintf(out, "  %-20s", (char *)used->pdata[j]);
      for (size_t i = 0; i < set->n_runs; i++) {
        const struct sim_result *r = &set->runs[i];
        const struct sim_report_entry *en = sim_report_find(&r->cp, used->pdata[j]);
        if (!en || en->i == 0) {
          fprintf(out, " %*s", w, "-");
          continue;
        }
        g_snprintf(cell, sizeof cell, "%s %2.0f%%", human_time(en->i, buf, sizeof buf),
                   r->total_ps > 0 ? 100.0 * (double)en->i / (double)r->total_ps : 0.0);
        fprintf(out, " %*s", w, cell);
      }
      fputc('\n', out);
    }
    fprintf(out, "  %-20s", "ended at");
    for (size_t i = 0; i < set->n_runs; i++)
      fprintf(out, " %*s", w, set->runs[i].cp_end ? set->runs[i].cp_end : "-");
    fputc('\n', out);
  }
  g_ptr_array_free(used, TRUE);
}

/* A sweep: a row per (point, policy), the critical path's categories as
 * columns (times). */
static void write_table_rows(FILE *out, const struct sim_result_set *set) {
  bool seeds = false; /* a seed column only when the seeds differ */
  for (size_t i = 0; set->seeds && i < set->n_runs; i++) seeds = seeds || set->seeds[i] != set->seed;
  int *widths = g_new0(int, set->n_axes + 1);
  for (size_t a = 0; a < set->n_axes; a++) {
    widths[a] = (int)strlen(set->axes[a]);
    for (size_t i = 0; i < set->n_runs; i++)
      widths[a] = MAX(widths[a], (int)strlen(set->axis_values[i * set->n_axes + a]));
  }
  GPtrArray *used = cp_used(set);
  if (seeds) fprintf(out, "%-20s ", "seed");
  for (size_t a = 0; a < set->n_axes; a++) fprintf(out, "%-*s ", widths[a], set->axes[a]);
  fprintf(out, "%-10s %10s %8s", "policy", "total", "speedup");
  /* a category's column as wide as its name (cpu_compute), at least 10 */
  for (guint j = 0; j < used->len; j++)
    fprintf(out, " %*s", MAX(10, (int)strlen(used->pdata[j])), (char *)used->pdata[j]);
  fputc('\n', out);
  for (size_t i = 0; i < set->n_runs; i++) {
    const struct sim_result *r = &set->runs[i], *b = &set->runs[base_run(set, i)];
    char buf[64];
    if (seeds) fprintf(out, "%-20" PRIu64 " ", set->seeds[i]);
    for (size_t a = 0; a < set->n_axes; a++)
      fprintf(out, "%-*s ", widths[a], set->axis_values[i * set->n_axes + a]);
    fprintf(out, "%-10s %10s %7.2fx", r->policy, human_time(r->total_ps, buf, sizeof buf),
            r->total_ps > 0 ? (double)b->total_ps / (double)r->total_ps : 1.0);
    for (guint j = 0; j < used->len; j++) {
      const struct sim_report_entry *en = sim_report_find(&r->cp, used->pdata[j]);
      fprintf(out, " %*s", MAX(10, (int)strlen(used->pdata[j])),
              en && en->i ? human_time(en->i, buf, sizeof buf) : "-");
    }
    fputc('\n', out);
  }
  g_ptr_array_free(used, TRUE);
  g_free(widths);
}

/* The phase sums (over components and the whole run: they overlap), a
 * row per run. */
static void write_table_phase_sums(FILE *out, const struct sim_result_set *set) {
  GPtrArray *phases = union_keys(set, offsetof(struct sim_result, phases));
  fputs("\nphase sums over all components (they overlap; not a partition of the total)\n", out);
  fprintf(out, "%-10s", "policy");
  for (guint j = 0; j < phases->len; j++) fprintf(out, " %12.12s", (char *)phases->pdata[j]);
  fputc('\n', out);
  for (size_t i = 0; i < set->n_runs; i++) {
    const struct sim_result *r = &set->runs[i];
    fprintf(out, "%-10s", r->policy);
    for (guint j = 0; j < phases->len; j++) {
      const struct sim_report_entry *en = sim_report_find(&r->phases, phases->pdata[j]);
      if (en) put_human(out, en, 12);
      else fprintf(out, " %12s", "-");
    }
    fputc('\n', out);
  }
  g_ptr_array_free(phases, TRUE);
}

/* Run R's critical path, hop by hop. */
static void write_table_chain(FILE *out, const struct sim_result *r) {
  char a[64], b[64], d[64];
  fprintf(out, "\n%s: critical path, %zu hops (start, end, time, category, where)\n", r->policy,
          r->n_hops);
  for (size_t h = 0; h < r->n_hops; h++) {
    const struct sim_result_hop *x = &r->hops[h];
    fprintf(out, "  %10s %10s %10s  %-12s %s\n", human_time(x->start, a, sizeof a),
            human_time(x->end, b, sizeof b), human_time(x->end - x->start, d, sizeof d), x->cat,
            x->where);
  }
}

static void write_table(FILE *out, const struct sim_result_set *set) {
  fprintf(out, "scenario %s, workload %s, seed %" PRIu64 "\n", set->scenario, set->workload,
          set->seed);
  fputs("total: when the last rank's result is usable by its host (README, \"The end of a "
        "run\")\n\n", out);
  bool sweep = set->n_axes || set->seeds;
  if (sweep) write_table_rows(out, set);
  else write_table_point(out, set);
  if (set->counters != RESULT_COUNTERS_NONE) write_table_phase_sums(out, set);
  for (size_t i = 0; set->chain && !sweep && i < set->n_runs; i++)
    if (set->runs[i].n_hops) write_table_chain(out, &set->runs[i]);
  for (size_t i = 0; !sweep && set->counters != RESULT_COUNTERS_NONE && i < set->n_runs; i++) {
    const struct sim_result *r = &set->runs[i];
    if (set->counters == RESULT_COUNTERS_NONE) continue; /* no event lines either */
    fprintf(out, "\n%s: %" PRIu64 " events\n", r->policy, r->events);
    write_table_summary(out, &r->counters);
    if (set->counters != RESULT_COUNTERS_ALL) continue;
    fputs("  every component's counters:\n", out);
    for (size_t k = 0; k < r->counters.n; k++) {
      fprintf(out, "  %-32s", r->counters.entries[k].key);
      put_human(out, &r->counters.entries[k], 16);
      fputc('\n', out);
    }
  }
}

void result_write(FILE *out, const struct sim_result_set *set, enum result_format fmt) {
  struct sim_result_set one = *set;
  if (one.counters == RESULT_COUNTERS_AUTO)
    one.counters = fmt == RESULT_JSON ? RESULT_COUNTERS_SUMMARY : RESULT_COUNTERS_NONE;
  set = &one;
  switch (fmt) {
  case RESULT_TABLE: write_table(out, set); break;
  case RESULT_CSV: write_csv(out, set); break;
  case RESULT_JSON: write_json(out, set); break;
  }
}
