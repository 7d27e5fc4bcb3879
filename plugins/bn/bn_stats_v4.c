/* BNStats block kernel on four-lane GNU C vectors (bn_simd.h): baseline
 * SSE2 on x86-64, the target's own vectors or scalar code elsewhere. Pair
 * layout (bn_stats_lanes.h): a vector holds partitions 2v and 2v+1, lanes
 * (A, B, A, B); the block's eight partitions are four vectors, enough
 * independent chains to keep the FP adders busy (the mean update, a
 * multiply then an add, has 5 or more cycles of latency; a vector's step
 * is four adds and three multiplies, about 2 cycles of the two adders).
 * Two pairs per iteration: a 16-byte load of a row holds pairs k and k+1,
 * and one shuffle per vector sorts two rows' loads by pair. */
#include "bn_simd.h"
#include "bn_stats_lanes.h"

#define V4_VECS (BN_BLOCK / 2) /* two partitions per vector */

static inline void welford(bn_v4 *mean, bn_v4 *m2, bn_v4 x, bn_v4 r, bn_v4 one_minus_r) {
    const bn_v4 old = *mean;
    const bn_v4 nm = one_minus_r * old + r * x;
    *mean = nm;
    *m2 = *m2 + (x - nm) * (x - old);
}

/* All vectors, one pair: the weights are splatted once for the block. */
static inline void step(bn_v4 mean[V4_VECS], bn_v4 m2[V4_VECS], const bn_v4 x[V4_VECS],
                        const float *wk) {
    const bn_v4 r = bn_v4_splat(wk[0]), one_minus_r = bn_v4_splat(wk[1]);
    BN_UNROLL
    for (size_t v = 0; v < V4_VECS; ++v) welford(&mean[v], &m2[v], x[v], r, one_minus_r);
}

size_t bn_stats_block_v4(const float *const rows[BN_BLOCK], size_t pairs, const float *w,
                         bn_stats_lanes *s) {
    bn_v4 mean[V4_VECS], m2[V4_VECS];
    for (size_t v = 0; v < V4_VECS; ++v) mean[v] = m2[v] = bn_v4_splat(0.0f);
    size_t k = 0;
    for (; k + 2 <= pairs; k += 2) {
        bn_v4 lo[V4_VECS], hi[V4_VECS];

        BN_UNROLL
        for (size_t v = 0; v < V4_VECS; ++v) {
            const bn_v4 p = bn_v4_load(rows[2 * v] + 2 * k),
                        q = bn_v4_load(rows[2 * v + 1] + 2 * k);
            lo[v] = __builtin_shufflevector(p, q, 0, 1, 4, 5); /* pair k of rows 2v, 2v+1 */
            hi[v] = __builtin_shufflevector(p, q, 2, 3, 6, 7); /* pair k+1 */
        }
        step(mean, m2, lo, w + BN_W_PER_PAIR * k);
        step(mean, m2, hi, w + BN_W_PER_PAIR * (k + 1));
    }
    for (size_t v = 0; v < V4_VECS; ++v)
        for (size_t j = 0; j < 2; ++j) {
            s->mean_a[2 * v + j] = mean[v][2 * j];
            s->mean_b[2 * v + j] = mean[v][2 * j + 1];
            s->m2_a[2 * v + j] = m2[v][2 * j];
            s->m2_b[2 * v + j] = m2[v][2 * j + 1];
        }
    return k;
}
