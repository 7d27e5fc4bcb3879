/* doReduction as a blocked fold: the running result of one block stays in
 * L1 while each input streams through it once. The order of operations per
 * element is exactly the reference's (ins[0], then 1, 2, ... in order). */
#include "coll_reduce.h"

#include <string.h>

/* Elements per block: 4 KiB of results, small enough for L1 with the
 * streamed input lines. */
#define COLL_BLOCK 1024

static inline uint32_t f2u(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float u2f(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The result bits r, unless x is a NaN: then x quietened. Integer compare
 * and select on the bits, so the loops stay branch-free and vectorise. */
static inline uint32_t nan_x_wins(uint32_t xb, uint32_t rb) {
    uint32_t mask = (xb & 0x7fffffffu) > 0x7f800000u ? 0xffffffffu : 0u;
    return (rb & ~mask) | ((xb | 0x00400000u) & mask);
}

/* addss(x, acc) with x the destination register: a NaN x wins (quietened),
 * otherwise IEEE addition (a NaN acc comes back quietened, which C's `+`
 * already gives for one NaN operand whatever the operand order). */
static inline float add_sse(float x, float acc) { return u2f(nan_x_wins(f2u(x), f2u(x + acc))); }

static inline float max_sse(float x, float acc) { return (x > acc) ? x : acc; }
static inline float min_sse(float x, float acc) { return (x < acc) ? x : acc; }

/* mulss(x, s), x the destination: the same NaN rule as add. */
static inline float mul_sse(float x, float s) { return u2f(nan_x_wins(f2u(x), f2u(x * s))); }

float coll_add1(float x, float acc) { return add_sse(x, acc); }
float coll_max1(float x, float acc) { return max_sse(x, acc); }
float coll_min1(float x, float acc) { return min_sse(x, acc); }
float coll_mul1(float x, float s) { return mul_sse(x, s); }

/* The fold loops, one per op so each vectorises, folding up to three
 * inputs per pass over the accumulator (acc = op(x3, op(x2, op(x1, acc))),
 * the reference's order) so the running result is loaded and stored once
 * per three inputs instead of once per input. */
#define FOLD_LOOPS(name, OP)                                                                       \
    static void name##1(float *restrict acc, const float *restrict a, size_t n) {                  \
        for (size_t i = 0; i < n; ++i) acc[i] = OP(a[i], acc[i]);                                  \
    }                                                                                              \
    static void name##2(float *restrict acc, const float *restrict a, const float *restrict b,     \
                        size_t n) {                                                                \
        for (size_t i = 0; i < n; ++i) acc[i] = OP(b[i], OP(a[i], acc[i]));                        \
    }                                                                                              \
    static void name##3(float *restrict acc, const float *restrict a, const float *restrict b,     \
                        const float *restrict c, size_t n) {                                       \
        for (size_t i = 0; i < n; ++i) acc[i] = OP(c[i], OP(b[i], OP(a[i], acc[i])));              \
    }

FOLD_LOOPS(fold_add, add_sse)
FOLD_LOOPS(fold_max, max_sse)
FOLD_LOOPS(fold_min, min_sse)

typedef struct folds {
    void (*f1)(float *restrict, const float *restrict, size_t);
    void (*f2)(float *restrict, const float *restrict, const float *restrict, size_t);
    void (*f3)(float *restrict, const float *restrict, const float *restrict, const float *restrict,
               size_t);
} folds;

static const folds fold_add = {fold_add1, fold_add2, fold_add3};
static const folds fold_max = {fold_max1, fold_max2, fold_max3};
static const folds fold_min = {fold_min1, fold_min2, fold_min3};

/* acc[0..m) folded with ins[1..n_ins) at offset b, in order. */
static void fold_block(const folds *f, float *acc, const float *const *ins, size_t n_ins, size_t b,
                       size_t m) {
    size_t k = 1;
    for (; k + 3 <= n_ins; k += 3) f->f3(acc, ins[k] + b, ins[k + 1] + b, ins[k + 2] + b, m);
    if (n_ins - k == 2)
        f->f2(acc, ins[k] + b, ins[k + 1] + b, m);
    else if (n_ins - k == 1)
        f->f1(acc, ins[k] + b, m);
}

static void scale_first(const float *x, float s, float *res, size_t n) {
    for (size_t i = 0; i < n; ++i) res[i] = mul_sse(x[i], s);
}

void coll_reduce(int64_t op, const float *const *ins, size_t n_ins, size_t n, bool has_scale,
                 float scale, float *res) {
    if (op == COLL_OP_ADD && has_scale) {
        scale_first(ins[0], scale, res, n);
        return;
    }
    const folds *f = op == COLL_OP_ADD ? &fold_add : op == COLL_OP_MAX ? &fold_max : &fold_min;
    for (size_t b = 0; b < n; b += COLL_BLOCK) {
        size_t m = n - b < COLL_BLOCK ? n - b : COLL_BLOCK;
        if (res + b != ins[0] + b) memcpy(res + b, ins[0] + b, m * sizeof *res);
        fold_block(f, res + b, ins, n_ins, b, m);
    }
}
