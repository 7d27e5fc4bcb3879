/* The 2-D fp32 transpose's tiles on AVX2 (dma_kernels.h). Only this file's
 * functions are compiled for AVX2; they run only where dma_isa_best()
 * found it.
 *
 * An 8 x 8 block of 4-byte elements is transposed in eight registers:
 * unpack pairs of rows (2 x 2 blocks of elements), shuffle pairs of those
 * (4 x 4 blocks within each 128-bit half), then swap the halves. Every step
 * moves bits unchanged (no arithmetic), so the result is the plain loop's
 * bit for bit, NaN payloads included. Blocks are gathered into a 16 x 16
 * tile in destination order, which is stored one destination row segment
 * (one 64-byte line) at a time, as in the portable path. */
#include "dma_kernels.h"

#if DMA_HAVE_AVX2_KERNELS

#include <immintrin.h>
#include <string.h>

#define AVX2 __attribute__((target("avx2")))

/* dst[j*dstride + k] = src[k*sstride + j] for j, k < 8 (elements). */
AVX2 static inline void block8(const float *src, int64_t sstride, float *dst, int64_t dstride) {
    __m256 r0 = _mm256_loadu_ps(src + 0 * sstride), r1 = _mm256_loadu_ps(src + 1 * sstride);
    __m256 r2 = _mm256_loadu_ps(src + 2 * sstride), r3 = _mm256_loadu_ps(src + 3 * sstride);
    __m256 r4 = _mm256_loadu_ps(src + 4 * sstride), r5 = _mm256_loadu_ps(src + 5 * sstride);
    __m256 r6 = _mm256_loadu_ps(src + 6 * sstride), r7 = _mm256_loadu_ps(src + 7 * sstride);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(dst + 0 * dstride, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps(dst + 1 * dstride, _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps(dst + 2 * dstride, _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps(dst + 3 * dstride, _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps(dst + 4 * dstride, _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps(dst + 5 * dstride, _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps(dst + 6 * dstride, _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps(dst + 7 * dstride, _mm256_permute2f128_ps(u3, u7, 0x31));
}

/* One destination row segment of 16 elements from the tile, streamed (the
 * caller checked the 16-byte alignment) or stored. */
AVX2 static inline void store16(float *d, const float *t, bool stream) {
    if (stream) {
        for (int k = 0; k < 16; k += 4) _mm_stream_ps(d + k, _mm_load_ps(t + k));
    } else {
        _mm256_storeu_ps(d, _mm256_load_ps(t));
        _mm256_storeu_ps(d + 8, _mm256_load_ps(t + 8));
    }
}

AVX2 void dma_transpose_plane_f32_avx2(const void *src, int64_t sstride, void *dst, int64_t rows, int64_t cols,
                                       int64_t r8, int64_t c8, bool stream) {
    (void)rows;
    const float *s = src;
    float *d = dst;
    _Alignas(32) float tile[16][16];
    for (int64_t b3 = 0; b3 < c8; b3 += 16) {
        bool wide = b3 + 16 <= c8;
        for (int64_t b2 = 0; b2 < r8; b2 += 16) {
            bool tall = b2 + 16 <= r8;
            const float *sb = s + b3 * sstride + b2;
            if (wide && tall) {
                block8(sb, sstride, &tile[0][0], 16);
                block8(sb + 8, sstride, &tile[8][0], 16);
                block8(sb + 8 * sstride, sstride, &tile[0][8], 16);
                block8(sb + 8 * sstride + 8, sstride, &tile[8][8], 16);
                float *db = d + b2 * cols + b3;
                for (int i = 0; i < 16; ++i) store16(db + i * cols, tile[i], stream);
                continue;
            }
            /* an edge tile: its 8 x 8 blocks straight to the destination */
            for (int64_t i3 = 0; i3 < (wide ? 16 : 8); i3 += 8)
                for (int64_t i2 = 0; i2 < (tall ? 16 : 8); i2 += 8)
                    block8(sb + i3 * sstride + i2, sstride, d + (b2 + i2) * cols + b3 + i3, cols);
        }
    }
}

#endif
