/* The last arrival runs the collective for every participant. Each kind:
 * validate counts, check every output, read every input, compute, write.
 * Reads all happen before the first write, so a core's output may overlap
 * its own input (in place). This file: the dispatch, the routing kinds,
 * and the one-core copies; the reducing kinds are in coll_exec_reduce.c. */
#include "coll_exec.h"

#include <stdio.h>
#include <stdlib.h>

#include "coll_direct.h"
#include "coll_exec_common.h"
#include "coll_route.h"
#include "coll_xfer.h"

/* ---- the routing kinds ------------------------------------------------- */

/* Buffers for every input (stride each) and `extra` bytes after them. */
static char *route_buffers(const coll_exec *x, size_t stride, size_t extra, size_t *bytes) {
    *bytes = stride * x->n + extra;
    return coll_scratch(x->st, *bytes);
}

/* AllGather (4): every rank gets the concatenation of all inputs in rank
 * (ascending core) order; cc_dim 1 concatenates within each partition. */
static trn_status all_gather(const coll_exec *x) {
    if (coll_same_in_counts(x) != TRN_OK) return TRN_ERR;
    int64_t e = x->recs[0]->in_count[0];
    bool rows = x->sp->cc_dim == 1;
    uint32_t parts = x->recs[0]->in[0].part_count;
    for (uint32_t i = 0; i < x->n; ++i) {
        const coll_record *r = x->recs[i];
        if (rows && (r->in[0].part_count != parts || r->out.part_count != parts))
            return coll_fail(x,
                             "cc_dim 1 concatenates per partition, so every input and output needs "
                             "%u partitions "
                             "(core %u's): core %u has %u input and %u output partitions",
                             parts, x->recs[0]->core, r->core, r->in[0].part_count,
                             r->out.part_count);
        if (coll_out_count_is(x, i, e * x->n, "ranks x the input's count") != TRN_OK)
            return TRN_ERR;
    }
    bool raw = coll_all_same_dtype(x, 1);
    if (coll_check_operands(x, raw) != TRN_OK) return TRN_ERR;
    if (x->validate_only) return TRN_OK; /* the static check ends before the data */
    if (raw) {
        bool done;
        trn_status rc = coll_direct_all_gather(x, &done);
        if (done) return rc;
    }
    size_t w = coll_elem_width(x->api, &x->recs[0]->out, raw), stride = ALIGN64((size_t)e * w),
           bytes;
    char *buf = route_buffers(x, stride, (size_t)e * w * x->n, &bytes);
    const void **srcs = malloc(x->n * sizeof *srcs);
    trn_status rc = (!buf || !srcs) ? coll_oom(x, bytes) : coll_read_all(x, 1, raw, buf, stride);
    if (rc == TRN_OK) {
        char *out = buf + stride * x->n;
        for (uint32_t i = 0; i < x->n; ++i) srcs[i] = buf + stride * i;
        if (rows)
            coll_gather_rows(out, srcs, x->n, parts, (size_t)e / parts, w);
        else
            coll_gather_flat(out, srcs, x->n, (size_t)e, w);
        for (uint32_t i = 0; i < x->n && rc == TRN_OK; ++i)
            rc = coll_write(x->api, x->ctx, &x->recs[i]->out, out, raw);
    }
    free(srcs);
    return rc;
}

/* AllToAll (5) with equal chunks, AllToAllV (6) with send_counts. */
static trn_status all_to_all(const coll_exec *x, bool v) {
    int64_t emax = 0, omax = 0;
    if (v) {
        if (x->sp->n_counts != x->n)
            return coll_fail(x, "send_counts is %zu x %zu but the group has %u ranks",
                             x->sp->n_counts, x->sp->n_counts, x->n);
        for (uint32_t i = 0; i < x->n; ++i) {
            int64_t row = 0, col = 0;
            for (uint32_t k = 0; k < x->n; ++k) {
                row += x->sp->counts[(size_t)i * x->n + k];
                col += x->sp->counts[(size_t)k * x->n + i];
            }
            if (x->recs[i]->in_count[0] != row)
                return coll_fail(
                    x, "core %u's input has %lld elements but send_counts[%u] sends %lld",
                    x->recs[i]->core, (long long)x->recs[i]->in_count[0], i, (long long)row);
            if (coll_out_count_is(x, i, col, "the sum of its column of send_counts") != TRN_OK)
                return TRN_ERR;
            emax = row > emax ? row : emax;
            omax = col > omax ? col : omax;
        }
    } else {
        if (coll_same_in_counts(x) != TRN_OK) return TRN_ERR;
        emax = omax = x->recs[0]->in_count[0];
        if (emax % x->n != 0)
            return coll_fail(x,
                             "%lld input elements do not split into %u equal chunks (one per rank)",
                             (long long)emax, x->n);
        for (uint32_t i = 0; i < x->n; ++i)
            if (coll_out_count_is(x, i, emax, "the input's count") != TRN_OK) return TRN_ERR;
    }
    bool raw = coll_all_same_dtype(x, 1);
    if (coll_check_operands(x, raw) != TRN_OK) return TRN_ERR;
    if (x->validate_only) return TRN_OK; /* the static check ends before the data */
    if (raw) {
        bool done;
        trn_status rc = coll_direct_all_to_all(x, v, &done);
        if (done) return rc;
    }
    size_t w = coll_elem_width(x->api, &x->recs[0]->out, raw), stride = ALIGN64((size_t)emax * w),
           bytes;
    char *buf = route_buffers(x, stride, (size_t)omax * w, &bytes);
    const void **srcs = malloc(x->n * sizeof *srcs);
    trn_status rc = (!buf || !srcs) ? coll_oom(x, bytes) : coll_read_all(x, 1, raw, buf, stride);
    for (uint32_t i = 0; i < x->n && rc == TRN_OK; ++i) srcs[i] = buf + stride * i;
    for (uint32_t j = 0; j < x->n && rc == TRN_OK; ++j) {
        char *out = buf + stride * x->n;
        if (v)
            coll_alltoallv_one(out, srcs, x->n, j, x->sp->counts, w);
        else
            coll_alltoall_one(out, srcs, x->n, j, (size_t)emax / x->n, w);
        rc = coll_write(x->api, x->ctx, &x->recs[j]->out, out, raw);
    }
    free(srcs);
    return rc;
}

/* The index (into recs) of the participant whose input position j gets. */
static uint32_t source_of(const coll_exec *x, uint32_t j) {
    if (x->sp->kind == COLL_PERMUTE_IMPLICIT) return coll_ring_pred(j, x->n);
    if (x->sp->kind == COLL_SEND_RECV) return coll_peer_pos(x, j);
    for (uint32_t i = 0; i < x->n; ++i) /* Permute: by core id */
        if (x->recs[i]->core == x->src_of[j]) return i;
    return j;
}

/* SendRecv (0), Permute (7), PermuteImplicit (9): a routed copy. */
static trn_status permute(const coll_exec *x) {
    int64_t emax = 0;
    for (uint32_t j = 0; j < x->n; ++j) {
        const coll_record *src = x->recs[source_of(x, j)];
        char why[64];
        snprintf(why, sizeof why, "the input count of core %u, its source", src->core);
        if (coll_out_count_is(x, j, src->in_count[0], why) != TRN_OK) return TRN_ERR;
        emax = src->in_count[0] > emax ? src->in_count[0] : emax;
    }
    bool raw = coll_all_same_dtype(x, 1);
    if (coll_check_operands(x, raw) != TRN_OK) return TRN_ERR;
    if (x->validate_only) return TRN_OK; /* the static check ends before the data */
    if (raw) {
        uint32_t *source = malloc(x->n * sizeof *source);
        bool done = false;
        trn_status rc = TRN_OK;
        if (source) { /* else the copying path reports running out of memory */
            for (uint32_t j = 0; j < x->n; ++j) source[j] = source_of(x, j);
            rc = coll_direct_permute(x, source, &done);
            free(source);
        }
        if (done) return rc;
    }
    size_t w = coll_elem_width(x->api, &x->recs[0]->out, raw), stride = ALIGN64((size_t)emax * w),
           bytes;
    char *buf = route_buffers(x, stride, 0, &bytes);
    trn_status rc = !buf ? coll_oom(x, bytes) : coll_read_all(x, 1, raw, buf, stride);
    for (uint32_t j = 0; j < x->n && rc == TRN_OK; ++j)
        rc = coll_write(x->api, x->ctx, &x->recs[j]->out, buf + stride * source_of(x, j), raw);
    return rc;
}

trn_status coll_exec_run(const coll_exec *x) {
    switch (x->sp->kind) {
        case COLL_SEND_RECV:
        case COLL_PERMUTE:
        case COLL_PERMUTE_IMPLICIT: return permute(x);
        case COLL_SEND_RECV_CCE: return coll_exec_send_recv_cce(x);
        case COLL_ALL_REDUCE: return coll_exec_reduce_all(x, false);
        case COLL_REDUCE_SCATTER: return coll_exec_reduce_all(x, true);
        case COLL_ALL_GATHER: return all_gather(x);
        case COLL_ALL_TO_ALL: return all_to_all(x, false);
        case COLL_ALL_TO_ALL_V: return all_to_all(x, true);
        case COLL_PERMUTE_REDUCE_IMPLICIT: return coll_exec_permute_reduce_implicit(x);
        default:
            return x->api->error(x->ctx, "internal: kind %lld has no exchange",
                                 (long long)x->sp->kind);
    }
}

/* ---- one core alone ----------------------------------------------------- */

/* One AP into another (identity and point to point): raw when the dtypes
 * match, else through fp32. */
static trn_status copy_one(const trn_host_api *api, trn_ctx *ctx, coll_state *st, const trn_ap *in,
                           int64_t n_in, const trn_ap *out, int64_t n_out, const char *what) {
    if (n_in != n_out)
        return api->error(
            ctx, "%s: the input has %lld elements but the output has %lld (they must match)", what,
            (long long)n_in, (long long)n_out);
    bool raw = in->dtype == out->dtype;
    char who[256];
    snprintf(who, sizeof who, "%s: the input", what);
    if (coll_check_in(api, ctx, in, raw, who) != TRN_OK) return TRN_ERR;
    snprintf(who, sizeof who, "%s: the output", what);
    if (coll_check_out(api, ctx, out, raw, who) != TRN_OK) return TRN_ERR;
    bool done;
    trn_status rc = coll_direct_copy(api, ctx, in, out, &done);
    if (done) return rc;
    size_t bytes = (size_t)n_in * coll_elem_width(api, in, raw);
    void *buf = coll_scratch(st, bytes);
    if (!buf) return api->error(ctx, "%s: out of memory (%zu bytes)", what, bytes);
    if (coll_read(api, ctx, in, buf, raw) != TRN_OK) return TRN_ERR;
    return coll_write(api, ctx, out, buf, raw);
}

trn_status coll_exec_identity(const trn_host_api *api, trn_ctx *ctx, coll_state *st,
                              const coll_record *rec) {
    char what[96];
    snprintf(what, sizeof what, "%s (kind %lld, the identity copy of the reference's default arm)",
             coll_kind_name(rec->spec.kind), (long long)rec->spec.kind);
    return copy_one(api, ctx, st, &rec->in[0], rec->in_count[0], &rec->out, rec->out_count, what);
}

trn_status coll_exec_p2p(const trn_host_api *api, trn_ctx *ctx, coll_state *st,
                         const coll_record *send, const coll_record *recv) {
    char what[160];
    snprintf(what, sizeof what,
             "CollectiveSend #%llu from core %u (instruction %llu) to CollectiveRecv #%llu on core "
             "%u (instruction %llu)",
             (unsigned long long)send->seq, send->core, (unsigned long long)send->instr,
             (unsigned long long)recv->seq, recv->core, (unsigned long long)recv->instr);
    return copy_one(api, ctx, st, &send->in[0], send->in_count[0], &recv->out, recv->out_count,
                    what);
}
