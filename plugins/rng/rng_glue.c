/* Shared handler checks (see rng_glue.h). */
#include "rng_glue.h"

#include <stdlib.h>

trn_status rng_core(const trn_host_api *api, trn_ctx *ctx, const rng_engine *e, uint32_t *core) {
    *core = api->core_id(ctx);
    if (api->checking(ctx)) return TRN_OK; /* the engine is sized at run start */
    if (*core >= e->cores)
        return api->error(ctx, "rng engine holds %u cores (sized at run start), this is core %u",
                          e->cores, *core);
    return TRN_OK;
}

trn_status rng_counts(const trn_host_api *api, trn_ctx *ctx, const char *op, int n_in, int n_out) {
    int in = api->operand_count(ctx, TRN_IN), out = api->operand_count(ctx, TRN_OUT);
    if (in != n_in || out != n_out)
        return api->error(ctx, "%s takes %d input(s) and %d output(s), found %d and %d", op, n_in,
                          n_out, in, out);
    return TRN_OK;
}

trn_status rng_operand(const trn_host_api *api, trn_ctx *ctx, const char *op, trn_dir dir, int idx,
                       trn_dtype want, trn_ap *ap) {
    if (api->operand(ctx, dir, idx, ap) != TRN_OK) return TRN_ERR;
    if (ap->dtype != (uint32_t)want) {
        const char *found = api->dtype_name((trn_dtype)ap->dtype);
        return api->error(ctx, "%s %s %d must be %s, found %s", op,
                          dir == TRN_IN ? "input" : "output", idx, api->dtype_name(want),
                          found ? found : "an unknown dtype");
    }
    return TRN_OK;
}

trn_status rng_partitions_ok(const trn_host_api *api, trn_ctx *ctx, const rng_engine *e,
                             const trn_ap *ap) {
    if (ap->part_count == 0) return api->error(ctx, "operand visits no partition");
    if (api->checking(ctx)) return TRN_OK; /* the engine is sized at run start (as the machine) */
    uint64_t first = ap->part_start;
    uint64_t last = first + (uint64_t)(ap->part_count - 1) * ap->part_step;
    /* The AP is linear in partitions, so its ends bound every visit. */
    if (last >= e->partitions)
        return api->error(ctx, "operand visits partitions %llu..%llu, the rng engine has %u",
                          (unsigned long long)first, (unsigned long long)last, e->partitions);
    return TRN_OK;
}

trn_status rng_alloc(const trn_host_api *api, trn_ctx *ctx, int64_t n, size_t width, void **out) {
    *out = NULL;
    if (n <= 0 || (uint64_t)n > SIZE_MAX / width)
        return api->error(ctx, "cannot buffer %lld elements", (long long)n);
    *out = malloc((size_t)n * width);
    if (!*out) return api->error(ctx, "out of memory buffering %lld elements", (long long)n);
    return TRN_OK;
}

trn_status rng_attr_int(const trn_host_api *api, trn_ctx *ctx, const char *key, int64_t def,
                        int64_t *out) {
    trn_lookup r = api->attr_int(ctx, key, out);
    if (r == TRN_BADTYPE) return TRN_ERR;
    if (r == TRN_ABSENT) *out = def;
    return TRN_OK;
}
