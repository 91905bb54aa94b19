// Registers per thread of an asynchronous Jacobi relaxation kernel as the
// asynchronous-Jacobi study describes it (Tsai et al., Alg. 2 and 3): a
// subwarp of S threads per CSR row, double values, 32-bit column indices,
// 64-bit row and stride arithmetic, the subwarp's partial sums reduced
// with shuffles, __threadfence() after each update, 128 threads a block
// given as the launch bound. The registers decide how many 128-thread
// blocks reside per SM (occupancy), hence whether the static kernel's
// blocks all run at once or in waves (models/relax.h). Written here from
// the paper's algorithms, not taken from Ginkgo. Compile only:
//   nvcc -arch=sm_70 -cubin -Xptxas -v tools/calib/probes/ajacobi_regs.cu
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <stddef.h>

namespace cg = cooperative_groups;

template <int S, bool FENCE>
__global__ __launch_bounds__(128) void relax(int updates, size_t rows, const double *__restrict__ a,
                                             const int *__restrict__ col,
                                             const int *__restrict__ start,
                                             const double *__restrict__ alpha,
                                             const double *__restrict__ b, size_t b_ld,
                                             double *__restrict__ x, size_t x_ld) {
  cg::thread_block_tile<S> tile = cg::tiled_partition<S>(cg::this_thread_block());
  const unsigned lane = tile.thread_rank();
  const size_t vec = blockIdx.y;
  size_t row = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / S;
  const size_t subwarps = (size_t)blockDim.x / S * gridDim.x;
  const double w = alpha[0];
  for (int done = 0; done < updates;) {
    const double rhs = b[row * b_ld + vec];
    const int end = start[row + 1];
    double sum = 0.0;
    for (int k = start[row] + (int)lane; k < end; k += S) sum += a[k] * x[(size_t)col[k] * x_ld + vec];
    sum = cg::reduce(tile, sum, cg::plus<double>());
    if (lane == 0) x[row * x_ld + vec] += w * (rhs - sum);
    if (FENCE) __threadfence();
    row += subwarps;
    if (row >= rows) {
      row -= rows;
      done++;
    }
  }
}

// One instance per subwarp size the study runs, with and without the fence.
template __global__ void relax<1, true>(int, size_t, const double *, const int *, const int *,
                                        const double *, const double *, size_t, double *, size_t);
template __global__ void relax<1, false>(int, size_t, const double *, const int *, const int *,
                                         const double *, const double *, size_t, double *, size_t);
template __global__ void relax<2, true>(int, size_t, const double *, const int *, const int *,
                                        const double *, const double *, size_t, double *, size_t);
template __global__ void relax<8, true>(int, size_t, const double *, const int *, const int *,
                                        const double *, const double *, size_t, double *, size_t);
template __global__ void relax<32, true>(int, size_t, const double *, const int *, const int *,
                                         const double *, const double *, size_t, double *, size_t);
