/* The dtype table: widths (the reference's COPY_SIZE_LUT), names, aliases,
 * the predicates, and name lookup errors. */
#include "arith_test_util.h"

#include <stdio.h>

static void test_widths(void **state) {
    (void)state;
    static const uint32_t lut[TRN_DT_COUNT] = {1, 1, 2, 1, 1, 1, 1, 1, 4, 4,
                                               2, 2, 2, 2, 4, 4, 4, 4, 8, 8};
    for (int i = 0; i < TRN_DT_COUNT; i++) assert_int_equal(trn_dtype_width((trn_dtype)i), lut[i]);
    assert_int_equal(trn_dtype_width((trn_dtype)20), 0);
    assert_int_equal(trn_dtype_width((trn_dtype)-1), 0);
}

static void test_canonical_names(void **state) {
    (void)state;
    static const char *const names[TRN_DT_COUNT] = {
        "int8",          "uint8",          "int16",       "float8_e3m4",    "float8_e4m3",
        "float8_e4m3fn", "float8_e8m0fnu", "float8_e5m2", "float8_e4m3_x4", "float8_e5m2_x4",
        "uint16",        "float4_e2m1_x4", "bfloat16",    "float16",        "uint32",
        "int32",         "float32",        "float32r",    "uint64",         "int64"};
    for (int i = 0; i < TRN_DT_COUNT; i++) {
        assert_string_equal(trn_dtype_name((trn_dtype)i), names[i]);
        trn_dtype dt = TRN_DT_COUNT;
        trn_error e = {0};
        assert_int_equal(trn_dtype_from_name(names[i], &dt, &e), 0);
        assert_int_equal(dt, i);
    }
    assert_string_equal(trn_dtype_name((trn_dtype)20), "dtype20");
    assert_non_null(trn_dtype_name((trn_dtype)1000));
}

static void expect_lookup(const char *name, trn_dtype want) {
    trn_dtype dt = TRN_DT_COUNT;
    trn_error e = {0};
    if (trn_dtype_from_name(name, &dt, &e) != 0) fail_msg("lookup of '%s' failed: %s", name, e.msg);
    if (dt != want) fail_msg("'%s' -> %d, expected %d", name, (int)dt, (int)want);
}

static void test_aliases_case_insensitive(void **state) {
    (void)state;
    expect_lookup("FLOAT32", TRN_DT_FP32);
    expect_lookup("fp32", TRN_DT_FP32);
    expect_lookup("F32", TRN_DT_FP32);
    expect_lookup("BF16", TRN_DT_BF16);
    expect_lookup("BFloat16", TRN_DT_BF16);
    expect_lookup("fp16", TRN_DT_FP16);
    expect_lookup("f16", TRN_DT_FP16);
    expect_lookup("Half", TRN_DT_FP16);
    expect_lookup("e3m4", TRN_DT_FP8_E3M4);
    expect_lookup("E4M3", TRN_DT_FP8_E4M3);
    expect_lookup("fp8_e4m3", TRN_DT_FP8_E4M3);
    expect_lookup("e4m3fn", TRN_DT_FP8_E4M3FN);
    expect_lookup("e5m2", TRN_DT_FP8_E5M2);
    expect_lookup("e8m0", TRN_DT_FP8_E8M0FNU);
    expect_lookup("i32", TRN_DT_INT32);
    expect_lookup("u32", TRN_DT_UINT32);
    expect_lookup("I64", TRN_DT_INT64);
    expect_lookup("u8", TRN_DT_UINT8);
    expect_lookup("fp32r", TRN_DT_FP32R);
    expect_lookup("float8_e4m3fn_x4", TRN_DT_FP8_E4M3_X4);
    expect_lookup("float4_e2m1fn_x4", TRN_DT_FP4_E2M1_X4);
    /* Every alias listed by trn_dtype_aliases resolves to its own id, and
     * no alias is shared between two ids. */
    for (int i = 0; i < TRN_DT_COUNT; i++) {
        const char *const *a = trn_dtype_aliases((trn_dtype)i);
        for (; *a; a++) expect_lookup(*a, (trn_dtype)i);
    }
}

static void test_unknown_name(void **state) {
    (void)state;
    trn_dtype dt = TRN_DT_INT8;
    trn_error e = {0};
    assert_int_equal(trn_dtype_from_name("float33", &dt, &e), -1);
    assert_int_equal(dt, TRN_DT_INT8); /* untouched */
    assert_non_null(strstr(e.msg, "unknown dtype 'float33'"));
    /* The message lists every canonical name. */
    for (int i = 0; i < TRN_DT_COUNT; i++)
        assert_non_null(strstr(e.msg, trn_dtype_name((trn_dtype)i)));
    assert_int_equal(trn_dtype_from_name("", &dt, &e), -1);
    assert_non_null(strstr(e.msg, "unknown dtype ''"));
    assert_int_equal(trn_dtype_from_name(NULL, &dt, &e), -1);
    assert_int_equal(trn_dtype_from_name("float", &dt, &e), -1); /* numpy's float is float64 */
    assert_int_equal(trn_dtype_from_name("fp32 ", &dt, &e), -1); /* no trimming */
    assert_int_equal(trn_dtype_from_name("float32", &dt, NULL), 0);
}

static void test_predicates(void **state) {
    (void)state;
    for (int i = 0; i < TRN_DT_COUNT; i++) {
        trn_dtype dt = (trn_dtype)i;
        bool packed =
            dt == TRN_DT_FP8_E4M3_X4 || dt == TRN_DT_FP8_E5M2_X4 || dt == TRN_DT_FP4_E2M1_X4;
        bool reduces = dt == TRN_DT_FP8_E3M4 || dt == TRN_DT_FP8_E4M3 || dt == TRN_DT_FP8_E5M2 ||
                       dt == TRN_DT_BF16 || dt == TRN_DT_FP16 || dt == TRN_DT_INT32 ||
                       dt == TRN_DT_FP32 || dt == TRN_DT_INT64;
        bool is_int = dt == TRN_DT_INT8 || dt == TRN_DT_UINT8 || dt == TRN_DT_INT16 ||
                      dt == TRN_DT_UINT16 || dt == TRN_DT_INT32 || dt == TRN_DT_UINT32 ||
                      dt == TRN_DT_INT64 || dt == TRN_DT_UINT64;
        assert_int_equal(trn_dtype_widens(dt), !packed);
        assert_int_equal(trn_dtype_reduces(dt), reduces);
        assert_int_equal(trn_dtype_is_float(dt), !is_int);
    }
    assert_false(trn_dtype_widens((trn_dtype)20));
    assert_false(trn_dtype_reduces((trn_dtype)20));
    assert_false(trn_dtype_is_float((trn_dtype)20));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widths),
        cmocka_unit_test(test_canonical_names),
        cmocka_unit_test(test_aliases_case_insensitive),
        cmocka_unit_test(test_unknown_name),
        cmocka_unit_test(test_predicates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
