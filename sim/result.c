/* Table, CSV and JSON writers for run results. */
#include "result.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

void sim_result_init(struct sim_result *r, const char *policy) {
  *r = (struct sim_result){.policy = g_strdup(policy)};
  sim_report_init(&r->phases);
  sim_report_init(&r->counters);
}

void sim_result_clear(struct sim_result *r) {
  g_free(r->policy);
  sim_report_clear(&r->phases);
  sim_report_clear(&r->counters);
  *r = (struct sim_result){0};
}

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

static void write_json(FILE *out, const struct sim_result_set *set) {
  fputs("{\n  \"scenario\": ", out);
  put_json_string(out, set->scenario);
  fputs(",\n  \"workload\": ", out);
  put_json_string(out, set->workload);
  fprintf(out, ",\n  \"seed\": %" PRIu64 ",\n  \"runs\": [", set->seed);
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
    fprintf(out, ", \"total_time_ps\": %" PRId64 ", \"events\": %" PRIu64 ",\n     \"phases\": ",
            r->total_ps, r->events);
    put_json_report(out, &r->phases);
    fputs(",\n     \"counters\": ", out);
    put_json_report(out, &r->counters);
    fputc('}', out);
  }
  fputs("\n  ]\n}\n", out);
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

static void write_csv(FILE *out, const struct sim_result_set *set) {
  GPtrArray *phases = union_keys(set, offsetof(struct sim_result, phases));
  GPtrArray *counters = union_keys(set, offsetof(struct sim_result, counters));
  fputs("scenario,workload,seed", out);
  for (size_t a = 0; a < set->n_axes; a++) {
    fputc(',', out);
    put_csv_field(out, set->axes[a]);
  }
  fputs(",policy,total_time_ps,events", out);
  for (guint j = 0; j < phases->len; j++) fprintf(out, ",phase_%s_ps", (char *)phases->pdata[j]);
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
    fprintf(out, ",%" PRId64 ",%" PRIu64, r->total_ps, r->events);
    for (guint j = 0; j < phases->len; j++) {
      const struct sim_report_entry *en = sim_report_find(&r->phases, phases->pdata[j]);
      fputc(',', out);
      if (en) put_value(out, en);
    }
    for (guint j = 0; j < counters->len; j++) {
      const struct sim_report_entry *en = sim_report_find(&r->counters, counters->pdata[j]);
      fputc(',', out);
      if (en) put_value(out, en);
    }
    fputc('\n', out);
  }
  g_ptr_array_free(phases, TRUE);
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

static void write_table(FILE *out, const struct sim_result_set *set) {
  fprintf(out, "scenario %s, workload %s, seed %" PRIu64 "\n\n", set->scenario, set->workload,
          set->seed);
  GPtrArray *phases = union_keys(set, offsetof(struct sim_result, phases));
  bool sweep = set->n_axes || set->seeds;
  bool seeds = false; /* a seed column only when the seeds differ */
  for (size_t i = 0; set->seeds && i < set->n_runs; i++) seeds = seeds || set->seeds[i] != set->seed;
  int *widths = g_new0(int, set->n_axes + 1);
  for (size_t a = 0; a < set->n_axes; a++) {
    widths[a] = (int)strlen(set->axes[a]);
    for (size_t i = 0; i < set->n_runs; i++)
      widths[a] = MAX(widths[a], (int)strlen(set->axis_values[i * set->n_axes + a]));
  }
  if (seeds) fprintf(out, "%-20s ", "seed");
  for (size_t a = 0; a < set->n_axes; a++) fprintf(out, "%-*s ", widths[a], set->axes[a]);
  fprintf(out, "%-10s %14s", "policy", "total");
  for (guint j = 0; j < phases->len; j++) fprintf(out, " %14s", (char *)phases->pdata[j]);
  fputc('\n', out);
  for (size_t i = 0; i < set->n_runs; i++) {
    const struct sim_result *r = &set->runs[i];
    char buf[64];
    if (seeds) fprintf(out, "%-20" PRIu64 " ", set->seeds[i]);
    for (size_t a = 0; a < set->n_axes; a++)
      fprintf(out, "%-*s ", widths[a], set->axis_values[i * set->n_axes + a]);
    fprintf(out, "%-10s %14s", r->policy, human_time(r->total_ps, buf, sizeof buf));
    for (guint j = 0; j < phases->len; j++) {
      const struct sim_report_entry *en = sim_report_find(&r->phases, phases->pdata[j]);
      if (en) put_human(out, en, 14);
      else fprintf(out, " %14s", "-");
    }
    fputc('\n', out);
  }
  g_ptr_array_free(phases, TRUE);
  g_free(widths);
  for (size_t i = 0; !sweep && i < set->n_runs; i++) {
    const struct sim_result *r = &set->runs[i];
    fprintf(out, "\n%s: %" PRIu64 " events\n", r->policy, r->events);
    for (size_t k = 0; k < r->counters.n; k++) {
      fprintf(out, "  %-32s", r->counters.entries[k].key);
      put_human(out, &r->counters.entries[k], 16);
      fputc('\n', out);
    }
  }
}

void result_write(FILE *out, const struct sim_result_set *set, enum result_format fmt) {
  switch (fmt) {
  case RESULT_TABLE: write_table(out, set); break;
  case RESULT_CSV: write_csv(out, set); break;
  case RESULT_JSON: write_json(out, set); break;
  }
}
