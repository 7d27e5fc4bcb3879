/* Checks shared by the RNG handlers: the executing core's engine block,
 * operand counts and dtypes, and which engine partitions an AP visits. */
#ifndef TRNSIM_RNG_GLUE_H
#define TRNSIM_RNG_GLUE_H

#include <stddef.h>
#include <stdint.h>

#include "rng_engine.h"
#include "trnsim/plugin.h"

/* The executing core, checked against the engine's size. */
trn_status rng_core(const trn_host_api *api, trn_ctx *ctx, const rng_engine *e, uint32_t *core);

/* Exactly n_in inputs and n_out outputs. */
trn_status rng_counts(const trn_host_api *api, trn_ctx *ctx, const char *op, int n_in, int n_out);

/* Operand (dir, idx) resolved, with dtype want. */
trn_status rng_operand(const trn_host_api *api, trn_ctx *ctx, const char *op, trn_dir dir, int idx,
                       trn_dtype want, trn_ap *ap);

/* The engine partition of visit i of ap is ap->part_start + i * part_step
 * (HBM: partition 0). Checks that every one exists in the engine. */
trn_status rng_partitions_ok(const trn_host_api *api, trn_ctx *ctx, const rng_engine *e,
                             const trn_ap *ap);
static inline uint32_t rng_visit_partition(const trn_ap *ap, uint32_t i) {
    return ap->part_start + i * ap->part_step;
}

/* A dense buffer for n elements of width bytes, or an error if it cannot
 * be had. */
trn_status rng_alloc(const trn_host_api *api, trn_ctx *ctx, int64_t n, size_t width, void **out);

/* The optional integer attribute key: def when absent. */
trn_status rng_attr_int(const trn_host_api *api, trn_ctx *ctx, const char *key, int64_t def,
                        int64_t *out);

#endif
