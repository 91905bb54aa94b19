// What the launch configuration of a row-per-thread CSR SpMV costs (issue
// 15: the ICS'23 CG code runs the same SpMV loop two ways). The CPU-
// controlled baselines launch it per iteration as a discrete kernel, one
// row per thread, blocks = rows / block size; the CPU-free version runs it
// inside one persistent kernel (__launch_bounds__(1024, 1), a grid of
// resident blocks, rows tiled in software by a grid-stride loop). Both
// read x through nvshmem_double_g, which is emulated here: the owner is
// column / chunk, the owner's base comes from a table read with __ldg, the
// value is a generic load, and a never-taken branch calls an out-of-line
// fallback (NVSHMEM's proxy path). All "peers" live on this one GPU.
// Two controls: the plain loop kept from unrolling, and gets with no
// fallback call (so the compiler may unroll).
// Matrices: one GPU's share (of 8) of a Queen_4147-like 3D elasticity
// mesh (27-point, 3 dofs, ~81 non-zeros a row), of an audikw-like 3D
// 27-point mesh and of an ecology2-like 2D 5-point grid. Times per SpMV
// (median of events), registers and resident blocks per SM for each.
// `spmv_launch REPS sweep` runs only the residency sweep (issue 28): the get
// SpMV as a cooperative grid-stride kernel with 128 to 2048 threads
// resident on every SM, at carve-outs 0, 28 and 50 %, on the Queen-like
// and the 27-point shares; under Nsight Compute it gives L1 hits, L2
// misses and DRAM bytes per residency (configs/hw/README.md, "A
// row-per-thread SpMV's lines").
// `spmv_launch REPS chain` times the longest row's chain (issue 28): LANES
// work-items of one warp (1 or 32) each walk a row of L non-zeros (L = 256
// to 8192, columns drawn at random over x and sorted, as CSR keeps them),
// x read by emulated gets or plain loads, x of 63838 (crankseg_2's rows:
// 0.5 MB), 943695 (audikw_1's: 7.5 MB) and 16777216 values (128 MB, past
// the L2); the slope of the time against L is a non-zero's share of the
// chain (configs/hw/README.md, "A long row's chain"); then the whole SpMV
// of a crankseg_2-like matrix (63838 rows of 221 non-zeros, 0, 1 or 32 of
// them of L = 1000 or 3423), discrete and persistent, the long rows' chains
// beside the other rows' loads; and the lone chains with the row's lines
// evicted from L2 before each launch (x read back), for where they come from.
// Build: nvcc -O3 -arch=sm_90 -rdc=true spmv_launch.cu -o spmv_launch
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));    \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

struct gstate {
  const char *heap_base;                 // this PE's symmetric heap
  const unsigned long long *peer_base;   // each PE's heap as mapped here
};
__constant__ gstate gs;

// The proxy path: never taken here (every peer is mapped), kept out of line
// as the library's is.
__device__ __noinline__ double g_fallback(const double *src, int pe) {
  return *(volatile const double *)src + pe;
}

__device__ __forceinline__ double g_emul(const double *src, int pe) {
  const char *pb = (const char *)__ldg(gs.peer_base + pe);
  if (pb) return *(const double *)(pb + ((const char *)src - gs.heap_base));
  return g_fallback(src, pe);
}

struct csr {
  const int *rowptr, *col;
  const double *val;
  int rows;       // this GPU's rows
  int row0;       // its first global row
  int chunk;      // rows per PE
};

// How x is read: plain loads; gets (the owner's base from the table, the
// fallback call on a branch never taken); plain loads in a loop kept from
// unrolling; gets with no fallback branch (nothing stops unrolling).
enum { PLAIN, GET, PLAIN_NOUNROLL, GET_NOCALL };

__device__ __forceinline__ double g_nocall(const double *src, int pe) {
  const char *pb = (const char *)__ldg(gs.peer_base + pe);
  return *(const double *)(pb + ((const char *)src - gs.heap_base));
}

template <int G>
__device__ __forceinline__ double row_dot(const csr &a, const double *x, int r) {
  int b = a.rowptr[r], e = a.rowptr[r + 1];
  double s = 0.0;
  if (G == PLAIN_NOUNROLL) {
#pragma unroll 1
    for (int j = b; j < e; j++) s += a.val[j] * x[a.col[j]];
  } else {
    for (int j = b; j < e; j++) {
    int c = a.col[j];
    double v;
    if (G == GET || G == GET_NOCALL) {
      int pe = c / a.chunk;
      v = G == GET ? g_emul(x + (c - pe * a.chunk), pe) : g_nocall(x + (c - pe * a.chunk), pe);
    } else {
      v = x[c];
    }
    s += a.val[j] * v;
    }
  }
  return s;
}

// Discrete: one row per thread (SingleGPU::gpuSpMV with plain loads,
// NVSHMEM::gpuSpMV with gets).
template <int G>
__global__ void spmv_discrete(csr a, const double *x, double *y) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < a.rows) y[t] = row_dot<G>(a, x, t);
}

// Same, held to two 1024-thread blocks per SM (at most 32 registers).
template <int G>
__global__ void __launch_bounds__(1024, 2) spmv_discrete_lb2(csr a, const double *x, double *y) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < a.rows) y[t] = row_dot<G>(a, x, t);
}

// Persistent: resident blocks only, rows tiled by a grid-stride loop, as
// the CPU-free kernel's gpuSpMV (__launch_bounds__(1024, 1)).
// MINB blocks of 1024 a SM: 1 as the CPU-free code's kernel, 2 for the
// residency sweep's two-block grids.
template <int G, int MINB = 1>
__global__ void __launch_bounds__(1024, MINB) spmv_persistent(csr a, const double *x, double *y) {
  extern __shared__ double tmp[];
  int stride = gridDim.x * blockDim.x;
  for (int t = blockIdx.x * blockDim.x + threadIdx.x; t < a.rows; t += stride)
    y[t] = row_dot<G>(a, x, t);
  if (threadIdx.x == 0) tmp[0] = 0.0;  // the fused kernel's reduction scratch
}

// The chain: the first LANES work-items of block 0 each walk their own row.
template <int G>
__global__ void chain_rows(csr a, const double *x, double *y) {
  if (blockIdx.x == 0 && (int)threadIdx.x < a.rows) y[threadIdx.x] = row_dot<G>(a, x, threadIdx.x);
}

struct host_csr {
  std::vector<int> rowptr, col;
  std::vector<double> val;
  int rows, row0, chunk, ncols;
};

// One PE's (pe of npes) share of a 3D grid nx*ny*nz_total of nodes with
// `dofs` unknowns each, nodes coupled to their (2h+1)^3 neighbours, split
// in slabs along z; its columns are global.
static host_csr grid3d(int nx, int ny, int nz_share, int npes, int pe, int dofs, int h) {
  host_csr m;
  int nz = nz_share * npes;
  long nodes_share = (long)nx * ny * nz_share;
  m.rows = (int)(nodes_share * dofs);
  m.chunk = m.rows;
  m.row0 = pe * m.rows;
  m.ncols = m.rows * npes;
  m.rowptr.push_back(0);
  for (int z = pe * nz_share; z < (pe + 1) * nz_share; z++)
    for (int y = 0; y < ny; y++)
      for (int x = 0; x < nx; x++)
        for (int d = 0; d < dofs; d++) {
          for (int dz = -h; dz <= h; dz++)
            for (int dy = -h; dy <= h; dy++)
              for (int dx = -h; dx <= h; dx++) {
                int X = x + dx, Y = y + dy, Z = z + dz;
                if (X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= ny || Z >= nz) continue;
                long node = ((long)Z * ny + Y) * nx + X;
                for (int e = 0; e < dofs; e++) {
                  m.col.push_back((int)(node * dofs + e));
                  bool diag = dx == 0 && dy == 0 && dz == 0 && e == d;
                  m.val.push_back(diag ? 100.0 : -0.5);
                }
              }
          m.rowptr.push_back((int)m.col.size());
        }
  return m;
}

// One PE's share of a 2D 5-point grid nx * (ny_share * npes), split by rows.
static host_csr grid2d(int nx, int ny_share, int npes, int pe) {
  host_csr m;
  int ny = ny_share * npes;
  m.rows = nx * ny_share;
  m.chunk = m.rows;
  m.row0 = pe * m.rows;
  m.ncols = m.rows * npes;
  m.rowptr.push_back(0);
  for (int y = pe * ny_share; y < (pe + 1) * ny_share; y++)
    for (int x = 0; x < nx; x++) {
      const int dx[5] = {0, -1, 1, 0, 0}, dy[5] = {-1, 0, 0, 0, 1};
      for (int k = 0; k < 5; k++) {
        int X = x + dx[k], Y = y + dy[k];
        if (X < 0 || Y < 0 || X >= nx || Y >= ny) continue;
        m.col.push_back(Y * nx + X);
        m.val.push_back(k == 3 ? 4.0 : -1.0);
      }
      m.rowptr.push_back((int)m.col.size());
    }
  return m;
}

static cudaDeviceProp prop;

template <typename K>
static void attrs(K k, int block, size_t smem, int *regs, int *occ) {
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, (const void *)k));
  *regs = fa.numRegs;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(occ, k, block, smem));
}

// Reads x (into L2) after a flush; the sum keeps the loads.
__global__ void touch_x(const double *x, int n, double *sink) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] == -12345.0) sink[0] = x[i];
}

struct runner {
  csr a;
  const double *x;
  double *y;
  cudaStream_t s;
  cudaEvent_t e0, e1;
  int reps;
  // Before each launch, when set: FLUSH_BYTES of flush written (evicting
  // L2), then x read back into L2 by touch_x, so that only the matrix's
  // lines come from memory.
  unsigned char *flush = nullptr;
  size_t flush_bytes = 0;
  int ncols = 0;
  double *sink = nullptr;
  // Median of `reps` timed launches, each between two events.
  template <typename K>
  double time(K k, int grid, int block, size_t smem, bool coop) {
    std::vector<float> t;
    for (int i = -2; i < reps; i++) {
      if (flush) {
        CK(cudaMemsetAsync(flush, i & 0xff, flush_bytes, s));
        touch_x<<<(ncols + 255) / 256, 256, 0, s>>>(x, ncols, sink);
        CK(cudaGetLastError());
      }
      CK(cudaEventRecord(e0, s));
      if (coop) {
        void *args[] = {(void *)&a, (void *)&x, (void *)&y};
        CK(cudaLaunchCooperativeKernel((const void *)k, grid, block, args, smem, s));
      } else {
        k<<<grid, block, smem, s>>>(a, x, y);
        CK(cudaGetLastError());
      }
      CK(cudaEventRecord(e1, s));
      CK(cudaStreamSynchronize(s));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (i >= 0) t.push_back(ms * 1000.0f);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

static double checksum(const double *dy, int n) {
  std::vector<double> h(n);
  CK(cudaMemcpy(h.data(), dy, n * sizeof(double), cudaMemcpyDeviceToHost));
  double s = 0;
  for (double v : h) s += v;
  return s;
}

// carve: -1 leaves the driver's default; else the preferred shared-memory
// carve-out in percent (L1 = unified size - shared).
template <typename K>
static void one(runner &r, const char *name, K k, int block, bool persistent, int carve,
                double *ref) {
  size_t smem = persistent ? 528 : 0;  // 2 * 8 * (1024 / 32 + 1): the fused kernel's dots
  if (carve >= 0) CK(cudaFuncSetAttribute((const void *)k,
                                          cudaFuncAttributePreferredSharedMemoryCarveout, carve));
  int regs, occ;
  attrs(k, block, smem, &regs, &occ);
  int grid = persistent ? occ * prop.multiProcessorCount : (r.a.rows + block - 1) / block;
  CK(cudaMemset(r.y, 0, r.a.rows * sizeof(double)));
  double us = r.time(k, grid, block, smem, persistent);
  double cs = checksum(r.y, r.a.rows);
  if (*ref == 0) *ref = cs;
  printf("  %-34s block %4d grid %6d regs %3d blocks/SM %d carve %3d  %9.1f us  %s\n", name, block,
         grid, regs, occ, carve, us, cs == *ref ? "ok" : "MISMATCH");
  if (carve >= 0)  // back to the default for the next case
    CK(cudaFuncSetAttribute((const void *)k, cudaFuncAttributePreferredSharedMemoryCarveout, -1));
}

// The residency sweep (issue 28): the get SpMV as a cooperative grid-stride
// kernel with a chosen number of threads resident on every SM (blocks a SM
// x block size), so that the lines its rows hold in L1 (and, summed over
// the SMs, in L2) grow while the code and the rows stay the same.
template <typename K>
static void resident(runner &r, K k, int per_sm, int block, int carve, double *ref, long nnz) {
  size_t smem = 528;
  CK(cudaFuncSetAttribute((const void *)k, cudaFuncAttributePreferredSharedMemoryCarveout,
                          carve));
  int regs, occ;
  attrs(k, block, smem, &regs, &occ);
  if (occ < per_sm) {
    printf("  resident %4d x %d: only %d blocks a SM fit, skipped\n", block, per_sm, occ);
    return;
  }
  int grid = per_sm * prop.multiProcessorCount;
  CK(cudaMemset(r.y, 0, r.a.rows * sizeof(double)));
  double us = r.time(k, grid, block, smem, true);
  double cs = checksum(r.y, r.a.rows);
  if (*ref == 0) *ref = cs;
  printf("  resident %4d threads a SM (%d x %4d) carve %3d regs %2d  %9.1f us  %6.2f ps/nz  %s\n",
         per_sm * block, per_sm, block, carve, regs, us, us * 1e6 / (double)nnz,
         cs == *ref ? "ok" : "MISMATCH");
  CK(cudaFuncSetAttribute((const void *)k, cudaFuncAttributePreferredSharedMemoryCarveout, -1));
}

// The matrix and x on the device, the emulated heap's table set, and a
// runner on its own stream: what bench and sweep both start from.
struct on_device {
  int *rp, *ci;
  double *va, *heap, *y;
  unsigned long long *dpb;
  runner r;
};

static void upload(on_device &d, const host_csr &m, int reps) {
  long nnz = m.rowptr.back();
  CK(cudaMalloc(&d.rp, (m.rows + 1) * sizeof(int)));
  CK(cudaMalloc(&d.ci, nnz * sizeof(int)));
  CK(cudaMalloc(&d.va, nnz * sizeof(double)));
  CK(cudaMalloc(&d.heap, (size_t)m.ncols * sizeof(double)));
  CK(cudaMalloc(&d.y, m.rows * sizeof(double)));
  CK(cudaMemcpy(d.rp, m.rowptr.data(), (m.rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.ci, m.col.data(), nnz * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d.va, m.val.data(), nnz * sizeof(double), cudaMemcpyHostToDevice));
  std::vector<double> hx(m.ncols);
  for (int i = 0; i < m.ncols; i++) hx[i] = 1.0 + (i % 7) * 0.125;
  CK(cudaMemcpy(d.heap, hx.data(), m.ncols * sizeof(double), cudaMemcpyHostToDevice));
  // PE p's x is heap + p * chunk; this PE's own symmetric x is at the heap's
  // start, so a get's source pointer is heap + offset.
  std::vector<unsigned long long> pb(8);
  for (int p = 0; p < 8; p++) pb[p] = (unsigned long long)(d.heap + (size_t)p * m.chunk);
  CK(cudaMalloc(&d.dpb, sizeof(pb[0]) * 8));
  CK(cudaMemcpy(d.dpb, pb.data(), sizeof(pb[0]) * 8, cudaMemcpyHostToDevice));
  gstate st = {(const char *)d.heap, d.dpb};
  CK(cudaMemcpyToSymbol(gs, &st, sizeof(st)));
  // Rows here are the PE's own; columns are global: the kernels index
  // rowptr by local row, as the code does by row_start + local. x is the
  // whole vector (the heap): plain loads index it by column; a get's
  // source is this PE's symmetric x plus the offset in the owner's.
  d.r.a = {d.rp, d.ci, d.va, m.rows, m.row0, m.chunk};
  d.r.y = d.y;
  d.r.x = d.heap;
  d.r.reps = reps;
  CK(cudaStreamCreateWithFlags(&d.r.s, cudaStreamNonBlocking));
  CK(cudaEventCreate(&d.r.e0));
  CK(cudaEventCreate(&d.r.e1));
}

static void release(on_device &d) {
  CK(cudaFree(d.rp));
  CK(cudaFree(d.ci));
  CK(cudaFree(d.va));
  CK(cudaFree(d.heap));
  CK(cudaFree(d.y));
  CK(cudaFree(d.dpb));
  CK(cudaStreamDestroy(d.r.s));
}

static void bench(const char *title, const host_csr &m, int reps) {
  long nnz = m.rowptr.back();
  printf("%s: %d rows, %ld non-zeros (%.1f a row), x of %d values over 8 PEs\n", title, m.rows,
         nnz, (double)nnz / m.rows, m.ncols);
  on_device d;
  upload(d, m, reps);
  runner &r = d.r;
  double ref = 0;
  printf(" x by plain loads\n");
  for (int carve : {-1, 28}) {
    one(r, "discrete 1024", spmv_discrete<PLAIN>, 1024, false, carve, &ref);
    one(r, "discrete 512", spmv_discrete<PLAIN>, 512, false, carve, &ref);
    one(r, "discrete 1024, launch_bounds(1024,2)", spmv_discrete_lb2<PLAIN>, 1024, false, carve,
        &ref);
    one(r, "persistent (cooperative)", spmv_persistent<PLAIN>, 1024, true, carve, &ref);
  }
  printf(" x by emulated nvshmem_double_g\n");
  for (int carve : {-1, 28}) {
    one(r, "discrete 1024", spmv_discrete<GET>, 1024, false, carve, &ref);
    one(r, "discrete 512", spmv_discrete<GET>, 512, false, carve, &ref);
    one(r, "discrete 1024, launch_bounds(1024,2)", spmv_discrete_lb2<GET>, 1024, false, carve, &ref);
    one(r, "persistent (cooperative)", spmv_persistent<GET>, 1024, true, carve, &ref);
  }
  printf(" plain loads, row loop not unrolled (#pragma unroll 1)\n");
  one(r, "discrete 1024", spmv_discrete<PLAIN_NOUNROLL>, 1024, false, -1, &ref);
  one(r, "persistent (cooperative)", spmv_persistent<PLAIN_NOUNROLL>, 1024, true, -1, &ref);
  printf(" gets without the fallback call\n");
  one(r, "discrete 1024", spmv_discrete<GET_NOCALL>, 1024, false, -1, &ref);
  one(r, "persistent (cooperative)", spmv_persistent<GET_NOCALL>, 1024, true, -1, &ref);
  release(d);
}

static void sweep(const char *title, const host_csr &m, int reps) {
  long nnz = m.rowptr.back();
  printf("%s: %d rows, %ld non-zeros (%.1f a row): residency sweep, x by emulated gets\n",
         title, m.rows, nnz, (double)nnz / m.rows);
  on_device d;
  upload(d, m, reps);
  runner &r = d.r;
  double ref = 0;
  for (int carve : {0, 28, 50}) {
    for (int b : {128, 256, 384, 512, 640, 768, 896, 1024})
      resident(r, spmv_persistent<GET>, 1, b, carve, &ref, nnz);
    for (int b : {640, 768, 896, 1024})
      resident(r, spmv_persistent<GET, 2>, 2, b, carve, &ref, nnz);
  }
  printf(" discrete, for reference\n");
  one(r, "discrete 1024", spmv_discrete<GET>, 1024, false, 0, &ref);
  one(r, "discrete 1024", spmv_discrete<GET>, 1024, false, 28, &ref);
  release(d);
}

// ROWS rows over NCOLS columns, one PE owning them all: the first LONGS of
// L non-zeros, the rest of MEAN, each row's columns drawn at random (a
// fixed seed) and sorted, as CSR keeps them.
static host_csr random_rows(int rows, int ncols, int longs, int l, int mean, unsigned seed) {
  host_csr m;
  m.rows = rows;
  m.chunk = ncols;
  m.row0 = 0;
  m.ncols = ncols;
  m.rowptr.push_back(0);
  unsigned long long st = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (int r = 0; r < rows; r++) {
    int n = r < longs ? l : mean;
    std::vector<int> c(n);
    for (int j = 0; j < n; j++) {
      st = st * 6364136223846793005ULL + 1442695040888963407ULL;
      c[j] = (int)((st >> 33) % (unsigned long long)ncols);
    }
    std::sort(c.begin(), c.end());
    for (int j = 0; j < n; j++) {
      m.col.push_back(c[j]);
      m.val.push_back(0.5);
    }
    m.rowptr.push_back((int)m.col.size());
  }
  return m;
}

// The chain's times over L for one x size and lane count, and their
// least-squares slope (ns a non-zero) and intercept (us).
// FLUSH: the row's lines evicted from L2 before each launch, x read back.
static void chain(int ncols, int lanes, int reps, bool flush = false) {
  const int ls[] = {256, 512, 1024, 2048, 4096, 8192};
  for (int g = 0; g < 2; g++) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    printf("  x %8d values (%6.1f MB), %2d lane%s, %s%s:", ncols, ncols * 8.0 / 1048576, lanes,
           lanes > 1 ? "s" : " ", g ? "plain loads" : "gets       ",
           flush ? ", row from memory" : "");
    for (int l : ls) {
      host_csr m = random_rows(lanes, ncols, lanes, l, 0, 7u + (unsigned)l);
      on_device d;
      upload(d, m, reps);
      if (flush) {
        d.r.flush_bytes = (size_t)256 << 20;
        CK(cudaMalloc(&d.r.flush, d.r.flush_bytes));
        CK(cudaMalloc(&d.r.sink, sizeof(double)));
        d.r.ncols = ncols;
      }
      double us = g ? d.r.time(chain_rows<PLAIN>, 1, 32, 0, false)
                    : d.r.time(chain_rows<GET>, 1, 32, 0, false);
      if (flush) {
        CK(cudaFree(d.r.flush));
        CK(cudaFree(d.r.sink));
      }
      release(d);
      printf(" %7.1f", us);
      sx += l;
      sy += us;
      sxx += (double)l * l;
      sxy += l * us;
    }
    int n = (int)(sizeof ls / sizeof ls[0]);
    double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    printf(" us at L = 256 .. 8192: %6.1f ns a non-zero, intercept %5.1f us\n", slope * 1e3,
           (sy - slope * sx) / n);
  }
}

// A crankseg_2-like matrix on one GPU: 63838 rows of 221 non-zeros drawn
// at random over the rows, the first 0, 1 or 32 of them of L instead; the
// whole SpMV, discrete and persistent, x by emulated gets, so that the
// longest rows' chains run while the GPU's other rows load (`spmv_launch
// REPS chain`, after the lone chains).
static void chain_whole(int reps) {
  for (int longs : {0, 1, 32})
    for (int l : {1000, 3423}) {
      if (longs == 0 && l != 1000) continue;
      host_csr m = random_rows(63838, 63838, longs, l, 221, 11u);
      on_device d;
      upload(d, m, reps);
      double ref = 0;
      char name[96];
      snprintf(name, sizeof name, "%d long row%s of %d, discrete", longs, longs == 1 ? "" : "s",
               longs ? l : 0);
      one(d.r, name, spmv_discrete<GET>, 1024, false, -1, &ref);
      snprintf(name, sizeof name, "%d long row%s of %d, persistent", longs, longs == 1 ? "" : "s",
               longs ? l : 0);
      one(d.r, name, spmv_persistent<GET>, 1024, true, -1, &ref);
      release(d);
    }
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 20;
  bool do_sweep = argc > 2 && argv[2][0] == 's';
  bool do_chain = argc > 2 && argv[2][0] == 'c';
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("device %s, %d SMs, L2 %d KB, shared/SM max %zu KB\n", prop.name,
         prop.multiProcessorCount, prop.l2CacheSize / 1024,
         prop.sharedMemPerMultiprocessor / 1024);
  printf("carve 28: the preferred carve-out 28%% of shared memory (64 of 228 KB on an H100),\n"
         "leaving about 192 KB of L1, the A100's whole unified L1/shared size\n");
  if (do_chain) {  // `spmv_launch REPS chain`: the longest row's chain only
    for (int ncols : {63838, 943695, 16777216})
      for (int lanes : {1, 32}) chain(ncols, lanes, reps);
    printf("the row's lines from memory (L2 flushed, x read back, before each launch)\n");
    for (int lanes : {1, 32}) chain(63838, lanes, reps, true);
    printf("crankseg_2-like: 63838 rows of 221 random non-zeros, the first 0, 1 or 32 of L\n");
    chain_whole(reps);
    return 0;
  }
  if (do_sweep) {  // `spmv_launch REPS sweep`: the residency sweep only
    sweep("Queen-like share", grid3d(56, 56, 55, 8, 3, 3, 1), reps);
    sweep("27-point scalar share", grid3d(64, 64, 32, 8, 3, 1, 1), reps);
    return 0;
  }
  // Queen_4147: 4147110 rows, 79.45 a row; an eighth is 518389 rows.
  bench("Queen-like share (3D elasticity, 27-point x 3 dofs)", grid3d(56, 56, 55, 8, 3, 3, 1),
        reps);
  // audikw_1 / Serena-like mid size, scalar 27-point: 27.0 a row.
  bench("27-point scalar share", grid3d(64, 64, 32, 8, 3, 1, 1), reps);
  // ecology2: 999999 rows, 5.0 a row; an eighth is 125000 rows.
  bench("ecology2-like share (2D 5-point)", grid2d(1000, 125, 8, 3), reps);
  return 0;
}
