/* Scalar oracle for the DMA kernels (see dma_oracle.h). */
#include "dma_oracle.h"

#include <string.h>

#include "sse_insn.h"

/* CCE: add with the accumulator as destination; max / min as `movss (x);
 * OPss (acc)`. */
float oracle_addss(float acc, float x) { return sse_addss(acc, x); }
float oracle_maxss(float x, float acc) { return sse_maxss(x, acc); }
float oracle_minss(float x, float acc) { return sse_minss(x, acc); }

void oracle_cce(int op, int first_init, const float *const *src, size_t nsrc, size_t n,
                float *out) {
    for (size_t i = 0; i < n; ++i) {
        float acc = 0.0f;
        size_t s = 0;
        if (first_init) {
            acc = src[0][i];
            s = 1;
        }
        for (; s < nsrc; ++s) {
            float x = src[s][i];
            if (op == 4)
                acc = oracle_addss(acc, x);
            else if (op == 8)
                acc = oracle_maxss(x, acc);
            else
                acc = oracle_minss(x, acc);
        }
        out[i] = acc;
    }
}

void oracle_transpose(const void *src, void *dst, size_t width, const int64_t shape[4],
                      const int perm[4]) {
    int64_t dshape[4];
    int64_t total = 1;
    for (int k = 0; k < 4; ++k) {
        dshape[k] = shape[perm[k]];
        total *= dshape[k];
    }
    for (int64_t o = 0; o < total; ++o) {
        int64_t oi[4], si[4];
        int64_t rem = o;
        for (int k = 3; k >= 0; --k) {
            oi[k] = rem % dshape[k];
            rem /= dshape[k];
        }
        for (int k = 0; k < 4; ++k) si[perm[k]] = oi[k];
        int64_t s = ((si[0] * shape[1] + si[1]) * shape[2] + si[2]) * shape[3] + si[3];
        memcpy((char *)dst + o * (int64_t)width, (const char *)src + s * (int64_t)width, width);
    }
}

void oracle_replicate(const void *src, size_t n, size_t width, void *dst, size_t copies) {
    for (size_t c = 0; c < copies; ++c)
        for (size_t i = 0; i < n; ++i)
            memcpy((char *)dst + (c * n + i) * width, (const char *)src + i * width, width);
}
