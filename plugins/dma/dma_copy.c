/* Plain copies, transpose, replicate, and the DMACopy mode switch: every
 * one is read-source-AP -> dense buffer -> write-destination-AP.
 *
 * Path choice (docs/dma.md "Same dtype, cast, accumulate"): equal source
 * and destination dtypes move raw elements (the reference's memcpy, or
 * cast_copy_or_accumulate(add) in that dtype: bit for bit, NaN payloads and
 * 64-bit integers included); differing dtypes widen the source to fp32 and
 * narrow it (RNE) into the destination's dtype, then copy or add. */
#include <inttypes.h>
#include <stdio.h>

#include "dma_apslice.h"
#include "dma_direct.h"
#include "dma_state.h"

static trn_status read_dense(const trn_host_api *api, trn_ctx *ctx, const trn_ap *src, void *buf,
                             bool raw) {
    return raw ? api->read_raw(ctx, src, buf) : api->read_f32(ctx, src, buf);
}

/* Bytes of one dense element on the chosen path. */
static size_t dense_width(const trn_host_api *api, const trn_ap *ap, bool raw) {
    return raw ? api->dtype_width(ap->dtype) : sizeof(float);
}

static trn_status no_memory(const trn_host_api *api, trn_ctx *ctx, const char *what, int64_t n) {
    return api->error(ctx, "%s: out of memory for a buffer of %" PRId64 " elements", what, n);
}

/* The one-input one-output shape every non-CCE mode shares. */
static trn_status src_dst(const trn_host_api *api, trn_ctx *ctx, trn_ap *src, trn_ap *dst,
                          bool *acc) {
    if (dma_expect_operands(api, ctx, 1, 1, 1)) return TRN_ERR;
    if (api->operand(ctx, TRN_IN, 0, src) || api->operand(ctx, TRN_OUT, 0, dst)) return TRN_ERR;
    return dma_attr_bool(api, ctx, "accumulate", false, acc);
}

/* ---- mode 0, direct ---- */

/* Same dtype: the host copies AP to AP (copy_raw: one memmove per pair of
 * contiguous runs, every check before the first write, overlap-safe).
 *
 * A cast whose fp32 buffer would reach DMA_CHUNK_MIN bytes, between APs
 * that do not overlap, goes through the scratch buffer in DMA_CHUNK_BYTES
 * pieces (sub-APs of the dense range, dma_apslice.c), so the buffer stays in
 * cache and its size stays bounded however many elements the operands have
 * (these opcodes are TRN_OPF_STREAMS: below DMA_CHUNK_MIN the whole buffer
 * is under TRN_STREAM_PIECE_BYTES). check_ap validates both whole APs
 * (bounds, the uninit guard) first, so a failure still leaves nothing
 * written. Overlapping APs keep the whole-buffer path: the reference reads
 * the entire source before it writes (the host charges them whole). */
#ifdef TRNSIM_REF_MODULE
#define DMA_CHUNK_MIN SIZE_MAX /* the reference module casts in one piece */
#else
#define DMA_CHUNK_MIN TRN_STREAM_PIECE_BYTES
#endif
#define DMA_CHUNK_BYTES (256u << 10)

static void elem_extent(const trn_ap *ap, int64_t *lo, int64_t *hi) {
    *lo = *hi = ap->offset;
    for (uint32_t d = 0; d < ap->ndims; ++d) {
        int64_t span = ap->dims[d].step * (ap->dims[d].num - 1);
        if (span < 0)
            *lo += span;
        else
            *hi += span;
    }
}

/* Conservative: true unless the partition ranges or the byte ranges are
 * disjoint (or the memories differ). */
static bool may_overlap(const trn_host_api *api, const trn_ap *a, const trn_ap *b) {
    if (a->core != b->core || a->mem != b->mem) return false;
    uint64_t a0 = a->part_start, a1 = a0 + (uint64_t)(a->part_count - 1) * a->part_step;
    uint64_t b0 = b->part_start, b1 = b0 + (uint64_t)(b->part_count - 1) * b->part_step;
    if (a1 < b0 || b1 < a0) return false;
    int64_t alo, ahi, blo, bhi;
    elem_extent(a, &alo, &ahi);
    elem_extent(b, &blo, &bhi);
    int64_t wa = api->dtype_width(a->dtype), wb = api->dtype_width(b->dtype);
    return !(alo * wa > bhi * wb + wb - 1 || blo * wb > ahi * wa + wa - 1);
}

static trn_status chunked_cast(const trn_host_api *api, trn_ctx *ctx, dma_state *st,
                               const trn_ap *src, const trn_ap *dst, int64_t n, bool acc) {
    if (api->check_ap(ctx, src, TRN_IN) || api->check_ap(ctx, dst, TRN_OUT)) return TRN_ERR;
    const int64_t chunk = (int64_t)(DMA_CHUNK_BYTES / sizeof(float));
    api->log(ctx, TRN_LOG_TRACE, "copy: %" PRId64 " elements in chunks of %" PRId64, n, chunk);
    float *buf = dma_scratch(st, 1, (size_t)chunk * sizeof(float));
    if (!buf) return no_memory(api, ctx, "copy", chunk);
    trn_ap piece[DMA_SLICE_MAX];
    for (int64_t a = 0; a < n; a += chunk) {
        int64_t c = n - a < chunk ? n - a : chunk;
        float *p = buf;
        int k = dma_ap_slice(src, a, c, piece);
        for (int i = 0; i < k; p += trn_ap_elems(&piece[i]), ++i)
            if (api->read_f32(ctx, &piece[i], p)) return TRN_ERR;
        p = buf;
        k = dma_ap_slice(dst, a, c, piece);
        for (int i = 0; i < k; p += trn_ap_elems(&piece[i]), ++i)
            if (dma_write_dense(api, ctx, &piece[i], p, false, acc)) return TRN_ERR;
    }
    return TRN_OK;
}

/* reduce_op belongs to indirect copies and CCE; elsewhere it would be
 * silently ignored, so it is refused. */
static trn_status no_reduce_op(const trn_host_api *api, trn_ctx *ctx, const char *what) {
    if (api->attr(ctx, "reduce_op"))
        return api->error(
            ctx,
            "%s: reduce_op applies to indirect copies and CCE; a %s adds with \"accumulate\": true",
            what, what);
    return TRN_OK;
}

static trn_status direct_copy(const trn_host_api *api, trn_ctx *ctx, dma_state *st) {
    const char *what = "copy";
    trn_ap src, dst;
    bool acc;
    if (src_dst(api, ctx, &src, &dst, &acc) || no_reduce_op(api, ctx, what)) return TRN_ERR;
    int64_t n = trn_ap_elems(&src), m = trn_ap_elems(&dst);
    if (n != m)
        return api->error(
            ctx,
            "copy: the source has %" PRId64 " elements (%u partitions x %" PRId64
            "), the destination %" PRId64 " (%u x %" PRId64 "); the counts must match",
            n, src.part_count, trn_ap_free_elems(&src), m, dst.part_count, trn_ap_free_elems(&dst));
    if (dma_check_cast(api, ctx, what, src.dtype, dst.dtype, acc)) return TRN_ERR;
    if (st->dry_run || api->checking(ctx)) return TRN_OK;
    if (src.dtype == dst.dtype && !acc) {
        bool done;
        trn_status rc = dma_direct_copy(api, ctx, &src, &dst, &done);
        if (done) return rc;
    }
    if (src.dtype == dst.dtype)
        return api->copy_raw(ctx, &dst, &src, acc ? TRN_ACC_ADD : TRN_ACC_COPY);
    if ((size_t)n * sizeof(float) >= DMA_CHUNK_MIN && !may_overlap(api, &src, &dst))
        return chunked_cast(api, ctx, st, &src, &dst, n, acc);
    float *buf = dma_scratch(st, 0, (size_t)n * sizeof(float));
    if (!buf) return no_memory(api, ctx, what, n);
    if (api->read_f32(ctx, &src, buf)) return TRN_ERR;
    return dma_write_dense(api, ctx, &dst, buf, false, acc);
}

trn_status dma_mode_copy(const trn_host_api *api, trn_ctx *ctx, dma_state *st) {
    const char *kind;
    trn_lookup r = api->attr_string(ctx, "indirect", &kind);
    if (r == TRN_BADTYPE) return TRN_ERR;
    if (r == TRN_FOUND) return dma_mode_indirect(api, ctx, st, kind);
    return direct_copy(api, ctx, st);
}

/* ---- mode 1, transpose ---- */

/* The source's WZYX shape: the 'shape' attribute (1..4 extents, padded with
 * leading 1s), or else the partition count and free dims of the source AP
 * with every extent-1 axis dropped, padded the same way. */
static trn_status transpose_shape(const trn_host_api *api, trn_ctx *ctx, const trn_ap *src,
                                  int64_t shape[4]) {
    int64_t given[4];
    size_t ng = 0;
    trn_lookup r = api->attr_int_array(ctx, "shape", given, 4, &ng);
    if (r == TRN_BADTYPE) return TRN_ERR;
    if (r == TRN_FOUND) {
        if (ng == 0) return api->error(ctx, "transpose: 'shape' needs 1 to 4 extents, found none");
        for (size_t i = 0; i < ng; ++i)
            if (given[i] < 1)
                return api->error(ctx,
                                  "transpose: 'shape' extent %zu is %" PRId64 " (expected >= 1)", i,
                                  given[i]);
    } else {
        int64_t axes[1 + TRN_AP_MAX_DIMS];
        size_t na = 0;
        axes[na++] = src->part_count;
        for (uint32_t d = 0; d < src->ndims; ++d) axes[na++] = src->dims[d].num;
        for (size_t i = 0; i < na; ++i)
            if (axes[i] > 1) {
                if (ng == 4)
                    return api->error(
                        ctx, "transpose: the source has more than four axes longer than 1; give "
                             "'shape' ([W, Z, Y, X])");
                given[ng++] = axes[i];
            }
    }
    for (size_t k = 0; k < 4; ++k) shape[k] = k < 4 - ng ? 1 : given[k - (4 - ng)];
    return TRN_OK;
}

static trn_status transpose_perm(const trn_host_api *api, trn_ctx *ctx, int perm[4]) {
    int64_t p[4];
    size_t n = 0;
    trn_lookup r = api->attr_int_array(ctx, "perm", p, 4, &n);
    if (r == TRN_BADTYPE) return TRN_ERR;
    if (r == TRN_ABSENT)
        return api->error(
            ctx,
            "transpose: needs 'perm', 4 source axes (0 W, 1 Z, 2 Y, 3 X) in destination order");
    if (n != 4 || !dma_perm_valid(p)) {
        char got[96] = "";
        int off = 0;
        for (size_t i = 0; i < n && off < (int)sizeof got - 24; ++i)
            off += snprintf(got + off, sizeof got - (size_t)off, "%s%" PRId64, i ? ", " : "", p[i]);
        return api->error(
            ctx, "transpose: 'perm' must be a permutation of [0, 1, 2, 3], found [%s]", got);
    }
    for (int k = 0; k < 4; ++k) perm[k] = (int)p[k];
    return TRN_OK;
}

trn_status dma_mode_transpose(const trn_host_api *api, trn_ctx *ctx, dma_state *st) {
    const char *what = "transpose";
    trn_ap src, dst;
    bool acc;
    int perm[4];
    int64_t shape[4];
    if (src_dst(api, ctx, &src, &dst, &acc) || no_reduce_op(api, ctx, what) ||
        transpose_perm(api, ctx, perm) || transpose_shape(api, ctx, &src, shape))
        return TRN_ERR;
    int64_t n = trn_ap_elems(&src), m = trn_ap_elems(&dst);
    int64_t prod = shape[0] * shape[1] * shape[2] * shape[3];
    if (prod != n)
        return api->error(ctx,
                          "transpose: 'shape' [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
                          "] holds %" PRId64 " elements, the source %" PRId64,
                          shape[0], shape[1], shape[2], shape[3], prod, n);
    if (m != n)
        return api->error(ctx,
                          "transpose: the source has %" PRId64 " elements, the destination %" PRId64
                          "; the counts must match",
                          n, m);
    if (dma_check_cast(api, ctx, what, src.dtype, dst.dtype, acc)) return TRN_ERR;
    if (st->dry_run || api->checking(ctx)) return TRN_OK;
    bool raw = src.dtype == dst.dtype;
    if (raw && !acc) {
        bool done;
        trn_status rc = dma_direct_transpose(api, ctx, st, &src, &dst, shape, perm, &done);
        if (done) return rc;
    }
    size_t w = dense_width(api, &src, raw);
    void *in = dma_scratch(st, 0, (size_t)n * w), *out = dma_scratch(st, 1, (size_t)n * w);
    if (!in || !out) return no_memory(api, ctx, what, n);
    if (read_dense(api, ctx, &src, in, raw)) return TRN_ERR;
    dma_transpose(in, out, w, shape, perm);
    return dma_write_dense(api, ctx, &dst, out, raw, acc);
}

/* ---- mode 3, replicate ---- */

trn_status dma_mode_replicate(const trn_host_api *api, trn_ctx *ctx, dma_state *st) {
    const char *what = "replicate";
    trn_ap src, dst;
    bool acc;
    if (src_dst(api, ctx, &src, &dst, &acc) || no_reduce_op(api, ctx, what)) return TRN_ERR;
    int64_t n = trn_ap_elems(&src), per = trn_ap_free_elems(&dst);
    if (per != n)
        return api->error(ctx,
                          "replicate: every destination partition receives the whole source: the "
                          "source has %" PRId64
                          " elements, each of the %u destination partitions %" PRId64,
                          n, dst.part_count, per);
    if (dma_check_cast(api, ctx, what, src.dtype, dst.dtype, acc)) return TRN_ERR;
    if (st->dry_run || api->checking(ctx)) return TRN_OK;
    bool raw = src.dtype == dst.dtype;
    size_t w = dense_width(api, &src, raw);
    void *in = dma_scratch(st, 0, (size_t)n * w),
         *out = dma_scratch(st, 1, (size_t)n * w * dst.part_count);
    if (!in || !out) return no_memory(api, ctx, what, n * dst.part_count);
    if (read_dense(api, ctx, &src, in, raw)) return TRN_ERR;
    dma_replicate(in, (size_t)n * w, out, dst.part_count);
    return dma_write_dense(api, ctx, &dst, out, raw, acc);
}

/* ---- the mode switch (visitInstDMACopy) ---- */

static const char *const mode_names[4] = {"copy", "transpose", "CCE", "replicate"};

/* Attributes that only one mode reads. Given with another mode they would
 * be ignored without a word, so they are an error (decided without data:
 * the static check refuses them). */
static const struct {
    const char *attr;
    int64_t mode;
} mode_only_attrs[] = {{"perm", 1}, {"shape", 1}, {"indirect", 0}, {"elems_per_index", 0}};

static trn_status mode_attrs_fit(const trn_host_api *api, trn_ctx *ctx, int64_t mode) {
    for (size_t i = 0; i < sizeof mode_only_attrs / sizeof mode_only_attrs[0]; ++i) {
        int64_t only = mode_only_attrs[i].mode;
        if (mode != only && api->attr(ctx, mode_only_attrs[i].attr))
            return api->error(
                ctx,
                "mode %" PRId64 " (%s): '%s' applies only to mode %" PRId64 " (%s), where it would "
                "be read; remove it, or set mode %" PRId64,
                mode, mode_names[mode], mode_only_attrs[i].attr, only, mode_names[only], only);
    }
    if (mode == 0 && api->attr(ctx, "elems_per_index") && !api->attr(ctx, "indirect"))
        return api->error(
            ctx,
            "mode 0 (copy): 'elems_per_index' applies only to an indirect copy; add 'indirect': "
            "\"gather\" or \"scatter\", or remove it");
    return TRN_OK;
}

static trn_status run_mode(const trn_host_api *api, trn_ctx *ctx, dma_state *st, int64_t mode) {
    if (mode >= 0 && mode <= 3 && mode_attrs_fit(api, ctx, mode) != TRN_OK) return TRN_ERR;
    switch (mode) {
        case 0: return dma_mode_copy(api, ctx, st);
        case 1: return dma_mode_transpose(api, ctx, st);
        case 2: return dma_mode_cce(api, ctx, st);
        case 3: return dma_mode_replicate(api, ctx, st);
        default:
            return api->error(ctx,
                              "unknown DMACopy mode %" PRId64
                              " (expected 0 copy, 1 transpose, 2 CCE, 3 replicate)",
                              mode);
    }
}

trn_status dma_h_dmacopy(const trn_host_api *api, trn_ctx *ctx, void *state) {
    int64_t mode = 0;
    if (api->attr_int(ctx, "mode", &mode) == TRN_BADTYPE) return TRN_ERR;
    return run_mode(api, ctx, state, mode);
}

/* DMADescriptorCopy / CCE / Transpose / Replicate thunk to the same bodies
 * as the DMACopy switch; a 'mode' attribute, if given, must agree. */
static trn_status fixed_mode(const trn_host_api *api, trn_ctx *ctx, void *state, int64_t mode) {
    int64_t given;
    trn_lookup r = api->attr_int(ctx, "mode", &given);
    if (r == TRN_BADTYPE) return TRN_ERR;
    if (r == TRN_FOUND && given != mode)
        return api->error(
            ctx, "this descriptor is mode %" PRId64 " (%s), but its 'mode' attribute is %" PRId64,
            mode, mode_names[mode], given);
    return run_mode(api, ctx, state, mode);
}

trn_status dma_h_desc_copy(const trn_host_api *api, trn_ctx *ctx, void *state) {
    return fixed_mode(api, ctx, state, 0);
}
trn_status dma_h_desc_transpose(const trn_host_api *api, trn_ctx *ctx, void *state) {
    return fixed_mode(api, ctx, state, 1);
}
trn_status dma_h_desc_cce(const trn_host_api *api, trn_ctx *ctx, void *state) {
    return fixed_mode(api, ctx, state, 2);
}
trn_status dma_h_desc_replicate(const trn_host_api *api, trn_ctx *ctx, void *state) {
    return fixed_mode(api, ctx, state, 3);
}

/* Load, Save, TensorCopy, AbstractCopy, GenericCopy: doCopy, direct only. */
trn_status dma_h_copy(const trn_host_api *api, trn_ctx *ctx, void *state) {
    return direct_copy(api, ctx, state);
}
