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

struct monolithic_state {
  bool started;
  struct pol_kern kern;
  uint32_t cmd0;   /* the barrier's puts: commands cmd0 .. cmd0 + rounds - 1 */
  uint32_t flag0;  /* its flags here: flag0 .. flag0 + rounds - 1 */
  uint32_t m;      /* barriers across GPUs so far */
  bool recv;       /* a receive since the last sync */
};

static void monolithic_prepare(struct pol_prep *pr) {
  pol_prep_form(pr, WL_FORM_FUSED);
  pol_prep_library(pr, false);
  pol_prep_loops(pr, POL_LOOPS_UNROLL);
  pol_prep_order(pr);
}

static uint32_t rounds(uint32_t n) {
  uint32_t k = 0;
  while ((1u << k) < n) k++;
  return k;
}

/* The rank's barrier flags and (when it has ops) the puts of its rounds:
 * round k puts to rank (rank + 2^k) mod N, which counts it on its flag k. */
static void barrier_setup(struct pol_low *L, bool puts) {
  struct monolithic_state *s = L->state;
  uint32_t n = L->env->n_ranks, k_max = rounds(n);
  for (uint32_t k = 0; k < k_max; k++) {
    if (!puts) break;
    uint32_t peer = (L->rank + (1u << k)) % n;
    uint32_t c = pol_add_cmd(L, (struct nic_cmd){.op = NIC_PUT, .dst_node = peer, .bytes = 0,
                                                 .threshold = 1,
                                                 .remote = {.id = pol_flags_of(L, peer) + 1 + k,
                                                            .watcher = DEV_GPU}});
    if (k == 0) s->cmd0 = c;
  }
  for (uint32_t k = 0; k < k_max; k++) {
    uint32_t f = pol_flag_new(L);
    if (k == 0) s->flag0 = f;
  }
}

/* The M-th barrier across GPUs (1-based): rounds of a put and WG 0's wait
 * for the round's put from the rank 2^k before, between grid barriers. */
static void barrier_steps(struct pol_low *L, uint32_t m) {
  struct monolithic_state *s = L->state;
  uint32_t n = rounds(L->env->n_ranks);
  pol_kernel_step(L, s->kern.id, (struct kstep){.kind = KS_BARRIER});
  for (uint32_t k = 0; k < n; k++) {
    pol_kernel_step(L, s->kern.id, (struct kstep){.kind = KS_NIC_CMD, .cmd = s->cmd0 + k, .only_wg = 1});
    pol_kernel_step(L, s->kern.id, (struct kstep){.kind = KS_WAIT_FLAG, .flag = s->flag0 + k,
                                                  .value = m, .only_wg = 1});
  }
  pol_kernel_step(L, s->kern.id, (struct kstep){.kind = KS_BARRIER});
}

static bool monolithic_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  struct monolithic_state *s = L->state;
  if (!o) {
    if (!s->started) barrier_setup(L, false); /* no op: its flags all the same */
    return true;
  }
  if (!s->started) {
    barrier_setup(L, true);
    pol_host_closed(L); /* the launch is all the host does */
  }
  if (o->kind == WL_SYNC && s->recv && s->started) {
    s->recv = false;
    barrier_steps(L, ++s->m);
    return true;
  }
  if (o->kind == WL_SYNC) s->recv = false;
  s->recv |= o->kind == WL_RECV;
  if (!pol_one_kernel_op(L, &s->kern, &s->started, "monolithic", false, NULL, o, err)) return false;
  return true;
}

const struct pol_type pol_monolithic = {
    .name = "monolithic",
    .libs = 1u << COMM_NVSHMEM,
    .lib_default = COMM_NVSHMEM,
    .state_size = sizeof(struct monolithic_state),
    .prepare = monolithic_prepare,
    .lower = monolithic_lower,
    .watcher = pol_watch_gpu,
    .computes_on = pol_on_gpu,
    .done = GPU_OUT(WG_LAST_END),
};
