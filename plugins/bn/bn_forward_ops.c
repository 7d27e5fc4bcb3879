/* Handlers of the forward statistics: BNStats (IT 34) and
 * BNStatsAggregate (IT 35). Validate every operand and attribute, read the
 * inputs widened to fp32, run the kernel, write the one output. */
#include <stdbool.h>
#include <stdint.h>

#include "bn_kernels.h"
#include "bn_operands.h"
#include "bn_ops.h"

static const char *kind_name(trn_value_kind k) {
    static const char *const names[] = {"null",     "a boolean", "an integer", "a float",
                                        "a string", "a list",    "an object"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "an unknown value";
}

/* apply_transpose: absent = false; true/false or 0/1. Anything else (a
 * float, a string, a register reference object, ...) is not a constant bool:
 * the reference throws bad_variant_access there. */
static trn_status read_transpose(const trn_host_api *api, trn_ctx *ctx, const char *op, int *on) {
    const trn_value *v = api->attr(ctx, "apply_transpose");
    *on = 0;
    if (!v) return TRN_OK;
    const trn_value_kind k = api->value_kind(v);
    int64_t i = -1;
    if (k == TRN_V_BOOL || k == TRN_V_INT)
        BN_TRY(api->value_int(ctx, v, &i) == TRN_FOUND ? TRN_OK : TRN_ERR);
    if (i == 0 || i == 1) {
        *on = (int)i;
        return TRN_OK;
    }
    if (k == TRN_V_INT)
        return api->error(
            ctx, "%s: apply_transpose must be a constant true or false (or 0 / 1); found %lld", op,
            (long long)i);
    return api->error(ctx,
                      "%s: apply_transpose must be a constant true or false (or 0 / 1); found %s",
                      op, kind_name(k));
}

/* Plain BNStats: the shared weight table once, then slices of partitions
 * read and reduced in turn; one write of all records at the end. */
/* Plain BNStats on fp32 rows lent in place (plugin.h, ABI 3): the kernel
 * reads each partition where it lies. *done false: not lendable as rows of
 * floats, take the slices. */
static trn_status stats_in_place(const trn_host_api *api, trn_ctx *ctx, bn_state *state,
                                 const bn_operand *x, const bn_operand *st, bool *done) {
    *done = false;
#ifdef TRNSIM_REF_MODULE
    return TRN_OK; /* the reference module borrows no host memory (docs/plugins.md) */
#endif
    if (!TRN_API_HAS(api, lend_cancel) || x->ap.dtype != TRN_DT_FP32) return TRN_OK;
    trn_view v;
    trn_lend_status s = api->lend(ctx, &x->ap, TRN_LEND_READ, &v);
    if (s == TRN_LEND_ERR) *done = true;
    if (s != TRN_LENT) return s == TRN_LEND_ERR ? TRN_ERR : TRN_OK;
    if (!(v.flags & TRN_VIEW_ROWS) || ((uintptr_t)v.base & 3) || (v.part_stride & 3))
        return api->lend_end(ctx, &v);
    const size_t P = x->parts, N = x->elems, nw = bn_stats_weights_len(N);
    float *buf = bn_scratch(api, ctx, state, nw + P * BN_STATS_ELEMS);
    if (!buf) {
        api->lend_end(ctx, &v);
        *done = true;
        return TRN_ERR;
    }
    float *w = buf, *out = w + nw;
    bn_stats_weights(N, w);
    bn_stats_rows((const float *)(const void *)v.base, (size_t)v.part_stride / sizeof(float), P, N,
                  w, out);
    api->lend_end(ctx, &v);
    *done = true;
    return api->write_f32(ctx, &st->ap, out, TRN_ACC_COPY);
}

static trn_status stats_by_slices(const trn_host_api *api, trn_ctx *ctx, bn_state *state,
                                  const bn_operand *x, const bn_operand *st) {
    bool done;
    trn_status rc = stats_in_place(api, ctx, state, x, st, &done);
    if (done) return rc;
    const size_t P = x->parts, N = x->elems, nw = bn_stats_weights_len(N);
    const size_t rows = P < BN_SLICE_ROWS ? P : BN_SLICE_ROWS;
    float *buf = bn_scratch(api, ctx, state, nw + rows * N + P * BN_STATS_ELEMS);
    if (!buf) return TRN_ERR;
    float *w = buf, *slice = w + nw, *out = slice + rows * N;
    bn_stats_weights(N, w);
    for (size_t p0 = 0; p0 < P; p0 += rows) {
        const size_t n = P - p0 < rows ? P - p0 : rows;
        BN_TRY(bn_read_rows(api, ctx, &x->ap, p0, n, slice));
        bn_stats_f32(slice, n, N, w, out + p0 * BN_STATS_ELEMS);
    }
    return api->write_f32(ctx, &st->ap, out, TRN_ACC_COPY);
}

/* apply_transpose: the tile swap mixes 32 partitions, so the whole input is
 * read, swapped, then reduced. */
static trn_status stats_transposed(const trn_host_api *api, trn_ctx *ctx, bn_state *state,
                                   const bn_operand *x, const bn_operand *st) {
    const size_t P = x->parts, N = x->elems, nx = P * N, nw = bn_stats_weights_len(N);
    float *buf = bn_scratch(api, ctx, state, 2 * nx + nw + P * BN_STATS_ELEMS);
    if (!buf) return TRN_ERR;
    float *in = buf, *rows = in + nx, *w = rows + nx, *out = w + nw;
    BN_TRY(api->read_f32(ctx, &x->ap, in));
    bn_tile_transpose_f32(in, P, N, rows);
    bn_stats_weights(N, w);
    bn_stats_f32(rows, P, N, w, out);
    return api->write_f32(ctx, &st->ap, out, TRN_ACC_COPY);
}

trn_status bn_op_stats(const trn_host_api *api, trn_ctx *ctx, void *state) {
    static const char op[] = "BNStats";
    bn_operand x, st;
    int transpose;
    BN_TRY(bn_expect_counts(api, ctx, op, 1, 1, "inputs [x], outputs [stats]"));
    BN_TRY(bn_get(api, ctx, op, TRN_IN, 0, "x", &x));
    BN_TRY(bn_get(api, ctx, op, TRN_OUT, 0, "stats", &st));
    BN_TRY(bn_expect_shape(api, ctx, op, &st, "outputs[0] (stats)", x.parts, BN_STATS_ELEMS,
                           "two Welford triples n, mean, M2"));
    BN_TRY(read_transpose(api, ctx, op, &transpose));
    if (transpose && !bn_tile_transpose_ok(x.parts, x.elems))
        return api->error(ctx,
                          "%s: apply_transpose swaps 32x32 tiles, so it needs the partition count "
                          "and the elements "
                          "per partition to be multiples of 32 (or 1 element per partition); found "
                          "%zu partitions x "
                          "%zu elements",
                          op, x.parts, x.elems);
    if (!bn_size_ok(x.parts, x.elems, 2))
        return api->error(ctx, "%s: x is too large (%zu x %zu)", op, x.parts, x.elems);
    BN_TRY(api->check_ap(ctx, &st.ap, TRN_OUT));
    if (api->checking(ctx)) return TRN_OK; /* the static check ends before the data */

    if (transpose) return stats_transposed(api, ctx, state, &x, &st);
    return stats_by_slices(api, ctx, state, &x, &st);
}

trn_status bn_op_aggregate(const trn_host_api *api, trn_ctx *ctx, void *state) {
    static const char op[] = "BNStatsAggregate";
    bn_operand in, mv;
    BN_TRY(bn_expect_counts(api, ctx, op, 1, 1, "inputs [stats], outputs [mean_var]"));
    BN_TRY(bn_get(api, ctx, op, TRN_IN, 0, "stats", &in));
    BN_TRY(bn_get(api, ctx, op, TRN_OUT, 0, "mean_var", &mv));
    if (in.elems % BN_STATS_ELEMS != 0)
        return api->error(ctx,
                          "%s: inputs[0] (stats) has %zu elements per partition; expected a "
                          "multiple of 6 (K BNStats "
                          "records of two triples n, mean, M2)",
                          op, in.elems);
    BN_TRY(bn_expect_shape(api, ctx, op, &mv, "outputs[0] (mean_var)", in.parts, BN_AGG_ELEMS,
                           "mean and population variance"));
    if (!bn_size_ok(in.parts, in.elems, 2))
        return api->error(ctx, "%s: stats is too large (%zu x %zu)", op, in.parts, in.elems);
    BN_TRY(api->check_ap(ctx, &mv.ap, TRN_OUT));
    if (api->checking(ctx)) return TRN_OK;

    float *buf = bn_scratch(api, ctx, state, in.parts * (in.elems + BN_AGG_ELEMS));
    if (!buf) return TRN_ERR;
    float *stats = buf, *out = buf + in.parts * in.elems;
    BN_TRY(api->read_f32(ctx, &in.ap, stats));
    bn_aggregate_f32(stats, in.parts, in.elems, out);
    return api->write_f32(ctx, &mv.ap, out, TRN_ACC_COPY);
}
