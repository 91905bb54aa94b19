/* A GPU: a front end (command processor) serving in-order queues, and
 * compute units running work-groups in waves under an occupancy limit
 * (DESIGN.md Sec. 3 "GPU"; launch/teardown from GPU-TN Table 2, launch cost
 * against queue depth after GPU-TN Fig. 1).
 *
 * Port "bus" (0), joined to the node bus's "gpu" port. Receives PK_QUEUE_CMD
 * and PK_FLAG; sends PK_KERNEL_DONE and PK_HOST_REQUEST to the CPU,
 * PK_TRIGGER, PK_NIC_CMD and PK_DOORBELL to the NIC (event kind = pmsg kind).
 *
 * Timing.
 * - PK_QUEUE_CMD {queue, a = qcmd index} appends to queue `queue`. Its depth
 *   is fixed then: 1 + the commands of that queue not yet complete (the one
 *   being served included). Launch latency = par_table_eval(launch_table,
 *   depth), or launch_latency + launch_per_queued * (depth - 1) when the
 *   table is empty.
 * - One front end launches one kernel at a time, queues in the order their
 *   head kernel became ready. A queue serves its commands one at a time: a
 *   kernel occupies its queue from launch to the end of its teardown.
 * - After launch the kernel's WGs are dispatched, oldest kernel first, onto
 *   cus * wgs_per_cu slots shared by all kernels; a WG holds its slot until
 *   its last step ends. When the last WG ends: teardown_latency, then
 *   PK_KERNEL_DONE {a = kernel index} to the CPU and the queue moves on.
 * - KS_COMPUTE: `time` if > 0, else
 *   max(flops / (flops_per_cu_cycle * clock / wgs_per_cu),
 *       bytes / (mem_bandwidth / 8 / sharers)), rounded up to ps, where
 *   sharers = cus * wgs_per_cu, or with bw_share kernel the kernel's WG
 *   count when that is smaller.
 * - KS_WAIT_FLAG started at s continues at the first s + k*poll_interval
 *   (k >= 0) at or after the flag reaches the value.
 * - KS_TRIGGER / KS_HOST_REQUEST / KS_NIC_CMD: fence_latency, then the
 *   posted message leaves for the bus and the WG goes on at once.
 * - KS_BARRIER: when the kernel's last WG arrives, all go on after
 *   barrier_base + barrier_per_wg * n_wgs. All WGs must fit at once (assert).
 * - Q_WAIT_FLAG: the queue goes on stream_wait_latency after the later of
 *   reaching the command and the flag reaching the value. Q_DOORBELL sends
 *   PK_DOORBELL {a = cmd_id} to the NIC and moves on at once. */
#ifndef MODELS_GPU_H
#define MODELS_GPU_H

#include <stdint.h>

#include "engine.h"
#include "nodeprog.h"
#include "param.h"
#include "proto.h"

/* Group "gpu": see gpu_params for units, defaults and ranges. */
struct gpu_config {
  int64_t clock;               /* Hz */
  int64_t cus;
  int64_t wgs_per_cu;          /* occupancy limit: WG slots per CU */
  int64_t flops_per_cu_cycle;
  int64_t mem_bandwidth;       /* bits per second, shared by all slots */
  int64_t queues;              /* in-order queues (streams), <= 256 */
  sim_time launch_latency;
  sim_time launch_per_queued;
  struct par_table launch_table; /* launch latency against depth; empty: linear fit */
  sim_time teardown_latency;
  sim_time fence_latency;
  sim_time poll_interval;
  sim_time stream_wait_latency;
  sim_time barrier_base;
  sim_time barrier_per_wg;
  int bw_share;                /* enum gpu_bw_share (PAR_ENUM) */
};

/* How a WG's share of mem_bandwidth is counted: among all WG slots, or
 * among the WGs of its kernel when it has fewer (the kernel runs alone). */
enum gpu_bw_share { GPU_BW_SLOTS, GPU_BW_KERNEL };

extern const struct par_group gpu_params;
extern const struct sim_type gpu_type;

/* Adds a GPU named NAME ("node3.gpu") for node NODE running PROG's kernels
 * and queue commands. CFG and PROG are borrowed and must outlive the run. */
struct sim_comp *gpu_add(struct sim_engine *e, const char *name, const struct gpu_config *cfg,
                         const struct nodeprog *prog, uint32_t node);

/* Duration of one KS_COMPUTE step under CFG (the roofline above, the
 * bandwidth shared by all slots). */
sim_time gpu_compute_time(const struct gpu_config *cfg, const struct kstep *st);
/* Same, for a WG of a kernel of N_WGS WGs: with bw_share kernel and fewer
 * WGs than slots, the bandwidth is shared by N_WGS. */
sim_time gpu_wg_compute_time(const struct gpu_config *cfg, const struct kstep *st, uint32_t n_wgs);

/* Launch latency of a kernel enqueued at DEPTH (>= 1) under CFG. */
sim_time gpu_launch_time(const struct gpu_config *cfg, int64_t depth);

#endif
