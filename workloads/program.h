/* The per-rank intermediate form a workload builds and a policy lowers
 * (DESIGN.md Sec. 4): per rank, an ordered list of compute phases, sends and
 * receives. It names no policy and no hardware. */
#ifndef WL_PROGRAM_H
#define WL_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum wl_op_kind {
  WL_COMPUTE, /* n_wgs work-groups, each flops_per_wg and bytes_per_wg */
  WL_SEND,    /* bytes to rank peer, matched by (sender, tag) at the peer */
  WL_RECV,    /* bytes from rank peer with tag */
};

struct wl_op {
  uint8_t kind;          /* enum wl_op_kind */
  uint32_t n_wgs;        /* WL_COMPUTE, >= 1 */
  int64_t flops_per_wg;  /* WL_COMPUTE */
  int64_t bytes_per_wg;  /* WL_COMPUTE: bytes of memory traffic */
  uint32_t peer;         /* WL_SEND, WL_RECV */
  int64_t bytes;         /* WL_SEND, WL_RECV */
  uint32_t tag;          /* WL_SEND, WL_RECV */
};

struct wl_rank {
  struct wl_op *ops;
  size_t n_ops, cap;
};

struct wl_program {
  uint32_t n_ranks;
  struct wl_rank *ranks;
  /* The rank whose completion is the run's time (ping: the receiver). */
  uint32_t measured_rank;
};

/* A program of N_RANKS empty ranks; free with wl_program_free. */
struct wl_program *wl_program_new(uint32_t n_ranks);
void wl_program_free(struct wl_program *p);

void wl_compute(struct wl_program *p, uint32_t rank, uint32_t n_wgs, int64_t flops_per_wg,
                int64_t bytes_per_wg);
void wl_send(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes, uint32_t tag);
void wl_recv(struct wl_program *p, uint32_t rank, uint32_t peer, int64_t bytes, uint32_t tag);

/* The receive of rank SEND->peer that matches SEND from rank SRC: the first
 * recv there naming SRC and the same tag. Its index in that rank's ops, or
 * -1 when there is none. */
ptrdiff_t wl_match_recv(const struct wl_program *p, uint32_t src, const struct wl_op *send);

/* 1-based ordinal of op I of RANK among that rank's receives (the flag a
 * lowering gives it). */
uint32_t wl_recv_ordinal(const struct wl_program *p, uint32_t rank, size_t i);
uint32_t wl_count(const struct wl_program *p, uint32_t rank, enum wl_op_kind kind);

/* Checks that every send has a matching receive of the same size and every
 * receive a send. False and *ERR (g_free) naming the op when not. */
bool wl_program_check(const struct wl_program *p, char **err);

#endif
