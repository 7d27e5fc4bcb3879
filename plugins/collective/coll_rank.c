/* The rank-id opcodes. GetGlobalRankId (IT 11): this core's rank,
 * core / cores_per_lnc. GetCurProcessingRankID (IT 66): in a ring
 * algorithm over a replica group, the rank whose data this core holds at
 * iteration iter_id (its own at 0, then its predecessors'), through the
 * rank_table permutation (identity by default). Either value goes to the
 * register named by attribute `register` and/or to a one-element output. */
#include <stdlib.h>

#include "coll_group.h"
#include "coll_ops.h"
#include "coll_spec.h"
#include "coll_state.h"
#include "coll_xfer.h"

static trn_status deliver(const trn_host_api *api, trn_ctx *ctx, const char *op, int64_t value) {
    int64_t reg = 0;
    trn_lookup l = api->attr_int(ctx, "register", &reg);
    if (l == TRN_BADTYPE) return TRN_ERR;
    int n_in = api->operand_count(ctx, TRN_IN), n_out = api->operand_count(ctx, TRN_OUT);
    if (n_in != 0 || n_out > 1)
        return api->error(ctx,
                          "%s takes no input and at most one output, the instruction has %d and %d",
                          op, n_in, n_out);
    if (l == TRN_ABSENT && n_out == 0)
        return api->error(
            ctx,
            "%s needs a destination: the attribute 'register' and/or one output of one element",
            op);
    if (l == TRN_FOUND && (reg < 0 || reg > (int64_t)UINT32_MAX))
        return api->error(ctx, "%s: register %lld does not exist", op, (long long)reg);
    trn_ap out;
    if (n_out == 1) {
        if (api->operand(ctx, TRN_OUT, 0, &out) != TRN_OK) return TRN_ERR;
        if (trn_ap_elems(&out) != 1)
            return api->error(ctx, "%s: the output has %lld elements, expected 1", op,
                              (long long)trn_ap_elems(&out));
        if (coll_check_out(api, ctx, &out, false, op) != TRN_OK) return TRN_ERR;
    }
    if (api->checking(ctx)) return TRN_OK; /* the handler is its own static check up to here */
    if (l == TRN_FOUND && api->reg_write(ctx, (uint32_t)reg, value) != TRN_OK) return TRN_ERR;
    float f = (float)value;
    return n_out == 1 ? api->write_f32(ctx, &out, &f, TRN_ACC_COPY) : TRN_OK;
}

trn_status coll_h_global_rank(const trn_host_api *api, trn_ctx *ctx, void *state) {
    const coll_state *st = state;
    return deliver(api, ctx, "GetGlobalRankId",
                   (int64_t)(api->core_id(ctx) / st->set.cores_per_lnc));
}

static trn_status nonneg_attr(const trn_host_api *api, trn_ctx *ctx, const char *key, bool required,
                              int64_t *v) {
    trn_lookup l = api->attr_int(ctx, key, v);
    if (l == TRN_BADTYPE) return TRN_ERR;
    if (l == TRN_ABSENT && required)
        return api->error(ctx, "GetCurProcessingRankID needs the attribute '%s' (an integer >= 0)",
                          key);
    if (l == TRN_FOUND && *v < 0)
        return api->error(ctx, "GetCurProcessingRankID: %s = %lld, expected >= 0", key,
                          (long long)*v);
    return TRN_OK;
}

/* The rank, or -1 with the error recorded. */
static int64_t cur_rank(const trn_host_api *api, trn_ctx *ctx, const coll_state *st,
                        const coll_groups *g) {
    int64_t iter = 0, channel = 0, arch = 0;
    if (nonneg_attr(api, ctx, "iter_id", true, &iter) != TRN_OK ||
        nonneg_attr(api, ctx, "channel_id", false, &channel) != TRN_OK ||
        nonneg_attr(api, ctx, "arch_level", false, &arch) != TRN_OK)
        return -1;
    const uint32_t *members;
    uint32_t pos, core = api->core_id(ctx);
    if (!coll_groups_find(g, core, &members, &pos))
        return api->error(ctx, "GetCurProcessingRankID: core %u is in no replica group", core), -1;
    if ((uint64_t)iter >= g->size)
        return api->error(
                   ctx,
                   "GetCurProcessingRankID: iter_id %lld is outside the ring of %u ranks (0..%u)",
                   (long long)iter, g->size, g->size - 1),
               -1;
    if (st->set.rank_table && st->set.rank_table_len != g->size)
        return api->error(ctx,
                          "GetCurProcessingRankID: the setting rank_table has %zu entries but the "
                          "group has %u "
                          "ranks",
                          st->set.rank_table_len, g->size),
               -1;
    return members[coll_cur_processing_pos(pos, g->size, (uint64_t)iter, st->set.rank_table)];
}

trn_status coll_h_cur_rank(const trn_host_api *api, trn_ctx *ctx, void *state) {
    const coll_state *st = state;
    int64_t *flat;
    size_t *lens, rows;
    if (coll_read_int_rows(api, ctx, "replica_groups", &flat, &lens, &rows) != TRN_OK)
        return TRN_ERR;
    coll_groups g;
    char err[512];
    int rc = coll_groups_make(&g, flat, lens, rows, api->core_count(ctx), err, sizeof err);
    free(flat);
    free(lens);
    if (rc) return api->error(ctx, "GetCurProcessingRankID: %s", err);
    int64_t rank = cur_rank(api, ctx, st, &g);
    coll_groups_free(&g);
    return rank < 0 ? TRN_ERR : deliver(api, ctx, "GetCurProcessingRankID", rank);
}
