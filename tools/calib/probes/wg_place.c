/* Where a persistent kernel's WGs land, against its time (issue 28: the
 * H200's persistent Jacobi loop on a 512^2 grid at one 256-item WG per CU
 * took 2.2 or 3.3 us an iteration from one process to the next, in
 * calibrate and in validate-real alike, where at two WGs per CU it kept
 * 2.1 - 2.2 us). The loop is a copy of calibrate's jacobi_persist
 * (tools/calib/calib_ocl.c), each WG also writing the SM it runs on (%smid),
 * kept apart from calibrate's because it is the variant to compare with:
 * a standalone process with nothing else allocated, its barrier without
 * calibrate's error flag unless asked (`err`), its grids placed as each
 * mode asks. Per process: the time per iteration as the slope
 * between runs of 50 and 500 iterations (median of 5 each), and over the
 * runs the most WGs one SM held and how many SMs held none. Run it in
 * several processes: a placement of two WGs on one SM would double that
 * SM's share of the tiles.
 * Two of calibrate's circumstances can be added: its queue's profiling
 * (prof) and, before the loop, a kernel with __local memory and a
 * discrete Jacobi step (pre). `shift` instead measures the loop again in
 * one process on grids allocated behind a buffer of 0 .. 32 MiB: whether
 * the time follows where the grids lie; `err`, with its barrier's waiters
 * also polling an error flag and counting their spins (calibrate's
 * barrier) at 8 B .. 1 MiB past the barrier's words; `gap`, with the two
 * grids sub-buffers of one buffer, 1 .. 64 MiB apart.
 *   gcc -O2 -std=c11 tools/calib/probes/wg_place.c -lOpenCL -o wg_place
 *   for i in 1 2 3 4 5 6; do ./wg_place [K [prof|-] [pre]]; done   (K WGs per CU, default 1)
 *   ./wg_place K shift|err|gap */
#define _POSIX_C_SOURCE 199309L
#define CL_TARGET_OPENCL_VERSION 300
#define PROBE_NAME "wg_place"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../probe_cl.h"

enum { N = 512, WG = 256, REPS = 5, SPIN = 1 << 26 };

static const char *src =
    /* EO > 0: the waiters also poll an error flag EO ints past bar, and
     * count their spins, as calibrate's barrier does */
    "void gbar(__global volatile int *bar, int nwg, int eo) {\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_local_id(0) == 0) {\n"
    "    int gen = bar[1];\n"
    "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "    if (atomic_inc(&bar[0]) == nwg - 1) { atomic_xchg(&bar[0], 0); atomic_inc(&bar[1]); }\n"
    "    else if (eo > 0) {\n"
    "      int s = 0;\n"
    "      while (bar[1] == gen && !bar[eo]) if (++s > (1 << 26)) { bar[eo] = 1; break; }\n"
    "    } else while (bar[1] == gen) ;\n"
    "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  }\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "}\n"
    "__kernel void loc(__global float *a, int n) {\n"
    "  __local float s[2048];\n"
    "  int l = get_local_id(0);\n"
    "  for (int i = l; i < 2048; i += get_local_size(0)) s[i] = (float)i;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int g = get_global_id(0);\n"
    "  if (g < n) a[g] += s[(l * 7) & 2047];\n"
    "}\n"
    "__kernel void jd(__global const float *a, __global float *b, int n) {\n"
    "  int x = get_global_id(0) % n, y = get_global_id(0) / n;\n"
    "  if (y >= n || x == 0 || y == 0 || x == n - 1 || y == n - 1) return;\n"
    "  int i = y * n + x;\n"
    "  b[i] = 0.25f * (a[i - 1] + a[i + 1] + a[i - n] + a[i + n]);\n"
    "}\n"
    "__kernel void jp(__global float *a, __global float *b, int n, int iters,\n"
    "                 __global volatile int *bar, __global uint *sm, int eo) {\n"
    "  int G = get_num_groups(0), w = get_group_id(0), l = get_local_id(0);\n"
    "  if (l == 0) { uint s; asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(s)); sm[w] = s; }\n"
    "  int tx = (n + 15) / 16, tiles = tx * tx;\n"
    "  for (int it = 0; it < iters; it++) {\n"
    "    __global const float *s = (it & 1) ? b : a;\n"
    "    __global float *d = (it & 1) ? a : b;\n"
    CALIB_JACOBI_TILES_CL
    "    gbar(bar, G, eo);\n"
    "  }\n"
    "}\n";

/* The loop's time per iteration (the slope between 50 and 500 iterations,
 * median of REPS each after a warm-up) and its fixed cost, seconds; over
 * the runs the most WGs one SM held and the most SMs with none. */
static void measure(cl_command_queue q, cl_kernel kj, size_t g, size_t l, cl_mem sm, size_t nwg,
                    cl_uint cus, double *slope, double *fixed, int *most, int *empty_most) {
  cl_uint *where = malloc(sizeof *where * nwg);
  int *per = calloc(1024, sizeof *per);
  double med[2];
  const int iters[2] = {50, 500};
  *most = *empty_most = 0;
  for (int s = 0; s < 2; s++) {
    double t[REPS + 1];
    for (int r = 0; r <= REPS; r++) { /* the first a warm-up */
      cl_int it = iters[s];
      clSetKernelArg(kj, 3, sizeof it, &it);
      double t0 = now();
      die(clEnqueueNDRangeKernel(q, kj, 1, NULL, &g, &l, 0, NULL, NULL), "enqueue");
      die(clFinish(q), "clFinish");
      t[r] = now() - t0;
      die(clEnqueueReadBuffer(q, sm, CL_TRUE, 0, sizeof *where * nwg, where, 0, NULL, NULL),
          "read");
      memset(per, 0, 1024 * sizeof *per);
      for (size_t i = 0; i < nwg; i++) per[where[i] & 1023]++;
      int m = 0, e = 0;
      for (cl_uint i = 0; i < cus; i++) {
        if (per[i] > m) m = per[i];
        if (per[i] == 0) e++;
      }
      if (m > *most) *most = m;
      if (e > *empty_most) *empty_most = e;
    }
    med[s] = median(t + 1, REPS);
  }
  *slope = (med[1] - med[0]) / (iters[1] - iters[0]);
  *fixed = med[0] - iters[0] * *slope;
  free(where);
  free(per);
}

int main(int argc, char **argv) {
  int k = argc > 1 ? atoi(argv[1]) : 1;
  int prof = argc > 2 && strcmp(argv[2], "prof") == 0, pre = argc > 3 && strcmp(argv[3], "pre") == 0;
  int shift = argc > 2 && strcmp(argv[2], "shift") == 0;
  int errpoll = argc > 2 && strcmp(argv[2], "err") == 0;
  int gap = argc > 2 && strcmp(argv[2], "gap") == 0;
  cl_device_id dev = probe_device(NULL, 0);
  cl_uint cus = 0;
  clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
  cl_int rc;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
  die(rc, "clCreateContext");
  cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, prof ? qp : NULL, &rc);
  die(rc, "clCreateCommandQueue");
  cl_program p = probe_build(ctx, dev, src, "inline PTX is NVIDIA's");
  cl_kernel kj = clCreateKernel(p, "jp", &rc);
  die(rc, "clCreateKernel");
  size_t nwg = (size_t)cus * (size_t)k, g = nwg * WG, l = WG;
  float *zero = calloc((size_t)N * N, sizeof *zero);
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * N * N,
                            zero, &rc);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * N * N,
                            zero, &rc);
  enum { BAR_INTS = 1 << 18 }; /* room for the error flag up to 1 MiB past the barrier */
  int *bz = calloc(BAR_INTS, sizeof *bz);
  cl_mem bar = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof *bz * BAR_INTS,
                              bz, &rc);
  cl_mem sm = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof(cl_uint) * nwg, NULL, &rc);
  die(rc, "clCreateBuffer");
  cl_int n = N;
  clSetKernelArg(kj, 0, sizeof a, &a);
  clSetKernelArg(kj, 1, sizeof b, &b);
  clSetKernelArg(kj, 2, sizeof n, &n);
  clSetKernelArg(kj, 4, sizeof bar, &bar);
  clSetKernelArg(kj, 5, sizeof sm, &sm);
  cl_int eo = 0;
  clSetKernelArg(kj, 6, sizeof eo, &eo);
  if (pre) { /* a kernel with __local memory, then a discrete Jacobi step */
    cl_kernel kl = clCreateKernel(p, "loc", &rc), kd = clCreateKernel(p, "jd", &rc);
    die(rc, "clCreateKernel");
    size_t gl = (size_t)N * N, ll = 256;
    clSetKernelArg(kl, 0, sizeof a, &a);
    clSetKernelArg(kl, 1, sizeof n, &n);
    clSetKernelArg(kd, 0, sizeof a, &a);
    clSetKernelArg(kd, 1, sizeof b, &b);
    clSetKernelArg(kd, 2, sizeof n, &n);
    for (int i = 0; i < 10; i++) {
      die(clEnqueueNDRangeKernel(q, kl, 1, NULL, &gl, &ll, 0, NULL, NULL), "enqueue loc");
      die(clEnqueueNDRangeKernel(q, kd, 1, NULL, &gl, &ll, 0, NULL, NULL), "enqueue jd");
    }
    die(clFinish(q), "clFinish");
    float *z = calloc((size_t)N * N, sizeof *z);
    die(clEnqueueWriteBuffer(q, a, CL_TRUE, 0, sizeof(float) * N * N, z, 0, NULL, NULL), "write");
    free(z);
  }
  double slope, fixed;
  int most, empty_most;
  if (errpoll) { /* the barrier's waiters also poll a flag EO ints away, in one process */
    static const cl_int eos[] = {0, 2, 4, 8, 16, 32, 64, 1024, 16384, 262143, 0};
    for (size_t i = 0; i < sizeof eos / sizeof eos[0]; i++) {
      clSetKernelArg(kj, 6, sizeof eos[i], &eos[i]);
      measure(q, kj, g, l, sm, nwg, cus, &slope, &fixed, &most, &empty_most);
      printf("wg_place err: %d WG(s) per CU, %d^2, error flag %d B past the barrier's words%s: "
             "%.3f us an iteration, fixed %.1f us; most WGs on one SM %d\n", k, N, 4 * eos[i],
             eos[i] ? "" : " (none polled)", slope * 1e6, fixed * 1e6, most);
    }
    return 0;
  }
  if (gap) { /* the two grids as sub-buffers of one, D bytes apart, in one process */
    static const size_t ds[] = {1 << 20, (1 << 20) + 4096, (3 << 19), 2 << 20, 3 << 20, 4 << 20,
                                8 << 20, 16 << 20, 32 << 20, 48 << 20, 64 << 20,
                                (64 << 20) + 4096, (64 << 20) - (1 << 19)};
    size_t most_d = 0;
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) most_d = ds[i] > most_d ? ds[i] : most_d;
    cl_mem big = clCreateBuffer(ctx, CL_MEM_READ_WRITE, most_d + sizeof(float) * N * N, NULL, &rc);
    die(rc, "clCreateBuffer");
    die(clEnqueueFillBuffer(q, big, &(cl_float){0}, sizeof(cl_float), 0,
                            most_d + sizeof(float) * N * N, 0, NULL, NULL),
        "fill");
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
      cl_buffer_region ra = {0, sizeof(float) * N * N}, rb = {ds[i], sizeof(float) * N * N};
      cl_mem a2 = clCreateSubBuffer(big, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &ra, &rc);
      die(rc, "clCreateSubBuffer");
      cl_mem b2 = clCreateSubBuffer(big, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rb, &rc);
      die(rc, "clCreateSubBuffer");
      clSetKernelArg(kj, 0, sizeof a2, &a2);
      clSetKernelArg(kj, 1, sizeof b2, &b2);
      measure(q, kj, g, l, sm, nwg, cus, &slope, &fixed, &most, &empty_most);
      printf("wg_place gap: %d WG(s) per CU, %d^2, the grids %zu KiB apart: %.3f us an iteration, "
             "fixed %.1f us; most WGs on one SM %d\n", k, N, ds[i] >> 10, slope * 1e6,
             fixed * 1e6, most);
      clReleaseMemObject(a2);
      clReleaseMemObject(b2);
    }
    return 0;
  }
  if (shift) { /* the grids again behind a buffer of 0 .. 32 MiB, in one process */
    for (size_t mib = 0; mib <= 32; mib += mib < 4 ? 1 : 4) {
      cl_mem pad = NULL, a2, b2;
      if (mib) {
        pad = clCreateBuffer(ctx, CL_MEM_READ_WRITE, mib << 20, NULL, &rc);
        die(rc, "clCreateBuffer");
        die(clEnqueueFillBuffer(q, pad, &(cl_int){0}, sizeof(cl_int), 0, mib << 20, 0, NULL, NULL),
            "fill");
      }
      a2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * N * N, zero, &rc);
      b2 = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof(float) * N * N, zero, &rc);
      die(rc, "clCreateBuffer");
      clSetKernelArg(kj, 0, sizeof a2, &a2);
      clSetKernelArg(kj, 1, sizeof b2, &b2);
      measure(q, kj, g, l, sm, nwg, cus, &slope, &fixed, &most, &empty_most);
      printf("wg_place shift: %d WG(s) per CU, %d^2 behind %zu MiB: %.3f us an iteration, fixed "
             "%.1f us; most WGs on one SM %d\n", k, N, mib, slope * 1e6, fixed * 1e6, most);
      clReleaseMemObject(a2);
      clReleaseMemObject(b2);
      if (pad) clReleaseMemObject(pad);
    }
    return 0;
  }
  measure(q, kj, g, l, sm, nwg, cus, &slope, &fixed, &most, &empty_most);
  printf("wg_place%s%s: %d WG(s) per CU (%zu WGs), %d^2: %.3f us an iteration (slope 50..500), "
         "fixed %.1f us; most WGs on one SM %d, SMs with none up to %d of %u\n",
         prof ? " prof" : "", pre ? " pre" : "", k, nwg, N, slope * 1e6, fixed * 1e6, most,
         empty_most, cus);
  return 0;
}
