/* Group "comm": the communication library of a run (library.h). */
#include "library.h"

#include <stddef.h>

#define PAR_CONFIG struct comm_config
static const struct par_decl comm_decls[] = {
    PAR(library, PAR_ENUM, "auto", NULL, NULL, "auto|mpi|nccl|nvshmem|gputn",
      "how collectives and their messages are lowered (workloads/ir/coll.h): auto = the "
      "policy's own (mpi for cpu, hdn, hdn2s, gds, ghn, copy, overlap, p2p; nvshmem for "
      "cpufree and monolithic; gputn for gputn); mpi = the algorithm's point-to-point "
      "messages moved as the policy moves messages; nccl = one kernel per collective "
      "(ring), NVLink puts inside a node and a CPU proxy thread across nodes (needs "
      "cpu.helper_threads >= 1 then); nvshmem = one kernel per collective "
      "(nvshmemx_*_on_stream; inside the persistent kernel under cpufree), NVSHMEM 2.7's "
      "algorithms (coll.h: LL all-push or recursive doubling allreduce, barrier rounds of "
      "unfenced flag stores in a node), device-initiated puts; gputn = GPU-TN triggered puts"),
    PAR(nvshmem_transport, PAR_ENUM, "ibgda", NULL, NULL, "ibgda|ibrc",
      "how an nvshmem put reaches the NIC: ibgda = the GPU posts it (GPUDirect Async "
      "kernel-initiated, NVSHMEM >= 2.6); ibrc = a CPU proxy thread posts each request "
      "(cpu.helper_threads >= 1) (NVSHMEM 2.8.0 release notes)"),
    PAR(nvlink_stores, PAR_BOOL, "false", NULL, NULL, NULL,
      "a device-initiated put (nvshmem, nccl, cpufree, p2p) to a GPU of the same node is the "
      "SMs' own stores over NVLink, as NVSHMEM's and NCCL's P2P transports do it: no PCIe "
      "crossing, no NIC command, no DMA (models/nic.h); false: it goes through the NIC "
      "model's command path like a network put"),
    PAR(nccl_step_latency, PAR_TIME, "0ps", "0ps", "1ms", NULL,
      "nccl: a cost per step (a send of an NCCL kernel, any protocol) beyond the put, its "
      "fence in Simple and the flag wait the models time: 0 by default; NCCL's own tuning "
      "model puts a whole LL step at 0.47 us over NVLink and 2.7 us over the network, a "
      "Simple one at 3.4 and 9.6 us (src/graph/tuning.cc; configs/libs/README.md)"),
    PAR(nccl_channels, PAR_INT, "16", "1", "64", NULL,
      "nccl: the most channels a ring (allreduce, reduce-scatter, allgather) runs on, each its own ring over a part of "
      "the bytes; across nodes channel k leaves every node from a different GPU's NIC "
      "(workloads/ir/coll.h); a call uses one channel per 32 KiB, at least one, as NCCL's "
      "src/enqueue.cc does. 16: two channels for each of a DGX A100's 8 HDR NICs, as "
      "NVIDIA/nccl issues 320 and 1245 describe NCCL's rings there (one node alone gets "
      "24 in nccl-tests issue 100's log; inside a node the channels share each GPU's "
      "NVLink port here, so their count changes little there); 64 is NCCL's MAXCHANNELS"),
    PAR(nccl_protocol, PAR_ENUM, "auto", NULL, NULL, "auto|ll|ll128|simple",
      "nccl: the protocol of every call, as NCCL_PROTO forces one: auto = NCCL 2.15's tuner's "
      "choice by size (src/graph/tuning.cc, with its choice of tree or ring across nodes; "
      "workloads/ir/coll.h wl_nccl_time); ll = 8 B of data with their flags in 16 B lines "
      "(twice the bytes), no fence; ll128 = 120 B with a flag in 128 B lines, no fence; "
      "simple = the data, a system fence (gpu.fence_latency), then the step's flag "
      "(src/collectives/device/prims_*.h)"),
    PAR(nccl_gpu, PAR_ENUM, "ampere", NULL, NULL, "volta|ampere|hopper",
      "nccl: the GPUs whose tables NCCL's tuner takes (its LL bandwidth on one node, its "
      "tree's per channel, Ampere's 235 GB/s cap); the profile's GPU"),
    PAR(nccl_cpu, PAR_ENUM, "amd", NULL, NULL, "intel|amd",
      "nccl: the hosts' CPU vendor, whose row of LL bandwidths NCCL's tuner takes across "
      "nodes (a DGX A100's EPYC 7742: amd)"),
    PAR(nvshmem_barrier_latency, PAR_TIME, "0ps", "0ps", "1ms", NULL,
      "nvshmem: the time a barrier call spends on its calling GPU beyond the rounds the "
      "model writes out (its flag stores, waits and quiet): NVSHMEM's own code a call "
      "(team and sync-array bookkeeping), before its first round; 0 by default. An H200 "
      "pair measures 1.6 us with NVSHMEM 3.4.5 (configs/hw/README.md: 3.39 us a "
      "device-called barrier against 1.79 us for its round and fence by hand)"),
    PAR(nvshmem_reduce_latency, PAR_TIME, "0ps", "0ps", "1ms", NULL,
      "nvshmem: the same for an allreduce call (either algorithm): 0 by default; an H200 "
      "pair measures 2.1 - 2.3 us with NVSHMEM 3.4.5 (4.30 us a device-called reduction of "
      "one double against 1.97 us by hand, 2.91 us of two doubles against 0.79)"),
    PAR(nvshmem_on_stream_barrier_latency, PAR_TIME, "0ps", "0ps", "1ms", NULL,
      "nvshmem: what a barrier called on a stream (nvshmemx_barrier_all_on_stream: a kernel "
      "NVSHMEM launches, under a policy whose kernels are launched one by one) spends on its "
      "GPU beyond nvshmem_barrier_latency, the device-called call's own time (the CPU-free "
      "code calls nvshmem_barrier_all inside its kernel; the CPU-controlled one on its "
      "stream): 0 by default; its launch is the kernel's, timed as any launch"),
    PAR(nvshmem_on_stream_reduce_latency, PAR_TIME, "0ps", "0ps", "1ms", NULL,
      "nvshmem: the same for an allreduce called on a stream "
      "(nvshmemx_double_sum_reduce_on_stream) beyond nvshmem_reduce_latency: 0 by default"),
    PAR(mpi_eager_limit, PAR_SIZE, "8KiB", "0B", "16GiB", NULL,
      "mpi under cpu, hdn and hdn2s: a larger message waits for its receiver's "
      "clear-to-send (rendezvous; workloads/ir/coll.h wl_rendezvous). Estimate: UCX picks "
      "its threshold per transport (UCX_RNDV_THRESH=auto); UCX-Py sets 8192 B; Sun MPI's "
      "defaults are 16-48 KiB"),
    PAR(mpi_allreduce, PAR_ENUM, "auto", NULL, NULL,
      "auto|ring|recursive_doubling|rabenseifner|binary_tree|double_binary_tree",
      "mpi: the algorithm of an allreduce that asks for none (workloads/ir/coll.h): auto = "
      "MPICH's choice by size (mpi_allreduce_short); else that one, as MPICH's "
      "MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM forces one (recursive_doubling, "
      "reduce_scatter_allgather = rabenseifner, ring; trees as NCCL's)"),
    PAR(mpi_allreduce_short, PAR_SIZE, "2KiB", "0B", "16GiB", NULL,
      "mpi, mpi_allreduce auto: recursive doubling up to this many bytes, Rabenseifner "
      "above (MPICH's MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE, default 2048, "
      "src/mpi/coll/allreduce.c)"),
};
#undef PAR_CONFIG

const struct par_group comm_params = {
    .name = "comm",
    .doc = "communication library: how collectives and messages are lowered",
    .decls = comm_decls,
    .n_decls = PAR_COUNT(comm_decls),
    .config_size = sizeof(struct comm_config),
};

struct wl_lib_opts comm_lib_opts(const struct comm_config *comm, const struct net_config *net,
                                 bool on_stream) {
  /* NCCL's bus bandwidths (its graphs' nChannels x bw): a GPU's NVLink
   * port inside a node; across nodes its node's NICs together (one a
   * GPU, models/net.h), as its rings leave every node through each. */
  uint32_t per_node = (uint32_t)net->gpus_per_node;
  return (struct wl_lib_opts){
      .per_node = per_node,
      .channels = comm ? (uint32_t)comm->nccl_channels : 1,
      .mpi_allreduce = comm ? (uint8_t)comm->mpi_allreduce : WL_ALG_AUTO,
      .mpi_short_bytes = comm ? comm->mpi_allreduce_short : WL_MPI_SHORT_BYTES,
      .nccl_proto = comm ? (uint8_t)comm->nccl_protocol : WL_PROTO_AUTO,
      .nccl_gpu = comm ? (uint8_t)comm->nccl_gpu : WL_NCCL_AMPERE,
      .nccl_amd = comm ? comm->nccl_cpu == 1 : true,
      .busbw_intra = (double)net->intra_bandwidth / 8e9,
      .busbw_inter = (double)net->link_bandwidth / 8e9 * MAX(per_node, 1),
      .nvshmem_barrier_ps = !comm ? 0
                            : comm->nvshmem_barrier_latency +
                                  (on_stream ? comm->nvshmem_on_stream_barrier_latency : 0),
      .nvshmem_reduce_ps = !comm ? 0
                           : comm->nvshmem_reduce_latency +
                                 (on_stream ? comm->nvshmem_on_stream_reduce_latency : 0),
  };
}
