#include "dma_direct.h"

#include <stdint.h>
#include <string.h>

#include "dma_kernels.h"

static bool aligned(const void *p, int64_t w) { return ((uintptr_t)p % (uintptr_t)w) == 0; }

/* Source strides (elements) of the WZYX axes when the view's rows hold
 * whole trailing axes: axes [j, 4) lie inside a partition in C order and
 * axes [0, j) step over partitions. False when the shape does not split at
 * a partition boundary. */
static bool source_strides(const trn_view *v, const int64_t shape[4], int64_t stride[4]) {
    if (!(v->flags & TRN_VIEW_ROWS) || v->part_stride % v->width != 0) return false;
    int64_t inner = 1;
    int j = 4;
    while (j > 0 && inner < v->free_elems) inner *= shape[--j];
    if (inner != v->free_elems) return false;
    int64_t s = 1;
    for (int a = 3; a >= j; --a) {
        stride[a] = s;
        s *= shape[a];
    }
    s = v->part_stride / v->width;
    for (int a = j - 1; a >= 0; --a) {
        stride[a] = s;
        s *= shape[a];
    }
    return true;
}

trn_status dma_direct_transpose(const trn_host_api *api, trn_ctx *ctx, dma_state *st,
                                const trn_ap *src, const trn_ap *dst, const int64_t shape[4],
                                const int perm[4], bool *done) {
    *done = false;
    if (!TRN_API_HAS(api, lend_cancel)) return TRN_OK;
    trn_view vs, vd;
    trn_lend_status s = api->lend(ctx, src, TRN_LEND_READ, &vs);
    if (s == TRN_LEND_ERR) {
        *done = true; /* the guard's message, as read_raw would give it */
        return TRN_ERR;
    }
    int64_t stride[4];
    if (s != TRN_LENT || !aligned(vs.base, vs.width) || !source_strides(&vs, shape, stride)) {
        if (s == TRN_LENT) api->lend_end(ctx, &vs);
        return TRN_OK;
    }
    trn_lend_status d = api->lend(ctx, dst, TRN_LEND_WRITE, &vd);
    if (d == TRN_LEND_ERR) {
        api->lend_end(ctx, &vs);
        *done = true;
        return TRN_ERR;
    }
    bool in_place = d == TRN_LENT && (vd.flags & TRN_VIEW_BLOCK) && aligned(vd.base, vd.width) &&
                    !trn_views_meet(&vd, &vs);
    if (in_place) {
        dma_transpose_strided(vs.base, stride, vd.base, vs.width, shape, perm);
        api->lend_end(ctx, &vs);
        *done = true;
        return api->lend_end(ctx, &vd);
    }
    /* the destination through the copying path: transpose into scratch */
    if (d == TRN_LENT) api->lend_cancel(ctx, &vd);
    size_t bytes = (size_t)trn_ap_elems(src) * vs.width;
    void *out = dma_scratch(st, 1, bytes);
    if (!out) {
        api->lend_end(ctx, &vs);
        return TRN_OK; /* the copying path reports it */
    }
    dma_transpose_strided(vs.base, stride, out, vs.width, shape, perm);
    api->lend_end(ctx, &vs);
    *done = true;
    return api->write_raw(ctx, dst, out);
}

trn_status dma_direct_copy(const trn_host_api *api, trn_ctx *ctx, const trn_ap *src,
                           const trn_ap *dst, bool *done) {
    *done = false;
    if (!TRN_API_HAS(api, lend_cancel)) return TRN_OK;
    trn_view vs, vd;
    trn_lend_status s = api->lend(ctx, src, TRN_LEND_READ, &vs);
    if (s == TRN_LEND_ERR) {
        *done = true;
        return TRN_ERR;
    }
    if (s != TRN_LENT) return TRN_OK;
    trn_lend_status d = api->lend(ctx, dst, TRN_LEND_WRITE, &vd);
    if (d == TRN_LEND_ERR) {
        api->lend_end(ctx, &vs);
        *done = true;
        return TRN_ERR;
    }
    bool rows = d == TRN_LENT && (vs.flags & vd.flags & TRN_VIEW_ROWS) && vs.parts == vd.parts &&
                !trn_views_meet(&vd, &vs);
    if (rows) {
        size_t row_bytes = (size_t)vs.free_elems * vs.width;
        if (vs.flags & vd.flags & TRN_VIEW_BLOCK)
            memcpy(vd.base, vs.base, row_bytes * vs.parts);
        else
            for (uint32_t p = 0; p < vs.parts; ++p)
                memcpy(vd.base + (int64_t)p * vd.part_stride, vs.base + (int64_t)p * vs.part_stride,
                       row_bytes);
        *done = true;
    }
    api->lend_end(ctx, &vs);
    if (d == TRN_LENT) (rows ? api->lend_end : api->lend_cancel)(ctx, &vd);
    return TRN_OK;
}
