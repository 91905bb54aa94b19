/* Declared outputs (outputs.h): the report's entries, filled and read by
 * declaration, the check that a component reported what its type declares,
 * and the listing. */
#include "outputs.h"

#include <glib.h>
#include <string.h>

#include "engine.h"

/* ---- declarations ---- */

bool sim_outputs_valid(const struct sim_outputs *g, char **err) {
  for (size_t i = 0; i < g->n_decls; i++) {
    const struct sim_out_decl *d = &g->decls[i];
    if (!d->key || !*d->key || !d->doc || !*d->doc) {
      *err = g_strdup_printf("outputs %s: entry %zu of %zu has no %s (a handle without its "
                             "declaration)", g->name, i, g->n_decls, d->key && *d->key ? "doc" : "key");
      return false;
    }
    for (const char *p = d->key; *p; p++)
      if (!g_ascii_islower(*p) && !g_ascii_isdigit(*p) && *p != '_' && *p != '.' &&
          !(*p == ' ' && (d->flags & SIM_OUT_PHASE))) {
        *err = g_strdup_printf("outputs %s: key '%s': expected [a-z0-9_.] only (and spaces in "
                               "a phase)", g->name, d->key);
        return false;
      }
    if (d->dim != UNIT_NONE && d->dim != UNIT_TIME && d->dim != UNIT_SIZE) {
      *err = g_strdup_printf("outputs %s: key '%s': expected a time, a size or a count", g->name,
                             d->key);
      return false;
    }
    if ((d->flags & SIM_OUT_PHASE) && (d->dim != UNIT_TIME || (d->flags & SIM_OUT_REAL))) {
      *err = g_strdup_printf("outputs %s: phase '%s': expected an integer time", g->name, d->key);
      return false;
    }
    for (size_t k = 0; k < i; k++)
      if (!strcmp(g->decls[k].key, d->key)) {
        *err = g_strdup_printf("outputs %s: key '%s' declared twice", g->name, d->key);
        return false;
      }
  }
  return true;
}

int sim_outputs_index(const struct sim_outputs *g, const struct sim_out_decl *d) {
  for (size_t i = 0; g && i < g->n_decls; i++)
    if (&g->decls[i] == d) return (int)i;
  return -1;
}

const char *sim_out_unit(const struct sim_out_decl *d) {
  if (d->flags & SIM_OUT_REAL) return d->dim == UNIT_TIME ? "time (ps, real)" : "real";
  switch (d->dim) {
  case UNIT_TIME: return "time (ps)";
  case UNIT_SIZE: return "size (B)";
  default: return "count";
  }
}

void sim_outputs_print(const struct sim_outputs *g, FILE *out) {
  int wk = 3, wu = 4;
  for (size_t i = 0; i < g->n_decls; i++) {
    wk = MAX(wk, (int)strlen(g->decls[i].key));
    wu = MAX(wu, (int)strlen(sim_out_unit(&g->decls[i])));
  }
  fprintf(out, "%s: %s\n", g->name, g->where);
  fprintf(out, "  %-*s  %-*s  doc\n", wk, "key", wu, "unit");
  for (size_t i = 0; i < g->n_decls; i++) {
    const struct sim_out_decl *d = &g->decls[i];
    fprintf(out, "  %-*s  %-*s  %s%s%s%s\n", wk, d->key, wu, sim_out_unit(d), d->doc,
            d->flags & SIM_OUT_PHASE ? " [phase]" : "", d->flags & SIM_OUT_TOTAL ? " [total]" : "",
            (d->flags & (SIM_OUT_SOME | SIM_OUT_TOTAL)) == SIM_OUT_SOME ? " [not always]" : "");
  }
}

/* ---- the report ---- */

void sim_report_init(struct sim_report *r) { *r = (struct sim_report){0}; }

void sim_report_clear(struct sim_report *r) {
  if (r->index) g_hash_table_destroy(r->index);
  for (size_t i = 0; i < r->n; i++) g_free(r->entries[i].key);
  g_free(r->entries);
  g_free(r->comp_first);
  *r = (struct sim_report){0};
}

/* A new entry KEY (taken over), of COMP (SIM_OUT_NO_COMP: none), declared
 * by D (may be NULL). */
static struct sim_report_entry *report_add(struct sim_report *r, char *key,
                                           const struct sim_out_decl *d, uint32_t comp) {
  if (r->n == r->cap) {
    r->cap = r->cap ? 2 * r->cap : 16;
    r->entries = g_renew(struct sim_report_entry, r->entries, r->cap);
  }
  struct sim_report_entry *en = &r->entries[r->n++];
  *en = (struct sim_report_entry){.key = key, .decl = d, .comp = comp};
  if (d) {
    en->dim = d->dim;
    en->is_real = (d->flags & SIM_OUT_REAL) != 0;
  }
  /* Thousands of nodes report hundreds of thousands of keys: find by hash. */
  if (!r->index) r->index = g_hash_table_new(g_str_hash, g_str_equal);
  if (!g_hash_table_contains(r->index, en->key))
    g_hash_table_insert(r->index, en->key, GSIZE_TO_POINTER(r->n));
  if (comp != SIM_OUT_NO_COMP) {
    if (comp >= r->comp_cap) {
      size_t cap = MAX((size_t)comp + 1, 2 * r->comp_cap);
      r->comp_first = g_renew(size_t, r->comp_first, cap);
      memset(r->comp_first + r->comp_cap, 0, (cap - r->comp_cap) * sizeof(size_t));
      r->comp_cap = cap;
    }
    if (!r->comp_first[comp]) r->comp_first[comp] = r->n;
  }
  return en;
}

const struct sim_report_entry *sim_report_find(const struct sim_report *r, const char *key) {
  size_t i = r->index ? GPOINTER_TO_SIZE(g_hash_table_lookup(r->index, key)) : 0;
  return i ? &r->entries[i - 1] : NULL;
}

void sim_report_int(struct sim_report *r, const char *key, enum unit_dim dim, int64_t v) {
  struct sim_report_entry *en = report_add(r, g_strdup(key), NULL, SIM_OUT_NO_COMP);
  en->dim = dim;
  en->i = v;
}

void sim_report_real(struct sim_report *r, const char *key, double v) {
  struct sim_report_entry *en = report_add(r, g_strdup(key), NULL, SIM_OUT_NO_COMP);
  en->is_real = true;
  en->d = v;
}

/* C's declaration I, checked against the kind of value (REAL) it gets. */
static const struct sim_out_decl *comp_decl(const struct sim_comp *c, unsigned i, bool real) {
  const struct sim_outputs *g = c->type->outputs;
  if (!g || i >= g->n_decls)
    g_error("%s: reports output %u, which its type %s does not declare", c->name, i, c->type->name);
  const struct sim_out_decl *d = &g->decls[i];
  g_assert(d->key);
  if (((d->flags & SIM_OUT_REAL) != 0) != real)
    g_error("%s: output %s.%s is declared %s, reported as %s", c->name, g->name, d->key,
            real ? "an integer" : "real", real ? "real" : "an integer");
  return d;
}

static char *comp_key(const struct sim_comp *c, const struct sim_out_decl *d) {
  if (d->flags & SIM_OUT_TOTAL) {
    const char *dot = strchr(c->name, '.');
    return g_strdup_printf("%.*s.%s", dot ? (int)(dot - c->name) : (int)strlen(c->name), c->name,
                           d->key);
  }
  return g_strdup_printf("%s.%s", c->name, d->key);
}

void sim_out_int(struct sim_report *r, const struct sim_comp *c, unsigned i, int64_t v) {
  const struct sim_out_decl *d = comp_decl(c, i, false);
  report_add(r, comp_key(c, d), d, c->id)->i = v;
}

void sim_out_real(struct sim_report *r, const struct sim_comp *c, unsigned i, double v) {
  const struct sim_out_decl *d = comp_decl(c, i, true);
  report_add(r, comp_key(c, d), d, c->id)->d = v;
}

static char *put_key(const char *prefix, const struct sim_out_decl *d) {
  return prefix ? g_strdup_printf("%s.%s", prefix, d->key) : g_strdup(d->key);
}

void sim_out_put_int(struct sim_report *r, const char *prefix, const struct sim_out_decl *d,
                     int64_t v) {
  g_assert(d && d->key && !(d->flags & SIM_OUT_REAL));
  report_add(r, put_key(prefix, d), d, SIM_OUT_NO_COMP)->i = v;
}

void sim_out_put_real(struct sim_report *r, const char *prefix, const struct sim_out_decl *d,
                      double v) {
  g_assert(d && d->key && (d->flags & SIM_OUT_REAL));
  report_add(r, put_key(prefix, d), d, SIM_OUT_NO_COMP)->d = v;
}

void sim_report_phase(struct sim_report *r, const struct sim_out_decl *d, int64_t v) {
  g_assert(d && (d->flags & SIM_OUT_PHASE));
  struct sim_report *ph = r->phases;
  if (!ph) return;
  size_t i = ph->index ? GPOINTER_TO_SIZE(g_hash_table_lookup(ph->index, d->key)) : 0;
  if (!i) {
    sim_out_put_int(ph, NULL, d, 0);
    i = ph->n;
  }
  g_assert(ph->entries[i - 1].decl == d); /* one phase, one declaration */
  ph->entries[i - 1].i += v;
}

void sim_report_sum(struct sim_report *into, const struct sim_report *from) {
  for (size_t k = 0; k < from->n; k++) {
    const struct sim_report_entry *e = &from->entries[k];
    size_t i = into->index ? GPOINTER_TO_SIZE(g_hash_table_lookup(into->index, e->key)) : 0;
    if (!i) {
      struct sim_report_entry *t = report_add(into, g_strdup(e->key), e->decl, SIM_OUT_NO_COMP);
      t->dim = e->dim;
      t->is_real = e->is_real;
      t->i = e->i;
      t->d = e->d;
      continue;
    }
    struct sim_report_entry *t = &into->entries[i - 1];
    g_assert(t->is_real == e->is_real);
    t->i += e->i;
    t->d += e->d;
  }
}

const struct sim_report_entry *sim_out_get(const struct sim_report *r, const struct sim_comp *c,
                                           const struct sim_out_decl *d) {
  if (sim_outputs_index(c->type->outputs, d) < 0)
    g_error("%s: asked for output %s, which its type %s does not declare (a handle of "
            "another type)", c->name, d && d->key ? d->key : "(null)", c->type->name);
  size_t first = c->id < r->comp_cap ? r->comp_first[c->id] : 0;
  for (size_t k = first ? first - 1 : r->n; k < r->n && r->entries[k].comp == c->id; k++)
    if (r->entries[k].decl == d) return &r->entries[k];
  return NULL;
}

int64_t sim_out_value(const struct sim_report *r, const struct sim_comp *c,
                      const struct sim_out_decl *d) {
  const struct sim_report_entry *en = sim_out_get(r, c, d);
  if (!en) g_error("%s: output %s.%s was not reported", c->name, c->type->name, d->key);
  g_assert(!en->is_real);
  return en->i;
}

bool sim_out_check(const struct sim_report *r, size_t first, const struct sim_comp *c, char **err) {
  const struct sim_outputs *g = c->type->outputs;
  size_t n = g ? g->n_decls : 0;
  uint8_t *seen = g_new0(uint8_t, n + 1);
  bool ok = true;
  for (size_t k = first; k < r->n && ok; k++) {
    const struct sim_report_entry *en = &r->entries[k];
    int i = sim_outputs_index(g, en->decl);
    if (i < 0 || en->comp != c->id) {
      *err = g_strdup_printf("%s: reported %s, which its type %s does not declare", c->name,
                             en->key, c->type->name);
      ok = false;
    } else if (seen[i]++) {
      *err = g_strdup_printf("%s: reported %s twice", c->name, en->key);
      ok = false;
    }
  }
  for (size_t i = 0; i < n && ok; i++)
    if (!seen[i] && !(g->decls[i].flags & SIM_OUT_SOME)) {
      *err = g_strdup_printf("%s: never reported %s.%s, which its type %s declares", c->name,
                             c->name, g->decls[i].key, c->type->name);
      ok = false;
    }
  g_free(seen);
  return ok;
}
