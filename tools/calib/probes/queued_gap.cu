// The device's pace for kernels already queued on a stream (gpu.queued_launch,
// gpu.launch_gap): a spinning kernel holds the stream while the host enqueues
// N kernels behind it, so when it ends every one of them is waiting and the
// GPU, not the host, sets the pace. Events around the N kernels (recorded
// after the spinner and after the last) give their time on the device; per
// kernel that is the dependent-kernel pace of one stream: teardown of the one
// before + the front end's gap + the kernel's own (tiny) work. Kernels:
// <<<1,32>>> adding to a word (each depends on the one before, as a chain),
// the same with SMs x 1024 threads, and <<<1,32>>> with an event recorded
// between kernels. The host's own enqueue time of the N is printed too (it
// must stay under the spinner's time). Medians of 21 repetitions.
// Standalone, the CUDA runtime only:
//   nvcc -O2 -arch=native -o queued_gap tools/calib/probes/queued_gap.cu && ./queued_gap
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <vector>

#define PROBE_NAME "queued_gap"
#include "../probe.cuh"

// Spins for NS nanoseconds of the GPU's global timer.
__global__ void k_spin(long long ns) {
  unsigned long long t0 = probe_globaltimer();
  while ((long long)(probe_globaltimer() - t0) < ns) {
  }
}


int main() {
  int dev = 0, sms = 0;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  sms = prop.multiProcessorCount;
  int *d;
  CK(cudaMalloc(&d, 64));
  CK(cudaMemset(d, 0, 64));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1, ex;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  CK(cudaEventCreate(&ex));
  const int N = 256, reps = 21;
  const long long spin_ns = 4000000; // 4 ms: the host enqueues N well within it
  printf("# queued_gap: %s, %d SMs; %d kernels queued behind a %.0f ms spinner; medians of %d\n",
         prop.name, sms, N, spin_ns * 1e-6, reps);
  printf("%-34s %12s %14s\n", "kernels", "device us/k", "host enqueue us/k");
  for (int mode = 0; mode < 3; mode++) {
    int blocks = mode == 1 ? sms : 1, threads = mode == 1 ? 1024 : 32;
    std::vector<double> dev_us, host_us;
    for (int r = -3; r < reps; r++) {
      k_spin<<<1, 1, 0, s>>>(spin_ns);
      CK(cudaEventRecord(e0, s));
      double t = now_s();
      for (int i = 0; i < N; i++) {
        k_chain<<<blocks, threads, 0, s>>>(d);
        if (mode == 2) CK(cudaEventRecord(ex, s));
      }
      double h = now_s() - t;
      CK(cudaEventRecord(e1, s));
      CK(cudaStreamSynchronize(s));
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 0) {
        dev_us.push_back(ms * 1e3 / N);
        host_us.push_back(h * 1e6 / N);
      }
    }
    const char *name = mode == 0   ? "<<<1,32>>> chain"
                       : mode == 1 ? "<<<SMs,1024>>> chain"
                                   : "<<<1,32>>> chain, event after each";
    printf("%-34s %12.3f %14.3f\n", name, probe_median(dev_us), probe_median(host_us));
  }
  return 0;
}
