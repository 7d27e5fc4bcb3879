/* DMA modes on lent memory (plugin.h, ABI 3): the transpose reads its
 * source in place and writes its destination in place where the views
 * allow, instead of going through two dense buffers; a plain copy of rows
 * is a memcpy per row. Same bits as the
 * copying path (elements move unchanged); anything else takes it. */
#ifndef DMA_DIRECT_H
#define DMA_DIRECT_H

#include <stdbool.h>

#include "dma_state.h"

/* A raw (same-dtype, no accumulate) transpose of src into dst whose
 * operands and shape were validated. *done says whether it ran here; when
 * not, nothing was written or reported. */
trn_status dma_direct_transpose(const trn_host_api *api, trn_ctx *ctx, dma_state *st,
                                const trn_ap *src, const trn_ap *dst, const int64_t shape[4],
                                const int perm[4], bool *done);

/* A same-dtype copy (no accumulate) between row views of one partition
 * count that do not overlap: one memcpy per row, or one for two blocks. */
trn_status dma_direct_copy(const trn_host_api *api, trn_ctx *ctx, const trn_ap *src,
                           const trn_ap *dst, bool *done);

#endif
