/* The reference module's DMA kernels (trnsim-dma-ref, docs/plugins.md
 * "Reference modules"): dma_kernels.h answered by the scalar oracle
 * (dma_oracle.c, the file the kernel tests compare against), one element at
 * a time with the SSE instructions themselves. No blocks, no tiles, no
 * streaming stores: the handlers are the fast module's. */
#include "../dma_kernels.h"
#include "dma_oracle.h"

void dma_cce_fold(int op, dma_cce_init init, const float *const *src, size_t nsrc, size_t n,
                  float *out) {
    oracle_cce(op, init == DMA_CCE_INIT_FIRST, src, nsrc, n, out);
}

void dma_transpose(const void *src, void *dst, size_t width, const int64_t shape[4],
                   const int perm[4]) {
    oracle_transpose(src, dst, width, shape, perm);
}

void dma_replicate(const void *src, size_t bytes, void *dst, size_t copies) {
    oracle_replicate(src, bytes, 1, dst, copies);
}
