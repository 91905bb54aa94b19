/* The discrete Jacobi step as OpenCL C source, one item a grid point of an
 * N x N grid, the border copied: calibrate's and validate-real's kernel
 * (calib_ocl.c) and the standalone probes' that time it
 * (probes/sync_parts.c, subbuf.c, host_state.c), one text, so that a probe
 * times the kernel the profile is measured and validated with. */
#ifndef TRIGSIM_JACOBI_CL_H
#define TRIGSIM_JACOBI_CL_H

#define CALIB_JACOBI_CL                                                                  \
  "__kernel void jacobi(__global const float *a, __global float *b, int n) {\n"         \
  "  int x = get_global_id(0), y = get_global_id(1);\n"                                 \
  "  if (x >= n || y >= n) return;\n"                                                   \
  "  int i = y * n + x;\n"                                                              \
  "  if (x == 0 || y == 0 || x == n - 1 || y == n - 1) { b[i] = a[i]; return; }\n"      \
  "  b[i] = 0.25f * (a[i - 1] + a[i + 1] + a[i - n] + a[i + n]);\n"                     \
  "}\n"

#endif
