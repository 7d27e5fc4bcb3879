/* A module for trnsim conform's own tests (family "ctest"): CTestCopy
 * (IT 210) has four recipes, three its static check accepts (one shaped by
 * the variable CORES on 2-3 cores, one through the dma family's descriptor
 * list, whose tensor names conform must rename) and one it always
 * refuses (an output one element longer than the input: a recipe bug
 * conform must report with the check's message); CTestPlain (IT 211) has
 * none, so conform draws it from its operand roles alone. Built a second time
 * as trnsim-ctest-env (below), its recipes come from the environment. Both copy their
 * input's raw bits. Built only for the tests; never installed. */
#include <stdlib.h>

#include "trnsim/plugin.h"

static trn_status operands(const trn_host_api *api, trn_ctx *ctx, trn_ap *in, trn_ap *out) {
    if (api->operand_count(ctx, TRN_IN) != 1 || api->operand_count(ctx, TRN_OUT) != 1)
        return api->error(ctx, "CTest: expected 1 input and 1 output");
    if (api->operand(ctx, TRN_IN, 0, in) || api->operand(ctx, TRN_OUT, 0, out)) return TRN_ERR;
    if (trn_ap_elems(in) != trn_ap_elems(out) || in->dtype != out->dtype)
        return api->error(ctx, "CTest: input and output differ in elements or dtype");
    return TRN_OK;
}

static trn_status copy_check(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)state;
    trn_ap in, out;
    return operands(api, ctx, &in, &out);
}

static trn_status copy(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)state;
    trn_ap in, out;
    if (operands(api, ctx, &in, &out)) return TRN_ERR;
    size_t bytes = (size_t)trn_ap_elems(&in) * 8 + 1;
    void *buf = malloc(bytes);
    trn_status rc = buf ? api->read_raw(ctx, &in, buf) : api->error(ctx, "out of memory");
    if (rc == TRN_OK) rc = api->write_raw(ctx, &out, buf);
    free(buf);
    return rc;
}

static const char copy_recipes[] =
    "[{\"name\": \"good\", \"vars\": {\"P\": [1, 16], \"N\": [1, 64]},"
    "  \"dtypes\": {\"T\": [\"float32\", \"bfloat16\", \"int8\"]},"
    "  \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"T\","
    "                 \"shape\": [\"P\", \"N\"], \"input\": true},"
    "               {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"T\", \"shape\": [\"P\", "
    "\"N\"]}],"
    "  \"instructions\": [{\"opcode\": \"CTestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]},"
    " {\"name\": \"per_core\", \"cores\": [2, 3], \"vars\": {\"N\": [1, 8]},"
    "  \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"int32\","
    "                 \"shape\": [\"CORES\", \"N\"], \"input\": true},"
    "               {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"int32\","
    "                \"shape\": [\"CORES*2-CORES\", \"N\"]}],"
    "  \"instructions\": [{\"opcode\": \"CTestCopy\", \"inputs\": [\"x\"], \"outputs\": [\"y\"]}]},"
    " {\"name\": \"through_dma\", \"vars\": {\"P\": [1, 8], \"N\": [1, 16]},"
    "  \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\","
    "                 \"shape\": [\"P\", \"N\"], \"input\": true},"
    "               {\"name\": \"h\", \"memory\": \"hbm\", \"dtype\": \"float32\","
    "                \"shape\": [\"P\", \"N\"]},"
    "               {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\","
    "                \"shape\": [\"P\", \"N\"]}],"
    "  \"instructions\": [{\"opcode\": \"DMABlock\", \"descriptors\": [{\"opcode\": "
    "      \"DMADescriptorCopy\", \"inputs\": [{\"tensor\": \"x\", \"partitions\": \"P\"}],"
    "      \"outputs\": [\"h\"]}]},"
    "    {\"opcode\": \"CTestCopy\", \"inputs\": [\"h\"], \"outputs\": [\"y\"]}]},"
    " {\"name\": \"bad\", \"vars\": {\"P\": [1, 16], \"N\": [1, 64]},"
    "  \"tensors\": [{\"name\": \"x\", \"memory\": \"sbuf\", \"dtype\": \"float32\","
    "                 \"shape\": [\"P\", \"N\"], \"input\": true},"
    "               {\"name\": \"y\", \"memory\": \"sbuf\", \"dtype\": \"float32\","
    "                \"shape\": [\"P\", \"N+1\"]}],"
    "  \"instructions\": [{\"opcode\": \"CTestCopy\", \"inputs\": [\"x\"], \"outputs\": "
    "[\"y\"]}]}]";

static const trn_operand_desc copy_operands[] = {
    {TRN_IN, "x", 0, "any dtype"},
    {TRN_OUT, "y", 0, "as x"},
};

/* Built with CTEST_RECIPES_FROM_ENV (trnsim-ctest-env): CTestCopy's recipes
 * are the text of the environment variable CTEST_RECIPES, so a test can give
 * conform any recipe, a broken one included. */
#ifdef CTEST_RECIPES_FROM_ENV
#include <stdio.h>
static char env_recipes[65536];
__attribute__((constructor)) static void recipes_from_env(void) {
    snprintf(env_recipes, sizeof env_recipes, "%s",
             getenv("CTEST_RECIPES") ? getenv("CTEST_RECIPES") : copy_recipes);
}
#define CTEST_RECIPES env_recipes
#else
#define CTEST_RECIPES copy_recipes
#endif

#ifdef CTEST_RECIPES_FROM_ENV
#include <math.h>
#include <stdint.h>

/* CTestList (IT 212, trnsim-ctest-env only): no recipes, a required list
 * attribute whose schema allows 2^20 elements; its check refuses more than
 * 68, the most conform should draw for a list it has no reason to make long,
 * and an integer k with infinite bounds, which must not all become INT64_MIN. */
static const trn_attr_desc list_attrs[] = {
    {.name = "l",
     .types = TRN_ATTR_LIST,
     .elem = TRN_ATTR_INT,
     .flags = TRN_ATTRF_REQUIRED,
     .len_max = 1u << 20,
     .help = "any integers"},
    {.name = "k",
     .types = TRN_ATTR_INT,
     .flags = TRN_ATTRF_REQUIRED,
     .min = -INFINITY,
     .max = INFINITY,
     .help = "any integer"},
};

static trn_status list_check(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)state;
    trn_ap in, out;
    size_t n = api->value_len(api->attr(ctx, "l"));
    if (n > 68) return api->error(ctx, "CTestList: l has %zu elements", n);
    int64_t k; /* drawn across all of int64, INT64_MIN is as rare as any value */
    if (api->attr_int(ctx, "k", &k) == TRN_FOUND && k == INT64_MIN)
        return api->error(ctx, "CTestList: k = INT64_MIN (an infinite bound converted)");
    return operands(api, ctx, &in, &out);
}
#endif

static const trn_opcode_desc ctest_ops[] = {
    {.it = 210,
     .name = "CTestCopy",
     .handler = copy,
     .flags = TRN_OPF_NO_ATTRS,
     TRN_ARRAY(operands, copy_operands),
     .check = copy_check,
     .conform = CTEST_RECIPES},
    {.it = 211,
     .name = "CTestPlain",
     .handler = copy,
     .flags = TRN_OPF_NO_ATTRS,
     TRN_ARRAY(operands, copy_operands),
     .check = copy_check},
#ifdef CTEST_RECIPES_FROM_ENV
    {.it = 212,
     .name = "CTestList",
     .handler = copy,
     TRN_ARRAY(attrs, list_attrs),
     TRN_ARRAY(operands, copy_operands),
     .check = list_check},
#endif
};

TRN_EXPORT const trn_plugin_desc trnsim_plugin = {
    TRN_PLUGIN_HEADER, .name = "trnsim-ctest", .family = "ctest",
    .version = "0",    TRN_OPS(ctest_ops),
};
