/* Handlers of the trnsim-experimental module (docs/experimental.md). */
#ifndef TRNSIM_EXP_OPS_H
#define TRNSIM_EXP_OPS_H

#include "trnsim/plugin.h"

#define EXP_IT_RNG     100u
#define EXP_IT_NONZERO 104u

trn_status exp_op_rng(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status exp_op_nonzero(const trn_host_api *api, trn_ctx *ctx, void *state);
/* exp_snapshot.c: the lanes in a dump (ABI 3 state hooks). */
trn_status exp_state_save(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                          size_t errlen);
trn_status exp_state_restore(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                             size_t errlen);

#endif
