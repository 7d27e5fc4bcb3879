/* A module with one opcode that does nothing: the benchmark times dispatch
 * with it (IT 250, "BenchNop"). */
#include "trnsim/plugin.h"

static trn_status nop(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)api, (void)ctx, (void)state;
    return TRN_OK;
}

static const trn_opcode_desc ops[] = {{250, "BenchNop", nop, 0}};

TRN_EXPORT const trn_plugin_desc trnsim_plugin = {
    .abi_version = TRN_ABI_VERSION,
    .size = sizeof(trn_plugin_desc),
    .name = "trnsim-benchnop",
    .family = "benchnop",
    .version = "1",
    .ops = ops,
    .n_ops = 1,
};
