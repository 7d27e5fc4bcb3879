/* bfloat16: the encoder (a transliteration of the reference's guard / lsb /
 * sticky RNE) against an independent reference that picks the nearer of
 * the two bf16 neighbours by exact double distance; NaN -> 0x7fc0 with the
 * sign dropped; widen is a 16-bit shift; spans give the element bits. The
 * sweep over all 2^32 patterns is in arith_exhaustive. */
#include "arith_test_util.h"

/* Independent RNE: the bf16 values below and above |v| (truncation and the
 * next code, whose value is computed in double so that the code past the
 * largest finite one stands for 2^128 and rounding into it is overflow),
 * nearest by |distance|, a tie to the even code. */
static uint16_t ref_bf16(float v) {
    uint32_t u = fbits(v);
    if (isnan(v)) return 0x7fc0;
    uint32_t sign = u & 0x80000000u, mag = u & 0x7fffffffu;
    if (mag == 0x7f800000u) return (uint16_t)((sign | mag) >> 16);
    uint32_t lo = mag & 0xffff0000u;
    int exp = (int)(lo >> 23);
    double ulp = ldexp(1.0, (exp ? exp : 1) - 127 - 7);
    double a = (double)bitsf(mag), vlo = (double)bitsf(lo), vhi = vlo + ulp;
    double dlo = a - vlo, dhi = vhi - a;
    uint32_t pick;
    if (dlo < dhi)
        pick = lo;
    else if (dhi < dlo)
        pick = lo + 0x10000u;
    else
        pick = (lo & 0x10000u) ? lo + 0x10000u : lo;
    return (uint16_t)((sign | pick) >> 16);
}

static void check(uint32_t u) {
    uint16_t got = trn_f32_to_bf16(bitsf(u)), want = ref_bf16(bitsf(u));
    if (got != want) fail_msg("f32 %08x -> bf16 %04x, expected %04x", u, got, want);
}

static void test_known_answers(void **state) {
    (void)state;
    assert_int_equal(trn_f32_to_bf16(1.0f), 0x3f80);
    assert_int_equal(trn_f32_to_bf16(bitsf(0x3f808000u)), 0x3f80); /* tie, even stays */
    assert_int_equal(trn_f32_to_bf16(bitsf(0x3f818000u)), 0x3f82); /* tie, odd goes up */
    assert_int_equal(trn_f32_to_bf16(bitsf(0x3f808001u)), 0x3f81); /* sticky breaks the tie */
    assert_int_equal(trn_f32_to_bf16(bitsf(0x3f807fffu)), 0x3f80);
    assert_int_equal(trn_f32_to_bf16(bitsf(0x7f7fffffu)), 0x7f80); /* overflow only by the carry */
    assert_int_equal(trn_f32_to_bf16(bitsf(0x7f7f7fffu)), 0x7f7f);
    assert_int_equal(trn_f32_to_bf16(bitsf(0xff7f8000u)), 0xff80); /* tie at max, odd -> -Inf */
    assert_int_equal(trn_f32_to_bf16(bitsf(0x007fffffu)),
                     0x0080); /* subnormal carries into exp 1 */
    assert_int_equal(trn_f32_to_bf16(bitsf(0x00008000u)), 0x0000); /* tie at the smallest step */
    assert_int_equal(trn_f32_to_bf16(bitsf(0x00018000u)), 0x0002);
    assert_int_equal(trn_f32_to_bf16(-0.0f), 0x8000);
    assert_int_equal(trn_f32_to_bf16(bitsf(0xff800000u)), 0xff80);
    /* NaN: canonical 0x7fc0, sign and payload dropped */
    assert_int_equal(trn_f32_to_bf16(bitsf(0x7fc00000u)), 0x7fc0);
    assert_int_equal(trn_f32_to_bf16(bitsf(0xffc00000u)), 0x7fc0);
    assert_int_equal(trn_f32_to_bf16(bitsf(0xff800001u)), 0x7fc0);
    assert_int_equal(trn_f32_to_bf16(bitsf(0x7fffffffu)), 0x7fc0);
    /* widen is the high half */
    assert_int_equal(fbits(trn_bf16_to_f32(0x3f81)), 0x3f810000u);
    assert_int_equal(fbits(trn_bf16_to_f32(0xffc1)), 0xffc10000u);
}

/* Every 61st pattern (70 M) plus every pattern whose low 16 bits are near
 * the rounding point, for all high halves. */
static void test_dense(void **state) {
    (void)state;
    for (uint64_t u = 0; u <= 0xffffffffu; u += 61) check((uint32_t)u);
    static const uint32_t lows[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};
    for (uint32_t hi = 0; hi < 0x10000; hi++)
        for (size_t i = 0; i < sizeof lows / sizeof lows[0]; i++) check(hi << 16 | lows[i]);
}

static void test_spans(void **state) {
    (void)state;
    enum { N = 4093 };
    static float f[N];
    static unsigned char raw[2 * N + 1];
    static uint16_t out[N];
    test_rng r = {0x1234567887654321ull};
    for (int round = 0; round < 200; round++) {
        for (size_t i = 0; i < N; i++) f[i] = bitsf(round & 1 ? rng_u32(&r) : rng_f32_bits(&r));
        trn_narrow_span(TRN_DT_BF16, f, raw + 1, N);
        memcpy(out, raw + 1, sizeof out);
        for (size_t i = 0; i < N; i++)
            if (out[i] != trn_f32_to_bf16(f[i]))
                fail_msg("span %08x -> %04x, element %04x", fbits(f[i]), out[i],
                         trn_f32_to_bf16(f[i]));
        static float back[N];
        trn_widen_span(TRN_DT_BF16, raw + 1, back, N);
        for (size_t i = 0; i < N; i++)
            assert_int_equal(fbits(back[i]), fbits(trn_bf16_to_f32(out[i])));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_dense),
        cmocka_unit_test(test_spans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
