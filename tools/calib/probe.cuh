// What the standalone CUDA probes share (graph_probe.cu, probes/*.cu): a
// check that reports the failed call under the probe's name and leaves
// main with 1, a monotonic host clock, a median, the two GPUs of a peer
// pair, and the one-word chain kernel whose launches each depend on the
// one before. A probe defines PROBE_NAME first.
#ifndef TRIGSIM_PROBE_CUH
#define TRIGSIM_PROBE_CUH

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

#define CK(c)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (c);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, PROBE_NAME ": %s: %s\n", #c, cudaGetErrorString(e_));     \
      return 1;                                                                 \
    }                                                                           \
  } while (0)

static double now_s() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// The median of V's samples: the upper middle one of an even count (the
// element at size / 2 once sorted); V is taken by value and reordered.
template <typename T> static T probe_median(std::vector<T> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

// The GPU's global nanosecond clock (%globaltimer): comparable between
// kernels of one GPU, not between GPUs.
__device__ static inline unsigned long long probe_globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// GPUs 0 and 1 with peer access enabled both ways (the two-GPU probes,
// probes/nvl_fence.cu and probes/coll_skew.cu); 1 when there are fewer or
// they cannot reach each other's memory.
static inline int peer_pair() {
  int n = 0, ok01 = 0, ok10 = 0;
  CK(cudaGetDeviceCount(&n));
  if (n < 2) {
    fprintf(stderr, PROBE_NAME ": expected 2 GPUs, got %d\n", n);
    return 1;
  }
  CK(cudaDeviceCanAccessPeer(&ok01, 0, 1));
  CK(cudaDeviceCanAccessPeer(&ok10, 1, 0));
  if (!ok01 || !ok10) {
    fprintf(stderr, PROBE_NAME ": expected peer access between GPUs 0 and 1\n");
    return 1;
  }
  for (int d = 0; d < 2; d++) {
    CK(cudaSetDevice(d));
    CK(cudaDeviceEnablePeerAccess(1 - d, 0));
  }
  return 0;
}

// Each kernel of the chain adds to what the one before wrote (one thread of
// the whole grid, so any grid shape keeps the chain).
__global__ void k_chain(int *p) {
  if (threadIdx.x == 0 && blockIdx.x == 0) p[0] += 1;
}

#endif
