// Same-address atomics on one GPU (issue 12, acg12): what aCG's in-kernel
// dot product (ParCoreLab/aCG acg/cg-kernels-cuda.cu, ddot: a grid-stride
// partial per thread, a warp shuffle reduction, then one atomicAdd per warp
// into one double) pays for its atomics. Two measurements, one block of
// 1024 threads per SM (the monolithic kernel's grid):
//   (a) K same-address double atomicAdds per warp (lane 0), back to back:
//       the L2's throughput on one address (ns per atomic);
//   (b) aCG's ddot over N doubles against the same dot writing its warp
//       partials to distinct addresses (no atomic): the atomics' share.
// Not built by the project (no CUDA here); on the GPU machine:
//   nvcc -O3 -arch=sm_90 atomic_dot.cu -o atomic_dot && ./atomic_dot
// The figures in configs/libs/README.md ("aCG's monolithic CG") come from it.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void same_addr(double *acc, int k) {
  if ((threadIdx.x & 31) == 0)
    for (int i = 0; i < k; i++) atomicAdd(acc, 1.0);
}

__device__ double warp_sum(double z) {
  for (int i = 16; i > 0; i /= 2) z += __shfl_down_sync(0xffffffff, z, i);
  return z;
}

// ATOMIC 1: aCG's ddot (one atomicAdd per warp into *dot); 0: the warp's
// partial stored to its own slot (what the same dot costs without them).
template <int ATOMIC>
__global__ void ddot(long n, const double *x, const double *y, double *dot, double *parts) {
  double z = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
    z += x[i] * y[i];
  z = warp_sum(z);
  if ((threadIdx.x & 31) == 0) {
    if (ATOMIC) atomicAdd(dot, z);
    else parts[(blockIdx.x * (long)blockDim.x + threadIdx.x) / 32] = z;
  }
}

template <typename F>
static double median_us(F f, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int r = 0; r < reps + 2; r++) {
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (r >= 2) t.push_back(ms * 1000.0f);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

int main() {
  cudaDeviceProp pr;
  CK(cudaGetDeviceProperties(&pr, 0));
  int sms = pr.multiProcessorCount, warps = sms * 32;
  printf("%s, %d SMs, %d warps in a grid of one 1024-thread block per SM\n", pr.name, sms, warps);
  double *acc, *x, *parts;
  long nmax = 1L << 24;
  CK(cudaMalloc(&acc, sizeof(double)));
  CK(cudaMalloc(&parts, warps * sizeof(double)));
  CK(cudaMalloc(&x, nmax * sizeof(double)));
  CK(cudaMemset(x, 0, nmax * sizeof(double)));
  CK(cudaMemset(acc, 0, sizeof(double)));
  // (a) throughput on one address: the slope between K = 1 and K = 64
  double t1 = median_us([&] { same_addr<<<sms, 1024>>>(acc, 1); }, 20);
  for (int k : {1, 8, 64}) {
    double t = median_us([&] { same_addr<<<sms, 1024>>>(acc, k); }, 20);
    printf("same address: %d atomics per warp, %ld in all: %.2f us", k, (long)warps * k, t);
    if (k > 1) printf(", %.3f ns per added atomic", (t - t1) * 1e3 / ((double)warps * (k - 1)));
    printf("\n");
  }
  // (b) aCG's ddot with and without its per-warp atomics
  for (long n : {1L << 15, 1L << 18, 1L << 21, 1L << 24}) {
    double ta = median_us([&] { ddot<1><<<sms, 1024>>>(n, x, x, acc, parts); }, 20);
    double tp = median_us([&] { ddot<0><<<sms, 1024>>>(n, x, x, acc, parts); }, 20);
    printf("ddot n=%ld: atomics %.2f us, partials %.2f us, difference %.2f us\n", n, ta, tp, ta - tp);
  }
  return 0;
}
