/* The BN module's descriptor: opcodes, named quirks, state. docs/bn.md
 * explains each entry. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "bn_conform.h"
#include "bn_ops.h"
#include "trnsim/plugin.h"

static const trn_attr_desc stats_attrs[] = {
    {.name = "apply_transpose",
     .types = TRN_ATTR_BOOL,
     .def = "false",
     .help =
         "swap elements inside each 32x32 tile of x before the statistics (true / false or 0 / 1)"},
};
static const trn_attr_desc backprop_attrs[] = {
    {.name = "total_elements",
     .types = TRN_ATTR_FLOAT,
     .flags = TRN_ATTRF_REQUIRED,
     .help = "N of dy*N in dx, read as an fp32 scalar"},
};

static const trn_operand_desc stats_operands[] = {
    {TRN_IN, "x", 0, "[P][N] input, any dtype with an fp32 value"},
    {TRN_OUT, "stats", 0, "[P][6] two Welford triples n, mean, M2"},
};
static const trn_operand_desc aggregate_operands[] = {
    {TRN_IN, "stats", 0, "[P][6K] K BNStats records"},
    {TRN_OUT, "mean_var", 0, "[P][2] mean and population variance"},
};
static const trn_operand_desc gradients_operands[] = {
    {TRN_IN, "x", 0, "[P][N]"},
    {TRN_IN, "dy", 0, "[P][N]"},
    {TRN_IN, "mean", 0, "[P][1]"},
    {TRN_IN, "varfactor", 0, "[P][1]"},
    {TRN_OUT, "grads", 0, "[P][3] sum dy, sum (x-m)*dy*vf^2, sum (x-m)*dy*vf"},
};
static const trn_operand_desc backprop_operands[] = {
    {TRN_IN, "x", 0, "[P][N]"},    {TRN_IN, "dy", 0, "[P][N]"},
    {TRN_IN, "mean", 0, "[P][1]"}, {TRN_IN, "coef", 0, "[P][3] A, Bc, scale"},
    {TRN_OUT, "dx", 0, "[P][N]"},
};
static const trn_operand_desc backprop2_operands[] = {
    {TRN_IN, "x", 0, "[P][N]"},     {TRN_IN, "dy", 0, "[P][N]"},
    {TRN_IN, "mean", 0, "[P][1]"},  {TRN_IN, "ab", 0, "[P][2] A, Bc"},
    {TRN_IN, "scale", 0, "[P][1]"}, {TRN_OUT, "dx", 0, "[P][N]"},
};

/* Each handler validates everything first and returns before its first
 * data access when api->checking(ctx): the handler is its own static check. */
static const trn_opcode_desc bn_ops[] = {
    TRN_OP(34, "BNStats", bn_op_stats, TRN_ARRAY(attrs, stats_attrs),
           TRN_ARRAY(operands, stats_operands), .conform = bn_conform_stats),
    TRN_OP(35, "BNStatsAggregate", bn_op_aggregate, .flags = TRN_OPF_NO_ATTRS,
           TRN_ARRAY(operands, aggregate_operands), .conform = bn_conform_aggregate),
    TRN_OP(36, "BNGradients", bn_op_gradients, .flags = TRN_OPF_NO_ATTRS,
           TRN_ARRAY(operands, gradients_operands), .conform = bn_conform_gradients),
    TRN_OP(37, "BNBackprop", bn_op_backprop, TRN_ARRAY(attrs, backprop_attrs),
           TRN_ARRAY(operands, backprop_operands), .conform = bn_conform_backprop),
    TRN_OP(38, "BNBackprop2", bn_op_backprop2, TRN_ARRAY(attrs, backprop_attrs),
           TRN_ARRAY(operands, backprop2_operands), .conform = bn_conform_backprop2),
};

static const trn_quirk_desc bn_quirks[] = {
    {"bn.shared_welford_count", NULL, "always",
     "BNStats: both Welford lanes share one running count that grows once per pair, before lane "
     "A's element "
     "(a reading of the reference says lane B; its code wins)"},
    {"bn.seeded_lane_counts", NULL, "always",
     "BNStats: the count fields are ceil(N/2) and floor(N/2) (lane sizes), not the running count"},
    {"bn.convex_mean_update", NULL, "always",
     "BNStats/BNStatsAggregate: means update as (1-r)*old + r*x and (mean*n + n_t*mean_t)*r, so "
     "constant input "
     "need not give its own value and a zero variance, and a large offset makes the fp32 mean "
     "drift"},
    {"bn.raw_m2_normalized_merge", NULL, "always",
     "BNStats emits raw M2; BNStatsAggregate keeps a normalized variance, re-normalizes per merge "
     "and carries "
     "an extra r on the cross term"},
    {"bn.population_variance", NULL, "always",
     "BNStatsAggregate: variance is sum(dev^2)/N (biased), no epsilon, no rsqrt"},
    {"bn.aggregate_zero_count_nan", NULL, "always",
     "BNStatsAggregate: a zero count meeting an empty accumulator divides by zero (r = +Inf): mean "
     "and variance "
     "become NaN and stay NaN"},
    {"bn.naive_gradient_sums", NULL, "always",
     "BNGradients: plain fp32 sums in index order (no Kahan, no pairwise), so they differ from "
     "numpy's np.sum"},
    {"bn.tile_swap_transpose", NULL, "always",
     "BNStats apply_transpose swaps elements inside each 32x32 tile (StreamTranspose's idiom), it "
     "does not "
     "transpose the whole [P][N]; other shapes than multiples of 32 (or N = 1) are an error here"},
    {"bn.unpinned_nan_payload", NULL, "always",
     "NaN results are NaN, but which operand's payload and sign propagate is not known from the "
     "reference"},
};

float *bn_scratch(const trn_host_api *api, trn_ctx *ctx, bn_state *st, size_t n) {
    if (n <= st->cap) return st->buf;
    float *p = NULL;
    if (n <= SIZE_MAX / sizeof(float)) {
        free(st->buf);
        st->buf = NULL, st->cap = 0;
        p = malloc(n * sizeof(float));
    }
    if (!p) {
        api->error(ctx, "out of memory for %zu floats of scratch", n);
        return NULL;
    }
    st->buf = p, st->cap = n;
    return p;
}

void bn_state_free(bn_state *st) {
    if (!st) return;
    free(st->buf);
    free(st);
}

static trn_status bn_init(const trn_host_api *api, const trn_settings *settings, void **state,
                          char *err, size_t errlen) {
    bn_state *st = calloc(1, sizeof *st);
    if (!st) return trn_fail(err, errlen, "out of memory");
    *state = st;
    return TRN_OK;
}

static void bn_fini(void *state) { bn_state_free(state); }

#ifdef TRNSIM_REF_MODULE
#define BN_MODULE_NAME "trnsim-bn-ref" /* plugins/bn/ref/: the oracle kernels */
#else
#define BN_MODULE_NAME "trnsim-bn"
#endif
TRN_MODULE(bn, BN_MODULE_NAME, "1.0.0", TRN_OPS(bn_ops), TRN_QUIRKS(bn_quirks), TRN_INIT_FINI(bn));
