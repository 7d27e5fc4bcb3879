/* float16: narrow equals the compiler's (_Float16)x (cc_f16.h) for non-NaN fp32
 * (a dense stride here; every pattern in arith_exhaustive), NaN gives
 * 0x7e00 with the sign, widen is exact for all 65536 codes, and the span
 * forms give the element forms' bits. */
#include "cc_f16.h"

static void check_narrow(uint32_t u) {
    float v = bitsf(u);
    uint16_t got = trn_f32_to_f16(v);
    uint16_t want = isnan(v) ? (uint16_t)(0x7e00u | ((u >> 16) & 0x8000u)) : cc_f16(v);
    if (got != want) fail_msg("f32 %08x -> %04x, expected %04x", u, got, want);
}

/* The knees of the encoder and their neighbours. */
static void test_narrow_knees(void **state) {
    (void)state;
    static const uint32_t pts[] = {
        0x00000000, 0x00000001, 0x007fffff, 0x00800000, /* zero, fp32 subnormals -> 0 */
        0x33000000, 0x33000001, 0x32ffffff, /* 2^-25: half the smallest subnormal (tie -> 0) */
        0x33400000, 0x33c00000,             /* 1.5 and 3 * 2^-25: ties to 2 * 2^-24 */
        0x387fc000, 0x387fe000, 0x387fefff, 0x387ff000, 0x387fffff, /* up to the normal knee */
        0x38800000, 0x38800001, 0x38801000, 0x38803000,             /* min normal and ties above */
        0x3f800000, 0x3f801000, 0x3f803000, 0x3f800fff,             /* 1.0 and its ties */
        0x477fe000, 0x477fefff, 0x477ff000, 0x477ff001, 0x477fffff, 0x47800000, /* 65504 .. 65536 */
        0x7f7fffff, 0x7f800000, 0x7f800001, 0x7fc00000, 0x7fffffff,
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        check_narrow(pts[i]);
        check_narrow(pts[i] | 0x80000000u);
    }
    /* Known answers, independent of the compiler. */
    assert_int_equal(trn_f32_to_f16(65504.0f), 0x7bff);
    assert_int_equal(trn_f32_to_f16(65519.996f), 0x7bff);
    assert_int_equal(trn_f32_to_f16(65520.0f), 0x7c00); /* max + half ulp: tie to even = Inf */
    assert_int_equal(trn_f32_to_f16(-1e9f), 0xfc00);
    assert_int_equal(trn_f32_to_f16(0x1p-24f), 0x0001);
    assert_int_equal(trn_f32_to_f16(0x1p-25f), 0x0000); /* tie: 0 is even */
    assert_int_equal(trn_f32_to_f16(0x1.8p-24f), 0x0002);
    assert_int_equal(trn_f32_to_f16(-0.0f), 0x8000);
    assert_int_equal(trn_f32_to_f16(bitsf(0xffc00000u)), 0xfe00); /* NaN keeps its sign */
    assert_int_equal(trn_f32_to_f16(bitsf(0x7f800001u)), 0x7e00);
}

/* A stride over all patterns, all signs and exponents: every 61st (70 M)
 * when the CPU converts with F16C, every 251st (17 M) on the soft-float
 * path, which is ~60x slower. */
static void test_narrow_dense(void **state) {
    (void)state;
    uint32_t stride = cc_f16_have_hw() ? 61 : 251;
    for (uint64_t u = 0; u <= 0xffffffffu; u += stride) check_narrow((uint32_t)u);
}

/* A stride over the exponents where fp16 has something to round (|v| in
 * [2^-26, 2^17): subnormals, normals and overflow), one sign; odd, so every
 * residue of the rounded-off bits comes up. */
static void test_narrow_active_range(void **state) {
    (void)state;
    uint32_t stride = cc_f16_have_hw() ? 7 : 31;
    for (uint32_t u = 0x32800000u; u < 0x48000000u; u += stride) check_narrow(u);
}

/* The two forms of the compiler's conversion agree (when F16C exists). */
static void test_reference_forms_agree(void **state) {
    (void)state;
    if (!cc_f16_have_hw()) skip();
    for (uint64_t u = 0; u <= 0xffffffffu; u += 4093) {
        float v = bitsf((uint32_t)u);
        if (!isnan(v)) assert_int_equal(cc_f16_hw(v), cc_f16_soft(v));
    }
}

static void test_widen_all(void **state) {
    (void)state;
    for (uint32_t c = 0; c < 0x10000; c++) {
        uint32_t got = fbits(trn_f16_to_f32((uint16_t)c));
        uint32_t want;
        if ((c & 0x7c00) == 0x7c00 && (c & 0x3ff)) {
            /* NaN: the compiler's extend quiets it; the reference's rebase
             * keeps the payload as it is (shifted by 13). */
            want = ((c & 0x8000u) << 16) | 0x7f800000u | ((c & 0x3ffu) << 13);
        } else {
            want = fbits(cc_f16_to_f32((uint16_t)c));
        }
        if (got != want) fail_msg("f16 %04x -> %08x, expected %08x", c, got, want);
        /* and back: narrowing a widened non-NaN code is the identity */
        if (!isnan(bitsf(got))) assert_int_equal(trn_f32_to_f16(bitsf(got)), c);
    }
    assert_f32_bits(trn_f16_to_f32(0x0001), 0x1p-24f);
    assert_f32_bits(trn_f16_to_f32(0x8000), -0.0f);
    assert_f32_bits(trn_f16_to_f32(0x3c00), 1.0f);
    assert_f32_bits(trn_f16_to_f32(0x7bff), 65504.0f);
    assert_int_equal(fbits(trn_f16_to_f32(0xfc00)), 0xff800000u);
}

static void test_spans(void **state) {
    (void)state;
    enum { N = 4096 };
    static uint16_t codes[N], out16[N];
    static float f[N], back[N];
    /* widen: all 65536 codes in blocks, against the element function */
    for (uint32_t base = 0; base < 0x10000; base += N) {
        for (uint32_t i = 0; i < N; i++) codes[i] = (uint16_t)(base + i);
        trn_widen_span(TRN_DT_FP16, codes, f, N);
        for (uint32_t i = 0; i < N; i++)
            assert_int_equal(fbits(f[i]), fbits(trn_f16_to_f32(codes[i])));
    }
    /* narrow: a stride over all patterns, odd lengths and an unaligned dst */
    static unsigned char raw[2 * N + 1];
    uint64_t u = 0;
    while (u <= 0xffffffffu) {
        size_t n = N - 3;
        for (size_t i = 0; i < n; i++, u += 1021) f[i] = bitsf((uint32_t)u);
        trn_narrow_span(TRN_DT_FP16, f, raw + 1, n);
        memcpy(out16, raw + 1, n * 2);
        for (size_t i = 0; i < n; i++)
            if (out16[i] != trn_f32_to_f16(f[i]))
                fail_msg("span f32 %08x -> %04x, element %04x", fbits(f[i]), out16[i],
                         trn_f32_to_f16(f[i]));
    }
    /* the element narrow is the inverse of the span widen on finite codes */
    trn_widen_span(TRN_DT_FP16, codes, back, N);
    for (uint32_t i = 0; i < N; i++)
        if (!isnan(back[i])) assert_int_equal(trn_f32_to_f16(back[i]), codes[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narrow_knees),        cmocka_unit_test(test_narrow_dense),
        cmocka_unit_test(test_narrow_active_range), cmocka_unit_test(test_reference_forms_agree),
        cmocka_unit_test(test_widen_all),           cmocka_unit_test(test_spans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
