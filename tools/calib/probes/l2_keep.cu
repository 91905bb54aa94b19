// Whether a CG's vectors stay in L2 across the SpMV that streams its
// matrix between the vector operations (issue 28; the cpufree-ics23
// README, "What would close the gap next": the CPU-controlled code's
// AXPYs and dots run between SpMVs that read hundreds of MB a GPU, and
// the model takes a step's vectors from L2 whenever its own working set
// fits there, whatever ran before it). For vectors of V bytes each and
// a stream of S bytes between:
//   y = a x + y (x and y now in L2, as far as they fit), then a kernel
//   that reads S bytes once (a sum, as an SpMV reads its values and
//   columns: plain loads, the same buffer every repetition, so that a
//   stream that fits stays too), then y = a x + y again, timed with
//   events around it; the median over REPS, less the events' time
//   around an empty kernel.
// Printed per case: the AXPY's time (us; median, min) and the rate its
// 3 V bytes give (TB/s). S = 0 is the vectors in L2; the largest S, the
// vectors evicted (from HBM). Below about 4 MB the empty grid's events
// take longer than the AXPY's (launch overhead varies): compare within a V.
//   nvcc -O3 -arch=sm_90 tools/calib/probes/l2_keep.cu -o l2_keep && ./l2_keep
#define PROBE_NAME "l2_keep"
#include "../probe.cuh"

#include <algorithm>
#include <vector>

__global__ void axpy(const double *x, double *y, double a, long n) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void stream(const double *m, long n, double *out) {
  double acc = 0;
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x)
    acc += m[i];
  if (acc == -1.25) *out = acc; // never: keeps the loads
}

__global__ void empty() {}

enum { REPS = 41, WARM = 5 };

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("# l2_keep: %s, %d SMs, L2 %d MB; vectors of V MB each (x, y), a stream of S MB between "
         "two AXPYs (y = a x + y, 3 V bytes); the second AXPY's time (us: median / min over %d, "
         "less an empty kernel's events) and its rate (TB/s)\n",
         prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, REPS);
  const long mb = 1 << 20;
  const double vs[] = {0.5, 1, 2, 4, 8, 16};
  const long ss[] = {0, 4, 8, 16, 24, 32, 40, 48, 64, 96, 128, 256, 1024};
  const long vmax = 16 * mb, smax = 1024 * mb;
  double *x, *y, *m, *out;
  CK(cudaMalloc(&x, vmax));
  CK(cudaMalloc(&y, vmax));
  CK(cudaMalloc(&m, smax));
  CK(cudaMalloc(&out, sizeof(double)));
  CK(cudaMemset(x, 0, vmax));
  CK(cudaMemset(y, 0, vmax));
  CK(cudaMemset(m, 0, smax));
  int grid = prop.multiProcessorCount * 8, block = 256;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<float> t(REPS);
  for (int i = -WARM; i < REPS; i++) {
    CK(cudaEventRecord(e0));
    empty<<<grid, block>>>();
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    if (i >= 0) CK(cudaEventElapsedTime(&t[i], e0, e1));
  }
  std::sort(t.begin(), t.end());
  double empty_us = t[REPS / 2] * 1e3;
  printf("# empty kernel's events: %.2f us (median)\n", empty_us);
  printf("%6s %6s %9s %9s %7s\n", "V_MB", "S_MB", "axpy_us", "min_us", "TB/s");
  for (double v : vs) {
    long n = (long)(v * mb) / 8;
    for (long s : ss) {
      for (int i = -WARM; i < REPS; i++) {
        axpy<<<grid, block>>>(x, y, 1.0, n);
        if (s) stream<<<grid, block>>>(m, s * mb / 8, out);
        CK(cudaEventRecord(e0));
        axpy<<<grid, block>>>(x, y, 1.0, n);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        if (i >= 0) CK(cudaEventElapsedTime(&t[i], e0, e1));
      }
      CK(cudaGetLastError());
      std::sort(t.begin(), t.end());
      double med = t[REPS / 2] * 1e3 - empty_us, lo = t[0] * 1e3 - empty_us;
      printf("%6.1f %6ld %9.2f %9.2f %7.2f\n", v, s, med, lo,
             med > 0 ? 3 * v * mb / (med * 1e-6) / 1e12 : 0.0);
      fflush(stdout);
    }
  }
  return 0;
}
