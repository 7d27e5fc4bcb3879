/* 4 x uint32 vectors for the RNG kernels (GCC >= 12 / Clang vector
 * extensions: one SSE2 register on x86-64, generic code elsewhere), and
 * the two helpers every partition-major kernel needs: a 4 x 4 transpose and
 * an unaligned store. Integer work only, except the fp32 mul/add of the
 * Rand2 conversion, which rounds per lane exactly as the scalar form. */
#ifndef TRNSIM_RNG_SIMD_H
#define TRNSIM_RNG_SIMD_H

#include <stdint.h>
#include <string.h>

typedef uint32_t rng_v4u __attribute__((vector_size(16)));
typedef float rng_v4f __attribute__((vector_size(16)));

static inline void rng_vstore(uint32_t *dst, rng_v4u x) { memcpy(dst, &x, sizeof x); }

/* r[k][i] -> c[i][k]: four steps of four streams become four columns of
 * four steps each. */
static inline void rng_transpose4(rng_v4u r0, rng_v4u r1, rng_v4u r2, rng_v4u r3, rng_v4u c[4]) {
    rng_v4u t0 = __builtin_shufflevector(r0, r1, 0, 4, 1, 5);
    rng_v4u t1 = __builtin_shufflevector(r0, r1, 2, 6, 3, 7);
    rng_v4u t2 = __builtin_shufflevector(r2, r3, 0, 4, 1, 5);
    rng_v4u t3 = __builtin_shufflevector(r2, r3, 2, 6, 3, 7);
    c[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5);
    c[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7);
    c[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5);
    c[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7);
}

#endif
