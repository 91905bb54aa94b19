/* Policy "gds", GPUDirect-Async-like (DESIGN.md Sec. 2; GPU-TN Sec. 1 and
 * 5.1 "GDS", Fig. 3): the CPU enqueues kernels and doorbells on one stream,
 * posting each put on the NIC just before the doorbell that rings it (in
 * program order, as libmp's mp_isend_on_stream does); the front end rings
 * the NIC when the kernel before the doorbell has completed. No CPU on the
 * send's path. The host waits for the stream only where the program says
 * it reads a value the GPU made (wl_host_sync) and at the end, on the latest
 * kernel or, where the stream ends in waits on flags, on a marker behind
 * them (Q_MARK, what cudaStreamSynchronize sees); the scalars
 * it copies home there (wl_host_copies) are copy commands on the stream,
 * each waited for on its completion flag (pageable memory: the CUDA
 * runtime returns from such a cudaMemcpyAsync once the copy is done), then
 * cpu.pageable_copy of the driver's staging work. */
#include "lower.h"

static bool stream_work_follows(const struct wl_program *p, uint32_t rank, size_t i) {
  const struct wl_rank *r = &p->ranks[rank];
  for (size_t k = i + 1; k < r->n_ops; k++)
    if (r->ops[k].kind == WL_COMPUTE || r->ops[k].kind == WL_SEND) return true;
  return r->work_after;
}

/* A receive that a later kernel or doorbell may depend on (a forwarded
 * chunk) is a stream wait-on-flag before it (the GPU's front end watches
 * the flag); one that ends the rank's stream work is noticed by the host
 * polling the flag in memory, as the target of GPU-TN Fig. 8 does. */
static uint8_t gds_watcher(const struct wl_program *p, uint32_t rank, size_t i) {
  return stream_work_follows(p, rank, i) ? DEV_GPU : DEV_CPU;
}

static void gds_launch(struct pol_prog *pp, struct qcmd qc) {
  uint32_t i = pol_add_qcmd(pp, qc);
  pol_add_host(pp, (struct hstep){.kind = HS_LAUNCH, .queue = 0, .qcmd = i});
}

static uint32_t gds_compute(const struct wl_op *o, struct pol_prog *pp) {
  const struct kstep step = pol_launch_step(o);
  uint32_t k = pol_add_kernel(pp, "compute", o->n_wgs, &step, 1);
  gds_launch(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = k});
  return k;
}

static void gds_recv(const struct wl_program *p, uint32_t rank, size_t i, struct pol_prog *pp) {
  uint32_t flag = p->ranks[rank].ops[i].flag;
  if (gds_watcher(p, rank, i) == DEV_GPU)
    gds_launch(pp, (struct qcmd){.kind = Q_WAIT_FLAG, .flag = flag, .value = 1});
  else
    pol_add_host(pp, (struct hstep){.kind = HS_WAIT_FLAG, .flag = flag, .value = 1});
}

/* The stream's waits on flags before op I of RANK (receives gds_watcher
 * gives the GPU, after the latest kernel): 1 + the index of the last of
 * them, else 0. Looks back to the latest kernel (a compute, a collective's
 * region) through the sends' doorbells (rung at once). A loop marker
 * ends the look with SIZE_MAX when AT_LOOPS (a sync inside a loop: the
 * command before it depends on the iteration, so a marker, which waits
 * for whatever comes before it); else the look goes through it (the
 * program's end: a loop's body ends as its last iteration does, and what
 * comes before a loop whose body holds no kernel nor such wait is what
 * comes before its iterations written out). */
static size_t waits_before(const struct wl_program *p, uint32_t rank, size_t i, bool at_loops) {
  const struct wl_rank *r = &p->ranks[rank];
  while (i-- > 0) {
    const struct wl_op *o = &r->ops[i];
    if (o->region || o->kind == WL_COMPUTE) return 0;
    if (at_loops && (o->kind == WL_LOOP || o->kind == WL_END)) return SIZE_MAX;
    if (o->kind == WL_RECV && gds_watcher(p, rank, i) == DEV_GPU) return i + 1;
  }
  return 0;
}

/* Whether the stream's last commands before sync I are waits on flags:
 * then a stream synchronize there waits for them too, and the host needs
 * a marker (Q_MARK) behind them, not the latest kernel's completion. */
static bool tail_waits(const struct wl_program *p, uint32_t rank, size_t i) {
  return waits_before(p, rank, i, true) > 0;
}

/* 1 + the index of the last of the waits on flags after RANK's last
 * kernel that its program ends with (else 0): the stream synchronize at
 * the end waits on a marker behind them (cudaStreamSynchronize sees the
 * stream's waits), else a wait that never ends would go unnoticed and the
 * host end before its stream. */
static size_t end_waits(const struct wl_program *p, uint32_t rank) {
  const struct wl_rank *r = &p->ranks[rank];
  if (r->work_after) return 0; /* a piece of a rank (goal.c): its end comes later */
  return waits_before(p, rank, r->n_ops, false);
}

/* Whether host-reading sync I waits on a marker: no copy home (whose
 * completion comes after the waits anyway) and waits at the stream's end. */
static bool needs_mark(const struct wl_program *p, uint32_t rank, size_t i) {
  return !p->ranks[rank].ops[i].copies_home && tail_waits(p, rank, i);
}

/* One flag per scalar copied home (Q_COPY_HOME) and per marker (Q_MARK),
 * after the program's. */
static uint32_t gds_flags(const struct wl_program *p, uint32_t rank) {
  const struct wl_rank *r = &p->ranks[rank];
  uint32_t n = 0;
  for (size_t i = 0; i < r->n_ops; i++)
    if (r->ops[i].kind == WL_SYNC && r->ops[i].host_reads)
      n += r->ops[i].copies_home + needs_mark(p, rank, i);
  return n + (end_waits(p, rank) > 0);
}

/* The host's wait at sync I, the stream's latest kernel LAST (-1: none):
 * the copies home one after another, then cudaStreamSynchronize: on a
 * marker after the stream's waits (needs_mark), and on LAST. *EXTRA: the
 * copies and markers lowered so far (their flags follow the program's). */
static void gds_host_reads(const struct wl_program *p, uint32_t rank, size_t i, int64_t last,
                           const struct hw_config *hw, struct pol_prog *pp, uint32_t *extra) {
  const struct wl_op *o = &p->ranks[rank].ops[i];
  for (uint8_t k = 0; k < o->copies_home; k++) {
    uint32_t flag = p->ranks[rank].n_flags + 1 + (*extra)++;
    gds_launch(pp, (struct qcmd){.kind = Q_COPY_HOME, .flag = flag, .bytes = 8});
    pol_add_host(pp, (struct hstep){.kind = HS_WAIT_FLAG, .flag = flag, .value = 1,
                                    .stream_sync = 1});
    if (hw->cpu && hw->cpu->pageable_copy > 0)
      pol_add_host(pp, (struct hstep){.kind = HS_COMPUTE, .time = hw->cpu->pageable_copy});
  }
  if (needs_mark(p, rank, i)) {
    uint32_t flag = p->ranks[rank].n_flags + 1 + (*extra)++;
    gds_launch(pp, (struct qcmd){.kind = Q_MARK, .flag = flag});
    pol_add_host(pp, (struct hstep){.kind = HS_WAIT_FLAG, .flag = flag, .value = 1,
                                    .stream_sync = 1});
  }
  /* The synchronize as a kernel wait (counted; met already after a
   * marker, whose flag follows the kernel's completion record). */
  if (last >= 0) pol_add_host(pp, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = (uint32_t)last});
}

static bool gds_lower(const struct wl_program *p, uint32_t rank, const struct hw_config *hw,
                      struct pol_prog *pp, char **err) {
  const struct wl_rank *r = &p->ranks[rank];
  /* The n-th send is posted as id n, in program order, just before the
   * stream command that rings it; in a loop, execution j posts and rings
   * n + j * sends: the ids of the program written out, each live once. */
  uint32_t post = pp->post_next, extra = 0;
  uint32_t sends = pp->post_stride ? pp->post_stride : wl_count(p, rank, WL_SEND);
  int64_t last = -1; /* the latest kernel on the stream */
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    if (pol_coll_starts(p, rank, i)) { /* a library's collective: one kernel on the stream */
      size_t end;
      int32_t k = pol_coll_kernel(p, rank, i, &end, hw, pp, err);
      if (k < 0) return false;
      gds_launch(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = (uint32_t)k});
      last = k;
      i = end - 1;
      continue;
    }
    switch (o->kind) {
    case WL_COMPUTE: last = gds_compute(o, pp); break;
    case WL_SEND: {
      struct nic_cmd c = pol_put_for(&pol_gds, p, rank, i, NIC_POST);
      c.cmd_id = ++post;
      pol_add_host(pp, (struct hstep){.kind = HS_NIC_CMD, .cmd = pol_add_cmd(pp, c),
                                      .id_stride = sends});
      gds_launch(pp, (struct qcmd){.kind = Q_DOORBELL, .cmd_id = post, .id_stride = sends});
      break;
    }
    case WL_RECV: gds_recv(p, rank, i, pp); break;
    case WL_QUIET: /* the host waits for its puts' ACKs */
      pol_add_host(pp, (struct hstep){.kind = HS_WAIT_FLAG, .flag = o->flag, .value = o->count});
      break;
    case WL_SYNC: /* kernels on one stream: each boundary is a sync */
      if (o->host_reads && (last >= 0 || needs_mark(p, rank, i))) /* it waits for the stream */
        gds_host_reads(p, rank, i, last, hw, pp, &extra);
      break;
    case WL_LOOP:
    case WL_END: pol_add_host(pp, pol_loop_hstep(o)); break;
    default: g_assert_not_reached();
    }
  }
  /* The stream's work is done when its last kernel is (a stream
   * synchronize at the end; at once when it ended already), or when a
   * marker behind its waits after that kernel reaches the front end. */
  size_t tail = end_waits(p, rank);
  if (tail) { /* a wait that never ends is named as the op the host is stuck at */
    uint32_t flag = r->n_flags + 1 + extra++;
    gds_launch(pp, (struct qcmd){.kind = Q_MARK, .flag = flag});
    pol_add_host(pp, (struct hstep){.kind = HS_WAIT_FLAG, .flag = flag, .value = 1,
                                    .stream_sync = 1, .op = (uint32_t)tail});
  }
  if (last >= 0) pol_add_host(pp, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = (uint32_t)last});
  return true;
}

/* The measured rank's time: its host is done (for a receiving rank, when it
 * noticed the flag). */
const struct pol_type pol_gds = {
    .name = "gds",
    .extra_flags = gds_flags,
    .recv_watcher = gds_watcher,
    .lower = gds_lower,
    .done = CPU_OUT(MAIN_DONE),
    .graph = {.gpu = true},
    .loops = true,
    .peel_last = true, /* a receive's watcher looks at what follows it */
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
    .host_quiet = true,
    .op_by_op = true, /* a GOAL schedule streams (workloads/inputs/goal.c) */
};
