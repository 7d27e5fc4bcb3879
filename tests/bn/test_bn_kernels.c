/* The blocked kernels of plugins/bn against the scalar oracle, bit for bit
 * (NaN payloads included), over every input kind, odd and even N, N = 1 and
 * 2, and partition counts that are not a multiple of BN_BLOCK nor of a
 * vector's partitions (2 in the four-lane BNStats path, 4 in the AVX one);
 * N mod 4 takes every value (the BNStats kernels do two pairs per step).
 * Every BNStats path the CPU can run is checked, not only the one picked. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "bn_kernels.h"
#include "bn_oracle.h"
#include "bn_testdata.h"

static const size_t kParts[] = {1,  2,  3,  6,   BN_BLOCK - 1, BN_BLOCK, BN_BLOCK + 1,
                                12, 13, 17, 128, 131};
static const size_t kElems[] = {1, 2, 3, 4, 5, 6, 7, 63, 64, 65, 127, 128, 129, 1000, 1001};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static float *alloc_f(size_t n) {
    float *p = malloc((n ? n : 1) * sizeof *p);
    assert_non_null(p);
    return p;
}

/* Every BNStats path this CPU runs (bn_test_isas), and the dispatching
 * entry point, against the oracle. */
static void check_stats(size_t P, size_t N, bn_kind k, bn_rng *r) {
    float *x = alloc_f(P * N), *fast = alloc_f(P * 6), *ref = alloc_f(P * 6);
    bn_fill(x, P, N, k, r);
    oracle_bn_stats(x, P, N, 0, ref);
    char what[96];
    bn_isa isas[2];
    const size_t nisa = bn_test_isas(isas);
    for (size_t i = 0; i < nisa; ++i) {
        bn_stats_whole_isa(isas[i], x, P, N, fast);
        snprintf(what, sizeof what, "BNStats[%s] P=%zu N=%zu %s", bn_isa_name(isas[i]), P, N,
                 bn_kind_name(k));
        assert_same_bits(fast, ref, P * 6, what);
    }
    bn_stats_whole(x, P, N, fast);
    snprintf(what, sizeof what, "BNStats P=%zu N=%zu %s", P, N, bn_kind_name(k));
    assert_same_bits(fast, ref, P * 6, what);
    free(x), free(fast), free(ref);
}

static void test_stats_matches_oracle(void **state) {
    (void)state;
    bn_rng r = {1};
    for (int k = 0; k < BN_KIND_COUNT; ++k)
        for (size_t i = 0; i < COUNT(kParts); ++i)
            for (size_t j = 0; j < COUNT(kElems); ++j)
                check_stats(kParts[i], kElems[j], (bn_kind)k, &r);
}

/* The handler reads a few partitions at a time and runs each slice with
 * the one weight table: any split of the rows gives the same bits. */
static void test_stats_split_rows(void **state) {
    (void)state;
    enum { P = 37, N = 515 };
    float *x = alloc_f(P * N), *w = alloc_f(bn_stats_weights_len(N)), whole[P * 6], split[P * 6];
    bn_rng r = {7};
    bn_fill(x, P, N, BN_KIND_RANDOM, &r);
    bn_stats_whole(x, P, N, whole);
    bn_stats_weights(N, w);
    static const size_t cuts[] = {0, 1, 4, 12, 13, 29, P};
    bn_isa isas[2];
    const size_t nisa = bn_test_isas(isas);
    for (size_t j = 0; j < nisa; ++j) {
        for (size_t i = 0; i + 1 < COUNT(cuts); ++i)
            bn_stats_f32_isa(isas[j], x + cuts[i] * N, cuts[i + 1] - cuts[i], N, w,
                             split + cuts[i] * 6);
        assert_same_bits(split, whole, P * 6, bn_isa_name(isas[j]));
    }
    free(x), free(w);
}

/* Rows of the benchmark length and one less (odd). */
static void test_stats_long_rows(void **state) {
    (void)state;
    bn_rng r = {2};
    for (int k = 0; k < BN_KIND_COUNT; ++k) {
        check_stats(BN_BLOCK + 3, 16384, (bn_kind)k, &r);
        check_stats(5, 16383, (bn_kind)k, &r);
    }
}

static void check_transpose(size_t P, size_t N, bn_kind k, bn_rng *r) {
    float *x = alloc_f(P * N), *t = alloc_f(P * N), *tref = alloc_f(P * N);
    float *fast = alloc_f(P * 6), *ref = alloc_f(P * 6);
    bn_fill(x, P, N, k, r);
    assert_true(bn_tile_transpose_ok(P, N));
    bn_tile_transpose_f32(x, P, N, t);
    oracle_tile_transpose(x, P, N, tref);
    char what[96];
    snprintf(what, sizeof what, "tile transpose P=%zu N=%zu %s", P, N, bn_kind_name(k));
    assert_same_bits(t, tref, P * N, what);
    oracle_bn_stats(x, P, N, 1, ref);
    bn_isa isas[2];
    const size_t nisa = bn_test_isas(isas);
    for (size_t i = 0; i < nisa; ++i) {
        bn_stats_whole_isa(isas[i], t, P, N, fast);
        snprintf(what, sizeof what, "BNStats[%s] transposed P=%zu N=%zu %s", bn_isa_name(isas[i]),
                 P, N, bn_kind_name(k));
        assert_same_bits(fast, ref, P * 6, what);
    }
    free(x), free(t), free(tref), free(fast), free(ref);
}

static void test_transpose_matches_oracle(void **state) {
    (void)state;
    static const size_t parts[] = {32, 64, 128}, elems[] = {32, 64, 96, 160};
    bn_rng r = {3};
    for (int k = 0; k < BN_KIND_COUNT; ++k) {
        for (size_t i = 0; i < COUNT(parts); ++i)
            for (size_t j = 0; j < COUNT(elems); ++j)
                check_transpose(parts[i], elems[j], (bn_kind)k, &r);
        for (size_t i = 0; i < COUNT(kParts); ++i)
            check_transpose(kParts[i], 1, (bn_kind)k, &r); /* plain copy */
    }
}

/* The 32x32 tile swap moves exactly (p, e) -> ((p&~31)|(e&31), (e&~31)|(p&31)):
 * checked on the element values p*1000+e, independently of the oracle. */
static void test_transpose_known_positions(void **state) {
    (void)state;
    const size_t P = 64, N = 96;
    float *x = alloc_f(P * N), *t = alloc_f(P * N);
    for (size_t p = 0; p < P; ++p)
        for (size_t e = 0; e < N; ++e) x[p * N + e] = (float)(p * 1000 + e);
    bn_tile_transpose_f32(x, P, N, t);
    assert_true(t[0 * N + 1] == 1000.0f);           /* (1, 0) -> (0, 1) */
    assert_true(t[5 * N + 33] == 1 * 1000.0f + 37); /* (1, 37) -> (5, 33) */
    assert_true(t[63 * N + 95] == 63 * 1000.0f + 95);
    assert_true(t[32 * N + 64] == 32 * 1000.0f + 64);
    assert_true(t[33 * N + 64] == 32 * 1000.0f + 65); /* (32, 65) -> (33, 64) */
    /* An involution: applying it twice gives the input back. */
    float *back = alloc_f(P * N);
    bn_tile_transpose_f32(t, P, N, back);
    assert_same_bits(back, x, P * N, "transpose twice");
    free(x), free(t), free(back);
}

static void test_transpose_shape_rule(void **state) {
    (void)state;
    assert_true(bn_tile_transpose_ok(128, 1));
    assert_true(bn_tile_transpose_ok(7, 1));
    assert_true(bn_tile_transpose_ok(32, 32));
    assert_true(bn_tile_transpose_ok(128, 16384));
    assert_false(bn_tile_transpose_ok(128, 48));
    assert_false(bn_tile_transpose_ok(16, 32));
    assert_false(bn_tile_transpose_ok(128, 2));
}

/* Triples as BNStats of K tiles would emit them, and raw random triples
 * (counts including 0, NaN/Inf where the kind has them). */
static void fill_triples(float *in, size_t P, size_t e, bn_kind k, bn_rng *r, int raw) {
    if (!raw) {
        const size_t tiles = e / 6, N = 1 + bn_rng_next(r) % 37;
        float *x = alloc_f(P * N), *st = alloc_f(P * 6);
        for (size_t t = 0; t < tiles; ++t) {
            bn_fill(x, P, N, k, r);
            oracle_bn_stats(x, P, N, 0, st);
            for (size_t p = 0; p < P; ++p)
                for (size_t q = 0; q < 6; ++q) in[p * e + 6 * t + q] = st[p * 6 + q];
        }
        free(x), free(st);
        return;
    }
    bn_fill(in, P, e, k, r);
    for (size_t i = 0; i < P * e; i += 3) {
        in[i] = (float)(bn_rng_next(r) % 9); /* counts 0..8 */
        in[i + 2] = fabsf(in[i + 2]);        /* M2 >= 0 (NaN stays NaN) */
    }
}

static void check_aggregate(size_t P, size_t e, bn_kind k, bn_rng *r, int raw) {
    float *in = alloc_f(P * e), *fast = alloc_f(P * 2), *ref = alloc_f(P * 2);
    fill_triples(in, P, e, k, r, raw);
    bn_aggregate_f32(in, P, e, fast);
    oracle_bn_aggregate(in, P, e, ref);
    char what[96];
    snprintf(what, sizeof what, "BNStatsAggregate P=%zu e=%zu %s raw=%d", P, e, bn_kind_name(k),
             raw);
    assert_same_bits(fast, ref, P * 2, what);
    free(in), free(fast), free(ref);
}

static void test_aggregate_matches_oracle(void **state) {
    (void)state;
    static const size_t es[] = {6, 12, 18, 60, 600};
    bn_rng r = {4};
    for (int k = 0; k < BN_KIND_COUNT; ++k)
        for (size_t i = 0; i < COUNT(kParts); ++i)
            for (size_t j = 0; j < COUNT(es); ++j)
                for (int raw = 0; raw < 2; ++raw)
                    check_aggregate(kParts[i], es[j], (bn_kind)k, &r, raw);
}

static void check_gradients(size_t P, size_t N, bn_kind k, bn_rng *r) {
    float *x = alloc_f(P * N), *dy = alloc_f(P * N), *m = alloc_f(P), *vf = alloc_f(P);
    float *fast = alloc_f(P * 3), *ref = alloc_f(P * 3);
    bn_fill(x, P, N, k, r);
    bn_fill(dy, P, N, k == BN_KIND_CONSTANT ? BN_KIND_RANDOM : k, r);
    bn_fill(m, P, 1, k, r);
    bn_fill(vf, P, 1, BN_KIND_RANDOM, r);
    bn_gradients_f32(x, dy, m, vf, P, N, fast);
    oracle_bn_gradients(x, dy, m, vf, P, N, ref);
    char what[96];
    snprintf(what, sizeof what, "BNGradients P=%zu N=%zu %s", P, N, bn_kind_name(k));
    assert_same_bits(fast, ref, P * 3, what);
    free(x), free(dy), free(m), free(vf), free(fast), free(ref);
}

static void test_gradients_matches_oracle(void **state) {
    (void)state;
    bn_rng r = {5};
    for (int k = 0; k < BN_KIND_COUNT; ++k) {
        for (size_t i = 0; i < COUNT(kParts); ++i)
            for (size_t j = 0; j < COUNT(kElems); ++j)
                check_gradients(kParts[i], kElems[j], (bn_kind)k, &r);
        check_gradients(BN_BLOCK + 1, 16385, (bn_kind)k, &r);
    }
}

static void check_backprop(size_t P, size_t N, bn_kind k, bn_rng *r) {
    float *x = alloc_f(P * N), *dy = alloc_f(P * N), *c = alloc_f(4 * P);
    float *fast = alloc_f(P * N), *ref = alloc_f(P * N);
    bn_fill(x, P, N, k, r);
    bn_fill(dy, P, N, k == BN_KIND_CONSTANT ? BN_KIND_RANDOM : k, r);
    bn_fill(c, 4, P, k == BN_KIND_SUBNORMAL ? BN_KIND_SUBNORMAL : BN_KIND_RANDOM, r);
    const float total = (float)N;
    const float *m = c, *a = c + P, *bc = c + 2 * P, *s = c + 3 * P;
    bn_backprop_f32(x, dy, m, a, bc, s, total, P, N, fast);
    for (size_t p = 0; p < P; ++p)
        for (size_t i = 0; i < N; ++i)
            ref[p * N + i] = oracle_bn_backprop_elem(x[p * N + i], dy[p * N + i], m[p], a[p], bc[p],
                                                     s[p], total);
    char what[96];
    snprintf(what, sizeof what, "BNBackprop P=%zu N=%zu %s", P, N, bn_kind_name(k));
    assert_same_bits(fast, ref, P * N, what);
    free(x), free(dy), free(c), free(fast), free(ref);
}

static void test_backprop_matches_oracle(void **state) {
    (void)state;
    bn_rng r = {6};
    for (int k = 0; k < BN_KIND_COUNT; ++k)
        for (size_t i = 0; i < COUNT(kParts); ++i)
            for (size_t j = 0; j < COUNT(kElems); ++j)
                check_backprop(kParts[i], kElems[j], (bn_kind)k, &r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_matches_oracle),
        cmocka_unit_test(test_stats_long_rows),
        cmocka_unit_test(test_stats_split_rows),
        cmocka_unit_test(test_transpose_matches_oracle),
        cmocka_unit_test(test_transpose_known_positions),
        cmocka_unit_test(test_transpose_shape_rule),
        cmocka_unit_test(test_aggregate_matches_oracle),
        cmocka_unit_test(test_gradients_matches_oracle),
        cmocka_unit_test(test_backprop_matches_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
