/* Four fp32 lanes with GNU C vector extensions (gcc and clang; no
 * intrinsics, no -march: on x86-64 this is baseline SSE2, elsewhere the
 * target's own vectors or scalar code).
 *
 * Vector arithmetic on these types is lane-wise IEEE fp32, exactly the
 * scalar operation in each lane (-ffp-contract=off forbids fusing), so a
 * kernel that applies the reference's expression to a vector of four partitions
 * gives each partition the bits of the scalar loop. Shuffles only move
 * values. */
#ifndef TRNSIM_BN_SIMD_H
#define TRNSIM_BN_SIMD_H

#include <stddef.h>
#include <string.h>

typedef float bn_v4 __attribute__((vector_size(16)));

#define BN_LANES 4
/* Columns per piece when a partial block is padded to a full one (a
 * multiple of 4). */
#define BN_PAD_COLS 256

static inline bn_v4 bn_v4_splat(float f) { return (bn_v4){f, f, f, f}; }

/* Four consecutive floats, any alignment. */
static inline bn_v4 bn_v4_load(const float *p) {
    bn_v4 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Element c of rows[0..nrows-1] (rows stride apart); lanes >= nrows are 0. */
static inline bn_v4 bn_v4_column(const float *rows, size_t stride, size_t nrows, size_t c) {
    bn_v4 v = bn_v4_splat(0.0f);
    for (size_t j = 0; j < nrows && j < BN_LANES; ++j) v[j] = rows[j * stride + c];
    return v;
}

/* 4x4 transpose: col[j][i] = rows[i*stride + j] for i, j < 4. */
static inline void bn_v4_transpose(const float *rows, size_t stride, bn_v4 col[4]) {
    const bn_v4 r0 = bn_v4_load(rows), r1 = bn_v4_load(rows + stride);
    const bn_v4 r2 = bn_v4_load(rows + 2 * stride), r3 = bn_v4_load(rows + 3 * stride);
    const bn_v4 t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5),
                t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
    const bn_v4 t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5),
                t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
    col[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    col[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    col[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    col[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

#endif
