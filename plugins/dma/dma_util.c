/* Helpers shared by the DMA handlers (see dma_state.h). */
#include <stdio.h>
#include <stdlib.h>

#include "dma_state.h"

void *dma_scratch(dma_state *st, int slot, size_t bytes) {
    if (bytes == 0) bytes = 1;
    if (st->scratch_cap[slot] >= bytes) return st->scratch[slot];
    void *p = realloc(st->scratch[slot], bytes);
    if (!p) return NULL;
    st->scratch[slot] = p;
    st->scratch_cap[slot] = bytes;
    return p;
}

static const char *plural(int n, const char *one, const char *many) { return n == 1 ? one : many; }

trn_status dma_expect_operands(const trn_host_api *api, trn_ctx *ctx, int nin_min, int nin_max,
                               int nout) {
    int nin = api->operand_count(ctx, TRN_IN), no = api->operand_count(ctx, TRN_OUT);
    bool in_ok = nin >= nin_min && (nin_max < 0 || nin <= nin_max);
    if (in_ok && no == nout) return TRN_OK;
    char want[48];
    if (nin_max < 0)
        snprintf(want, sizeof want, "at least %d inputs", nin_min);
    else if (nin_min == nin_max)
        snprintf(want, sizeof want, "%d %s", nin_min, plural(nin_min, "input", "inputs"));
    else
        snprintf(want, sizeof want, "%d to %d inputs", nin_min, nin_max);
    return api->error(ctx, "expects %s and %d %s, found %d %s and %d %s", want, nout,
                      plural(nout, "output", "outputs"), nin, plural(nin, "input", "inputs"), no,
                      plural(no, "output", "outputs"));
}

trn_status dma_attr_bool(const trn_host_api *api, trn_ctx *ctx, const char *key, bool def,
                         bool *out) {
    int64_t v;
    trn_lookup r = api->attr_int(ctx, key, &v);
    if (r == TRN_BADTYPE) return TRN_ERR;
    if (r == TRN_ABSENT) {
        *out = def;
        return TRN_OK;
    }
    if (v != 0 && v != 1)
        return api->error(ctx, "attribute '%s' must be true or false, found %lld", key,
                          (long long)v);
    *out = v != 0;
    return TRN_OK;
}

bool dma_dtype_widens(uint32_t dt) {
    return dt < TRN_DT_COUNT && dt != TRN_DT_FP8_E4M3_X4 && dt != TRN_DT_FP8_E5M2_X4 &&
           dt != TRN_DT_FP4_E2M1_X4;
}

bool dma_dtype_reduces(uint32_t dt) {
    switch (dt) {
        case TRN_DT_FP8_E3M4:
        case TRN_DT_FP8_E4M3:
        case TRN_DT_FP8_E5M2:
        case TRN_DT_BF16:
        case TRN_DT_FP16:
        case TRN_DT_INT32:
        case TRN_DT_FP32:
        case TRN_DT_INT64: return true;
        default: return false;
    }
}

trn_status dma_check_cast(const trn_host_api *api, trn_ctx *ctx, const char *what, uint32_t src_dt,
                          uint32_t dst_dt, bool accumulate) {
    if (src_dt != dst_dt && (!dma_dtype_widens(src_dt) || !dma_dtype_widens(dst_dt)))
        return api->error(ctx, "%s: cannot cast %s to %s (a packed x4 dtype copies only to itself)",
                          what, api->dtype_name(src_dt), api->dtype_name(dst_dt));
    if (accumulate && !dma_dtype_reduces(dst_dt))
        return api->error(
            ctx,
            "%s: accumulate needs a destination of a reducing dtype (float8_e3m4, float8_e4m3, "
            "float8_e5m2, bfloat16, float16, int32, float32, int64), found %s",
            what, api->dtype_name(dst_dt));
    return TRN_OK;
}

trn_status dma_write_dense(const trn_host_api *api, trn_ctx *ctx, const trn_ap *dst,
                           const void *buf, bool raw, bool accumulate) {
    trn_acc_op op = accumulate ? TRN_ACC_ADD : TRN_ACC_COPY;
    if (raw)
        return accumulate ? api->write_raw_op(ctx, dst, buf, op) : api->write_raw(ctx, dst, buf);
    return api->write_f32(ctx, dst, buf, op);
}
