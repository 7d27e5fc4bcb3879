/* PCG32 (XSH-RR 64/32, Rand algorithm 1) over many partition streams.
 *
 * A partition's stream is the 64-bit LCG s' = s * RNG_PCG32_MUL +
 * RNG_PCG32_INC (state = word0 | word1 << 32, rng_gen1.h) and column j is
 * XSH-RR of the state before step j. A serial loop waits on one 64-bit
 * multiply per value. The LCG jumps ahead exactly (mod 2^64): k steps are
 * one affine map s * A_k + C_k, so k consecutive columns of one partition
 * can run as k independent chains that each step by k. That is how the
 * kernels work, inside each partition: the output order, the state layout
 * and every bit stay those of the one-step definition. */
#ifndef TRNSIM_RNG_PCG32_H
#define TRNSIM_RNG_PCG32_H

#include <stddef.h>
#include <stdint.h>

#include "rng_isa.h"

/* The affine map of k LCG steps: after k steps from s the state is
 * s * *mul + *inc (mod 2^64), by squaring (O(log k)). */
void rng_pcg32_jump(uint64_t k, uint64_t *mul, uint64_t *inc);

/* Fill out[p * n + j] (p < np, j < n) with the next n outputs of each of np
 * streams, states [np][RNG_GEN1_WORDS] (words 0, 1 read and advanced, the
 * rest untouched), on the path isa (RNG_ISA_AVX2 only where rng_isa_best()
 * gives it). */
void rng_pcg32_fill(rng_isa isa, uint32_t *states, size_t np, uint32_t *out, size_t n);

/* Columns a row kernel runs per block; a row's first CHAINS states seed
 * the chains and columns past the last whole block take single steps. */
#define RNG_PCG32_CHAINS 16

#if RNG_HAVE_AVX2_KERNELS
/* One row on AVX2: columns [0, done) from *state, which is left at column
 * done (a multiple of RNG_PCG32_CHAINS); returns done. */
size_t rng_pcg32_row_avx2(uint64_t *state, uint32_t *out, size_t n);
#endif

#endif
