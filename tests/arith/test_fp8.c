/* fp8: E3M4 / E4M3 / E5M2 (IEEE-style, config 0) and OCP e4m3fn against an
 * independent exact reference: all 256 codes decoded by a hand formula in
 * double, the nearest picked by exact distance, ties to the even mantissa,
 * and one virtual code past the largest finite value that stands for
 * overflow (Inf for the IEEE-style formats, NaN for e4m3fn). Checked on
 * every rounding boundary (all subnormal ones, the overflow one, signed
 * zero) and a dense sweep. Widen is exact for all 256 codes. e8m0fnu has
 * its own reference at the end. */
#include "arith_test_util.h"

#include <float.h>

typedef struct fmt {
    trn_dtype dt;
    const char *name;
    int mbits, bias;
    bool fn;         /* OCP e4m3fn: no Inf, S.1111.111 NaN */
    uint8_t maxcode; /* largest finite magnitude code */
    uint8_t nan;     /* canonical NaN (docs/dtypes.md) */
    double max;      /* largest finite value, by hand */
} fmt;

static const fmt FMTS[] = {
    {TRN_DT_FP8_E3M4, "e3m4", 4, 3, false, 0x6f, 0x78, 15.5},
    {TRN_DT_FP8_E4M3, "e4m3", 3, 7, false, 0x77, 0x7c, 240.0},
    {TRN_DT_FP8_E5M2, "e5m2", 2, 15, false, 0x7b, 0x7e, 57344.0},
    {TRN_DT_FP8_E4M3FN, "e4m3fn", 3, 7, true, 0x7e, 0x7f, 448.0},
};
#define NFMT (sizeof FMTS / sizeof FMTS[0])

/* Magnitude of a finite code (sign bit ignored), by the textbook formula. */
static double mag_value(const fmt *f, uint8_t c) {
    int e = (c & 0x7f) >> f->mbits, m = c & ((1 << f->mbits) - 1);
    if (e == 0) return ldexp(m, 1 - f->bias - f->mbits);
    return ldexp((1 << f->mbits) + m, e - f->bias - f->mbits);
}

/* Candidate magnitudes 0..maxcode+1; the last one is the virtual overflow
 * value max + ulp(max). */
static double cand_value(const fmt *f, int c) {
    if (c <= f->maxcode) return mag_value(f, (uint8_t)c);
    int e = f->maxcode >> f->mbits;
    return f->max + ldexp(1.0, e - f->bias - f->mbits);
}

/* The candidates of each format, decoded once (test-local cache). */
static double CAND[sizeof FMTS / sizeof FMTS[0]][129];

static int setup_cand(void **state) {
    (void)state;
    for (size_t k = 0; k < sizeof FMTS / sizeof FMTS[0]; k++)
        for (int c = 0; c <= FMTS[k].maxcode + 1; c++) CAND[k][c] = cand_value(&FMTS[k], c);
    return 0;
}

static uint8_t ref_encode(const fmt *f, float v) {
    if (isnan(v)) return f->nan;
    const double *cand = CAND[f - FMTS];
    uint8_t sign = signbit(v) ? 0x80 : 0;
    double a = fabs((double)v);
    int over = f->maxcode + 1;
    if (a >= cand[over]) /* also Inf; keeps huge values out of the search */
        return (uint8_t)(sign | over);
    int best = 0;
    double bestd = a;
    for (int c = 1; c <= over; c++) {
        double d = fabs(a - cand[c]);
        if (d < bestd || (d == bestd && (c & 1) == 0)) {
            best = c;
            bestd = d;
        }
    }
    return (uint8_t)(sign | best);
}

static void check(const fmt *f, float v) {
    uint8_t got = trn_f32_to_fp8(f->dt, v), want = ref_encode(f, v);
    if (got != want)
        fail_msg("%s: f32 %08x (%.9g) -> %02x, expected %02x", f->name, fbits(v), (double)v, got,
                 want);
}

static void check_around(const fmt *f, double x) {
    float v = (float)x;
    assert_true((double)v == x); /* every boundary here is an fp32 value */
    float pts[3] = {v, nextafterf(v, 0.0f), nextafterf(v, INFINITY)};
    for (int i = 0; i < 3; i++) {
        check(f, pts[i]);
        check(f, -pts[i]);
    }
}

/* The hand-picked facts the reference must agree with, then every midpoint
 * between adjacent codes (subnormal ones, the subnormal/normal seam and the
 * overflow midpoint included) and every code value, each with its fp32
 * neighbours, on both signs. */
static void test_boundaries(void **state) {
    (void)state;
    for (size_t k = 0; k < NFMT; k++) {
        const fmt *f = &FMTS[k];
        assert_true(mag_value(f, f->maxcode) == f->max);
        for (int c = 0; c <= f->maxcode; c++) {
            check_around(f, cand_value(f, c));
            check_around(f, (cand_value(f, c) + cand_value(f, c + 1)) / 2);
        }
        check_around(f, cand_value(f, f->maxcode + 1));
        /* signed zero and the far ends of fp32 */
        assert_int_equal(trn_f32_to_fp8(f->dt, 0.0f), 0x00);
        assert_int_equal(trn_f32_to_fp8(f->dt, -0.0f), 0x80);
        float specials[] = {FLT_MIN, bitsf(1), bitsf(0x007fffff), FLT_MAX, INFINITY};
        for (size_t i = 0; i < sizeof specials / sizeof specials[0]; i++) {
            check(f, specials[i]);
            check(f, -specials[i]);
        }
    }
}

/* Config 0 spelled out: overflow gives Inf (e4m3fn: NaN) with the sign,
 * NaN gives the canonical NaN whatever its sign or payload. */
static void test_config0(void **state) {
    (void)state;
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E4M3, 240.0f), 0x77);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E4M3, 247.99998f), 0x77);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E4M3, 248.0f), 0x78); /* max + half ulp -> Inf */
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E4M3, -248.0f), 0xf8);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E3M4, 15.75f), 0x70);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E3M4, 15.74f), 0x6f);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E5M2, 61440.0f), 0x7c);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E5M2, 61439.996f), 0x7b);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E5M2, -INFINITY), 0xfc);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E4M3FN, 464.0f),
                     0x7e); /* tie: 448 has the even mantissa */
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E4M3FN, 464.00003f), 0x7f);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E4M3FN, -1e6f), 0xff);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E4M3FN, INFINITY), 0x7f);
    for (size_t k = 0; k < NFMT; k++) {
        const fmt *f = &FMTS[k];
        assert_int_equal(trn_f32_to_fp8(f->dt, bitsf(0x7fc00000u)), f->nan);
        assert_int_equal(trn_f32_to_fp8(f->dt, bitsf(0xffc00000u)), f->nan);
        assert_int_equal(trn_f32_to_fp8(f->dt, bitsf(0x7f800001u)), f->nan);
    }
    /* subnormal steps: smallest, half of it (tie to 0), 1.5 of it (tie to 2) */
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E4M3, 0x1p-9f), 0x01);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E4M3, 0x1p-10f), 0x00);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E4M3, -0x1.8p-9f), 0x82);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E5M2, 0x1p-16f), 0x01);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E3M4, 0x1p-6f), 0x01);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E3M4, 0x1.f8p-3f),
                     0x10); /* rounds up into the min normal */
}

/* Every 4093rd fp32 pattern, and every 997th pattern of the range where
 * the formats round (|v| in [2^-20, 2^17)), both signs. */
static void test_dense(void **state) {
    (void)state;
    for (size_t k = 0; k < NFMT; k++) {
        const fmt *f = &FMTS[k];
        for (uint64_t u = 0; u <= 0xffffffffu; u += 4093) check(f, bitsf((uint32_t)u));
        for (uint32_t u = 0x35800000u; u < 0x48000000u; u += 997) {
            check(f, bitsf(u));
            check(f, bitsf(u | 0x80000000u));
        }
    }
}

static void test_widen_all(void **state) {
    (void)state;
    for (size_t k = 0; k < NFMT; k++) {
        const fmt *f = &FMTS[k];
        for (int c = 0; c < 256; c++) {
            uint32_t got = fbits(trn_fp8_to_f32(f->dt, (uint8_t)c));
            uint32_t sign = (uint32_t)(c & 0x80) << 24;
            int mag = c & 0x7f;
            uint32_t want;
            if (mag > f->maxcode) { /* Inf (mantissa 0) or NaN keeping its payload */
                uint32_t m = (uint32_t)(mag & ((1 << f->mbits) - 1));
                want = sign | 0x7f800000u | (m << (23 - f->mbits));
                if (f->fn || m)
                    assert_true(isnan(bitsf(want)));
                else
                    assert_true(isinf(bitsf(want)));
            } else {
                want = sign | fbits((float)mag_value(f, (uint8_t)mag));
            }
            if (got != want)
                fail_msg("%s: code %02x -> %08x, expected %08x", f->name, c, got, want);
            /* a finite code narrows back to itself */
            if (mag <= f->maxcode) assert_int_equal(trn_f32_to_fp8(f->dt, bitsf(got)), c);
        }
    }
    assert_f32_bits(trn_fp8_to_f32(TRN_DT_FP8_E4M3, 0x38), 1.0f);
    assert_f32_bits(trn_fp8_to_f32(TRN_DT_FP8_E4M3, 0x77), 240.0f);
    assert_f32_bits(trn_fp8_to_f32(TRN_DT_FP8_E4M3FN, 0x7e), 448.0f);
    assert_f32_bits(trn_fp8_to_f32(TRN_DT_FP8_E5M2, 0x7b), 57344.0f);
    assert_f32_bits(trn_fp8_to_f32(TRN_DT_FP8_E3M4, 0x6f), 15.5f);
    assert_f32_bits(trn_fp8_to_f32(TRN_DT_FP8_E3M4, 0x81), -0x1p-6f);
    assert_int_equal(fbits(trn_fp8_to_f32(TRN_DT_FP8_E5M2, 0xfc)), 0xff800000u);
}

/* ---- e8m0fnu ---- */

/* Nearest power of two 2^(c-127), c in 0..254, by linear distance, a tie
 * to the even code; past 254 is NaN; zero -> 0x00; negative / NaN -> 0xFF. */
static uint8_t ref_e8m0(float v) {
    if (isnan(v) || (v < 0.0f)) return 0xff;
    if (v == 0.0f) return 0x00;
    double a = v, p = ldexp(1.0, -127);
    int best = 0;
    double bestd = fabs(a - p);
    for (int c = 1; c <= 255; c++) { /* 255 stands for the virtual 2^128 */
        p *= 2.0;                    /* 2^(c-127), exact */
        double d = fabs(a - p);
        if (d < bestd || (d == bestd && (c & 1) == 0)) {
            best = c;
            bestd = d;
        }
    }
    return (uint8_t)best;
}

static void test_e8m0(void **state) {
    (void)state;
    for (int c = 0; c < 255; c++)
        assert_int_equal(fbits(trn_fp8_to_f32(TRN_DT_FP8_E8M0FNU, (uint8_t)c)),
                         fbits((float)ldexp(1.0, c - 127)));
    assert_true(isnan(trn_fp8_to_f32(TRN_DT_FP8_E8M0FNU, 0xff)));
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, 1.0f), 127);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, 1.5f), 128); /* tie: 128 is even */
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, 3.0f), 128); /* tie: 2 (128) vs 4 (129) */
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, 3.0000002f), 129);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, 0.0f), 0x00);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, -0.0f), 0x00);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, -1.0f), 0xff);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, INFINITY), 0xff);
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, FLT_MAX),
                     0xff); /* nearer 2^128 than 2^127 */
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, 0x1.8p127f), 254); /* tie: 254 is even */
    assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, bitsf(1)), 0x00);
    for (uint64_t u = 0; u <= 0xffffffffu; u += 16411)
        assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, bitsf((uint32_t)u)),
                         ref_e8m0(bitsf((uint32_t)u)));
    for (int c = 1; c < 255; c++) { /* every midpoint and its neighbours */
        float mid = (float)(1.5 * ldexp(1.0, c - 127 - 1));
        float pts[] = {mid, nextafterf(mid, 0.0f), nextafterf(mid, INFINITY)};
        for (int i = 0; i < 3; i++)
            assert_int_equal(trn_f32_to_fp8(TRN_DT_FP8_E8M0FNU, pts[i]), ref_e8m0(pts[i]));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_boundaries), cmocka_unit_test(test_config0),
        cmocka_unit_test(test_dense),      cmocka_unit_test(test_widen_all),
        cmocka_unit_test(test_e8m0),
    };
    return cmocka_run_group_tests(tests, setup_cand, NULL);
}
