/* A scenario's points (see points.h): loading and binding each sweep point,
 * and running a point's policies. */
#include "points.h"

#include "workload.h"

void pts_free(struct points *p) {
  for (size_t i = 0; i < p->n; i++) scenario_free(p->sc[i]);
  g_free(p->sc);
  g_free(p->pick);
  sw_plan_free(p->plan);
  sc_node_free(p->base);
  *p = (struct points){0};
}

bool pts_add(struct points *p, struct scenario *sc, char **err) {
  p->sc = g_renew(struct scenario *, p->sc, p->n + 1);
  p->sc[p->n++] = sc;
  return wl_check(sc, err); /* everything run would reject */
}

bool *pts_pick_parse(const char *text, size_t n, char **err) {
  bool *pick = g_new0(bool, n ? n : 1);
  char **parts = g_strsplit(text, ",", -1);
  bool ok = n > 0 && parts[0] != NULL;
  for (char **q = parts; ok && *q; q++) {
    char **ends = g_strsplit(*q, "-", 3);
    guint64 lo = 0, hi = 0;
    ok = ends[0] && (!ends[1] || !ends[2]) &&
         g_ascii_string_to_unsigned(ends[0], 10, 0, n - 1, &lo, NULL) &&
         (!ends[1] || g_ascii_string_to_unsigned(ends[1], 10, lo, n - 1, &hi, NULL));
    if (ok && !ends[1]) hi = lo;
    for (guint64 i = lo; ok && i <= hi; i++) pick[i] = true;
    g_strfreev(ends);
  }
  g_strfreev(parts);
  if (ok) return pick;
  g_free(pick);
  if (err)
    *err = g_strdup_printf("trigsim: --points: expected point numbers or ranges in [0, %zu] "
                           "(\"0,3-5\"; --dump-config numbers them), got %s", n ? n - 1 : 0, text);
  return NULL;
}

bool pts_load(const char *path, char **sets, const guint64 *seed, struct points *p, char **err) {
  return pts_load_some(path, sets, seed, NULL, p, err);
}

bool pts_load_some(const char *path, char **sets, const guint64 *seed, const char *points,
                   struct points *p, char **err) {
  size_t n_sets = sets ? g_strv_length(sets) : 0;
  *p = (struct points){0};
  p->base = sc_load_scenario_tree(path, (const char *const *)sets, n_sets, err);
  if (!p->base) return false;
  const struct sc_node *sweep = sc_map_get(p->base, "sweep");
  if (sweep && !(p->plan = sw_plan_parse(sweep, err))) return false;
  size_t n = p->plan ? p->plan->n_points : 1;
  if (points && !(p->pick = pts_pick_parse(points, n, err))) return false;
  while (p->n < n) {
    size_t i = p->n;
    struct sc_node *tree = sc_node_copy(p->base);
    if (p->plan && !sw_apply_point(p->plan, i, tree, err)) {
      sc_node_free(tree);
      return false;
    }
    struct scenario *sc = scenario_from_tree(tree, path, &wl_catalog, err);
    if (!sc) return false;
    if (!pts_picked(p, i)) { /* bound, not checked: it does not run */
      p->sc = g_renew(struct scenario *, p->sc, p->n + 1);
      p->sc[p->n++] = sc;
    } else if (!pts_add(p, sc, err)) {
      return false;
    }
    if (seed) sc->seed = *seed;
    if (p->plan) sc->seed = sw_seed(sc->seed, sw_point_rep(p->plan, i));
  }
  return true;
}

bool pts_run_point(void *user, size_t i, struct sim_result **runs, size_t *n_runs, char **err) {
  const struct points *pts = user;
  const struct scenario *sc = pts->sc[i];
  *runs = g_new0(struct sim_result, sc->n_policies);
  for (*n_runs = 0; *n_runs < sc->n_policies;) {
    struct sim_result *r = &(*runs)[*n_runs];
    sim_result_init(r, sc->policies[*n_runs]);
    (*n_runs)++;
    if (!wl_run(sc, *n_runs - 1, NULL, r, err)) return false;
  }
  return true;
}
