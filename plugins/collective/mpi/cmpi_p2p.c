/* CollectiveSend / CollectiveRecv between processes. The sender's input
 * travels in one synchronous-mode message (MPI_Issend: complete only when
 * the receive has matched it, the in-process rule that a send waits for its
 * receive) on a tag that names the pair of cores, so MPI's in-order
 * delivery lines up the j-th send with the j-th receive. The receiver puts
 * the bytes into its copy of the sender's memory and runs the in-process
 * copy (coll_exec_p2p): the same count check, the same raw-or-fp32 rule,
 * the same messages. */
#include <stdlib.h>
#include <string.h>

#include "../coll.h"
#include "cmpi.h"

typedef struct p2p_head {
    uint32_t core, pad;
    uint64_t instr, seq;
    int64_t count;
    trn_ap in;
} p2p_head;

typedef struct p2p_op {
    cmpi_op base;
    cmpi *m;
    coll_state *st;
    coll_record *rec; /* this side, owned by the registry */
    bool send;
    int peer_rank, tag;
    char *buf; /* send: head + data */
} p2p_op;

static void destroy(cmpi_op *o) {
    p2p_op *op = (p2p_op *)o;
    cmpi_reqs_free(&op->base.reqs);
    free(op->buf);
    free(op);
}

static int pair_tag(const cmpi *m, uint32_t src, uint32_t dst) {
    return CMPI_TAG_P2P + (int)((src % m->per) * m->per + dst % m->per);
}

static trn_status finish(p2p_op *op) {
    op->rec->done = true;
    cmpi_untrack(op->m, &op->base);
    destroy(&op->base);
    return TRN_OK;
}

static bool ready_send(cmpi_op *o) { return cmpi_test(&o->reqs); }

static bool ready_recv(cmpi_op *o) {
    p2p_op *op = (p2p_op *)o;
    int flag = 0;
    MPI_Iprobe(op->peer_rank, op->tag, op->m->comm, &flag, MPI_STATUS_IGNORE);
    return flag != 0;
}

static trn_status step_send(cmpi_op *o, const trn_host_api *api, trn_ctx *ctx) {
    p2p_op *op = (p2p_op *)o;
    return cmpi_test(&op->base.reqs) ? finish(op) : TRN_WAIT;
}

/* The matched message: its bytes into the copy of the sender's memory,
 * then the in-process copy into this core's output. */
static trn_status step_recv(cmpi_op *o, const trn_host_api *api, trn_ctx *ctx) {
    p2p_op *op = (p2p_op *)o;
    int flag = 0, bytes = 0;
    MPI_Message msg;
    MPI_Status s;
    MPI_Improbe(op->peer_rank, op->tag, op->m->comm, &flag, &msg, &s);
    if (!flag) return TRN_WAIT;
    MPI_Get_count(&s, MPI_BYTE, &bytes);
    char *buf = malloc(bytes > 0 ? (size_t)bytes : 1);
    if (!buf) return api->error(ctx, "CollectiveRecv: out of memory for %d bytes", bytes);
    MPI_Mrecv(buf, bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    p2p_head h;
    memcpy(&h, buf, sizeof h);
    coll_record send = {.core = h.core, .instr = h.instr, .seq = h.seq, .member = true, .n_in = 1};
    send.in[0] = h.in;
    send.in_count[0] = h.count;
    trn_status rc = api->write_raw(ctx, &h.in, buf + sizeof h);
    if (rc == TRN_OK) rc = coll_exec_p2p(api, ctx, op->st, &send, op->rec);
    if (rc == TRN_OK)
        rc = coll_met_p2p(api, ctx, &send, op->rec); /* the receiver knows both ends */
    free(buf);
    return rc == TRN_OK ? finish(op) : rc;
}

static trn_status start_send(const trn_host_api *api, trn_ctx *ctx, p2p_op *op) {
    const coll_record *rec = op->rec;
    size_t w = api->dtype_width((trn_dtype)rec->in[0].dtype), data = (size_t)rec->in_count[0] * w;
    if (sizeof(p2p_head) + data > (size_t)1 << 30)
        return api->error(
            ctx,
            "CollectiveSend: %zu bytes to core %u in another MPI process; at most 1 GiB per "
            "message crosses processes (split the transfer)",
            data, rec->peer);
    op->buf = malloc(sizeof(p2p_head) + data);
    if (!op->buf) return api->error(ctx, "CollectiveSend: out of memory for %zu bytes", data);
    p2p_head h = {rec->core, 0, rec->instr, rec->seq, rec->in_count[0], rec->in[0]};
    memcpy(op->buf, &h, sizeof h);
    if (api->read_raw(ctx, &rec->in[0], op->buf + sizeof h) != TRN_OK) return TRN_ERR;
    MPI_Request *q = cmpi_slot(&op->base.reqs);
    if (!q) return api->error(ctx, "out of memory");
    MPI_Issend(op->buf, (int)(sizeof h + data), MPI_BYTE, op->peer_rank, op->tag, op->m->comm, q);
    return TRN_OK;
}

trn_status cmpi_p2p(const trn_host_api *api, trn_ctx *ctx, coll_state *st, coll_record *rec,
                    bool send) {
    cmpi *m = st->remote;
    if (m->per * m->per > (1u << 20))
        return api->error(
            ctx,
            "CollectiveSend / CollectiveRecv across MPI processes support at most 1024 cores per "
            "process, this run has %u",
            m->per);
    p2p_op *op = calloc(1, sizeof *op);
    if (!op) return api->error(ctx, "out of memory");
    op->base.step = send ? step_send : step_recv;
    op->base.ready = send ? ready_send : ready_recv;
    op->base.destroy = destroy;
    op->m = m;
    op->st = st;
    op->rec = rec;
    op->send = send;
    op->peer_rank = cmpi_owner(m, rec->peer);
    op->tag = send ? pair_tag(m, rec->core, rec->peer) : pair_tag(m, rec->peer, rec->core);
    if (send && start_send(api, ctx, op) != TRN_OK) {
        destroy(&op->base);
        return TRN_ERR;
    }
    cmpi_track(m, &op->base);
    coll_core *me = &st->core[rec->core];
    me->pending = op;
    coll_wait_on(me, rec->instr, rec);
    return cmpi_resume(api, ctx, st, me);
}

trn_status cmpi_resume(const trn_host_api *api, trn_ctx *ctx, coll_state *st, coll_core *me) {
    cmpi_op *op = me->pending;
    trn_status rc = op->step(op, api, ctx);
    if (rc == TRN_WAIT) return TRN_WAIT;
    me->pending = NULL;
    if (rc == TRN_ERR) return TRN_ERR;
    return coll_resume(me);
}
