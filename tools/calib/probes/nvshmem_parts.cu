// What NVSHMEM's on-stream collectives cost their caller on two GPUs of one
// node, part by part, as the CPU-free study's operation breakdown times
// them on its A100s (issue 28: there an on-stream barrier costs 7.4 us more
// than an AXPY and a one-double reduction with its barrier 33 us more; the
// model's rounds give about 2 and 12 us). Two processes, one a GPU (one PE
// each, as one MPI rank a GPU), started together by the caller:
//   ./nvshmem_parts 0 ITERS IDFILE & ./nvshmem_parts 1 ITERS IDFILE; wait
// PE 0 writes NVSHMEM's unique id to IDFILE, PE 1 reads it (NVSHMEM 3's
// UID bootstrap). Each part is enqueued on the PE's stream and waited for
// (cudaStreamSynchronize), ITERS times; the PEs meet at a host barrier
// (nvshmem_barrier_all) between parts, not between iterations. Parts:
//   plain     a one-warp kernel (the study's AXPY-like lone kernel)
//   barrier   nvshmemx_barrier_all_on_stream
//   red1      nvshmemx_double_sum_reduce_on_stream of one double
//   red1+bar  the same, then the barrier (the standard CG's part)
//   red2      of two doubles; red2+bar (the pipelined CG's part)
//   2x...     plain, barrier, red1, red2 twice in a row before the wait: the
//             second call's cost with its code and data warm from the first
// and, called from a running kernel ITERS times in a loop (the CPU-free
// code's way; the time a call is the kernel's over ITERS):
//   dev_barrier  nvshmem_barrier_all by one thread
//   dev_red1     nvshmem_double_sum_reduce of one double by one thread (the
//                CPU-free standard CG's)
//   dev_red2     nvshmemx_double_sum_reduce_block of two doubles by a warp's
//                block (the CPU-free pipelined CG's)
//   dev_flag     a hand-written round: the peer's flag stored (nvshmem_ptr),
//                then its own awaited
//   dev_rx       a hand-written recursive exchange of one double: the value
//                stored into the peer's work word, __threadfence_system, the
//                flag, the wait, the add (rdxn_device.cuh's on 2 PEs)
// Per part it prints each PE's median host time an iteration and the
// median GPU time between events recorded around the part on the stream.
// NVSHMEM takes its reduction through NCCL when it can load libnccl.so.2
// and NVSHMEM_DISABLE_NCCL is unset (src/coll/host/rdxn.h); run it both
// ways.
//   NV=$(python3 -c 'import nvidia.nvshmem as m; print(list(m.__path__)[0])')
//   nvcc -rdc=true -O2 -arch=sm_90 -I$NV/include -o nvshmem_parts \
//     tools/calib/probes/nvshmem_parts.cu -L$NV/lib -l:libnvshmem_host.so.3 \
//     -lnvshmem_device -lcuda -Xlinker -rpath=$NV/lib
#define PROBE_NAME "nvshmem_parts"
#include "../probe.cuh"
#include "../probe_nvshmem.cuh"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

__global__ void k_plain(double *x) {
  if (threadIdx.x == 0) x[0] += 1.0;
}

__global__ void k_dev(int what, int iters, double *dst, const double *src, long long *flag,
                      double *wrk) {
  int peer = 1 - nvshmem_my_pe();
  volatile long long *pf = (volatile long long *)nvshmem_ptr(flag, peer), *mf = flag;
  volatile double *pw = (volatile double *)nvshmem_ptr(wrk, peer);
  for (int i = 1; i <= iters; i++) {
    if (what == 2) {
      nvshmemx_double_sum_reduce_block(NVSHMEM_TEAM_WORLD, dst, src, 2);
      continue;
    }
    if (threadIdx.x != 0) continue;
    if (what == 0) nvshmem_barrier_all();
    else if (what == 1) nvshmem_double_sum_reduce(NVSHMEM_TEAM_WORLD, dst, src, 1);
    else {
      if (what == 4) *pw = src[0];
      if (what == 4) __threadfence_system();
      *pf = i;
      while (*mf < i) {
      }
      if (what == 4) dst[1] = src[0] + wrk[0];
    }
  }
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: nvshmem_parts RANK ITERS IDFILE\n");
    return 2;
  }
  int rank = atoi(argv[1]), iters = atoi(argv[2]);
  std::string idfile = argv[3];
  if (probe_nvshmem_init(rank, idfile.c_str())) return 1;
  double *src = (double *)nvshmem_malloc(2 * sizeof(double));
  double *dst = (double *)nvshmem_malloc(2 * sizeof(double));
  double *scratch;
  CK(cudaMalloc(&scratch, sizeof(double)));
  CK(cudaMemset(src, 0, 2 * sizeof(double)));
  cudaStream_t st;
  CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const char *names[] = {"plain",  "barrier", "red1",    "red1+bar", "red2",
                         "red2+bar", "2xplain", "2xbarrier", "2xred1", "2xred2"};
  const int n_parts = sizeof names / sizeof names[0];
  if (rank == 0)
    printf("# part  pe  host_median_us  gpu_median_us  (%d iterations, NVSHMEM_DISABLE_NCCL=%s)\n",
           iters, getenv("NVSHMEM_DISABLE_NCCL") ? getenv("NVSHMEM_DISABLE_NCCL") : "(unset)");
  fflush(stdout);
  for (int part = 0; part < n_parts; part++) {
    std::vector<double> host(iters), gpu(iters);
    nvshmem_barrier_all();
    for (int i = -100; i < iters; i++) {
      double t0 = now_s();
      CK(cudaEventRecord(e0, st));
      for (int twice = 0; twice < (part >= 6 ? 2 : 1); twice++) switch (part) {
        case 0:
        case 6: k_plain<<<1, 32, 0, st>>>(scratch); break;
        case 1:
        case 7: nvshmemx_barrier_all_on_stream(st); break;
        case 2:
        case 3:
        case 8: nvshmemx_double_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, dst, src, 1, st); break;
        default: nvshmemx_double_sum_reduce_on_stream(NVSHMEM_TEAM_WORLD, dst, src, 2, st); break;
        }
      if (part == 3 || part == 5) nvshmemx_barrier_all_on_stream(st);
      CK(cudaEventRecord(e1, st));
      CK(cudaStreamSynchronize(st));
      double t1 = now_s();
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (i >= 0) host[i] = (t1 - t0) * 1e6, gpu[i] = ms * 1e3;
    }
    nvshmem_barrier_all();
    for (int pe = 0; pe < 2; pe++) {
      if (pe == rank)
        printf("%s %d %.3f %.3f\n", names[part], rank, probe_median(host), probe_median(gpu));
      fflush(stdout);
      nvshmem_barrier_all();
    }
  }
  long long *flag = (long long *)nvshmem_malloc(sizeof(long long));
  double *wrk = (double *)nvshmem_malloc(sizeof(double));
  const char *dev_names[] = {"dev_barrier", "dev_red1", "dev_red2", "dev_flag", "dev_rx"};
  for (int what = 0; what < 5; what++) {
    CK(cudaMemset(flag, 0, sizeof(long long)));
    CK(cudaDeviceSynchronize());
    nvshmem_barrier_all();
    CK(cudaEventRecord(e0, st));
    k_dev<<<1, what == 2 ? 32 : 1, 0, st>>>(what, iters, dst, src, flag, wrk);
    CK(cudaEventRecord(e1, st));
    CK(cudaStreamSynchronize(st));
    CK(cudaGetLastError());
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    nvshmem_barrier_all();
    for (int pe = 0; pe < 2; pe++) {
      if (pe == rank) printf("%s %d - %.3f\n", dev_names[what], rank, ms * 1e3 / iters);
      fflush(stdout);
      nvshmem_barrier_all();
    }
  }
  nvshmem_free(flag);
  nvshmem_free(wrk);
  nvshmem_free(src);
  nvshmem_free(dst);
  nvshmem_finalize();
  return 0;
}
