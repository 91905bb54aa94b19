/* libFuzzer harness: the scenario loader with an include, overrides and a
 * sweep. The input is up to three parts, split at lines "#%include" and
 * "#%set": the main file, the file it may include as "inc.yaml", and
 * --set assignments one per line. Each point of the sweep (the first 4)
 * is bound against the catalog and, on up to 16 nodes, put through
 * everything `validate` does (wl_check: check hooks, programs built and
 * lowered); on more, through the workload's check hook (the size
 * arithmetic) per policy.
 * Anything but a clean error is a finding. */
#include <glib.h>
#include <glib/gstdio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzfile.h"
#include "scenario.h"
#include "sweep.h"
#include "lower.h"
#include "workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = g_strndup((const char *)data, size);
  char *inc = strstr(text, "\n#%include\n"), *set = strstr(text, "\n#%set\n");
  if (set) *set = '\0', set += 7;
  if (inc && (!set || inc < set)) *inc = '\0', inc += 11;
  else inc = NULL;
  const char *main_path = fz_write("main.yaml", text, strlen(text));
  fz_write("inc.yaml", inc ? inc : "", inc ? strlen(inc) : 0);
  char **sets = set ? g_strsplit(set, "\n", 8) : g_new0(char *, 1);
  GPtrArray *good = g_ptr_array_new();
  for (char **s = sets; *s; s++)
    if (**s) g_ptr_array_add(good, *s);

  char *err = NULL;
  struct sc_node *base =
      sc_load_scenario_tree(main_path, (const char *const *)good->pdata, good->len, &err);
  struct sw_plan *plan = NULL;
  const struct sc_node *sweep = base ? sc_map_get(base, "sweep") : NULL;
  if (sweep) plan = sw_plan_parse(sweep, &err);
  size_t n = base && (!sweep || plan) ? (plan ? MIN(plan->n_points, 4) : 1) : 0;
  for (size_t i = 0; i < n; i++) {
    g_free(err), err = NULL;
    struct sc_node *tree = sc_node_copy(base);
    if (plan && !sw_apply_point(plan, i, tree, &err)) {
      sc_node_free(tree);
      continue;
    }
    struct scenario *sc = scenario_from_tree(tree, main_path, &wl_catalog, &err);
    if (!sc) continue;
    const struct wl_type *w = wl_type_of(sc);
    if (wl_hw_of(sc).net->nodes <= 16) {
      wl_check(sc, &err);
    } else {
      bool ok = true;
      for (size_t k = 0; ok && k < sc->n_policies && w->check; k++) {
        struct wl_ctx ctx = {.sc = sc, .config = sc->workload_config, .policy = sc->policies[k],
                             .seed = sc->seed, .check_only = true};
        ok = w->check(&ctx, &err);
      }
    }
    scenario_free(sc);
  }
  g_free(err);
  sw_plan_free(plan);
  sc_node_free(base);
  g_ptr_array_free(good, TRUE);
  g_strfreev(sets);
  g_free(text);
  return 0;
}
