/* The per-rank intermediate form a workload builds and a policy lowers
 * (DESIGN.md Sec. 4): per rank, an ordered list of compute phases, sends,
 * receives and device syncs. It names no policy and no hardware. Loops are
 * unrolled by the workload (iterations, ring steps): the form stays flat. */
#ifndef WL_PROGRAM_H
#define WL_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum wl_op_kind {
  WL_COMPUTE, /* n_wgs work-groups, each flops_per_wg and bytes_per_wg */
  WL_SEND,    /* bytes to rank peer, matched by (sender, tag) at the peer */
  WL_RECV,    /* bytes from rank peer with tag */
  WL_SYNC,    /* all of the rank's compute before it ends before any after it
                 starts (a kernel boundary, or a device-wide barrier) */
};

/* Which WGs of a compute phase make (or consume) a message: first +
 * j * stride for j < count; count 0 = all of them. */
struct wl_wgsel {
  uint32_t first, stride, count;
};

struct wl_op {
  uint8_t kind;          /* enum wl_op_kind */
  uint32_t n_wgs;        /* WL_COMPUTE, >= 1 */
  int64_t flops_per_wg;  /* WL_COMPUTE */
  int64_t bytes_per_wg;  /* WL_COMPUTE: bytes of memory traffic */
  uint32_t peer;         /* WL_SEND, WL_RECV */
  int64_t bytes;         /* WL_SEND, WL_RECV */
  uint32_t tag;          /* WL_SEND, WL_RECV: unique per (sender, receiver) */
  /* WL_SEND, WL_RECV: the data is `parts` equal pieces, piece j made by
   * (send) or consumed by (recv) WGs [j*n/parts, (j+1)*n/parts) of the
   * nearest compute phase before (send) or after (recv). Policies that send
   * at kernel boundaries move the pieces as one message. >= 1. */
  uint32_t parts;
  uint32_t stores;       /* WL_SEND: trigger stores per producing WG (1 per
                            work-item at work-item granularity), >= 1 */
  struct wl_wgsel sel;   /* WL_SEND, WL_RECV with parts 1: the WGs that make
                            (consume) it, e.g. a halo's edge; default all */
  /* WL_COMPUTE: the kernel class (enum kclass, models/nodeprog.h; 0 =
   * streaming) and what it needs, set by wl_kclass. */
  uint8_t kclass;
  int64_t ws_bytes;      /* the phase's whole working set (all WGs); 0: unknown */
  int64_t reuse_per_wg;  /* bytes per WG re-read from a gathered vector */
  int64_t gather_bytes;  /* that vector's size */
  uint8_t lane;          /* 0, or 1: communication and the work feeding it,
                            free to overlap lane 0 until the next sync (a
                            second stream, or specialized WGs) */
  /* Filled by wl_program_check: */
  uint32_t match;        /* WL_SEND: index of the matching receive at peer */
  uint32_t flag;         /* WL_RECV: first of its `parts` flag ids (1-based) */
};

struct wl_rank {
  struct wl_op *ops;
  size_t n_ops, cap;
  uint8_t lane;          /* the lane ops are added to (wl_lane) */
  uint32_t n_flags;      /* filled by wl_program_check */
};

#define WL_ALL_RANKS UINT32_MAX

struct wl_program {
  uint32_t n_ranks;
  struct wl_rank *ranks;
  /* The rank whose completion is the run's time (ping: the receiver), or
   * WL_ALL_RANKS: the latest of them all (collectives). */
  uint32_t measured_rank;
  bool checked;
};

/* A program of N_RANKS empty ranks, measured on all ranks; free with
 * wl_program_free. */
struct wl_program *wl_program_new(uint32_t n_ranks);
void wl_program_free(struct wl_program *p);

void wl_compute(struct wl_program *p, uint32_t rank, uint32_t n_wgs, int64_t flops_per_wg,
                int64_t bytes_per_wg);
/* A send and a receive of one piece. */
void wl_send(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes, uint32_t tag);
void wl_recv(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes, uint32_t tag);
/* Same, in PARTS pieces; the send's producers store STORES times each. */
void wl_send_parts(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes,
                   uint32_t tag, uint32_t parts, uint32_t stores);
void wl_recv_parts(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes,
                   uint32_t tag, uint32_t parts);
void wl_sync(struct wl_program *p, uint32_t rank);
/* Declares the LAST compute op of RANK to be of class KCLASS (enum kclass)
 * with working set WS_BYTES (all its WGs; 0: unknown), REUSE_PER_WG bytes
 * per WG re-read from a gathered vector of GATHER_BYTES (SpMV's x; 0, 0
 * for other classes). */
void wl_kclass(struct wl_program *p, uint32_t rank, uint8_t kclass, int64_t ws_bytes,
               int64_t reuse_per_wg, int64_t gather_bytes);
/* Ops added to RANK from now on go to LANE (0 or 1). */
void wl_lane(struct wl_program *p, uint32_t rank, uint8_t lane);
/* Restricts the last op of RANK (a send or receive of one part) to SEL. */
void wl_select(struct wl_program *p, uint32_t rank, struct wl_wgsel sel);

uint32_t wl_count(const struct wl_program *p, uint32_t rank, enum wl_op_kind kind);

/* Checks that every send has exactly one matching receive of the same size
 * and parts, and every receive one send; fills match, flag and n_flags.
 * False and *ERR (g_free) naming the op when not. Idempotent. */
bool wl_program_check(struct wl_program *p, char **err);

/* The receive matching send I of RANK (after wl_program_check). */
const struct wl_op *wl_matching_recv(const struct wl_program *p, uint32_t rank, size_t i);

#endif
