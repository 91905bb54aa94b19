/* The host's state: what paces validate-real's host-paced cases (an
 * enqueue with its arguments set, a launch waited for) measured again and
 * again in one process, with the CPU the calling thread ran on. On the
 * H200 machines the enqueue moved between about 3.5 and 4.8 us within one
 * process (validate-real's `# host now` lines), and one profile carries
 * whichever its calibrate met. This probe tells whether that is the CPU a
 * thread lands on (a fixed cost per core: its cache, its NUMA node, a
 * sibling's load) or something in time (a clock that moves on any core).
 *   gcc -O2 -std=c11 tools/calib/probes/host_state.c -lOpenCL -o host_state
 *   ./host_state [SAMPLES [GAP_MS]]   (default 40 samples 100 ms apart; 0: the per-CPU pass only)
 * Prints: SAMPLES samples unpinned (the CPU at the start and at the end of
 * each, the median async enqueue of a burst and the median round trip of
 * an enqueue waited for by clFinish, us), then the same with the calling
 * thread pinned to each CPU of its affinity mask in turn, twice around. The
 * OpenCL runtime's own threads keep the mask they were made with: a
 * process pinned as a whole is `taskset -c CPU ./host_state 0`. */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#define PROBE_NAME "host_state"
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../probe_cl.h"

enum { BURST = 200, TRIPS = 101, REPS = 5 };

static const char *src =
    CALIB_JACOBI_CL;

static cl_command_queue q;
static cl_kernel k;
static cl_mem ga, gb;

/* One sample: the median over REPS bursts of BURST enqueues (arguments set
 * each, one clFinish at the end) of the host's time an enqueue, and the
 * median of TRIPS enqueues each waited for (us). */
static void sample(double *enq, double *trip) {
  size_t g[2] = {64, 64}, l[2] = {16, 16};
  double e[REPS], t[TRIPS];
  for (int r = 0; r < REPS; r++) {
    double t0 = now();
    for (int i = 0; i < BURST; i++) {
      probe_jacobi_args(k, ga, gb, 64, i);
      die(clEnqueueNDRangeKernel(q, k, 2, NULL, g, l, 0, NULL, NULL), "enqueue");
    }
    e[r] = (now() - t0) / BURST * 1e6;
    die(clFinish(q), "clFinish");
  }
  for (int i = 0; i < TRIPS; i++) {
    double t0 = now();
    probe_jacobi_args(k, ga, gb, 64, i);
    die(clEnqueueNDRangeKernel(q, k, 2, NULL, g, l, 0, NULL, NULL), "enqueue");
    die(clFinish(q), "clFinish");
    t[i] = (now() - t0) * 1e6;
  }
  *enq = median(e, REPS);
  *trip = median(t, TRIPS);
}

int main(int argc, char **argv) {
  int samples = argc > 1 ? atoi(argv[1]) : 40, gap_ms = argc > 2 ? atoi(argv[2]) : 100;
  cl_device_id dev = probe_device(NULL, 1);
  char dn[256] = "";
  clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof dn, dn, NULL);
  cl_int rc;
  cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &rc);
  die(rc, "clCreateContext");
  /* calibrate's and validate-real's queue: profiling enabled */
  cl_queue_properties prof[] = {CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};
  q = clCreateCommandQueueWithProperties(ctx, dev, prof, &rc);
  die(rc, "clCreateCommandQueue");
  cl_program p = probe_build(ctx, dev, src, NULL);
  k = clCreateKernel(p, "jacobi", &rc);
  die(rc, "clCreateKernel");
  size_t bytes = 64 * 64 * sizeof(float);
  ga = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
  gb = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &rc);
  die(rc, "clCreateBuffer");
  float zero = 0;
  die(clEnqueueFillBuffer(q, ga, &zero, sizeof zero, 0, bytes, 0, NULL, NULL), "fill");
  die(clEnqueueFillBuffer(q, gb, &zero, sizeof zero, 0, bytes, 0, NULL, NULL), "fill");
  die(clFinish(q), "clFinish");
  double e, t;
  sample(&e, &t); /* warm */
  cpu_set_t mask;
  CPU_ZERO(&mask);
  if (sched_getaffinity(0, sizeof mask, &mask) != 0) {
    perror(PROBE_NAME ": sched_getaffinity");
    return 1;
  }
  printf("# host_state: %s; %d CPUs in the mask; enqueue: median of %d bursts of %d (us an "
         "enqueue); trip: median of %d enqueues each waited for (us)\n",
         dn, CPU_COUNT(&mask), REPS, BURST, TRIPS);
  printf("%-9s %4s %4s %8s %8s\n", "sample", "cpu0", "cpu1", "enqueue", "trip");
  double t0 = now();
  for (int s = 0; s < samples; s++) {
    int c0 = sched_getcpu();
    sample(&e, &t);
    printf("free %-4d %4d %4d %8.3f %8.3f  %.2fs\n", s, c0, sched_getcpu(), e, t, now() - t0);
    fflush(stdout);
    struct timespec gap = {gap_ms / 1000, (long)(gap_ms % 1000) * 1000000L};
    nanosleep(&gap, NULL);
  }
  for (int round = 0; round < 2; round++)
    for (int c = 0; c < CPU_SETSIZE; c++) {
      if (!CPU_ISSET(c, &mask)) continue;
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(c, &one);
      if (sched_setaffinity(0, sizeof one, &one) != 0) continue;
      sample(&e, &t); /* settle on the CPU */
      sample(&e, &t);
      printf("pin%-6d %4d %4d %8.3f %8.3f  %.2fs\n", round, c, sched_getcpu(), e, t, now() - t0);
      fflush(stdout);
    }
  sched_setaffinity(0, sizeof mask, &mask);
  return 0;
}
