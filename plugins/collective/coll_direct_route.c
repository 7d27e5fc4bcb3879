/* The routing kinds and ReduceScatter on lent memory (coll_direct.h): the
 * copying path reads every input into a dense buffer, builds each output
 * there and writes it back; here each output's elements are copied (or
 * folded) straight from the inputs' memory, position for position as the
 * dense buffers would hold them (coll_route.h), so the bits are the same.
 * Taken only when every output meets no input and no other output, since
 * the copying path reads everything before it writes anything. */
#include "coll_direct.h"

#include <stdlib.h>

#include "coll_exec_common.h"
#include "coll_lend.h"
#include "coll_reduce.h"

typedef void (*route_plan)(const coll_exec *x, const trn_view *in, const trn_view *out, void *arg);

/* Lends, checks, runs plan and ends the views; *done as in coll_direct.h. */
static trn_status run_lent(const coll_exec *x, coll_lend_kind kind, route_plan plan, void *arg,
                           bool *done) {
    *done = false;
    coll_lent l;
    if (!coll_lend_all(x, kind, &l)) return TRN_OK;
    bool use = l.all && coll_lent_disjoint(x, &l);
    if (use) plan(x, l.in, l.out, arg);
    *done = use || l.rc == TRN_ERR; /* a failed lend's message is recorded: report it */
    coll_lend_finish(x, &l, use);
    return l.rc;
}

/* ---- AllGather ---- */

static void gather_plan(const coll_exec *x, const trn_view *in, const trn_view *out, void *arg) {
    (void)arg;
    int64_t e = x->recs[0]->in_count[0];
    bool rows = x->sp->cc_dim == 1;
    int64_t parts = x->recs[0]->in[0].part_count, f = rows ? e / parts : e;
    for (uint32_t o = 0; o < x->n; ++o)
        for (int64_t p = 0; p < (rows ? parts : 1); ++p)
            for (uint32_t j = 0; j < x->n; ++j)
                coll_lent_move(&out[o], (p * x->n + j) * f, &in[j], p * f, f);
}

trn_status coll_direct_all_gather(const coll_exec *x, bool *done) {
    return run_lent(x, COLL_LEND_RAW, gather_plan, NULL, done);
}

/* ---- AllToAll, AllToAllV ---- */

static void alltoall_plan(const coll_exec *x, const trn_view *in, const trn_view *out, void *arg) {
    (void)arg;
    int64_t c = x->recs[0]->in_count[0] / x->n;
    for (uint32_t j = 0; j < x->n; ++j)
        for (uint32_t i = 0; i < x->n; ++i) coll_lent_move(&out[j], i * c, &in[i], j * c, c);
}

static void alltoallv_plan(const coll_exec *x, const trn_view *in, const trn_view *out, void *arg) {
    (void)arg;
    const int64_t *counts = x->sp->counts;
    for (uint32_t j = 0; j < x->n; ++j) {
        int64_t at = 0;
        for (uint32_t i = 0; i < x->n; ++i) {
            int64_t from = 0;
            for (uint32_t k = 0; k < j; ++k) from += counts[(size_t)i * x->n + k];
            int64_t m = counts[(size_t)i * x->n + j];
            coll_lent_move(&out[j], at, &in[i], from, m);
            at += m;
        }
    }
}

trn_status coll_direct_all_to_all(const coll_exec *x, bool v, bool *done) {
    return run_lent(x, COLL_LEND_RAW, v ? alltoallv_plan : alltoall_plan, NULL, done);
}

/* ---- SendRecv, Permute, PermuteImplicit ---- */

static void permute_plan(const coll_exec *x, const trn_view *in, const trn_view *out, void *arg) {
    const uint32_t *src = arg;
    for (uint32_t j = 0; j < x->n; ++j)
        coll_lent_move(&out[j], 0, &in[src[j]], 0, x->recs[src[j]]->in_count[0]);
}

trn_status coll_direct_permute(const coll_exec *x, const uint32_t *source, bool *done) {
    return run_lent(x, COLL_LEND_RAW, permute_plan, (void *)source, done);
}

/* ---- ReduceScatter ---- */

/* Output j is elements [j * part, (j + 1) * part) of the fold of every
 * input, folded run by run, each run inside one row of every input and of
 * the output (coll_reduce is elementwise). */
static void reduce_scatter_plan(const coll_exec *x, const trn_view *in, const trn_view *out,
                                void *arg) {
    const float **ins = arg;
    int64_t part = x->recs[0]->in_count[0] / x->n;
    for (uint32_t j = 0; j < x->n; ++j)
        for (int64_t q = 0; q < part;) {
            int64_t pos = (int64_t)j * part + q, k = part - q, left = coll_lent_run(&out[j], q);
            if (left < k) k = left;
            for (uint32_t i = 0; i < x->n; ++i) {
                left = coll_lent_run(&in[i], pos);
                if (left < k) k = left;
                ins[i] = (const float *)(const void *)coll_lent_at(&in[i], pos);
            }
            coll_reduce(x->sp->op, ins, x->n, (size_t)k, x->sp->has_scale, x->sp->scale,
                        (float *)(void *)coll_lent_at(&out[j], q));
            q += k;
        }
}

trn_status coll_direct_reduce_scatter(const coll_exec *x, bool *done) {
    *done = false;
    const float **ins = malloc(x->n * sizeof *ins);
    if (!ins) return TRN_OK; /* the copying path reports running out of memory */
    trn_status rc = run_lent(x, COLL_LEND_F32, reduce_scatter_plan, (void *)ins, done);
    free(ins);
    return rc;
}

/* ---- one AP into another: CollectiveSend / Recv, the identity ---- */

trn_status coll_direct_copy(const trn_host_api *api, trn_ctx *ctx, const trn_ap *in,
                            const trn_ap *out, bool *done) {
    *done = false;
    if (!TRN_API_HAS(api, lend_cancel) || in->dtype != out->dtype) return TRN_OK;
    trn_view vi, vo;
    trn_lend_status s = api->lend(ctx, in, TRN_LEND_READ, &vi);
    if (s != TRN_LENT) {
        *done = s == TRN_LEND_ERR; /* the guard's message, as read_raw would give it */
        return s == TRN_LEND_ERR ? TRN_ERR : TRN_OK;
    }
    trn_lend_status d = api->lend(ctx, out, TRN_LEND_WRITE, &vo);
    bool use = d == TRN_LENT && (vi.flags & vo.flags & TRN_VIEW_ROWS) && !trn_views_meet(&vo, &vi);
    if (use) coll_lent_move(&vo, 0, &vi, 0, vi.free_elems * (int64_t)vi.parts);
    api->lend_end(ctx, &vi);
    if (d == TRN_LENT) (use ? api->lend_end : api->lend_cancel)(ctx, &vo);
    *done = use || d == TRN_LEND_ERR;
    return d == TRN_LEND_ERR ? TRN_ERR : TRN_OK;
}
