/* The GOAL workload: a LogGOPSim/Schedgen schedule (`num_ranks N`, `rank R
 * { ... }` blocks of labelled `send SIZEb to R tag T`, `recv SIZEb from R
 * tag T` and `calc TIME` ops with optional `cpu N` / `nic N`, and `lX
 * requires lY` / `lX irequires lY` dependencies, `/ * ... * /` and `//`
 * comments) run under every policy. Rank i runs on node i; the run's time is
 * when the last rank finishes. The file is an op source (source.h): it
 * streams, a window at a time, with the same result as read whole
 * (workload.stream_window). Syntax: configs/README.md. */
#ifndef WL_GOAL_H
#define WL_GOAL_H

#include <stdio.h>

#include "cpu.h"
#include "param.h"
#include "program.h"

enum goal_calc_on { GOAL_ON_AUTO, GOAL_ON_CPU, GOAL_ON_GPU };
enum goal_reading { GOAL_READ_STREAM, GOAL_READ_WHOLE };

/* Group "goal": see goal_params for units, defaults and ranges. */
struct goal_config {
  char *file;          /* the schedule's path (relative to the scenario) */
  int64_t time_unit;   /* ps per calc unit */
  int calc_on;         /* enum goal_calc_on */
  int64_t stream_window; /* ops read ahead that wait, per rank; 0: no streaming */
  int read;            /* enum goal_reading */
  int64_t whole_limit; /* the most ops read whole */
};

extern const struct par_group goal_params;

/* Reads the GOAL schedule at PATH into graph ranks: a calc of V units
 * lasts V * TIME_UNIT_PS on device CALC_ON (enum wl_where). Free with
 * wl_program_free. NULL and *ERR ("path:line:col: workload.file: expected
 * X, got Y") on a malformed file, or ("expected a readable GOAL file, got
 * ...", no location) on one that cannot be read; NULL with *ERR NULL and *NUM_RANKS set
 * when the schedule has more ranks than MAX_RANKS. */
struct wl_program *wl_goal_read(const char *path, int64_t time_unit_ps, uint8_t calc_on,
                                uint32_t max_ranks, uint64_t *num_ranks, char **err);

/* Writes P as a GOAL schedule to F: every op labelled l<index>, sends and
 * receives with their tag (a message in parts as one), a compute as a
 * `calc` of its time on every core of CPU (wl_cpu_time) in units of
 * TIME_UNIT_PS, rounded up; a graph rank's dependencies as they are, a
 * sequence rank's as a chain (each op requires the one before; syncs
 * vanish). */
void wl_goal_write(const struct wl_program *p, const struct cpu_config *cpu, int64_t time_unit_ps,
                   FILE *f);

#endif
