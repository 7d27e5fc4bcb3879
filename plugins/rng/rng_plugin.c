/* The trnsim-rng module: descriptor, settings, quirks, lifetime.
 *
 * Rng (IT 100) is deliberately not registered: the reference does not
 * execute it (skip-and-note), which the host reproduces for unregistered
 * opcodes under unknown_opcode = "skip" (quirk host.skip_and_note); an
 * experimental module may take IT 100 later. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng_engine.h"
#include "rng_ops.h"
#include "trnsim/plugin.h"

static const trn_opcode_desc rng_ops[] = {
    {58, "GetRandState", rng_op_get_state, 0},
    {59, "SetRandState", rng_op_set_state, 0},
    {60, "Rand", rng_op_rand, 0},
    {97, "Rand2", rng_op_rand2, 0},
    {98, "GetRandState2", rng_op_get_state, 0},
    {99, "SetRandState2", rng_op_set_state, 0},
};

static const trn_setting_desc rng_settings[] = {
    {"rand2_min_gt_max", TRN_SET_STRING, "compute", 1, 0, "compute|error",
     "Rand2 with min > max: compute min + (max - min) * u as the reference does, or fail"},
};

static const trn_quirk_desc rng_quirks[] = {
    {"rng.rand_raw_bits", NULL, "always",
     "Rand (60) writes raw generator bits; distribution and params fields are ignored (no Uniform/Normal shaping)"},
    {"rng.rand2_half_open", NULL, "always",
     "Rand2 draws u in [0, 1) (mantissa trick), values in [min, max) where NKI docs say [min, max]; fp32 rounding of "
     "min + (max - min) * u can still give max"},
    {"rng.rand2_min_gt_max", "rand2_min_gt_max", "compute",
     "Rand2 with min > max is computed anyway: values in (max, min]"},
    {"rng.zero_guard", NULL, "always",
     "restoring or seeding a state whose words 0..4 are all zero sets word 4 = 1 (each gen-2 lane too)"},
    {"rng.gen2_state_transposed", NULL, "always",
     "a 24-word gen-2 state tensor is DWORD-transposed: tensor[word * 4 + lane] (engine keeps lanes of 6 words)"},
    {"rng.wire_seed_partition", NULL, "always",
     "the gen-1 8-word seed keeps 24 bits of imm[0]: word0 = (partition << 24) | (imm[0] & 0xFFFFFF)"},
};

static trn_status rng_init(const trn_host_api *api, const trn_settings *settings, void **state, char *err,
                           size_t errlen) {
    const char *mode = "compute";
    rng_engine *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return TRN_ERR;
    }
    if (settings && api->setting_string(settings, "rand2_min_gt_max", &mode) == TRN_BADTYPE) {
        free(e);
        snprintf(err, errlen, "setting rand2_min_gt_max: expected \"compute\" or \"error\"");
        return TRN_ERR;
    }
    e->min_gt_max_error = strcmp(mode, "error") == 0;
    *state = e;
    return TRN_OK;
}

static void rng_fini(void *state) {
    rng_engine *e = state;
    if (!e) return;
    rng_engine_free(e);
    free(e);
}

static trn_status rng_run_begin(void *state, const trn_run_info *info, char *err, size_t errlen) {
    rng_engine *e = state;
    if (rng_engine_begin(e, info->cores, info->partitions) != 0) {
        snprintf(err, errlen, "out of memory for rng states of %u cores x %u partitions", info->cores,
                 info->partitions);
        return TRN_ERR;
    }
    return TRN_OK;
}

TRN_PLUGIN_DEFINE(rng) = {
    .abi_version = TRN_ABI_VERSION,
    .size = sizeof(trn_plugin_desc),
    .name = "trnsim-rng",
    .family = "rng",
    .version = "0.1.0",
    .ops = rng_ops,
    .n_ops = TRN_COUNT(rng_ops),
    .settings = rng_settings,
    .n_settings = TRN_COUNT(rng_settings),
    .quirks = rng_quirks,
    .n_quirks = TRN_COUNT(rng_quirks),
    .init = rng_init,
    .fini = rng_fini,
    .run_begin = rng_run_begin,
};
