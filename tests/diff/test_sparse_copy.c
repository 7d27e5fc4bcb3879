/* A deliberately wrong "test" module for trnsim diff's written-byte
 * comparison: its TestCopy (IT 200) copies like the host tests' module but
 * leaves out every element whose bits are all zero. Where the destination
 * was never written it already reads as zero, so the values agree with the
 * stock copy everywhere and only the written-byte map tells the two apart.
 * Built only for the tests; never installed. */
#include <stdlib.h>
#include <string.h>

#include "trnsim/plugin.h"

static trn_status sparse_copy(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)state;
    trn_ap in, out;
    if (api->operand(ctx, TRN_IN, 0, &in) || api->operand(ctx, TRN_OUT, 0, &out)) return TRN_ERR;
    int64_t n = trn_ap_elems(&in);
    if (n != trn_ap_elems(&out)) return api->error(ctx, "element counts differ");
    float *v = malloc((size_t)(n ? n : 1) * sizeof *v);
    int64_t *idx = malloc((size_t)(n ? n : 1) * sizeof *idx);
    trn_status rc = v && idx ? api->read_f32(ctx, &in, v) : api->error(ctx, "out of memory");
    size_t kept = 0;
    for (int64_t i = 0; rc == TRN_OK && i < n; ++i) {
        uint32_t bits;
        memcpy(&bits, &v[i], sizeof bits);
        if (bits == 0) continue; /* the bug: +0.0 is not written */
        v[kept] = v[i];
        idx[kept++] = i;
    }
    if (rc == TRN_OK) rc = api->write_indirect_f32(ctx, &out, idx, kept, v, TRN_ACC_COPY);
    free(v);
    free(idx);
    return rc;
}

static const trn_opcode_desc sparse_ops[] = {
    {.it = 200, .name = "TestCopy", .handler = sparse_copy, .flags = TRN_OPF_NO_ATTRS},
};

/* The host tests' config sets this for their module; the copy ignores it. */
static const trn_setting_desc sparse_settings[] = {
    {"scale", TRN_SET_FLOAT, "2.0", 0, 100, NULL,
     "unused (the host tests' module's TestSetting scale)"},
};

TRN_EXPORT const trn_plugin_desc trnsim_plugin = {
    TRN_PLUGIN_HEADER, .name = "trnsim-test-sparse", .family = "test",
    .version = "0",    TRN_OPS(sparse_ops),          TRN_SETTINGS(sparse_settings),
};
