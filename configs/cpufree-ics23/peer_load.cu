// Issue 15 (helper cg15): what a GPU thread's blocking load of a PEER GPU's
// memory costs, as the ICS23 CG's gpuSpMV does with nvshmem_double_g for
// every x value another GPU owns (over NVLink, NVSHMEM's P2P transport is a
// plain load through the peer mapping). Needs 2 GPUs with P2P (NVLink).
// Prints, for local and peer memory:
//  1. latency: one thread chasing pointers (each load depends on the last),
//     ns per load (the trigsim parameter gpu.peer_load_latency);
//  2. Little's law: every thread of B blocks/SM x 1024 threads chasing its
//     own chain (one load in flight per thread), loads/s and ns/load/thread,
//     at 1 and 2 blocks per SM (the persistent and discrete kernels' residency);
//  3. peak: coalesced 8 B loads of a peer array, GB/s (gpu.peer_bandwidth).
// Not built by the project (no CUDA here); on a machine with 2 P2P GPUs:
//   nvcc -O3 -arch=sm_90 peer_load.cu -o peer_load && ./peer_load
// First run 2026-12-01 on an H200 pair (../hw/validate/h200x2-peer-load.txt),
// after its cycle's index array was sized for the 32-slot spread.
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

// Each thread follows its own chain of STEPS dependent loads starting at
// next[start + tid * stride]; the sum keeps the loads alive.
__global__ void chase(const unsigned long long *next, unsigned long long n, int steps,
                      unsigned long long stride, unsigned long long *sink) {
  unsigned long long tid = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned long long i = (tid * stride) % n, acc = 0;
  for (int s = 0; s < steps; s++) {
    i = __ldcv(&next[i]);  // volatile: no L1 hit (as a peer load; an nvshmem_g of another PE)
    acc += i;
  }
  if (acc == 0xFFFFFFFFFFFFFFFFull) *sink = acc;
}

__global__ void stream(const double *x, unsigned long long n, double *sink) {
  unsigned long long tid = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  unsigned long long g = gridDim.x * (unsigned long long)blockDim.x;
  double acc = 0;
  for (unsigned long long i = tid; i < n; i += g) acc += __ldcv(&x[i]);
  if (acc == -1.0) *sink = acc;
}

// A random cycle over N 8-byte slots, spread one per 256 B line (no line reuse).
static std::vector<unsigned long long> cycle(unsigned long long n) {
  std::vector<unsigned long long> perm(n), next(n * 32);
  for (unsigned long long i = 0; i < n; i++) perm[i] = i;
  srand(1);
  for (unsigned long long i = n - 1; i > 0; i--) {
    unsigned long long j = ((unsigned long long)rand() * RAND_MAX + rand()) % (i + 1);
    unsigned long long t = perm[i]; perm[i] = perm[j]; perm[j] = t;
  }
  for (unsigned long long i = 0; i < n; i++) next[perm[i] * 32] = perm[(i + 1) % n] * 32;
  return next;
}

static float time_ms(void (*launch)(void *), void *arg) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  launch(arg);  // warm-up
  CK(cudaDeviceSynchronize());
  CK(cudaEventRecord(a));
  launch(arg);
  CK(cudaEventRecord(b));
  CK(cudaEventSynchronize(b));
  float ms; CK(cudaEventElapsedTime(&ms, a, b));
  return ms;
}

struct chase_arg { const unsigned long long *p; unsigned long long n; int blocks, threads, steps;
                   unsigned long long *sink; };
static void run_chase(void *v) {
  chase_arg *c = (chase_arg *)v;
  chase<<<c->blocks, c->threads>>>(c->p, c->n, c->steps, 32 * 977, c->sink);
}
struct stream_arg { const double *x; unsigned long long n; int blocks; double *sink; };
static void run_stream(void *v) {
  stream_arg *s = (stream_arg *)v;
  stream<<<s->blocks, 1024>>>(s->x, s->n, s->sink);
}

int main() {
  int ndev = 0, can = 0;
  CK(cudaGetDeviceCount(&ndev));
  if (ndev < 2) { fprintf(stderr, "need 2 GPUs, found %d\n", ndev); return 1; }
  CK(cudaDeviceCanAccessPeer(&can, 0, 1));
  if (!can) { fprintf(stderr, "GPU 0 cannot access GPU 1\n"); return 1; }
  cudaDeviceProp prop; CK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, %d SMs\n", prop.name, prop.multiProcessorCount);
  const unsigned long long slots = 1ull << 20, n = slots * 32;  // 256 MiB of chain, 1 Mi lines
  std::vector<unsigned long long> h = cycle(slots);
  std::vector<unsigned long long> full(n, 0);
  for (unsigned long long i = 0; i < slots; i++) full[i * 32] = h[i * 32];
  unsigned long long *buf[2], *sink;
  for (int d = 0; d < 2; d++) {
    CK(cudaSetDevice(d));
    CK(cudaMalloc(&buf[d], n * 8));
    CK(cudaMemcpy(buf[d], full.data(), n * 8, cudaMemcpyHostToDevice));
  }
  CK(cudaSetDevice(0));
  CK(cudaDeviceEnablePeerAccess(1, 0));
  CK(cudaMalloc(&sink, 8));
  const char *where[2] = {"local", "peer"};
  for (int d = 0; d < 2; d++) {
    chase_arg c = {buf[d], n, 1, 1, 20000, sink};
    float ms = time_ms(run_chase, &c);
    printf("latency %-5s: %.1f ns per dependent load (1 thread, %d loads)\n", where[d],
           ms * 1e6 / c.steps, c.steps);
  }
  for (int d = 0; d < 2; d++)
    for (int per_sm = 1; per_sm <= 2; per_sm++) {
      chase_arg c = {buf[d], n, per_sm * prop.multiProcessorCount, 1024, 200, sink};
      float ms = time_ms(run_chase, &c);
      double loads = (double)c.blocks * c.threads * c.steps;
      printf("chase %-5s %d block(s)/SM: %.3f ms, %.2f G loads/s, %.1f ns per load per thread\n",
             where[d], per_sm, ms, loads / ms / 1e6, ms * 1e6 / c.steps);
    }
  for (int d = 0; d < 2; d++) {
    stream_arg s = {(const double *)buf[d], n, 2 * prop.multiProcessorCount, (double *)sink};
    float ms = time_ms(run_stream, &s);
    printf("stream %-5s: %.1f GB/s (coalesced 8 B loads, %.0f MiB)\n", where[d],
           n * 8 / ms / 1e6, n * 8 / 1048576.0);
  }
  return 0;
}
