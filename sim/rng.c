/* Per-component GSL random streams derived from the scenario seed. */
#include "rng.h"

#include <string.h>

uint64_t rng_derive(uint64_t seed, uint64_t index) {
  /* splitmix64 over seed and index: distinct, well-mixed seeds per stream. */
  uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (index + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/* taus2 (L'Ecuyer's maximally equidistributed Tausworthe, period 2^88):
 * fast, and 24 bytes of state where mt19937 needs 2.5 KB per component,
 * which matters for systems of thousands of nodes. */
#define RNG_TYPE gsl_rng_taus2

static void stream_seed(gsl_rng *r, uint64_t seed, uint64_t stream_id) {
  /* A seed of 0 selects the generator's default; avoid it. */
  unsigned long s = (unsigned long)rng_derive(seed, stream_id);
  gsl_rng_set(r, s ? s : 1);
}

gsl_rng *rng_stream_new(uint64_t seed, uint64_t stream_id) {
  gsl_rng *r = gsl_rng_alloc(RNG_TYPE);
  stream_seed(r, seed, stream_id);
  return r;
}

size_t rng_stream_state_size(void) { return RNG_TYPE->size; }

void rng_stream_init(gsl_rng *r, void *state, uint64_t seed, uint64_t stream_id) {
  /* What gsl_rng_alloc does (gsl_rng and gsl_rng_type are GSL's public
   * structs), with the state in the caller's memory: the same stream. */
  memset(state, 0, RNG_TYPE->size);
  r->type = RNG_TYPE;
  r->state = state;
  stream_seed(r, seed, stream_id);
}
