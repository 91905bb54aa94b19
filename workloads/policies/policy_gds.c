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
 * cpu.pageable_copy of the driver's staging work. Op by op: what an op's
 * lowering needs of the ops before it is kept in the rank's state, and of
 * the ops after a receive only whether stream work follows it
 * (pol_recv_work_after), so a schedule streams as well. Under cpu.launch
 * graph the kernels it launches back to back (no doorbell, wait or loop
 * marker between them) are one captured graph, replayed by one call
 * (graph.c; CUDA Graphs, as CuPy and DaCe programs run by stream capture).
 * Lane 1 work the code runs on a stream of its own (WL_LANE_STREAM: the
 * CPU-Free study's CPU-controlled pipelined CG reduces its dots on
 * communicationStream while the SpMV runs on mainStream,
 * CG/src/baseline/discrete-pipelined.cu) goes on GPU queue 1 where the GPU
 * has two (gpu.queues >= 2): its kernels and collectives; the scalars the
 * next host-reading sync copies home follow it there (its cudaMemcpyAsync
 * and synchronize on that stream), then the host synchronizes the main
 * stream. A sync the host does not read at waits for it from the host
 * (no cross-stream event is modelled); its sends and receives stay on the
 * main stream. */
#include "lower.h"

struct gds_state {
  uint32_t post;        /* sends posted so far: the next one's NIC command id - 1 */
  uint32_t last;        /* the stream's latest kernel + 1, 0: none */
  /* Looking back from the next op to the latest kernel (a compute, a
   * collective's), through the sends' doorbells (rung at once): whether a
   * wait on a flag (a receive the GPU watches) or, LOOPS, a loop marker
   * comes first (a sync inside a loop: the command before it depends on
   * the iteration, so a marker, which waits for whatever comes before
   * it); the last such wait + 1, loop markers looked through (the
   * program's end: a loop's body ends as its last iteration does). */
  bool tail_loops;
  uint64_t tail;
  struct pol_kern coll; /* the library's collective being written */
  uint32_t last1;       /* the second stream's latest kernel + 1, 0: none outstanding */
};

static void gds_prepare(struct pol_prep *pr) {
  pol_prep_form(pr, WL_FORM_DISCRETE);
  pol_prep_library(pr, false);
  /* A receive's watcher looks at what follows it: every iteration of a
   * loop has one or the same body after it. */
  pol_prep_loops(pr, POL_LOOPS_PEELED);
  pol_prep_order(pr);
  pol_prep_coll_kernels(pr); /* a library's collective: a kernel of its own (pol_coll_op) */
}

/* A receive that a later kernel or doorbell may depend on (a forwarded
 * chunk) is a stream wait-on-flag before it (the GPU's front end watches
 * the flag); one that ends the rank's stream work is noticed by the host
 * polling the flag in memory, as the target of GPU-TN Fig. 8 does. */
static uint8_t gds_watcher(const struct pol_recv *r) {
  return pol_recv_work_after(r) ? DEV_GPU : DEV_CPU;
}

static void gds_launch_on(struct pol_low *L, struct qcmd qc, uint8_t queue) {
  uint32_t i = pol_add_qcmd(L, qc);
  pol_add_host(L, (struct hstep){.kind = HS_LAUNCH, .queue = queue, .qcmd = i});
}

static void gds_launch(struct pol_low *L, struct qcmd qc) { gds_launch_on(L, qc, 0); }

/* Whether op O goes on the second stream (WL_LANE_STREAM, two queues). */
static bool gds_second(const struct pol_low *L, const struct wl_op *o) {
  return o->lane == WL_LANE_STREAM && L->env->hw->gpu && L->env->hw->gpu->queues >= 2;
}

/* The host waits for the second stream's latest kernel, if any. */
static void gds_wait_second(struct pol_low *L) {
  struct gds_state *s = L->state;
  if (!s->last1) return;
  pol_add_host(L, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = s->last1 - 1});
  s->last1 = 0;
}

/* Kernel K is the stream's latest: no wait on a flag after it. */
static void gds_kernel(struct pol_low *L, uint32_t k) {
  struct gds_state *s = L->state;
  s->last = k + 1;
  s->tail_loops = false;
  s->tail = 0;
}

/* The host's wait at host-reading sync O: the copies home one after
 * another, then cudaStreamSynchronize: on a marker behind the stream's
 * waits, when it ends in some and copies nothing home (a copy's
 * completion comes after them anyway), and on the latest kernel. */
static void gds_host_reads(struct pol_low *L, const struct wl_op *o) {
  struct gds_state *s = L->state;
  const struct cpu_config *cpu = L->env->hw->cpu;
  bool mark = !o->copies_home && s->tail_loops;
  /* Nothing on the stream to wait for; a scalar copied home is a copy on
   * it either way (calib28). The copies follow the second stream's work
   * where it has some (its results), on that stream. */
  uint8_t copies_on = s->last1 ? 1 : 0;
  if (!o->copies_home) gds_wait_second(L);
  s->last1 = 0;
  if (!s->last && !mark && !o->copies_home) return;
  for (uint8_t k = 0; k < o->copies_home; k++) {
    uint32_t flag = pol_flag_new(L);
    gds_launch_on(L, (struct qcmd){.kind = Q_COPY_HOME, .flag = flag, .bytes = 8}, copies_on);
    pol_add_host(L, (struct hstep){.kind = HS_WAIT_FLAG, .flag = flag, .value = 1,
                                   .stream_sync = 1});
    if (cpu && cpu->pageable_copy > 0)
      pol_add_host(L, (struct hstep){.kind = HS_COMPUTE, .time = cpu->pageable_copy});
  }
  if (mark) {
    uint32_t flag = pol_flag_new(L);
    gds_launch(L, (struct qcmd){.kind = Q_MARK, .flag = flag});
    pol_add_host(L, (struct hstep){.kind = HS_WAIT_FLAG, .flag = flag, .value = 1,
                                   .stream_sync = 1});
  }
  /* The synchronize as a kernel wait (counted; met already after a
   * marker, whose flag follows the kernel's completion record). */
  if (s->last) pol_add_host(L, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = s->last - 1});
}

/* The stream's work is done when its last kernel is (a stream synchronize
 * at the end; at once when it ended already), or when a marker behind its
 * waits after that kernel reaches the front end: a wait that never ends is
 * named as the op the host is stuck at. */
static void gds_end(struct pol_low *L) {
  struct gds_state *s = L->state;
  gds_wait_second(L);
  if (s->tail) {
    uint32_t flag = pol_flag_new(L);
    gds_launch(L, (struct qcmd){.kind = Q_MARK, .flag = flag});
    pol_add_host(L, (struct hstep){.kind = HS_WAIT_FLAG, .flag = flag, .value = 1,
                                   .stream_sync = 1, .op = (uint32_t)s->tail});
  }
  if (s->last) pol_add_host(L, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = s->last - 1});
}

static bool gds_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  struct gds_state *s = L->state;
  if (!o) {
    gds_end(L);
    pol_capture_graphs(L);
    return true;
  }
  if (L->span && L->span->region) { /* a library's collective: one kernel on the stream */
    bool first, last;
    if (!pol_coll_op(L, &s->coll, o, &first, &last, err)) return false;
    if (first && gds_second(L, o)) {
      gds_launch_on(L, (struct qcmd){.kind = Q_KERNEL, .kernel = s->coll.id}, 1);
      s->last1 = s->coll.id + 1;
    } else if (first) {
      gds_launch(L, (struct qcmd){.kind = Q_KERNEL, .kernel = s->coll.id});
      gds_kernel(L, s->coll.id);
    }
    return true;
  }
  /* The n-th send is posted as id n, in program order, just before the
   * stream command that rings it; in a loop, execution j posts and rings
   * n + j * sends: the ids of the program written out, each live once. */
  uint32_t sends = (uint32_t)MIN(L->sum->sends, UINT32_MAX);
  switch (o->kind) {
  case WL_COMPUTE: {
    if (gds_second(L, o)) {
      s->last1 = pol_launch_compute(L, o, "compute", 1) + 1;
      break;
    }
    uint32_t k = pol_launch_compute(L, o, "compute", 0);
    gds_kernel(L, k);
    break;
  }
  case WL_SEND: {
    struct nic_cmd c = pol_put_for(L, o, NIC_POST, DEV_CPU);
    c.cmd_id = ++s->post;
    pol_add_host(L, (struct hstep){.kind = HS_NIC_CMD, .cmd = pol_add_cmd(L, c),
                                   .id_stride = sends});
    gds_launch(L, (struct qcmd){.kind = Q_DOORBELL, .cmd_id = s->post, .id_stride = sends});
    break;
  }
  case WL_RECV: {
    uint32_t flag = pol_recv_flag(L, o);
    struct pol_recv r = pol_recv_of(L, o);
    if (gds_watcher(&r) == DEV_GPU) {
      gds_launch(L, (struct qcmd){.kind = Q_WAIT_FLAG, .flag = flag, .value = 1});
      s->tail_loops = true;
      s->tail = L->index + 1;
    } else {
      pol_add_host(L, (struct hstep){.kind = HS_WAIT_FLAG, .flag = flag, .value = 1});
    }
    break;
  }
  case WL_QUIET: /* the host waits for its puts' ACKs */
    pol_add_host(L, (struct hstep){.kind = HS_WAIT_FLAG, .flag = o->flag, .value = o->count});
    break;
  case WL_SYNC: /* kernels on one stream: each boundary is a sync */
    if (o->host_reads) gds_host_reads(L, o);
    else gds_wait_second(L);
    break;
  case WL_LOOP:
  case WL_END:
    gds_wait_second(L);
    s->tail_loops = true;
    pol_add_host(L, pol_loop_hstep(o));
    break;
  default: g_assert_not_reached();
  }
  return true;
}

/* The measured rank's time: its host is done (for a receiving rank, when it
 * noticed the flag). */
const struct pol_type pol_gds = {
    .name = "gds",
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
    .state_size = sizeof(struct gds_state),
    .prepare = gds_prepare,
    .lower = gds_lower,
    .watcher = gds_watcher,
    .computes_on = pol_on_gpu,
    .done = CPU_OUT(MAIN_DONE),
};
