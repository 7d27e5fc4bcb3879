/* BNBackprop / BNBackprop2 (IT 37 / 38): the dx apply of the reference.
 *
 *   dx[i] = (dy[i]*total - ((x[i] - m)*Bc + A)) * scale
 * Element-wise with per-partition scalars, so the loop over the elements of
 * one partition vectorises as written; both opcodes share this kernel (they
 * differ only in how the handlers find the coefficients). */
#include "bn_kernels.h"

static void backprop_row(const float *restrict x, const float *restrict dy, float m, float a,
                         float bc, float s, float total, size_t n, float *restrict dx) {
    for (size_t i = 0; i < n; ++i) dx[i] = (dy[i] * total - ((x[i] - m) * bc + a)) * s;
}

void bn_backprop_f32(const float *x, const float *dy, const float *mean, const float *a,
                     const float *bc, const float *scale, float total, size_t parts, size_t n,
                     float *dx) {
    for (size_t p = 0; p < parts; ++p)
        backprop_row(x + p * n, dy + p * n, mean[p], a[p], bc[p], scale[p], total, n, dx + p * n);
}
