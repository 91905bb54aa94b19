/* A whole system: N nodes, each a CPU, a GPU, a NIC and the bus that joins
 * them (with the node's memory behind it), and the network of switches the
 * NICs hang from; with network.gpus_per_node G > 1, groups of G such nodes
 * (endpoints) share a physical node and its intra-node crossbar (net.h).
 * Builds the components and their links into an engine from the bound
 * hardware parameters and one program per node. */
#ifndef MODELS_SYSTEM_H
#define MODELS_SYSTEM_H

#include <stdbool.h>
#include <stdint.h>

#include "bus.h"
#include "cpu.h"
#include "engine.h"
#include "gpu.h"
#include "net.h"
#include "nic.h"
#include "nodeprog.h"
#include "topology.h"

/* The bound hardware groups (borrowed; they must outlive the system). */
struct hw_config {
  const struct gpu_config *gpu;
  const struct cpu_config *cpu;
  const struct bus_config *bus;
  const struct nic_config *nic;
  const struct net_config *net;
};

struct system {
  uint32_t nodes;
  struct topo *topo;
  struct sim_comp **cpu, **gpu, **nic, **bus; /* per node */
};

/* Builds net->nodes nodes into E. PROGS has one program per node (borrowed;
 * NULL entries run nothing). NULL and *ERR (g_free) when the shape of the
 * network is impossible. The engine owns the components; free the system
 * with sys_free after sim_free (the switches' type and config live in it). */
struct system *sys_build(struct sim_engine *e, const struct hw_config *hw,
                         const struct nodeprog *const *progs, char **err);
void sys_free(struct system *s);

#endif
