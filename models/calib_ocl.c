/* The device side of calibration (calib.h): real OpenCL kernels dispatched
 * on a device (PoCL on a CPU, or a GPU), timed with the host's monotonic
 * clock and with OpenCL profiling events. Built only with TRIGSIM_HAVE_OPENCL;
 * otherwise every entry says that the program was built without OpenCL. */
#include "calib.h"

#include <glib.h>
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
const char *calib_dev_name(const struct calib_dev *d) { return ""; }

#else

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <time.h>

bool calib_ocl_available(void) { return true; }

static const char kernel_src[] =
    "__kernel void empty(void) {}\n"
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
  cl_kernel empty, jacobi;
  cl_mem a, b;       /* Jacobi grids, allocated for the largest grid used */
  size_t grid_bytes;
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
  if (!*err) d->empty = clCreateKernel(d->prog, "empty", &rc);
  if (!*err && cl_ok(rc, "clCreateKernel empty", err)) d->jacobi = clCreateKernel(d->prog, "jacobi", &rc);
  if (!*err) cl_ok(rc, "clCreateKernel jacobi", err);
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
  if (d->empty) clReleaseKernel(d->empty);
  if (d->jacobi) clReleaseKernel(d->jacobi);
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
  size_t side = (size_t)((n + CALIB_WG_SIDE - 1) / CALIB_WG_SIDE * CALIB_WG_SIDE);
  size_t g[2] = {side, side}, l[2] = {CALIB_WG_SIDE, CALIB_WG_SIDE};
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
  g_free(x);
  g_free(y);
  g_free(z);
  return ok;
}

#endif
