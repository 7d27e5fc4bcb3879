/* DMACopy mode 2 / DMADescriptorCCE: doDMACCE. N >= 2 source APs widened
 * to fp32 and folded with add / max / min into a zeroed fp32 accumulator
 * (quirk dma.cce_zeroed_accumulator), then narrowed into the destination. */
#include <inttypes.h>

#include "dma_state.h"

static trn_status cce_op(const trn_host_api *api, trn_ctx *ctx, int *op) {
    int64_t v;
    trn_lookup r = api->attr_int(ctx, "reduce_op", &v);
    if (r == TRN_BADTYPE) return TRN_ERR;
    if (r == TRN_ABSENT)
        return api->error(ctx, "CCE: needs 'reduce_op' (AluOpType 4 add, 8 max or 9 min)");
    if (v != DMA_ALU_ADD && v != DMA_ALU_MAX && v != DMA_ALU_MIN) {
        const char *name = dma_aluop_name(v);
        return api->error(
            ctx, "CCE: reduce_op must be 4 (add), 8 (max) or 9 (min), found %" PRId64 "%s%s%s", v,
            name ? " (" : "", name ? name : "", name ? ")" : "");
    }
    *op = (int)v;
    return TRN_OK;
}

trn_status dma_mode_cce(const trn_host_api *api, trn_ctx *ctx, dma_state *st) {
    int nsrc = api->operand_count(ctx, TRN_IN);
    if (nsrc < 2 && api->operand_count(ctx, TRN_OUT) == 1)
        return api->error(ctx, "CCE: needs at least two source operands to fold, found %d", nsrc);
    if (dma_expect_operands(api, ctx, 2, -1, 1)) return TRN_ERR;
    int op = DMA_ALU_ADD;
    bool acc;
    trn_ap dst;
    if (cce_op(api, ctx, &op) || dma_attr_bool(api, ctx, "accumulate", false, &acc) ||
        api->operand(ctx, TRN_OUT, 0, &dst))
        return TRN_ERR;
    int64_t n = trn_ap_elems(&dst);
    for (int s = 0; s < nsrc; ++s) {
        trn_ap src;
        if (api->operand(ctx, TRN_IN, s, &src)) return TRN_ERR;
        if (trn_ap_elems(&src) != n)
            return api->error(ctx,
                              "CCE: source %d has %" PRId64 " elements, the destination %" PRId64
                              "; every source must match it",
                              s, trn_ap_elems(&src), n);
        if (!dma_dtype_widens(src.dtype))
            return api->error(ctx, "CCE: source %d has dtype %s, which has no fp32 value", s,
                              api->dtype_name(src.dtype));
    }
    if (!dma_dtype_widens(dst.dtype))
        return api->error(ctx, "CCE: the destination has dtype %s, which has no fp32 value",
                          api->dtype_name(dst.dtype));
    if (dma_check_cast(api, ctx, "CCE", TRN_DT_FP32, dst.dtype, acc)) return TRN_ERR;
    if (st->dry_run || api->checking(ctx)) return TRN_OK;

    /* All sources are read (and checked) before anything is written. */
    float *in = dma_scratch(st, 0, (size_t)n * (size_t)nsrc * sizeof(float));
    const float **srcs = dma_scratch(st, 2, (size_t)nsrc * sizeof *srcs);
    float *out = dma_scratch(st, 1, (size_t)n * sizeof(float));
    if (!in || !srcs || !out)
        return api->error(ctx, "CCE: out of memory for %d x %" PRId64 " elements", nsrc, n);
    for (int s = 0; s < nsrc; ++s) {
        trn_ap src;
        if (api->operand(ctx, TRN_IN, s, &src)) return TRN_ERR;
        srcs[s] = in + (size_t)s * (size_t)n;
        if (api->read_f32(ctx, &src, in + (size_t)s * (size_t)n)) return TRN_ERR;
    }
    dma_cce_fold(op, st->cce_init, srcs, (size_t)nsrc, (size_t)n, out);
    return dma_write_dense(api, ctx, &dst, out, false, acc);
}
