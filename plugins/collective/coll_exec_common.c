/* Helpers shared by the collective runners (coll_exec_common.h). */
#include "coll_exec_common.h"

#include <stdarg.h>
#include <stdio.h>

#include "coll_xfer.h"

trn_status coll_fail(const coll_exec *x, const char *fmt, ...) {
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return x->api->error(x->ctx, "%s (kind %lld): %s", coll_kind_name(x->sp->kind),
                         (long long)x->sp->kind, msg);
}

trn_status coll_unsupported_op(const trn_host_api *api, trn_ctx *ctx, int64_t op) {
    return api->error(ctx, "Unsupported OP type %lld (doReduction folds add 4, max 8, min 9)",
                      (long long)op);
}

/* Every AP the participants give (n_in inputs each, one output) has the
 * same dtype: the routing kinds then move bytes (raw). */
bool coll_all_same_dtype(const coll_exec *x, int n_in) {
    uint32_t dt = x->recs[0]->out.dtype;
    for (uint32_t i = 0; i < x->n; ++i) {
        if (x->recs[i]->out.dtype != dt) return false;
        for (int k = 0; k < n_in; ++k)
            if (x->recs[i]->in[k].dtype != dt) return false;
    }
    return true;
}

trn_status coll_same_in_counts(const coll_exec *x) {
    int64_t e = x->recs[0]->in_count[0];
    for (uint32_t i = 1; i < x->n; ++i)
        if (x->recs[i]->in_count[0] != e)
            return coll_fail(x,
                             "core %u contributes %lld elements but core %u contributes %lld "
                             "(every rank's input must "
                             "have the same element count)",
                             x->recs[i]->core, (long long)x->recs[i]->in_count[0], x->recs[0]->core,
                             (long long)e);
    return TRN_OK;
}

trn_status coll_out_count_is(const coll_exec *x, uint32_t i, int64_t want, const char *why) {
    if (x->recs[i]->out_count == want) return TRN_OK;
    return coll_fail(x, "core %u's output has %lld elements, expected %lld (%s)", x->recs[i]->core,
                     (long long)x->recs[i]->out_count, (long long)want, why);
}

trn_status coll_check_operands(const coll_exec *x, bool raw) {
    for (uint32_t i = 0; i < x->n; ++i) {
        char who[96];
        for (int k = 0; k < x->recs[i]->n_in; ++k) {
            snprintf(who, sizeof who, "%s (kind %lld): core %u's input %d",
                     coll_kind_name(x->sp->kind), (long long)x->sp->kind, x->recs[i]->core, k);
            if (coll_check_in(x->api, x->ctx, &x->recs[i]->in[k], raw, who) != TRN_OK)
                return TRN_ERR;
        }
        snprintf(who, sizeof who, "%s (kind %lld): core %u's output", coll_kind_name(x->sp->kind),
                 (long long)x->sp->kind, x->recs[i]->core);
        if (coll_check_out(x->api, x->ctx, &x->recs[i]->out, raw, who) != TRN_OK) return TRN_ERR;
    }
    return TRN_OK;
}

/* Input `which` of participant i lands at base + (i * n_in + which) * stride. */
trn_status coll_read_all(const coll_exec *x, int n_in, bool raw, char *base, size_t stride) {
    for (uint32_t i = 0; i < x->n; ++i)
        for (int k = 0; k < n_in; ++k)
            if (coll_read(x->api, x->ctx, &x->recs[i]->in[k],
                          base + ((size_t)i * n_in + k) * stride, raw) != TRN_OK)
                return TRN_ERR;
    return TRN_OK;
}

/* The same into fp32 buffers, stride in floats. */
trn_status coll_read_all_f32(const coll_exec *x, int n_in, float *base, size_t stride) {
    for (uint32_t i = 0; i < x->n; ++i)
        for (int k = 0; k < n_in; ++k)
            if (x->api->read_f32(x->ctx, &x->recs[i]->in[k],
                                 base + ((size_t)i * n_in + k) * stride) != TRN_OK)
                return TRN_ERR;
    return TRN_OK;
}

trn_status coll_oom(const coll_exec *x, size_t bytes) {
    return coll_fail(x, "out of memory (%zu bytes of buffers)", bytes);
}

uint32_t coll_peer_pos(const coll_exec *x, uint32_t j) {
    int64_t n = x->n, p = ((int64_t)j + x->sp->peer_offset % n + n) % n;
    return (uint32_t)p;
}
