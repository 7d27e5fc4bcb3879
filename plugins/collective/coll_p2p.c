/* CollectiveSend (IT 49) / CollectiveRecv (IT 50): point to point through
 * the registry. The j-th send from core a to core b meets the j-th receive
 * at b from a; whichever arrives second copies the data and completes both.
 * The first waits, so a send without its receive (or the reverse) never
 * completes and the host reports the deadlock. */
#include <stdlib.h>

#include "coll_exec.h"
#include "coll_met.h"
#include "coll_ops.h"
#include "registry.h"

/* peer_id: one integer for every core, or a list with one entry per core;
 * -1 means this core does not take part. */
static trn_status read_peer(const trn_host_api *api, trn_ctx *ctx, const char *op, uint32_t core,
                            uint32_t cores, int64_t *peer) {
    const trn_value *v = api->attr(ctx, "peer_id");
    if (!v)
        return api->error(
            ctx, "%s needs the attribute 'peer_id' (a core, or a list with one per core)", op);
    if (api->value_kind(v) == TRN_V_LIST) {
        size_t n = api->value_len(v);
        if (n != cores)
            return api->error(ctx, "%s: peer_id has %zu entries, expected one per core (%u)", op, n,
                              cores);
        if (api->value_int(ctx, api->value_at(v, core), peer) != TRN_FOUND) return TRN_ERR;
    } else if (api->attr_int(ctx, "peer_id", peer) != TRN_FOUND) {
        return TRN_ERR;
    }
    if (*peer == -1) return TRN_OK;
    if (*peer < 0 || *peer >= (int64_t)cores)
        return api->error(
            ctx,
            "%s: peer_id %lld names a core that does not exist (the run has %u cores: 0..%u; -1 = "
            "no transfer on this core)",
            op, (long long)*peer, cores, cores - 1);
    if (*peer == (int64_t)core)
        return api->error(
            ctx,
            "%s: peer_id %lld is this core itself (a core cannot send to or receive from itself)",
            op, (long long)*peer);
    return TRN_OK;
}

/* peer_id and the operand counts: everything but the transfer. */
static trn_status validate(const trn_host_api *api, trn_ctx *ctx, coll_side side, int64_t *peer) {
    const char *op = side == COLL_SEND ? "CollectiveSend" : "CollectiveRecv";
    if (read_peer(api, ctx, op, api->core_id(ctx), api->core_count(ctx), peer) != TRN_OK)
        return TRN_ERR;
    int n_in = api->operand_count(ctx, TRN_IN), n_out = api->operand_count(ctx, TRN_OUT);
    if (side == COLL_SEND ? (n_in != 1 || n_out != 0) : (n_in != 0 || n_out != 1))
        return api->error(ctx, "%s takes %s, the instruction has %d inputs and %d outputs", op,
                          side == COLL_SEND ? "1 input and no output" : "no input and 1 output",
                          n_in, n_out);
    return TRN_OK;
}

static trn_status check_p2p(const trn_host_api *api, trn_ctx *ctx, coll_side side) {
    int64_t peer;
    trn_ap ap;
    if (validate(api, ctx, side, &peer) != TRN_OK) return TRN_ERR;
    if (peer == -1) return TRN_OK;
    return side == COLL_SEND ? api->operand(ctx, TRN_IN, 0, &ap)
                             : api->operand(ctx, TRN_OUT, 0, &ap);
}

trn_status coll_check_send(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)state;
    return check_p2p(api, ctx, COLL_SEND);
}
trn_status coll_check_recv(const trn_host_api *api, trn_ctx *ctx, void *state) {
    (void)state;
    return check_p2p(api, ctx, COLL_RECV);
}

static trn_status p2p(const trn_host_api *api, trn_ctx *ctx, coll_state *st, coll_side side) {
    uint32_t core = api->core_id(ctx);
    uint64_t instr = api->instruction_index(ctx);
    coll_core *me = &st->core[core];
    if (me->waiting && me->instr == instr)
        return me->pending ? st->remote_ops->resume(api, ctx, st, me) : coll_resume(me);
    int64_t peer;
    if (validate(api, ctx, side, &peer) != TRN_OK) return TRN_ERR;
    if (peer == -1) return TRN_OK;
    coll_record *rec = calloc(1, sizeof *rec);
    if (!rec) return api->error(ctx, "out of memory");
    rec->core = core;
    rec->instr = instr;
    rec->peer = (uint32_t)peer;
    rec->member = true;
    trn_status rc = side == COLL_SEND ? api->operand(ctx, TRN_IN, 0, &rec->in[0])
                                      : api->operand(ctx, TRN_OUT, 0, &rec->out);
    if (rc != TRN_OK) { /* the operand is not filled: count nothing from it */
        coll_record_free(rec);
        return TRN_ERR;
    }
    rec->in_count[0] = side == COLL_SEND ? trn_ap_elems(&rec->in[0]) : 0;
    rec->out_count = side == COLL_SEND ? 0 : trn_ap_elems(&rec->out);
    uint32_t src = side == COLL_SEND ? core : rec->peer, dst = side == COLL_SEND ? rec->peer : core;
    coll_trim(api, ctx, st, src, dst);
    if (coll_keep(api, ctx, rec) != TRN_OK) {
        coll_record_free(rec);
        return TRN_ERR;
    }
    if (coll_registry_p2p_post(st->reg, src, dst, side, rec)) {
        coll_record_free(rec);
        return api->error(ctx, "out of memory");
    }
    if (st->remote_ops && st->remote_ops->is_remote(st, rec->peer))
        return st->remote_ops->p2p(api, ctx, st, rec, side == COLL_SEND);
    coll_record *other = coll_registry_p2p_get(st->reg, src, dst,
                                               side == COLL_SEND ? COLL_RECV : COLL_SEND, rec->seq);
    if (!other) return coll_wait_on(me, instr, rec);
    const coll_record *send = side == COLL_SEND ? rec : other,
                      *recv = side == COLL_SEND ? other : rec;
    rc = coll_exec_p2p(api, ctx, st, send, recv);
    if (rc == TRN_OK) rc = coll_met_p2p(api, ctx, send, recv);
    if (rc == TRN_OK) rec->done = other->done = true;
    return rc;
}

trn_status coll_h_send(const trn_host_api *api, trn_ctx *ctx, void *state) {
    return p2p(api, ctx, state, COLL_SEND);
}
trn_status coll_h_recv(const trn_host_api *api, trn_ctx *ctx, void *state) {
    return p2p(api, ctx, state, COLL_RECV);
}
