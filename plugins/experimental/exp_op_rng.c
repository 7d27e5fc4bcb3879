/* Rng (IT 100): operand checks and the lanes it draws from; the work is
 * the service's lane_bits / exp_rng_pack.
 *
 *   outputs[0]  dst, int8 / uint8 / int16 / uint16 / int32 / uint32, in
 *               sbuf or psum, any number of elements per partition
 * Element j of a partition (AP visiting order) is the j-th next draw of
 * that partition's lane on the executing core, made by trnsim-rng's XORWOW
 * through the "rng.xorwow" service. The draws come from a working copy of
 * the lanes, committed only after the write succeeded. */
#include <stdlib.h>
#include <string.h>

#include "exp_glue.h"
#include "exp_ops.h"
#include "exp_rng.h"
#include "exp_state.h"

#define OP "Rng"

/* One partition's n draws: trnsim-rng's XORWOW through the service, or in
 * the reference module the oracle's (ref/exp_ref_kernels.c). */
static void draw(const exp_state *st, uint32_t *lane, uint32_t *bits, size_t n) {
#ifdef TRNSIM_REF_MODULE
    (void)st;
    exp_ref_lane_bits(lane, bits, n);
#else
    st->rng->lane_bits(lane, bits, n);
#endif
}

/* Bytes kept of each 32-bit draw; 0 if the dtype is not one Rng writes. */
static unsigned int_width(uint32_t dt) {
    switch (dt) {
        case TRN_DT_INT8:
        case TRN_DT_UINT8: return 1;
        case TRN_DT_INT16:
        case TRN_DT_UINT16: return 2;
        case TRN_DT_INT32:
        case TRN_DT_UINT32: return 4;
        default: return 0;
    }
}

static trn_status check_lanes(const trn_host_api *api, trn_ctx *ctx, const exp_state *st,
                              const trn_ap *ap, uint32_t *core) {
    *core = api->core_id(ctx);
    if (*core >= st->cores || !st->lanes)
        return api->error(ctx, OP ": core %u has no lanes (the run has %u cores)", *core,
                          st->cores);
    for (uint32_t i = 0; i < ap->part_count; ++i) {
        uint32_t p = ap->part_start + i * ap->part_step;
        if (p >= st->partitions)
            return api->error(ctx, OP " output 0 visits partition %u; the engine has %u", p,
                              st->partitions);
    }
    return TRN_OK;
}

trn_status exp_op_rng(const trn_host_api *api, trn_ctx *ctx, void *state) {
    exp_state *st = state;
    trn_ap ap;
    uint32_t core;
    if (exp_counts(api, ctx, OP, 0, 1) != TRN_OK ||
        exp_operand(api, ctx, OP, TRN_OUT, 0, &ap) != TRN_OK)
        return TRN_ERR;
    unsigned width = int_width(ap.dtype);
    if (!width)
        return api->error(
            ctx,
            OP " output 0 must be an integer dtype of at most 32 bits (int8, uint8, int16, uint16, "
               "int32, uint32), found %s",
            exp_dtype_name(api, ap.dtype));
    if (api->checking(ctx))
        return api->check_ap(ctx, &ap, TRN_OUT); /* the lanes are sized at run start */
    if (check_lanes(api, ctx, st, &ap, &core) != TRN_OK ||
        api->check_ap(ctx, &ap, TRN_OUT) != TRN_OK)
        return TRN_ERR;

    size_t n = (size_t)trn_ap_free_elems(&ap),
           lane_bytes = (size_t)st->partitions * TRN_RNG_GEN2_WORDS * sizeof(uint32_t);
    uint32_t *work = NULL, *bits = NULL;
    void *out = NULL;
    trn_status rc = exp_alloc(api, ctx, (int64_t)lane_bytes, 1, (void **)&work);
    if (rc == TRN_OK) rc = exp_alloc(api, ctx, trn_ap_elems(&ap), sizeof *bits, (void **)&bits);
    if (rc == TRN_OK) rc = exp_alloc(api, ctx, trn_ap_elems(&ap), width, &out);
    if (rc == TRN_OK) {
        uint32_t *lanes = exp_state_core(st, core);
        memcpy(work, lanes, lane_bytes);
        /* partition_step 0 visits a partition again: its lane continues */
        for (uint32_t i = 0; i < ap.part_count; ++i) {
            uint32_t *lane = exp_state_lane(work, ap.part_start + i * ap.part_step);
            draw(st, lane, bits + (size_t)i * n, n);
        }
        exp_rng_pack(bits, (size_t)ap.part_count * n, width, out);
        rc = api->write_raw(ctx, &ap, out);
        if (rc == TRN_OK) memcpy(lanes, work, lane_bytes);
    }
    free(work);
    free(bits);
    free(out);
    return rc;
}
