/* Lowering a range of a rank's ops into one kernel (lower.h: pol_kernel_of),
 * shared by the policies that keep work on the GPU between host steps:
 * gputn, ghn, cpufree and monolithic (the whole program), p2p (a kernel per
 * sync-delimited segment). Lane 1 ops (communication and the work that
 * feeds it, e.g. a stencil's boundary or pipelined CG's reduction) run on
 * WGs of their own beside the lane 0 grid: thread-block specialization
 * (CPU-free ICS23 Sec. 3.3-3.4). Pack phases (wl_op.pack) are dropped: in
 * one kernel the data leaves by the WGs' own stores. */
#include "lower.h"

/* The shape of the kernel for ops [A, B) of a rank. */
struct kshape {
  uint32_t n0;    /* lane 0 WGs (after folding) */
  uint32_t n1;    /* lane 1 WGs, after the lane 0 ones; 0: no lane 1 */
  uint32_t fold;  /* lane 0 WGs each do the work of `fold` of the program's */
  bool persistent; /* sized to residency (the whole program, or a range that waits) */
};

static struct wl_wgsel fold_sel(struct wl_wgsel sel, uint32_t fold);

/* Whether folding by FOLD keeps every lane 0 selector of ops [A, B) of R
 * a progression. */
static bool folds_selectors(const struct wl_rank *r, size_t a, size_t b, uint32_t fold) {
  for (size_t i = a; i < b; i++) {
    const struct wl_op *o = &r->ops[i];
    if (o->lane == 0 && o->sel.count > 0 && fold_sel(o->sel, fold).count == 0) return false;
  }
  return true;
}

static bool shape_of(const char *name, const struct wl_program *p, uint32_t rank, size_t a,
                     size_t b, const struct hw_config *hw, bool whole, struct kshape *k,
                     char **err) {
  const struct wl_rank *r = &p->ranks[rank];
  uint32_t n0 = 0, n1 = 0;
  bool lane1 = false, waits = false;
  for (size_t i = a; i < b; i++) {
    const struct wl_op *o = &r->ops[i];
    if (o->kind == WL_COMPUTE && o->pack) continue;
    waits |= o->kind == WL_SYNC || o->kind == WL_RECV;
    if (o->lane == 1) {
      lane1 = true;
      if (o->kind == WL_COMPUTE) n1 = MAX(n1, o->n_wgs);
      continue;
    }
    if (o->kind != WL_COMPUTE) continue;
    if (n0 && n0 != o->n_wgs) {
      *err = g_strdup_printf("%s: rank %u has compute phases of different WG counts (one kernel "
                             "needs one grid)", name, rank);
      return false;
    }
    n0 = o->n_wgs;
  }
  if (!n0) n0 = 1;
  if (lane1 && !n1) n1 = 1;
  /* A persistent kernel (the whole program, or a range that waits: waves
   * and waits do not mix, a wave's WGs waiting for data that later waves
   * make would hold every slot) is sized to residency, as real persistent
   * codes are: cus * occupancy WGs in all, lane 0 WG w looping over tiles
   * [w * fold, (w + 1) * fold), fold = ceil(tiles / lane 0 WGs). */
  struct kernel persistent = {.persistent = true};
  uint32_t slots = (uint32_t)(hw->gpu->cus * gpu_occupancy(hw->gpu, &persistent)), fold = 1;
  if ((whole || waits) && n0 + n1 > slots) {
    if (n1 >= slots) {
      *err = g_strdup_printf("%s: rank %u: expected fewer than %u communication WGs, got %u",
                             name, rank, slots, n1);
      return false;
    }
    fold = (n0 + (slots - n1) - 1) / (slots - n1);
    /* A fold up to twice that which keeps every selector a progression
     * (a halo's edge WGs stay the ones that send it) wins over the
     * smallest: otherwise every WG would make that send. */
    for (uint32_t f = fold; f <= 2 * fold; f++)
      if (folds_selectors(r, a, b, f)) {
        fold = f;
        break;
      }
  }
  *k = (struct kshape){(n0 + fold - 1) / fold, n1, fold, whole || waits};
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
static struct wl_wgsel op_sel(const struct wl_op *o, const struct kshape *k) {
  if (o->kind == WL_SYNC) return (struct wl_wgsel){0, 0, 0};
  if (o->lane == 1) {
    uint32_t n = o->kind == WL_COMPUTE ? MIN(o->n_wgs, k->n1) : k->n1;
    if (o->sel.count) return (struct wl_wgsel){k->n0 + o->sel.first, o->sel.stride, o->sel.count};
    return (struct wl_wgsel){k->n0, 1, n};
  }
  struct wl_wgsel s = fold_sel(o->sel, k->fold);
  if (s.count == 0 && k->n1) s = (struct wl_wgsel){0, 1, k->n0};
  return s;
}

static int32_t kernel_of(const char *name, const struct wl_program *p, uint32_t rank, size_t a,
                         size_t b, const struct hw_config *hw, bool whole, pol_send_step send,
                         struct pol_prog *pp, char **err) {
  const struct wl_rank *r = &p->ranks[rank];
  struct kshape k;
  if (!shape_of(name, p, rank, a, b, hw, whole, &k, err)) return -1;
  uint32_t wgs = k.n0 + k.n1;
  struct kstep *steps = g_new0(struct kstep, b - a);
  size_t n = 0;
  for (size_t i = a; i < b; i++) {
    const struct wl_op *o = &r->ops[i];
    struct wl_wgsel sel = op_sel(o, &k);
    if (o->parts > 1 && (k.n1 || wgs % o->parts)) {
      *err = g_strdup_printf("%s: rank %u op %zu: expected parts dividing the kernel's %u WGs "
                             "(and no communication WGs), got %u", name, rank, i, wgs, o->parts);
      g_free(steps);
      return -1;
    }
    struct kstep st = {0};
    switch (o->kind) {
    case WL_LOOP:
    case WL_END:
      /* Every WG runs the loop; the host's steps the sends add (gputn's
       * registrations) loop alike (empty host loops are dropped after). */
      steps[n++] = pol_loop_kstep(o);
      if (send) pol_add_host(pp, pol_loop_hstep(o));
      continue;
    case WL_COMPUTE: {
      /* A pack: the WGs that compute a face store it into the send
       * buffer themselves (and read a received one in place). */
      if (o->pack) continue;
      uint32_t f = o->lane == 1 ? 1 : k.fold;
      st = pol_compute_step(o, f);
      break;
    }
    case WL_SEND:
      if (!send) continue; /* the policy moves no data (monolithic) */
      st = send(p, rank, i, wgs, sel.count ? sel.count : wgs, pp);
      break;
    case WL_RECV:
      if (!send) continue;
      st = (struct kstep){.kind = KS_WAIT_FLAG, .flag = o->flag, .value = 1,
                          .flag_div = o->parts > 1 ? wgs / o->parts : 0};
      break;
    case WL_SYNC: st = (struct kstep){.kind = KS_BARRIER}; break;
    case WL_QUIET: /* every WG waits for the ACKs of the rank's puts */
      if (!send) continue;
      st = (struct kstep){.kind = KS_WAIT_FLAG, .flag = o->flag, .value = o->count};
      break;
    default: g_assert_not_reached();
    }
    st.sel_first = sel.first;
    st.sel_stride = sel.stride;
    st.sel_count = sel.count;
    steps[n++] = st;
  }
  uint32_t kid = pol_add_kernel(pp, name, wgs, steps, n);
  g_array_index(pp->kernels, struct kernel, kid).persistent = k.persistent;
  g_free(steps);
  return (int32_t)kid;
}

int32_t pol_kernel_of(const char *name, const struct wl_program *p, uint32_t rank, size_t a,
                      size_t b, const struct hw_config *hw, pol_send_step send,
                      struct pol_prog *pp, char **err) {
  return kernel_of(name, p, rank, a, b, hw, false, send, pp, err);
}

/* Removes host loops from step FROM on whose body is empty. */
static void drop_empty_loops(struct pol_prog *pp, guint from) {
  struct hstep *h = (struct hstep *)(void *)pp->host->data;
  guint n = from;
  for (guint i = from; i < pp->host->len; i++) {
    h[n++] = h[i];
    while (n >= from + 2 && h[n - 1].kind == HS_END && h[n - 2].kind == HS_LOOP) n -= 2;
  }
  g_array_set_size(pp->host, n);
}

bool pol_one_kernel(const char *name, const struct wl_program *p, uint32_t rank,
                    const struct hw_config *hw, pol_send_step send, struct pol_prog *pp,
                    char **err) {
  const struct wl_rank *r = &p->ranks[rank];
  if (r->n_ops == 0) return true;
  guint host_before = pp->host->len;
  int32_t k = kernel_of(name, p, rank, 0, r->n_ops, hw, true, send, pp, err);
  if (k < 0) return false;
  drop_empty_loops(pp, host_before);
  uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = (uint32_t)k});
  /* Host steps the sends asked for (gputn's registrations) follow the
   * launch: GPU-TN's relaxed synchronization (Sec. 3.2) lets them land
   * after the kernel started, off its critical path. */
  struct hstep launch = {.kind = HS_LAUNCH, .queue = 0, .qcmd = qc};
  g_array_insert_val(pp->host, host_before, launch);
  return true;
}

/* WGs per part of send O in a kernel of WGS WGs: all of them for one part
 * (a selector then narrows who arrives), else WGS / parts. */
uint32_t pol_part_div(const struct wl_op *o, uint32_t wgs) {
  return o->parts > 1 ? wgs / o->parts : wgs;
}

struct kstep pol_device_put(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                            size_t i, uint32_t wgs, struct pol_prog *pp) {
  const struct wl_op *o = &p->ranks[rank].ops[i];
  uint32_t first = 0;
  for (uint32_t j = 0; j < o->parts; j++) {
    uint32_t c = pol_add_cmd(pp, pol_put_part(pol, p, rank, i, NIC_PUT, j));
    if (j == 0) first = c;
  }
  return (struct kstep){.kind = KS_NIC_CMD, .cmd = first, .tag_div = pol_part_div(o, wgs)};
}

void pol_kernel_set_steps(struct pol_prog *pp, uint32_t k, struct kstep *steps, size_t n) {
  struct kernel *kk = &g_array_index(pp->kernels, struct kernel, k);
  for (guint j = 0; j < pp->steps->len; j++)
    if (g_ptr_array_index(pp->steps, j) == kk->steps) {
      g_free(pp->steps->pdata[j]);
      pp->steps->pdata[j] = steps;
      break;
    }
  kk->steps = steps;
  kk->n_steps = n;
}
