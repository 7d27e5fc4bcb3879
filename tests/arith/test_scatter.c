/* trn_accumulate_scatter (the hoisted fast path of indirect writes) against
 * the per-element reference trn_cast_copy_or_accumulate, bit for bit, with
 * repeated offsets, NaN, Inf, signed zeros and ties. */
#include <stdlib.h>

#include "arith_test_util.h"

#define TABLE 64
#define N 4096

static void scatter_vs_elements(trn_dtype dt, trn_acc_op op, uint64_t seed) {
    test_rng r = {seed};
    uint32_t w = trn_dtype_width(dt);
    uint8_t fast[TABLE * 8], slow[TABLE * 8], src[N * 8];
    uint64_t off[N];
    for (size_t i = 0; i < sizeof fast; ++i) fast[i] = slow[i] = (uint8_t)rng_next(&r);
    for (size_t j = 0; j < N; ++j) {
        off[j] = (rng_next(&r) % TABLE) * w; /* about 64 updates per element */
        for (uint32_t b = 0; b < w; ++b) src[j * w + b] = (uint8_t)rng_next(&r);
        if (dt == TRN_DT_FP32 && j % 7 == 0) { /* specials: NaN, Inf, zeros, ties */
            static const uint32_t sp[] = {0x7fc00001u, 0xff800000u, 0x80000000u, 0x00000000u, 0x3f800000u};
            memcpy(src + j * w, &sp[j % 5], 4);
        }
    }
    assert_int_equal(trn_accumulate_scatter(op, fast, off, src, dt, N, NULL), 0);
    for (size_t j = 0; j < N; ++j) assert_int_equal(trn_cast_copy_or_accumulate(op, slow + off[j], src + j * w, dt, NULL), 0);
    assert_memory_equal(fast, slow, TABLE * w);
}

static void fp32_all_ops(void **st) {
    for (int op = TRN_ACC_ADD; op <= TRN_ACC_MAX; ++op) scatter_vs_elements(TRN_DT_FP32, (trn_acc_op)op, 1 + op);
}

static void other_reducing_dtypes(void **st) {
    trn_dtype dts[] = {TRN_DT_BF16, TRN_DT_FP16, TRN_DT_FP8_E4M3, TRN_DT_INT32, TRN_DT_INT64};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; ++i)
        for (int op = TRN_ACC_COPY; op <= TRN_ACC_MAX; ++op) scatter_vs_elements(dts[i], (trn_acc_op)op, 100 + i * 4 + op);
}

static void refuses_non_reducing(void **st) {
    uint8_t t[4] = {0}, s[4] = {0};
    uint64_t off[1] = {0};
    trn_error e;
    assert_int_equal(trn_accumulate_scatter(TRN_ACC_ADD, t, off, s, TRN_DT_UINT32, 1, &e), -1);
    assert_string_equal(e.msg, "cast_accumulate: unsupported dtype uint32");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fp32_all_ops),
        cmocka_unit_test(other_reducing_dtypes),
        cmocka_unit_test(refuses_non_reducing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
