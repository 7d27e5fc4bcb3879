/* Broken modules for the loader's refusals; BAD_KIND selects the fault:
 *   1 wrong ABI version, 2 IT registered twice in one module, 3 IT in the
 *   reserved range, 4 no descriptor symbol, 5 descriptor too small,
 *   6 an opcode name already taken by the test module (TestCopy). */
#include "trnsim/plugin.h"

static trn_status nop(const trn_host_api *api, trn_ctx *ctx, void *s) { return TRN_OK; }

#if BAD_KIND == 2
static const trn_opcode_desc ops[] = {{210, "BadA", nop, 0}, {210, "BadB", nop, 0}};
#elif BAD_KIND == 3
static const trn_opcode_desc ops[] = {{115, "BadReserved", nop, 0}};
#elif BAD_KIND == 6
static const trn_opcode_desc ops[] = {{211, "TestCopy", nop, 0}};
#else
static const trn_opcode_desc ops[] = {{210, "BadA", nop, 0}};
#endif

#if BAD_KIND == 4
TRN_EXPORT const trn_opcode_desc *const not_the_descriptor = ops;
#else
TRN_EXPORT const trn_plugin_desc trnsim_plugin = {
    .abi_version = BAD_KIND == 1 ? 99 : TRN_ABI_VERSION,
    .size = BAD_KIND == 5 ? 8 : sizeof(trn_plugin_desc),
    .name = "trnsim-bad",
    .family = "bad",
    .version = "1",
    .ops = ops,
    .n_ops = sizeof ops / sizeof ops[0],
};
#endif
