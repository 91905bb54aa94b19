// Graph replay's host and device costs on an NVIDIA GPU (issue 31): the
// host time of one cudaGraphLaunch call (the API call's return, no sync)
// for a captured chain of N one-block kernels (N = 1, 8, 64, 512), against
// one <<<1,32>>> launch call, and each replay's total with its sync; the
// same chain launched by the host back to back + one sync ("paced"). The
// chain's marginal (T(512) - T(64)) / 448 with its sync is gpu.graph_launch
// (one more kernel replayed by the GPU's front end); the paced marginal is
// the host-launched cost it replaces. Medians of 201 repetitions after 20
// warm-ups, the stream synchronized between repetitions (not timed).
// Standalone, the CUDA runtime only:
//   nvcc -O2 -arch=native -o graph_probe tools/calib/graph_probe.cu && ./graph_probe
// The one graph probe: calib28's trigsim-cuda-probe measured the same
// chains (configs/hw/h200-probe.yaml, 2026-11-29 09:53 UTC) and left them
// here when both branches met. Its H200 output is quoted in
// configs/fused/hw.yaml (cpu.graph_launch, gpu.graph_launch).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

#define PROBE_NAME "graph_probe"
#include "probe.cuh"


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
  double w64 = 0, w512 = 0, b64 = 0, b512 = 0;
  for (int n : lens) {
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < n; i++) k_chain<<<1, 32, 0, s>>>(d);
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphUpload(ge, s));
    CK(cudaStreamSynchronize(s));
    std::vector<double> a(reps), w(reps), b(reps);
    for (int r = -warm; r < reps; r++) {
      double t = now_s();
      CK(cudaGraphLaunch(ge, s));
      double u = now_s() - t;
      CK(cudaStreamSynchronize(s));
      double v = now_s() - t;
      t = now_s(); // the same chain, launched by the host back to back
      for (int i = 0; i < n; i++) k_chain<<<1, 32, 0, s>>>(d);
      CK(cudaStreamSynchronize(s));
      double q = now_s() - t;
      if (r >= 0) a[r] = u, w[r] = v, b[r] = q;
    }
    printf("graph_launch_call n=%d: median %.3f us q25 %.3f q75 %.3f; with sync %.3f us; "
           "paced with sync %.3f us\n",
           n, us_at(a, .5), us_at(a, .25), us_at(a, .75), us_at(w, .5), us_at(b, .5));
    if (n == 64) w64 = us_at(w, .5), b64 = us_at(b, .5);
    if (n == 512) w512 = us_at(w, .5), b512 = us_at(b, .5);
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
  }
  // One more kernel in the chain, (T(512) - T(64)) / 448, each with its sync.
  printf("marginal per kernel: replayed %.3f us (gpu.graph_launch), paced %.3f us\n",
         (w512 - w64) / 448, (b512 - b64) / 448);
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int drv = 0, rt = 0;
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  printf("device %s driver %d runtime %d\n", p.name, drv, rt);
  return 0;
}
