/* The DMA module's descriptor: opcodes, settings, quirks, state lifetime.
 * Behaviour: docs/dma.md; specification: seed section 5 (DMA family) and
 * the reference (AluOpType2MemoryReduction, cast_copy_or_accumulate). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dma_state.h"

static const trn_opcode_desc dma_ops[] = {
    {3, "AbstractCopy", dma_h_copy, 0},
    {19, "Load", dma_h_copy, 0},
    {22, "Save", dma_h_copy, 0},
    {23, "TensorCopy", dma_h_copy, 0},
    {32, "DMACopy", dma_h_dmacopy, 0},
    {67, "DMATrigger", dma_h_trigger, 0},
    {68, "DMADescriptor", dma_h_dmacopy, 0},
    {69, "DMADescriptorCopy", dma_h_desc_copy, 0},
    {70, "DMADescriptorCCE", dma_h_desc_cce, 0},
    {71, "DMADescriptorTranspose", dma_h_desc_transpose, 0},
    {72, "DMADescriptorReplicate", dma_h_desc_replicate, 0},
    {107, "DMABlock", dma_h_block, 0},
    /* experimental range (docs/dma.md): the reference numbering is unknown */
    {128, "TensorLoad", dma_h_tensor_load, 0},
    {129, "TensorSave", dma_h_tensor_save, 0},
    {130, "GenericCopy", dma_h_copy, 0},
};

static const trn_setting_desc dma_settings[] = {
    {"allow_minmax_reduce", TRN_SET_BOOL, "false", 0, -1, NULL,
     "map AluOpType max (8) / min (9) onto MemoryReductionOp MAX / MIN in indirect copies (the reference throws)"},
    {"cce_init", TRN_SET_STRING, "zero", 0, -1, "zero|first",
     "CCE accumulator start: zero (the reference: +0.0f) or first (seeded with the first source)"},
};

static const trn_quirk_desc dma_quirks[] = {
    {"dma.cce_zeroed_accumulator", "cce_init", "zero",
     "DMA CCE folds every source into an accumulator that starts at +0.0f: max of all-negative inputs is 0, min of "
     "all-positive inputs is 0, -0 + -0 is +0"},
    {"dma.minmax_reduce_rejected", "allow_minmax_reduce", "false",
     "indirect reduce-on-write accepts only AluOpType bypass (0) and add (4); max (8) / min (9) are an error "
     "(AluOpType2MemoryReduction throws)"},
    {"dma.trigger_round_robin", NULL, "always",
     "a DMATrigger fired more often than it has blocks starts again at its first block (round_robin = false makes "
     "that an error)"},
};

static trn_status dma_init(const trn_host_api *api, const trn_settings *settings, void **state, char *err,
                           size_t errlen) {
    dma_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return TRN_ERR;
    }
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

static void dma_fini(void *state) {
    dma_state *st = state;
    if (!st) return;
    free_cores(st);
    for (int i = 0; i < DMA_SCRATCH_SLOTS; ++i) free(st->scratch[i]);
    free(st);
}

/* Fresh trigger counters for every run. */
static trn_status dma_run_begin(void *state, const trn_run_info *info, char *err, size_t errlen) {
    dma_state *st = state;
    free_cores(st);
    st->cores = calloc(info->cores ? info->cores : 1, sizeof *st->cores);
    if (!st->cores) {
        snprintf(err, errlen, "out of memory for %u cores", info->cores);
        return TRN_ERR;
    }
    st->ncores = info->cores;
    st->dry_run = 0;
    return TRN_OK;
}

TRN_PLUGIN_DEFINE(dma) = {
    .abi_version = TRN_ABI_VERSION,
    .size = sizeof(trn_plugin_desc),
    .name = "trnsim-dma",
    .family = "dma",
    .version = "0.1.0",
    .ops = dma_ops,
    .n_ops = TRN_COUNT(dma_ops),
    .settings = dma_settings,
    .n_settings = TRN_COUNT(dma_settings),
    .quirks = dma_quirks,
    .n_quirks = TRN_COUNT(dma_quirks),
    .init = dma_init,
    .fini = dma_fini,
    .run_begin = dma_run_begin,
};
