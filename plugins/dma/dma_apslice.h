/* Sub-access-patterns of a dense range (pure, no host).
 *
 * An AP visits its elements partition-major, then dims[0] .. dims[ndims-1]
 * (plugin.h). A contiguous range [start, start+count) of that visiting order
 * is a mixed-radix interval, so it is the concatenation of at most
 * DMA_SLICE_MAX APs of the same memory and dtype: partial head rows, one
 * block of whole rows, partial tail rows, at each level. The DMA family uses
 * this for large casting copies (dma_copy.c, chunked_cast): each chunk of the
 * dense range is read and written through its pieces, one host call each. */
#ifndef TRNSIM_DMA_APSLICE_H
#define TRNSIM_DMA_APSLICE_H

#include <stdint.h>

#include "trnsim/plugin.h"

/* Levels: the partition level plus up to TRN_AP_MAX_DIMS dims; two partial
 * pieces per level plus one block. */
#define DMA_SLICE_MAX (2 * (TRN_AP_MAX_DIMS + 1) + 1)

/* Fills out[0..k) with APs whose visiting orders, concatenated, are elements
 * start .. start+count-1 of ap, and returns k (0 when count is 0).
 * Precondition: 0 <= start, 0 <= count, start + count <= trn_ap_elems(ap). */
int dma_ap_slice(const trn_ap *ap, int64_t start, int64_t count, trn_ap out[DMA_SLICE_MAX]);

#endif
