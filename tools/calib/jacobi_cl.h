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

/* One iteration's tiles of the persistent Jacobi loop: WG w of G takes
 * 16x16 tiles w, w + G, ... of the N x N grid (tx tiles a side, `tiles` in
 * all) from s into d, work-item l a point: calibrate's jacobi_persist
 * (calib_ocl.c) and the probes that time that loop (wg_place.c,
 * loop_bar.c), one text. */
#define CALIB_JACOBI_TILES_CL                                                            \
  "    for (int t = w; t < tiles; t += G) {\n"                                            \
  "      int x = (t % tx) * 16 + l % 16, y = (t / tx) * 16 + l / 16;\n"                   \
  "      if (x >= n || y >= n) continue;\n"                                               \
  "      int i = y * n + x;\n"                                                            \
  "      if (x == 0 || y == 0 || x == n - 1 || y == n - 1) d[i] = s[i];\n"                \
  "      else d[i] = 0.25f * (s[i - 1] + s[i + 1] + s[i - n] + s[i + n]);\n"              \
  "    }\n"

#endif
