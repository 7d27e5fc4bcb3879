/* cast_copy_or_accumulate @ 0x28ff00, its fp32 ALU core sub_28f700 and
 * AluOpType2MemoryReduction @ 0x1b0ed0.
 *
 * trn_cast_copy_or_accumulate is the per-element reference; the span
 * version validates once, then runs one loop per dtype. Float dtypes reduce
 * in fp32 and narrow back with RNE (fp8 with config 0); int32 / int64 wrap. */
#include "arith/arith.h"

#include <math.h>
#include <stdio.h>

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

/* x86's default NaN ("QNaN floating-point indefinite"), what addss returns
 * for Inf + -Inf. */
#define SSE_DEFAULT_NAN 0xffc00000u
#define F32_QUIET       0x00400000u

/* ---- the fp32 ALU core ---------------------------------------------------- */

/* addss(acc, x): acc is the first source. The value is acc + x; for a NaN
 * result the NaN is pinned to what SSE returns (acc's if acc is NaN, else
 * x's, quieted; Inf - Inf gives the default NaN) so that neither the C
 * compiler's operand order nor the host CPU can change the bits. */
static float sse_add(float acc, float x) {
    float r = acc + x;
    if (!isnan(r)) return r;
    if (isnan(acc)) return trn_bits_f32(trn_f32_bits(acc) | F32_QUIET);
    if (isnan(x)) return trn_bits_f32(trn_f32_bits(x) | F32_QUIET);
    return trn_bits_f32(SSE_DEFAULT_NAN);
}

/* The same, branch-free, for the span loops. */
static inline float sse_add_fast(float acc, float x) {
    uint32_t ua = trn_f32_bits(acc), ux = trn_f32_bits(x);
    uint32_t ur = trn_f32_bits(acc + x);
    uint32_t nan_bits = (ua & 0x7fffffffu) > 0x7f800000u   ? ua | F32_QUIET
                        : (ux & 0x7fffffffu) > 0x7f800000u ? ux | F32_QUIET
                                                           : SSE_DEFAULT_NAN;
    return trn_bits_f32((ur & 0x7fffffffu) > 0x7f800000u ? nan_bits : ur);
}

/* movss (x); minss / maxss (acc): the comparison is false on a NaN operand
 * or a tie (including -0.0 vs +0.0), and then the second operand, the
 * accumulator, is the result, unchanged (no quieting). */
static inline float sse_min(float acc, float x) { return (x < acc) ? x : acc; }
static inline float sse_max(float acc, float x) { return (x > acc) ? x : acc; }

float trn_alu_f32(trn_acc_op op, float acc, float x) {
    switch (op) {
        case TRN_ACC_ADD: return sse_add(acc, x);
        case TRN_ACC_MIN: return sse_min(acc, x);
        case TRN_ACC_MAX: return sse_max(acc, x);
        default: return x; /* copy: the new value replaces the old */
    }
}

/* ---- validation shared by the element, span and scatter forms ----------- */

int trn_accumulate_check(trn_acc_op op, trn_dtype dt, trn_error *e) {
    if ((unsigned)dt >= TRN_DT_COUNT)
        return trn_errorf(e, "cast_accumulate: unknown dtype %d (expected 0..%d)", (int)dt,
                          TRN_DT_COUNT - 1);
    if ((unsigned)op > TRN_ACC_MAX)
        return trn_errorf(
            e, "cast_accumulate: unknown op %d (expected copy 0, add 1, min 2, max 3)", (int)op);
    if (op != TRN_ACC_COPY && !trn_dtype_reduces(dt))
        return trn_errorf(e, "cast_accumulate: unsupported dtype %s", trn_dtype_name(dt));
    return 0;
}

/* ---- one element ------------------------------------------------------- */

/* Two's-complement wrap through unsigned arithmetic (no signed-overflow UB);
 * the stored bits are the same as the reference's `add %eax,(%r12)`. */
static void acc_i32(trn_acc_op op, void *dst, const void *src) {
    int32_t a = LOAD(int32_t, dst), x = LOAD(int32_t, src);
    switch (op) {
        case TRN_ACC_ADD: STORE(uint32_t, dst, (uint32_t)a + (uint32_t)x); break;
        case TRN_ACC_MIN: STORE(int32_t, dst, x < a ? x : a); break; /* pminsd */
        case TRN_ACC_MAX: STORE(int32_t, dst, x > a ? x : a); break; /* pmaxsd */
        default: break;
    }
}

static void acc_i64(trn_acc_op op, void *dst, const void *src) {
    int64_t a = LOAD(int64_t, dst), x = LOAD(int64_t, src);
    switch (op) {
        case TRN_ACC_ADD: STORE(uint64_t, dst, (uint64_t)a + (uint64_t)x); break;
        case TRN_ACC_MIN: STORE(int64_t, dst, a > x ? x : a); break; /* cmovg */
        case TRN_ACC_MAX: STORE(int64_t, dst, a < x ? x : a); break; /* cmovl */
        default: break;
    }
}

int trn_cast_copy_or_accumulate(trn_acc_op op, void *dst, const void *src, trn_dtype dt,
                                trn_error *e) {
    if (trn_accumulate_check(op, dt, e)) return -1;
    if (op == TRN_ACC_COPY) {
        memmove(dst, src, trn_dtype_width(dt)); /* the reference's memcpy; dst == src is fine */
        return 0;
    }
    switch (dt) {
        case TRN_DT_INT32: acc_i32(op, dst, src); break;
        case TRN_DT_INT64: acc_i64(op, dst, src); break;
        default: {
            /* fp8 / bf16 / fp16 / fp32: decode both, ALU in fp32, encode RNE. */
            float x = trn_widen(dt, src);
            float acc = trn_widen(dt, dst);
            trn_narrow(dt, trn_alu_f32(op, acc, x), dst);
            break;
        }
    }
    return 0;
}

/* ---- spans --------------------------------------------------------------- */

#define INT_LOOP(T, UT, OP_EXPR)                                                                   \
    do {                                                                                           \
        unsigned char *d_ = dst;                                                                   \
        const unsigned char *s_ = src;                                                             \
        for (size_t i = 0; i < n; i++) {                                                           \
            T a = LOAD(T, d_ + i * sizeof(T));                                                     \
            T x = LOAD(T, s_ + i * sizeof(T));                                                     \
            STORE(UT, d_ + i * sizeof(T), (UT)(OP_EXPR));                                          \
        }                                                                                          \
    } while (0)

static void span_i32(trn_acc_op op, void *dst, const void *src, size_t n) {
    switch (op) {
        case TRN_ACC_ADD: INT_LOOP(int32_t, uint32_t, (uint32_t)a + (uint32_t)x); break;
        case TRN_ACC_MIN: INT_LOOP(int32_t, int32_t, x < a ? x : a); break;
        case TRN_ACC_MAX: INT_LOOP(int32_t, int32_t, x > a ? x : a); break;
        default: break;
    }
}

static void span_i64(trn_acc_op op, void *dst, const void *src, size_t n) {
    switch (op) {
        case TRN_ACC_ADD: INT_LOOP(int64_t, uint64_t, (uint64_t)a + (uint64_t)x); break;
        case TRN_ACC_MIN: INT_LOOP(int64_t, int64_t, a > x ? x : a); break;
        case TRN_ACC_MAX: INT_LOOP(int64_t, int64_t, a < x ? x : a); break;
        default: break;
    }
}

/* In place over dense fp32: a[i] = op(a[i], b[i]). */
static void alu_span(trn_acc_op op, float *a, const float *b, size_t n) {
    switch (op) {
        case TRN_ACC_ADD:
            for (size_t i = 0; i < n; i++) a[i] = sse_add_fast(a[i], b[i]);
            break;
        case TRN_ACC_MIN:
            for (size_t i = 0; i < n; i++) a[i] = sse_min(a[i], b[i]);
            break;
        case TRN_ACC_MAX:
            for (size_t i = 0; i < n; i++) a[i] = sse_max(a[i], b[i]);
            break;
        default: break;
    }
}

/* fp32 in memory needs no conversion: the ALU loop runs on it directly. */
static void span_f32(trn_acc_op op, void *dst, const void *src, size_t n) {
    switch (op) {
        case TRN_ACC_ADD: INT_LOOP(float, float, sse_add_fast(a, x)); break;
        case TRN_ACC_MIN: INT_LOOP(float, float, sse_min(a, x)); break;
        case TRN_ACC_MAX: INT_LOOP(float, float, sse_max(a, x)); break;
        default: break;
    }
}

/* Narrow floats: blocks of 256 widened into two stack buffers, one ALU
 * pass, narrowed back. The same per-element arithmetic, in three loops the
 * compiler can vectorise. */
static void span_narrow_float(trn_acc_op op, void *dst, const void *src, trn_dtype dt, size_t n) {
    enum { BLOCK = 256 };
    float acc[BLOCK], x[BLOCK];
    size_t w = trn_dtype_width(dt);
    unsigned char *d = dst;
    const unsigned char *s = src;
    for (size_t off = 0; off < n; off += BLOCK) {
        size_t m = n - off < BLOCK ? n - off : BLOCK;
        trn_widen_span(dt, d + off * w, acc, m);
        trn_widen_span(dt, s + off * w, x, m);
        alu_span(op, acc, x, m);
        trn_narrow_span(dt, acc, d + off * w, m);
    }
}

int trn_accumulate_span(trn_acc_op op, void *dst, const void *src, trn_dtype dt, size_t n,
                        trn_error *e) {
    if (trn_accumulate_check(op, dt, e)) return -1;
    if (n == 0) return 0;
    if (op == TRN_ACC_COPY) {
        memmove(dst, src, n * trn_dtype_width(dt));
        return 0;
    }
    switch (dt) {
        case TRN_DT_INT32: span_i32(op, dst, src, n); break;
        case TRN_DT_INT64: span_i64(op, dst, src, n); break;
        case TRN_DT_FP32: span_f32(op, dst, src, n); break;
        default: span_narrow_float(op, dst, src, dt, n); break;
    }
    return 0;
}

/* ---- AluOpType -> MemoryReductionOp ------------------------------------- */

static const char *aluop_name(int64_t aluop) {
    switch (aluop) {
        case 0: return "bypass";
        case 4: return "add";
        case 8: return "max";
        case 9: return "min";
        default: return NULL;
    }
}

/* The reference returns copy for bypass and add for add and throws a
 * NeuronAssertion for everything else, max and min included; allow_minmax
 * is the documented opt-in that routes them to the otherwise dead MAX / MIN
 * kernels. */
int trn_aluop_to_memop(int64_t aluop, bool allow_minmax, trn_acc_op *out, trn_error *e) {
    trn_acc_op op;
    if (aluop == 0)
        op = TRN_ACC_COPY;
    else if (aluop == 4)
        op = TRN_ACC_ADD;
    else if (allow_minmax && aluop == 8)
        op = TRN_ACC_MAX;
    else if (allow_minmax && aluop == 9)
        op = TRN_ACC_MIN;
    else {
        const char *name = aluop_name(aluop);
        char label[64];
        if (name)
            snprintf(label, sizeof label, "AluOpType %lld (%s)", (long long)aluop, name);
        else
            snprintf(label, sizeof label, "AluOpType %lld", (long long)aluop);
        if (allow_minmax)
            return trn_errorf(e,
                              "%s has no MemoryReductionOp: accepted are bypass (0), add (4), max "
                              "(8) and min (9)",
                              label);
        if (aluop == 8 || aluop == 9)
            return trn_errorf(
                e,
                "%s has no MemoryReductionOp: the reference accepts only bypass (0) and add (4) "
                "(mapping max/min onto MAX/MIN is an opt-in setting, docs/arith.md)",
                label);
        return trn_errorf(
            e, "%s has no MemoryReductionOp: the reference accepts only bypass (0) and add (4)",
            label);
    }
    if (out) *out = op;
    return 0;
}
