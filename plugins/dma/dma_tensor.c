/* TensorLoad / TensorSave: one scalar between memory and a register (for
 * dynamic offsets and loop bounds). Not bulk DMA.
 *
 * Integer dtypes move exactly (sign- or zero-extended to 64 bits; uint64 is
 * kept bit for bit, so a pointer survives). Float dtypes: TensorLoad needs
 * an integral, finite value; TensorSave converts the register to fp32 (RNE)
 * and narrows it to the dtype (RNE). */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "dma_state.h"

static trn_status reg_attr(const trn_host_api *api, trn_ctx *ctx, const char *who, uint32_t *reg) {
    int64_t r;
    trn_lookup l = api->attr_int(ctx, "register", &r);
    if (l == TRN_BADTYPE) return TRN_ERR;
    if (l == TRN_ABSENT) return api->error(ctx, "%s: needs 'register', the register number", who);
    if (r < 0 || r > UINT32_MAX)
        return api->error(ctx, "%s: register %" PRId64 " does not exist", who, r);
    *reg = (uint32_t)r;
    return TRN_OK;
}

static trn_status one_element(const trn_host_api *api, trn_ctx *ctx, const char *who,
                              const trn_ap *ap) {
    if (trn_ap_elems(ap) != 1)
        return api->error(ctx, "%s: the operand must be exactly one element, found %" PRId64, who,
                          trn_ap_elems(ap));
    if (!dma_index_dtype_ok(ap->dtype) && !dma_dtype_widens(ap->dtype))
        return api->error(ctx, "%s: dtype %s holds no scalar", who, api->dtype_name(ap->dtype));
    return TRN_OK;
}

/* Raw integer bytes -> int64 (uint64 bit for bit). */
static int64_t int_value(uint32_t dt, const unsigned char *b) {
    switch (dt) {
        case TRN_DT_INT8: return (int8_t)b[0];
        case TRN_DT_UINT8: return b[0];
        case TRN_DT_INT16: {
            int16_t v;
            memcpy(&v, b, 2);
            return v;
        }
        case TRN_DT_UINT16: {
            uint16_t v;
            memcpy(&v, b, 2);
            return v;
        }
        case TRN_DT_INT32: {
            int32_t v;
            memcpy(&v, b, 4);
            return v;
        }
        case TRN_DT_UINT32: {
            uint32_t v;
            memcpy(&v, b, 4);
            return v;
        }
        default: {
            int64_t v;
            memcpy(&v, b, 8);
            return v;
        }
    }
}

/* Range of an integer dtype; uint64 takes any register bits. */
static void int_range(uint32_t dt, int64_t *lo, int64_t *hi) {
    switch (dt) {
        case TRN_DT_INT8: *lo = INT8_MIN, *hi = INT8_MAX; break;
        case TRN_DT_UINT8: *lo = 0, *hi = UINT8_MAX; break;
        case TRN_DT_INT16: *lo = INT16_MIN, *hi = INT16_MAX; break;
        case TRN_DT_UINT16: *lo = 0, *hi = UINT16_MAX; break;
        case TRN_DT_INT32: *lo = INT32_MIN, *hi = INT32_MAX; break;
        case TRN_DT_UINT32: *lo = 0, *hi = UINT32_MAX; break;
        default: *lo = INT64_MIN, *hi = INT64_MAX; break;
    }
}

trn_status dma_h_tensor_load(const trn_host_api *api, trn_ctx *ctx, void *state) {
    dma_state *st = state;
    const char *who = "TensorLoad";
    uint32_t reg;
    trn_ap src;
    if (dma_expect_operands(api, ctx, 1, 1, 0) || reg_attr(api, ctx, who, &reg) ||
        api->operand(ctx, TRN_IN, 0, &src) || one_element(api, ctx, who, &src))
        return TRN_ERR;
    if (st->dry_run || api->checking(ctx)) return TRN_OK;
    int64_t value;
    if (dma_index_dtype_ok(src.dtype)) {
        unsigned char b[8];
        if (api->read_raw(ctx, &src, b)) return TRN_ERR;
        value = int_value(src.dtype, b);
    } else {
        float f;
        if (api->read_f32(ctx, &src, &f)) return TRN_ERR;
        if (!isfinite(f) || f != truncf(f) || f < -9223372036854775808.0f ||
            f >= 9223372036854775808.0f)
            return api->error(ctx, "%s: the %s value %.9g is not an integer a register can hold",
                              who, api->dtype_name(src.dtype), (double)f);
        value = (int64_t)f;
    }
    return api->reg_write(ctx, reg, value);
}

trn_status dma_h_tensor_save(const trn_host_api *api, trn_ctx *ctx, void *state) {
    dma_state *st = state;
    const char *who = "TensorSave";
    uint32_t reg;
    trn_ap dst;
    if (dma_expect_operands(api, ctx, 0, 0, 1) || reg_attr(api, ctx, who, &reg) ||
        api->operand(ctx, TRN_OUT, 0, &dst) || one_element(api, ctx, who, &dst))
        return TRN_ERR;
    if (api->checking(ctx)) return TRN_OK; /* the register's value is data */
    int64_t value;
    if (api->reg_read(ctx, reg, &value)) return TRN_ERR;
    if (dma_index_dtype_ok(dst.dtype)) {
        int64_t lo, hi;
        int_range(dst.dtype, &lo, &hi);
        if (value < lo || value > hi)
            return api->error(
                ctx, "%s: register %u holds %" PRId64 ", outside %s (%" PRId64 "..%" PRId64 ")",
                who, reg, value, api->dtype_name(dst.dtype), lo, hi);
        if (st->dry_run || api->checking(ctx)) return TRN_OK;
        unsigned char b[8];
        memcpy(b, &value, 8); /* little-endian: the low bytes are the narrow value */
        return api->write_raw(ctx, &dst, b);
    }
    if (st->dry_run || api->checking(ctx)) return TRN_OK;
    float f = (float)value;
    return api->write_f32(ctx, &dst, &f, TRN_ACC_COPY);
}
