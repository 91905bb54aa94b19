/* Graph replay (CUDA Graphs; issue 31 item 1d): under cpu.launch graph the
 * kernels a host program launches back to back are captured once and
 * replayed by one host call (cpu.graph_launch), each then launched by the
 * GPU's front end (gpu.graph_launch, no teardown between nodes;
 * models/gpu.c). A pass over a rank's host program once it is lowered,
 * called by the host-driven policies that launch kernel by kernel (gds,
 * hdn, copy and their variants) from their rank's end. */
#include "lower.h"

/* Whether host step H of PP launches a kernel. */
static bool launches_kernel(const struct pol_prog *pp, const struct hstep *h) {
  return h->kind == HS_LAUNCH &&
         g_array_index(pp->qcmds, struct qcmd, h->qcmd).kind == Q_KERNEL;
}

void pol_capture_graphs(struct pol_low *L) {
  const struct cpu_config *cpu = L->env->hw->cpu;
  if (!cpu || cpu->launch != CPU_LAUNCH_GRAPH) return;
  /* A host graph launches and waits op by op: nothing back to back. */
  if (L->graph) return;
  g_assert(!L->srank); /* a capture is made whole (pol_run_source) */
  struct pol_prog *pp = L->pp;
  struct hstep *h = (struct hstep *)(void *)pp->host->data;
  guint n = pp->host->len;
  for (guint i = 0; i < n;) {
    if (!launches_kernel(pp, &h[i])) {
      i++;
      continue;
    }
    /* A run: launches of kernels on one queue with no other host step
     * between them (a wait, a send, a loop marker ends it). */
    guint b = i + 1;
    while (b < n && launches_kernel(pp, &h[b]) && h[b].queue == h[i].queue) b++;
    for (guint j = i; j < b; j++) {
      h[j].graph = j == i ? 1 : 2;
      g_array_index(pp->qcmds, struct qcmd, h[j].qcmd).graph = j + 1 < b ? 1 : 2;
    }
    i = b;
  }
}
