/* The MT19937-64 seed engine (Matsumoto & Nishimura, mt19937-64.c) and how
 * SetRandState's scalar seed (engine 5) turns its output into XORWOW lane
 * states. Pure functions; no host API here. */
#ifndef TRNSIM_RNG_MT64_H
#define TRNSIM_RNG_MT64_H

#include <stddef.h>
#include <stdint.h>

#define RNG_MT64_NN       312u
#define RNG_MT64_MM       156u
#define RNG_MT64_INIT_MUL 0x5851F42D4C957F2DULL /* 6364136223846793005 */

typedef struct rng_mt64 {
    uint64_t mt[RNG_MT64_NN];
    uint32_t mti; /* NN + 1: not seeded */
} rng_mt64;

/* init_genrand64: mt[0] = seed, mt[i] = MUL * (mt[i-1] ^ (mt[i-1] >> 62)) + i. */
void rng_mt64_seed(rng_mt64 *m, uint64_t seed);

/* genrand64_int64 (an unseeded engine seeds itself with 5489, as the
 * original does). */
uint64_t rng_mt64_next(rng_mt64 *m);

/* Fill np partitions of XORWOW lanes ([np][24], lane-major, see
 * rng_xorwow.h) from the engine: partition by partition, lane 0..3, word
 * 0..5; each genrand64 output gives two words, its low 32 bits first, then
 * its high 32 bits (three outputs per lane, twelve per partition). Each
 * lane then gets the zero guard (rng_state.h). */
void rng_mt64_fill_xorwow(rng_mt64 *m, uint32_t *lanes, size_t np);

#endif
