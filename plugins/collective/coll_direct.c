#include "coll_direct.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll_reduce.h"

/* Rows of one shape, fp32, 4-byte aligned: float pointers per partition. */
static bool usable(const trn_view *v, const trn_view *shape) {
    return (v->flags & TRN_VIEW_ROWS) && v->dtype == TRN_DT_FP32 && v->parts == shape->parts &&
           v->free_elems == shape->free_elems && ((uintptr_t)v->base & 3) == 0 &&
           (v->part_stride & 3) == 0;
}

static bool same_rows(const trn_view *a, const trn_view *b) {
    return a->base == b->base && a->part_stride == b->part_stride;
}

/* A block of every output is written after that block of every input is
 * read, so an output may be exactly an input (in place) but must not meet
 * any other input's rows (nor may output 0, as when it took the fold). */
static bool safe_overlaps(const trn_view *in, const trn_view *out, uint32_t n) {
    for (uint32_t o = 0; o < n; ++o)
        for (uint32_t i = 0; i < n; ++i) {
            if (!trn_views_meet(&out[o], &in[i])) continue;
            if (!same_rows(&out[o], &in[i]) || (o == 0 && i != 0)) return false;
        }
    for (uint32_t o = 1; o < n; ++o)
        if (trn_views_meet(&out[o], &out[0]) && !same_rows(&out[o], &out[0])) return false;
    return true;
}

static float *row(const trn_view *v, uint32_t p) {
    return (float *)(void *)(v->base + (int64_t)p * v->part_stride);
}

/* Past this many bytes of outputs, the stores of each folded block into
 * the outputs stream: each output line is written whole,
 * so it need not be read first, which is half the traffic of a copy into
 * memory that is not in cache. Smaller results stay in cache for whatever
 * reads them next. */
#define STREAM_OUTPUT_BYTES ((size_t)1 << 20)

#if defined(__SSE2__)
#include <emmintrin.h>
/* memcpy with streaming stores where dst and src are 16-byte aligned. */
static void copy_row(float *dst, const float *src, size_t m, bool stream) {
    if (!stream || ((uintptr_t)dst & 15) || ((uintptr_t)src & 15)) {
        memcpy(dst, src, m * sizeof(float));
        return;
    }
    size_t k = 0;
    for (; k + 4 <= m; k += 4) _mm_stream_ps(dst + k, _mm_load_ps(src + k));
    memcpy(dst + k, src + k, (m - k) * sizeof(float));
}
static void stream_fence(void) { _mm_sfence(); }
#else
static void copy_row(float *dst, const float *src, size_t m, bool stream) {
    (void)stream;
    memcpy(dst, src, m * sizeof(float));
}
static void stream_fence(void) {}
#endif

/* Elements per folded block: 4 KiB of results, held in L1 while every
 * input's block streams through it and it is then stored to every output.
 * Each output line is then written once, whole (streamed past
 * STREAM_OUTPUT_BYTES), and no output is read for ownership or re-read. */
#define FOLD_BLOCK 1024

static void fold_rows(const coll_exec *x, const trn_view *in, const trn_view *out,
                      const float **ins) {
    size_t m = (size_t)in[0].free_elems;
    bool stream = (size_t)in[0].parts * m * sizeof(float) * x->n >= STREAM_OUTPUT_BYTES;
    _Alignas(64) float acc[FOLD_BLOCK];
    for (uint32_t p = 0; p < in[0].parts; ++p)
        for (size_t b = 0; b < m; b += FOLD_BLOCK) {
            size_t k = m - b < FOLD_BLOCK ? m - b : FOLD_BLOCK;
            for (uint32_t i = 0; i < x->n; ++i) ins[i] = row(&in[i], p) + b;
            coll_reduce(x->sp->op, ins, x->n, k, x->sp->has_scale, x->sp->scale, acc);
            for (uint32_t o = 0; o < x->n; ++o) copy_row(row(&out[o], p) + b, acc, k, stream);
        }
    if (stream) stream_fence(); /* the streamed lines are in memory before the views end */
}

static void end_all(const coll_exec *x, trn_view *v, uint32_t n, bool used) {
    for (uint32_t i = 0; i < n; ++i) (used ? x->api->lend_end : x->api->lend_cancel)(x->ctx, &v[i]);
}

trn_status coll_direct_allreduce(const coll_exec *x, bool *done) {
    *done = false;
    const trn_host_api *api = x->api;
    if (!TRN_API_HAS(api, lend_cancel)) return TRN_OK;
    for (uint32_t i = 0; i < x->n; ++i)
        if (x->recs[i]->in[0].dtype != TRN_DT_FP32 || x->recs[i]->out.dtype != TRN_DT_FP32)
            return TRN_OK;
    trn_view *v = calloc(2 * (size_t)x->n, sizeof *v);
    const float **ins = malloc(x->n * sizeof *ins);
    if (!v || !ins) {
        free(v);
        free(ins);
        return TRN_OK; /* the copying path reports running out of memory */
    }
    trn_view *in = v, *out = v + x->n;
    uint32_t lent = 0;
    trn_status rc = TRN_OK;
    bool ok = true;
    /* inputs in the copying path's order, so the first never-written one
     * is the same error */
    for (uint32_t i = 0; i < x->n && ok; ++i, ++lent) {
        trn_lend_status s = api->lend(x->ctx, &x->recs[i]->in[0], TRN_LEND_READ, &in[i]);
        if (s == TRN_LEND_ERR) rc = TRN_ERR;
        ok = s == TRN_LENT && usable(&in[i], &in[0]);
        if (s != TRN_LENT) break;
    }
    uint32_t lent_out = 0;
    for (uint32_t o = 0; o < x->n && ok; ++o, ++lent_out) {
        trn_lend_status s = api->lend(x->ctx, &x->recs[o]->out, TRN_LEND_WRITE, &out[o]);
        if (s == TRN_LEND_ERR) rc = TRN_ERR;
        ok = s == TRN_LENT && usable(&out[o], &in[0]);
        if (s != TRN_LENT) break;
    }
    if (ok && rc == TRN_OK && safe_overlaps(in, out, x->n)) {
        fold_rows(x, in, out, ins);
        *done = true;
    }
    if (rc == TRN_ERR) *done = true; /* the guard's message is recorded: report it */
    end_all(x, in, lent, true);
    end_all(x, out, lent_out, *done && rc == TRN_OK); /* unused: the copying path writes them */
    free(v);
    free(ins);
    return rc;
}
