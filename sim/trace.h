/* A timeline in the Chrome trace-event JSON format (opens in Perfetto and
 * chrome://tracing): one process per node, one thread ("track") per CPU core,
 * GPU queue, NIC, link. Times are written in microseconds with picosecond
 * precision. Written to a temporary file and renamed into place on close.
 * Arrows between spans (a send to its receive, a trigger to the NIC's match)
 * are the format's flow events in their second form: "bind_id" with
 * "flow_out" on the span an arrow leaves and "flow_in" on the span it
 * enters (both on a span it passes through), as Perfetto's JSON importer
 * (json_trace_parser.cc, MaybeAddFlow) and chrome://tracing read them. A
 * filter keeps only some nodes' components and the spans that overlap a
 * window of simulated time. */
#ifndef SIM_TRACE_H
#define SIM_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "simtime.h"

struct trace;

/* Opens PATH for writing (through PATH.tmp). NULL and *ERR on failure. */
struct trace *trace_open(const char *path, char **err);

/* Keeps only the components of the nodes LIST names (trace_keeps): node
 * numbers and ranges, comma-separated ("0,2-5"), and "net" for the
 * fabric's switches. False and *ERR (the expected form) on a bad LIST. */
bool trace_filter_nodes(struct trace *t, const char *list, char **err);

/* Keeps only spans that overlap [FROM, TO] and instants in it. */
void trace_filter_window(struct trace *t, sim_time from, sim_time to);

/* Whether the component named NAME is traced: a node's ("node3.nic")
 * when its node is kept, a switch ("net.sw0") when "net" is, any other
 * always; all without trace_filter_nodes. */
bool trace_keeps(const struct trace *t, const char *name);

/* A new run (policy, point) begins writing: flow ids of different runs
 * never meet (bind_id carries the run's number). */
void trace_run_begin(struct trace *t);

/* Declares a track and returns its id; names appear in the viewer. */
int trace_track(struct trace *t, const char *process, const char *thread);

/* A complete span ("X" event) on TRACK from START to END. */
void trace_span(struct trace *t, int track, const char *name, sim_time start, sim_time end);

/* Flow directions of a span (trace_span_flow). */
enum { TRACE_FLOW_IN = 1, TRACE_FLOW_OUT = 2 };

/* A span as trace_span that an arrow of flow ID (unique within the run)
 * enters (DIR has TRACE_FLOW_IN), leaves (TRACE_FLOW_OUT) or passes
 * through (both). */
void trace_span_flow(struct trace *t, int track, const char *name, sim_time start, sim_time end,
                     uint64_t id, unsigned dir);

/* An instant ("i" event) on TRACK. */
void trace_instant(struct trace *t, int track, const char *name, sim_time at);

/* Finishes the JSON and renames it into place; false and *ERR on failure.
 * Frees T in either case. */
bool trace_close(struct trace *t, char **err);

/* Drops the temporary file without writing PATH. */
void trace_abort(struct trace *t);

#endif
