/* DMA kernels on dense buffers (see dma_kernels.h, docs/dma.md). */
#include "dma_kernels.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

/* ---- CCE ------------------------------------------------------------------ */

static inline uint32_t f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static inline float bits_f32(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* addss acc, x: x86 returns the first operand's NaN (quieted) when acc is a
 * NaN, the other NaN (quieted) when only x is, else the sum. A C `acc + x`
 * leaves the choice between two NaNs to the compiler (addition commutes), so
 * the first rule is spelled out. */
float dma_addss(float acc, float x) {
    if (acc != acc) return bits_f32(f32_bits(acc) | 0x00400000u);
    return acc + x;
}

/* The SSE min/max family: the accumulator is the second operand, so a NaN on
 * either side or a tie returns acc. C comparisons are false on NaN, which is
 * exactly that rule, whatever instructions the compiler picks. */
static void fold_max(float *acc, const float *x, size_t n) {
    for (size_t i = 0; i < n; ++i) acc[i] = x[i] > acc[i] ? x[i] : acc[i];
}

static void fold_min(float *acc, const float *x, size_t n) {
    for (size_t i = 0; i < n; ++i) acc[i] = x[i] < acc[i] ? x[i] : acc[i];
}

/* dma_addss without a branch, so the loop vectorises: the sum is always
 * computed and a NaN accumulator (quieted) replaces it through a mask (a
 * ?: would leave control flow that -ftrapping-math keeps scalar). */
static void fold_add(float *acc, const float *x, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        uint32_t a = f32_bits(acc[i]), s = f32_bits(acc[i] + x[i]);
        uint32_t nan = 0u - (uint32_t)((a & 0x7FFFFFFFu) > 0x7F800000u);
        acc[i] = bits_f32((s & ~nan) | ((a | 0x00400000u) & nan));
    }
}

/* Blocks of DMA_CCE_BLOCK elements: the accumulator block stays in L1
 * while every source is folded into it (one pass over memory). */
#define DMA_CCE_BLOCK 1024

void dma_cce_fold(int op, dma_cce_init init, const float *const *src, size_t nsrc, size_t n,
                  float *out) {
    for (size_t b = 0; b < n; b += DMA_CCE_BLOCK) {
        size_t m = n - b < DMA_CCE_BLOCK ? n - b : DMA_CCE_BLOCK;
        float *acc = out + b;
        size_t s = 0;
        if (init == DMA_CCE_INIT_FIRST) {
            memcpy(acc, src[0] + b, m * sizeof *acc);
            s = 1;
        } else {
            /* +0.0f: the reference's zeroed fp32 accumulator. */
            memset(acc, 0, m * sizeof *acc);
        }
        for (; s < nsrc; ++s) {
            switch (op) {
                case DMA_ALU_MAX: fold_max(acc, src[s] + b, m); break;
                case DMA_ALU_MIN: fold_min(acc, src[s] + b, m); break;
                default: fold_add(acc, src[s] + b, m); break;
            }
        }
    }
}

/* ---- transpose --------------------------------------------------------------- */

/* Tile edge for the two innermost destination axes: a 32 x 32 tile of 8-byte
 * elements is 8 KiB, so the strided side of a 2-D transpose stays in L1. */
#define DMA_TILE 32

#define DMA_TRANSPOSE_BODY(T)                                                                      \
    do {                                                                                           \
        const T *s = (const T *)src;                                                               \
        T *d = (T *)dst;                                                                           \
        for (int64_t o0 = 0; o0 < D[0]; ++o0)                                                      \
            for (int64_t o1 = 0; o1 < D[1]; ++o1) {                                                \
                const T *sb = s + o0 * S[0] + o1 * S[1];                                           \
                T *db = d + (o0 * D[1] + o1) * D[2] * D[3];                                        \
                for (int64_t b2 = 0; b2 < D[2]; b2 += DMA_TILE)                                    \
                    for (int64_t b3 = 0; b3 < D[3]; b3 += DMA_TILE) {                              \
                        int64_t e2 = b2 + DMA_TILE < D[2] ? b2 + DMA_TILE : D[2];                  \
                        int64_t e3 = b3 + DMA_TILE < D[3] ? b3 + DMA_TILE : D[3];                  \
                        for (int64_t o2 = b2; o2 < e2; ++o2) {                                     \
                            const T *sr = sb + o2 * S[2];                                          \
                            T *dr = db + o2 * D[3];                                                \
                            for (int64_t o3 = b3; o3 < e3; ++o3) dr[o3] = sr[o3 * S[3]];           \
                        }                                                                          \
                    }                                                                              \
            }                                                                                      \
    } while (0)

void dma_transpose(const void *src, void *dst, size_t width, const int64_t shape[4],
                   const int perm[4]) {
    int64_t stride[4]; /* C-order strides of the source, in elements */
    stride[3] = 1;
    for (int a = 2; a >= 0; --a) stride[a] = stride[a + 1] * shape[a + 1];
    dma_transpose_strided(src, stride, dst, width, shape, perm);
}

/* The 2-D case, where the destination's rows are the source's columns
 * (S[2] == 1) and the source's rows are far apart (a partition each:
 * 192 KiB in SBUF, so all of them fall in one cache set, and a square tile
 * read down its columns thrashes that set). Each micro-tile of DMA_MICRO x
 * DMA_MICRO elements is read one source row at a time (one cache line,
 * used at once) into a local tile, then stored one destination row segment
 * at a time, so every line is read once and written once. The micro-tiles
 * walk DMA_MICRO source rows from end to end before the next DMA_MICRO, so
 * the source is read as DMA_MICRO sequential streams. */
#define DMA_MICRO 16

/* Streaming stores pay off once the destination is well past the caches:
 * each destination line is written whole at once, so the store needs no
 * read of the line first. Below this size, ordinary stores leave the
 * result in cache for whatever reads it next (measured on an AMD EPYC with
 * 512 KiB of L2 per core: at 1 MiB streaming halved the speed, at 2 MiB
 * it was even, at 4 MiB 1.5x faster; docs/internals/dma.md). */
#define DMA_STREAM_BYTES ((size_t)2 << 20)

#if defined(__SSE2__)
#include <emmintrin.h>
static void store_row_f32(uint32_t *d, const uint32_t *t, int64_t n, bool stream) {
    if (stream && n == DMA_MICRO) {
        for (int k = 0; k < DMA_MICRO; k += 4)
            _mm_stream_si128((__m128i *)(void *)(d + k),
                             _mm_loadu_si128((const __m128i *)(const void *)(t + k)));
        return;
    }
    memcpy(d, t, (size_t)n * sizeof *d);
}
#define DMA_STREAM_FENCE() _mm_sfence()
#else
static void store_row_f32(uint32_t *d, const uint32_t *t, int64_t n, bool stream) {
    (void)stream;
    memcpy(d, t, (size_t)n * sizeof *d);
}
#define DMA_STREAM_FENCE() ((void)0)
#endif

/* The micro-tiles of one rectangle of a plane: destination rows
 * [r0, r1) x columns [c0, c1), source row c at sb + c * S3. */
#define DMA_TRANSPOSE_RECT_BODY(T, STORE)                                                          \
    do {                                                                                           \
        T tile[DMA_MICRO][DMA_MICRO];                                                              \
        for (int64_t b3 = c0; b3 < c1; b3 += DMA_MICRO) {                                          \
            int64_t n3 = c1 - b3 < DMA_MICRO ? c1 - b3 : DMA_MICRO;                                \
            for (int64_t b2 = r0; b2 < r1; b2 += DMA_MICRO) {                                      \
                int64_t n2 = r1 - b2 < DMA_MICRO ? r1 - b2 : DMA_MICRO;                            \
                for (int64_t i3 = 0; i3 < n3; ++i3) {                                              \
                    const T *sr = sb + (b3 + i3) * S3 + b2;                                        \
                    for (int64_t i2 = 0; i2 < n2; ++i2) tile[i2][i3] = sr[i2];                     \
                }                                                                                  \
                T *dr = db + b2 * D3 + b3;                                                         \
                for (int64_t i2 = 0; i2 < n2; ++i2) STORE(dr + i2 * D3, tile[i2], n3);             \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define DMA_STORE_PLAIN(dp, tp, n)  memcpy((dp), (tp), (size_t)(n) * sizeof *(tp))
#define DMA_STORE_STREAM(dp, tp, n) store_row_f32((dp), (tp), (n), true)

#define DMA_RECT_FN(NAME, T, STORE)                                                                \
    static void NAME(const T *sb, int64_t S3, T *db, int64_t D3, int64_t r0, int64_t r1,           \
                     int64_t c0, int64_t c1) {                                                     \
        DMA_TRANSPOSE_RECT_BODY(T, STORE);                                                         \
    }
DMA_RECT_FN(rect_u8, uint8_t, DMA_STORE_PLAIN)
DMA_RECT_FN(rect_u16, uint16_t, DMA_STORE_PLAIN)
DMA_RECT_FN(rect_u32, uint32_t, DMA_STORE_PLAIN)
DMA_RECT_FN(rect_u32_stream, uint32_t, DMA_STORE_STREAM)
DMA_RECT_FN(rect_u64, uint64_t, DMA_STORE_PLAIN)

/* Destination rows [r0, r1) x columns [c0, c1) of one plane in the portable
 * micro-tiles. */
static void rect(const void *sb, int64_t S3, void *db, size_t width, int64_t D3, bool stream,
                 int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
    if (r0 >= r1 || c0 >= c1) return;
    switch (width) {
        case 1: rect_u8(sb, S3, db, D3, r0, r1, c0, c1); break;
        case 2: rect_u16(sb, S3, db, D3, r0, r1, c0, c1); break;
        case 4: (stream ? rect_u32_stream : rect_u32)(sb, S3, db, D3, r0, r1, c0, c1); break;
        default: rect_u64(sb, S3, db, D3, r0, r1, c0, c1); break;
    }
}

/* One plane, D2 x D3 destination elements: the register blocks on AVX2
 * where the CPU has it, whose edges (under a block wide) take the portable
 * micro-tiles. */
static void plane(dma_isa isa, const void *sb, int64_t S3, void *db, size_t width, int64_t D2,
                  int64_t D3, bool stream) {
    int64_t rb = 0, cb = 0; /* the part the vector blocks cover */
#if DMA_HAVE_AVX2_KERNELS
    if (isa == DMA_ISA_AVX2) {
        int64_t b = width == 1 ? 16 : width == 8 ? 4 : 8;
        rb = D2 & ~(b - 1), cb = D3 & ~(b - 1);
        if (rb && cb) {
            if (width == 4)
                dma_transpose_plane_f32_avx2(sb, S3, db, D2, D3, rb, cb, stream);
            else if (width == 2)
                dma_transpose_plane_u16_avx2(sb, S3, db, D3, rb, cb);
            else if (width == 1)
                dma_transpose_plane_u8_avx2(sb, S3, db, D3, rb, cb);
            else
                dma_transpose_plane_u64_avx2(sb, S3, db, D3, rb, cb);
        }
    }
#else
    (void)isa;
#endif
    if (!rb || !cb) rb = cb = 0;
    rect(sb, S3, db, width, D3, stream, 0, D2, cb, D3); /* the columns right of the vector part */
    rect(sb, S3, db, width, D3, stream, rb, D2, 0, cb); /* the rows below it */
}

static void transpose_rows(dma_isa isa, const void *src, const int64_t S[4], void *dst,
                           size_t width, const int64_t D[4]) {
    size_t bytes = (size_t)(D[0] * D[1] * D[2] * D[3]) * width;
    /* streaming needs 16-byte aligned destination segments: every row and
     * every micro-tile column start on one */
    bool stream =
        width == 4 && bytes >= DMA_STREAM_BYTES && ((uintptr_t)dst & 15) == 0 && D[3] % 4 == 0;
    const unsigned char *s = src;
    unsigned char *d = dst;
    for (int64_t o0 = 0; o0 < D[0]; ++o0)
        for (int64_t o1 = 0; o1 < D[1]; ++o1)
            plane(isa, s + (o0 * S[0] + o1 * S[1]) * (int64_t)width, S[3],
                  d + (o0 * D[1] + o1) * D[2] * D[3] * (int64_t)width, width, D[2], D[3], stream);
    if (stream) DMA_STREAM_FENCE(); /* the streamed lines are visible before the handler returns */
}

dma_isa dma_isa_best(void) {
#if DMA_HAVE_AVX2_KERNELS
    /* every thread stores the same answer; atomic (relaxed: a plain load on
     * x86) so that handles in parallel threads are race-free (TSan) */
    static _Atomic int have = -1;
    int h = atomic_load_explicit(&have, memory_order_relaxed);
    if (h < 0) {
        /* idempotent, and right even before libgcc's own constructor ran;
         * "avx2" includes the OS check that YMM registers are saved */
        __builtin_cpu_init();
        h = __builtin_cpu_supports("avx2") ? 1 : 0;
        atomic_store_explicit(&have, h, memory_order_relaxed);
    }
    return h == 1 ? DMA_ISA_AVX2 : DMA_ISA_PORTABLE;
#else
    return DMA_ISA_PORTABLE;
#endif
}

const char *dma_isa_name(dma_isa isa) { return isa == DMA_ISA_AVX2 ? "avx2" : "portable"; }

void dma_transpose_strided(const void *src, const int64_t stride[4], void *dst, size_t width,
                           const int64_t shape[4], const int perm[4]) {
    dma_transpose_strided_isa(dma_isa_best(), src, stride, dst, width, shape, perm);
}

void dma_transpose_strided_isa(dma_isa isa, const void *src, const int64_t stride[4], void *dst,
                               size_t width, const int64_t shape[4], const int perm[4]) {
    int64_t D[4], S[4]; /* destination extents, and the source stride of each */
    for (int k = 0; k < 4; ++k) {
        D[k] = shape[perm[k]];
        S[k] = stride[perm[k]];
    }
    if (S[2] == 1 && D[3] > 1) {
        transpose_rows(isa, src, S, dst, width, D);
        return;
    }
    switch (width) {
        case 1: DMA_TRANSPOSE_BODY(uint8_t); break;
        case 2: DMA_TRANSPOSE_BODY(uint16_t); break;
        case 4: DMA_TRANSPOSE_BODY(uint32_t); break;
        default: DMA_TRANSPOSE_BODY(uint64_t); break;
    }
}

/* ---- replicate ----------------------------------------------------------------- */

void dma_replicate(const void *src, size_t bytes, void *dst, size_t copies) {
    unsigned char *d = dst;
    for (size_t c = 0; c < copies; ++c) memcpy(d + c * bytes, src, bytes);
}
