/* Trigger list (GPU-TN SC17 Sec. 3.1-3.3): matching, relaxed
 * synchronization, thresholds, freeing, and both full-list modes. */
#include <glib.h>

#include "testutil.h"
#include "trigger_list.h"

static void test_trigger_before_registration(void) {
  struct tl_list *t = tl_new(16, TL_SPILL);
  /* Relaxed: an unknown tag allocates an entry with counter 1, no operation. */
  struct tl_result r = tl_store(t, 7);
  CU_ASSERT_EQUAL(r.status, TL_DONE);
  CU_ASSERT_TRUE(r.allocated);
  CU_ASSERT_FALSE(r.overflow);
  struct tl_entry e;
  CU_ASSERT_TRUE_FATAL(tl_find(t, 7, &e));
  CU_ASSERT_EQUAL(e.counter, 1);
  CU_ASSERT_EQUAL(e.op, 0);
  CU_ASSERT_EQUAL(tl_in_use(t), 1);
  /* Registering threshold 1 finds counter 1 >= 1: fires at once, frees. */
  r = tl_register(t, 7, 1, 42);
  CU_ASSERT_EQUAL(r.status, TL_FIRED);
  CU_ASSERT_EQUAL(r.op, 42);
  CU_ASSERT_FALSE(r.allocated);
  CU_ASSERT_EQUAL(tl_in_use(t), 0);
  CU_ASSERT_FALSE(tl_find(t, 7, &e));
  tl_free(t);
}

static void test_registration_before_trigger(void) {
  struct tl_list *t = tl_new(16, TL_SPILL);
  struct tl_result r = tl_register(t, 3, 1, 9);
  CU_ASSERT_EQUAL(r.status, TL_DONE);
  CU_ASSERT_TRUE(r.allocated);
  struct tl_entry e;
  CU_ASSERT_TRUE_FATAL(tl_find(t, 3, &e));
  CU_ASSERT_EQUAL(e.counter, 0);
  CU_ASSERT_EQUAL(e.threshold, 1);
  CU_ASSERT_EQUAL(e.op, 9);
  /* A store of another tag does not fire it. */
  r = tl_store(t, 4);
  CU_ASSERT_EQUAL(r.status, TL_DONE);
  /* The matching store makes counter 1 >= 1. */
  r = tl_store(t, 3);
  CU_ASSERT_EQUAL(r.status, TL_FIRED);
  CU_ASSERT_EQUAL(r.op, 9);
  CU_ASSERT_FALSE(r.allocated);
  CU_ASSERT_EQUAL(tl_in_use(t), 1); /* only tag 4's entry is left */
  tl_free(t);
}

static void test_counter_already_at_threshold(void) {
  struct tl_list *t = tl_new(16, TL_SPILL);
  /* Three stores, then threshold 2: 3 >= 2 fires at registration. */
  for (int i = 0; i < 3; i++) CU_ASSERT_EQUAL(tl_store(t, 5).status, TL_DONE);
  struct tl_entry e;
  CU_ASSERT_TRUE_FATAL(tl_find(t, 5, &e));
  CU_ASSERT_EQUAL(e.counter, 3);
  struct tl_result r = tl_register(t, 5, 2, 77);
  CU_ASSERT_EQUAL(r.status, TL_FIRED);
  CU_ASSERT_EQUAL(r.op, 77);
  /* Two stores, then threshold 3: 2 < 3 waits; the third store fires. */
  tl_store(t, 6);
  tl_store(t, 6);
  CU_ASSERT_EQUAL(tl_register(t, 6, 3, 78).status, TL_DONE);
  r = tl_store(t, 6);
  CU_ASSERT_EQUAL(r.status, TL_FIRED);
  CU_ASSERT_EQUAL(r.op, 78);
  CU_ASSERT_EQUAL(tl_in_use(t), 0);
  CU_ASSERT_EQUAL(tl_fired(t), 2);
  tl_free(t);
}

static void test_threshold_k_fires_on_kth(void) {
  /* Kernel level: threshold = 8 work-groups; fires on the 8th store only. */
  struct tl_list *t = tl_new(16, TL_SPILL);
  CU_ASSERT_EQUAL(tl_register(t, 1, 8, 5).status, TL_DONE);
  for (int k = 1; k <= 8; k++) {
    struct tl_result r = tl_store(t, 1);
    CU_ASSERT_EQUAL(r.status, k == 8 ? TL_FIRED : TL_DONE);
    CU_ASSERT_FALSE(r.allocated);
    if (k < 8) {
      struct tl_entry e;
      CU_ASSERT_TRUE(tl_find(t, 1, &e));
      CU_ASSERT_EQUAL(e.counter, (uint32_t)k);
    }
  }
  /* A ninth store finds no entry: a new one (relaxed), not a second fire. */
  struct tl_result r = tl_store(t, 1);
  CU_ASSERT_EQUAL(r.status, TL_DONE);
  CU_ASSERT_TRUE(r.allocated);
  CU_ASSERT_EQUAL(tl_fired(t), 1);
  tl_free(t);
}

static void test_two_tags_interleaved(void) {
  /* Tag 10 threshold 2, tag 20 threshold 3; stores 10 20 20 10 20:
   * tag 10 reaches 2 at the 4th store, tag 20 reaches 3 at the 5th. */
  struct tl_list *t = tl_new(16, TL_SPILL);
  tl_register(t, 10, 2, 100);
  tl_register(t, 20, 3, 200);
  uint32_t tags[] = {10, 20, 20, 10, 20};
  enum tl_status want[] = {TL_DONE, TL_DONE, TL_DONE, TL_FIRED, TL_FIRED};
  uint64_t ops[] = {0, 0, 0, 100, 200};
  for (int i = 0; i < 5; i++) {
    struct tl_result r = tl_store(t, tags[i]);
    CU_ASSERT_EQUAL(r.status, want[i]);
    if (r.status == TL_FIRED) CU_ASSERT_EQUAL(r.op, ops[i]);
  }
  CU_ASSERT_EQUAL(tl_in_use(t), 0);
  CU_ASSERT_EQUAL(tl_max_in_use(t), 2);
  tl_free(t);
}

static void test_entries_freed_after_firing(void) {
  /* Capacity 2: register/fire 100 times through it; never more than 1 in use,
   * and never an overflow. */
  struct tl_list *t = tl_new(2, TL_STALL);
  for (uint32_t i = 0; i < 100; i++) {
    CU_ASSERT_EQUAL(tl_register(t, i, 1, i + 1).status, TL_DONE);
    CU_ASSERT_EQUAL(tl_in_use(t), 1);
    struct tl_result r = tl_store(t, i);
    CU_ASSERT_EQUAL(r.status, TL_FIRED);
    CU_ASSERT_EQUAL(r.op, i + 1);
    CU_ASSERT_EQUAL(tl_in_use(t), 0);
  }
  CU_ASSERT_EQUAL(tl_max_in_use(t), 1);
  CU_ASSERT_EQUAL(tl_fired(t), 100);
  /* A reused tag: a second registration while the first waits gets its own
   * entry; stores serve them in registration order. */
  tl_register(t, 9, 1, 1);
  tl_register(t, 9, 1, 2);
  CU_ASSERT_EQUAL(tl_in_use(t), 2);
  CU_ASSERT_EQUAL(tl_store(t, 9).op, 1);
  CU_ASSERT_EQUAL(tl_store(t, 9).op, 2);
  CU_ASSERT_EQUAL(tl_in_use(t), 0);
  tl_free(t);
}

static void test_full_spill(void) {
  struct tl_list *t = tl_new(2, TL_SPILL);
  /* Tags 1 and 2 fill the two on-NIC entries without touching the overflow. */
  CU_ASSERT_FALSE(tl_store(t, 1).overflow);
  CU_ASSERT_FALSE(tl_store(t, 2).overflow);
  /* Tag 3: full, so its entry is written to the overflow (charged). */
  struct tl_result r = tl_store(t, 3);
  CU_ASSERT_EQUAL(r.status, TL_DONE);
  CU_ASSERT_TRUE(r.allocated);
  CU_ASSERT_TRUE(r.overflow);
  CU_ASSERT_EQUAL(tl_in_use(t), 2);
  CU_ASSERT_EQUAL(tl_overflow_len(t), 1);
  CU_ASSERT_EQUAL(tl_overflowed(t), 1);
  /* A hit on-NIC costs nothing extra even with a non-empty overflow. */
  r = tl_store(t, 1);
  CU_ASSERT_FALSE(r.overflow);
  /* A miss on-NIC searches the overflow: tag 3 found there, counter 2. */
  r = tl_store(t, 3);
  CU_ASSERT_TRUE(r.overflow);
  CU_ASSERT_FALSE(r.allocated);
  struct tl_entry e;
  CU_ASSERT_TRUE(tl_find(t, 3, &e));
  CU_ASSERT_EQUAL(e.counter, 2);
  /* Registering tag 1 (counter 2 >= 1) fires and frees its slot; the oldest
   * overflow entry (tag 3) moves on-NIC. */
  r = tl_register(t, 1, 1, 11);
  CU_ASSERT_EQUAL(r.status, TL_FIRED);
  CU_ASSERT_FALSE(r.overflow);
  CU_ASSERT_EQUAL(tl_in_use(t), 2);
  CU_ASSERT_EQUAL(tl_overflow_len(t), 0);
  /* Tag 3 is now an on-NIC hit: no overflow cost. */
  r = tl_register(t, 3, 2, 33);
  CU_ASSERT_EQUAL(r.status, TL_FIRED);
  CU_ASSERT_EQUAL(r.op, 33);
  CU_ASSERT_FALSE(r.overflow);
  CU_ASSERT_EQUAL(tl_max_in_use(t), 2);
  tl_free(t);
}

static void test_full_stall(void) {
  struct tl_list *t = tl_new(2, TL_STALL);
  tl_store(t, 1);
  tl_register(t, 2, 1, 22);
  /* Store of unknown tag 3: full, stall, nothing changed. */
  struct tl_result r = tl_store(t, 3);
  CU_ASSERT_EQUAL(r.status, TL_STALLED);
  CU_ASSERT_FALSE(r.allocated);
  CU_ASSERT_FALSE(r.overflow);
  struct tl_entry e;
  CU_ASSERT_FALSE(tl_find(t, 3, &e));
  /* A registration needing a new entry stalls too. */
  CU_ASSERT_EQUAL(tl_register(t, 4, 1, 44).status, TL_STALLED);
  /* Known tags still proceed: tag 2 fires and frees an entry. */
  r = tl_store(t, 2);
  CU_ASSERT_EQUAL(r.status, TL_FIRED);
  CU_ASSERT_EQUAL(tl_in_use(t), 1);
  /* The retry of the stalled store now succeeds. */
  r = tl_store(t, 3);
  CU_ASSERT_EQUAL(r.status, TL_DONE);
  CU_ASSERT_TRUE(r.allocated);
  CU_ASSERT_EQUAL(tl_in_use(t), 2);
  CU_ASSERT_EQUAL(tl_overflow_len(t), 0);
  CU_ASSERT_EQUAL(tl_overflowed(t), 0);
  tl_free(t);
}

int main(void) {
  static const struct tu_test tests[] = {
      {"trigger before registration (relaxed)", test_trigger_before_registration},
      {"registration before trigger", test_registration_before_trigger},
      {"counter already >= threshold at registration", test_counter_already_at_threshold},
      {"threshold k fires on the k-th store", test_threshold_k_fires_on_kth},
      {"two tags interleaved", test_two_tags_interleaved},
      {"entries freed after firing", test_entries_freed_after_firing},
      {"full list: spill to host memory", test_full_spill},
      {"full list: stall", test_full_stall},
      {NULL, NULL},
  };
  return tu_run_suite("trigger_list", tests);
}
