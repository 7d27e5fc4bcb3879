/* The DMA module's descriptor: opcodes, settings, quirks, state lifetime.
 * Behaviour: docs/dma.md; specification: seed section 5 (DMA family) and
 * the reference (AluOpType2MemoryReduction, cast_copy_or_accumulate). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dma_conform.h"
#include "dma_state.h"

/* ---- attributes (docs/dma.md) ---- */

#define ACCUMULATE                                                                                 \
    {                                                                                              \
        .name = "accumulate", .types = TRN_ATTR_BOOL, .def = "false",                              \
        .help = "add into the destination (cast_copy_or_accumulate add) instead of storing"        \
    }
#define REDUCE_OP(bir)                                                                             \
    {                                                                                              \
        .name = "reduce_op", .types = TRN_ATTR_ENUM | TRN_ATTR_INT, TRN_ARRAY(enums, alu_ops),     \
        .bir_name = bir,                                                                           \
        .help = "AluOpType: indirect reduce-on-write (default bypass) or the CCE fold "            \
                "(required); an error elsewhere"                                                   \
    }
#define MODE                                                                                       \
    {                                                                                              \
        .name = "mode", .types = TRN_ATTR_ENUM | TRN_ATTR_INT, TRN_ARRAY(enums, modes),            \
        .def = "0", .help = "0 copy (or indirect), 1 transpose, 2 CCE, 3 replicate"                \
    }
#define INDIRECT                                                                                   \
    {.name = "indirect",                                                                           \
     .types = TRN_ATTR_STRING,                                                                     \
     .help = "\"gather\" or \"scatter\": inputs[1] is the index vector"},                          \
    {                                                                                              \
        .name = "elems_per_index", .types = TRN_ATTR_INT, .def = "1",                              \
        .help = "indirect: elements per index"                                                     \
    }
#define TRANSPOSE                                                                                  \
    {.name = "perm",                                                                               \
     .types = TRN_ATTR_LIST,                                                                       \
     .elem = TRN_ATTR_INT,                                                                         \
     .help = "transpose: 4 source axes (0 W .. 3 X) in destination order"},                        \
    {                                                                                              \
        .name = "shape", .types = TRN_ATTR_LIST, .elem = TRN_ATTR_INT,                             \
        .help = "transpose: the source's [W, Z, Y, X] extents (default from the source AP)"        \
    }

static const trn_enum_desc alu_ops[] = {
    {"bypass", 0, NULL},
    {"add", 4, NULL},
    {"max", 8, NULL},
    {"min", 9, NULL},
};
static const trn_enum_desc modes[] = {
    {"copy", 0, "Copy"},
    {"transpose", 1, "Transpose"},
    {"CCE", 2, NULL},
    {"replicate", 3, "Replicate"},
};

static const trn_attr_desc copy_attrs[] = {ACCUMULATE, REDUCE_OP(NULL)};
static const trn_attr_desc dmacopy_attrs[] = {MODE, ACCUMULATE, REDUCE_OP("cce_op"), INDIRECT,
                                              TRANSPOSE};
static const trn_attr_desc desc_copy_attrs[] = {MODE, ACCUMULATE, REDUCE_OP(NULL), INDIRECT};
static const trn_attr_desc desc_cce_attrs[] = {MODE, ACCUMULATE, REDUCE_OP("op")};
static const trn_attr_desc desc_transpose_attrs[] = {MODE, ACCUMULATE, REDUCE_OP(NULL), TRANSPOSE};
static const trn_attr_desc desc_replicate_attrs[] = {MODE, ACCUMULATE, REDUCE_OP(NULL)};
static const trn_attr_desc block_attrs[] = {
    {.name = "descriptors",
     .types = TRN_ATTR_INSTRUCTIONS,
     .help = "descriptor instructions (IT 68..72), run in order"},
};
static const trn_attr_desc trigger_attrs[] = {
    {.name = "blocks",
     .types = TRN_ATTR_INSTRUCTIONS,
     .help = "DMABlock instructions, fired one per trigger"},
    {.name = "trigger",
     .types = TRN_ATTR_INT,
     .help = "the trigger's id (default: the instruction's index)"},
    {.name = "round_robin",
     .types = TRN_ATTR_BOOL,
     .def = "true",
     .help = "after the last block start again (false: an error)"},
};
static const trn_attr_desc register_attrs[] = {
    {.name = "register",
     .types = TRN_ATTR_INT,
     .flags = TRN_ATTRF_REQUIRED,
     .help = "the register number"},
};

/* ---- operands ---- */

static const trn_operand_desc copy_operands[] = {
    {TRN_IN, "src", 0, "any dtype; as many elements as dst"},
    {TRN_OUT, "dst", 0, "any dtype (cast RNE)"},
};
static const trn_operand_desc dmacopy_operands[] = {
    {TRN_IN, "src", 0, "source (gather: the table; CCE: the first source)"},
    {TRN_IN, "src1", TRN_OPERANDF_OPTIONAL | TRN_OPERANDF_REPEATED,
     "indirect: the indices; CCE: more sources"},
    {TRN_OUT, "dst", 0, "destination (scatter: the table)"},
};
static const trn_operand_desc cce_operands[] = {
    {TRN_IN, "src", 0, "sources to fold, at least 2"},
    {TRN_IN, "src1", TRN_OPERANDF_REPEATED, "more sources"},
    {TRN_OUT, "dst", 0, "elems(dst) per source"},
};
static const trn_operand_desc load_operands[] = {{TRN_IN, "src", 0, "exactly one element"}};
static const trn_operand_desc save_operands[] = {{TRN_OUT, "dst", 0, "exactly one element"}};

/* Every handler validates first and returns before its first memory access
 * when api->checking(ctx) (as in a DMABlock's validation pass), so each is
 * its own static check. */
#define DMA_OP(it_, name_, fn, attrs_, operands_, recipes)                                         \
    TRN_OP(it_, name_, fn, TRN_ARRAY(attrs, attrs_), TRN_ARRAY(operands, operands_),               \
           .conform = (recipes))
/* The plain copies (direct_copy, dma_copy.c) move any operand in bounded
 * pieces: raw runs AP to AP, or a cast through a chunk of scratch. The
 * DMACopy switch is not marked: its transpose, replicate and indirect modes
 * need whole operands. */
#define DMA_STREAM_OP(it_, name_, recipes)                                                         \
    TRN_OP(it_, name_, dma_h_copy, .flags = TRN_OPF_STREAMS, TRN_ARRAY(attrs, copy_attrs),         \
           TRN_ARRAY(operands, copy_operands), .conform = (recipes))

static const trn_opcode_desc dma_ops[] = {
    DMA_STREAM_OP(3, "AbstractCopy", dma_conform_abstractcopy),
    DMA_STREAM_OP(19, "Load", dma_conform_load),
    DMA_STREAM_OP(22, "Save", dma_conform_save),
    DMA_STREAM_OP(23, "TensorCopy", dma_conform_tensorcopy),
    DMA_OP(32, "DMACopy", dma_h_dmacopy, dmacopy_attrs, dmacopy_operands, dma_conform_dmacopy),
    TRN_OP(67, "DMATrigger", dma_h_trigger, TRN_ARRAY(attrs, trigger_attrs),
           .conform = dma_conform_trigger),
    DMA_OP(68, "DMADescriptor", dma_h_dmacopy, dmacopy_attrs, dmacopy_operands,
           dma_conform_descriptor),
    DMA_OP(69, "DMADescriptorCopy", dma_h_desc_copy, desc_copy_attrs, dmacopy_operands,
           dma_conform_desc_copy),
    DMA_OP(70, "DMADescriptorCCE", dma_h_desc_cce, desc_cce_attrs, cce_operands,
           dma_conform_desc_cce),
    DMA_OP(71, "DMADescriptorTranspose", dma_h_desc_transpose, desc_transpose_attrs, copy_operands,
           dma_conform_desc_transpose),
    DMA_OP(72, "DMADescriptorReplicate", dma_h_desc_replicate, desc_replicate_attrs, copy_operands,
           dma_conform_desc_replicate),
    TRN_OP(107, "DMABlock", dma_h_block, TRN_ARRAY(attrs, block_attrs),
           .conform = dma_conform_block),
    /* experimental range (docs/dma.md): the reference numbering is unknown */
    DMA_OP(128, "TensorLoad", dma_h_tensor_load, register_attrs, load_operands,
           dma_conform_tensor_load),
    DMA_OP(129, "TensorSave", dma_h_tensor_save, register_attrs, save_operands,
           dma_conform_tensor_save),
    DMA_STREAM_OP(130, "GenericCopy", dma_conform_genericcopy),
};

static const trn_setting_desc dma_settings[] = {
    {"allow_minmax_reduce", TRN_SET_BOOL, "false", 0, -1, NULL,
     "map AluOpType max (8) / min (9) onto MemoryReductionOp MAX / MIN in indirect copies (the "
     "reference throws)"},
    {"cce_init", TRN_SET_STRING, "zero", 0, -1, "zero|first",
     "CCE accumulator start: zero (the reference: +0.0f) or first (seeded with the first source)"},
};

static const trn_quirk_desc dma_quirks[] = {
    {"dma.cce_zeroed_accumulator", "cce_init", "zero",
     "DMA CCE folds every source into an accumulator that starts at +0.0f: max of all-negative "
     "inputs is 0, min of "
     "all-positive inputs is 0, -0 + -0 is +0"},
    {"dma.minmax_reduce_rejected", "allow_minmax_reduce", "false",
     "indirect reduce-on-write accepts only AluOpType bypass (0) and add (4); max (8) / min (9) "
     "are an error "
     "(AluOpType2MemoryReduction throws)"},
    {"dma.trigger_round_robin", NULL, "always",
     "a DMATrigger fired more often than it has blocks starts again at its first block "
     "(round_robin = false makes "
     "that an error)"},
};

static trn_status dma_init(const trn_host_api *api, const trn_settings *settings, void **state,
                           char *err, size_t errlen) {
    dma_state *st = calloc(1, sizeof *st);
    if (!st) return trn_fail(err, errlen, "out of memory");
    int64_t minmax = 0;
    const char *init = "zero";
    api->setting_int(settings, "allow_minmax_reduce", &minmax);
    api->setting_string(settings, "cce_init", &init);
    st->allow_minmax = minmax != 0;
    st->cce_init = strcmp(init, "first") == 0 ? DMA_CCE_INIT_FIRST : DMA_CCE_INIT_ZERO;
    *state = st;
    return TRN_OK;
}

static void free_cores(dma_state *st) {
    for (uint32_t c = 0; c < st->ncores; ++c) free(st->cores[c].trig);
    free(st->cores);
    st->cores = NULL;
    st->ncores = 0;
}

/* The trigger counters and the staging buffers (fini: TRN_FINI_FREEING). */
static void dma_release(dma_state *st) {
    free_cores(st);
    for (int i = 0; i < DMA_SCRATCH_SLOTS; ++i) free(st->scratch[i]);
}
TRN_FINI_FREEING(dma, dma_release)

/* Fresh trigger counters for every run. */
static trn_status dma_run_begin(void *state, const trn_run_info *info, char *err, size_t errlen) {
    dma_state *st = state;
    free_cores(st);
    st->cores = calloc(info->cores ? info->cores : 1, sizeof *st->cores);
    if (!st->cores) return trn_fail(err, errlen, "out of memory for %u cores", info->cores);
    st->ncores = info->cores;
    st->dry_run = 0;
    return TRN_OK;
}

#ifdef TRNSIM_REF_MODULE
#define DMA_MODULE_NAME "trnsim-dma-ref" /* plugins/dma/ref/: the oracle kernels */
#else
#define DMA_MODULE_NAME "trnsim-dma"
#endif
TRN_MODULE(dma, DMA_MODULE_NAME, "0.1.0", TRN_OPS(dma_ops), TRN_SETTINGS(dma_settings),
           TRN_QUIRKS(dma_quirks), TRN_LIFECYCLE(dma), .state_save = dma_state_save,
           .state_restore = dma_state_restore);
