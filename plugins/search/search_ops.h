/* Handlers of the search family (IT 88-91); state is a search_state. */
#ifndef TRNSIM_SEARCH_OPS_H
#define TRNSIM_SEARCH_OPS_H

#include "trnsim/plugin.h"

trn_status search_op_max(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status search_op_max_index(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status search_op_match_replace(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status search_op_max_index_match_replace(const trn_host_api *api, trn_ctx *ctx, void *state);

#endif
