/* experimental_kernels: the module's kernels against hand-computed answers,
 * published vectors (the C++ standard's mt19937_64 value, libstdc++ output)
 * and the scalar oracle (exp_oracle.c), bit for bit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exp_nonzero.h"
#include "exp_oracle.h"
#include "exp_rng.h"
#include "exp_state.h"
#include "rng_service.h"

/* ---- helpers ------------------------------------------------------------- */

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* splitmix64: deterministic test data. */
static uint64_t next_rand(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Kernel row vs expected int32 slots, compared as 32-bit words. */
static void check_row(const float *x, size_t n, int64_t off, int64_t pad, const int32_t *want) {
    uint32_t got[64];
    assert_true(n + 1 <= 64);
    uint32_t count = exp_nonzero_row(x, n, off, pad, got);
    assert_int_equal(count, (uint32_t)want[n]);
    assert_memory_equal(got, want, (n + 1) * sizeof *got);
}

/* ---- NonzeroWithCount: known answers -------------------------------------- */

/* The NKI nonzero_with_count documentation's example, slot for slot. */
static void test_nonzero_nki_example(void **unused) {
    const float x[8] = {0, 1, 1, 0, 0, 1, 0, 0};
    const int32_t want[9] = {17, 18, 21, -1, -1, -1, -1, -1, 3};
    check_row(x, 8, 16, -1, want);
}

/* All zeros, -0.0 included: no index, all padding, count 0. */
static void test_nonzero_all_zero(void **unused) {
    const float x[6] = {0.0f, -0.0f, 0.0f, -0.0f, 0.0f, 0.0f};
    const int32_t want[7] = {-1, -1, -1, -1, -1, -1, 0};
    check_row(x, 6, 0, -1, want);
}

/* All nonzero: every index, no padding, count n. NaN, infinities and
 * subnormals (smallest positive and negative) are all nonzero. */
static void test_nonzero_all_nonzero(void **unused) {
    const float x[7] = {
        1.0f, NAN, INFINITY, -INFINITY, from_bits(0x00000001u), from_bits(0x80000001u), -2.5f};
    const int32_t want[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    check_row(x, 7, 0, -1, want);
}

/* NaN counts (either sign, quiet or signalling payload); -0.0 does not. */
static void test_nonzero_nan_and_signed_zero(void **unused) {
    const float x[5] = {from_bits(0x7FC00000u), -0.0f, from_bits(0xFF800001u), 0.0f,
                        from_bits(0x7F800001u)};
    const int32_t want[6] = {0, 2, 4, -1, -1, 3};
    check_row(x, 5, 0, -1, want);
}

/* Padding and offset at the edges of int32; an offset in the uint32 range
 * stores its low 32 bits (uint32 destinations). */
static void test_nonzero_offsets_and_padding(void **unused) {
    const float x[4] = {0, 3, 0, 4};
    const int32_t want_min[5] = {INT32_MIN + 1, INT32_MIN + 3, INT32_MIN, INT32_MIN, 2};
    check_row(x, 4, INT32_MIN, INT32_MIN, want_min);
    const int32_t want_neg[5] = {-9, -7, 7, 7, 2};
    check_row(x, 4, -10, 7, want_neg);
    const int32_t want_hi[5] = {(int32_t)0xFFFFFFFBu, (int32_t)0xFFFFFFFDu, (int32_t)0xFFFFFFFFu,
                                (int32_t)0xFFFFFFFFu, 2};
    check_row(x, 4, 4294967290ll, 4294967295ll, want_hi);
}

static void test_nonzero_single_element(void **unused) {
    const float zero[1] = {0.0f}, one[1] = {5.0f};
    const int32_t want_zero[2] = {-1, 0}, want_one[2] = {3, 1};
    check_row(zero, 1, 3, -1, want_zero);
    check_row(one, 1, 3, -1, want_one);
}

/* Rows are independent and each is n + 1 slots wide. */
static void test_nonzero_rows_layout(void **unused) {
    const float x[3 * 4] = {0, 0, 0, 1, 1, 1, 1, 1, 0, 2, 0, 0};
    const int32_t want[3 * 5] = {3, -1, -1, -1, 1, 0, 1, 2, 3, 4, 1, -1, -1, -1, 1};
    uint32_t got[15];
    exp_nonzero_rows(x, 3, 4, 0, -1, got);
    assert_memory_equal(got, want, sizeof got);
}

/* ---- NonzeroWithCount: kernel vs oracle ----------------------------------- */

static float special_or_random(uint64_t *s, unsigned zero_permille) {
    static const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7FC00000u, 0xFFC00001u,
                                        0x7F800000u, 0xFF800000u, 0x00000001u, 0x807FFFFFu,
                                        0x3F800000u, 0x7F7FFFFFu};
    uint64_t r = next_rand(s);
    if ((r % 1000) < zero_permille) return (r >> 20) & 1 ? -0.0f : 0.0f;
    if (((r >> 10) & 7) == 0)
        return from_bits(specials[(r >> 13) % (sizeof specials / sizeof specials[0])]);
    return from_bits((uint32_t)(r >> 32));
}

static void test_nonzero_random_vs_oracle(void **unused) {
    static const size_t sizes[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 64, 100, 257, 1000, 4095};
    static const unsigned densities[] = {0, 100, 500, 900, 1000};
    uint64_t seed = 12345;
    float *x = malloc(4095 * 3 * sizeof *x);
    uint32_t *got = malloc(4096 * 3 * sizeof *got);
    int32_t *want = malloc(4096 * 3 * sizeof *want);
    assert_non_null(x);
    assert_non_null(got);
    assert_non_null(want);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
        for (size_t di = 0; di < sizeof densities / sizeof densities[0]; ++di) {
            size_t n = sizes[si];
            int64_t off = (int64_t)(next_rand(&seed) % 2001) - 1000,
                    pad = (int64_t)(next_rand(&seed) % 7) - 3;
            for (size_t i = 0; i < 3 * n; ++i) x[i] = special_or_random(&seed, densities[di]);
            exp_nonzero_rows(x, 3, n, off, pad, got);
            for (size_t r = 0; r < 3; ++r)
                oracle_nonzero_row(x + r * n, n, off, pad, want + r * (n + 1));
            if (memcmp(got, want, 3 * (n + 1) * sizeof *got) != 0) {
                print_error("n=%zu density=%u off=%lld pad=%lld differs\n", n, densities[di],
                            (long long)off, (long long)pad);
                fail();
            }
            /* density 0 and 1000 are the all-nonzero and all-zero rows */
            if (densities[di] == 1000) assert_int_equal(got[n], 0);
        }
    }
    free(x);
    free(got);
    free(want);
}

/* ---- Rng: trnsim-rng's generator through the "rng.xorwow" service -------- */

/* The module draws through this interface only; the test holds the
 * exporter's own struct, as the host hands it to the module's init. */
static const trn_rng_xorwow_service *svc = &rng_xorwow_service;

/* From {1,1,1,1,1,1} by hand:
 *   step 1: t = 1 ^ 0 = 1; s4 = (1 ^ 16) ^ (1 ^ 2) = 18; s5 = 362438; out = 362456
 *   step 2: t = 1; s4 = (18 ^ 288) ^ (1 ^ 2) = 305; s5 = 724875; out = 725180 */
static void test_xorwow_hand(void **unused) {
    uint32_t s[TRN_RNG_GEN2_WORDS];
    uint32_t out[2];
    svc->gen2_default(s, 1);
    svc->lane_bits(s, out, 2);
    assert_int_equal(out[0], 362456u);
    assert_int_equal(out[1], 725180u);
    const uint32_t after[6] = {1, 1, 1, 18, 305, 724875};
    assert_memory_equal(s, after, sizeof after);
    for (unsigned w = 6; w < TRN_RNG_GEN2_WORDS; ++w)
        assert_int_equal(s[w], 1u); /* lanes 1..3 untouched */
}

/* lane_bits against the reference's loop, any state, any n; and drawing in
 * two pieces continues the stream. */
static void test_xorwow_vs_oracle(void **unused) {
    uint64_t seed = 99;
    uint32_t got[1000], want[1000];
    for (int trial = 0; trial < 50; ++trial) {
        uint32_t a[6], b[6];
        for (int w = 0; w < 6; ++w) a[w] = b[w] = (uint32_t)next_rand(&seed);
        size_t n = 1 + next_rand(&seed) % 1000, cut = next_rand(&seed) % n;
        svc->lane_bits(a, got, cut);
        svc->lane_bits(a, got + cut, n - cut);
        for (size_t j = 0; j < n; ++j) want[j] = oracle_xorwow(b);
        assert_memory_equal(got, want, n * sizeof *got);
        assert_memory_equal(a, b, sizeof a);
    }
}

/* The oracle's MT19937-64 against published values: the C++ standard
 * ([rand.predef]) requires the 10000th output of a default-constructed
 * mt19937_64 (seed 5489) to be 9981545732273789042, the first being
 * 14514284786278117030; seed 42's first three are libstdc++'s. The seeding
 * tests below hold the service to this oracle. */
static void test_mt64_oracle_published(void **unused) {
    oracle_mt *o = malloc(sizeof *o);
    assert_non_null(o);
    oracle_mt_seed(o, 5489u);
    uint64_t first = oracle_mt_next(o), x = first;
    for (int i = 1; i < 10000; ++i) x = oracle_mt_next(o);
    assert_true(first == 14514284786278117030ull);
    assert_true(x == 9981545732273789042ull);
    oracle_mt_seed(o, 42u);
    assert_true(oracle_mt_next(o) == 0xc151df7d6ee5e2d6ull);
    assert_true(oracle_mt_next(o) == 0xa3978fb9b92502a8ull);
    assert_true(oracle_mt_next(o) == 0xc08c967f0e5e7b0aull);
    free(o);
}

/* Partition p's lane 0 is lo/hi of MT outputs 12p, 12p+1, 12p+2; lanes 1..3
 * take 12p+3 .. 12p+11. Rng draws lane 0 (exp_state_lane): a module that
 * took another lane, or another partition's state, would differ here. */
static void test_gen2_seed_layout(void **unused) {
    uint32_t states[3 * TRN_RNG_GEN2_WORDS];
    assert_int_equal(svc->gen2_seed(states, 3, 42u), 0);
    const uint32_t p0[6] = {0x6ee5e2d6u, 0xc151df7du, 0xb92502a8u,
                            0xa3978fb9u, 0x0e5e7b0au, 0xc08c967fu};
    assert_memory_equal(exp_state_lane(states, 0), p0, sizeof p0);
    oracle_mt o;
    oracle_mt_seed(&o, 42u);
    for (uint32_t p = 0; p < 3; ++p) {
        uint64_t r[12];
        for (int k = 0; k < 12; ++k) r[k] = oracle_mt_next(&o);
        const uint32_t *lane = exp_state_lane(states, p);
        for (int k = 0; k < 3; ++k) {
            assert_int_equal(lane[2 * k], (uint32_t)r[k]);
            assert_int_equal(lane[2 * k + 1], (uint32_t)(r[k] >> 32));
        }
        assert_int_equal(states[p * TRN_RNG_GEN2_WORDS + 6],
                         (uint32_t)r[3]); /* lane 1 starts at o3 */
        assert_memory_not_equal(lane, lane + 6, 6 * sizeof *lane);
    }
}

/* ---- Rng: truncation ------------------------------------------------------- */

static void test_pack_hand(void **unused) {
    const uint32_t bits[3] = {0x12345678u, 0xFFFFFF80u, 0x0000807Fu};
    uint8_t b[3];
    uint16_t h[3];
    uint32_t w[3];
    exp_rng_pack(bits, 3, 1, b);
    exp_rng_pack(bits, 3, 2, h);
    exp_rng_pack(bits, 3, 4, w);
    assert_int_equal(b[0], 0x78);
    assert_int_equal(b[1], 0x80);
    assert_int_equal((int8_t)b[1], -128);
    assert_int_equal(b[2], 0x7F);
    assert_int_equal(h[0], 0x5678);
    assert_int_equal((int16_t)h[1], -128);
    assert_int_equal((int16_t)h[2], (int16_t)0x807F);
    assert_memory_equal(w, bits, sizeof w);
}

static void test_pack_vs_oracle(void **unused) {
    uint64_t seed = 7;
    uint32_t bits[257];
    uint8_t b[257];
    uint16_t h[257];
    uint32_t w[257];
    for (size_t j = 0; j < 257; ++j) bits[j] = (uint32_t)next_rand(&seed);
    exp_rng_pack(bits, 257, 1, b);
    exp_rng_pack(bits, 257, 2, h);
    exp_rng_pack(bits, 257, 4, w);
    for (size_t j = 0; j < 257; ++j) {
        assert_int_equal(b[j], oracle_truncate(bits[j], 1, 0));
        assert_int_equal((int8_t)b[j], oracle_truncate(bits[j], 1, 1));
        assert_int_equal(h[j], oracle_truncate(bits[j], 2, 0));
        assert_int_equal((int16_t)h[j], oracle_truncate(bits[j], 2, 1));
        assert_true((int64_t)w[j] == oracle_truncate(bits[j], 4, 0));
        assert_true((int64_t)(int32_t)w[j] == oracle_truncate(bits[j], 4, 1));
    }
}

/* ---- settings and state ------------------------------------------------------ */

static void test_parse_seed(void **unused) {
    int seeded;
    uint64_t seed;
    assert_int_equal(exp_parse_seed("", &seeded, &seed), 0);
    assert_int_equal(seeded, 0);
    assert_int_equal(exp_parse_seed("42", &seeded, &seed), 0);
    assert_int_equal(seeded, 1);
    assert_true(seed == 42u);
    assert_int_equal(exp_parse_seed("0x2A", &seeded, &seed), 0);
    assert_true(seed == 42u);
    assert_int_equal(exp_parse_seed("010", &seeded, &seed), 0); /* decimal, never octal */
    assert_true(seed == 10u);
    assert_int_equal(exp_parse_seed("18446744073709551615", &seeded, &seed), 0);
    assert_true(seed == UINT64_MAX);
    static const char *const bad[] = {
        "-1", "+1", " 1", "1 ", "0x", "abc", "12a", "18446744073709551616", "0x1g"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        assert_int_equal(exp_parse_seed(bad[i], &seeded, &seed), -1);
}

static void test_state_begin(void **unused) {
    exp_state st = {.rng = svc};
    assert_int_equal(exp_state_begin(&st, 3, 5), 0);
    for (uint32_t c = 0; c < 3; ++c)
        for (uint32_t w = 0; w < 5 * TRN_RNG_GEN2_WORDS; ++w)
            assert_int_equal(exp_state_core(&st, c)[w], 1u);
    st.seeded = 1;
    st.seed = 42;
    exp_state_core(&st, 1)[0] = 0; /* a new run resets what the last one left */
    assert_int_equal(exp_state_begin(&st, 2, 4), 0);
    uint32_t want[4 * TRN_RNG_GEN2_WORDS];
    assert_int_equal(svc->gen2_seed(want, 4, 42), 0);
    assert_memory_equal(exp_state_core(&st, 0), want, sizeof want);
    assert_memory_equal(exp_state_core(&st, 1), want, sizeof want); /* every core starts alike */
    exp_state_free(&st);
    assert_null(st.lanes);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nonzero_nki_example),
        cmocka_unit_test(test_nonzero_all_zero),
        cmocka_unit_test(test_nonzero_all_nonzero),
        cmocka_unit_test(test_nonzero_nan_and_signed_zero),
        cmocka_unit_test(test_nonzero_offsets_and_padding),
        cmocka_unit_test(test_nonzero_single_element),
        cmocka_unit_test(test_nonzero_rows_layout),
        cmocka_unit_test(test_nonzero_random_vs_oracle),
        cmocka_unit_test(test_xorwow_hand),
        cmocka_unit_test(test_xorwow_vs_oracle),
        cmocka_unit_test(test_mt64_oracle_published),
        cmocka_unit_test(test_gen2_seed_layout),
        cmocka_unit_test(test_pack_hand),
        cmocka_unit_test(test_pack_vs_oracle),
        cmocka_unit_test(test_parse_seed),
        cmocka_unit_test(test_state_begin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
