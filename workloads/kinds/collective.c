/* The collective workload: one collective called `iterations` times by
 * every rank, as nccl-tests' all_reduce_perf and OSU's osu_allreduce time
 * it, lowered by the run's communication library (hardware.comm.library,
 * coll.h). Counter collective.time_per_call_ps; collective.busbw_gbps is
 * nccl-tests' bus bandwidth (algbw x 2 (n - 1) / n for allreduce,
 * https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md). */
#include <glib.h>

#include "coll.h"
#include "checks.h"
#include "workload.h"

struct collective_config {
  int op;              /* enum wl_coll_kind (not `kind`: workload.kind names the workload) */
  int64_t size;        /* bytes per rank, as coll.h's wl_coll.bytes */
  int algorithm;       /* enum wl_coll_algo */
  int64_t elem;        /* bytes per element */
  int64_t flops_per_elem;
  int64_t wgs;         /* WGs of each reduction step; 0: too small to cost a phase */
  int64_t root;
  int64_t iterations;
};

#define PAR_CONFIG struct collective_config
static const struct par_decl collective_decls[] = {
    PAR(op, PAR_ENUM, "allreduce", NULL, NULL,
      "allreduce|reduce_scatter|allgather|bcast|reduce|alltoall|barrier",
      "the collective (coll.h: wl_coll_kind)"),
    PAR(size, PAR_SIZE, "8B", "0B", "16GiB", "bytes per rank (coll.h's wl_coll.bytes)"),
    PAR(algorithm, PAR_ENUM, "auto", NULL, NULL,
      "auto|ring|recursive_doubling|rabenseifner|binary_tree|double_binary_tree|binomial|"
      "dissemination|direct",
      "the algorithm; auto = the library's own choice (coll.h)"),
    PAR(elem, PAR_SIZE, "4B", "1B", "1KiB", "bytes per element of a reduction (float: 4B)"),
    PAR(flops_per_elem, PAR_INT, "1", "0", "1000000", "a reduction's flops per element"),
    PAR(wgs, PAR_INT, "1", "0", "65536",
      "work-groups of each reduction step; 0: a reduction too small to cost a phase"),
    PAR(root, PAR_INT, "0", "0", "16777215", "root rank of bcast and reduce"),
    PAR(iterations, PAR_INT, "1", "1", "1000000", "calls, one after the other"),
};
#undef PAR_CONFIG

const struct par_group collective_params = {
    .name = "collective",
    .doc = "one collective called repeatedly by every rank (nccl-tests / OSU style)",
    .decls = collective_decls,
    .n_decls = PAR_COUNT(collective_decls),
    .config_size = sizeof(struct collective_config),
};

static struct wl_coll coll_of(const struct collective_config *c) {
  return (struct wl_coll){.kind = (uint8_t)c->op, .algo = (uint8_t)c->algorithm,
                          .bytes = c->size, .elem = c->elem,
                          .flops_per_elem = c->flops_per_elem, .wgs = (uint32_t)c->wgs,
                          .root = (uint32_t)c->root, .tag = 0};
}

static bool collective_check(const struct wl_ctx *ctx, char **err) {
  const struct collective_config *c = ctx->config;
  struct hw_config hw = wl_hw_of(ctx->sc);
  if (!wl_coll_has_algo((enum wl_coll_kind)c->op, (enum wl_coll_algo)c->algorithm)) {
    char *list = wl_coll_algo_list((enum wl_coll_kind)c->op);
    *err = wl_error_at(ctx->sc, "workload.algorithm", "expected an algorithm of %s (%s), got %s",
                        wl_coll_names[c->op], list, wl_coll_algo_names[c->algorithm]);
    g_free(list);
    return false;
  }
  if (c->root >= hw.net->nodes) {
    *err = wl_error_at(ctx->sc, "workload.root",
                        "expected a rank below the %" G_GINT64_FORMAT " nodes, got %" G_GINT64_FORMAT,
                        hw.net->nodes, c->root);
    return false;
  }
  struct wl_coll one = coll_of(c);
  uint64_t ops = wl_mul_sat(wl_coll_max_ops(&one, (uint32_t)hw.net->nodes), (uint64_t)hw.net->nodes);
  return wl_check_at_most(ctx->sc, "workload.size", "a collective of at most this many ops", ops,
                           WL_MAX_OPS, err);
}

static struct wl_program *collective_program(const struct wl_ctx *ctx, char **err) {
  (void)err;
  const struct collective_config *c = ctx->config;
  struct hw_config hw = wl_hw_of(ctx->sc);
  uint32_t n = (uint32_t)hw.net->nodes;
  struct wl_program *p = wl_program_new(n);
  struct wl_coll one = coll_of(c);
  for (uint32_t r = 0; r < n; r++) {
    if (c->iterations > 1) wl_loop(p, r, (uint32_t)c->iterations);
    wl_collective(p, r, &one);
    if (c->iterations > 1) wl_end(p, r);
  }
  return p;
}

enum coll_out { COLL_OUT_TIME_PER_CALL, COLL_OUT_BUSBW, COLL_OUT_COUNT };
static const struct sim_out_decl coll_outs[] = {
    [COLL_OUT_TIME_PER_CALL] = OUT(time_per_call_ps, UNIT_TIME,
                                   "the run's time over its iterations (calls)"),
    [COLL_OUT_BUSBW] = OUT_F(busbw_gbps, UNIT_NONE, SIM_OUT_REAL,
                             "bus bandwidth in GB/s, as nccl-tests computes it (size over time "
                             "per call, times 2(n-1)/n for allreduce, (n-1)/n for reduce-scatter "
                             "and allgather, 1 for the others)"),
};
static SIM_OUT_GROUP(coll_outputs, "collective", "collective.KEY", coll_outs, COLL_OUT_COUNT);

static bool collective_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  struct wl_program *p = collective_program(ctx, err);
  if (!p) return false;
  bool ok = ctx->run(ctx, p, ctx->policy, out, err);
  wl_program_free(p);
  if (!ok) return false;
  const struct collective_config *c = ctx->config;
  int64_t per = out->total_ps / c->iterations;
  sim_out_put_int(&out->counters, "collective", &coll_outs[COLL_OUT_TIME_PER_CALL], per);
  struct hw_config hw = wl_hw_of(ctx->sc);
  double n = (double)hw.net->nodes, factor = 1;
  if (c->op == WL_ALLREDUCE) factor = 2 * (n - 1) / n;
  else if (c->op == WL_REDUCE_SCATTER || c->op == WL_ALLGATHER) factor = (n - 1) / n;
  sim_out_put_real(&out->counters, "collective", &coll_outs[COLL_OUT_BUSBW],
                   per > 0 ? (double)c->size / ((double)per * 1e-12) * factor / 1e9 : 0);
  return true;
}

const struct wl_type wl_collective_wl = {
    .params = &collective_params,
    .outputs = &coll_outputs,
    .default_policy = "hdn",
    .check = collective_check,
    .run = collective_run,
    .program = collective_program,
};
