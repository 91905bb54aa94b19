// What a flag store between two GPUs of one node costs, with and without
// the system-scope fence NVSHMEM puts between a put and its signal (issue 28:
// NVSHMEM 2.7's barrier rounds store a flag unfenced; its recursive-exchange
// reduction fences a put before each round's signal; the A100 profile's
// gpu.fence_latency is derived from the study's two reductions). Two
// one-thread kernels, one per GPU (peer access over NVLink), ping-pong
// ROUNDS times: GPU 0 stores an 8 B value into GPU 1's memory, then
// (mode fence) __threadfence_system, then its flag into GPU 1's memory;
// GPU 1 polls its local flag and answers the same way. Prints per mode the
// round trip / 2 (one flag store seen by a polling peer) and the fenced
// minus the unfenced, which is what one fence after an NVLink store adds.
//   nvcc -O2 -arch=sm_90 -o nvl_fence tools/calib/probes/nvl_fence.cu
//   ./nvl_fence [ROUNDS]
#define PROBE_NAME "nvl_fence"
#include "../probe.cuh"

#include <cstdlib>

// One GPU's half of the ping-pong. FIRST sends round i once the peer has
// answered round i - 1; the other answers round i once it has it. Each send
// stores the data word into the peer's memory, (FENCE) fences, then stores
// the flag there.
__global__ void k_pong(volatile long long *my_flag, volatile long long *peer_data,
                       volatile long long *peer_flag, int rounds, int first, int fence) {
  for (int i = 1; i <= rounds; i++) {
    long long want = first ? i - 1 : i;
    while (*my_flag < want) {
    }
    *peer_data = i;
    if (fence) __threadfence_system();
    *peer_flag = i;
  }
  if (first)
    while (*my_flag < rounds) {
    }
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 10000;
  if (peer_pair()) return 1;
  long long *buf[2];  // per GPU: [0] flag, [1] data
  cudaStream_t st[2];
  for (int d = 0; d < 2; d++) {
    CK(cudaSetDevice(d));
    CK(cudaMalloc(&buf[d], 2 * sizeof(long long)));
    CK(cudaStreamCreateWithFlags(&st[d], cudaStreamNonBlocking));
  }
  printf("# nvl_fence: %d round trips a mode, one thread a GPU, flags in the receiver's memory\n",
         rounds);
  printf("mode      one_way_us\n");
  double one_way[2] = {0, 0};
  for (int rep = 0; rep < 2; rep++)  // the first pass warms up; the second is printed
    for (int fence = 0; fence < 2; fence++) {
      for (int d = 0; d < 2; d++) {
        CK(cudaSetDevice(d));
        CK(cudaMemset(buf[d], 0, 2 * sizeof(long long)));
        CK(cudaDeviceSynchronize());
      }
      double t0 = now_s();
      for (int d = 0; d < 2; d++) {
        CK(cudaSetDevice(d));
        k_pong<<<1, 1, 0, st[d]>>>(buf[d], buf[1 - d] + 1, buf[1 - d], rounds, d == 0, fence);
        CK(cudaGetLastError());
      }
      for (int d = 0; d < 2; d++) {
        CK(cudaSetDevice(d));
        CK(cudaStreamSynchronize(st[d]));
      }
      double t = now_s() - t0;
      one_way[fence] = t / rounds / 2 * 1e6;
      if (rep == 1) printf("%-9s %.3f\n", fence ? "fenced" : "plain", one_way[fence]);
    }
  printf("# fence after an NVLink store: %.3f us (fenced - plain, one way)\n",
         one_way[1] - one_way[0]);
  return 0;
}
