/* Per-component GSL random streams derived from the scenario seed. */
#include "rng.h"

uint64_t rng_derive(uint64_t seed, uint64_t index) {
  /* splitmix64 over seed and index: distinct, well-mixed seeds per stream. */
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

gsl_rng *rng_stream_new(uint64_t seed, uint64_t stream_id) {
  /* taus2 (L'Ecuyer's maximally equidistributed Tausworthe, period 2^88):
   * fast, and 24 bytes of state where mt19937 needs 2.5 KB per component,
   * which matters for systems of thousands of nodes. */
  gsl_rng *r = gsl_rng_alloc(gsl_rng_taus2);
  /* A seed of 0 selects the generator's default; avoid it. */
  unsigned long s = (unsigned long)rng_derive(seed, stream_id);
  gsl_rng_set(r, s ? s : 1);
  return r;
}
