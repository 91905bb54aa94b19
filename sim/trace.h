/* A timeline in the Chrome trace-event JSON format (opens in Perfetto and
 * chrome://tracing): one process per node, one thread ("track") per CPU core,
 * GPU queue, NIC, link. Times are written in microseconds with picosecond
 * precision. Written to a temporary file and renamed into place on close. */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "simtime.h"

struct trace;

/* Opens PATH for writing (through PATH.tmp). NULL and *ERR on failure. */
struct trace *trace_open(const char *path, char **err);

/* Declares a track and returns its id; names appear in the viewer. */
int trace_track(struct trace *t, const char *process, const char *thread);

/* A complete span ("X" event) on TRACK from START to END. */
void trace_span(struct trace *t, int track, const char *name, sim_time start, sim_time end);

/* An instant ("i" event) on TRACK. */
void trace_instant(struct trace *t, int track, const char *name, sim_time at);

/* Finishes the JSON and renames it into place; false and *ERR on failure.
 * Frees T in either case. */
bool trace_close(struct trace *t, char **err);

/* Drops the temporary file without writing PATH. */
void trace_abort(struct trace *t);

#endif
