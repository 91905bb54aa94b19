/* The Jacobi workloads (jacobi.h), one generator for 2D and 3D: per
 * iteration, a compute phase of ceil(nx/t) * ceil(ny/t) * nz WGs (t =
 * wg_tile), then a face of points * elem bytes to and from each neighbour,
 * made and consumed by the WGs on that face where they form a progression
 * (x faces always; y faces when nz = 1; z faces: a whole plane), else by
 * all. Iterations are separated by a sync (the next sweep reads the
 * neighbours' points). A face that is not contiguous in the row-major
 * domain (x faces; y faces of a 3D domain) is packed into a contiguous
 * buffer by a kernel before the sends and unpacked by one after the
 * receives, as NVIDIA's CUDA-aware MPI Jacobi does for its left and right
 * edges (NVIDIA-developer-blog/code-samples, posts/cuda-aware-mpi-example/
 * src/Device.cu: BufferToHaloKernel packs both edges, one thread per row,
 * HaloToBufferKernel unpacks them); policies that move halos by stores
 * inside the stencil kernel drop those phases (wl_op.pack); with pack host,
 * a CUDA-aware MPI's datatype engine does it a blocking copy per
 * contiguous run (pack_faces). Row slabs (2D, px = 1) and z slabs (3D)
 * have contiguous faces only: no pack. Runs under every lowering policy. */
#include "jacobi.h"

#include <glib.h>
#include <stddef.h>

#include "checks.h"
#include "workload.h"

#define PAR_CONFIG struct jacobi2d_config
static const struct par_decl jacobi2d_decls[] = {
    PAR(grid, PAR_INT, "1024", "2", "1048576", "points per side of one rank's N x N domain"),
    PAR(px, PAR_INT, "2", "1", "4096", "ranks along x"),
    PAR(py, PAR_INT, "2", "1", "4096", "ranks along y"),
    PAR(periodic, PAR_BOOL, "true", NULL, NULL,
      "wrap the rank grid around, so every rank has 4 neighbours"),
    PAR(iterations, PAR_INT, "1", "1", "100000", "sweeps (GPU-TN Fig. 9: one)"),
    PAR(elem, PAR_SIZE, "4B", "1B", "64B", "bytes per point (single precision)"),
    PAR(flops_per_point, PAR_INT, "5", "0", "1000000", "flops per point update (4 adds, 1 multiply)"),
    PAR(bytes_per_point, PAR_SIZE, "8B", "0B", "1MiB",
      "memory traffic per point update (read once, write once; neighbours hit in cache)"),
    PAR(wg_tile, PAR_INT, "16", "1", "1024", "a WG updates wg_tile x wg_tile points (16 x 16 = 256 work-items)"),
    PAR(overlap, PAR_BOOL, "false", NULL, NULL,
      "compute the boundary first on WGs of its own and send it while the interior computes"),
    PAR(compute, PAR_BOOL, "true", NULL, NULL,
      "false: kernels do no work (the communication and control overheads alone)"),
    PAR(pack, PAR_ENUM, "kernel", NULL, NULL, "kernel|fused|host",
      "strided faces (x faces) packed by a kernel before the sends and unpacked by one after "
      "(NVIDIA's CUDA-aware MPI Jacobi), written into contiguous buffers by the sweep itself, "
      "or packed and unpacked by the host through a CUDA-aware MPI's datatype engine (DaCe + "
      "MPI, under hdn: each run of contiguous points, one point of an x face, a blocking "
      "copy between GPU and host at the sender and another at the receiver, each timed as "
      "the hardware runs a small copy home: cpu.launch_submit, gpu.copy_start, bus, "
      "cpu.pageable_copy)"),
};
#undef PAR_CONFIG

const struct par_group jacobi2d_params = {
    .name = "jacobi2d",
    .doc = "2D Jacobi: compute, then halos to 4 neighbours, per iteration (GPU-TN Fig. 9)",
    .decls = jacobi2d_decls,
    .n_decls = PAR_COUNT(jacobi2d_decls),
    .config_size = sizeof(struct jacobi2d_config),
};

#define Q(key, type, def, min, max, doc) \
  {#key, type, def, min, max, NULL, doc, offsetof(struct jacobi3d_config, key)}
static const struct par_decl jacobi3d_decls[] = {
    Q(nx, PAR_INT, "256", "1", "1048576", "points along x of one rank's domain"),
    Q(ny, PAR_INT, "256", "1", "1048576", "points along y of one rank's domain"),
    Q(nz, PAR_INT, "256", "1", "1048576", "points along z of one rank's domain"),
    Q(px, PAR_INT, "1", "1", "4096", "ranks along x"),
    Q(py, PAR_INT, "1", "1", "4096", "ranks along y"),
    Q(pz, PAR_INT, "2", "1", "4096", "ranks along z (px = py = 1: a slab decomposition)"),
    Q(periodic, PAR_BOOL, "false", NULL, NULL, "wrap the rank grid around"),
    Q(iterations, PAR_INT, "1", "1", "100000", "sweeps"),
    Q(elem, PAR_SIZE, "8B", "1B", "64B", "bytes per point (double precision, CPU-free Sec. 4)"),
    Q(flops_per_point, PAR_INT, "7", "0", "1000000", "flops per point update (6 adds, 1 multiply)"),
    Q(bytes_per_point, PAR_SIZE, "16B", "0B", "1MiB", "memory traffic per point update"),
    Q(wg_tile, PAR_INT, "32", "1", "1024", "a WG updates wg_tile x wg_tile points of one plane"),
    Q(compute, PAR_BOOL, "true", NULL, NULL,
      "false: kernels do no work (CPU-free Fig. 6, no-compute)"),
    {"pack", PAR_ENUM, "kernel", NULL, NULL, "kernel|fused|host",
     "strided faces (x, and y when nz > 1) packed by a kernel before the sends and unpacked by "
     "one after, written into contiguous buffers by the sweep itself, or packed and unpacked "
     "by the host through a CUDA-aware MPI's datatype engine (DaCe + MPI, under hdn: each "
     "contiguous run of a face, nz of a y face and ny nz of an x face, a blocking copy "
     "between GPU and host at the sender and another at the receiver, timed as the hardware "
     "runs a small copy home; z slabs have no strided face)",
     offsetof(struct jacobi3d_config, pack)},
    Q(ops, PAR_INT, "1", "1", "64",
      "array operations the update is written as, each a kernel of its own over the domain "
      "moving bytes_per_point and doing flops_per_point / ops (an array library that runs "
      "each NumPy operation as a task: cuNumeric; issue 31); 1: one fused stencil kernel"),
};
#undef Q

const struct par_group jacobi3d_params = {
    .name = "jacobi3d",
    .doc = "3D 7-point Jacobi, a slab along z by default (CPU-free Fig. 6)",
    .decls = jacobi3d_decls,
    .n_decls = PAR_COUNT(jacobi3d_decls),
    .config_size = sizeof(struct jacobi3d_config),
};

/* Both workloads as one shape. */
struct stencil {
  int64_t n[3], p[3];
  bool periodic, overlap;
  bool pack; /* strided faces packed and unpacked by kernels of their own */
  bool host_pack; /* ... by the host CPU instead (JACOBI_PACK_HOST) */
  int64_t iterations, elem, flops, bytes, tile;
  int64_t ops; /* kernels the update is written as (jacobi3d ops), 1: one */
  int faces; /* 4 (2D) or 6 (3D): a face's tag is its index */
};

/* Faces: 0 -x, 1 +x, 2 -y, 3 +y, 4 -z, 5 +z. */
static int64_t neighbour(const struct stencil *s, const int64_t c[3], int f) {
  int64_t q[3] = {c[0], c[1], c[2]};
  int axis = f / 2;
  q[axis] += f % 2 ? 1 : -1;
  if (s->periodic) q[axis] = (q[axis] + s->p[axis]) % s->p[axis];
  if (q[axis] < 0 || q[axis] >= s->p[axis]) return -1;
  int64_t r = (q[2] * s->p[1] + q[1]) * s->p[0] + q[0];
  int64_t me = (c[2] * s->p[1] + c[1]) * s->p[0] + c[0];
  return r == me ? -1 : r; /* a 1-wide periodic axis has no neighbour */
}

/* The WGs on face F of a tx x ty x nz tiling (WG w = (z * ty + y) * tx + x),
 * or all of them (count 0) where they are no progression. */
static struct wl_wgsel face_wgs(uint32_t tx, uint32_t ty, uint32_t nz, int f) {
  switch (f) {
  case 0: return (struct wl_wgsel){0, tx, ty * nz};
  case 1: return (struct wl_wgsel){tx - 1, tx, ty * nz};
  case 2: return nz == 1 ? (struct wl_wgsel){0, 1, tx} : (struct wl_wgsel){0, 0, 0};
  case 3: return nz == 1 ? (struct wl_wgsel){(ty - 1) * tx, 1, tx} : (struct wl_wgsel){0, 0, 0};
  case 4: return (struct wl_wgsel){0, 1, tx * ty};
  default: return (struct wl_wgsel){(nz - 1) * tx * ty, 1, tx * ty};
  }
}

/* Points on face F of the domain. */
static int64_t face_points(const struct stencil *s, int f) {
  int axis = f / 2;
  return s->n[0] * s->n[1] * s->n[2] / s->n[axis];
}

/* Points of face F that lie next to each other in memory (x fastest, then
 * y, then z): the points of the axes below F's, or the whole face when
 * F's axis is one point thick. */
static int64_t face_run(const struct stencil *s, int f) {
  int axis = f / 2;
  if (s->n[axis] == 1) return face_points(s, f);
  int64_t run = 1;
  for (int k = 0; k < axis; k++) run *= s->n[k];
  return run;
}

/* Global memory moves in 32-byte sectors (CUDA C++ Best Practices Guide,
 * "Coalesced Access to Global Memory"): a strided run costs whole sectors. */
#define SECTOR_BYTES 32

/* The pack (or unpack) phase of rank R's strided faces towards neighbours
 * C (none: no phase): one work-item per point, WGs of tile^2 work-items
 * like the sweep's; each WG reads its points' runs in whole sectors and
 * writes them contiguous (a streaming kernel). With host packing, one host
 * op per strided face instead: a CUDA-aware MPI handed the face as a
 * strided datatype of the GPU's memory (DaCe's MPI nodes: an
 * MPI_Type_vector, spcl/dace dace/libraries/mpi/utils.py create_vector_ddt)
 * packs it, and unpacks it at the receiver, one contiguous run at a time,
 * each a blocking copy between the GPU and the host (Open MPI 4.1:
 * opal_datatype_pack.h / unpack.h copy a block through the convertor's
 * cbmemcpy, opal_cuda_memcpy in opal/datatype/opal_datatype_cuda.c, a
 * cuMemcpy; under UCX pml_ucx_generic_datatype_pack -> opal_convertor_pack,
 * ompi/mca/pml/ucx/pml_ucx_datatype.c): face_points / face_run copies of a
 * run each (wl_blocking_copies; timed by the hardware, sys_blocking_copy).
 * The face's traffic stays its roofline, where the policy has no GPU. */
static void pack_faces(struct wl_program *p, const struct stencil *s, uint32_t r,
                       const int64_t c[3]) {
  int64_t points = 0, traffic = 0;
  for (int f = 0; s->pack && f < s->faces; f++) {
    int64_t pts = face_points(s, f), run = face_run(s, f);
    if (run == pts || neighbour(s, c, f) < 0) continue;
    int64_t run_bytes = run * s->elem;
    int64_t t = pts / run * ((run_bytes + SECTOR_BYTES - 1) / SECTOR_BYTES * SECTOR_BYTES) +
                pts * s->elem;
    if (s->host_pack) { /* the MPI library's copies, a run each */
      wl_compute(p, r, 1, 0, t);
      p->ranks[r].ops[wl_last(p, r)].on = WL_ON_CPU;
      wl_kclass(p, r, KC_STREAM, t, 0, 0);
      wl_blocking_copies(p, r, pts / run, run_bytes);
      wl_pack(p, r);
    }
    points += pts;
    traffic += t;
  }
  if (!points || s->host_pack) return;
  int64_t items = s->tile * s->tile;
  uint32_t wgs = (uint32_t)((points + items - 1) / items);
  wl_compute(p, r, wgs, 0, (traffic + wgs - 1) / wgs);
  wl_kclass(p, r, KC_STREAM, traffic, 0, 0);
  wl_buffers(p, r, 2); /* the grid, the send (or receive) buffer */
  wl_elem(p, r, s->elem);
  wl_pack(p, r);
}

static void add_face(struct wl_program *p, uint32_t r, bool send, uint32_t peer, int64_t bytes,
                     uint32_t tag, struct wl_wgsel sel) {
  if (send) wl_send(p, r, peer, bytes, tag);
  else wl_recv(p, r, peer, bytes, tag);
  if (sel.count) wl_select(p, r, sel);
}

/* Rank R's iteration of S: (after the first, a sync) the sweep, then the
 * faces sent and received. */
static void stencil_iteration(struct wl_program *p, const struct stencil *s, uint32_t r,
                              bool sync) {
  uint32_t tx = (uint32_t)((s->n[0] + s->tile - 1) / s->tile);
  uint32_t ty = (uint32_t)((s->n[1] + s->tile - 1) / s->tile), nz = (uint32_t)s->n[2];
  uint32_t wgs = tx * ty * nz;
  int64_t pts = s->tile * s->tile;
  int64_t ws = s->n[0] * s->n[1] * s->n[2] * s->bytes; /* both grids */
  /* With overlap (2D): the boundary ring's 4 * grid points on WGs of pts
   * points each, `edge` WGs per face, face f on [f * edge, (f+1) * edge). */
  uint32_t edge = (uint32_t)((s->n[0] + pts - 1) / pts);
  uint32_t inner = (uint32_t)((MAX(s->n[0] * s->n[1] - 4 * s->n[0], pts) + pts - 1) / pts);
  int64_t c[3] = {r % s->p[0], (r / s->p[0]) % s->p[1], r / (s->p[0] * s->p[1])};
  if (sync) wl_sync(p, r);
  if (s->overlap) {
    wl_lane(p, r, 1);
    wl_compute(p, r, 4 * edge, pts * s->flops, pts * s->bytes);
    wl_kclass(p, r, KC_STENCIL, ws, 0, 0);
    wl_buffers(p, r, 2); /* the two grids */
    wl_elem(p, r, s->elem);
    wl_lane(p, r, 0);
    wl_compute(p, r, inner, pts * s->flops, pts * s->bytes);
    wl_kclass(p, r, KC_STENCIL, ws, 0, 0);
    wl_buffers(p, r, 2);
    wl_elem(p, r, s->elem);
    wl_lane(p, r, 1);
  } else {
    for (int64_t k = 0; k < MAX(s->ops, 1); k++) { /* one kernel per array operation */
      if (k > 0) wl_sync(p, r);
      wl_compute(p, r, wgs, pts * s->flops / MAX(s->ops, 1), pts * s->bytes);
      wl_kclass(p, r, KC_STENCIL, ws, 0, 0);
      wl_buffers(p, r, 2); /* the two grids */
      wl_elem(p, r, s->elem);
    }
  }
  /* A face sent towards F is tagged F; its receiver gets it from its
   * opposite side (iterations match in order). */
  for (int dir = 0; dir < 2; dir++) {
    if (dir == 0) pack_faces(p, s, r, c);
    for (int f = 0; f < s->faces; f++) {
      int64_t n = neighbour(s, c, f);
      if (n < 0) continue;
      struct wl_wgsel sel = s->overlap ? (struct wl_wgsel){(uint32_t)f * edge, 1, edge}
                                       : face_wgs(tx, ty, nz, f);
      uint32_t tag = (uint32_t)(dir == 0 ? f : f ^ 1);
      add_face(p, r, dir == 0, (uint32_t)n, face_points(s, f) * s->elem, tag, sel);
    }
  }
  pack_faces(p, s, r, c); /* unpack what came in */
  wl_lane(p, r, 0);
}

/* The first iteration, then the others in a loop. */
static struct wl_program *stencil_program(const struct stencil *s) {
  uint32_t ranks = (uint32_t)(s->p[0] * s->p[1] * s->p[2]);
  struct wl_program *p = wl_program_new(ranks);
  for (uint32_t r = 0; r < ranks; r++) {
    stencil_iteration(p, s, r, false);
    if (s->iterations < 2) continue;
    wl_loop(p, r, (uint32_t)(s->iterations - 1));
    stencil_iteration(p, s, r, true);
    wl_end(p, r);
  }
  return p;
}

static struct stencil stencil_2d(const struct jacobi2d_config *c) {
  return (struct stencil) {.n = {c->grid, c->grid, 1}, .p = {c->px, c->py, 1},
                      .periodic = c->periodic, .overlap = c->overlap,
                      .pack = c->pack != JACOBI_PACK_FUSED,
                      .host_pack = c->pack == JACOBI_PACK_HOST, .iterations = c->iterations, .elem = c->elem,
                      .flops = c->compute ? c->flops_per_point : 0,
                      .bytes = c->compute ? c->bytes_per_point : 0, .tile = c->wg_tile,
                      .faces = 4};
}

struct wl_program *wl_jacobi2d_program(const struct jacobi2d_config *c) {
  struct stencil s = stencil_2d(c);
  return stencil_program(&s);
}

static struct stencil stencil_3d(const struct jacobi3d_config *c) {
  return (struct stencil) {.n = {c->nx, c->ny, c->nz}, .p = {c->px, c->py, c->pz},
                      .periodic = c->periodic, .pack = c->pack != JACOBI_PACK_FUSED,
                      .host_pack = c->pack == JACOBI_PACK_HOST,
                      .iterations = c->iterations, .elem = c->elem,
                      .flops = c->compute ? c->flops_per_point : 0,
                      .bytes = c->compute ? c->bytes_per_point : 0, .tile = c->wg_tile,
                      .ops = c->ops, .faces = 6};
}

struct wl_program *wl_jacobi3d_program(const struct jacobi3d_config *c) {
  struct stencil s = stencil_3d(c);
  return stencil_program(&s);
}

/* The sizes of S fit (every product in 64 bits, each term at most 2^20):
 * its ranks the network's nodes (WHAT names them), a kernel's WGs 32 bits,
 * the program WL_MAX_OPS (per rank and iteration written at most a
 * compute, a sync, a pack, an unpack and a send and a receive per face;
 * with overlap two computes; with host packing a pack and an unpack per
 * face), and a face packed by the host at most WL_MAX_WGS copies. */
static bool stencil_check(const struct wl_ctx *ctx, const struct stencil *s, const char *what,
                          char **err) {
  struct hw_config hw = wl_hw_of(ctx->sc);
  uint64_t ranks = (uint64_t)(s->p[0] * s->p[1] * s->p[2]);
  uint64_t tx = (uint64_t)((s->n[0] + s->tile - 1) / s->tile);
  uint64_t ty = (uint64_t)((s->n[1] + s->tile - 1) / s->tile);
  uint64_t wgs = tx * ty * (uint64_t)s->n[2];
  const char *grid = s->faces == 4 ? "workload.grid" : "workload.nx";
  const char *wgs_what = s->faces == 4 ? "WGs of a kernel (ceil(grid / wg_tile)^2)"
                                       : "WGs of a kernel (ceil(nx / wg_tile) ceil(ny / wg_tile) nz)";
  uint64_t per = (uint64_t)(5 + (s->host_pack ? 4 : 2) * s->faces);
  uint64_t ops = wl_mul_sat(ranks * 2, per); /* two iterations written */
  /* Host packing: an x face's blocking copies, a point each (ny nz). */
  uint64_t copies = s->host_pack && s->p[0] > 1 ? (uint64_t)(s->n[1] * s->n[2]) : 0;
  return wl_check_nodes(ctx->sc, &hw, ranks, what, err) &&
         wl_check_at_most(ctx->sc, grid, wgs_what, wgs, WL_MAX_WGS, err) &&
         wl_check_at_most(ctx->sc, s->faces == 4 ? "workload.grid" : "workload.ny",
                          s->faces == 4 ? "blocking copies of a face packed by the host (grid)"
                                        : "blocking copies of a face packed by the host (ny nz)",
                          copies, WL_MAX_WGS, err) &&
         wl_check_at_most(ctx->sc, "hardware.network.nodes",
                           s->host_pack ? "program ops (ranks x 2 x (5 + 4 faces): an iteration, "
                                          "then a loop of the others)"
                                        : "program ops (ranks x 2 x (5 + 2 faces): an iteration, "
                                          "then a loop of the others)",
                           ops, WL_MAX_OPS, err);
}

enum jacobi_out { JACOBI_OUT_TIME_PER_ITERATION, JACOBI_OUT_COUNT };
static const struct sim_out_decl jacobi_outs[] = {
    [JACOBI_OUT_TIME_PER_ITERATION] = OUT(time_per_iteration_ps, UNIT_TIME,
                                          "the run's time over its iterations"),
};
static SIM_OUT_GROUP(jacobi_outputs, "jacobi", "jacobi.KEY (jacobi2d and jacobi3d)", jacobi_outs,
                     JACOBI_OUT_COUNT);

/* Runs P (taken over) on the context's policy; adds the time per
 * ITERATIONS. */
static bool stencil_run(const struct wl_ctx *ctx, struct wl_program *p, int64_t iterations,
                        struct sim_result *out, char **err) {
  bool ok = ctx->run(ctx, p, ctx->policy, out, err);
  wl_program_free(p);
  if (ok)
    sim_out_put_int(&out->counters, "jacobi", &jacobi_outs[JACOBI_OUT_TIME_PER_ITERATION],
                    out->total_ps / iterations);
  return ok;
}

static bool jacobi2d_check(const struct wl_ctx *ctx, char **err) {
  struct stencil s = stencil_2d(ctx->config);
  return stencil_check(ctx, &s, "jacobi2d (px * py)", err);
}

static bool jacobi3d_check(const struct wl_ctx *ctx, char **err) {
  struct stencil s = stencil_3d(ctx->config);
  return stencil_check(ctx, &s, "jacobi3d (px * py * pz)", err);
}

static bool jacobi2d_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  const struct jacobi2d_config *c = ctx->config;
  return stencil_run(ctx, wl_jacobi2d_program(c), c->iterations, out, err);
}

static bool jacobi3d_run(const struct wl_ctx *ctx, struct sim_result *out, char **err) {
  const struct jacobi3d_config *c = ctx->config;
  return stencil_run(ctx, wl_jacobi3d_program(c), c->iterations, out, err);
}

const struct wl_type wl_jacobi2d = {
    .params = &jacobi2d_params,
    .outputs = &jacobi_outputs,
    .default_policy = "gputn",
    .check = jacobi2d_check,
    .run = jacobi2d_run,
};

const struct wl_type wl_jacobi3d = {
    .params = &jacobi3d_params,
    .outputs = &jacobi_outputs,
    .default_policy = "gputn",
    .check = jacobi3d_check,
    .run = jacobi3d_run,
};
