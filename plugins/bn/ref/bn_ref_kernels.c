/* The reference module's BN kernels (trnsim-bn-ref, docs/plugins.md
 * "Reference modules"): bn_kernels.h answered by the scalar oracle
 * (bn_oracle.c, the file the kernel tests compare against), one partition
 * and one element at a time. No weight table, no lanes, no blocks: the
 * handlers are the fast module's. */
#include "../bn_kernels.h"
#include "bn_oracle.h"

/* The oracle divides as the reference does and needs no table. */
size_t bn_stats_weights_len(size_t n) {
    (void)n;
    return 0;
}

void bn_stats_weights(size_t n, float *w) {
    (void)n;
    (void)w;
}

void bn_stats_f32(const float *x, size_t parts, size_t n, const float *w, float *out) {
    (void)w;
    oracle_bn_stats(x, parts, n, 0, out);
}

void bn_stats_rows(const float *x, size_t stride, size_t parts, size_t n, const float *w,
                   float *out) {
    (void)w;
    for (size_t p = 0; p < parts; ++p)
        oracle_bn_stats_row(x + p * stride, n, out + p * BN_STATS_ELEMS);
}

bool bn_tile_transpose_ok(size_t parts, size_t n) {
    return n == 1 || (parts % BN_TILE == 0 && n % BN_TILE == 0);
}

void bn_tile_transpose_f32(const float *in, size_t parts, size_t n, float *out) {
    oracle_tile_transpose(in, parts, n, out);
}

void bn_aggregate_f32(const float *in, size_t parts, size_t e, float *out) {
    oracle_bn_aggregate(in, parts, e, out);
}

void bn_gradients_f32(const float *x, const float *dy, const float *mean, const float *vf,
                      size_t parts, size_t n, float *out) {
    oracle_bn_gradients(x, dy, mean, vf, parts, n, out);
}

void bn_backprop_f32(const float *x, const float *dy, const float *mean, const float *a,
                     const float *bc, const float *scale, float total, size_t parts, size_t n,
                     float *dx) {
    for (size_t p = 0; p < parts; ++p)
        for (size_t i = 0; i < n; ++i) {
            const size_t k = p * n + i;
            dx[k] = oracle_bn_backprop_elem(x[k], dy[k], mean[p], a[p], bc[p], scale[p], total);
        }
}
