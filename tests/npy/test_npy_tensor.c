/* host/npy.c, tensor level: which descr each tensor dtype loads from and is
 * written as (docs/programs.md, "Data files"), the narrowing on load (RNE,
 * checked against hand-computed bits and _Float16), raw bit copies, shape
 * and dtype mismatch messages, and nothing written to dst on error. */
#include "npy_testutil.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "arith/arith.h"
#include "npy/npy.h"

static int group_setup(void **state) { return npy_tmp_setup(); }
static int group_teardown(void **state) {
    npy_tmp_teardown();
    return 0;
}

static uint32_t f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static float u2f(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Write a file with trn_npy_write and read it back (so n.name is set). */
static void load_file(trn_npy *n, const char *descr, int ndim, const int64_t *shape,
                      const void *data) {
    const char *p = npy_tmp("t.npy");
    trn_error e = {0};
    if (trn_npy_write(p, descr, ndim, shape, data, &e) || trn_npy_read(p, n, &e))
        fail_msg("%s", e.msg);
}

/* to_tensor must fail with "<file>: <tail>" and leave dst untouched. */
static void expect_load_error(const trn_npy *n, trn_dtype dt, int ndim, const int64_t *shape,
                              const char *tail) {
    unsigned char dst[256];
    memset(dst, 0xA5, sizeof dst);
    trn_error e = {0};
    char want[TRN_ERROR_MAX];
    assert_int_equal(trn_npy_to_tensor(n, dt, ndim, shape, dst, &e), -1);
    snprintf(want, sizeof want, "%s: %s", n->name[0] ? n->name : "npy", tail);
    assert_string_equal(e.msg, want);
    for (size_t i = 0; i < sizeof dst; i++) assert_int_equal(dst[i], 0xA5);
}

/* ---- the table ------------------------------------------------------------- */

static void test_descr_for(void **state) {
    static const struct {
        trn_dtype dt;
        const char *plain, *raw;
    } t[] = {
        {TRN_DT_INT8, "|i1", "|i1"},        {TRN_DT_UINT8, "|u1", "|u1"},
        {TRN_DT_INT16, "<i2", "<i2"},       {TRN_DT_FP8_E3M4, "<f4", "|u1"},
        {TRN_DT_FP8_E4M3, "<f4", "|u1"},    {TRN_DT_FP8_E4M3FN, "<f4", "|u1"},
        {TRN_DT_FP8_E8M0FNU, "<f4", "|u1"}, {TRN_DT_FP8_E5M2, "<f4", "|u1"},
        {TRN_DT_FP8_E4M3_X4, "<u4", "<u4"}, {TRN_DT_FP8_E5M2_X4, "<u4", "<u4"},
        {TRN_DT_UINT16, "<u2", "<u2"},      {TRN_DT_FP4_E2M1_X4, "<u2", "<u2"},
        {TRN_DT_BF16, "<f4", "<u2"},        {TRN_DT_FP16, "<f2", "<f2"},
        {TRN_DT_UINT32, "<u4", "<u4"},      {TRN_DT_INT32, "<i4", "<i4"},
        {TRN_DT_FP32, "<f4", "<f4"},        {TRN_DT_FP32R, "<f4", "<f4"},
        {TRN_DT_UINT64, "<u8", "<u8"},      {TRN_DT_INT64, "<i8", "<i8"},
    };
    assert_int_equal(sizeof t / sizeof t[0], TRN_DT_COUNT);
    for (size_t i = 0; i < TRN_DT_COUNT; i++) {
        assert_string_equal(trn_npy_descr_for(t[i].dt, false), t[i].plain);
        assert_string_equal(trn_npy_descr_for(t[i].dt, true), t[i].raw);
    }
    assert_null(trn_npy_descr_for(TRN_DT_COUNT, false));
    assert_null(trn_npy_descr_for((trn_dtype)-1, true));
}

/* Every descr a dtype accepts for a raw copy loads bit for bit; data are
 * byte patterns (any bits are fine for a copy). */
static void test_load_copies(void **state) {
    static const struct {
        trn_dtype dt;
        const char *descr;
    } t[] = {
        {TRN_DT_INT8, "|i1"},        {TRN_DT_UINT8, "|u1"},       {TRN_DT_INT16, "<i2"},
        {TRN_DT_UINT16, "<u2"},      {TRN_DT_UINT32, "<u4"},      {TRN_DT_INT32, "<i4"},
        {TRN_DT_UINT64, "<u8"},      {TRN_DT_INT64, "<i8"},       {TRN_DT_FP32, "<f4"},
        {TRN_DT_FP16, "<f2"},        {TRN_DT_FP16, "<u2"},        {TRN_DT_BF16, "<u2"},
        {TRN_DT_FP8_E3M4, "|u1"},    {TRN_DT_FP8_E4M3, "|u1"},    {TRN_DT_FP8_E4M3FN, "|u1"},
        {TRN_DT_FP8_E8M0FNU, "|u1"}, {TRN_DT_FP8_E5M2, "|u1"},    {TRN_DT_FP8_E4M3_X4, "<u4"},
        {TRN_DT_FP8_E5M2_X4, "<u4"}, {TRN_DT_FP4_E2M1_X4, "<u2"},
    };
    const int64_t shape[2] = {4, 16};
    unsigned char src[64 * 8], dst[64 * 8];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (unsigned char)(i * 73 + 5);
    /* Include the NaN-ish patterns a conversion would disturb. */
    memcpy(src, "\x01\x00\x80\x7f\x81\x7f\xff\xff", 8);
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        trn_npy n;
        load_file(&n, t[i].descr, 2, shape, src);
        memset(dst, 0, sizeof dst);
        trn_error e = {0};
        if (trn_npy_to_tensor(&n, t[i].dt, 2, shape, dst, &e)) fail_msg("%s", e.msg);
        size_t bytes = 64 * trn_dtype_width(t[i].dt);
        assert_int_equal(bytes, 64 * n.item_size);
        assert_memory_equal(dst, src, bytes);
        trn_npy_free(&n);
    }
}

/* Another integer width loads when every value fits; the first that does
 * not is named and the tensor is left untouched. */
static void test_load_integer_fit(void **state) {
    const int64_t s[1] = {4};
    const int64_t v[4] = {0, 4294967295ll, 4294967296ll, -1};
    trn_npy n;
    load_file(&n, "<i8", 1, s, v);
    expect_load_error(
        &n, TRN_DT_UINT32, 1, s,
        "element 2 [2] is 4294967296, which does not fit uint32 "
        "(0..4294967295); a <i8 array loads into a uint32 tensor only when every value fits");
    trn_npy_free(&n);
    const int64_t ok[4] = {-2147483648ll, 2147483647ll, 7, -7};
    load_file(&n, "<i8", 1, s, ok);
    int32_t got[4];
    trn_error e = {0};
    assert_int_equal(trn_npy_to_tensor(&n, TRN_DT_INT32, 1, s, got, &e), 0);
    for (int i = 0; i < 4; ++i) assert_int_equal(got[i], ok[i]);
    trn_npy_free(&n);
    (void)state;
}

static void test_load_dtype_mismatch(void **state) {
    const int64_t s[1] = {4};
    const unsigned char z[32] = {0};
    static const struct {
        const char *descr;
        trn_dtype dt;
        const char *tail;
    } t[] = {
        {"<f8", TRN_DT_INT32, "dtype <f8 cannot be loaded into a int32 tensor (expected <i4)"},
        {"<i2", TRN_DT_FP16,
         "dtype <i2 cannot be loaded into a float16 tensor (expected <f2, <f4 or <u2)"},
        {"<i8", TRN_DT_FP32, "dtype <i8 cannot be loaded into a float32 tensor (expected <f4)"},
        {"<f2", TRN_DT_FP32R, "dtype <f2 cannot be loaded into a float32r tensor (expected <f4)"},
        {"<u4", TRN_DT_BF16,
         "dtype <u4 cannot be loaded into a bfloat16 tensor (expected <f4 or <u2)"},
        {"<f8", TRN_DT_UINT64, "dtype <f8 cannot be loaded into a uint64 tensor (expected <u8)"},
        {"|b1", TRN_DT_UINT8, "dtype |b1 cannot be loaded into a uint8 tensor (expected |u1)"},
        {"|b1", TRN_DT_INT8, "dtype |b1 cannot be loaded into a int8 tensor (expected |i1)"},
        {"<f4", TRN_DT_INT32, "dtype <f4 cannot be loaded into a int32 tensor (expected <i4)"},
        {"|i1", TRN_DT_FP8_E4M3,
         "dtype |i1 cannot be loaded into a float8_e4m3 tensor (expected <f4 or |u1)"},
        {"<f2", TRN_DT_FP8_E5M2,
         "dtype <f2 cannot be loaded into a float8_e5m2 tensor (expected <f4 or |u1)"},
        {"<f4", TRN_DT_FP8_E4M3_X4,
         "dtype <f4 cannot be loaded into a float8_e4m3_x4 tensor (expected <u4)"},
        {"<i4", TRN_DT_FP8_E5M2_X4,
         "dtype <i4 cannot be loaded into a float8_e5m2_x4 tensor (expected <u4)"},
        {"|u1", TRN_DT_FP4_E2M1_X4,
         "dtype |u1 cannot be loaded into a float4_e2m1_x4 tensor (expected <u2)"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        trn_npy n;
        load_file(&n, t[i].descr, 1, s, z);
        expect_load_error(&n, t[i].dt, 1, s, t[i].tail);
        trn_npy_free(&n);
    }
    trn_npy n;
    load_file(&n, "<f4", 1, s, z);
    expect_load_error(&n, TRN_DT_COUNT, 1, s, "cannot load into a tensor of unknown dtype id 20");
    trn_npy_free(&n);
}

static void test_load_shape_mismatch(void **state) {
    const int64_t s23[2] = {2, 3}, s32[2] = {3, 2}, s6[1] = {6}, s1[1] = {1}, s1x6[3] = {1, 2, 3};
    const float z[6] = {0};
    trn_npy n;
    load_file(&n, "<f4", 2, s23, z);
    expect_load_error(&n, TRN_DT_FP32, 2, s32,
                      "shape (2, 3) does not match the tensor's shape (3, 2)");
    expect_load_error(&n, TRN_DT_FP32, 1, s6,
                      "shape (2, 3) does not match the tensor's shape (6,)");
    expect_load_error(&n, TRN_DT_FP32, 3, s1x6,
                      "shape (2, 3) does not match the tensor's shape (1, 2, 3)");
    trn_npy_free(&n);
    load_file(&n, "<f4", 0, NULL, z);
    expect_load_error(&n, TRN_DT_BF16, 1, s1, "shape () does not match the tensor's shape (1,)");
    trn_npy_free(&n);
    /* A struct built by hand (no file name) is named "npy". */
    trn_npy h = {
        .descr = "<f4", .ndim = 1, .shape = {6}, .item_size = 4, .count = 6, .data = (void *)z};
    expect_load_error(&h, TRN_DT_FP32, 2, s23,
                      "shape (6,) does not match the tensor's shape (2, 3)");
}

/* ---- narrowing on load ------------------------------------------------------ */

/* bf16 keeps the top 16 bits of fp32, rounded to nearest, ties to even
 * (bits worked out by hand; NaN -> 0x7fc0 and no saturation are the reference's). */
static void test_narrow_bf16_rne(void **state) {
    static const struct {
        uint32_t in;
        uint16_t out;
    } t[] = {
        {0x3F800000, 0x3F80}, /* 1.0 */
        {0x3F808000, 0x3F80}, /* 1.00390625: halfway, 0x3F80 even -> stays */
        {0x3F818000, 0x3F82}, /* 1.01171875: halfway, 0x3F81 odd -> up */
        {0x3F810000, 0x3F81}, /* 1.0078125 exact */
        {0x3F808001, 0x3F81}, /* just above halfway -> up */
        {0x3F817FFF, 0x3F81}, /* just below halfway -> down */
        {0xBF818000, 0xBF82}, /* -1.01171875 */
        {0x00000000, 0x0000}, {0x80000000, 0x8000},
        {0x00018000, 0x0002}, /* subnormal tie, odd -> up */
        {0x7F7F8000, 0x7F80}, /* max-finite tie rounds into Inf (no saturation) */
        {0x7F7F7FFF, 0x7F7F}, {0x7F800000, 0x7F80},
        {0xFF800000, 0xFF80},
    };
    enum { N = sizeof t / sizeof t[0] };
    float in[N];
    for (int i = 0; i < N; i++) in[i] = u2f(t[i].in);
    const int64_t s[1] = {N};
    trn_npy n;
    load_file(&n, "<f4", 1, s, in);
    uint16_t out[N];
    trn_error e = {0};
    assert_int_equal(trn_npy_to_tensor(&n, TRN_DT_BF16, 1, s, out, &e), 0);
    for (int i = 0; i < N; i++)
        if (out[i] != t[i].out)
            fail_msg("bf16(0x%08x) = 0x%04x, expected 0x%04x", t[i].in, out[i], t[i].out);
    trn_npy_free(&n);

    /* NaN: quiet, whatever the payload. */
    float nan_in[2] = {u2f(0x7FC00000), u2f(0x7F800001)};
    const int64_t s2[1] = {2};
    load_file(&n, "<f4", 1, s2, nan_in);
    assert_int_equal(trn_npy_to_tensor(&n, TRN_DT_BF16, 1, s2, out, &e), 0);
    for (int i = 0; i < 2; i++) assert_true((out[i] & 0x7F80) == 0x7F80 && (out[i] & 0x7F) != 0);
    trn_npy_free(&n);
}

/* fp32 -> fp16 bits by a plain route: scale into an integer range in
 * double (exact) and round with nearbyint (the default mode: ties to even). */
static uint16_t ref_f16(float x) {
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs((double)x);
    if (isnan(x)) return 0x7E00;
    if (a >= 65520.0) return sign | 0x7C00; /* 65520 is the tie above 65504: even is Inf */
    if (a < 0x1p-14)
        return sign | (uint16_t)nearbyint(a * 0x1p24); /* 1024 becomes the smallest normal */
    int e;
    frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
    e -= 1;       /* a = 1.f * 2^e */
    double mant = nearbyint(ldexp(a, 10 - e));
    if (mant == 2048.0) mant = 1024.0, e++;
    if (e + 15 >= 31) return sign | 0x7C00;
    return sign | (uint16_t)((e + 15) << 10 | ((int)mant - 1024));
}

/* float16 from <f4: RNE, compared with ref_f16 and, where the compiler has
 * it, _Float16 (two independent implementations) over a sweep of patterns. */
static void test_narrow_f16_vs_float16(void **state) {
    enum { N = 4096 };
    static float in[N];
    static uint16_t out[N];
    for (int i = 0; i < N; i++) {
        /* Exponents from below the f16 subnormals to overflow, with mantissa
         * bits around the rounding point; every 8th value negative. */
        uint32_t exp = 100 + (uint32_t)(i % 50);
        uint32_t mant = ((uint32_t)i * 2654435761u) & 0x7FFFFF;
        if (i % 7 == 0) mant = (mant & ~0x1FFFu) | 0x1000; /* exact ties */
        in[i] = u2f((i % 8 == 3 ? 0x80000000u : 0) | exp << 23 | mant);
    }
    in[0] = 65520.0f; /* halfway between 65504 and 2^16: even -> Inf */
    in[1] = 65519.0f;
    in[2] = u2f(0x33000000); /* 2^-25: halfway to the smallest subnormal -> 0 */
    in[3] = u2f(0x33000001);
    const int64_t s[2] = {64, 64};
    trn_npy n;
    load_file(&n, "<f4", 2, s, in);
    trn_error e = {0};
    assert_int_equal(trn_npy_to_tensor(&n, TRN_DT_FP16, 2, s, out, &e), 0);
    for (int i = 0; i < N; i++) {
        uint16_t want = ref_f16(in[i]);
        if (out[i] != want)
            fail_msg("f16(0x%08x) = 0x%04x, expected 0x%04x", f2u(in[i]), out[i], want);
#ifdef __FLT16_MAX__
        _Float16 h = (_Float16)in[i];
        memcpy(&want, &h, 2);
        if (out[i] != want)
            fail_msg("f16(0x%08x) = 0x%04x, _Float16 gives 0x%04x", f2u(in[i]), out[i], want);
#endif
    }
    assert_int_equal(out[0], 0x7C00);
    assert_int_equal(out[1], 0x7BFF);
    assert_int_equal(out[2], 0x0000);
    assert_int_equal(out[3], 0x0001);
    trn_npy_free(&n);
}

/* fp8 from <f4 goes through the core's encoder for the right format (each
 * element equals trn_f32_to_fp8 for that dtype); E5M2 is fp16's top byte,
 * so its ties can be worked out by hand. */
static void test_narrow_fp8(void **state) {
    enum { N = 512 };
    static float in[N];
    static uint8_t out[N];
    /* Every exponent, two mantissas each, a third of them negative. */
    for (int i = 0; i < N; i++)
        in[i] = u2f((i % 3 == 0 ? 0x80000000u : 0) | (uint32_t)i << 22 | (i & 1 ? 0x3FFFFu : 0));
    const int64_t s[1] = {N};
    trn_npy n;
    load_file(&n, "<f4", 1, s, in);
    trn_error e = {0};
    for (trn_dtype dt = TRN_DT_FP8_E3M4; dt <= TRN_DT_FP8_E5M2; dt++) {
        assert_int_equal(trn_npy_to_tensor(&n, dt, 1, s, out, &e), 0);
        for (int i = 0; i < N; i++) {
            uint8_t want = trn_f32_to_fp8(dt, in[i]);
            if (out[i] != want)
                fail_msg("%s(0x%08x) = 0x%02x, expected 0x%02x", trn_dtype_name(dt), f2u(in[i]),
                         out[i], want);
        }
    }
    trn_npy_free(&n);

    const float ties[4] = {1.0f, 1.125f, 1.375f, -1.375f};
    const uint8_t want[4] = {0x3C, 0x3C, 0x3E, 0xBE};
    const int64_t s4[1] = {4};
    load_file(&n, "<f4", 1, s4, ties);
    assert_int_equal(trn_npy_to_tensor(&n, TRN_DT_FP8_E5M2, 1, s4, out, &e), 0);
    assert_memory_equal(out, want, 4);
    trn_npy_free(&n);
}

/* float32 is a plain copy: a signalling NaN keeps its bits. */
static void test_load_f32_keeps_bits(void **state) {
    const float in[3] = {u2f(0x7F800001), u2f(0xFFC12345), -0.0f};
    float out[3];
    const int64_t s[1] = {3};
    trn_npy n;
    load_file(&n, "<f4", 1, s, in);
    trn_error e = {0};
    assert_int_equal(trn_npy_to_tensor(&n, TRN_DT_FP32, 1, s, out, &e), 0);
    assert_memory_equal(out, in, sizeof in);
    trn_npy_free(&n);
    /* float32r stores fp32: ordinary values come through unchanged. */
    const float r[4] = {1.0f, -3.25f, 1e-40f, 3.4e38f};
    const int64_t s4[1] = {4};
    float rout[4];
    load_file(&n, "<f4", 1, s4, r);
    assert_int_equal(trn_npy_to_tensor(&n, TRN_DT_FP32R, 1, s4, rout, &e), 0);
    assert_memory_equal(rout, r, sizeof r);
    trn_npy_free(&n);
}

static void test_load_empty_and_scalar(void **state) {
    const int64_t s0[2] = {0, 3};
    trn_npy n;
    load_file(&n, "<f4", 2, s0, NULL);
    uint16_t dst[1] = {0x1234};
    trn_error e = {0};
    assert_int_equal(trn_npy_to_tensor(&n, TRN_DT_BF16, 2, s0, dst, &e), 0);
    assert_int_equal(dst[0], 0x1234);
    trn_npy_free(&n);
    const float one = 1.01171875f;
    load_file(&n, "<f4", 0, NULL, &one);
    assert_int_equal(trn_npy_to_tensor(&n, TRN_DT_BF16, 0, NULL, dst, &e), 0);
    assert_int_equal(dst[0], 0x3F82);
    trn_npy_free(&n);
}

/* ---- writing tensors ---------------------------------------------------------- */

static void test_from_tensor_bf16(void **state) {
    const uint16_t bits[5] = {0x3F80, 0x3F82, 0xBF81, 0x7F80, 0x0001};
    void *out;
    const char *descr;
    trn_error e = {0};
    assert_int_equal(trn_npy_from_tensor(TRN_DT_BF16, bits, 5, false, &out, &descr, &e), 0);
    assert_string_equal(descr, "<f4");
    for (int i = 0; i < 5; i++) assert_int_equal(f2u(((float *)out)[i]), (uint32_t)bits[i] << 16);
    free(out);
    assert_int_equal(trn_npy_from_tensor(TRN_DT_BF16, bits, 5, true, &out, &descr, &e), 0);
    assert_string_equal(descr, "<u2");
    assert_memory_equal(out, bits, sizeof bits);
    free(out);
}

static void test_from_tensor_fp8(void **state) {
    uint8_t codes[256];
    for (int i = 0; i < 256; i++) codes[i] = (uint8_t)i;
    void *out;
    const char *descr;
    trn_error e = {0};
    for (trn_dtype dt = TRN_DT_FP8_E3M4; dt <= TRN_DT_FP8_E5M2; dt++) {
        assert_int_equal(trn_npy_from_tensor(dt, codes, 256, false, &out, &descr, &e), 0);
        assert_string_equal(descr, "<f4");
        for (int i = 0; i < 256; i++) {
            float want = trn_fp8_to_f32(dt, (uint8_t)i);
            assert_int_equal(f2u(((float *)out)[i]), f2u(want));
        }
        free(out);
        assert_int_equal(trn_npy_from_tensor(dt, codes, 256, true, &out, &descr, &e), 0);
        assert_string_equal(descr, "|u1");
        assert_memory_equal(out, codes, 256);
        free(out);
    }
    /* E5M2 by hand: the top byte of fp16. 0x3C = 1.0, 0x3E = 1.5, 0xC5 = -5.0 */
    assert_int_equal(trn_npy_from_tensor(TRN_DT_FP8_E5M2, codes, 256, false, &out, &descr, &e), 0);
    assert_true(((float *)out)[0x3C] == 1.0f);
    assert_true(((float *)out)[0x3E] == 1.5f);
    assert_true(((float *)out)[0xC5] == -5.0f);
    assert_true(((float *)out)[0x01] == 0x1p-16f);
    free(out);
}

/* Everything else is written as its bytes. */
static void test_from_tensor_copies(void **state) {
    unsigned char src[8 * 8];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (unsigned char)(i * 29 + 3);
    static const trn_dtype dts[] = {
        TRN_DT_INT8,        TRN_DT_UINT8,       TRN_DT_INT16,      TRN_DT_UINT16, TRN_DT_UINT32,
        TRN_DT_INT32,       TRN_DT_UINT64,      TRN_DT_INT64,      TRN_DT_FP32,   TRN_DT_FP16,
        TRN_DT_FP8_E4M3_X4, TRN_DT_FP8_E5M2_X4, TRN_DT_FP4_E2M1_X4};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
        for (int raw = 0; raw < 2; raw++) {
            void *out;
            const char *descr;
            trn_error e = {0};
            assert_int_equal(trn_npy_from_tensor(dts[i], src, 8, raw, &out, &descr, &e), 0);
            assert_string_equal(descr, trn_npy_descr_for(dts[i], raw));
            assert_memory_equal(out, src, 8 * trn_dtype_width(dts[i]));
            free(out);
        }
    }
    void *out = (void *)1;
    const char *descr = "x";
    trn_error e = {0};
    assert_int_equal(trn_npy_from_tensor(TRN_DT_COUNT, src, 8, false, &out, &descr, &e), -1);
    assert_string_equal(e.msg, "cannot write a tensor of unknown dtype id 20");
    assert_null(out);
    assert_null(descr);
    /* Zero elements: a valid (non-NULL) empty buffer. */
    assert_int_equal(trn_npy_from_tensor(TRN_DT_BF16, NULL, 0, false, &out, &descr, &e), 0);
    assert_non_null(out);
    free(out);
}

/* A whole trip: bf16 tensor -> <f4 file -> bf16 tensor is lossless for
 * non-NaN values; so is the raw <u2 form for every pattern. */
static void test_bf16_file_round_trip(void **state) {
    enum { N = 65536 };
    static uint16_t bits[N], back[N];
    for (int i = 0; i < N; i++) bits[i] = (uint16_t)i;
    const int64_t s[2] = {256, 256};
    const char *p = npy_tmp("bf.npy");
    for (int raw = 0; raw < 2; raw++) {
        void *buf;
        const char *descr;
        trn_error e = {0};
        assert_int_equal(trn_npy_from_tensor(TRN_DT_BF16, bits, N, raw, &buf, &descr, &e), 0);
        assert_int_equal(trn_npy_write(p, descr, 2, s, buf, &e), 0);
        free(buf);
        trn_npy n;
        assert_int_equal(trn_npy_read(p, &n, &e), 0);
        assert_string_equal(n.descr, raw ? "<u2" : "<f4");
        assert_int_equal(trn_npy_to_tensor(&n, TRN_DT_BF16, 2, s, back, &e), 0);
        trn_npy_free(&n);
        for (int i = 0; i < N; i++) {
            bool nan = (bits[i] & 0x7F80) == 0x7F80 && (bits[i] & 0x7F);
            if (raw || !nan) {
                if (back[i] != bits[i])
                    fail_msg("raw=%d 0x%04x came back as 0x%04x", raw, bits[i], back[i]);
            } else {
                assert_true((back[i] & 0x7F80) == 0x7F80 && (back[i] & 0x7F) != 0);
            }
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descr_for),
        cmocka_unit_test(test_load_copies),
        cmocka_unit_test(test_load_dtype_mismatch),
        cmocka_unit_test(test_load_integer_fit),
        cmocka_unit_test(test_load_shape_mismatch),
        cmocka_unit_test(test_narrow_bf16_rne),
        cmocka_unit_test(test_narrow_f16_vs_float16),
        cmocka_unit_test(test_narrow_fp8),
        cmocka_unit_test(test_load_f32_keeps_bits),
        cmocka_unit_test(test_load_empty_and_scalar),
        cmocka_unit_test(test_from_tensor_bf16),
        cmocka_unit_test(test_from_tensor_fp8),
        cmocka_unit_test(test_from_tensor_copies),
        cmocka_unit_test(test_bf16_file_round_trip),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
