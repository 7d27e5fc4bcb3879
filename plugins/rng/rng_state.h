/* RNGSTATE formats: defaults, the zero guard, the gen-1 wire seed and the
 * gen-2 tensor layout. Pure functions; no host API here.
 *
 * Gen-1: 6 uint32 per partition, the tensor holds them as they are.
 * Gen-2: 24 uint32 per partition. Inside the engine they are lane-major
 *   (lanes[lane * 6 + word], rng_xorwow.h); in a state tensor they are
 *   DWORD-transposed, word-major: tensor[word * 4 + lane]. SetRandState
 *   transposes tensor -> lanes, GetRandState transposes back, so
 *   get(set(s)) == s for every s the zero guard leaves alone. */
#ifndef TRNSIM_RNG_STATE_H
#define TRNSIM_RNG_STATE_H

#include <stddef.h>
#include <stdint.h>

#define RNG_WIRE_SEED_WORDS 8u

/* All-zero words 0..4 force word 4 = 1 (a dead XORWOW state otherwise). */
void rng_zero_guard(uint32_t w[6]);

/* The default of both generations, per partition (gen-2: per lane):
 * {1, 1, 1, 1, 1, 1}. */
void rng_gen1_default(uint32_t w[6]);
void rng_gen2_default(uint32_t lanes[24]);

/* Gen-1 restore from a tensor row: copy, then the zero guard. */
void rng_gen1_from_tensor(const uint32_t t[6], uint32_t w[6]);

/* Gen-2 restore / save between a tensor row and lane-major lanes; restore
 * applies the zero guard to each lane. */
void rng_gen2_from_tensor(const uint32_t t[24], uint32_t lanes[24]);
void rng_gen2_to_tensor(const uint32_t lanes[24], uint32_t t[24]);
/* The exact inverse of rng_gen2_to_tensor, no zero guard: a saved engine
 * state comes back as it was (a dump's restore). */
void rng_gen2_from_tensor_exact(const uint32_t t[24], uint32_t lanes[24]);

/* Gen-1 wire seed of partition p from 8 immediates: wire[0] = (p << 24) |
 * (imm[0] & 0xFFFFFF), wire[k] = imm[k] for k = 1..7 (uint32 arithmetic:
 * p wraps mod 256). The running state is wire[0..5] with the zero guard;
 * wire[6] and wire[7] have no place in the 6-word state. */
void rng_gen1_wire_seed(uint32_t p, const uint32_t imm[RNG_WIRE_SEED_WORDS],
                        uint32_t wire[RNG_WIRE_SEED_WORDS]);
void rng_gen1_from_wire(const uint32_t wire[RNG_WIRE_SEED_WORDS], uint32_t w[6]);

#endif
