/* DMA kernels: pure functions on dense buffers (no host, no memory model).
 *
 * The handlers (dma_*.c) read access patterns into dense buffers through the
 * host API, call these, and write the result back. Each kernel is checked
 * bit for bit against a scalar transliteration of the reference's code in
 * plugins/dma/ref/dma_oracle.c. See docs/dma.md for the behaviour they implement. */
#ifndef TRNSIM_DMA_KERNELS_H
#define TRNSIM_DMA_KERNELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trnsim/dtype.h"
#include "trnsim/plugin.h"

/* AluOpType values the DMA family reads (the reference's bir::AluOpType). */
enum {
    DMA_ALU_BYPASS = 0,
    DMA_ALU_ADD = 4,
    DMA_ALU_MAX = 8,
    DMA_ALU_MIN = 9,
};

/* ---- CCE (DMACopy mode 2) ---------------------------------------------- */

/* How the CCE accumulator starts: the reference zeroes it (quirk
 * dma.cce_zeroed_accumulator); "first" seeds it with the first source. */
typedef enum dma_cce_init { DMA_CCE_INIT_ZERO = 0, DMA_CCE_INIT_FIRST = 1 } dma_cce_init;

/* out[i] = fold over s = 0..nsrc-1 of acc = op(acc, src[s][i]), acc starting
 * at +0.0f (ZERO) or src[0][i] (FIRST, then s = 1..). op is an AluOpType:
 * add (acc + x, x86 addss acc,x NaN rule), max (x > acc ? x : acc),
 * min (x < acc ? x : acc): the SSE second-operand-on-NaN-or-tie family.
 * Precondition: op is 4, 8 or 9 and nsrc >= 1. out may alias no source. */
void dma_cce_fold(int op, dma_cce_init init, const float *const *src, size_t nsrc, size_t n,
                  float *out);

/* One step of the fold, exposed for tests: addss(acc, x) as x86 computes it
 * (a NaN acc wins, quieted; else a NaN x, quieted; else the IEEE sum). */
float dma_addss(float acc, float x);

/* ---- transpose (DMACopy mode 1) ----------------------------------------- */

/* dst = src viewed as a C-order array of shape[4] (W, Z, Y, X) with its axes
 * permuted: destination axis k is source axis perm[k], so the destination
 * shape is shape[perm[k]] and it is written in C order. Elements are width
 * bytes (1, 2, 4 or 8) and copied bit for bit. perm must be a permutation
 * of 0..3 (dma_perm_valid). */
void dma_transpose(const void *src, void *dst, size_t width, const int64_t shape[4],
                   const int perm[4]);
/* The same with the source's axis a at stride[a] elements (a source read in
 * place, e.g. rows of a lent view), the destination still dense. */
void dma_transpose_strided(const void *src, const int64_t stride[4], void *dst, size_t width,
                           const int64_t shape[4], const int perm[4]);
bool dma_perm_valid(const int64_t perm[4]);

/* Which tiles the 2-D transpose (a source read along its rows into
 * destination columns) uses, chosen at run time: the build needs no
 * -march, the AVX2 tiles are compiled for AVX2 alone and run only where
 * dma_isa_best() found the CPU and the OS support it. Both move the same
 * bits; tests/dma runs each one this CPU has against the oracle. */
typedef enum dma_isa {
    DMA_ISA_PORTABLE = 0, /* plain C micro-tiles (SSE2 streaming stores on x86-64) */
    DMA_ISA_AVX2 =
        1, /* register blocks: 16 x 16 bytes, 8 x 8 of 2- and 4-byte elements, 4 x 4 of 8-byte */
} dma_isa;

/* The AVX2 tiles exist on x86 with GNU C (gcc, clang). */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define DMA_HAVE_AVX2_KERNELS 1
#else
#define DMA_HAVE_AVX2_KERNELS 0
#endif

/* The widest set this CPU runs (asked once), and its name ("portable",
 * "avx2"). */
dma_isa dma_isa_best(void);
const char *dma_isa_name(dma_isa isa);

/* dma_transpose_strided with the tiles of isa (tests; the others use
 * dma_isa_best()). isa must be one this CPU runs. */
void dma_transpose_strided_isa(dma_isa isa, const void *src, const int64_t stride[4], void *dst,
                               size_t width, const int64_t shape[4], const int perm[4]);

/* One plane on AVX2 (dma_transpose_avx2.c): destination rows [0, r8) x
 * columns [0, c8) (multiples of 8) of a plane `cols` wide, source row c
 * at src + c * sstride elements; 4-byte elements; stream: 16-byte
 * streaming stores of whole tiles (16-byte aligned rows; the caller
 * fences). */
void dma_transpose_plane_f32_avx2(const void *src, int64_t sstride, void *dst, int64_t rows,
                                  int64_t cols, int64_t r8, int64_t c8, bool stream);
/* The same for 1-byte elements in 16 x 16 blocks, 2-byte in 8 x 8 and
 * 8-byte in 4 x 4: rows [0, rb) x columns [0, cb), multiples of the
 * block, ordinary stores. */
void dma_transpose_plane_u8_avx2(const void *src, int64_t sstride, void *dst, int64_t cols,
                                 int64_t rb, int64_t cb);
void dma_transpose_plane_u16_avx2(const void *src, int64_t sstride, void *dst, int64_t cols,
                                  int64_t rb, int64_t cb);
void dma_transpose_plane_u64_avx2(const void *src, int64_t sstride, void *dst, int64_t cols,
                                  int64_t rb, int64_t cb);

/* ---- replicate (DMACopy mode 3) ----------------------------------------- */

/* dst = copies concatenated copies of the bytes src[0..bytes). */
void dma_replicate(const void *src, size_t bytes, void *dst, size_t copies);

/* ---- AluOpType -> MemoryReductionOp ------------------------------------- */

/* The reference's AluOpType2MemoryReduction: bypass (0) -> copy, add (4) ->
 * add; everything else is an error, max (8) / min (9) included, unless
 * allow_minmax maps them to MAX / MIN (the opt-in setting
 * allow_minmax_reduce). Returns 0, or -1 with a message in err. */
int dma_aluop_to_memop(int64_t aluop, bool allow_minmax, trn_acc_op *out, char *err, size_t errlen);

/* Name of an AluOpType value the family knows ("bypass", "add", "max",
 * "min"), else NULL. */
const char *dma_aluop_name(int64_t aluop);

/* ---- indices (indirect DMA) --------------------------------------------- */

/* True for the integer dtypes an index vector may have. */
bool dma_index_dtype_ok(trn_dtype dt);

/* Expand n raw indices of dtype dt into element indices: index j selects
 * the row of `row` consecutive elements starting at idx[j] * row, so
 * out[j*row + t] = idx[j]*row + t (row >= 1). Every idx[j] must satisfy
 * 0 <= idx[j] < rows; otherwise -1 with a message naming j and the value
 * (nothing useful is left in out). Precondition: dma_index_dtype_ok(dt). */
int dma_expand_indices(trn_dtype dt, const void *raw, size_t n, int64_t row, int64_t rows,
                       int64_t *out, char *err, size_t errlen);

#endif
