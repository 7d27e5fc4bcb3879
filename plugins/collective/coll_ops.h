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

#endif
