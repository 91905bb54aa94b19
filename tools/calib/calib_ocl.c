/* The device side of calibration (calib.h): real OpenCL kernels dispatched
 * on a device (PoCL on a CPU, or a GPU), timed with the host's monotonic
 * clock and with OpenCL profiling events. Built only with TRIGSIM_HAVE_OPENCL;
 * otherwise every entry says that the program was built without OpenCL. */
#include "calib.h"

#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
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
bool calib_dev_roundtrip(struct calib_dev *d, int reps, double *s, char **err) {
  return calib_dev_open(0, err) != NULL;
}
bool calib_dev_enqueue(struct calib_dev *d, int reps, double *s, char **err) {
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
                       double *per_iter_s, double *spread, bool *resident,
                       struct calib_run_state *st, char **err) {
  return calib_dev_open(0, err) != NULL;
}
bool calib_dev_persist_tiles(struct calib_dev *d, int64_t n, int64_t wgs, int iters, int reps,
                             double *per_iter_s, char **err) {
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
bool calib_dev_signal(struct calib_dev *d, bool pingpong, int rounds, int reps, double *s,
                      double *spread, bool *seen, char **err) {
  return calib_dev_open(0, err) != NULL;
}
const char *calib_dev_name(const struct calib_dev *d) { return ""; }

#else

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include "jacobi_cl.h"
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <time.h>

bool calib_ocl_available(void) { return true; }

static const char kernel_src[] =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
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
     * device-wide barrier per iteration (SYNC 0: none, the iterations
     * racing: the tiles' time alone). */
    "__kernel void jacobi_persist(__global float *a, __global float *b, int n, int iters,\n"
    "                             __global volatile int *bar, __global volatile int *err,\n"
    "                             int spin, __global uint *place, int sync) {\n"
    "  int G = get_num_groups(0), w = get_group_id(0), l = get_local_id(0);\n"
    "#ifdef TRIGSIM_SMID\n"
    "  ulong c0 = 0, g0 = 0;\n"
    "  if (l == 0) { uint s; asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(s)); place[w] = s; }\n"
    "  if (l == 0 && w == 0) {\n"
    "    asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(c0));\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g0));\n"
    "  }\n"
    "#endif\n"
    "  int tx = (n + 15) / 16, tiles = tx * tx;\n"
    "  for (int it = 0; it < iters; it++) {\n"
    "    __global const float *s = (it & 1) ? b : a;\n"
    "    __global float *d = (it & 1) ? a : b;\n"
    CALIB_JACOBI_TILES_CL
    "    if (sync) gbar(bar, G, err, spin);\n"
    "  }\n"
    "#ifdef TRIGSIM_SMID\n"
    "  if (l == 0 && w == 0) {\n"
    "    ulong c1, g1;\n"
    "    asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(c1));\n"
    "    asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(g1));\n"
    "    place[G] = (uint)(c1 - c0); place[G + 1] = (uint)((c1 - c0) >> 32);\n"
    "    place[G + 2] = (uint)(g1 - g0); place[G + 3] = (uint)((g1 - g0) >> 32);\n"
    "  }\n"
    "#endif\n"
    "}\n"
    /* CG-like kernels on a CSR matrix, in double precision as the cg
     * workload counts them (workloads/kinds/cg.c: 8 B values, 4 B column
     * indices, 8 B vectors; a row per work-item). */
    "__kernel void spmv(__global const int *rp, __global const int *col,\n"
    "                   __global const double *val, __global const double *x,\n"
    "                   __global double *y, int rows) {\n"
    "  int r = get_global_id(0);\n"
    "  if (r >= rows) return;\n"
    "  double s = 0;\n"
    "  for (int j = rp[r]; j < rp[r + 1]; j++) s += val[j] * x[col[j]];\n"
    "  y[r] = s;\n"
    "}\n"
    /* A dot's reset (the CPU-Free code's resetLocalDotProduct<<<1, 1>>>). */
    "__kernel void reset(__global double *out) { out[0] = 0; }\n"
    "__kernel void axpy(__global const double *x, __global double *y, double a, int n) {\n"
    "  int i = get_global_id(0);\n"
    "  if (i < n) y[i] += a * x[i];\n"
    "}\n"
    /* Dot product: per-WG partials; the last WG to finish (an atomic count)
     * sums them when PASS2 (the second pass). */
    "__kernel void dotp(__global const double *a, __global const double *b,\n"
    "                  __global volatile double *part, __global volatile int *cnt,\n"
    "                  __global double *out, int n, int pass2) {\n"
    "  __local double s[256];\n"
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
    "  double t = 0;\n"
    "  for (int j = l; j < ng; j += 256) t += part[j];\n"
    "  s[l] = t;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (int h = 128; h > 0; h >>= 1) {\n"
    "    if (l < h) s[l] += s[l + h];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) { out[0] = s[0]; cnt[0] = 0; }\n"
    "}\n"
    /* The launch path: empty kernels of 1 .. 8 buffer arguments, 3 int ones. */
    "__kernel void args1(__global int *a) {}\n"
    "__kernel void args2(__global int *a, __global int *b) {}\n"
    "__kernel void args3(__global int *a, __global int *b, __global int *c) {}\n"
    "__kernel void args4(__global int *a, __global int *b, __global int *c, __global int *d) {}\n"
    "__kernel void args6(__global int *a, __global int *b, __global int *c, __global int *d,\n"
    "                    __global int *e, __global int *f) {}\n"
    "__kernel void args8(__global int *a, __global int *b, __global int *c, __global int *d,\n"
    "                    __global int *e, __global int *f, __global int *g, __global int *h) {}\n"
    "__kernel void scal3(int a, int b, int c) {}\n"
    /* One work-item follows a cycle of line indices: a load's latency. */
    "__kernel void chase(__global const uint *next, uint steps, __global uint *out) {\n"
    "  uint p = 0;\n"
    "  for (uint s = 0; s < steps; s++) p = next[p];\n"
    "  out[0] = p;\n"
    "}\n"
    /* Streaming with each pass shifted by ROT elements: over the passes
     * an element is touched by different WGs (no per-WG reuse). */
    "__kernel void stream_rot(__global const float *a, __global float *b, int n, int passes,\n"
    "                         int rot) {\n"
    "  int g = get_global_id(0), G = get_global_size(0);\n"
    "  for (int p = 0; p < passes; p++) {\n"
    "    int off = (int)(((long)p * rot) % n);\n"
    "    for (int i = g; i < n; i += G) {\n"
    "      int j = i + off;\n"
    "      if (j >= n) j -= n;\n"
    "      b[j] = a[j] + (float)p;\n"
    "    }\n"
    "  }\n"
    "}\n"
    /* The signal path through a host buffer: the kernel stores V, then
     * waits (at most SPIN polls) for the host's acknowledgement. */
    "__kernel void sig_store(__global volatile int *f, int v, int spin) {\n"
    "  f[0] = v;\n"
    "  mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  for (int s = 0; f[1] != v && s < spin; s++) ;\n"
    "}\n"
    /* Ping-pong: round i waits for the host's f[0] >= i, answers f[1] = i. */
    "__kernel void pingpong(__global volatile int *f, int n, int spin) {\n"
    "  for (int i = 1; i <= n; i++) {\n"
    "    for (int s = 0; f[0] < i && s < spin; s++) ;\n"
    "    f[1] = i;\n"
    "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  }\n"
    "}\n"
    CALIB_JACOBI_CL;

struct calib_dev {
  cl_platform_id platform;
  cl_device_id dev;
  cl_context ctx;
  cl_command_queue q;
  cl_program prog;
  cl_kernel empty, jacobi, stream, barriers, persist, spmv, axpy, dot;
  cl_kernel argk[CALIB_MAX_ARGK], scal3, chase, stream_rot, sig_store, pingpong, reset;
  cl_mem grids;      /* the Jacobi grids' buffer (grid_bytes), for the largest pair used */
  size_t grid_bytes;
  cl_mem a, b;       /* the grids of side grids_n, back to back in it (grids_for) */
  int64_t grids_n;
  cl_mem sa, sb;     /* streaming buffers */
  size_t stream_bytes;
  cl_mem bar, err;   /* barrier counter and generation; the not-resident flag */
  cl_mem place;      /* the persistent loop's WGs' SMs (smid) */
  size_t place_n;
  bool smid;         /* NVIDIA: the persistent loop records each WG's SM */
  /* CG-like loop: CSR 5-point Poisson matrix of side cg_side, vectors. */
  int64_t cg_side;
  cl_mem rp, col, val, vx, vp, vq, vr, part, cnt, out;
  cl_mem chase_buf, chase_out; /* the chase's cycle (chase_bytes) and its result */
  cl_mem sig_buf;              /* the signal probes' host buffer (sig_host) */
  void *sig_host;
  size_t chase_bytes;
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
  if (!*err) cl_ok(rc, "clCreateProgramWithSource", err);
  if (!*err) { /* NVIDIA's: the persistent loop records its WGs' SMs and clock (inline PTX) */
    char vendor[128];
    dev_str(d->dev, CL_DEVICE_VENDOR, vendor, sizeof vendor);
    d->smid = strstr(vendor, "NVIDIA") != NULL;
    cl_ok(clBuildProgram(d->prog, 1, &d->dev, d->smid ? "-DTRIGSIM_SMID" : "", NULL, NULL),
          "clBuildProgram", err);
  }
  if (*err) {
    char log[4096] = "";
    clGetProgramBuildInfo(d->prog, d->dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    log[sizeof log - 1] = 0;
    fprintf(stderr, "%s\n", log);
  }
  cl_kernel *ks[] = {&d->empty,    &d->jacobi,   &d->stream,  &d->barriers,   &d->persist,
                     &d->spmv,     &d->axpy,     &d->dot,     &d->argk[1],    &d->argk[2],
                     &d->argk[3],  &d->argk[4],  &d->argk[5], &d->argk[6],    &d->scal3,
                     &d->chase,    &d->stream_rot, &d->sig_store, &d->pingpong, &d->reset};
  const char *names[] = {"empty", "jacobi", "stream", "barriers", "jacobi_persist",
                         "spmv",  "axpy",   "dotp",   "args1",    "args2",
                         "args3", "args4",  "args6",  "args8",    "scal3",
                         "chase", "stream_rot", "sig_store", "pingpong", "reset"};
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
  if (d->grids) clReleaseMemObject(d->grids);
  cl_mem ms[] = {d->sa, d->sb, d->bar, d->err, d->place, d->rp, d->col, d->val, d->vx, d->vp, d->vq,
                 d->vr, d->part, d->cnt, d->out};
  for (size_t i = 0; i < G_N_ELEMENTS(ms); i++)
    if (ms[i]) clReleaseMemObject(ms[i]);
  if (d->sig_buf) clReleaseMemObject(d->sig_buf);
  free(d->sig_host);
  if (d->chase_buf) clReleaseMemObject(d->chase_buf);
  if (d->chase_out) clReleaseMemObject(d->chase_out);
  cl_kernel ks[] = {d->empty, d->jacobi, d->stream, d->barriers, d->persist, d->spmv, d->axpy,
                    d->dot, d->scal3, d->chase, d->stream_rot, d->sig_store, d->pingpong,
                    d->reset};
  for (size_t i = 0; i < G_N_ELEMENTS(ks); i++)
    if (ks[i]) clReleaseKernel(ks[i]);
  for (int i = 1; i < CALIB_MAX_ARGK; i++)
    if (d->argk[i]) clReleaseKernel(d->argk[i]);
  if (d->prog) clReleaseProgram(d->prog);
  if (d->q) clReleaseCommandQueue(d->q);
  if (d->ctx) clReleaseContext(d->ctx);
  g_free(d);
}

const char *calib_dev_name(const struct calib_dev *d) { return d->name; }

/* The two Jacobi grids of side N, back to back in one buffer (zero-filled
 * when it grows): their distance fixed (the grid's bytes, rounded up to
 * the device's base alignment) in every process. Where two separate buffers land decides
 * how their lines meet in the caches: on the H200 the 512^2 loop at 1 WG
 * a CU takes 2.2 us an iteration with its grids 1 or 1.5 MiB apart and
 * 2.5 - 3.3 us at 1 MiB + 4 KiB, 2 or 3 MiB (tools/calib/probes/
 * wg_place.c, gap), which made calibrate's and validate-real's loop
 * bimodal from one process to the next. */
static bool grids_for(struct calib_dev *d, int64_t n, char **err) {
  size_t bytes = (size_t)n * (size_t)n * sizeof(float);
  if (d->grids_n == n && d->a) return true;
  cl_uint align_bits = 0;
  clGetDeviceInfo(d->dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
  size_t align = MAX((size_t)align_bits / 8, (size_t)128);
  size_t off = (bytes + align - 1) / align * align;
  if (d->a) clReleaseMemObject(d->a);
  if (d->b) clReleaseMemObject(d->b);
  d->a = d->b = NULL;
  d->grids_n = 0;
  cl_int rc;
  if (2 * off > d->grid_bytes) { /* the parent, for the largest pair so far */
    if (d->grids) clReleaseMemObject(d->grids);
    d->grid_bytes = 0;
    d->grids = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, 2 * off, NULL, &rc);
    if (!cl_ok(rc, "clCreateBuffer", err)) {
      d->grids = NULL;
      return false;
    }
    float zero = 0;
    if (!cl_ok(clEnqueueFillBuffer(d->q, d->grids, &zero, sizeof zero, 0, 2 * off, 0, NULL, NULL),
               "clEnqueueFillBuffer", err) ||
        !cl_ok(clFinish(d->q), "clFinish", err))
      return false;
    d->grid_bytes = 2 * off;
  }
  cl_buffer_region ra = {0, bytes}, rb = {off, bytes};
  d->a = clCreateSubBuffer(d->grids, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &ra, &rc);
  if (!cl_ok(rc, "clCreateSubBuffer", err)) return false;
  d->b = clCreateSubBuffer(d->grids, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rb, &rc);
  if (!cl_ok(rc, "clCreateSubBuffer", err)) return false;
  d->grids_n = n;
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

/* The host's enqueue of an empty kernel, in batches of 64: REPS after
 * WARMUPS (X: REPS of scratch). */
static bool enqueue_stat(struct calib_dev *d, int reps, int warmups, double *x,
                         struct calib_stat *st, char **err) {
  bool ok = true;
  for (int r = -warmups; ok && r < reps; r++) {
    enum { BATCH = 64 };
    double t = now_s();
    for (int i = 0; ok && i < BATCH; i++) ok = enqueue_empty(d, NULL, err);
    double t_enq = (now_s() - t) / BATCH;
    ok = ok && cl_ok(clFinish(d->q), "clFinish", err);
    if (ok && r >= 0) x[r] = t_enq;
  }
  if (ok) *st = calib_stat_of(x, (size_t)reps);
  return ok;
}

/* A blocked wait's lateness (calib.h): N gaps, on the device's clock, from
 * an empty kernel's END to the next one's START, each enqueued once the
 * host's clFinish of the one before returned; the events are read after
 * the loop, so that no query lies in a gap. p01, p50 and the mean into M. */
static bool wake_gaps(struct calib_dev *d, int n, struct calib_meas *m, char **err) {
  int total = m->warmups + n + 1;
  cl_event *ev = g_new0(cl_event, (size_t)total);
  bool ok = true;
  int done = 0;
  for (; ok && done < total; done++)
    ok = enqueue_empty(d, &ev[done], err) && cl_ok(clFinish(d->q), "clFinish", err);
  if (ok) {
    double *gap = g_new(double, (size_t)n);
    for (int i = 0; i < n; i++) {
      int k = m->warmups + i;
      cl_ulong end = 0, start = 0;
      clGetEventProfilingInfo(ev[k], CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
      clGetEventProfilingInfo(ev[k + 1], CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
      gap[i] = start > end ? (double)(start - end) * 1e-9 : 0;
    }
    gsl_sort(gap, 1, (size_t)n);
    m->wake_n = n;
    m->wake_p01_s = gsl_stats_quantile_from_sorted_data(gap, 1, (size_t)n, 0.01);
    m->wake_p50_s = gsl_stats_median_from_sorted_data(gap, 1, (size_t)n);
    m->wake_mean_s = gsl_stats_mean(gap, 1, (size_t)n);
    g_free(gap);
  }
  for (int i = 0; i < done; i++) /* NULL where an enqueue failed */
    if (ev[i]) clReleaseEvent(ev[i]);
  g_free(ev);
  return ok;
}

/* The empty kernel's round trip, no event (as a loop without profiling):
 * REPS after WARMUPS. calibrate's measurement and validate-real's bracket. */
static bool roundtrip_stat(struct calib_dev *d, int reps, int warmups, struct calib_stat *st,
                           char **err) {
  double *x = g_new(double, (size_t)reps);
  bool ok = true;
  for (int r = -warmups; ok && r < reps; r++) {
    double t = now_s();
    ok = enqueue_empty(d, NULL, err) && cl_ok(clFinish(d->q), "clFinish", err);
    if (ok && r >= 0) x[r] = now_s() - t;
  }
  if (ok) *st = calib_stat_of(x, (size_t)reps);
  g_free(x);
  return ok;
}

bool calib_dev_enqueue(struct calib_dev *d, int reps, double *s, char **err) {
  double *x = g_new(double, (size_t)reps);
  struct calib_stat st;
  bool ok = enqueue_stat(d, reps, 2, x, &st, err);
  if (ok) *s = st.median_s;
  g_free(x);
  return ok;
}

bool calib_dev_roundtrip(struct calib_dev *d, int reps, double *s, char **err) {
  struct calib_stat st;
  if (!roundtrip_stat(d, reps, 3, &st, err)) return false;
  *s = st.median_s;
  return true;
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

/* Runs kernel K as one WG of ITEMS work-items, waits; *EXEC_S its span. */
static bool run_1d_items(struct calib_dev *d, cl_kernel k, size_t items, double *exec_s,
                         char **err) {
  cl_event ev;
  if (!cl_ok(clEnqueueNDRangeKernel(d->q, k, 1, NULL, &items, &items, 0, NULL, &ev),
             "clEnqueueNDRangeKernel", err))
    return false;
  bool ok = cl_ok(clFinish(d->q), "clFinish", err);
  if (ok) *exec_s = prof_s(ev, CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END);
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

/* Streaming bandwidth as calib_dev_stream; ROT >= 0: each pass shifted by
 * ROT elements (stream_rot). */
static bool stream_bps(struct calib_dev *d, int64_t bytes, int64_t wgs, int reps, cl_int rot,
                       double *bps, char **err);

bool calib_dev_stream(struct calib_dev *d, int64_t bytes, int64_t wgs, int reps, double *bps,
                      char **err) {
  return stream_bps(d, bytes, wgs, reps, -1, bps, err);
}

static bool stream_bps(struct calib_dev *d, int64_t bytes, int64_t wgs, int reps, cl_int rot,
                       double *bps, char **err) {
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
      cl_kernel k = rot >= 0 ? d->stream_rot : d->stream;
      const size_t sz[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof n, sizeof passes, sizeof rot};
      const void *v[] = {&d->sa, &d->sb, &n, &passes, &rot};
      ok = set_args(k, err, rot >= 0 ? 5 : 4, sz, v) && run_1d(d, k, (size_t)wgs, &t[j], NULL, err);
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

/* The persistent loop's record (NVIDIA only, kernel_src's TRIGSIM_SMID):
 * N WGs' SMs, then WG 0's clock64 ticks and globaltimer nanoseconds over
 * the loop (two words each). */
static bool place_for(struct calib_dev *d, size_t n, char **err) {
  if (d->place && d->place_n >= n + 4) return true;
  if (d->place) clReleaseMemObject(d->place);
  cl_int rc;
  d->place = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, (n + 4) * sizeof(cl_uint), NULL, &rc);
  d->place_n = n + 4;
  return cl_ok(rc, "clCreateBuffer", err);
}

/* The last persistent run of N WGs, as calib_place_summary reads it. */
static bool place_of(struct calib_dev *d, size_t n, int *most, double *mhz, char **err) {
  cl_uint *w = g_new(cl_uint, n + 4);
  bool ok = cl_ok(clEnqueueReadBuffer(d->q, d->place, CL_TRUE, 0, (n + 4) * sizeof *w, w, 0, NULL,
                                      NULL),
                  "clEnqueueReadBuffer", err);
  if (ok) calib_place_summary(w, n, most, mhz);
  g_free(w);
  return ok;
}

/* calib_dev_persist, or (SYNC false) calib_dev_persist_tiles. */
static bool persist_run(struct calib_dev *d, int64_t n, int64_t wgs, int iters, int reps,
                        bool sync, double *per_iter_s, double *spread, bool *resident,
                        struct calib_run_state *st, char **err) {
  if (st) *st = (struct calib_run_state){0};
  if (!calib_dev_resident(d, wgs, resident, err)) return false;
  if (!*resident) return true; /* a persistent loop cannot run: nothing measured */
  if (!grids_for(d, n, err)) return false;
  if (!place_for(d, (size_t)wgs, err)) return false;
  cl_int ni = (cl_int)n, it = iters, spin = SPIN_LIMIT, sy = sync;
  const size_t sz[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof ni, sizeof it, sizeof(cl_mem),
                       sizeof(cl_mem), sizeof spin, sizeof(cl_mem), sizeof sy};
  const void *v[] = {&d->a, &d->b, &ni, &it, &d->bar, &d->err, &spin, &d->place, &sy};
  double *x = g_new(double, (size_t)reps), *mhz = g_new0(double, (size_t)reps);
  bool ok = set_args(d->persist, err, 9, sz, v);
  *resident = true;
  for (int r = -1; ok && r < reps; r++) {
    double wall;
    ok = run_1d(d, d->persist, (size_t)wgs, NULL, &wall, err);
    bool res = true;
    ok = ok && resident_check(d, &res, err);
    *resident = *resident && res;
    if (ok && r >= 0) x[r] = wall / iters;
    int most = 0;
    if (ok && r >= 0 && st && d->smid && (ok = place_of(d, (size_t)wgs, &most, &mhz[r], err)))
      st->most = MAX(st->most, most);
  }
  if (ok && st && d->smid) st->mhz = calib_stat_of(mhz, (size_t)reps).median_s;
  if (ok) {
    struct calib_stat sx = calib_stat_of(x, (size_t)reps);
    *per_iter_s = sx.median_s;
    *spread = sx.spread;
  }
  g_free(x);
  g_free(mhz);
  return ok;
}

bool calib_dev_persist(struct calib_dev *d, int64_t n, int64_t wgs, int iters, int reps,
                       double *per_iter_s, double *spread, bool *resident,
                       struct calib_run_state *st, char **err) {
  return persist_run(d, n, wgs, iters, reps, true, per_iter_s, spread, resident, st, err);
}

bool calib_dev_persist_tiles(struct calib_dev *d, int64_t n, int64_t wgs, int iters, int reps,
                             double *per_iter_s, char **err) {
  double spread;
  bool resident = true;
  return persist_run(d, n, wgs, iters, reps, false, per_iter_s, &spread, &resident, NULL, err);
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
  double *val = g_new(double, nnz);
  int64_t k = 0;
  for (int64_t r = 0; r < rows; r++) {
    int64_t x = r % side, y = r / side;
    rp[r] = (cl_int)k;
    const int64_t nb[5] = {y > 0 ? r - side : -1, x > 0 ? r - 1 : -1, r, x < side - 1 ? r + 1 : -1,
                           y < side - 1 ? r + side : -1};
    for (int j = 0; j < 5; j++)
      if (nb[j] >= 0) {
        col[k] = (cl_int)nb[j];
        val[k++] = nb[j] == r ? 4.0 : -1.0;
      }
  }
  rp[rows] = (cl_int)k;
  g_assert(k == nnz);
  cl_int rc = CL_SUCCESS;
  cl_mem_flags cp = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
  size_t vb = (size_t)rows * sizeof(double), parts = (size_t)(rows + WG_ITEMS - 1) / WG_ITEMS;
  d->rp = clCreateBuffer(d->ctx, cp, (size_t)(rows + 1) * sizeof(cl_int), rp, &rc);
  if (rc == CL_SUCCESS) d->col = clCreateBuffer(d->ctx, cp, (size_t)nnz * sizeof(cl_int), col, &rc);
  if (rc == CL_SUCCESS) d->val = clCreateBuffer(d->ctx, cp, (size_t)nnz * sizeof(double), val, &rc);
  cl_mem *vs[] = {&d->vx, &d->vp, &d->vq, &d->vr};
  for (size_t i = 0; rc == CL_SUCCESS && i < G_N_ELEMENTS(vs); i++) {
    *vs[i] = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, vb, NULL, &rc);
    double one = 1;
    if (rc == CL_SUCCESS) rc = clEnqueueFillBuffer(d->q, *vs[i], &one, sizeof one, 0, vb, 0, NULL, NULL);
  }
  if (rc == CL_SUCCESS) d->part = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, parts * sizeof(double), NULL, &rc);
  int zero[4] = {0, 0, 0, 0};
  if (rc == CL_SUCCESS)
    d->cnt = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof zero, zero, &rc);
  if (rc == CL_SUCCESS) d->out = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, sizeof(double), NULL, &rc);
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
  case CALIB_CG_DOT: { /* its reset kernel, then the dot */
    size_t one = 1;
    if (!cl_ok(clSetKernelArg(d->reset, 0, sizeof(cl_mem), &d->out), "clSetKernelArg", err) ||
        !cl_ok(clEnqueueNDRangeKernel(d->q, d->reset, 1, NULL, &one, &one, 0, NULL, NULL),
               "clEnqueueNDRangeKernel reset", err))
      return false;
    cl_int p2 = pass2;
    const size_t sz[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem), sizeof(cl_mem),
                         sizeof(cl_mem), sizeof rows, sizeof p2};
    const void *v[] = {&d->vp, &d->vq, &d->part, &d->cnt, &d->out, &rows, &p2};
    return set_args(d->dot, err, 7, sz, v) && enq_1d(d, d->dot, (size_t)rows, err);
  }
  default: {
    double a = 1e-6;
    const size_t sz[] = {sizeof(cl_mem), sizeof(cl_mem), sizeof a, sizeof rows};
    const void *v[] = {&d->vq, &d->vr, &a, &rows};
    return set_args(d->axpy, err, 4, sz, v) && enq_1d(d, d->axpy, (size_t)rows, err);
  }
  }
}

/* The dot's result copied home: a blocking 8 B read (the copy, then the
 * host's wait), as the cg workload's host copies under gds. */
static bool read_dot(struct calib_dev *d, char **err) {
  double v;
  return cl_ok(clEnqueueReadBuffer(d->q, d->out, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL),
               "clEnqueueReadBuffer", err);
}

/* One iteration of the cg workload's standard CG on one rank under gds
 * (calib.h): SpMV, dot, its scalar read home; AXPY, AXPY, dot, read home;
 * AXPY, clFinish. */
static bool cg_iteration(struct calib_dev *d, char **err) {
  return enq_cg_kernel(d, CALIB_CG_SPMV, 1, err) && enq_cg_kernel(d, CALIB_CG_DOT, 1, err) &&
         read_dot(d, err) && enq_cg_kernel(d, CALIB_CG_AXPY, 1, err) &&
         enq_cg_kernel(d, CALIB_CG_AXPY, 1, err) && enq_cg_kernel(d, CALIB_CG_DOT, 1, err) &&
         read_dot(d, err) && enq_cg_kernel(d, CALIB_CG_AXPY, 1, err) &&
         cl_ok(clFinish(d->q), "clFinish", err);
}

bool calib_dev_cg_loop(struct calib_dev *d, int64_t side, int iters, int reps, double *per_iter_s,
                       double *spread, char **err) {
  if (!cg_for(d, side, err)) return false;
  double *x = g_new(double, (size_t)reps);
  bool ok = true;
  for (int r = -1; ok && r < reps; r++) {
    double t = now_s();
    for (int i = 0; ok && i < iters; i++) ok = cg_iteration(d, err);
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

/* ---- the launch path as applications drive it ---- */

/* Buffer arguments of the argument probe's kernels d->argk[i]. */
static const int argk_count[] = {0, 1, 2, 3, 4, 6, 8};

/* Host time of one enqueue of kernel K on a DIMS-dimensional ND-range of
 * WGS WGs (1 item each, or 256 when WGS > 1), in batches of 64 after a
 * clFinish, its N_ARGS arguments (buffers, or ints when SCALAR) set before
 * each enqueue (SET_EACH) or once before the batch: median of REPS. */
static bool enq_cost(struct calib_dev *d, cl_kernel k, int n_args, bool scalar, bool set_each,
                     cl_uint dims, size_t wgs, int reps, int warmups, double *out, char **err) {
  enum { BATCH = 64 };
  size_t l[3] = {1, 1, 1}, g[3] = {1, 1, 1};
  if (wgs > 1) {
    l[0] = WG_ITEMS;
    g[0] = wgs * WG_ITEMS;
  }
  cl_int iv = 7;
  double *x = g_new(double, (size_t)reps);
  bool ok = true;
  for (int r = -warmups; ok && r < reps; r++) {
    ok = cl_ok(clFinish(d->q), "clFinish", err);
    for (int a = 0; ok && !set_each && a < n_args; a++)
      ok = scalar ? cl_ok(clSetKernelArg(k, (cl_uint)a, sizeof iv, &iv), "clSetKernelArg", err)
                  : cl_ok(clSetKernelArg(k, (cl_uint)a, sizeof(cl_mem), &d->bar), "clSetKernelArg", err);
    double t = now_s();
    for (int i = 0; ok && i < BATCH; i++) {
      for (int a = 0; ok && set_each && a < n_args; a++)
        ok = scalar ? cl_ok(clSetKernelArg(k, (cl_uint)a, sizeof iv, &iv), "clSetKernelArg", err)
                    : cl_ok(clSetKernelArg(k, (cl_uint)a, sizeof(cl_mem), &d->bar), "clSetKernelArg", err);
      ok = ok && cl_ok(clEnqueueNDRangeKernel(d->q, k, dims, NULL, g, l, 0, NULL, NULL),
                       "clEnqueueNDRangeKernel", err);
    }
    if (ok && r >= 0) x[r] = (now_s() - t) / BATCH;
  }
  ok = ok && cl_ok(clFinish(d->q), "clFinish", err);
  if (ok) *out = calib_stat_of(x, (size_t)reps).median_s;
  g_free(x);
  return ok;
}

static bool launch_path(struct calib_dev *d, struct calib_meas *m, char **err) {
  int R = m->reps, W = m->warmups;
  bool ok = true;
  m->n_argk = 0;
  for (size_t i = 0; ok && i < G_N_ELEMENTS(argk_count); i++) {
    cl_kernel k = i == 0 ? d->empty : d->argk[i];
    m->argk[m->n_argk] = argk_count[i];
    ok = enq_cost(d, k, argk_count[i], false, true, 1, 1, R, W, &m->argk_enq_s[m->n_argk++], err);
  }
  ok = ok && enq_cost(d, d->argk[3], 3, false, false, 1, 1, R, W, &m->args3_once_s, err) &&
       enq_cost(d, d->scal3, 3, true, true, 1, 1, R, W, &m->scal3_enq_s, err);
  for (cl_uint dim = 1; ok && dim <= 3; dim++)
    ok = enq_cost(d, d->empty, 0, false, true, dim, 1, R, W, &m->dims_enq_s[dim - 1], err);
  /* A big grid executes for a while: fewer repetitions. */
  ok = ok && enq_cost(d, d->empty, 0, false, true, 1, 65536, (R + 3) / 4, 1, &m->big_enq_s, err);
  return ok;
}

/* ---- the L2 and the load latency against the working set ---- */

/* Seconds per dependent load of one work-item following a random cycle
 * over the 128 B lines of WS bytes (a warm pass first), over STEPS loads. */
static bool chase_at(struct calib_dev *d, int64_t ws, cl_uint steps, double *per_load, char **err) {
  size_t bytes = (size_t)ws, lines = bytes / 128;
  if (lines < 2) lines = 2, bytes = 256;
  cl_int rc = CL_SUCCESS;
  if (bytes > d->chase_bytes) {
    if (d->sig_buf) clReleaseMemObject(d->sig_buf);
  free(d->sig_host);
  if (d->chase_buf) clReleaseMemObject(d->chase_buf);
    d->chase_buf = clCreateBuffer(d->ctx, CL_MEM_READ_ONLY, bytes, NULL, &rc);
    d->chase_bytes = rc == CL_SUCCESS ? bytes : 0;
    if (!cl_ok(rc, "clCreateBuffer chase", err)) return false;
  }
  if (!d->chase_out) {
    d->chase_out = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE, sizeof(cl_uint), NULL, &rc);
    if (!cl_ok(rc, "clCreateBuffer chase", err)) return false;
  }
  /* A random cyclic order of the lines (a fixed seed: the same every run). */
  cl_uint *next = g_malloc0(bytes);
  guint32 *order = g_new(guint32, lines);
  for (size_t i = 0; i < lines; i++) order[i] = (guint32)i;
  GRand *rng = g_rand_new_with_seed(28);
  for (size_t i = lines - 1; i > 0; i--) {
    size_t j = (size_t)g_rand_int_range(rng, 0, (gint32)(i + 1));
    guint32 t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  g_rand_free(rng);
  for (size_t i = 0; i < lines; i++) next[order[i] * 32] = order[(i + 1) % lines] * 32;
  g_free(order);
  bool ok = cl_ok(clEnqueueWriteBuffer(d->q, d->chase_buf, CL_TRUE, 0, bytes, next, 0, NULL, NULL),
                  "clEnqueueWriteBuffer chase", err);
  g_free(next);
  double span = 0;
  for (int pass = 0; ok && pass < 2; pass++) {
    cl_uint n = pass ? steps : (cl_uint)lines; /* the warm pass walks the whole cycle */
    const size_t sz[] = {sizeof(cl_mem), sizeof n, sizeof(cl_mem)};
    const void *v[] = {&d->chase_buf, &n, &d->chase_out};
    ok = set_args(d->chase, err, 3, sz, v) && run_1d_items(d, d->chase, 1, &span, err);
  }
  if (ok) *per_load = span / steps;
  return ok;
}

/* ---- the signal path through host memory ---- */

#define SIG_TIMEOUT_S 0.5

/* Spins until *P == V (false after SIG_TIMEOUT_S from T0). */
static bool spin_until(volatile cl_int *p, cl_int v, double t0) {
  while (*p < v)
    if (now_s() - t0 > SIG_TIMEOUT_S) return false;
  return true;
}

/* The host buffer the signal probes share with the device (a
 * CL_MEM_USE_HOST_PTR buffer over page-aligned host memory). */
static bool sig_buffer(struct calib_dev *d, char **err) {
  if (d->sig_buf) return true;
  if (posix_memalign(&d->sig_host, 4096, 4096) != 0) {
    d->sig_host = NULL;
    *err = g_strdup("calibrate: posix_memalign: expected 4096 B of host memory, got none");
    return false;
  }
  memset(d->sig_host, 0, 4096);
  cl_int rc;
  d->sig_buf = clCreateBuffer(d->ctx, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 4096, d->sig_host,
                              &rc);
  if (rc != CL_SUCCESS) d->sig_buf = NULL;
  return cl_ok(rc, "clCreateBuffer USE_HOST_PTR", err);
}

bool calib_dev_signal(struct calib_dev *d, bool pingpong, int rounds, int reps, double *out,
                      double *spread, bool *seen_all, char **err) {
  *seen_all = false;
  cl_device_type type = 0;
  clGetDeviceInfo(d->dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  if (!(type & CL_DEVICE_TYPE_CPU)) return true; /* no coherent host buffer (the CUDA probe) */
  if (!sig_buffer(d, err)) return false;
  volatile cl_int *f = d->sig_host;
  double *x = g_new(double, (size_t)reps);
  cl_int spin = SPIN_LIMIT * 16;
  bool ok = true, seen = true;
  size_t one = 1;
  for (int r = pingpong ? -1 : -3; ok && seen && r < reps; r++) {
    f[0] = f[1] = 0;
    double t;
    if (!pingpong) { /* the enqueue to the kernel's store seen */
      cl_int v = r + 4;
      const size_t sz[] = {sizeof(cl_mem), sizeof v, sizeof spin};
      const void *a[] = {&d->sig_buf, &v, &spin};
      ok = set_args(d->sig_store, err, 3, sz, a);
      double t0 = now_s();
      ok = ok && cl_ok(clEnqueueNDRangeKernel(d->q, d->sig_store, 1, NULL, &one, &one, 0, NULL,
                                              NULL), "clEnqueueNDRangeKernel sig_store", err) &&
           cl_ok(clFlush(d->q), "clFlush", err);
      seen = ok && spin_until(&f[0], v, t0);
      t = now_s() - t0;
      f[1] = v;
    } else { /* round trips, the kernel running */
      const size_t sz[] = {sizeof(cl_mem), sizeof rounds, sizeof spin};
      const void *a[] = {&d->sig_buf, &rounds, &spin};
      ok = set_args(d->pingpong, err, 3, sz, a) &&
           cl_ok(clEnqueueNDRangeKernel(d->q, d->pingpong, 1, NULL, &one, &one, 0, NULL, NULL),
                 "clEnqueueNDRangeKernel pingpong", err) &&
           cl_ok(clFlush(d->q), "clFlush", err);
      f[0] = 1;
      seen = ok && spin_until(&f[1], 1, now_s()); /* the kernel has started */
      double t0 = now_s();
      for (cl_int i = 2; ok && seen && i <= rounds; i++) {
        f[0] = i;
        seen = spin_until(&f[1], i, now_s());
      }
      t = (now_s() - t0) / (rounds - 1);
      if (!seen) f[0] = rounds; /* let the kernel end */
    }
    ok = ok && cl_ok(clFinish(d->q), "clFinish", err);
    if (r >= 0) x[r] = t;
  }
  if (ok && seen) {
    struct calib_stat st = calib_stat_of(x, (size_t)reps);
    *out = st.median_s;
    *spread = st.spread;
    *seen_all = true;
  }
  g_free(x);
  return ok;
}

/* The store and the ping-pong into M (m->sig_ok false where not seen). */
static bool signal_path(struct calib_dev *d, struct calib_meas *m, char **err) {
  bool seen = false;
  m->sig_rounds = m->quick ? 200 : 2000;
  bool ok = calib_dev_signal(d, false, 0, m->reps, &m->sig_store.median_s, &m->sig_store.spread,
                             &seen, err);
  m->sig_ok = seen;
  ok = ok && (!seen || calib_dev_signal(d, true, m->sig_rounds, m->quick ? 3 : 9,
                                         &m->sig_pingpong.median_s, &m->sig_pingpong.spread,
                                         &m->sig_ok, err));
  return ok;
}

/* Host wall time of an empty kernel then a blocking 8 B read of device
 * memory (the copy home after a kernel, as the CG loop's dots). */
static bool copy_roundtrip(struct calib_dev *d, struct calib_meas *m, char **err) {
  if (!grids_for(d, 64, err)) return false;
  double *x = g_new(double, (size_t)m->reps), v;
  bool ok = true;
  for (int r = -m->warmups; ok && r < m->reps; r++) {
    double t = now_s();
    ok = enqueue_empty(d, NULL, err) &&
         cl_ok(clEnqueueReadBuffer(d->q, d->a, CL_TRUE, 0, sizeof v, &v, 0, NULL, NULL),
               "clEnqueueReadBuffer", err);
    if (ok && r >= 0) x[r] = now_s() - t;
  }
  if (ok) m->copy_rt = calib_stat_of(x, (size_t)m->reps);
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

/* One pass of the host-paced measurements into M (calib_dev_measure; X,
 * Y, Z: M->reps of scratch each): the enqueue, the round trip, an empty
 * kernel's spans, the wake gaps, the launch path, the queue's depths, a
 * small read, the Jacobi kernel's spans and back-to-back times against the
 * grid, the bursts, the copy home. */
static bool host_pass(struct calib_dev *d, bool quick, struct calib_meas *m, double *x, double *y,
                      double *z, char **err) {
  int R = m->reps;
  bool ok = true;
  ok = enqueue_stat(d, R, m->warmups, x, &m->submit, err);
  ok = ok && roundtrip_stat(d, R, m->warmups, &m->roundtrip, err);
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
  ok = ok && wake_gaps(d, quick ? 200 : 2000, m, err);
  /* The enqueue against arguments, ND-range and grid (launch_path). */
  ok = ok && launch_path(d, m, err);
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
    m->burst_enq_s[m->n_burst] = calib_stat_of(x, (size_t)reps).median_s;
    /* The same burst of empty kernels (no arguments). */
    for (int r = -m->warmups; ok && r < reps; r++) {
      ok = cl_ok(clFinish(d->q), "clFinish", err);
      double t = now_s();
      for (int64_t i = 0; ok && i < n; i++) ok = enqueue_empty(d, NULL, err);
      if (r >= 0) x[r] = now_s() - t;
    }
    ok = ok && cl_ok(clFinish(d->q), "clFinish", err);
    if (ok) m->burst_empty_s[m->n_burst++] = calib_stat_of(x, (size_t)reps).median_s;
  }
  return ok && copy_roundtrip(d, m, err);
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
  /* The host-paced measurements in passes, each value the median over them
   * (calib_meas_host_median: the host's state moves within a tenth of a
   * second). */
  int passes = quick ? 2 : CALIB_HOST_PASSES;
  struct calib_meas *pm = g_new(struct calib_meas, (size_t)passes);
  struct calib_range enq = {0};
  for (int p = 0; ok && p < passes; p++) {
    pm[p] = *m;
    ok = host_pass(d, quick, &pm[p], x, y, z, err);
    if (ok) calib_range_add(&enq, pm[p].submit.median_s);
  }
  if (ok) calib_meas_host_median(pm, passes, m);
  g_free(pm);
  if (ok && passes > 1) /* the host's states, for a reader of the host-paced values */
    fprintf(stderr, "calibrate: note: the host's enqueue over %d passes: %.2f .. %.2f us (the "
            "profile takes each host-paced value's median over the passes)\n", passes,
            enq.lo * 1e6, enq.hi * 1e6);
  size_t big = quick ? (size_t)4 << 20 : (size_t)256 << 20;
  int breps = quick ? 3 : 11;
  ok = ok && bandwidth(d, big, true, breps, &m->h2d_bps, err) &&
       bandwidth(d, big, false, breps, &m->d2h_bps, err);
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
  static const int64_t ws_mib[] = {1,  2,  4,  8,  12, 16, 20,  24,  28,  32,
                                   40, 48, 56, 64, 80, 96, 128, 256, 512};
  G_STATIC_ASSERT(G_N_ELEMENTS(ws_mib) <= CALIB_MAX_WS);
  /* At 1 WG per CU too, each work-item re-reading its own elements and
   * (rot) the elements moving between WGs from pass to pass (17 WGs on). */
  for (size_t i = 0; ok && i < G_N_ELEMENTS(ws_mib) && (!quick || ws_mib[i] <= 8); i++) {
    m->ws[m->n_ws] = ws_mib[i] << 20;
    ok = calib_dev_stream(d, m->ws[m->n_ws], m->cus * m->max_wgs_per_cu, sreps,
                          &m->ws_bps[m->n_ws], err) &&
         calib_dev_stream(d, m->ws[m->n_ws], m->cus, sreps, &m->ws_k1_bps[m->n_ws], err) &&
         stream_bps(d, m->ws[m->n_ws], m->cus, sreps, 17 * CALIB_ITEMS, &m->ws_k1_rot_bps[m->n_ws],
                    err);
    m->n_ws++;
  }
  ok = ok && calib_dev_stream(d, m->ws[0], m->cus, sreps, &m->ws_small_k1_bps, err);
  /* A load's latency against the working set: one work-item's chase. */
  static const int64_t chase_kib[] = {256,   1024,  4096,  8192,  12288, 16384, 20480, 24576,
                                      28672, 32768, 40960, 49152, 57344, 65536, 98304, 131072};
  G_STATIC_ASSERT(G_N_ELEMENTS(chase_kib) <= CALIB_MAX_WS);
  for (size_t i = 0; ok && i < G_N_ELEMENTS(chase_kib) && (!quick || chase_kib[i] <= 8192); i++) {
    m->chase_ws[m->n_chase] = chase_kib[i] << 10;
    ok = chase_at(d, m->chase_ws[m->n_chase], quick ? 16384 : 65536, &m->chase_s[m->n_chase], err);
    m->n_chase++;
  }
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
  m->pj_iters_long = quick ? 40 : 500;
  static const int64_t pj_grids[] = {512, 1024, 2048, 4096}, pj_quick[] = {64, 128};
  const int64_t *pg = quick ? pj_quick : pj_grids;
  size_t npg = quick ? G_N_ELEMENTS(pj_quick) : G_N_ELEMENTS(pj_grids);
  struct calib_range mhz = {0};
  GString *uneven = g_string_new(NULL);
  for (size_t i = 0; ok && i < npg; i++)
    for (int64_t k = 1; ok && k <= m->max_wgs_per_cu && m->n_pj < CALIB_MAX_PJ; k *= 2) {
      double sp, t1 = 0, t2 = 0;
      bool res = false;
      int n1 = m->pj_iters, n2 = m->pj_iters_long;
      struct calib_run_state st[2] = {{0}};
      ok = calib_dev_persist(d, pg[i], m->cus * k, n1, quick ? 3 : 5, &t1, &sp, &res, &st[0], err);
      if (ok && res)
        ok = calib_dev_persist(d, pg[i], m->cus * k, n2, quick ? 3 : 5, &t2, &sp, &res, &st[1],
                               err);
      if (!res) break; /* WGs not co-resident: no persistent loop at k or above */
      for (int j = 0; j < 2; j++) {
        if (st[j].mhz > 0) calib_range_add(&mhz, st[j].mhz);
        if (st[j].most > k)
          g_string_append_printf(uneven, " %" PRId64 "^2 at %" PRId64 " (%d on one SM, %d "
                                 "iterations);", pg[i], k, st[j].most, j ? n2 : n1);
      }
      calib_two_lengths(t1, n1, t2, n2, &m->pj_iter_s[m->n_pj], &m->pj_fixed_s[m->n_pj]);
      /* its tiles alone (no barrier), the same two lengths: with the loop less the
       * barrier, an upper bound of its tiles (calib.c, persist_rate) */
      double s1 = 0, s2 = 0, fx;
      ok = ok && calib_dev_persist_tiles(d, pg[i], m->cus * k, n1, quick ? 3 : 5, &s1, err) &&
           calib_dev_persist_tiles(d, pg[i], m->cus * k, n2, quick ? 3 : 5, &s2, err);
      if (ok) calib_two_lengths(s1, n1, s2, n2, &m->pj_tiles_s[m->n_pj], &fx);
      m->pj_grid[m->n_pj] = pg[i];
      m->pj_k[m->n_pj++] = k;
    }
  if (ok && mhz.n > 0) /* NVIDIA: how the loop ran, for a reader of a slow point */
    fprintf(stderr, "calibrate: note: the persistent loop ran at %.0f .. %.0f MHz (WG 0's SM); "
            "%s%s\n", mhz.lo, mhz.hi, uneven->len ? "more WGs on an SM than asked at" :
            "never more WGs on an SM than asked", uneven->str);
  g_string_free(uneven, TRUE);
  /* The CG-like kernels, each alone, out of the caches on a GPU. */
  m->cg_side = quick ? 128 : 2048;
  for (int w = 0; ok && w < CALIB_CG_KINDS; w++)
    ok = calib_dev_cg_kernel(d, m->cg_side, w, 1, sreps, &m->cg_b2b_s[w], &m->cg_exec_s[w], err);
  double b2b_nop2;
  ok = ok && calib_dev_cg_kernel(d, m->cg_side, CALIB_CG_DOT, 0, sreps, &b2b_nop2,
                                 &m->dot_nopass2_exec_s, err);
  /* The copy home, and the signal path through host memory. */
  ok = ok && signal_path(d, m, err);
  /* The enqueue again: whether the host changed state meanwhile. */
  ok = ok && enqueue_stat(d, R, m->warmups, x, &m->submit_end, err);
  g_free(x);
  g_free(y);
  g_free(z);
  return ok;
}

#endif
