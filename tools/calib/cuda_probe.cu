// trigsim-cuda-probe: the launch and signal paths of an NVIDIA GPU measured
// with CUDA, where NVIDIA's OpenCL cannot (no coherent host memory during a
// kernel). Writes the `cuda:` measurements `trigsim calibrate --cuda FILE`
// records and derives from (tools/calib/calib.h, issue 28).
// Standalone: the CUDA runtime and the C++ standard library only, so it
// builds with nvcc where trigsim's own dependencies are missing
// (`nvcc -O2 -o trigsim-cuda-probe tools/calib/cuda_probe.cu`), or with
// cmake -DTRIGSIM_CUDA=ON.
//
// Every time is a median over repetitions after warm-ups; spread =
// (q75 - q25) / median:
// - launch: host time of one empty <<<1,1>>> launch, batches of 64.
// - launch_args: the same with N pointer arguments (N = 0 .. 8).
// - roundtrip: an empty launch + cudaStreamSynchronize.
// - store: from the launch call to the kernel's first store seen by the
//   host spinning on mapped pinned memory (cudaHostAllocMapped), the
//   kernel then waiting for the host's acknowledgement.
// - pingpong: a persistent one-thread kernel and the host take turns on
//   two words of mapped pinned memory; time per round trip (host store ->
//   kernel sees it -> kernel store -> host sees it).
// Graph replay is measured by tools/calib/graph_probe.cu, the one graph
// probe (this probe's graph chains, which configs/hw/h200-probe.yaml
// recorded, moved there when calib28 was ported onto main, issue 31).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#define CK(call)                                                                    \
  do {                                                                              \
    cudaError_t e_ = (call);                                                        \
    if (e_ != cudaSuccess) {                                                        \
      fprintf(stderr, "trigsim-cuda-probe: %s: %s\n", #call, cudaGetErrorString(e_)); \
      exit(1);                                                                      \
    }                                                                               \
  } while (0)

static double now_s() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

struct stat_t {
  double median, spread;
};

static double quantile(const std::vector<double> &s, double q) {
  double pos = q * (double)(s.size() - 1);
  size_t i = (size_t)pos;
  double f = pos - (double)i;
  return i + 1 < s.size() ? s[i] * (1 - f) + s[i + 1] * f : s[i];
}

static stat_t stat_of(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  stat_t s = {quantile(x, 0.5), 0};
  if (s.median > 0) s.spread = (quantile(x, 0.75) - quantile(x, 0.25)) / s.median;
  return s;
}

__global__ void k_a0() {}
__global__ void k_a1(int *a) {}
__global__ void k_a2(int *a, int *b) {}
__global__ void k_a3(int *a, int *b, int *c) {}
__global__ void k_a4(int *a, int *b, int *c, int *d) {}
__global__ void k_a6(int *a, int *b, int *c, int *d, int *e, int *f) {}
__global__ void k_a8(int *a, int *b, int *c, int *d, int *e, int *f, int *g, int *h) {}

__global__ void k_store(volatile int *f, int v, long long spin) {
  f[0] = v;
  __threadfence_system();
  for (long long s = 0; f[1] != v && s < spin; s++) {
  }
}

__global__ void k_pingpong(volatile int *f, int n, long long spin) {
  for (int i = 1; i <= n; i++) {
    for (long long s = 0; f[0] < i && s < spin; s++) {
    }
    f[1] = i;
    __threadfence_system();
  }
}

static void launch_args(int n, cudaStream_t s, int *p) {
  switch (n) {
  case 0: k_a0<<<1, 1, 0, s>>>(); break;
  case 1: k_a1<<<1, 1, 0, s>>>(p); break;
  case 2: k_a2<<<1, 1, 0, s>>>(p, p); break;
  case 3: k_a3<<<1, 1, 0, s>>>(p, p, p); break;
  case 4: k_a4<<<1, 1, 0, s>>>(p, p, p, p); break;
  case 6: k_a6<<<1, 1, 0, s>>>(p, p, p, p, p, p); break;
  default: k_a8<<<1, 1, 0, s>>>(p, p, p, p, p, p, p, p); break;
  }
}

static const double TIMEOUT_S = 0.5;

static bool spin_until(volatile int *p, int v, double t0) {
  while (*p < v)
    if (now_s() - t0 > TIMEOUT_S) return false;
  return true;
}

static long long ps(double s) { return (long long)(s * 1e12 + 0.5); }

int main(int argc, char **argv) {
  int reps = 101, warm = 10, rounds = 2000;
  const char *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) reps = 15, warm = 3, rounds = 200;
    else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
    else {
      fprintf(stderr, "usage: trigsim-cuda-probe [--quick] [-o FILE]\n");
      return 2;
    }
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int drv = 0, rt = 0;
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  int *dp;
  CK(cudaMalloc(&dp, 64));
  CK(cudaMemset(dp, 0, 64));
  std::vector<double> x(reps);

  // Launches in batches of 64, by argument count.
  const int argn[] = {0, 1, 2, 3, 4, 6, 8};
  double args_s[7];
  stat_t launch = {0, 0};
  for (int a = 0; a < 7; a++) {
    for (int r = -warm; r < reps; r++) {
      CK(cudaStreamSynchronize(s));
      double t = now_s();
      for (int i = 0; i < 64; i++) launch_args(argn[a], s, dp);
      double d = (now_s() - t) / 64;
      CK(cudaGetLastError());
      if (r >= 0) x[r] = d;
    }
    stat_t st = stat_of(x);
    args_s[a] = st.median;
    if (a == 0) launch = st;
  }
  CK(cudaStreamSynchronize(s));
  // Round trip.
  for (int r = -warm; r < reps; r++) {
    double t = now_s();
    k_a0<<<1, 1, 0, s>>>();
    CK(cudaStreamSynchronize(s));
    if (r >= 0) x[r] = now_s() - t;
  }
  stat_t roundtrip = stat_of(x);

  // The signal path through mapped pinned memory.
  int *h;
  CK(cudaHostAlloc((void **)&h, 4096, cudaHostAllocMapped));
  int *hd;
  CK(cudaHostGetDevicePointer((void **)&hd, h, 0));
  volatile int *f = h;
  long long spin = 1LL << 28;
  bool seen = true;
  for (int r = -warm; seen && r < reps; r++) {
    int v = r + warm + 1;
    f[0] = f[1] = 0;
    double t0 = now_s();
    k_store<<<1, 1, 0, s>>>(hd, v, spin);
    seen = spin_until(&f[0], v, t0);
    double t = now_s() - t0;
    f[1] = v;
    CK(cudaStreamSynchronize(s));
    if (r >= 0) x[r] = t;
  }
  stat_t store = seen ? stat_of(x) : stat_t{0, 0};
  int preps = reps < 15 ? 3 : 9;
  std::vector<double> pp(preps);
  for (int r = -1; seen && r < preps; r++) {
    f[0] = f[1] = 0;
    k_pingpong<<<1, 1, 0, s>>>(hd, rounds, spin);
    f[0] = 1;
    seen = spin_until(&f[1], 1, now_s());
    double t0 = now_s();
    for (int i = 2; seen && i <= rounds; i++) {
      f[0] = i;
      seen = spin_until(&f[1], i, now_s());
    }
    double t = (now_s() - t0) / (rounds - 1);
    if (!seen) f[0] = rounds;
    CK(cudaStreamSynchronize(s));
    if (r >= 0) pp[r] = t;
  }
  stat_t pingpong = seen ? stat_of(pp) : stat_t{0, 0};
  CK(cudaGetLastError());

  FILE *o = out ? fopen(out, "w") : stdout;
  if (!o) {
    fprintf(stderr, "trigsim-cuda-probe: cannot write %s\n", out);
    return 1;
  }
  time_t now = time(NULL);
  char date[32];
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
  fprintf(o, "# trigsim-cuda-probe (tools/calib/cuda_probe.cu): read by trigsim calibrate --cuda\n");
  fprintf(o, "cuda:\n  device: \"%s\"\n  driver: \"%d.%d, runtime %d.%d\"\n  date: \"%s\"\n",
          prop.name, drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10, date);
  fprintf(o, "  repetitions: %d\n", reps);
  fprintf(o, "  launch: {median: %lldps, spread: %.3f}\n", ps(launch.median), launch.spread);
  fprintf(o, "  roundtrip: {median: %lldps, spread: %.3f}\n", ps(roundtrip.median),
          roundtrip.spread);
  fprintf(o, "  launch_args:\n");
  for (int a = 0; a < 7; a++) fprintf(o, "    %d: %lldps\n", argn[a], ps(args_s[a]));
  if (store.median > 0)
    fprintf(o, "  store: {median: %lldps, spread: %.3f}\n", ps(store.median), store.spread);
  if (pingpong.median > 0)
    fprintf(o, "  pingpong: {median: %lldps, spread: %.3f}\n", ps(pingpong.median),
            pingpong.spread);
  if (o != stdout) fclose(o);
  fprintf(stderr, "trigsim-cuda-probe: %s: launch %.2f us, round trip %.2f us, store %.2f us, "
                  "ping-pong %.2f us\n",
          prop.name, launch.median * 1e6, roundtrip.median * 1e6, store.median * 1e6,
          pingpong.median * 1e6);
  CK(cudaFreeHost(h));
  CK(cudaFree(dp));
  CK(cudaStreamDestroy(s));
  return 0;
}
