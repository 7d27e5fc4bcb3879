/* The data rows of a search instruction, in place where the host lends
 * them (plugin.h, ABI 3): an fp32 data AP whose partitions are contiguous
 * rows is searched where it lies, with no copy; otherwise each row is read
 * into the scratch row as before. Same bits either way (the kernels see
 * the same floats). */
#ifndef TRNSIM_SEARCH_ROWS_H
#define TRNSIM_SEARCH_ROWS_H

#include <stdbool.h>

#include "search_state.h"
#include "trnsim/plugin.h"

typedef struct search_rows {
    const trn_ap *ap;
    trn_view view;
    bool lent;
} search_rows;

/* Start reading ap's rows. TRN_ERR: the uninitialised-read guard failed
 * (message recorded, as a read would give it). */
trn_status search_rows_open(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap,
                            search_rows *r);
/* Row p: in place, or read into buf. NULL on a failed read. */
const float *search_rows_get(const trn_host_api *api, trn_ctx *ctx, search_rows *r, size_t p,
                             float *buf);
void search_rows_close(const trn_host_api *api, trn_ctx *ctx, search_rows *r);

/* Store v at the struck-out positions pos[0..m) (element indices of the
 * AP's visiting order) of an fp32 AP whose every element was written, in
 * place when it can be lent; *done false: use the copying write. */
trn_status search_store_struck(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap,
                               const int64_t *pos, size_t m, float v, bool *done);

#endif
