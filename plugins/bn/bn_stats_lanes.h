/* BNStats internals shared by the driver (bn_stats.c) and its vector block
 * kernels (bn_stats_v4.c, bn_stats_avx.c). Not part of the kernel API.
 *
 * A block kernel runs the Welford recurrence of BN_BLOCK partitions side by
 * side in the "pair layout": a vector holds, for a few partitions p, q, ...,
 * the lane A and lane B elements of one pair k,
 *     (x_p[2k], x_p[2k+1], x_q[2k], x_q[2k+1], ...),
 * which two 8-byte halves of a 16-byte row load give with one shuffle, and
 * all of whose lanes use the pair's shared r and 1 - r. Every lane applies
 * the reference's expression in the reference's order:
 *     new = (1-r)*old + r*x;  M2 = M2 + (x-new)*(x-old)
 * so each partition gets the bits of the scalar loop. */
#ifndef TRNSIM_BN_STATS_LANES_H
#define TRNSIM_BN_STATS_LANES_H

#include <stddef.h>

#include "bn_kernels.h"

/* Fully unroll a loop over a block's vectors, so that the state arrays live
 * in registers at any -O level that optimises (gcc -O2 otherwise kept the
 * four-lane kernel's loops and ran it 1.8x slower; the plugin builds with
 * -O3). */
#define BN_UNROLL _Pragma("GCC unroll 8")

/* Per pair k of the shared weight table: w[2k] = r, w[2k+1] = 1 - r. */
#define BN_W_PER_PAIR 2

/* The Welford state of one block, per partition in block order. */
typedef struct bn_stats_lanes {
    float mean_a[BN_BLOCK], m2_a[BN_BLOCK], mean_b[BN_BLOCK], m2_b[BN_BLOCK];
} bn_stats_lanes;

/* Block kernels: from the zero state, run pairs [0, done) of the BN_BLOCK
 * rows (row b starts at rows[b]; rows may repeat, for a partial block) and
 * store the state in *s; return done, a multiple of 2 <= pairs (the driver
 * finishes the rest one element at a time). Rows must hold 2 * pairs
 * elements. */
size_t bn_stats_block_v4(const float *const rows[BN_BLOCK], size_t pairs, const float *w,
                         bn_stats_lanes *s);

/* The AVX kernel exists on x86 with GNU C (gcc, clang); it may only run
 * where bn_isa_best() says BN_ISA_AVX. */
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define BN_HAVE_AVX_KERNEL 1
size_t bn_stats_block_avx(const float *const rows[BN_BLOCK], size_t pairs, const float *w,
                          bn_stats_lanes *s);
#else
#define BN_HAVE_AVX_KERNEL 0
#endif

#endif
