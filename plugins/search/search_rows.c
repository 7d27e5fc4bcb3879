#include "search_rows.h"

#include <stdint.h>
#include <string.h>

/* The reference module (TRNSIM_REF_MODULE, docs/plugins.md) borrows no host
 * memory: every row is read, and every result written, through the plain calls. */
#ifdef TRNSIM_REF_MODULE
#define MAY_LEND(api) ((void)(api), 0)
#else
#define MAY_LEND(api) TRN_API_HAS(api, lend_cancel)
#endif

static bool rows_of_floats(const trn_view *v) {
    return (v->flags & TRN_VIEW_ROWS) && v->dtype == TRN_DT_FP32 && ((uintptr_t)v->base & 3) == 0 &&
           (v->part_stride & 3) == 0;
}

trn_status search_rows_open(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap,
                            search_rows *r) {
    r->ap = ap;
    r->lent = false;
    if (!MAY_LEND(api)) return TRN_OK;
    trn_lend_status s = api->lend(ctx, ap, TRN_LEND_READ, &r->view);
    if (s == TRN_LEND_ERR) return TRN_ERR;
    if (s == TRN_LENT && !rows_of_floats(&r->view))
        api->lend_end(ctx, &r->view);
    else
        r->lent = s == TRN_LENT;
    return TRN_OK;
}

const float *search_rows_get(const trn_host_api *api, trn_ctx *ctx, search_rows *r, size_t p,
                             float *buf) {
    if (r->lent)
        return (const float *)(const void *)(r->view.base + (int64_t)p * r->view.part_stride);
    trn_ap row = *r->ap;
    row.part_start = r->ap->part_start + (uint32_t)p * r->ap->part_step;
    row.part_count = 1;
    return api->read_f32(ctx, &row, buf) == TRN_OK ? buf : NULL;
}

void search_rows_close(const trn_host_api *api, trn_ctx *ctx, search_rows *r) {
    if (r->lent) api->lend_end(ctx, &r->view);
    r->lent = false;
}

/* Byte offset of free element f (visiting order) inside a partition. */
static int64_t free_offset(const trn_view *v, int64_t f) {
    int64_t off = 0;
    for (int d = (int)v->ndims - 1; d >= 0; --d) {
        off += (f % v->num[d]) * v->stride[d];
        f /= v->num[d];
    }
    return off;
}

trn_status search_store_struck(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap,
                               const int64_t *pos, size_t m, float v, bool *done) {
    *done = false;
    if (!MAY_LEND(api)) return TRN_OK;
    trn_view w;
    trn_lend_status s = api->lend(ctx, ap, TRN_LEND_READ | TRN_LEND_WRITE, &w);
    if (s == TRN_LEND_ERR) return TRN_ERR;
    if (s != TRN_LENT) return TRN_OK;
    if (w.dtype != TRN_DT_FP32) return api->lend_cancel(ctx, &w);
    for (size_t j = 0; j < m; ++j) {
        int64_t p = pos[j] / w.free_elems, f = pos[j] % w.free_elems;
        memcpy(w.base + p * w.part_stride + free_offset(&w, f), &v, sizeof v);
    }
    *done = true;
    return api->lend_end(ctx, &w);
}
