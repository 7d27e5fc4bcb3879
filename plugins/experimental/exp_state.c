/* Module state (exp_state.h). */
#include "exp_state.h"

#include <stdlib.h>
#include <string.h>

int exp_state_begin(exp_state *st, uint32_t cores, uint32_t partitions) {
    size_t per_core = (size_t)partitions * TRN_RNG_GEN2_WORDS;
    uint32_t *lanes = calloc((size_t)cores * per_core + 1, sizeof *lanes);
    if (!lanes) return -1;
    if (st->seeded) {
        if (st->rng->gen2_seed(lanes, partitions, st->seed) != 0) {
            free(lanes);
            return -1;
        }
    } else {
        st->rng->gen2_default(lanes, partitions);
    }
    for (uint32_t c = 1; c < cores; ++c)
        memcpy(lanes + c * per_core, lanes, per_core * sizeof *lanes);
    free(st->lanes);
    st->lanes = lanes;
    st->cores = cores;
    st->partitions = partitions;
    return 0;
}

void exp_state_free(exp_state *st) {
    free(st->lanes);
    st->lanes = NULL;
    st->cores = st->partitions = 0;
}

uint32_t *exp_state_core(exp_state *st, uint32_t core) {
    return st->lanes + (size_t)core * st->partitions * TRN_RNG_GEN2_WORDS;
}
