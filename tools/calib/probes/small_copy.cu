// One blocking small copy between GPU memory and host memory, the step
// CUDA-aware Open MPI's datatype engine takes per contiguous block when it
// packs or unpacks a strided GPU buffer (opal_cuda_memcpy, a cuMemcpy per
// block: the DaCe + MPI 2D Jacobi's column faces, one 8 B point a block;
// workloads/kinds/jacobi.c, pack: host, sys_blocking_copy). Times N
// cudaMemcpy calls of B bytes back to back, device to host and host to
// device, into pinned (cudaMallocHost) and pageable (malloc) memory, on an
// idle stream; prints the median of R runs of the mean per call, in us.
// Also one kernel + cudaStreamSynchronize + such a copy, the shape a
// pack takes after the sweep. Written here; not taken from Open MPI.
//   nvcc -O2 -o small_copy tools/calib/probes/small_copy.cu && ./small_copy
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                    \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

__global__ void touch(double *p) { p[threadIdx.x] += 1.0; }

static double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Median over RUNS of the mean time per call of N copies (dir 0: D2H).
static double per_copy(void *host, void *dev, size_t bytes, int dir, int n, int runs) {
  std::vector<double> v;
  for (int r = 0; r < runs; r++) {
    double t0 = now_us();
    for (int i = 0; i < n; i++)
      CHECK(dir == 0 ? cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost)
                     : cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    v.push_back((now_us() - t0) / n);
  }
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main() {
  const int n = 20000, runs = 7;
  double *dev;
  CHECK(cudaMalloc(&dev, 1 << 20));
  CHECK(cudaMemset(dev, 0, 1 << 20));
  void *pinned;
  CHECK(cudaMallocHost(&pinned, 1 << 20));
  void *pageable = malloc(1 << 20);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  printf("device: %s\n", prop.name);
  size_t sizes[] = {8, 64, 4096};
  for (size_t b : sizes) {
    for (int dir = 0; dir < 2; dir++) {
      double pin = per_copy(pinned, dev, b, dir, n, runs);
      double pag = per_copy(pageable, dev, b, dir, n, runs);
      printf("blocking cudaMemcpy %s %zu B: pinned %.3f us, pageable %.3f us\n",
             dir == 0 ? "D2H" : "H2D", b, pin, pag);
    }
  }
  // After a kernel: launch + sync, then one 8 B D2H copy (pageable).
  std::vector<double> k0, k1;
  for (int r = 0; r < runs; r++) {
    double t0 = now_us();
    for (int i = 0; i < 2000; i++) {
      touch<<<1, 32>>>(dev);
      CHECK(cudaStreamSynchronize(0));
    }
    double t1 = now_us();
    for (int i = 0; i < 2000; i++) {
      touch<<<1, 32>>>(dev);
      CHECK(cudaStreamSynchronize(0));
      CHECK(cudaMemcpy(pageable, dev, 8, cudaMemcpyDeviceToHost));
    }
    double t2 = now_us();
    k0.push_back((t1 - t0) / 2000);
    k1.push_back((t2 - t1) / 2000);
  }
  std::sort(k0.begin(), k0.end());
  std::sort(k1.begin(), k1.end());
  printf("kernel + sync: %.3f us; + one 8 B pageable D2H: %.3f us (the copy %.3f us)\n",
         k0[runs / 2], k1[runs / 2], k1[runs / 2] - k0[runs / 2]);
  free(pageable);
  CHECK(cudaFreeHost(pinned));
  CHECK(cudaFree(dev));
  return 0;
}
