/* BNGradients (IT 36): the backward reduction of the reference.
 *
 * Per partition, for i in index order:
 *   t = (x[i] - m) * dy[i] * vf;  out[2] += t;  out[1] += t*vf;  out[0] += dy[i];
 * Three independent plain fp32 sums (no Kahan, no pairwise tree): each sum
 * runs in index order, so the speed comes only from running partitions side
 * by side, four per vector (bn_simd.h), never from reassociating a sum. */
#include <string.h>

#include "bn_kernels.h"
#include "bn_simd.h"

#define GROUPS (BN_BLOCK / BN_LANES)

typedef struct grad_state {
    bn_v4 m[GROUPS], vf[GROUPS];
    bn_v4 sum_dy[GROUPS], sum_tvf[GROUPS], sum_t[GROUPS];
} grad_state;

static inline void grad_step(grad_state *s, size_t g, bn_v4 x, bn_v4 dy) {
    const bn_v4 t = (x - s->m[g]) * dy * s->vf[g];
    s->sum_t[g] = s->sum_t[g] + t;
    s->sum_tvf[g] = s->sum_tvf[g] + t * s->vf[g];
    s->sum_dy[g] = s->sum_dy[g] + dy;
}

/* Full block: columns [0, ncols) with ncols a multiple of 4, by transposes. */
static void run_full(grad_state *s, const float *x, const float *dy, size_t n, size_t ncols) {
    for (size_t c = 0; c < ncols; c += 4) {
        for (size_t g = 0; g < GROUPS; ++g) {
            bn_v4 xc[4], dc[4];
            bn_v4_transpose(x + g * BN_LANES * n + c, n, xc);
            bn_v4_transpose(dy + g * BN_LANES * n + c, n, dc);
            for (size_t j = 0; j < 4; ++j) grad_step(s, g, xc[j], dc[j]);
        }
    }
}

/* A partial block (nb < BN_BLOCK rows), columns [0, ncols) with ncols a
 * multiple of 4: copied a piece at a time into full blocks padded with
 * zero rows (never stored). */
static void run_partial(grad_state *s, const float *x, const float *dy, size_t n, size_t nb,
                        size_t ncols) {
    float px[BN_BLOCK * BN_PAD_COLS] = {0}, pd[BN_BLOCK * BN_PAD_COLS] = {0};
    for (size_t c0 = 0; c0 < ncols; c0 += BN_PAD_COLS) {
        const size_t m = ncols - c0 < BN_PAD_COLS ? ncols - c0 : BN_PAD_COLS;
        for (size_t b = 0; b < nb; ++b) {
            memcpy(px + b * BN_PAD_COLS, x + b * n + c0, m * sizeof(float));
            memcpy(pd + b * BN_PAD_COLS, dy + b * n + c0, m * sizeof(float));
        }
        run_full(s, px, pd, BN_PAD_COLS, m);
    }
}

/* Columns [c0, n), one column at a time (the last < 4 columns). */
static void run_columns(grad_state *s, const float *x, const float *dy, size_t n, size_t nb,
                        size_t c0) {
    for (size_t c = c0; c < n; ++c) {
        for (size_t g = 0; g < GROUPS; ++g) {
            const size_t rows = nb > g * BN_LANES ? nb - g * BN_LANES : 0;
            grad_step(s, g, bn_v4_column(x + g * BN_LANES * n, n, rows, c),
                      bn_v4_column(dy + g * BN_LANES * n, n, rows, c));
        }
    }
}

static void grad_block(const float *x, const float *dy, const float *mean, const float *vf,
                       size_t n, size_t nb, float *out) {
    grad_state s;
    for (size_t g = 0; g < GROUPS; ++g) {
        const size_t rows = nb > g * BN_LANES ? nb - g * BN_LANES : 0;
        s.m[g] = bn_v4_column(mean + g * BN_LANES, 1, rows, 0);
        s.vf[g] = bn_v4_column(vf + g * BN_LANES, 1, rows, 0);
        s.sum_dy[g] = s.sum_tvf[g] = s.sum_t[g] = bn_v4_splat(0.0f);
    }
    const size_t done = n & ~(size_t)3;
    if (nb == BN_BLOCK)
        run_full(&s, x, dy, n, done);
    else
        run_partial(&s, x, dy, n, nb, done);
    run_columns(&s, x, dy, n, nb, done);
    for (size_t b = 0; b < nb; ++b) {
        const size_t g = b / BN_LANES, j = b % BN_LANES;
        out[b * BN_GRAD_ELEMS + 0] = s.sum_dy[g][j];
        out[b * BN_GRAD_ELEMS + 1] = s.sum_tvf[g][j];
        out[b * BN_GRAD_ELEMS + 2] = s.sum_t[g][j];
    }
}

void bn_gradients_f32(const float *x, const float *dy, const float *mean, const float *vf,
                      size_t parts, size_t n, float *out) {
    for (size_t p0 = 0; p0 < parts; p0 += BN_BLOCK) {
        const size_t nb = parts - p0 < BN_BLOCK ? parts - p0 : BN_BLOCK;
        grad_block(x + p0 * n, dy + p0 * n, mean + p0, vf + p0, n, nb, out + p0 * BN_GRAD_ELEMS);
    }
}
