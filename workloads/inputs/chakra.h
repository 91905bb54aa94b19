/* Chakra execution traces (MLCommons Chakra; the input of ASTRA-sim): one
 * file per rank, PREFIX.<rank>.et, of length-delimited protobuf messages
 * (workloads/inputs/chakra.proto), read into the per-rank program
 * (program.h) and written from it. The `chakra` workload runs a trace
 * under every policy and library; `trigsim export-chakra` writes any
 * workload's program as one. Syntax and semantics: configs/chakra/README.md.
 *
 * A node becomes (graph ranks, program.h):
 * - COMP_NODE (and MEM_LOAD_NODE / MEM_STORE_NODE, local memory traffic):
 *   a compute op, of its recorded duration_micros or of its num_ops flops
 *   and tensor_size bytes through the GPU model (workload.compute); with
 *   is_cpu_op, on the host CPU (workload.cpu_ops);
 * - COMM_SEND_NODE / COMM_RECV_NODE: a send to comm_dst / a receive from
 *   comm_src of comm_size bytes with comm_tag;
 * - COMM_COLL_NODE: a collective op (comm_type, comm_size) of every rank
 *   or of its process group (pg_name, its ranks from a PyTorch
 *   "process_group:init" metadata node or workload.comm_groups), written
 *   out by the run's communication library;
 * - METADATA_NODE, INVALID_NODE (and CPU ops skipped): no op; what depends
 *   on them waits for what they wait for.
 * ctrl_deps and data_deps both order a node after the nodes they name (as
 * ASTRA-sim's feeder resolves them). */
#ifndef WL_CHAKRA_H
#define WL_CHAKRA_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "param.h"
#include "program.h"
#include "simtime.h"

enum chakra_compute {
  CHAKRA_COMPUTE_AUTO,     /* trigsim's own attributes when a node has them (a trace
                              trigsim wrote: its ops exactly), else the recorded
                              duration when it is not 0, else num_ops/tensor_size */
  CHAKRA_COMPUTE_DURATION, /* the recorded duration_micros, one WG */
  CHAKRA_COMPUTE_WORK,     /* num_ops flops and tensor_size bytes over `wgs` WGs
                              through the GPU model (the duration where a node
                              carries neither) */
};

enum chakra_read { CHAKRA_READ_STREAM, CHAKRA_READ_WHOLE };
/* Which dependencies order a node: both lists (ASTRA-sim's feeder since
 * its version 3), or its data_deps alone (Chakra's et_feeder, for traces
 * whose ctrl_deps name a node's caller rather than what it waits for). */
enum chakra_deps { CHAKRA_DEPS_BOTH, CHAKRA_DEPS_DATA };

enum chakra_cpu_ops {
  CHAKRA_CPU_AUTO, /* on the host where the policy runs a rank's graph there, else skipped */
  CHAKRA_CPU_HOST, /* on the host CPU (host-driven policies only) */
  CHAKRA_CPU_SKIP, /* no op: the GPU side of the step alone */
};

/* Group "chakra": see chakra_params for units, defaults and ranges. */
struct chakra_config {
  char *files;       /* the traces' prefix (relative to the scenario) */
  int64_t ranks;     /* ranks read; 0: every PREFIX.<r>.et from r = 0 on */
  int compute;       /* enum chakra_compute */
  int64_t wgs;       /* WGs of a compute read as work */
  int cpu_ops;       /* enum chakra_cpu_ops */
  int64_t stream_window; /* ops read ahead that wait (wl_stream_opts.window); 0: whole */
  int read;          /* enum chakra_read */
  int64_t whole_limit; /* the most ops read whole */
  char *comm_groups; /* ASTRA-sim's communicator groups (JSON {"1": [0, 1]}), "" none */
  int deps;          /* enum chakra_deps */
};

extern const struct par_group chakra_params;

/* What the reader makes of a node: the workload's parameters, resolved
 * for one policy. */
struct chakra_opts {
  uint8_t compute;   /* enum chakra_compute */
  uint32_t wgs;      /* >= 1: WGs of work and of reductions */
  /* WGs of a GPU op of a recorded duration, each lasting it (1 where the
   * CPU computes, 0 taken as 1; else `wgs`, so that a kernel's WGs, which
   * fit one wave, take the duration and every phase of a rank has the
   * same grid, as the one-kernel policies need). */
  uint32_t dur_wgs;
  bool cpu_skip;     /* CPU ops are no op (else on the host) */
  bool data_only;    /* ctrl_deps not read (enum chakra_deps) */
};

/* ---- one rank's file, node by node ----
 * A cursor yields the nodes of one file in file order, each converted to
 * the op it becomes (or none), with the ids of the nodes it waits for: all
 * the state a reader keeps is the process groups defined so far and one
 * node, so that a streamed run can lower a trace a window at a time. The
 * whole-program reader and the op source below are built on it. */

struct chakra_node {
  uint64_t id;
  const char *name;
  uint8_t type;            /* Chakra's NodeType (0-7) */
  bool has_op;             /* false: no op (metadata, invalid, a CPU op skipped) */
  struct wl_op op;         /* with has_op: the op (program.h), a compute's kernel in the
                              cursor's table; a collective's call (below), group, tag and
                              root are the caller's to set from pg (tag 0, root its first
                              rank, kernel 0) */
  struct wl_call call;     /* WL_COLL: the call, its group 0 */
  const uint32_t *pg;      /* WL_COLL: its ranks, ascending; NULL: every rank */
  uint32_t pg_n;
  const char *pg_name;     /* WL_COLL: as written ("" none) */
  const uint64_t *deps;    /* ctrl_deps, then data_deps: it starts once they completed */
  size_t n_deps;
  const uint64_t *start_deps; /* trigsim_irequires: once they started (trigsim's own) */
  size_t n_start;
};

struct chakra_cursor;

/* Opens PATH, rank RANK of N_RANKS, and reads its GlobalMetadata; GROUPS
 * (NULL: none) maps pg_name strings to GArrays of uint32_t ranks
 * (workload.comm_groups), borrowed; TABLE (borrowed) takes the kernels of
 * the compute ops (wl_kernel_add). NULL and *ERR ("PATH: rank R: expected
 * X, got Y", g_free) when it cannot be read or is not a trace of a schema
 * this reader takes. */
struct chakra_cursor *chakra_open(const char *path, uint32_t rank, uint32_t n_ranks,
                                  const struct chakra_opts *o, GHashTable *groups,
                                  struct wl_program *table, char **err);
/* The next node into *N (valid until the next call): 1; 0 at the end of
 * the file; -1 and *ERR ("PATH: rank R node ID: expected X, got Y") on a
 * truncated or malformed message or a node this reader cannot take. */
int chakra_next(struct chakra_cursor *c, struct chakra_node *n, char **err);
/* The byte offset of the next message (for messages). */
uint64_t chakra_offset(const struct chakra_cursor *c);
void chakra_close(struct chakra_cursor *c);

/* ---- whole programs ---- */

/* The trace PREFIX.<r>.et of N_RANKS ranks (0: as many files as there are
 * from r = 0 on, at most MAX_RANKS) as graph ranks: ops in an order that
 * keeps file order where the dependencies allow, each after what it waits
 * for; collectives on their groups with tags apart per group. Checks that
 * every dependency names a node of its file and no cycle forms, that every
 * member of a group calls its collectives in the same order with the same
 * type and size, and that every send meets a receive of its size and every
 * receive a send. NULL and *ERR naming the file, rank and node. */
struct wl_program *wl_chakra_read(const char *prefix, uint32_t n_ranks, uint32_t max_ranks,
                                  const struct chakra_opts *o, GHashTable *groups, char **err);

/* ---- op by op: an op source (workloads/ir/source.h) ----
 * A first pass over every file (each rank's summary, the kernels, calls
 * and process groups its ops name, checks of every node, ids unique and
 * dependencies on nodes of their file, at most CHAKRA_MAX_GROUPS groups;
 * each rank's file held as ids only, one at a time), then a cursor per
 * rank giving its ops in file order, each followed by the dependency items
 * naming it as the op that waits (lag 0), and forgetting what the driver
 * will not name again, so that a rank holds only the ops in flight (and
 * the nodes of no op that pass one of them on). A collective comes as one
 * op (its group and tag as wl_chakra_read gives them); the driver writes
 * it out op by op (coll.h, wl_coll_source). */

struct chakra_src;

/* The trace PREFIX.<r>.et of N_RANKS ranks through its first pass; GROUPS
 * (NULL: none) is taken over. NULL and *ERR as wl_chakra_read says them
 * (GROUPS freed). */
struct chakra_src *chakra_src_open(const char *prefix, uint32_t n_ranks,
                                   const struct chakra_opts *o, GHashTable *groups, char **err);
void chakra_src_free(struct chakra_src *x);
/* X as an op source (kept by X). */
struct wl_source *chakra_src_source(struct chakra_src *x);
/* Whether its cursors give the whole reader's program: every dependency
 * names a node written before it (file order is the program's order), each
 * (sender, receiver, comm_tag)'s sends and receives pair up with the same
 * sizes in order, and each group's ranks call its collectives alike (by
 * hashes of their sequences). Else the whole reader runs it, or says
 * what is wrong. */
bool chakra_src_streams(const struct chakra_src *x);
/* The whole program (wl_chakra_read), or NULL and *ERR. */
struct wl_program *chakra_src_program(const struct chakra_src *x, char **err);
/* The nodes cursor C (of a chakra source) holds (ops not forgotten, nodes
 * of no op passing one on): what its memory grows with. */
struct wl_cursor;
size_t chakra_cursor_kept(const struct wl_cursor *c);

/* ASTRA-sim's communicator-group file (JSON: {"1": [0, 1], ...}) at PATH
 * as a table for chakra_open; NULL and *ERR on a malformed one. Free with
 * g_hash_table_destroy. */
GHashTable *chakra_groups_load(const char *path, uint32_t n_ranks, char **err);

/* A compute op's time (ps) for its duration_micros (the caller's model):
 * op O, its kernel K. */
typedef sim_time (*chakra_duration_fn)(const struct wl_kernel *k, const struct wl_op *o, void *arg);

/* Writes P (its loops written out, unchecked) as PREFIX.<r>.et, one file
 * per rank, each whole or not at all: computes with num_ops, tensor_size,
 * is_cpu_op and DURATION(o, ARG) to the nearest microsecond (NULL: none),
 * messages with comm_src, comm_dst,
 * comm_size and comm_tag, collectives with comm_type and comm_size and,
 * for a group, pg_name and a "## process_group:init ##" metadata node
 * listing every group as PyTorch writes it (which ASTRA-sim reads), and
 * dependencies as data_deps; a sequence rank's ops as a chain. Attributes
 * named trigsim_* keep what Chakra cannot say (WGs, per-WG work, start
 * dependencies, the collective's algorithm), so that reading the files
 * back gives P's ops. False and *ERR when a file cannot be written. */
bool wl_chakra_write(const struct wl_program *p, chakra_duration_fn duration, void *arg,
                     const char *prefix, char **err);

#endif
