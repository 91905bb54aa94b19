/* validate-real's cases as scenarios (calib.h, issue 28 "validate what
 * runs"): each case is the measured profile plus a workload, a policy and
 * one node, loaded, checked and run through the catalog exactly as
 * `trigsim run PROFILE --set ...` runs it; the prediction is its time per
 * iteration. DESIGN.md Sec. 9. */
#include "calib.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#include "result.h"
#include "scenario.h"
#include "workload.h"

const char *calib_case_name(const struct calib_case *c, char *buf, size_t n) {
  switch (c->kind) {
  case CASE_SYNC: return "sync";
  case CASE_ASYNC: return "async";
  case CASE_PERSIST: g_snprintf(buf, n, "pers%" PRId64, c->k); return buf;
  case CASE_CG: return "cg";
  case CASE_STORE: return "store";
  default: return "pingpong";
  }
}

bool calib_case_host_paced(const struct calib_case *c) {
  return c->kind == CASE_SYNC || c->kind == CASE_ASYNC || c->kind == CASE_CG;
}

char **calib_case_sets(const struct calib_case *c, const char *const *extra) {
  GPtrArray *a = g_ptr_array_new();
  for (size_t i = 0; extra && extra[i]; i++) g_ptr_array_add(a, g_strdup(extra[i]));
  g_ptr_array_add(a, g_strdup("hardware.network.nodes=1"));
  switch (c->kind) {
  case CASE_SYNC:
  case CASE_ASYNC:
  case CASE_PERSIST:
    /* The Jacobi loop (kloop): hdn launches and waits for each kernel;
     * gds enqueues all on a stream, one wait; cpufree one persistent
     * kernel of cus x k WGs, a device-wide barrier an iteration. */
    g_ptr_array_add(a, g_strdup_printf("workload={kind: kloop, grid: %" PRId64 ", iterations: %d, "
                                       "sync: %s}",
                                       c->size, c->iters, c->kind == CASE_SYNC ? "true" : "false"));
    g_ptr_array_add(a, g_strdup_printf("policies=[%s]", c->kind == CASE_SYNC    ? "hdn"
                                                        : c->kind == CASE_ASYNC ? "gds"
                                                                                : "cpufree"));
    if (c->kind == CASE_PERSIST) {
      g_ptr_array_add(a, g_strdup_printf("hardware.gpu.wgs_per_cu=%" PRId64, c->k));
      g_ptr_array_add(a, g_strdup("hardware.gpu.persistent_regs=0"));
    }
    break;
  case CASE_CG: {
    /* Standard CG (the cg workload) on one rank under gds: its dots copied
     * home and waited for, its iteration's end waited for; or one of its
     * kernels alone, back to back (calibrate's class fits). */
    static const char *const only[] = {"iteration", "spmv", "dot", "axpy"};
    g_ptr_array_add(a, g_strdup_printf("workload={kind: cg, source: poisson, dim: 2, n: %" PRId64
                                       ", rows_per_wg: %d, variant: standard, iterations: %d, "
                                       "kernels: %s}",
                                       c->size, CALIB_ITEMS, c->iters, only[c->only & 3]));
    g_ptr_array_add(a, g_strdup("policies=[gds]"));
    break;
  }
  default:
    g_ptr_array_add(a, g_strdup_printf("workload={kind: signal, mode: %s, iterations: %d}",
                                       c->kind == CASE_STORE ? "store" : "pingpong", c->iters));
    g_ptr_array_add(a, g_strdup("policies=[none]"));
    break;
  }
  g_ptr_array_add(a, NULL);
  return (char **)g_ptr_array_free(a, FALSE);
}

/* Total simulated time (ps) of case C on PROFILE with EXTRA sets. */
static bool case_total(const char *profile, const struct calib_case *c, const char *const *extra,
                       int64_t *total_ps, char **err) {
  char **sets = calib_case_sets(c, extra);
  struct scenario *sc =
      scenario_load(profile, (const char *const *)sets, g_strv_length(sets), &wl_catalog, err);
  g_strfreev(sets);
  if (!sc) return false;
  bool ok = wl_check(sc, err);
  struct sim_result r;
  sim_result_init(&r, sc->policies[0]);
  ok = ok && wl_run(sc, 0, NULL, &r, err);
  if (ok) *total_ps = r.total_ps;
  sim_result_clear(&r);
  scenario_free(sc);
  return ok;
}

bool calib_case_predict(const char *profile, const struct calib_case *c, const char *const *extra,
                        int64_t *per_iter_ps, char **err) {
  int64_t t;
  if (c->kind == CASE_PINGPONG) { /* a round trip: the launch and the first taken off */
    struct calib_case two = *c;
    two.iters = 2 * c->iters;
    int64_t t2;
    if (!case_total(profile, c, extra, &t, err) || !case_total(profile, &two, extra, &t2, err))
      return false;
    *per_iter_ps = (t2 - t + c->iters / 2) / c->iters;
    return true;
  }
  if (!case_total(profile, c, extra, &t, err)) return false;
  *per_iter_ps = (t + c->iters / 2) / c->iters;
  return true;
}
