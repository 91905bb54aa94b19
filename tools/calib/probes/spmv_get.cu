// What a row of the CPU-free study's SpMV pays for the x values another
// GPU owns (issue 28: at 8 A100s the model gives crankseg_2's longest row,
// 3425 non-zeros, one blocking nvshmem_double_g after another at
// gpu.peer_load_latency, and predicts 3.8 ms an iteration where the logs
// have 2.7; on one GPU, no peer, 1.2 ms against 2.1). The kernel has the
// loop of the study's gpuSpMV (ParCoreLab/CPU-Free-model CG/src/common.cu,
// written here anew): a thread a row, for each non-zero the owner PE and
// offset of its column, x read with nvshmem_double_g (NVSHMEM's P2P path
// is a plain load through the peer mapping, its own PE's a local one),
// output += alpha val x. Two PEs, one process a GPU:
//   ./spmv_get 0 IDFILE & ./spmv_get 1 IDFILE; wait
// (PE 0 writes NVSHMEM's unique id to IDFILE, PE 1 reads it). PE 1 only
// holds its x; PE 0 times, with events around each kernel (median of
// REPS, less an empty kernel's):
//   chase      one thread, 4096 dependent 8 B loads (each the next index),
//              own memory and the peer's: ns a load (the latency)
//   row L f    one thread, one row of L non-zeros, a share f of them the
//              peer's (interleaved): ns a non-zero
//   grid L f   a thread a row, 1024-thread blocks over ROWS rows of L
//              (the discrete kernel's grid): us the kernel, ns a non-zero
//              of one thread (the kernel over L)
//   nvcc -rdc=true -O2 -arch=sm_90 -I$NV/include -o spmv_get \
//     tools/calib/probes/spmv_get.cu -L$NV/lib -l:libnvshmem_host.so.3 \
//     -lnvshmem_device -lcuda -Xlinker -rpath=$NV/lib
// (NV as in nvshmem_parts.cu.)
#define PROBE_NAME "spmv_get"
#include "../probe.cuh"
#include "../probe_nvshmem.cuh"

#include <algorithm>
#include <cstdlib>
#include <vector>

enum { REPS = 21, CHASE = 4096 };

__global__ void k_empty() {}

__global__ void k_chase(const long long *next, int steps, long long *sink) {
  long long i = 0;
  for (int s = 0; s < steps; s++) i = next[i];
  if (i == -1) *sink = i;
}

// The study's row loop: a thread a row of ROWPTR; columns are global, PE
// c / chunk owns column c.
__global__ void k_spmv(const int *rowptr, const int *col, const double *val, double alpha,
                       const double *x, double *y, int rows, int chunk) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  int b = rowptr[r], e = rowptr[r + 1];
  double out = 0.0;
  for (int j = b; j < e; j++) {
    int c = col[j], pe = c / chunk, off = c - pe * chunk;
    double v = nvshmem_double_g(x + off, pe);
    out += alpha * val[j] * v;
  }
  y[r] = out;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: spmv_get RANK IDFILE\n");
    return 2;
  }
  int rank = atoi(argv[1]);
  if (probe_nvshmem_init(rank, argv[2])) return 1;
  const int chunk = 1 << 20; // x values a PE owns
  double *x = (double *)nvshmem_malloc((size_t)chunk * sizeof(double));
  long long *next = (long long *)nvshmem_malloc((size_t)chunk * sizeof(long long));
  {
    std::vector<double> hx(chunk, 1.0);
    std::vector<long long> hn(chunk);
    for (int i = 0; i < chunk; i++) hn[i] = (long long)((i + 40961LL) % chunk); // 320 KB apart
    CK(cudaMemcpy(x, hx.data(), hx.size() * sizeof(double), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(next, hn.data(), hn.size() * sizeof(long long), cudaMemcpyHostToDevice));
  }
  CK(cudaDeviceSynchronize());
  nvshmem_barrier_all();
  if (rank == 0) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    long long *sink;
    CK(cudaMalloc(&sink, sizeof(long long)));
    std::vector<float> t(REPS);
    auto timed = [&](auto launch) -> double {
      for (int i = -3; i < REPS; i++) {
        cudaEventRecord(e0);
        launch();
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        if (i >= 0) cudaEventElapsedTime(&t[i], e0, e1);
      }
      return probe_median(t) * 1e3; // us
    };
    double empty = timed([&] { k_empty<<<1, 1>>>(); });
    printf("# spmv_get: 2 PEs; an empty kernel's events %.2f us (subtracted below)\n", empty);
    const long long *peer_next = (const long long *)nvshmem_ptr(next, 1);
    double own = timed([&] { k_chase<<<1, 1>>>(next, CHASE, sink); }) - empty;
    double peer = peer_next ? timed([&] { k_chase<<<1, 1>>>(peer_next, CHASE, sink); }) - empty : 0;
    printf("chase own %.1f ns a load, peer %.1f ns a load (%s)\n", own * 1e3 / CHASE,
           peer * 1e3 / CHASE, peer_next ? "P2P mapping" : "no P2P mapping: not measured");
    // rows: L non-zeros each, a share f of them the peer's, interleaved
    const int max_rows = 132 * 1024, max_l = 3425;
    const long long max_nnz = std::max((long long)max_rows * 82, (long long)max_l);
    int *rowptr, *col;
    double *val, *y;
    CK(cudaMalloc(&rowptr, (max_rows + 1) * sizeof(int)));
    CK(cudaMalloc(&col, max_nnz * sizeof(int)));
    CK(cudaMalloc(&val, max_nnz * sizeof(double)));
    CK(cudaMalloc(&y, max_rows * sizeof(double)));
    {
      std::vector<double> hv(max_nnz, 0.5);
      CK(cudaMemcpy(val, hv.data(), hv.size() * sizeof(double), cudaMemcpyHostToDevice));
    }
    auto setup = [&](int rows, int l, double f) -> int {
      std::vector<int> hr(rows + 1), hc((size_t)rows * l);
      for (int r = 0; r <= rows; r++) hr[r] = r * l;
      for (int r = 0; r < rows; r++)
        for (int j = 0; j < l; j++) {
          bool remote = (int)((j + 1) * f) > (int)(j * f); // interleaved, share f
          int c = (int)(((long long)r * 8 + (long long)j * 4099) % chunk); // lines apart
          hc[(size_t)r * l + j] = remote ? chunk + c : c;
        }
      if (cudaMemcpy(rowptr, hr.data(), hr.size() * sizeof(int), cudaMemcpyHostToDevice) ||
          cudaMemcpy(col, hc.data(), hc.size() * sizeof(int), cudaMemcpyHostToDevice))
        return 1;
      return 0;
    };
    printf("%-5s %5s %5s %7s %10s %12s\n", "case", "L", "f", "rows", "kernel_us", "ns_a_nonzero");
    const int ls[] = {64, 512, 3425};
    const double fs[] = {0.0, 0.5, 1.0};
    for (int l : ls)
      for (double f : fs) {
        if (setup(1, l, f)) return 1;
        double us = timed([&] { k_spmv<<<1, 1>>>(rowptr, col, val, 1.0, x, y, 1, chunk); }) - empty;
        printf("%-5s %5d %5.2f %7d %10.2f %12.1f\n", "row", l, f, 1, us, us * 1e3 / l);
        fflush(stdout);
      }
    const int gls[] = {8, 82};
    const double gfs[] = {0.0, 0.1, 0.5};
    for (int l : gls)
      for (double f : gfs) {
        if (setup(max_rows, l, f)) return 1;
        int blocks = (max_rows + 1023) / 1024;
        double us = timed([&] {
          k_spmv<<<blocks, 1024>>>(rowptr, col, val, 1.0, x, y, max_rows, chunk);
        }) - empty;
        printf("%-5s %5d %5.2f %7d %10.2f %12.1f\n", "grid", l, f, max_rows, us, us * 1e3 / l);
        fflush(stdout);
      }
    CK(cudaGetLastError());
  }
  nvshmem_barrier_all();
  nvshmem_finalize();
  return 0;
}
