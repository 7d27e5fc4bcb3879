/* Rng kernels and lane seeding (exp_rng.h). MT19937-64 is transliterated
 * from mt19937-64.c (2004/9/29) by Takuji Nishimura and Makoto Matsumoto. */
#include "exp_rng.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MATRIX_A 0xB5026F5AA96619E9ULL
#define UM 0xFFFFFFFF80000000ULL /* most significant 33 bits */
#define LM 0x7FFFFFFFULL         /* least significant 31 bits */

void exp_lane_default(uint32_t s[EXP_LANE_WORDS]) {
    for (unsigned w = 0; w < EXP_LANE_WORDS; ++w) s[w] = 1u;
}

void exp_lane_zero_guard(uint32_t s[EXP_LANE_WORDS]) {
    if ((s[0] | s[1] | s[2] | s[3] | s[4]) == 0) s[4] = 1u;
}

void exp_mt64_seed(exp_mt64 *m, uint64_t seed) {
    m->mt[0] = seed;
    for (uint32_t i = 1; i < EXP_MT64_NN; ++i)
        m->mt[i] = EXP_MT64_INIT_MUL * (m->mt[i - 1] ^ (m->mt[i - 1] >> 62)) + i;
    m->mti = EXP_MT64_NN;
}

static uint64_t mix(uint64_t a, uint64_t b, uint64_t c) {
    uint64_t x = (a & UM) | (b & LM);
    return c ^ (x >> 1) ^ ((x & 1u) ? MATRIX_A : 0u);
}

uint64_t exp_mt64_next(exp_mt64 *m) {
    if (m->mti >= EXP_MT64_NN) {
        if (m->mti != EXP_MT64_NN) exp_mt64_seed(m, 5489u); /* never seeded: the original's default */
        uint64_t *mt = m->mt;
        uint32_t i = 0;
        for (; i < EXP_MT64_NN - EXP_MT64_MM; ++i) mt[i] = mix(mt[i], mt[i + 1], mt[i + EXP_MT64_MM]);
        for (; i < EXP_MT64_NN - 1; ++i) mt[i] = mix(mt[i], mt[i + 1], mt[i + EXP_MT64_MM - EXP_MT64_NN]);
        mt[EXP_MT64_NN - 1] = mix(mt[EXP_MT64_NN - 1], mt[0], mt[EXP_MT64_MM - 1]);
        m->mti = 0;
    }
    uint64_t x = m->mt[m->mti++];
    x ^= (x >> 29) & 0x5555555555555555ULL;
    x ^= (x << 17) & 0x71D67FFFEDA60000ULL;
    x ^= (x << 37) & 0xFFF7EEE000000000ULL;
    x ^= (x >> 43);
    return x;
}

void exp_lanes_seed(uint32_t *lanes, size_t np, uint64_t seed) {
    exp_mt64 m;
    exp_mt64_seed(&m, seed);
    for (size_t p = 0; p < np; ++p) {
        uint32_t *s = lanes + p * EXP_LANE_WORDS;
        for (unsigned k = 0; k < EXP_MT64_PER_PARTITION; ++k) {
            uint64_t r = exp_mt64_next(&m);
            if (k < EXP_LANE_WORDS / 2) { /* lane 0; lanes 1..3 are not kept */
                s[2 * k] = (uint32_t)r;
                s[2 * k + 1] = (uint32_t)(r >> 32);
            }
        }
        exp_lane_zero_guard(s);
    }
}

void exp_rng_draw(uint32_t lane[EXP_LANE_WORDS], uint32_t *bits, size_t n) {
    uint32_t s[EXP_LANE_WORDS]; /* a local copy lets the compiler keep it in registers */
    memcpy(s, lane, sizeof s);
    for (size_t j = 0; j < n; ++j) bits[j] = exp_xorwow_next(s);
    memcpy(lane, s, sizeof s);
}

void exp_rng_pack(const uint32_t *bits, size_t n, unsigned width, void *dst) {
    switch (width) {
    case 1: {
        uint8_t *d = dst;
        for (size_t j = 0; j < n; ++j) d[j] = (uint8_t)bits[j];
        break;
    }
    case 2: {
        uint16_t *d = dst;
        for (size_t j = 0; j < n; ++j) d[j] = (uint16_t)bits[j];
        break;
    }
    default: memcpy(dst, bits, n * sizeof *bits); break;
    }
}

int exp_parse_seed(const char *text, int *seeded, uint64_t *seed) {
    *seeded = 0;
    *seed = 0;
    if (!text || !*text) return 0;
    /* decimal, or 0x hex; never octal, signs or spaces (strtoull would take them) */
    int hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const char *digits = hex ? text + 2 : text;
    for (const char *c = digits; *c; ++c)
        if (!(hex ? isxdigit((unsigned char)*c) : isdigit((unsigned char)*c))) return -1;
    if (!*digits) return -1;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(digits, &end, hex ? 16 : 10);
    if (errno || *end) return -1;
    *seeded = 1;
    *seed = (uint64_t)v;
    return 0;
}
