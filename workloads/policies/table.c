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

/* The table: the built-in policies, then those registered. */
static const struct pol_type *const builtin[] = {POL_TABLE(POL_ADDRESS_)};
static const struct pol_type **table;
static size_t n_table;
static GMutex lock;

static void table_init(void) {
  if (table) return;
  table = g_new(const struct pol_type *, G_N_ELEMENTS(builtin));
  memcpy(table, builtin, sizeof builtin);
  n_table = G_N_ELEMENTS(builtin);
}

const struct pol_type *const *pol_all(size_t *n) {
  g_mutex_lock(&lock);
  table_init();
  const struct pol_type *const *t = table;
  *n = n_table;
  g_mutex_unlock(&lock);
  return t;
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
  /* The old array stays (a reader may hold it): a few pointers a policy. */
  const struct pol_type **t = g_new(const struct pol_type *, n_table + 1);
  memcpy(t, table, n_table * sizeof *t);
  t[n_table] = pol;
  table = t;
  n_table++;
  g_mutex_unlock(&lock);
  return true;
}
