/* Checks a workload or a policy makes of its scenario before it builds or
 * lowers a program, each error located at the scenario key it is about
 * (file:line:col, sim/scenario.h), and the hardware groups of a scenario. */
#ifndef WL_CHECKS_H
#define WL_CHECKS_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "scenario.h"
#include "system.h"

/* An error at dotted PATH of SC (its deepest written ancestor; unlocated
 * when SC is NULL), "expected ..." by FMT. */
char *wl_error_at(const struct scenario *sc, const char *path, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

/* True when VALUE <= MAX; else *ERR at PATH of SC: "expected WHAT at most
 * MAX, got VALUE" (a workload's size check, computed without overflow). */
bool wl_check_at_most(const struct scenario *sc, const char *path, const char *what,
                       uint64_t value, uint64_t max, char **err);

/* A * B, or UINT64_MAX when that overflows (for size checks). */
uint64_t wl_mul_sat(uint64_t a, uint64_t b);

/* True when the network has at least NEED nodes; else *ERR at the
 * scenario's hardware.network.nodes naming WHAT needs them. */
bool wl_check_nodes(const struct scenario *sc, const struct hw_config *hw, uint64_t need,
                     const char *what, char **err);

/* The hardware groups of a scenario, each fetched by its declaration. */
struct hw_config wl_hw_of(const struct scenario *sc);

#endif
