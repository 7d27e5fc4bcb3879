/* The trnsim-experimental module's state: its settings, trnsim-rng's
 * "rng.xorwow" service, and Rng's lanes: one gen-2 partition state (4 XORWOW
 * lanes, trnsim-rng's layout) per core and partition, of which Rng draws
 * lane 0. Sized in run_begin. */
#ifndef TRNSIM_EXP_STATE_H
#define TRNSIM_EXP_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "trnsim/service_rng.h"

typedef struct exp_state {
    int seeded;                        /* setting rng_seed is not "" */
    uint64_t seed;                     /* its value */
    int nonzero_gpsimd;                /* setting nonzero_partitions = "gpsimd" */
    const trn_rng_xorwow_service *rng; /* looked up at init */
    uint32_t cores, partitions;
    uint32_t *lanes; /* [cores][partitions][TRN_RNG_GEN2_WORDS] */
} exp_state;

/* (Re)size for a run and put every lane at its start: the engine default,
 * or the MT19937-64 fill of SetRandState2's scalar seed; every core starts
 * alike. Returns 0, or -1 when memory runs out (the old lanes are then
 * kept). */
int exp_state_begin(exp_state *st, uint32_t cores, uint32_t partitions);
void exp_state_free(exp_state *st);

/* The [partitions][TRN_RNG_GEN2_WORDS] block of one core. */
uint32_t *exp_state_core(exp_state *st, uint32_t core);

/* The lane Rng draws for engine partition p of a core's block: lane 0. */
static inline uint32_t *exp_state_lane(uint32_t *core_block, uint32_t p) {
    return core_block + (size_t)p * TRN_RNG_GEN2_WORDS;
}

#endif
