/* The search module's descriptor: opcodes, the one setting, named quirks,
 * init / fini. docs/search.md explains each entry. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_conform.h"
#include "search_ops.h"
#include "search_state.h"
#include "trnsim/plugin.h"

static const trn_attr_desc imm_attrs[] = {
    {.name = "imm_value",
     .types = TRN_ATTR_FLOAT,
     .flags = TRN_ATTRF_REQUIRED,
     .help =
         "the value written over each match (fp32, rounded to nearest even; \"-inf\" for TopK)"},
};

static const trn_operand_desc max_operands[] = {
    {TRN_IN, "data", 0, "[P][8..16384] values to search, any dtype with an fp32 value"},
    {TRN_OUT, "values", 0, "[P][8] the 8 largest, descending"},
};
static const trn_operand_desc max_index_operands[] = {
    {TRN_IN, "vals", 0, "[P][8] the values to find"},
    {TRN_IN, "data", 0, "[P][8..16384] values to search"},
    {TRN_OUT, "indices", 0,
     "[P][8] uint32 (or int32): first occurrence of each value, 0xFFFFFFFF if none"},
};
static const trn_operand_desc match_replace_operands[] = {
    {TRN_IN, "vals", 0, "[P][8] the values to find"},
    {TRN_IN, "data", 0, "[P][8..16384] values to search"},
    {TRN_OUT, "data_out", 0, "[P][as data] data with each match replaced by imm_value"},
};
static const trn_operand_desc max_index_mr_operands[] = {
    {TRN_IN, "vals", 0, "[P][8] the values to find"},
    {TRN_IN, "data", 0, "[P][8..16384] values to search"},
    {TRN_OUT, "data_out", 0, "[P][as data] data with each match replaced by imm_value"},
    {TRN_OUT, "indices", 0, "[P][8] uint32 (or int32): first occurrence of each value"},
};

static const trn_opcode_desc search_ops[] = {
    {.it = 88,
     .name = "Max",
     .handler = search_op_max,
     .flags = TRN_OPF_NO_ATTRS,
     TRN_ARRAY(operands, max_operands),
     .check = search_check_max,
     .conform = search_conform_max},
    {.it = 89,
     .name = "MaxIndex",
     .handler = search_op_max_index,
     .flags = TRN_OPF_NO_ATTRS,
     TRN_ARRAY(operands, max_index_operands),
     .check = search_check_max_index,
     .conform = search_conform_max_index},
    {.it = 90,
     .name = "MatchReplace",
     .handler = search_op_match_replace,
     TRN_ARRAY(attrs, imm_attrs),
     TRN_ARRAY(operands, match_replace_operands),
     .check = search_check_match_replace,
     .conform = search_conform_match_replace},
    {.it = 91,
     .name = "MaxIndexAndMatchReplace",
     .handler = search_op_max_index_match_replace,
     TRN_ARRAY(attrs, imm_attrs),
     TRN_ARRAY(operands, max_index_mr_operands),
     .check = search_check_max_index_match_replace,
     .conform = search_conform_max_index_mr},
};

static const trn_setting_desc search_settings[] = {
    {"duplicate_match_order", TRN_SET_STRING, "ascending", 1, 0, "ascending|descending",
     "equal values in vals take successive occurrences slot 0 first (ascending, the reference) "
     "or slot 7 first (descending, the NKI documentation)"},
};

static const trn_quirk_desc search_quirks[] = {
    {"search.sticky_nan", NULL, "always",
     "Max: a NaN stays in the slot where it first landed; it never displaces a slot and is never "
     "displaced"},
    {"search.earliest_tie", NULL, "always",
     "Max: strict '>' keeps the earliest of equal values in a slot (so -0.0 seen before +0.0 stays "
     "first)"},
    {"search.signed_zero_cascade", NULL, "always",
     "Max: a demoted +0.0 skips an equal -0.0 below it, so equal zeros can leave in another order "
     "than they came; "
     "in TopK a value's sign of zero can differ from the element its index names"},
    {"search.ieee_equal_match", NULL, "always",
     "MaxIndex/MatchReplace: matching is IEEE ==: a NaN value is never found (index 0xFFFFFFFF, "
     "nothing replaced) "
     "and -0.0 matches +0.0"},
    {"search.ascending_duplicate_match", "duplicate_match_order", "ascending",
     "MaxIndex/MatchReplace: equal values in vals take their occurrences slot 0 first; the NKI "
     "docs of "
     "nc_match_replace8 describe the reverse"},
};

static trn_status search_init(const trn_host_api *api, const trn_settings *settings, void **state,
                              char *err, size_t errlen) {
    const char *order = "ascending";
    if (api->setting_string(settings, "duplicate_match_order", &order) == TRN_BADTYPE) {
        return trn_fail(err, errlen, "setting duplicate_match_order: expected a string");
    }
    search_state *st = calloc(1, sizeof *st);
    if (!st) return trn_fail(err, errlen, "out of memory");
    st->order = strcmp(order, "descending") == 0 ? SEARCH_DESCENDING : SEARCH_ASCENDING;
    *state = st;
    return TRN_OK;
}

static void search_fini(void *state) {
    if (state) search_state_free(state);
}

#ifdef TRNSIM_REF_MODULE
#define SEARCH_MODULE_NAME "trnsim-search-ref" /* plugins/search/ref/: the oracle kernels */
#else
#define SEARCH_MODULE_NAME "trnsim-search"
#endif
TRN_MODULE(search, SEARCH_MODULE_NAME, "1.1.0", TRN_OPS(search_ops), TRN_SETTINGS(search_settings),
           TRN_QUIRKS(search_quirks), TRN_INIT_FINI(search));
