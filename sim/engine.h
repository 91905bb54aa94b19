/* The discrete-event engine: components built from type tables, ports joined
 * by links that carry a latency (the only way components interact), and the
 * run loop. Nothing here knows what a GPU is. After ROSS's type tables and
 * SST's links. */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "outputs.h"
#include "param.h"
#include "queue.h"
#include "simtime.h"

#define SIM_PORT_SELF 0xFFFFu

struct sim_engine;
struct sim_comp;

/* A component type: registered once in a table outside the engine. */
struct sim_type {
  const char *name;
  const char *doc;
  const struct par_group *params; /* its declared parameters, or NULL */
  /* What its finish reports (outputs.h), or NULL: nothing. Each value by
   * its index in the table (sim_out_int); sim_finish checks that a
   * component reported exactly what its type declares. */
  const struct sim_outputs *outputs;
  const char *const *ports;       /* port names; an event's port indexes this */
  size_t n_ports;
  size_t state_size;              /* zeroed state allocated per component */
  void (*init)(struct sim_comp *c);                                /* may be NULL */
  void (*handle)(struct sim_comp *c, const struct sim_event *ev);  /* required */
  void (*finish)(struct sim_comp *c, struct sim_report *r);        /* may be NULL */
  void (*destroy)(struct sim_comp *c); /* frees what the state owns; may be NULL */
  /* An event sent through this component with sim_send_via passes on
   * (see there): counts it, where its handler would have; may be NULL. */
  void (*relay)(struct sim_comp *c, const struct sim_event *ev);
  /* Fetching ahead (cache only; nothing here changes what a run does).
   * When many events are due at one instant, the run loop looks a few
   * events ahead of the one it runs: it fetches the next events' component
   * blocks and, where PORT_PAYLOADS says that events arriving at a port of
   * this type carry a payload handle (sim_payload_new) in their data, their
   * payload slots (an event whose data is not a handle, a link-level credit
   * say, at worst fetches a slot it does not use). Nearer, it calls PREFETCH (may be NULL) with
   * STAGE 1, then 2: the hook may read the component's state and the
   * payload (fetched by then) and fetch what handling EV will read (a
   * record its data names), one level deeper at each stage. It must write
   * nothing and check every index it reads before using it: EV is not due
   * yet, and may be a relay's (kind with SIM_KIND_RELAY: not called). */
  bool port_payloads;
  void (*prefetch)(const struct sim_comp *c, const struct sim_event *ev, int stage);
  /* Critical path (sim_set_cp): the category of the time until an event
   * this type's handler sends or schedules, unless the handler names
   * another (sim_cp_cat); the category of the latency of the links out of
   * its ports (CP_PORT_LINK[port] where given, else CP_LINK). Categories
   * are small numbers the models name (models/phase.h); 0 is "other". */
  uint8_t cp_cat, cp_link;
  const uint8_t *cp_port_link;
};

/* One end of a link, as seen from the component that owns the port. */
struct sim_port {
  uint32_t peer;      /* component at the other end */
  uint16_t peer_port; /* its port */
  bool connected;
  sim_time latency_ps;
};

/* A component. The engine allocates it in one cache-aligned block together
 * with its random stream, its state and its ports (in that order), so that
 * an event touches a few adjacent cache lines, which the run loop prefetches
 * for the next event while the current one runs. */
struct sim_comp {
  const struct sim_type *type;
  void *state;         /* owned, type->state_size bytes, zeroed */
  const void *config;  /* borrowed: the caller keeps it alive for the run */
  gsl_rng *rng;        /* owned: stream derived from (seed, id) */
  struct sim_port *ports; /* owned, n_ports */
  struct sim_engine *eng;
  uint32_t id;
  uint32_t n_ports;    /* type->n_ports, or as given to sim_add_ports */
  bool traced;         /* a trace is attached: models test this before tracing */
  int track;           /* trace track, -1 until first used */
  char *name;          /* owned */
};

/* A new engine whose component streams derive from SEED. Free with sim_free. */
struct sim_engine *sim_new(uint64_t seed);
void sim_free(struct sim_engine *e);

/* Adds a component; NAME is copied, CONFIG is borrowed. */
struct sim_comp *sim_add(struct sim_engine *e, const struct sim_type *type, const char *name,
                         const void *config);
/* Same, for types whose port count varies per instance (switches): N_PORTS
 * ports named by their index. */
struct sim_comp *sim_add_ports(struct sim_engine *e, const struct sim_type *type, const char *name,
                               const void *config, uint32_t n_ports);
struct sim_comp *sim_comp_get(struct sim_engine *e, uint32_t id);
size_t sim_comp_count(const struct sim_engine *e);

/* Index of port NAME in TYPE, or -1. */
int sim_port_index(const struct sim_type *type, const char *name);

/* Joins port PA of A and port PB of B with a full-duplex link of LATENCY
 * (>= 0) in each direction. A port joins one link; rejoining is an error. */
bool sim_connect(struct sim_comp *a, int pa, struct sim_comp *b, int pb, sim_time latency,
                 char **err);

/* Sends an event out of port PORT of C: it arrives at the peer's port after
 * DELAY (the sender's own extra time, >= 0) plus the link latency. */
void sim_send(struct sim_comp *c, int port, sim_time delay, uint16_t kind, uint64_t data);

/* Relays. Sends an event out of port PORT of C to the component R at its
 * other end, which only passes it on at once out of its port VIA (as
 * sim_send with no delay; its handler would do nothing else but count).
 * The event is queued for R as sim_send queues it (same time, same
 * sequence number); when it is due, the engine calls R's type->relay
 * (its counting) and sends it on out of VIA itself, instead of calling R's
 * handler: the same events in the same order at the same times, one
 * handler call fewer (not counted by sim_run). KIND < SIM_KIND_RELAY.
 * With relays off (sim_set_relays), or when R's type has no relay hook, it
 * is sim_send, and R's handler passes the event on: the check that both
 * agree. */
#define SIM_KIND_RELAY 0x8000u
void sim_send_via(struct sim_comp *c, int port, sim_time delay, uint16_t kind, uint64_t data,
                  int via);
/* Relays on (the default) or off; and how many events passed a relay. */
void sim_set_relays(struct sim_engine *e, bool on);
uint64_t sim_relayed(const struct sim_engine *e);

/* Schedules an event for C itself after DELAY (>= 0), on SIM_PORT_SELF. */
void sim_schedule(struct sim_comp *c, sim_time delay, uint16_t kind, uint64_t data);

/* Reserved self events. sim_reserve_seq takes the sequence number the
 * next push would have taken, pushing nothing; sim_schedule_reserved later
 * pushes C's self event at absolute time AT with it, which then runs where
 * an event pushed at the reservation would have run (the order is time,
 * then sequence). So a model may hold back an event that often turns out to
 * do nothing, and push it, unchanged in the order, only when it must run.
 * (AT, SEQ) must still be ahead: sim_after_now. */
uint64_t sim_reserve_seq(struct sim_engine *e);
void sim_schedule_reserved(struct sim_comp *c, sim_time at, uint64_t seq, uint16_t kind,
                           uint64_t data);
/* Whether an event at (AT, SEQ) would run after the running one. */
bool sim_after_now(const struct sim_engine *e, sim_time at, uint64_t seq);

sim_time sim_now(const struct sim_engine *e);
/* The running event's sequence number: with sim_now, its place in the order. */
uint64_t sim_now_seq(const struct sim_engine *e);

/* Runs init on every component (first run only), then events in order until
 * the queue is empty, time would pass UNTIL, MAX_EVENTS have run (0: no
 * limit), or sim_stop. Returns the number of events executed by this call. */
uint64_t sim_run(struct sim_engine *e, sim_time until, uint64_t max_events);
void sim_stop(struct sim_engine *e);

/* Progress of long runs: an engine made after sim_set_progress(FN, ARG)
 * calls FN(E, UNTIL, ARG) from sim_run after every SIM_PROGRESS_EVENTS
 * events (sim_now and sim_executed say how far it got; UNTIL is sim_run's,
 * SIM_TIME_MAX when the end is not known). The run loop itself is not
 * touched: with a hook, sim_run runs it in slices. FN NULL: none (the
 * default). For the command line's progress line on a terminal. */
#define SIM_PROGRESS_EVENTS (1u << 20)
typedef void (*sim_progress_fn)(const struct sim_engine *e, sim_time until, void *arg);
void sim_set_progress(sim_progress_fn fn, void *arg);
/* Events executed by E's sim_run calls so far. */
uint64_t sim_executed(const struct sim_engine *e);

/* Calls every component's finish in id order, collecting into R; a
 * component that reports an output its type does not declare, one twice,
 * or leaves out one it must report (sim_out_check) is a fault (g_error). */
void sim_finish(struct sim_engine *e, struct sim_report *r);

/* Attaches a trace (borrowed; NULL detaches); process names on it get
 * PREFIX and a '/' in front when PREFIX is not NULL (one trace, several
 * policy runs; each a new run for its flow ids, trace_run_begin). Components
 * draw on it through sim_track; those its node filter drops
 * (trace_keeps) are not traced. */
struct trace;
void sim_set_trace(struct sim_engine *e, struct trace *t, const char *prefix);
struct trace *sim_trace(const struct sim_engine *e);
/* C's track on the trace, created on first use: process = C's name up to the
 * first '.', thread = the rest ("node0.gpu" -> "node0" / "gpu"); names without
 * a dot go to process "system". -1 when no trace is attached. */
int sim_track(struct sim_comp *c);
/* A further track of C, named like sim_track's with "/SUFFIX" appended to
 * the thread ("node0" / "gpu/queue1"). Creates a new track at every call:
 * the caller keeps the id. -1 when no trace is attached. */
int sim_track_sub(struct sim_comp *c, const char *suffix);

/* Payloads larger than an event's 8 bytes (packets, commands): zeroed
 * SIM_PAYLOAD_BYTES slots from a pool the engine owns, travelling between
 * components as a handle in ev->data. The receiver that consumes a payload
 * frees it. Slot addresses are stable until freed. */
#define SIM_PAYLOAD_BYTES 64
uint64_t sim_payload_new(struct sim_engine *e);
void *sim_payload(struct sim_engine *e, uint64_t handle);
/* Fetches payload HANDLE's slot into cache; nothing when it names none. */
void sim_payload_prefetch(const struct sim_engine *e, uint64_t handle);
void sim_payload_free(struct sim_engine *e, uint64_t handle);
size_t sim_payloads_live(const struct sim_engine *e);

/* ---- Critical path ----
 * Each event remembers the event that sent or scheduled it (its cause)
 * and in which category the time between them went: the sender's own
 * delay in the category its handler named (sim_cp_cat, else its type's
 * cp_cat), the link latency in the link's (cp_link). Following causes back
 * from an event gives the chain of activities that led to it, the run's
 * critical path when the event is the one that ends the run. The engine
 * keeps, per pending event, the time per category along its chain (SUM:
 * memory follows the pending events) and, with CHAIN, a record of every
 * event run (memory follows the run: for small runs and traces). A
 * reserved sequence number (sim_reserve_seq) takes its cause when it is
 * reserved, as if pushed then; one never pushed is given back with
 * sim_reserve_drop. After LogGOPSim's and Schedgen's critical-path
 * analysis of a happens-before graph, computed forward as an event
 * happens instead of on a stored graph. */
/* Categories 0 .. SIM_CP_NCAT - 1; a pending event keeps 1 .. NCAT - 1 in
 * 51 bits each (category 0 is its time less the others): a run whose
 * events come after 2^51 ps (37.5 simulated minutes) loses its path
 * (sim_cp_get's ok false), as one past 2^24 pending events does. */
#define SIM_CP_NCAT 11
#define SIM_CP_TIME_MAX ((sim_time)1 << 51)
enum sim_cp_mode { SIM_CP_OFF, SIM_CP_SUM, SIM_CP_CHAIN };
void sim_set_cp(struct sim_engine *e, enum sim_cp_mode mode);
enum sim_cp_mode sim_cp_mode(const struct sim_engine *e);
/* The running handler's next sends and schedules spend their delay in CAT. */
void sim_cp_cat(struct sim_engine *e, uint8_t cat);
/* The next send or schedule only spends its first PRE of delay in CAT
 * (then the rest in sim_cp_cat's): a wait, then work. */
void sim_cp_pre(struct sim_engine *e, uint8_t cat, sim_time pre);
void sim_reserve_drop(struct sim_engine *e, uint64_t seq);

/* Where a component marked an instant on the critical path (an end). */
struct sim_cp {
  bool ok;                 /* marked, and tracked all along */
  uint32_t comp;           /* the component that marked it */
  sim_time at;             /* the instant: the event's time + EXTRA */
  sim_time v[SIM_CP_NCAT]; /* time per category along the chain; sums to AT */
  uint64_t log;            /* CHAIN: the marking event's record */
  sim_time extra;          /* time after the event, in CAT */
  uint8_t cat;
};
/* C marks now + EXTRA (>= 0, spent in CAT after the running event) as its
 * instant, replacing its earlier mark. Nothing when tracking is off. */
void sim_cp_mark(struct sim_comp *c, sim_time extra, uint8_t cat);
/* Component COMP's mark (ok false when none, or when tracking is off or
 * lost: more than 2^24 pending events). */
struct sim_cp sim_cp_get(const struct sim_engine *e, uint32_t comp);

/* One activity on a chain: on COMP (a link out of it when LINK) from START
 * to END, in CAT. */
struct sim_cp_act {
  uint32_t comp;
  bool link;
  uint8_t cat;
  sim_time start, end;
};
/* The chain that led to mark M (CHAIN mode), oldest first, activities of
 * no time left out: *N of them (g_free). NULL when there is none. */
struct sim_cp_act *sim_cp_chain(const struct sim_engine *e, const struct sim_cp *m, size_t *n);

uint64_t sim_events_executed(const struct sim_engine *e);
size_t sim_pending(const struct sim_engine *e);
/* Bytes the event queue holds now (its capacity). */
size_t sim_queue_bytes(const struct sim_engine *e);
/* Smallest link latency joined so far (the lookahead a parallel run would
 * use), or SIM_TIME_MAX when there is no link. */
sim_time sim_min_latency(const struct sim_engine *e);

#endif
