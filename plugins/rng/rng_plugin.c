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
#include "rng_conform.h"
#include "rng_ops.h"
#include "rng_service.h"
#include "trnsim/plugin.h"

static const trn_attr_desc get1_attrs[] = {
    {.name = "engine",
     .types = TRN_ATTR_INT,
     .def = "1",
     .help = "1: gen-1 state (6 words), 5: gen-2 XORWOW (24 words)"},
};
static const trn_attr_desc get2_attrs[] = {
    {.name = "engine",
     .types = TRN_ATTR_INT,
     .def = "5",
     .help = "1: gen-1 state (6 words), 5: gen-2 XORWOW (24 words)"},
};
static const trn_attr_desc set1_attrs[] = {
    {.name = "engine",
     .types = TRN_ATTR_INT,
     .def = "1",
     .help = "1: gen-1 (LFSR / PCG32 / Philox state), 5: gen-2 XORWOW"},
    {.name = "seed",
     .types = TRN_ATTR_INT | TRN_ATTR_STRING | TRN_ATTR_LIST,
     .elem = TRN_ATTR_INT,
     .help = "instead of a state input: a uint64 (integer or decimal / 0x string) for engine 5, 8 "
             "uint32 for engine 1"},
};
static const trn_attr_desc set2_attrs[] = {
    {.name = "engine",
     .types = TRN_ATTR_INT,
     .def = "5",
     .help = "1: gen-1 (LFSR / PCG32 / Philox state), 5: gen-2 XORWOW"},
    {.name = "seed",
     .types = TRN_ATTR_INT | TRN_ATTR_STRING | TRN_ATTR_LIST,
     .elem = TRN_ATTR_INT,
     .help = "instead of a state input: a uint64 (integer or decimal / 0x string) for engine 5, 8 "
             "uint32 for engine 1"},
};
static const trn_enum_desc algorithms[] = {
    {"LFSR", 0, NULL},
    {"PCG32", 1, NULL},
    {"PHILOX", 2, "PHILOX_1"},
};
static const trn_enum_desc distributions[] = {
    {"Binomial", 0, NULL},
    {"Normal", 1, NULL},
    {"Raw", 2, NULL},
    {"Uniform", 3, NULL},
};
static const trn_attr_desc rand_attrs[] = {
    {.name = "algorithm",
     .types = TRN_ATTR_ENUM | TRN_ATTR_INT,
     .flags = TRN_ATTRF_REQUIRED,
     TRN_ARRAY(enums, algorithms),
     .bir_name = "random_algorithm",
     .help = "0 LFSR, 1 PCG32, 2 PHILOX"},
    {.name = "distribution",
     .types = TRN_ATTR_ENUM,
     TRN_ARRAY(enums, distributions),
     .help = "accepted and ignored: Rand writes raw bits (rng.rand_raw_bits)"},
    {.name = "params",
     .types = TRN_ATTR_LIST,
     .elem = TRN_ATTR_FLOAT,
     .help = "accepted and ignored: Rand writes raw bits (rng.rand_raw_bits)"},
    {.name = "rand_num_steps",
     .types = TRN_ATTR_INT,
     .min = 0,
     .max = 9e15,
     .help = "accepted and ignored"},
};
static const trn_attr_desc rand2_attrs[] = {
    {.name = "min", .types = TRN_ATTR_FLOAT, .def = "0", .help = "lower end of [min, max) (fp32)"},
    {.name = "max", .types = TRN_ATTR_FLOAT, .def = "1", .help = "upper end of [min, max) (fp32)"},
    {.name = "is_2x1p", .types = TRN_ATTR_BOOL, .def = "false", .help = "2 lanes per partition"},
    {.name = "is_2x2p", .types = TRN_ATTR_BOOL, .def = "false", .help = "2 lanes per partition"},
    {.name = "is_4x2p",
     .types = TRN_ATTR_BOOL,
     .def = "false",
     .help = "4 lanes per partition (at most one lane flag)"},
};

static const trn_operand_desc get_operands[] = {
    {TRN_OUT, "state", 0, "[P][6] or [P][24] uint32 per engine"}};
static const trn_operand_desc set_operands[] = {
    {TRN_IN, "state", TRN_OPERANDF_OPTIONAL,
     "[P][6] or [P][24] uint32 per engine; none when seed is given"},
};
static const trn_operand_desc rand_operands[] = {
    {TRN_OUT, "values", 0, "uint32 raw generator bits"}};
static const trn_operand_desc rand2_operands[] = {{TRN_OUT, "values", 0, "float32 in [min, max)"}};

/* Each handler validates first and returns before touching the engine when
 * api->checking(ctx): the handler is its own static check. */
static const trn_opcode_desc rng_ops[] = {
    TRN_OP(58, "GetRandState", rng_op_get_state, TRN_ARRAY(attrs, get1_attrs),
           TRN_ARRAY(operands, get_operands), .conform = rng_conform_get_state),
    TRN_OP(59, "SetRandState", rng_op_set_state, TRN_ARRAY(attrs, set1_attrs),
           TRN_ARRAY(operands, set_operands), .conform = rng_conform_set_state),
    TRN_OP(60, "Rand", rng_op_rand, TRN_ARRAY(attrs, rand_attrs),
           TRN_ARRAY(operands, rand_operands), .conform = rng_conform_rand),
    TRN_OP(97, "Rand2", rng_op_rand2, TRN_ARRAY(attrs, rand2_attrs),
           TRN_ARRAY(operands, rand2_operands), .conform = rng_conform_rand2),
    TRN_OP(98, "GetRandState2", rng_op_get_state, TRN_ARRAY(attrs, get2_attrs),
           TRN_ARRAY(operands, get_operands), .conform = rng_conform_get_state2),
    TRN_OP(99, "SetRandState2", rng_op_set_state, TRN_ARRAY(attrs, set2_attrs),
           TRN_ARRAY(operands, set_operands), .conform = rng_conform_set_state2),
};

static const trn_setting_desc rng_settings[] = {
    {"rand2_min_gt_max", TRN_SET_STRING, "compute", 1, 0, "compute|error",
     "Rand2 with min > max: compute min + (max - min) * u as the reference does, or fail"},
};

static const trn_quirk_desc rng_quirks[] = {
    {"rng.rand_raw_bits", NULL, "always",
     "Rand (60) writes raw generator bits; distribution and params fields are ignored (no "
     "Uniform/Normal shaping)"},
    {"rng.rand2_half_open", NULL, "always",
     "Rand2 draws u in [0, 1) (mantissa trick), values in [min, max) where NKI docs say [min, "
     "max]; fp32 rounding of "
     "min + (max - min) * u can still give max"},
    {"rng.rand2_min_gt_max", "rand2_min_gt_max", "compute",
     "Rand2 with min > max is computed anyway: values in (max, min]"},
    {"rng.zero_guard", NULL, "always",
     "restoring or seeding a state whose words 0..4 are all zero sets word 4 = 1 (each gen-2 lane "
     "too)"},
    {"rng.gen2_state_transposed", NULL, "always",
     "a 24-word gen-2 state tensor is DWORD-transposed: tensor[word * 4 + lane] (engine keeps "
     "lanes of 6 words)"},
    {"rng.wire_seed_partition", NULL, "always",
     "the gen-1 8-word seed keeps 24 bits of imm[0]: word0 = (partition << 24) | (imm[0] & "
     "0xFFFFFF)"},
};

/* The gen-2 generator, for modules that draw the same streams (the
 * experimental Rng); trnsim/service_rng.h. */
static const trn_service_desc rng_exports[] = {
    {TRN_RNG_XORWOW_SERVICE, TRN_RNG_XORWOW_VERSION, &rng_xorwow_service},
};

/* fini releases the state; run_begin sizes its per-core part. */
TRN_FINI_FREEING(rng, rng_engine_free)
TRN_RUN_BEGIN_SIZING(rng, rng_engine_begin, "rng states")

static trn_status rng_init(const trn_host_api *api, const trn_settings *settings, void **state,
                           char *err, size_t errlen) {
    const char *mode = "compute";
    rng_engine *e = calloc(1, sizeof *e);
    if (!e) return trn_fail(err, errlen, "out of memory");
    if (settings && api->setting_string(settings, "rand2_min_gt_max", &mode) == TRN_BADTYPE) {
        free(e);
        return trn_fail(err, errlen, "setting rand2_min_gt_max: expected \"compute\" or \"error\"");
    }
    e->min_gt_max_error = strcmp(mode, "error") == 0;
    *state = e;
    return TRN_OK;
}

#ifdef TRNSIM_REF_MODULE
#define RNG_MODULE_NAME "trnsim-rng-ref" /* plugins/rng/ref/: the oracle kernels */
#else
#define RNG_MODULE_NAME "trnsim-rng"
#endif
TRN_MODULE(rng, RNG_MODULE_NAME, "0.1.0", TRN_OPS(rng_ops), TRN_SETTINGS(rng_settings),
           TRN_QUIRKS(rng_quirks), TRN_EXPORTS(rng_exports), TRN_LIFECYCLE(rng),
           .state_save = rng_state_save, .state_restore = rng_state_restore);
