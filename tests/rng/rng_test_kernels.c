/* The plugin's fast kernels against the scalar oracle, bit for bit, and
 * the state formats (zero guard, transpose, wire seed, MT fill). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rng_engine.h"
#include "rng_gen1.h"
#include "rng_mt64.h"
#include "rng_oracle.h"
#include "rng_pcg32.h"
#include "rng_state.h"
#include "rng_xorwow.h"

static uint64_t sm_state = 0x243F6A8885A308D3ULL;

/* splitmix64: test data only. */
static uint32_t rnd32(void) {
    uint64_t z = (sm_state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return (uint32_t)((z ^ (z >> 31)) >> 16);
}

static const size_t NPS[] = {1, 3, 8, 9, 16, 17, 128};
static const size_t NS[] = {1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 63, 64, 65, 129, 300};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ---- gen-1 ------------------------------------------------------------- */

static void check_gen1(int alg, size_t np, size_t n) {
    uint32_t *st = malloc(np * 6 * 4), *ost = malloc(np * 6 * 4);
    uint32_t *out = malloc(np * n * 4), *oout = malloc(np * n * 4);
    for (size_t i = 0; i < np * 6; ++i) st[i] = rnd32();
    if (alg == RNG_ALG_PHILOX && np > 2) { /* carries through every counter word */
        st[6 * 2 + 0] = st[6 * 2 + 1] = st[6 * 2 + 2] = st[6 * 2 + 3] = 0xFFFFFFFFu;
        st[6 * 1 + 0] = 0xFFFFFFE5u; /* word 0 wraps inside a later 8-block group */
    }
    memcpy(ost, st, np * 6 * 4);
    for (int call = 0; call < 2; ++call) { /* the stream continues across instructions */
        rng_gen1_fill((enum rng_algorithm)alg, st, np, out, n);
        for (size_t p = 0; p < np; ++p) orc_rand(alg, ost + p * 6, oout + p * n, n);
        assert_memory_equal(out, oout, np * n * 4);
        assert_memory_equal(st, ost, np * 6 * 4);
    }
    free(st);
    free(ost);
    free(out);
    free(oout);
}

static void test_gen1_fast_equals_oracle(void **unused) {
    (void)unused;
    for (int alg = 0; alg < 3; ++alg)
        for (size_t a = 0; a < COUNT(NPS); ++a)
            for (size_t b = 0; b < COUNT(NS); ++b) check_gen1(alg, NPS[a], NS[b]);
}

/* ---- PCG32: every path this CPU has ------------------------------------ */

static size_t pcg_test_isas(rng_isa isas[2]) {
    static int told;
    size_t k = 0;
    isas[k++] = RNG_ISA_PORTABLE;
    if (rng_isa_best() == RNG_ISA_AVX2) isas[k++] = RNG_ISA_AVX2;
    if (!told) {
        print_message("PCG32 paths tested on this CPU: portable%s\n",
                      k == 2 ? ", avx2" : " (no AVX2 here: the AVX2 path is not exercised)");
        told = 1;
    }
    return k;
}

/* Three calls on the same states (the chains restart from where each call
 * left every state), against the oracle; words 2..5 must not move. */
static void check_pcg32(rng_isa isa, const uint32_t *init, size_t np, size_t n) {
    uint32_t *st = malloc(np * 6 * 4), *ost = malloc(np * 6 * 4);
    uint32_t *out = malloc(np * n * 4), *oout = malloc(np * n * 4);
    memcpy(st, init, np * 6 * 4);
    memcpy(ost, init, np * 6 * 4);
    for (int call = 0; call < 3; ++call) {
        memset(out, 0xA5, np * n * 4);
        rng_pcg32_fill(isa, st, np, out, n);
        for (size_t p = 0; p < np; ++p) orc_rand(RNG_ALG_PCG32, ost + p * 6, oout + p * n, n);
        if (memcmp(out, oout, np * n * 4) != 0 || memcmp(st, ost, np * 6 * 4) != 0)
            fail_msg("PCG32 %s path differs from the oracle: %zu partitions x %zu columns, call %d",
                     rng_isa_name(isa), np, n, call);
    }
    for (size_t i = 0; i < np * 6; ++i)
        if (i % 6 >= 2) assert_int_equal(st[i], init[i]);
    free(st);
    free(ost);
    free(out);
    free(oout);
}

static void test_pcg32_paths_equal_oracle(void **unused) {
    (void)unused;
    rng_isa isas[2];
    const size_t k = pcg_test_isas(isas);
    static const size_t ns[] = {1,  2,  15, 16, 17, 31,  32,  33,   47,
                                48, 49, 63, 64, 65, 129, 300, 4097, 65536 + 19};
    uint32_t *init = malloc(128 * 6 * 4);
    for (size_t i = 0; i < 128 * 6; ++i) init[i] = rnd32();
    /* states at the edges: 0, all ones, each rotate count's boundary */
    init[0] = init[1] = 0;
    init[6] = init[7] = 0xFFFFFFFFu;
    init[12] = 0, init[13] = 0xF8000000u;           /* rot 31 first */
    init[18] = 0xFFFFFFFFu, init[19] = 0x07FFFFFFu; /* rot 0 first */
    for (size_t i = 0; i < k; ++i)
        for (size_t a = 0; a < COUNT(NPS); ++a)
            for (size_t b = 0; b < COUNT(ns); ++b)
                if (NPS[a] * ns[b] <= 9 * 70000) check_pcg32(isas[i], init, NPS[a], ns[b]);
    free(init);
}

/* The jump-ahead map against k single steps, and composed with itself. */
static void test_pcg32_jump(void **unused) {
    (void)unused;
    uint64_t s0 = 0x0123456789ABCDEFULL;
    for (uint64_t k = 0; k <= 1000; k += (k < 40 ? 1 : 97)) {
        uint64_t mul, inc, s = s0;
        rng_pcg32_jump(k, &mul, &inc);
        for (uint64_t i = 0; i < k; ++i) orc_pcg32(&s, 0x14057B7EF767814FULL);
        if (s0 * mul + inc != s)
            fail_msg("jump by %llu differs from %llu steps", (unsigned long long)k,
                     (unsigned long long)k);
    }
    /* The period is 2^64 (odd increment, multiplier 1 mod 4): 2^63 steps
     * move the state, twice that is the identity, and 2^64 - 1 steps then
     * one more come back too. */
    uint64_t mul, inc;
    rng_pcg32_jump(UINT64_C(1) << 63, &mul, &inc);
    assert_true(s0 * mul + inc != s0);
    assert_true((s0 * mul + inc) * mul + inc == s0);
    rng_pcg32_jump(UINT64_MAX, &mul, &inc);
    uint64_t back = s0 * mul + inc;
    orc_pcg32(&back, 0x14057B7EF767814FULL);
    assert_true(back == s0);
}

/* LFSR against an independent computation: the bit sequence x of the
 * recurrence x[t+1] = x[t-31] ^ x[t-21] ^ x[t-1] ^ x[t] (taps 32, 22, 2, 1),
 * the register after step t holding x[t-31..t] with x[t] in bit 0. */
static void test_lfsr_bit_sequence(void **unused) {
    (void)unused;
    enum { STEPS = 1000 };
    static const uint32_t seeds[] = {1u, 0x80000000u, 0xDEADBEEFu, 0xFFFFFFFFu, 0x00200002u};
    for (size_t c = 0; c < COUNT(seeds); ++c) {
        static uint8_t x[32 + STEPS];
        for (int i = 0; i < 32; ++i) x[i] = (seeds[c] >> (31 - i)) & 1u; /* x[31] is bit 0 */
        for (int t = 31; t < 31 + STEPS; ++t) x[t + 1] = x[t - 31] ^ x[t - 21] ^ x[t - 1] ^ x[t];
        uint32_t w[6] = {seeds[c], 0, 0, 0, 0, 0};
        uint32_t out[STEPS];
        rng_gen1_fill(RNG_ALG_LFSR, w, 1, out, STEPS);
        for (int k = 0; k < STEPS; ++k) {
            uint32_t want = 0;
            for (int i = 0; i < 32; ++i) want |= (uint32_t)x[k + 1 + 31 - i] << i;
            assert_int_equal(out[k], want);
        }
        assert_int_equal(w[0], out[STEPS - 1]);
    }
}

/* Hand-computed first steps from 1: bits 31, 21, 1 are 0 and bit 0 is 1. */
static void test_lfsr_hand(void **unused) {
    (void)unused;
    uint32_t w[6] = {1, 0, 0, 0, 0, 0}, out[4];
    rng_gen1_fill(RNG_ALG_LFSR, w, 1, out, 4);
    assert_int_equal(out[0], 3);  /* 1 << 1 | (0^0^0^1) */
    assert_int_equal(out[1], 6);  /* 3: b = bit1 ^ bit0 = 0 */
    assert_int_equal(out[2], 13); /* 6: b = bit1 = 1 */
    assert_int_equal(out[3], 27); /* 13: b = bit0 ^ bit1 = 1 ^ 0 */
    /* A zero register is a fixed point (documented: the zero guard fixes
     * word 4, not the LFSR's word 0). */
    uint32_t z[6] = {0, 0, 0, 0, 1, 0};
    rng_gen1_fill(RNG_ALG_LFSR, z, 1, out, 4);
    assert_int_equal(out[0] | out[1] | out[2] | out[3], 0);
}

/* Philox: element j is word j % 4 of block ctr + j / 4, the counter moves
 * ceil(n / 4) blocks, a partial block's rest is dropped. */
static void test_philox_mapping(void **unused) {
    (void)unused;
    uint32_t w[6] = {0xFFFFFFFEu, 0xFFFFFFFFu, 5, 0, 0x1234, 0x5678};
    const uint32_t key[2] = {0x1234, 0x5678};
    uint32_t out[9], blk[4];
    rng_gen1_fill(RNG_ALG_PHILOX, w, 1, out, 9);
    uint32_t c[4] = {0xFFFFFFFEu, 0xFFFFFFFFu, 5, 0};
    for (int b = 0; b < 3; ++b) {
        rng_philox4x32_10(c, key, blk);
        for (int k = 0; k < 4 && 4 * b + k < 9; ++k) assert_int_equal(out[4 * b + k], blk[k]);
        rng_philox_ctr_add(c, 1);
    }
    /* three blocks: 0xFFFFFFFE_FFFFFFFF... + 3 carries into word 2 */
    assert_int_equal(w[0], 1);
    assert_int_equal(w[1], 0);
    assert_int_equal(w[2], 6);
    assert_int_equal(w[3], 0);
    assert_int_equal(w[4], 0x1234); /* the key does not move */
    assert_int_equal(w[5], 0x5678);

    /* Two Rands of 3 are not one Rand of 6: the second starts a new block. */
    uint32_t a[6] = {7, 0, 0, 0, 1, 2}, b6[6] = {7, 0, 0, 0, 1, 2}, o3[6], o6[6];
    rng_gen1_fill(RNG_ALG_PHILOX, a, 1, o3, 3);
    rng_gen1_fill(RNG_ALG_PHILOX, a, 1, o3 + 3, 3);
    rng_gen1_fill(RNG_ALG_PHILOX, b6, 1, o6, 6);
    assert_memory_equal(o3, o6, 3 * 4);
    uint32_t c8[4] = {8, 0, 0, 0}, k12[2] = {1, 2};
    rng_philox4x32_10(c8, k12, blk);
    assert_memory_equal(o3 + 3, blk, 3 * 4);
    assert_int_equal(o6[4], blk[0]);
    assert_int_equal(a[0], 9);
    assert_int_equal(b6[0], 9);

    /* 2^128 - 1 wraps to 0. */
    uint32_t m[4] = {0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu};
    rng_philox_ctr_add(m, 1);
    assert_int_equal(m[0] | m[1] | m[2] | m[3], 0);
}

static void test_algorithm_ok(void **unused) {
    (void)unused;
    assert_true(rng_gen1_algorithm_ok(0) && rng_gen1_algorithm_ok(1) && rng_gen1_algorithm_ok(2));
    assert_false(rng_gen1_algorithm_ok(3));
    assert_false(rng_gen1_algorithm_ok(-1));
}

/* ---- gen-2 ------------------------------------------------------------- */

static const float INF = INFINITY;

static void check_gen2(size_t np, size_t n, unsigned nlanes, float lo, float hi) {
    uint32_t *st = malloc(np * 24 * 4), *ost = malloc(np * 24 * 4);
    float *out = malloc(np * n * 4), *oout = malloc(np * n * 4);
    for (size_t i = 0; i < np * 24; ++i) st[i] = rnd32();
    memcpy(ost, st, np * 24 * 4);
    for (int call = 0; call < 2; ++call) {
        rng_xorwow_fill(st, np, nlanes, lo, hi, out, n);
        for (size_t p = 0; p < np; ++p) orc_rand2(ost + p * 24, nlanes, lo, hi, oout + p * n, n);
        assert_memory_equal(out, oout, np * n * 4); /* bits, not == (NaN, -0) */
        assert_memory_equal(st, ost, np * 24 * 4);
    }
    free(st);
    free(ost);
    free(out);
    free(oout);
}

static void test_gen2_fast_equals_oracle(void **unused) {
    (void)unused;
    static const float ranges[][2] = {{0.0f, 1.0f},         {-3.5f, 2.25f},   {5.0f, -5.0f},
                                      {1e8f, 100000016.0f}, {-0.0f, 0.0f},    {0.0f, 0.0f},
                                      {-1e30f, 1e30f},      {1e-40f, 3e-40f}, {0.0f, INF},
                                      {-INF, INF},          {NAN, 1.0f},      {-3.4e38f, 3.4e38f}};
    static const unsigned lanes[] = {1, 2, 4};
    for (size_t r = 0; r < COUNT(ranges); ++r)
        for (size_t l = 0; l < 3; ++l)
            for (size_t a = 0; a < COUNT(NPS); ++a)
                for (size_t b = 0; b < COUNT(NS); b += 2)
                    check_gen2(NPS[a], NS[b], lanes[l], ranges[r][0], ranges[r][1]);
}

/* Only the lanes that drive a column advance, each once per column. */
static void test_gen2_lane_advance(void **unused) {
    (void)unused;
    uint32_t st[24], ref[24];
    for (int i = 0; i < 24; ++i) st[i] = ref[i] = (uint32_t)(i * 2654435761u + 1u);
    uint32_t out[5];
    rng_xorwow_fill_bits(st, 1, 2, out, 5); /* lane 0: columns 0, 2, 4; lane 1: 1, 3 */
    uint32_t want0[3], want1[2];
    for (int k = 0; k < 3; ++k) want0[k] = orc_xorwow(ref);
    for (int k = 0; k < 2; ++k) want1[k] = orc_xorwow(ref + 6);
    assert_int_equal(out[0], want0[0]);
    assert_int_equal(out[2], want0[1]);
    assert_int_equal(out[4], want0[2]);
    assert_int_equal(out[1], want1[0]);
    assert_int_equal(out[3], want1[1]);
    assert_memory_equal(st, ref, sizeof st); /* lanes 2, 3 untouched */
    for (int i = 12; i < 24; ++i) assert_int_equal(st[i], (uint32_t)(i * 2654435761u + 1u));
}

static uint32_t fbits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* The conversion: multiples of 2^-23 in [0, 1 - 2^-23]; the high 9 bits of
 * r do not matter. */
static void test_unit_conversion(void **unused) {
    (void)unused;
    assert_int_equal(fbits(rng_xorwow_unit(0)), fbits(0.0f));
    assert_true(rng_xorwow_unit(0x7FFFFFu) == 1.0f - 0x1p-23f);
    assert_true(rng_xorwow_unit(0xFFFFFFFFu) == 1.0f - 0x1p-23f);
    assert_true(rng_xorwow_unit(0xFF800000u) == 0.0f);
    assert_true(rng_xorwow_unit(1u) == 0x1p-23f);
    assert_true(rng_xorwow_unit(0x400000u) == 0.5f);
    /* the default range never reaches 1 */
    assert_true(rng_xorwow_affine(0.0f, 1.0f, rng_xorwow_unit(0x7FFFFFu)) < 1.0f);
}

/* Quirk rng.rand2_half_open: [min, max) in exact arithmetic, but fp32
 * rounding of min + (max - min) * u can land on max: 1e8 + 16 * (1 - 2^-23)
 * rounds to 1e8 + 16 (the fp32 spacing there is 8). */
static void test_half_open_rounding_reaches_max(void **unused) {
    (void)unused;
    float lo = 1e8f, hi = 100000016.0f, u = rng_xorwow_unit(0x7FFFFFu);
    assert_true(rng_xorwow_affine(lo, hi, u) == hi);
    assert_true((double)lo + ((double)hi - (double)lo) * (double)u <
                (double)hi); /* exact value is below */
    /* min > max: computed anyway, the values lie in (max, min] */
    assert_true(rng_xorwow_affine(5.0f, -5.0f, 0.0f) == 5.0f);
    assert_true(rng_xorwow_affine(5.0f, -5.0f, u) > -5.0f);
}

/* ---- state formats ----------------------------------------------------- */

static void test_zero_guard(void **unused) {
    (void)unused;
    uint32_t z[6] = {0, 0, 0, 0, 0, 77}, w[6];
    rng_gen1_from_tensor(z, w);
    const uint32_t want[6] = {0, 0, 0, 0, 1, 77};
    assert_memory_equal(w, want, sizeof want);
    for (int k = 0; k < 5; ++k) { /* any nonzero word among 0..4 leaves it alone */
        uint32_t t[6] = {0, 0, 0, 0, 0, 0};
        t[k] = 0x80000000u;
        rng_gen1_from_tensor(t, w);
        assert_memory_equal(w, t, sizeof t);
    }
    /* gen-2: each lane separately, after the transpose */
    uint32_t t24[24], lanes[24];
    for (int i = 0; i < 24; ++i) t24[i] = 0;
    t24[5 * 4 + 1] = 9; /* lane 1 word 5 (Weyl) only: still guarded */
    t24[2 * 4 + 3] = 4; /* lane 3 word 2: not guarded */
    rng_gen2_from_tensor(t24, lanes);
    assert_int_equal(lanes[0 * 6 + 4], 1);
    assert_int_equal(lanes[1 * 6 + 4], 1);
    assert_int_equal(lanes[1 * 6 + 5], 9);
    assert_int_equal(lanes[2 * 6 + 4], 1);
    assert_int_equal(lanes[3 * 6 + 4], 0);
    assert_int_equal(lanes[3 * 6 + 2], 4);
}

static void test_gen2_transpose_roundtrip(void **unused) {
    (void)unused;
    uint32_t t[24], lanes[24], back[24];
    for (int i = 0; i < 24; ++i) t[i] = 100u + (uint32_t)i;
    rng_gen2_from_tensor(t, lanes);
    /* tensor[word * 4 + lane] -> lanes[lane * 6 + word] */
    for (int lane = 0; lane < 4; ++lane)
        for (int word = 0; word < 6; ++word)
            assert_int_equal(lanes[lane * 6 + word], 100u + (uint32_t)(word * 4 + lane));
    rng_gen2_to_tensor(lanes, back);
    assert_memory_equal(back, t, sizeof t);
    for (int rep = 0; rep < 100; ++rep) {
        for (int i = 0; i < 24; ++i) t[i] = rnd32();
        rng_gen2_from_tensor(t, lanes);
        rng_gen2_to_tensor(lanes, back);
        assert_memory_equal(back, t, sizeof t);
    }
}

static void test_wire_seed(void **unused) {
    (void)unused;
    const uint32_t imm[8] = {0xABCDEF12u, 2, 3, 4, 5, 6, 7, 8};
    uint32_t wire[8], w[6];
    rng_gen1_wire_seed(5, imm, wire);
    assert_int_equal(wire[0], 0x05CDEF12u);
    for (int k = 1; k < 8; ++k) assert_int_equal(wire[k], imm[k]);
    rng_gen1_from_wire(wire, w);
    const uint32_t want[6] = {0x05CDEF12u, 2, 3, 4, 5, 6};
    assert_memory_equal(w, want, sizeof want);
    rng_gen1_wire_seed(127, imm, wire);
    assert_int_equal(wire[0], 0x7FCDEF12u);
    rng_gen1_wire_seed(300, imm, wire); /* uint32 shift: 300 << 24 keeps 0x2C */
    assert_int_equal(wire[0], 0x2CCDEF12u);
    /* partition 0, imm all zero: the zero guard */
    const uint32_t zero[8] = {0xFF000000u, 0, 0, 0, 0, 9, 1, 1};
    rng_gen1_wire_seed(0, zero, wire);
    assert_int_equal(wire[0], 0);
    rng_gen1_from_wire(wire, w);
    const uint32_t guarded[6] = {0, 0, 0, 0, 1, 9};
    assert_memory_equal(w, guarded, sizeof guarded);
}

/* Scalar seed: genrand64 outputs, low word first, partition / lane / word
 * order. */
static void test_mt_fill_layout(void **unused) {
    (void)unused;
    enum { NP = 5 };
    uint32_t lanes[NP * 24];
    rng_mt64 m;
    orc_mt o;
    rng_mt64_seed(&m, 42);
    orc_mt_init(&o, 42);
    rng_mt64_fill_xorwow(&m, lanes, NP);
    for (int i = 0; i < NP * 24; i += 2) {
        uint64_t r = orc_mt_next(&o);
        assert_int_equal(lanes[i], (uint32_t)r);
        assert_int_equal(lanes[i + 1], (uint32_t)(r >> 32));
    }
    /* partition 1 lane 2 word 3 is 64-bit output 12 + 6 + 1 = #19, high half */
    orc_mt_init(&o, 42);
    uint64_t r = 0;
    for (int i = 0; i < 20; ++i) r = orc_mt_next(&o);
    assert_int_equal(lanes[24 + 2 * 6 + 3], (uint32_t)(r >> 32));
    /* 12 outputs per partition were used: the engine is at output #61. */
    for (int i = 20; i < NP * 12; ++i) orc_mt_next(&o);
    assert_true(rng_mt64_next(&m) == orc_mt_next(&o));
}

static void test_engine_defaults(void **unused) {
    (void)unused;
    rng_engine e = {0};
    assert_int_equal(rng_engine_begin(&e, 4, 128), 0);
    for (uint32_t c = 0; c < 4; ++c) {
        uint32_t *g1 = rng_engine_gen1(&e, c), *g2 = rng_engine_gen2(&e, c);
        for (int i = 0; i < 128 * 6; ++i) assert_int_equal(g1[i], 1);
        for (int i = 0; i < 128 * 24; ++i) assert_int_equal(g2[i], 1);
    }
    assert_ptr_not_equal(rng_engine_gen1(&e, 1), rng_engine_gen1(&e, 0));
    rng_engine_gen1(&e, 2)[0] = 99;
    assert_int_equal(rng_engine_gen1(&e, 1)[0], 1);
    assert_int_equal(rng_engine_gen1(&e, 3)[0], 1);
    /* a new run resets */
    assert_int_equal(rng_engine_begin(&e, 2, 16), 0);
    assert_int_equal(rng_engine_gen1(&e, 1)[0], 1);
    assert_int_equal(e.partitions, 16);
    rng_engine_free(&e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gen1_fast_equals_oracle),
        cmocka_unit_test(test_pcg32_paths_equal_oracle),
        cmocka_unit_test(test_pcg32_jump),
        cmocka_unit_test(test_lfsr_bit_sequence),
        cmocka_unit_test(test_lfsr_hand),
        cmocka_unit_test(test_philox_mapping),
        cmocka_unit_test(test_algorithm_ok),
        cmocka_unit_test(test_gen2_fast_equals_oracle),
        cmocka_unit_test(test_gen2_lane_advance),
        cmocka_unit_test(test_unit_conversion),
        cmocka_unit_test(test_half_open_rounding_reaches_max),
        cmocka_unit_test(test_zero_guard),
        cmocka_unit_test(test_gen2_transpose_roundtrip),
        cmocka_unit_test(test_wire_seed),
        cmocka_unit_test(test_mt_fill_layout),
        cmocka_unit_test(test_engine_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
