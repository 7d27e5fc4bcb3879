/* DMACopy mode 0 with a vector dynamic offset (HW-DGE): the per-element
 * address vector is an index operand; gather reads the table at those
 * indices, scatter writes it there with reduce-on-write
 * (AluOpType2MemoryReduction: bypass -> copy, add -> add).
 *
 * Operands: inputs [data-or-table, indices], outputs [table-or-data]:
 *   gather:  inputs [table, indices] -> outputs [dst]
 *   scatter: inputs [src, indices]   -> outputs [table]
 * Index j selects row idx[j] of the table, a row being elems_per_index
 * consecutive elements of the table's visiting order. */
#include <inttypes.h>
#include <string.h>

#include "dma_state.h"

typedef struct indirect {
    bool gather;
    trn_acc_op op;
    int64_t row, rows, nidx;
    trn_ap table, data, idx;
} indirect;

static trn_status parse(const trn_host_api *api, trn_ctx *ctx, dma_state *st, const char *kind,
                        indirect *x) {
    const char *what;
    if (!strcmp(kind, "gather"))
        x->gather = true, what = "gather";
    else if (!strcmp(kind, "scatter"))
        x->gather = false, what = "scatter";
    else
        return api->error(ctx, "'indirect' must be \"gather\" or \"scatter\", found \"%s\"", kind);
    if (dma_expect_operands(api, ctx, 2, 2, 1)) return TRN_ERR;
    if (api->attr(ctx, "accumulate"))
        return api->error(
            ctx,
            "%s: an indirect copy reduces on write through 'reduce_op' (0 bypass, 4 add), not "
            "'accumulate'",
            what);
    int64_t aluop = DMA_ALU_BYPASS;
    if (api->attr_int(ctx, "reduce_op", &aluop) == TRN_BADTYPE) return TRN_ERR;
    char err[256];
    if (dma_aluop_to_memop(aluop, st->allow_minmax, &x->op, err, sizeof err))
        return api->error(ctx, "%s: %s", what, err);
    x->row = 1;
    if (api->attr_int(ctx, "elems_per_index", &x->row) == TRN_BADTYPE) return TRN_ERR;
    if (x->row < 1)
        return api->error(ctx, "%s: elems_per_index is %" PRId64 " (expected >= 1)", what, x->row);
    trn_ap in0, out0;
    if (api->operand(ctx, TRN_IN, 0, &in0) || api->operand(ctx, TRN_IN, 1, &x->idx) ||
        api->operand(ctx, TRN_OUT, 0, &out0))
        return TRN_ERR;
    x->table = x->gather ? in0 : out0;
    x->data = x->gather ? out0 : in0;
    if (!dma_index_dtype_ok(x->idx.dtype))
        return api->error(ctx,
                          "%s: the index operand (inputs[1]) must have an integer dtype, found %s",
                          what, api->dtype_name(x->idx.dtype));
    int64_t tn = trn_ap_elems(&x->table);
    if (tn % x->row)
        return api->error(ctx,
                          "%s: the table has %" PRId64 " elements, not a whole number of %" PRId64
                          "-element rows",
                          what, tn, x->row);
    x->rows = tn / x->row;
    x->nidx = trn_ap_elems(&x->idx);
    int64_t dn = trn_ap_elems(&x->data);
    if (dn != x->nidx * x->row)
        return api->error(ctx,
                          "%s: %" PRId64 " indices x %" PRId64 " elements per index need %" PRId64
                          " elements, the %s has %" PRId64,
                          what, x->nidx, x->row, x->nidx * x->row,
                          x->gather ? "destination" : "source", dn);
    uint32_t sdt = x->gather ? x->table.dtype : x->data.dtype,
             ddt = x->gather ? x->data.dtype : x->table.dtype;
    return dma_check_cast(api, ctx, what, sdt, ddt, x->op != TRN_ACC_COPY);
}

/* Same dtype on both sides: raw elements (the reference's memcpy and
 * cast_copy_or_accumulate in that dtype). Otherwise fp32 (widen, then
 * narrow RNE into the destination's dtype). */
static trn_status gather(const trn_host_api *api, trn_ctx *ctx, dma_state *st, const indirect *x,
                         const int64_t *eidx, bool raw) {
    size_t n = (size_t)(x->nidx * x->row);
    size_t w = raw ? api->dtype_width(x->table.dtype) : sizeof(float);
    void *buf = dma_scratch(st, 0, n * w);
    if (!buf) return api->error(ctx, "gather: out of memory for %zu elements", n);
    if (raw) {
        if (api->read_indirect_raw(ctx, &x->table, eidx, n, buf)) return TRN_ERR;
        return x->op == TRN_ACC_COPY ? api->write_raw(ctx, &x->data, buf)
                                     : api->write_raw_op(ctx, &x->data, buf, x->op);
    }
    if (api->read_indirect_f32(ctx, &x->table, eidx, n, buf)) return TRN_ERR;
    return api->write_f32(ctx, &x->data, buf, x->op);
}

/* Elements are applied in index order, so a repeated index accumulates
 * (add) or the later value wins (bypass), as in the reference. */
static trn_status scatter(const trn_host_api *api, trn_ctx *ctx, dma_state *st, const indirect *x,
                          const int64_t *eidx, bool raw) {
    size_t n = (size_t)(x->nidx * x->row);
    size_t w = raw ? api->dtype_width(x->data.dtype) : sizeof(float);
    void *buf = dma_scratch(st, 0, n * w);
    if (!buf) return api->error(ctx, "scatter: out of memory for %zu elements", n);
    if (raw) {
        if (api->read_raw(ctx, &x->data, buf)) return TRN_ERR;
        return api->write_indirect_raw(ctx, &x->table, eidx, n, buf, x->op);
    }
    if (api->read_f32(ctx, &x->data, buf)) return TRN_ERR;
    return api->write_indirect_f32(ctx, &x->table, eidx, n, buf, x->op);
}

trn_status dma_mode_indirect(const trn_host_api *api, trn_ctx *ctx, dma_state *st,
                             const char *kind) {
    indirect x;
    if (parse(api, ctx, st, kind, &x)) return TRN_ERR;
    if (st->dry_run || api->checking(ctx)) return TRN_OK;
    const char *what = x.gather ? "gather" : "scatter";
    size_t iw = api->dtype_width(x.idx.dtype);
    void *raw_idx = dma_scratch(st, 2, (size_t)x.nidx * iw);
    int64_t *eidx = dma_scratch(st, 3, (size_t)(x.nidx * x.row) * sizeof(int64_t));
    if (!raw_idx || !eidx)
        return api->error(ctx, "%s: out of memory for %" PRId64 " indices", what, x.nidx);
    if (api->read_raw(ctx, &x.idx, raw_idx)) return TRN_ERR;
    char err[256];
    if (dma_expand_indices((trn_dtype)x.idx.dtype, raw_idx, (size_t)x.nidx, x.row, x.rows, eidx,
                           err, sizeof err))
        return api->error(ctx, "%s: %s", what, err);
    bool raw = x.table.dtype == x.data.dtype;
    return x.gather ? gather(api, ctx, st, &x, eidx, raw) : scatter(api, ctx, st, &x, eidx, raw);
}
