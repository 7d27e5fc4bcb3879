/* Evaluation order is part of the result. For inputs these tests build (the
 * seeded generator of bn_testdata.c, the same streams every run), each test
 * computes a plausible alternative (a fused multiply-add where the reference has
 * a product then a sum, the textbook Welford form, a reordered sum) and
 * asserts that it changes bits the oracle produces, while the kernel
 * reproduces the oracle's bits. This is why the build uses
 * -ffp-contract=off and why the kernels never reassociate. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "bn_kernels.h"
#include "bn_oracle.h"
#include "bn_testdata.h"

enum { P = 16, N = 4096 };

/* A variant of the BNStats row loop with one expression changed. */
typedef enum stats_variant { FMA_MEAN, FMA_M2, CANONICAL_WELFORD } stats_variant;

static void stats_row_variant(const float *in, size_t n_elems, stats_variant v, float *out) {
    out[0] = (float)((n_elems + 1) >> 1);
    out[3] = (float)(n_elems >> 1);
    out[1] = out[2] = out[4] = out[5] = 0.0f;
    float n = 0.0f;
    for (size_t i = 0; i < n_elems; ++i) {
        const int L = i & 1;
        if (L == 0) n += 1.0f;
        const float x = in[i], r = 1.0f / n, oldMean = out[3 * L + 1];
        float newMean;
        if (v == FMA_MEAN)
            newMean = fmaf(1.0f - r, oldMean, r * x);
        else if (v == CANONICAL_WELFORD)
            newMean = oldMean + (x - oldMean) / n;
        else
            newMean = (1.0f - r) * oldMean + r * x;
        out[3 * L + 1] = newMean;
        if (v == FMA_M2)
            out[3 * L + 2] = fmaf(x - newMean, x - oldMean, out[3 * L + 2]);
        else
            out[3 * L + 2] += (x - newMean) * (x - oldMean);
    }
}

/* Elements where a and b differ in bits. */
static size_t count_diffs(const float *a, const float *b, size_t n) {
    size_t d = 0;
    for (size_t i = 0; i < n; ++i) d += bn_bits(a[i]) != bn_bits(b[i]);
    return d;
}

/* Returns how many of the P*6 stats the variant changes. */
static size_t stats_variant_diffs(stats_variant v, bn_kind kind) {
    float *x = malloc(sizeof(float) * P * N);
    float fast[P * 6], ref[P * 6], alt[P * 6];
    bn_rng r = {100 + (uint64_t)kind};
    bn_fill(x, P, N, kind, &r);
    bn_stats_whole(x, P, N, fast);
    oracle_bn_stats(x, P, N, 0, ref);
    for (size_t p = 0; p < P; ++p) stats_row_variant(x + p * N, N, v, alt + 6 * p);
    assert_same_bits(fast, ref, P * 6, "kernel vs oracle");
    const size_t d = count_diffs(alt, ref, P * 6);
    print_message("variant %d on %s: %zu of %d stats differ from the oracle\n", (int)v,
                  bn_kind_name(kind), d, P * 6);
    free(x);
    return d;
}

static void test_stats_fma_mean_changes_bits(void **state) {
    (void)state;
    assert_true(stats_variant_diffs(FMA_MEAN, BN_KIND_RANDOM) > 0);
    assert_true(stats_variant_diffs(FMA_MEAN, BN_KIND_HUGE) > 0);
}

static void test_stats_fma_m2_changes_bits(void **state) {
    (void)state;
    assert_true(stats_variant_diffs(FMA_M2, BN_KIND_RANDOM) > 0);
    /* Not on 1e6 + noise: there x, the means and so both deviations are
     * multiples of 2^-4 below 4, their product is exact and fusing cannot
     * change it. (The mean update above does change there.) */
    assert_int_equal(stats_variant_diffs(FMA_M2, BN_KIND_HUGE), 0);
}

/* The reference's comment calls its form "= oldMean + (x-oldMean)/n": equal in
 * real arithmetic, not in fp32. */
static void test_stats_canonical_welford_changes_bits(void **state) {
    (void)state;
    assert_true(stats_variant_diffs(CANONICAL_WELFORD, BN_KIND_RANDOM) > 0);
}

/* Aggregate with the cross term fused into the sum. */
static void test_aggregate_fma_changes_bits(void **state) {
    (void)state;
    enum { TILES = 16, T = 257 };
    float *x = malloc(sizeof(float) * P * T);
    float in[P * 6 * TILES], st[P * 6], fast[P * 2], ref[P * 2], alt[P * 2];
    bn_rng r = {200};
    for (size_t t = 0; t < TILES; ++t) {
        bn_fill(x, P, T, BN_KIND_RANDOM, &r);
        oracle_bn_stats(x, P, T, 0, st);
        for (size_t p = 0; p < P; ++p)
            for (size_t q = 0; q < 6; ++q) in[p * 6 * TILES + 6 * t + q] = st[6 * p + q];
    }
    bn_aggregate_f32(in, P, 6 * TILES, fast);
    oracle_bn_aggregate(in, P, 6 * TILES, ref);
    assert_same_bits(fast, ref, P * 2, "kernel vs oracle");
    for (size_t p = 0; p < P; ++p) {
        const float *tr = in + p * 6 * TILES;
        float n_acc = 0.0f, mean_acc = 0.0f, var_acc = 0.0f;
        for (size_t j = 0; j < 6 * TILES; j += 3) {
            const float n_t = tr[j], mean_t = tr[j + 1], M2_t = tr[j + 2];
            const float Nn = n_t + n_acc, rr = 1.0f / Nn, delta = mean_acc - mean_t;
            mean_acc = fmaf(mean_acc, n_acc, n_t * mean_t) * rr;
            var_acc = fmaf(fmaf(var_acc, n_acc, M2_t), rr, n_t * n_acc * delta * delta * rr * rr);
            n_acc += n_t;
        }
        alt[2 * p] = mean_acc;
        alt[2 * p + 1] = var_acc;
    }
    print_message("fused aggregate: %zu of %d results differ\n", count_diffs(alt, ref, P * 2),
                  P * 2);
    assert_true(count_diffs(alt, ref, P * 2) > 0);
    free(x);
}

/* BNGradients: the sums are naive and in index order. Summing the same
 * terms pairwise (what numpy's np.sum does) or fusing t*vf into the sum
 * changes bits. */
static float pairwise(const float *v, size_t n) {
    if (n <= 8) {
        float s = 0.0f;
        for (size_t i = 0; i < n; ++i) s += v[i];
        return s;
    }
    return pairwise(v, n / 2) + pairwise(v + n / 2, n - n / 2);
}

static void test_gradients_reorder_changes_bits(void **state) {
    (void)state;
    float *x = malloc(sizeof(float) * P * N), *dy = malloc(sizeof(float) * P * N),
          *t = malloc(sizeof(float) * N);
    float m[P], vf[P], fast[P * 3], ref[P * 3], pair[P * 3], fused[P * 3];
    bn_rng r = {300};
    bn_fill(x, P, N, BN_KIND_RANDOM, &r);
    bn_fill(dy, P, N, BN_KIND_RANDOM, &r);
    bn_fill(m, P, 1, BN_KIND_RANDOM, &r);
    bn_fill(vf, P, 1, BN_KIND_RANDOM, &r);
    bn_gradients_f32(x, dy, m, vf, P, N, fast);
    oracle_bn_gradients(x, dy, m, vf, P, N, ref);
    assert_same_bits(fast, ref, P * 3, "kernel vs oracle");
    for (size_t p = 0; p < P; ++p) {
        const float *xp = x + p * N, *dp = dy + p * N;
        float s1 = 0.0f;
        for (size_t i = 0; i < N; ++i) {
            t[i] = (xp[i] - m[p]) * dp[i] * vf[p];
            s1 = fmaf(t[i], vf[p], s1);
        }
        pair[3 * p] = pairwise(dp, N);
        pair[3 * p + 2] = pairwise(t, N);
        pair[3 * p + 1] = ref[3 * p + 1];
        fused[3 * p] = ref[3 * p], fused[3 * p + 2] = ref[3 * p + 2];
        fused[3 * p + 1] = s1;
    }
    print_message("pairwise sums: %zu, fused t*vf: %zu of %d results differ\n",
                  count_diffs(pair, ref, P * 3), count_diffs(fused, ref, P * 3), P * 3);
    assert_true(count_diffs(pair, ref, P * 3) > 0);
    assert_true(count_diffs(fused, ref, P * 3) > 0);
    free(x), free(dy), free(t);
}

/* BNBackprop with (x-m)*Bc + A fused. */
static void test_backprop_fma_changes_bits(void **state) {
    (void)state;
    float *x = malloc(sizeof(float) * P * N), *dy = malloc(sizeof(float) * P * N);
    float *dx = malloc(sizeof(float) * P * N), *ref = malloc(sizeof(float) * P * N),
          *alt = malloc(sizeof(float) * P * N);
    float c[4 * P];
    bn_rng r = {400};
    bn_fill(x, P, N, BN_KIND_RANDOM, &r);
    bn_fill(dy, P, N, BN_KIND_RANDOM, &r);
    bn_fill(c, 4, P, BN_KIND_RANDOM, &r);
    const float *m = c, *a = c + P, *bc = c + 2 * P, *s = c + 3 * P, total = (float)N;
    bn_backprop_f32(x, dy, m, a, bc, s, total, P, N, dx);
    for (size_t p = 0; p < P; ++p)
        for (size_t i = 0; i < N; ++i) {
            const size_t k = p * N + i;
            ref[k] = oracle_bn_backprop_elem(x[k], dy[k], m[p], a[p], bc[p], s[p], total);
            alt[k] = (dy[k] * total - fmaf(x[k] - m[p], bc[p], a[p])) * s[p];
        }
    assert_same_bits(dx, ref, P * N, "kernel vs oracle");
    print_message("fused backprop: %zu of %d elements differ\n", count_diffs(alt, ref, P * N),
                  P * N);
    assert_true(count_diffs(alt, ref, P * N) > 0);
    free(x), free(dy), free(dx), free(ref), free(alt);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_fma_mean_changes_bits),
        cmocka_unit_test(test_stats_fma_m2_changes_bits),
        cmocka_unit_test(test_stats_canonical_welford_changes_bits),
        cmocka_unit_test(test_aggregate_fma_changes_bits),
        cmocka_unit_test(test_gradients_reorder_changes_bits),
        cmocka_unit_test(test_backprop_fma_changes_bits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
