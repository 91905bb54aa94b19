// Graph replay's host and device costs on an NVIDIA GPU (issue 31): the
// host time of one cudaGraphLaunch call (the API call's return, no sync)
// for a captured chain of N one-block kernels (N = 1, 8, 64, 512), against
// one <<<1,32>>> launch call, and each replay's total with its sync (the
// chain's marginal (T(512) - T(64)) / 448 is gpu.graph_launch, as
// calib28's tools/calib/cuda_probe.cu derives it). Medians of 201
// repetitions after 20 warm-ups, the stream synchronized between
// repetitions (not timed). Standalone, the CUDA runtime only:
//   nvcc -O2 -arch=native -o graph_probe tools/calib/graph_probe.cu && ./graph_probe
// Its H200 output is quoted in configs/fused/hw.yaml (cpu.graph_launch,
// gpu.graph_launch).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

#define CK(c)                                                         \
  do {                                                                \
    cudaError_t e_ = (c);                                             \
    if (e_ != cudaSuccess) {                                          \
      fprintf(stderr, "graph_probe: %s: %s\n", #c, cudaGetErrorString(e_)); \
      return 1;                                                       \
    }                                                                 \
  } while (0)

static double now_s() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// Each kernel of the chain adds to what the one before wrote.
__global__ void k_chain(int *p) {
  if (threadIdx.x == 0) p[0] += 1;
}

// The F quantile of V (by position, no interpolation), in us.
static double us_at(std::vector<double> v, double f) {
  std::sort(v.begin(), v.end());
  return v[(size_t)(f * (double)(v.size() - 1))] * 1e6;
}

int main() {
  int *d;
  CK(cudaMalloc(&d, 64));
  CK(cudaMemset(d, 0, 64));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int reps = 201, warm = 20;
  std::vector<double> x(reps);
  for (int r = -warm; r < reps; r++) {
    double t = now_s();
    k_chain<<<1, 32, 0, s>>>(d);
    double u = now_s() - t;
    CK(cudaStreamSynchronize(s));
    if (r >= 0) x[r] = u;
  }
  printf("launch_call_one: median %.3f us q25 %.3f q75 %.3f\n", us_at(x, .5), us_at(x, .25),
         us_at(x, .75));
  const int lens[] = {1, 8, 64, 512};
  for (int n : lens) {
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < n; i++) k_chain<<<1, 32, 0, s>>>(d);
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphUpload(ge, s));
    CK(cudaStreamSynchronize(s));
    std::vector<double> a(reps), w(reps);
    for (int r = -warm; r < reps; r++) {
      double t = now_s();
      CK(cudaGraphLaunch(ge, s));
      double u = now_s() - t;
      CK(cudaStreamSynchronize(s));
      double v = now_s() - t;
      if (r >= 0) a[r] = u, w[r] = v;
    }
    printf("graph_launch_call n=%d: median %.3f us q25 %.3f q75 %.3f; with sync %.3f us\n", n,
           us_at(a, .5), us_at(a, .25), us_at(a, .75), us_at(w, .5));
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
  }
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int drv = 0, rt = 0;
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  printf("device %s driver %d runtime %d\n", p.name, drv, rt);
  return 0;
}
