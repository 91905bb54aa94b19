/* The shared half of every policy (lower.h): the node-program builder, the
 * policy table, and the driver that builds the system (models/system.h),
 * runs it and reads the result from the components' reports. */
#include "lower.h"

#include "library.h"
#include "phase.h"

#include <stdarg.h>
#include <string.h>

void pol_prog_init(struct pol_prog *pp, const struct hw_config *hw, uint8_t lib) {
  memset(pp, 0, sizeof *pp);
  pp->lib = lib;
  pp->transport = hw->comm ? (uint8_t)hw->comm->nvshmem_transport : COMM_IBGDA;
  pp->nvlink_stores = hw->comm && hw->comm->nvlink_stores;
  pp->net = hw->net;
  pp->kernels = g_array_new(FALSE, TRUE, sizeof(struct kernel));
  pp->qcmds = g_array_new(FALSE, TRUE, sizeof(struct qcmd));
  pp->cmds = g_array_new(FALSE, TRUE, sizeof(struct nic_cmd));
  pp->host = g_array_new(FALSE, TRUE, sizeof(struct hstep));
  pp->deps = g_array_new(FALSE, TRUE, sizeof(struct hdep));
  pp->steps = g_ptr_array_new_with_free_func(g_free);
  pp->tag_next = 1;
}

void pol_prog_clear(struct pol_prog *pp) {
  g_array_free(pp->kernels, TRUE);
  g_array_free(pp->qcmds, TRUE);
  g_array_free(pp->cmds, TRUE);
  g_array_free(pp->host, TRUE);
  g_array_free(pp->deps, TRUE);
  g_ptr_array_free(pp->steps, TRUE);
  memset(pp, 0, sizeof *pp);
}

/* Points np at the arrays; after the last add. */
static void pol_prog_seal(struct pol_prog *pp, uint32_t n_flags) {
  pp->np = (struct nodeprog){
      .kernels = (const struct kernel *)(void *)pp->kernels->data, .n_kernels = pp->kernels->len,
      .qcmds = (const struct qcmd *)(void *)pp->qcmds->data, .n_qcmds = pp->qcmds->len,
      .cmds = (const struct nic_cmd *)(void *)pp->cmds->data, .n_cmds = pp->cmds->len,
      .host = (const struct hstep *)(void *)pp->host->data, .n_host = pp->host->len,
      .n_flags = n_flags};
  if (pp->graph) {
    /* A graph with no dependency at all still runs as a graph. */
    static const struct hdep none;
    pp->np.host_deps = pp->deps->len ? (const struct hdep *)(void *)pp->deps->data : &none;
    pp->np.n_host_deps = pp->deps->len;
  }
}

uint32_t pol_add_cmd(struct pol_prog *pp, struct nic_cmd cmd) {
  g_array_append_val(pp->cmds, cmd);
  return pp->cmds->len - 1;
}

uint32_t pol_add_qcmd(struct pol_prog *pp, struct qcmd qc) {
  g_array_append_val(pp->qcmds, qc);
  return pp->qcmds->len - 1;
}

uint32_t pol_add_kernel(struct pol_prog *pp, const char *name, uint32_t n_wgs,
                        const struct kstep *steps, size_t n_steps) {
  struct kstep *copy = g_memdup2(steps, n_steps * sizeof *steps);
  g_ptr_array_add(pp->steps, copy);
  struct kernel k = {.name = name, .n_wgs = n_wgs, .steps = copy, .n_steps = n_steps};
  g_array_append_val(pp->kernels, k);
  return pp->kernels->len - 1;
}

void pol_add_host(struct pol_prog *pp, struct hstep st) { g_array_append_val(pp->host, st); }

/* How a compute step walks an SpMV. */
enum spmv_form {
  FORM_ROW,     /* as written: a row per work-item (rows_per_wg), stretched to the longest */
  FORM_LIBRARY, /* a library's, launched: coalesced, row-balanced, no row footprint */
  FORM_MERGE,   /* an in-kernel merge-path one: the library's traffic and its own extra */
};

/* The step of O, each WG doing FOLD WGs' work, its SpMV in FORM (a
 * coalesced form has no per-work-item row footprint: kstep.rows 0, no L1
 * term, models/gpu.h). */
static struct kstep compute_step(const struct wl_op *o, uint32_t fold, enum spmv_form form) {
  if (o->time_ps > 0) return (struct kstep){.kind = KS_COMPUTE, .time = o->time_ps * fold};
  if (o->kclass == KC_SPMV && form != FORM_ROW) {
    int64_t bytes = o->bal_bytes_per_wg + (form == FORM_MERGE ? o->merge_extra_per_wg : 0);
    return (struct kstep){.kind = KS_COMPUTE, .kclass = o->kclass,
                          .flops = o->bal_flops_per_wg * fold, .bytes = bytes * fold,
                          .ws_bytes = o->ws_bytes, .reuse_bytes = o->bal_reuse_per_wg * fold,
                          .gather_bytes = o->gather_bytes};
  }
  return (struct kstep){.kind = KS_COMPUTE, .kclass = o->kclass, .flops = o->flops_per_wg * fold,
                        .bytes = o->bytes_per_wg * fold, .ws_bytes = o->ws_bytes,
                        .reuse_bytes = o->reuse_per_wg * fold, .gather_bytes = o->gather_bytes,
                        .rows = o->rows_per_wg * fold, .nnz = o->nnz_per_wg * fold,
                        .peer_loads = o->peer_per_wg * fold, .gets = o->x_gets};
}

struct kstep pol_compute_step(const struct wl_op *o, uint32_t fold) {
  return compute_step(o, fold, o->spmv == WL_SPMV_MERGE ? FORM_MERGE : FORM_ROW);
}

struct kstep pol_launch_step(const struct wl_op *o) {
  return compute_step(o, 1, o->spmv == WL_SPMV_ROW ? FORM_ROW : FORM_LIBRARY);
}

static sim_time ceil_ps(unsigned __int128 num, unsigned __int128 den) {
  return (sim_time)((num + den - 1) / den);
}

/* The larger of n_wgs * flops_per_wg / (cores * clock * flops_per_cycle)
 * and n_wgs * bytes_per_wg * 8 / mem_bandwidth, each rounded up to a ps. */
sim_time pol_cpu_time(const struct cpu_config *cpu, const struct wl_op *o) {
  if (o->time_ps > 0) return o->time_ps * (sim_time)o->n_wgs;
  unsigned __int128 flops = (unsigned __int128)o->n_wgs * (uint64_t)o->flops_per_wg;
  unsigned __int128 bytes = (unsigned __int128)o->n_wgs * (uint64_t)o->bytes_per_wg;
  sim_time tf = ceil_ps(flops * SIM_S, (unsigned __int128)(uint64_t)cpu->cores *
                                           (uint64_t)cpu->clock * (uint64_t)cpu->flops_per_cycle);
  sim_time tb = ceil_ps(bytes * 8u * SIM_S, (uint64_t)cpu->mem_bandwidth);
  return MAX(tf, tb);
}

/* Appends host step ST for op OP with the dependencies DEPS (N). */
static void graph_step(struct pol_prog *pp, struct hstep st, uint32_t op, const struct hdep *deps,
                       size_t n) {
  st.op = op + 1;
  st.dep_first = pp->deps->len;
  st.n_deps = (uint32_t)n;
  g_array_append_vals(pp->deps, deps, (guint)n);
  pol_add_host(pp, st);
}

/* Whether graph op O runs on the GPU under POL. */
static bool on_gpu(const struct pol_type *pol, const struct wl_op *o) {
  return o->kind == WL_COMPUTE && pol->graph.gpu && o->on != WL_ON_CPU;
}

bool pol_host_graph(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                    const struct hw_config *hw, struct pol_prog *pp, char **err) {
  const struct wl_rank *r = &p->ranks[rank];
  /* Op i's host steps are first[i] .. last[i]: a GPU compute is a launch
   * and a wait for its kernel, anything else one step; the ops of a
   * library's collective (a region, pol_coll_starts) share its kernel's
   * launch and wait. */
  uint32_t *first = g_new(uint32_t, r->n_ops + 1), *last = g_new(uint32_t, r->n_ops + 1);
  uint32_t at = pp->host->len;
  for (size_t i = 0; i < r->n_ops;) {
    size_t b = i + 1;
    bool region = pol_coll_starts(p, rank, i);
    if (region)
      while (b < r->n_ops && r->ops[b].region == r->ops[i].region) b++;
    uint32_t n = region || on_gpu(pol, &r->ops[i]) ? 2 : 1;
    for (size_t k = i; k < b; k++) first[k] = at, last[k] = at + n - 1;
    at += n;
    i = b;
  }
  GArray *deps = g_array_new(FALSE, FALSE, sizeof(struct hdep));
  pp->graph = true;
  bool ok = true;
  for (size_t i = 0; i < r->n_ops && ok; i++) {
    const struct wl_op *o = &r->ops[i];
    size_t end = i + 1;
    bool region = pol_coll_starts(p, rank, i);
    if (region)
      while (end < r->n_ops && r->ops[end].region == o->region) end++;
    /* What the op (or the region's ops) waits for outside itself. */
    g_array_set_size(deps, 0);
    for (size_t k = i; k < end; k++)
      for (uint32_t d = 0; d < r->ops[k].n_deps; d++) {
        const struct wl_dep *dp = &r->deps[r->ops[k].dep_first + d];
        if (region && dp->op >= i && dp->op < end) continue;
        struct hdep h = {dp->on_start ? first[dp->op] : last[dp->op], dp->on_start};
        g_array_append_val(deps, h);
      }
    const struct hdep *dv = (const struct hdep *)(void *)deps->data;
    uint32_t op = (uint32_t)i;
    bool two = pol->graph.two_sided && !o->one_sided;
    if (region) { /* the collective's kernel, launched and waited for */
      size_t e;
      int32_t k = pol_coll_kernel(p, rank, i, &e, hw, pp, err);
      if (k < 0) {
        ok = false;
        break;
      }
      uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = (uint32_t)k});
      graph_step(pp, (struct hstep){.kind = HS_LAUNCH, .qcmd = qc}, op, dv, deps->len);
      struct hdep launched = {first[i], 0};
      graph_step(pp, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = (uint32_t)k}, op, &launched, 1);
      g_assert(pp->host->len == last[i] + 1);
      i = end - 1;
      continue;
    }
    switch (o->kind) {
    case WL_COMPUTE:
      if (on_gpu(pol, o)) {
        const struct kstep step = pol_launch_step(o);
        uint32_t k = pol_add_kernel(pp, "compute", o->n_wgs, &step, 1);
        uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = k});
        graph_step(pp, (struct hstep){.kind = HS_LAUNCH, .qcmd = qc}, op, dv, deps->len);
        struct hdep launched = {first[i], 0};
        graph_step(pp, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = k}, op, &launched, 1);
      } else {
        graph_step(pp, (struct hstep){.kind = HS_COMPUTE, .time = pol_cpu_time(hw->cpu, o)}, op,
                   dv, deps->len);
      }
      break;
    case WL_SEND: {
      uint32_t cmd = pol_add_cmd(pp, pol_put_for(pol, p, rank, i, NIC_PUT));
      graph_step(pp, (struct hstep){.kind = HS_NIC_CMD, .two_sided = two, .cmd = cmd}, op, dv,
                 deps->len);
      break;
    }
    case WL_RECV:
      graph_step(pp, (struct hstep){.kind = HS_WAIT_FLAG, .two_sided = two && !pol->graph.recv_polls,
                                    .flag = o->flag,
                                    .value = 1},
                 op, dv, deps->len);
      break;
    case WL_QUIET: /* its puts' ACKs, counted on its flag */
      graph_step(pp, (struct hstep){.kind = HS_WAIT_FLAG, .flag = o->flag, .value = o->count}, op,
                 dv, deps->len);
      break;
    default: g_assert_not_reached(); /* wl_program_check: no syncs in graphs */
    }
    g_assert(pp->host->len == last[i] + 1);
  }
  g_array_free(deps, TRUE);
  g_free(first);
  g_free(last);
  return ok;
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

uint8_t pol_watch_cpu(const struct wl_program *p, uint32_t rank, size_t i) {
  (void)p, (void)rank, (void)i;
  return DEV_CPU;
}

uint8_t pol_watch_gpu(const struct wl_program *p, uint32_t rank, size_t i) {
  (void)p, (void)rank, (void)i;
  return DEV_GPU;
}

struct nic_cmd pol_put_for(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                           size_t i, uint8_t op) {
  const struct wl_op *o = &p->ranks[rank].ops[i];
  /* A collective's kernel waits for its own data (pol_coll_kernel). */
  uint8_t watcher = wl_matching_recv(p, rank, i)->region ? DEV_GPU
                                                          : pol->recv_watcher(p, o->peer, o->match);
  /* A put a quiet waits for asks for the target's ACK, which sets the
   * quiet's flag where the quiet runs (pol_type.host_quiet). */
  uint8_t qw = pol->graph.host || pol->host_quiet ? DEV_CPU : DEV_GPU;
  return (struct nic_cmd){.op = op, .dst_node = o->peer, .bytes = o->bytes, .threshold = 1,
                          .remote = {.id = wl_matching_recv(p, rank, i)->flag,
                                     .watcher = watcher},
                          .local = {.id = o->quiet, .watcher = o->quiet ? qw : 0},
                          .ack = o->quiet != 0};
}

struct nic_cmd pol_put_part(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                            size_t i, uint8_t op, uint32_t part) {
  const struct wl_op *o = &p->ranks[rank].ops[i];
  g_assert(part < o->parts);
  struct nic_cmd c = pol_put_for(pol, p, rank, i, op);
  int64_t piece = o->bytes / o->parts;
  c.bytes = part + 1 < o->parts ? piece : o->bytes - piece * (o->parts - 1);
  c.remote.id += part;
  return c;
}

/* ---- communication libraries (library.h, coll.h) ---- */

struct kstep pol_lib_send(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                          size_t i, uint32_t wgs, struct pol_prog *pp) {
  const struct wl_op *o = &p->ranks[rank].ops[i];
  /* Inside a node both libraries move data from the GPU (P2P over
   * NVLink). Across nodes NCCL hands it to its proxy thread (one per GPU),
   * which posts it to the NIC; NVSHMEM posts from the GPU (IBGDA) or
   * through its proxy thread (IBRC). */
  bool across = !net_same_node(pp->net, rank, o->peer);
  bool proxy = across && (pp->lib == COMM_NCCL ||
                          (pp->lib == COMM_NVSHMEM && pp->transport == COMM_IBRC));
  pp->proxied |= proxy;
  if (!proxy) {
    struct kstep st = pol_device_put(pol, p, rank, i, wgs, pp);
    st.nvl = pp->nvlink_stores && !across;
    return st;
  }
  uint32_t first = 0;
  for (uint32_t j = 0; j < o->parts; j++) {
    uint32_t c = pol_add_cmd(pp, pol_put_part(pol, p, rank, i, NIC_PUT, j));
    if (j == 0) first = c;
  }
  return (struct kstep){.kind = KS_HOST_REQUEST, .cmd = first, .tag_div = pol_part_div(o, wgs)};
}

/* Both ends of a collective's message lie in its kernels (every rank
 * expands the call alike), so its watcher is the GPU's whatever the
 * policy (pol_put_for): pol_cpufree stands for any. */
static struct kstep coll_send(const struct wl_program *p, uint32_t rank, size_t i, uint32_t wgs,
                              uint32_t selected, struct pol_prog *pp) {
  (void)selected;
  return pol_lib_send(&pol_cpufree, p, rank, i, wgs, pp);
}

bool pol_coll_starts(const struct wl_program *p, uint32_t rank, size_t i) {
  const struct wl_op *o = &p->ranks[rank].ops[i];
  return o->region && (i == 0 || p->ranks[rank].ops[i - 1].region != o->region);
}

int32_t pol_coll_kernel(const struct wl_program *p, uint32_t rank, size_t i, size_t *end,
                        const struct hw_config *hw, struct pol_prog *pp, char **err) {
  const struct wl_rank *r = &p->ranks[rank];
  size_t b = i;
  while (b < r->n_ops && r->ops[b].region == r->ops[i].region) b++;
  *end = b;
  return pol_kernel_of(wl_lib_names[comm_wl_lib(pp->lib)], p, rank, i, b, hw, coll_send, pp, err);
}

void pol_host_send(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                   size_t i, struct pol_prog *pp) {
  uint32_t cmd = pol_add_cmd(pp, pol_put_for(pol, p, rank, i, NIC_PUT));
  pol_add_host(pp, (struct hstep){.kind = HS_NIC_CMD, .two_sided = 1, .cmd = cmd});
}

/* Kernels launched and not yet waited for, per lane (copy, overlap). */
struct host_lanes {
  int32_t last[2]; /* latest kernel of each lane, -1: none outstanding */
};

static void wait_lane(struct host_lanes *h, int lane, struct pol_prog *pp) {
  if (h->last[lane] < 0) return;
  pol_add_host(pp, (struct hstep){.kind = HS_WAIT_KERNEL, .kernel = (uint32_t)h->last[lane]});
  h->last[lane] = -1;
}

bool pol_host_copies(const struct pol_type *pol, const struct wl_program *p, uint32_t rank,
                     const struct hw_config *hw, struct pol_prog *pp, bool overlap, char **err) {
  const struct wl_rank *r = &p->ranks[rank];
  struct host_lanes h = {{-1, -1}};
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    int lane = overlap ? o->lane : 0;
    if (pol_coll_starts(p, rank, i)) { /* a library's collective: its kernel on the lane's stream */
      size_t end;
      int32_t k = pol_coll_kernel(p, rank, i, &end, hw, pp, err);
      if (k < 0) return false;
      uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = (uint32_t)k});
      pol_add_host(pp, (struct hstep){.kind = HS_LAUNCH, .queue = (uint8_t)lane, .qcmd = qc});
      h.last[lane] = k;
      if (!overlap) wait_lane(&h, lane, pp);
      i = end - 1;
      continue;
    }
    switch (o->kind) {
    case WL_COMPUTE: {
      const struct kstep step = pol_launch_step(o);
      uint32_t k = pol_add_kernel(pp, lane ? "boundary" : "compute", o->n_wgs, &step, 1);
      uint32_t qc = pol_add_qcmd(pp, (struct qcmd){.kind = Q_KERNEL, .kernel = k});
      pol_add_host(pp, (struct hstep){.kind = HS_LAUNCH, .queue = (uint8_t)lane, .qcmd = qc});
      h.last[lane] = (int32_t)k;
      if (!overlap) wait_lane(&h, lane, pp);
      break;
    }
    case WL_SEND: {
      wait_lane(&h, lane, pp); /* the data is made */
      uint32_t cmd = pol_add_cmd(pp, pol_put_for(pol, p, rank, i, NIC_PUT));
      pol_add_host(pp, (struct hstep){.kind = HS_NIC_CMD, .cmd = cmd});
      break;
    }
    case WL_RECV:
      pol_add_host(pp, (struct hstep){.kind = HS_WAIT_FLAG, .flag = o->flag, .value = 1});
      break;
    case WL_SYNC:
      wait_lane(&h, 0, pp);
      wait_lane(&h, 1, pp);
      break;
    case WL_LOOP:
    case WL_END: /* after a sync (loops_at_syncs): no kernel outstanding */
      g_assert(h.last[0] < 0 && h.last[1] < 0);
      pol_add_host(pp, pol_loop_hstep(o));
      break;
    default: g_assert_not_reached();
    }
  }
  wait_lane(&h, 0, pp);
  wait_lane(&h, 1, pp);
  return true;
}

void pol_host_recv(const struct wl_program *p, uint32_t rank, size_t i, struct pol_prog *pp) {
  pol_add_host(pp, (struct hstep){.kind = HS_WAIT_FLAG, .two_sided = 1,
                                  .flag = p->ranks[rank].ops[i].flag, .value = 1});
}

const char *const pol_names[POL_COUNT] = {POL_TABLE(POL_NAME_)};

const struct pol_type *pol_find(const char *name) {
#define POL_ADDRESS_(name) &pol_##name,
  static const struct pol_type *const all[] = {POL_TABLE(POL_ADDRESS_)};
#undef POL_ADDRESS_
  for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
    if (!strcmp(all[i]->name, name)) return all[i];
  return NULL;
}



uint8_t pol_library(const struct pol_type *pol, const struct hw_config *hw) {
  return hw->comm && hw->comm->library != COMM_AUTO ? (uint8_t)hw->comm->library
                                                    : pol->lib_default;
}

char *pol_proxy_error(const struct scenario *sc, uint8_t lib) {
  return wl_error_at(sc, "hardware.cpu.helper_threads",
                      "expected at least 1 for library %s (its proxy thread posts what "
                      "crosses nodes), got 0", wl_lib_names[comm_wl_lib(lib)]);
}




/* ---- reading the reports ---- */

/* Node NODE's value of output D (a checked handle, cpu.h's CPU_OUT), read
 * from its component's entries in R. */
static int64_t node_out(const struct system *s, const struct sim_report *r, uint32_t node,
                        const struct sim_out_decl *d) {
  return sim_out_value(r, sys_node_comp(s, node, d), d);
}

/* ---- the driver ---- */

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

static bool lower_all(const struct pol_type *pol, const struct wl_program *p,
                      const struct hw_config *hw, struct pol_prog *pp, char **err) {
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    if (p->ranks[r].graph && pol->graph.host) {
      if (!pol_host_graph(pol, p, r, hw, &pp[r], err)) return false;
    } else if (!pol->lower(p, r, hw, &pp[r], err)) {
      return false;
    }
    pol_prog_seal(&pp[r], p->ranks[r].n_flags + (pol->extra_flags ? pol->extra_flags(p, r) : 0));
  }
  share_steps(pp, p->n_ranks);
  return true;
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

/* Checks, lowers and (unless checking only) runs P as POL writes it. */
static bool pol_run_checked(struct wl_program *p, const struct pol_type *pol,
                            const struct hw_config *hw, uint8_t lib, const struct wl_ctx *ctx,
                            struct sim_result *out, char **err) {
  if (!wl_program_check(p, err)) return false;
  /* A receive no send matches deadlocks the run: a model failure, said
   * when simulating (exit 3), not an input error of `validate`. */
  if (!ctx->check_only && wl_program_unmatched(p, err)) return false;
  if (pol->check && !pol->check(ctx->sc, hw, p, err)) return false;
  /* Policies that drive from the GPU run one order of a graph. */
  struct wl_program *lin = NULL;
  if (!pol->graph.host && wl_has_graph(p)) p = lin = wl_linearize(p, ctx->lin_window);
  struct pol_prog *pp = g_new(struct pol_prog, p->n_ranks);
  for (uint32_t r = 0; r < p->n_ranks; r++) pol_prog_init(&pp[r], hw, lib);
  bool ok = lower_all(pol, p, hw, pp, err);
  /* A proxy thread is a helper thread that holds its core: needed when
   * the lowering sent anything through one. */
  for (uint32_t r = 0; ok && r < p->n_ranks; r++)
    if (pp[r].proxied && hw->cpu->helper_threads < 1) {
      *err = pol_proxy_error(ctx->sc, lib);
      ok = false;
    }
  if (ok && !ctx->check_only) ok = simulate(pol, p, hw, pp, ctx->seed, ctx->cp, ctx->trace, out, err);
  for (uint32_t r = 0; r < p->n_ranks; r++) pol_prog_clear(&pp[r]);
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
  /* The library: the scenario's, else the policy's; collectives become
   * what it makes of them. */
  uint8_t lib = pol_library(pol, hw);
  if (!(pol->libs & (1u << lib))) {
    GString *can = g_string_new(NULL);
    for (int l = COMM_MPI; l <= COMM_GPUTN; l++)
      if (pol->libs & (1u << l))
        g_string_append_printf(can, "%s%s", can->len ? ", " : "", wl_lib_names[comm_wl_lib(l)]);
    *err = wl_error_at(ctx->sc, "hardware.comm.library",
                        "expected a library policy %s runs with (%s), got %s", pol->name,
                        can->str, wl_lib_names[comm_wl_lib(lib)]);
    g_string_free(can, TRUE);
    return false;
  }
  /* Each rewrite the library makes is a new program, freed at the end. */
  struct wl_program *owned[4];
  size_t n_owned = 0;
  if (wl_has_colls(p)) {
    struct wl_lib_opts opts = comm_lib_opts(hw->comm, (uint32_t)hw->net->gpus_per_node);
    p = owned[n_owned++] = wl_expand_colls(p, comm_wl_lib(lib), &opts);
  }
  if ((lib == COMM_NCCL || lib == COMM_NVSHMEM) && pol->lib_p2p)
    p = owned[n_owned++] = wl_group_p2p(p);
  if (lib == COMM_NCCL && hw->comm && hw->comm->nccl_step_latency > 0)
    p = owned[n_owned++] = wl_step_cost(p, hw->comm->nccl_step_latency);
  /* Host MPI's large messages go by rendezvous. */
  int64_t eager = hw->comm ? hw->comm->mpi_eager_limit : INT64_MAX;
  if (lib == COMM_MPI && pol->graph.two_sided && wl_rendezvous_needed(p, eager))
    p = owned[n_owned++] = wl_rendezvous(p, eager);
  /* Loops: kept when the policy lowers them and the messages match loop
   * for loop; else written out, as long as that fits. */
  struct wl_program *orig = p, *own = NULL;
  if (wl_has_loops(p)) {
    bool kept = false;
    if (pol->loops && (!pol->loops_at_syncs || wl_loops_at_syncs(orig))) {
      if (pol->peel_last) p = own = wl_peel_last(orig);
      char *why = NULL;
      kept = wl_program_check(p, &why);
      g_free(why);
      if (!kept) {
        wl_program_free(own);
        own = NULL;
      }
    }
    if (!kept) {
      uint64_t n = wl_unrolled_ops(orig);
      if (n > WL_MAX_OPS) {
        *err = wl_error_at(ctx->sc, "policies",
                            "policy %s runs this program written out: expected at most %"
                            G_GUINT64_FORMAT " ops, got %" G_GUINT64_FORMAT,
                            pol->name, (uint64_t)WL_MAX_OPS, n);
        while (n_owned) wl_program_free(owned[--n_owned]);
        return false;
      }
      p = own = wl_unroll(orig);
    }
  }
  bool ok = pol_run_checked(p, pol, hw, lib, ctx, out, err);
  wl_program_free(own);
  while (n_owned) wl_program_free(owned[--n_owned]);
  return ok;
}
