/* What the standalone OpenCL probes share (probes/sync_parts.c,
 * wg_place.c, subbuf.c, bar_late.c, host_state.c, loop_bar.c), as
 * probe.cuh for the CUDA ones: a check that reports
 * the failed call under the probe's name and exits 1, a monotonic host
 * clock, an ascending order of doubles for qsort and a median, the device
 * (a GPU first) and a program built for it, the Jacobi kernel calibrate
 * times (jacobi_cl.h) and its arguments, a kernel with its context and
 * queue (probe_kernel). A probe defines
 * PROBE_NAME and CL_TARGET_OPENCL_VERSION first. */
#ifndef TRIGSIM_PROBE_CL_H
#define TRIGSIM_PROBE_CL_H

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jacobi_cl.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void die(cl_int rc, const char *what) {
  if (rc != CL_SUCCESS) {
    fprintf(stderr, PROBE_NAME ": %s: OpenCL error %d\n", what, rc);
    exit(1);
  }
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of the N values V (sorted in place). */
static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The first GPU over the platforms whose name holds PLATFORM (NULL: any),
 * else, where ANY, the first device of any kind there (PoCL's CPU); exits
 * 1 with a message when there is none. */
static cl_device_id probe_device(const char *platform, int any) {
  cl_platform_id ps[16];
  cl_uint np = 0;
  die(clGetPlatformIDs(16, ps, &np), "clGetPlatformIDs");
  cl_device_id dev = NULL;
  for (int pass = 0; pass < (any ? 2 : 1) && !dev; pass++)
    for (cl_uint i = 0; i < np && !dev; i++) {
      char pn[256] = "";
      clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof pn, pn, NULL);
      if (platform && !strstr(pn, platform)) continue;
      if (clGetDeviceIDs(ps[i], pass ? CL_DEVICE_TYPE_ALL : CL_DEVICE_TYPE_GPU, 1, &dev, NULL) !=
          CL_SUCCESS)
        dev = NULL;
    }
  if (!dev) {
    fprintf(stderr, PROBE_NAME ": expected %s, got none\n", any ? "an OpenCL device" : "a GPU");
    exit(1);
  }
  return dev;
}

/* Kernel K's (CALIB_JACOBI_CL's) arguments for step I over an N x N grid:
 * grids A, B in turn. */
static inline void probe_jacobi_args(cl_kernel k, cl_mem a, cl_mem b, int n, int i) {
  cl_mem s = (i & 1) ? b : a, d = (i & 1) ? a : b;
  cl_int ni = n;
  die(clSetKernelArg(k, 0, sizeof s, &s), "clSetKernelArg");
  die(clSetKernelArg(k, 1, sizeof d, &d), "clSetKernelArg");
  die(clSetKernelArg(k, 2, sizeof ni, &ni), "clSetKernelArg");
}

/* SRC built for DEV in CTX; exits 1 with the build log (and HINT, may be
 * NULL) when it does not build. */
static cl_program probe_build(cl_context ctx, cl_device_id dev, const char *src, const char *hint) {
  cl_int rc;
  cl_program p = clCreateProgramWithSource(ctx, 1, &src, NULL, &rc);
  die(rc, "clCreateProgramWithSource");
  if (clBuildProgram(p, 1, &dev, "", NULL, NULL) != CL_SUCCESS) {
    char log[8192] = "";
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    fprintf(stderr, PROBE_NAME ": the kernels do not build%s%s%s:\n%s\n", hint ? " (" : "",
            hint ? hint : "", hint ? ")" : "", log);
    exit(1);
  }
  return p;
}

/* KERNEL of SRC built for DEV, in a new context (*CTX) with a plain queue
 * (*Q); exits 1 with the build log (and HINT) when it does not build. */
static inline cl_kernel probe_kernel(cl_device_id dev, const char *src, const char *kernel,
                                     const char *hint, cl_context *ctx, cl_command_queue *q) {
  cl_int rc;
  *ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
  die(rc, "clCreateContext");
  *q = clCreateCommandQueueWithProperties(*ctx, dev, NULL, &rc);
  die(rc, "clCreateCommandQueue");
  cl_kernel k = clCreateKernel(probe_build(*ctx, dev, src, hint), kernel, &rc);
  die(rc, "clCreateKernel");
  return k;
}

#endif
