// What an 8 B device-to-host copy adds to a CPU-controlled solver's host
// sync (issue 15: the ICS'23 baselines' cudaMemcpyAsync of a dot, then
// cudaStreamSynchronize). Times, over many repetitions, on one stream:
//   a tiny kernel + cudaStreamSynchronize
//   a tiny kernel + 8 B cudaMemcpyAsync D2H + cudaStreamSynchronize
//     (pinned host memory: cudaMallocHost; pageable: a stack variable, as
//     the code's host_dot_* are)
//   two tiny kernels + sync (a second command that is a kernel)
//   the copy alone + sync
//   a tiny kernel + two such copies + sync (the pipelined baseline's two)
// and, with events on the stream, the GPU-side time from the kernel's end
// to the copy's end. Build: nvcc -O2 -arch=sm_90 copy_home.cu -o copy_home
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>

#define CK(x)                                                                   \
  do {                                                                          \
    cudaError_t e_ = (x);                                                       \
    if (e_ != cudaSuccess) {                                                    \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                                 \
    }                                                                           \
  } while (0)

__global__ void reset(double *d) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *d = 1.0; // resetLocalDotProduct<<<1,1>>>
}

enum mode {
  KSYNC, KCOPY_PINNED, KCOPY_PAGEABLE, KK, COPY_PINNED, COPY_PAGEABLE, K2COPY_PINNED,
  K2COPY_PAGEABLE, N_MODES
};
static const char *names[] = {"kernel + sync", "kernel + 8 B D2H pinned + sync",
                              "kernel + 8 B D2H pageable + sync", "two kernels + sync",
                              "8 B D2H pinned + sync", "8 B D2H pageable + sync",
                              "kernel + 2 x 8 B D2H pinned + sync",
                              "kernel + 2 x 8 B D2H pageable + sync"};

int main(int argc, char **argv) {
  const int reps = argc > 1 ? atoi(argv[1]) : 20000, warm = 1000;
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  double *d, *pinned, pageable[2] = {0, 0};
  CK(cudaMalloc(&d, sizeof(double)));
  CK(cudaMallocHost(&pinned, 2 * sizeof(double)));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, %d SMs, async engines %d\n", prop.name, prop.multiProcessorCount,
         prop.asyncEngineCount);
  std::vector<double> t(reps);
  for (int m = 0; m < N_MODES; m++) {
    for (int i = -warm; i < reps; i++) {
      auto a = std::chrono::steady_clock::now();
      if (m != COPY_PINNED && m != COPY_PAGEABLE) reset<<<1, 1, 0, s>>>(d);
      if (m == KK) reset<<<1, 1, 0, s>>>(d);
      int copies = m == K2COPY_PINNED || m == K2COPY_PAGEABLE ? 2 : 1;
      for (int c = 0; c < copies; c++) {
        if (m == KCOPY_PINNED || m == COPY_PINNED || m == K2COPY_PINNED)
          CK(cudaMemcpyAsync(pinned + c, d, sizeof(double), cudaMemcpyDeviceToHost, s));
        if (m == KCOPY_PAGEABLE || m == COPY_PAGEABLE || m == K2COPY_PAGEABLE)
          CK(cudaMemcpyAsync(&pageable[c], d, sizeof(double), cudaMemcpyDeviceToHost, s));
      }
      CK(cudaStreamSynchronize(s));
      auto b = std::chrono::steady_clock::now();
      if (i >= 0) t[i] = std::chrono::duration<double, std::micro>(b - a).count();
    }
    std::vector<double> u = t;
    std::sort(u.begin(), u.end());
    double sum = 0;
    for (double x : t) sum += x;
    printf("%-36s mean %7.2f us  median %7.2f  p10 %7.2f  p90 %7.2f\n", names[m], sum / reps,
           u[reps / 2], u[reps / 10], u[reps * 9 / 10]);
  }
  // GPU side: events around the copy (after the kernel, after the copy).
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int pin = 1; pin >= 0; pin--) {
    double sum = 0;
    for (int i = -warm; i < reps; i++) {
      reset<<<1, 1, 0, s>>>(d);
      CK(cudaEventRecord(e0, s));
      CK(cudaMemcpyAsync(pin ? pinned : pageable, d, sizeof(double), cudaMemcpyDeviceToHost, s));
      CK(cudaEventRecord(e1, s));
      CK(cudaStreamSynchronize(s));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (i >= 0) sum += ms * 1000.0;
    }
    printf("GPU side, kernel end to copy end (%s): mean %.2f us (events)\n",
           pin ? "pinned" : "pageable", sum / reps);
  }
  // Same for an empty event pair (the events' own resolution and cost).
  {
    double sum = 0;
    for (int i = -warm; i < reps; i++) {
      reset<<<1, 1, 0, s>>>(d);
      CK(cudaEventRecord(e0, s));
      CK(cudaEventRecord(e1, s));
      CK(cudaStreamSynchronize(s));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (i >= 0) sum += ms * 1000.0;
    }
    printf("GPU side, two events back to back: mean %.2f us\n", sum / reps);
  }
  printf("check %g %g\n", *pinned, pageable[0]);
  return 0;
}
