/* The RNG handlers (IT 58-60, 97-99). state is the module's rng_engine. */
#ifndef TRNSIM_RNG_OPS_H
#define TRNSIM_RNG_OPS_H

#include "trnsim/plugin.h"

trn_status rng_op_rand(const trn_host_api *api, trn_ctx *ctx, void *state);      /* 60 */
trn_status rng_op_rand2(const trn_host_api *api, trn_ctx *ctx, void *state);     /* 97 */
trn_status rng_op_get_state(const trn_host_api *api, trn_ctx *ctx, void *state); /* 58, 98 */
trn_status rng_op_set_state(const trn_host_api *api, trn_ctx *ctx, void *state); /* 59, 99 */

/* rng_snapshot.c: the engines in a dump (ABI 3 state hooks). */
trn_status rng_state_save(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                          size_t errlen);
trn_status rng_state_restore(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                             size_t errlen);

#endif
