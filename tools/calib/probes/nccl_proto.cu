// What NCCL's protocols cost a small allreduce on two GPUs of one node, to
// check the model's reading of NCCL's source (workloads/ir/coll.h,
// wl_nccl_proto): LL and LL128 store their flags with the data and fence
// nothing; Simple stores the data, then __threadfence_system(), then the
// step's flag (src/device/prims_simple.h). On 2 ranks a ring allreduce is
// 2 (n - 1) = 2 steps, so Simple should cost about two fences more than LL
// where the data are few (the fence after an NVLink store: 1.0 us on this
// pair, probes/nvl_fence.cu). One process drives both GPUs (nccl-tests'
// -g 2): ncclCommInitAll, each call one ncclGroupStart .. ncclGroupEnd of
// both ranks' ncclAllReduce (float sum, in place). Per size, two timings:
// back to back (nccl-tests' way: ITERS calls, then a synchronize of both
// streams; the time a call), and one call at a time (each synchronized
// before the next; the median). NCCL_PROTO and NCCL_ALGO, read by NCCL at
// ncclCommInitAll, pick the protocol; run it once for each.
//   NCCL=$(python3 -c 'import nvidia.nccl, os; print(os.path.dirname(nvidia.nccl.__file__))')
//   nvcc -O2 -arch=sm_90 -I$NCCL/include -o nccl_proto tools/calib/probes/nccl_proto.cu \
//     -L$NCCL/lib -l:libnccl.so.2 -Xlinker -rpath=$NCCL/lib
//   NCCL_PROTO=LL NCCL_ALGO=Ring ./nccl_proto [ITERS]
#define PROBE_NAME "nccl_proto"
#include "../probe.cuh"

#include <nccl.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#define NK(c)                                                                   \
  do {                                                                          \
    ncclResult_t r_ = (c);                                                      \
    if (r_ != ncclSuccess) {                                                    \
      fprintf(stderr, PROBE_NAME ": %s: %s\n", #c, ncclGetErrorString(r_));     \
      return 1;                                                                 \
    }                                                                           \
  } while (0)

static ncclComm_t comm[2];
static cudaStream_t st[2];
static float *buf[2];

static int call(size_t count) {
  NK(ncclGroupStart());
  for (int d = 0; d < 2; d++)
    NK(ncclAllReduce(buf[d], buf[d], count, ncclFloat, ncclSum, comm[d], st[d]));
  NK(ncclGroupEnd());
  return 0;
}

static int sync_both() {
  for (int d = 0; d < 2; d++) {
    CK(cudaSetDevice(d));
    CK(cudaStreamSynchronize(st[d]));
  }
  return 0;
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 2000;
  int n = 0, version = 0;
  CK(cudaGetDeviceCount(&n));
  if (n < 2) {
    fprintf(stderr, PROBE_NAME ": expected 2 GPUs, got %d\n", n);
    return 1;
  }
  NK(ncclGetVersion(&version));
  const size_t sizes[] = {8, 1024, 65536, 1 << 20};
  const size_t most = 1 << 20;
  int devs[2] = {0, 1};
  NK(ncclCommInitAll(comm, 2, devs));
  for (int d = 0; d < 2; d++) {
    CK(cudaSetDevice(d));
    CK(cudaStreamCreateWithFlags(&st[d], cudaStreamNonBlocking));
    CK(cudaMalloc(&buf[d], most));
    CK(cudaMemset(buf[d], 0, most));
  }
  const char *proto = getenv("NCCL_PROTO"), *algo = getenv("NCCL_ALGO");
  printf("# NCCL %d, NCCL_PROTO=%s NCCL_ALGO=%s, %d calls a size\n", version,
         proto ? proto : "(unset)", algo ? algo : "(unset)", iters);
  printf("# bytes  back_to_back_us  one_at_a_time_median_us\n");
  for (size_t s : sizes) {
    size_t count = s / sizeof(float);
    for (int i = 0; i < 100; i++)
      if (call(count)) return 1;
    if (sync_both()) return 1;
    double t0 = now_s();
    for (int i = 0; i < iters; i++)
      if (call(count)) return 1;
    if (sync_both()) return 1;
    double b2b = (now_s() - t0) / iters;
    std::vector<double> t(iters);
    for (int i = 0; i < iters; i++) {
      double a = now_s();
      if (call(count) || sync_both()) return 1;
      t[i] = now_s() - a;
    }
    std::nth_element(t.begin(), t.begin() + iters / 2, t.end());
    printf("%zu %.3f %.3f\n", s, b2b * 1e6, t[iters / 2] * 1e6);
  }
  for (int d = 0; d < 2; d++) ncclCommDestroy(comm[d]);
  return 0;
}
