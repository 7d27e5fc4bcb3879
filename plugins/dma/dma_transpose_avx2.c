/* The 2-D transpose's tiles on AVX2 (dma_kernels.h), for every element
 * width. Only this file's
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

AVX2 void dma_transpose_plane_f32_avx2(const void *src, int64_t sstride, void *dst, int64_t rows,
                                       int64_t cols, int64_t r8, int64_t c8, bool stream) {
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

/* ---- 1-, 2- and 8-byte elements ------------------------------------------- */

/* dst[j*dstride + k] = src[k*sstride + j] for j, k < 8, 2-byte elements:
 * pairs, then quads, then halves of rows interleaved (128-bit registers). */
AVX2 static inline void block8_u16(const uint16_t *src, int64_t sstride, uint16_t *dst,
                                   int64_t dstride) {
    __m128i r[8], t[8], u[8];
    for (int k = 0; k < 8; ++k)
        r[k] = _mm_loadu_si128((const __m128i *)(const void *)(src + k * sstride));
    for (int k = 0; k < 4; ++k) {
        t[2 * k] = _mm_unpacklo_epi16(r[2 * k], r[2 * k + 1]);
        t[2 * k + 1] = _mm_unpackhi_epi16(r[2 * k], r[2 * k + 1]);
    }
    /* u[0..3]: rows 0-3, columns (0,1) (2,3) (4,5) (6,7); u[4..7]: rows 4-7 */
    for (int h = 0; h < 2; ++h) {
        u[4 * h + 0] = _mm_unpacklo_epi32(t[4 * h + 0], t[4 * h + 2]);
        u[4 * h + 1] = _mm_unpackhi_epi32(t[4 * h + 0], t[4 * h + 2]);
        u[4 * h + 2] = _mm_unpacklo_epi32(t[4 * h + 1], t[4 * h + 3]);
        u[4 * h + 3] = _mm_unpackhi_epi32(t[4 * h + 1], t[4 * h + 3]);
    }
    for (int c = 0; c < 4; ++c) {
        _mm_storeu_si128((__m128i *)(void *)(dst + (2 * c) * dstride),
                         _mm_unpacklo_epi64(u[c], u[c + 4]));
        _mm_storeu_si128((__m128i *)(void *)(dst + (2 * c + 1) * dstride),
                         _mm_unpackhi_epi64(u[c], u[c + 4]));
    }
}

/* 16 x 16 1-byte elements: bytes, pairs, quads, then halves of rows
 * interleaved (128-bit registers). a[2k + h]: rows 2k, 2k + 1, columns
 * 8h..; b[4m + q]: rows 4m.. 4m + 3, columns 4q..; c[8n + e]: rows
 * 8n.. 8n + 7, columns 2e, 2e + 1. */
AVX2 static inline void block16_u8(const uint8_t *src, int64_t sstride, uint8_t *dst,
                                   int64_t dstride) {
    __m128i r[16], a[16], b[16], c[16];
    for (int k = 0; k < 16; ++k)
        r[k] = _mm_loadu_si128((const __m128i *)(const void *)(src + k * sstride));
    for (int k = 0; k < 8; ++k) {
        a[2 * k] = _mm_unpacklo_epi8(r[2 * k], r[2 * k + 1]);
        a[2 * k + 1] = _mm_unpackhi_epi8(r[2 * k], r[2 * k + 1]);
    }
    for (int m = 0; m < 4; ++m)
        for (int h = 0; h < 2; ++h) {
            b[4 * m + 2 * h] = _mm_unpacklo_epi16(a[4 * m + h], a[4 * m + 2 + h]);
            b[4 * m + 2 * h + 1] = _mm_unpackhi_epi16(a[4 * m + h], a[4 * m + 2 + h]);
        }
    for (int n = 0; n < 2; ++n)
        for (int q = 0; q < 4; ++q) {
            c[8 * n + 2 * q] = _mm_unpacklo_epi32(b[8 * n + q], b[8 * n + 4 + q]);
            c[8 * n + 2 * q + 1] = _mm_unpackhi_epi32(b[8 * n + q], b[8 * n + 4 + q]);
        }
    for (int e = 0; e < 8; ++e) {
        _mm_storeu_si128((__m128i *)(void *)(dst + (2 * e) * dstride),
                         _mm_unpacklo_epi64(c[e], c[8 + e]));
        _mm_storeu_si128((__m128i *)(void *)(dst + (2 * e + 1) * dstride),
                         _mm_unpackhi_epi64(c[e], c[8 + e]));
    }
}

/* The same for 4 x 4 8-byte elements: pairs, then halves swapped. */
AVX2 static inline void block4_u64(const uint64_t *src, int64_t sstride, uint64_t *dst,
                                   int64_t dstride) {
    __m256i r0 = _mm256_loadu_si256((const __m256i *)(const void *)(src + 0 * sstride));
    __m256i r1 = _mm256_loadu_si256((const __m256i *)(const void *)(src + 1 * sstride));
    __m256i r2 = _mm256_loadu_si256((const __m256i *)(const void *)(src + 2 * sstride));
    __m256i r3 = _mm256_loadu_si256((const __m256i *)(const void *)(src + 3 * sstride));
    __m256i t0 = _mm256_unpacklo_epi64(r0, r1), t1 = _mm256_unpackhi_epi64(r0, r1);
    __m256i t2 = _mm256_unpacklo_epi64(r2, r3), t3 = _mm256_unpackhi_epi64(r2, r3);
    _mm256_storeu_si256((__m256i *)(void *)(dst + 0 * dstride),
                        _mm256_permute2x128_si256(t0, t2, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(dst + 1 * dstride),
                        _mm256_permute2x128_si256(t1, t3, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(dst + 2 * dstride),
                        _mm256_permute2x128_si256(t0, t2, 0x31));
    _mm256_storeu_si256((__m256i *)(void *)(dst + 3 * dstride),
                        _mm256_permute2x128_si256(t1, t3, 0x31));
}

/* One plane of B x B blocks over destination rows [0, rb) x columns
 * [0, cb) (multiples of B), in tiles of one 64-byte line both ways: the
 * tile reads one line from each of its source rows (B rows at a time) and
 * fills one line of each of its destination rows, so every line is used
 * whole while it is in L1, as with the fp32 tiles. */
#define DMA_PLANE_BLOCKS(T, B, BLOCK)                                                              \
    do {                                                                                           \
        const T *s = src;                                                                          \
        T *d = dst;                                                                                \
        const int64_t line = 64 / (int64_t)sizeof(T);                                              \
        for (int64_t b3 = 0; b3 < cb; b3 += line) {                                                \
            int64_t e3 = b3 + line < cb ? b3 + line : cb;                                          \
            for (int64_t b2 = 0; b2 < rb; b2 += line) {                                            \
                int64_t e2 = b2 + line < rb ? b2 + line : rb;                                      \
                for (int64_t i3 = b3; i3 < e3; i3 += B)                                            \
                    for (int64_t i2 = b2; i2 < e2; i2 += B)                                        \
                        BLOCK(s + i3 * sstride + i2, sstride, d + i2 * cols + i3, cols);           \
            }                                                                                      \
        }                                                                                          \
    } while (0)

AVX2 void dma_transpose_plane_u8_avx2(const void *src, int64_t sstride, void *dst, int64_t cols,
                                      int64_t rb, int64_t cb) {
    DMA_PLANE_BLOCKS(uint8_t, 16, block16_u8);
}

AVX2 void dma_transpose_plane_u16_avx2(const void *src, int64_t sstride, void *dst, int64_t cols,
                                       int64_t rb, int64_t cb) {
    DMA_PLANE_BLOCKS(uint16_t, 8, block8_u16);
}

AVX2 void dma_transpose_plane_u64_avx2(const void *src, int64_t sstride, void *dst, int64_t cols,
                                       int64_t rb, int64_t cb) {
    DMA_PLANE_BLOCKS(uint64_t, 4, block4_u64);
}

#endif
