/* The scalar oracle for the RNG tests: the reference's generators (visitInstRand,
 * generateXorwowRandom @ 0x1aa180, SetRandState @ 0x1f8490; docs/rng.md) transliterated one element
 * at a time, plus the published reference routines the vectors need (Random123 philox4x32_R,
 * mt19937-64.c init_by_array64 / genrand64_int64). It shares no code with plugins/rng. */
#ifndef TRNSIM_TESTS_RNG_ORACLE_H
#define TRNSIM_TESTS_RNG_ORACLE_H

#include <stddef.h>
#include <stdint.h>

/* the reference's LFSR: taps {32,22,2,1}, output = new state. */
uint32_t orc_lfsr(uint32_t *state);

/* the reference's PCG32 with increment inc (the reference's is 0x14057B7EF767814F). */
uint32_t orc_pcg32(uint64_t *state, uint64_t inc);

/* Random123 philox4x32_R(10, ctr, key). */
void orc_philox(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* the reference's generateXorwowRandom and xorwowStep. */
uint32_t orc_xorwow(uint32_t s[6]);
float orc_xorwow_step(uint32_t s[6], float lo, float hi);

/* mt19937-64.c */
typedef struct orc_mt {
    uint64_t mt[312];
    int mti;
} orc_mt;
void orc_mt_init(orc_mt *m, uint64_t seed); /* the reference's recurrence */
void orc_mt_init_by_array(orc_mt *m, const uint64_t *key, size_t len); /* init_by_array64 */
uint64_t orc_mt_next(orc_mt *m);                                       /* genrand64_int64 */

/* One gen-1 Rand of n elements on one partition's 6 words, following
 * docs/rng.md's state mapping, element by element. */
void orc_rand(int alg, uint32_t w[6], uint32_t *out, size_t n);

/* One Rand2 of n elements on one partition's 4 lanes (lane-major), column
 * j driven by lane j % nlanes. */
void orc_rand2(uint32_t lanes[24], unsigned nlanes, float lo, float hi, float *out, size_t n);

#endif
