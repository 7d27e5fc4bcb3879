/* BNStats (IT 34): the 2-lane interleaved Welford of seed section 1.1.
 *
 * Per partition the seed runs, for i = 0..n-1 with lane L = i & 1:
 *   if (L == 0) n += 1.0f;  r = 1/n;
 *   newMean = (1-r)*oldMean + r*x;  M2 += (x-newMean)*(x-oldMean);
 * The running count n, hence r and 1-r, depend only on the pair index:
 * bn_stats_weights computes them once (in the seed's way, the count itself
 * accumulated in fp32), and every partition shares the table. The
 * partitions run in blocks of BN_BLOCK, four per vector (bn_simd.h), each
 * lane applying the seed's expression in the seed's order, so every
 * partition gets the bits of the scalar loop. */
#include <string.h>

#include "bn_kernels.h"
#include "bn_simd.h"

#define GROUPS (BN_BLOCK / BN_LANES)

/* Per pair k: w[2k] = r, w[2k+1] = 1 - r. (Storing them splatted to four
 * lanes made the kernel 6% faster but the table four times larger: as large
 * as four rows of x, 1 GiB for one 64M-element HBM row.) */
#define W_PER_PAIR 2

size_t bn_stats_weights_len(size_t n) {
    return W_PER_PAIR * ((n + 1) / 2);
}

void bn_stats_weights(size_t n, float *w) {
    float count = 0.0f;
    for (size_t k = 0; k < (n + 1) / 2; ++k) {
        count += 1.0f; /* once per pair, before lane A's element */
        const float r = 1.0f / count;
        w[W_PER_PAIR * k] = r;
        w[W_PER_PAIR * k + 1] = 1.0f - r;
    }
}

/* The weights of the pair holding column c. */
static inline const float *pair_weights(const float *w, size_t c) {
    return w + W_PER_PAIR * (c / 2);
}

/* One block's state: lane A (even elements) and lane B (odd), per group of
 * four partitions. */
typedef struct block_state {
    bn_v4 mean_a[GROUPS], m2_a[GROUPS], mean_b[GROUPS], m2_b[GROUPS];
} block_state;

static inline void welford(bn_v4 *mean, bn_v4 *m2, bn_v4 x, bn_v4 r, bn_v4 one_minus_r) {
    const bn_v4 old = *mean;
    const bn_v4 nm = one_minus_r * old + r * x;
    *mean = nm;
    *m2 = *m2 + (x - nm) * (x - old);
}

/* Full block, columns [0, ncols) with ncols a multiple of 4, by transposes. */
static void run_full(block_state *s, const float *x, size_t n, size_t ncols, const float *w) {
    for (size_t c = 0; c < ncols; c += 4) {
        const float *w0 = pair_weights(w, c), *w1 = pair_weights(w, c + 2);
        const bn_v4 r0 = bn_v4_splat(w0[0]), omr0 = bn_v4_splat(w0[1]);
        const bn_v4 r1 = bn_v4_splat(w1[0]), omr1 = bn_v4_splat(w1[1]);
        for (size_t g = 0; g < GROUPS; ++g) {
            bn_v4 col[4];
            bn_v4_transpose(x + g * BN_LANES * n + c, n, col);
            welford(&s->mean_a[g], &s->m2_a[g], col[0], r0, omr0);
            welford(&s->mean_b[g], &s->m2_b[g], col[1], r0, omr0);
            welford(&s->mean_a[g], &s->m2_a[g], col[2], r1, omr1);
            welford(&s->mean_b[g], &s->m2_b[g], col[3], r1, omr1);
        }
    }
}

/* A partial block (nb < BN_BLOCK rows), columns [0, ncols) with ncols a
 * multiple of 4: the rows are copied a piece at a time into a full block
 * whose missing rows are zeros, which run_full reduces like any block; the
 * zero lanes are never stored. */
static void run_partial(block_state *s, const float *x, size_t n, size_t nb, size_t ncols, const float *w) {
    float pad[BN_BLOCK * BN_PAD_COLS] = {0};
    for (size_t c0 = 0; c0 < ncols; c0 += BN_PAD_COLS) {
        const size_t m = ncols - c0 < BN_PAD_COLS ? ncols - c0 : BN_PAD_COLS;
        for (size_t b = 0; b < nb; ++b) memcpy(pad + b * BN_PAD_COLS, x + b * n + c0, m * sizeof(float));
        run_full(s, pad, BN_PAD_COLS, m, pair_weights(w, c0)); /* c0 is even */
    }
}

/* Columns [c0, n), one column at a time (the last < 4 columns); missing
 * rows compute on zeros and are never stored. */
static void run_columns(block_state *s, const float *x, size_t n, size_t nb, size_t c0, const float *w) {
    for (size_t c = c0; c < n; ++c) {
        const float *wc = pair_weights(w, c);
        const bn_v4 r = bn_v4_splat(wc[0]), omr = bn_v4_splat(wc[1]);
        for (size_t g = 0; g < GROUPS; ++g) {
            const size_t rows = nb > g * BN_LANES ? nb - g * BN_LANES : 0;
            const bn_v4 v = bn_v4_column(x + g * BN_LANES * n, n, rows, c);
            if (c % 2 == 0)
                welford(&s->mean_a[g], &s->m2_a[g], v, r, omr);
            else
                welford(&s->mean_b[g], &s->m2_b[g], v, r, omr);
        }
    }
}

static void stats_block(const float *x, size_t n, size_t nb, const float *w, float *out) {
    block_state s;
    for (size_t g = 0; g < GROUPS; ++g)
        s.mean_a[g] = s.m2_a[g] = s.mean_b[g] = s.m2_b[g] = bn_v4_splat(0.0f);
    const size_t done = n & ~(size_t)3;
    if (nb == BN_BLOCK)
        run_full(&s, x, n, done, w);
    else
        run_partial(&s, x, n, nb, done, w);
    run_columns(&s, x, n, nb, done, w);
    /* The output counts are the lane sizes, not the running count. */
    const float count_a = (float)((n + 1) >> 1), count_b = (float)(n >> 1);
    for (size_t b = 0; b < nb; ++b) {
        float *o = out + b * BN_STATS_ELEMS;
        const size_t g = b / BN_LANES, j = b % BN_LANES;
        o[0] = count_a;
        o[1] = s.mean_a[g][j];
        o[2] = s.m2_a[g][j];
        o[3] = count_b;
        o[4] = s.mean_b[g][j];
        o[5] = s.m2_b[g][j];
    }
}

void bn_stats_f32(const float *x, size_t parts, size_t n, const float *w, float *out) {
    for (size_t p0 = 0; p0 < parts; p0 += BN_BLOCK) {
        const size_t nb = parts - p0 < BN_BLOCK ? parts - p0 : BN_BLOCK;
        stats_block(x + p0 * n, n, nb, w, out + p0 * BN_STATS_ELEMS);
    }
}
