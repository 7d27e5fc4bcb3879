/* trnsim-example: a complete out-of-tree trnsim module in one file.
 *
 * It adds two opcodes in the experimental range, Scale (IT 240):
 *
 *     outputs[0] = inputs[0] * factor        (per element, in fp32)
 *
 * and Iota (IT 241), an opcode a BIR file can name (iota.bir.json):
 *
 *     outputs[0][k] = start + k * step       (k in the output's visiting order)
 *
 * with one instruction attribute (factor, a number, default 1), one module
 * setting (negative_zero = "keep" | "flush") and one named quirk
 * (example.negative_zero). It builds against the installed kit only:
 *
 *     cc -shared -fPIC $(pkg-config --cflags trnsim-plugin) example.c -o trnsim-example.so
 *
 * README.md walks through it; docs/plugins.md of trnsim is the contract. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trnsim/plugin.h"

#ifndef TRN_COUNT /* a kit of ABI 1 lacks it: this file builds against either */
#define TRN_COUNT(array) ((uint32_t)(sizeof(array) / sizeof((array)[0])))
#endif

#define SCALE_IT 240u /* 128..255 is the experimental range; 240 and 241 are this example's */
#define IOTA_IT  241u

/* ---- state: made in init from the validated settings, freed in fini -------
 * Never a static mutable global: two simulators in one process must not
 * share it. */
typedef struct example_state {
    int flush_negative_zero; /* setting negative_zero = "flush" */
} example_state;

/* ---- the kernel: a pure function on dense fp32 buffers --------------------- */

static void scale_kernel(float *x, size_t n, float factor, int flush_negative_zero) {
#ifdef EXAMPLE_PLANTED_BUG /* README step 6: a second build that trnsim conform must catch */
    if (n > 1) n--;        /* the last element is never scaled */
#endif
    for (size_t i = 0; i < n; ++i) {
        float y = x[i] * factor;
        /* y == 0.0f is true for both zeros; adding +0.0f turns -0.0 into
         * +0.0 (round to nearest) and leaves +0.0 alone */
        if (flush_negative_zero && y == 0.0f) y = y + 0.0f;
        x[i] = y;
    }
}

/* ---- the handler: validate everything, then read, compute, write once ------ */

static trn_status op_scale(const trn_host_api *api, trn_ctx *ctx, void *state) {
    const example_state *st = state;
    trn_ap in, out;
    double factor = 1.0;

    /* operands: exactly one input and one output, same shape */
    int n_in = api->operand_count(ctx, TRN_IN), n_out = api->operand_count(ctx, TRN_OUT);
    if (n_in != 1 || n_out != 1)
        return api->error(ctx, "Scale takes 1 input and 1 output, found %d and %d", n_in, n_out);
    if (api->operand(ctx, TRN_IN, 0, &in) != TRN_OK ||
        api->operand(ctx, TRN_OUT, 0, &out) != TRN_OK)
        return TRN_ERR; /* the host recorded why */
    if (in.part_count != out.part_count || trn_ap_free_elems(&in) != trn_ap_free_elems(&out))
        return api->error(ctx,
                          "Scale output 0 must have the input's shape: %u partitions x %lld "
                          "elements, found %u x %lld",
                          in.part_count, (long long)trn_ap_free_elems(&in), out.part_count,
                          (long long)trn_ap_free_elems(&out));

    /* attribute: absent -> default; wrong type -> the host already reported it */
    if (api->attr_float(ctx, "factor", &factor) == TRN_BADTYPE) return TRN_ERR;

    /* check the output before the first write: nothing is written on failure */
    if (api->check_ap(ctx, &out, TRN_OUT) != TRN_OK) return TRN_ERR;

    size_t n = (size_t)trn_ap_elems(&in);
    float *buf = malloc(n * sizeof *buf);
    if (!buf) return api->error(ctx, "out of memory for %zu elements", n);
    trn_status rc = api->read_f32(ctx, &in, buf); /* any dtype, widened to fp32 */
    if (rc == TRN_OK) {
        scale_kernel(buf, n, (float)factor, st->flush_negative_zero);
        rc = api->write_f32(ctx, &out, buf, TRN_ACC_COPY); /* narrowed (RNE) to the output dtype */
    }
    free(buf);
    return rc;
}

/* Iota: integer attributes start (default 0) and step (default 1); the
 * int64 value start + k * step is rounded once to the output's dtype. A BIR
 * file's fields of an opcode trnsim has no table for reach the module
 * unchanged, so "start" and "step" in the BIR instruction are these. */
static trn_status op_iota(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)state;
    trn_ap out;
    int64_t start = 0, step = 1;
    if (api->operand_count(ctx, TRN_IN) != 0 || api->operand_count(ctx, TRN_OUT) != 1)
        return api->error(ctx, "Iota takes no input and 1 output, found %d and %d",
                          api->operand_count(ctx, TRN_IN), api->operand_count(ctx, TRN_OUT));
    if (api->operand(ctx, TRN_OUT, 0, &out) != TRN_OK) return TRN_ERR;
    if (api->attr_int(ctx, "start", &start) == TRN_BADTYPE ||
        api->attr_int(ctx, "step", &step) == TRN_BADTYPE)
        return TRN_ERR;
    if (api->check_ap(ctx, &out, TRN_OUT) != TRN_OK) return TRN_ERR;
    size_t n = (size_t)trn_ap_elems(&out);
    float *buf = malloc(n * sizeof *buf);
    if (!buf) return api->error(ctx, "out of memory for %zu elements", n);
    for (size_t k = 0; k < n; ++k) buf[k] = (float)(start + (int64_t)k * step);
    trn_status rc = api->write_f32(ctx, &out, buf, TRN_ACC_COPY);
    free(buf);
    return rc;
}

/* ---- what the module declares --------------------------------------------- */

/* The programs `trnsim conform` generates for Scale (ABI 4; trnsim's
 * docs/internals/conform.md): x of any fp32-valued dtype filled with
 * adversarial data, y of the same shape in another dtype, factor one of a
 * few values (0 and -0 make signed zeros, 1e30 overflows). */
#define SCALE_RECIPES                                                                              \
    "[{\"name\": \"scale\", \"vars\": {\"P\": [1, 128], \"N\": [1, 300]},"                         \
    " \"dtypes\": {\"T\": [\"float32\", \"bfloat16\", \"float16\", \"float8_e4m3\", \"int32\"],"   \
    "             \"U\": [\"float32\", \"bfloat16\", \"float16\"]},"                               \
    " \"tensors\": ["                                                                              \
    "   {\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", \"N\"], "     \
    "\"input\": true},"                                                                            \
    "   {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"U\", \"shape\": [\"P\", \"N\"]}],"    \
    " \"instructions\": [{\"opcode\": \"Scale\", \"inputs\": [\"x\"], \"outputs\": [\"y\"],"       \
    "   \"factor\": {\"@\": [1.0, -2.0, 0.1, 0.0, -0.0, 3.5, 1e30]}}]}]"

static const trn_opcode_desc example_ops[] = {
#if TRN_ABI_VERSION >= 4 /* an older kit has no recipes field */
    {SCALE_IT, "Scale", op_scale, 0, .conform = SCALE_RECIPES},
#else
    {SCALE_IT, "Scale", op_scale, 0},
#endif
    {IOTA_IT, "Iota", op_iota, 0},
};

static const trn_setting_desc example_settings[] = {
    {"negative_zero", TRN_SET_STRING, "keep", 1, 0, "keep|flush",
     "Scale results equal to -0.0: keep them (IEEE) or write +0.0"},
};

static const trn_quirk_desc example_quirks[] = {
    {"example.negative_zero", "negative_zero", "keep",
     "Scale can produce -0.0 (e.g. 0 * -2, -0.0 * 3); \"flush\" writes +0.0 instead"},
};

static trn_status example_init(const trn_host_api *api, const trn_settings *settings, void **state,
                               char *err, size_t errlen) {
    const char *mode = "keep";
    /* the host validated the value against the schema (choices keep|flush) */
    if (settings && api->setting_string(settings, "negative_zero", &mode) == TRN_BADTYPE) {
        snprintf(err, errlen, "setting negative_zero must be a string");
        return TRN_ERR;
    }
    example_state *st = calloc(1, sizeof *st);
    if (!st) {
        snprintf(err, errlen, "out of memory");
        return TRN_ERR;
    }
    st->flush_negative_zero = strcmp(mode, "flush") == 0;
    *state = st;
    return TRN_OK;
}

static void example_fini(void *state) { free(state); }

/* The one exported symbol. abi_version and size come first and tell the
 * host which version of the contract this module was built against. */
TRN_PLUGIN_DEFINE(example) = {
    .abi_version = TRN_ABI_VERSION,
    .size = sizeof(trn_plugin_desc),
    .name = "trnsim-example",
    .family = "example",
    .version = "1.0.0",
    .ops = example_ops,
    .n_ops = TRN_COUNT(example_ops),
    .settings = example_settings,
    .n_settings = TRN_COUNT(example_settings),
    .quirks = example_quirks,
    .n_quirks = TRN_COUNT(example_quirks),
    .init = example_init,
    .fini = example_fini,
};
