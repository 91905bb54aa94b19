/* The policy table: one line per policy, in the order scenarios list them
 * and `trigsim params` shows them. Policy NAME is `const struct pol_type
 * pol_NAME` in its own file, workloads/policies/policy_NAME.c (a variant
 * may share its base's file: hdn2s is in policy_hdn.c, overlap in
 * policy_copy.c); adding one is that file plus one line here. A program
 * that links trigsim (a test's toy policy, tests/test_policy.c) adds its
 * own with pol_register; the driver and the catalog read the table only. */
#include "lower.h"

#include <string.h>

#define POL_TABLE(X) \
  X(cpu) X(hdn) X(gds) X(gputn) X(ghn) X(cpufree) X(copy) X(overlap) X(p2p) X(monolithic) \
  X(hdn2s)

#define POL_DECLARE_(name) extern const struct pol_type pol_##name;
POL_TABLE(POL_DECLARE_)
#define POL_ADDRESS_(name) &pol_##name,

/* The table: the built-in policies, then up to POL_EXTRA registered ones.
 * A fixed array, so a reader's pointer stays valid while one registers. */
enum { POL_EXTRA = 16 };
#define POL_COUNT_(name) +1
static const struct pol_type *table[0 POL_TABLE(POL_COUNT_) + POL_EXTRA] = {
    POL_TABLE(POL_ADDRESS_)};
static size_t n_table = 0 POL_TABLE(POL_COUNT_);
static GMutex lock;

const struct pol_type *const *pol_all(size_t *n) {
  g_mutex_lock(&lock);
  *n = n_table;
  g_mutex_unlock(&lock);
  return table;
}

const struct pol_type *pol_find(const char *name) {
  size_t n;
  const struct pol_type *const *t = pol_all(&n);
  for (size_t i = 0; i < n; i++)
    if (!strcmp(t[i]->name, name)) return t[i];
  return NULL;
}

bool pol_register(const struct pol_type *pol) {
  if (pol_find(pol->name)) return false;
  g_mutex_lock(&lock);
  bool room = n_table < G_N_ELEMENTS(table);
  if (room) table[n_table++] = pol;
  g_mutex_unlock(&lock);
  return room;
}
