/* The reducing kinds (AllReduce, ReduceScatter, SendRecvCCE,
 * PermuteReduceImplicit) and the multi-worker AllReduce: every participant's
 * input widened to fp32 and folded by doReduction (coll_reduce.c). */
#include <stdio.h>
#include <stdlib.h>

#include "coll_direct.h"
#include "coll_exec_common.h"
#include "coll_reduce.h"
#include "coll_stream.h"
#include "coll_xfer.h"

/* AllReduce (2) and ReduceScatter (3): doReduction over every rank's input
 * in rank order (ascending core); AllReduce writes the whole result to every rank,
 * ReduceScatter the j-th of n equal parts to the rank at position j. */
trn_status coll_exec_reduce_all(const coll_exec *x, bool scatter) {
    if (coll_same_in_counts(x) != TRN_OK) return TRN_ERR;
    int64_t e = x->recs[0]->in_count[0];
    if (scatter && e % x->n != 0)
        return coll_fail(x, "%lld input elements do not split into %u equal parts (one per rank)",
                         (long long)e, x->n);
    int64_t part = scatter ? e / x->n : e;
    for (uint32_t i = 0; i < x->n; ++i)
        if (coll_out_count_is(
                x, i, part, scatter ? "the input's count / ranks" : "the input's count") != TRN_OK)
            return TRN_ERR;
    if (coll_reduce_rejects(x->sp->op, x->n, (size_t)e, x->sp->has_scale))
        return coll_unsupported_op(x->api, x->ctx, x->sp->op);
    if (coll_check_operands(x, false) != TRN_OK) return TRN_ERR;
    if (x->validate_only) return TRN_OK; /* the static check ends before the data */
    bool done;
    trn_status rc_direct =
        scatter ? coll_direct_reduce_scatter(x, &done) : coll_direct_allreduce(x, &done);
    if (done) return rc_direct;
    if (!scatter && coll_stream_possible(x)) return coll_stream_allreduce(x);
    size_t stride = F32_STRIDE(e), bytes = stride * sizeof(float) * (x->n + 1);
    float *buf = coll_scratch(x->st, bytes);
    const float **ins = malloc(x->n * sizeof *ins);
    trn_status rc = (!buf || !ins) ? coll_oom(x, bytes) : coll_read_all_f32(x, 1, buf, stride);
    if (rc == TRN_OK) {
        float *res = buf + stride * x->n;
        for (uint32_t i = 0; i < x->n; ++i) ins[i] = buf + stride * i;
        coll_reduce(x->sp->op, ins, x->n, (size_t)e, x->sp->has_scale, x->sp->scale, res);
        for (uint32_t i = 0; i < x->n && rc == TRN_OK; ++i)
            rc = coll_write(x->api, x->ctx, &x->recs[i]->out,
                            res + (scatter ? (size_t)part * i : 0), false);
    }
    free(ins);
    return rc;
}

/* SendRecvCCE (1): each rank receives from its peer and folds the pair
 * through doReduction, in core order (the reference's scaffolding collects
 * ins by ascending core id; the peer itself comes from the listed group). */
trn_status coll_exec_send_recv_cce(const coll_exec *x) {
    if (coll_same_in_counts(x) != TRN_OK) return TRN_ERR;
    int64_t e = x->recs[0]->in_count[0];
    for (uint32_t i = 0; i < x->n; ++i)
        if (coll_out_count_is(x, i, e, "the input's count") != TRN_OK) return TRN_ERR;
    size_t n_ins = coll_peer_pos(x, 0) == 0 ? 1 : 2;
    if (coll_reduce_rejects(x->sp->op, n_ins, (size_t)e, x->sp->has_scale))
        return coll_unsupported_op(x->api, x->ctx, x->sp->op);
    if (coll_check_operands(x, false) != TRN_OK) return TRN_ERR;
    if (x->validate_only) return TRN_OK; /* the static check ends before the data */
    size_t stride = F32_STRIDE(e), bytes = stride * sizeof(float) * (x->n + 1);
    float *buf = coll_scratch(x->st, bytes);
    trn_status rc = !buf ? coll_oom(x, bytes) : coll_read_all_f32(x, 1, buf, stride);
    float *res = buf ? buf + stride * x->n : NULL;
    for (uint32_t j = 0; j < x->n && rc == TRN_OK; ++j) {
        uint32_t p = coll_peer_pos(x, j);
        bool peer_first = x->recs[p]->core < x->recs[j]->core;
        uint32_t lo = peer_first ? p : j, hi = peer_first ? j : p;
        const float *ins[2] = {buf + stride * lo, buf + stride * hi};
        coll_reduce(x->sp->op, ins, n_ins, (size_t)e, x->sp->has_scale, x->sp->scale, res);
        rc = coll_write(x->api, x->ctx, &x->recs[j]->out, res, false);
    }
    return rc;
}

/* PermuteReduceImplicit (10): each rank folds its two inputs (srcs0, srcs1)
 * and the result travels one step along the ring: the rank at position j
 * receives its predecessor's. */
trn_status coll_exec_permute_reduce_implicit(const coll_exec *x) {
    int64_t emax = 0;
    for (uint32_t i = 0; i < x->n; ++i) {
        const coll_record *r = x->recs[i];
        if (r->in_count[0] != r->in_count[1])
            return coll_fail(
                x,
                "core %u's two inputs have %lld and %lld elements (they fold element by element)",
                r->core, (long long)r->in_count[0], (long long)r->in_count[1]);
        emax = r->in_count[0] > emax ? r->in_count[0] : emax;
    }
    for (uint32_t j = 0; j < x->n; ++j) {
        const coll_record *src = x->recs[coll_ring_pred(j, x->n)];
        char why[96];
        snprintf(why, sizeof why, "the input count of core %u, its ring predecessor", src->core);
        if (coll_out_count_is(x, j, src->in_count[0], why) != TRN_OK) return TRN_ERR;
        if (coll_reduce_rejects(x->sp->op, 2, (size_t)src->in_count[0], x->sp->has_scale))
            return coll_unsupported_op(x->api, x->ctx, x->sp->op);
    }
    if (coll_check_operands(x, false) != TRN_OK) return TRN_ERR;
    if (x->validate_only) return TRN_OK; /* the static check ends before the data */
    size_t stride = F32_STRIDE(emax), bytes = stride * sizeof(float) * (2 * x->n + 1);
    float *buf = coll_scratch(x->st, bytes);
    trn_status rc = !buf ? coll_oom(x, bytes) : coll_read_all_f32(x, 2, buf, stride);
    float *res = buf ? buf + stride * 2 * x->n : NULL;
    for (uint32_t j = 0; j < x->n && rc == TRN_OK; ++j) {
        uint32_t p = coll_ring_pred(j, x->n);
        const float *ins[2] = {buf + stride * 2 * p, buf + stride * (2 * p + 1)};
        coll_reduce(x->sp->op, ins, 2, (size_t)x->recs[p]->in_count[0], x->sp->has_scale,
                    x->sp->scale, res);
        rc = coll_write(x->api, x->ctx, &x->recs[j]->out, res, false);
    }
    return rc;
}

trn_status coll_exec_local_allreduce(const trn_host_api *api, trn_ctx *ctx, coll_state *st,
                                     const coll_record *rec, uint32_t replicas) {
    int64_t e = rec->in_count[0];
    if (rec->out_count != e)
        return api->error(
            ctx,
            "AllReduce (kind 2, multiworker): the input has %lld elements but the output has %lld",
            (long long)e, (long long)rec->out_count);
    if (coll_check_in(api, ctx, &rec->in[0], false, "AllReduce (kind 2, multiworker): the input") !=
            TRN_OK ||
        coll_check_out(api, ctx, &rec->out, false, "AllReduce (kind 2, multiworker): the output") !=
            TRN_OK)
        return TRN_ERR;
    size_t stride = F32_STRIDE(e), bytes = stride * sizeof(float) * 2;
    float *buf = coll_scratch(st, bytes);
    if (!buf) return api->error(ctx, "AllReduce: out of memory (%zu bytes)", bytes);
    const float *ins[1] = {buf};
    float *res = buf + stride;
    if (api->read_f32(ctx, &rec->in[0], buf) != TRN_OK) return TRN_ERR;
    /* the reference threads scale = numReplicas; only add takes the SCALE
     * branch, max / min fold a single input (a copy) */
    coll_reduce(rec->spec.op, ins, 1, (size_t)e, true, (float)replicas, res);
    return api->write_f32(ctx, &rec->out, res, TRN_ACC_COPY);
}
