/* Builds a whole system (system.h): per node a bus with the CPU, GPU and NIC
 * on its ports, then the network the NICs hang from. Components are named
 * "node<i>.cpu", "node<i>.gpu", "node<i>.nic", "node<i>.bus", so each node
 * is one process on the trace timeline. With network.gpus_per_node G > 1,
 * nodes i*G .. i*G + G-1 are the GPUs of one physical node and their NICs
 * also join that node's crossbar ("nvl.sw<i>", net.h). */
#include "system.h"

#include <glib.h>

#include "switch.h"

/* Joins a device's bus port to the bus: the bus model charges the latency. */
static void join(struct sim_comp *dev, int dev_port, struct sim_comp *bus, enum pdev slot) {
  char *err = NULL;
  if (!sim_connect(dev, dev_port, bus, (int)slot, 0, &err)) g_error("sys_build: %s", err);
}

struct system *sys_build(struct sim_engine *e, const struct hw_config *hw,
                         const struct nodeprog *const *progs, char **err) {
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
  char name[48];
  for (uint32_t i = 0; i < n; i++) {
    const struct nodeprog *prog = progs ? progs[i] : NULL;
    g_snprintf(name, sizeof name, "node%u.bus", i);
    s->bus[i] = bus_add(e, name, hw->bus, i);
    g_snprintf(name, sizeof name, "node%u.cpu", i);
    s->cpu[i] = cpu_add(e, name, hw->cpu, prog, i);
    g_snprintf(name, sizeof name, "node%u.gpu", i);
    s->gpu[i] = gpu_add(e, name, hw->gpu, prog, i);
    g_snprintf(name, sizeof name, "node%u.nic", i);
    s->nic[i] = nic_add(e, name, hw->nic, hw->net, prog, i);
    join(s->cpu[i], 0, s->bus[i], DEV_CPU);
    join(s->gpu[i], 0, s->bus[i], DEV_GPU);
    join(s->nic[i], NIC_PORT_BUS, s->bus[i], DEV_NIC);
  }
  if (!topo_build(topo, e, s->nic, NIC_PORT_NET, err) ||
      !topo_build_intra(topo, e, s->nic, NIC_PORT_NVL, err)) {
    sys_free(s);
    return NULL;
  }
  return s;
}

void sys_free(struct system *s) {
  if (!s) return;
  topo_free(s->topo);
  g_free(s->cpu);
  g_free(s->gpu);
  g_free(s->nic);
  g_free(s->bus);
  g_free(s);
}
