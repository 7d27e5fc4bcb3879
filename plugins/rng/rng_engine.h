/* The RNG module's state: engine states per core and per partition, sized
 * in run_begin from trn_run_info, plus the module's settings. */
#ifndef TRNSIM_RNG_ENGINE_H
#define TRNSIM_RNG_ENGINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct rng_engine {
    uint32_t cores, partitions;
    uint32_t *gen1;       /* [cores][partitions][6] */
    uint32_t *gen2;       /* [cores][partitions][24], lane-major per partition */
    int min_gt_max_error; /* setting rand2_min_gt_max = "error" */
    void *scratch;        /* output staging, kept between instructions */
    size_t scratch_cap;
} rng_engine;

/* (Re)size for a run and reset every state to its default. Returns 0, or -1
 * when memory runs out (the old states are then kept). */
int rng_engine_begin(rng_engine *e, uint32_t cores, uint32_t partitions);
void rng_engine_free(rng_engine *e);

/* A staging buffer of at least bytes, reused by every instruction (the
 * host runs one instruction at a time), so large outputs do not pay for
 * fresh pages on each call. NULL when memory runs out. */
void *rng_engine_scratch(rng_engine *e, size_t bytes);

/* The [partitions][6] / [partitions][24] block of one core. */
uint32_t *rng_engine_gen1(rng_engine *e, uint32_t core);
uint32_t *rng_engine_gen2(rng_engine *e, uint32_t core);

#endif
