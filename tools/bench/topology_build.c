/* Build-time benchmark of whole systems: N nodes (CPU, GPU, NIC, bus each)
 * on a network, built into an engine with default hardware parameters;
 * optionally G GPUs per physical node (network.gpus_per_node), which adds
 * one intra-node crossbar per G nodes.
 * Prints one line: nodes=4096 topology=fat-tree build_s=0.012 bytes_per_node=2048
 * (bytes: resident memory added by the build, over the node count), with
 * gpus_per_node=G after it when G was given. */
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "system.h"

static long resident_bytes(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld %ld", &pages, &resident) != 2) g_error("cannot read /proc/self/statm");
  fclose(f);
  return resident * sysconf(_SC_PAGESIZE);
}

/* Sets the shape parameters of KIND for at least NODES nodes. */
static void shape(struct net_config *net, const char *kind, int64_t nodes) {
  const struct par_decl *d = par_group_find(&net_params, "topology");
  char *err = NULL;
  if (!par_set(d, net, kind, &err)) g_error("%s", err);
  net->nodes = nodes;
  if (!strcmp(kind, "torus")) {
    int64_t x = 1;
    while (x * x * x < nodes) x++;
    net->torus_x = net->torus_y = net->torus_z = x;
  } else if (!strcmp(kind, "dragonfly")) {
    int64_t p = 1; /* balanced: a = 2p, h = p, nodes a*p*(a*h+1) */
    while (2 * p * p * (2 * p * p + 1) < nodes) p++;
    net->dragonfly_a = 2 * p;
    net->dragonfly_p = p;
    net->dragonfly_h = p;
  }
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: topology_build NODES star|fat-tree|torus|dragonfly [GPUS_PER_NODE]\n");
    return 2;
  }
  int64_t nodes = g_ascii_strtoll(argv[1], NULL, 10);
  int64_t gpn = argc == 4 ? g_ascii_strtoll(argv[3], NULL, 10) : 1;
  struct gpu_config gpu;
  struct cpu_config cpu;
  struct bus_config bus;
  struct nic_config nic;
  struct net_config net;
  par_group_defaults(&gpu_params, &gpu);
  par_group_defaults(&cpu_params, &cpu);
  par_group_defaults(&bus_params, &bus);
  par_group_defaults(&nic_params, &nic);
  par_group_defaults(&net_params, &net);
  shape(&net, argv[2], nodes);
  net.gpus_per_node = gpn;
  struct hw_config hw = {.gpu = &gpu, .cpu = &cpu, .bus = &bus, .nic = &nic, .net = &net};
  long before = resident_bytes();
  gint64 t0 = g_get_monotonic_time();
  struct sim_engine *e = sim_new(1);
  char *err = NULL;
  struct system *s = sys_build(e, &hw, NULL, &err);
  if (!s) {
    fprintf(stderr, "topology_build: %s\n", err);
    return 2;
  }
  gint64 t1 = g_get_monotonic_time();
  long after = resident_bytes();
  printf("nodes=%" G_GINT64_FORMAT " topology=%s build_s=%.4f bytes_per_node=%ld components=%zu",
         nodes, argv[2], (double)(t1 - t0) / 1e6, (after - before) / (long)nodes,
         sim_comp_count(e));
  if (argc == 4) printf(" gpus_per_node=%" G_GINT64_FORMAT, gpn);
  printf("\n");
  sim_free(e);
  sys_free(s);
  return 0;
}
