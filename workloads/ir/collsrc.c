/* Collectives written out op by op (coll.h, wl_coll_source): an op source
 * over another (source.h) whose collective ops it writes out as the run's
 * library runs them, each call's ops in its place with the dependencies
 * and regions that wl_expand_colls gives the program read whole (coll.c,
 * expand_graph_rank: a call's first ops wait for what the call waited for,
 * what waited for the call waits for the ops it ended with, a call written
 * out to nothing passes on what it waited for). It reads its source ahead
 * by the source's lag, so that an op is given out once every dependency
 * item naming it as the op that waits is read, with those items right
 * after it. It holds the ops read and not yet given out, and those given
 * out and not yet forgotten: the calls in flight. */
#include <string.h>

#include "coll.h"
#include "source.h"

struct xin;

/* An op given out. */
struct xop {
  struct xin *in;          /* the op read it comes from */
  struct wl_op op;
  uint64_t index;          /* its index in the rank's order given out */
  uint32_t tag;            /* the driver's, once taken */
  bool forgotten;
};

/* What an op waits for, an op given out (NULL: forgotten long ago), on
 * its start or its end. */
struct xref {
  struct xop *op;
  bool on_start;
};

/* A dependency the source named: on op B read (NULL: forgotten). */
struct xdep {
  struct xin *b;
  bool on_start;
};

/* An op read from the source. */
struct xin {
  uint32_t id;             /* its slot + 1: the tag the source has it by */
  uint32_t handle;         /* the source's */
  uint64_t index;          /* its index in the source's order */
  struct wl_op op;
  bool done;               /* given out (its ops queued) */
  bool empty;              /* a collective written out to nothing */
  bool held;               /* empty, kept while what it waited for lives */
  struct xop *ops;         /* given out: n_ops of them */
  uint32_t n_ops;
  GArray *finals;          /* a collective's: the indices of the ops its completion is */
  GArray *deps;            /* struct xdep: before done, what the source named */
  GArray *res;             /* empty: struct xref, what it waited for */
  uint32_t live;           /* its ops not forgotten */
  uint32_t refs;           /* queue entries, others' deps and res naming it */
};

/* An item to give: an op, or a dependency of op A on B (NULL: gone). */
struct xent {
  bool dep;
  bool on_start;
  struct xop *a, *b;
};

struct xsrc {
  struct wl_source src;    /* what the driver reads (first) */
  const struct wl_source *in;
  enum wl_lib lib;
  struct wl_lib_opts opts;
  struct wl_sum *sums;
};

struct xcur {
  struct xsrc *x;
  uint32_t rank;
  struct wl_cursor *in;    /* the source's */
  struct wl_program *scratch; /* on the source's table: a call written out on rank `rank` */
  GPtrArray *slots;        /* struct xin by id - 1, NULL: free */
  GArray *free_slots;
  GQueue pending;          /* struct xin read and not given out, in order */
  GQueue queue;            /* struct xent to give, in order */
  GHashTable *handles;     /* our handle -> struct xop taken */
  uint32_t next_handle;
  uint64_t n_read, n_out, n_taken;
  uint32_t calls;          /* collectives read */
  bool in_end, failed;
  bool forward;            /* a dependency on an op the source gives later */
  uint32_t lag;            /* the most ops given between an op and a dependency item of it */
  GPtrArray *empties;      /* struct xin held */
  guint swept;
  GArray *after, *none;
};

static void unref_in(struct xcur *c, struct xin *in);

/* Frees IN once given out, its ops forgotten and nothing names it: the
 * source forgets it too. */
static void maybe_free(struct xcur *c, struct xin *in) {
  if (!in->done || in->live || in->refs || in->held) return;
  const struct wl_source *s = c->x->in;
  if (!c->failed) s->ops->forget(s->ctx, c->in, in->handle);
  c->slots->pdata[in->id - 1] = NULL;
  g_array_append_val(c->free_slots, in->id);
  if (in->res) {
    for (guint k = 0; k < in->res->len; k++) {
      struct xop *t = g_array_index(in->res, struct xref, k).op;
      if (t) unref_in(c, t->in);
    }
    g_array_free(in->res, TRUE);
  }
  if (in->deps) g_array_free(in->deps, TRUE);
  if (in->finals) g_array_free(in->finals, TRUE);
  g_free(in->ops);
  g_free(in);
}

static void unref_in(struct xcur *c, struct xin *in) {
  g_assert(in->refs > 0);
  in->refs--;
  maybe_free(c, in);
}

static void push(struct xcur *c, bool dep, struct xop *a, struct xop *b, bool on_start) {
  struct xent *e = g_new(struct xent, 1);
  *e = (struct xent){.dep = dep, .on_start = on_start, .a = a, .b = b};
  a->in->refs++;
  if (b) b->in->refs++;
  g_queue_push_tail(&c->queue, e);
}

/* What a dependency D (of an op given out now) waits for, into OUT
 * (struct xref): as expand_graph_rank's dep_on. */
static void targets(struct xcur *c, const struct xdep *d, GArray *out) {
  struct xin *b = d->b;
  if (b && !b->done) c->forward = true; /* written after the op that waits */
  if (!b || !b->done) {
    struct xref none = {NULL, d->on_start};
    g_array_append_val(out, none);
    return;
  }
  if (b->empty) { /* what it waited for */
    g_array_append_vals(out, b->res->data, b->res->len);
    return;
  }
  if (!b->finals || d->on_start) { /* an op, or a call's start: its first op's */
    struct xref t = {&b->ops[0], d->on_start};
    g_array_append_val(out, t);
    return;
  }
  for (guint k = 0; k < b->finals->len; k++) {
    struct xref t = {&b->ops[g_array_index(b->finals, uint32_t, k)], false};
    g_array_append_val(out, t);
  }
}

/* Drops the empty calls whose targets are all forgotten (a dependency on
 * them is then on nothing), once they doubled since the last time. */
static void sweep(struct xcur *c) {
  for (guint k = 0; k < c->empties->len;) {
    struct xin *e = g_ptr_array_index(c->empties, k);
    bool live = false;
    for (guint j = 0; j < e->res->len && !live; j++) {
      const struct xop *t = g_array_index(e->res, struct xref, j).op;
      live = t && !t->forgotten;
    }
    if (live) {
      k++;
      continue;
    }
    g_ptr_array_remove_index_fast(c->empties, k);
    e->held = false;
    maybe_free(c, e);
  }
  c->swept = MAX(64, 2 * c->empties->len);
}

/* Gives out the oldest op read: queued with its dependency items. */
static void give(struct xcur *c) {
  struct xin *a = g_queue_pop_head(&c->pending);
  const struct xsrc *x = c->x;
  GArray *t = g_array_new(FALSE, FALSE, sizeof(struct xref));
  for (guint k = 0; k < a->deps->len; k++) targets(c, &g_array_index(a->deps, struct xdep, k), t);
  a->done = true;
  if (a->op.kind != WL_COLL) {
    a->n_ops = a->live = 1;
    a->ops = g_new0(struct xop, 1);
    a->ops[0] = (struct xop){.in = a, .op = a->op, .index = c->n_out++};
    a->ops[0].op.n_deps = a->ops[0].op.dep_first = 0;
    push(c, false, &a->ops[0], NULL, false);
    for (guint k = 0; k < t->len; k++) {
      const struct xref *r = &g_array_index(t, struct xref, k);
      push(c, true, &a->ops[0], r->op, r->on_start);
    }
  } else {
    bool device = x->lib == WL_LIB_NCCL || x->lib == WL_LIB_NVSHMEM;
    c->calls++;
    struct wl_rank *sr = &c->scratch->ranks[c->rank];
    sr->n_ops = sr->n_deps = 0;
    uint32_t first = wl_expand_call(c->scratch, c->rank, &a->op, x->lib, &x->opts,
                                    device ? c->calls : 0, c->none, c->after);
    if (first == UINT32_MAX) { /* nothing: what waits for it waits for what it waited for */
      a->empty = true;
      a->res = g_array_copy(t);
      for (guint k = 0; k < t->len; k++) {
        struct xop *o = g_array_index(t, struct xref, k).op;
        if (o) o->in->refs++;
      }
      if (t->len) {
        a->held = true;
        g_ptr_array_add(c->empties, a);
        if (c->empties->len > c->swept) sweep(c);
      }
    } else {
      a->n_ops = a->live = (uint32_t)sr->n_ops;
      a->ops = g_new0(struct xop, a->n_ops);
      a->finals = g_array_copy(c->after);
      for (uint32_t k = 0; k < a->n_ops; k++) {
        const struct wl_op *o = &sr->ops[k];
        a->ops[k] = (struct xop){.in = a, .op = *o, .index = c->n_out++};
        a->ops[k].op.n_deps = a->ops[k].op.dep_first = 0;
        push(c, false, &a->ops[k], NULL, false);
        for (uint32_t d = 0; d < o->n_deps; d++) { /* inside the call */
          const struct wl_dep *dp = &sr->deps[o->dep_first + d];
          push(c, true, &a->ops[k], &a->ops[dp->op], dp->on_start);
        }
        for (guint j = 0; !o->n_deps && j < t->len; j++) { /* a first op: the call's own */
          const struct xref *r = &g_array_index(t, struct xref, j);
          push(c, true, &a->ops[k], r->op, r->on_start);
        }
      }
    }
  }
  for (guint k = 0; k < a->deps->len; k++) {
    struct xin *b = g_array_index(a->deps, struct xdep, k).b;
    if (b) unref_in(c, b);
  }
  g_array_set_size(a->deps, 0);
  g_array_free(t, TRUE);
  maybe_free(c, a);
}

/* Reads the source's next item; false when it cannot be read. */
static bool read_in(struct xcur *c) {
  const struct wl_source *s = c->x->in;
  uint32_t id;
  if (c->free_slots->len) {
    id = g_array_index(c->free_slots, uint32_t, c->free_slots->len - 1);
    g_array_set_size(c->free_slots, c->free_slots->len - 1);
  } else {
    g_ptr_array_add(c->slots, NULL);
    id = c->slots->len;
  }
  struct wl_item it;
  int got = s->ops->next(s->ctx, c->in, &it, true, id);
  if (got != 1 || it.kind != WL_ITEM_OP) g_array_append_val(c->free_slots, id);
  if (got != 1) return false;
  if (it.kind == WL_ITEM_END) {
    c->in_end = true;
  } else if (it.kind == WL_ITEM_DEP) {
    struct xin *a = it.ta ? g_ptr_array_index(c->slots, it.ta - 1) : NULL;
    if (!a || a->done) return false; /* past the source's lag */
    struct xin *b = it.b != WL_GONE && it.tb ? g_ptr_array_index(c->slots, it.tb - 1) : NULL;
    struct xdep d = {b, it.on_start};
    if (b) b->refs++;
    g_array_append_val(a->deps, d);
  } else {
    struct xin *in = g_new0(struct xin, 1);
    *in = (struct xin){.id = id, .handle = it.handle, .index = c->n_read++, .op = it.op,
                       .deps = g_array_new(FALSE, FALSE, sizeof(struct xdep))};
    c->slots->pdata[id - 1] = in;
    g_queue_push_tail(&c->pending, in);
  }
  return true;
}

static struct wl_cursor *xs_open(void *ctx, uint32_t rank, bool ops_only) {
  struct xsrc *x = ctx;
  g_assert(!ops_only); /* no chains known (wl_source.chains NULL) */
  struct xcur *c = g_new0(struct xcur, 1);
  c->x = x;
  c->rank = rank;
  c->in = x->in->ops->open(x->in->ctx, rank, false);
  c->scratch = wl_program_on(x->in->n_ranks, x->in->descs);
  wl_graph(c->scratch, rank);
  c->slots = g_ptr_array_new();
  c->free_slots = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  g_queue_init(&c->pending);
  g_queue_init(&c->queue);
  c->handles = g_hash_table_new(g_direct_hash, g_direct_equal);
  c->empties = g_ptr_array_new();
  c->swept = 64;
  c->after = g_array_new(FALSE, FALSE, sizeof(uint32_t));
  c->none = g_array_new(FALSE, FALSE, sizeof(struct wl_dep));
  return (struct wl_cursor *)(void *)c;
}

static void xs_close(void *ctx, struct wl_cursor *cc) {
  struct xsrc *x = ctx;
  struct xcur *c = (struct xcur *)(void *)cc;
  x->in->ops->close(x->in->ctx, c->in);
  g_queue_clear_full(&c->queue, g_free);
  g_queue_clear(&c->pending);
  for (guint k = 0; k < c->slots->len; k++) {
    struct xin *in = g_ptr_array_index(c->slots, k);
    if (!in) continue;
    if (in->res) g_array_free(in->res, TRUE);
    if (in->deps) g_array_free(in->deps, TRUE);
    if (in->finals) g_array_free(in->finals, TRUE);
    g_free(in->ops);
    g_free(in);
  }
  g_ptr_array_free(c->slots, TRUE);
  g_array_free(c->free_slots, TRUE);
  g_hash_table_destroy(c->handles);
  g_ptr_array_free(c->empties, TRUE);
  g_array_free(c->after, TRUE);
  g_array_free(c->none, TRUE);
  wl_program_free(c->scratch);
  g_free(c);
}

static int xs_next(void *ctx, struct wl_cursor *cc, struct wl_item *it, bool take, uint32_t tag) {
  (void)ctx;
  struct xcur *c = (struct xcur *)(void *)cc;
  memset(it, 0, sizeof *it);
  for (;;) {
    struct xent *e = g_queue_peek_head(&c->queue);
    if (e && !e->dep) {
      if (!take) return 2;
      g_queue_pop_head(&c->queue);
      struct xop *a = e->a;
      a->tag = tag;
      uint32_t handle = ++c->next_handle;
      g_hash_table_insert(c->handles, GUINT_TO_POINTER(handle), a);
      *it = (struct wl_item){.kind = WL_ITEM_OP, .op = a->op, .handle = handle};
      c->n_taken++;
      g_free(e);
      unref_in(c, a->in);
      return 1;
    }
    if (e) {
      g_queue_pop_head(&c->queue);
      bool gone = !e->b || e->b->forgotten;
      *it = (struct wl_item){.kind = WL_ITEM_DEP, .a = e->a->index, .ta = e->a->tag,
                             .b = gone ? WL_GONE : e->b->index, .tb = gone ? 0 : e->b->tag,
                             .on_start = e->on_start};
      c->lag = MAX(c->lag, (uint32_t)MIN(c->n_taken - 1 - e->a->index, UINT32_MAX));
      struct xop *a = e->a, *b = e->b;
      g_free(e);
      if (b) unref_in(c, b->in);
      unref_in(c, a->in);
      return 1;
    }
    if (c->failed) return -1;
    struct xin *head = g_queue_peek_head(&c->pending);
    /* Its dependency items all read: the source has read LAG + 1 ops past it. */
    if (head && (c->in_end || c->n_read > head->index + c->x->in->lag + 1)) {
      give(c);
      continue;
    }
    if (c->in_end) {
      it->kind = WL_ITEM_END;
      return 1;
    }
    if (!read_in(c)) {
      c->failed = true;
      return -1;
    }
  }
}

static void xs_forget(void *ctx, struct wl_cursor *cc, uint32_t handle) {
  (void)ctx;
  struct xcur *c = (struct xcur *)(void *)cc;
  struct xop *o = g_hash_table_lookup(c->handles, GUINT_TO_POINTER(handle));
  if (!o) return;
  g_hash_table_remove(c->handles, GUINT_TO_POINTER(handle));
  o->forgotten = true;
  o->in->live--;
  maybe_free(c, o->in);
}

static struct wl_program *xs_program(void *ctx, char **err) {
  struct xsrc *x = ctx;
  return x->in->ops->program(x->in->ctx, err);
}

static char *xs_unmatched(void *ctx, bool *deadlock) {
  struct xsrc *x = ctx;
  return x->in->ops->unmatched(x->in->ctx, deadlock);
}

static const struct wl_source_ops xs_ops = {
    .open = xs_open,
    .close = xs_close,
    .next = xs_next,
    .forget = xs_forget,
    .program = xs_program,
    .unmatched = xs_unmatched,
};

struct wl_source *wl_coll_source(const struct wl_source *src, enum wl_lib lib,
                                 const struct wl_lib_opts *opts) {
  struct xsrc *x = g_new0(struct xsrc, 1);
  x->in = src;
  x->lib = lib;
  x->opts = *opts;
  x->sums = g_new0(struct wl_sum, src->n_ranks);
  x->src = (struct wl_source){.ops = &xs_ops, .ctx = x, .n_ranks = src->n_ranks,
                              .sums = x->sums, .descs = src->descs, .cycle = src->cycle,
                              .matched = src->matched, .key = src->key,
                              .lag_rule = src->lag_rule};
  wl_sum_init(&x->src.total);
  /* The first pass: each rank written out, its summary in the order given. */
  for (uint32_t r = 0; r < src->n_ranks; r++) {
    wl_sum_init(&x->sums[r]);
    struct wl_cursor *cc = xs_open(x, r, false);
    struct xcur *c = (struct xcur *)(void *)cc;
    struct wl_item it;
    int got;
    while ((got = xs_next(x, cc, &it, true, 1)) == 1 && it.kind != WL_ITEM_END)
      if (it.kind == WL_ITEM_OP) {
        wl_sum_add(&x->sums[r], &it.op);
        xs_forget(x, cc, it.handle);
      }
    /* A source that cannot be read so (an op named before it is read, a
     * read that fails) does not stream: the whole program runs it. */
    x->src.lag = got != 1 || c->forward ? UINT32_MAX : MAX(x->src.lag, c->lag);
    xs_close(x, cc);
    x->src.n_ops += x->sums[r].ops;
    wl_sum_merge(&x->src.total, &x->sums[r]);
  }
  return &x->src;
}

void wl_coll_source_free(struct wl_source *s) {
  if (!s) return;
  struct xsrc *x = s->ctx;
  for (uint32_t r = 0; r < x->in->n_ranks; r++) wl_sum_clear(&x->sums[r]);
  g_free(x->sums);
  wl_sum_clear(&x->src.total);
  g_free(x);
}
