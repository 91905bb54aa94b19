/* The kloop workload: one node's CPU runs a loop of 2D Jacobi kernels,
 * waiting for each (sync) or launching all and waiting once, the model
 * `trigsim validate-real` checks against real runs (tools/calib/). Its
 * compute time comes from the roofline, a fixed time, or is `measured`:
 * the real Jacobi kernel is timed on the attached OpenCL device (the
 * registered wl_device, workload.h) at that grid, once, and cached with
 * provenance (hardware in the loop). */
#include <glib.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "checks.h"
#include "input.h"
#include "kloop.h"
#include "outfile.h"
#include "units.h"
#include "workload.h"

struct kloop_config {
  int64_t grid;
  int64_t iterations;
  bool sync;
  char *compute_time;  /* "roofline", "measured" or a time */
  char *measure_cache; /* relative to the scenario's folder */
  int64_t device;
};

#define PAR_CONFIG struct kloop_config
static const struct par_decl kloop_decls[] = {
    PAR(grid, PAR_INT, "256", "16", "16384", "side N of the N x N grid (16x16-item WGs, 8 B a point)"),
    PAR(iterations, PAR_INT, "100", "1", "1000000", "Jacobi kernels in the loop"),
    PAR(sync, PAR_BOOL, "true", NULL, NULL,
      "the CPU waits for each kernel (true) or launches all and waits once (false)"),
    PAR(compute_time, PAR_STRING, "roofline", NULL, NULL,
      "a kernel's compute: roofline (gpu model), a time such as 5us, or measured (real kernel "
      "on the OpenCL device, cached in measure_cache)"),
    PAR(measure_cache, PAR_STRING, "measured-cache.yaml", NULL, NULL,
      "cache of measured kernel times, relative to the scenario's folder"),
    PAR(device, PAR_INT, "-1", "-1", "1024",
      "OpenCL device for measured (-1: the first GPU, else device 0)"),
};
#undef PAR_CONFIG

static bool kloop_check(const void *config, char **err) {
  const struct kloop_config *c = config;
  if (!strcmp(c->compute_time, "roofline") || !strcmp(c->compute_time, "measured")) return true;
  int64_t t;
  char *why = NULL;
  if (units_parse_int(c->compute_time, UNIT_TIME, &t, &why) && t > 0) return true;
  g_free(why);
  *err = g_strdup_printf("compute_time: expected roofline, measured or a positive time, got %s",
                         c->compute_time);
  return false;
}

const struct par_group kloop_params = {
    .name = "kloop",
    .doc = "one node: a loop of 2D Jacobi kernels, host-synchronized or not (validate-real)",
    .decls = kloop_decls,
    .n_decls = PAR_COUNT(kloop_decls),
    .config_size = sizeof(struct kloop_config),
    .check = kloop_check,
};

uint32_t kloop_jacobi_wgs(int64_t n) {
  int64_t side = (n + KLOOP_WG_SIDE - 1) / KLOOP_WG_SIDE;
  return (uint32_t)(side * side);
}

int64_t kloop_wg_bytes(void) {
  return (int64_t)KLOOP_WG_SIDE * KLOOP_WG_SIDE * KLOOP_BYTES_PER_POINT;
}

int64_t kloop_predict_run(const struct hw_config *hw, int64_t n, int iters, bool sync,
                          int64_t compute_ps, uint64_t *events) {
  g_assert(iters >= 1 && n >= 1);
  struct kstep step = {.kind = KS_COMPUTE, .kclass = KC_STENCIL};
  struct kernel k = {.name = "jacobi", .steps = &step, .n_steps = 1};
  if (compute_ps > 0) {
    step.time = compute_ps;
    k.n_wgs = 1;
  } else {
    step.flops = (int64_t)KLOOP_WG_SIDE * KLOOP_WG_SIDE * KLOOP_FLOPS_PER_POINT;
    step.bytes = kloop_wg_bytes();
    step.ws_bytes = 2 * n * n * 4;
    k.n_wgs = kloop_jacobi_wgs(n);
  }
  struct qcmd q = {.kind = Q_KERNEL, .kernel = 0};
  size_t n_host = sync ? 2 * (size_t)iters : (size_t)iters + 1;
  struct hstep *host = g_new0(struct hstep, n_host);
  size_t j = 0;
  for (int i = 0; i < iters; i++) {
    host[j++] = (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = 0};
    if (sync) host[j++] = (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = 0};
  }
  if (!sync) host[j++] = (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = 0};
  g_assert(j == n_host);
  struct nodeprog prog = {.kernels = &k, .n_kernels = 1, .qcmds = &q, .n_qcmds = 1,
                          .host = host, .n_host = n_host};
  int64_t total = sys_run_node(hw, &prog, events);
  g_free(host);
  return total;
}

/* Looks KEY up in the cache at PATH: true and *EXEC_PS when there. A
 * missing file is an empty cache; a broken one is an error (*ERR). */
static bool cache_get(const char *path, const char *key, int64_t *exec_ps, bool *found,
                      char **err) {
  *found = false;
  if (!g_file_test(path, G_FILE_TEST_EXISTS)) return true;
  struct sc_node *root = sc_load_file(path, err);
  if (!root) return false;
  const struct sc_node *e = sc_map_get(sc_map_get(root, "measured"), key);
  const struct sc_node *x = sc_map_get(e, "exec");
  bool ok = true;
  if (e) {
    char *why = NULL;
    char *kpath = g_strdup_printf("measured.%s.exec", key);
    if (!x || x->kind != SC_SCALAR || !units_parse_int(x->scalar, UNIT_TIME, exec_ps, &why)) {
      *err = sc_error_at(x ? x : e, kpath, "%s", why ? why : "expected a time, got none");
      ok = false;
    } else {
      *found = true;
    }
    g_free(why);
    g_free(kpath);
  }
  sc_node_free(root);
  return ok;
}

/* Appends one entry to the cache: the old text, then the new lines, through
 * a temporary file and a rename. */
static bool cache_put(const char *path, const char *key, const char *entry, char **err) {
  char *old = NULL;
  if (g_file_test(path, G_FILE_TEST_EXISTS) && !g_file_get_contents(path, &old, NULL, NULL)) {
    *err = g_strdup_printf("%s: cannot read the measurement cache", path);
    return false;
  }
  GString *s = g_string_new(old ? old : "# Kernel times measured by trigsim for `compute_time: "
                                        "measured` (configs/hw/README.md).\nmeasured:\n");
  g_string_append_printf(s, "  %s:\n%s", key, entry);
  bool ok = of_write_all(path, s->str, s->len, err);
  g_free(old);
  g_string_free(s, TRUE);
  return ok;
}

/* The measured execution span of the Jacobi kernel at CFG's grid, from the
 * cache or the device (then cached). With ctx->check_only, only whether
 * the cache has it or the device opens. */
static bool measured_exec(const struct wl_ctx *ctx, const struct kloop_config *cfg,
                          int64_t *exec_ps, char **err) {
  char *path = in_path_beside(ctx->sc->path, cfg->measure_cache);
  char *key = g_strdup_printf("jacobi-%" PRId64, cfg->grid);
  bool found = false, ok = cache_get(path, key, exec_ps, &found, err);
  if (ok && !found) {
    char *why = NULL, *name = NULL;
    const struct wl_device *d = ctx->device;
    double median_s = 0, spread = 0;
    enum { REPS = 31 };
    /* When only checking, that the device opens: it is measured when run. */
    bool have = d && (ctx->check_only
                          ? d->available(cfg->device, &why)
                          : d->jacobi_exec(cfg->device, cfg->grid, REPS, &median_s, &spread,
                                           &name, &why));
    if (!d) why = g_strdup("this build registers no OpenCL device");
    if (have && !ctx->check_only) {
      *exec_ps = (int64_t)(median_s * 1e12 + 0.5);
      GDateTime *now = g_date_time_new_now_utc();
      char *date = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
      char *entry = g_strdup_printf("    exec: %" PRId64 "ps  # median execution span (START..END)\n"
                                    "    spread: %.3f\n    repetitions: %d\n"
                                    "    device: \"%s\"\n    date: \"%s\"\n",
                                    *exec_ps, spread, REPS, name, date);
      ok = cache_put(path, key, entry, err);
      g_free(entry);
      g_free(date);
      g_date_time_unref(now);
    } else if (!have) {
      const struct sc_node *n =
          sc_map_get(sc_map_get(ctx->sc->root, "workload"), "compute_time");
      *err = sc_error_at(n ? n : ctx->sc->root, "workload.compute_time",
                         "expected a cached measurement %s in %s or an OpenCL device to take it, "
                         "got neither (%s)",
                         key, path, why ? why : "no device");
      ok = false;
    }
    g_free(why);
    g_free(name);
  }
  g_free(key);
  g_free(path);
  return ok;
}

enum kloop_out { KLOOP_OUT_PER_ITERATION, KLOOP_OUT_MEASURED_EXEC, KLOOP_OUT_KERNELS,
                 KLOOP_OUT_WGS_PER_KERNEL, KLOOP_OUT_COUNT };
static const struct sim_out_decl kloop_outs[] = {
    [KLOOP_OUT_PER_ITERATION] = OUT_F(per_iteration, UNIT_TIME, SIM_OUT_PHASE,
                                      "the loop's time over its iterations (rounded)"),
    [KLOOP_OUT_MEASURED_EXEC] = OUT_F(measured_exec, UNIT_TIME, SIM_OUT_SOME,
                                      "the kernel's execution span measured on the device "
                                      "(compute_time: measured only)"),
    [KLOOP_OUT_KERNELS] = OUT(kernels, UNIT_NONE, "kernels launched (the iterations)"),
    [KLOOP_OUT_WGS_PER_KERNEL] = OUT(wgs_per_kernel, UNIT_NONE,
                                     "work-groups of each kernel (1 with a given compute_time)"),
};
static SIM_OUT_GROUP(kloop_outputs, "kloop", "KEY (one run: no component prefix)", kloop_outs,
                     KLOOP_OUT_COUNT);

static bool kloop_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  const struct kloop_config *cfg = ctx->config;
  struct hw_config hw = wl_hw_of(ctx->sc);
  int64_t compute_ps = 0, exec_ps = 0;
  if (!strcmp(cfg->compute_time, "measured")) {
    if (!measured_exec(ctx, cfg, &exec_ps, err)) return false;
    if (ctx->check_only) return true;
    /* The model adds teardown_latency after the compute: take it off. */
    compute_ps = exec_ps - hw.gpu->teardown_latency;
    if (compute_ps < 1) compute_ps = 1;
  } else if (strcmp(cfg->compute_time, "roofline")) {
    char *why = NULL;
    bool ok = units_parse_int(cfg->compute_time, UNIT_TIME, &compute_ps, &why);
    g_assert(ok); /* checked at bind time */
  }
  if (ctx->check_only) return true;
  int iters = (int)cfg->iterations;
  out->total_ps = kloop_predict_run(&hw, cfg->grid, iters, cfg->sync, compute_ps, &out->events);
  sim_out_put_int(&out->phases, NULL, &kloop_outs[KLOOP_OUT_PER_ITERATION],
                  (out->total_ps + iters / 2) / iters);
  if (exec_ps > 0)
    sim_out_put_int(&out->counters, NULL, &kloop_outs[KLOOP_OUT_MEASURED_EXEC], exec_ps);
  sim_out_put_int(&out->counters, NULL, &kloop_outs[KLOOP_OUT_KERNELS], cfg->iterations);
  sim_out_put_int(&out->counters, NULL, &kloop_outs[KLOOP_OUT_WGS_PER_KERNEL],
                  compute_ps > 0 ? 1 : (int64_t)kloop_jacobi_wgs(cfg->grid));
  return true;
}

static const char *const kloop_policies[] = {"hdn"};

const struct wl_type wl_kloop = {
    .params = &kloop_params,
    .outputs = &kloop_outputs,
    .policies = kloop_policies,
    .n_policies = G_N_ELEMENTS(kloop_policies),
    .default_policy = "hdn",
    .run = kloop_run,
};
