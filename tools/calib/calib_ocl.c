/* The device side of calibration (calib.h): real OpenCL kernels dispatched
 * on a device (PoCL on a CPU, or a GPU), timed with the host's monotonic
 * clock and with OpenCL profiling events. Built only with TRIGSIM_HAVE_OPENCL;
 * otherwise every entry says that the program was built without OpenCL. */
#include "calib.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

#ifndef TRIGSIM_HAVE_OPENCL

bool calib_ocl_available(void) { return false; }
struct calib_dev *calib_dev_open(int index, char **err) {
  *err = g_strdup("trigsim was built without OpenCL (install ocl-icd-opencl-dev and "
                  "opencl-c-headers, then reconfigure): no device can be measured");
  return NULL;
}
void calib_dev_close(struct calib_dev *d) {}
bool calib_dev_measure(struct calib_dev *d, bool quick, struct calib_meas *m, char **err) {
  return calib_dev_open(0, err) != NULL;
}
bool calib_dev_jacobi_loop(struct calib_dev *d, int64_t n, int iters, bool sync, int reps,
                           double *per_iter_s, double *spread, char **err) {
  return calib_dev_open(0, err) != NULL;
}
bool calib_dev_jacobi_exec(struct calib_dev *d, int64_t n, int reps, struct calib_stat *exec,
                           char **err) {
  return calib_dev_open(0, err) != NULL;
}
bool calib_dev_stream(struct calib_dev *d, int64_t bytes, int64_t wgs, int reps, double *bps,
                      char **err) {
  return calib_dev_open(0, err) != NULL;
}
bool calib_dev_barrier(struct calib_dev *d, int64_t wgs, int reps, double *per_s, bool *resident,
                       char **err) {
  return calib_dev_open(0, err) != NULL;
}
bool calib_dev_persist(struct calib_dev *d, int64_t n, int64_t wgs, int iters, int reps,
                       double *per_iter_s, double *spread, bool *resident, char **err) {
  return calib_dev_open(0, err) != NULL;
}
bool calib_dev_resident(struct calib_dev *d, int64_t wgs, bool *resident, char **err) {
  return calib_dev_open(0, err) != NULL;
}
bool calib_dev_cg_loop(struct calib_dev *d, int64_t side, int iters, int reps, double *per_iter_s,
                       double *spread, char **err) {
  return calib_dev_open(0, err) != NULL;
}
bool calib_dev_cg_kernel(struct calib_dev *d, int64_t side, int which, int pass2, int reps,
                         double *b2b_s, double *exec_s, char **err) {
  return calib_dev_open(0, err) != NULL;
}
const char *calib_dev_name(const struct calib_dev *d) { return ""; }

#else

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <time.h>

bool calib_ocl_available(void) { return true; }

static const char kernel_src[] =
    "__kernel void empty(void) {}\n"
    /* Streaming: PASSES grid-stride passes b = a + p over N floats. */
    "__kernel void stream(__global const float *a, __global float *b, int n, int passes) {\n"
    "  int g = get_global_id(0), G = get_global_size(0);\n"
    "  for (int p = 0; p < passes; p++)\n"
    "    for (int i = g; i < n; i += G) b[i] = a[i] + (float)p;\n"
    "}\n"
    /* Device-wide barrier of NWG WGs: bar[0] counts arrivals, bar[1] is the
     * generation; a WG spinning past SPIN polls flags err[0] (its WGs were
     * not all resident) and goes on. */
    "void gbar(__global volatile int *bar, int nwg, __global volatile int *err, int spin) {\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_local_id(0) == 0) {\n"
    "    int gen = bar[1];\n"
    "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "    if (atomic_inc(&bar[0]) == nwg - 1) {\n"
    "      atomic_xchg(&bar[0], 0);\n"
    "      atomic_inc(&bar[1]);\n"
    "    } else {\n"
    "      int s = 0;\n"
    "      while (bar[1] == gen && !err[0]) if (++s > spin) { err[0] = 1; break; }\n"
    "    }\n"
    "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  }\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "}\n"
    "__kernel void barriers(__global volatile int *bar, __global volatile int *err, int nb,\n"
    "                       int spin) {\n"
    "  for (int i = 0; i < nb; i++) gbar(bar, get_num_groups(0), err, spin);\n"
    "}\n"
    /* Persistent Jacobi: the WGs loop over 16x16 tiles (grid-stride), one
     * device-wide barrier per iteration. */
    "__kernel void jacobi_persist(__global float *a, __global float *b, int n, int iters,\n"
    "                             __global volatile int *bar, __global volatile int *err,\n"
    "                             int spin) {\n"
    "  int G = get_num_groups(0), w = get_group_id(0), l = get_local_id(0);\n"
    "  int tx = (n + 15) / 16, tiles = tx * tx;\n"
    "  for (int it = 0; it < iters; it++) {\n"
    "    __global const float *s = (it & 1) ? b : a;\n"
    "    __global float *d = (it & 1) ? a : b;\n"
    "    for (int t = w; t < tiles; t += G) {\n"
    "      int x = (t % tx) * 16 + l % 16, y = (t / tx) * 16 + l / 16;\n"
    "      if (x >= n || y >= n) continue;\n"
    "      int i = y * n + x;\n"
    "      if (x == 0 || y == 0 || x == n - 1 || y == n - 1) d[i] = s[i];\n"
    "      else d[i] = 0.25f * (s[i - 1] + s[i + 1] + s[i - n] + s[i + n]);\n"
    "    }\n"
    "    gbar(bar, G, err, spin);\n"
    "  }\n"
    "}\n"
    /* CG-like kernels on a CSR matrix. */
    "__kernel void spmv(__global const int *rp, __global const int *col,\n"
    "                   __global const float *val, __global const float *x,\n"
    "                   __global float *y, int rows) {\n"
    "  int r = get_global_id(0);\n"
    "  if (r >= rows) return;\n"
    "  float s = 0;\n"
    "  for (int j = rp[r]; j < rp[r + 1]; j++) s += val[j] * x[col[j]];\n"
    "  y[r] = s;\n"
    "}\n"
    "__kernel void axpy(__global const float *x, __global float *y, float a, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) y[i] += a * x[i];\n"
    "}\n"
    /* Dot product: per-WG partials; the last WG to finish (an atomic count)
     * sums them when PASS2 (the second pass). */
    "__kernel void dotp(__global const float *a, __global const float *b,\n"
    "                  __global volatile float *part, __global volatile int *cnt,\n"
    "                  __global float *out, int n, int pass2) {\n"
    "  __local float s[256];\n"
    "  __local int last;\n"
    "  int i = get_global_id(0), l = get_local_id(0), ng = get_num_groups(0);\n"
    "  s[l] = i < n ? a[i] * b[i] : 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (int h = 128; h > 0; h >>= 1) {\n"
    "    if (l < h) s[l] += s[l + h];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) {\n"
    "    part[get_group_id(0)] = s[0];\n"
    "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "    last = pass2 && atomic_inc(cnt) == ng - 1;\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (!last) return;\n"
    "  float t = 0;\n"
    "  for (int j = l; j < ng; j += 256) t += part[j];\n"
    "  s[l] = t;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (int h = 128; h > 0; h >>= 1) {\n"
    "    if (l < h) s[l] += s[l + h];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) { out[0] = s[0]; cnt[0] = 0; }\n"
    "}\n"
    "__kernel void jacobi(__global const float *a, __global float *b, int n) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  if (x >= n || y >= n) return;\n"
    "  int i = y * n + x;\n"
    "  if (x == 0 || y == 0 || x == n - 1 || y == n - 1) { b[i] = a[i]; return; }\n"
    "  b[i] = 0.25f * (a[i - 1] + a[i + 1] + a[i - n] + a[i + n]);\n"
    "}\n";

struct calib_dev {
  cl_platform_id platform;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel empty, jacobi, stream, barriers, persist, spmv, axpy, dot;
  cl_mem a, b;       /* Jacobi grids, allocated for the largest grid used */
  size_t grid_bytes;
  cl_mem sa, sb;     /* streaming buffers */
  size_t stream_bytes;
  cl_mem bar, err;   /* barrier counter and generation; the not-resident flag */
  /* CG-like loop: CSR 5-point Poisson matrix of side cg_side, vectors. */
  int64_t cg_side;
  cl_mem rp, col, val, vx, vp, vq, vr, part, cnt, out;
  char name[300];
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool cl_ok(cl_int rc, const char *what, char **err) {
  if (rc == CL_SUCCESS) return true;
  if (!*err) *err = g_strdup_printf("calibrate: %s: expected CL_SUCCESS, got OpenCL error %d", what, rc);
  return false;
}

static void dev_str(cl_device_id d, cl_device_info what, char *out, size_t n) {
  out[0] = 0;
  if (clGetDeviceInfo(d, what, n, out, NULL) != CL_SUCCESS) out[0] = 0;
  out[n - 1] = 0;
  g_strstrip(out);
}

struct calib_dev *calib_dev_open(int index, char **err) {
  cl_uint np = 0;
  if (clGetPlatformIDs(0, NULL, &np) != CL_SUCCESS || np == 0) {
    *err = g_strdup("calibrate: expected an OpenCL platform (is an ICD such as pocl-opencl-icd "
                    "installed?), got none");
    return NULL;
  }
  cl_platform_id *plats = g_new(cl_platform_id, np);
  clGetPlatformIDs(np, plats, NULL);
  int seen = 0;
  struct calib_dev *d = NULL;
  for (cl_uint p = 0; p < np && !d; p++) {
    cl_uint nd = 0;
    if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS) continue;
    cl_device_id *devs = g_new(cl_device_id, nd);
    clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
    for (cl_uint k = 0; k < nd && !d; k++) {
      cl_device_type type = 0;
      clGetDeviceInfo(devs[k], CL_DEVICE_TYPE, sizeof type, &type, NULL);
      if (index == seen + (int)k || (index < 0 && (type & CL_DEVICE_TYPE_GPU))) {
        d = g_new0(struct calib_dev, 1);
        d->platform = plats[p];
        d->dev = devs[k];
      }
    }
    seen += (int)nd;
    g_free(devs);
  }
  if (!d && index < 0 && seen > 0) {
    g_free(plats);
    return calib_dev_open(0, err); /* no GPU: the first device */
  }
  g_free(plats);
  if (!d) {
    *err = g_strdup_printf("--device: expected a device index below %d, got %d", seen, index);
    return NULL;
  }
  cl_int rc;
  d->ctx = clCreateContext(NULL, 1, &d->dev, NULL, NULL, &rc);
  if (cl_ok(rc, "clCreateContext", err))
    d->q = clCreateCommandQueue(d->ctx, d->dev, CL_QUEUE_PROFILING_ENABLE, &rc);
  if (!*err && cl_ok(rc, "clCreateCommandQueue", err)) {
    const char *src = kernel_src;
    d->prog = clCreateProgramWithSource(d->ctx, 1, &src, NULL, &rc);
  }
  if (!*err && cl_ok(rc, "clCreateProgramWithSource", err))
    cl_ok(clBuildProgram(d->prog, 1, &d->dev, "", NULL, NULL), "clBuildProgram", err);
  if (*err) {
    char log[4096] = "";
    clGetProgramBuildInfo(d->prog, d->dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    log[sizeof log - 1] = 0;
    fprintf(stderr, "%s\n", log);
  }
  cl_kernel *ks[] = {&d->empty, &d->jacobi, &d->stream, &d->barriers, &d->persist,
                     &d->spmv, &d->axpy, &d->dot};
  const char *names[] = {"empty", "jacobi", "stream", "barriers", "jacobi_persist",
                         "spmv", "axpy", "dotp"};
  for (size_t i = 0; !*err && i < G_N_ELEMENTS(ks); i++) {
    *ks[i] = clCreateKernel(d->prog, names[i], &rc);
    cl_ok(rc, names[i], err);
  }
  if (!*err) {
    int zero[4] = {0, 0, 0, 0};
    d->bar = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, zero, &rc);
    if (cl_ok(rc, "clCreateBuffer", err))
      d->err = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, zero, &rc);
    if (!*err) cl_ok(rc, "clCreateBuffer", err);
  }
  if (*err) {
    calib_dev_close(d);
    return NULL;
  }
  char dn[128], dv[128];
  dev_str(d->dev, CL_DEVICE_NAME, dn, sizeof dn);
  dev_str(d->dev, CL_DRIVER_VERSION, dv, sizeof dv);
  g_snprintf(d->name, sizeof d->name, "%s, driver %s", dn, dv);
  return d;
}

void calib_dev_close(struct calib_dev *d) {
  if (!d) return;
  if (d->a) clReleaseMemObject(d->a);
  if (d->b) clReleaseMemObject(d->b);
  cl_mem ms[] = {d->sa, d->sb, d->bar, d->err, d->rp, d->col, d->val, d->vx, d->vp, d->vq,
                 d->vr, d->part, d->cnt, d->out};
  for (size_t i = 0; i < G_N_ELEMENTS(ms); i++)
    if (ms[i]) clReleaseMemObject(ms[i]);
  cl_kernel ks[] = {d->empty, d->jacobi, d->stream, d->barriers, d->persist, d->spmv, d->axpy, d->dot};
  for (size_t i = 0; i < G_N_ELEMENTS(ks); i++)
    if (ks[i]) clReleaseKernel(ks[i]);
  if (d->prog) clReleaseProgram(d->prog);
  if (d->q) clReleaseCommandQueue(d->q);
  if (d->ctx) clReleaseContext(d->ctx);
  g_free(d);
}

const char *calib_dev_name(const struct calib_dev *d) { return d->name; }

/* Makes the two grids hold at least N x N floats (zero-filled). */
static bool grids_for(struct calib_dev *d, int64_t n, char **err) {
  size_t bytes = (size_t)n * (size_t)n * sizeof(float);
  if (bytes <= d->grid_bytes) return true;
  if (d->a) clReleaseMemObject(d->a);
  if (d->b) clReleaseMemObject(d->b);
  d->a = d->b = NULL;
  d->grid_bytes = 0;
  cl_int rc;
  d->a = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
  if (!cl_ok(rc, "clCreateBuffer", err)) return false;
  d->b = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
  if (!cl_ok(rc, "clCreateBuffer", err)) return false;
  float zero = 0;
  if (!cl_ok(clEnqueueFillBuffer(d->q, d->a, &zero, sizeof zero, 0, bytes, 0, NULL, NULL),
             "clEnqueueFillBuffer", err) ||
      !cl_ok(clEnqueueFillBuffer(d->q, d->b, &zero, sizeof zero, 0, bytes, 0, NULL, NULL),
             "clEnqueueFillBuffer", err) ||
      !cl_ok(clFinish(d->q), "clFinish", err))
    return false;
  d->grid_bytes = bytes;
  return true;
}

static bool enqueue_empty(struct calib_dev *d, cl_event *ev, char **err) {
  size_t g = 1, l = 1;
  return cl_ok(clEnqueueNDRangeKernel(d->q, d->empty, 1, NULL, &g, &l, 0, NULL, ev),
               "clEnqueueNDRangeKernel empty", err);
}

/* Enqueues one Jacobi step on an N x N grid, reading grid PARITY. */
static bool enqueue_jacobi(struct calib_dev *d, int64_t n, int parity, cl_event *ev, char **err) {
  cl_mem src = parity ? d->b : d->a, dst = parity ? d->a : d->b;
  cl_int ni = (cl_int)n;
  size_t side = (size_t)((n + KLOOP_WG_SIDE - 1) / KLOOP_WG_SIDE * KLOOP_WG_SIDE);
  size_t g[2] = {side, side}, l[2] = {KLOOP_WG_SIDE, KLOOP_WG_SIDE};
  return cl_ok(clSetKernelArg(d->jacobi, 0, sizeof src, &src), "clSetKernelArg", err) &&
         cl_ok(clSetKernelArg(d->jacobi, 1, sizeof dst, &dst), "clSetKernelArg", err) &&
         cl_ok(clSetKernelArg(d->jacobi, 2, sizeof ni, &ni), "clSetKernelArg", err) &&
         cl_ok(clEnqueueNDRangeKernel(d->q, d->jacobi, 2, NULL, g, l, 0, NULL, ev),
               "clEnqueueNDRangeKernel jacobi", err);
}

static double prof_s(cl_event ev, cl_profiling_info from, cl_profiling_info to) {
  cl_ulong a = 0, b = 0;
  clGetEventProfilingInfo(ev, from, sizeof a, &a, NULL);
  clGetEventProfilingInfo(ev, to, sizeof b, &b, NULL);
  return b > a ? (double)(b - a) * 1e-9 : 0;
}

bool calib_dev_jacobi_exec(struct calib_dev *d, int64_t n, int reps, struct calib_stat *exec,
                           char **err) {
  if (!grids_for(d, n, err)) return false;
  double *x = g_new(double, (size_t)reps);
  bool ok = true;
  for (int r = -2; ok && r < reps; r++) { /* two warm-ups */
    cl_event ev;
    ok = enqueue_jacobi(d, n, r & 1, &ev, err) && cl_ok(clFinish(d->q), "clFinish", err);
    if (!ok) break;
    if (r >= 0) x[r] = prof_s(ev, CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END);
    clReleaseEvent(ev);
  }
  if (ok) *exec = calib_stat_of(x, (size_t)reps);
  g_free(x);
  return ok;
}

bool calib_dev_jacobi_loop(struct calib_dev *d, int64_t n, int iters, bool sync, int reps,
                           double *per_iter_s, double *spread, char **err) {
  if (!grids_for(d, n, err)) return false;
  double *x = g_new(double, (size_t)reps);
  bool ok = true;
  for (int r = -1; ok && r < reps; r++) { /* one warm-up run */
    double t = now_s();
    for (int i = 0; ok && i < iters; i++) {
      ok = enqueue_jacobi(d, n, i & 1, NULL, err);
      if (ok && sync) ok = cl_ok(clFinish(d->q), "clFinish", err);
    }
    if (ok && !sync) ok = cl_ok(clFinish(d->q), "clFinish", err);
    if (ok && r >= 0) x[r] = (now_s() - t) / iters;
  }
  if (ok) {
    struct calib_stat s = calib_stat_of(x, (size_t)reps);
    *per_iter_s = s.median_s;
    *spread = s.spread;
  }
  g_free(x);
  return ok;
}


/* ---- occupancy, caches, barriers, persistent loops, CG-like kernels ---- */

#define WG_ITEMS 256
#define SPIN_LIMIT (1 << 20)

static bool set_args(cl_kernel k, char **err, int n, const size_t *sizes, const void **vals) {
  for (int i = 0; i < n; i++)
    if (!cl_ok(clSetKernelArg(k, (cl_uint)i, sizes[i], vals[i]), "clSetKernelArg", err))
      return false;
  return true;
}

/* Runs 1D kernel K on WGS WGs of WG_ITEMS, waits; *EXEC_S its START..END
 * span, *WALL_S host wall time of enqueue + clFinish (either may be NULL). */
static bool run_1d(struct calib_dev *d, cl_kernel k, size_t wgs, double *exec_s, double *wall_s,
                   char **err) {
  size_t g = wgs * WG_ITEMS, l = WG_ITEMS;
  cl_event ev;
  double t = now_s();
  if (!cl_ok(clEnqueueNDRangeKernel(d->q, k, 1, NULL, &g, &l, 0, NULL, &ev),
             "clEnqueueNDRangeKernel", err))
    return false;
  bool ok = cl_ok(clFinish(d->q), "clFinish", err);
  if (wall_s) *wall_s = now_s() - t;
  if (ok && exec_s) *exec_s = prof_s(ev, CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END);
  clReleaseEvent(ev);
  return ok;
}

/* Whether a barrier kernel found its WGs resident (clears the flag). */
static bool resident_check(struct calib_dev *d, bool *resident, char **err) {
  int e[4] = {0, 0, 0, 0}, zero[4] = {0, 0, 0, 0};
  if (!cl_ok(clEnqueueReadBuffer(d->q, d->err, CL_TRUE, 0, sizeof e, e, 0, NULL, NULL),
             "clEnqueueReadBuffer", err))
    return false;
  *resident = e[0] == 0;
  return e[0] == 0 ||
         (cl_ok(clEnqueueWriteBuffer(d->q, d->err, CL_TRUE, 0, sizeof zero, zero, 0, NULL, NULL),
                "clEnqueueWriteBuffer", err) &&
          cl_ok(clEnqueueWriteBuffer(d->q, d->bar, CL_TRUE, 0, sizeof zero, zero, 0, NULL, NULL),
                "clEnqueueWriteBuffer", err));
}

bool calib_dev_stream(struct calib_dev *d, int64_t bytes, int64_t wgs, int reps, double *bps,
                      char **err) {
  size_t half = (size_t)bytes / 2 / sizeof(float) * sizeof(float);
  if (half > d->stream_bytes) {
    if (d->sa) clReleaseMemObject(d->sa);
    if (d->sb) clReleaseMemObject(d->sb);
    d->sa = d->sb = NULL;
    d->stream_bytes = 0;
    cl_int rc;
    d->sa = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, half, NULL, &rc);
    if (!cl_ok(rc, "clCreateBuffer", err)) return false;
    d->sb = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, half, NULL, &rc);
    if (!cl_ok(rc, "clCreateBuffer", err)) return false;
    float zero = 0;
    if (!cl_ok(clEnqueueFillBuffer(d->q, d->sa, &zero, sizeof zero, 0, half, 0, NULL, NULL),
               "clEnqueueFillBuffer", err) ||
        !cl_ok(clEnqueueFillBuffer(d->q, d->sb, &zero, sizeof zero, 0, half, 0, NULL, NULL),
               "clEnqueueFillBuffer", err))
      return false;
    d->stream_bytes = half;
  }
  cl_int n = (cl_int)(half / sizeof(float));
  /* Passes: 1 and 1 + P, P chosen so that P passes move >= 256 MiB. */
  cl_int lo = 1, hi = 1 + (cl_int)MAX(2, MIN(64, ((int64_t)256 << 20) / MAX(1, 2 * (int64_t)half)));
  double *x = g_new(double, (size_t)reps);
  bool ok = true;
  for (int r = -1; ok && r < reps; r++) {
    double t[2];
    for (int j = 0; ok && j < 2; j++) {
      cl_int passes = j ? hi : lo;
      const size_t sz[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof n, sizeof passes};
      const void *v[] = {&d->sa, &d->sb, &n, &passes};
      ok = set_args(d->stream, err, 4, sz, v) && run_1d(d, d->stream, (size_t)wgs, &t[j], NULL, err);
    }
    if (ok && r >= 0) x[r] = t[1] > t[0] ? (double)(hi - lo) * 2.0 * (double)half * 8 / (t[1] - t[0]) : 0;
  }
  if (ok) *bps = calib_stat_of(x, (size_t)reps).median_s;
  g_free(x);
  return ok;
}

bool calib_dev_barrier(struct calib_dev *d, int64_t wgs, int reps, double *per_s, bool *resident,
                       char **err) {
  if (!calib_dev_resident(d, wgs, resident, err)) return false;
  *per_s = 0;
  if (!*resident) return true;
  cl_int spin = SPIN_LIMIT, nb[2] = {4, 104};
  double *x = g_new(double, (size_t)reps);
  bool ok = true;
  *resident = true;
  for (int r = -1; ok && r < reps; r++) {
    double t[2];
    for (int j = 0; ok && j < 2; j++) {
      const size_t sz[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_int), sizeof spin};
      const void *v[] = {&d->bar, &d->err, &nb[j], &spin};
      ok = set_args(d->barriers, err, 4, sz, v) && run_1d(d, d->barriers, (size_t)wgs, &t[j], NULL, err);
    }
    bool res = true;
    ok = ok && resident_check(d, &res, err);
    *resident = *resident && res;
    if (ok && r >= 0) x[r] = (t[1] - t[0]) / (nb[1] - nb[0]);
  }
  if (ok) *per_s = calib_stat_of(x, (size_t)reps).median_s;
  g_free(x);
  return ok;
}

bool calib_dev_resident(struct calib_dev *d, int64_t wgs, bool *resident, char **err) {
  cl_int spin = SPIN_LIMIT, nb = 1;
  const size_t sz[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_int), sizeof spin};
  const void *v[] = {&d->bar, &d->err, &nb, &spin};
  return set_args(d->barriers, err, 4, sz, v) && run_1d(d, d->barriers, (size_t)wgs, NULL, NULL, err) &&
         resident_check(d, resident, err);
}

bool calib_dev_persist(struct calib_dev *d, int64_t n, int64_t wgs, int iters, int reps,
                       double *per_iter_s, double *spread, bool *resident, char **err) {
  if (!calib_dev_resident(d, wgs, resident, err)) return false;
  if (!*resident) return true; /* a persistent loop cannot run: nothing measured */
  if (!grids_for(d, n, err)) return false;
  cl_int ni = (cl_int)n, it = iters, spin = SPIN_LIMIT;
  const size_t sz[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof ni, sizeof it, sizeof(cl_mem),
                       sizeof(cl_mem), sizeof spin};
  const void *v[] = {&d->a, &d->b, &ni, &it, &d->bar, &d->err, &spin};
  double *x = g_new(double, (size_t)reps);
  bool ok = set_args(d->persist, err, 7, sz, v);
  *resident = true;
  for (int r = -1; ok && r < reps; r++) {
    double wall;
    ok = run_1d(d, d->persist, (size_t)wgs, NULL, &wall, err);
    bool res = true;
    ok = ok && resident_check(d, &res, err);
    *resident = *resident && res;
    if (ok && r >= 0) x[r] = wall / iters;
  }
  if (ok) {
    struct calib_stat st = calib_stat_of(x, (size_t)reps);
    *per_iter_s = st.median_s;
    *spread = st.spread;
  }
  g_free(x);
  return ok;
}

/* The CSR 5-point Poisson matrix of SIDE^2 rows and its vectors. */
static bool cg_for(struct calib_dev *d, int64_t side, char **err) {
  if (d->cg_side == side) return true;
  cl_mem *ms[] = {&d->rp, &d->col, &d->val, &d->vx, &d->vp, &d->vq, &d->vr, &d->part, &d->cnt,
                  &d->out};
  for (size_t i = 0; i < G_N_ELEMENTS(ms); i++)
    if (*ms[i]) {
      clReleaseMemObject(*ms[i]);
      *ms[i] = NULL;
    }
  d->cg_side = 0;
  int64_t rows = side * side, nnz = calib_cg_nnz(side);
  cl_int *rp = g_new(cl_int, rows + 1), *col = g_new(cl_int, nnz);
  float *val = g_new(float, nnz);
  int64_t k = 0;
  for (int64_t r = 0; r < rows; r++) {
    int64_t x = r % side, y = r / side;
    rp[r] = (cl_int)k;
    const int64_t nb[5] = {y > 0 ? r - side : -1, x > 0 ? r - 1 : -1, r, x < side - 1 ? r + 1 : -1,
                           y < side - 1 ? r + side : -1};
    for (int j = 0; j < 5; j++)
      if (nb[j] >= 0) {
        col[k] = (cl_int)nb[j];
        val[k++] = nb[j] == r ? 4.0f : -1.0f;
      }
  }
  rp[rows] = (cl_int)k;
  g_assert(k == nnz);
  cl_int rc = CL_SUCCESS;
  cl_mem_flags cp = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  size_t vb = (size_t)rows * sizeof(float), parts = (size_t)(rows + WG_ITEMS - 1) / WG_ITEMS;
  d->rp = clCreateBuffer(d->ctx, cp, (size_t)(rows + 1) * sizeof(cl_int), rp, &rc);
  if (rc == CL_SUCCESS) d->col = clCreateBuffer(d->ctx, cp, (size_t)nnz * sizeof(cl_int), col, &rc);
  if (rc == CL_SUCCESS) d->val = clCreateBuffer(d->ctx, cp, (size_t)nnz * sizeof(float), val, &rc);
  cl_mem *vs[] = {&d->vx, &d->vp, &d->vq, &d->vr};
  for (size_t i = 0; rc == CL_SUCCESS && i < G_N_ELEMENTS(vs); i++) {
    *vs[i] = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, vb, NULL, &rc);
    float one = 1;
    if (rc == CL_SUCCESS) rc = clEnqueueFillBuffer(d->q, *vs[i], &one, sizeof one, 0, vb, 0, NULL, NULL);
  }
  if (rc == CL_SUCCESS) d->part = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, parts * sizeof(float), NULL, &rc);
  int zero[4] = {0, 0, 0, 0};
  if (rc == CL_SUCCESS)
    d->cnt = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, zero, &rc);
  if (rc == CL_SUCCESS) d->out = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, sizeof(float), NULL, &rc);
  if (rc == CL_SUCCESS) rc = clFinish(d->q);
  g_free(rp);
  g_free(col);
  g_free(val);
  if (!cl_ok(rc, "CG buffers", err)) return false;
  d->cg_side = side;
  return true;
}

static bool enq_1d(struct calib_dev *d, cl_kernel k, size_t items, char **err) {
  size_t l = WG_ITEMS, g = (items + l - 1) / l * l;
  return cl_ok(clEnqueueNDRangeKernel(d->q, k, 1, NULL, &g, &l, 0, NULL, NULL),
               "clEnqueueNDRangeKernel", err);
}

static bool enq_cg_kernel(struct calib_dev *d, int which, int pass2, char **err) {
  cl_int rows = (cl_int)(d->cg_side * d->cg_side);
  switch (which) {
  case CALIB_CG_SPMV: {
    const size_t sz[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem),
                         sizeof(cl_mem), sizeof rows};
    const void *v[] = {&d->rp, &d->col, &d->val, &d->vp, &d->vq, &rows};
    return set_args(d->spmv, err, 6, sz, v) && enq_1d(d, d->spmv, (size_t)rows, err);
  }
  case CALIB_CG_DOT: {
    cl_int p2 = pass2;
    const size_t sz[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem),
                         sizeof(cl_mem), sizeof rows, sizeof p2};
    const void *v[] = {&d->vp, &d->vq, &d->part, &d->cnt, &d->out, &rows, &p2};
    return set_args(d->dot, err, 7, sz, v) && enq_1d(d, d->dot, (size_t)rows, err);
  }
  default: {
    float a = 1e-6f;
    const size_t sz[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof a, sizeof rows};
    const void *v[] = {&d->vq, &d->vr, &a, &rows};
    return set_args(d->axpy, err, 4, sz, v) && enq_1d(d, d->axpy, (size_t)rows, err);
  }
  }
}

/* One CG-like iteration: SpMV, dot, AXPY, AXPY, dot, AXPY (calib.h). */
static const int cg_iter_kernels[CALIB_CG_PER_ITER] = {CALIB_CG_SPMV, CALIB_CG_DOT, CALIB_CG_AXPY,
                                                       CALIB_CG_AXPY, CALIB_CG_DOT, CALIB_CG_AXPY};

bool calib_dev_cg_loop(struct calib_dev *d, int64_t side, int iters, int reps, double *per_iter_s,
                       double *spread, char **err) {
  if (!cg_for(d, side, err)) return false;
  double *x = g_new(double, (size_t)reps);
  bool ok = true;
  for (int r = -1; ok && r < reps; r++) {
    double t = now_s();
    for (int i = 0; ok && i < iters; i++) {
      for (int j = 0; ok && j < CALIB_CG_PER_ITER; j++) ok = enq_cg_kernel(d, cg_iter_kernels[j], 1, err);
      ok = ok && cl_ok(clFinish(d->q), "clFinish", err);
    }
    if (ok && r >= 0) x[r] = (now_s() - t) / iters;
  }
  if (ok) {
    struct calib_stat st = calib_stat_of(x, (size_t)reps);
    *per_iter_s = st.median_s;
    *spread = st.spread;
  }
  g_free(x);
  return ok;
}

bool calib_dev_cg_kernel(struct calib_dev *d, int64_t side, int which, int pass2, int reps,
                         double *b2b_s, double *exec_s, char **err) {
  if (!cg_for(d, side, err)) return false;
  enum { K = 32 };
  double *x = g_new(double, (size_t)reps), *y = g_new(double, (size_t)reps);
  bool ok = true;
  for (int r = -1; ok && r < reps; r++) {
    double t = now_s();
    for (int i = 0; ok && i < K; i++) ok = enq_cg_kernel(d, which, pass2, err);
    ok = ok && cl_ok(clFinish(d->q), "clFinish", err);
    if (ok && r >= 0) x[r] = (now_s() - t) / K;
    /* One more with an event for its span. */
    cl_int rows = (cl_int)(side * side);
    size_t l = WG_ITEMS, g = ((size_t)rows + l - 1) / l * l;
    cl_event ev;
    ok = ok && enq_cg_kernel(d, which, pass2, err) && cl_ok(clFinish(d->q), "clFinish", err);
    /* enq_cg_kernel set the arguments: re-enqueue the same kernel with an event. */
    cl_kernel k = which == CALIB_CG_SPMV ? d->spmv : which == CALIB_CG_DOT ? d->dot : d->axpy;
    ok = ok && cl_ok(clEnqueueNDRangeKernel(d->q, k, 1, NULL, &g, &l, 0, NULL, &ev), "enqueue", err) &&
         cl_ok(clFinish(d->q), "clFinish", err);
    if (ok) {
      if (r >= 0) y[r] = prof_s(ev, CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END);
      clReleaseEvent(ev);
    }
  }
  if (ok) {
    *b2b_s = calib_stat_of(x, (size_t)reps).median_s;
    *exec_s = calib_stat_of(y, (size_t)reps).median_s;
  }
  g_free(x);
  g_free(y);
  return ok;
}

static void info(struct calib_dev *d, struct calib_meas *m) {
  dev_str(d->dev, CL_DEVICE_NAME, m->device, sizeof m->device);
  dev_str(d->dev, CL_DEVICE_VENDOR, m->vendor, sizeof m->vendor);
  dev_str(d->dev, CL_DRIVER_VERSION, m->driver, sizeof m->driver);
  dev_str(d->dev, CL_DEVICE_VERSION, m->version, sizeof m->version);
  m->platform[0] = 0;
  clGetPlatformInfo(d->platform, CL_PLATFORM_NAME, sizeof m->platform, m->platform, NULL);
  m->platform[sizeof m->platform - 1] = 0;
  cl_device_type type = 0;
  clGetDeviceInfo(d->dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  m->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
  cl_uint cus = 1, mhz = 0;
  clGetDeviceInfo(d->dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
  clGetDeviceInfo(d->dev, CL_DEVICE_MAX_CLOCK_FREQUENCY, sizeof mhz, &mhz, NULL);
  m->cus = cus ? cus : 1;
  m->clock_hz = (int64_t)mhz * 1000000;
  GDateTime *now = g_date_time_new_now_utc();
  char *iso = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
  g_strlcpy(m->date, iso, sizeof m->date);
  g_free(iso);
  g_date_time_unref(now);
}

/* Blocking transfer of BYTES (write or read) REPS times: median bits/s. */
static bool bandwidth(struct calib_dev *d, size_t bytes, bool write, int reps, double *bps,
                      char **err) {
  cl_int rc;
  cl_mem buf = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
  if (!cl_ok(rc, "clCreateBuffer", err)) return false;
  char *host = g_malloc0(bytes);
  double *x = g_new(double, (size_t)reps);
  bool ok = true;
  for (int r = -1; ok && r < reps; r++) {
    double t = now_s();
    ok = cl_ok(write ? clEnqueueWriteBuffer(d->q, buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL)
                     : clEnqueueReadBuffer(d->q, buf, CL_TRUE, 0, bytes, host, 0, NULL, NULL),
               "clEnqueue{Write,Read}Buffer", err);
    if (r >= 0) x[r] = (double)bytes * 8 / (now_s() - t);
  }
  if (ok) *bps = calib_stat_of(x, (size_t)reps).median_s;
  g_free(x);
  g_free(host);
  clReleaseMemObject(buf);
  return ok;
}

bool calib_dev_measure(struct calib_dev *d, bool quick, struct calib_meas *m, char **err) {
  memset(m, 0, sizeof *m);
  info(d, m);
  m->quick = quick;
  m->reps = quick ? 15 : 101;
  m->warmups = quick ? 3 : 10;
  int R = m->reps;
  double *x = g_new(double, (size_t)R), *y = g_new(double, (size_t)R),
         *z = g_new(double, (size_t)R);
  bool ok = true;
  /* Enqueue cost, in batches. */
  for (int r = -m->warmups; ok && r < R; r++) {
    enum { BATCH = 64 };
    double t = now_s();
    for (int i = 0; ok && i < BATCH; i++) ok = enqueue_empty(d, NULL, err);
    double t_enq = (now_s() - t) / BATCH;
    ok = ok && cl_ok(clFinish(d->q), "clFinish", err);
    if (ok && r >= 0) x[r] = t_enq;
  }
  if (ok) m->submit = calib_stat_of(x, (size_t)R);
  /* Empty-kernel round trip, no event (as a loop without profiling). */
  for (int r = -m->warmups; ok && r < R; r++) {
    double t = now_s();
    ok = enqueue_empty(d, NULL, err) && cl_ok(clFinish(d->q), "clFinish", err);
    if (ok && r >= 0) x[r] = now_s() - t;
  }
  if (ok) m->roundtrip = calib_stat_of(x, (size_t)R);
  /* Profiling spans of an empty kernel. */
  for (int r = -m->warmups; ok && r < R; r++) {
    cl_event ev;
    ok = enqueue_empty(d, &ev, err) && cl_ok(clFinish(d->q), "clFinish", err);
    if (!ok) break;
    if (r >= 0) {
      y[r] = prof_s(ev, CL_PROFILING_COMMAND_SUBMIT, CL_PROFILING_COMMAND_START);
      z[r] = prof_s(ev, CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END);
    }
    clReleaseEvent(ev);
  }
  if (ok) {
    m->launch_span = calib_stat_of(y, (size_t)R);
    m->exec_span = calib_stat_of(z, (size_t)R);
  }
  /* GPU-TN Fig. 1: N empty kernels queued, one wait. */
  int max_depth = quick ? 64 : 1024;
  for (int64_t n = 1; ok && n <= max_depth; n *= 2) {
    int reps = n >= 256 ? (R + 3) / 4 : R;
    for (int r = -m->warmups; ok && r < reps; r++) {
      double t = now_s();
      for (int64_t i = 0; ok && i < n; i++) ok = enqueue_empty(d, NULL, err);
      ok = ok && cl_ok(clFinish(d->q), "clFinish", err);
      if (r >= 0) x[r] = now_s() - t;
    }
    if (!ok) break;
    struct calib_stat s = calib_stat_of(x, (size_t)reps);
    m->depth[m->n_depths] = n;
    m->depth_total_s[m->n_depths] = s.median_s;
    m->depth_spread[m->n_depths++] = s.spread;
  }
  /* Small device-to-host read. */
  if (ok && grids_for(d, 64, err)) {
    float v;
    for (int r = -m->warmups; ok && r < R; r++) {
      double t = now_s();
      ok = cl_ok(clEnqueueReadBuffer(d->q, d->a, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL),
                 "clEnqueueReadBuffer", err);
      if (r >= 0) x[r] = now_s() - t;
    }
    if (ok) m->read_lat = calib_stat_of(x, (size_t)R);
  } else {
    ok = false;
  }
  size_t big = quick ? (size_t)4 << 20 : (size_t)256 << 20;
  int breps = quick ? 3 : 11;
  ok = ok && bandwidth(d, big, true, breps, &m->h2d_bps, err) &&
       bandwidth(d, big, false, breps, &m->d2h_bps, err);
  /* The Jacobi kernel's execution span against the grid. */
  int64_t max_grid = quick ? 512 : 4096;
  m->b2b_kernels = quick ? 16 : 64;
  for (int64_t n = 64; ok && n <= max_grid && m->n_grids < CALIB_MAX_GRIDS; n *= 2) {
    struct calib_stat e;
    double b2b, spread;
    ok = calib_dev_jacobi_exec(d, n, quick ? 9 : 31, &e, err) &&
         calib_dev_jacobi_loop(d, n, m->b2b_kernels, false, quick ? 5 : 11, &b2b, &spread, err);
    if (!ok) break;
    m->grid[m->n_grids] = n;
    m->grid_exec_s[m->n_grids] = e.median_s;
    m->grid_spread[m->n_grids] = e.spread;
    m->grid_b2b_s[m->n_grids] = b2b;
    m->grid_b2b_spread[m->n_grids++] = spread;
  }
  /* Enqueue cost against burst length: host time to enqueue N Jacobi
   * kernels (arguments set each time, as a real loop does). */
  ok = ok && grids_for(d, 64, err);
  for (int64_t n = 1; ok && n <= max_depth; n *= 2) {
    int reps = n >= 256 ? (R + 3) / 4 : R;
    for (int r = -m->warmups; ok && r < reps; r++) {
      ok = cl_ok(clFinish(d->q), "clFinish", err);
      double t = now_s();
      for (int64_t i = 0; ok && i < n; i++) ok = enqueue_jacobi(d, 64, (int)(i & 1), NULL, err);
      if (r >= 0) x[r] = now_s() - t;
    }
    ok = ok && cl_ok(clFinish(d->q), "clFinish", err);
    if (!ok) break;
    m->burst[m->n_burst] = n;
    m->burst_enq_s[m->n_burst++] = calib_stat_of(x, (size_t)reps).median_s;
  }
  /* Achieved bandwidth against resident WGs per CU, out of the caches. */
  int sreps = quick ? 3 : 11;
  m->max_wgs_per_cu = m->is_gpu ? 2048 / CALIB_ITEMS : 1;
  cl_ulong cache = 0;
  clGetDeviceInfo(d->dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
  m->cache_bytes = (int64_t)cache;
  m->stream_big_bytes = quick ? (int64_t)64 << 20 : (int64_t)1 << 30;
  for (int64_t k = 1; ok && k <= m->max_wgs_per_cu && m->n_k < CALIB_MAX_K; k++) {
    ok = calib_dev_stream(d, m->stream_big_bytes, m->cus * k, sreps, &m->k_bps[m->n_k], err);
    m->k[m->n_k++] = k;
  }
  /* Against the working set, at full occupancy; the smallest also at 1. */
  static const int64_t ws_mib[] = {1, 2, 4, 8, 16, 24, 32, 40, 48, 64, 96, 128, 256, 512};
  for (size_t i = 0; ok && i < G_N_ELEMENTS(ws_mib) && (!quick || ws_mib[i] <= 8); i++) {
    m->ws[m->n_ws] = ws_mib[i] << 20;
    ok = calib_dev_stream(d, m->ws[m->n_ws], m->cus * m->max_wgs_per_cu, sreps,
                          &m->ws_bps[m->n_ws], err);
    m->n_ws++;
  }
  ok = ok && calib_dev_stream(d, m->ws[0], m->cus, sreps, &m->ws_small_k1_bps, err);
  /* Device-wide barrier against the WG count. */
  int64_t bw[CALIB_MAX_BAR];
  int nb = 0;
  for (int64_t g = 1; g < m->cus && g <= 64; g *= 4) bw[nb++] = g;
  for (int64_t k = 1; k <= m->max_wgs_per_cu && nb < CALIB_MAX_BAR; k++) bw[nb++] = m->cus * k;
  for (int i = 0; ok && i < nb && m->n_bar < PAR_TABLE_MAX; i++) {
    bool res = true;
    ok = calib_dev_barrier(d, bw[i], quick ? 3 : 9, &m->bar_s[m->n_bar], &res, err);
    m->bar_resident[m->n_bar] = res;
    m->bar_wgs[m->n_bar++] = bw[i];
  }
  /* A persistent Jacobi loop against grid and WGs per CU. */
  m->pj_iters = quick ? 10 : 50;
  static const int64_t pj_grids[] = {512, 1024, 2048, 4096}, pj_quick[] = {64, 128};
  const int64_t *pg = quick ? pj_quick : pj_grids;
  size_t npg = quick ? G_N_ELEMENTS(pj_quick) : G_N_ELEMENTS(pj_grids);
  for (size_t i = 0; ok && i < npg; i++)
    for (int64_t k = 1; ok && k <= m->max_wgs_per_cu && m->n_pj < CALIB_MAX_PJ; k *= 2) {
      double sp;
      bool res;
      ok = calib_dev_persist(d, pg[i], m->cus * k, m->pj_iters, quick ? 3 : 5,
                             &m->pj_iter_s[m->n_pj], &sp, &res, err);
      if (!res) break; /* WGs not co-resident: no persistent loop at k or above */
      m->pj_grid[m->n_pj] = pg[i];
      m->pj_k[m->n_pj++] = k;
    }
  /* The CG-like kernels, each alone, out of the caches on a GPU. */
  m->cg_side = quick ? 128 : 2048;
  for (int w = 0; ok && w < CALIB_CG_KINDS; w++)
    ok = calib_dev_cg_kernel(d, m->cg_side, w, 1, sreps, &m->cg_b2b_s[w], &m->cg_exec_s[w], err);
  double b2b_nop2;
  ok = ok && calib_dev_cg_kernel(d, m->cg_side, CALIB_CG_DOT, 0, sreps, &b2b_nop2,
                                 &m->dot_nopass2_exec_s, err);
  g_free(x);
  g_free(y);
  g_free(z);
  return ok;
}

#endif
