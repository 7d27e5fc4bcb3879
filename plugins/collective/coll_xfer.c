#include "coll_xfer.h"

bool coll_dtype_has_f32(uint32_t dt) {
    return dt != TRN_DT_FP8_E4M3_X4 && dt != TRN_DT_FP8_E5M2_X4 && dt != TRN_DT_FP4_E2M1_X4;
}

size_t coll_elem_width(const trn_host_api *api, const trn_ap *ap, bool raw) {
    return raw ? api->dtype_width((trn_dtype)ap->dtype) : sizeof(float);
}

trn_status coll_check_out(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, bool raw,
                          const char *who) {
    if (!raw && !coll_dtype_has_f32(ap->dtype))
        return api->error(
            ctx,
            "%s: dtype %s has no fp32 value per element (a packed form) and the inputs are of "
            "another dtype; a collective moves packed data only between APs of the same dtype",
            who, api->dtype_name((trn_dtype)ap->dtype));
    if (api->check_ap(ctx, ap, TRN_OUT) != TRN_OK) return api->error(ctx, "%s", who);
    return TRN_OK;
}

trn_status coll_check_in(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, bool raw,
                         const char *who) {
    if (raw || coll_dtype_has_f32(ap->dtype)) return TRN_OK;
    return api->error(
        ctx,
        "%s: dtype %s has no fp32 value per element (a packed form) and the data goes "
        "through fp32 (a reducing kind, or APs of different dtypes); a collective "
        "moves packed data only between APs of the same dtype",
        who, api->dtype_name((trn_dtype)ap->dtype));
}

trn_status coll_read(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, void *buf, bool raw) {
    return raw ? api->read_raw(ctx, ap, buf) : api->read_f32(ctx, ap, buf);
}

trn_status coll_write(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, const void *buf,
                      bool raw) {
    return raw ? api->write_raw(ctx, ap, buf) : api->write_f32(ctx, ap, buf, TRN_ACC_COPY);
}
