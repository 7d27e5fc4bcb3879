/* dma_direct.h for the reference module (trnsim-dma-ref): it borrows no host
 * memory, so every transpose and copy takes the handlers' plain path (read
 * dense, oracle kernel, write dense; or the host's copy_raw). */
#include "../dma_direct.h"

trn_status dma_direct_transpose(const trn_host_api *api, trn_ctx *ctx, dma_state *st,
                                const trn_ap *src, const trn_ap *dst, const int64_t shape[4],
                                const int perm[4], bool *done) {
    (void)api, (void)ctx, (void)st, (void)src, (void)dst, (void)shape, (void)perm;
    *done = false;
    return TRN_OK;
}

trn_status dma_direct_copy(const trn_host_api *api, trn_ctx *ctx, const trn_ap *src,
                           const trn_ap *dst, bool *done) {
    (void)api, (void)ctx, (void)src, (void)dst;
    *done = false;
    return TRN_OK;
}
