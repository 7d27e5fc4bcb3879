/* The BN handlers (IT 34-38) and the module state they share. */
#ifndef TRNSIM_BN_OPS_H
#define TRNSIM_BN_OPS_H

#include <stddef.h>

#include "trnsim/plugin.h"

/* Scratch memory reused across instructions, so a large BNStats does not
 * pay for fresh pages every time. One per module instance (no globals);
 * the host runs one instruction at a time. */
typedef struct bn_state {
    float *buf;
    size_t cap; /* floats */
} bn_state;

/* At least n floats of scratch, or NULL after recording an error. */
float *bn_scratch(const trn_host_api *api, trn_ctx *ctx, bn_state *st, size_t n);
void bn_state_free(bn_state *st);

trn_status bn_op_stats(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status bn_op_aggregate(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status bn_op_gradients(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status bn_op_backprop(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status bn_op_backprop2(const trn_host_api *api, trn_ctx *ctx, void *state);

#endif
