#include "memory/memory.h"

#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"

/* In each partition, the elements lie contiguously in visiting order. */
static bool rows_contiguous(const trn_ap *ap) {
    int64_t expect = 1; /* step, in elements, the next dim out must have */
    for (int d = (int)ap->ndims - 1; d >= 0; --d) {
        if (ap->dims[d].num == 1) continue;
        if (ap->dims[d].step != expect) return false;
        expect *= ap->dims[d].num;
    }
    return true;
}

void trn_ap_view_fill(const trn_ap_env *env, const trn_ap *ap, bool read_only, trn_view *v) {
    trn_memory *m = &env->cores[ap->core].mem[ap->mem];
    uint32_t w = trn_dtype_width(ap->dtype);
    memset(v, 0, sizeof *v);
    v->width = w;
    v->dtype = ap->dtype;
    v->parts = ap->part_count;
    v->part_stride = (int64_t)ap->part_step * (int64_t)m->partition_bytes;
    v->base = m->bytes + trn_mem_addr(m, ap->part_start, 0) + ap->offset * (int64_t)w;
    if (m->n_bound) {
        trn_box box = trn_ap_box(ap);
        const trn_binding *b = read_only ? trn_mem_binding_over(m, box) : NULL;
        if (b) { /* the same elements, in the caller's rows */
            int64_t row = (int64_t)(b->box.b_hi - b->box.b_lo);
            v->part_stride = (int64_t)ap->part_step * row;
            /* a READ view is never written through (plugin.h) */
            v->base = (uint8_t *)(uintptr_t)b->data +
                      (int64_t)(ap->part_start - b->box.p_lo) * row + ap->offset * (int64_t)w -
                      (int64_t)b->box.b_lo;
        } else {
            trn_mem_settle(m, box);
        }
    }
    v->ndims = ap->ndims ? ap->ndims : 1;
    int64_t lo = 0, hi = 0; /* element offsets from base, within a partition */
    for (uint32_t d = 0; d < v->ndims; ++d) {
        v->num[d] = ap->ndims ? ap->dims[d].num : 1;
        v->stride[d] = ap->ndims ? ap->dims[d].step * (int64_t)w : 0;
        int64_t span = v->stride[d] * (v->num[d] - 1);
        if (span < 0)
            lo += span;
        else
            hi += span;
    }
    v->free_elems = trn_ap_free_elems(ap);
    v->lo = v->base + lo;
    v->hi = v->base + (int64_t)(ap->part_count - 1) * v->part_stride + hi + w;
    if (rows_contiguous(ap)) {
        v->flags |= TRN_VIEW_ROWS;
        if (ap->part_count == 1 || v->part_stride == v->free_elems * (int64_t)w)
            v->flags |= TRN_VIEW_BLOCK;
    }
}

typedef struct axis {
    int64_t stride; /* bytes, >= 0 */
    int64_t num;
} axis;

static int by_stride(const void *a, const void *b) {
    int64_t x = ((const axis *)a)->stride, y = ((const axis *)b)->stride;
    return x < y ? -1 : x > y;
}

/* Sorted by stride, each axis must step past everything the axes inside it
 * reach: then every element has its own bytes (the usual sufficient test
 * for a strided layout without overlap). */
bool trn_ap_injective(const trn_ap_env *env, const trn_ap *ap) {
    const trn_memory *m = &env->cores[ap->core].mem[ap->mem];
    axis ax[TRN_AP_MAX_DIMS + 1];
    int n = 0;
    for (uint32_t d = 0; d < ap->ndims; ++d)
        if (ap->dims[d].num > 1)
            ax[n++] = (axis){llabs(ap->dims[d].step) * (int64_t)trn_dtype_width(ap->dtype),
                             ap->dims[d].num};
    if (ap->part_count > 1)
        ax[n++] = (axis){(int64_t)ap->part_step * (int64_t)m->partition_bytes, ap->part_count};
    qsort(ax, (size_t)n, sizeof ax[0], by_stride);
    int64_t extent = trn_dtype_width(ap->dtype);
    for (int i = 0; i < n; ++i) {
        if (ax[i].stride < extent) return false;
        extent = ax[i].stride * (ax[i].num - 1) + extent;
    }
    return true;
}
