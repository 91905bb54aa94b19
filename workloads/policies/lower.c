/* The shared half of every policy (lower.h): the node-program writer, the
 * lowerings policies share, the program's preparation, and the driver that
 * lowers a program in memory op by op through the policy's hook, builds
 * the system (models/system.h), runs it and reads the result from the
 * components' reports. Streamed inputs: stream.c. */
#include "lower.h"

#include "library.h"
#include "phase.h"
#include "stream.h"

#include <stdarg.h>
#include <string.h>

/* ---- the writer ---- */

void pol_prog_init(struct pol_prog *pp, uint32_t n_flags) {
  memset(pp, 0, sizeof *pp);
  pp->kernels = g_array_new(FALSE, TRUE, sizeof(struct kernel));
  pp->qcmds = g_array_new(FALSE, TRUE, sizeof(struct qcmd));
  pp->cmds = g_array_new(FALSE, TRUE, sizeof(struct nic_cmd));
  pp->host = g_array_new(FALSE, TRUE, sizeof(struct hstep));
  pp->deps = g_array_new(FALSE, TRUE, sizeof(struct hdep));
  pp->steps = g_ptr_array_new_with_free_func(g_free);
  pp->open = g_array_new(FALSE, TRUE, sizeof(GArray *));
  pp->n_flags = n_flags;
}

void pol_prog_clear(struct pol_prog *pp) {
  g_array_free(pp->kernels, TRUE);
  g_array_free(pp->qcmds, TRUE);
  g_array_free(pp->cmds, TRUE);
  g_array_free(pp->host, TRUE);
  g_array_free(pp->deps, TRUE);
  g_ptr_array_free(pp->steps, TRUE);
  for (guint k = 0; k < pp->open->len; k++)
    if (g_array_index(pp->open, GArray *, k)) g_array_free(g_array_index(pp->open, GArray *, k), TRUE);
  g_array_free(pp->open, TRUE);
  if (pp->op_steps) g_array_free(pp->op_steps, TRUE);
  memset(pp, 0, sizeof *pp);
}

uint32_t pol_add_cmd(struct pol_low *L, struct nic_cmd cmd) {
  if (L->srank) return pst_add_cmd(L->srank, &cmd);
  g_array_append_val(L->pp->cmds, cmd);
  return L->pp->cmds->len - 1;
}

uint32_t pol_add_qcmd(struct pol_low *L, struct qcmd qc) {
  if (L->srank) return pst_add_qcmd(L->srank, &qc);
  g_array_append_val(L->pp->qcmds, qc);
  return L->pp->qcmds->len - 1;
}

static uint32_t kernel_new(struct pol_prog *pp, struct kernel k, GArray *open) {
  g_array_append_val(pp->kernels, k);
  g_array_append_val(pp->open, open);
  return pp->kernels->len - 1;
}

uint32_t pol_add_kernel(struct pol_low *L, const char *name, uint32_t n_wgs,
                        const struct kstep *steps, size_t n) {
  if (L->srank) return pst_add_kernel(L->srank, name, n_wgs, steps, n);
  struct kstep *copy = g_memdup2(steps, n * sizeof *steps);
  g_ptr_array_add(L->pp->steps, copy);
  struct kernel k = {.name = name, .n_wgs = n_wgs, .steps = copy, .n_steps = n};
  for (size_t i = 0; i < n; i++) k.buffers = MAX(k.buffers, steps[i].buffers);
  return kernel_new(L->pp, k, NULL);
}

uint32_t pol_kernel_open(struct pol_low *L, const char *name, uint32_t n_wgs, bool persistent) {
  if (L->srank) return pst_kernel_open(L->srank, name, n_wgs, persistent);
  return kernel_new(L->pp, (struct kernel){.name = name, .n_wgs = n_wgs, .persistent = persistent},
                    g_array_new(FALSE, FALSE, sizeof(struct kstep)));
}

void pol_kernel_step(struct pol_low *L, uint32_t k, struct kstep st) {
  if (L->srank) {
    pst_kernel_step(L->srank, k, &st);
    return;
  }
  GArray *a = g_array_index(L->pp->open, GArray *, k);
  g_assert(a);
  g_array_append_val(a, st);
  struct kernel *kn = &g_array_index(L->pp->kernels, struct kernel, k);
  kn->buffers = MAX(kn->buffers, st.buffers);
}

void pol_kernel_close(struct pol_low *L, uint32_t k) {
  if (L->srank) pst_kernel_close(L->srank, k); /* whole: closed when the rank ends */
}

void pol_add_host(struct pol_low *L, struct hstep st) {
  if (L->graph) st.op = (uint32_t)L->index + 1;
  if (L->srank) {
    pst_add_host(L->srank, &st);
    return;
  }
  struct pol_prog *pp = L->pp;
  if (L->graph) {
    uint32_t *r = &g_array_index(pp->op_steps, uint32_t, 2 * L->index);
    if (r[0] == UINT32_MAX) r[0] = pp->host->len;
    r[1] = pp->host->len;
  }
  g_array_append_val(pp->host, st);
}

void pol_host_loop(struct pol_low *L, const struct wl_op *o) {
  if (o->kind == WL_END) {
    /* An empty body: the loop's marker was the last step. */
    if (L->srank) {
      pst_host_loop_end(L->srank);
      return;
    }
    GArray *h = L->pp->host;
    if (h->len && g_array_index(h, struct hstep, h->len - 1).kind == HS_LOOP) {
      g_array_set_size(h, h->len - 1);
      return;
    }
  }
  pol_add_host(L, pol_loop_hstep(o));
}

void pol_host_shared(struct pol_low *L) {
  g_assert(L->graph && L->index > 0);
  if (L->srank) {
    pst_host_shared(L->srank);
    return;
  }
  uint32_t *r = &g_array_index(L->pp->op_steps, uint32_t, 2 * L->index);
  r[0] = r[-2];
  r[1] = r[-1];
}

void pol_host_closed(struct pol_low *L) { L->host_closed = true; }

uint32_t pol_flag_new(struct pol_low *L) {
  if (L->srank) return pst_flag_new(L->srank);
  return ++L->pp->n_flags;
}

uint32_t pol_flags_of(struct pol_low *L, uint32_t rank) {
  return L->env->p ? L->env->p->ranks[rank].n_flags : 0;
}

uint32_t pol_recv_flag(struct pol_low *L, const struct wl_op *o) {
  g_assert(o->kind == WL_RECV);
  if (L->srank) return pst_recv_flag(L->srank, o);
  return o->flag;
}

struct pol_recv pol_recv_of(struct pol_low *L, const struct wl_op *o) {
  g_assert(o->kind == WL_SEND || o->kind == WL_RECV);
  if (L->srank) return pst_recv_of(L->srank, o);
  if (o->kind == WL_RECV)
    return (struct pol_recv){.flag = o->flag, .region = o->region, .env = L->env, .rank = L->rank,
                             .op = L->index};
  const struct wl_program *p = L->env->p;
  const struct wl_op *r = &p->ranks[o->peer].ops[o->match];
  return (struct pol_recv){.flag = r->flag, .region = r->region, .env = L->env, .rank = o->peer,
                           .op = o->match};
}

bool pol_recv_work_after(const struct pol_recv *r) {
  if (r->env->stream) return pst_recv_work_after(r);
  const struct wl_rank *rk = &r->env->p->ranks[r->rank];
  for (size_t k = r->op + 1; k < rk->n_ops; k++)
    if (rk->ops[k].kind == WL_COMPUTE || rk->ops[k].kind == WL_SEND) return true;
  return false;
}

/* The graph's dependencies: each op's first host step takes the op's
 * (those of the ops sharing its steps too, but on each other), its others
 * the step before. */
static void attach_deps(struct pol_low *L,
                        const struct wl_dep *(*deps_of)(void *ctx, uint64_t op, uint32_t *n),
                        void *ctx) {
  struct pol_prog *pp = L->pp;
  const uint32_t *os = (const uint32_t *)(void *)pp->op_steps->data;
  struct hstep *h = (struct hstep *)(void *)pp->host->data;
  guint n_ops = pp->op_steps->len / 2;
  for (guint i = 0; i < n_ops;) {
    guint end = i + 1;
    while (end < n_ops && os[2 * end] == os[2 * i]) end++;
    uint32_t first = os[2 * i], last = os[2 * i + 1];
    g_assert(first != UINT32_MAX); /* every op of a graph has a host step */
    h[first].dep_first = pp->deps->len;
    for (guint k = i; k < end; k++) {
      uint32_t n;
      const struct wl_dep *d = deps_of(ctx, k, &n);
      for (uint32_t j = 0; j < n; j++) {
        if (os[2 * d[j].op] == first) continue; /* inside the shared steps */
        struct hdep e = {d[j].on_start ? os[2 * d[j].op] : os[2 * d[j].op + 1], d[j].on_start};
        g_array_append_val(pp->deps, e);
      }
    }
    h[first].n_deps = pp->deps->len - h[first].dep_first;
    for (uint32_t s = first + 1; s <= last; s++) {
      struct hdep e = {s - 1, 0};
      h[s].dep_first = pp->deps->len;
      h[s].n_deps = 1;
      g_array_append_val(pp->deps, e);
    }
    i = end;
  }
}

void pol_prog_seal(struct pol_low *L,
                   const struct wl_dep *(*deps_of)(void *ctx, uint64_t op, uint32_t *n),
                   void *ctx) {
  struct pol_prog *pp = L->pp;
  for (guint k = 0; k < pp->open->len; k++) {
    GArray *a = g_array_index(pp->open, GArray *, k);
    if (!a) continue;
    struct kernel *kk = &g_array_index(pp->kernels, struct kernel, k);
    kk->n_steps = a->len;
    kk->steps = a->len ? (const struct kstep *)(void *)g_array_free(a, FALSE) : (g_array_free(a, TRUE), NULL);
    if (kk->steps) g_ptr_array_add(pp->steps, (gpointer)kk->steps);
    g_array_index(pp->open, GArray *, k) = NULL;
  }
  if (L->graph) attach_deps(L, deps_of, ctx);
  pp->np = (struct nodeprog){
      .kernels = (const struct kernel *)(void *)pp->kernels->data, .n_kernels = pp->kernels->len,
      .qcmds = (const struct qcmd *)(void *)pp->qcmds->data, .n_qcmds = pp->qcmds->len,
      .cmds = (const struct nic_cmd *)(void *)pp->cmds->data, .n_cmds = pp->cmds->len,
      .host = (const struct hstep *)(void *)pp->host->data, .n_host = pp->host->len,
      .n_flags = pp->n_flags};
  if (L->graph) {
    /* A graph with no dependency at all still runs as a graph. */
    static const struct hdep none;
    pp->np.host_deps = pp->deps->len ? (const struct hdep *)(void *)pp->deps->data : &none;
    pp->np.n_host_deps = pp->deps->len;
  }
}

bool pol_lower_op(struct pol_low *L, const struct wl_op *o, uint64_t *span_at, char **err) {
  L->span = o ? wl_sum_span(L->sum, L->index, span_at) : NULL;
  L->span_first = L->span && L->index == L->span->first;
  L->span_last = L->span && L->index + 1 == L->span->first + L->span->n;
  if (o && L->graph && L->pp) {
    g_array_set_size(L->pp->op_steps, (guint)(2 * L->index + 2));
    g_array_index(L->pp->op_steps, uint32_t, 2 * L->index) = UINT32_MAX;
  }
  return L->env->pol->lower(L, o, err);
}

/* ---- shared lowerings ---- */

/* How a compute step walks an SpMV. */
enum spmv_form {
  FORM_ROW,     /* as written: a row per work-item (rows_per_wg), stretched to the longest */
  FORM_LIBRARY, /* a library's, launched: coalesced, row-balanced, no row footprint */
  FORM_MERGE,   /* an in-kernel merge-path one: the library's traffic and its own extra */
};

/* The step of O (its kernel K), each WG doing FOLD WGs' work, its SpMV
 * in FORM (a coalesced form has no per-work-item row footprint: kstep.rows
 * 0, no L1 term, models/gpu.h). */
static struct kstep compute_step_of(const struct wl_kernel *k, const struct wl_op *o,
                                    uint32_t fold, enum spmv_form form);

/* With the kernel's arguments (what its launch binds) and the element its
 * work-items load (what each keeps in flight). */
static struct kstep compute_step(const struct wl_kernel *k, const struct wl_op *o, uint32_t fold,
                                 enum spmv_form form) {
  struct kstep st = compute_step_of(k, o, fold, form);
  st.buffers = k->buffers;
  st.item_bytes = k->elem_bytes;
  return st;
}

static struct kstep compute_step_of(const struct wl_kernel *k, const struct wl_op *o,
                                    uint32_t fold, enum spmv_form form) {
  if (o->time_ps > 0) return (struct kstep){.kind = KS_COMPUTE, .time = o->time_ps * fold};
  if (k->kclass == KC_SPMV && form != FORM_ROW) {
    int64_t bytes = k->bal_bytes_per_wg + (form == FORM_MERGE ? k->merge_extra_per_wg : 0);
    return (struct kstep){.kind = KS_COMPUTE, .kclass = k->kclass,
                          .flops = k->bal_flops_per_wg * fold, .bytes = bytes * fold,
                          .ws_bytes = k->ws_bytes, .reuse_bytes = k->bal_reuse_per_wg * fold,
                          .gather_bytes = k->gather_bytes};
  }
  return (struct kstep){.kind = KS_COMPUTE, .kclass = k->kclass, .flops = k->flops_per_wg * fold,
                        .bytes = k->bytes_per_wg * fold, .ws_bytes = k->ws_bytes,
                        .reuse_bytes = k->reuse_per_wg * fold, .gather_bytes = k->gather_bytes,
                        .rows = k->rows_per_wg * fold, .nnz = k->nnz_per_wg * fold,
                        .peer_loads = k->peer_per_wg * fold,
                        .peer_sectors = k->peer_sectors_per_wg * fold, .gets = k->x_gets,
                        .cold_bytes = k->cold_per_wg * fold};
}

struct kstep pol_compute_step(const struct wl_kernel *k, const struct wl_op *o, uint32_t fold) {
  return compute_step(k, o, fold, k->spmv == WL_SPMV_MERGE ? FORM_MERGE : FORM_ROW);
}

struct kstep pol_launch_step(const struct wl_kernel *k, const struct wl_op *o) {
  if (k->lib && o->time_ps <= 0) /* the vendor library's call (wl_library) */
    return (struct kstep){.kind = KS_COMPUTE, .kclass = KC_LIBRARY, .flops = k->lib_flops_per_wg,
                          .bytes = k->lib_bytes_per_wg, .ws_bytes = k->ws_bytes};
  return compute_step(k, o, 1, k->spmv == WL_SPMV_ROW ? FORM_ROW : FORM_LIBRARY);
}

const struct wl_kernel *pol_kernel_of(const struct pol_low *L, const struct wl_op *o) {
  return wl_descs_kernel(L->env->descs, o->kind == WL_COMPUTE ? o->kernel : 0);
}

sim_time pol_cpu_time(const struct pol_low *L, const struct wl_op *o) {
  return wl_cpu_time(L->env->hw->cpu, pol_kernel_of(L, o), o);
}

sim_time pol_host_time(const struct pol_low *L, const struct wl_op *o) {
  const struct wl_kernel *k = pol_kernel_of(L, o);
  if (k->copies <= 0) return pol_cpu_time(L, o);
  unsigned __int128 t = (unsigned __int128)(uint64_t)k->copies *
                        (uint64_t)sys_blocking_copy(L->env->hw, k->copy_bytes);
  return t > (unsigned __int128)(SIM_TIME_MAX / 4) ? SIM_TIME_MAX / 4 : (sim_time)t;
}

uint32_t pol_launch_compute(struct pol_low *L, const struct wl_op *o, const char *name,
                            uint8_t queue) {
  const struct kstep step = pol_launch_step(pol_kernel_of(L, o), o);
  uint32_t k = pol_add_kernel(L, name, o->n_wgs, &step, 1);
  uint32_t qc = pol_add_qcmd(L, (struct qcmd){.kind = Q_KERNEL, .kernel = k});
  pol_add_host(L, (struct hstep){.kind = HS_LAUNCH, .queue = queue, .qcmd = qc});
  return k;
}

struct hstep pol_loop_hstep(const struct wl_op *o) {
  g_assert(o->kind == WL_LOOP || o->kind == WL_END);
  return o->kind == WL_LOOP ? (struct hstep){.kind = HS_LOOP, .count = o->count}
                            : (struct hstep){.kind = HS_END};
}

struct kstep pol_loop_kstep(const struct wl_op *o) {
  g_assert(o->kind == WL_LOOP || o->kind == WL_END);
  return o->kind == WL_LOOP ? (struct kstep){.kind = KS_LOOP, .count = o->count}
                            : (struct kstep){.kind = KS_END};
}

uint8_t pol_watch_cpu(const struct pol_recv *r) {
  (void)r;
  return DEV_CPU;
}

uint8_t pol_watch_gpu(const struct pol_recv *r) {
  (void)r;
  return DEV_GPU;
}

bool pol_on_gpu(uint8_t where) { return where != WL_ON_CPU; }
bool pol_on_cpu(uint8_t where) { return where != WL_ON_GPU; }
bool pol_on_either(uint8_t where) {
  (void)where;
  return true;
}

struct nic_cmd pol_put_for(struct pol_low *L, const struct wl_op *o, uint8_t op, uint8_t quiet_dev) {
  struct pol_recv r = pol_recv_of(L, o);
  /* A collective's kernel waits for its own data (pol_coll_op). */
  uint8_t watcher = r.region ? DEV_GPU : L->env->pol->watcher(&r);
  return (struct nic_cmd){.op = op, .dst_node = o->peer, .bytes = o->bytes, .threshold = 1,
                          .remote = {.id = r.flag, .watcher = watcher},
                          .local = {.id = o->quiet, .watcher = o->quiet ? quiet_dev : 0},
                          .ack = o->quiet != 0};
}

struct nic_cmd pol_put_part(struct pol_low *L, const struct wl_op *o, uint8_t op,
                            uint8_t quiet_dev, uint32_t part) {
  g_assert(part < o->parts);
  struct nic_cmd c = pol_put_for(L, o, op, quiet_dev);
  int64_t piece = o->bytes / o->parts;
  c.bytes = part + 1 < o->parts ? piece : o->bytes - piece * (o->parts - 1);
  c.remote.id += part;
  return c;
}

void pol_host_send(struct pol_low *L, const struct wl_op *o, bool two) {
  uint32_t cmd = pol_add_cmd(L, pol_put_for(L, o, NIC_PUT, DEV_CPU));
  pol_add_host(L, (struct hstep){.kind = HS_NIC_CMD, .two_sided = two, .cmd = cmd});
}

void pol_host_recv(struct pol_low *L, const struct wl_op *o, bool two) {
  pol_add_host(L, (struct hstep){.kind = HS_WAIT_FLAG, .two_sided = two,
                                 .flag = pol_recv_flag(L, o), .value = 1});
}

/* ---- communication libraries (library.h, coll.h) ---- */

struct kstep pol_lib_send(struct pol_low *L, const struct wl_op *o, uint32_t wgs, bool own) {
  const struct pol_env *env = L->env;
  /* Inside a node both libraries move data from the GPU (P2P over
   * NVLink). Across nodes NCCL hands it to its proxy thread (one per GPU),
   * which posts it to the NIC; NVSHMEM posts from the GPU (IBGDA) or
   * through its proxy thread (IBRC). */
  bool across = !net_same_node(env->net, L->rank, o->peer);
  bool proxy = across && (env->lib == COMM_NCCL ||
                          (env->lib == COMM_NVSHMEM && env->transport == COMM_IBRC));
  L->proxied |= proxy;
  /* NCCL fences no LL or LL128 step (coll.h, wl_nccl_proto), put or
   * proxy request: its proxy finds the step by its lines' flags (its net
   * transport polls them). */
  bool nccl_unfenced = env->lib == COMM_NCCL && o->fence == WL_FENCE_NONE;
  if (!proxy) {
    struct kstep st = pol_device_put(L, o, wgs);
    st.nvl = env->nvlink_stores && !across;
    /* NVSHMEM fences no flag store, nor an LL store (its put_nbi across
     * nodes); a barrier's quiet (the first round) it skips only in a
     * kernel of its own on a job of one node (kernels/barrier.cu: no
     * quiet below NVSHMEMI_JOB_GPU_LDST_REMOTE_ATOMICS). */
    bool one_node = net_same_node(env->net, 0, env->n_ranks - 1) || env->n_ranks < 2;
    st.unfenced = nccl_unfenced ||
                  (env->lib == COMM_NVSHMEM &&
                   (o->fence == WL_FENCE_NONE || (o->fence == WL_FENCE_ENTRY && own && one_node)));
    return st;
  }
  uint32_t first = 0;
  for (uint32_t j = 0; j < o->parts; j++) {
    uint32_t c = pol_add_cmd(L, pol_put_part(L, o, NIC_PUT, DEV_GPU, j));
    if (j == 0) first = c;
  }
  return (struct kstep){.kind = KS_HOST_REQUEST, .cmd = first, .tag_div = pol_part_div(o, wgs),
                        .unfenced = nccl_unfenced};
}

/* Both ends of a collective's message lie in its kernels (every rank
 * expands the call alike), so its watcher is the GPU's whatever the
 * policy (pol_put_for). The call is a kernel of its own. */
static struct kstep coll_send(struct pol_low *L, const struct wl_op *o, uint32_t wgs,
                              uint32_t selected) {
  (void)selected;
  return pol_lib_send(L, o, wgs, true);
}

bool pol_coll_op(struct pol_low *L, struct pol_kern *k, const struct wl_op *o, bool *first,
                 bool *last, char **err) {
  g_assert(L->span && L->span->region);
  *first = L->span_first;
  *last = L->span_last;
  if (*first && !pol_kern_open(L, k, wl_lib_names[comm_wl_lib(L->env->lib)], &L->span->shape,
                               false, false, coll_send, err))
    return false;
  if (!*first && L->graph) pol_host_shared(L);
  if (!pol_kern_op(L, k, o, err)) return false;
  if (*last) pol_kernel_close(L, k->id);
  return true;
}

/* ---- preparing a program ---- */

/* P becomes the rewrite Q (owned by PR). */
static void prep_own(struct pol_prep *pr, struct wl_program *q) {
  g_assert(pr->n_owned < G_N_ELEMENTS(pr->owned));
  pr->owned[pr->n_owned++] = pr->p = q;
}

void pol_prep_form(struct pol_prep *pr, uint8_t form) {
  pr->form = form;
  if (!pr->p || pr->err || !pr->p->forms) return;
  if (!(pr->p->forms & (1u << form))) {
    pr->err = wl_error_at(pr->ctx->sc, "policies",
                          "expected a program written in the form policy %s runs (%s), got one "
                          "without it", pr->pol->name,
                          form == WL_FORM_FUSED ? "one kernel" : "kernels launched one by one");
    return;
  }
  prep_own(pr, wl_select_form(pr->p, form));
}

struct wl_lib_opts pol_prep_lib_opts(const struct pol_prep *pr) {
  return comm_lib_opts(pr->hw->comm, pr->hw->net, pr->form == WL_FORM_DISCRETE);
}

void pol_prep_library(struct pol_prep *pr, bool p2p_too) {
  if (!pr->p || pr->err) return;
  const struct comm_config *comm = pr->hw->comm;
  if (wl_has_colls(pr->p)) {
    struct wl_lib_opts opts = pol_prep_lib_opts(pr);
    prep_own(pr, wl_expand_colls(pr->p, comm_wl_lib(pr->lib), &opts));
  }
  if ((pr->lib == COMM_NCCL || pr->lib == COMM_NVSHMEM) && p2p_too) prep_own(pr, wl_group_p2p(pr->p));
  if (pr->lib == COMM_NCCL && comm && comm->nccl_step_latency > 0)
    prep_own(pr, wl_step_cost(pr->p, comm->nccl_step_latency));
}

void pol_prep_rendezvous(struct pol_prep *pr) {
  if (!pr->p || pr->err) return;
  int64_t eager = pr->hw->comm ? pr->hw->comm->mpi_eager_limit : INT64_MAX;
  if (pr->lib == COMM_MPI && wl_rendezvous_needed(pr->p, eager))
    prep_own(pr, wl_rendezvous(pr->p, eager));
}

void pol_prep_loops(struct pol_prep *pr, enum pol_loops how) {
  if (!pr->p || pr->err || !wl_has_loops(pr->p)) return;
  struct wl_program *orig = pr->p;
  if (how != POL_LOOPS_UNROLL && (how != POL_LOOPS_AT_SYNCS || wl_loops_at_syncs(orig))) {
    struct wl_program *q = how == POL_LOOPS_PEELED ? wl_peel_last(orig) : orig;
    char *why = NULL;
    bool kept = wl_program_check(q, &why);
    g_free(why);
    if (kept) {
      if (q != orig) prep_own(pr, q);
      return;
    }
    if (q != orig) wl_program_free(q);
  }
  uint64_t n = wl_unrolled_ops(orig);
  if (n > WL_MAX_OPS) {
    pr->err = wl_error_at(pr->ctx->sc, "policies",
                          "policy %s runs this program written out: expected at most %"
                          G_GUINT64_FORMAT " ops, got %" G_GUINT64_FORMAT,
                          pr->pol->name, (uint64_t)WL_MAX_OPS, n);
    return;
  }
  prep_own(pr, wl_unroll(orig));
}

void pol_prep_order(struct pol_prep *pr) { pr->ordered = true; }

void pol_prep_coll_kernels(struct pol_prep *pr) { pr->coll_kernels = true; }

/* ---- the driver ---- */

bool pol_library(const struct pol_type *pol, const struct hw_config *hw, const struct scenario *sc,
                 uint8_t *lib, char **err) {
  *lib = hw->comm && hw->comm->library != COMM_AUTO ? (uint8_t)hw->comm->library
                                                    : pol->lib_default;
  if (pol->libs & (1u << *lib)) return true;
  GString *can = g_string_new(NULL);
  for (int l = COMM_MPI; l <= COMM_GPUTN; l++)
    if (pol->libs & (1u << l))
      g_string_append_printf(can, "%s%s", can->len ? ", " : "", wl_lib_names[comm_wl_lib(l)]);
  *err = wl_error_at(sc, "hardware.comm.library", "expected a library policy %s runs with (%s), got %s",
                     pol->name, can->str, wl_lib_names[comm_wl_lib(*lib)]);
  g_string_free(can, TRUE);
  return false;
}

char *pol_proxy_error(const struct scenario *sc, uint8_t lib) {
  return wl_error_at(sc, "hardware.cpu.helper_threads",
                      "expected at least 1 for library %s (its proxy thread posts what "
                      "crosses nodes), got 0", wl_lib_names[comm_wl_lib(lib)]);
}

void pol_env_init(struct pol_env *env, const struct pol_type *pol, const struct hw_config *hw,
                  const struct scenario *sc, uint8_t lib, uint32_t n_ranks) {
  *env = (struct pol_env){.pol = pol, .hw = hw, .sc = sc, .lib = lib, .net = hw->net,
                          .n_ranks = n_ranks,
                          .transport = hw->comm ? (uint8_t)hw->comm->nvshmem_transport : COMM_IBGDA,
                          .nvlink_stores = hw->comm && hw->comm->nvlink_stores};
}

/* ---- reading the reports ---- */

/* Node NODE's value of output D (a checked handle, cpu.h's CPU_OUT), read
 * from its component's entries in R. */
static int64_t node_out(const struct system *s, const struct sim_report *r, uint32_t node,
                        const struct sim_out_decl *d) {
  return sim_out_value(r, sys_node_comp(s, node, d), d);
}

/* Byte-identical kernel step arrays, from the ranks' programs PP (N of
 * them), are made one: a rank's kernel points at the first rank's array
 * of the same steps and its own copy is freed. The GPUs then read one
 * array instead of one per rank, which at a thousand ranks keeps a
 * kernel's steps in cache (issue 17). Steps are read-only while the
 * simulation runs; the arrays are freed with the programs, together.
 * Linear in the programs' steps (hash tables throughout). */
static void share_steps(struct pol_prog *pp, uint32_t n) {
  GHashTable *seen = g_hash_table_new_full(g_bytes_hash, g_bytes_equal,
                                           (GDestroyNotify)g_bytes_unref, NULL); /* -> steps */
  for (uint32_t r = 0; r < n; r++) {
    GHashTable *len = g_hash_table_new(NULL, NULL); /* an owned array -> its kernel */
    for (guint i = 0; i < pp[r].kernels->len; i++) {
      struct kernel *k = &g_array_index(pp[r].kernels, struct kernel, i);
      g_hash_table_insert(len, (gpointer)k->steps, k);
    }
    GHashTable *to = g_hash_table_new(NULL, NULL); /* a dropped copy -> the first array */
    for (guint j = 0; j < pp[r].steps->len; j++) {
      struct kstep *mine = g_ptr_array_index(pp[r].steps, j);
      const struct kernel *k = g_hash_table_lookup(len, mine);
      if (!k || k->n_steps == 0) continue;
      GBytes *b = g_bytes_new_static(mine, k->n_steps * sizeof *mine);
      const struct kstep *first = g_hash_table_lookup(seen, b);
      if (!first) {
        g_hash_table_insert(seen, b, mine); /* owned by pp[r]: kept to the end */
        continue;
      }
      g_bytes_unref(b);
      g_hash_table_insert(to, mine, (gpointer)first);
      g_free(mine);
      pp[r].steps->pdata[j] = NULL; /* g_free(NULL) when the program is cleared */
    }
    for (guint i = 0; i < pp[r].kernels->len; i++) {
      struct kernel *k = &g_array_index(pp[r].kernels, struct kernel, i);
      const struct kstep *first = g_hash_table_lookup(to, k->steps);
      if (first) k->steps = first;
    }
    g_hash_table_destroy(to);
    g_hash_table_destroy(len);
  }
  g_hash_table_destroy(seen);
}

/* Op OP's dependencies in rank CTX (a struct wl_rank). */
static const struct wl_dep *rank_deps(void *ctx, uint64_t op, uint32_t *n) {
  const struct wl_rank *r = ctx;
  *n = r->ops[op].n_deps;
  return r->deps + r->ops[op].dep_first;
}

/* Lowers every rank of P (checked) into PP, op by op. */
static bool lower_all(const struct pol_env *env, const struct wl_program *p, struct pol_prog *pp,
                      char **err) {
  const struct pol_type *pol = env->pol;
  void *state = g_malloc0(MAX(pol->state_size, 1));
  bool ok = true;
  for (uint32_t r = 0; r < p->n_ranks && ok; r++) {
    const struct wl_rank *rk = &p->ranks[r];
    struct wl_sum sum;
    wl_sum_rank(p, r, &sum);
    memset(state, 0, MAX(pol->state_size, 1));
    pol_prog_init(&pp[r], rk->n_flags);
    struct pol_low L = {.env = env, .rank = r, .sum = &sum, .graph = rk->graph, .state = state,
                        .pp = &pp[r]};
    if (L.graph) pp[r].op_steps = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    uint64_t span_at = 0;
    for (size_t i = 0; i < rk->n_ops && ok; i++) {
      L.index = i;
      ok = pol_lower_op(&L, &rk->ops[i], &span_at, err);
    }
    L.index = rk->n_ops;
    ok = ok && pol_lower_op(&L, NULL, &span_at, err);
    if (ok) pol_prog_seal(&L, rank_deps, (void *)rk);
    pp[r].proxied = L.proxied;
    wl_sum_clear(&sum);
  }
  g_free(state);
  if (ok) share_steps(pp, p->n_ranks);
  return ok;
}

/* Whether every rank's host program ended and every kernel it launched
 * completed; else *ERR: a deadlock (waits that nothing satisfies), saying
 * which rank and, where one stalled, which NIC on what. */
static bool all_finished(const struct pol_type *pol, const struct wl_program *p,
                         const struct hw_config *hw, const struct system *s,
                         const struct sim_report *c, char **err) {
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    if (node_out(s, c, r, CPU_OUT(MAIN_DONE)) >= 0 &&
        node_out(s, c, r, GPU_OUT(KERNELS)) == node_out(s, c, r, GPU_OUT(KERNELS_LAUNCHED)))
      continue;
    GString *m = g_string_new(NULL);
    g_string_printf(m, "policy %s: the model deadlocked: rank %u never finished (its %s)", pol->name,
                    r, node_out(s, c, r, CPU_OUT(MAIN_DONE)) < 0 ? "host program waits" : "kernel waits");
    uint32_t stalled = 0;
    for (uint32_t n = 0; n < (uint32_t)hw->net->nodes; n++) {
      if (!node_out(s, c, n, NIC_OUT(STALLED_AT_END))) continue;
      if (stalled++ < 3)
        g_string_append_printf(
            m, "; node %u's NIC stalled with all %" G_GINT64_FORMAT " trigger entries held "
               "(trigger_full: stall) after %" G_GINT64_FORMAT " triggered-put registrations and %"
               G_GINT64_FORMAT " trigger stores: the next registration or store waits for an "
               "entry that only work queued behind it would free",
            n, hw->nic->trigger_entries, node_out(s, c, n, NIC_OUT(REGISTRATIONS)),
            node_out(s, c, n, NIC_OUT(TRIGGERS_STORED)));
    }
    if (stalled > 3) g_string_append_printf(m, "; and %u more NICs so", stalled - 3);
    int64_t op = node_out(s, c, r, CPU_OUT(STUCK_OP));
    if (op > 0) {
      char where[64];
      if ((size_t)op - 1 < p->ranks[r].n_ops)
        wl_op_where(p, r, (size_t)op - 1, where, sizeof where);
      else /* a streamed program (pol_simulate_progs) */
        g_snprintf(where, sizeof where, "rank %u op %" G_GINT64_FORMAT, r, op - 1);
      g_string_append_printf(m, "; rank %u's first op that never ended: %s", r, where);
    }
    if (stalled)
      g_string_append(m, "; raise hardware.nic.trigger_entries or use trigger_full: spill");
    else
      g_string_append(m, "; see its counters with --format json");
    *err = g_string_free(m, FALSE);
    return false;
  }
  return true;
}

/* The critical path that ended the run, marked by END's component at
 * OUT->total_ps (engine.h), into OUT, and onto TRACE when there is one
 * (a track "critical path" of process POLICY/critical path). */
static void pol_critical_path(struct sim_engine *e, const struct sim_comp *end, struct trace *trace,
                              const char *policy, struct sim_result *out) {
  struct sim_cp m = sim_cp_get(e, end->id);
  if (!m.ok) return;
  g_assert(m.at == out->total_ps);
  for (size_t i = 0; i < CP_COUNT; i++) sim_out_put_int(&out->cp, NULL, &cp_outs[i], m.v[i]);
  out->cp_end = g_strdup(end->name);
  size_t n;
  struct sim_cp_act *acts = sim_cp_chain(e, &m, &n);
  if (!acts) return;
  out->hops = g_new(struct sim_result_hop, n);
  out->n_hops = n;
  int track = -1;
  if (trace) {
    char *process = g_strdup_printf("%s/critical path", policy);
    track = trace_track(trace, process, "chain that ended the run");
    g_free(process);
  }
  for (size_t i = 0; i < n; i++) {
    const char *name = acts[i].comp < sim_comp_count(e) ? sim_comp_get(e, acts[i].comp)->name
                                                        : "system";
    struct sim_result_hop *h = &out->hops[i];
    h->where = acts[i].link ? g_strdup_printf("%s ->", name) : g_strdup(name);
    h->cat = cp_outs[acts[i].cat < CP_COUNT ? acts[i].cat : CP_OTHER].key;
    h->start = acts[i].start;
    h->end = acts[i].end;
    if (trace) {
      char *label = g_strdup_printf("%s: %s", h->cat, h->where);
      trace_span(trace, track, label, h->start, h->end);
      g_free(label);
    }
  }
  g_free(acts);
}

bool pol_simulate_progs(const struct pol_type *pol, const struct wl_program *p,
                        const struct hw_config *hw, const struct nodeprog **progs,
                        struct sim_engine *e, struct trace *trace, struct sim_result *out,
                        char **err) {
  sim_set_trace(e, trace, pol->name);
  struct system *s = sys_build(e, hw, progs, err);
  bool ok = s != NULL;
  if (ok) {
    out->events = sim_run(e, SIM_TIME_MAX, 0);
    ph_preset(&out->phases); /* the models add their phases (phase.h) */
    out->counters.phases = &out->phases;
    sim_finish(e, &out->counters);
    out->counters.phases = NULL;
    ok = all_finished(pol, p, hw, s, &out->counters, err);
  }
  if (ok) {
    if (pol->done->dim != UNIT_TIME)
      g_error("policy %s: its done handle %s is no time", pol->name, pol->done->key);
    /* The end (result.h): the latest measured rank's result usable by its
     * host; beside it the policy's own end (its done handle). */
    uint32_t first = p->measured_rank == WL_ALL_RANKS ? 0 : p->measured_rank;
    uint32_t last = p->measured_rank == WL_ALL_RANKS ? p->n_ranks - 1 : p->measured_rank;
    uint32_t end_rank = first;
    out->total_ps = -1;
    out->policy_end_ps = p->measured_rank == WL_ALL_RANKS ? 0 : -1; /* 0: no rank's WG ran */
    for (uint32_t r = first; r <= last; r++) {
      out->policy_end_ps = MAX(out->policy_end_ps, node_out(s, &out->counters, r, pol->done));
      int64_t at = node_out(s, &out->counters, r, CPU_OUT(RESULT_AT));
      if (at > out->total_ps) {
        out->total_ps = at;
        end_rank = r;
      }
    }
    /* the lowering completes every rank */
    g_assert(out->total_ps >= 0 && out->policy_end_ps >= 0);
    pol_critical_path(e, sys_node_comp(s, end_rank, CPU_OUT(RESULT_AT)), trace, pol->name, out);
  }
  sim_free(e);
  sys_free(s);
  return ok;
}

/* Builds and runs the lowered programs PP; fills OUT. */
static bool simulate(const struct pol_type *pol, const struct wl_program *p,
                     const struct hw_config *hw, const struct pol_prog *pp, uint64_t seed,
                     enum sim_cp_mode cp, struct trace *trace, struct sim_result *out,
                     char **err) {
  const struct nodeprog **progs = g_new0(const struct nodeprog *, (size_t)hw->net->nodes);
  for (uint32_t r = 0; r < p->n_ranks; r++) progs[r] = &pp[r].np;
  struct sim_engine *e = sim_new(seed);
  sim_set_cp(e, cp);
  bool ok = pol_simulate_progs(pol, p, hw, progs, e, trace, out, err);
  g_free(progs);
  return ok;
}

/* Every rank's counts of P, for a policy's check. */
static void program_total(const struct wl_program *p, struct wl_sum *t) {
  wl_sum_init(t);
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    t->sends += wl_count(p, r, WL_SEND);
    t->recvs += wl_count(p, r, WL_RECV);
    t->ops += p->ranks[r].n_ops;
  }
}

/* Checks, lowers and (unless checking only) runs P as prepared by PR. */
static bool run_checked(struct pol_prep *pr, const struct wl_ctx *ctx, struct sim_result *out,
                        char **err) {
  const struct pol_type *pol = pr->pol;
  struct wl_program *p = pr->p;
  if (!wl_program_check(p, err)) return false;
  /* A receive no send matches would deadlock the run: bad input, said by
   * `validate` as an unmatched send is (issue 33). */
  if (wl_program_unmatched(p, err)) return false;
  struct wl_sum total;
  program_total(p, &total);
  bool fits = !pol->check || pol->check(ctx->sc, pr->hw, &total, err);
  wl_sum_clear(&total);
  if (!fits) return false;
  /* Graph ranks in one order, where the policy runs them so. */
  struct wl_program *lin = NULL;
  if (pr->ordered && wl_has_graph(p)) p = lin = wl_linearize(p, ctx->lin_window, pr->coll_kernels);
  struct pol_env env;
  pol_env_init(&env, pol, pr->hw, ctx->sc, pr->lib, p->n_ranks);
  env.p = p;
  env.descs = p->descs;
  struct pol_prog *pp = g_new0(struct pol_prog, p->n_ranks);
  bool ok = lower_all(&env, p, pp, err);
  /* A proxy thread is a helper thread that holds its core: needed when
   * the lowering sent anything through one. */
  for (uint32_t r = 0; ok && r < p->n_ranks; r++)
    if (pp[r].proxied && pr->hw->cpu->helper_threads < 1) {
      *err = pol_proxy_error(ctx->sc, pr->lib);
      ok = false;
    }
  if (ok && !ctx->check_only) ok = simulate(pol, p, pr->hw, pp, ctx->seed, ctx->cp, ctx->trace, out, err);
  for (uint32_t r = 0; r < p->n_ranks; r++)
    if (pp[r].kernels) pol_prog_clear(&pp[r]);
  g_free(pp);
  wl_program_free(lin);
  return ok;
}

bool pol_run(struct wl_program *p, const char *policy, const struct hw_config *hw,
             const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  const struct pol_type *pol = pol_find(policy);
  if (!pol) {
    *err = g_strdup_printf("expected a policy that lowers programs, got %s", policy);
    return false;
  }
  if (hw->net->nodes < p->n_ranks) {
    *err = wl_error_at(ctx->sc, "hardware.network.nodes",
                        "expected at least %u nodes, got %" G_GINT64_FORMAT, p->n_ranks,
                        hw->net->nodes);
    return false;
  }
  struct pol_prep pr = {.p = p, .hw = hw, .ctx = ctx, .pol = pol};
  if (!pol_library(pol, hw, ctx->sc, &pr.lib, err)) return false;
  pol->prepare(&pr);
  bool ok = !pr.err;
  if (!ok) *err = pr.err;
  else ok = run_checked(&pr, ctx, out, err);
  while (pr.n_owned) wl_program_free(pr.owned[--pr.n_owned]);
  return ok;
}
