/* The chain workload: one GPU runs a chain of steps (an NPBench-like
 * program: stencils, BLAS-like calls, reductions), each a compute phase with
 * its kernel class, grid, flops and bytes written out, and how it depends on
 * the step before (Baydamirli, Ben-Nun and Unat, "Autonomous Execution for
 * Multi-GPU Systems: Compiler Support", Sec. III, IV-A; issue 31). The policy
 * picks the lowering: a kernel per step on a stream (gds, CuPy/DaCe-Pure),
 * the same replayed as a captured graph (cpu.launch graph), or one fused
 * persistent kernel (cpufree); `library` says whether the code calls a
 * vendor library for the steps that have a library form (DaCe-cuBLAS). */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "checks.h"
#include "nodeprog.h"
#include "program.h"
#include "workload.h"

struct chain_config {
  bool library;         /* steps with a `library:` form call it where launched */
  int64_t iterations;   /* the steps run this many times, in a loop */
  const void *steps;    /* struct sc_node: the list of steps */
};

#define PAR_CONFIG struct chain_config
static const struct par_decl chain_decls[] = {
    PAR(library, PAR_BOOL, "false", NULL, NULL,
      "steps with a `library:` form call the vendor library where they are kernels of their "
      "own (DaCe-cuBLAS, CuPy); false: every step is generated code (DaCe-Pure). A fused "
      "kernel cannot call a library: it runs the generated form either way"),
    PAR(iterations, PAR_INT, "1", "1", "1000000",
      "times the steps run, in a loop (a time loop: the study's iterative kernels)"),
    PAR(steps, PAR_TREE, "", NULL, NULL, NULL,
      "a list of steps {name, class, wgs, flops, bytes, sync, concurrent, block, rows, "
      "row_len, working_set, library: {flops, bytes}} (configs/fused/README.md)"),
};
#undef PAR_CONFIG

const struct par_group chain_params = {
    .name = "chain",
    .doc = "one GPU runs a chain of steps: a kernel each, library calls, or one fused kernel "
           "(issue 31)",
    .decls = chain_decls,
    .n_decls = PAR_COUNT(chain_decls),
    .config_size = sizeof(struct chain_config),
};

static const char *const step_keys[] = {"name",  "class", "wgs",  "flops",       "bytes",
                                        "sync",  "concurrent", "block", "rows", "row_len",
                                        "working_set", "library"};

/* A non-negative number at KEY of M (UNIT: its dimension; a plain number
 * may be written 2.1e9), DEF when absent and not REQUIRED. */
static bool number(const struct sc_node *m, const char *path, const char *key,
                   enum unit_dim dim, bool required, int64_t def, int64_t lo, int64_t hi,
                   int64_t *out, char **err) {
  const struct sc_node *v = sc_map_get(m, key);
  char *kp = g_strdup_printf("%s.%s", path, key);
  bool ok = true;
  if (!v) {
    if (required) {
      *err = sc_error_at(m, kp, "expected %s, got nothing",
                         dim == UNIT_NONE ? "a number" : units_dim_name(dim));
      ok = false;
    }
    *out = def;
  } else if (v->kind != SC_SCALAR) {
    *err = sc_error_expected(v, kp, dim == UNIT_NONE ? "a number" : units_dim_name(dim));
    ok = false;
  } else {
    char *why = NULL;
    double d = 0;
    if (dim == UNIT_NONE ? !units_parse_real(v->scalar, UNIT_NONE, &d, &why)
                         : !units_parse_int(v->scalar, dim, out, &why)) {
      *err = sc_error_at(v, kp, "expected %s, got '%s'%s%s",
                         dim == UNIT_NONE ? "a number" : units_dim_name(dim), v->scalar,
                         why ? ": " : "", why ? why : "");
      ok = false;
    } else if (dim == UNIT_NONE) {
      if (!(d >= (double)lo && d <= (double)hi)) {
        *err = sc_error_at(v, kp, "expected a number in [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                                  "], got %s", lo, hi, v->scalar);
        ok = false;
      }
      *out = (int64_t)llround(d);
    }
    if (ok && (*out < lo || *out > hi)) {
      *err = sc_error_at(v, kp, "expected a value in [%" G_GINT64_FORMAT ", %" G_GINT64_FORMAT
                                "], got %s", lo, hi, v->scalar);
      ok = false;
    }
    g_free(why);
  }
  g_free(kp);
  return ok;
}

/* KEY of M, when written, one of A (*OUT false) and B (*OUT true). */
static bool pick(const struct sc_node *m, const char *path, const char *key, const char *a,
                 const char *b, bool *out, char **err) {
  const struct sc_node *v = sc_map_get(m, key);
  if (!v) return true;
  if (v->kind != SC_SCALAR || (strcmp(v->scalar, a) && strcmp(v->scalar, b))) {
    char *kp = g_strdup_printf("%s.%s", path, key), *want = g_strdup_printf("%s or %s", a, b);
    *err = sc_error_expected(v, kp, want);
    g_free(kp);
    g_free(want);
    return false;
  }
  *out = !strcmp(v->scalar, b);
  return true;
}

/* One step, as read. */
struct step {
  int64_t wgs, flops, bytes, block, rows, row_len, ws, lib_flops, lib_bytes;
  uint8_t kclass;
  bool tile, concurrent, has_lib;
};

static bool read_step(const struct sc_node *m, const char *path, struct step *s, char **err) {
  static const char *const lib_keys[] = {"flops", "bytes"};
  const int64_t big = INT64_MAX / 4;
  *s = (struct step){0};
  if (m->kind != SC_MAP) {
    *err = sc_error_expected(m, path, "a step (a mapping)");
    return false;
  }
  if (!sc_check_keys(m, path, step_keys, G_N_ELEMENTS(step_keys), err)) return false;
  if (!number(m, path, "wgs", UNIT_NONE, true, 1, 1, 1 << 24, &s->wgs, err) ||
      !number(m, path, "flops", UNIT_NONE, false, 0, 0, big, &s->flops, err) ||
      !number(m, path, "bytes", UNIT_SIZE, false, 0, 0, big, &s->bytes, err) ||
      !number(m, path, "block", UNIT_NONE, false, 0, 0, 1 << 20, &s->block, err) ||
      !number(m, path, "rows", UNIT_NONE, false, 0, 0, big, &s->rows, err) ||
      !number(m, path, "row_len", UNIT_NONE, false, 0, 0, big, &s->row_len, err) ||
      !number(m, path, "working_set", UNIT_SIZE, false, 0, 0, big, &s->ws, err))
    return false;
  const struct sc_node *cls = sc_map_get(m, "class");
  if (cls) {
    int k = cls->kind == SC_SCALAR ? wl_kclass_named(cls->scalar) : -1;
    if (k < 0 || k == KC_LIBRARY) { /* a library call is a step's `library:` form */
      char *kp = g_strdup_printf("%s.class", path);
      *err = sc_error_expected(cls, kp, "a kernel class (streaming, stencil, spmv, reduction, "
                                        "axpy, gemm)");
      g_free(kp);
      return false;
    }
    s->kclass = (uint8_t)k;
  }
  const struct sc_node *sync = sc_map_get(m, "sync");
  if (!pick(m, path, "sync", "grid", "tile", &s->tile, err) ||
      !pick(m, path, "concurrent", "false", "true", &s->concurrent, err))
    return false;
  if (s->concurrent && sync) {
    char *kp = g_strdup_printf("%s.sync", path);
    *err = sc_error_at(sync, kp, "expected no sync on a concurrent step (it depends on "
                                 "nothing before it), got %s", sync->scalar);
    g_free(kp);
    return false;
  }
  if (s->block && !s->rows) {
    char *kp = g_strdup_printf("%s.rows", path);
    *err = sc_error_at(m, kp, "expected the reductions (rows) of a step with a block, got "
                              "nothing");
    g_free(kp);
    return false;
  }
  const struct sc_node *lib = sc_map_get(m, "library");
  if (lib) {
    char *kp = g_strdup_printf("%s.library", path);
    bool ok = lib->kind == SC_MAP;
    if (!ok) *err = sc_error_expected(lib, kp, "a mapping {flops, bytes}");
    ok = ok && sc_check_keys(lib, kp, lib_keys, G_N_ELEMENTS(lib_keys), err) &&
         number(lib, kp, "flops", UNIT_NONE, false, 0, 0, big, &s->lib_flops, err) &&
         number(lib, kp, "bytes", UNIT_SIZE, false, 0, 0, big, &s->lib_bytes, err);
    g_free(kp);
    if (!ok) return false;
    s->has_lib = true;
  }
  return true;
}

/* Ceiling of A / B. */
static int64_t per_wg(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* Appends step S to rank 0 of P, after the step before it (FIRST: none). */
static void add_step(struct wl_program *p, const struct step *s, bool first, bool library) {
  if (s->concurrent) {
    wl_lane(p, 0, 1);
  } else {
    wl_lane(p, 0, 0);
    if (!first) {
      if (s->tile) wl_tile_sync(p, 0);
      else wl_sync(p, 0);
    }
  }
  uint32_t wgs = (uint32_t)s->wgs;
  wl_compute(p, 0, wgs, per_wg(s->flops, s->wgs), per_wg(s->bytes, s->wgs));
  wl_kclass(p, 0, s->kclass, s->ws, 0, 0);
  if (s->block) wl_block(p, 0, (uint32_t)s->block, s->rows, s->row_len);
  if (library && s->has_lib)
    wl_library(p, 0, per_wg(s->lib_flops, s->wgs), per_wg(s->lib_bytes, s->wgs));
}

/* The program of C's steps, or NULL and *ERR located at the offending key. */
static struct wl_program *chain_build(const struct scenario *sc, const struct chain_config *c,
                                      char **err) {
  const struct sc_node *list = c->steps;
  if (!list || list->kind != SC_SEQ || list->n_items == 0) {
    *err = list ? sc_error_expected(list, "workload.steps", "a list of steps")
                : wl_error_at(sc, "workload.steps", "expected a list of steps, got nothing");
    return NULL;
  }
  struct step *steps = g_new(struct step, list->n_items);
  for (size_t i = 0; i < list->n_items; i++) {
    char *path = g_strdup_printf("workload.steps[%zu]", i);
    bool ok = read_step(list->items[i], path, &steps[i], err);
    if (ok && i == 0 && steps[i].concurrent) {
      *err = sc_error_at(list->items[i], path, "expected a first step that is not concurrent "
                                               "(nothing runs before it)");
      ok = false;
    }
    g_free(path);
    if (!ok) {
      g_free(steps);
      return NULL;
    }
  }
  struct wl_program *p = wl_program_new(1);
  p->measured_rank = 0;
  /* Iterations after the first: a loop that starts and ends at a grid sync
   * (the next iteration's first step reads the last one's output). */
  for (int64_t it = 0; it < MIN(c->iterations, 2); it++) {
    if (it == 1) {
      wl_lane(p, 0, 0);
      wl_sync(p, 0);
      wl_loop(p, 0, (uint32_t)(c->iterations - 1));
    }
    for (size_t i = 0; i < list->n_items; i++) add_step(p, &steps[i], i == 0, c->library);
    if (it == 1) {
      wl_lane(p, 0, 0);
      wl_sync(p, 0);
      wl_end(p, 0);
    }
  }
  wl_lane(p, 0, 0);
  g_free(steps);
  return p;
}

static bool chain_check(const struct wl_ctx *ctx, char **err) {
  struct hw_config hw = wl_hw_of(ctx->sc);
  if (!wl_check_nodes(ctx->sc, &hw, 1, "chain", err)) return false;
  struct wl_program *p = chain_build(ctx->sc, ctx->config, err);
  if (!p) return false;
  wl_program_free(p);
  return true;
}

static struct wl_program *chain_program(const struct wl_ctx *ctx, char **err) {
  return chain_build(ctx->sc, ctx->config, err);
}

const struct wl_type wl_chain = {
    .params = &chain_params,
    .default_policy = "gds",
    .check = chain_check,
    .program = chain_program,
};
