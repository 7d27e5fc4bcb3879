/* Operand fetch and validation for the BN handlers. */
#include "bn_operands.h"

#include <stdint.h>

static const char *dir_name(trn_dir d) { return d == TRN_IN ? "inputs" : "outputs"; }

static int has_f32_value(uint32_t dt) {
    return dt < TRN_DT_COUNT && dt != TRN_DT_FP8_E4M3_X4 && dt != TRN_DT_FP8_E5M2_X4 &&
           dt != TRN_DT_FP4_E2M1_X4;
}

trn_status bn_expect_counts(const trn_host_api *api, trn_ctx *ctx, const char *op, int n_in,
                            int n_out, const char *layout) {
    const int in = api->operand_count(ctx, TRN_IN), out = api->operand_count(ctx, TRN_OUT);
    if (in != n_in || out != n_out)
        return api->error(
            ctx, "%s: expected %d input(s) and %d output(s) (%s; docs/bn.md), found %d and %d", op,
            n_in, n_out, layout, in, out);
    return TRN_OK;
}

trn_status bn_get(const trn_host_api *api, trn_ctx *ctx, const char *op, trn_dir dir, int idx,
                  const char *role, bn_operand *o) {
    if (api->operand(ctx, dir, idx, &o->ap) != TRN_OK) return TRN_ERR;
    if (!has_f32_value(o->ap.dtype)) {
        const char *dt = api->dtype_name((trn_dtype)o->ap.dtype);
        return api->error(ctx,
                          "%s: %s[%d] (%s) has dtype %s; expected a dtype with an fp32 value (not "
                          "a packed x4 form)",
                          op, dir_name(dir), idx, role, dt ? dt : "?");
    }
    o->parts = o->ap.part_count;
    o->elems = (size_t)trn_ap_free_elems(&o->ap);
    return TRN_OK;
}

trn_status bn_expect_shape(const trn_host_api *api, trn_ctx *ctx, const char *op,
                           const bn_operand *o, const char *role, size_t parts, size_t elems,
                           const char *why) {
    if (o->parts != parts)
        return api->error(ctx,
                          "%s: %s has %zu partitions; expected %zu (one per partition of the data)",
                          op, role, o->parts, parts);
    if (o->elems != elems)
        return api->error(ctx, "%s: %s has %zu elements per partition; expected %zu (%s)", op, role,
                          o->elems, elems, why);
    return TRN_OK;
}

int bn_size_ok(size_t parts, size_t elems, size_t k) {
    const size_t limit = SIZE_MAX / sizeof(float) / 8;
    return parts != 0 && elems <= limit / parts && parts * elems <= limit / k;
}

trn_status bn_read_rows(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, size_t p0,
                        size_t n, float *dst) {
    trn_ap s = *ap;
    s.part_start = ap->part_start + (uint32_t)p0 * ap->part_step;
    s.part_count = (uint32_t)n;
    return api->read_f32(ctx, &s, dst);
}
