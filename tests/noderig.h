/* The node rig shared by the CPU and GPU suites: node0 = bus + GPU + CPU +
 * a fake NIC that records what it receives and can send scripted messages,
 * all on zero-latency links. */
#ifndef NODERIG_H
#define NODERIG_H

#include "bus.h"
#include "cpu.h"
#include "engine.h"
#include "gpu.h"
#include "nodeprog.h"
#include "proto.h"
#include "system.h"
#include "testutil.h"


#define NS SIM_NS
#define US SIM_US
#define FN_MAX 512

/* A message the fake NIC sends at a time (a script entry). */
struct fn_send {
  sim_time at;
  uint8_t kind, dst_dev;
  int64_t bytes;
  uint32_t a, b;
};

struct fn_script {
  int n;
  struct fn_send s[8];
};

/* What the fake NIC received. */
struct fnic {
  int n;
  uint8_t kind[FN_MAX];
  sim_time at[FN_MAX];
  uint32_t a[FN_MAX];
  uint32_t b[FN_MAX]; /* PK_TRIGGER: the stores it carries */
  struct nic_cmd cmd[FN_MAX];
};

struct rig {
  struct sim_engine *e;
  struct gpu_config g;
  struct cpu_config cpu;
  struct bus_config bus;
  struct fn_script script;
  struct sim_comp *gpu_c, *cpu_c, *bus_c, *nic_c;
  struct sim_report rep;
};

/* Bus latency of the rig's baseline. */
#define B (100 * NS)

/* Defaults of every group, then the rig's baseline: bus latency B = 100 ns
 * with control messages free (control_bytes 0), so a control message
 * crosses in exactly B. */
void rig_init(struct rig *r);
void rig_build(struct rig *r, const struct nodeprog *prog);
/* Runs to the end and collects the report; every payload must be freed. */
void rig_run(struct rig *r);
int64_t rep(struct rig *r, const char *key);
struct fnic *rig_nic(struct rig *r);
void rig_free(struct rig *r);

/* Every hardware group at its defaults, bound together as sys_build wants
 * them (the system and policy suites). */
struct hw {
  struct gpu_config gpu;
  struct cpu_config cpu;
  struct bus_config bus;
  struct nic_config nic;
  struct net_config net;
  struct hw_config cfg;
};

void hw_defaults(struct hw *h);

/* The LogGP-like machine of the collective tests (test_coll.c,
 * test_chakra.c) on NODES nodes: the host's send and receive cost 1 us
 * each, a message 2 links x 500 ns through the star's switch plus 1 ns a
 * byte (8 Gbps, one packet, cut-through), the bus's DMA read and memory
 * write 0.08 ps a byte each (100 Tbps), the CPU's memory 24 Gbps (a
 * reduction of s bytes moves 3 s: 1 ns a byte reduced); every other cost
 * 0. */
void hw_loggp(struct hw *h, int64_t nodes);

/* Group "comm" at its defaults, library LIB (enum comm_library). */
void nr_comm(struct comm_config *c, int lib);

/* The GPU of the row-per-thread SpMV tests (gpu.h "L1"): 2 CUs, 256-item
 * WGs, 512 items per CU; 65536 registers (a persistent kernel at 256 a
 * work-item holds 1 WG per CU, a discrete one at 64 holds 2); memory
 * 8.192 Tbps and L2 16.384 Tbps (1 MiB), no latency; L1 64 KiB, 128 B
 * lines, 32 B sectors; flops negligible; bw_share kernel. */
void nr_spmv_gpu(struct gpu_config *g);

#endif
