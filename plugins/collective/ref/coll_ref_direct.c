/* coll_direct.h for the reference module (trnsim-collective-ref): it
 * borrows no host memory, so every collective takes the handlers' copying
 * path (read dense, oracle kernel, write dense). */
#include "../coll_direct.h"

trn_status coll_direct_allreduce(const coll_exec *x, bool *done) {
    (void)x;
    *done = false;
    return TRN_OK;
}

trn_status coll_direct_reduce_scatter(const coll_exec *x, bool *done) {
    return coll_direct_allreduce(x, done);
}

trn_status coll_direct_all_gather(const coll_exec *x, bool *done) {
    return coll_direct_allreduce(x, done);
}

trn_status coll_direct_all_to_all(const coll_exec *x, bool v, bool *done) {
    (void)v;
    return coll_direct_allreduce(x, done);
}

trn_status coll_direct_permute(const coll_exec *x, const uint32_t *source, bool *done) {
    (void)source;
    return coll_direct_allreduce(x, done);
}

trn_status coll_direct_copy(const trn_host_api *api, trn_ctx *ctx, const trn_ap *in,
                            const trn_ap *out, bool *done) {
    (void)api, (void)ctx, (void)in, (void)out;
    *done = false;
    return TRN_OK;
}
