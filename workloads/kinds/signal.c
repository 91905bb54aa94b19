/* The signal workload: one node's host and GPU signal each other through
 * memory (issue 28, the GPU <-> host signal path; measured by calibrate's
 * PoCL probe and by trigsim-cuda-probe). `store`: the host launches a
 * one-WG kernel whose WG stores a flag in host memory (KS_HOST_FLAG: the
 * release fence, then a posted write across the bus) and spins until it
 * sees it; the run ends when it does. `pingpong`: the host launches a
 * one-WG kernel, then `iterations` times stores a flag the kernel polls
 * (HS_SET_FLAG; KS_WAIT_FLAG at gpu.poll_interval) and spins on the
 * kernel's answer (KS_HOST_FLAG). No policy lowers host <-> kernel flags
 * (a program's messages run between ranks), so this kind writes its node
 * program itself and runs it on one node (policy none); validate-real
 * predicts its cases through it. */
#include <glib.h>
#include <stddef.h>

#include "checks.h"
#include "system.h"
#include "workload.h"

enum { SIG_STORE, SIG_PINGPONG };

struct signal_config {
  int mode;
  int64_t iterations;
};

#define PAR_CONFIG struct signal_config
static const struct par_decl signal_decls[] = {
    PAR(mode, PAR_ENUM, "pingpong", NULL, NULL, "store|pingpong",
      "store: a kernel's store seen by the spinning host, from the launch; pingpong: host and "
      "kernel take turns on two flags"),
    PAR(iterations, PAR_INT, "100", "1", "1000000", NULL, "pingpong: round trips"),
};
#undef PAR_CONFIG

const struct par_group signal_params = {
    .name = "signal",
    .doc = "one node: a kernel's store seen by the host, or host <-> kernel flag round trips",
    .decls = signal_decls,
    .n_decls = PAR_COUNT(signal_decls),
    .config_size = sizeof(struct signal_config),
};

enum signal_out { SIGNAL_OUT_ROUND_TRIPS, SIGNAL_OUT_COUNT };
static const struct sim_out_decl signal_outs[] = {
    [SIGNAL_OUT_ROUND_TRIPS] = OUT(round_trips, UNIT_NONE,
                                   "host <-> kernel round trips (mode pingpong; 0 for store)"),
};
static SIM_OUT_GROUP(signal_outputs, "signal", "KEY (one run: no component prefix)", signal_outs,
                     SIGNAL_OUT_COUNT);

/* Flag 1: the host's (the kernel polls it); flag 2: the kernel's. */
static bool signal_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  const struct signal_config *cfg = ctx->config;
  (void)err;
  if (ctx->check_only) return true;
  struct hw_config hw = wl_hw_of(ctx->sc);
  uint32_t n = cfg->mode == SIG_STORE ? 1 : (uint32_t)cfg->iterations;
  struct kstep ks[4];
  size_t nk = 0;
  if (cfg->mode == SIG_STORE) {
    ks[nk++] = (struct kstep){.kind = KS_HOST_FLAG, .flag = 2};
  } else {
    ks[nk++] = (struct kstep){.kind = KS_LOOP, .count = n};
    ks[nk++] = (struct kstep){.kind = KS_WAIT_FLAG, .flag = 1, .value = 1}; /* j + 1 in the loop */
    ks[nk++] = (struct kstep){.kind = KS_HOST_FLAG, .flag = 2};
    ks[nk++] = (struct kstep){.kind = KS_END};
  }
  struct kernel k = {.name = "signal", .n_wgs = 1, .persistent = true, .steps = ks, .n_steps = nk};
  struct qcmd q = {.kind = Q_KERNEL, .kernel = 0};
  GArray *host = g_array_new(FALSE, TRUE, sizeof(struct hstep));
  struct hstep launch = {.kind = HS_LAUNCH, .queue = 0, .qcmd = 0};
  g_array_append_val(host, launch);
  for (uint32_t i = 1; i <= n; i++) {
    if (cfg->mode == SIG_PINGPONG) {
      struct hstep set = {.kind = HS_SET_FLAG, .flag = 1};
      g_array_append_val(host, set);
    }
    struct hstep wait = {.kind = HS_WAIT_FLAG, .flag = 2, .value = i};
    g_array_append_val(host, wait);
  }
  struct nodeprog prog = {.kernels = &k, .n_kernels = 1, .qcmds = &q, .n_qcmds = 1,
                          .host = (const struct hstep *)(void *)host->data, .n_host = host->len,
                          .n_flags = 2};
  out->total_ps = sys_run_node(&hw, &prog, &out->events);
  g_array_free(host, TRUE);
  sim_out_put_int(&out->counters, NULL, &signal_outs[SIGNAL_OUT_ROUND_TRIPS],
                  cfg->mode == SIG_PINGPONG ? n : 0);
  return true;
}

static const char *const signal_policies[] = {"none"};

const struct wl_type wl_signal = {
    .params = &signal_params,
    .outputs = &signal_outputs,
    .policies = signal_policies,
    .n_policies = G_N_ELEMENTS(signal_policies),
    .run = signal_run,
};
