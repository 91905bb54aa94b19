/* The node rig shared by the CPU and GPU suites (noderig.h). */
#include "noderig.h"

#include <glib.h>
#include <string.h>

#include "library.h"

static void fnic_init(struct sim_comp *c) {
  const struct fn_script *sc = c->config;
  if (!sc) return;
  for (int i = 0; i < sc->n; i++) sim_schedule(c, sc->s[i].at, 1, (uint64_t)i);
}

static void fnic_handle(struct sim_comp *c, const struct sim_event *ev) {
  struct fnic *f = c->state;
  if (ev->port == SIM_PORT_SELF) {
    const struct fn_send *x = &((const struct fn_script *)c->config)->s[ev->data];
    struct pmsg *m;
    uint64_t h = pmsg_new(c->eng, x->kind, &m);
    m->dst_dev = x->dst_dev;
    m->src_dev = DEV_NIC;
    m->bytes = x->bytes;
    m->a = x->a;
    m->b = x->b;
    sim_send(c, 0, 0, x->kind, h);
    return;
  }
  struct pmsg *m = sim_payload(c->eng, ev->data);
  CU_ASSERT_FATAL(f->n < FN_MAX);
  CU_ASSERT_EQUAL(m->dst_dev, DEV_NIC);
  CU_ASSERT_EQUAL(ev->kind, m->kind);
  f->kind[f->n] = m->kind;
  f->at[f->n] = sim_now(c->eng);
  f->a[f->n] = m->a;
  f->b[f->n] = m->b;
  if (m->kind == PK_NIC_CMD) {
    f->cmd[f->n] = *(struct nic_cmd *)sim_payload(c->eng, m->op);
    sim_payload_free(c->eng, m->op);
  }
  f->n++;
  sim_payload_free(c->eng, ev->data);
}

static const char *const fnic_ports[] = {"bus"};
static const struct sim_type fnic_type = {.name = "fnic", .ports = fnic_ports, .n_ports = 1,
                                          .state_size = sizeof(struct fnic),
                                          .init = fnic_init, .handle = fnic_handle};



void rig_init(struct rig *r) {
  memset(r, 0, sizeof *r);
  par_group_defaults(&gpu_params, &r->g);
  par_group_defaults(&cpu_params, &r->cpu);
  par_group_defaults(&bus_params, &r->bus);
  r->bus.latency = B;
  r->bus.bandwidth = 512000000000; /* 512 Gbps: 64 B = 1 ns */
  r->bus.control_bytes = 0;
  sim_report_init(&r->rep);
}

void rig_build(struct rig *r, const struct nodeprog *prog) {
  char *err = NULL;
  r->e = sim_new(1);
  r->bus_c = bus_add(r->e, "node0.bus", &r->bus, 0);
  r->gpu_c = gpu_add(r->e, "node0.gpu", &r->g, prog, 0);
  r->cpu_c = cpu_add(r->e, "node0.cpu", &r->cpu, prog, 0);
  r->nic_c = sim_add(r->e, &fnic_type, "node0.nic", &r->script);
  CU_ASSERT_TRUE(sim_connect(r->bus_c, DEV_CPU, r->cpu_c, 0, 0, &err));
  CU_ASSERT_TRUE(sim_connect(r->bus_c, DEV_GPU, r->gpu_c, 0, 0, &err));
  CU_ASSERT_TRUE(sim_connect(r->bus_c, DEV_NIC, r->nic_c, 0, 0, &err));
}

void rig_run(struct rig *r) {
  sim_run(r->e, SIM_TIME_MAX, 0);
  sim_finish(r->e, &r->rep);
  CU_ASSERT_EQUAL(sim_payloads_live(r->e), 0);
}

int64_t rep(struct rig *r, const char *key) {
  const struct sim_report_entry *en = sim_report_find(&r->rep, key);
  CU_ASSERT_PTR_NOT_NULL(en);
  if (!en) fprintf(stderr, "missing report key %s\n", key);
  return en ? en->i : INT64_MIN;
}

struct fnic *rig_nic(struct rig *r) { return r->nic_c->state; }

void rig_free(struct rig *r) {
  sim_report_clear(&r->rep);
  sim_free(r->e);
  r->e = NULL;}

void hw_defaults(struct hw *h) {
  par_group_defaults(&gpu_params, &h->gpu);
  par_group_defaults(&cpu_params, &h->cpu);
  par_group_defaults(&bus_params, &h->bus);
  par_group_defaults(&nic_params, &h->nic);
  par_group_defaults(&net_params, &h->net);
  h->cfg = (struct hw_config){&h->gpu, &h->cpu, &h->bus, &h->nic, &h->net, NULL};
}

void nr_comm(struct comm_config *c, int lib) {
  par_group_defaults(&comm_params, c);
  c->library = lib;
}

void nr_spmv_gpu(struct gpu_config *g) {
  par_group_defaults(&gpu_params, g);
  g->cus = 2;
  g->wgs_per_cu = 8;
  g->wg_items = 256;
  g->items_per_cu = 512;
  g->regs_per_cu = 65536;
  g->persistent_regs = 256;
  g->discrete_regs = 64;
  g->mem_latency = 0;
  g->mem_bandwidth = 8192000000000;
  g->l2_bytes = 1 << 20;
  g->l2_bandwidth = 16384000000000;
  g->l2_latency = 0;
  g->l1_bytes = 64 * 1024;
  g->flops_per_cu_cycle = 1048576; /* flops negligible */
  g->bw_share = GPU_BW_KERNEL;
}

void hw_loggp(struct hw *h, int64_t nodes) {
  hw_defaults(h);
  h->cpu.send = h->cpu.recv = 1000000;
  h->cpu.build_cmd = h->cpu.register_trigger = h->cpu.launch_submit = 0;
  h->cpu.switch_poll_interval = 0;
  h->cpu.mem_bandwidth = 24000000000;
  h->bus.latency = h->bus.mem_latency = 0;
  h->bus.bandwidth = 100000000000000;
  h->bus.control_bytes = 0;
  h->nic.cmd_cost = h->nic.match_latency = h->nic.overflow_lookup = 0;
  h->net.nodes = nodes;
  h->net.link_latency = 500000;
  h->net.switch_latency = 0;
  h->net.link_bandwidth = 8000000000;
  h->net.mtu = 1 << 30;
  h->net.header_bytes = 0;
  h->net.flow_control = NET_FLOW_NONE; /* LogGP: no buffers to fill */
}
