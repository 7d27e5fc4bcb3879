/* Rng (IT 100): 32 random bits per element from an XORWOW lane, truncated
 * to the destination width (least significant bits kept); and how the lanes
 * are seeded (MT19937-64). Pure functions; no host API here.
 *
 * A lane is six uint32 words: s[0..4] = cuRAND's v[0..4], s[5] = the Weyl
 * counter d, exactly the reference's XorwowState (generateXorwowRandom @ 0x1aa180) and the layout of
 * one gen-2 lane of trnsim-rng. The module keeps one lane per core and per
 * partition (docs/experimental.md says why it is its own). */
#ifndef TRNSIM_EXP_RNG_H
#define TRNSIM_EXP_RNG_H

#include <stddef.h>
#include <stdint.h>

#define EXP_LANE_WORDS 6u
#define EXP_XORWOW_WEYL 362437u
#define EXP_MT64_NN 312u
#define EXP_MT64_MM 156u
#define EXP_MT64_INIT_MUL 0x5851F42D4C957F2DULL
/* MT19937-64 outputs per partition of a gen-2 fill (4 lanes x 6 words / 2). */
#define EXP_MT64_PER_PARTITION 12u

/* generateXorwowRandom (the reference's): shifts 2 / 1 / 4, Weyl 362437. */
static inline uint32_t exp_xorwow_next(uint32_t s[EXP_LANE_WORDS]) {
    uint32_t t = s[0] ^ (s[0] >> 2);
    s[0] = s[1];
    s[1] = s[2];
    s[2] = s[3];
    s[3] = s[4];
    s[4] = (s[4] ^ (s[4] << 4)) ^ (t ^ (t << 1));
    s[5] += EXP_XORWOW_WEYL;
    return s[5] + s[4];
}

/* The engine's default lane {1, 1, 1, 1, 1, 1} (the reference's). */
void exp_lane_default(uint32_t s[EXP_LANE_WORDS]);

/* The zero guard of the reference: words 0..4 all zero -> word 4 = 1. */
void exp_lane_zero_guard(uint32_t s[EXP_LANE_WORDS]);

typedef struct exp_mt64 {
    uint64_t mt[EXP_MT64_NN];
    uint32_t mti;
} exp_mt64;

/* init_genrand64 (the reference's): mt[0] = seed, mt[i] = MUL * (mt[i-1] ^ mt[i-1] >> 62) + i. */
void exp_mt64_seed(exp_mt64 *m, uint64_t seed);
/* genrand64_int64 of Matsumoto & Nishimura's mt19937-64.c. */
uint64_t exp_mt64_next(exp_mt64 *m);

/* Seed np partitions' lanes ([np][6]) from MT19937-64(seed): partition p
 * takes outputs 12p .. 12p+11 (the gen-2 fill of trnsim-rng's scalar seed:
 * 4 lanes of 6 words, low 32 bits of an output first), and its lane is the
 * first of those four: words = lo(o0), hi(o0), lo(o1), hi(o1), lo(o2),
 * hi(o2); o3 .. o11 are drawn and dropped. Then the zero guard. */
void exp_lanes_seed(uint32_t *lanes, size_t np, uint64_t seed);

/* n draws of one lane, in order. */
void exp_rng_draw(uint32_t lane[EXP_LANE_WORDS], uint32_t *bits, size_t n);

/* Keep the low width bytes (1, 2 or 4) of each draw: dst holds n elements
 * of that width in host order. */
void exp_rng_pack(const uint32_t *bits, size_t n, unsigned width, void *dst);

/* The setting rng_seed: "" -> *seeded = 0; otherwise a uint64 in decimal or
 * 0x hex -> *seeded = 1. Returns 0, or -1 for any other text. */
int exp_parse_seed(const char *text, int *seeded, uint64_t *seed);

#endif
