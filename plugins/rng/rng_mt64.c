/* MT19937-64, transliterated from mt19937-64.c (2004/9/29 version) by
 * Takuji Nishimura and Makoto Matsumoto: init_genrand64 and genrand64_int64. */
#include "rng_mt64.h"

#include "rng_state.h"
#include "rng_xorwow.h"

#define MATRIX_A 0xB5026F5AA96619E9ULL
#define UM       0xFFFFFFFF80000000ULL /* most significant 33 bits */
#define LM       0x7FFFFFFFULL         /* least significant 31 bits */

void rng_mt64_seed(rng_mt64 *m, uint64_t seed) {
    m->mt[0] = seed;
    for (uint32_t i = 1; i < RNG_MT64_NN; ++i)
        m->mt[i] = RNG_MT64_INIT_MUL * (m->mt[i - 1] ^ (m->mt[i - 1] >> 62)) + i;
    m->mti = RNG_MT64_NN;
}

static uint64_t twist(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t x = (a & UM) | (b & LM);
    return c ^ (x >> 1) ^ ((x & 1u) ? MATRIX_A : 0u);
}

/* Regenerate all NN words (the original's three loops). */
static void mt64_refill(rng_mt64 *m) {
    uint64_t *mt = m->mt;
    uint32_t i = 0;
    for (; i < RNG_MT64_NN - RNG_MT64_MM; ++i) mt[i] = twist(mt[i], mt[i + 1], mt[i + RNG_MT64_MM]);
    for (; i < RNG_MT64_NN - 1; ++i)
        mt[i] = twist(mt[i], mt[i + 1], mt[i + RNG_MT64_MM - RNG_MT64_NN]);
    mt[RNG_MT64_NN - 1] = twist(mt[RNG_MT64_NN - 1], mt[0], mt[RNG_MT64_MM - 1]);
    m->mti = 0;
}

uint64_t rng_mt64_next(rng_mt64 *m) {
    if (m->mti >= RNG_MT64_NN) {
        if (m->mti != RNG_MT64_NN) rng_mt64_seed(m, 5489u);
        mt64_refill(m);
    }
    uint64_t x = m->mt[m->mti++];
    x ^= (x >> 29) & 0x5555555555555555ULL;
    x ^= (x << 17) & 0x71D67FFFEDA60000ULL;
    x ^= (x << 37) & 0xFFF7EEE000000000ULL;
    x ^= (x >> 43);
    return x;
}

void rng_mt64_fill_xorwow(rng_mt64 *m, uint32_t *lanes, size_t np) {
    for (size_t i = 0; i < np * RNG_GEN2_WORDS; i += 2) {
        uint64_t r = rng_mt64_next(m);
        lanes[i] = (uint32_t)r;
        lanes[i + 1] = (uint32_t)(r >> 32);
    }
    for (size_t l = 0; l < np * RNG_XORWOW_LANES; ++l) rng_zero_guard(lanes + l * RNG_XORWOW_WORDS);
}
