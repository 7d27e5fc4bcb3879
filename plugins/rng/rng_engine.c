/* Engine state storage (see rng_engine.h). */
#include "rng_engine.h"

#include <stdlib.h>

#include "rng_gen1.h"
#include "rng_state.h"
#include "rng_xorwow.h"

int rng_engine_begin(rng_engine *e, uint32_t cores, uint32_t partitions) {
    size_t slots = (size_t)cores * partitions;
    uint32_t *g1 = calloc(slots ? slots : 1, RNG_GEN1_WORDS * sizeof *g1);
    uint32_t *g2 = calloc(slots ? slots : 1, RNG_GEN2_WORDS * sizeof *g2);
    if (!g1 || !g2) {
        free(g1);
        free(g2);
        return -1;
    }
    for (size_t i = 0; i < slots; ++i) {
        rng_gen1_default(g1 + i * RNG_GEN1_WORDS);
        rng_gen2_default(g2 + i * RNG_GEN2_WORDS);
    }
    free(e->gen1);
    free(e->gen2);
    e->gen1 = g1;
    e->gen2 = g2;
    e->cores = cores;
    e->partitions = partitions;
    return 0;
}

void *rng_engine_scratch(rng_engine *e, size_t bytes) {
    if (bytes > e->scratch_cap) {
        void *p = malloc(bytes);
        if (!p) return NULL;
        free(e->scratch);
        e->scratch = p;
        e->scratch_cap = bytes;
    }
    return e->scratch;
}

void rng_engine_free(rng_engine *e) {
    free(e->gen1);
    free(e->gen2);
    free(e->scratch);
    e->gen1 = e->gen2 = NULL;
    e->scratch = NULL;
    e->scratch_cap = 0;
    e->cores = e->partitions = 0;
}

uint32_t *rng_engine_gen1(rng_engine *e, uint32_t core) {
    return e->gen1 + (size_t)core * e->partitions * RNG_GEN1_WORDS;
}

uint32_t *rng_engine_gen2(rng_engine *e, uint32_t core) {
    return e->gen2 + (size_t)core * e->partitions * RNG_GEN2_WORDS;
}
