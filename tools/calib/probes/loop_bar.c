/* Where a persistent Jacobi loop's iteration goes, WG by WG (issue 28: at
 * 512^2 and 6 - 8 WGs a CU the H200's loop is up to 0.7 us off its tiles
 * alone + the barrier table's B(WGs) as models/gpu.h composes them). The
 * loop is calibrate's (jacobi_persist and its barrier gbar, calib_ocl.c,
 * the error flag polled; the two grids back to back in one buffer) with
 * WG leader stamps on %globaltimer (one clock for every SM) and %clock64
 * (its own SM's) in a window of REC iterations after WARM: when it left
 * the previous barrier (the release seen), when it arrived at this one
 * (its tiles done), and its arrive's place in the counter's order.
 * Per case: the loop's slope (runs of 50 and 500, median of 5; stamped and
 * not), its tiles alone (no barrier), then over the window, per iteration
 * and its median: the spread of the WGs' starts and of their arrivals on
 * globaltimer, each WG's tiles on its clock (min / median / max), the
 * start offset of the last tenth to arrive, and the gap from the last
 * arrival to the first WG seeing the release. A case's raw stamps go to
 * DIR/loop_bar-N-K.csv when DIR is given (512^2 at 4, 6, 8 WGs a CU;
 * 1024^2 at 8), with the SM each WG ran on (%smid) and the tile set it
 * took: WG g takes WG g's tiles, or with "half" those of WG g + G/2 (mod
 * G), so that two runs tell a slow SM from slow addresses. BACKOFF (ns, 0
 * by default): a poller waits that long on %globaltimer (no memory
 * traffic) between its polls of the barrier's generation, so that a run
 * tells whether the pollers' loads slow the WGs already at work. NVIDIA
 * only (inline PTX).
 *   gcc -O2 -std=c11 tools/calib/probes/loop_bar.c -lOpenCL -lm -o loop_bar
 *   ./loop_bar [DIR [half|same [BACKOFF]]] */
#define _POSIX_C_SOURCE 199309L
#define CL_TARGET_OPENCL_VERSION 300
#define PROBE_NAME "loop_bar"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../probe_cl.h"

enum { WG = 256, REPS = 5, WARM = 200, REC = 40, SPIN = 1 << 26 };

static const char *src =
    "ulong gt(void) { ulong t; asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t)); return t; }\n"
    "ulong ck(void) { ulong t; asm volatile(\"mov.u64 %0, %%clock64;\" : \"=l\"(t)); return t; }\n"
    "ulong sm(void) { uint s; asm volatile(\"mov.u32 %0, %%smid;\" : \"=r\"(s)); return s; }\n"
    /* calibrate's gbar (calib_ocl.c), the arrive's order returned: a copy, so that
     * calibrate's own barrier, which the profile times, stays as it is */
    "int gbar(__global volatile int *bar, int nwg, __global volatile int *err, int spin,\n"
    "         __local int *ord, int backoff) {\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "  if (get_local_id(0) == 0) {\n"
    "    int gen = bar[1];\n"
    "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "    *ord = atomic_inc(&bar[0]);\n"
    "    if (*ord == nwg - 1) {\n"
    "      atomic_xchg(&bar[0], 0);\n"
    "      atomic_inc(&bar[1]);\n"
    "    } else {\n"
    "      int s = 0;\n"
    "      while (bar[1] == gen && !err[0]) {\n"
    "        if (++s > spin) { err[0] = 1; break; }\n"
    "        if (backoff) { ulong t0 = gt(); while (gt() - t0 < (ulong)backoff) {} }\n"
    "      }\n"
    "    }\n"
    "    mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "  }\n"
    "  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "  return *ord;\n"
    "}\n"
    /* rec[(it - warm) * G + g]: start gt, arrival gt, tiles in clock64, order | SM << 32;
     * WG g takes the tiles of w = (g + rot) % G */
    "__kernel void loop(__global float *ab, int n, int iters, __global volatile int *bar,\n"
    "                   __global volatile int *err, int spin, int sync, int warm, int rec_n,\n"
    "                   __global ulong *rec, int rot, int backoff) {\n"
    "  __local int ord;\n"
    "  int G = get_num_groups(0), g = get_group_id(0), w = (g + rot) % G, l = get_local_id(0);\n"
    "  __global float *a = ab, *b = ab + (size_t)n * n;\n"
    "  int tx = (n + 15) / 16, tiles = tx * tx;\n"
    "  for (int it = 0; it < iters; it++) {\n"
    "    int r = it - warm;\n"
    "    bool stamp = l == 0 && r >= 0 && r < rec_n;\n"
    "    ulong g0 = 0, c0 = 0;\n"
    "    if (stamp) { g0 = gt(); c0 = ck(); }\n"
    "    __global const float *s = (it & 1) ? b : a;\n"
    "    __global float *d = (it & 1) ? a : b;\n"
    CALIB_JACOBI_TILES_CL
    "    barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);\n"
    "    ulong g1 = 0, c1 = 0;\n"
    "    if (stamp) { g1 = gt(); c1 = ck(); }\n"
    "    int o = sync ? gbar(bar, G, err, spin, &ord, backoff) : 0;\n"
    "    if (stamp) {\n"
    "      __global ulong *e = rec + 4 * ((size_t)r * G + g);\n"
    "      e[0] = g0; e[1] = g1; e[2] = c1 - c0; e[3] = (ulong)o | sm() << 32;\n"
    "    }\n"
    "  }\n"
    "}\n";

struct ctx {
  cl_command_queue q;
  cl_kernel k;
  cl_mem bar, err;
};

static void set_int(cl_kernel k, int i, int v) {
  cl_int x = v;
  die(clSetKernelArg(k, (cl_uint)i, sizeof x, &x), "clSetKernelArg");
}

/* One run of ITERS iterations of NWG WGs: its wall time (s). */
static double run(struct ctx *c, size_t nwg, int iters) {
  size_t g = nwg * WG, l = WG;
  int zero[2] = {0, 0};
  die(clEnqueueWriteBuffer(c->q, c->bar, CL_TRUE, 0, sizeof zero, zero, 0, NULL, NULL), "bar");
  die(clEnqueueWriteBuffer(c->q, c->err, CL_TRUE, 0, sizeof(int), zero, 0, NULL, NULL), "err");
  set_int(c->k, 2, iters);
  double t0 = now();
  die(clEnqueueNDRangeKernel(c->q, c->k, 1, NULL, &g, &l, 0, NULL, NULL), "enqueue");
  die(clFinish(c->q), "clFinish");
  double t = now() - t0;
  int e = 0;
  die(clEnqueueReadBuffer(c->q, c->err, CL_TRUE, 0, sizeof e, &e, 0, NULL, NULL), "err");
  if (e) {
    fprintf(stderr, PROBE_NAME ": %zu WGs were not all resident\n", nwg);
    exit(1);
  }
  return t;
}

/* The time per iteration: the slope between runs of 50 and 500 (median of
 * REPS each, after a warm-up). */
static double slope(struct ctx *c, size_t nwg) {
  const int it[2] = {50, 500};
  double med[2];
  for (int s = 0; s < 2; s++) {
    double t[REPS];
    run(c, nwg, it[s]);
    for (int r = 0; r < REPS; r++) t[r] = run(c, nwg, it[s]);
    med[s] = median(t, REPS);
  }
  return (med[1] - med[0]) / (it[1] - it[0]);
}

static double pct(double *v, int n, double q) { /* v sorted */
  double x = q * (n - 1);
  int i = (int)x;
  return i + 1 < n ? v[i] + (x - i) * (v[i + 1] - v[i]) : v[n - 1];
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : NULL;
  int half = argc > 2 && !strcmp(argv[2], "half"); /* WG g takes tile set g + G/2 */
  int backoff = argc > 3 ? atoi(argv[3]) : 0;       /* ns a poller waits between polls */
  cl_device_id dev = probe_device(NULL, 0);
  cl_uint cus = 0;
  char name[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cus, &cus, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
  cl_int rc;
  cl_context cx;
  struct ctx c;
  c.k = probe_kernel(dev, src, "loop", "inline PTX is NVIDIA's", &cx, &c.q);
  c.bar = clCreateBuffer(cx, CL_MEM_READ_WRITE, 2 * sizeof(int), NULL, &rc);
  die(rc, "bar");
  c.err = clCreateBuffer(cx, CL_MEM_READ_WRITE, sizeof(int), NULL, &rc);
  die(rc, "err");
  static const int cases[][2] = {{512, 1}, {512, 2}, {512, 3}, {512, 4}, {512, 5}, {512, 6},
                                 {512, 7}, {512, 8}, {1024, 4}, {1024, 8}, {2048, 8}};
  size_t maxwg = (size_t)cus * 8;
  cl_mem rec = clCreateBuffer(cx, CL_MEM_READ_WRITE, 4 * sizeof(cl_ulong) * REC * maxwg, NULL, &rc);
  die(rc, "rec");
  cl_ulong *h = malloc(4 * sizeof(cl_ulong) * REC * maxwg);
  double *v = malloc(sizeof(double) * maxwg), *per[7];
  for (int i = 0; i < 7; i++) per[i] = malloc(sizeof(double) * REC);
  printf("# loop_bar: %s, %u CUs, %d-item WGs; window of %d iterations after %d\n", name, cus, WG,
         REC, WARM);
  printf("# case: slope stamped / plain / tiles alone (us an iteration); over the window, medians "
         "of the iterations' start spread, arrival spread, last-arrival-to-first-start gap (us, "
         "globaltimer), each WG's tiles min / median / max (us, clock64 at the SM's MHz), the last "
         "tenth's start offset (us after the first start)\n");
  for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
    int n = cases[ci][0], kk = cases[ci][1];
    size_t nwg = (size_t)cus * (size_t)kk;
    size_t bytes = (size_t)n * n * sizeof(float);
    float *init = calloc((size_t)2 * n * n, sizeof(float));
    for (size_t i = 0; i < (size_t)2 * n * n; i++) init[i] = (float)(i % 7);
    cl_mem ab = clCreateBuffer(cx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 2 * bytes, init, &rc);
    die(rc, "grids");
    free(init);
    cl_int spin = SPIN;
    die(clSetKernelArg(c.k, 0, sizeof ab, &ab), "arg");
    set_int(c.k, 1, n);
    die(clSetKernelArg(c.k, 3, sizeof c.bar, &c.bar), "arg");
    die(clSetKernelArg(c.k, 4, sizeof c.err, &c.err), "arg");
    die(clSetKernelArg(c.k, 5, sizeof spin, &spin), "arg");
    die(clSetKernelArg(c.k, 9, sizeof rec, &rec), "arg");
    int rot = half ? (int)nwg / 2 : 0;
    set_int(c.k, 10, rot);
    set_int(c.k, 11, backoff);
    set_int(c.k, 7, WARM);
    double sl[3];
    set_int(c.k, 6, 1), set_int(c.k, 8, REC), sl[0] = slope(&c, nwg);
    set_int(c.k, 8, 0), sl[1] = slope(&c, nwg);
    set_int(c.k, 6, 0), sl[2] = slope(&c, nwg);
    /* the stamped run, read back */
    set_int(c.k, 6, 1), set_int(c.k, 8, REC);
    run(&c, nwg, WARM + REC + 1);
    die(clEnqueueReadBuffer(c.q, rec, CL_TRUE, 0, 4 * sizeof(cl_ulong) * REC * nwg, h, 0, NULL,
                            NULL), "read");
    /* the SMs' clock: every WG's tiles in ticks over the same on
     * globaltimer, summed over the window */
    double ticks = 0, ns = 0;
    for (int r = 0; r < REC; r++)
      for (size_t w = 0; w < nwg; w++) {
        cl_ulong *e = h + 4 * ((size_t)r * nwg + w);
        ticks += (double)e[2], ns += (double)(e[1] - e[0]);
      }
    double ghz = ns > 0 ? ticks / ns : 1.98;
    for (int r = 0; r + 1 < REC; r++) {
      cl_ulong *e = h + 4 * ((size_t)r * nwg), *f = h + 4 * ((size_t)(r + 1) * nwg);
      double s0 = 1e300, s1 = 0, a0 = 1e300, a1 = 0, n0 = 1e300, late = 0;
      int cnt = 0;
      for (size_t w = 0; w < nwg; w++) {
        s0 = fmin(s0, (double)e[4 * w]), s1 = fmax(s1, (double)e[4 * w]);
        a0 = fmin(a0, (double)e[4 * w + 1]), a1 = fmax(a1, (double)e[4 * w + 1]);
        n0 = fmin(n0, (double)f[4 * w]);
        v[w] = (double)e[4 * w + 2] / ghz;
      }
      for (size_t w = 0; w < nwg; w++) /* the last tenth to arrive, by the counter's order */
        if ((e[4 * w + 3] & 0xffffffffu) >= nwg - (nwg + 9) / 10) late += (double)e[4 * w] - s0, cnt++;
      qsort(v, nwg, sizeof *v, cmp);
      per[0][r] = (s1 - s0) * 1e-3, per[1][r] = (a1 - a0) * 1e-3, per[2][r] = (n0 - a1) * 1e-3;
      per[3][r] = v[0] * 1e-3, per[4][r] = pct(v, (int)nwg, 0.5) * 1e-3;
      per[5][r] = v[nwg - 1] * 1e-3, per[6][r] = cnt ? late / cnt * 1e-3 : 0;
    }
    double m[7];
    for (int i = 0; i < 7; i++) m[i] = median(per[i], REC - 1);
    printf("%4d^2 %d WGs a CU (%zu WGs): %.3f / %.3f / %.3f; start %.3f, arrival %.3f, gap %.3f; "
           "tiles %.3f / %.3f / %.3f; last tenth +%.3f (%.0f MHz)\n",
           n, kk, nwg, sl[0] * 1e6, sl[1] * 1e6, sl[2] * 1e6, m[0], m[1], m[2], m[3], m[4], m[5],
           m[6], ghz * 1e3);
    if (dir && (n == 512 ? kk % 2 == 0 && kk >= 4 : n == 1024 && kk == 8)) {
      char path[512];
      snprintf(path, sizeof path, "%s/loop_bar-%d-%d.csv", dir, n, kk);
      FILE *o = fopen(path, "w");
      if (!o) {
        perror(path);
        return 1;
      }
      fprintf(o, "iteration,wg,tile_set,sm,start_ns,arrive_ns,tiles_ticks,order\n");
      for (int r = 0; r < REC; r++)
        for (size_t w = 0; w < nwg; w++) {
          cl_ulong *e = h + 4 * ((size_t)r * nwg + w);
          fprintf(o, "%d,%zu,%zu,%llu,%lld,%lld,%llu,%llu\n", r, w, (w + (size_t)rot) % nwg,
                  (unsigned long long)(e[3] >> 32), (long long)(e[0] - h[0]),
                  (long long)(e[1] - h[0]), (unsigned long long)e[2],
                  (unsigned long long)(e[3] & 0xffffffffu));
        }
      fclose(o);
    }
    clReleaseMemObject(ab);
    fflush(stdout);
  }
  return 0;
}
