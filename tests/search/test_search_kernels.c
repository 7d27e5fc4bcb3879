/* search_kernels: known answers from the reference, and the fast kernels against
 * the scalar oracle (plugins/search/ref/search_oracle.c) bit for bit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "search_kernels.h"
#include "search_oracle.h"

/* ---- helpers ------------------------------------------------------------- */

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Compare float arrays by their bits (== would hide -0.0 vs +0.0 and NaN). */
static void assert_bits_equal(const float *a, const float *b, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (bits(a[i]) != bits(b[i])) {
            print_error("element %zu: 0x%08x (%g) != 0x%08x (%g)\n", i, bits(a[i]), (double)a[i],
                        bits(b[i]), (double)b[i]);
            fail();
        }
    }
}

static void assert_u32_equal(const uint32_t *a, const uint32_t *b, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        if (a[i] != b[i]) {
            print_error("index slot %zu: %u != %u\n", i, a[i], b[i]);
            fail();
        }
    }
}

/* splitmix64: a small deterministic generator for the random rows. */
static uint64_t rng_next(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t rng_below(uint64_t *s, uint32_t n) { return (uint32_t)(rng_next(s) % n); }

static float rng_unit(uint64_t *s) { return (float)(rng_next(s) >> 40) * 0x1p-24f * 2.0f - 1.0f; }

#define NANF     from_bits(0x7FC00000u)
#define NEG_ZERO from_bits(0x80000000u)

/* Row generators: kinds of rows the reference is sensitive to. */
typedef enum row_kind {
    ROW_UNIFORM,   /* distinct-ish values in [-1, 1) */
    ROW_ANY_BITS,  /* arbitrary bit patterns: NaNs, Infs, subnormals, zeros */
    ROW_TIES,      /* values from {0, 1, 2, 3} */
    ROW_ZEROS,     /* {+0, -0, 1, -1} */
    ROW_ALL_EQUAL, /* one value */
    ROW_NAN_FILL,  /* NaN somewhere among the first 8, uniform elsewhere */
    ROW_NAN_LATE,  /* sprinkled NaN and +-Inf after the fill */
    ROW_ASCENDING, /* increasing: every element is accepted (worst case) */
    ROW_KINDS
} row_kind;

static void make_row(row_kind kind, uint64_t *s, float *row, size_t n) {
    static const float ties[4] = {0.0f, 1.0f, 2.0f, 3.0f};
    float one = rng_unit(s);
    for (size_t i = 0; i < n; ++i) {
        switch (kind) {
            case ROW_UNIFORM: row[i] = rng_unit(s); break;
            case ROW_ANY_BITS: row[i] = from_bits((uint32_t)rng_next(s)); break;
            case ROW_TIES: row[i] = ties[rng_below(s, 4)]; break;
            case ROW_ZEROS: {
                static const float z[4] = {0.0f, -0.0f, 1.0f, -1.0f};
                row[i] = z[rng_below(s, 4)];
                break;
            }
            case ROW_ALL_EQUAL: row[i] = one; break;
            case ROW_NAN_FILL: row[i] = (i < 8 && rng_below(s, 3) == 0) ? NANF : rng_unit(s); break;
            case ROW_NAN_LATE: {
                uint32_t r = rng_below(s, 64);
                row[i] = r == 0 ? NANF : r == 1 ? INFINITY : r == 2 ? -INFINITY : rng_unit(s);
                break;
            }
            case ROW_ASCENDING: row[i] = (float)i; break;
            default: row[i] = 0.0f;
        }
    }
}

/* Lengths that hit the fill phase, block edges and both contract limits. */
static const size_t lengths[] = {8,  9,  15,  31,   32,   33,    40,   63,
                                 64, 65, 100, 1000, 4097, 16383, 16384};
#define N_LENGTHS (sizeof lengths / sizeof lengths[0])

/* ---- Max: known answers ---------------------------------------------------- */

static void check_max(const float *data, size_t n, const float *want) {
    float fast[8], ref[8];
    search_max8_row(data, n, fast);
    oracle_max8(data, n, ref);
    assert_bits_equal(ref, want, 8);
    assert_bits_equal(fast, want, 8);
}

static void test_max_known_descending(void **st) {
    (void)st;
    float data[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    float want[8] = {10, 9, 8, 7, 6, 5, 4, 3};
    check_max(data, 10, want);
}

/* Hand-traced in docs/search.md: the NaN lands in slot 1 while the slots
 * fill and stays there; everything else sorts around it. */
static void test_max_sticky_nan(void **st) {
    (void)st;
    float data[10] = {1, NANF, 2, 3, 4, 5, 6, 7, 8, 9};
    float want[8] = {9, NANF, 8, 7, 6, 5, 4, 3};
    check_max(data, 10, want);
}

/* All NaN slots: nothing after can displace them. */
static void test_max_all_nan_slots(void **st) {
    (void)st;
    float data[12] = {NANF, NANF, NANF, NANF, NANF, NANF, NANF, NANF, 5, INFINITY, 7, 8};
    float want[8] = {NANF, NANF, NANF, NANF, NANF, NANF, NANF, NANF};
    check_max(data, 12, want);
}

/* The cascade is not a shift: inserting 1 demotes +0.0 from slot 0, which
 * does not displace the equal -0.0 in slot 1 and lands in slot 2. */
static void test_max_signed_zero_cascade(void **st) {
    (void)st;
    float data[9] = {0.0f, NEG_ZERO, -1, -1, -1, -1, -1, -1, 1};
    float want[8] = {1, NEG_ZERO, 0.0f, -1, -1, -1, -1, -1};
    check_max(data, 9, want);
}

/* Strict '>': the earliest of equal values keeps the slot. */
static void test_max_tie_keeps_earliest(void **st) {
    (void)st;
    float data[9] = {NEG_ZERO, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    float want[8] = {NEG_ZERO, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
    check_max(data, 9, want);
}

static void test_max_infinities(void **st) {
    (void)st;
    float data[40];
    for (int i = 0; i < 40; ++i) data[i] = -INFINITY;
    data[3] = 2.0f;
    data[37] = INFINITY;
    float want[8] = {INFINITY,  2.0f,      -INFINITY, -INFINITY,
                     -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    check_max(data, 40, want);
}

/* ---- Max: fast path vs oracle ---------------------------------------------- */

static void test_max_random_vs_oracle(void **st) {
    (void)st;
    uint64_t s = 0x5EA4C8ull;
    float *row = malloc(SEARCH_MAX_DATA * sizeof *row);
    assert_non_null(row);
    int rows = 0;
    for (int kind = 0; kind < ROW_KINDS; ++kind) {
        for (size_t li = 0; li < N_LENGTHS; ++li) {
            for (int rep = 0; rep < 6; ++rep) {
                size_t n = lengths[li];
                make_row((row_kind)kind, &s, row, n);
                float fast[8], ref[8];
                search_max8_row(row, n, fast);
                oracle_max8(row, n, ref);
                assert_bits_equal(fast, ref, 8);
                rows++;
            }
        }
    }
    assert_int_equal(rows, ROW_KINDS * N_LENGTHS * 6);
    free(row);
}

/* Random lengths in [8, 16384]. */
static void test_max_random_lengths(void **st) {
    (void)st;
    uint64_t s = 42;
    float *row = malloc(SEARCH_MAX_DATA * sizeof *row);
    assert_non_null(row);
    for (int rep = 0; rep < 400; ++rep) {
        size_t n = SEARCH_MIN_DATA + rng_below(&s, SEARCH_MAX_DATA - SEARCH_MIN_DATA + 1);
        make_row((row_kind)rng_below(&s, ROW_KINDS), &s, row, n);
        float fast[8], ref[8];
        search_max8_row(row, n, fast);
        oracle_max8(row, n, ref);
        assert_bits_equal(fast, ref, 8);
    }
    free(row);
}

/* ---- matching: known answers ---------------------------------------------- */

/* The example: data [1,2,3,4,8x7], vals [3,8x7]. */
static const float nki_data[11] = {1, 2, 3, 4, 8, 8, 8, 8, 8, 8, 8};
static const float nki_vals[8] = {3, 8, 8, 8, 8, 8, 8, 8};

static void check_find(const float *data, size_t n, const float *vals, search_order order,
                       const uint32_t *want) {
    uint32_t fast[8], ref[8], ref91[8];
    float *out = malloc(n * sizeof *out);
    assert_non_null(out);
    search_find8_row(data, n, vals, order, fast);
    oracle_max_index(data, n, vals, order == SEARCH_DESCENDING, ref);
    oracle_match_replace(data, n, vals, -INFINITY, order == SEARCH_DESCENDING, out, ref91);
    assert_u32_equal(ref, want, 8);
    assert_u32_equal(ref91, want, 8);
    assert_u32_equal(fast, want, 8);
    free(out);
}

static void test_find_nki_example_ascending(void **st) {
    (void)st;
    static const uint32_t want[8] = {2, 4, 5, 6, 7, 8, 9, 10};
    check_find(nki_data, 11, nki_vals, SEARCH_ASCENDING, want);
}

static void test_find_nki_example_descending(void **st) {
    (void)st;
    static const uint32_t want[8] = {2, 10, 9, 8, 7, 6, 5, 4};
    check_find(nki_data, 11, nki_vals, SEARCH_DESCENDING, want);
}

/* Both orders strike out the same elements: only the slot assignment of
 * equal values differs. */
static void test_replace_nki_example_both_orders(void **st) {
    (void)st;
    const float ninf = -INFINITY;
    const float want[11] = {1, 2, ninf, 4, ninf, ninf, ninf, ninf, ninf, ninf, ninf};
    for (int order = 0; order < 2; ++order) {
        float fast[11], ref[11];
        uint32_t idx[8], ref_idx[8];
        memcpy(fast, nki_data, sizeof fast);
        search_find8_row(nki_data, 11, nki_vals, (search_order)order, idx);
        search_replace8_row(fast, idx, ninf);
        oracle_match_replace(nki_data, 11, nki_vals, ninf, order, ref, ref_idx);
        assert_bits_equal(ref, want, 11);
        assert_bits_equal(fast, want, 11);
        assert_u32_equal(idx, ref_idx, 8);
    }
}

/* Fewer occurrences than equal slots: ascending fills slots 0,1; descending
 * fills 7,6; the rest stay not found. */
static void test_find_short_duplicates(void **st) {
    (void)st;
    float data[9] = {0, 0, 0, 0, 8, 8, 0, 0, 0};
    float vals[8] = {8, 8, 8, 8, 8, 8, 8, 8};
    const uint32_t nf = SEARCH_NOT_FOUND;
    const uint32_t asc[8] = {4, 5, nf, nf, nf, nf, nf, nf};
    const uint32_t desc[8] = {nf, nf, nf, nf, nf, nf, 5, 4};
    check_find(data, 9, vals, SEARCH_ASCENDING, asc);
    check_find(data, 9, vals, SEARCH_DESCENDING, desc);
}

/* Strict IEEE ==: NaN never matches, -0.0 matches +0.0, absent values stay
 * 0xFFFFFFFF. */
static void test_find_ieee_equality(void **st) {
    (void)st;
    float data[10] = {NANF, 0.0f, 5, NEG_ZERO, 7, INFINITY, -INFINITY, 1, 2, 3};
    float vals[8] = {NANF, NEG_ZERO, 0.0f, 99, INFINITY, -INFINITY, 3, 3};
    const uint32_t nf = SEARCH_NOT_FOUND;
    const uint32_t want[8] = {nf, 1, 3, nf, 5, 6, 9, nf};
    check_find(data, 10, vals, SEARCH_ASCENDING, want);
}

/* The iterative TopK's sign-of-zero pairing: slot 1 holds -0.0 (the cascade
 * above) but the first zero element is +0.0 at index 0. */
static void test_find_signed_zero_pairing(void **st) {
    (void)st;
    float data[9] = {0.0f, NEG_ZERO, -1, -1, -1, -1, -1, -1, 1};
    float vals[8];
    search_max8_row(data, 9, vals);
    const uint32_t want[8] = {8, 0, 1, 2, 3, 4, 5, 6};
    check_find(data, 9, vals, SEARCH_ASCENDING, want);
    assert_int_equal(bits(vals[1]), 0x80000000u);
    assert_int_equal(bits(data[0]), 0x00000000u);
}

/* ---- matching: fast path vs oracle ------------------------------------------- */

/* vals drawn from a row: its own top 8 (the TopK case), random elements,
 * duplicates, absent values and NaN. */
static void make_vals(uint64_t *s, const float *row, size_t n, float vals[8]) {
    switch (rng_below(s, 4)) {
        case 0: oracle_max8(row, n, vals); break;
        case 1:
            for (int k = 0; k < 8; ++k) vals[k] = row[rng_below(s, (uint32_t)n)];
            break;
        case 2: {
            float v = row[rng_below(s, (uint32_t)n)];
            for (int k = 0; k < 8; ++k) vals[k] = v;
            break;
        }
        default:
            for (int k = 0; k < 8; ++k) {
                uint32_t r = rng_below(s, 4);
                vals[k] = r == 0 ? NANF : r == 1 ? rng_unit(s) : row[rng_below(s, (uint32_t)n)];
            }
    }
}

static void check_match_row(uint64_t *s, const float *row, size_t n, float *fast, float *ref) {
    float vals[8];
    make_vals(s, row, n, vals);
    for (int order = 0; order < 2; ++order) {
        uint32_t idx[8], ref_idx[8], ref89[8];
        search_find8_row(row, n, vals, (search_order)order, idx);
        oracle_max_index(row, n, vals, order, ref89);
        assert_u32_equal(idx, ref89, 8);
        memcpy(fast, row, n * sizeof *fast);
        search_replace8_row(fast, idx, -INFINITY);
        oracle_match_replace(row, n, vals, -INFINITY, order, ref, ref_idx);
        assert_u32_equal(idx, ref_idx, 8);
        assert_bits_equal(fast, ref, n);
    }
}

static void test_match_random_vs_oracle(void **st) {
    (void)st;
    uint64_t s = 0xD1CEull;
    float *row = malloc(SEARCH_MAX_DATA * sizeof *row);
    float *fast = malloc(SEARCH_MAX_DATA * sizeof *fast);
    float *ref = malloc(SEARCH_MAX_DATA * sizeof *ref);
    assert_non_null(row);
    assert_non_null(fast);
    assert_non_null(ref);
    for (int kind = 0; kind < ROW_KINDS; ++kind)
        for (size_t li = 0; li < N_LENGTHS; ++li)
            for (int rep = 0; rep < 6; ++rep) {
                make_row((row_kind)kind, &s, row, lengths[li]);
                check_match_row(&s, row, lengths[li], fast, ref);
            }
    for (int rep = 0; rep < 300; ++rep) {
        size_t n = SEARCH_MIN_DATA + rng_below(&s, SEARCH_MAX_DATA - SEARCH_MIN_DATA + 1);
        make_row((row_kind)rng_below(&s, ROW_KINDS), &s, row, n);
        check_match_row(&s, row, n, fast, ref);
    }
    free(row);
    free(fast);
    free(ref);
}

/* ---- iterative TopK at kernel level vs a stable sort ------------------------ */

typedef struct ranked {
    float v;
    uint32_t i;
} ranked;

/* Descending by value, ascending index for ties: a stable descending sort. */
static int cmp_ranked(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->v > y->v) return -1;
    if (x->v < y->v) return 1;
    return (x->i > y->i) - (x->i < y->i);
}

static void topk_round_trip(uint64_t *s, row_kind kind, size_t n) {
    float *row = malloc(n * sizeof *row);
    ranked *sorted = malloc(n * sizeof *sorted);
    assert_non_null(row);
    assert_non_null(sorted);
    make_row(kind, s, row, n);
    for (size_t i = 0; i < n; ++i) sorted[i] = (ranked){row[i], (uint32_t)i};
    qsort(sorted, n, sizeof *sorted, cmp_ranked);
    float *work = malloc(n * sizeof *work);
    assert_non_null(work);
    memcpy(work, row, n * sizeof *work);
    for (int round = 0; round < 8; ++round) {
        float vals[8];
        uint32_t idx[8];
        search_max8_row(work, n, vals);
        search_find8_row(work, n, vals, SEARCH_ASCENDING, idx);
        search_replace8_row(work, idx, -INFINITY);
        for (int k = 0; k < 8; ++k) {
            const ranked *want = &sorted[round * 8 + k];
            assert_int_equal(bits(vals[k]), bits(want->v));
            assert_int_equal(idx[k], want->i);
        }
    }
    free(work);
    free(sorted);
    free(row);
}

static void test_topk64_matches_stable_sort(void **st) {
    (void)st;
    uint64_t s = 7;
    for (int rep = 0; rep < 20; ++rep) {
        topk_round_trip(&s, ROW_UNIFORM, 16384);
        topk_round_trip(&s, ROW_TIES, 1000);
        topk_round_trip(&s, ROW_ASCENDING, 64 + rep);
    }
}

/* Each build runs the blocks it is for: the AVX ones exactly where the CPU
 * has AVX, the SSE ones with -DSEARCH_NO_AVX, plain loops with -DSEARCH_NO_SIMD. */
static void test_blocks_of_this_build(void **state) {
    (void)state;
#if defined(SEARCH_NO_SIMD) || !defined(__SSE__)
    assert_string_equal(search_kernel_blocks(), "plain");
#elif defined(SEARCH_NO_AVX) || !defined(__x86_64__)
    assert_string_equal(search_kernel_blocks(), "sse");
#else
    __builtin_cpu_init();
    assert_string_equal(search_kernel_blocks(), __builtin_cpu_supports("avx") ? "avx" : "sse");
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks_of_this_build),
        cmocka_unit_test(test_max_known_descending),
        cmocka_unit_test(test_max_sticky_nan),
        cmocka_unit_test(test_max_all_nan_slots),
        cmocka_unit_test(test_max_signed_zero_cascade),
        cmocka_unit_test(test_max_tie_keeps_earliest),
        cmocka_unit_test(test_max_infinities),
        cmocka_unit_test(test_max_random_vs_oracle),
        cmocka_unit_test(test_max_random_lengths),
        cmocka_unit_test(test_find_nki_example_ascending),
        cmocka_unit_test(test_find_nki_example_descending),
        cmocka_unit_test(test_replace_nki_example_both_orders),
        cmocka_unit_test(test_find_short_duplicates),
        cmocka_unit_test(test_find_ieee_equality),
        cmocka_unit_test(test_find_signed_zero_pairing),
        cmocka_unit_test(test_match_random_vs_oracle),
        cmocka_unit_test(test_topk64_matches_stable_sort),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
