/* Known answers computed by hand, the quirks the reference names, and the test
 * helpers themselves. Each expected value is exact in fp32 (the inputs are
 * chosen so that every r = 1/n is a power of two). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "bn_kernels.h"
#include "bn_oracle.h"
#include "bn_testdata.h"

static void assert_floats(const float *got, const float *want, size_t n, const char *what) {
    assert_same_bits(got, want, n, what);
}

/* [1,2,3,4]: lane A {1,3}, lane B {2,4}.
 * A: n=1 mean=1 M2=0; n=2 r=.5 mean=.5*1+.5*3=2, M2+=(3-2)*(3-1)=2. B likewise
 * from 2 and 4: mean 3, M2 2. */
static void test_stats_hand(void **state) {
    (void)state;
    const float x[4] = {1, 2, 3, 4}, want[6] = {2, 2, 2, 2, 3, 2};
    float got[6];
    bn_stats_whole(x, 1, 4, got);
    assert_floats(got, want, 6, "BNStats [1,2,3,4]");
}

/* QUIRK bn.seeded_lane_counts: the count fields are ceil(N/2) and floor(N/2),
 * not the running count; N = 1 gives an empty lane B (count 0, mean 0). */
static void test_stats_lane_counts(void **state) {
    (void)state;
    const float x[5] = {1, 2, 3, 4, 5};
    float got[6];
    bn_stats_whole(x, 1, 5, got);
    assert_true(got[0] == 3.0f && got[3] == 2.0f);
    assert_true(got[4] == 3.0f && got[5] == 2.0f); /* lane B = {2, 4} */
    const float one[1] = {-7.5f}, want1[6] = {1, -7.5f, 0, 0, 0, 0};
    bn_stats_whole(one, 1, 1, got);
    assert_floats(got, want1, 6, "BNStats N=1");
    const float two[2] = {5, 7}, want2[6] = {1, 5, 0, 1, 7, 0};
    bn_stats_whole(two, 1, 2, got);
    assert_floats(got, want2, 6, "BNStats N=2");
}

/* QUIRK bn.shared_welford_count. The reference's prose says the shared n
 * increments "when lane B is processed"; its code increments it before lane
 * A's element (`if (L == 0) n += 1.0f`). The code wins: with the prose
 * order lane A's first element would see n = 0, r = +Inf and a NaN mean. */
static void test_shared_count_code_wins(void **state) {
    (void)state;
    const float x[2] = {5, 7};
    float got[6];
    bn_stats_whole(x, 1, 2, got);
    assert_true(got[1] == 5.0f);
    /* The prose order, computed here: lane A's first step at n = 0. */
    const float n = 0.0f, r = 1.0f / n, old = 0.0f;
    const float prose_mean = (1.0f - r) * old + r * x[0];
    assert_true(isnan(prose_mean));
}

/* Because n counts pairs and grows before lane A, the k-th element of either
 * lane sees n = k + 1: each lane is exactly a textbook Welford over its own
 * elements with its own count. Checked bit for bit on random data. */
static void test_shared_count_is_per_lane_count(void **state) {
    (void)state;
    enum { N = 1001 };
    float x[N], got[6];
    bn_rng rng = {11};
    bn_fill(x, 1, N, BN_KIND_RANDOM, &rng);
    bn_stats_whole(x, 1, N, got);
    for (int lane = 0; lane < 2; ++lane) {
        float mean = 0.0f, m2 = 0.0f, cnt = 0.0f;
        for (int i = lane; i < N; i += 2) {
            cnt += 1.0f;
            const float r = 1.0f / cnt, old = mean;
            mean = (1.0f - r) * old + r * x[i];
            m2 += (x[i] - mean) * (x[i] - old);
        }
        assert_true(bn_bits(got[3 * lane + 1]) == bn_bits(mean));
        assert_true(bn_bits(got[3 * lane + 2]) == bn_bits(m2));
        assert_true(got[3 * lane] == cnt);
    }
}

/* Stats of [1,2,3,4] = (2,2,2),(2,3,2). Merge 1: N=2 r=.5 delta=-2,
 * mean=(0+2*2)*.5=2, var=(0+2)*.5+0=1. Merge 2: N=4 r=.25 delta=-1,
 * mean=(2*2+2*3)*.25=2.5, var=(1*2+2)*.25 + 2*2*1*1*.25*.25 = 1.25: the
 * POPULATION variance of 1..4 (sum of squares 5 over N=4, not N-1). */
static void test_aggregate_hand(void **state) {
    (void)state;
    const float in[6] = {2, 2, 2, 2, 3, 2}, want[2] = {2.5f, 1.25f};
    float got[2];
    bn_aggregate_f32(in, 1, 6, got);
    assert_floats(got, want, 2, "BNStatsAggregate of [1,2,3,4]");
}

/* QUIRK bn.aggregate_zero_count_nan: nothing guards a zero count. The first
 * triple with n = 0 meets an empty accumulator: N = 0, r = 1/0 = +Inf, and
 * mean = (0*0 + 0*mean_t) * Inf = NaN, var likewise; NaN then stays. A zero
 * triple after a non-empty one no longer divides by zero (N = n_acc) but is
 * not ignored: its M2 is added, an infinite mean gives NaN, and even
 * (0, 0, 0) can re-round the mean. */
static void test_aggregate_zero_counts(void **state) {
    (void)state;
    const float first_empty[6] = {0, 5, 0, 2, 1, 1};
    float got[2];
    bn_aggregate_f32(first_empty, 1, 6, got);
    assert_true(isnan(got[0]) && isnan(got[1]));
    const float all_empty[6] = {0, 0, 0, 0, 0, 0};
    bn_aggregate_f32(all_empty, 1, 6, got);
    assert_true(isnan(got[0]) && isnan(got[1]));
    /* (2,1,1) then (0,5,0): N=2 r=.5 mean=(1*2+0*5)*.5=1,
     * var=(.5*2+0)*.5 + 0*2*16*.25*.25 = .5. */
    const float last_empty[6] = {2, 1, 1, 0, 5, 0}, want[2] = {1.0f, 0.5f};
    bn_aggregate_f32(last_empty, 1, 6, got);
    assert_floats(got, want, 2, "aggregate, zero count last");
    /* An N = 1 BNStats record has lane B = (0, 0, 0) after lane A. */
    const float x1[1] = {3.25f};
    float st[6];
    bn_stats_whole(x1, 1, 1, st);
    bn_aggregate_f32(st, 1, 6, got);
    const float want1[2] = {3.25f, 0.0f};
    assert_floats(got, want1, 2, "aggregate of N=1 stats");
    /* A zero count after a non-empty accumulator still adds its M2 (the
     * merge does not look at n_t): (2,1,1) then (0,5,7) gives
     * var = (.5*2 + 7)*.5 + 0 = 4, not .5. And an infinite mean with a zero
     * count gives 0*Inf = NaN: (2,1,1) then (0,Inf,0) -> NaN, NaN. */
    const float zero_m2[6] = {2, 1, 1, 0, 5, 7}, want_m2[2] = {1.0f, 4.0f};
    bn_aggregate_f32(zero_m2, 1, 6, got);
    assert_floats(got, want_m2, 2, "aggregate, zero count with M2 != 0");
    const float zero_inf[6] = {2, 1, 1, 0, INFINITY, 0};
    bn_aggregate_f32(zero_inf, 1, 6, got);
    assert_true(isnan(got[0]) && isnan(got[1]));
    float ref[2];
    oracle_bn_aggregate_row(zero_m2, 6, ref);
    assert_floats(ref, want_m2, 2, "oracle, zero count with M2 != 0");
    oracle_bn_aggregate_row(zero_inf, 6, ref);
    assert_true(isnan(ref[0]) && isnan(ref[1]));
    /* Even (0, 0, 0) re-rounds the mean: mean*7*(1/7) is one ulp above
     * mean for the mean (7, 0.3f, 1) leaves (0x3e99999b -> 0x3e99999c). */
    const float seven[6] = {7, 0.3f, 1, 0, 0, 0};
    bn_aggregate_f32(seven, 1, 3, got);
    assert_int_equal(bn_bits(got[0]), 0x3e99999bu);
    bn_aggregate_f32(seven, 1, 6, got);
    assert_int_equal(bn_bits(got[0]), 0x3e99999cu);
    oracle_bn_aggregate_row(seven, 6, ref);
    assert_int_equal(bn_bits(ref[0]), 0x3e99999cu);
}

/* QUIRK bn.convex_mean_update: the mean update (1-r)*old + r*x and the
 * aggregate's (mean*n_acc + n_t*mean_t)*r are not exact for constant input.
 * 0.1f x3: lanes (2, c, 0), (1, c, 0); the second merge computes
 * (c*2 + 1*c) * (1/3) = one ulp above c. 0.1f x7: lane A's third step
 * leaves M2 = 2^-54 and the variance 0x1.24924ap-57, not 0. */
static void test_constant_input_not_exact(void **state) {
    (void)state;
    const float c = 0.1f;
    float x[7] = {c, c, c, c, c, c, c}, st[6], mv[2], ref[6];
    bn_stats_whole(x, 1, 3, st);
    bn_aggregate_f32(st, 1, 6, mv);
    assert_true(st[1] == c && st[4] == c);
    assert_true(mv[0] == 0x1.99999cp-4f && mv[0] == nextafterf(c, 1.0f));
    assert_true(mv[1] == 0.0f);
    bn_stats_whole(x, 1, 7, st);
    oracle_bn_stats_row(x, 7, ref);
    assert_same_bits(st, ref, 6, "0.1f x7");
    assert_true(st[2] == 0x1p-54f);
    bn_aggregate_f32(st, 1, 6, mv);
    assert_true(mv[1] == 0x1.24924ap-57f);
}

/* x=[1,2,3], dy=[1,1,2], m=2, vf=.5: t = [-.5, 0, 1];
 * out = [sum dy, sum t*vf, sum t] = [4, -.25+0+.5, .5]. */
static void test_gradients_hand(void **state) {
    (void)state;
    const float x[3] = {1, 2, 3}, dy[3] = {1, 1, 2}, m = 2, vf = 0.5f, want[3] = {4, 0.25f, 0.5f};
    float got[3];
    bn_gradients_f32(x, dy, &m, &vf, 1, 3, got);
    assert_floats(got, want, 3, "BNGradients hand");
}

/* dx = (dy*T - ((x-m)*Bc + A)) * s with x=3 dy=1 m=2 A=4 Bc=.25 s=.5 T=3:
 * (3 - (.25 + 4)) * .5 = -.625. */
static void test_backprop_hand(void **state) {
    (void)state;
    const float x = 3, dy = 1, m = 2, a = 4, bc = 0.25f, s = 0.5f;
    float dx;
    bn_backprop_f32(&x, &dy, &m, &a, &bc, &s, 3.0f, 1, 1, &dx);
    assert_true(dx == -0.625f);
}

/* The comparator must catch a one-ulp difference, +0 vs -0, and a NaN
 * against a number, while any NaN matches any NaN. */
static void test_comparator(void **state) {
    (void)state;
    const float a[4] = {1.0f, 0.0f, NAN, bn_from_bits(0x7fc12345u)};
    float b[4];
    memcpy(b, a, sizeof b);
    b[3] = bn_from_bits(0xffc00000u);
    assert_int_equal(bn_first_bit_diff(a, b, 4), 4);
    b[0] = nextafterf(1.0f, 2.0f);
    assert_int_equal(bn_first_bit_diff(a, b, 4), 0);
    b[0] = 1.0f, b[1] = -0.0f;
    assert_int_equal(bn_first_bit_diff(a, b, 4), 1);
    b[1] = 0.0f, b[2] = 0.0f;
    assert_int_equal(bn_first_bit_diff(a, b, 4), 2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stats_hand),
        cmocka_unit_test(test_stats_lane_counts),
        cmocka_unit_test(test_shared_count_code_wins),
        cmocka_unit_test(test_shared_count_is_per_lane_count),
        cmocka_unit_test(test_aggregate_hand),
        cmocka_unit_test(test_aggregate_zero_counts),
        cmocka_unit_test(test_constant_input_not_exact),
        cmocka_unit_test(test_gradients_hand),
        cmocka_unit_test(test_backprop_hand),
        cmocka_unit_test(test_comparator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
