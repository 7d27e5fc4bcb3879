/* A module with one opcode that does nothing: the benchmark times dispatch
 * with it (IT 250, "BenchNop"). */
#include "trnsim/plugin.h"

static trn_status nop(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)api, (void)ctx, (void)state;
    return TRN_OK;
}

static const trn_opcode_desc ops[] = {
    {.it = 250, .name = "BenchNop", .handler = nop, .flags = TRN_OPF_NO_ATTRS}};

TRN_EXPORT const trn_plugin_desc trnsim_plugin = {
    TRN_PLUGIN_HEADER, .name = "trnsim-benchnop", .family = "benchnop", .version = "1", .ops = ops,
    .n_ops = 1,
};
