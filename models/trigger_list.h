/* The NIC's trigger list (GPU-TN, SC17, Sec. 3.1-3.3): entries of {tag,
 * counter, threshold, operation}, matched associatively among a fixed number
 * of active on-NIC entries (16 in the paper), with the relaxed
 * synchronization of Sec. 3.2. A pure data structure: no engine, no time;
 * the NIC charges the costs the results report.
 *
 * Semantics.
 * - A trigger store of TAG increments the oldest live entry with that tag.
 *   No entry: a new one is allocated with counter 1 and no operation
 *   (relaxed synchronization).
 * - A registration {TAG, THRESHOLD, OP} attaches OP to the oldest live entry
 *   with that tag that has no operation yet; none: a new entry with counter
 *   0. A second registration of a tag whose entry already holds an operation
 *   therefore gets its own entry, and stores then serve the two in order.
 * - An entry fires when it holds an operation and counter >= threshold (at
 *   a store, or at once at registration); its OP is returned and the entry
 *   is freed. Counts above the threshold are dropped with it.
 * - Full list (a store or registration needs a new entry while all
 *   `capacity` on-NIC entries are in use):
 *   TL_SPILL: the new entry goes to an overflow list in host memory (Sec.
 *     3.3: "store the trigger list in main memory" with a cache on the NIC).
 *     Every lookup that misses the on-NIC entries while the overflow is not
 *     empty searches it, and every spill writes it: such a result has
 *     `overflow` set and the NIC charges nic.overflow_lookup. When an on-NIC
 *     entry is freed, the oldest overflow entry moves into it (a background
 *     refill, not charged). So on-NIC entries are always older than overflow
 *     ones, and the overflow is empty whenever an on-NIC entry is free.
 *   TL_STALL: nothing changes and the result is TL_STALLED; the caller keeps
 *     the store/registration at the head of its FIFO/queue and retries it
 *     when an entry is freed. The overflow is never used. This can deadlock
 *     when the program needs more than `capacity` live entries at once (e.g.
 *     the list is full of unregistered stores and the registrations that
 *     would fire them wait behind a stalled registration): the NIC reports it.
 * - Operation handles are opaque to the list; 0 means "none" and may not be
 *   registered. */
#ifndef MODELS_TRIGGER_LIST_H
#define MODELS_TRIGGER_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tl_full { TL_SPILL, TL_STALL };

struct tl_entry {
  uint32_t tag;
  uint32_t counter;
  uint32_t threshold; /* meaningful once op != 0 */
  uint64_t op;        /* 0: no operation registered yet */
  uint64_t seq;       /* allocation order (oldest first) */
};

enum tl_status {
  TL_DONE,    /* applied; nothing fired */
  TL_FIRED,   /* applied; an entry reached its threshold: start `op` (entry freed) */
  TL_STALLED, /* TL_STALL only: a new entry was needed and the list is full */
};

struct tl_result {
  enum tl_status status;
  uint64_t op;     /* TL_FIRED: the operation to start */
  bool allocated;  /* a new entry was allocated (no live entry matched) */
  bool overflow;   /* the host-memory overflow list was searched or written */
};

struct tl_list;

/* A list of CAPACITY (>= 1) on-NIC entries with full-list mode MODE.
 * Free with tl_free. */
struct tl_list *tl_new(uint32_t capacity, enum tl_full mode);
void tl_free(struct tl_list *t);

/* A trigger store of TAG from the GPU. */
struct tl_result tl_store(struct tl_list *t, uint32_t tag);

/* Registers operation OP (!= 0) on TAG, firing once counter >= THRESHOLD. */
struct tl_result tl_register(struct tl_list *t, uint32_t tag, uint32_t threshold, uint64_t op);

/* The oldest live entry with TAG (on-NIC or overflow) into *OUT; false if
 * none. For tests and reports. */
bool tl_find(const struct tl_list *t, uint32_t tag, struct tl_entry *out);

/* Fetches into cache what a lookup reads first (the tags and the bitmap). */
void tl_prefetch(const struct tl_list *t);
uint32_t tl_in_use(const struct tl_list *t);     /* on-NIC entries in use now */
uint32_t tl_max_in_use(const struct tl_list *t); /* most on-NIC entries ever in use */
size_t tl_overflow_len(const struct tl_list *t); /* entries in the overflow now */
uint64_t tl_overflowed(const struct tl_list *t); /* entries ever spilled */
uint64_t tl_fired(const struct tl_list *t);      /* entries ever fired */

#endif
