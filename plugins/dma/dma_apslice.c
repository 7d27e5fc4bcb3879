/* Dense range -> sub-APs (see dma_apslice.h). Level 0 is the partition
 * level, level l >= 1 is dims[l-1]. */
#include "dma_apslice.h"

typedef struct slicer {
    int levels;
    int64_t num[TRN_AP_MAX_DIMS + 1];
    int64_t inner[TRN_AP_MAX_DIMS + 1]; /* elements under one index of the level */
    trn_ap *out;
    int k;
} slicer;

/* Restrict level l of a to indices [s, e). */
static void set_range(trn_ap *a, int l, int64_t s, int64_t e) {
    if (l == 0) {
        a->part_start += (uint32_t)s * a->part_step;
        a->part_count = (uint32_t)(e - s);
    } else {
        a->offset += s * a->dims[l - 1].step;
        a->dims[l - 1].num = e - s;
    }
}

static void emit(slicer *sl, const trn_ap *cur, int l, int64_t s, int64_t e) {
    trn_ap a = *cur;
    set_range(&a, l, s, e);
    sl->out[sl->k++] = a;
}

/* Elements [a, b) of the sub-array at level l (levels < l already fixed in
 * cur, levels >= l full). */
static void slice(slicer *sl, const trn_ap *cur, int l, int64_t a, int64_t b) {
    int64_t in = sl->inner[l];
    if (a == 0 && b == sl->num[l] * in) {
        sl->out[sl->k++] = *cur;
        return;
    }
    if (l == sl->levels - 1) { /* innermost: in == 1 */
        emit(sl, cur, l, a, b);
        return;
    }
    int64_t i0 = a / in, i1 = (b - 1) / in;
    trn_ap t;
    if (i0 == i1) {
        t = *cur;
        set_range(&t, l, i0, i0 + 1);
        slice(sl, &t, l + 1, a - i0 * in, b - i0 * in);
        return;
    }
    if (a % in) { /* partial head row */
        t = *cur;
        set_range(&t, l, i0, i0 + 1);
        slice(sl, &t, l + 1, a % in, in);
        ++i0;
    }
    int64_t iend = (b % in) ? i1 : i1 + 1;
    if (iend > i0) emit(sl, cur, l, i0, iend); /* whole rows */
    if (b % in) {                              /* partial tail row */
        t = *cur;
        set_range(&t, l, i1, i1 + 1);
        slice(sl, &t, l + 1, 0, b % in);
    }
}

int dma_ap_slice(const trn_ap *ap, int64_t start, int64_t count, trn_ap out[DMA_SLICE_MAX]) {
    if (count <= 0) return 0;
    slicer sl = {.levels = 1 + (int)ap->ndims, .out = out, .k = 0};
    sl.num[0] = ap->part_count;
    for (uint32_t d = 0; d < ap->ndims; ++d) sl.num[d + 1] = ap->dims[d].num;
    sl.inner[sl.levels - 1] = 1;
    for (int l = sl.levels - 2; l >= 0; --l) sl.inner[l] = sl.inner[l + 1] * sl.num[l + 1];
    slice(&sl, ap, 0, start, start + count);
    return sl.k;
}
