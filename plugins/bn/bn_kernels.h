/* BatchNorm kernels: pure functions on dense fp32 buffers (no host API).
 *
 * Every buffer is row-major [P][n] with P partitions, as the host's
 * read_f32 / write_f32 lay out an access pattern. Each kernel performs, per
 * partition, exactly the fp32 operations of the reference's BN kernels
 * (BNStats @ 0x1df7b0, docs/bn.md) in the reference's order; speed comes only from running BN_BLOCK
 * partitions side by side in vector lanes (the per-partition recurrences are independent;
 * bn_simd.h, and for BNStats an AVX path chosen at run time) and from
 * computing once what depends only on the element index (BNStats' r = 1/n).
 * tests/bn holds the scalar transliteration of the reference's code (the oracle) and
 * compares bits.
 *
 * Preconditions (the handlers validate them and report errors): counts
 * >= 1, buffers do not overlap. */
#ifndef TRNSIM_BN_KERNELS_H
#define TRNSIM_BN_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

/* Partitions processed side by side by the blocked kernels. Measured on the
 * BNStats benchmark: blocks of 4 and 16 were slower (too few independent
 * chains; more state than the 16 SSE / AVX registers hold), and a block of
 * 8 rows of 16384 fp32 (512 KiB) is what the handler keeps in cache. */
#define BN_BLOCK 8

/* Elements of one BNStats record (two Welford triples) per partition. */
#define BN_STATS_ELEMS 6
/* Elements of one BNStatsAggregate result (mean, variance). */
#define BN_AGG_ELEMS 2
/* Elements of one BNGradients result (sum dy, sum t*vf, sum t). */
#define BN_GRAD_ELEMS 3
/* Edge of the apply_transpose tile. */
#define BN_TILE 32

/* BNStats (IT 34): x [P][n] -> out [P][6] =
 * [ceil(n/2), mean_A, M2_A, floor(n/2), mean_B, M2_B], the 2-lane
 * interleaved Welford with one running count shared by both lanes.
 * w is the shared weight table of a row of n elements (bn_stats_weights):
 * it depends on n only, so a caller may compute it once and run the rows
 * in several calls (each call's rows are independent). */
size_t bn_stats_weights_len(size_t n); /* floats: 2 per pair */
void bn_stats_weights(size_t n, float *w);
void bn_stats_f32(const float *x, size_t parts, size_t n, const float *w, float *out);

/* The vector widths BNStats can run on; every one gives the same bits.
 * bn_stats_f32 uses bn_isa_best(); the tests run each path explicitly. */
typedef enum bn_isa {
    BN_ISA_V4,  /* four-lane GNU C vectors: baseline SSE2 on x86-64, portable */
    BN_ISA_AVX, /* eight-lane AVX (x86, chosen at run time; no -march) */
} bn_isa;
/* BN_ISA_AVX when this build has the AVX kernel and the CPU and OS support
 * AVX, else BN_ISA_V4. */
bn_isa bn_isa_best(void);
/* bn_stats_f32 on a given path; BN_ISA_AVX only where bn_isa_best() gives it. */
void bn_stats_f32_isa(bn_isa isa, const float *x, size_t parts, size_t n, const float *w,
                      float *out);
/* The same over rows `stride` floats apart (rows read in place). */
void bn_stats_rows_isa(bn_isa isa, const float *x, size_t stride, size_t parts, size_t n,
                       const float *w, float *out);
void bn_stats_rows(const float *x, size_t stride, size_t parts, size_t n, const float *w,
                   float *out);

/* apply_transpose: the 32x32 tile swap of StreamTranspose on [P][n]:
 * element (p, e) moves to row (p & ~31) | (e & 31), column (e & ~31) | (p & 31).
 * Defined when n == 1 (then it is a plain copy) or when both P and n are
 * multiples of 32 (bn_tile_transpose_ok). */
bool bn_tile_transpose_ok(size_t parts, size_t n);
void bn_tile_transpose_f32(const float *in, size_t parts, size_t n, float *out);

/* BNStatsAggregate (IT 35): in [P][e] (e a multiple of 3: e/3 Welford
 * triples (count, mean, M2)) -> out [P][2] = (mean, population variance),
 * merged in order with the reference's Chan formula. */
void bn_aggregate_f32(const float *in, size_t parts, size_t e, float *out);

/* BNGradients (IT 36): x, dy [P][n], mean, vf [P] ->
 * out [P][3] = [sum dy, sum (x-m)*dy*vf*vf, sum (x-m)*dy*vf], plain fp32
 * sums in index order. */
void bn_gradients_f32(const float *x, const float *dy, const float *mean, const float *vf,
                      size_t parts, size_t n, float *out);

/* BNBackprop / BNBackprop2 (IT 37 / 38), one per-partition coefficient set
 * (mean, a, bc, scale: each [P]) and the scalar total:
 * dx = (dy*total - ((x - mean)*bc + a)) * scale. */
void bn_backprop_f32(const float *x, const float *dy, const float *mean, const float *a,
                     const float *bc, const float *scale, float total, size_t parts, size_t n,
                     float *dx);

#endif
