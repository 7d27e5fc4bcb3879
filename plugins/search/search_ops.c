/* Handlers of IT 88-91: operands in, kernels per partition row, results out.
 *
 * Every operand is validated (search_operands.c) and every input read
 * before the first write, so a failing instruction writes nothing that the
 * host's own checks could have refused. Writes follow the reference's
 * order: the data output first, then the indices.
 */
#include "search_ops.h"

#include "search_kernels.h"
#include "search_operands.h"
#include "search_rows.h"
#include "search_state.h"

static trn_status reserve(const trn_host_api *api, trn_ctx *ctx, search_state *st, search_op op,
                          const search_operands *o, bool whole_data) {
    if (search_state_reserve(st, o->parts, o->n, whole_data) != 0)
        return api->error(ctx, "%s: out of memory for a %zu x %zu scratch buffer",
                          search_op_name(op), o->parts, o->n);
    return TRN_OK;
}

/* Partition p of an AP alone. Its dense order is row p of the whole AP's,
 * so reading the rows one by one reads exactly what one whole read would;
 * the row is then searched while it is still in cache, instead of after the
 * whole [partitions x n] block has gone through memory twice. */
static trn_ap row_ap(const trn_ap *ap, size_t p) {
    trn_ap r = *ap;
    r.part_start = ap->part_start + (uint32_t)p * ap->part_step;
    r.part_count = 1;
    return r;
}

static trn_status read_row(const trn_host_api *api, trn_ctx *ctx, const trn_ap *ap, size_t p,
                           float *dst) {
    trn_ap r = row_ap(ap, p);
    return api->read_f32(ctx, &r, dst);
}

trn_status search_op_max(const trn_host_api *api, trn_ctx *ctx, void *state) {
    search_state *st = state;
    search_operands o;
    if (search_get_operands(api, ctx, SEARCH_OP_MAX, &o) != TRN_OK) return TRN_ERR;
    if (reserve(api, ctx, st, SEARCH_OP_MAX, &o, false) != TRN_OK) return TRN_ERR;
    search_rows rows;
    if (search_rows_open(api, ctx, &o.data, &rows) != TRN_OK) return TRN_ERR;
    for (size_t p = 0; p < o.parts; ++p) {
        const float *row = search_rows_get(api, ctx, &rows, p, st->row);
        if (!row) return TRN_ERR;
        search_max8_row(row, o.n, st->vals + p * SEARCH_K);
    }
    search_rows_close(api, ctx, &rows);
    return api->write_f32(ctx, &o.vals, st->vals, TRN_ACC_COPY);
}

/* ---- the data output of 90/91 -------------------------------------------------- */

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

/* True when no two elements of the AP share an address: each free dim's
 * step (in |step| order) clears everything the smaller dims span, and the
 * partitions are distinct. Sufficient, not necessary; a false only costs
 * the dense write. */
static bool ap_injective(const trn_ap *ap) {
    if (ap->part_count > 1 && ap->part_step == 0) return false;
    bool used[TRN_AP_MAX_DIMS] = {false};
    int64_t span = 0; /* largest offset reachable with the dims taken so far */
    for (uint32_t taken = 0; taken < ap->ndims; ++taken) {
        int best = -1;
        for (uint32_t d = 0; d < ap->ndims; ++d)
            if (!used[d] && (best < 0 || abs64(ap->dims[d].step) < abs64(ap->dims[best].step)))
                best = (int)d;
        used[best] = true;
        if (ap->dims[best].num <= 1) continue;
        int64_t step = abs64(ap->dims[best].step);
        if (step <= span) return false;
        span += step * (ap->dims[best].num - 1);
    }
    return true;
}

static bool same_ap(const trn_ap *a, const trn_ap *b) {
    if (a->core != b->core || a->mem != b->mem || a->dtype != b->dtype ||
        a->part_start != b->part_start || a->part_count != b->part_count ||
        a->part_step != b->part_step || a->offset != b->offset || a->ndims != b->ndims)
        return false;
    for (uint32_t d = 0; d < a->ndims; ++d)
        if (a->dims[d].step != b->dims[d].step || a->dims[d].num != b->dims[d].num) return false;
    return true;
}

/* In place over fp32 with distinct addresses, the reference rewrites every
 * unmatched element with the bits it just read: only the struck-out
 * elements change, so write just those (a TopK round then moves 8 elements
 * per row instead of the whole row). */
static trn_status write_struck(const trn_host_api *api, trn_ctx *ctx, search_state *st,
                               const search_operands *o, float imm) {
    size_t m = 0;
    for (size_t p = 0; p < o->parts; ++p)
        for (int k = 0; k < SEARCH_K; ++k) {
            uint32_t i = st->idx[p * SEARCH_K + (size_t)k];
            if (i == SEARCH_NOT_FOUND) continue;
            st->pos[m] = (int64_t)(p * o->n + i);
            st->fill[m++] = imm;
        }
    if (m == 0) return TRN_OK;
    bool done;
    trn_status rc = search_store_struck(api, ctx, &o->data_out, st->pos, m, imm, &done);
    if (done || rc != TRN_OK) return rc;
    return api->write_indirect_f32(ctx, &o->data_out, st->pos, m, st->fill, TRN_ACC_COPY);
}

/* True when this instruction may read never-written bytes (its own flag, a
 * parent's, the program's or the config's). Rewriting such an element would
 * mark it written (a later plain read then succeeds, a later accumulate
 * accumulates instead of storing), so it must not be skipped. Without the
 * permission, the successful read proved that every element was written. */
static bool instruction_allows_uninit(const trn_host_api *api, trn_ctx *ctx) {
    return api->uninit_allowed(ctx) != 0;
}

/* The struck-out-only write is exact when data_out is the data AP itself,
 * over fp32 (the bits read are the bits the reference would write back),
 * visiting no address twice (else the last visit would win), and every
 * element was written before. */
static bool write_only_struck(const trn_host_api *api, trn_ctx *ctx, const search_operands *o) {
#ifdef TRNSIM_REF_MODULE
    return false; /* the reference module writes the whole data_out, as the reference does */
#endif
    return o->has_data_out && o->data_out.dtype == TRN_DT_FP32 && same_ap(&o->data_out, &o->data) &&
           ap_injective(&o->data) && !instruction_allows_uninit(api, ctx);
}

static trn_status write_data_out(const trn_host_api *api, trn_ctx *ctx, search_state *st,
                                 const search_operands *o, float imm, bool only_struck) {
    if (only_struck) return write_struck(api, ctx, st, o, imm);
    for (size_t p = 0; p < o->parts; ++p)
        search_replace8_row(st->data + p * o->n, st->idx + p * SEARCH_K, imm);
    return api->write_f32(ctx, &o->data_out, st->data, TRN_ACC_COPY);
}

/* ---- 89, 90, 91 --------------------------------------------------------------- */

static trn_status run_match(const trn_host_api *api, trn_ctx *ctx, search_state *st, search_op op) {
    search_operands o;
    float imm = 0.0f;
    if (search_get_operands(api, ctx, op, &o) != TRN_OK) return TRN_ERR;
    if (o.has_data_out && search_get_imm(api, ctx, op, &imm) != TRN_OK) return TRN_ERR;
    /* the whole data is kept only when the whole data_out gets written */
    bool only_struck = write_only_struck(api, ctx, &o);
    bool whole = o.has_data_out && !only_struck;
    if (reserve(api, ctx, st, op, &o, whole) != TRN_OK) return TRN_ERR;
    if (api->read_f32(ctx, &o.vals, st->vals) != TRN_OK) return TRN_ERR;
    if (whole) {
        for (size_t p = 0; p < o.parts; ++p) {
            float *row = st->data + p * o.n;
            if (read_row(api, ctx, &o.data, p, row) != TRN_OK) return TRN_ERR;
            search_find8_row(row, o.n, st->vals + p * SEARCH_K, st->order, st->idx + p * SEARCH_K);
        }
    } else {
        search_rows rows;
        if (search_rows_open(api, ctx, &o.data, &rows) != TRN_OK) return TRN_ERR;
        for (size_t p = 0; p < o.parts; ++p) {
            const float *row = search_rows_get(api, ctx, &rows, p, st->row);
            if (!row) return TRN_ERR;
            search_find8_row(row, o.n, st->vals + p * SEARCH_K, st->order, st->idx + p * SEARCH_K);
        }
        search_rows_close(api, ctx, &rows);
    }
    if (o.has_data_out && write_data_out(api, ctx, st, &o, imm, only_struck) != TRN_OK)
        return TRN_ERR;
    if (o.has_idx) return api->write_raw(ctx, &o.idx, st->idx);
    return TRN_OK;
}

trn_status search_op_max_index(const trn_host_api *api, trn_ctx *ctx, void *state) {
    return run_match(api, ctx, state, SEARCH_OP_MAX_INDEX);
}

trn_status search_op_match_replace(const trn_host_api *api, trn_ctx *ctx, void *state) {
    return run_match(api, ctx, state, SEARCH_OP_MATCH_REPLACE);
}

trn_status search_op_max_index_match_replace(const trn_host_api *api, trn_ctx *ctx, void *state) {
    return run_match(api, ctx, state, SEARCH_OP_MAX_INDEX_MR);
}

/* ---- static checks ------------------------------------------------------------ */

static trn_status check(const trn_host_api *api, trn_ctx *ctx, search_op op) {
    search_operands o;
    float imm;
    if (search_get_operands(api, ctx, op, &o) != TRN_OK) return TRN_ERR;
    return o.has_data_out ? search_get_imm(api, ctx, op, &imm) : TRN_OK;
}

trn_status search_check_max(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)state;
    return check(api, ctx, SEARCH_OP_MAX);
}

trn_status search_check_max_index(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)state;
    return check(api, ctx, SEARCH_OP_MAX_INDEX);
}

trn_status search_check_match_replace(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)state;
    return check(api, ctx, SEARCH_OP_MATCH_REPLACE);
}

trn_status search_check_max_index_match_replace(const trn_host_api *api, trn_ctx *ctx,
                                                void *state) {
    (void)state;
    return check(api, ctx, SEARCH_OP_MAX_INDEX_MR);
}
