/* Shared helpers of the arith tests: bit views, a deterministic PRNG and
 * the cmocka includes (in the order cmocka needs). */
#ifndef TRNSIM_TESTS_ARITH_UTIL_H
#define TRNSIM_TESTS_ARITH_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

#include "arith/arith.h"

static inline uint32_t fbits(float f) { return trn_f32_bits(f); }
static inline float bitsf(uint32_t u) { return trn_bits_f32(u); }

/* Bit-for-bit float comparison (== would accept -0 == +0 and reject NaN). */
#define assert_f32_bits(a, b) assert_int_equal(fbits(a), fbits(b))

/* xorshift64*: fixed seeds, so every run checks the same data. */
typedef struct test_rng {
    uint64_t s;
} test_rng;

static inline uint64_t rng_next(test_rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545F4914F6CDD1DULL;
}

static inline uint32_t rng_u32(test_rng *r) { return (uint32_t)(rng_next(r) >> 32); }

/* Random fp32 bits biased toward interesting values: a quarter uniform bit
 * patterns, the rest small-exponent values near 1 with a random sign,
 * plus zeros, infinities and NaNs now and then. */
static inline uint32_t rng_f32_bits(test_rng *r) {
    uint32_t u = rng_u32(r);
    switch (u & 15) {
        case 0: return u & 0x80000000u;                 /* +-0 */
        case 1: return (u & 0x80000000u) | 0x7f800000u; /* +-Inf */
        case 2: return u | 0x7f800001u;                 /* NaN (maybe signalling) */
        case 3:
        case 4:
        case 5:
        case 6: return rng_u32(r); /* any pattern */
        default: {                 /* |v| in [2^-30, 2^30) */
            uint32_t e = 97 + (rng_u32(r) % 60);
            return (u & 0x80000000u) | (e << 23) | (rng_u32(r) & 0x7fffffu);
        }
    }
}

#endif
