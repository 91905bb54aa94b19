/* A scenario's points, bound and run: one point without a `sweep:`
 * section, else one per sweep point (tools/app/sweep.h), each bound (and so
 * checked) before anything runs; and the swr_point_fn that runs every
 * policy of a point. What `run`, `sweep` and `fit` evaluate with. */
#ifndef WL_POINTS_H
#define WL_POINTS_H

#include <glib.h>
#include <stdbool.h>
#include <stddef.h>

#include "result.h"
#include "scenario.h"
#include "sweep.h"

struct points {
  struct sc_node *base;  /* the loaded tree, holding the sweep section (NULL: none kept) */
  struct sw_plan *plan;  /* NULL: no sweep */
  struct scenario **sc;  /* owned */
  size_t n;
  bool *pick;            /* the points run (n flags), NULL: every one */
};

static inline bool pts_picked(const struct points *p, size_t i) { return !p->pick || p->pick[i]; }

/* Loads PATH with SETS and binds every point; SEED, if not NULL, replaces
 * the scenario's seed before repetitions derive theirs. False and *ERR
 * (g_free); P is then partly filled: pts_free it either way. */
bool pts_load(const char *path, char **sets, const guint64 *seed, struct points *p, char **err);

/* TEXT ("2", "0,3-5": points numbered from 0, as --dump-config numbers
 * them) as N flags (g_free); NULL and, if ERR, *ERR otherwise. */
bool *pts_pick_parse(const char *text, size_t n, char **err);

/* pts_load of the points POINTS names ("2", "0,3-5": numbered from 0, as
 * --dump-config numbers them; NULL: every one): the others are bound (each
 * point's scenario is there) but not checked, and do not run (pts_picked). */
bool pts_load_some(const char *path, char **sets, const guint64 *seed, const char *points,
                   struct points *p, char **err);

/* Appends SC (taken over) to P and checks everything `run` would reject
 * (wl_check); false and *ERR otherwise (SC is P's either way). */
bool pts_add(struct points *p, struct scenario *sc, char **err);

void pts_free(struct points *p);

/* Runs every policy of point I of the struct points USER (a swr_point_fn,
 * tools/app/sweep_run.h). */
bool pts_run_point(void *user, size_t i, struct sim_result **runs, size_t *n_runs, char **err);

#endif
