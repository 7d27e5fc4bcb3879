/* The PCG32 row kernel on AVX2 (rng_pcg32.h: jump-ahead chains inside one
 * partition). Only this file's functions are compiled for AVX2; they run
 * only where rng_isa_best() found it.
 *
 * Sixteen chains, one per column of a block, in four vectors of four
 * 64-bit states: vector 2h holds the even columns of half h (8h + 0, 2, 4,
 * 6) and vector 2h + 1 the odd ones, so one 32-bit blend of an even and an
 * odd vector's outputs gives eight consecutive columns. AVX2 has no 64-bit
 * multiply: s * m (mod 2^64) is lo(s) * lo(m) + ((hi(s) * lo(m) + lo(s) *
 * hi(m)) << 32), one 32 x 32 -> 64 product and one 32-bit multiply of
 * both cross terms (lcg4_step). XSH-RR's rotate is one per-lane variable
 * shift (xsh_rr4). */
#include "rng_pcg32.h"

#if RNG_HAVE_AVX2_KERNELS

#include <immintrin.h>

#include "rng_gen1.h"

#define AVX2 __attribute__((target("avx2")))

typedef struct lcg4 {
    __m256i mul_lo, mul_swapped, inc, high_mask;
} lcg4;

/* s * mul + inc per 64-bit lane. With mul_swapped holding hi(mul) in each
 * lane's low word and lo(mul) in its high word, one 32-bit multiply gives
 * the low words of both cross products, lo(s) * hi(mul) and
 * hi(s) * lo(mul). Their sum, moved to the high word and added to the
 * 64-bit product lo(s) * lo(mul), is s * mul (mod 2^64). */
AVX2 static inline __m256i lcg4_step(__m256i s, const lcg4 *k) {
    const __m256i lo = _mm256_mul_epu32(s, k->mul_lo);
    const __m256i t = _mm256_mullo_epi32(s, k->mul_swapped);
    const __m256i cross =
        _mm256_and_si256(_mm256_add_epi64(t, _mm256_slli_epi64(t, 32)), k->high_mask);
    return _mm256_add_epi64(_mm256_add_epi64(lo, cross), k->inc);
}

/* XSH-RR of each 64-bit lane, in the lane's low 32 bits (the high 32 bits
 * are left over and discarded by the caller). The 32 bits to rotate are
 * bits 27..58 of u = old ^ old >> 18. Placed in both halves of the lane, a
 * 64-bit right shift by rot (0..31) leaves their right rotation in the low
 * half, so the rotate is one variable shift. */
AVX2 static inline __m256i xsh_rr4(__m256i old) {
    const __m256i u = _mm256_xor_si256(_mm256_srli_epi64(old, 18), old);
    const __m256i twice =
        _mm256_blend_epi32(_mm256_srli_epi64(u, 27), _mm256_slli_epi64(u, 5), 0xAA);
    return _mm256_srlv_epi64(twice, _mm256_srli_epi64(old, 59));
}

/* Columns 2i (even) and 2i + 1 (odd), i = 0..3, interleaved. */
AVX2 static inline __m256i interleave(__m256i even, __m256i odd) {
    return _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}

AVX2 size_t rng_pcg32_row_avx2(uint64_t *state, uint32_t *out, size_t n) {
    enum { C = RNG_PCG32_CHAINS };
    if (n < 2 * C) return 0;
    uint64_t col[C], lanes[C], mul, inc, s = *state;
    for (size_t j = 0; j < C; ++j) {
        col[j] = s;
        s = s * RNG_PCG32_MUL + RNG_PCG32_INC;
    }
    for (size_t v = 0; v < 4; ++v) /* vector v: half v / 2, parity v % 2 */
        for (size_t i = 0; i < 4; ++i) lanes[4 * v + i] = col[8 * (v / 2) + 2 * i + v % 2];
    rng_pcg32_jump(C, &mul, &inc);
    const lcg4 k = {_mm256_set1_epi64x((long long)(mul & 0xFFFFFFFFu)),
                    _mm256_set1_epi64x((long long)((mul >> 32) | (mul << 32))),
                    _mm256_set1_epi64x((long long)inc),
                    _mm256_set1_epi64x((long long)0xFFFFFFFF00000000ULL)};
    __m256i v0 = _mm256_loadu_si256((const void *)lanes),
            v1 = _mm256_loadu_si256((const void *)(lanes + 4));
    __m256i v2 = _mm256_loadu_si256((const void *)(lanes + 8)),
            v3 = _mm256_loadu_si256((const void *)(lanes + 12));
    size_t j = 0;
    for (; j + C <= n; j += C) {
        _mm256_storeu_si256((void *)(out + j), interleave(xsh_rr4(v0), xsh_rr4(v1)));
        _mm256_storeu_si256((void *)(out + j + 8), interleave(xsh_rr4(v2), xsh_rr4(v3)));
        v0 = lcg4_step(v0, &k);
        v1 = lcg4_step(v1, &k);
        v2 = lcg4_step(v2, &k);
        v3 = lcg4_step(v3, &k);
    }
    *state = (uint64_t)_mm256_extract_epi64(v0, 0); /* lane 0 of v0: column j */
    return j;
}

#endif
