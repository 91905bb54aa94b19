/* Whether a discrete kernel's grids as sub-buffers of one buffer cost
 * anything against two buffers of their own (issue 28: since calibrate
 * keeps the Jacobi grids back to back in one buffer, grids_for, the H200's
 * one-wave Jacobi spans, START..END, came out 0.7 - 0.8 us longer than on
 * the rounds before, the empty kernel's not, and calibrate's `first_wave`
 * with them). calibrate's discrete Jacobi kernel (a copy of
 * tools/calib/calib_ocl.c's `jacobi`: 16 x 16 WGs), on a profiling queue,
 * both layouts in one process, alternating three times: per grid side, the
 * kernel's START..END (median of 51, each enqueued and waited for), its
 * host round trip (the same runs, enqueue to clFinish's return) and the
 * host's time per kernel of 64 enqueued back to back and one clFinish
 * (median of 11); the empty kernel's span beside them.
 *   gcc -O2 -std=c11 tools/calib/probes/subbuf.c -lOpenCL -o subbuf && ./subbuf */
#define _POSIX_C_SOURCE 199309L
#define CL_TARGET_OPENCL_VERSION 300
#define PROBE_NAME "subbuf"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../probe_cl.h"

enum { MAXN = 1024, SPANS = 51, B2B = 64, B2B_REPS = 11 };

static const char *src =
    "__kernel void empty(void) {}\n"
    CALIB_JACOBI_CL;

static double span_of(cl_event ev) {
  cl_ulong a = 0, b = 0;
  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof a, &a, NULL);
  clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof b, &b, NULL);
  return b > a ? (double)(b - a) * 1e-9 : 0;
}

/* Kernel K over an N x N grid (N 0: the empty kernel, one item): its
 * median span and round trip, and the host's time per kernel back to
 * back, seconds. */
static void measure(cl_command_queue q, cl_kernel k, cl_mem a, cl_mem b, int n, double *span,
                    double *rt, double *b2b) {
  size_t side = n ? (size_t)(n + 15) / 16 * 16 : 1, g[2] = {side, side},
         l[2] = {n ? 16 : 1, n ? 16 : 1};
  cl_uint dims = n ? 2 : 1;
  double s[SPANS], r[SPANS], bb[B2B_REPS];
  for (int i = -3; i < SPANS; i++) { /* three warm-ups */
    if (n) probe_jacobi_args(k, a, b, n, i);
    cl_event ev;
    double t0 = now();
    die(clEnqueueNDRangeKernel(q, k, dims, NULL, g, l, 0, NULL, &ev), "enqueue");
    die(clFinish(q), "clFinish");
    double t = now() - t0;
    if (i >= 0) s[i] = span_of(ev), r[i] = t;
    clReleaseEvent(ev);
  }
  for (int rep = -1; rep < B2B_REPS; rep++) {
    double t0 = now();
    for (int i = 0; i < B2B; i++) {
      if (n) probe_jacobi_args(k, a, b, n, i);
      die(clEnqueueNDRangeKernel(q, k, dims, NULL, g, l, 0, NULL, NULL), "enqueue");
    }
    die(clFinish(q), "clFinish");
    if (rep >= 0) bb[rep] = (now() - t0) / B2B;
  }
  *span = median(s, SPANS);
  *rt = median(r, SPANS);
  *b2b = median(bb, B2B_REPS);
}

int main(void) {
  cl_device_id dev = probe_device(NULL, 1); /* else any device: PoCL's CPU, to try it */
  char name[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  cl_uint align_bits = 0;
  clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
  cl_int rc;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
  die(rc, "clCreateContext");
  cl_queue_properties qp[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, qp, &rc);
  die(rc, "clCreateCommandQueue");
  cl_program p = probe_build(ctx, dev, src, NULL);
  cl_kernel kj = clCreateKernel(p, "jacobi", &rc), ke = clCreateKernel(p, "empty", &rc);
  die(rc, "clCreateKernel");
  size_t bytes = sizeof(float) * MAXN * MAXN, align = align_bits / 8 > 128 ? align_bits / 8 : 128;
  size_t off = (bytes + align - 1) / align * align;
  float *zero = calloc((size_t)MAXN * MAXN, sizeof *zero);
  cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zero, &rc);
  cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, zero, &rc);
  cl_mem both = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 2 * off, NULL, &rc);
  die(rc, "clCreateBuffer");
  die(clEnqueueFillBuffer(q, both, &(cl_float){0}, sizeof(cl_float), 0, 2 * off, 0, NULL, NULL),
      "fill");
  cl_buffer_region ra = {0, bytes}, rb = {off, bytes};
  cl_mem sa = clCreateSubBuffer(both, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &ra, &rc);
  die(rc, "clCreateSubBuffer");
  cl_mem sb = clCreateSubBuffer(both, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rb, &rc);
  die(rc, "clCreateSubBuffer");
  die(clFinish(q), "clFinish");
  static const int sides[] = {64, 256, 512, 1024};
  for (int round = 0; round < 3; round++)
    for (int lay = 0; lay < 2; lay++) {
      double span, rt, b2b;
      measure(q, ke, NULL, NULL, 0, &span, &rt, &b2b);
      printf("subbuf: %s, round %d, %s: empty span %.2f us, round trip %.2f, back to back %.2f\n",
             name, round, lay ? "sub-buffers" : "two buffers", span * 1e6, rt * 1e6, b2b * 1e6);
      for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        measure(q, kj, lay ? sa : a, lay ? sb : b, sides[i], &span, &rt, &b2b);
        printf("subbuf: %s, round %d, %s, jacobi %d^2: span %.2f us, round trip %.2f, back to back "
               "%.2f\n", name, round, lay ? "sub-buffers" : "two buffers", sides[i], span * 1e6,
               rt * 1e6, b2b * 1e6);
      }
    }
  return 0;
}
