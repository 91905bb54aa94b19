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
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  /* mt19937 takes an unsigned long seed; 0 selects its default, avoid it. */
  unsigned long s = (unsigned long)rng_derive(seed, stream_id);
  gsl_rng_set(r, s ? s : 1);
  return r;
}
