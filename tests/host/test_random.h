/* Reproducible random streams for the randomised host tests: xorshift64,
 * one state per test file, seeded by that file, so a failing case prints a
 * program that reruns alike. A file may save and set rng_state to replay a
 * stream. */
#ifndef TRNSIM_TEST_RANDOM_H
#define TRNSIM_TEST_RANDOM_H

#include <stdint.h>

#ifndef TEST_RANDOM_SEED
#error "define TEST_RANDOM_SEED before including test_random.h"
#endif

static uint64_t rng_state = TEST_RANDOM_SEED;

static inline uint64_t rnd(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Uniform in [lo, hi] (the modulo bias does not matter for test cases). */
static inline int64_t rnd_in(int64_t lo, int64_t hi) {
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

#endif
