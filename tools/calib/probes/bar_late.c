/* What a device-wide barrier costs after its last arrival when most WGs
 * arrived early (issue 28, models/gpu.h KS_BARRIER: the arrivals are
 * served in turn, so the last K of N WGs pay B(K), the table's barrier of
 * K arriving at once, not B(N)). A persistent kernel of N WGs loops: the
 * first K WGs wait D ns on the SM's %globaltimer (a delay, no memory),
 * then every WG meets calibrate's barrier (an atomic arrive on one
 * counter, a volatile poll of a generation word). Per process and case,
 * the time per iteration as the slope between runs of 50 and 500
 * iterations (median of 5 each); minus D it is what the barrier costs
 * after the last arrival. K = 0 (no delay) is the barrier of N at once.
 * NVIDIA only (inline PTX).
 *   gcc -O2 -std=c11 tools/calib/probes/bar_late.c -lOpenCL -o bar_late && ./bar_late */
#define _POSIX_C_SOURCE 199309L
#define CL_TARGET_OPENCL_VERSION 300
#define PROBE_NAME "bar_late"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../probe_cl.h"

enum { WG = 256, REPS = 5 };

static const char *src =
    "ulong gtime(void) { ulong t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return t; }\n"
    "__kernel void bl(__global volatile int *bar, int iters, int late, ulong delay) {\n"
    "  int G = get_num_groups(0), w = get_group_id(0), l = get_local_id(0);\n"
    "  for (int it = 0; it < iters; it++) {\n"
    "    if (w < late && l == 0) { ulong t0 = gtime(); while (gtime() - t0 < delay) ; }\n"
    "    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "    if (l == 0) {\n"
    "      int gen = bar[1];\n"
    "      mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "      if (atomic_inc(&bar[0]) == G - 1) { atomic_xchg(&bar[0], 0); atomic_inc(&bar[1]); }\n"
    "      else while (bar[1] == gen) ;\n"
    "      mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "    }\n"
    "    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "}\n";

static double slope_of(cl_command_queue q, cl_kernel k, size_t nwg) {
  size_t g = nwg * WG, l = WG;
  const int iters[2] = {50, 500};
  double med[2];
  for (int s = 0; s < 2; s++) {
    double t[REPS + 1];
    for (int r = 0; r <= REPS; r++) { /* the first a warm-up */
      cl_int it = iters[s];
      clSetKernelArg(k, 1, sizeof it, &it);
      double t0 = now();
      die(clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL), "enqueue");
      die(clFinish(q), "clFinish");
      t[r] = now() - t0;
    }
    med[s] = median(t + 1, REPS);
  }
  return (med[1] - med[0]) / (iters[1] - iters[0]);
}

int main(void) {
  cl_device_id dev = probe_device(NULL, 0);
  cl_uint cus = 0;
  char name[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  cl_int rc;
  cl_context ctx;
  cl_command_queue q;
  cl_kernel k = probe_kernel(dev, src, "bl", "inline PTX is NVIDIA's", &ctx, &q);
  int zero[2] = {0, 0};
  cl_mem bar = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, zero, &rc);
  die(rc, "clCreateBuffer");
  clSetKernelArg(k, 0, sizeof bar, &bar);
  static const int per_cu[] = {1, 8};
  static const int lates[] = {0, 1, 16, 132, 528};
  const cl_ulong delay = 5000; /* ns */
  for (size_t a = 0; a < sizeof per_cu / sizeof per_cu[0]; a++) {
    size_t nwg = (size_t)cus * (size_t)per_cu[a];
    for (size_t b = 0; b < sizeof lates / sizeof lates[0]; b++) {
      cl_int late = lates[b];
      if ((size_t)late >= nwg) continue;
      cl_ulong d = late ? delay : 0;
      clSetKernelArg(k, 2, sizeof late, &late);
      clSetKernelArg(k, 3, sizeof d, &d);
      double s = slope_of(q, k, nwg);
      printf("bar_late: %s, %zu WGs, %d late by %.1f us: %.3f us an iteration, %.3f us after the "
             "delay\n", name, nwg, late, d * 1e-3, s * 1e6, s * 1e6 - d * 1e-3);
    }
  }
  return 0;
}
