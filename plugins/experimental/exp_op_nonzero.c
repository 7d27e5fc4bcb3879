/* NonzeroWithCount (IT 104): operands, attributes and the partitions it
 * touches; the work is exp_nonzero_rows.
 *
 *   inputs[0]   src, P partitions x T elements, any dtype with an fp32 value
 *   outputs[0]  dst, P partitions x (T + 1) elements, int32 or uint32
 *   index_offset (int, default 0), padding_val (int, default -1)
 * Everything is checked before the single write. */
#include <stdbool.h>
#include <stdlib.h>

#include "exp_glue.h"
#include "exp_nonzero.h"
#include "exp_ops.h"
#include "exp_state.h"

#define OP            "NonzeroWithCount"
#define GPSIMD_STRIDE 16u /* one GpSimd core per 16 partitions reads its 0-th */

static bool is_packed(uint32_t dt) {
    return dt == TRN_DT_FP8_E4M3_X4 || dt == TRN_DT_FP8_E5M2_X4 || dt == TRN_DT_FP4_E2M1_X4;
}

static trn_status check_operands(const trn_host_api *api, trn_ctx *ctx, const trn_ap *src,
                                 const trn_ap *dst) {
    if (src->dtype >= TRN_DT_COUNT || is_packed(src->dtype))
        return api->error(
            ctx,
            OP " input 0 has dtype %s; expected a dtype with an fp32 value (not a packed x4 form)",
            exp_dtype_name(api, src->dtype));
    if (dst->dtype != TRN_DT_INT32 && dst->dtype != TRN_DT_UINT32)
        return api->error(ctx, OP " output 0 must be int32 or uint32, found %s",
                          exp_dtype_name(api, dst->dtype));
    if (src->part_count != dst->part_count)
        return api->error(ctx,
                          OP " input 0 has %u partitions and output 0 has %u; they must be equal",
                          src->part_count, dst->part_count);
    int64_t t = trn_ap_free_elems(src), u = trn_ap_free_elems(dst);
    if (u != t + 1)
        return api->error(
            ctx,
            OP
            " output 0 needs %lld elements per partition (input 0's %lld indices or padding, then "
            "the count), found %lld",
            (long long)(t + 1), (long long)t, (long long)u);
    return TRN_OK;
}

/* index_offset and padding_val, such that every value the instruction can
 * write fits the destination's 32 bits: int32 [-2^31, 2^31-1]; uint32
 * [-2^31, 2^32-1], a negative value stored as its two's complement. */
static trn_status attributes(const trn_host_api *api, trn_ctx *ctx, const trn_ap *dst, int64_t t,
                             int64_t *offset, int64_t *pad) {
    const int64_t lo = INT32_MIN, hi = dst->dtype == TRN_DT_INT32 ? INT32_MAX : (int64_t)UINT32_MAX;
    if (exp_attr_int(api, ctx, OP, "index_offset", 0, lo, hi, offset) != TRN_OK ||
        exp_attr_int(api, ctx, OP, "padding_val", EXP_NONZERO_DEFAULT_PAD, lo, hi, pad) != TRN_OK)
        return TRN_ERR;
    if (*offset + (t - 1) > hi)
        return api->error(
            ctx, OP " index_offset %lld + %lld elements - 1 exceeds the largest %s, %lld",
            (long long)*offset, (long long)t, exp_dtype_name(api, dst->dtype), (long long)hi);
    return TRN_OK;
}

/* setting nonzero_partitions = "gpsimd": only the tile's partitions 0, 16,
 * 32, ... (NKI: each GpSimd core reads and writes its 0-th partition). */
static void gpsimd_rows(trn_ap *ap) {
    uint32_t n = (ap->part_count + GPSIMD_STRIDE - 1) / GPSIMD_STRIDE;
    if (n > 1) ap->part_step *= GPSIMD_STRIDE;
    ap->part_count = n;
}

trn_status exp_op_nonzero(const trn_host_api *api, trn_ctx *ctx, void *state) {
    const exp_state *st = state;
    trn_ap src, dst;
    int64_t offset, pad;
    if (exp_counts(api, ctx, OP, 1, 1) != TRN_OK ||
        exp_operand(api, ctx, OP, TRN_IN, 0, &src) != TRN_OK ||
        exp_operand(api, ctx, OP, TRN_OUT, 0, &dst) != TRN_OK ||
        check_operands(api, ctx, &src, &dst) != TRN_OK)
        return TRN_ERR;
    int64_t t = trn_ap_free_elems(&src);
    if (attributes(api, ctx, &dst, t, &offset, &pad) != TRN_OK) return TRN_ERR;
    if (st->nonzero_gpsimd) {
        gpsimd_rows(&src);
        gpsimd_rows(&dst);
    }
    if (api->check_ap(ctx, &src, TRN_IN) != TRN_OK || api->check_ap(ctx, &dst, TRN_OUT) != TRN_OK)
        return TRN_ERR;
    if (api->checking(ctx)) return TRN_OK; /* the static check ends before the data */

    float *in = NULL;
    uint32_t *out = NULL;
    trn_status rc = exp_alloc(api, ctx, trn_ap_elems(&src), sizeof *in, (void **)&in);
    if (rc == TRN_OK) rc = exp_alloc(api, ctx, trn_ap_elems(&dst), sizeof *out, (void **)&out);
    if (rc == TRN_OK) rc = api->read_f32(ctx, &src, in);
    if (rc == TRN_OK) {
        exp_nonzero_rows(in, src.part_count, (size_t)t, offset, pad, out);
        rc = api->write_raw(ctx, &dst, out);
    }
    free(in);
    free(out);
    return rc;
}
