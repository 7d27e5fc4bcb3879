/* trnsim public header: "rng.xorwow", the service trnsim-rng exports to
 * other modules (plugin ABI 3 shared services, docs/plugins.md).
 *
 * It hands out trnsim-rng's gen-2 generator: the XORWOW lanes of the
 * reference's generateXorwowRandom and the MT19937-64 fill of SetRandState's
 * scalar seed, so that a module that needs the same random streams (the
 * experimental Rng) uses trnsim-rng's code rather than a copy. The caller
 * owns the lane memory; the service only computes on it.
 *
 * Layout: a gen-2 partition state is TRN_RNG_GEN2_WORDS uint32, lane-major
 * (lane l is words l*6 .. l*6+5: words 0..4 = cuRAND's v[0..4], word 5 the
 * Weyl counter), exactly trnsim-rng's engine layout (docs/rng.md).
 *
 * Versions: the struct grows only at the end, each addition bumping
 * TRN_RNG_XORWOW_VERSION; a module declares the oldest version it works
 * with in its trn_service_need and reads newer members only when `size`
 * covers them. */
#ifndef TRNSIM_SERVICE_RNG_H
#define TRNSIM_SERVICE_RNG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRN_RNG_XORWOW_SERVICE "rng.xorwow"
#define TRN_RNG_XORWOW_VERSION 1u

#define TRN_RNG_LANE_WORDS 6u
#define TRN_RNG_GEN2_LANES 4u
#define TRN_RNG_GEN2_WORDS (TRN_RNG_LANE_WORDS * TRN_RNG_GEN2_LANES)

typedef struct trn_rng_xorwow_service {
    uint32_t size; /* sizeof(trn_rng_xorwow_service) of the exporter */
    /* Version 1. */
    /* np partition states ([np][24]) at the engine default: every word 1. */
    void (*gen2_default)(uint32_t *states, size_t np);
    /* np partition states filled from MT19937-64 seeded with seed, as
     * SetRandState2 with a scalar seed fills one core's lanes: partition by
     * partition, lane by lane, each 64-bit output giving two words, low
     * half first; then the zero guard on each lane. Returns 0, or -1 when
     * memory for the engine runs out (states unchanged). */
    int (*gen2_seed)(uint32_t *states, size_t np, uint64_t seed);
    /* n draws of one lane (TRN_RNG_LANE_WORDS words), in order: bits[j] is
     * the j-th 32-bit XORWOW output; the lane is advanced past them. */
    void (*lane_bits)(uint32_t *lane, uint32_t *bits, size_t n);
} trn_rng_xorwow_service;

#ifdef __cplusplus
}
#endif
#endif
