/* An op source: a program's ranks read op by op, each from a cursor of its
 * own, while the run goes (a GOAL schedule, workloads/inputs/goal.c), as
 * a trace replay feeds a simulator the calls a live program makes. The
 * lowering driver (workloads/policies/stream.c) pulls ops from it as the
 * models ask for steps and lowers each through the policy's hook, the
 * same hook a program in memory goes through. A source comes with what a
 * first pass over it learnt: each rank's summary (summary.h), in the order
 * its ops are read, and whether it can be read so (dependency items near
 * their ops, no cycle, messages that pair up). It can also be read whole
 * into a program (the runs that cannot stream). A rank is a dependency
 * graph (program.h): ops and their dependencies; no loops, no syncs;
 * collectives as one op (WL_COLL) the driver writes out op by op
 * (coll.h, wl_coll_source), their calls, kernels and process groups in the
 * source's table (descs). */
#ifndef WL_SOURCE_H
#define WL_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "program.h"
#include "summary.h"

enum wl_item_kind {
  WL_ITEM_OP,  /* the rank's next op */
  WL_ITEM_DEP, /* a dependency of an op read already */
  WL_ITEM_END, /* the rank has no more items */
};

/* A dependency's op that the reader has forgotten (wl_source_ops.forget):
 * it was lowered, placed or ended long enough ago not to be named. */
#define WL_GONE UINT64_MAX

struct wl_item {
  uint8_t kind;        /* enum wl_item_kind */
  struct wl_op op;     /* OP: kind, peer, bytes, tag, parts, stores, n_wgs, time_ps, on, line */
  uint32_t handle;     /* OP: what forget names it by */
  /* DEP: op A (read, its index in the rank's order read) waits for op B
   * (WL_GONE: forgotten) to end, or with ON_START to start; TA and TB: the
   * tags the driver gave them when it took them (TB 0 when gone). */
  uint64_t a, b;
  uint32_t ta, tb;
  bool on_start;
};

struct wl_cursor;

struct wl_source_ops {
  /* A cursor at the start of RANK; close with close. OPS_ONLY (a rank
   * that is a chain, wl_source.chains): its next yields no DEP items (each
   * op but the first waits for the end of the one before, and for nothing
   * else), its ops have no handle and forget is not called. */
  struct wl_cursor *(*open)(void *ctx, uint32_t rank, bool ops_only);
  void (*close)(void *ctx, struct wl_cursor *c);
  /* The next item of C's rank into *IT: 1; an op only when TAKE (else 2,
   * the op left for the next call, kind WL_ITEM_OP: the driver's window is
   * full); END once the rank has no more (then again at each call). TAG:
   * what DEP items name the op by (TAKE). -1: it cannot be read (the input
   * changed since its first pass). Only the fields of the item's kind are
   * set. */
  int (*next)(void *ctx, struct wl_cursor *c, struct wl_item *it, bool take, uint32_t tag);
  /* The op of C's rank taken with HANDLE will not be named again by the
   * driver: a dependency on it is WL_GONE. */
  void (*forget)(void *ctx, struct wl_cursor *c, uint32_t handle);
  /* The whole program (its graph ranks, checked by the same rules as
   * the first pass), or NULL and *ERR. */
  struct wl_program *(*program)(void *ctx, char **err);
  /* What is wrong with its messages (matched false), as the program read
   * whole would say it (wl_program_check, wl_program_unmatched): an input
   * error; *DEADLOCK when it is a receive no send matches (which would
   * deadlock the run: an input error too). */
  char *(*unmatched)(void *ctx, bool *deadlock);
};

struct wl_source {
  const struct wl_source_ops *ops;
  void *ctx;
  uint32_t n_ranks;
  uint64_t n_ops;          /* every rank's */
  const struct wl_sum *sums; /* per rank */
  const bool *chains;      /* per rank: each op but the first waits for the end of the
                              one before and for nothing else, the first for nothing
                              (Schedgen's usual output); NULL: none known */
  struct wl_descs *descs;  /* the kernels and calls its ops name (wl_op.kernel); a
                              driver that writes its collectives out adds to it */
  struct wl_sum total;     /* every rank's counts (no spans) */
  uint32_t lag;            /* the most ops a DEP item comes after the op that waits */
  bool cycle;              /* some rank's dependencies make a cycle */
  bool matched;            /* every (source, destination, tag)'s sends and receives pair
                              up, with the same sizes in order, and every collective's
                              ranks call it alike (so that its messages pair up too,
                              written out) */
  /* What an error about the input as a whole names: the scenario key
   * ("workload.file"), and the rule a source too long to read whole must
   * keep for its dependencies to stream (the lag's). */
  const char *key;
  const char *lag_rule;
};

#endif
