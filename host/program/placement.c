/* Where a tensor sits: whether it fits the machine, its bytes per
 * partition and its own access pattern. Both readers place tensors and
 * allocations through these, so a native tensor and a BIR allocation of the
 * same shape land on the same bytes with the same messages. */
#include <inttypes.h>
#include <string.h>

#include "arith/arith.h"
#include "program/program.h"

/* The tensor's own AP: partitions x row-major free shape. */
void trn_tensor_ap(trn_tensor *x) {
    trn_ap *ap = &x->ap;
    memset(ap, 0, sizeof *ap);
    ap->mem = x->mem;
    ap->dtype = x->dtype;
    int first = x->mem == TRN_MEM_HBM ? 0 : 1;
    ap->part_start = x->partition;
    ap->part_count = x->mem == TRN_MEM_HBM ? 1 : (uint32_t)x->shape[0];
    ap->part_step = 1;
    ap->offset = x->offset_bytes / (int64_t)trn_dtype_width(x->dtype);
    int64_t step = 1;
    ap->ndims = (uint32_t)(x->ndim - first);
    for (int d = x->ndim - 1; d >= first; --d) {
        ap->dims[d - first].step = step;
        ap->dims[d - first].num = x->shape[d];
        step *= x->shape[d];
    }
    if (ap->ndims == 0) {
        ap->ndims = 1;
        ap->dims[0].step = 1;
        ap->dims[0].num = 1;
    }
}

uint64_t trn_tensor_mem_limit(const trn_machine *m, trn_mem mem) {
    return mem == TRN_MEM_SBUF   ? m->sbuf_partition_bytes
           : mem == TRN_MEM_PSUM ? m->psum_partition_bytes
                                 : m->hbm_bytes;
}

int trn_tensor_check_placement(const trn_tensor *x, const trn_machine *m, const char *where,
                               trn_error *e) {
    uint32_t w = trn_dtype_width(x->dtype);
    if (x->mem != TRN_MEM_HBM && x->shape[0] > m->partitions)
        return trn_errorf(e, "%s: %" PRId64 " partitions, the machine has %u", where, x->shape[0],
                          m->partitions);
    if (x->mem != TRN_MEM_HBM && x->partition + x->shape[0] > m->partitions)
        return trn_errorf(e, "%s: partitions %u..%" PRId64 " exceed the machine's %u", where,
                          x->partition, x->partition + x->shape[0] - 1, m->partitions);
    if (x->offset_bytes % w)
        return trn_errorf(e, "%s: offset %" PRId64 " is not a multiple of the %u-byte dtype", where,
                          x->offset_bytes, w);
    /* offset_bytes <= INT64_MAX and bytes <= 2^43: their sum fits uint64. */
    uint64_t end = (uint64_t)x->offset_bytes + (uint64_t)trn_tensor_row_bytes(x);
    if (end > trn_tensor_mem_limit(m, x->mem))
        return trn_errorf(
            e, "%s: needs bytes %" PRId64 "..%" PRIu64 " of %s, which has %" PRIu64 "%s", where,
            x->offset_bytes, end - 1, trn_mem_names[x->mem], trn_tensor_mem_limit(m, x->mem),
            x->mem == TRN_MEM_HBM ? "" : " per partition");
    return 0;
}

int64_t trn_tensor_row_bytes(const trn_tensor *x) {
    return (x->mem == TRN_MEM_HBM ? x->count : x->count / x->shape[0]) * trn_dtype_width(x->dtype);
}
