/* Policies "copy" and "overlap": CPU-controlled discrete kernels with
 * host-initiated copies (CPU-free ICS23 Sec. 5.1.1, NVIDIA's multi-GPU
 * programming models jacobi). copy ("Baseline Copy"): the host launches
 * each compute phase's kernel and synchronizes with it, then issues
 * one-sided copies of the halos (cudaMemcpyAsync peer copies: cpu.build_cmd
 * each) and polls the incoming ones' flags before the next launch.
 * overlap ("Baseline Overlap", and Sec. 5.2.1's CPU-controlled pipelined
 * CG: one stream computes while the other communicates): lane 1 ops (a
 * stencil's boundary, pipelined CG's reduction) go on GPU queue 1, lane 0
 * on queue 0; the host waits for a kernel only when a copy of its data, a
 * sync or the end needs it. A library's collective is its kernel on the
 * lane's stream. A graph rank runs as a graph on the host (each kernel
 * launched and waited for once its dependencies hold). Under cpu.launch
 * graph the kernels launched back to back on one stream are a captured
 * graph, replayed (graph.c). */
#include "lower.h"

struct copy_state {
  uint32_t last[2];     /* each lane's latest kernel + 1, 0: none outstanding */
  struct pol_kern coll; /* the library's collective being written */
};

static void copy_prepare(struct pol_prep *pr) {
  pol_prep_form(pr, WL_FORM_DISCRETE);
  pol_prep_library(pr, false);
  pol_prep_loops(pr, POL_LOOPS_AT_SYNCS);
}

static void wait_lane(struct pol_low *L, int lane) {
  struct copy_state *s = L->state;
  if (!s->last[lane]) return;
  pol_add_host(L, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = s->last[lane] - 1});
  s->last[lane] = 0;
}

/* Kernel K launched on LANE's stream; with OVERLAP the host waits for it
 * only when it must. */
static void launched(struct pol_low *L, uint32_t k, int lane, bool overlap) {
  struct copy_state *s = L->state;
  s->last[lane] = k + 1;
  if (!overlap) wait_lane(L, lane);
}

/* A graph rank's op: its kernel (or calc on the CPU) launched and waited
 * for, its copy, its poll. */
static void copy_graph_op(struct pol_low *L, const struct wl_op *o) {
  switch (o->kind) {
  case WL_COMPUTE:
    if (o->on == WL_ON_CPU) {
      pol_add_host(L, (struct hstep){.kind = HS_COMPUTE, .time = pol_host_time(L, o)});
      break;
    }
    pol_add_host(L, (struct hstep){.kind = HS_WAIT_KERNEL,
                                   .kernel = pol_launch_compute(L, o, "compute", 0)});
    break;
  case WL_SEND: pol_host_send(L, o, false); break;
  case WL_RECV: pol_host_recv(L, o, false); break;
  case WL_QUIET: /* its puts' ACKs, counted on its flag */
    pol_add_host(L, (struct hstep){.kind = HS_WAIT_FLAG, .flag = o->flag, .value = o->count});
    break;
  default: g_assert_not_reached(); /* wl_program_check: no syncs in graphs */
  }
}

static bool copy_lower_as(bool overlap, struct pol_low *L, const struct wl_op *o, char **err) {
  struct copy_state *s = L->state;
  if (!o) { /* the end: every kernel waited for */
    wait_lane(L, 0);
    wait_lane(L, 1);
    pol_capture_graphs(L);
    return true;
  }
  int lane = overlap && wl_in_lane1(o) ? 1 : 0;
  if (L->span && L->span->region) { /* a library's collective: its kernel on the lane's stream */
    bool first, last;
    if (!pol_coll_op(L, &s->coll, o, &first, &last, err)) return false;
    if (!first) return true;
    if (L->graph) lane = 0;
    uint32_t qc = pol_add_qcmd(L, (struct qcmd){.kind = Q_KERNEL, .kernel = s->coll.id});
    pol_add_host(L, (struct hstep){.kind = HS_LAUNCH, .queue = (uint8_t)lane, .qcmd = qc});
    if (L->graph)
      pol_add_host(L, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = s->coll.id});
    else
      launched(L, s->coll.id, lane, overlap);
    return true;
  }
  if (L->graph) {
    copy_graph_op(L, o);
    return true;
  }
  switch (o->kind) {
  case WL_COMPUTE:
    launched(L, pol_launch_compute(L, o, lane ? "boundary" : "compute", (uint8_t)lane), lane, overlap);
    break;
  case WL_SEND:
    wait_lane(L, lane); /* the data is made */
    pol_host_send(L, o, false);
    break;
  case WL_RECV: pol_host_recv(L, o, false); break;
  case WL_SYNC:
    wait_lane(L, 0);
    wait_lane(L, 1);
    break;
  case WL_LOOP:
  case WL_END: /* after a sync (POL_LOOPS_AT_SYNCS): no kernel outstanding */
    g_assert(!s->last[0] && !s->last[1]);
    pol_add_host(L, pol_loop_hstep(o));
    break;
  default: g_assert_not_reached();
  }
  return true;
}

static bool copy_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  return copy_lower_as(false, L, o, err);
}

static bool overlap_lower(struct pol_low *L, const struct wl_op *o, char **err) {
  return copy_lower_as(true, L, o, err);
}

static bool overlap_check(const struct scenario *sc, const struct hw_config *hw,
                          const struct wl_sum *total, char **err) {
  (void)total;
  if (hw->gpu->queues >= 2) return true;
  *err = wl_error_at(sc, "hardware.gpu.queues",
                     "expected at least 2 for policy overlap (a second stream), got %" G_GINT64_FORMAT,
                     hw->gpu->queues);
  return false;
}

const struct pol_type pol_copy = {
    .name = "copy",
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
    .state_size = sizeof(struct copy_state),
    .prepare = copy_prepare,
    .lower = copy_lower,
    .watcher = pol_watch_cpu,
    .computes_on = pol_on_either,
    .done = CPU_OUT(MAIN_DONE),
};

const struct pol_type pol_overlap = {
    .name = "overlap",
    .libs = POL_LIBS_STREAM,
    .lib_default = COMM_MPI,
    .state_size = sizeof(struct copy_state),
    .check = overlap_check,
    .prepare = copy_prepare,
    .lower = overlap_lower,
    .watcher = pol_watch_cpu,
    .computes_on = pol_on_either,
    .done = CPU_OUT(MAIN_DONE),
};
