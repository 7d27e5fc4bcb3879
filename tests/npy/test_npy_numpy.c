/* host/npy.c reading files that numpy.save wrote (gen_numpy_files.py, run
 * by ctest as the fixture npy_numpy_files; NPY_NUMPY_DIR names its output).
 * Every array in the manifest must come back with numpy's descr, shape and
 * bytes; a few files are checked value by value or for their error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "npy/npy.h"

static const char *dir(void) {
    const char *d = getenv("NPY_NUMPY_DIR");
    if (!d || !d[0])
        fail_msg("NPY_NUMPY_DIR is not set (run through ctest: the fixture npy_numpy_files)");
    return d;
}

static const char *in_dir(const char *name) {
    static char buf[2][1024];
    static int k;
    char *b = buf[k++ & 1];
    snprintf(b, sizeof buf[0], "%s/%s", dir(), name);
    return b;
}

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)len + 1);
    *n = fread(b, 1, (size_t)len, f);
    fclose(f);
    return b;
}

static void test_manifest(void **state) {
    FILE *m = fopen(in_dir("manifest.txt"), "r");
    assert_non_null(m);
    char line[512];
    int arrays = 0;
    while (fgets(line, sizeof line, m)) {
        char name[128], descr[16], npy[160], bin[160];
        int at = 0, ndim = 0;
        int64_t shape[TRN_NPY_MAX_DIMS];
        if (sscanf(line, "%127s %15s%n", name, descr, &at) != 2) continue;
        long long d;
        int k;
        while (ndim < TRN_NPY_MAX_DIMS && sscanf(line + at, "%lld%n", &d, &k) == 1)
            shape[ndim++] = d, at += k;
        snprintf(npy, sizeof npy, "%s.npy", name);
        snprintf(bin, sizeof bin, "%s.bin", name);
        trn_npy a;
        trn_error e = {0};
        if (trn_npy_read(in_dir(npy), &a, &e)) fail_msg("%s", e.msg);
        assert_string_equal(a.descr, descr);
        assert_int_equal(a.ndim, ndim);
        for (int i = 0; i < ndim; i++) assert_int_equal(a.shape[i], shape[i]);
        size_t n;
        unsigned char *want = slurp(in_dir(bin), &n);
        assert_non_null(want);
        assert_int_equal(n, a.count * a.item_size);
        if (n) assert_memory_equal(a.data, want, n);
        free(want);
        trn_npy_free(&a);
        arrays++;
    }
    fclose(m);
    /* 12 descrs x 8 shapes, v2, v3, strided, native_u1. */
    assert_int_equal(arrays, 12 * 8 + 4);
}

static void test_known_values(void **state) {
    trn_npy a;
    trn_error e = {0};
    assert_int_equal(trn_npy_read(in_dir("known.npy"), &a, &e), 0);
    const float want[3] = {1.5f, -2.0f, 0.1f};
    assert_string_equal(a.descr, "<f4");
    assert_int_equal(a.ndim, 1);
    assert_int_equal(a.shape[0], 3);
    assert_memory_equal(a.data, want, sizeof want);
    trn_npy_free(&a);
}

/* float32 values numpy wrote, narrowed on load with RNE. */
static void test_narrow_on_load(void **state) {
    trn_npy a;
    trn_error e = {0};
    const int64_t s3[1] = {3}, s4[1] = {4};
    uint16_t bf[3], h[4];
    assert_int_equal(trn_npy_read(in_dir("bf16_ties.npy"), &a, &e), 0);
    assert_int_equal(trn_npy_to_tensor(&a, TRN_DT_BF16, 1, s3, bf, &e), 0);
    assert_int_equal(bf[0], 0x3F80); /* 1.00390625: tie, even stays */
    assert_int_equal(bf[1], 0x3F82); /* 1.01171875: tie, odd rounds up */
    assert_int_equal(bf[2], 0x3F81); /* 1.0078125: exact */
    trn_npy_free(&a);
    assert_int_equal(trn_npy_read(in_dir("f16_from_f4.npy"), &a, &e), 0);
    assert_int_equal(trn_npy_to_tensor(&a, TRN_DT_FP16, 1, s4, h, &e), 0);
    assert_int_equal(h[0], 0x3C00);
    assert_int_equal(h[1], 0x7C00); /* 65520: tie between 65504 and 2^16 -> Inf */
    assert_int_equal(h[2], 0x0000); /* 2^-25: tie to the even 0 */
    assert_int_equal(h[3], 0x2E66); /* 0.1f -> 0.0999755859375 */
    trn_npy_free(&a);
    assert_int_equal(trn_npy_read(in_dir("bf16_bits.npy"), &a, &e), 0);
    assert_int_equal(trn_npy_to_tensor(&a, TRN_DT_BF16, 1, s3, bf, &e), 0);
    assert_int_equal(bf[0], 0x3F80);
    assert_int_equal(bf[1], 0x7FC1); /* raw bits: payload kept */
    assert_int_equal(bf[2], 0xFF80);
    trn_npy_free(&a);
}

static void expect_error(const char *name, const char *tail) {
    trn_npy a;
    trn_error e = {0};
    char want[TRN_ERROR_MAX];
    const char *p = in_dir(name);
    assert_int_equal(trn_npy_read(p, &a, &e), -1);
    snprintf(want, sizeof want, "%s: %s", p, tail);
    assert_string_equal(e.msg, want);
}

static void test_numpy_errors(void **state) {
    expect_error("big_endian.npy",
                 "big-endian dtype '>f4' is not supported (expected little-endian '<f4')");
    expect_error("fortran.npy",
                 "fortran_order True is not supported (expected False: save a C-contiguous array, "
                 "e.g. numpy.ascontiguousarray)");
    expect_error("complex.npy",
                 "unsupported dtype '<c8' (expected one of <f2, <f4, <f8, |i1, <i2, <i4, <i8, "
                 "|u1, <u2, <u4, <u8, |b1)");
    trn_npy a;
    trn_error e = {0};
    char want[TRN_ERROR_MAX];
    const int64_t s[2] = {2, 3}, s2[2] = {3, 2};
    uint16_t dst[6];
    assert_int_equal(trn_npy_read(in_dir("f8.npy"), &a, &e), 0);
    assert_int_equal(trn_npy_to_tensor(&a, TRN_DT_INT16, 2, s, dst, &e),
                     -1); /* floats never load as integers */
    snprintf(want, sizeof want, "%s: dtype <f8 cannot be loaded into a int16 tensor (expected <i2)",
             in_dir("f8.npy"));
    assert_string_equal(e.msg, want);
    assert_int_equal(trn_npy_to_tensor(&a, TRN_DT_BF16, 2, s2, dst, &e), -1);
    snprintf(want, sizeof want, "%s: shape (2, 3) does not match the tensor's shape (3, 2)",
             in_dir("f8.npy"));
    assert_string_equal(e.msg, want);
    trn_npy_free(&a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_manifest),
        cmocka_unit_test(test_known_values),
        cmocka_unit_test(test_narrow_on_load),
        cmocka_unit_test(test_numpy_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
