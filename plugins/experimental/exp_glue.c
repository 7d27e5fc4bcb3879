/* Shared handler checks (exp_glue.h). */
#include "exp_glue.h"

#include <stdlib.h>

static const char *dir_name(trn_dir d) { return d == TRN_IN ? "input" : "output"; }

const char *exp_dtype_name(const trn_host_api *api, uint32_t dt) {
    const char *n = dt < TRN_DT_COUNT ? api->dtype_name((trn_dtype)dt) : NULL;
    return n ? n : "?";
}

trn_status exp_counts(const trn_host_api *api, trn_ctx *ctx, const char *op, int n_in, int n_out) {
    int in = api->operand_count(ctx, TRN_IN), out = api->operand_count(ctx, TRN_OUT);
    if (in != n_in || out != n_out)
        return api->error(ctx, "%s takes %d input(s) and %d output(s), found %d and %d", op, n_in,
                          n_out, in, out);
    return TRN_OK;
}

trn_status exp_operand(const trn_host_api *api, trn_ctx *ctx, const char *op, trn_dir dir, int idx,
                       trn_ap *ap) {
    if (api->operand(ctx, dir, idx, ap) != TRN_OK) return TRN_ERR;
    if (ap->mem != TRN_MEM_SBUF && ap->mem != TRN_MEM_PSUM)
        return api->error(ctx,
                          "%s %s %d must be in sbuf or psum (one row per partition), found hbm", op,
                          dir_name(dir), idx);
    return TRN_OK;
}

trn_status exp_attr_int(const trn_host_api *api, trn_ctx *ctx, const char *op, const char *key,
                        int64_t def, int64_t lo, int64_t hi, int64_t *out) {
    trn_lookup r = api->attr_int(ctx, key, out);
    if (r == TRN_BADTYPE) return TRN_ERR;
    if (r == TRN_ABSENT) *out = def;
    if (*out < lo || *out > hi)
        return api->error(ctx, "%s %s must be in [%lld, %lld], found %lld", op, key, (long long)lo,
                          (long long)hi, (long long)*out);
    return TRN_OK;
}

trn_status exp_alloc(const trn_host_api *api, trn_ctx *ctx, int64_t n, size_t width, void **out) {
    *out = malloc(n > 0 ? (size_t)n * width : 1);
    if (!*out)
        return api->error(ctx, "out of memory for %lld elements of %zu bytes", (long long)n, width);
    return TRN_OK;
}
