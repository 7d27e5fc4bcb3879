/* Integers: widen by the C conversion (exact up to 2^24, RNE above), narrow
 * with NaN -> 0, truncation toward zero and saturation at the range; and
 * trn_cast_span, which keeps integer -> integer casts exact. */
#include "arith_test_util.h"

#include <float.h>
#include <limits.h>

static void narrow_expect_i64(trn_dtype dt, float v, int64_t want) {
    unsigned char buf[8] = {0};
    trn_narrow(dt, v, buf);
    int64_t got = 0;
    switch (dt) {
        case TRN_DT_INT8: {
            int8_t x;
            memcpy(&x, buf, 1);
            got = x;
            break;
        }
        case TRN_DT_INT16: {
            int16_t x;
            memcpy(&x, buf, 2);
            got = x;
            break;
        }
        case TRN_DT_INT32: {
            int32_t x;
            memcpy(&x, buf, 4);
            got = x;
            break;
        }
        case TRN_DT_INT64: {
            memcpy(&got, buf, 8);
            break;
        }
        default: fail();
    }
    if (got != want)
        fail_msg("%s narrow %.9g -> %lld, expected %lld", trn_dtype_name(dt), (double)v,
                 (long long)got, (long long)want);
}

static void narrow_expect_u64(trn_dtype dt, float v, uint64_t want) {
    unsigned char buf[8] = {0};
    trn_narrow(dt, v, buf);
    uint64_t got = 0;
    switch (dt) {
        case TRN_DT_UINT8: {
            uint8_t x;
            memcpy(&x, buf, 1);
            got = x;
            break;
        }
        case TRN_DT_UINT16: {
            uint16_t x;
            memcpy(&x, buf, 2);
            got = x;
            break;
        }
        case TRN_DT_UINT32: {
            uint32_t x;
            memcpy(&x, buf, 4);
            got = x;
            break;
        }
        case TRN_DT_UINT64: {
            memcpy(&got, buf, 8);
            break;
        }
        default: fail();
    }
    if (got != want)
        fail_msg("%s narrow %.9g -> %llu, expected %llu", trn_dtype_name(dt), (double)v,
                 (unsigned long long)got, (unsigned long long)want);
}

static void test_narrow_signed(void **state) {
    (void)state;
    /* truncation toward zero */
    narrow_expect_i64(TRN_DT_INT8, 2.9f, 2);
    narrow_expect_i64(TRN_DT_INT8, -2.9f, -2);
    narrow_expect_i64(TRN_DT_INT8, -0.5f, 0);
    narrow_expect_i64(TRN_DT_INT16, 1234.99f, 1234);
    /* saturation, including just inside / outside the range */
    narrow_expect_i64(TRN_DT_INT8, 127.9f, 127);
    narrow_expect_i64(TRN_DT_INT8, 128.0f, 127);
    narrow_expect_i64(TRN_DT_INT8, -128.9f, -128);
    narrow_expect_i64(TRN_DT_INT8, -129.0f, -128);
    narrow_expect_i64(TRN_DT_INT16, 40000.0f, 32767);
    narrow_expect_i64(TRN_DT_INT16, -40000.0f, -32768);
    narrow_expect_i64(TRN_DT_INT32, 2147483520.0f, 2147483520); /* largest fp32 below 2^31 */
    narrow_expect_i64(TRN_DT_INT32, 2147483648.0f, INT32_MAX);
    narrow_expect_i64(TRN_DT_INT32, -2147483648.0f, INT32_MIN);
    narrow_expect_i64(TRN_DT_INT32, -3e9f, INT32_MIN);
    narrow_expect_i64(TRN_DT_INT64, 0x1p63f, INT64_MAX);
    narrow_expect_i64(TRN_DT_INT64, -0x1p63f, INT64_MIN);
    narrow_expect_i64(TRN_DT_INT64, 0x1.fffffep62f, (int64_t)0x7fffff8000000000LL);
    narrow_expect_i64(TRN_DT_INT64, -FLT_MAX, INT64_MIN);
    /* infinities saturate, NaN is 0 */
    const trn_dtype s[] = {TRN_DT_INT8, TRN_DT_INT16, TRN_DT_INT32, TRN_DT_INT64};
    const int64_t lo[] = {INT8_MIN, INT16_MIN, INT32_MIN, INT64_MIN};
    const int64_t hi[] = {INT8_MAX, INT16_MAX, INT32_MAX, INT64_MAX};
    for (int i = 0; i < 4; i++) {
        narrow_expect_i64(s[i], INFINITY, hi[i]);
        narrow_expect_i64(s[i], -INFINITY, lo[i]);
        narrow_expect_i64(s[i], NAN, 0);
        narrow_expect_i64(s[i], -NAN, 0);
        narrow_expect_i64(s[i], -0.0f, 0);
    }
}

static void test_narrow_unsigned(void **state) {
    (void)state;
    narrow_expect_u64(TRN_DT_UINT8, 255.9f, 255);
    narrow_expect_u64(TRN_DT_UINT8, 256.0f, 255);
    narrow_expect_u64(TRN_DT_UINT8, -0.9f, 0);
    narrow_expect_u64(TRN_DT_UINT8, -1.0f, 0);
    narrow_expect_u64(TRN_DT_UINT16, 65535.5f, 65535);
    narrow_expect_u64(TRN_DT_UINT16, 1e6f, 65535);
    narrow_expect_u64(TRN_DT_UINT32, 4294967040.0f, 4294967040u); /* largest fp32 below 2^32 */
    narrow_expect_u64(TRN_DT_UINT32, 4294967296.0f, UINT32_MAX);
    narrow_expect_u64(TRN_DT_UINT64, 0x1.fffffep63f, 0xffffff0000000000ULL);
    narrow_expect_u64(TRN_DT_UINT64, 0x1p64f, UINT64_MAX);
    const trn_dtype u[] = {TRN_DT_UINT8, TRN_DT_UINT16, TRN_DT_UINT32, TRN_DT_UINT64};
    const uint64_t hi[] = {UINT8_MAX, UINT16_MAX, UINT32_MAX, UINT64_MAX};
    for (int i = 0; i < 4; i++) {
        narrow_expect_u64(u[i], INFINITY, hi[i]);
        narrow_expect_u64(u[i], -INFINITY, 0);
        narrow_expect_u64(u[i], NAN, 0);
        narrow_expect_u64(u[i], -FLT_MAX, 0);
        narrow_expect_u64(u[i], 7.99f, 7);
    }
}

static void test_widen(void **state) {
    (void)state;
    int8_t i8 = -128;
    uint8_t u8 = 255;
    int16_t i16 = -32768;
    uint16_t u16 = 65535;
    int32_t i32 = 16777217;    /* 2^24 + 1: a tie, RNE to 2^24 */
    int32_t i32b = 16777219;   /* 2^24 + 3: a tie, RNE to 2^24 + 4 */
    uint32_t u32 = UINT32_MAX; /* rounds to 2^32 */
    int64_t i64 = INT64_MIN;
    uint64_t u64 = 0x8000008000000000ULL;  /* 2^63 + 2^39: tie, to even 2^63 */
    uint64_t u64b = 0x8000008000000001ULL; /* just above the tie: up */
    assert_f32_bits(trn_widen(TRN_DT_INT8, &i8), -128.0f);
    assert_f32_bits(trn_widen(TRN_DT_UINT8, &u8), 255.0f);
    assert_f32_bits(trn_widen(TRN_DT_INT16, &i16), -32768.0f);
    assert_f32_bits(trn_widen(TRN_DT_UINT16, &u16), 65535.0f);
    assert_f32_bits(trn_widen(TRN_DT_INT32, &i32), 16777216.0f);
    assert_f32_bits(trn_widen(TRN_DT_INT32, &i32b), 16777220.0f);
    assert_f32_bits(trn_widen(TRN_DT_UINT32, &u32), 4294967296.0f);
    assert_f32_bits(trn_widen(TRN_DT_INT64, &i64), -0x1p63f);
    assert_f32_bits(trn_widen(TRN_DT_UINT64, &u64), 0x1p63f);
    assert_f32_bits(trn_widen(TRN_DT_UINT64, &u64b), 0x1.000002p63f);
}

static void test_cast_span(void **state) {
    (void)state;
    trn_error e = {0};
    /* int32 -> int64 is exact (a trip through fp32 would round 2^24 + 1) */
    int32_t a[4] = {16777217, -16777217, INT32_MAX, INT32_MIN};
    int64_t b[4];
    assert_int_equal(trn_cast_span(TRN_DT_INT64, b, TRN_DT_INT32, a, 4, &e), 0);
    assert_int_equal(b[0], 16777217);
    assert_int_equal(b[1], -16777217);
    assert_int_equal(b[2], INT32_MAX);
    assert_int_equal(b[3], INT32_MIN);
    /* int64 -> int16 / uint32 saturate */
    int64_t c[4] = {70000, -70000, -1, INT64_MAX};
    int16_t d[4];
    uint32_t g[4];
    assert_int_equal(trn_cast_span(TRN_DT_INT16, d, TRN_DT_INT64, c, 4, &e), 0);
    assert_int_equal(d[0], 32767);
    assert_int_equal(d[1], -32768);
    assert_int_equal(d[2], -1);
    assert_int_equal(d[3], 32767);
    assert_int_equal(trn_cast_span(TRN_DT_UINT32, g, TRN_DT_INT64, c, 4, &e), 0);
    assert_int_equal(g[0], 70000);
    assert_int_equal(g[1], 0);
    assert_int_equal(g[2], 0);
    assert_int_equal(g[3], UINT32_MAX);
    /* every signed / unsigned width saturates at both ends of its range */
    int64_t wide[4] = {INT64_MAX, INT64_MIN, (int64_t)INT32_MAX + 1, (int64_t)INT32_MIN - 1};
    int32_t i32[4];
    assert_int_equal(trn_cast_span(TRN_DT_INT32, i32, TRN_DT_INT64, wide, 4, &e), 0);
    assert_int_equal(i32[0], INT32_MAX);
    assert_int_equal(i32[1], INT32_MIN);
    assert_int_equal(i32[2], INT32_MAX);
    assert_int_equal(i32[3], INT32_MIN);
    int8_t s8[4];
    uint16_t u16[4];
    uint64_t u64[4];
    assert_int_equal(trn_cast_span(TRN_DT_INT8, s8, TRN_DT_INT64, wide, 4, &e), 0);
    assert_int_equal(s8[0], INT8_MAX);
    assert_int_equal(s8[1], INT8_MIN);
    assert_int_equal(trn_cast_span(TRN_DT_UINT16, u16, TRN_DT_INT64, wide, 4, &e), 0);
    assert_int_equal(u16[0], UINT16_MAX);
    assert_int_equal(u16[1], 0);
    assert_int_equal(trn_cast_span(TRN_DT_UINT64, u64, TRN_DT_INT64, wide, 4, &e), 0);
    assert_int_equal(u64[0], (uint64_t)INT64_MAX);
    assert_int_equal(u64[1], 0);
    assert_int_equal(u64[2], (uint64_t)INT32_MAX + 1);
    /* uint64 above INT64_MAX -> int64 saturates; -> uint8 saturates */
    uint64_t h[2] = {UINT64_MAX, 200};
    int64_t k[2];
    uint8_t m[2];
    assert_int_equal(trn_cast_span(TRN_DT_INT64, k, TRN_DT_UINT64, h, 2, &e), 0);
    assert_int_equal(k[0], INT64_MAX);
    assert_int_equal(k[1], 200);
    assert_int_equal(trn_cast_span(TRN_DT_UINT8, m, TRN_DT_UINT64, h, 2, &e), 0);
    assert_int_equal(m[0], 255);
    assert_int_equal(m[1], 200);
    int8_t i8[2];
    assert_int_equal(trn_cast_span(TRN_DT_INT8, i8, TRN_DT_UINT64, h, 2, &e), 0);
    assert_int_equal(i8[0], 127);
    assert_int_equal(i8[1], 127);
    /* float <-> int goes through fp32 with the narrow rule */
    float f[3] = {-2.5f, 1e10f, NAN};
    int32_t n[3];
    assert_int_equal(trn_cast_span(TRN_DT_INT32, n, TRN_DT_FP32, f, 3, &e), 0);
    assert_int_equal(n[0], -2);
    assert_int_equal(n[1], INT32_MAX);
    assert_int_equal(n[2], 0);
    /* fp32 -> bf16 -> fp16: RNE at each step (1 + 2^-8 + 2^-10 -> bf16 1 + 2^-7) */
    float x = 0x1.014p0f;
    uint16_t bf, hf;
    assert_int_equal(trn_cast_span(TRN_DT_BF16, &bf, TRN_DT_FP32, &x, 1, &e), 0);
    assert_int_equal(bf, 0x3f81);
    assert_int_equal(trn_cast_span(TRN_DT_FP16, &hf, TRN_DT_BF16, &bf, 1, &e), 0);
    assert_int_equal(hf, 0x3c08);
    /* same dtype: a byte copy that keeps NaN payloads */
    uint16_t nan16 = 0x7d01, out16 = 0;
    assert_int_equal(trn_cast_span(TRN_DT_FP16, &out16, TRN_DT_FP16, &nan16, 1, &e), 0);
    assert_int_equal(out16, 0x7d01);
    uint32_t packed = 0x12345678u, packed_out = 0;
    assert_int_equal(
        trn_cast_span(TRN_DT_FP8_E4M3_X4, &packed_out, TRN_DT_FP8_E4M3_X4, &packed, 1, &e), 0);
    assert_int_equal(packed_out, 0x12345678u);
    /* a packed form to anything else is an error naming both */
    assert_int_equal(trn_cast_span(TRN_DT_FP32, f, TRN_DT_FP8_E4M3_X4, &packed, 1, &e), -1);
    assert_non_null(strstr(e.msg, "float8_e4m3_x4 -> float32"));
    assert_int_equal(trn_cast_span((trn_dtype)25, f, TRN_DT_FP32, f, 1, &e), -1);
    assert_non_null(strstr(e.msg, "unknown dtype id 25"));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narrow_signed),
        cmocka_unit_test(test_narrow_unsigned),
        cmocka_unit_test(test_widen),
        cmocka_unit_test(test_cast_span),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
