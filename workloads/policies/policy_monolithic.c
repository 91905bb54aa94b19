/* Policy "monolithic", a monolithic device-initiated program whose only
 * costs besides compute are grid and device-wide barriers (CPU-free ICS23
 * Sec. 4.2: one cooperative kernel; grid.sync() inside a GPU,
 * nvshmem_barrier_all() across GPUs): one persistent kernel; data movement
 * is assumed free (sends and receives dropped). A sync that data crossed
 * GPUs before (a receive since the previous sync: a halo, a reduction, a
 * barrier) is a grid barrier, then a dissemination barrier across all
 * ranks (ceil(log2 N) rounds of a zero-byte device-initiated put with a
 * signal, each waited for by WG 0), then a grid barrier again, as the CUDA
 * samples' PeerGroup::sync() (Samples/4_CUDA_Libraries/
 * conjugateGradientMultiDeviceCG: grid.sync(), a flag barrier across GPUs,
 * grid.sync()); any other sync is a grid barrier alone (their plain
 * cg::sync(grid)). A lower bound on what moving the control path onto the
 * GPU can reach. */
#include "lower.h"

static uint32_t rounds(uint32_t n) {
  uint32_t k = 0;
  while ((1u << k) < n) k++;
  return k;
}

static uint32_t monolithic_flags(const struct wl_program *p, uint32_t rank) {
  (void)rank;
  return rounds(p->n_ranks);
}

/* The barrier's steps for the M-th sync (1-based): round k puts to rank
 * (rank + 2^k) mod N, which counts it on its flag n_flags + 1 + k. */
static size_t barrier_steps(const struct wl_program *p, uint32_t rank, uint32_t m,
                            const uint32_t *cmds, struct kstep *out) {
  uint32_t n = rounds(p->n_ranks);
  size_t j = 0;
  out[j++] = (struct kstep){.kind = KS_BARRIER};
  for (uint32_t k = 0; k < n; k++) {
    out[j++] = (struct kstep){.kind = KS_NIC_CMD, .cmd = cmds[k], .only_wg = 1};
    out[j++] = (struct kstep){.kind = KS_WAIT_FLAG, .flag = p->ranks[rank].n_flags + 1 + k,
                              .value = m, .only_wg = 1};
  }
  out[j++] = (struct kstep){.kind = KS_BARRIER};
  return j;
}

/* Per sync of RANK, in order: whether a receive comes between it and the
 * sync before (g_free). */
static bool *syncs_after_data(const struct wl_program *p, uint32_t rank, uint32_t syncs) {
  const struct wl_rank *r = &p->ranks[rank];
  bool *cross = g_new0(bool, syncs ? syncs : 1), recv = false;
  uint32_t m = 0;
  for (size_t i = 0; i < r->n_ops; i++) {
    if (r->ops[i].kind == WL_RECV) recv = true;
    if (r->ops[i].kind != WL_SYNC) continue;
    cross[m++] = recv;
    recv = false;
  }
  return cross;
}

static bool monolithic_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                             struct pol_prog *pp, char **err) {
  const struct wl_rank *r = &p->ranks[rank];
  if (r->n_ops == 0) return true;
  uint32_t n = rounds(p->n_ranks), syncs = wl_count(p, rank, WL_SYNC);
  uint32_t *cmds = g_new(uint32_t, n ? n : 1);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t peer = (rank + (1u << k)) % p->n_ranks;
    cmds[k] = pol_add_cmd(pp, (struct nic_cmd){.op = NIC_PUT, .dst_node = peer, .bytes = 0,
                                               .threshold = 1,
                                               .remote = {.id = p->ranks[peer].n_flags + 1 + k,
                                                          .watcher = DEV_GPU}});
  }
  int32_t k = pol_kernel_of("monolithic", p, rank, 0, r->n_ops, hw, NULL, pp, err);
  if (k < 0) {
    g_free(cmds);
    return false;
  }
  const struct kernel *kk = &g_array_index(pp->kernels, struct kernel, (guint)k);
  size_t cap = kk->n_steps + (size_t)syncs * (2 * n + 1);
  struct kstep *steps = g_new0(struct kstep, cap ? cap : 1);
  bool *cross = syncs_after_data(p, rank, syncs);
  size_t j = 0;
  uint32_t m = 0, s = 0; /* peer barriers so far, syncs so far */
  for (size_t i = 0; i < kk->n_steps; i++) {
    if (kk->steps[i].kind == KS_BARRIER && cross[s++])
      j += barrier_steps(p, rank, ++m, cmds, steps + j);
    else
      steps[j++] = kk->steps[i];
  }
  pol_kernel_set_steps(pp, (uint32_t)k, steps, j);
  g_free(cross);
  g_free(cmds);
  uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = (uint32_t)k});
  pol_add_host(pp, (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = qc});
  return true;
}

const struct pol_type pol_monolithic = {
    .name = "monolithic",
    .extra_flags = monolithic_flags,
    .recv_watcher = pol_watch_gpu,
    .lower = monolithic_lower,
    .done = GPU_OUT(WG_LAST_END),
    .graph = {.gpu = true},
    .one_kernel = true, /* a rank without syncs: one kernel of its computes */
    .libs = 1u << COMM_NVSHMEM,
    .lib_default = COMM_NVSHMEM,
};
