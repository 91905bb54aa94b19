/* The catalog: the one table of hardware groups, workloads and policies a
 * scenario may name, and the join of workload kinds and the policy layer
 * (wl_ctx.run). Adding a workload or a hardware group is one line here. */
#include <glib.h>
#include <string.h>

#include "bus.h"
#include "cpu.h"
#include "gpu.h"
#include "nic.h"
#include "allreduce.h"
#include "cg.h"
#include "goal.h"
#include "yprog.h"
#include "jacobi.h"
#include "checks.h"
#include "library.h"
#include "lower.h"
#include "phold.h"
#include "ping.h"
#include "topology.h"
#include "workload.h"

/* The workload table: X(its wl_type, its parameter group), one line per
 * workload, in the order `trigsim params` lists them. Adding a workload is
 * its file plus one line here. */
#define WL_TABLE(X)                  \
  X(wl_phold, phold_params)          \
  X(wl_ping, ping_params)            \
  X(wl_jacobi2d, jacobi2d_params)    \
  X(wl_jacobi3d, jacobi3d_params)    \
  X(wl_allreduce, allreduce_params)  \
  X(wl_dlproject, dlproject_params)  \
  X(wl_cg, cg_params)                \
  X(wl_kloop, kloop_params)          \
  X(wl_signal, signal_params)        \
  X(wl_goal, goal_params)            \
  X(wl_yprog, program_params)       \
  X(wl_collective_wl, collective_params) \
  X(wl_ajacobi, ajacobi_params)      \
  X(wl_chain, chain_params)          \
  X(wl_chakra, chakra_params)

#define WL_DECLARE_(type, group) \
  extern const struct wl_type type; \
  extern const struct par_group group;
WL_TABLE(WL_DECLARE_)
#define WL_TYPE_(type, group) &type,
#define WL_GROUP_(type, group) &group,
static const struct wl_type *const workloads[] = {WL_TABLE(WL_TYPE_)};
/* The scenario loader sees workloads by their parameter groups, in the
 * same order (checked by wl_type_of). */
static const struct par_group *const workload_groups[] = {WL_TABLE(WL_GROUP_)};

/* "none" (a workload that is not lowered: phold, signal), then the policy
 * table's (workloads/policies/table.c), as it is now. */
static const char *const *catalog_policies(size_t *n);

/* hardware.<group> sections, in the order scenario->hardware[] keeps. */
static const struct par_group *const hardware[] = {&gpu_params, &cpu_params, &bus_params,
                                                   &nic_params, &net_params, &comm_params};

static const char *wl_default_policy(size_t workload);

const struct sc_catalog wl_catalog = {
    .hardware = hardware,
    .n_hardware = G_N_ELEMENTS(hardware),
    .workloads = workload_groups,
    .n_workloads = G_N_ELEMENTS(workloads),
    .policies = catalog_policies,
    .default_policy = wl_default_policy,
};

const struct wl_type *wl_type_of(const struct scenario *sc) {
  g_assert(sc->catalog == &wl_catalog && sc->workload < G_N_ELEMENTS(workloads));
  g_assert(workloads[sc->workload]->params == workload_groups[sc->workload]);
  return workloads[sc->workload];
}

/* "none", then the names of the table's policies, kept while the table
 * does not change. */
static const char *const *table_names(size_t *n) {
  static GMutex lock;
  static const char **names;
  static size_t n_names;
  size_t n_pol;
  const struct pol_type *const *all = pol_all(&n_pol);
  g_mutex_lock(&lock);
  if (n_names != n_pol + 1) {
    /* The old array stays (a reader may hold it): a few pointers a policy. */
    names = g_new(const char *, n_pol + 1);
    names[0] = "none";
    for (size_t i = 0; i < n_pol; i++) names[i + 1] = all[i]->name;
    n_names = n_pol + 1;
  }
  const char *const *t = names;
  *n = n_names;
  g_mutex_unlock(&lock);
  return t;
}

static const char *const *catalog_policies(size_t *n) { return table_names(n); }

const char *const *wl_policies_of(const struct wl_type *w, size_t *n) {
  if (w->policies) {
    *n = w->n_policies;
    return w->policies;
  }
  const char *const *t = table_names(n);
  (*n)--;
  return t + 1;
}

/* Checks that the workload supports each policy the scenario lists; the
 * message points at the policies node. */
static bool wl_check_policies(const struct scenario *sc, char **err) {
  size_t n_can;
  const struct wl_type *w = wl_type_of(sc);
  const char *const *can = wl_policies_of(w, &n_can);
  for (size_t i = 0; i < sc->n_policies; i++) {
    bool ok = false;
    for (size_t k = 0; k < n_can && !ok; k++) ok = !strcmp(can[k], sc->policies[i]);
    if (ok) continue;
    const struct sc_node *n = sc_map_get(sc->root, "policies");
    if (n && n->kind == SC_SEQ && i < n->n_items) n = n->items[i]; /* the offending item */
    if (!n) n = sc_map_get(sc->root, "workload");
    GString *supported = g_string_new(NULL);
    for (size_t k = 0; k < n_can; k++)
      g_string_append_printf(supported, "%s%s", k ? ", " : "", can[k]);
    *err = sc_error_at(n ? n : sc->root, "policies", "expected a policy %s runs under (%s), got %s",
                       w->params->name, supported->str, sc->policies[i]);
    g_string_free(supported, TRUE);
    return false;
  }
  return true;
}

/* Whether MSG starts "file:line:col: " (as sc_error_at writes it). */
static bool has_location(const char *msg) {
  const char *p = strchr(msg, ':');
  for (int field = 0; p && field < 2; field++) {
    const char *d = p + 1;
    while (g_ascii_isdigit(*d)) d++;
    if (d == p + 1 || *d != ':') return false;
    p = d;
  }
  return p && p[1] == ' ';
}

/* Gives *ERR the location of policy K's `policies:` item (the workload
 * node when the list is the default) when it has none. */
static void locate(const struct scenario *sc, size_t k, char **err) {
  if (!*err || has_location(*err)) return;
  const char *name = sc->policies[k];
  char *own = g_strdup_printf("policy %s:", name);
  bool named = g_str_has_prefix(*err, own) ||
               (g_str_has_prefix(*err, name) && (*err)[strlen(name)] == ':');
  g_free(own);
  const struct sc_node *n = sc_map_get(sc->root, "policies");
  if (n && n->kind == SC_SEQ && k < n->n_items) n = n->items[k];
  if (!n) n = sc_node_near(sc->root, "workload");
  char *m = named ? sc_error_at(n, "policies", "%s", *err)
                  : sc_error_at(n, "policies", "policy %s: %s", name, *err);
  g_free(*err);
  *err = m;
}

static const struct wl_device *device;

void wl_set_device(const struct wl_device *d) { device = d; }

/* wl_ctx.run: P under POLICY on the scenario's hardware (pol_run). */
static bool run_program(const struct wl_ctx *ctx, struct wl_program *p, const char *policy,
                        struct sim_result *out, char **err) {
  struct hw_config hw = wl_hw_of(ctx->sc);
  return pol_run(p, policy, &hw, ctx, out, err);
}

/* wl_ctx.computes_on: the policy's hook. */
static bool computes_on(const struct wl_ctx *ctx, uint8_t where) {
  const struct pol_type *pol = pol_find(ctx->policy);
  return !pol || pol->computes_on(where);
}

/* wl_ctx.form: what the policy's prepare asks for. */
static uint8_t form_of(const struct wl_ctx *ctx) {
  const struct pol_type *pol = pol_find(ctx->policy);
  struct hw_config hw = wl_hw_of(ctx->sc);
  struct pol_prep pr = {.hw = &hw, .ctx = ctx, .pol = pol};
  if (pol) pol->prepare(&pr);
  return pr.form;
}

struct wl_ctx wl_ctx_of(const struct scenario *sc, size_t k) {
  return (struct wl_ctx){.sc = sc, .config = sc->workload_config, .policy = sc->policies[k],
                         .seed = sc->seed, .run = run_program, .run_source = pol_run_source,
                         .computes_on = computes_on, .form = form_of, .device = device,
                         .cp = sc->cp_off     ? SIM_CP_OFF
                               : sc->cp_chain ? SIM_CP_CHAIN
                                              : SIM_CP_SUM};
}

/* Runs CTX's workload W: its own run, or its program under CTX's policy. */
static bool run_kind(const struct wl_type *w, const struct wl_ctx *ctx, struct sim_result *out,
                     char **err) {
  if (w->run) return w->run(ctx, out, err);
  struct wl_program *p = w->program(ctx, err);
  if (!p) return false;
  bool ok = ctx->run(ctx, p, ctx->policy, out, err);
  wl_program_free(p);
  return ok;
}

bool wl_check(const struct scenario *sc, char **err) {
  if (!wl_check_policies(sc, err)) return false;
  const struct wl_type *w = wl_type_of(sc);
  for (size_t k = 0; k < sc->n_policies; k++) {
    struct wl_ctx ctx = wl_ctx_of(sc, k);
    ctx.check_only = true;
    if (w->check && !w->check(&ctx, err)) {
      locate(sc, k, err);
      return false;
    }
    struct sim_result r;
    sim_result_init(&r, sc->policies[k]);
    bool ok = run_kind(w, &ctx, &r, err);
    sim_result_clear(&r);
    if (!ok) {
      locate(sc, k, err);
      return false;
    }
  }
  return true;
}

/* Every entry of R a declared output (a model's or the workload's): a
 * key reported by string is a fault. */
static void check_declared(const struct wl_type *w, const struct sim_report *r) {
  for (size_t i = 0; i < r->n; i++)
    if (!r->entries[i].decl)
      g_error("workload %s reported %s, which no output group declares (sim/outputs.h)",
              w->params->name, r->entries[i].key);
}

bool wl_run(const struct scenario *sc, size_t k, struct trace *trace, struct sim_result *out,
            char **err) {
  struct wl_ctx ctx = wl_ctx_of(sc, k);
  ctx.trace = trace;
  if (trace && ctx.cp == SIM_CP_SUM) ctx.cp = SIM_CP_CHAIN; /* the trace marks the chain */
  const struct wl_type *w = wl_type_of(sc);
  bool ok = run_kind(w, &ctx, out, err);
  if (!ok) locate(sc, k, err);
  if (ok) {
    check_declared(w, &out->phases);
    check_declared(w, &out->counters);
  }
  return ok;
}

const struct sim_outputs *const *wl_outputs(size_t *n) {
  /* The models' groups, then each workload's own once, in the table's order. */
  static const struct sim_outputs *all[32];
  static size_t n_all;
  static gsize once;
  if (g_once_init_enter(&once)) {
    for (size_t i = 0; i < sys_n_outputs; i++) all[n_all++] = sys_outputs[i];
    for (size_t i = 0; i < G_N_ELEMENTS(workloads); i++) {
      const struct sim_outputs *g = workloads[i]->outputs;
      bool seen = !g;
      for (size_t k = 0; k < n_all && !seen; k++) seen = all[k] == g;
      if (!seen) all[n_all++] = g;
    }
    g_assert(n_all <= G_N_ELEMENTS(all));
    g_once_init_leave(&once, 1);
  }
  *n = n_all;
  return all;
}

static const char *wl_default_policy(size_t workload) {
  g_assert(workload < G_N_ELEMENTS(workloads));
  return workloads[workload]->default_policy;
}
