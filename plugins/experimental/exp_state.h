/* The trnsim-experimental module's state: its settings and the Rng lanes
 * (one XORWOW lane per core and per partition), sized in run_begin. */
#ifndef TRNSIM_EXP_STATE_H
#define TRNSIM_EXP_STATE_H

#include <stddef.h>
#include <stdint.h>

typedef struct exp_state {
    int seeded;         /* setting rng_seed is not "" */
    uint64_t seed;      /* its value */
    int nonzero_gpsimd; /* setting nonzero_partitions = "gpsimd" */
    uint32_t cores, partitions;
    uint32_t *lanes; /* [cores][partitions][EXP_LANE_WORDS] */
} exp_state;

/* (Re)size for a run and put every lane at its start: the default lane, or
 * the MT19937-64 fill of the reference's code; every core starts alike. Returns 0, or
 * -1 when memory runs out (the old lanes are then kept). */
int exp_state_begin(exp_state *st, uint32_t cores, uint32_t partitions);
void exp_state_free(exp_state *st);

/* The [partitions][EXP_LANE_WORDS] block of one core. */
uint32_t *exp_state_core(exp_state *st, uint32_t core);

#endif
