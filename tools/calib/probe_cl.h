/* What the standalone OpenCL probes share (probes/sync_parts.c,
 * probes/wg_place.c), as probe.cuh for the CUDA ones: a check that reports
 * the failed call under the probe's name and exits 1, a monotonic host
 * clock, and an ascending order of doubles for qsort. A probe defines
 * PROBE_NAME and CL_TARGET_OPENCL_VERSION first. */
#ifndef TRIGSIM_PROBE_CL_H
#define TRIGSIM_PROBE_CL_H

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

#endif
