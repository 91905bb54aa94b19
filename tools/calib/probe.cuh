// What the standalone CUDA probes share (graph_probe.cu, probes/queued_gap.cu):
// a check that reports the failed call under the probe's name and leaves
// main with 1, a monotonic host clock, and the one-word chain kernel whose
// launches each depend on the one before. A probe defines PROBE_NAME first.
#ifndef TRIGSIM_PROBE_CUH
#define TRIGSIM_PROBE_CUH

#include <cuda_runtime.h>

#include <cstdio>
#include <ctime>

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

// Each kernel of the chain adds to what the one before wrote (one thread of
// the whole grid, so any grid shape keeps the chain).
__global__ void k_chain(int *p) {
  if (threadIdx.x == 0 && blockIdx.x == 0) p[0] += 1;
}

#endif
