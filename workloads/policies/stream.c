/* The streamed half of the driver (lower.h, stream.h): an op source
 * (source.h, a GOAL schedule) lowered an op at a time through the policy's
 * hook while the run goes, each rank pulled from its own cursor when the
 * models ask for steps (models/nodeprog.h), its steps written into windows
 * and slots the models give back (np_give). Two ways, as the policy's
 * `prepare` says:
 *
 * - Graph ranks run on the host (the host-driven policies): each rank is
 *   read in its written order as its CPU's thread goes (np_source), as
 *   long as fewer than `window` of the ops read wait for a dependency; an
 *   op is lowered when read and its steps added to the CPU's graph
 *   executor (cpu_stream_add) once the dependency items that may name it
 *   as the op that waits are read (at most `lag` ops later). A step that
 *   ended before now gives its slot back (np_source release); an op whose
 *   steps all did is forgotten (its label, wl_source_ops.forget).
 *   A graph rank that is a chain (wl_source.chains: each op waits for the
 *   end of the one before, as Schedgen writes a rank) is read instead as
 *   its CPU asks for steps, one op at a time, into a window of host steps
 *   (np_seq, nodeprog.chain: the CPU runs it by the graph's rules): no
 *   dependency item, label or slot to keep.
 * - Ranks run in one order (the policies that drive from the GPU): the
 *   order is the windowed one (program.h, wl_lin: the next op among the
 *   first `window` not yet placed, so a rank's order is known from a window
 *   of it; the whole program is ordered by the same rule, wl_linearize),
 *   each op placed is lowered by the hook when the CPU asks for a host step
 *   or the GPU for a step of an open kernel (np_seq) not yet written. A
 *   kernel's steps lowered beyond the GPU's window wait packed. A receive's
 *   watcher may depend on whether stream work follows it in its rank's
 *   order (gds, pol_recv_work_after): known once it is placed, so a send
 *   whose receive its peer has not placed yet places the peer's ops up to
 *   it first.
 *
 * A send meets its receive when the later of the two is read, in order per
 * (source, destination, tag) as the whole program matches them; the
 * receive's flag is taken when a lowering first names it and given back
 * once its wait has passed. The run is the whole program's step for step
 * (same times, same counters); where it could not be (an op found ready
 * only after the thread moved on, a window none of whose ops is ready, a
 * size that differs, a deadlock to name) it stops and the program runs
 * read whole instead (pol_run_source). */
#include "stream.h"

#include <string.h>

#include "coll.h"
#include "cpu.h"
#include "phase.h"
#include "pool.h"

/* The most ops a dependency item may come after the op that waits by, for
 * a source to stream: each op is added once that many more are read. */
#define PST_MAX_LAG 16

/* Host steps a chain rank is lowered ahead of its CPU when it asks: the
 * rank's state (cursor, policy state, windows) is touched once for that
 * many ops, not once an op, while what is in flight stays a few ops. */
#define PST_CHAIN_AHEAD 32

/* ---- slots ---- */

/* An array whose elements stay where they are while the run goes on: it
 * grows into a new block, the old ones kept to the end (the GPU holds a
 * running kernel's struct by pointer). */
struct pst_stable {
  void *data;
  size_t cap, size;          /* elements; bytes each */
  GPtrArray *old;
};

static void *stable_at(struct pst_stable *a, size_t i) {
  if (i >= a->cap) {
    size_t cap = MAX(i + 1, 2 * a->cap);
    void *b = g_malloc0(cap * a->size);
    if (a->data) memcpy(b, a->data, a->cap * a->size);
    g_ptr_array_add(a->old, a->data);
    a->data = b;
    a->cap = cap;
  }
  return (char *)a->data + i * a->size;
}

/* Elements that stay where they are, in blocks of PST_CHUNK made as
 * needed (a kernel's steps, named by pointer only). */
#define PST_CHUNK 256

struct pst_chunks {
  GPtrArray *blocks;
  size_t size;               /* bytes each */
};

static void *chunk_at(struct pst_chunks *a, size_t i) {
  while (i / PST_CHUNK >= a->blocks->len)
    g_ptr_array_add(a->blocks, g_malloc0(PST_CHUNK * a->size));
  return (char *)a->blocks->pdata[i / PST_CHUNK] + i % PST_CHUNK * a->size;
}

/* Takes the index given back last from FREE into *I; false when none. */
static bool free_pop(GArray *free, uint32_t *i) {
  if (!free->len) return false;
  *i = g_array_index(free, uint32_t, free->len - 1);
  g_array_set_size(free, free->len - 1);
  return true;
}

/* ---- the run's state ---- */

/* A message: its send or receive read, its flag at the receiver. */
struct pst_msg {
  struct pst_msg *next;      /* in its channel's queue of unmatched ones, or (ended) in the
                                run's list of them to reuse */
  int64_t bytes;
  uint32_t dst;              /* the receiving rank */
  uint32_t flag;             /* its flag there; 0: none taken yet */
  int8_t work_after;         /* its receive placed: stream work follows it (1) or not (0);
                                -1: not yet */
  uint8_t refs;              /* its ops not yet lowered */
  bool recv;                 /* queued: it is a receive whose send is not read yet */
};

/* A (source, destination, tag): its ops read and not yet matched (one side). */
struct pst_chan {
  uint32_t src, dst, tag;
  struct pst_msg *head, *tail;
};

/* Graph ranks: an op read, its host steps' slots (at most 4: a kernel's
 * launch and wait is 2) and which of them the CPU has not given back. */
#define PST_OP_STEPS 4
struct pst_gop {
  uint32_t slots[PST_OP_STEPS];
  uint8_t n, live;           /* live: a bit per step */
  uint32_t handle;           /* the source's (wl_item.handle) */
  /* A library region's ops after its first share the first's host steps
   * (pol_host_shared): LEADER, the first's id + 1 (0: its own steps);
   * the first chains them by NEXT (id + 1, 0: none), forgotten with it. */
  uint32_t leader, next;
};

/* Graph ranks: an op read and lowered whose steps wait for the dependency
 * items that may name it as the op that waits. */
struct pst_pend {
  uint32_t op;               /* its pst_gop */
  struct hstep steps[PST_OP_STEPS];
  GArray *deps;              /* struct hdep (slots) of its first step */
  bool old;                  /* it also waits for ops given back (ended before now) */
};

/* Ordered ranks: an op read and not yet placed, or placed and not yet lowered. */
struct pst_rop {
  struct wl_op op;
  struct pst_msg *msg;
  uint32_t handle;           /* the source's (wl_item.handle) */
  bool placed;
};

/* An open kernel's steps (ordered ranks): a window from kern.base on, then
 * those lowered beyond it, packed: a mask of a struct kstep's non-zero
 * words and those words (a host that runs ahead, gputn's registrations,
 * keeps a few bytes a step, not a struct kstep, most of whose words are 0). */
#define PST_KS_WINDOW 64
#define PST_KPACK_CHUNK 4096 /* bytes: packed steps in chunks, each freed once read */
#define KS_WORDS (sizeof(struct kstep) / sizeof(uint32_t))
_Static_assert(sizeof(struct kstep) % sizeof(uint32_t) == 0 && KS_WORDS <= 64,
               "a kstep packs as at most 64 words");

struct pst_open {
  uint32_t k;                /* its kernel slot */
  bool closed;               /* its last step is written (pst_kernel_close) */
  GArray *ks;                /* struct kstep from kern.base on */
  GQueue kpack;              /* GByteArray chunks of packed steps, the first read from
                                kpack_off on */
  guint kpack_off;
  uint64_t n_packed;
};

struct pol_srank {
  struct pol_stream *x;
  uint32_t node;
  struct wl_cursor *cur;
  struct pol_low L;
  uint64_t span_at;          /* pol_lower_op's cursor in the rank's spans */
  struct nodeprog np;
  bool ended;                /* every op read (graph, chain) */
  bool chain;                /* a graph rank that is a chain, read as a sequence */
  bool done;                 /* every op lowered and the rank's end lowered */
  uint64_t n_read;           /* ops read: the next op's index */
  struct pst_msg *cur_msg;   /* the message of the op being lowered */
  struct pst_chan *chan[2];  /* the channel its last send [0] and receive [1] met on */
  /* Slots the models give back (np_give). */
  struct pool cmds;          /* struct nic_cmd */
  struct pool qcmds;         /* struct qcmd */
  struct pst_stable kernels; /* struct kernel per slot */
  struct pst_chunks ksteps;  /* a one-step kernel's step, per slot */
  GPtrArray *kheap;          /* a kernel of more steps: its step array, per slot */
  GArray *free_kernels;
  uint32_t n_kernels;
  GArray *free_flags;
  GArray *opens;             /* struct pst_open */
  /* Graph ranks (np_source): */
  GArray *gops, *free_gops;  /* struct pst_gop; uint32_t */
  GArray *slot_op;           /* per host step slot: its pst_gop */
  GArray *slot_flag;         /* per host step slot: the flag its wait gives back, 0: none */
  GArray *free_slots;
  uint32_t n_slots;
  uint64_t n_steps;          /* host steps added: the next one's order */
  struct pst_pend *pend;     /* lag + 1 of them, oldest at head */
  uint32_t head, n_pend;
  GArray *op_hs;             /* the host steps of the op being lowered */
  bool shared;               /* the op being lowered shares the steps of the one before */
  bool in_region;            /* the last op lowered is in a library region, not its last */
  uint32_t last_gop;         /* the last op lowered */
  struct sim_comp *cpu;      /* the CPU reading (during graph_read) */
  /* Ordered ranks (np_seq): */
  struct wl_lin *lin;        /* the rank's order */
  GArray *rops;              /* struct pst_rop: ops rbase .. n_read - 1 */
  uint64_t rbase, rlo;       /* rlo: the first op not placed */
  bool read_end;             /* the cursor is at its end */
  GArray *placed;            /* struct pst_rop: placed, not yet lowered, from placed_head on */
  guint placed_head;
  uint64_t placed_work;      /* the computes and sends placed */
  uint64_t n_lowered;
  GArray *hs;                /* struct hstep from np.host_base on */
  uint64_t hpassed;          /* host steps whose flags are given back */
};

struct pol_stream {
  const struct wl_source *src;
  struct pol_env env;
  const struct pol_type *pol;
  const struct hw_config *hw;
  struct sim_engine *e;
  uint32_t n_ranks, window, lag;
  bool ordered;              /* the policy runs ranks in one order */
  bool regions;              /* ... a library region's ops together (pol_prep_coll_kernels) */
  bool check;                /* validate: ops ordered and lowered, nothing kept, none matched */
  struct pol_srank *ranks;
  void *states;              /* the policy's per-rank states */
  GHashTable *chans;         /* struct pst_chan by (src, dst, tag) */
  struct pst_msg *spare;     /* messages ended, to reuse (no allocation a message) */
  struct np_source source;
  struct np_seq seq;
  struct np_give give;
  bool diverged;             /* stopped: the whole program runs it */
  char *lower_err;           /* the error a lowering stopped the run with, if any */
};

static void pst_stop(struct pol_stream *x) {
  x->diverged = true;
  if (x->e) sim_stop(x->e);
}

/* ---- messages ---- */

static guint chan_hash(gconstpointer k) {
  const struct pst_chan *c = k;
  return (c->src * 2654435761u) ^ (c->dst * 40503u) ^ c->tag;
}

static gboolean chan_equal(gconstpointer a, gconstpointer b) {
  const struct pst_chan *x = a, *y = b;
  return x->src == y->src && x->dst == y->dst && x->tag == y->tag;
}

static void msg_unref(struct pol_stream *x, struct pst_msg *m) {
  if (!m || --m->refs) return;
  m->next = x->spare;
  x->spare = m;
}

static uint32_t flag_new(struct pol_srank *s) {
  uint32_t f;
  return free_pop(s->free_flags, &f) ? f : ++s->np.n_flags;
}

static void flag_free(struct pol_srank *s, uint32_t flag) {
  if (flag) g_array_append_val(s->free_flags, flag);
}

/* Channel C goes once no message waits on it and neither end keeps it as
 * its last (a trace that tags each call apart, Chakra's collectives, would
 * keep one per call; a channel used again and again stays while in use). */
static void chan_drop_idle(struct pol_stream *x, struct pst_chan *c) {
  if (!c->head && x->ranks[c->src].chan[0] != c && x->ranks[c->dst].chan[1] != c)
    g_hash_table_remove(x->chans, c);
}

/* The message send or receive O of RANK meets its peer op in: the one
 * read first, or a new one; NULL when their sizes differ. */
static struct pst_msg *msg_match(struct pol_stream *x, uint32_t rank, const struct wl_op *o) {
  bool recv = o->kind == WL_RECV;
  struct pst_chan key = {recv ? o->peer : rank, recv ? rank : o->peer, o->tag, NULL, NULL};
  struct pst_chan **last = &x->ranks[rank].chan[recv], *c = *last; /* a rank talks to few */
  if (!c || !chan_equal(c, &key)) {
    struct pst_chan *was = c;
    c = g_hash_table_lookup(x->chans, &key);
    if (!c) {
      c = g_memdup2(&key, sizeof key);
      g_hash_table_add(x->chans, c);
    }
    *last = c;
    if (was) chan_drop_idle(x, was);
  }
  if (c->head && c->head->recv != recv) {
    struct pst_msg *m = c->head;
    c->head = m->next;
    m->next = NULL;
    if (!c->head) c->tail = NULL;
    if (m->bytes != o->bytes) {
      msg_unref(x, m);
      return NULL;
    }
    return m;
  }
  struct pst_msg *m = x->spare;
  if (m) x->spare = m->next;
  else m = g_new(struct pst_msg, 1);
  *m = (struct pst_msg){.bytes = o->bytes, .dst = key.dst, .work_after = -1, .refs = 2,
                        .recv = recv};
  if (c->tail) c->tail->next = m;
  else c->head = m;
  c->tail = m;
  return m;
}

static void chan_free(gpointer p) {
  struct pst_chan *c = p;
  for (struct pst_msg *m = c->head, *n; m; m = n) {
    n = m->next;
    g_free(m);
  }
  g_free(c);
}

/* The flag of message M at its receiver, taken now if none is yet. */
static uint32_t msg_flag(struct pol_stream *x, struct pst_msg *m) {
  if (!m->flag) m->flag = flag_new(&x->ranks[m->dst]);
  return m->flag;
}

/* ---- writing into windows and slots (stream.h) ---- */

/* Points S's program at its arrays (they may have moved). */
static void point(struct pol_srank *s) {
  s->np.cmds = pool_at(&s->cmds, struct nic_cmd, 0);
  s->np.n_cmds = s->cmds.items->len;
  s->np.qcmds = pool_at(&s->qcmds, struct qcmd, 0);
  s->np.n_qcmds = s->qcmds.items->len;
  s->np.kernels = s->kernels.data;
  s->np.n_kernels = s->n_kernels;
  if (s->hs) {
    s->np.host = (const struct hstep *)(void *)s->hs->data;
    s->np.n_host = s->np.host_base + s->hs->len;
  }
  for (guint j = 0; j < s->opens->len; j++) {
    struct pst_open *op = &g_array_index(s->opens, struct pst_open, j);
    struct kernel *k = stable_at(&s->kernels, op->k);
    k->steps = (const struct kstep *)(void *)op->ks->data;
    k->n_steps = k->base + op->ks->len;
  }
}

uint32_t pst_add_cmd(struct pol_srank *s, const struct nic_cmd *cmd) {
  if (s->x->check) return 0;
  uint32_t i = pool_take(&s->cmds);
  *pool_at(&s->cmds, struct nic_cmd, i) = *cmd;
  return i;
}

uint32_t pst_add_qcmd(struct pol_srank *s, const struct qcmd *qc) {
  if (s->x->check) return 0;
  uint32_t i = pool_take(&s->qcmds);
  *pool_at(&s->qcmds, struct qcmd, i) = *qc;
  return i;
}

static uint32_t kernel_slot(struct pol_srank *s) {
  uint32_t slot;
  if (!free_pop(s->free_kernels, &slot)) slot = s->n_kernels++;
  if (slot < s->kheap->len) {
    g_free(s->kheap->pdata[slot]);
    s->kheap->pdata[slot] = NULL;
  }
  return slot;
}

uint32_t pst_add_kernel(struct pol_srank *s, const char *name, uint32_t n_wgs,
                        const struct kstep *steps, size_t n) {
  if (s->x->check) return 0;
  uint32_t slot = kernel_slot(s);
  struct kstep *st = NULL;
  if (n == 1) {
    st = chunk_at(&s->ksteps, slot);
    *st = steps[0];
  } else if (n > 1) {
    if (slot >= s->kheap->len) g_ptr_array_set_size(s->kheap, slot + 1);
    st = s->kheap->pdata[slot] = g_memdup2(steps, n * sizeof *steps);
  }
  struct kernel *k = stable_at(&s->kernels, slot);
  *k = (struct kernel){.name = name, .n_wgs = n_wgs, .steps = st, .n_steps = n};
  for (size_t i = 0; i < n; i++) k->buffers = MAX(k->buffers, steps[i].buffers);
  return slot;
}

uint32_t pst_kernel_open(struct pol_srank *s, const char *name, uint32_t n_wgs, bool persistent) {
  if (s->x->check) return 0;
  uint32_t slot = kernel_slot(s);
  *(struct kernel *)stable_at(&s->kernels, slot) =
      (struct kernel){.name = name, .n_wgs = n_wgs, .persistent = persistent, .open = true};
  struct pst_open op = {.k = slot, .ks = g_array_new(FALSE, FALSE, sizeof(struct kstep))};
  g_array_append_val(s->opens, op);
  return slot;
}

static struct pst_open *open_of(struct pol_srank *s, uint32_t k) {
  for (guint j = 0; j < s->opens->len; j++)
    if (g_array_index(s->opens, struct pst_open, j).k == k)
      return &g_array_index(s->opens, struct pst_open, j);
  return NULL;
}

static void open_free(struct pst_open *op) {
  g_array_free(op->ks, TRUE);
  g_queue_clear_full(&op->kpack, (GDestroyNotify)g_byte_array_unref);
}

/* Appends ST to OP's packed steps. */
static void pack(struct pst_open *op, const struct kstep *st) {
  uint32_t w[KS_WORDS], nz[KS_WORDS], n = 0;
  uint64_t mask = 0;
  memcpy(w, st, sizeof w);
  for (uint32_t j = 0; j < KS_WORDS; j++)
    if (w[j]) mask |= (uint64_t)1 << j, nz[n++] = w[j];
  GByteArray *tail = g_queue_peek_tail(&op->kpack);
  if (!tail || tail->len + sizeof mask + n * sizeof *nz > PST_KPACK_CHUNK) {
    tail = g_byte_array_sized_new(PST_KPACK_CHUNK);
    g_queue_push_tail(&op->kpack, tail);
  }
  g_byte_array_append(tail, (const guint8 *)&mask, sizeof mask);
  g_byte_array_append(tail, (const guint8 *)nz, n * sizeof *nz);
  op->n_packed++;
}

/* Moves OP's oldest packed step to the end of its window; false when none. */
static bool unpack(struct pst_open *op) {
  GByteArray *head = g_queue_peek_head(&op->kpack);
  if (!head) return false;
  const guint8 *p = head->data + op->kpack_off;
  uint64_t mask;
  uint32_t w[KS_WORDS] = {0};
  memcpy(&mask, p, sizeof mask);
  p += sizeof mask;
  for (uint32_t j = 0; j < KS_WORDS; j++)
    if (mask >> j & 1) memcpy(&w[j], p, sizeof *w), p += sizeof *w;
  op->kpack_off = (guint)(p - head->data);
  op->n_packed--;
  g_array_set_size(op->ks, op->ks->len + 1);
  memcpy(&g_array_index(op->ks, struct kstep, op->ks->len - 1), w, sizeof w);
  if (op->kpack_off == head->len) { /* all read: freed */
    g_byte_array_unref(g_queue_pop_head(&op->kpack));
    op->kpack_off = 0;
  }
  return true;
}

void pst_kernel_step(struct pol_srank *s, uint32_t k, const struct kstep *st) {
  if (s->x->check) return;
  struct pst_open *op = open_of(s, k);
  g_assert(op);
  struct kernel *kn = stable_at(&s->kernels, k);
  kn->buffers = MAX(kn->buffers, st->buffers); /* what a launch made after it binds */
  if (!op->n_packed && op->ks->len < PST_KS_WINDOW) g_array_append_vals(op->ks, st, 1);
  else pack(op, st);
}

void pst_kernel_close(struct pol_srank *s, uint32_t k) {
  if (s->x->check) return;
  struct pst_open *op = open_of(s, k);
  g_assert(op);
  op->closed = true;
}

void pst_host_shared(struct pol_srank *s) {
  g_assert(s->L.graph && s->op_hs->len == 0);
  s->shared = true;
}

void pst_add_host(struct pol_srank *s, const struct hstep *st) {
  if (s->x->check) return;
  g_array_append_vals(s->hs ? s->hs : s->op_hs, st, 1);
}

void pst_host_loop_end(struct pol_srank *s) {
  (void)s;
  g_error("a streamed rank has no loop (source.h)");
}

uint32_t pst_flag_new(struct pol_srank *s) {
  if (s->x->check) return 0;
  return flag_new(s);
}

uint32_t pst_recv_flag(struct pol_srank *s, const struct wl_op *o) {
  (void)o;
  if (s->x->check) return 0;
  return msg_flag(s->x, s->cur_msg);
}

struct pol_recv pst_recv_of(struct pol_srank *s, const struct wl_op *o) {
  if (s->x->check) return (struct pol_recv){.env = &s->x->env, .rank = s->node};
  struct pst_msg *m = s->cur_msg;
  /* The receive's region: a collective's message has a collective's
   * kernel at both ends (every rank writes the call out alike), a
   * point-to-point one at neither, so a send's own region says it. */
  return (struct pol_recv){.flag = msg_flag(s->x, m), .region = o->region, .env = &s->x->env,
                           .rank = m->dst, .msg = m};
}

static int place(struct pol_stream *x, struct pol_srank *s);

bool pst_recv_work_after(const struct pol_recv *r) {
  struct pst_msg *m = r->msg;
  struct pol_stream *x = r->env->stream;
  if (!m) return false; /* validate: nothing matched */
  if (!x->ordered) { /* the host runs the graph: no order to place it in */
    pst_stop(x);
    return false;
  }
  while (m->work_after < 0)
    if (place(x, &x->ranks[m->dst]) <= 0) {
      pst_stop(x);
      return false;
    }
  return m->work_after > 0;
}

/* ---- lowering an op ---- */

/* Lowers op O of S (MSG: its message) through the policy's hook; O NULL:
 * the rank's end. False: the run cannot go on (x->lower_err says why when
 * it is an input error: the whole program would be refused too). */
static bool lower(struct pol_srank *s, const struct wl_op *o, struct pst_msg *msg) {
  struct pol_stream *x = s->x;
  s->cur_msg = msg;
  char *err = NULL;
  bool ok = pol_lower_op(&s->L, o, &s->span_at, &err);
  if (ok && s->L.proxied && x->hw->cpu->helper_threads < 1) { /* pol_run's */
    err = pol_proxy_error(x->env.sc, x->env.lib);
    ok = false;
  }
  if (err && !x->lower_err) x->lower_err = err; /* an input error: said, not run whole */
  else g_free(err);
  s->cur_msg = NULL;
  if (msg && !x->check) msg_unref(x, msg);
  if (!ok) pst_stop(x);
  if (!x->check) point(s);
  return ok && !x->diverged;
}

/* ---- graph ranks (np_source) ---- */

/* Adds the oldest of S's ops read and lowered and not yet added to its CPU. */
static void seal(struct pol_srank *s) {
  struct pol_stream *x = s->x;
  struct pst_pend *q = &s->pend[s->head];
  s->head = (s->head + 1) % (x->lag + 1);
  s->n_pend--;
  if (x->diverged) return;
  const struct pst_gop *op = &g_array_index(s->gops, struct pst_gop, q->op);
  bool ok = cpu_stream_add(s->cpu, op->slots[0], s->n_steps++, &q->steps[0],
                           (const struct hdep *)(void *)q->deps->data, q->deps->len, q->old);
  for (uint32_t k = 1; ok && k < op->n; k++) { /* the op's next step: once the one before ended */
    struct hdep prev = {op->slots[k - 1], 0};
    ok = cpu_stream_add(s->cpu, op->slots[k], s->n_steps++, &q->steps[k], &prev, 1, false);
  }
  if (!ok) pst_stop(x);
}

/* A host step slot of op ID whose wait gives back FLAG (0: none). */
static uint32_t slot_new(struct pol_srank *s, uint32_t id, uint32_t flag) {
  uint32_t slot;
  if (!free_pop(s->free_slots, &slot)) {
    slot = s->n_slots++;
    g_array_set_size(s->slot_op, s->n_slots);
    g_array_set_size(s->slot_flag, s->n_slots);
  }
  g_array_index(s->slot_op, uint32_t, slot) = id;
  g_array_index(s->slot_flag, uint32_t, slot) = flag;
  return slot;
}

/* Takes op O of S (its pst_gop ID), matches it and lowers it into a
 * pending entry. */
static bool graph_op(struct pol_srank *s, const struct wl_op *o, uint32_t handle, uint32_t id) {
  struct pol_stream *x = s->x;
  struct pst_msg *m = NULL;
  if (o->kind == WL_SEND || o->kind == WL_RECV) {
    m = msg_match(x, s->node, o);
    if (!m) return false; /* sizes that differ: the whole program says it */
  }
  g_array_set_size(s->op_hs, 0);
  s->L.index = s->n_read++;
  struct pst_gop *op = &g_array_index(s->gops, struct pst_gop, id);
  op->n = op->live = 0; /* not yet lowered: given back as nothing */
  op->handle = handle;
  op->leader = op->next = 0;
  s->shared = false;
  if (!lower(s, o, m)) return false;
  s->in_region = s->L.span && s->L.span->region && !s->L.span_last;
  op = &g_array_index(s->gops, struct pst_gop, id);
  if (s->shared) { /* a collective's kernel: the host steps of its first op */
    const struct pst_gop *prev = &g_array_index(s->gops, struct pst_gop, s->last_gop);
    uint32_t lead = prev->leader ? prev->leader - 1 : s->last_gop;
    struct pst_gop *first = &g_array_index(s->gops, struct pst_gop, lead);
    op->leader = lead + 1;
    op->next = first->next;
    first->next = id + 1;
    s->last_gop = id;
    return true;
  }
  s->last_gop = id;
  g_assert(s->n_pend <= x->lag);
  struct pst_pend *q = &s->pend[(s->head + s->n_pend++) % (x->lag + 1)];
  q->op = id;
  q->old = false;
  g_array_set_size(q->deps, 0);
  uint32_t n = s->op_hs->len;
  g_assert(n >= 1 && n <= PST_OP_STEPS); /* a graph's op has a host step or two */
  op->n = (uint8_t)n;
  op->live = (uint8_t)((1u << n) - 1);
  for (uint32_t k = 0; k < n; k++) {
    q->steps[k] = g_array_index(s->op_hs, struct hstep, k);
    op->slots[k] = slot_new(s, id, q->steps[k].kind == HS_WAIT_FLAG ? q->steps[k].flag : 0);
  }
  return true;
}

/* Reads NODE's rank on from its cursor: item after item, until an op would
 * be read while `window` ops wait for a dependency (it is left for the
 * next read), or the rank ends. */
static void graph_read(void *ctx, uint32_t node, struct sim_comp *cpu) {
  struct pol_stream *x = ctx;
  struct pol_srank *s = &x->ranks[node];
  const struct wl_source *src = x->src;
  /* Half a window at least at a time. */
  if (s->ended || x->diverged || cpu_stream_blocked(cpu) > x->window / 2) return;
  s->cpu = cpu;
  for (;;) {
    struct wl_item it;
    int got = src->ops->next(src->ctx, s->cur, &it, false, 0);
    if (got < 0) {
      pst_stop(x);
      return;
    }
    if (it.kind == WL_ITEM_DEP) {
      /* Of an op sharing its region's first op's steps: inside the region,
       * or what the region's first op waits for already. */
      if (g_array_index(s->gops, struct pst_gop, it.ta - 1).leader) continue;
      struct pst_pend *q = NULL;
      for (uint32_t j = 0; j < s->n_pend && !q; j++) {
        struct pst_pend *c = &s->pend[(s->head + j) % (x->lag + 1)];
        if (c->op + 1 == it.ta) q = c;
      }
      g_assert(q); /* within the lag */
      /* On its start: its first step's; on its end: its last step's. */
      const struct pst_gop *on =
          it.b != WL_GONE ? &g_array_index(s->gops, struct pst_gop, it.tb - 1) : NULL;
      if (on && on->leader) on = &g_array_index(s->gops, struct pst_gop, on->leader - 1);
      uint8_t bit = on ? (uint8_t)(it.on_start ? 1u : 1u << (on->n - 1)) : 0;
      if (on && (on->live & bit)) {
        struct hdep d = {it.on_start ? on->slots[0] : on->slots[on->n - 1], it.on_start};
        g_array_append_val(q->deps, d);
      } else {
        q->old = true; /* given back: ended before now */
      }
      continue;
    }
    /* An op, or the end: the oldest read can be named as the one that
     * waits no more. */
    bool end = it.kind == WL_ITEM_END;
    if (s->n_pend > x->lag || (end && s->n_pend)) seal(s);
    if (end) {
      while (s->n_pend) seal(s);
      s->ended = true;
      cpu_stream_end(cpu);
      return;
    }
    /* A library region is read whole at once: its kernel is written
     * before the CPU can launch it. */
    if (x->diverged || (!s->in_region && cpu_stream_blocked(cpu) >= x->window)) return;
    uint32_t id;
    if (!free_pop(s->free_gops, &id)) {
      id = s->gops->len;
      g_array_set_size(s->gops, id + 1);
    }
    got = src->ops->next(src->ctx, s->cur, &it, true, id + 1);
    g_assert(got == 1 && it.kind == WL_ITEM_OP);
    if (!graph_op(s, &it.op, it.handle, id)) {
      pst_stop(x);
      return;
    }
  }
}

static void graph_release(void *ctx, uint32_t node, uint32_t slot) {
  struct pol_stream *x = ctx;
  struct pol_srank *s = &x->ranks[node];
  /* An op read and not yet added that waits for it: it ended before now. */
  for (uint32_t j = 0; j < s->n_pend; j++) {
    struct pst_pend *q = &s->pend[(s->head + j) % (x->lag + 1)];
    for (guint d = 0; d < q->deps->len;)
      if (g_array_index(q->deps, struct hdep, d).step == slot) {
        g_array_remove_index_fast(q->deps, d);
        q->old = true;
      } else {
        d++;
      }
  }
  uint32_t id = g_array_index(s->slot_op, uint32_t, slot);
  flag_free(s, g_array_index(s->slot_flag, uint32_t, slot)); /* the CPU set it back to 0 */
  g_array_append_val(s->free_slots, slot);
  struct pst_gop *op = &g_array_index(s->gops, struct pst_gop, id);
  for (uint32_t k = 0; k < op->n; k++)
    if (op->slots[k] == slot) op->live &= (uint8_t)~(1u << k);
  if (op->live) return;
  x->src->ops->forget(x->src->ctx, s->cur, op->handle);
  g_array_append_val(s->free_gops, id);
  for (uint32_t f = op->next; f;) { /* the ops that shared its steps */
    struct pst_gop *fo = &g_array_index(s->gops, struct pst_gop, f - 1);
    uint32_t fid = f - 1;
    x->src->ops->forget(x->src->ctx, s->cur, fo->handle);
    g_array_append_val(s->free_gops, fid);
    f = fo->next;
  }
}

/* ---- ordered ranks (np_seq) ---- */

static struct pst_rop *rop_at(struct pol_srank *s, uint64_t i) {
  return &g_array_index(s->rops, struct pst_rop, (guint)(i - s->rbase));
}

/* Drops the elements of A before element UPTO, its first being *BASE: at
 * most half the array at a time (amortized). */
static void drop_front(GArray *a, uint64_t *base, uint64_t upto) {
  guint n = (guint)(upto - *base);
  if (n < 64 || 2 * n < a->len) return;
  g_array_remove_range(a, 0, n);
  *base = upto;
}

/* Reads S's rank on: a chunk of ops (a window's worth, at least 16) with
 * their dependency items, or up to its end. */
static void ord_read(struct pol_stream *x, struct pol_srank *s) {
  const struct wl_source *src = x->src;
  uint32_t chunk = MAX(x->window, 16), got = 0;
  for (;;) {
    struct wl_item it;
    int r = src->ops->next(src->ctx, s->cur, &it, got < chunk, 0);
    if (r < 0) {
      pst_stop(x);
      return;
    }
    if (it.kind == WL_ITEM_END) {
      wl_lin_seal(s->lin, s->n_read);
      s->read_end = true;
      return;
    }
    if (it.kind == WL_ITEM_DEP) {
      if (it.b != WL_GONE) wl_lin_dep(s->lin, it.a, it.b); /* gone: placed already */
      continue;
    }
    if (r == 2) return; /* a chunk read */
    struct pst_rop rop = {.op = it.op, .handle = it.handle};
    const struct wl_op *o = &it.op;
    if (!x->check && (o->kind == WL_SEND || o->kind == WL_RECV)) {
      rop.msg = msg_match(x, s->node, o);
      if (!rop.msg) {
        pst_stop(x);
        return;
      }
    }
    uint64_t i = s->n_read++;
    got++;
    wl_lin_add(s->lin, o->kind == WL_RECV || o->kind == WL_QUIET, x->regions ? o->region : 0);
    if (i > x->lag) wl_lin_seal(s->lin, i - x->lag);
    g_array_append_val(s->rops, rop);
  }
}

/* Places S's next op (reading on as needed) into its queue of ops placed:
 * 1; 0 when every op is placed; -1 when the run stopped (none of the
 * window ready: the whole program, ordered by looking past it, runs). */
static int place(struct pol_stream *x, struct pol_srank *s) {
  const struct wl_source *src = x->src;
  while (!x->diverged) {
    uint64_t i;
    int got = wl_lin_next(s->lin, s->read_end, false, &i);
    if (got == 0) {
      ord_read(x, s);
      continue;
    }
    if (got < 0) { /* all placed, or none of the window ready */
      if (!s->read_end || s->rlo < s->n_read) pst_stop(x);
      return x->diverged ? -1 : 0;
    }
    struct pst_rop *r = rop_at(s, i);
    r->placed = true;
    src->ops->forget(src->ctx, s->cur, r->handle);
    const struct wl_op *o = &r->op;
    bool work = o->kind == WL_COMPUTE || o->kind == WL_SEND;
    if (o->kind == WL_RECV && r->msg)
      r->msg->work_after = s->L.sum->computes + s->L.sum->sends > s->placed_work;
    s->placed_work += work;
    g_array_append_val(s->placed, *r);
    while (s->rlo < s->n_read && rop_at(s, s->rlo)->placed) s->rlo++;
    drop_front(s->rops, &s->rbase, s->rlo);
    return 1;
  }
  return -1;
}

/* Lowers chain rank S's next op (read now), or after its last the rank's end. */
static void chain_next(struct pol_stream *x, struct pol_srank *s) {
  const struct wl_source *src = x->src;
  struct wl_item it;
  if (src->ops->next(src->ctx, s->cur, &it, true, 0) < 0) {
    pst_stop(x);
    return;
  }
  if (it.kind == WL_ITEM_END) {
    s->ended = true;
    s->L.index = s->n_read;
    lower(s, NULL, NULL);
    s->done = true;
    return;
  }
  struct pst_msg *m = NULL;
  if (it.op.kind == WL_SEND || it.op.kind == WL_RECV) {
    m = msg_match(x, s->node, &it.op);
    if (!m) { /* sizes that differ: the whole program says it */
      pst_stop(x);
      return;
    }
  }
  s->L.index = s->n_read++;
  lower(s, &it.op, m);
}

/* Lowers S's next op placed (placing one first when none waits), or after
 * its last the rank's end; a chain's next op. */
static void lower_next(struct pol_stream *x, struct pol_srank *s) {
  if (s->chain) {
    chain_next(x, s);
    return;
  }
  if (s->placed_head == s->placed->len) {
    g_array_set_size(s->placed, 0);
    s->placed_head = 0;
    int got = place(x, s);
    if (got < 0) return;
    if (got == 0) {
      s->L.index = s->n_lowered;
      lower(s, NULL, NULL);
      s->done = true;
      return;
    }
  }
  struct pst_rop r = g_array_index(s->placed, struct pst_rop, s->placed_head++);
  s->L.index = s->n_lowered++;
  lower(s, &r.op, r.msg);
}

/* Whether S has host step I, or has no more to come. */
static bool host_there(struct pol_srank *s, uint64_t i) {
  return s->np.n_host > i || s->L.host_closed || s->done;
}

static void ord_host(void *ctx, uint32_t node, uint64_t i) {
  struct pol_stream *x = ctx;
  struct pol_srank *s = &x->ranks[node];
  for (uint64_t j = MAX(s->hpassed, s->np.host_base); j < i; j++) { /* flags given back */
    const struct hstep *st = &g_array_index(s->hs, struct hstep, (guint)(j - s->np.host_base));
    if (st->kind == HS_WAIT_FLAG) flag_free(s, st->flag);
  }
  s->hpassed = MAX(s->hpassed, i);
  drop_front(s->hs, &s->np.host_base, i);
  point(s);
  uint64_t want = s->chain ? i + PST_CHAIN_AHEAD : i;
  while (!x->diverged && !host_there(s, want)) lower_next(x, s);
}

/* Whether kernel OP has step I and, so that the GPU asks once a chunk,
 * the 16 after it lowered (in its window or packed), or S no more to come. */
static bool step_there(struct pol_srank *s, struct pst_open *op, uint64_t i) {
  const struct kernel *k = stable_at(&s->kernels, op->k);
  return k->base + op->ks->len + op->n_packed > i + 16 || s->done || op->closed;
}

static void ord_kernel(void *ctx, uint32_t node, uint32_t kid, uint64_t i, uint64_t done) {
  struct pol_stream *x = ctx;
  struct pol_srank *s = &x->ranks[node];
  struct pst_open *op = open_of(s, kid);
  if (!op) return; /* a kernel written whole */
  struct kernel *k = stable_at(&s->kernels, kid);
  for (uint64_t j = k->base; j < done; j++) { /* flags given back */
    const struct kstep *st = &g_array_index(op->ks, struct kstep, (guint)(j - k->base));
    if (st->kind == KS_WAIT_FLAG) flag_free(s, st->flag);
  }
  g_array_remove_range(op->ks, 0, (guint)(done - k->base)); /* a window: a few steps */
  k->base = done;
  point(s);
  while (!x->diverged && !step_there(s, op, i)) {
    lower_next(x, s);
    op = open_of(s, kid); /* the array of them may have moved */
  }
  while (k->base + op->ks->len <= i + 16 && unpack(op)) {
  }
  point(s);
}

/* ---- what the models give back ---- */

static void give_cmd(void *ctx, uint32_t node, uint32_t cmd) {
  struct pol_stream *x = ctx;
  pool_give(&x->ranks[node].cmds, cmd);
}

static void give_qcmd(void *ctx, uint32_t node, uint32_t q) {
  struct pol_stream *x = ctx;
  struct pol_srank *s = &x->ranks[node];
  const struct qcmd *qc = pool_at(&s->qcmds, struct qcmd, q);
  if (qc->kind == Q_WAIT_FLAG) flag_free(s, qc->flag); /* the GPU set it back to 0 */
  pool_give(&s->qcmds, q);
}

static void give_kernel(void *ctx, uint32_t node, uint32_t kid) {
  struct pol_stream *x = ctx;
  struct pol_srank *s = &x->ranks[node];
  for (guint j = 0; j < s->opens->len; j++) {
    struct pst_open *op = &g_array_index(s->opens, struct pst_open, j);
    if (op->k != kid) continue;
    open_free(op);
    g_array_remove_index_fast(s->opens, j);
    break;
  }
  g_array_append_val(s->free_kernels, kid);
}

/* ---- a run ---- */

static void rank_init(struct pol_stream *x, uint32_t node) {
  struct pol_srank *s = &x->ranks[node];
  const struct wl_source *src = x->src;
  s->x = x;
  s->node = node;
  s->chain = !x->ordered && src->chains && src->chains[node];
  s->cur = src->ops->open(src->ctx, node, s->chain);
  s->L = (struct pol_low){.env = &x->env, .rank = node, .sum = &src->sums[node],
                          .graph = !x->ordered,
                          .state = (char *)x->states + node * x->pol->state_size, .srank = s};
  pool_init(&s->cmds, sizeof(struct nic_cmd));
  pool_init(&s->qcmds, sizeof(struct qcmd));
  s->kernels = (struct pst_stable){.size = sizeof(struct kernel),
                                   .old = g_ptr_array_new_with_free_func(g_free)};
  s->ksteps = (struct pst_chunks){.size = sizeof(struct kstep),
                                  .blocks = g_ptr_array_new_with_free_func(g_free)};
  s->kheap = g_ptr_array_new_with_free_func(g_free);
  s->free_kernels = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  s->free_flags = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  s->opens = g_array_new(FALSE, FALSE, sizeof(struct pst_open));
  s->np.give = &x->give;
  s->np.seq = &x->seq;
  if (s->chain) {
    s->hs = g_array_new(FALSE, FALSE, sizeof(struct hstep));
    s->np.chain = true;
  } else if (!x->ordered) {
    s->gops = g_array_new(FALSE, TRUE, sizeof(struct pst_gop));
    s->free_gops = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->slot_op = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    s->slot_flag = g_array_new(FALSE, TRUE, sizeof(uint32_t));
    s->free_slots = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->pend = g_new0(struct pst_pend, x->lag + 1);
    for (uint32_t j = 0; j <= x->lag; j++) s->pend[j].deps = g_array_new(FALSE, FALSE, sizeof(struct hdep));
    s->op_hs = g_array_new(FALSE, FALSE, sizeof(struct hstep));
    s->np.source = &x->source;
  } else {
    s->lin = wl_lin_new(x->window);
    s->rops = g_array_new(FALSE, FALSE, sizeof(struct pst_rop));
    s->placed = g_array_new(FALSE, FALSE, sizeof(struct pst_rop));
    s->hs = g_array_new(FALSE, FALSE, sizeof(struct hstep));
  }
  point(s);
}

static void rank_free(struct pol_stream *x, struct pol_srank *s) {
  const struct wl_source *src = x->src;
  if (s->cur) src->ops->close(src->ctx, s->cur);
  pool_release(&s->cmds);
  pool_release(&s->qcmds);
  g_ptr_array_free(s->kernels.old, TRUE);
  g_free(s->kernels.data);
  g_ptr_array_free(s->ksteps.blocks, TRUE);
  g_ptr_array_free(s->kheap, TRUE);
  g_array_free(s->free_kernels, TRUE);
  g_array_free(s->free_flags, TRUE);
  for (guint j = 0; j < s->opens->len; j++) open_free(&g_array_index(s->opens, struct pst_open, j));
  g_array_free(s->opens, TRUE);
  if (s->gops) {
    g_array_free(s->gops, TRUE);
    g_array_free(s->free_gops, TRUE);
    g_array_free(s->slot_op, TRUE);
    g_array_free(s->slot_flag, TRUE);
    g_array_free(s->free_slots, TRUE);
    for (uint32_t j = 0; j <= x->lag; j++) g_array_free(s->pend[j].deps, TRUE);
    g_free(s->pend);
    g_array_free(s->op_hs, TRUE);
  }
  if (s->lin) {
    wl_lin_free(s->lin);
    for (guint j = 0; j < s->rops->len; j++) { /* read and not placed */
      const struct pst_rop *r = &g_array_index(s->rops, struct pst_rop, j);
      if (!r->placed) msg_unref(x, r->msg);
    }
    for (guint j = s->placed_head; j < s->placed->len; j++) /* placed and not lowered */
      msg_unref(x, g_array_index(s->placed, struct pst_rop, j).msg);
    g_array_free(s->rops, TRUE);
    g_array_free(s->placed, TRUE);
  }
  if (s->hs) g_array_free(s->hs, TRUE);
}

/* Runs SRC streamed under POL (LIB, ORDERED, REGIONS: as its prepare says) with a
 * window of WINDOW ops. Returns 1 (OUT filled), 0 (it could not keep to the
 * whole program's run: that must run it), or -1 and *ERR (a lowering's
 * input error, or a deadlock). CHECK (validate): orders and lowers every
 * op keeping nothing, simulates nothing. */
static int stream_run(const struct wl_source *src, const struct pol_type *pol, uint8_t lib,
                      bool ordered, bool regions, const struct hw_config *hw,
                      const struct wl_ctx *ctx, uint32_t window, bool check,
                      struct sim_result *out, char **err) {
  struct pol_stream x = {.src = src, .pol = pol, .hw = hw, .n_ranks = src->n_ranks,
                         .window = window, .lag = src->lag, .ordered = ordered,
                         .regions = regions, .check = check};
  pol_env_init(&x.env, pol, hw, ctx->sc, lib, src->n_ranks);
  x.env.stream = &x;
  x.env.descs = src->descs;
  x.states = g_malloc0(MAX(pol->state_size, 1) * src->n_ranks);
  x.chans = g_hash_table_new_full(chan_hash, chan_equal, chan_free, NULL);
  x.source = (struct np_source){.ctx = &x, .read = graph_read, .release = graph_release};
  x.seq = (struct np_seq){.ctx = &x, .host = ord_host, .kernel = ord_kernel};
  x.give = (struct np_give){.ctx = &x, .cmd_read = give_cmd, .qcmd_done = give_qcmd,
                            .kernel_done = give_kernel};
  x.ranks = g_new0(struct pol_srank, x.n_ranks);
  for (uint32_t i = 0; i < x.n_ranks; i++) rank_init(&x, i);
  int done;
  if (check) { /* validate: whether each rank's order streams, and lowers */
    for (uint32_t i = 0; i < x.n_ranks && !x.diverged; i++)
      while (!x.diverged && !x.ranks[i].done) lower_next(&x, &x.ranks[i]);
    done = x.diverged ? 0 : 1;
  } else {
    const struct nodeprog **progs = g_new0(const struct nodeprog *, hw->net->nodes);
    for (uint32_t i = 0; i < x.n_ranks; i++) progs[i] = &x.ranks[i].np;
    struct wl_program *shape = wl_program_new(x.n_ranks); /* no op: names ranks in errors */
    x.e = sim_new(ctx->seed);
    sim_set_cp(x.e, ctx->cp);
    done = pol_simulate_progs(pol, shape, hw, progs, x.e, ctx->trace, out, err) ? 1 : -1;
    x.e = NULL;
    /* Stuck with ops left unread (the window held them back): ops the
     * whole program starts might have freed it, so it is no deadlock yet.
     * (A chain's ops unread wait for the one it is stuck on.) */
    for (uint32_t i = 0; done < 0 && !x.diverged && !ordered && i < x.n_ranks; i++)
      if (!x.ranks[i].ended && !x.ranks[i].chain) x.diverged = true;
    if (done != 1 || x.diverged) { /* what the run reported goes */
      char *name = g_strdup(out->policy);
      sim_result_clear(out);
      sim_result_init(out, name);
      g_free(name);
    } else {
      out->streamed = true;
    }
    wl_program_free(shape);
    g_free(progs);
  }
  if (x.diverged) {
    g_free(*err);
    *err = x.lower_err; /* an op that does not lower: its error, else the whole program */
    x.lower_err = NULL;
    done = *err ? -1 : 0;
  }
  for (uint32_t i = 0; i < x.n_ranks; i++) rank_free(&x, &x.ranks[i]);
  g_free(x.ranks);
  g_hash_table_destroy(x.chans);
  while (x.spare) {
    struct pst_msg *m = x.spare;
    x.spare = m->next;
    g_free(m);
  }
  g_free(x.states);
  g_free(x.lower_err);
  return done;
}

/* ---- running a source ---- */

/* Runs SRC read whole (its program) under CTX's policy. */
static bool run_whole(const struct wl_source *src, const struct wl_ctx *ctx,
                      struct sim_result *out, char **err) {
  struct wl_program *p = src->ops->program(src->ctx, err);
  if (!p) return false;
  struct hw_config hw = wl_hw_of(ctx->sc);
  bool ok = pol_run(p, ctx->policy, &hw, ctx, out, err);
  wl_program_free(p);
  return ok;
}

/* Each rank of SRC summed (summary.h) in the order a policy that runs
 * ranks in one order lowers its ops (wl_lin under WINDOW, picked as
 * place() picks them, each op forgotten once placed) into SUMS (wl_sum_init
 * first; REGIONS: a library region's ops placed together): the spans a
 * library region's kernel takes lie there. False when
 * a rank cannot be ordered so (none of a window ready, a read that fails). */
static bool order_sums(const struct wl_source *src, uint32_t window, uint32_t lag, bool regions,
                       struct wl_sum *sums) {
  bool ok = true;
  for (uint32_t r = 0; r < src->n_ranks; r++) wl_sum_init(&sums[r]);
  GArray *ops = g_array_new(FALSE, FALSE, sizeof(struct pst_rop)); /* read, from base on */
  for (uint32_t r = 0; r < src->n_ranks && ok; r++) {
    struct wl_cursor *c = src->ops->open(src->ctx, r, false);
    struct wl_lin *l = wl_lin_new(window);
    uint64_t base = 0, n = 0, placed = 0, lo = 0;
    bool end = false;
    g_array_set_size(ops, 0);
    while (ok) {
      uint64_t i;
      int got = wl_lin_next(l, end, false, &i);
      if (got < 0) {
        ok = end && placed == n; /* every op placed, or none of a window ready */
        break;
      }
      if (got == 1) {
        struct pst_rop *op = &g_array_index(ops, struct pst_rop, (guint)(i - base));
        wl_sum_add(&sums[r], &op->op);
        src->ops->forget(src->ctx, c, op->handle);
        op->placed = true;
        placed++;
        while (lo < n && g_array_index(ops, struct pst_rop, (guint)(lo - base)).placed) lo++;
        drop_front(ops, &base, lo);
        continue;
      }
      struct wl_item it;
      if (src->ops->next(src->ctx, c, &it, true, 0) != 1) {
        ok = false;
      } else if (it.kind == WL_ITEM_END) {
        wl_lin_seal(l, n);
        end = true;
      } else if (it.kind == WL_ITEM_DEP) {
        if (it.b != WL_GONE) wl_lin_dep(l, it.a, it.b);
      } else {
        struct pst_rop op = {.op = it.op, .handle = it.handle};
        g_array_append_val(ops, op);
        wl_lin_add(l, it.op.kind == WL_RECV || it.op.kind == WL_QUIET, regions ? it.op.region : 0);
        if (n > lag) wl_lin_seal(l, n - lag);
        n++;
      }
    }
    wl_lin_free(l);
    src->ops->close(src->ctx, c);
  }
  g_array_free(ops, TRUE);
  return ok;
}

bool pol_run_source(const struct wl_ctx *ctx, const struct wl_source *src,
                    const struct wl_stream_opts *opts, struct sim_result *out, char **err) {
  const struct pol_type *pol = pol_find(ctx->policy);
  struct hw_config hw = wl_hw_of(ctx->sc);
  uint8_t lib;
  char *why = NULL;
  bool takes = pol && pol_library(pol, &hw, ctx->sc, &lib, &why);
  g_free(why);
  /* What cannot stream runs whole (and the whole program says what is
   * wrong with the policy or its library). */
  /* A captured graph (cpu.launch graph, graph.c) is recorded whole before
   * its replay: such a run reads its source whole too. */
  bool capture = hw.cpu && hw.cpu->launch == CPU_LAUNCH_GRAPH;
  if (!takes || !opts->window || opts->whole || capture) return run_whole(src, ctx, out, err);
  bool fits = src->n_ops <= opts->whole_limit;
  if (fits && ctx->trace) return run_whole(src, ctx, out, err); /* a run that stops has traced */
  struct pol_prep pr = {.hw = &hw, .ctx = ctx, .pol = pol, .lib = lib};
  pol->prepare(&pr);
  bool streams = src->lag <= PST_MAX_LAG && !src->cycle && src->matched;
  /* Collectives kept as one op: written out op by op as the library runs
   * them (what pol_prep_library does to the program read whole), in the
   * order a policy that runs a rank in one order lowers them. */
  struct wl_source *wrapped = NULL, ordered;
  struct wl_sum *sums = NULL;
  bool orders = true;
  if (streams && src->total.colls) {
    struct wl_lib_opts lo = pol_prep_lib_opts(&pr);
    enum wl_lib wlib = comm_wl_lib(lib);
    src = wrapped = wl_coll_source(src, wlib, &lo);
    streams = src->lag <= PST_MAX_LAG;
    if (streams && pr.ordered && (wlib == WL_LIB_NCCL || wlib == WL_LIB_NVSHMEM)) {
      sums = g_new0(struct wl_sum, src->n_ranks);
      orders = order_sums(src, opts->window, src->lag, pr.coll_kernels, sums);
      ordered = *src;
      ordered.sums = sums;
      src = &ordered;
    }
  }
  int done;
  if (pol->check && !pol->check(ctx->sc, &hw, &src->total, err)) {
    done = -1;
  } else if (!streams) {
    /* The whole program runs it, or says what is wrong with it. */
    bool deadlock = false;
    if (!fits && !src->cycle && src->lag <= PST_MAX_LAG) { /* the messages */
      /* An unmatched receive (deadlock) is bad input as an unmatched
       * send is (issue 33): validate says it too. */
      *err = src->ops->unmatched(src->ctx, &deadlock);
    } else if (!fits) {
      char *what = src->cycle ? g_strdup("dependencies without a cycle, got one")
                   : src->lag == UINT32_MAX ? g_strdup_printf("%s, got others", src->lag_rule)
                                            : g_strdup_printf("%s, got one %u ops after it",
                                                              src->lag_rule, src->lag);
      *err = wl_error_at(ctx->sc, src->key,
                         "expected, in an input of more than 2^25 operations (it is not read "
                         "whole), %s", what);
      g_free(what);
    }
    if (!fits && !*err) done = 1;
    else done = fits ? 0 : -1;
  } else if (ctx->check_only && !pr.ordered) {
    done = 1;
  } else {
    done = orders ? stream_run(src, pol, lib, pr.ordered, pr.coll_kernels, &hw, ctx, opts->window,
                               ctx->check_only, out, err)
                  : 0;
    if (done < 0 && fits) { /* a deadlock: the whole program names the op as it does */
      g_free(*err);
      *err = NULL;
      done = 0;
    } else if (done == 0 && !fits) {
      *err = wl_error_at(ctx->sc, "workload.stream_window",
                         "expected a window under which every op is read before it is ready "
                         "(an input of more than 2^25 operations cannot be read whole), got %"
                         G_GUINT32_FORMAT ": raise it", opts->window);
      done = -1;
    }
  }
  if (sums) {
    for (uint32_t r = 0; r < src->n_ranks; r++) wl_sum_clear(&sums[r]);
    g_free(sums);
  }
  bool ok = done > 0 || (done == 0 && run_whole(src, ctx, out, err));
  wl_coll_source_free(wrapped);
  return ok;
}
