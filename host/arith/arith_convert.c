/* Widen (dtype -> fp32) and narrow (fp32 -> dtype), element and span.
 *
 * The per-element functions transliterate the reference's encoders (bf16 with
 * guard / lsb / sticky, fp16 with the 0x37FFF001 round constant and the
 * +0.5 subnormal trick) and are the reference. The span functions choose
 * the format once and run branch-free inner loops that the compiler can
 * vectorise; tests/arith compares them with the element functions bit for
 * bit. docs/dtypes.md and docs/arith.md describe every rule used here. */
#include "arith/arith.h"

#include <math.h>

/* ---- bfloat16 ------------------------------------------------------------ */

/* cast_fp32_to_bf16 @ 0x2a42e0: NaN -> 0x7fc0 with the sign dropped, Inf
 * kept, otherwise conditional RNE on the 16 discarded bits. The hidden bit
 * is restored so that a carry out of the mantissa shows up in bit 24 and
 * bumps the exponent (also for subnormals, where it lifts exp 0 to 1). */
uint16_t trn_f32_to_bf16(float v) {
    if (isnan(v)) return 0x7fc0;
    uint32_t u = trn_f32_bits(v);
    uint32_t sign = u >> 31;
    uint32_t exp = (u >> 23) & 0xff;
    if (exp == 0xff) return (uint16_t)((sign << 15) | 0x7f80);
    uint32_t m = (u & 0x7fffff) | 0x800000;
    uint32_t guard = m & 0x8000;
    uint32_t lsb_kept = m & 0x10000;
    uint32_t sticky = m & 0x7fff;
    if (guard && (lsb_kept || sticky)) m += 0x10000;
    exp += m >> 24;       /* carry out of the 24-bit significand */
    m = (m >> 16) & 0x7f; /* the 7 stored mantissa bits */
    return (uint16_t)((sign << 15) | (exp << 7) | m);
}

float trn_bf16_to_f32(uint16_t h) { return trn_bits_f32((uint32_t)h << 16); }

/* Branch-free twin for the spans: adding 0x7fff + lsb is the same RNE
 * (a carry into the exponent field is the exponent bump; exp 0xfe with an
 * all-ones mantissa carries into Inf exactly as above). */
static inline uint16_t bf16_encode_fast(uint32_t u) {
    uint32_t r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? 0x7fc0u : r);
}

/* ---- float16 ------------------------------------------------------------- */

/* The inline encoder of cast_copy_or_accumulate @ 0x28ffd0:
 *   mag in (0x387fffff, 0x477fffff]: (mag + lsb13 - 0x37FFF001) >> 13, i.e.
 *     rebias by -0x38000000 and RNE with 0xfff + lsb;
 *   mag <= 0x387fffff (below 2^-14): |v| + 0.5f in fp32, whose ulp 2^-24 is
 *     the fp16 subnormal step, so the FPU's RNE does the rounding and the
 *     low bits of the sum are the fp16 code;
 *   above: finite / Inf -> Inf 0x7c00, NaN -> 0x7e00. The sign is kept. */
uint16_t trn_f32_to_f16(float v) {
    uint32_t u = trn_f32_bits(v);
    uint32_t sign = (u >> 16) & 0x8000;
    uint32_t mag = u & 0x7fffffff;
    uint32_t out;
    if (mag <= 0x477fffff) {
        if (mag > 0x387fffff)
            out = (mag + ((mag >> 13) & 1) - 0x37fff001u) >> 13;
        else
            out = trn_f32_bits(trn_bits_f32(mag) + 0.5f) - 0x3f000000u;
    } else {
        out = mag < 0x7f800001u ? 0x7c00 : 0x7e00;
    }
    return (uint16_t)(out | sign);
}

/* The inline decoder: rebase the exponent (+0x38000000 normal, +0x70000000
 * Inf/NaN so the NaN payload is kept), subnormals renormalised by an fp32
 * subtraction of 2^-14, then the sign. */
float trn_f16_to_f32(uint16_t h) {
    uint32_t x = h;
    uint32_t e = (x << 13) & 0x0f800000u;
    uint32_t em = (x << 13) & 0x0fffe000u;
    uint32_t f;
    if (e == 0x0f800000u)
        f = em + 0x70000000u;
    else if (e != 0)
        f = em + 0x38000000u;
    else
        f = trn_f32_bits(trn_bits_f32(em + 0x38800000u) - 0x1p-14f);
    return trn_bits_f32(f | ((x << 16) & 0x80000000u));
}

/* Branch-free twins: all three candidates are computed and one is picked. */
static inline uint16_t f16_encode_fast(uint32_t u) {
    uint32_t sign = (u >> 16) & 0x8000u;
    uint32_t mag = u & 0x7fffffffu;
    uint32_t norm = (mag + ((mag >> 13) & 1u) - 0x37fff001u) >> 13;
    uint32_t sub = trn_f32_bits(trn_bits_f32(mag) + 0.5f) - 0x3f000000u;
    uint32_t big = mag > 0x7f800000u ? 0x7e00u : 0x7c00u;
    /* Masks rather than ?: so the fp32 add is not sunk into a branch (the
     * default -ftrapping-math would then keep the loop scalar). */
    uint32_t is_big = 0u - (uint32_t)(mag > 0x477fffffu);
    uint32_t is_norm = ~is_big & (0u - (uint32_t)(mag > 0x387fffffu));
    uint32_t is_sub = ~is_big & ~is_norm;
    uint32_t r = (big & is_big) | (norm & is_norm) | (sub & is_sub);
    return (uint16_t)(r | sign);
}

static inline uint32_t f16_decode_fast(uint32_t x) {
    uint32_t em = (x << 13) & 0x0fffe000u;
    uint32_t e = em & 0x0f800000u;
    uint32_t sub = trn_f32_bits(trn_bits_f32(em + 0x38800000u) - 0x1p-14f);
    uint32_t is_sub = 0u - (uint32_t)(e == 0); /* masks: see f16_encode_fast */
    uint32_t big = e == 0x0f800000u ? em + 0x70000000u : em + 0x38000000u;
    uint32_t r = (sub & is_sub) | (big & ~is_sub);
    return r | ((x << 16) & 0x80000000u);
}

/* ---- fp8 ----------------------------------------------------------------- */

typedef struct fp8_fmt {
    uint32_t mbits; /* stored mantissa bits */
    int bias;
    uint32_t top;   /* magnitude code of overflow: Inf (IEEE-style) or NaN (fn) */
    uint8_t nan;    /* canonical NaN (config 0) */
    bool has_inf;   /* all-ones exponent = Inf (mantissa 0) / NaN */
    float sub_unit; /* value of subnormal code 1: 2^(1 - bias - mbits) */
} fp8_fmt;

/* IEEE-style: bias 2^(e-1)-1; all-ones exponent is Inf / NaN; the canonical
 * NaN is the positive quiet NaN (all-ones exponent, mantissa MSB set).
 * OCP e4m3fn: bias 7, no Inf, S.1111.111 is NaN, max 448. */
static const fp8_fmt FP8_E3M4 = {4, 3, 0x70, 0x78, true, 0x1p-6f};
static const fp8_fmt FP8_E4M3 = {3, 7, 0x78, 0x7c, true, 0x1p-9f};
static const fp8_fmt FP8_E5M2 = {2, 15, 0x7c, 0x7e, true, 0x1p-16f};
static const fp8_fmt FP8_E4M3FN = {3, 7, 0x7f, 0x7f, false, 0x1p-9f};

static const fp8_fmt *fp8_format(trn_dtype dt) {
    switch (dt) {
        case TRN_DT_FP8_E3M4: return &FP8_E3M4;
        case TRN_DT_FP8_E4M3: return &FP8_E4M3;
        case TRN_DT_FP8_E5M2: return &FP8_E5M2;
        case TRN_DT_FP8_E4M3FN: return &FP8_E4M3FN;
        default: return NULL;
    }
}

/* Exact RNE of |v| onto the format's grid with an unbounded exponent, then
 * config 0: a result at or past `top` (Inf, or the fn NaN code) becomes
 * sign|top. Ties go to the even mantissa, so max + half ulp (odd mantissa
 * all ones) rounds up into Inf, and e4m3fn's 464 (448 has an even mantissa)
 * stays 448 while anything above it is NaN. */
static uint8_t fp8_encode(const fp8_fmt *f, float v) {
    uint32_t u = trn_f32_bits(v);
    uint32_t sign = (u >> 24) & 0x80;
    uint32_t mag = u & 0x7fffffff;
    if (mag > 0x7f800000u) return f->nan;
    if (mag == 0x7f800000u) return (uint8_t)(sign | f->top);
    int e = (int)(mag >> 23);
    uint32_t m = mag & 0x7fffff;
    if (e)
        m |= 0x800000; /* value = m * 2^(e - 150) */
    else
        e = 1;
    int te = e - 127 + f->bias; /* target biased exponent */
    int shift = 23 - (int)f->mbits;
    if (te < 1) { /* subnormal: pin the exponent, shift more */
        shift += 1 - te;
        te = 1;
    }
    uint32_t q = 0;
    if (shift < 25) { /* else below half the smallest subnormal */
        uint32_t rem = m & ((1u << shift) - 1);
        uint32_t half = 1u << (shift - 1);
        q = m >> shift;
        if (rem > half || (rem == half && (q & 1))) q++;
    }
    /* q carries the hidden bit for normals, so adding it to (te-1)<<mbits
     * gives the code, and a carry (q == 2 << mbits) bumps the exponent. */
    uint32_t code = ((uint32_t)(te - 1) << f->mbits) + q;
    if (code >= f->top) return (uint8_t)(sign | f->top);
    return (uint8_t)(sign | code);
}

static float fp8_decode(const fp8_fmt *f, uint8_t c) {
    uint32_t sign = (uint32_t)(c & 0x80) << 24;
    uint32_t e = (uint32_t)(c & 0x7f) >> f->mbits;
    uint32_t m = c & ((1u << f->mbits) - 1);
    bool special = f->has_inf ? (uint32_t)(c & 0x7f) >= f->top : (c & 0x7f) == 0x7f;
    if (special) /* Inf, or NaN with its payload kept */
        return trn_bits_f32(sign | 0x7f800000u | (m << (23 - f->mbits)));
    if (e == 0) /* exact: m < 16 times a power of two */
        return trn_bits_f32(sign | trn_f32_bits((float)m * f->sub_unit));
    return trn_bits_f32(sign | ((e + 127 - (uint32_t)f->bias) << 23) | (m << (23 - f->mbits)));
}

/* OCP e8m0fnu: 2^(c - 127), 0xFF NaN, no sign, no zero. Narrowing rounds
 * to the nearest power of two in linear distance (midpoint 1.5 * 2^k), ties
 * to the even code; results past 254 are NaN (no Inf). Zero (either sign)
 * gives 0x00, the smallest value 2^-127; a negative number, Inf and NaN
 * give 0xFF. */
static uint8_t e8m0_encode(float v) {
    uint32_t u = trn_f32_bits(v);
    if ((u & 0x7fffffff) == 0) return 0x00;
    if (u >= 0x7f800000u) /* NaN, +Inf, and every negative */
        return 0xff;
    uint32_t e = u >> 23;
    uint32_t m = u & 0x7fffff;
    if (e == 0) /* m * 2^-149 between 2^-127 (0x400000) and 2^-126 */
        return m > 0x600000 ? 1 : 0;
    if (m > 0x400000 || (m == 0x400000 && (e & 1))) e++;
    return e >= 255 ? 0xff : (uint8_t)e;
}

static float e8m0_decode(uint8_t c) {
    if (c == 0xff) return trn_bits_f32(0x7fc00000u);
    if (c == 0) return trn_bits_f32(0x00400000u); /* 2^-127 is an fp32 subnormal */
    return trn_bits_f32((uint32_t)c << 23);
}

uint8_t trn_f32_to_fp8(trn_dtype dt, float v) {
    if (dt == TRN_DT_FP8_E8M0FNU) return e8m0_encode(v);
    const fp8_fmt *f = fp8_format(dt);
    return f ? fp8_encode(f, v) : 0;
}

float trn_fp8_to_f32(trn_dtype dt, uint8_t code) {
    if (dt == TRN_DT_FP8_E8M0FNU) return e8m0_decode(code);
    const fp8_fmt *f = fp8_format(dt);
    return f ? fp8_decode(f, code) : 0.0f;
}

/* ---- integers ------------------------------------------------------------ */

/* fp32 -> integer: NaN -> 0, truncate toward zero, saturate at the range.
 * Every bound below is a power of two, exact in fp32. */
static inline int64_t narrow_signed(float v, float lim, int64_t lo, int64_t hi) {
    if (isnan(v)) return 0;
    if (v >= lim) return hi;
    if (v <= -lim) return lo;
    return (int64_t)v;
}

static inline uint64_t narrow_unsigned(float v, float lim, uint64_t hi) {
    if (!(v > 0.0f)) /* NaN, zero and negatives (truncating to <= 0) */
        return 0;
    if (v >= lim) return hi;
    return (uint64_t)v;
}

static inline int8_t to_i8(float v) { return (int8_t)narrow_signed(v, 0x1p7f, INT8_MIN, INT8_MAX); }
static inline uint8_t to_u8(float v) { return (uint8_t)narrow_unsigned(v, 0x1p8f, UINT8_MAX); }
static inline int16_t to_i16(float v) {
    return (int16_t)narrow_signed(v, 0x1p15f, INT16_MIN, INT16_MAX);
}
static inline uint16_t to_u16(float v) { return (uint16_t)narrow_unsigned(v, 0x1p16f, UINT16_MAX); }
static inline int32_t to_i32(float v) {
    return (int32_t)narrow_signed(v, 0x1p31f, INT32_MIN, INT32_MAX);
}
static inline uint32_t to_u32(float v) { return (uint32_t)narrow_unsigned(v, 0x1p32f, UINT32_MAX); }
static inline uint64_t to_u64(float v) { return narrow_unsigned(v, 0x1p64f, UINT64_MAX); }
/* -2^63 itself is representable, so only values below it saturate. */
static inline int64_t to_i64(float v) {
    if (isnan(v)) return 0;
    if (v >= 0x1p63f) return INT64_MAX;
    if (v < -0x1p63f) return INT64_MIN;
    return (int64_t)v;
}

/* ---- one element --------------------------------------------------------- */

#define LOAD(T, p)                                                                                 \
    ({                                                                                             \
        T v_;                                                                                      \
        memcpy(&v_, (p), sizeof v_);                                                               \
        v_;                                                                                        \
    })
#define STORE(T, p, x)                                                                             \
    do {                                                                                           \
        T v_ = (x);                                                                                \
        memcpy((p), &v_, sizeof v_);                                                               \
    } while (0)

float trn_widen(trn_dtype dt, const void *src) {
    switch (dt) {
        case TRN_DT_INT8: return (float)LOAD(int8_t, src);
        case TRN_DT_UINT8: return (float)LOAD(uint8_t, src);
        case TRN_DT_INT16: return (float)LOAD(int16_t, src);
        case TRN_DT_UINT16: return (float)LOAD(uint16_t, src);
        case TRN_DT_INT32: return (float)LOAD(int32_t, src);
        case TRN_DT_UINT32: return (float)LOAD(uint32_t, src);
        case TRN_DT_INT64: return (float)LOAD(int64_t, src);
        case TRN_DT_UINT64: return (float)LOAD(uint64_t, src);
        case TRN_DT_FP8_E3M4:
        case TRN_DT_FP8_E4M3:
        case TRN_DT_FP8_E4M3FN:
        case TRN_DT_FP8_E8M0FNU:
        case TRN_DT_FP8_E5M2: return trn_fp8_to_f32(dt, LOAD(uint8_t, src));
        case TRN_DT_BF16: return trn_bf16_to_f32(LOAD(uint16_t, src));
        case TRN_DT_FP16: return trn_f16_to_f32(LOAD(uint16_t, src));
        case TRN_DT_FP32:
        case TRN_DT_FP32R: return LOAD(float, src);
        default: return 0.0f; /* packed x4 forms: precondition violated */
    }
}

void trn_narrow(trn_dtype dt, float v, void *dst) {
    switch (dt) {
        case TRN_DT_INT8: STORE(int8_t, dst, to_i8(v)); break;
        case TRN_DT_UINT8: STORE(uint8_t, dst, to_u8(v)); break;
        case TRN_DT_INT16: STORE(int16_t, dst, to_i16(v)); break;
        case TRN_DT_UINT16: STORE(uint16_t, dst, to_u16(v)); break;
        case TRN_DT_INT32: STORE(int32_t, dst, to_i32(v)); break;
        case TRN_DT_UINT32: STORE(uint32_t, dst, to_u32(v)); break;
        case TRN_DT_INT64: STORE(int64_t, dst, to_i64(v)); break;
        case TRN_DT_UINT64: STORE(uint64_t, dst, to_u64(v)); break;
        case TRN_DT_FP8_E3M4:
        case TRN_DT_FP8_E4M3:
        case TRN_DT_FP8_E4M3FN:
        case TRN_DT_FP8_E8M0FNU:
        case TRN_DT_FP8_E5M2: STORE(uint8_t, dst, trn_f32_to_fp8(dt, v)); break;
        case TRN_DT_BF16: STORE(uint16_t, dst, trn_f32_to_bf16(v)); break;
        case TRN_DT_FP16: STORE(uint16_t, dst, trn_f32_to_f16(v)); break;
        case TRN_DT_FP32:
        case TRN_DT_FP32R: STORE(float, dst, v); break;
        default: break; /* packed x4 forms: precondition violated */
    }
}

/* ---- spans: one switch, then a tight loop -------------------------------- */

#define WIDEN_LOOP(T, EXPR)                                                                        \
    do {                                                                                           \
        const unsigned char *s_ = src;                                                             \
        for (size_t i = 0; i < n; i++) {                                                           \
            T x = LOAD(T, s_ + i * sizeof(T));                                                     \
            dst[i] = (EXPR);                                                                       \
        }                                                                                          \
    } while (0)

#define NARROW_LOOP(T, EXPR)                                                                       \
    do {                                                                                           \
        unsigned char *d_ = dst;                                                                   \
        for (size_t i = 0; i < n; i++) {                                                           \
            float x = src[i];                                                                      \
            STORE(T, d_ + i * sizeof(T), (EXPR));                                                  \
        }                                                                                          \
    } while (0)

void trn_widen_span(trn_dtype dt, const void *src, float *dst, size_t n) {
    const fp8_fmt *f = fp8_format(dt);
    switch (dt) {
        case TRN_DT_INT8: WIDEN_LOOP(int8_t, (float)x); break;
        case TRN_DT_UINT8: WIDEN_LOOP(uint8_t, (float)x); break;
        case TRN_DT_INT16: WIDEN_LOOP(int16_t, (float)x); break;
        case TRN_DT_UINT16: WIDEN_LOOP(uint16_t, (float)x); break;
        case TRN_DT_INT32: WIDEN_LOOP(int32_t, (float)x); break;
        case TRN_DT_UINT32: WIDEN_LOOP(uint32_t, (float)x); break;
        case TRN_DT_INT64: WIDEN_LOOP(int64_t, (float)x); break;
        case TRN_DT_UINT64: WIDEN_LOOP(uint64_t, (float)x); break;
        case TRN_DT_FP8_E3M4:
        case TRN_DT_FP8_E4M3:
        case TRN_DT_FP8_E4M3FN:
        case TRN_DT_FP8_E5M2: WIDEN_LOOP(uint8_t, fp8_decode(f, x)); break;
        case TRN_DT_FP8_E8M0FNU: WIDEN_LOOP(uint8_t, e8m0_decode(x)); break;
        case TRN_DT_BF16: WIDEN_LOOP(uint16_t, trn_bits_f32((uint32_t)x << 16)); break;
        case TRN_DT_FP16: WIDEN_LOOP(uint16_t, trn_bits_f32(f16_decode_fast(x))); break;
        case TRN_DT_FP32:
        case TRN_DT_FP32R:
            if (n) memcpy(dst, src, n * sizeof(float));
            break;
        default: break;
    }
}

void trn_narrow_span(trn_dtype dt, const float *src, void *dst, size_t n) {
    const fp8_fmt *f = fp8_format(dt);
    switch (dt) {
        case TRN_DT_INT8: NARROW_LOOP(int8_t, to_i8(x)); break;
        case TRN_DT_UINT8: NARROW_LOOP(uint8_t, to_u8(x)); break;
        case TRN_DT_INT16: NARROW_LOOP(int16_t, to_i16(x)); break;
        case TRN_DT_UINT16: NARROW_LOOP(uint16_t, to_u16(x)); break;
        case TRN_DT_INT32: NARROW_LOOP(int32_t, to_i32(x)); break;
        case TRN_DT_UINT32: NARROW_LOOP(uint32_t, to_u32(x)); break;
        case TRN_DT_INT64: NARROW_LOOP(int64_t, to_i64(x)); break;
        case TRN_DT_UINT64: NARROW_LOOP(uint64_t, to_u64(x)); break;
        case TRN_DT_FP8_E3M4:
        case TRN_DT_FP8_E4M3:
        case TRN_DT_FP8_E4M3FN:
        case TRN_DT_FP8_E5M2: NARROW_LOOP(uint8_t, fp8_encode(f, x)); break;
        case TRN_DT_FP8_E8M0FNU: NARROW_LOOP(uint8_t, e8m0_encode(x)); break;
        case TRN_DT_BF16: NARROW_LOOP(uint16_t, bf16_encode_fast(trn_f32_bits(x))); break;
        case TRN_DT_FP16: NARROW_LOOP(uint16_t, f16_encode_fast(trn_f32_bits(x))); break;
        case TRN_DT_FP32:
        case TRN_DT_FP32R:
            if (n) memcpy(dst, src, n * sizeof(float));
            break;
        default: break;
    }
}

/* ---- memory-to-memory casts ---------------------------------------------- */

static bool is_int(trn_dtype dt) { return trn_dtype_widens(dt) && !trn_dtype_is_float(dt); }

static bool is_signed_int(trn_dtype dt) {
    return dt == TRN_DT_INT8 || dt == TRN_DT_INT16 || dt == TRN_DT_INT32 || dt == TRN_DT_INT64;
}

/* Integers travel through int64 (negative values) or uint64 (the rest) so
 * no value is rounded, and the store saturates to the destination's range. */
static void int_cast_one(trn_dtype to, void *dst, trn_dtype from, const void *src) {
    int64_t s = 0;
    uint64_t uv = 0;
    bool neg = false;
    switch (from) {
        case TRN_DT_INT8: s = LOAD(int8_t, src); break;
        case TRN_DT_INT16: s = LOAD(int16_t, src); break;
        case TRN_DT_INT32: s = LOAD(int32_t, src); break;
        case TRN_DT_INT64: s = LOAD(int64_t, src); break;
        case TRN_DT_UINT8: uv = LOAD(uint8_t, src); break;
        case TRN_DT_UINT16: uv = LOAD(uint16_t, src); break;
        case TRN_DT_UINT32: uv = LOAD(uint32_t, src); break;
        case TRN_DT_UINT64: uv = LOAD(uint64_t, src); break;
        default: return;
    }
    if (is_signed_int(from)) { /* negatives keep s; non-negatives move to uv */
        neg = s < 0;
        uv = neg ? 0 : (uint64_t)s;
    }
#define SAT_S(T, LO, HI)                                                                           \
    STORE(T, dst, (T)(neg ? (s < (LO) ? (LO) : s) : (uv > (uint64_t)(HI) ? (HI) : (int64_t)uv)))
#define SAT_U(T, HI) STORE(T, dst, (T)(neg ? 0 : (uv > (HI) ? (HI) : uv)))
    switch (to) {
        case TRN_DT_INT8: SAT_S(int8_t, INT8_MIN, INT8_MAX); break;
        case TRN_DT_INT16: SAT_S(int16_t, INT16_MIN, INT16_MAX); break;
        case TRN_DT_INT32: SAT_S(int32_t, INT32_MIN, INT32_MAX); break;
        case TRN_DT_INT64: SAT_S(int64_t, INT64_MIN, INT64_MAX); break;
        case TRN_DT_UINT8: SAT_U(uint8_t, UINT8_MAX); break;
        case TRN_DT_UINT16: SAT_U(uint16_t, UINT16_MAX); break;
        case TRN_DT_UINT32: SAT_U(uint32_t, UINT32_MAX); break;
        case TRN_DT_UINT64: SAT_U(uint64_t, UINT64_MAX); break;
        default: break;
    }
#undef SAT_S
#undef SAT_U
}

int trn_cast_span(trn_dtype to, void *dst, trn_dtype from, const void *src, size_t n,
                  trn_error *e) {
    uint32_t wt = trn_dtype_width(to), wf = trn_dtype_width(from);
    if (!wt || !wf)
        return trn_errorf(e, "cast: unknown dtype id %d (expected 0..%d)", wt ? (int)from : (int)to,
                          TRN_DT_COUNT - 1);
    if (to == from) {
        if (n) memcpy(dst, src, n * wt);
        return 0;
    }
    if (!trn_dtype_widens(to) || !trn_dtype_widens(from))
        return trn_errorf(
            e, "cast: %s -> %s is not supported (a packed x4 dtype only copies to itself)",
            trn_dtype_name(from), trn_dtype_name(to));
    const unsigned char *s = src;
    unsigned char *d = dst;
    if (is_int(to) && is_int(from)) {
        for (size_t i = 0; i < n; i++) int_cast_one(to, d + i * wt, from, s + i * wf);
        return 0;
    }
    float buf[256];
    for (size_t off = 0; off < n;) {
        size_t m = n - off < 256 ? n - off : 256;
        trn_widen_span(from, s + off * wf, buf, m);
        trn_narrow_span(to, buf, d + off * wt, m);
        off += m;
    }
    return 0;
}
