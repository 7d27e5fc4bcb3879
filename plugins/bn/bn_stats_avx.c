/* BNStats block kernel on eight-lane AVX vectors, for x86 CPUs that have
 * AVX (bn_isa_best() checks the CPU and the OS at run time; the build
 * needs no -march: only these functions are compiled for AVX). It is the
 * four-lane kernel (bn_stats_v4.c) twice as wide: AVX has 256-bit adds and
 * multiplies at the same rate as 128-bit ones, and the kernel is bound by
 * the FP adders (four of a Welford step's seven operations are adds).
 *
 * Plain AVX arithmetic, no FMA: each lane is the same IEEE fp32 operation
 * as the scalar seed (-ffp-contract=off; AVX has no fused instructions), so
 * the bits are the other paths' bits (tests/bn compares all of them with
 * the scalar oracle).
 *
 * Pair layout (bn_stats_lanes.h): vector v holds partitions 4v..4v+3, lanes
 * (A, B) per partition; the block is two vectors. Two pairs per iteration:
 * 16-byte loads of rows 4v, 4v+2 form one register, rows 4v+1, 4v+3 the
 * other, and one in-lane shuffle per vector sorts them by pair. */
#include "bn_stats_lanes.h"

#if BN_HAVE_AVX_KERNEL

#include <string.h>

#define BN_AVX __attribute__((target("avx")))

typedef float bn_v8 __attribute__((vector_size(32)));
typedef float bn_v4x __attribute__((vector_size(16)));

#define AVX_VECS (BN_BLOCK / 4) /* four partitions per vector */

BN_AVX static inline bn_v8 splat8(float f) { return (bn_v8){f, f, f, f, f, f, f, f}; }

/* Four floats of row a (low half) and of row b (high half). */
BN_AVX static inline bn_v8 load_halves(const float *a, const float *b) {
    bn_v4x lo, hi;
    memcpy(&lo, a, sizeof lo);
    memcpy(&hi, b, sizeof hi);
    return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
}

BN_AVX static inline void welford8(bn_v8 *mean, bn_v8 *m2, bn_v8 x, bn_v8 r, bn_v8 one_minus_r) {
    const bn_v8 old = *mean;
    const bn_v8 nm = one_minus_r * old + r * x;
    *mean = nm;
    *m2 = *m2 + (x - nm) * (x - old);
}

BN_AVX static inline void step8(bn_v8 mean[AVX_VECS], bn_v8 m2[AVX_VECS], const bn_v8 x[AVX_VECS],
                                const float *wk) {
    const bn_v8 r = splat8(wk[0]), one_minus_r = splat8(wk[1]);
    BN_UNROLL
    for (size_t v = 0; v < AVX_VECS; ++v) welford8(&mean[v], &m2[v], x[v], r, one_minus_r);
}

BN_AVX size_t bn_stats_block_avx(const float *const rows[BN_BLOCK], size_t pairs, const float *w,
                                 bn_stats_lanes *s) {
    bn_v8 mean[AVX_VECS], m2[AVX_VECS];
    for (size_t v = 0; v < AVX_VECS; ++v) mean[v] = m2[v] = splat8(0.0f);
    size_t k = 0;
    for (; k + 2 <= pairs; k += 2) {
        bn_v8 lo[AVX_VECS], hi[AVX_VECS];

        BN_UNROLL
        for (size_t v = 0; v < AVX_VECS; ++v) {
            const float *const *r4 = rows + 4 * v;
            /* (p_k, p_k+1 | s_k, s_k+1) and (q_k, q_k+1 | t_k, t_k+1), in pairs of lanes */
            const bn_v8 ps = load_halves(r4[0] + 2 * k, r4[2] + 2 * k);
            const bn_v8 qt = load_halves(r4[1] + 2 * k, r4[3] + 2 * k);
            lo[v] =
                __builtin_shufflevector(ps, qt, 0, 1, 8, 9, 4, 5, 12, 13); /* pair k: p q | s t */
            hi[v] = __builtin_shufflevector(ps, qt, 2, 3, 10, 11, 6, 7, 14, 15); /* pair k+1 */
        }
        step8(mean, m2, lo, w + BN_W_PER_PAIR * k);
        step8(mean, m2, hi, w + BN_W_PER_PAIR * (k + 1));
    }
    for (size_t v = 0; v < AVX_VECS; ++v)
        for (size_t j = 0; j < 4; ++j) {
            s->mean_a[4 * v + j] = mean[v][2 * j];
            s->mean_b[4 * v + j] = mean[v][2 * j + 1];
            s->m2_a[4 * v + j] = m2[v][2 * j];
            s->m2_b[4 * v + j] = m2[v][2 * j + 1];
        }
    return k;
}

#else
typedef int bn_stats_avx_unavailable; /* keeps the translation unit non-empty */
#endif
