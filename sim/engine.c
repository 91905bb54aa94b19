/* The run loop, components, ports and links. Components own their state and
 * talk only by events sent through linked ports (or to themselves). */
#include "engine.h"

#include <glib.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "trace.h"

struct sim_engine {
  struct q_queue *q;
  GPtrArray *comps;      /* struct sim_comp *, index == id */
  const struct sim_type **types_of; /* each component's type, by id (without reading it) */
  size_t types_cap;
  uint64_t seed;
  uint64_t next_seq;
  uint64_t executed;
  sim_time now;
  uint64_t cur_seq;      /* the running event's sequence number */
  sim_time min_latency;
  struct trace *trace;
  char *trace_prefix;
  bool started, stopped;
  bool no_relays;        /* sim_set_relays(false) */
  uint64_t relayed;
  /* Payload pool: chunks of PAYLOAD_CHUNK slots and a free list of handles. */
  GPtrArray *payload_chunks;
  uint64_t *payload_free; /* a stack of free handles (a plain array: on every message) */
  size_t n_payload_free, payload_free_cap;
  size_t payloads_live;
  sim_progress_fn progress; /* sim_set_progress's, when the engine was made */
  void *progress_arg;
  /* Critical path (engine.h): a pool of nodes, one per pending event
   * (its index in the low CP_BITS of the event's seq), the running event's
   * times per category and record, and each component's mark. */
  enum sim_cp_mode cp;
  bool cp_lost;          /* a node could not be had: the marks are not whole */
  struct cp_node **cp_chunks; /* the nodes, CP_CHUNK a chunk: never moved */
  struct cp_side *cp_sides; /* beside the nodes, same index (CHAIN) */
  uint8_t *cp_rcat;         /* beside the nodes: a reserved node's category */
  sim_time *cp_rt;          /* and the time its vector reaches before it is due */
  uint32_t cp_n, cp_cap; /* nodes 1..cp_n made; 0 names none */
  uint32_t *cp_free;
  uint32_t cp_nfree, cp_free_cap;
  /* The running event's node, whose vector the handler's sends start from
   * (0: none, the vector of zeros: inits, a lost node). Its first send takes the node over (cp_given: the
   * vector then holds that send's three additions, cp_gcat/cp_gd, which
   * later sends take off again); otherwise it is freed after the handler. */
  uint32_t cp_cur;
  bool cp_given;
  uint8_t cp_gcat[3];
  sim_time cp_gd[3];
  uint64_t cp_log;       /* the running event's record (1 + index), CHAIN */
  uint32_t cp_src;       /* the running event's component */
  uint8_t cp_cat;        /* the category its handler spends in now */
  uint8_t cp_pre_cat;    /* and first, for the next push only, cp_pre in this */
  sim_time cp_pre;
  GArray *cp_recs;       /* struct cp_rec, CHAIN */
  GArray *cp_marks;      /* struct sim_cp by component id */
#ifdef SIM_EVENT_COUNTS
  GHashTable *counts; /* (type index << 40 | port << 16 | kind, relay bit in kind) -> count */
  GPtrArray *types;   /* const struct sim_type *, by first appearance */
#endif
};

#ifdef SIM_EVENT_COUNTS
/* The build option TRIGSIM_EVENT_COUNTS: every event run (and relay) is
 * counted by its component's type, port (self: SELF) and kind; sim_free
 * prints the table to stderr. A measuring aid (tools/bench/README.md). */
static void count_event(struct sim_engine *e, const struct sim_comp *c, const struct sim_event *ev) {
  if (!e->counts) {
    e->counts = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    e->types = g_ptr_array_new();
  }
  guint ti;
  if (!g_ptr_array_find(e->types, c->type, &ti)) {
    ti = e->types->len;
    g_ptr_array_add(e->types, (gpointer)c->type);
  }
  int64_t key = (int64_t)((uint64_t)ti << 40 | (uint64_t)ev->port << 16 | ev->kind);
  uint64_t *n = g_hash_table_lookup(e->counts, &key);
  if (!n) {
    int64_t *k = g_new(int64_t, 1);
    *k = key;
    n = g_new0(uint64_t, 1);
    g_hash_table_insert(e->counts, k, n);
  }
  (*n)++;
}

static gint key_cmp(gconstpointer a, gconstpointer b) {
  int64_t x = **(const int64_t *const *)a, y = **(const int64_t *const *)b;
  return x < y ? -1 : x > y;
}

static void print_counts(struct sim_engine *e) {
  if (!e->counts) return;
  GList *keys = g_hash_table_get_keys(e->counts);
  GPtrArray *sorted = g_ptr_array_new();
  for (GList *l = keys; l; l = l->next) g_ptr_array_add(sorted, l->data);
  g_list_free(keys);
  g_ptr_array_sort(sorted, key_cmp);
  fprintf(stderr, "event counts (type port kind count), %llu events run, %llu relayed:\n",
          (unsigned long long)e->executed, (unsigned long long)e->relayed);
  for (guint i = 0; i < sorted->len; i++) {
    const int64_t *k = sorted->pdata[i];
    const struct sim_type *t = e->types->pdata[(uint64_t)*k >> 40];
    unsigned port = (unsigned)((uint64_t)*k >> 16 & 0xFFFFFF), kind = (unsigned)(*k & 0xFFFF);
    char pname[32];
    if (port == SIM_PORT_SELF) g_snprintf(pname, sizeof pname, "self");
    else if (t->ports && port < t->n_ports) g_snprintf(pname, sizeof pname, "%s", t->ports[port]);
    else g_snprintf(pname, sizeof pname, "%u", port);
    fprintf(stderr, "  %-8s %-6s %5u%s %llu\n", t->name, pname, kind & ~SIM_KIND_RELAY,
            kind & SIM_KIND_RELAY ? " relay" : "",
            (unsigned long long)*(uint64_t *)g_hash_table_lookup(e->counts, k));
  }
  g_ptr_array_free(sorted, TRUE);
  g_hash_table_destroy(e->counts);
  g_ptr_array_free(e->types, TRUE);
}
#endif

#define PAYLOAD_CHUNK 1024

/* The progress hook engines made from now on take (sim_set_progress). */
static sim_progress_fn progress_fn;
static void *progress_arg;

void sim_set_progress(sim_progress_fn fn, void *arg) {
  progress_fn = fn;
  progress_arg = arg;
}

uint64_t sim_executed(const struct sim_engine *e) { return e->executed; }

/* ---- critical path ---- */

/* A pending event's cause: the times per category along its chain up to
 * it, categories 1 .. SIM_CP_NCAT - 1 as 51-bit fields of one 512-bit
 * number in eight aligned words (category 0 is the event's time less
 * their sum), one cache line: all the running loop reads and writes per
 * event in SUM. Field K - 1 starts at bit 51 (K - 1) and may run into the
 * next word. Every field is at most the event's time, below
 * SIM_CP_TIME_MAX: adding to one carries at most into its own upper part.
 * (Whole words, not unaligned 8-byte windows that overlap: a load that
 * overlaps the last store in part cannot be forwarded from it and stalls,
 * which perf annotate showed on every push.) */
#define CP_FIELD_BITS 51
#define CP_FIELD_MASK (((uint64_t)1 << CP_FIELD_BITS) - 1)
struct cp_node {
  _Alignas(64) uint64_t w[8];
};
_Static_assert((SIM_CP_NCAT - 1) * CP_FIELD_BITS <= 512 && SIM_CP_TIME_MAX - 1 <= (sim_time)CP_FIELD_MASK,
               "the categories' fields fit one cache line");
_Static_assert(sizeof(struct cp_node) == 64, "a node is one cache line");

/* Nodes come in chunks of CP_CHUNK (1 MiB), so that the pool grows
 * without copying (a copy held both while it grew: 1.5x the peak). */
#define CP_CHUNK_BITS 14
#define CP_CHUNK (1u << CP_CHUNK_BITS)

static inline struct cp_node *cp_node(const struct sim_engine *e, uint32_t i) {
  return &e->cp_chunks[i >> CP_CHUNK_BITS][i & (CP_CHUNK - 1)];
}

/* Adds D (>= 0; the field stays below SIM_CP_TIME_MAX) to category K of N. */
static inline void cp_fadd(struct cp_node *n, unsigned k, sim_time d) {
  if (!k) return; /* category 0: what the others leave of the time */
  unsigned off = (k - 1) * CP_FIELD_BITS, i = off / 64, sh = off % 64;
  uint64_t old = n->w[i], lo = (uint64_t)d << sh;
  n->w[i] = old + lo;
  if (sh + CP_FIELD_BITS > 64) /* the field's upper part, and the carry into it */
    n->w[i + 1] += ((uint64_t)d >> (64 - sh)) + (n->w[i] < old);
}

static inline void cp_fsub(struct cp_node *n, unsigned k, sim_time d) {
  if (!k) return;
  unsigned off = (k - 1) * CP_FIELD_BITS, i = off / 64, sh = off % 64;
  uint64_t old = n->w[i], lo = (uint64_t)d << sh;
  n->w[i] = old - lo;
  if (sh + CP_FIELD_BITS > 64) n->w[i + 1] -= ((uint64_t)d >> (64 - sh)) + (old < lo);
}

/* N's vector at time AT (its fields' sum at most AT) into V. */
static void cp_unpack(const struct cp_node *n, sim_time at, sim_time *v) {
  sim_time rest = at;
  for (unsigned k = 1; k < SIM_CP_NCAT; k++) {
    unsigned off = (k - 1) * CP_FIELD_BITS, i = off / 64, sh = off % 64;
    uint64_t x = n->w[i] >> sh;
    if (sh + CP_FIELD_BITS > 64) x |= n->w[i + 1] << (64 - sh);
    v[k] = (sim_time)(x & CP_FIELD_MASK);
    rest -= v[k];
  }
  v[0] = rest;
}

/* Beside each node, written and read only under CHAIN: the activity that
 * led to the event (from T0 on SRC in CAT, its first PRE in PRE_CAT, then
 * LINK of a link in LINK_CAT) and its cause's record. */
struct cp_side {
  sim_time t0, pre, link;
  uint64_t log;
  uint32_t src;
  uint8_t cat, pre_cat, link_cat;
};

/* One event run (CHAIN): its cause's record and the activity before it. */
struct cp_rec {
  uint64_t parent;
  sim_time t0, pre, link, time;
  uint32_t src, dst;
  uint8_t cat, pre_cat, link_cat;
};

#define CP_BITS 24
#define CP_MASK ((uint64_t)((1u << CP_BITS) - 1u))

static uint32_t cp_alloc(struct sim_engine *e) {
  if (e->cp_nfree) return e->cp_free[--e->cp_nfree];
  if (e->cp_n >= CP_MASK) {
    e->cp_lost = true;
    return 0;
  }
  if (e->cp_n + 1 >= e->cp_cap) {
    uint32_t k = e->cp_cap / CP_CHUNK;
    e->cp_chunks = g_renew(struct cp_node *, e->cp_chunks, k + 1);
    e->cp_chunks[k] = g_aligned_alloc(CP_CHUNK, sizeof(struct cp_node), 64); /* a node a line */
    e->cp_cap += CP_CHUNK;
    e->cp_rcat = g_renew(uint8_t, e->cp_rcat, e->cp_cap);
    e->cp_rt = g_renew(sim_time, e->cp_rt, e->cp_cap);
    if (e->cp == SIM_CP_CHAIN) e->cp_sides = g_renew(struct cp_side, e->cp_sides, e->cp_cap);
  }
  return ++e->cp_n;
}

static void cp_release(struct sim_engine *e, uint32_t i) {
  if (e->cp_nfree == e->cp_free_cap) {
    e->cp_free_cap = e->cp_free_cap ? 2 * e->cp_free_cap : 1024;
    e->cp_free = g_renew(uint32_t, e->cp_free, e->cp_free_cap);
  }
  e->cp_free[e->cp_nfree++] = i;
}

/* The side record of what the running event does now (its link unset). */
static struct cp_side cp_side_now(const struct sim_engine *e) {
  return (struct cp_side){.t0 = e->now, .pre = e->cp_pre, .log = e->cp_log, .src = e->cp_src,
                          .cat = e->cp_cat, .pre_cat = e->cp_pre_cat};
}

/* The running event's node into N: its own, less what a send that took
 * it over added to it. */
static inline void cp_copy_cur(const struct sim_engine *e, struct cp_node *n) {
  if (!e->cp_cur) {
    memset(n, 0, sizeof *n);
    return;
  }
  *n = *cp_node(e, e->cp_cur);
  if (e->cp_given)
    for (int k = 0; k < 3; k++) cp_fsub(n, e->cp_gcat[k], e->cp_gd[k]);
}

/* A node for an event the running one queues now for AT, LINK of the time
 * to it on a link of LINK_CAT; 0 when off or lost. */
static inline uint32_t cp_push(struct sim_engine *e, sim_time at, sim_time link, uint8_t link_cat) {
  if (!e->cp) return 0;
  sim_time pre = e->cp_pre, own = at - e->now - link - pre;
  g_assert(own >= 0);
  if (G_UNLIKELY(at >= SIM_CP_TIME_MAX)) { /* past the fields' range */
    e->cp_lost = true;
    return 0;
  }
  uint32_t i;
  if (e->cp_cur && !e->cp_given) { /* the first send takes the running event's node over */
    i = e->cp_cur;
    e->cp_given = true;
    e->cp_gcat[0] = e->cp_pre_cat, e->cp_gd[0] = pre;
    e->cp_gcat[1] = e->cp_cat, e->cp_gd[1] = own;
    e->cp_gcat[2] = link_cat, e->cp_gd[2] = link;
  } else {
    i = cp_alloc(e);
    if (!i) return 0;
    cp_copy_cur(e, cp_node(e, i));
  }
  struct cp_node *n = cp_node(e, i);
  cp_fadd(n, e->cp_pre_cat, pre);
  cp_fadd(n, e->cp_cat, own);
  cp_fadd(n, link_cat, link);
  if (e->cp == SIM_CP_CHAIN) {
    struct cp_side *sd = &e->cp_sides[i];
    *sd = cp_side_now(e);
    sd->link = link;
    sd->link_cat = link_cat;
  }
  e->cp_pre = 0;
  return i;
}

/* A node for a reserved seq (sim_reserve_seq): its cause is the running
 * event; the time from now to when it is due goes to the running event's
 * category, less the first PRE in PRE_CAT: the node holds the vector with
 * PRE added, which cp_reserved_at completes with the time from now + PRE
 * to when it is due (beside the node, a byte names the category and a
 * time says now + PRE: the node's line and those, not a record, are all
 * it touches). */
static uint32_t cp_reserve(struct sim_engine *e) {
  if (!e->cp) return 0;
  uint32_t i = cp_alloc(e);
  if (!i) return 0;
  struct cp_node *n = cp_node(e, i);
  cp_copy_cur(e, n); /* never taken over: its vector changes when it is due */
  cp_fadd(n, e->cp_pre_cat, e->cp_pre);
  e->cp_rcat[i] = e->cp_cat;
  e->cp_rt[i] = e->now + e->cp_pre;
  if (e->cp == SIM_CP_CHAIN) e->cp_sides[i] = cp_side_now(e);
  e->cp_pre = 0;
  return i;
}

/* Reserved node I's event is due at AT (no link). */
static void cp_reserved_at(struct sim_engine *e, uint32_t i, sim_time at) {
  g_assert(at >= e->cp_rt[i]);
  if (G_UNLIKELY(at >= SIM_CP_TIME_MAX)) e->cp_lost = true; /* past the fields' range */
  else cp_fadd(cp_node(e, i), e->cp_rcat[i], at - e->cp_rt[i]);
  if (e->cp == SIM_CP_CHAIN) {
    struct cp_side *sd = &e->cp_sides[i];
    g_assert(at - sd->t0 >= sd->pre);
    sd->link = 0;
    sd->link_cat = 0;
  }
}

/* Fetches the node of the event of SEQ into cache (a hint: nothing else). A
 * pending event's node was written when it was queued, often long before,
 * and would otherwise miss cache when the event runs (PHOLD at 64k pending:
 * that miss was over half of the run loop's time). */
static inline void cp_prefetch(const struct sim_engine *e, uint64_t seq) {
  uint32_t i = (uint32_t)(seq & CP_MASK);
  if (!i || i > e->cp_n) return;
  __builtin_prefetch(cp_node(e, i));
}

/* Event EV (its seq's node) runs on component C now. */
static void cp_enter(struct sim_engine *e, const struct sim_event *ev, const struct sim_comp *c) {
  uint32_t i = (uint32_t)(ev->seq & CP_MASK);
  e->cp_src = ev->comp;
  e->cp_cat = c->type->cp_cat;
  e->cp_pre = 0;
  e->cp_cur = i;
  e->cp_given = false;
  if (!i) {
    e->cp_lost = true; /* queued before tracking began, or past the pool */
    e->cp_log = 0;
    return;
  }
  if (e->cp == SIM_CP_CHAIN) {
    const struct cp_side *n = &e->cp_sides[i];
    struct cp_rec r = {.parent = n->log, .t0 = n->t0, .pre = n->pre, .link = n->link,
                       .time = ev->time, .src = n->src, .dst = ev->comp, .cat = n->cat,
                       .pre_cat = n->pre_cat, .link_cat = n->link_cat};
    g_array_append_val(e->cp_recs, r);
    e->cp_log = e->cp_recs->len;
  }
}

/* The running event's handler is done: its node is freed unless a send
 * took it over. */
static inline void cp_leave(struct sim_engine *e) {
  if (e->cp_cur && !e->cp_given) cp_release(e, e->cp_cur);
  e->cp_cur = 0;
}

void sim_set_cp(struct sim_engine *e, enum sim_cp_mode mode) {
  g_assert(!e->started);
  e->cp = CP_BITS ? mode : SIM_CP_OFF;
  if (e->cp == SIM_CP_CHAIN && !e->cp_recs) e->cp_recs = g_array_new(FALSE, FALSE, sizeof(struct cp_rec));
  if (e->cp == SIM_CP_CHAIN && e->cp_cap && !e->cp_sides) e->cp_sides = g_new(struct cp_side, e->cp_cap);
}

enum sim_cp_mode sim_cp_mode(const struct sim_engine *e) { return e->cp; }

void sim_cp_cat(struct sim_engine *e, uint8_t cat) {
  g_assert(cat < SIM_CP_NCAT);
  e->cp_cat = cat;
}

void sim_cp_pre(struct sim_engine *e, uint8_t cat, sim_time pre) {
  g_assert(cat < SIM_CP_NCAT && pre >= 0);
  e->cp_pre_cat = cat;
  e->cp_pre = pre;
}

void sim_reserve_drop(struct sim_engine *e, uint64_t seq) {
  uint32_t i = (uint32_t)(seq & CP_MASK);
  if (i) cp_release(e, i);
}

void sim_cp_mark(struct sim_comp *c, sim_time extra, uint8_t cat) {
  struct sim_engine *e = c->eng;
  if (!e->cp) return;
  g_assert(extra >= 0 && cat < SIM_CP_NCAT);
  if (!e->cp_marks) e->cp_marks = g_array_new(FALSE, TRUE, sizeof(struct sim_cp));
  if (e->cp_marks->len <= c->id) g_array_set_size(e->cp_marks, c->id + 1);
  struct sim_cp *m = &g_array_index(e->cp_marks, struct sim_cp, c->id);
  *m = (struct sim_cp){.ok = true, .comp = c->id, .at = e->now + extra, .log = e->cp_log,
                       .extra = extra, .cat = cat};
  struct cp_node n;
  cp_copy_cur(e, &n);
  cp_unpack(&n, e->now, m->v); /* the running event's vector sums to now */
  m->v[cat] += extra;
}

struct sim_cp sim_cp_get(const struct sim_engine *e, uint32_t comp) {
  struct sim_cp m = {0};
  if (e->cp_marks && comp < e->cp_marks->len) m = g_array_index(e->cp_marks, struct sim_cp, comp);
  m.ok = m.ok && !e->cp_lost;
  return m;
}

struct sim_cp_act *sim_cp_chain(const struct sim_engine *e, const struct sim_cp *m, size_t *n) {
  *n = 0;
  if (!m->ok || e->cp != SIM_CP_CHAIN) return NULL;
  GArray *a = g_array_new(FALSE, FALSE, sizeof(struct sim_cp_act));
  if (m->extra > 0) {
    struct sim_cp_act x = {m->comp, false, m->cat, m->at - m->extra, m->at};
    g_array_append_val(a, x);
  }
  for (uint64_t l = m->log; l; ) {
    const struct cp_rec *r = &g_array_index(e->cp_recs, struct cp_rec, l - 1);
    if (r->link > 0) {
      struct sim_cp_act x = {r->src, true, r->link_cat, r->time - r->link, r->time};
      g_array_append_val(a, x);
    }
    if (r->time - r->link > r->t0 + r->pre) {
      struct sim_cp_act x = {r->src, false, r->cat, r->t0 + r->pre, r->time - r->link};
      g_array_append_val(a, x);
    }
    if (r->pre > 0) {
      struct sim_cp_act x = {r->src, false, r->pre_cat, r->t0, r->t0 + r->pre};
      g_array_append_val(a, x);
    }
    l = r->parent;
  }
  struct sim_cp_act *acts = (struct sim_cp_act *)(void *)a->data;
  *n = a->len;
  for (size_t i = 0; i < *n / 2; i++) { /* oldest first */
    struct sim_cp_act t = acts[i];
    acts[i] = acts[*n - 1 - i];
    acts[*n - 1 - i] = t;
  }
  return (struct sim_cp_act *)(void *)g_array_free(a, FALSE);
}

struct sim_engine *sim_new(uint64_t seed) {
  struct sim_engine *e = g_new0(struct sim_engine, 1);
  e->progress = progress_fn;
  e->progress_arg = progress_arg;
  e->q = q_new(1024);
  e->comps = g_ptr_array_new();
  e->seed = seed;
  e->min_latency = SIM_TIME_MAX;
  e->payload_chunks = g_ptr_array_new_with_free_func(g_free);
  e->cp_src = UINT32_MAX;
  return e;
}

static void comp_free(struct sim_comp *c) {
  if (c->type->destroy) c->type->destroy(c);
  g_free(c->name);
  free(c); /* the block: stream, state and ports with it */
}

void sim_free(struct sim_engine *e) {
  if (!e) return;
#ifdef SIM_EVENT_COUNTS
  print_counts(e);
#endif
  for (guint i = 0; i < e->comps->len; i++) comp_free(e->comps->pdata[i]);
  g_ptr_array_free(e->comps, TRUE);
  g_free(e->types_of);
  q_free(e->q);
  g_ptr_array_free(e->payload_chunks, TRUE);
  g_free(e->payload_free);
  g_free(e->trace_prefix);
  for (uint32_t k = 0; k < e->cp_cap / CP_CHUNK; k++) g_aligned_free(e->cp_chunks[k]);
  g_free(e->cp_chunks);
  g_free(e->cp_sides);
  g_free(e->cp_rcat);
  g_free(e->cp_rt);
  g_free(e->cp_free);
  if (e->cp_recs) g_array_free(e->cp_recs, TRUE);
  if (e->cp_marks) g_array_free(e->cp_marks, TRUE);
  g_free(e);
}

/* Components start on a cache line; their parts are aligned like malloc's. */
#define COMP_ALIGN 64
static size_t align_up(size_t n) {
  const size_t a = _Alignof(max_align_t);
  return (n + a - 1) / a * a;
}

struct sim_comp *sim_add(struct sim_engine *e, const struct sim_type *type, const char *name,
                         const void *config) {
  return sim_add_ports(e, type, name, config, (uint32_t)type->n_ports);
}

struct sim_comp *sim_add_ports(struct sim_engine *e, const struct sim_type *type, const char *name,
                               const void *config, uint32_t n_ports) {
  g_assert(type && type->handle);
  g_assert(e->comps->len < UINT32_MAX && n_ports < SIM_PORT_SELF);
  /* One block: the component, its stream (gsl_rng and the generator's
   * state), its state, its ports; each part aligned for any type. */
  size_t off_rng = align_up(sizeof(struct sim_comp));
  size_t off_rng_state = align_up(off_rng + sizeof(gsl_rng));
  size_t off_state = align_up(off_rng_state + rng_stream_state_size());
  size_t off_ports = align_up(off_state + type->state_size);
  size_t size = off_ports + (size_t)n_ports * sizeof(struct sim_port);
  size = (size + COMP_ALIGN - 1) / COMP_ALIGN * COMP_ALIGN;
  char *block = aligned_alloc(COMP_ALIGN, size);
  if (!block) g_error("sim_add: out of memory");
  memset(block, 0, size);
  struct sim_comp *c = (struct sim_comp *)block;
  c->type = type;
  c->eng = e;
  c->id = e->comps->len;
  c->name = g_strdup(name);
  c->state = type->state_size ? block + off_state : NULL;
  c->config = config;
  c->rng = (gsl_rng *)(block + off_rng);
  rng_stream_init(c->rng, block + off_rng_state, e->seed, c->id);
  c->n_ports = n_ports;
  c->track = -1;
  c->traced = e->trace && trace_keeps(e->trace, name);
  c->ports = n_ports ? (struct sim_port *)(block + off_ports) : NULL;
  if (c->id == e->types_cap) {
    e->types_cap = e->types_cap ? 2 * e->types_cap : 64;
    e->types_of = g_renew(const struct sim_type *, e->types_of, e->types_cap);
  }
  e->types_of[c->id] = type;
  g_ptr_array_add(e->comps, c);
  return c;
}

struct sim_comp *sim_comp_get(struct sim_engine *e, uint32_t id) {
  g_assert(id < e->comps->len);
  return e->comps->pdata[id];
}

size_t sim_comp_count(const struct sim_engine *e) { return e->comps->len; }

int sim_port_index(const struct sim_type *type, const char *name) {
  for (size_t i = 0; i < type->n_ports; i++)
    if (strcmp(type->ports[i], name) == 0) return (int)i;
  return -1;
}

static bool port_ok(const struct sim_comp *c, int p, char **err) {
  if (p < 0 || (uint32_t)p >= c->n_ports) {
    *err = g_strdup_printf("%s: no port %d on a %s", c->name, p, c->type->name);
    return false;
  }
  if (c->ports[p].connected) {
    *err = g_strdup_printf("%s: port %d is already linked", c->name, p);
    return false;
  }
  return true;
}

bool sim_connect(struct sim_comp *a, int pa, struct sim_comp *b, int pb, sim_time latency,
                 char **err) {
  if (latency < 0) {
    *err = g_strdup_printf("%s -> %s: negative link latency", a->name, b->name);
    return false;
  }
  if (!port_ok(a, pa, err) || !port_ok(b, pb, err)) return false;
  if (a == b && pa == pb) {
    *err = g_strdup_printf("%s: port linked to itself", a->name);
    return false;
  }
  a->ports[pa] = (struct sim_port){.peer = b->id, .peer_port = (uint16_t)pb, .connected = true,
                                   .latency_ps = latency};
  b->ports[pb] = (struct sim_port){.peer = a->id, .peer_port = (uint16_t)pa, .connected = true,
                                   .latency_ps = latency};
  if (latency < a->eng->min_latency) a->eng->min_latency = latency;
  return true;
}

/* Queues an event at AT, LINK of the time to it spent on a link of
 * LINK_CAT (critical path). */
static void push(struct sim_engine *e, sim_time at, uint32_t comp, uint16_t port, uint16_t kind,
                 uint64_t data, sim_time link, uint8_t link_cat) {
  uint32_t node = cp_push(e, at, link, link_cat);
  struct sim_event ev = {.time = at, .seq = e->next_seq++ << CP_BITS | node,
                         .comp = comp, .port = port, .kind = kind, .data = data};
  q_push(e->q, &ev);
}

static inline uint8_t link_cat(const struct sim_comp *c, int port) {
  return c->type->cp_port_link ? c->type->cp_port_link[port] : c->type->cp_link;
}

void sim_send(struct sim_comp *c, int port, sim_time delay, uint16_t kind, uint64_t data) {
  g_assert(port >= 0 && (uint32_t)port < c->n_ports && kind < SIM_KIND_RELAY);
  const struct sim_port *p = &c->ports[port];
  g_assert(p->connected);
  g_assert(delay >= 0);
  push(c->eng, c->eng->now + delay + p->latency_ps, p->peer, p->peer_port, kind, data,
       p->latency_ps, link_cat(c, port));
}

void sim_send_via(struct sim_comp *c, int port, sim_time delay, uint16_t kind, uint64_t data,
                  int via) {
  g_assert(kind < SIM_KIND_RELAY);
  g_assert(port >= 0 && (uint32_t)port < c->n_ports && c->ports[port].connected);
  const struct sim_comp *r = c->eng->comps->pdata[c->ports[port].peer];
  if (c->eng->no_relays || !r->type->relay) {
    sim_send(c, port, delay, kind, data);
    return;
  }
  g_assert(via >= 0 && (uint32_t)via < r->n_ports && r->ports[via].connected);
  g_assert(delay >= 0);
  push(c->eng, c->eng->now + delay + c->ports[port].latency_ps, r->id, (uint16_t)via,
       (uint16_t)(kind | SIM_KIND_RELAY), data, c->ports[port].latency_ps, link_cat(c, port));
}

void sim_set_relays(struct sim_engine *e, bool on) { e->no_relays = !on; }
uint64_t sim_relayed(const struct sim_engine *e) { return e->relayed; }

void sim_schedule(struct sim_comp *c, sim_time delay, uint16_t kind, uint64_t data) {
  g_assert(delay >= 0 && kind < SIM_KIND_RELAY);
  push(c->eng, c->eng->now + delay, c->id, SIM_PORT_SELF, kind, data, 0, 0);
}

uint64_t sim_reserve_seq(struct sim_engine *e) {
  uint32_t node = cp_reserve(e); /* its cause: the running event, as if pushed now */
  return e->next_seq++ << CP_BITS | node;
}

bool sim_after_now(const struct sim_engine *e, sim_time at, uint64_t seq) {
  return at > e->now || (at == e->now && seq > e->cur_seq);
}

void sim_schedule_reserved(struct sim_comp *c, sim_time at, uint64_t seq, uint16_t kind,
                           uint64_t data) {
  struct sim_engine *e = c->eng;
  g_assert(seq >> CP_BITS < e->next_seq && sim_after_now(e, at, seq) && kind < SIM_KIND_RELAY);
  uint32_t node = (uint32_t)(seq & CP_MASK);
  if (node) cp_reserved_at(e, node, at);
  struct sim_event ev = {.time = at, .seq = seq, .comp = c->id,
                         .port = SIM_PORT_SELF, .kind = kind, .data = data};
  q_push(e->q, &ev);
}

sim_time sim_now(const struct sim_engine *e) { return e->now; }
uint64_t sim_now_seq(const struct sim_engine *e) { return e->cur_seq; }

/* A component block's first four lines: the component, stream, state and
 * ports of small models. */
static inline void prefetch_block(const struct sim_comp *c) {
  const char *b = (const char *)c;
  __builtin_prefetch(b);
  __builtin_prefetch(b + 64);
  __builtin_prefetch(b + 128);
  __builtin_prefetch(b + 192);
}

static inline void prefetch_hook(const struct sim_comp *c, const struct sim_event *ev, int stage) {
  if (c->type->prefetch && !(ev->kind & SIM_KIND_RELAY)) c->type->prefetch(c, ev, stage);
}

/* How far ahead (events) the run loop fetches: far enough for a miss to be
 * served before the event runs (about 60 ns an event at 1024 nodes), near
 * enough for what was fetched to stay. */
#define PF_FAR 12
#define PF_MID 6
#define PF_NEAR 2

static inline uint64_t run_events(struct sim_engine *e, sim_time until, uint64_t max_events) {
  e->stopped = false; /* before the inits: one may stop the run already */
  if (!e->started) {
    e->started = true;
    for (guint i = 0; i < e->comps->len; i++) {
      struct sim_comp *c = e->comps->pdata[i];
      e->cp_src = c->id;
      e->cp_cat = c->type->cp_cat;
      if (c->type->init) c->type->init(c);
    }
  }
  uint64_t done = 0;
  struct sim_event ev;
  struct sim_comp **comps = (struct sim_comp **)e->comps->pdata;
  const uint32_t n_comps = e->comps->len;
  while (!e->stopped && (max_events == 0 || done < max_events) && q_pop(e->q, &ev)) {
    if (ev.time > until) {
      q_push(e->q, &ev); /* keeps its seq: order is unchanged */
      break;
    }
    e->now = ev.time;
    e->cur_seq = ev.seq;
    /* While this event runs, fetch the block of the component that the next
     * one most likely goes to (its first four lines: the component, stream,
     * state and ports of small models), which would otherwise miss cache. */
    uint64_t next_seq;
    uint32_t next = q_peek_comp(e->q, &next_seq);
    if (next < n_comps) prefetch_block(comps[next]);
    if (e->cp) cp_prefetch(e, next_seq); /* its critical-path node, likely cold */
    /* Further ahead among the events of this instant (sim_type.prefetch):
     * a block and a payload PF_FAR events ahead, the types' hooks nearer. */
    const struct sim_event *f = q_peek_now(e->q, PF_FAR);
    if (f) {
      prefetch_block(comps[f->comp]);
      if (e->cp) cp_prefetch(e, f->seq);
      if (f->port != SIM_PORT_SELF && e->types_of[f->comp]->port_payloads)
        sim_payload_prefetch(e, f->data);
    }
    if ((f = q_peek_now(e->q, PF_MID))) prefetch_hook(comps[f->comp], f, 1);
    if ((f = q_peek_now(e->q, PF_NEAR))) prefetch_hook(comps[f->comp], f, 2);
    struct sim_comp *c = comps[ev.comp];
#ifdef SIM_EVENT_COUNTS
    count_event(e, c, &ev);
#endif
    if (e->cp) cp_enter(e, &ev, c);
    if (G_UNLIKELY(ev.kind & SIM_KIND_RELAY)) { /* what c's handler would do: pass it on */
      ev.kind &= (uint16_t)~SIM_KIND_RELAY;
      c->type->relay(c, &ev); /* sim_send_via queues relays only through types with one */
      sim_send(c, ev.port, 0, ev.kind, ev.data);
      if (e->cp) cp_leave(e);
      e->relayed++;
      continue;
    }
    c->type->handle(c, &ev);
    if (e->cp) cp_leave(e);
    done++;
  }
  e->executed += done;
  return done;
}

uint64_t sim_run(struct sim_engine *e, sim_time until, uint64_t max_events) {
  if (G_LIKELY(!e->progress)) return run_events(e, until, max_events);
  /* With a progress hook: the same loop in slices of SIM_PROGRESS_EVENTS,
   * the hook between them (one call a slice: nothing in the loop). */
  uint64_t done = 0;
  for (;;) {
    uint64_t slice = SIM_PROGRESS_EVENTS;
    if (max_events && max_events - done < slice) slice = max_events - done;
    uint64_t n = run_events(e, until, slice);
    done += n;
    if (n < slice || e->stopped || (max_events && done >= max_events)) break;
    e->progress(e, until, e->progress_arg);
  }
  return done;
}

void sim_stop(struct sim_engine *e) { e->stopped = true; }

void sim_finish(struct sim_engine *e, struct sim_report *r) {
  for (guint i = 0; i < e->comps->len; i++) {
    struct sim_comp *c = e->comps->pdata[i];
    size_t first = r->n;
    if (c->type->finish) c->type->finish(c, r);
    char *err = NULL;
    if (!sim_out_check(r, first, c, &err)) g_error("sim_finish: %s", err);
  }
}

void sim_set_trace(struct sim_engine *e, struct trace *t, const char *prefix) {
  e->trace = t;
  if (t) trace_run_begin(t);
  for (guint i = 0; i < e->comps->len; i++) {
    struct sim_comp *c = e->comps->pdata[i];
    c->traced = t && trace_keeps(t, c->name);
  }
  g_free(e->trace_prefix);
  e->trace_prefix = prefix ? g_strdup_printf("%s/", prefix) : g_strdup("");
}
struct trace *sim_trace(const struct sim_engine *e) { return e->trace; }

static int new_track(struct sim_comp *c, const char *suffix) {
  const char *dot = strchr(c->name, '.');
  char *process = dot ? g_strdup_printf("%s%.*s", c->eng->trace_prefix, (int)(dot - c->name), c->name)
                      : g_strdup_printf("%ssystem", c->eng->trace_prefix);
  char *thread = g_strdup_printf("%s%s%s", dot ? dot + 1 : c->name, suffix ? "/" : "",
                                 suffix ? suffix : "");
  int track = trace_track(c->eng->trace, process, thread);
  g_free(process);
  g_free(thread);
  return track;
}

int sim_track(struct sim_comp *c) {
  if (!c->eng->trace) return -1;
  if (c->track < 0) c->track = new_track(c, NULL);
  return c->track;
}

int sim_track_sub(struct sim_comp *c, const char *suffix) {
  return c->eng->trace ? new_track(c, suffix) : -1;
}

static void sim_payload_free_push(struct sim_engine *e, uint64_t h) {
  if (e->n_payload_free == e->payload_free_cap) {
    e->payload_free_cap = e->payload_free_cap ? 2 * e->payload_free_cap : PAYLOAD_CHUNK;
    e->payload_free = g_renew(uint64_t, e->payload_free, e->payload_free_cap);
  }
  e->payload_free[e->n_payload_free++] = h;
}

/* Handles are slot index + 1, so that 0 never names a payload. */
uint64_t sim_payload_new(struct sim_engine *e) {
  uint64_t h;
  if (e->n_payload_free) {
    h = e->payload_free[--e->n_payload_free];
  } else {
    uint64_t base = (uint64_t)e->payload_chunks->len * PAYLOAD_CHUNK;
    g_ptr_array_add(e->payload_chunks, g_malloc(PAYLOAD_CHUNK * SIM_PAYLOAD_BYTES));
    for (uint64_t i = PAYLOAD_CHUNK; i > 1; i--) sim_payload_free_push(e, base + i);
    h = base + 1;
  }
  e->payloads_live++;
  memset(sim_payload(e, h), 0, SIM_PAYLOAD_BYTES);
  return h;
}

/* Whether HANDLE names a slot of E's pool, and where that slot is. */
static inline bool payload_named(const struct sim_engine *e, uint64_t handle) {
  return handle >= 1 && handle <= (uint64_t)e->payload_chunks->len * PAYLOAD_CHUNK;
}

static inline char *payload_slot(const struct sim_engine *e, uint64_t handle) {
  uint64_t i = handle - 1;
  return (char *)e->payload_chunks->pdata[i / PAYLOAD_CHUNK] + (i % PAYLOAD_CHUNK) * SIM_PAYLOAD_BYTES;
}

void *sim_payload(struct sim_engine *e, uint64_t handle) {
  g_assert(payload_named(e, handle));
  return payload_slot(e, handle);
}

void sim_payload_prefetch(const struct sim_engine *e, uint64_t handle) {
  if (!payload_named(e, handle)) return;
  const char *p = payload_slot(e, handle);
  __builtin_prefetch(p); /* a slot may straddle two lines */
  __builtin_prefetch(p + SIM_PAYLOAD_BYTES - 1);
}

void sim_payload_free(struct sim_engine *e, uint64_t handle) {
  g_assert(handle >= 1 && e->payloads_live > 0);
  sim_payload_free_push(e, handle);
  e->payloads_live--;
}

size_t sim_payloads_live(const struct sim_engine *e) { return e->payloads_live; }

uint64_t sim_events_executed(const struct sim_engine *e) { return e->executed; }
size_t sim_pending(const struct sim_engine *e) { return q_size(e->q); }
size_t sim_queue_bytes(const struct sim_engine *e) { return q_bytes(e->q); }
sim_time sim_min_latency(const struct sim_engine *e) { return e->min_latency; }
