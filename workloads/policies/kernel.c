/* A kernel of many ops, written op by op (lower.h: pol_kern_open,
 * pol_kern_op), shared by the policies that keep work on the GPU between
 * host steps: gputn, ghn, cpufree and monolithic (the whole program), p2p
 * (a kernel per sync-delimited span), and a library's collective under
 * any policy. Its grid comes from the span's shape (summary.h), known
 * before its first op. Lane 1 ops (communication and the work that feeds
 * it, e.g. a stencil's boundary or pipelined CG's reduction) run on WGs of
 * their own beside the lane 0 grid: thread-block specialization (CPU-free
 * ICS23 Sec. 3.3-3.4). Pack phases (wl_op.pack) are dropped: in one kernel
 * the data leaves by the WGs' own stores. What fusing costs a step and
 * what it saves (the autonomous-execution compiler study, Baydamirli, Ben-Nun
 * and Unat, Sec. III-A): steps of other grids loop over their tiles in a
 * persistent kernel's grid (step_fold), a reduction runs at the kernel's
 * one block size (block_cost), and a sync whose dependency stays in a
 * block is a tile sync, not a grid barrier (wl_tile_sync). */
#include "lower.h"

static struct wl_wgsel fold_sel(struct wl_wgsel sel, uint32_t fold);

/* Whether folding by FOLD keeps every lane 0 selector of SHAPE a progression. */
static bool folds_selectors(const struct wl_shape *h, uint32_t fold) {
  for (uint32_t i = 0; i < h->n_sels; i++)
    if (fold_sel(h->sels[i], fold).count == 0) return false;
  return true;
}

bool pol_kern_open(struct pol_low *L, struct pol_kern *k, const char *name,
                   const struct wl_shape *h, bool whole, bool pad, pol_send_step send,
                   char **err) {
  const struct hw_config *hw = L->env->hw;
  /* Phases of different grids share one only in a persistent kernel, each
   * looping over its own tiles (the autonomous-execution study's
   * grid-stride loops, Sec. III-A1: step_fold). */
  if (h->mixed && !whole && !h->waits) {
    *err = g_strdup_printf("%s: rank %u has compute phases of different WG counts (one kernel "
                           "needs one grid)", name, L->rank);
    return false;
  }
  uint32_t n0 = h->n0 ? h->n0 : 1, n1 = h->lane1 && !h->n1 ? 1 : h->n1;
  /* A persistent kernel (the whole program, or a range that waits: waves
   * and waits do not mix, a wave's WGs waiting for data that later waves
   * make would hold every slot) is sized to residency, as real persistent
   * codes are: cus * occupancy WGs in all, lane 0 WG w looping over tiles
   * [w * fold, (w + 1) * fold), fold = ceil(tiles / lane 0 WGs). */
  struct kernel persistent = {.persistent = true};
  uint32_t slots = (uint32_t)(hw->gpu->cus * gpu_occupancy(hw->gpu, &persistent)), fold = 1;
  if ((whole || h->waits) && n0 + n1 > slots) {
    if (n1 >= slots) {
      *err = g_strdup_printf("%s: rank %u: expected fewer than %u communication WGs, got %u",
                             name, L->rank, slots, n1);
      return false;
    }
    fold = (n0 + (slots - n1) - 1) / (slots - n1);
    /* A fold up to twice that which keeps every selector a progression
     * (a halo's edge WGs stay the ones that send it) wins over the
     * smallest: otherwise every WG would make that send. */
    for (uint32_t f = fold; f <= 2 * fold; f++)
      if (folds_selectors(h, f)) {
        fold = f;
        break;
      }
  }
  *k = (struct pol_kern){.n0 = (n0 + fold - 1) / fold, .n1 = n1, .fold = fold, .name = name,
                         .send = send, .nmax = n0, .mixed = h->mixed};
  /* PAD: a grid-synchronized persistent kernel is launched at residency
   * whatever its work (the CPU-free code's nvshmemx_collective_launch_
   * query_gridsize, cooperative launches): the WGs the work leaves over
   * only join its device-wide barriers, which wait for all of them. Not
   * with sends in parts (their parts divide the work's WGs). */
  bool syncs = L->sum->syncs > 0, parts = L->sum->pieces > L->sum->sends;
  if (pad && whole && syncs && !parts && k->n0 + k->n1 < slots)
    k->idle = slots - k->n0 - k->n1;
  k->id = pol_kernel_open(L, name, k->n0 + k->n1 + k->idle, whole || h->waits);
  return true;
}

/* SEL of the program's WGs as the folded WGs that cover them (WG w does
 * the work of WGs w*FOLD .. w*FOLD + FOLD - 1); all of them (count 0) when
 * the image is not a progression. */
static struct wl_wgsel fold_sel(struct wl_wgsel sel, uint32_t fold) {
  if (fold == 1 || sel.count == 0) return sel;
  uint32_t stride = sel.stride ? sel.stride : 1;
  /* A stride of at most FOLD moves the image by 0 or 1 WG a step: every
   * folded WG from the first's to the last's covers a selected one. */
  if (stride <= fold || sel.count == 1) {
    uint32_t first = sel.first / fold, last = (sel.first + (sel.count - 1) * stride) / fold;
    return (struct wl_wgsel){first, 1, last - first + 1};
  }
  if (stride % fold == 0) return (struct wl_wgsel){sel.first / fold, stride / fold, sel.count};
  return (struct wl_wgsel){0, 0, 0};
}

/* The WGs of kernel K that perform op O. */
static struct wl_wgsel op_sel(const struct wl_op *o, const struct pol_kern *k) {
  if (o->kind == WL_SYNC) return (struct wl_wgsel){0, 0, 0};
  if (wl_in_lane1(o)) {
    uint32_t n = o->kind == WL_COMPUTE ? MIN(o->n_wgs, k->n1) : k->n1;
    if (o->sel.count) return (struct wl_wgsel){k->n0 + o->sel.first, o->sel.stride, o->sel.count};
    return (struct wl_wgsel){k->n0, 1, n};
  }
  struct wl_wgsel s = fold_sel(o->sel, k->fold);
  if (s.count == 0 && (k->n1 || k->idle)) s = (struct wl_wgsel){0, 1, k->n0};
  return s;
}

/* A lane 0 compute op O of a grid other than the kernel's largest (a
 * persistent kernel of steps of different sizes): its WGs' work spread
 * over the kernel's n0 WGs, each of the first ceil(n / fold) doing FOLD of
 * them, fold = ceil(n / n0); the others skip it (into *FOLD and *SEL). */
static void step_fold(const struct wl_op *o, const struct pol_kern *k, uint32_t *fold,
                      struct wl_wgsel *sel) {
  uint32_t f = (o->n_wgs + k->n0 - 1) / k->n0, active = (o->n_wgs + f - 1) / f;
  *fold = f;
  *sel = (struct wl_wgsel){0, 1, MIN(active, k->n0)};
}

/* What running compute op O (its kernel KD) at the GPU's block size
 * (wg_items) costs a WG doing FOLD WGs' work, beyond its roofline time,
 * where the op's own kernel would use smaller blocks (wl_block): the fused
 * kernel's single launch size (the study, Sec. III-A2: reductions want
 * warp-sized blocks, a persistent kernel runs 1024-thread ones). The WG is
 * cut into tiles of a row each (tiled_partition, Sec. III-A2, Fig. 2):
 * tile = the row's length rounded up to a power of two, at least the op's
 * block, at most wg_items (a row of unknown length: wg_items); its
 * wg_items / tile tiles reduce rows side by side, each over levels =
 * log2(tile / block) more tree levels than a block of the op's own size,
 * each level a block-level sync (gpu.tile_sync):
 *   ceil(ceil(segments / n_wgs) * FOLD / (wg_items / tile)) * levels * tile_sync. */
static sim_time block_cost(const struct wl_kernel *kd, const struct wl_op *o, uint32_t fold,
                           const struct gpu_config *gpu) {
  uint64_t items = (uint64_t)gpu->wg_items;
  if (!kd->block || kd->segments <= 0 || kd->block >= items || o->time_ps > 0) return 0;
  uint64_t tile = kd->block;
  while (tile < items && (kd->segment_len <= 0 || tile < (uint64_t)kd->segment_len)) tile *= 2;
  if (tile > items) tile = items;
  uint32_t levels = 0;
  while (((uint64_t)kd->block << levels) < tile) levels++;
  uint64_t tiles = items / tile;
  uint64_t rows = (uint64_t)((kd->segments + o->n_wgs - 1) / o->n_wgs) * fold;
  return (sim_time)((rows + tiles - 1) / tiles * levels) * gpu->tile_sync;
}

bool pol_kern_op(struct pol_low *L, struct pol_kern *k, const struct wl_op *o, char **err) {
  uint32_t wgs = k->n0 + k->n1 + k->idle;
  struct wl_wgsel sel = op_sel(o, k);
  if (o->parts > 1 && (k->n1 || wgs % o->parts)) {
    *err = g_strdup_printf("%s: rank %u op %" G_GUINT64_FORMAT ": expected parts dividing the "
                           "kernel's %u WGs (and no communication WGs), got %u",
                           k->name, L->rank, L->index, wgs, o->parts);
    return false;
  }
  struct kstep st = {0};
  switch (o->kind) {
  case WL_LOOP:
  case WL_END:
    /* Every WG runs the loop; the host's steps the sends add (gputn's
     * registrations) loop alike (an empty host loop is dropped). */
    pol_kernel_step(L, k->id, pol_loop_kstep(o));
    if (k->host_loops) pol_host_loop(L, o);
    return true;
  case WL_COMPUTE: {
    /* A pack: the WGs that compute a face store it into the send buffer
     * themselves (and read a received one in place). */
    if (o->pack) return true;
    const struct wl_kernel *kd = pol_kernel_of(L, o);
    uint32_t fold = wl_in_lane1(o) ? 1 : k->fold;
    if (k->mixed && !wl_in_lane1(o) && o->n_wgs != k->nmax) step_fold(o, k, &fold, &sel);
    st = pol_compute_step(kd, o, fold);
    sim_time extra = block_cost(kd, o, fold, L->env->hw->gpu);
    if (extra > 0) { /* the compute, then its reduction's extra tree levels */
      st.sel_first = sel.first;
      st.sel_stride = sel.stride;
      st.sel_count = sel.count;
      pol_kernel_step(L, k->id, st);
      st = (struct kstep){.kind = KS_COMPUTE, .time = extra};
    }
    break;
  }
  case WL_SEND:
    if (!k->send) return true; /* the policy moves no data (monolithic) */
    st = k->send(L, o, wgs, sel.count ? sel.count : wgs);
    break;
  case WL_RECV:
    if (!k->send) return true;
    st = (struct kstep){.kind = KS_WAIT_FLAG, .flag = pol_recv_flag(L, o), .value = 1,
                        .flag_div = o->parts > 1 ? wgs / o->parts : 0};
    break;
  case WL_SYNC:
    /* A dependency within each tile: a block-level sync per tile the WG
     * holds, no grid barrier (the study's tile-level sync, Sec. III-A2). */
    st = o->tile ? (struct kstep){.kind = KS_COMPUTE,
                                  .time = L->env->hw->gpu->tile_sync * (wl_in_lane1(o) ? 1 : k->fold)}
                 : (struct kstep){.kind = KS_BARRIER};
    break;
  case WL_QUIET: /* every WG waits for the ACKs of the rank's puts */
    if (!k->send) return true;
    st = (struct kstep){.kind = KS_WAIT_FLAG, .flag = o->flag, .value = o->count};
    break;
  default: g_assert_not_reached();
  }
  st.sel_first = sel.first;
  st.sel_stride = sel.stride;
  st.sel_count = sel.count;
  pol_kernel_step(L, k->id, st);
  return true;
}

/* WGs per part of send O in a kernel of WGS WGs: all of them for one part
 * (a selector then narrows who arrives), else WGS / parts. */
uint32_t pol_part_div(const struct wl_op *o, uint32_t wgs) {
  return o->parts > 1 ? wgs / o->parts : wgs;
}

struct kstep pol_device_put(struct pol_low *L, const struct wl_op *o, uint32_t wgs) {
  uint32_t first = 0;
  for (uint32_t j = 0; j < o->parts; j++) {
    uint32_t c = pol_add_cmd(L, pol_put_part(L, o, NIC_PUT, DEV_GPU, j));
    if (j == 0) first = c;
  }
  return (struct kstep){.kind = KS_NIC_CMD, .cmd = first, .tag_div = pol_part_div(o, wgs)};
}

bool pol_one_kernel_op(struct pol_low *L, struct pol_kern *k, bool *started, const char *name,
                       bool whole, bool pad, pol_send_step send, const struct wl_op *o,
                       char **err) {
  if (!*started) {
    if (!pol_kern_open(L, k, name, &L->sum->all, whole, pad, send, err)) return false;
    k->host_loops = send != NULL;
    uint32_t qc = pol_add_qcmd(L, (struct qcmd){.kind = Q_KERNEL, .kernel = k->id});
    pol_add_host(L, (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = qc});
    *started = true;
  }
  return pol_kern_op(L, k, o, err);
}
