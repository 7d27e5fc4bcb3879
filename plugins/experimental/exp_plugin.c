/* The trnsim-experimental module: descriptor, settings, quirks, lifetime.
 *
 * It takes two ITs the reference leaves to its skip-and-note leaf (its base
 * visitInstruction): Rng (100) and NonzeroWithCount (104). The default
 * config does not load it, so the reference's behaviour stays the default;
 * config/experimental.cfg loads it next to the five stock families. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exp_conform.h"
#include "exp_ops.h"
#include "exp_rng.h"
#include "exp_state.h"
#include "trnsim/plugin.h"

static const trn_attr_desc nonzero_attrs[] = {
    {.name = "index_offset",
     .types = TRN_ATTR_INT,
     .def = "0",
     .help = "added to every index written"},
    {.name = "padding_val",
     .types = TRN_ATTR_INT,
     .def = "-1",
     .help = "written in the unused slots"},
};
static const trn_operand_desc rng_operands[] = {
    {TRN_OUT, "bits", 0, "int8 / uint8 / int16 / uint16 / int32 / uint32 random bits"},
};
static const trn_operand_desc nonzero_operands[] = {
    {TRN_IN, "src", 0, "[P][T] any dtype with an fp32 value"},
    {TRN_OUT, "dst", 0, "[P][T + 1] int32 / uint32: indices, padding, then the count"},
};

/* Each handler validates first and returns before its first data access
 * when api->checking(ctx): the handler is its own static check. */
static const trn_opcode_desc exp_ops[] = {
    TRN_OP(EXP_IT_RNG, "Rng", exp_op_rng, .flags = TRN_OPF_NO_ATTRS,
           TRN_ARRAY(operands, rng_operands), .conform = exp_conform_rng),
    TRN_OP(EXP_IT_NONZERO, "NonzeroWithCount", exp_op_nonzero, TRN_ARRAY(attrs, nonzero_attrs),
           TRN_ARRAY(operands, nonzero_operands), .conform = exp_conform_nonzero),
};

static const trn_setting_desc exp_settings[] = {
    {"rng_seed", TRN_SET_STRING, "", 1, 0, NULL,
     "Rng lanes: \"\" starts every lane at the engine default {1,1,1,1,1,1}; a uint64 (decimal or "
     "0x hex) fills "
     "them from MT19937-64 as trnsim-rng's scalar seed does"},
    {"nonzero_partitions", TRN_SET_STRING, "all", 1, 0, "all|gpsimd",
     "NonzeroWithCount: every partition (\"all\"), or only the tile's partitions 0, 16, ..., 112 "
     "as NKI's GpSimd "
     "does (\"gpsimd\")"},
};

static const trn_quirk_desc exp_quirks[] = {
    {"experimental.not_in_reference", NULL, "always",
     "Rng (100) and NonzeroWithCount (104) are skipped by the reference; these are NKI's "
     "documented semantics, "
     "loaded only by config/experimental.cfg"},
    {"experimental.rng_own_lanes", NULL, "always",
     "Rng draws lane 0 of its own bank of trnsim-rng gen-2 states (one per core and partition), "
     "made and advanced by "
     "trnsim-rng's code: SetRandState/SetRandState2 do not reach it"},
    {"experimental.rng_start", "rng_seed", "\"\"",
     "every Rng lane starts at {1,1,1,1,1,1}, so all partitions and cores draw the same stream "
     "until rng_seed is "
     "set (cores always start alike)"},
    {"experimental.nonzero_nan", NULL, "always",
     "NonzeroWithCount tests x != 0 on the fp32-widened value: NaN and subnormals count as "
     "nonzero, -0.0 as zero"},
    {"experimental.nonzero_partitions", "nonzero_partitions", "all",
     "NonzeroWithCount runs on every partition; NKI hardware only reads/writes tile partitions 0, "
     "16, ..., 112 "
     "(\"gpsimd\")"},
};

/* Rng's lanes and their seeding are trnsim-rng's gen-2 generator. */
static const trn_service_need exp_needs[] = {
    {TRN_RNG_XORWOW_SERVICE, 1, "rng", "trnsim-rng"},
};

/* fini releases the state; run_begin sizes its per-core part. */
TRN_FINI_FREEING(exp, exp_state_free)
TRN_RUN_BEGIN_SIZING(exp, exp_state_begin, "Rng lanes")

static trn_status exp_init(const trn_host_api *api, const trn_settings *settings, void **state,
                           char *err, size_t errlen) {
    const char *seed = "", *parts = "all";
    exp_state *st = calloc(1, sizeof *st);
    if (!st) return trn_fail(err, errlen, "out of memory");
    if (settings && (api->setting_string(settings, "rng_seed", &seed) == TRN_BADTYPE ||
                     api->setting_string(settings, "nonzero_partitions", &parts) == TRN_BADTYPE)) {
        free(st);
        return trn_fail(err, errlen, "settings rng_seed and nonzero_partitions must be strings");
    }
    if (exp_parse_seed(seed, &st->seeded, &st->seed) != 0) {
        snprintf(err, errlen,
                 "setting rng_seed = \"%s\": expected \"\" or a uint64 in decimal or 0x hex", seed);
        free(st);
        return TRN_ERR;
    }
    st->nonzero_gpsimd = strcmp(parts, "gpsimd") == 0;
    st->rng = api->service(settings, TRN_RNG_XORWOW_SERVICE, 1);
    if (!st->rng) { /* the host resolved the need at load: only a host without services gets here */
        snprintf(err, errlen, "the service %s is not available", TRN_RNG_XORWOW_SERVICE);
        free(st);
        return TRN_ERR;
    }
    *state = st;
    return TRN_OK;
}

#ifdef TRNSIM_REF_MODULE
/* plugins/experimental/ref/: the oracle kernels */
#define EXP_MODULE_NAME "trnsim-experimental-ref"
#else
#define EXP_MODULE_NAME "trnsim-experimental"
#endif
TRN_MODULE(experimental, EXP_MODULE_NAME, "0.1.0", TRN_OPS(exp_ops), TRN_SETTINGS(exp_settings),
           TRN_QUIRKS(exp_quirks), TRN_NEEDS(exp_needs), TRN_LIFECYCLE(exp),
           .state_save = exp_state_save, .state_restore = exp_state_restore);
