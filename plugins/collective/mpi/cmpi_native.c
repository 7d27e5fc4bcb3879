/* The fast mode (collective.mpi_reduce = "native", docs/mpi.md): MPI's own
 * MPI_Allreduce / MPI_Reduce_scatter_block over every core.
 *
 * MPI works on the simulated memory in place where the host lends it
 * (plugin.h, ABI 3): with one member per process and an fp32 input that is
 * one contiguous run, the input's lent bytes are MPI's send buffer; an
 * output that is one contiguous run is MPI's receive buffer (every other
 * local output gets a copy of it). Anything else (other dtypes, strided
 * rows, outputs that partly overlap the input or each other, a host that
 * lends nothing) goes through dense fp32 buffers and the copying calls, as
 * before. Either way the bits are MPI's: the lent path hands MPI the same
 * values as the copying one, so the two agree bit for bit (the tests run
 * both, direct_access on and off). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../coll.h"
#include "cmpi.h"

/* What run_native works with: the lent input (or the dense fold) and the
 * lent outputs (or the dense result). */
typedef struct native_io {
    const cmpi_native *job;
    trn_view in; /* the single local input, when lent */
    bool in_lent;
    trn_view *out;     /* [nl] local outputs, when lent */
    uint32_t out_lent; /* how many of them are held */
    bool outs_direct;  /* MPI writes out[0] in place */
    const float *send; /* MPI's send buffer (MPI_IN_PLACE: NULL) */
    float *recv;
    float *fold, *res; /* dense buffers (pool) */
    size_t cap_fold, cap_res;
} native_io;

static trn_status oom(const cmpi_native *j) { return j->api->error(j->ctx, "out of memory"); }

/* One contiguous run of `elems` aligned fp32 values. */
static bool flat_f32(const trn_view *v, int64_t elems) {
    return (v->flags & TRN_VIEW_BLOCK) && v->dtype == TRN_DT_FP32 &&
           ((uintptr_t)v->base & 3) == 0 && (int64_t)v->parts * v->free_elems == elems;
}

static bool meet(const trn_view *a, const trn_view *b) { return a->lo < b->hi && b->lo < a->hi; }
static bool same(const trn_view *a, const trn_view *b) { return a->lo == b->lo && a->hi == b->hi; }

static bool can_lend(const cmpi_native *j) { return TRN_API_HAS(j->api, lend_cancel); }

static trn_status read_f32(const cmpi_native *j, const trn_ap *ap, float *dst) {
    return ap->dtype == TRN_DT_FP32 ? j->api->read_raw(j->ctx, ap, dst)
                                    : j->api->read_f32(j->ctx, ap, dst);
}

static trn_status write_f32(const cmpi_native *j, const trn_ap *ap, const float *src) {
    return ap->dtype == TRN_DT_FP32 ? j->api->write_raw(j->ctx, ap, src)
                                    : j->api->write_f32(j->ctx, ap, src, TRN_ACC_COPY);
}

/* The send side: the lone local input in place, or the local members read
 * and folded in position order into a dense buffer. */
static trn_status prepare_send(native_io *io) {
    const cmpi_native *j = io->job;
    if (j->nl == 1 && can_lend(j)) {
        trn_lend_status s = j->api->lend(j->ctx, &j->local[0]->in[0], TRN_LEND_READ, &io->in);
        if (s == TRN_LEND_ERR) return TRN_ERR;
        if (s == TRN_LENT && flat_f32(&io->in, j->e)) {
            io->in_lent = true;
            io->send = (const float *)(const void *)io->in.base;
            return TRN_OK;
        }
        if (s == TRN_LENT) j->api->lend_cancel(j->ctx, &io->in);
    }
    io->fold = cmpi_buf_get(j->m, (size_t)j->nl * (size_t)j->e * sizeof(float) + 4, &io->cap_fold);
    if (!io->fold) return oom(j);
    for (uint32_t l = 0; l < j->nl; ++l)
        if (read_f32(j, &j->local[l]->in[0], io->fold + (size_t)l * (size_t)j->e) != TRN_OK)
            return TRN_ERR;
    if (j->nl > 1) { /* in place into the first (coll_reduce allows res == ins[0]) */
        const float **ins = malloc(j->nl * sizeof *ins);
        if (!ins) return oom(j);
        for (uint32_t l = 0; l < j->nl; ++l) ins[l] = io->fold + (size_t)l * (size_t)j->e;
        coll_reduce(j->op, ins, j->nl, (size_t)j->e, false, 0, io->fold);
        free(ins);
    }
    io->send = io->fold;
    return TRN_OK;
}

/* Can MPI write the outputs in place? Each must be one run, none may meet
 * the lent input (except being exactly it: MPI_IN_PLACE), and two outputs
 * are either the same bytes or apart. */
static bool outputs_fit(const native_io *io, int64_t count) {
    const cmpi_native *j = io->job;
    for (uint32_t o = 0; o < j->nl; ++o) {
        const trn_view *v = &io->out[o];
        if (!flat_f32(v, count)) return false;
        if (io->in_lent && meet(v, &io->in) && (j->scatter || !same(v, &io->in))) return false;
        for (uint32_t p = 0; p < o; ++p)
            if (meet(v, &io->out[p]) && !same(v, &io->out[p])) return false;
    }
    return true;
}

static void give_back_outputs(native_io *io, bool used) {
    for (uint32_t o = 0; o < io->out_lent; ++o)
        (used ? io->job->api->lend_end : io->job->api->lend_cancel)(io->job->ctx, &io->out[o]);
    io->out_lent = 0;
}

/* The receive side: the first local output in place (allreduce, or a
 * reduce-scatter whose block is that one output), else a dense buffer. */
static trn_status prepare_recv(native_io *io) {
    const cmpi_native *j = io->job;
    int64_t count = j->scatter ? j->e / j->n : j->e;
    bool try_lend = can_lend(j) && (!j->scatter || j->nl == 1);
    if (try_lend && !(io->out = calloc(j->nl, sizeof *io->out))) return oom(j);
    for (uint32_t o = 0; try_lend && o < j->nl; ++o) {
        trn_lend_status s = j->api->lend(j->ctx, &j->local[o]->out, TRN_LEND_WRITE, &io->out[o]);
        if (s == TRN_LEND_ERR) return TRN_ERR;
        if (s != TRN_LENT) break;
        io->out_lent++;
    }
    if (try_lend && io->out_lent == j->nl && outputs_fit(io, count)) {
        io->outs_direct = true;
        io->recv = (float *)(void *)io->out[0].base;
        if (io->in_lent && same(&io->out[0], &io->in)) io->send = NULL; /* in place */
        return TRN_OK;
    }
    give_back_outputs(io, false);
    size_t block = (size_t)(j->scatter ? j->e / j->n * j->nl : j->e);
    io->res = cmpi_buf_get(j->m, block * sizeof(float) + 4, &io->cap_res);
    if (!io->res) return oom(j);
    io->recv = io->res;
    return TRN_OK;
}

static MPI_Op mpi_op(int64_t op) {
    return op == COLL_OP_MAX ? MPI_MAX : op == COLL_OP_MIN ? MPI_MIN : MPI_SUM;
}

/* Separate buffers where it can, as a user of MPI passes them (in place is
 * a slower path in Open MPI). */
static trn_status call_mpi(native_io *io) {
    const cmpi_native *j = io->job;
    const void *send = io->send ? (const void *)io->send : MPI_IN_PLACE;
    int rc = j->scatter
                 ? MPI_Reduce_scatter_block(send, io->recv, (int)(j->e / j->n * j->nl), MPI_FLOAT,
                                            mpi_op(j->op), j->m->comm)
                 : MPI_Allreduce(send, io->recv, (int)j->e, MPI_FLOAT, mpi_op(j->op), j->m->comm);
    if (rc != MPI_SUCCESS)
        return j->api->error(j->ctx, "%s failed (MPI error %d)",
                             j->scatter ? "MPI_Reduce_scatter_block" : "MPI_Allreduce", rc);
    return TRN_OK;
}

/* The result into every local output: copies of out[0] in place, or the
 * dense result through the copying calls (after every view is back). */
static trn_status deliver(native_io *io) {
    const cmpi_native *j = io->job;
    if (io->outs_direct) {
        for (uint32_t o = 1; o < j->nl; ++o)
            if (io->out[o].base != io->out[0].base)
                memcpy(io->out[o].base, io->out[0].base, (size_t)j->e * sizeof(float));
        give_back_outputs(io, true);
        return TRN_OK;
    }
    if (io->in_lent) j->api->lend_end(j->ctx, &io->in);
    io->in_lent = false;
    int64_t part = j->scatter ? j->e / j->n : 0;
    for (uint32_t l = 0; l < j->nl; ++l) { /* scatter: this process's consecutive parts, by core */
        size_t at = j->scatter ? (size_t)(j->local[l]->core % j->m->per) * (size_t)part : 0;
        if (write_f32(j, &j->local[l]->out, io->res + at) != TRN_OK) return TRN_ERR;
    }
    return TRN_OK;
}

static void note(const cmpi_native *j) {
    j->m->native_reductions++;
    if (j->m->native_noted || j->m->rank != 0) return;
    j->m->native_noted = true;
    j->api->log(j->ctx, TRN_LOG_WARN,
                "collective.mpi_reduce = \"native\": %s folds in MPI's order, not core order; fp32 "
                "add is not "
                "bit-exact (docs/mpi.md)",
                j->scatter ? "MPI_Reduce_scatter_block" : "MPI_Allreduce");
}

/* Which buffers MPI got, for --trace-text (and the tests that check that
 * the lent path is taken where it should be). */
static void say_buffers(const native_io *io) {
    const cmpi_native *j = io->job;
    j->api->log(j->ctx, TRN_LOG_INFO, "%s: MPI %s; %s",
                j->scatter ? "MPI_Reduce_scatter_block" : "MPI_Allreduce",
                !io->send     ? "works in place on the lent input (MPI_IN_PLACE)"
                : io->in_lent ? "reads the lent input in place"
                              : "reads a dense fold of the inputs",
                io->outs_direct ? "writes the lent output in place"
                                : "writes a dense buffer, copied into the outputs");
}

trn_status cmpi_native_reduce(const cmpi_native *job) {
    native_io io = {.job = job};
    trn_status rc = prepare_send(&io);
    if (rc == TRN_OK) rc = prepare_recv(&io);
    if (rc == TRN_OK) say_buffers(&io);
    if (rc == TRN_OK) rc = call_mpi(&io);
    if (rc == TRN_OK) rc = deliver(&io);
    if (rc == TRN_OK) note(job);
    give_back_outputs(&io, false); /* only after a failure: nothing was stored through them */
    if (io.in_lent) job->api->lend_end(job->ctx, &io.in);
    free(io.out);
    cmpi_buf_put(job->m, io.fold, io.cap_fold);
    cmpi_buf_put(job->m, io.res, io.cap_res);
    return rc;
}
