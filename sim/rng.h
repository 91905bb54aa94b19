/* Random streams (GSL): one independent stream per component, seeded from
 * the scenario seed and the component's id, so that adding a component does
 * not change what the others draw. */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

/* A stream for (SEED, STREAM_ID); free with gsl_rng_free. */
gsl_rng *rng_stream_new(uint64_t seed, uint64_t stream_id);

/* The same stream built in place, in memory the caller owns (the engine
 * keeps it beside the component): R's state goes to STATE, which holds
 * rng_stream_state_size() bytes, suitably aligned. Not for gsl_rng_free. */
size_t rng_stream_state_size(void);
void rng_stream_init(gsl_rng *r, void *state, uint64_t seed, uint64_t stream_id);

/* A well-mixed 64-bit value derived from a seed and an index (splitmix64
 * finalizer); used for seed derivation in sweeps and streams. */
uint64_t rng_derive(uint64_t seed, uint64_t index);

#endif
