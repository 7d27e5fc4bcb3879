/* Handlers of the search family (IT 88-91); state is a search_state. */
#ifndef TRNSIM_SEARCH_OPS_H
#define TRNSIM_SEARCH_OPS_H

#include "trnsim/plugin.h"

trn_status search_op_max(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status search_op_max_index(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status search_op_match_replace(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status search_op_max_index_match_replace(const trn_host_api *api, trn_ctx *ctx, void *state);

/* Static checks (trn_check_fn): operand counts, dtypes, element counts per
 * partition and imm_value, the handlers' own validation without data. */
trn_status search_check_max(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status search_check_max_index(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status search_check_match_replace(const trn_host_api *api, trn_ctx *ctx, void *state);
trn_status search_check_max_index_match_replace(const trn_host_api *api, trn_ctx *ctx, void *state);

#endif
