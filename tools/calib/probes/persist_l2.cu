// Where the persistent Jacobi loop's bytes come from, against its WGs per
// SM (issue 28: on the H200 the OpenCL loop at 2048^2 gets slower from 5
// to 8 WGs a CU, 13.4 -> 16.1 us an iteration, where the model's one L2
// law, 1/bw = a/k + b, keeps falling; at 1024^2 it does not). The loop is
// calibrate's jacobi_persist (tools/calib/calib_ocl.c) in CUDA: 256-thread
// blocks over 16x16 float tiles (grid-stride), a device-wide barrier each
// iteration (an arrival counter and a generation, no error flag), so that
// Nsight Compute can count its traffic, which it cannot for OpenCL.
//   nvcc -O3 -arch=sm_90 tools/calib/probes/persist_l2.cu -o persist_l2
//   ./persist_l2 N K [0 nobar]       time per iteration: the slope between
//                                    50 and 500 iterations, median of 5;
//                                    nobar: without the barrier (the
//                                    tiles' time alone, iterations racing)
//   ncu --launch-skip 1 --launch-count 1 --metrics dram__bytes_read.sum,\
//     dram__bytes_write.sum,lts__t_sector_hit_rate.pct ./persist_l2 N K 100
//                                    one run of 100 iterations (after a
//                                    warm-up) for the profiler
#define PROBE_NAME "persist_l2"
#include "../probe.cuh"

#include <algorithm>
#include <cstdlib>
#include <vector>

__device__ void gbar(volatile int *bar, int nwg) {
  __syncthreads();
  if (threadIdx.x == 0) {
    int gen = bar[1];
    __threadfence();
    if (atomicAdd((int *)&bar[0], 1) == nwg - 1) {
      atomicExch((int *)&bar[0], 0);
      atomicAdd((int *)&bar[1], 1);
    } else {
      while (bar[1] == gen) {
      }
    }
    __threadfence();
  }
  __syncthreads();
}

__global__ void jacobi_persist(float *a, float *b, int n, int iters, volatile int *bar, int sync) {
  int G = gridDim.x, w = blockIdx.x, l = threadIdx.x;
  int tx = (n + 15) / 16, tiles = tx * tx;
  for (int it = 0; it < iters; it++) {
    const float *s = (it & 1) ? b : a;
    float *d = (it & 1) ? a : b;
    for (int t = w; t < tiles; t += G) {
      int x = (t % tx) * 16 + l % 16, y = (t / tx) * 16 + l / 16;
      if (x >= n || y >= n) continue;
      int i = y * n + x;
      if (x == 0 || y == 0 || x == n - 1 || y == n - 1) d[i] = s[i];
      else d[i] = 0.25f * (s[i - 1] + s[i + 1] + s[i - n] + s[i + n]);
    }
    if (sync) gbar(bar, G);
  }
}

static int sync_each = 1; /* 0: no barrier (the tiles' time alone; the iterations race) */

/* One run of ITERS iterations on BLOCKS blocks into *US (us, between
 * events); 1 on a CUDA error. */
static int run(float *a, float *b, int n, int iters, int *bar, int blocks, float *us) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventRecord(e0));
  jacobi_persist<<<blocks, 256>>>(a, b, n, iters, bar, sync_each);
  CK(cudaEventRecord(e1));
  CK(cudaEventSynchronize(e1));
  float ms = 0;
  CK(cudaEventElapsedTime(&ms, e0, e1));
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  *us = ms * 1e3f;
  return 0;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048, k = argc > 2 ? atoi(argv[2]) : 1;
  int once = argc > 3 ? atoi(argv[3]) : 0;
  sync_each = !(argc > 4 && argv[4][0] == 'n');
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int fit = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, jacobi_persist, 256, 0));
  if (n < 16 || k < 1 || k > fit) {
    fprintf(stderr, "persist_l2: expected N >= 16 and 1 <= K <= %d blocks an SM, got %d, %d\n", fit,
            n, k);
    return 2;
  }
  int blocks = p.multiProcessorCount * k;
  float *a, *b;
  int *bar;
  size_t bytes = sizeof(float) * (size_t)n * n;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMalloc(&bar, 2 * sizeof(int)));
  CK(cudaMemset(a, 0, bytes));
  CK(cudaMemset(b, 0, bytes));
  CK(cudaMemset(bar, 0, 2 * sizeof(int)));
  float us = 0;
  if (run(a, b, n, 10, bar, blocks, &us)) return 1; /* warm-up */
  if (once > 0) {
    if (run(a, b, n, once, bar, blocks, &us)) return 1;
    printf("persist_l2: %d^2, %d blocks an SM: %.1f us for %d iterations\n", n, k, us, once);
    return 0;
  }
  const int iters[2] = {50, 500};
  float med[2];
  for (int s = 0; s < 2; s++) {
    std::vector<float> t;
    for (int r = 0; r < 5; r++) {
      if (run(a, b, n, iters[s], bar, blocks, &us)) return 1;
      t.push_back(us);
    }
    std::sort(t.begin(), t.end());
    med[s] = t[2];
  }
  float slope = (med[1] - med[0]) / (iters[1] - iters[0]);
  printf("persist_l2: %s, %d^2, %d blocks an SM (%d)%s: %.3f us an iteration, fixed %.1f us\n",
         p.name, n, k, blocks, sync_each ? "" : ", no barrier", slope, med[0] - iters[0] * slope);
  return 0;
}
