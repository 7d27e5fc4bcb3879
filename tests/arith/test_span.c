/* The span forms against the per-element reference, bit for bit, on random
 * data (special values included), odd lengths and unaligned buffers: widen
 * and narrow for every widenable dtype, accumulate for every reducing dtype
 * and op, copy for all 20. */
#include "arith_test_util.h"

enum { N = 1031, ROUNDS = 40 };

static void fill_bytes(test_rng *r, unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)rng_u32(r);
}

static void test_widen_narrow_spans(void **state) {
    (void)state;
    static unsigned char raw[8 * N + 3], out[8 * N + 3], ref[8 * N];
    static float f[N], g[N];
    test_rng r = {0x9e3779b97f4a7c15ull};
    for (int i = 0; i < TRN_DT_COUNT; i++) {
        trn_dtype dt = (trn_dtype)i;
        if (!trn_dtype_widens(dt)) continue;
        size_t w = trn_dtype_width(dt);
        for (int round = 0; round < ROUNDS; round++) {
            size_t n = N - (size_t)round;   /* odd and even lengths */
            size_t off = (size_t)round % 3; /* unaligned starts */
            /* widen: random element bytes */
            fill_bytes(&r, raw + off, n * w);
            trn_widen_span(dt, raw + off, f, n);
            for (size_t k = 0; k < n; k++) {
                float want = trn_widen(dt, raw + off + k * w);
                if (fbits(f[k]) != fbits(want))
                    fail_msg("%s widen span [%zu]: %08x, element %08x", trn_dtype_name(dt), k,
                             fbits(f[k]), fbits(want));
            }
            /* narrow: random fp32 values */
            for (size_t k = 0; k < n; k++) g[k] = bitsf(rng_f32_bits(&r));
            trn_narrow_span(dt, g, out + off, n);
            for (size_t k = 0; k < n; k++) trn_narrow(dt, g[k], ref + k * w);
            if (memcmp(out + off, ref, n * w) != 0) {
                for (size_t k = 0; k < n; k++)
                    if (memcmp(out + off + k * w, ref + k * w, w) != 0)
                        fail_msg("%s narrow span differs at [%zu] for f32 %08x", trn_dtype_name(dt),
                                 k, fbits(g[k]));
            }
        }
        /* n == 0 touches nothing */
        memset(out, 0x5a, 16);
        trn_narrow_span(dt, g, out, 0);
        trn_widen_span(dt, out, f, 0);
        assert_int_equal(out[0], 0x5a);
    }
}

/* Random elements of dt: raw bytes, and for the float dtypes also
 * encodings of random fp32 values so that NaN / Inf / ties show up. */
static void fill_elems(test_rng *r, trn_dtype dt, unsigned char *p, size_t n) {
    size_t w = trn_dtype_width(dt);
    fill_bytes(r, p, n * w);
    if (trn_dtype_is_float(dt))
        for (size_t k = 0; k < n; k += 2) trn_narrow(dt, bitsf(rng_f32_bits(r)), p + k * w);
    /* some equal pairs are made by the caller */
}

static void test_accumulate_spans(void **state) {
    (void)state;
    static unsigned char dst[8 * N + 3], src[8 * N + 3], ref[8 * N];
    test_rng r = {0x0123456789abcdefull};
    for (int i = 0; i < TRN_DT_COUNT; i++) {
        trn_dtype dt = (trn_dtype)i;
        size_t w = trn_dtype_width(dt);
        for (trn_acc_op op = TRN_ACC_COPY; op <= TRN_ACC_MAX; op++) {
            if (op != TRN_ACC_COPY && !trn_dtype_reduces(dt)) continue;
            for (int round = 0; round < ROUNDS; round++) {
                size_t n = N - (size_t)round, off = (size_t)round % 3;
                fill_elems(&r, dt, dst + off, n);
                fill_elems(&r, dt, src + off, n);
                for (size_t k = 0; k < n; k += 7) /* ties */
                    memcpy(src + off + k * w, dst + off + k * w, w);
                for (size_t k = 3; k < n; k += 11) /* -0.0 vs +0.0 and friends */
                    if (trn_dtype_is_float(dt)) {
                        trn_narrow(dt, (k & 1) ? -0.0f : 0.0f, dst + off + k * w);
                        trn_narrow(dt, (k & 1) ? 0.0f : -0.0f, src + off + k * w);
                    }
                memcpy(ref, dst + off, n * w);
                trn_error e = {0};
                for (size_t k = 0; k < n; k++)
                    assert_int_equal(
                        trn_cast_copy_or_accumulate(op, ref + k * w, src + off + k * w, dt, &e), 0);
                assert_int_equal(trn_accumulate_span(op, dst + off, src + off, dt, n, &e), 0);
                if (memcmp(dst + off, ref, n * w) != 0) {
                    for (size_t k = 0; k < n; k++)
                        if (memcmp(dst + off + k * w, ref + k * w, w) != 0)
                            fail_msg("%s op %d: span differs from element at [%zu]",
                                     trn_dtype_name(dt), (int)op, k);
                }
            }
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_widen_narrow_spans),
        cmocka_unit_test(test_accumulate_spans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
