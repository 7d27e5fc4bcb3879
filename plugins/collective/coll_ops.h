/* The handlers the descriptor registers (coll_plugin.c). */
#ifndef COLL_OPS_H
#define COLL_OPS_H

#include "trnsim/plugin.h"

trn_status coll_h_compute(const trn_host_api *api, trn_ctx *ctx, void *state);     /* IT 48 */
trn_status coll_h_send(const trn_host_api *api, trn_ctx *ctx, void *state);        /* IT 49 */
trn_status coll_h_recv(const trn_host_api *api, trn_ctx *ctx, void *state);        /* IT 50 */
trn_status coll_h_global_rank(const trn_host_api *api, trn_ctx *ctx, void *state); /* IT 11 */
trn_status coll_h_cur_rank(const trn_host_api *api, trn_ctx *ctx, void *state);    /* IT 66 */

/* Static checks (trn_check_fn); the rank opcodes' handlers are their own. */
trn_status coll_check_compute(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status coll_check_send(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status coll_check_recv(const trn_host_api *api, trn_ctx *ctx, void *state);

/* coll_snapshot.c: the registry and the waits in a dump (ABI 3 state hooks). */
trn_status coll_state_save(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                           size_t errlen);
trn_status coll_state_restore(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                              size_t errlen);

#endif
