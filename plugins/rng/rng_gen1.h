/* Gen-1 generators of Rand (IT 60): LFSR, PCG32, Philox4x32-10.
 *
 * Pure functions on dense buffers; no host API here. A gen-1 state is six
 * uint32 words per partition. How each generator reads them is this
 * project's documented choice (the reference's word assignment is only
 * medium-confident), see docs/rng.md "Gen-1 state mapping":
 *   LFSR    word 0 is the 32-bit register; words 1..5 untouched.
 *   PCG32   state = word0 | word1 << 32; words 2..5 untouched.
 *   Philox  counter = words 0..3 (word 0 least significant), key = words
 *           4..5; element j of an instruction is output j % 4 of block
 *           counter + j / 4; the counter then advances by ceil(n / 4)
 *           blocks (outputs left in the last block are dropped). */
#ifndef TRNSIM_RNG_GEN1_H
#define TRNSIM_RNG_GEN1_H

#include <stddef.h>
#include <stdint.h>

#define RNG_GEN1_WORDS 6u

enum rng_algorithm { RNG_ALG_LFSR = 0, RNG_ALG_PCG32 = 1, RNG_ALG_PHILOX = 2 };

#define RNG_PCG32_MUL 0x5851F42D4C957F2DULL
#define RNG_PCG32_INC 0x14057B7EF767814FULL

#define RNG_PHILOX_M0     0xD2511F53u
#define RNG_PHILOX_M1     0xCD9E8D57u
#define RNG_PHILOX_W0     0x9E3779B9u
#define RNG_PHILOX_W1     0xBB67AE85u
#define RNG_PHILOX_ROUNDS 10

/* One LFSR step (taps {32,22,2,1}); the output is the new register. */
static inline uint32_t rng_lfsr_step(uint32_t *s) {
    uint32_t x = *s;
    uint32_t b = (x >> 31) ^ (x >> 21) ^ (x >> 1) ^ (x >> 0);
    x = (x << 1) | (b & 1u);
    *s = x;
    return x;
}

/* One PCG-XSH-RR 64/32 step with increment inc; the output comes from the
 * old state (pcg32_random_r). Rand always uses RNG_PCG32_INC; the increment
 * is a parameter so the tests can also run the published setseq vectors. */
static inline uint32_t rng_pcg32_step_inc(uint64_t *state, uint64_t inc) {
    uint64_t old = *state;
    *state = old * RNG_PCG32_MUL + inc;
    uint32_t xorshifted = (uint32_t)(((old >> 18) ^ old) >> 27);
    uint32_t rot = (uint32_t)(old >> 59);
    return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

/* Philox4x32-10 of one counter block (Random123 philox4x32_R(10, ...)). */
void rng_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* Add blocks to the 128-bit counter words[0..3] (word 0 least significant,
 * carries ripple upward, wraps at 2^128). */
void rng_philox_ctr_add(uint32_t ctr[4], uint64_t blocks);

/* True for an algorithm Rand knows. */
static inline int rng_gen1_algorithm_ok(int64_t alg) {
    return alg == RNG_ALG_LFSR || alg == RNG_ALG_PCG32 || alg == RNG_ALG_PHILOX;
}

/* Fill out[p * n + j] (p < np, j < n) with the next n outputs of each of np
 * independent partition streams; states is [np][RNG_GEN1_WORDS] and is
 * advanced. alg must satisfy rng_gen1_algorithm_ok. Partitions are
 * processed in groups so that the streams run side by side (vectorised);
 * the result equals np calls of the one-stream definition. */
void rng_gen1_fill(enum rng_algorithm alg, uint32_t *states, size_t np, uint32_t *out, size_t n);

#endif
