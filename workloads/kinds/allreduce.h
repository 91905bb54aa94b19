/* The allreduce workload: a ring reduce-scatter then allgather of SIZE bytes
 * over every node (GPU-TN Sec. 5.4.1, Fig. 10). Each reduce-scatter step
 * receives a chunk of size / N bytes from the left neighbour and adds it
 * into the local one on `wgs` WGs, which then send it on to the right; the
 * allgather forwards the finished chunks. The trigger granularity says how
 * a chunk is cut into messages: one per work-item's store count (work-item:
 * one message per WG, wg_items stores each), per WG (work-group), per
 * mixed_wgs WGs (mixed), or one per chunk (kernel). Policies that send at
 * kernel boundaries move each chunk as one message whatever it says. The
 * run's time is when the last rank is done. */
#ifndef WL_ALLREDUCE_H
#define WL_ALLREDUCE_H

#include "param.h"
#include "program.h"

enum ar_granularity { AR_WORK_ITEM, AR_WORK_GROUP, AR_KERNEL, AR_MIXED };

/* Group "allreduce": see allreduce_params for units, defaults and ranges. */
struct allreduce_config {
  int64_t size;           /* bytes reduced */
  int64_t elem;           /* bytes per element */
  int64_t wgs;            /* WGs of each reduction */
  int granularity;        /* enum ar_granularity */
  int64_t mixed_wgs;      /* AR_MIXED: WGs per message */
  int64_t wg_items;       /* work-items per WG (AR_WORK_ITEM: stores per WG) */
  int64_t flops_per_elem;
};

extern const struct par_group allreduce_params;

/* The program of CFG over RANKS (>= 2) ranks; free with wl_program_free.
 * NULL and *ERR (g_free) when mixed_wgs does not divide wgs. */
struct wl_program *wl_allreduce_program(const struct allreduce_config *cfg, uint32_t ranks,
                                        char **err);

struct wl_ctx;
/* The allreduce's rules for CTX's scenario, C its config (allreduce's own,
 * or the one dlproject runs; WHAT names the workload): at least 2 nodes,
 * mixed_wgs divides wgs, the program within WL_MAX_OPS. */
bool wl_allreduce_check(const struct wl_ctx *ctx, const struct allreduce_config *c,
                        const char *what, char **err);

#endif
