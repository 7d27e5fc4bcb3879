/* trn_accumulate_scatter: n elements at scattered byte offsets, applied in
 * order (repeated offsets accumulate), with the same bits as
 * trn_cast_copy_or_accumulate per element (arith.h).
 *
 * The fp32 add is the common case (scatter-add) and is bound by the
 * table's cache misses, so its loop is kept short for more of them to be
 * in flight at once, and the table lines a few updates ahead are
 * prefetched (the offsets are known in advance). */
#include "arith/arith.h"

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

/* How many updates ahead the table is prefetched: enough to cover a miss
 * to memory at the loop's rate, few enough that the lines stay in L1 until
 * used (a chunk of offsets is a few thousand). */
#define SCATTER_PREFETCH 32

/* addss acc, x on x86 is the instruction whose result the reference
 * stores, NaN rule included: acc's NaN (quieted) if acc is one, else x's
 * (quieted), Inf - Inf the default NaN. Written as the instruction so the
 * compiler cannot swap the operands (`acc + x` commutes in C, which would
 * return x's NaN when both are NaN); the rounding is the same hardware add
 * the portable form uses, under the same MXCSR. Elsewhere, the C rule. */
static inline float add_ss(float acc, float x) {
#if (defined(__x86_64__) || (defined(__i386__) && defined(__SSE_MATH__))) && defined(__GNUC__)
#if defined(__AVX__)
    __asm__("vaddss %2, %1, %0" : "=x"(acc) : "x"(acc), "x"(x));
#else
    __asm__("addss %1, %0" : "+x"(acc) : "x"(x));
#endif
    return acc;
#else
    return trn_alu_f32(TRN_ACC_ADD, acc, x);
#endif
}

#define SCATTER_LOOP(UPDATE)                                                                       \
    do {                                                                                           \
        size_t j = 0;                                                                              \
        for (; j + SCATTER_PREFETCH < n; j++) {                                                    \
            __builtin_prefetch(base + offsets[j + SCATTER_PREFETCH], 1);                           \
            uint8_t *p = base + offsets[j];                                                        \
            float a = LOAD(float, p), x = LOAD(float, src + j * 4);                                \
            STORE(float, p, UPDATE);                                                               \
        }                                                                                          \
        for (; j < n; j++) {                                                                       \
            uint8_t *p = base + offsets[j];                                                        \
            float a = LOAD(float, p), x = LOAD(float, src + j * 4);                                \
            STORE(float, p, UPDATE);                                                               \
        }                                                                                          \
    } while (0)

static void scatter_f32(trn_acc_op op, uint8_t *base, const uint64_t *offsets,
                        const unsigned char *src, size_t n) {
    switch (op) {
        case TRN_ACC_ADD: SCATTER_LOOP(add_ss(a, x)); break;
        /* minss / maxss: C comparisons are false on a NaN or a tie, which is
         * their rule (acc, the second operand, kept) */
        case TRN_ACC_MIN: SCATTER_LOOP(x < a ? x : a); break;
        case TRN_ACC_MAX: SCATTER_LOOP(x > a ? x : a); break;
        default: break; /* copy takes the per-element loop */
    }
}

int trn_accumulate_scatter(trn_acc_op op, uint8_t *base, const uint64_t *offsets, const void *src,
                           trn_dtype dt, size_t n, trn_error *e) {
    if (trn_accumulate_check(op, dt, e)) return -1;
    const unsigned char *s = src;
    if (dt == TRN_DT_FP32 && op != TRN_ACC_COPY) {
        scatter_f32(op, base, offsets, s, n);
        return 0;
    }
    uint32_t w = trn_dtype_width(dt);
    for (size_t j = 0; j < n; j++)
        trn_cast_copy_or_accumulate(op, base + offsets[j], s + j * w, dt, NULL);
    return 0;
}
