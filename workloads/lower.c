/* The shared half of every policy (lower.h): the node-program builder, the
 * policy table, and the driver that builds the system (models/system.h),
 * runs it and reads the result from the components' reports. */
#include "lower.h"

#include <string.h>

void pol_prog_init(struct pol_prog *pp) {
  memset(pp, 0, sizeof *pp);
  pp->kernels = g_array_new(FALSE, TRUE, sizeof(struct kernel));
  pp->qcmds = g_array_new(FALSE, TRUE, sizeof(struct qcmd));
  pp->cmds = g_array_new(FALSE, TRUE, sizeof(struct nic_cmd));
  pp->host = g_array_new(FALSE, TRUE, sizeof(struct hstep));
  pp->steps = g_ptr_array_new_with_free_func(g_free);
}

void pol_prog_clear(struct pol_prog *pp) {
  g_array_free(pp->kernels, TRUE);
  g_array_free(pp->qcmds, TRUE);
  g_array_free(pp->cmds, TRUE);
  g_array_free(pp->host, TRUE);
  g_ptr_array_free(pp->steps, TRUE);
  memset(pp, 0, sizeof *pp);
}

void pol_prog_seal(struct pol_prog *pp, uint32_t n_flags) {
  pp->np = (struct nodeprog){
      .kernels = (const struct kernel *)(void *)pp->kernels->data, .n_kernels = pp->kernels->len,
      .qcmds = (const struct qcmd *)(void *)pp->qcmds->data, .n_qcmds = pp->qcmds->len,
      .cmds = (const struct nic_cmd *)(void *)pp->cmds->data, .n_cmds = pp->cmds->len,
      .host = (const struct hstep *)(void *)pp->host->data, .n_host = pp->host->len,
      .n_flags = n_flags};
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
  uint8_t watcher = pol->recv_watcher(p, o->peer, o->match);
  return (struct nic_cmd){.op = op, .dst_node = o->peer, .bytes = o->bytes, .threshold = 1,
                          .remote = {.id = wl_matching_recv(p, rank, i)->flag,
                                     .watcher = watcher}};
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
                     struct pol_prog *pp, bool overlap) {
  const struct wl_rank *r = &p->ranks[rank];
  struct host_lanes h = {{-1, -1}};
  for (size_t i = 0; i < r->n_ops; i++) {
    const struct wl_op *o = &r->ops[i];
    int lane = overlap ? o->lane : 0;
    switch (o->kind) {
    case WL_COMPUTE: {
      const struct kstep step = {.kind = KS_COMPUTE, .flops = o->flops_per_wg,
                                 .bytes = o->bytes_per_wg};
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

const char *const pol_names[POL_COUNT] = {"cpu",  "hdn",     "gds", "gputn",       "ghn",
                                          "cpufree", "copy", "overlap", "p2p", "monolithic",
                                          "hdn-2s"};

const struct pol_type *pol_find(const char *name) {
  static const struct pol_type *const all[] = {&pol_cpu,  &pol_hdn,     &pol_gds, &pol_gputn,
                                               &pol_ghn,  &pol_cpufree, &pol_copy, &pol_overlap,
                                               &pol_p2p,  &pol_monolithic, &pol_hdn_2s};
  G_STATIC_ASSERT(G_N_ELEMENTS(all) == POL_COUNT);
  for (size_t i = 0; i < G_N_ELEMENTS(all); i++)
    if (!strcmp(all[i]->name, name)) return all[i];
  return NULL;
}

struct hw_config pol_hw_of(const struct scenario *sc) {
  g_assert(sc->catalog->n_hardware == 5);
  return (struct hw_config){sc->hardware[0], sc->hardware[1], sc->hardware[2], sc->hardware[3],
                            sc->hardware[4]};
}

bool pol_check_nodes(const struct scenario *sc, const struct hw_config *hw, uint64_t need,
                     const char *what, char **err) {
  if ((uint64_t)hw->net->nodes >= need) return true;
  const struct sc_node *n =
      sc_map_get(sc_map_get(sc_map_get(sc->root, "hardware"), "network"), "nodes");
  *err = sc_error_at(n ? n : sc->root, "hardware.network.nodes",
                     "expected at least %" G_GUINT64_FORMAT " nodes for %s, got %" G_GINT64_FORMAT,
                     need, what, hw->net->nodes);
  return false;
}

/* ---- reading the reports ---- */

static int64_t node_int(const struct sim_report *r, uint32_t node, const char *what) {
  char key[64];
  g_snprintf(key, sizeof key, "node%u.%s", node, what);
  const struct sim_report_entry *en = sim_report_find(r, key);
  g_assert(en); /* every model reports its keys */
  return en->i;
}

static int64_t sum_int(const struct sim_report *r, uint32_t nodes, const char *what) {
  int64_t t = 0;
  for (uint32_t i = 0; i < nodes; i++) t += node_int(r, i, what);
  return t;
}

/* Phases: the time each kind of control-path work took, summed over all
 * nodes and the whole run (so they overlap, and include work after the
 * measured rank finished, e.g. a kernel's teardown): not a partition of
 * total_ps. "nic" is command processing and trigger matching; "wire" the
 * serialization of every byte sent (at intra_bandwidth over NVLink) (link and switch latencies are not in
 * the reports); "waiting" the time CPUs, WGs and queues spent waiting for a
 * flag and requests waited for a helper thread. */
static void fill_phases(const struct hw_config *hw, uint32_t n, const struct sim_report *c,
                        struct sim_report *ph) {
  int64_t launch = sum_int(c, n, "cpu.launch_time") + sum_int(c, n, "gpu.launch_time");
  int64_t gpu_work = sum_int(c, n, "gpu.wg_time") - sum_int(c, n, "gpu.poll_time");
  int64_t host = sum_int(c, n, "cpu.build_time") + sum_int(c, n, "cpu.register_time") +
                 sum_int(c, n, "cpu.send_time") + sum_int(c, n, "cpu.recv_time");
  int64_t nic = (sum_int(c, n, "nic.commands") + sum_int(c, n, "nic.doorbells")) *
                    hw->nic->cmd_cost +
                sum_int(c, n, "nic.triggers_stored") * hw->nic->match_latency +
                sum_int(c, n, "nic.overflow_lookups") * hw->nic->overflow_lookup;
  sim_report_int(ph, "launch", UNIT_TIME, launch);
  sim_report_int(ph, "cpu compute", UNIT_TIME, sum_int(c, n, "cpu.compute_time"));
  sim_report_int(ph, "gpu work", UNIT_TIME, gpu_work);
  sim_report_int(ph, "teardown", UNIT_TIME, sum_int(c, n, "gpu.teardown_time"));
  sim_report_int(ph, "switch", UNIT_TIME, sum_int(c, n, "cpu.switch_time"));
  sim_report_int(ph, "host stack", UNIT_TIME, host);
  sim_report_int(ph, "nic", UNIT_TIME, nic);
  int64_t nvl = sum_int(c, n, "nic.nvl_bytes_sent");
  sim_report_int(ph, "wire", UNIT_TIME,
                 net_ser_time(sum_int(c, n, "nic.bytes_sent") - nvl, hw->net->link_bandwidth) +
                     (nvl ? net_ser_time(nvl, hw->net->intra_bandwidth) : 0));
  sim_report_int(ph, "waiting", UNIT_TIME,
                 sum_int(c, n, "cpu.wait_flag_time") + sum_int(c, n, "gpu.poll_time") +
                     sum_int(c, n, "gpu.stream_wait_time") + sum_int(c, n, "cpu.helper_wait_time"));
}

/* ---- the driver ---- */

static bool lower_all(const struct pol_type *pol, const struct wl_program *p,
                      const struct hw_config *hw, struct pol_prog *pp, char **err) {
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    if (!pol->lower(p, r, hw, &pp[r], err)) return false;
    pol_prog_seal(&pp[r], p->ranks[r].n_flags + (pol->extra_flags ? pol->extra_flags(p, r) : 0));
  }
  return true;
}

/* Whether every rank's host program ended and every kernel it launched
 * completed; else *ERR (a deadlock: waits that nothing satisfies, e.g. a
 * stalled trigger list). */
static bool all_finished(const struct pol_type *pol, const struct wl_program *p,
                         const struct sim_report *c, char **err) {
  for (uint32_t r = 0; r < p->n_ranks; r++) {
    if (node_int(c, r, "cpu.main_done") >= 0 &&
        node_int(c, r, "gpu.kernels") == node_int(c, r, "gpu.kernels_launched"))
      continue;
    *err = g_strdup_printf("policy %s: rank %u never finished: the run deadlocked (waits that "
                           "nothing satisfies; see its counters with --format json)", pol->name, r);
    return false;
  }
  return true;
}

/* Builds and runs the lowered programs PP; fills OUT. */
static bool simulate(const struct pol_type *pol, const struct wl_program *p,
                     const struct hw_config *hw, const struct pol_prog *pp, uint64_t seed,
                     struct trace *trace, struct sim_result *out, char **err) {
  uint32_t nodes = (uint32_t)hw->net->nodes;
  const struct nodeprog **progs = g_new0(const struct nodeprog *, nodes);
  for (uint32_t r = 0; r < p->n_ranks; r++) progs[r] = &pp[r].np;
  struct sim_engine *e = sim_new(seed);
  sim_set_trace(e, trace, pol->name);
  struct system *s = sys_build(e, hw, progs, err);
  bool ok = s != NULL;
  if (ok) {
    out->events = sim_run(e, SIM_TIME_MAX, 0);
    sim_finish(e, &out->counters);
    ok = all_finished(pol, p, &out->counters, err);
  }
  if (ok) {
    if (p->measured_rank != WL_ALL_RANKS) {
      out->total_ps = node_int(&out->counters, p->measured_rank, pol->done_key);
    } else {
      out->total_ps = 0;
      for (uint32_t r = 0; r < p->n_ranks; r++)
        out->total_ps = MAX(out->total_ps, node_int(&out->counters, r, pol->done_key));
    }
    fill_phases(hw, nodes, &out->counters, &out->phases);
    g_assert(out->total_ps >= 0); /* the lowering completes every rank */
  }
  sim_free(e);
  sys_free(s);
  g_free(progs);
  return ok;
}

bool pol_run(struct wl_program *p, const char *policy, const struct hw_config *hw,
             uint64_t seed, struct trace *trace, struct sim_result *out, char **err) {
  const struct pol_type *pol = pol_find(policy);
  if (!pol) {
    *err = g_strdup_printf("expected a policy that lowers programs, got %s", policy);
    return false;
  }
  if (hw->net->nodes < p->n_ranks) {
    *err = g_strdup_printf("network.nodes: expected at least %u nodes, got %" G_GINT64_FORMAT,
                           p->n_ranks, hw->net->nodes);
    return false;
  }
  if (!wl_program_check(p, err)) return false;
  struct pol_prog *pp = g_new(struct pol_prog, p->n_ranks);
  for (uint32_t r = 0; r < p->n_ranks; r++) pol_prog_init(&pp[r]);
  bool ok = lower_all(pol, p, hw, pp, err) && simulate(pol, p, hw, pp, seed, trace, out, err);
  for (uint32_t r = 0; r < p->n_ranks; r++) pol_prog_clear(&pp[r]);
  g_free(pp);
  return ok;
}
