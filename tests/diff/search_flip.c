/* A deliberately wrong search module for trnsim diff's tests: the stock
 * search handlers, except that the Max instruction at stream index
 * `flip_index` (setting, default 2) has bit `flip_bit` (default 0) of
 * element `flip_element` (default 3, in the operand's order) of its output
 * flipped after the stock handler wrote it. Everything else is the stock
 * module, so a lockstep diff against it must name exactly that
 * instruction and element. Built only for the tests; never installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "search_ops.h"
#include "search_state.h"
#include "trnsim/plugin.h"

typedef struct flip_state {
    search_state stock; /* first: the stock handlers take it as their state */
    int64_t index, element, bit;
} flip_state;

static trn_status flip_max(const trn_host_api *api, trn_ctx *ctx, void *state) {
    flip_state *st = state;
    trn_status rc = search_op_max(api, ctx, &st->stock);
    if (rc != TRN_OK || (int64_t)api->instruction_index(ctx) != st->index) return rc;
    trn_ap out;
    if (api->operand(ctx, TRN_OUT, 0, &out) != TRN_OK) return TRN_ERR;
    int64_t n = trn_ap_elems(&out);
    uint32_t w = api->dtype_width((trn_dtype)out.dtype);
    uint8_t *buf = malloc((size_t)n * w);
    if (!buf) return api->error(ctx, "out of memory");
    rc = api->read_raw(ctx, &out, buf);
    if (rc == TRN_OK && st->element < n)
        buf[(size_t)st->element * w + (size_t)st->bit / 8] ^= (uint8_t)(1u << (st->bit % 8));
    if (rc == TRN_OK) rc = api->write_raw(ctx, &out, buf);
    free(buf);
    return rc;
}

static const trn_attr_desc imm_attrs[] = {
    {.name = "imm_value",
     .types = TRN_ATTR_FLOAT,
     .flags = TRN_ATTRF_REQUIRED,
     .help = "the replacement value"},
};

static const trn_opcode_desc flip_ops[] = {
    {.it = 88,
     .name = "Max",
     .handler = flip_max,
     .flags = TRN_OPF_NO_ATTRS,
     .check = search_check_max},
    {.it = 89,
     .name = "MaxIndex",
     .handler = search_op_max_index,
     .flags = TRN_OPF_NO_ATTRS,
     .check = search_check_max_index},
    {.it = 90,
     .name = "MatchReplace",
     .handler = search_op_match_replace,
     TRN_ARRAY(attrs, imm_attrs),
     .check = search_check_match_replace},
    {.it = 91,
     .name = "MaxIndexAndMatchReplace",
     .handler = search_op_max_index_match_replace,
     TRN_ARRAY(attrs, imm_attrs),
     .check = search_check_max_index_match_replace},
};

static const trn_setting_desc flip_settings[] = {
    {"duplicate_match_order", TRN_SET_STRING, "ascending", 1, 0, "ascending|descending",
     "as the stock module's"},
    {"flip_index", TRN_SET_INT, "2", 0, 1e18, NULL,
     "the stream index of the Max instruction made wrong"},
    {"flip_element", TRN_SET_INT, "3", 0, 1e9, NULL,
     "the element of its output, in the operand's order"},
    {"flip_bit", TRN_SET_INT, "0", 0, 63, NULL, "the bit flipped (0: the lowest)"},
};

static trn_status flip_init(const trn_host_api *api, const trn_settings *settings, void **state,
                            char *err, size_t errlen) {
    flip_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return TRN_ERR;
    }
    const char *order = "ascending";
    api->setting_string(settings, "duplicate_match_order", &order);
    st->stock.order = strcmp(order, "descending") == 0 ? SEARCH_DESCENDING : SEARCH_ASCENDING;
    api->setting_int(settings, "flip_index", &st->index);
    api->setting_int(settings, "flip_element", &st->element);
    api->setting_int(settings, "flip_bit", &st->bit);
    *state = st;
    return TRN_OK;
}

static void flip_fini(void *state) {
    if (state) search_state_free(state);
}

TRN_EXPORT const trn_plugin_desc trnsim_plugin = {
    TRN_PLUGIN_HEADER, .name = "trnsim-search-flip", .family = "search", .version = "0",
    TRN_OPS(flip_ops), TRN_SETTINGS(flip_settings),  .init = flip_init,  .fini = flip_fini,
};
