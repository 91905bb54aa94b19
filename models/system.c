/* Builds a whole system (system.h): per node a bus with the CPU, GPU and NIC
 * on its ports, then the network the NICs hang from. Components are named
 * "node<i>.cpu", "node<i>.gpu", "node<i>.nic", "node<i>.bus", so each node
 * is one process on the trace timeline. With network.gpus_per_node G > 1,
 * nodes i*G .. i*G + G-1 are the GPUs of one physical node and their NICs
 * also join that node's crossbar ("nvl.sw<i>", net.h). */
#include "system.h"

#include <glib.h>

#include "phase.h"
#include "relax.h"
#include "switch.h"
#include "units.h"

/* Joins a device's bus port to the bus: the bus model charges the latency. */
static void join(struct sim_comp *dev, int dev_port, struct sim_comp *bus, enum pdev slot) {
  char *err = NULL;
  if (!sim_connect(dev, dev_port, bus, (int)slot, 0, &err)) g_error("sys_build: %s", err);
}

static struct system *build(struct sim_engine *e, const struct hw_config *hw,
                            const struct nodeprog *const *progs, sys_add_devices add, void *ctx,
                            char **err);

struct system *sys_build(struct sim_engine *e, const struct hw_config *hw,
                         const struct nodeprog *const *progs, char **err) {
  return build(e, hw, progs, NULL, NULL, err);
}

struct system *sys_build_with(struct sim_engine *e, const struct hw_config *hw,
                              sys_add_devices add, void *ctx, char **err) {
  return build(e, hw, NULL, add, ctx, err);
}

static struct system *build(struct sim_engine *e, const struct hw_config *hw,
                            const struct nodeprog *const *progs, sys_add_devices add, void *ctx,
                            char **err) {
  struct topo *topo = topo_new(hw->net, err);
  if (!topo) return NULL;
  uint32_t n = (uint32_t)hw->net->nodes;
  struct system *s = g_new0(struct system, 1);
  s->nodes = n;
  s->topo = topo;
  s->cpu = g_new(struct sim_comp *, n);
  s->gpu = g_new(struct sim_comp *, n);
  s->nic = g_new(struct sim_comp *, n);
  s->bus = g_new(struct sim_comp *, n);
  sim_set_relays(e, hw->bus->nvl_relay); /* NVLink stores pass the bus (bus.h) */
  char name[48];
  for (uint32_t i = 0; i < n; i++) {
    const struct nodeprog *prog = progs ? progs[i] : NULL;
    g_snprintf(name, sizeof name, "node%u.bus", i);
    s->bus[i] = bus_add(e, name, hw->bus, i);
    struct sys_devices d = {.cpu_port = 0, .gpu_port = 0};
    if (add) {
      add(ctx, e, i, &d);
    } else {
      g_snprintf(name, sizeof name, "node%u.cpu", i);
      d.cpu = cpu_add(e, name, hw->cpu, prog, i);
      g_snprintf(name, sizeof name, "node%u.gpu", i);
      d.gpu = gpu_add(e, name, hw->gpu, prog, i);
    }
    s->cpu[i] = d.cpu;
    s->gpu[i] = d.gpu;
    g_snprintf(name, sizeof name, "node%u.nic", i);
    s->nic[i] = nic_add(e, name, hw->nic, hw->net, prog, i);
    join(s->cpu[i], d.cpu_port, s->bus[i], DEV_CPU);
    join(s->gpu[i], d.gpu_port, s->bus[i], DEV_GPU);
    join(s->nic[i], NIC_PORT_BUS, s->bus[i], DEV_NIC);
  }
  if (!topo_build(topo, e, s->nic, NIC_PORT_NET, err) ||
      !topo_build_intra(topo, e, s->nic, NIC_PORT_NVL, err)) {
    sys_free(s);
    return NULL;
  }
  return s;
}

const struct sim_outputs *const sys_outputs[] = {&gpu_outputs, &cpu_outputs, &bus_outputs,
                                                 &nic_outputs, &sw_outputs, &ph_outputs,
                                                 &relax_outputs, &cp_outputs};
const size_t sys_n_outputs = G_N_ELEMENTS(sys_outputs);

void sys_free(struct system *s) {
  if (!s) return;
  topo_free(s->topo);
  g_free(s->cpu);
  g_free(s->gpu);
  g_free(s->nic);
  g_free(s->bus);
  g_free(s);
}

struct sim_comp *sys_node_comp(const struct system *s, uint32_t node,
                               const struct sim_out_decl *d) {
  g_assert(node < s->nodes);
  struct sim_comp *const *kinds[] = {s->cpu, s->gpu, s->nic, s->bus};
  for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++)
    if (sim_outputs_index(kinds[i][node]->type->outputs, d) >= 0) return kinds[i][node];
  g_error("sys_node_comp: output %s is no output of a node's CPU, GPU, NIC or bus",
          d && d->key ? d->key : "(null)");
}

/* ---- resource limits ---- */

void sys_limits_tally(struct sys_limits *t, const struct sim_report *counters) {
  int64_t spilled = 0, lookups = 0, stalls = 0, stall_time = 0, sw_wait = 0, helper_wait = 0;
  int64_t credit_stall = 0;
  for (size_t k = 0; k < counters->n; k++) {
    const struct sim_report_entry *en = &counters->entries[k];
    const struct sim_out_decl *d = en->decl;
    if (d == NIC_OUT(OVERFLOW_ENTRIES)) spilled += en->i;
    else if (d == NIC_OUT(OVERFLOW_LOOKUPS)) lookups += en->i;
    else if (d == NIC_OUT(STALLS)) stalls += en->i;
    else if (d == NIC_OUT(STALL_TIME)) stall_time += en->i;
    else if (d == SW_OUT(TOTAL_MAX_QUEUE_DELAY)) sw_wait = MAX(sw_wait, en->i);
    else if (d == SW_OUT(TOTAL_CREDIT_STALL)) credit_stall += en->i;
    else if (d == CPU_OUT(HELPER_WAIT_MAX)) helper_wait = MAX(helper_wait, en->i);
  }
  t->runs++;
  if (spilled || lookups) t->hit[SYS_OVERFLOW]++;
  if (stalls) t->hit[SYS_STALL]++;
  if (sw_wait || helper_wait) t->hit[SYS_QUEUE]++;
  if (credit_stall) t->hit[SYS_CREDIT]++;
  t->credit_stall_ps += credit_stall;
  t->spilled += spilled;
  t->lookups += lookups;
  t->stalls += stalls;
  t->stall_time_ps += stall_time;
  t->switch_wait_ps = MAX(t->switch_wait_ps, sw_wait);
  t->helper_wait_ps = MAX(t->helper_wait_ps, helper_wait);
}

void sys_limits_print(const struct sys_limits *t, FILE *out) {
  char a[32], b[32];
  if (t->hit[SYS_OVERFLOW])
    fprintf(out,
            "trigsim: note: the trigger list overflowed in %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
            " runs: %" G_GINT64_FORMAT " entries spilled to host memory, %" G_GINT64_FORMAT
            " overflow lookups (hardware.nic.trigger_entries)\n",
            t->hit[SYS_OVERFLOW], t->runs, t->spilled, t->lookups);
  if (t->hit[SYS_STALL])
    fprintf(out,
            "trigsim: note: NICs stalled in %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
            " runs: %" G_GINT64_FORMAT " stalls, %s stalled in all (hardware.nic.trigger_full)\n",
            t->hit[SYS_STALL], t->runs, t->stalls,
            units_format(t->stall_time_ps, UNIT_TIME, a, sizeof a));
  if (t->hit[SYS_QUEUE]) {
    /* Only the queues that did wait (a ping's helper request waits for a
     * poll tick, its packets for no port). */
    fprintf(out, "trigsim: note: queues grew in %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " runs:",
            t->hit[SYS_QUEUE], t->runs);
    if (t->switch_wait_ps)
      fprintf(out, " packets waited up to %s at a switch port%s",
              units_format(t->switch_wait_ps, UNIT_TIME, a, sizeof a), t->helper_wait_ps ? "," : "");
    if (t->helper_wait_ps)
      fprintf(out, " requests waited up to %s for a helper thread (its poll included)",
              units_format(t->helper_wait_ps, UNIT_TIME, b, sizeof b));
    fprintf(out, "\n");
  }
  if (t->hit[SYS_CREDIT])
    fprintf(out,
            "trigsim: note: switch ports waited for credit in %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
            " runs: %s in all, ready packets held back by full buffers downstream "
            "(hardware.network.buffer_bytes, flow_control)\n",
            t->hit[SYS_CREDIT], t->runs, units_format(t->credit_stall_ps, UNIT_TIME, a, sizeof a));
}

int64_t sys_run_node(const struct hw_config *hw, const struct nodeprog *prog, uint64_t *events) {
  struct net_config net = *hw->net;
  net.topology = NET_STAR;
  net.nodes = 1;
  net.gpus_per_node = 1; /* one endpoint, sharing its physical node with none */
  struct hw_config h = *hw;
  h.net = &net;
  const struct nodeprog *progs[] = {prog};
  struct sim_engine *e = sim_new(1);
  char *err = NULL;
  struct system *s = sys_build(e, &h, progs, &err);
  if (!s) g_error("sys_run_node: one-node system: %s", err);
  uint64_t ran = sim_run(e, SIM_TIME_MAX, 0);
  if (events) *events = ran;
  struct sim_report rep;
  sim_report_init(&rep);
  sim_finish(e, &rep);
  int64_t total = sim_out_value(&rep, s->cpu[0], CPU_OUT(MAIN_DONE));
  g_assert(total > 0);
  sim_report_clear(&rep);
  sim_free(e);
  sys_free(s);
  return total;
}

int64_t sys_blocking_copy(const struct hw_config *hw, int64_t bytes) {
  g_assert(bytes >= 1);
  struct cpu_config cpu = *hw->cpu;
  cpu.task_overhead = 0; /* a task runtime's, not the MPI library's */
  cpu.launch = CPU_LAUNCH_DIRECT;
  cpu.wake_jitter = 0; /* its mean is added below: one draw would be every copy's */
  struct hw_config h = *hw;
  h.cpu = &cpu;
  const struct qcmd q = {.kind = Q_COPY_HOME, .flag = 1, .bytes = bytes};
  const struct hstep host[] = {
      {.kind = HS_LAUNCH, .queue = 0, .qcmd = 0},
      {.kind = HS_WAIT_FLAG, .flag = 1, .value = 1, .stream_sync = 1},
      {.kind = HS_COMPUTE, .time = cpu.pageable_copy},
  };
  struct nodeprog prog = {.qcmds = &q, .n_qcmds = 1, .host = host, .n_host = 3, .n_flags = 1};
  return sys_run_node(&h, &prog, NULL) + hw->cpu->wake_jitter;
}
