/* cast_copy_or_accumulate: copy for all 20 dtypes, integer wrap and signed
 * min / max, the SSE operand order (the accumulator is the second operand
 * of minss / maxss, so a NaN operand or a tie keeps it), fp32-then-RNE for
 * the narrow floats, fp8 config 0, the error text for the 12 non-reducing
 * dtypes, and the AluOpType -> MemoryReductionOp converter. */
#include "arith_test_util.h"

#include <limits.h>

/* One element of dt, given and returned as raw bits in a uint64. */
static uint64_t acc1(trn_acc_op op, trn_dtype dt, uint64_t dst, uint64_t src) {
    unsigned char d[8], s[8];
    uint32_t w = trn_dtype_width(dt);
    memcpy(d, &dst, w); /* little-endian: the low bytes are the element */
    memcpy(s, &src, w);
    trn_error e = {0};
    if (trn_cast_copy_or_accumulate(op, d, s, dt, &e) != 0) fail_msg("unexpected error: %s", e.msg);
    uint64_t out = 0;
    memcpy(&out, d, w);
    return out;
}

#define U32(x) ((uint64_t)(uint32_t)(x))
#define U64(x) ((uint64_t)(x))

static void test_copy_all_dtypes(void **state) {
    (void)state;
    for (int i = 0; i < TRN_DT_COUNT; i++) {
        unsigned char dst[16], src[16];
        memset(dst, 0xaa, sizeof dst);
        for (int k = 0; k < 16; k++) src[k] = (unsigned char)(k + 1);
        trn_error e = {0};
        assert_int_equal(trn_cast_copy_or_accumulate(TRN_ACC_COPY, dst, src, (trn_dtype)i, &e), 0);
        uint32_t w = trn_dtype_width((trn_dtype)i);
        assert_memory_equal(dst, src, w); /* bytes as they are: NaN payloads kept */
        for (uint32_t k = w; k < 16; k++)
            assert_int_equal(dst[k], 0xaa); /* nothing past the width */
    }
    /* a NaN fp16 is copied, not canonicalised */
    assert_int_equal(acc1(TRN_ACC_COPY, TRN_DT_FP16, 0, 0x7d01), 0x7d01);
}

static void test_int32(void **state) {
    (void)state;
    trn_dtype t = TRN_DT_INT32;
    assert_int_equal(acc1(TRN_ACC_ADD, t, U32(INT32_MAX), U32(1)), U32(INT32_MIN));
    assert_int_equal(acc1(TRN_ACC_ADD, t, U32(INT32_MIN), U32(-1)), U32(INT32_MAX));
    assert_int_equal(acc1(TRN_ACC_ADD, t, U32(INT32_MIN), U32(INT32_MIN)), 0);
    assert_int_equal(acc1(TRN_ACC_ADD, t, U32(-5), U32(3)), U32(-2));
    /* signed: -1 (0xffffffff) is below 1 */
    assert_int_equal(acc1(TRN_ACC_MIN, t, U32(1), U32(-1)), U32(-1));
    assert_int_equal(acc1(TRN_ACC_MIN, t, U32(-1), U32(1)), U32(-1));
    assert_int_equal(acc1(TRN_ACC_MAX, t, U32(-1), U32(1)), U32(1));
    assert_int_equal(acc1(TRN_ACC_MAX, t, U32(INT32_MIN), U32(INT32_MAX)), U32(INT32_MAX));
    assert_int_equal(acc1(TRN_ACC_MIN, t, U32(INT32_MAX), U32(INT32_MIN)), U32(INT32_MIN));
}

static void test_int64(void **state) {
    (void)state;
    trn_dtype t = TRN_DT_INT64;
    assert_int_equal(acc1(TRN_ACC_ADD, t, U64(INT64_MAX), U64(1)), U64(INT64_MIN));
    assert_int_equal(acc1(TRN_ACC_ADD, t, U64(INT64_MIN), U64(-1)), U64(INT64_MAX));
    assert_int_equal(acc1(TRN_ACC_ADD, t, U64(1) << 40, U64(1) << 40),
                     U64(1) << 41); /* no fp32 trip */
    assert_int_equal(acc1(TRN_ACC_ADD, t, U64(0x100000001ULL), U64(-1)), U64(0x100000000ULL));
    assert_int_equal(acc1(TRN_ACC_MIN, t, U64(5), U64(-7)), U64(-7));
    assert_int_equal(acc1(TRN_ACC_MAX, t, U64(-7), U64(5)), U64(5));
    assert_int_equal(acc1(TRN_ACC_MAX, t, U64(INT64_MIN), U64(-1)), U64(-1));
    assert_int_equal(acc1(TRN_ACC_MIN, t, U64(INT64_MAX), U64(INT64_MIN)), U64(INT64_MIN));
}

/* The reference's prose says a NaN already in dst "is replaced by src only if
 * src is not NaN"; the instruction it quotes (movss (x); maxss (acc)) keeps
 * dst whenever the comparison is false, NaN in dst included. The
 * instruction wins: these tests pin it. */
static void test_sse_operand_order_fp32(void **state) {
    (void)state;
    trn_dtype t = TRN_DT_FP32;
    const uint32_t qnan = 0x7fc01234u, snan = 0x7f800042u, one = 0x3f800000u, two = 0x40000000u;
    for (trn_acc_op op = TRN_ACC_MIN; op <= TRN_ACC_MAX; op++) {
        /* NaN operand: the accumulator is the result */
        assert_int_equal(acc1(op, t, one, qnan), one);
        assert_int_equal(acc1(op, t, one, snan), one);
        /* NaN accumulator: kept bit for bit (not replaced, not quieted) */
        assert_int_equal(acc1(op, t, qnan, two), qnan);
        assert_int_equal(acc1(op, t, snan, two), snan);
        assert_int_equal(acc1(op, t, qnan | 0x80000000u, 0xffc00000u), qnan | 0x80000000u);
        /* ties, -0.0 vs +0.0 included: the accumulator */
        assert_int_equal(acc1(op, t, 0x00000000u, 0x80000000u), 0x00000000u);
        assert_int_equal(acc1(op, t, 0x80000000u, 0x00000000u), 0x80000000u);
    }
    assert_int_equal(acc1(TRN_ACC_MAX, t, one, two), two);
    assert_int_equal(acc1(TRN_ACC_MAX, t, two, one), two);
    assert_int_equal(acc1(TRN_ACC_MIN, t, one, two), one);
    assert_int_equal(acc1(TRN_ACC_MIN, t, two, 0xff800000u), 0xff800000u);
    /* trn_alu_f32 directly */
    assert_f32_bits(trn_alu_f32(TRN_ACC_MAX, 1.0f, NAN), 1.0f);
    assert_true(isnan(trn_alu_f32(TRN_ACC_MIN, NAN, 1.0f)));
    assert_f32_bits(trn_alu_f32(TRN_ACC_MIN, -0.0f, 0.0f), -0.0f);
    assert_f32_bits(trn_alu_f32(TRN_ACC_MAX, 0.0f, -0.0f), 0.0f);
    assert_f32_bits(trn_alu_f32(TRN_ACC_ADD, 1.0f, 0x1p-24f), 1.0f); /* RNE tie to even */
    assert_f32_bits(trn_alu_f32(TRN_ACC_ADD, 0x1.000002p0f, 0x1p-24f), 0x1.000004p0f);
    assert_f32_bits(trn_alu_f32(TRN_ACC_COPY, 1.0f, 2.0f), 2.0f);
}

/* addss(acc, x) on NaNs: acc's NaN (quieted) if acc is NaN, else x's;
 * Inf - Inf is x86's default NaN 0xffc00000 (negative, which survives into
 * fp16 as 0xfe00). */
static void test_add_nan_fp32(void **state) {
    (void)state;
    trn_dtype t = TRN_DT_FP32;
    assert_int_equal(acc1(TRN_ACC_ADD, t, 0x7fc00001u, 0xffc00002u), 0x7fc00001u);
    assert_int_equal(acc1(TRN_ACC_ADD, t, 0xffc00002u, 0x7fc00001u), 0xffc00002u);
    assert_int_equal(acc1(TRN_ACC_ADD, t, 0x7f800001u, 0x3f800000u),
                     0x7fc00001u); /* sNaN quieted */
    assert_int_equal(acc1(TRN_ACC_ADD, t, 0x3f800000u, 0xff800005u), 0xffc00005u);
    assert_int_equal(acc1(TRN_ACC_ADD, t, 0x7f800000u, 0xff800000u), 0xffc00000u);
    assert_int_equal(acc1(TRN_ACC_ADD, t, 0x7f800000u, 0x7f800000u), 0x7f800000u);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP16, 0x7c00, 0xfc00), 0xfe00);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_BF16, 0x7f80, 0xff80), 0x7fc0);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E4M3, 0x78, 0xf8), 0x7c);
    /* fp16 keeps a NaN's sign, so there the surviving NaN is visible after
     * the narrow: two NaNs -> the accumulator's (dst) sign; one NaN -> its
     * sign, whichever side it is on. */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP16, 0xfd01, 0x7d02), 0xfe00);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP16, 0x7d01, 0xfd02), 0x7e00);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP16, 0xfe00, 0x7e00), 0xfe00);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP16, 0x3c00, 0xfe00), 0xfe00);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP16, 0xfe00, 0x3c00), 0xfe00);
    /* the span form (blocked widen / ALU / narrow) gives the same bits */
    uint16_t d[3] = {0xfd01, 0x7d01, 0x3c00}, s[3] = {0x7d02, 0xfd02, 0xfe00};
    trn_error e = {0};
    assert_int_equal(trn_accumulate_span(TRN_ACC_ADD, d, s, TRN_DT_FP16, 3, &e), 0);
    assert_int_equal(d[0], 0xfe00);
    assert_int_equal(d[1], 0x7e00);
    assert_int_equal(d[2], 0xfe00);
}

/* The narrow float dtypes follow the same order: widened NaN accumulators
 * stay NaN (then the format's NaN rule), ties keep the accumulator. */
static void test_sse_operand_order_narrow(void **state) {
    (void)state;
    /* fp16: acc NaN 0x7d01 widens to a signalling fp32 NaN, max keeps it,
     * the narrow maps it to 0x7e00 */
    assert_int_equal(acc1(TRN_ACC_MAX, TRN_DT_FP16, 0x7d01, 0x3c00), 0x7e00);
    assert_int_equal(acc1(TRN_ACC_MAX, TRN_DT_FP16, 0xfd01, 0x3c00), 0xfe00);
    assert_int_equal(acc1(TRN_ACC_MAX, TRN_DT_FP16, 0x3c00, 0x7d01), 0x3c00);
    assert_int_equal(acc1(TRN_ACC_MIN, TRN_DT_FP16, 0x8000, 0x0000), 0x8000);
    assert_int_equal(acc1(TRN_ACC_MAX, TRN_DT_FP16, 0x0000, 0x8000), 0x0000);
    /* two NaNs of opposite signs: min / max keep the accumulator's */
    assert_int_equal(acc1(TRN_ACC_MAX, TRN_DT_FP16, 0xfe00, 0x7e00), 0xfe00);
    assert_int_equal(acc1(TRN_ACC_MIN, TRN_DT_FP16, 0x7e00, 0xfe00), 0x7e00);
    assert_int_equal(acc1(TRN_ACC_MIN, TRN_DT_FP16, 0x3c00, 0xfe00), 0x3c00);
    assert_int_equal(acc1(TRN_ACC_MIN, TRN_DT_BF16, 0x7fc1, 0x3f80), 0x7fc0);
    assert_int_equal(acc1(TRN_ACC_MIN, TRN_DT_BF16, 0x3f80, 0xffc1), 0x3f80);
    assert_int_equal(acc1(TRN_ACC_MAX, TRN_DT_BF16, 0x8000, 0x0000), 0x8000);
    assert_int_equal(acc1(TRN_ACC_MAX, TRN_DT_FP8_E4M3, 0x7d, 0x38), 0x7c);
    assert_int_equal(acc1(TRN_ACC_MAX, TRN_DT_FP8_E4M3, 0x38, 0x7d), 0x38);
    assert_int_equal(acc1(TRN_ACC_MIN, TRN_DT_FP8_E5M2, 0x80, 0x00), 0x80);
    assert_int_equal(acc1(TRN_ACC_MAX, TRN_DT_FP8_E3M4, 0x00, 0x80), 0x00);
    assert_int_equal(acc1(TRN_ACC_MAX, TRN_DT_FP8_E3M4, 0x30, 0x31), 0x31);
    assert_int_equal(acc1(TRN_ACC_MIN, TRN_DT_FP8_E3M4, 0x30, 0xb1), 0xb1);
}

/* Adds that must round, hand computed. */
static void test_add_rounds(void **state) {
    (void)state;
    /* bf16 (7 mantissa bits, ulp 2^-7 at 1):
     * 1 + 2^-8 is a tie -> 1.0 (even); (1 + 2^-7) + 2^-8 tie -> 1 + 2^-6;
     * 1 + (2^-8 + 2^-10) is past the tie -> 1 + 2^-7 */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_BF16, 0x3f80, 0x3b80), 0x3f80);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_BF16, 0x3f81, 0x3b80), 0x3f82);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_BF16, 0x3f80, 0x3ba0), 0x3f81);
    /* bf16 overflow by the carry: max + max = 2^129-ish -> Inf */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_BF16, 0x7f7f, 0x7f7f), 0x7f80);
    /* fp16: 1 + 2^-11 tie -> 1.0; (1 + 2^-10) + 2^-11 -> 1 + 2^-9; 65504 + 16 -> Inf */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP16, 0x3c00, 0x1000), 0x3c00);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP16, 0x3c01, 0x1000), 0x3c02);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP16, 0x7bff, 0x4c00), 0x7c00);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP16, 0x7bff, 0x4bfe),
                     0x7bff); /* 65504 + 15.97 -> 65504 */
    /* E4M3 (3 mantissa bits): 1.0 (0x38) + 0.0625 (0x18) tie -> 1.0;
     * 1.125 (0x39) + 0.0625 tie -> 1.25 (0x3a); 1.0 + 0.09375 (0x1c) -> 1.125 */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E4M3, 0x38, 0x18), 0x38);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E4M3, 0x39, 0x18), 0x3a);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E4M3, 0x38, 0x1c), 0x39);
    /* E5M2: 1.0 (0x3c) + 0.125 (0x30) tie -> 1.0; 1.25 (0x3d) + 0.125 -> 1.5 (0x3e) */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E5M2, 0x3c, 0x30), 0x3c);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E5M2, 0x3d, 0x30), 0x3e);
    /* E3M4: 1.0 (0x30) + 2^-5 (subnormal 0x02) tie -> 1.0; 1.0625 (0x31) + 2^-5 -> 1.125 (0x32) */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E3M4, 0x30, 0x02), 0x30);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E3M4, 0x31, 0x02), 0x32);
    /* subnormal + subnormal stays exact: E4M3 2^-9 + 2^-9 = 2^-8 (0x02) */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E4M3, 0x01, 0x01), 0x02);
    /* x + (-x) is +0 */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E4M3, 0x38, 0xb8), 0x00);
}

/* fp8 config 0: overflow is Inf, not max-finite (the device's default
 * saturates; the simulator does not). */
static void test_fp8_add_overflow(void **state) {
    (void)state;
    /* E4M3: 240 (0x77) + 8 (0x50) = 248 = max + half ulp -> Inf 0x78 */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E4M3, 0x77, 0x50), 0x78);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E4M3, 0x77, 0x48), 0x77); /* 240 + 4 -> 240 */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E4M3, 0xf7, 0xf7), 0xf8); /* -240 - 240 -> -Inf */
    /* E5M2: 57344 (0x7b) + 4096 (0x6c) = max + half ulp -> Inf 0x7c */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E5M2, 0x7b, 0x6c), 0x7c);
    /* E3M4: 15.5 (0x6f) + 0.25 (0x10) = 15.75 -> Inf 0x70 */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E3M4, 0x6f, 0x10), 0x70);
    /* Inf + finite stays Inf; NaN -> the canonical NaN */
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E4M3, 0x78, 0x38), 0x78);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E4M3, 0xff, 0x38), 0x7c);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E5M2, 0x7d, 0x3c), 0x7e);
    assert_int_equal(acc1(TRN_ACC_ADD, TRN_DT_FP8_E3M4, 0x38, 0x79), 0x78);
}

static void test_unsupported_dtypes(void **state) {
    (void)state;
    int refused = 0;
    for (int i = 0; i < TRN_DT_COUNT; i++) {
        trn_dtype dt = (trn_dtype)i;
        if (trn_dtype_reduces(dt)) continue;
        refused++;
        char want[128];
        snprintf(want, sizeof want, "cast_accumulate: unsupported dtype %s", trn_dtype_name(dt));
        for (trn_acc_op op = TRN_ACC_ADD; op <= TRN_ACC_MAX; op++) {
            unsigned char d[8] = {1, 2, 3, 4, 5, 6, 7, 8}, s[8] = {9, 9, 9, 9, 9, 9, 9, 9};
            trn_error e = {0};
            assert_int_equal(trn_cast_copy_or_accumulate(op, d, s, dt, &e), -1);
            assert_string_equal(e.msg, want);
            assert_int_equal(d[0], 1); /* nothing written */
            memset(e.msg, 0, sizeof e.msg);
            assert_int_equal(trn_accumulate_span(op, d, s, dt, 1, &e), -1);
            assert_string_equal(e.msg, want);
            assert_int_equal(d[0], 1);
        }
    }
    assert_int_equal(refused, 12);
    trn_error e = {0};
    assert_int_equal(trn_cast_copy_or_accumulate(TRN_ACC_ADD, NULL, NULL, TRN_DT_FP32R, &e), -1);
    assert_string_equal(e.msg, "cast_accumulate: unsupported dtype float32r");
    assert_int_equal(trn_cast_copy_or_accumulate(TRN_ACC_COPY, NULL, NULL, (trn_dtype)20, &e), -1);
    assert_string_equal(e.msg, "cast_accumulate: unknown dtype 20 (expected 0..19)");
    float a = 1.0f, b = 2.0f;
    assert_int_equal(trn_cast_copy_or_accumulate((trn_acc_op)4, &a, &b, TRN_DT_FP32, &e), -1);
    assert_string_equal(e.msg,
                        "cast_accumulate: unknown op 4 (expected copy 0, add 1, min 2, max 3)");
    assert_f32_bits(a, 1.0f);
}

static void test_aluop_to_memop(void **state) {
    (void)state;
    trn_acc_op op = (trn_acc_op)99;
    trn_error e = {0};
    assert_int_equal(trn_aluop_to_memop(0, false, &op, &e), 0);
    assert_int_equal(op, TRN_ACC_COPY);
    assert_int_equal(trn_aluop_to_memop(4, false, &op, &e), 0);
    assert_int_equal(op, TRN_ACC_ADD);
    op = (trn_acc_op)99;
    assert_int_equal(trn_aluop_to_memop(8, false, &op, &e), -1);
    assert_int_equal(op, 99);
    assert_non_null(strstr(e.msg,
                           "AluOpType 8 (max) has no MemoryReductionOp: the reference accepts only "
                           "bypass (0) and add (4)"));
    assert_int_equal(trn_aluop_to_memop(9, false, &op, &e), -1);
    assert_non_null(strstr(e.msg, "AluOpType 9 (min) has no MemoryReductionOp"));
    assert_int_equal(trn_aluop_to_memop(5, false, &op, &e), -1);
    assert_string_equal(
        e.msg, "AluOpType 5 has no MemoryReductionOp: the reference accepts only bypass (0) "
               "and add (4)");
    assert_int_equal(trn_aluop_to_memop(-1, true, &op, &e), -1);
    assert_non_null(strstr(e.msg, "AluOpType -1 has no MemoryReductionOp"));
    /* the opt-in: max -> MAX (3), min -> MIN (2) -- the corrected numbering */
    assert_int_equal(trn_aluop_to_memop(8, true, &op, &e), 0);
    assert_int_equal(op, TRN_ACC_MAX);
    assert_int_equal(op, 3);
    assert_int_equal(trn_aluop_to_memop(9, true, &op, &e), 0);
    assert_int_equal(op, TRN_ACC_MIN);
    assert_int_equal(op, 2);
    assert_int_equal(trn_aluop_to_memop(0, true, &op, &e), 0);
    assert_int_equal(op, TRN_ACC_COPY);
    assert_int_equal(trn_aluop_to_memop(4, true, &op, &e), 0);
    assert_int_equal(op, TRN_ACC_ADD);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_all_dtypes),
        cmocka_unit_test(test_int32),
        cmocka_unit_test(test_int64),
        cmocka_unit_test(test_sse_operand_order_fp32),
        cmocka_unit_test(test_add_nan_fp32),
        cmocka_unit_test(test_sse_operand_order_narrow),
        cmocka_unit_test(test_add_rounds),
        cmocka_unit_test(test_fp8_add_overflow),
        cmocka_unit_test(test_unsupported_dtypes),
        cmocka_unit_test(test_aluop_to_memop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
