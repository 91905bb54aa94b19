// SpMV algorithms on one GPU (issue 12, trend12): row per thread (the
// CPU-free code's gpuSpMV), cuSPARSE (aCG's host-driven CG), and a
// merge-path SpMV staged through shared memory with atomic row updates
// (the structure of aCG's in-kernel csrgemv_merge: 6 merge items per
// thread, 1024-thread blocks, one block per SM), on cyclic banded
// matrices of L non-zeros per row, ~117M non-zeros, doubles.
// Usage: spmv_algs [L...]; prints us per SpMV (median of 20). Not built
// by the project (no CUDA here); on the GPU machine (../shared/device):
//   nvcc -O3 -arch=sm_90 spmv_algs.cu -lcusparse -o spmv_algs && ./spmv_algs 7 27 81
// The figures in configs/libs/README.md ("The SpMV algorithm") come from it.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cmath>
#include <cuda_runtime.h>
#include <cusparse.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)
#define CS(x) do { cusparseStatus_t s_ = (x); if (s_ != CUSPARSE_STATUS_SUCCESS) { \
  fprintf(stderr, "%s:%d: cusparse %d\n", __FILE__, __LINE__, (int)s_); exit(1); } } while (0)

constexpr int TPB = 1024, T = 6;

__global__ void gen(int n, int L, int *rowptr, int *col, double *a, double *x) {
  long nnz = (long)n * L;
  for (long k = blockIdx.x * (long)blockDim.x + threadIdx.x; k < nnz; k += (long)gridDim.x * blockDim.x) {
    long i = k / L, j = k % L;
    col[k] = (int)((i + j - L / 2 + n) % n);
    a[k] = 1.0 + 0.001 * (double)((k * 7919) % 1000);
  }
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i <= n; i += (long)gridDim.x * blockDim.x) {
    rowptr[i] = (int)(i * L);
    if (i < n) x[i] = 1.0 + 0.01 * (double)(i % 97);
  }
}

__global__ void __launch_bounds__(1024, 1) row_spmv(int n, const int *rowptr, const int *col,
                                                    const double *a, const double *x, double *y) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    double s = 0;
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++) s += a[k] * x[col[k]];
    y[i] = s;
  }
}

// Merge path (Merrill and Garland, SC'16): the n row ends and the nnz
// non-zeros form n + nnz items; item d is at row i = the number of rows
// whose end rowptr[i+1] <= d - i - 1 (binary search), non-zero d - i.
__device__ int merge_row(int n, const int *rowptr, long d) {
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if ((long)rowptr[mid + 1] <= d - mid - 1) lo = mid + 1; else hi = mid;
  }
  return lo;
}

__global__ void start_rows(int n, const int *rowptr, long groups, int *start) {
  for (long l = blockIdx.x * (long)blockDim.x + threadIdx.x; l <= groups; l += (long)gridDim.x * blockDim.x)
    start[l] = merge_row(n, rowptr, l * T);
}

__global__ void __launch_bounds__(1024, 1) merge_spmv(int n, const int *rowptr, const int *col,
    const double *a, const double *x, double *y, long groups, const int *start) {
  extern __shared__ double smem[];
  double *sa = smem;                         // T * TPB products a[k] x[col[k]]
  int *srp = (int *)(sa + T * TPB);          // T * TPB + 1 row ends
  long nnz = rowptr[n], items = (long)n + nnz;
  long chunks = (groups + TPB - 1) / TPB;
  for (long c = blockIdx.x; c < chunks; c += gridDim.x) {
    long l0 = c * TPB;
    int i0 = start[l0];
    long k0 = l0 * T - i0;
    __syncthreads();
    for (int j = 0; j < T; j++) {
      int idx = j * TPB + threadIdx.x;
      long k = k0 + idx;
      sa[idx] = k < nnz ? a[k] * x[col[k]] : 0.0;
      long r = (long)i0 + 1 + idx;
      srp[idx] = r <= n ? rowptr[r] : (int)nnz;
    }
    if (threadIdx.x == 0) srp[T * TPB] = (long)i0 + 1 + T * TPB <= n ? rowptr[i0 + 1 + T * TPB] : (int)nnz;
    __syncthreads();
    long l = l0 + threadIdx.x;
    if (l < groups) {
      int i = start[l];
      long k = l * T - i;
      long kend = (l + 1) * T - start[l + 1];
      double s = 0;
      for (int j = 0; j < T && l * T + j < items; j++) {
        if (i < n && k == srp[i - i0]) { // row i ends here
          if (s != 0) atomicAdd(&y[i], s);
          s = 0;
          i++;
        } else if (k < kend && k < nnz) {
          s += sa[k - k0];
          k++;
        }
      }
      // a warp's threads on one row add once (aCG: __match_any_sync)
      unsigned mask = __match_any_sync(__activemask(), i);
      int lane = threadIdx.x & 31, lead = __ffs(mask) - 1;
      for (int off = 16; off > 0; off /= 2) {
        double o = __shfl_down_sync(__activemask(), s, off);
        int src = lane + off;
        if (src < 32 && ((mask >> src) & 1)) s += o;
      }
      if (lane == lead && i < n && s != 0) atomicAdd(&y[i], s);
    }
  }
}

static float time_us(cudaEvent_t e0, cudaEvent_t e1) { float ms; cudaEventElapsedTime(&ms, e0, e1); return ms * 1000; }

int main(int argc, char **argv) {
  std::vector<int> Ls;
  for (int i = 1; i < argc; i++) Ls.push_back(atoi(argv[i]));
  if (Ls.empty()) Ls = {7, 27, 81};
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;
  printf("device %s, %d SMs\n", prop.name, sms);
  const long target = 117440512; // 7 x 2^24 non-zeros
  cusparseHandle_t h;
  CS(cusparseCreate(&h));
  size_t smem = T * TPB * sizeof(double) + (T * TPB + 1) * sizeof(int);
  CK(cudaFuncSetAttribute(merge_spmv, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  int occ_row = 0, occ_merge = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_row, row_spmv, TPB, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ_merge, merge_spmv, TPB, smem));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, merge_spmv));
  printf("blocks per SM: row %d, merge %d (regs %d, smem %zu B)\n", occ_row, occ_merge, fa.numRegs, smem);
  for (int L : Ls) {
    int n = (int)(target / L);
    long nnz = (long)n * L;
    int *rowptr, *col, *start;
    double *a, *x, *y0, *y1, *y2;
    CK(cudaMalloc(&rowptr, (n + 1) * sizeof(int)));
    CK(cudaMalloc(&col, nnz * sizeof(int)));
    CK(cudaMalloc(&a, nnz * sizeof(double)));
    CK(cudaMalloc(&x, n * sizeof(double)));
    CK(cudaMalloc(&y0, n * sizeof(double)));
    CK(cudaMalloc(&y1, n * sizeof(double)));
    CK(cudaMalloc(&y2, n * sizeof(double)));
    gen<<<sms * 8, 256>>>(n, L, rowptr, col, a, x);
    long groups = ((long)n + nnz + T - 1) / T;
    CK(cudaMalloc(&start, (groups + 1) * sizeof(int)));
    start_rows<<<sms * 8, 256>>>(n, rowptr, groups, start);
    CK(cudaDeviceSynchronize());
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t vx, vy;
    CS(cusparseCreateCsr(&A, n, n, nnz, rowptr, col, a, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CS(cusparseCreateDnVec(&vx, n, x, CUDA_R_64F));
    CS(cusparseCreateDnVec(&vy, n, y1, CUDA_R_64F));
    double one = 1, zero = 0;
    size_t bsz = 0;
    void *buf = nullptr;
    CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F,
                               CUSPARSE_SPMV_ALG_DEFAULT, &bsz));
    if (bsz) CK(cudaMalloc(&buf, bsz));
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    float t[4][20];
    for (int rep = 0; rep < 21; rep++) {
      int r = rep - 1;
      cudaEventRecord(e0);
      row_spmv<<<sms * occ_row, TPB>>>(n, rowptr, col, a, x, y0);
      cudaEventRecord(e1);
      CK(cudaEventSynchronize(e1));
      if (r >= 0) t[0][r] = time_us(e0, e1);
      cudaEventRecord(e0);
      row_spmv<<<sms, TPB>>>(n, rowptr, col, a, x, y0);
      cudaEventRecord(e1);
      CK(cudaEventSynchronize(e1));
      if (r >= 0) t[3][r] = time_us(e0, e1);
      cudaEventRecord(e0);
      CS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, vx, &zero, vy, CUDA_R_64F,
                      CUSPARSE_SPMV_ALG_DEFAULT, buf));
      cudaEventRecord(e1);
      CK(cudaEventSynchronize(e1));
      if (r >= 0) t[1][r] = time_us(e0, e1);
      cudaEventRecord(e0);
      CK(cudaMemsetAsync(y2, 0, n * sizeof(double)));
      merge_spmv<<<sms, TPB, smem>>>(n, rowptr, col, a, x, y2, groups, start);
      cudaEventRecord(e1);
      CK(cudaEventSynchronize(e1));
      if (r >= 0) t[2][r] = time_us(e0, e1);
    }
    CK(cudaGetLastError());
    std::vector<double> h0(n), h1(n), h2(n);
    CK(cudaMemcpy(h0.data(), y0, n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h1.data(), y1, n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h2.data(), y2, n * 8, cudaMemcpyDeviceToHost));
    double e1max = 0, e2max = 0;
    for (int i = 0; i < n; i++) {
      e1max = std::max(e1max, std::abs(h1[i] - h0[i]) / std::abs(h0[i]));
      e2max = std::max(e2max, std::abs(h2[i] - h0[i]) / std::abs(h0[i]));
    }
    for (int k = 0; k < 4; k++) std::sort(t[k], t[k] + 20);
    printf("L=%d rows=%d nnz=%ld: row-per-thread %.0f us (%d blk/SM), %.0f us (1 blk/SM); cusparse "
           "default %.0f us; merge %.0f us (1 blk/SM, zero + SpMV); max rel err cusparse %.1e merge "
           "%.1e\n", L, n, nnz, t[0][10], occ_row, t[3][10], t[1][10], t[2][10], e1max, e2max);
    cusparseDestroySpMat(A);
    cusparseDestroyDnVec(vx);
    cusparseDestroyDnVec(vy);
    cudaFree(buf); cudaFree(rowptr); cudaFree(col); cudaFree(a); cudaFree(x);
    cudaFree(y0); cudaFree(y1); cudaFree(y2); cudaFree(start);
  }
  return 0;
}
