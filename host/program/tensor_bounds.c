/* Operands stay inside their tensor (docs/programs.md, "Operands"): every
 * element an operand that names a tensor visits must lie in that tensor's
 * partitions and bytes. A quick test of the AP's extremes passes almost
 * every operand; only a failing one is walked to name its first element
 * outside. */
#include "program/program.h"

#include <inttypes.h>
#include <stdio.h>

#include "arith/arith.h"

typedef struct extent {
    uint32_t part_lo, part_hi; /* partitions [lo, hi) */
    int64_t byte_lo, byte_hi;  /* bytes [lo, hi) in each partition */
} extent;

static extent extent_of(const trn_tensor *t) {
    int64_t w = trn_dtype_width(t->dtype);
    int64_t per_part = t->mem == TRN_MEM_HBM ? t->count : t->count / t->shape[0];
    return (extent){t->ap.part_start, t->ap.part_start + t->ap.part_count, t->offset_bytes,
                    t->offset_bytes + per_part * w};
}

static bool byte_inside(const extent *x, __int128 elem, int64_t w) {
    return elem * w >= x->byte_lo && (elem + 1) * w <= x->byte_hi;
}

static bool part_inside(const extent *x, __int128 part) {
    return part >= x->part_lo && part < x->part_hi;
}

/* The AP's lowest and highest element offsets in a partition. */
static void free_range(const trn_ap *ap, __int128 *lo, __int128 *hi) {
    *lo = *hi = ap->offset;
    for (uint32_t d = 0; d < ap->ndims; ++d) {
        __int128 span = (__int128)ap->dims[d].step * (ap->dims[d].num - 1);
        if (span < 0)
            *lo += span;
        else
            *hi += span;
    }
}

bool trn_tensor_holds_ap(const trn_tensor *t, const trn_ap *ap) {
    extent x = extent_of(t);
    int64_t w = trn_dtype_width(ap->dtype);
    __int128 lo, hi;
    free_range(ap, &lo, &hi);
    __int128 last_part = (__int128)ap->part_start + (__int128)(ap->part_count - 1) * ap->part_step;
    return ap->mem == t->mem && w > 0 && ap->part_count > 0 && part_inside(&x, ap->part_start) &&
           part_inside(&x, last_part) && byte_inside(&x, lo, w) && byte_inside(&x, hi, w);
}

/* The first element in visiting order outside x: its flat index, partition
 * and element offset. */
static int64_t first_outside(const extent *x, const trn_ap *ap, int64_t w, __int128 *part,
                             __int128 *elem) {
    int64_t free_n = trn_ap_free_elems(ap), k = 0;
    for (uint32_t p = 0; p < ap->part_count; ++p) {
        *part = (__int128)ap->part_start + (__int128)p * ap->part_step;
        for (int64_t i = 0; i < free_n; ++i, ++k) {
            int64_t rest = i;
            *elem = ap->offset;
            for (int d = (int)ap->ndims - 1; d >= 0; --d) {
                *elem += (__int128)(rest % ap->dims[d].num) * ap->dims[d].step;
                rest /= ap->dims[d].num;
            }
            if (!part_inside(x, *part) || !byte_inside(x, *elem, w)) return k;
        }
    }
    return -1;
}

/* The tensor (other than skip) that holds this byte, or NULL; a view
 * (view_of) only when no allocated tensor does. */
static int owner_of(const trn_program *p, int skip, trn_mem mem, __int128 part, __int128 byte) {
    int view = -1;
    for (int i = 0; i < p->n_tensors; ++i) {
        const trn_tensor *t = &p->tensors[i];
        extent x = extent_of(t);
        if (i == skip || t->mem != mem || !part_inside(&x, part) || byte < x.byte_lo ||
            byte >= x.byte_hi)
            continue;
        if (!t->view_of) return i;
        if (view < 0) view = i;
    }
    return view;
}

const trn_tensor *trn_tensor_at(const trn_program *p, trn_mem mem, uint64_t part, uint64_t byte,
                                int64_t *element) {
    int i = owner_of(p, -1, mem, mem == TRN_MEM_HBM ? 0 : part, byte);
    if (i < 0) return NULL;
    const trn_tensor *t = &p->tensors[i];
    extent x = extent_of(t);
    int64_t w = trn_dtype_width(t->dtype);
    int64_t per_part = (x.byte_hi - x.byte_lo) / w;
    *element = (int64_t)(mem == TRN_MEM_HBM ? 0 : part - x.part_lo) * per_part +
               ((int64_t)byte - x.byte_lo) / w;
    return t;
}

int trn_tensor_check_ap(const trn_program *p, int tensor, const trn_ap *ap, trn_error *e) {
    const trn_tensor *t = &p->tensors[tensor];
    if (trn_tensor_holds_ap(t, ap)) return 0;
    extent x = extent_of(t);
    int64_t w = trn_dtype_width(ap->dtype);
    if (ap->mem != t->mem || w == 0)
        return 0; /* not a view of this tensor's memory: the memory check decides */
    __int128 part = 0, elem = 0;
    int64_t k = first_outside(&x, ap, w, &part, &elem);
    if (k < 0) return 0; /* the extremes were outside, no element is (a step-0 or empty dim) */
    char also[300] = "";
    int o = owner_of(p, tensor, t->mem, part, elem * w);
    if (o >= 0) snprintf(also, sizeof also, ", inside tensor '%s'", p->tensors[o].name);
    char parts[64];
    if (t->mem == TRN_MEM_HBM)
        snprintf(parts, sizeof parts, "hbm");
    else
        snprintf(parts, sizeof parts, "partitions %u..%u of %s", x.part_lo, x.part_hi - 1,
                 trn_mem_names[t->mem]);
    return trn_errorf(e,
                      "leaves tensor '%s': element %" PRId64 " (partition %" PRId64
                      ", bytes %" PRId64 "..%" PRId64
                      "%s) is outside the tensor, which holds %s, bytes %" PRId64 "..%" PRId64
                      "; for a deliberate "
                      "overlap declare a view (\"view_of\") or use a raw memory operand",
                      t->name, k, (int64_t)part, (int64_t)(elem * w), (int64_t)(elem * w + w - 1),
                      also, parts, x.byte_lo, x.byte_hi - 1);
}

void trn_tensor_coords(const trn_tensor *t, int64_t el, char *buf, size_t len) {
    size_t n = 0;
    int64_t rest = el, stride = t->count;
    buf[0] = 0;
    for (int d = 0; d < t->ndim && n < len; ++d) { /* C order, as the tensor's shape */
        stride /= t->shape[d];
        n += (size_t)snprintf(buf + n, len - n, "%s%" PRId64, d ? ", " : "[", rest / stride);
        rest %= stride;
    }
    if (n < len) snprintf(buf + n, len - n, "]");
}

void trn_tensor_name_byte(const void *program, uint32_t mem, uint64_t part, uint64_t byte,
                          char *buf, size_t len) {
    int64_t el;
    const trn_tensor *t = trn_tensor_at(program, (trn_mem)mem, part, byte, &el);
    buf[0] = 0;
    if (!t) return;
    char index[160];
    trn_tensor_coords(t, el, index, sizeof index);
    snprintf(
        buf, len,
        "element %" PRId64
        " %s of tensor '%s'; give the tensor data with --input %s=FILE.npy, or 'data' "
        "or 'fill' in the program, or write it first (allow_uninit_read = true allows such reads)",
        el, index, t->name, t->name);
}
