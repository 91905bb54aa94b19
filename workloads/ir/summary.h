/* What a lowering needs to know of a rank before it lowers the rank's first
 * op: a first pass over the rank (program.h), made op by op so that a
 * program in memory (wl_sum_rank) and an input read while it runs (a GOAL
 * schedule's first pass, workloads/inputs/goal.c) give the same summary.
 * Counts, and the shapes a kernel holding a run of ops takes: its lane 0
 * grid, its communication WGs, whether it waits (workloads/policies/kernel.c).
 * Spans are the runs of ops one kernel could hold: the ops between device
 * syncs and loop markers, a collective's ops (wl_op.region, its loop
 * markers too) apart from the others; any other sync or loop marker is in
 * no span. */
#ifndef WL_SUMMARY_H
#define WL_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "program.h"

/* The shape inputs of a run of ops (kernel.c, pol_kern_open): over its
 * ops but pack phases (wl_op.pack), which a kernel drops. */
struct wl_shape {
  uint32_t n0;          /* the lane 0 computes' WGs, the most of them (0: none) */
  bool mixed;           /* lane 0 computes of different WG counts (only a persistent
                           kernel holds them, kernel.c) */
  uint32_t n1;          /* the most WGs of a lane 1 compute */
  bool lane1;           /* some op is in lane 1 */
  bool waits;           /* a receive or a sync */
  /* The distinct selectors (count > 0) of its lane 0 ops, packs too: a
   * folded grid keeps them progressions where it can (kernel.c). */
  struct wl_wgsel *sels;
  uint32_t n_sels, cap_sels;
};

struct wl_span {
  uint64_t first, n;    /* its ops, in the order they are lowered */
  uint32_t region;      /* the collective's (wl_op.region), 0: none */
  struct wl_shape shape;
};

struct wl_sum {
  uint64_t ops, sends, recvs, computes, syncs, pieces; /* pieces: the sends' parts */
  uint64_t colls;       /* collectives kept as one op (WL_COLL) */
  uint64_t most_runs;   /* the most times an op runs (its loops' counts multiplied) */
  struct wl_shape all;  /* over every op (a sync counts as a wait) */
  struct wl_span *spans;
  uint64_t n_spans, cap_spans;
  /* Building: the loops open and their counts multiplied, whether the
   * last op ended a span. */
  uint64_t runs[WL_MAX_DEPTH + 1];
  uint32_t depth;
  bool open;
};

/* An empty summary; free with wl_sum_clear. */
void wl_sum_init(struct wl_sum *s);
/* Adds op O (the next in the rank's order). */
void wl_sum_add(struct wl_sum *s, const struct wl_op *o);
void wl_sum_clear(struct wl_sum *s);
/* Adds S's counts (ops .. colls; no shape, no span) to T's. */
void wl_sum_merge(struct wl_sum *t, const struct wl_sum *s);
/* The summary of RANK of P, in its order. */
void wl_sum_rank(const struct wl_program *p, uint32_t rank, struct wl_sum *s);
/* The span of op I (its index in the rank's order), found from span *AT
 * on (a cursor the caller keeps, 0 at the rank's start: ops come in
 * order), or NULL (a sync or loop marker). */
const struct wl_span *wl_sum_span(const struct wl_sum *s, uint64_t i, uint64_t *at);

#endif
