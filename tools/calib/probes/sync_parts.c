/* The parts of a host-paced (sync) kernel loop on OpenCL: enqueue one
 * kernel, clFinish, again (validate-real's `sync` case). The empty kernel's
 * round trip is what the profile's launch path is derived from; this probe
 * changes one thing at a time between it and the Jacobi step the sync case
 * runs (buffer arguments set, which buffers, the ND-range, the kernel's loads
 * and stores), timing the host's enqueue calls and its clFinish apart.
 *   gcc -O2 -std=c11 tools/calib/probes/sync_parts.c -lOpenCL -o sync_parts
 *   ./sync_parts [PLATFORM_SUBSTRING]   (default: the first GPU, else the first device)
 * Prints, per case, the medians over RUNS runs of ITERS iterations: the
 * host's time per iteration, in the enqueue (clSetKernelArg included) and
 * in clFinish, in microseconds; then a few cases again on a queue with
 * profiling enabled (calibrate's and validate-real's) and on 64 x 64 grids. */
#define _POSIX_C_SOURCE 199309L
#define CL_TARGET_OPENCL_VERSION 300
#define PROBE_NAME "sync_parts"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../probe_cl.h"

enum { ITERS = 2000, RUNS = 7, SIDE = 16 };

static const char *src =
    "__kernel void empty(void) {}\n"
    "__kernel void empty3(__global const float *a, __global float *b, int n) {}\n"
    CALIB_JACOBI_CL
    /* the same loads, a store only when the sum is NaN (never: the grids are 0) */
    "__kernel void jacobi_ro(__global const float *a, __global float *b, int n) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  if (x <= 0 || y <= 0 || x >= n - 1 || y >= n - 1) return;\n"
    "  int i = y * n + x;\n"
    "  float s = a[i - 1] + a[i + 1] + a[i - n] + a[i + n];\n"
    "  if (s != s) b[i] = s;\n"
    "}\n"
    /* one store, no loads */
    "__kernel void store1(__global const float *a, __global float *b, int n) {\n"
    "  if (get_global_id(0) == 0 && get_global_id(1) == 0) b[0] = (float)n;\n"
    "}\n";

static cl_command_queue q;
static cl_mem ga, gb;

/* ARGS: 0 none, 1 set each iteration alternating a/b (as the sync case), 2
 * set once, 3 set each iteration to a, b (the same two), 4 set each
 * iteration to a, a (one buffer twice, as calibrate's enqueue_args). N: the grid side (ND-range n x n rounded to 16x16 WGs; 0: one
 * item). SYNC: clFinish after each enqueue, else once at the end. */
static void run_case(const char *name, cl_kernel k, int args, int n, int sync) {
  double tot[RUNS], enq[RUNS], fin[RUNS];
  size_t side = n ? (size_t)((n + SIDE - 1) / SIDE * SIDE) : 1;
  size_t g[2] = {side, side}, l[2] = {n ? SIDE : 1, n ? SIDE : 1};
  cl_int ni = n;
  if (args == 2) {
    die(clSetKernelArg(k, 0, sizeof ga, &ga), "arg");
    die(clSetKernelArg(k, 1, sizeof gb, &gb), "arg");
    die(clSetKernelArg(k, 2, sizeof ni, &ni), "arg");
  }
  for (int r = -1; r < RUNS; r++) {
    double te = 0, tf = 0, t0 = now();
    for (int i = 0; i < ITERS; i++) {
      double a = now();
      if (args == 1 || args == 3 || args == 4) {
        cl_mem s = args == 1 && (i & 1) ? gb : ga;
        cl_mem d = args == 4 ? ga : args == 1 && (i & 1) ? ga : gb;
        die(clSetKernelArg(k, 0, sizeof s, &s), "arg");
        die(clSetKernelArg(k, 1, sizeof d, &d), "arg");
        die(clSetKernelArg(k, 2, sizeof ni, &ni), "arg");
      }
      die(clEnqueueNDRangeKernel(q, k, 2, NULL, g, l, 0, NULL, NULL), "enqueue");
      double b = now();
      te += b - a;
      if (sync) {
        die(clFinish(q), "clFinish");
        tf += now() - b;
      }
    }
    if (!sync) {
      double b = now();
      die(clFinish(q), "clFinish");
      tf += now() - b;
    }
    double t = now() - t0;
    if (r >= 0) {
      tot[r] = t / ITERS * 1e6;
      enq[r] = te / ITERS * 1e6;
      fin[r] = tf / ITERS * 1e6;
    }
  }
  printf("%-34s %5d %9.3f %9.3f %9.3f\n", name, n, median(tot, RUNS), median(enq, RUNS),
         median(fin, RUNS));
  fflush(stdout);
}

int main(int argc, char **argv) {
  /* A GPU on any platform (whose name holds ARGV[1]) first, then any device. */
  cl_device_id dev = probe_device(argc > 1 ? argv[1] : NULL, 1);
  char dn[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dn, dn, NULL);
  cl_int rc;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
  die(rc, "clCreateContext");
  cl_queue_properties prof[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue plain = clCreateCommandQueueWithProperties(ctx, dev, NULL, &rc);
  die(rc, "clCreateCommandQueue");
  cl_command_queue profq = clCreateCommandQueueWithProperties(ctx, dev, prof, &rc);
  die(rc, "clCreateCommandQueue profiling");
  q = plain;
  cl_program p = probe_build(ctx, dev, src, NULL);
  cl_kernel empty = clCreateKernel(p, "empty", &rc), empty3 = clCreateKernel(p, "empty3", &rc),
            jac = clCreateKernel(p, "jacobi", &rc), jro = clCreateKernel(p, "jacobi_ro", &rc),
            st1 = clCreateKernel(p, "store1", &rc);
  die(rc, "clCreateKernel");
  size_t bytes = 4096 * 4096 * sizeof(float), small = 64 * 64 * sizeof(float);
  ga = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
  gb = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
  cl_mem sa = clCreateBuffer(ctx, CL_MEM_READ_WRITE, small, NULL, &rc);
  cl_mem sb = clCreateBuffer(ctx, CL_MEM_READ_WRITE, small, NULL, &rc);
  die(rc, "clCreateBuffer");
  float zero = 0;
  die(clEnqueueFillBuffer(q, ga, &zero, sizeof zero, 0, bytes, 0, NULL, NULL), "fill");
  die(clEnqueueFillBuffer(q, gb, &zero, sizeof zero, 0, bytes, 0, NULL, NULL), "fill");
  die(clEnqueueFillBuffer(q, sa, &zero, sizeof zero, 0, small, 0, NULL, NULL), "fill");
  die(clEnqueueFillBuffer(q, sb, &zero, sizeof zero, 0, small, 0, NULL, NULL), "fill");
  die(clFinish(q), "clFinish");
  printf("# sync_parts: %s; medians of %d runs of %d iterations; us per iteration\n", dn, RUNS,
         ITERS);
  printf("%-34s %5s %9s %9s %9s\n", "case", "n", "total", "enqueue", "clFinish");
  for (int sync = 1; sync >= 0; sync--) {
    printf("# %s\n", sync ? "clFinish after each enqueue (validate-real's sync)"
                          : "one clFinish at the end (async)");
    run_case("empty, no args, one item", empty, 0, 0, sync);
    run_case("empty, no args, ND-range", empty, 0, 64, sync);
    run_case("empty3, args set once", empty3, 2, 64, sync);
    run_case("empty3, args set each (a/b)", empty3, 1, 64, sync);
    run_case("empty3, args set each (a, b fixed)", empty3, 3, 64, sync);
    run_case("empty3, args set each (a, a)", empty3, 4, 64, sync);
    run_case("store1, args set each (a/b)", st1, 1, 64, sync);
    run_case("jacobi_ro, args set each (a/b)", jro, 1, 64, sync);
    run_case("jacobi, args set once", jac, 2, 64, sync);
    run_case("jacobi, args set each (a/b)", jac, 1, 64, sync);
    run_case("jacobi, args set each (a/b)", jac, 1, 256, sync);
    run_case("jacobi, args set each (a/b)", jac, 1, 1024, sync);
    run_case("empty3, args set each (a/b)", empty3, 1, 1024, sync);
  }
  /* calibrate's and validate-real's queue has profiling enabled (for the
   * kernels' spans), and validate-real's grids are n x n. */
  q = profq;
  printf("# a queue with CL_QUEUE_PROFILING_ENABLE (as calibrate's), clFinish after each\n");
  run_case("empty, no args, one item", empty, 0, 0, 1);
  run_case("empty3, args set each (a/b)", empty3, 1, 64, 1);
  run_case("jacobi, args set once", jac, 2, 64, 1);
  run_case("jacobi, args set each (a/b)", jac, 1, 64, 1);
  run_case("jacobi, args set each (a/b)", jac, 1, 256, 1);
  run_case("jacobi, args set each (a/b)", jac, 1, 1024, 1);
  ga = sa, gb = sb;
  run_case("jacobi, 64x64 grids, args each (a/b)", jac, 1, 64, 1);
  q = plain;
  printf("# the plain queue again, 64x64 grids, clFinish after each\n");
  run_case("jacobi, 64x64 grids, args each (a/b)", jac, 1, 64, 1);
  return 0;
}
