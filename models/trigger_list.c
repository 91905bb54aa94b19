/* The trigger list of GPU-TN (SC17, Sec. 3): a fixed set of on-NIC entries
 * matched associatively (a linear scan stands for the CAM), and an overflow
 * list in host memory for the spill mode, kept in age order and indexed by
 * tag (a lookup, an insert and a removal cost O(1) in its length, not a
 * scan, only a walk of the entries of one tag: the list grows with how far
 * stores run ahead of their registrations, or these of their stores). See
 * trigger_list.h. */
#include "trigger_list.h"

#include <glib.h>

/* An overflow entry: in the age-ordered list and in its tag's list, by
 * links of its own (one allocation an entry: the overflow grows with how
 * far the host's registrations or the GPU's stores run ahead). */
struct tl_over {
  struct tl_entry e;
  GList age, tag; /* .data: the entry */
};

struct tl_list {
  /* What the associative scan reads first, packed: a bit per slot in use
   * and each slot's tag (the entries themselves span several cache lines);
   * both live in this struct's own block, right after it (then the
   * entries), so that a lookup reads adjacent lines, not separate blocks. */
  uint64_t *used;         /* (capacity + 63) / 64 words */
  uint32_t *tag_of;       /* capacity */
  enum tl_full mode;
  uint32_t capacity, in_use, max_in_use;
  struct tl_entry *slots; /* capacity; slot i in use: bit i of used */
  GQueue overflow;        /* tl_over.age links, oldest first */
  GHashTable *by_tag;     /* tag -> the first tl_over.tag link of its list, oldest first */
  uint64_t next_seq, overflowed, fired;
};

struct tl_list *tl_new(uint32_t capacity, enum tl_full mode) {
  g_assert(capacity >= 1);
  size_t words = (capacity + 63) / 64;
  size_t tags_bytes = (capacity * sizeof(uint32_t) + 7) / 8 * 8; /* the entries stay aligned */
  struct tl_list *t = g_malloc0(sizeof *t + words * sizeof(uint64_t) + tags_bytes +
                                capacity * sizeof(struct tl_entry));
  t->used = (uint64_t *)(t + 1);
  t->tag_of = (uint32_t *)(t->used + words);
  t->slots = (struct tl_entry *)((char *)t->tag_of + tags_bytes);
  t->mode = mode;
  t->capacity = capacity;
  g_queue_init(&t->overflow);
  t->by_tag = g_hash_table_new(g_direct_hash, g_direct_equal);
  t->next_seq = 1;
  return t;
}

void tl_free(struct tl_list *t) {
  if (!t) return;
  for (GList *l = t->overflow.head; l;) {
    struct tl_over *o = l->data;
    l = l->next;
    g_free(o);
  }
  g_hash_table_destroy(t->by_tag);
  g_free(t);
}

/* Slot I takes entry E / is freed. */
static void slot_set(struct tl_list *t, uint32_t i, struct tl_entry e) {
  t->slots[i] = e;
  t->tag_of[i] = e.tag;
  t->used[i / 64] |= (uint64_t)1 << (i % 64);
}

static void slot_clear(struct tl_list *t, uint32_t i) {
  t->used[i / 64] &= ~((uint64_t)1 << (i % 64));
}

/* Where an entry lives: an on-NIC slot index, or an overflow entry. */
struct tl_loc {
  bool found;
  size_t i;
  struct tl_over *over; /* non-NULL: in the overflow */
};

static void over_remove(struct tl_list *t, struct tl_over *o) {
  g_queue_unlink(&t->overflow, &o->age);
  gpointer key = GUINT_TO_POINTER(o->e.tag);
  GList *first = g_list_remove_link(g_hash_table_lookup(t->by_tag, key), &o->tag);
  if (first) g_hash_table_insert(t->by_tag, key, first);
  else g_hash_table_remove(t->by_tag, key);
  g_free(o);
}

/* The oldest live entry with TAG (and no operation, when FREE_ONLY); sets
 * *SEARCHED when the lookup had to search the overflow. */
static struct tl_loc tl_lookup(const struct tl_list *t, uint32_t tag, bool free_only,
                               bool *searched) {
  struct tl_loc best = {0};
  uint64_t best_seq = UINT64_MAX;
  for (uint32_t w = 0; w < (t->capacity + 63) / 64; w++) {
    if (!t->used[w]) continue;
    /* The slots of this word whose tag is TAG, without a branch per slot
     * (a branch on each tag compare mispredicts: most slots hold others). */
    const uint32_t *tags = t->tag_of + w * 64;
    uint32_t n = MIN(64u, t->capacity - w * 64);
    uint64_t match = 0;
    for (uint32_t j = 0; j < n; j++) match |= (uint64_t)(tags[j] == tag) << j;
    for (uint64_t bits = t->used[w] & match; bits; bits &= bits - 1) {
      uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(bits);
      const struct tl_entry *s = &t->slots[i];
      if (free_only && s->op) continue;
      if (s->seq < best_seq) {
        best_seq = s->seq;
        best = (struct tl_loc){.found = true, .i = i};
      }
    }
  }
  if (best.found || t->overflow.length == 0) return best;
  *searched = true;
  for (GList *l = g_hash_table_lookup(t->by_tag, GUINT_TO_POINTER(tag)); l; l = l->next) {
    struct tl_over *o = l->data;
    if (!(free_only && o->e.op)) return (struct tl_loc){.found = true, .over = o};
  }
  return best;
}

static struct tl_entry *tl_at(struct tl_list *t, struct tl_loc l) {
  return l.over ? &l.over->e : &t->slots[l.i];
}

/* Allocates a new entry {TAG, COUNTER} into *L: an on-NIC slot, else
 * (spill) the overflow. Returns false (stall) when full in TL_STALL mode. */
static bool tl_alloc(struct tl_list *t, uint32_t tag, uint32_t counter, struct tl_result *r,
                     struct tl_loc *l) {
  struct tl_entry e = {.tag = tag, .counter = counter, .seq = t->next_seq++};
  r->allocated = true;
  if (t->in_use < t->capacity) {
    for (uint32_t w = 0; w < (t->capacity + 63) / 64; w++) {
      uint64_t free_bits = ~t->used[w];
      if (!free_bits) continue;
      uint32_t i = w * 64 + (uint32_t)__builtin_ctzll(free_bits); /* the first free slot */
      g_assert(i < t->capacity); /* in_use < capacity */
      slot_set(t, i, e);
      *l = (struct tl_loc){.found = true, .i = i};
      t->in_use++;
      if (t->in_use > t->max_in_use) t->max_in_use = t->in_use;
      return true;
    }
    g_assert_not_reached();
  }
  if (t->mode == TL_STALL) {
    t->next_seq--;
    r->allocated = false;
    return false;
  }
  struct tl_over *o = g_new0(struct tl_over, 1);
  o->e = e;
  o->age.data = o->tag.data = o;
  g_queue_push_tail_link(&t->overflow, &o->age);
  gpointer key = GUINT_TO_POINTER(tag);
  GList *first = g_hash_table_lookup(t->by_tag, key); /* its tag's list: mostly one long */
  g_hash_table_insert(t->by_tag, key, g_list_concat(first, &o->tag));
  *l = (struct tl_loc){.found = true, .over = o};
  t->overflowed++;
  r->overflow = true;
  return true;
}

/* Fires the entry at L if it is ready: fills R and frees the entry. */
static void tl_fire_if_ready(struct tl_list *t, struct tl_loc l, struct tl_result *r) {
  struct tl_entry *e = tl_at(t, l);
  if (!e->op || e->counter < e->threshold) return;
  r->status = TL_FIRED;
  r->op = e->op;
  t->fired++;
  if (l.over) {
    over_remove(t, l.over);
    return;
  }
  slot_clear(t, (uint32_t)l.i);
  t->in_use--;
  if (!g_queue_is_empty(&t->overflow)) { /* refill from the oldest overflow entry */
    struct tl_over *o = g_queue_peek_head(&t->overflow);
    slot_set(t, (uint32_t)l.i, o->e);
    over_remove(t, o);
    t->in_use++;
  }
}

struct tl_result tl_store(struct tl_list *t, uint32_t tag) {
  struct tl_result r = {.status = TL_DONE};
  struct tl_loc l = tl_lookup(t, tag, false, &r.overflow);
  if (l.found) {
    tl_at(t, l)->counter++;
    tl_fire_if_ready(t, l, &r);
  } else if (!tl_alloc(t, tag, 1, &r, &l)) {
    r.status = TL_STALLED;
  }
  return r;
}

struct tl_result tl_register(struct tl_list *t, uint32_t tag, uint32_t threshold, uint64_t op) {
  g_assert(op != 0);
  struct tl_result r = {.status = TL_DONE};
  struct tl_loc l = tl_lookup(t, tag, true, &r.overflow);
  if (!l.found && !tl_alloc(t, tag, 0, &r, &l)) {
    r.status = TL_STALLED;
    return r;
  }
  struct tl_entry *e = tl_at(t, l);
  e->op = op;
  e->threshold = threshold;
  tl_fire_if_ready(t, l, &r);
  return r;
}

bool tl_find(const struct tl_list *t, uint32_t tag, struct tl_entry *out) {
  bool searched = false;
  struct tl_loc l = tl_lookup(t, tag, false, &searched);
  if (!l.found) return false;
  *out = *tl_at((struct tl_list *)t, l);
  return true;
}

void tl_prefetch(const struct tl_list *t) {
  /* Its first three lines (the list, the bitmap and 16 tags), without
   * reading it: it is what is being fetched. */
  const char *p = (const char *)t;
  __builtin_prefetch(p);
  __builtin_prefetch(p + 64);
  __builtin_prefetch(p + 128);
}

uint32_t tl_in_use(const struct tl_list *t) { return t->in_use; }
uint32_t tl_max_in_use(const struct tl_list *t) { return t->max_in_use; }
size_t tl_overflow_len(const struct tl_list *t) { return t->overflow.length; }
uint64_t tl_overflowed(const struct tl_list *t) { return t->overflowed; }
uint64_t tl_fired(const struct tl_list *t) { return t->fired; }
