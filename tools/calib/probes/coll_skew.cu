// What a one-round barrier kernel costs its caller over a plain kernel when
// two GPUs' hosts drive it independently (issue 28: on the CPU-free study's
// A100s an on-stream NVSHMEM barrier costs 7.4 us more than an AXPY, where
// its rounds of flag stores take about 2 us). One host thread a GPU, as one
// MPI rank a GPU: each launches ITERS times a one-thread kernel and waits
// for it (cudaStreamSynchronize), with no host synchronization between the
// threads. Mode plain: the kernel does nothing. Mode barrier: it stores i
// into the other GPU's flag over NVLink and waits for its own flag to reach
// i (a dissemination barrier of 2 ranks: one round). Mode rounds4: four
// such rounds in one kernel (the rounds after the first meet a peer
// already there: a round's own latency). Mode rx: NVSHMEM's recursive
// exchange of one double on 2 ranks written out (rdxn_device.cuh,
// gpu_rdxn_recexch_threadgroup: copy the source, store it into the peer's
// work word, __threadfence_system, the flag, wait for the peer's, add);
// rx_nofence without the fence. Prints per mode GPU 0's thread's median
// and mean time per iteration, and each mode's cost over the plain kernel:
// its rounds plus the waiting for the other host's launch (the ranks'
// skew).
//   nvcc -O2 -arch=sm_90 -o coll_skew tools/calib/probes/coll_skew.cu
//   ./coll_skew [ITERS]
#define PROBE_NAME "coll_skew"
#include "../probe.cuh"

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <vector>

__global__ void k_plain() {}

__global__ void k_barrier(volatile long long *my_flag, volatile long long *peer_flag,
                          long long i) {
  *peer_flag = i;
  while (*my_flag < i) {
  }
}

__global__ void k_rounds4(volatile long long *my_flag, volatile long long *peer_flag,
                          long long i) {
  for (long long r = 4 * i - 3; r <= 4 * i; r++) {
    *peer_flag = r;
    while (*my_flag < r) {
    }
  }
}

__global__ void k_rx(volatile long long *my_flag, volatile long long *peer_flag,
                     volatile double *my_wrk, volatile double *peer_wrk, double *dst,
                     const double *src, long long i, int fence) {
  double v = src[0];
  dst[0] = v;
  *peer_wrk = v;
  if (fence) __threadfence_system();
  *peer_flag = i;
  while (*my_flag < i) {
  }
  dst[0] += *my_wrk;
}

enum { M_PLAIN, M_BARRIER, M_ROUNDS4, M_RX, M_RX_NOFENCE, N_MODES };
static const char *mode_names[N_MODES] = {"plain", "barrier", "rounds4", "rx", "rx_nofence"};

struct side {
  int dev;
  long long *flag;       // its own, in its GPU's memory
  long long *peer_flag;  // the other GPU's
  double *wrk, *peer_wrk, *vec; // its work word, the other's, its source and result
  cudaStream_t st;
  std::vector<double> t; // per iteration, s
  int err;
};

static int run(side *s, int iters, int mode) {
  CK(cudaSetDevice(s->dev));
  s->t.assign(iters, 0);
  for (int i = 1; i <= iters; i++) {
    double t0 = now_s();
    if (mode == M_BARRIER) k_barrier<<<1, 1, 0, s->st>>>(s->flag, s->peer_flag, i);
    else if (mode == M_ROUNDS4) k_rounds4<<<1, 1, 0, s->st>>>(s->flag, s->peer_flag, i);
    else if (mode == M_RX || mode == M_RX_NOFENCE)
      k_rx<<<1, 1, 0, s->st>>>(s->flag, s->peer_flag, s->wrk, s->peer_wrk, s->vec + 1, s->vec, i,
                               mode == M_RX);
    else k_plain<<<1, 1, 0, s->st>>>();
    CK(cudaGetLastError());
    CK(cudaStreamSynchronize(s->st));
    s->t[i - 1] = now_s() - t0;
  }
  return 0;
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 20000;
  if (peer_pair()) return 1;
  side s[2];
  for (int d = 0; d < 2; d++) {
    s[d].dev = d;
    CK(cudaSetDevice(d));
    CK(cudaMalloc(&s[d].flag, sizeof(long long)));
    CK(cudaMalloc(&s[d].wrk, sizeof(double)));
    CK(cudaMalloc(&s[d].vec, 2 * sizeof(double)));
    CK(cudaMemset(s[d].vec, 0, 2 * sizeof(double)));
    CK(cudaStreamCreateWithFlags(&s[d].st, cudaStreamNonBlocking));
  }
  for (int d = 0; d < 2; d++) s[d].peer_flag = s[1 - d].flag, s[d].peer_wrk = s[1 - d].wrk;
  printf("# coll_skew: %d iterations a mode, a host thread a GPU, GPU 0's thread timed\n", iters);
  printf("mode      median_us  mean_us\n");
  double med[N_MODES] = {0};
  for (int rep = 0; rep < 2; rep++)  // the first pass warms up; the second is printed
    for (int mode = 0; mode < N_MODES; mode++) {
      for (int d = 0; d < 2; d++) {
        CK(cudaSetDevice(d));
        CK(cudaMemset(s[d].flag, 0, sizeof(long long)));
        CK(cudaDeviceSynchronize());
      }
      int rc[2] = {0, 0};
      std::thread th([&] { rc[1] = run(&s[1], iters, mode); });
      rc[0] = run(&s[0], iters, mode);
      th.join();
      if (rc[0] || rc[1]) return 1;
      std::vector<double> v = s[0].t;
      double mean = 0;
      for (double x : v) mean += x;
      mean /= v.size();
      std::sort(v.begin(), v.end());
      med[mode] = v[v.size() / 2] * 1e6;
      if (rep == 1) printf("%-10s %9.3f %8.3f\n", mode_names[mode], med[mode], mean * 1e6);
    }
  for (int mode = 1; mode < N_MODES; mode++)
    printf("# %s over plain (median): %.3f us\n", mode_names[mode], med[mode] - med[M_PLAIN]);
  return 0;
}
