/* Rng (IT 100): the pure parts this module keeps. The random bits come from
 * trnsim-rng's gen-2 generator through the "rng.xorwow" service
 * (trnsim/service_rng.h); what is left here is the truncation of a 32-bit
 * draw to the destination width and the rng_seed setting's syntax. No host
 * API here. */
#ifndef TRNSIM_EXP_RNG_H
#define TRNSIM_EXP_RNG_H

#include <stddef.h>
#include <stdint.h>

/* Keep the low width bytes (1, 2 or 4) of each draw: dst holds n elements
 * of that width in host order. */
void exp_rng_pack(const uint32_t *bits, size_t n, unsigned width, void *dst);

/* The setting rng_seed: "" -> *seeded = 0; otherwise a uint64 in decimal or
 * 0x hex -> *seeded = 1. Returns 0, or -1 for any other text. */
int exp_parse_seed(const char *text, int *seeded, uint64_t *seed);

#ifdef TRNSIM_REF_MODULE
/* The reference module's n draws of one lane (ref/exp_ref_kernels.c). */
void exp_ref_lane_bits(uint32_t *lane, uint32_t *bits, size_t n);
#endif

#endif
