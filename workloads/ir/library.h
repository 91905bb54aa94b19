/* The communication library a run uses (DESIGN.md Sec. 8: control style x
 * library x hardware): scenario group `hardware.comm` (a library belongs
 * to the system's software stack as the profile describes it). Which
 * library a policy runs with by default and which it can use are in the
 * policy table (lower.h, pol_type.libs); what each library makes of a
 * collective is in coll.h (wl_expand_colls). */
#ifndef WL_LIBRARY_H
#define WL_LIBRARY_H

#include <stdbool.h>
#include <stdint.h>

#include "coll.h"
#include "net.h"
#include "param.h"

enum comm_library { COMM_AUTO, COMM_MPI, COMM_NCCL, COMM_NVSHMEM, COMM_GPUTN };
enum comm_transport { COMM_IBGDA, COMM_IBRC };

/* Group "comm". */
struct comm_config {
  int library;           /* enum comm_library: auto = the policy's default */
  int nvshmem_transport; /* enum comm_transport */
  int64_t mpi_eager_limit; /* bytes; larger messages go by rendezvous */
  bool nvlink_stores;      /* device puts inside a node are NVLink stores (kstep.nvl) */
  int64_t nccl_step_latency; /* ps: protocol cost per step of an NCCL kernel */
  int64_t nccl_channels;     /* most channels (rings) of one NCCL collective */
  int nccl_protocol;         /* enum wl_nccl_proto: auto = NCCL's tuner's choice */
  int nccl_gpu;              /* enum wl_nccl_gpu */
  int nccl_cpu;              /* 0 intel, 1 amd */
  int64_t nvshmem_barrier_latency; /* ps: an NVSHMEM barrier's own time beyond its rounds */
  int64_t nvshmem_reduce_latency;  /* ps: an NVSHMEM reduction's likewise */
  /* ps: what a call on a stream (a kernel NVSHMEM launches) adds to those */
  int64_t nvshmem_on_stream_barrier_latency, nvshmem_on_stream_reduce_latency;
  int mpi_allreduce;         /* enum wl_coll_algo, auto .. double_binary_tree */
  int64_t mpi_allreduce_short; /* bytes: recursive doubling up to this under auto */
};

extern const struct par_group comm_params;

/* How the library expands collectives (coll.h) on network NET (its GPUs
 * a node, their NVLink, a NIC a GPU), from group COMM (NULL: the
 * defaults). ON_STREAM: each call is a kernel of its own that the host
 * launches (a policy whose programs are kernels launched one by one:
 * NVSHMEM's nvshmemx_*_on_stream), not called inside a running kernel. */
struct wl_lib_opts comm_lib_opts(const struct comm_config *comm, const struct net_config *net,
                                 bool on_stream);

/* LIBRARY (not COMM_AUTO) as the collectives' enum. */
static inline enum wl_lib comm_wl_lib(int library) {
  return library == COMM_NCCL      ? WL_LIB_NCCL
         : library == COMM_NVSHMEM ? WL_LIB_NVSHMEM
         : library == COMM_GPUTN   ? WL_LIB_GPUTN
                                   : WL_LIB_MPI;
}

#endif
