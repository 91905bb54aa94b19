// When each rank's kernel reaches its GPU after the rank's host waited for
// the one before: the ranks' skew at a collective, measured on each GPU's
// own clock (issue 28: `cpu.wake_jitter`, models/cpu.h). Two processes, one
// a GPU, as two MPI ranks of the CPU-free study's CPU-controlled CG. Each
// runs ITERS iterations of: a one-warp kernel (an AXPY-like lone op), wait
// (cudaStreamSynchronize); a one-thread barrier kernel of 2 ranks (store
// the peer's flag over NVLink, wait for its own), wait. Both kernels stamp
// %globaltimer at their start and end, so on one GPU's clock:
//   gap_op   op start - the previous barrier's end   (wake + launch)
//   gap_bar  barrier start - the op's end              (wake + launch)
//   arrive   barrier start - the previous barrier's end (the ranks left the
//            previous barrier together, within a flag's latency)
//   wait     barrier end - barrier start (the peer's lateness + a flag)
// Per schedule (cudaDeviceScheduleAuto, the default; and BlockingSync) it
// prints each rank's quantiles, the ranks' correlation, the mean wait
// predicted from the ranks' arrivals drawn independently (a check of that
// assumption: it should match the measured wait less a flag's latency),
// and the expected lateness of the latest of N ranks' arrivals over a
// rank's own for N = 2, 4, 8, 16, by resampling the pooled arrivals (the
// skew a collective of N ranks waits for, if ranks are alike and
// independent). Last, for the model's exponential draw per blocked wait:
// the mean of gap_bar over its 1st percentile (a shifted exponential's
// mean) and, for comparison, what an exponential of that mean per wait
// (two waits an iteration) gives for the latest of N.
//   nvcc -O2 -arch=sm_90 -o wake_skew tools/calib/probes/wake_skew.cu
//   ./wake_skew [ITERS]
#define PROBE_NAME "wake_skew"
#include "../probe.cuh"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

typedef unsigned long long u64;

// stamps of iteration i: [4i] op start, [4i+1] op end, [4i+2] barrier
// start, [4i+3] barrier end (ns)
__global__ void k_op(u64 *st, int i, float *x) {
  if (threadIdx.x == 0) st[4 * i] = probe_globaltimer();
  x[threadIdx.x] = x[threadIdx.x] * 0.5f + 1.0f;
  __syncwarp();
  if (threadIdx.x == 0) st[4 * i + 1] = probe_globaltimer();
}

__global__ void k_bar(u64 *st, int i, volatile long long *my_flag,
                      volatile long long *peer_flag) {
  st[4 * i + 2] = probe_globaltimer();
  *peer_flag = i + 1;
  while (*my_flag < i + 1) {
  }
  st[4 * i + 3] = probe_globaltimer();
}

static int xfer(int fd, void *p, size_t n, bool wr) {
  char *c = (char *)p;
  while (n) {
    ssize_t k = wr ? write(fd, c, n) : read(fd, c, n);
    if (k <= 0) return 1;
    c += k, n -= k;
  }
  return 0;
}

// One rank: its GPU, its flag shared with the peer through CUDA IPC (pipes
// carry the handles), the loop, its stamps written to OUT.
static int rank_main(int d, int iters, bool blocking, int to_peer, int from_peer, int out) {
  if (blocking) CK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync));
  CK(cudaSetDevice(d));
  long long *flag, *peer_flag;
  u64 *st;
  float *x;
  CK(cudaMalloc(&flag, sizeof(long long)));
  CK(cudaMemset(flag, 0, sizeof(long long)));
  CK(cudaMalloc(&st, 4 * sizeof(u64) * iters));
  CK(cudaMalloc(&x, 32 * sizeof(float)));
  CK(cudaMemset(x, 0, 32 * sizeof(float)));
  cudaIpcMemHandle_t mine, theirs;
  CK(cudaIpcGetMemHandle(&mine, flag));
  if (xfer(to_peer, &mine, sizeof mine, true) || xfer(from_peer, &theirs, sizeof theirs, false))
    return 1;
  CK(cudaIpcOpenMemHandle((void **)&peer_flag, theirs, cudaIpcMemLazyEnablePeerAccess));
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaDeviceSynchronize());
  char b = 1;  // both ready before the first barrier
  if (xfer(to_peer, &b, 1, true) || xfer(from_peer, &b, 1, false)) return 1;
  for (int i = 0; i < iters; i++) {
    k_op<<<1, 32, 0, s>>>(st, i, x);
    CK(cudaStreamSynchronize(s));
    k_bar<<<1, 1, 0, s>>>(st, i, flag, peer_flag);
    CK(cudaStreamSynchronize(s));
  }
  std::vector<u64> h(4 * (size_t)iters);
  CK(cudaMemcpy(h.data(), st, h.size() * sizeof(u64), cudaMemcpyDeviceToHost));
  if (xfer(out, h.data(), h.size() * sizeof(u64), true)) return 1;
  CK(cudaIpcCloseMemHandle(peer_flag));
  return 0;
}

static double q(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[(size_t)(p * (v.size() - 1))];
}
static double mean(const std::vector<double> &v) {
  double s = 0;
  for (double x : v) s += x;
  return s / v.size();
}

// E[max of n draws] - E[one draw], drawing from V with replacement.
static double latest_over_own(const std::vector<double> &v, int n, std::mt19937_64 &g) {
  std::uniform_int_distribution<size_t> u(0, v.size() - 1);
  const int trials = 200000;
  double s = 0;
  for (int t = 0; t < trials; t++) {
    double mx = -1e300;
    for (int k = 0; k < n; k++) mx = std::max(mx, v[u(g)]);
    s += mx;
  }
  return s / trials - mean(v);
}

static void show(const char *name, const std::vector<double> &v) {
  printf("%-8s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n", name, q(v, 0.01), q(v, 0.10),
         q(v, 0.5), mean(v), q(v, 0.90), q(v, 0.99), q(v, 0.999));
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 20000;
  const int skip = 100;  // warm-up iterations left out
  if (iters <= skip + 10) {
    fprintf(stderr, PROBE_NAME ": ITERS must exceed %d\n", skip + 10);
    return 1;
  }
  printf("# wake_skew: %d iterations (the first %d left out), two processes, one a GPU\n", iters,
         skip);
  for (int blocking = 0; blocking < 2; blocking++) {
    int a2b[2], b2a[2], o[2][2];
    if (pipe(a2b) || pipe(b2a) || pipe(o[0]) || pipe(o[1])) return 1;
    pid_t pid[2];
    for (int d = 0; d < 2; d++) {
      pid[d] = fork();
      if (pid[d] == 0) {
        int to = d == 0 ? a2b[1] : b2a[1], from = d == 0 ? b2a[0] : a2b[0];
        for (int fd : {a2b[0], a2b[1], b2a[0], b2a[1], o[0][0], o[0][1], o[1][0], o[1][1]})
          if (fd != to && fd != from && fd != o[d][1]) close(fd);
        _exit(rank_main(d, iters, blocking, to, from, o[d][1]));
      }
    }
    // the parent keeps only the read ends of the stamps: a rank that dies
    // closes its pipes, and its peer's and the parent's reads then fail
    for (int fd : {a2b[0], a2b[1], b2a[0], b2a[1], o[0][1], o[1][1]}) close(fd);
    std::vector<u64> h[2];
    for (int d = 0; d < 2; d++) {
      h[d].resize(4 * (size_t)iters);
      if (xfer(o[d][0], h[d].data(), h[d].size() * sizeof(u64), false)) {
        fprintf(stderr, PROBE_NAME ": rank %d sent no stamps\n", d);
        return 1;
      }
    }
    for (int d = 0; d < 2; d++) close(o[d][0]);
    for (int d = 0; d < 2; d++) {
      int stt = 0;
      waitpid(pid[d], &stt, 0);
      if (!WIFEXITED(stt) || WEXITSTATUS(stt)) return 1;
    }
    printf("\n## schedule %s\n", blocking ? "BlockingSync" : "Auto (default)");
    std::vector<double> arrive_all, gap_bar_all, pa[2];
    u64 res = ~0ull;
    for (int d = 0; d < 2; d++) {
      std::vector<double> gop, gbar, arr, wt;
      for (int i = skip; i < iters; i++) {
        const u64 *c = &h[d][4 * (size_t)i], *p = &h[d][4 * (size_t)(i - 1)];
        gop.push_back((c[0] - p[3]) * 1e-3);
        gbar.push_back((c[2] - c[1]) * 1e-3);
        arr.push_back((c[2] - p[3]) * 1e-3);
        wt.push_back((c[3] - c[2]) * 1e-3);
        if (c[1] > c[0]) res = std::min(res, c[1] - c[0]);
      }
      printf("# rank %d, us     p1      p10      p50     mean      p90      p99    p99.9\n", d);
      show("gap_op", gop);
      show("gap_bar", gbar);
      show("arrive", arr);
      show("wait", wt);
      arrive_all.insert(arrive_all.end(), arr.begin(), arr.end());
      gap_bar_all.insert(gap_bar_all.end(), gbar.begin(), gbar.end());
      pa[d] = arr;
    }
    printf("# smallest non-zero op span seen: %llu ns (the clock's step, at most)\n", res);
    double m0 = mean(pa[0]), m1 = mean(pa[1]), c01 = 0, v0 = 0, v1 = 0, pred = 0;
    for (size_t i = 0; i < pa[0].size(); i++) {
      c01 += (pa[0][i] - m0) * (pa[1][i] - m1);
      v0 += (pa[0][i] - m0) * (pa[0][i] - m0);
      v1 += (pa[1][i] - m1) * (pa[1][i] - m1);
    }
    printf("# the ranks' arrivals, same iteration: correlation %.3f\n", c01 / sqrt(v0 * v1));
    std::mt19937_64 g(1);
    std::uniform_int_distribution<size_t> u(0, pa[0].size() - 1);
    for (int t = 0; t < 200000; t++) {
      double a = pa[0][u(g)], b = pa[1][u(g)];
      pred += std::max(a, b) - a;
    }
    printf("# rank 0's wait predicted from independent arrivals: %.3f us (+ a flag's latency)\n",
           pred / 200000);
    printf("# latest of N arrivals over a rank's own (pooled, resampled), us:");
    for (int n : {2, 4, 8, 16}) printf(" N=%d %.3f", n, latest_over_own(arrive_all, n, g));
    double m = mean(gap_bar_all) - q(gap_bar_all, 0.01);
    printf("\n# one wait's lateness as a shifted exponential: mean %.3f us (gap_bar mean - p1)\n",
           m);
    printf("# the same from two such draws an arrival (exponential of that mean), us:");
    std::exponential_distribution<double> e(1.0 / m);
    std::vector<double> sim(400000);
    for (double &x : sim) x = e(g) + e(g);
    for (int n : {2, 4, 8, 16}) printf(" N=%d %.3f", n, latest_over_own(sim, n, g));
    printf("\n");
  }
  return 0;
}
