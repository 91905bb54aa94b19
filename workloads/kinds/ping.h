/* The ping workload: rank 0 runs a tiny kernel, then sends SIZE bytes to
 * rank 1, which receives them (GPU-TN Sec. 5.2, Fig. 8: the latency
 * decomposition microbenchmark). The run's time is when rank 1 noticed. */
#ifndef WL_PING_H
#define WL_PING_H

#include "param.h"
#include "program.h"

/* Group "ping": see ping_params for units, defaults and ranges. */
struct ping_config {
  int64_t size;          /* bytes sent */
  int64_t wgs;           /* work-groups of the kernel */
  int64_t flops_per_wg;
  int64_t bytes_per_wg;
};

extern const struct par_group ping_params;

/* The two-rank program of CFG; free with wl_program_free. */
struct wl_program *wl_ping_program(const struct ping_config *cfg);

#endif
