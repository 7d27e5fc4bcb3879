#include "coll_stream.h"

#include <stdlib.h>

#include "coll_reduce.h"
#include "coll_state.h"

/* fp32 bytes for the N input pieces: they stay inside a 1 MiB L2. */
#define STREAM_BUDGET (512u * 1024u)

static bool same_shape(const trn_ap *a, const trn_ap *b) {
    if (a->part_count != b->part_count || a->ndims != b->ndims) return false;
    for (uint32_t d = 0; d < a->ndims; ++d)
        if (a->dims[d].num != b->dims[d].num) return false;
    return true;
}

bool coll_stream_possible(const coll_exec *x) {
#ifdef TRNSIM_REF_MODULE
    return false; /* the reference module folds every input whole, in one piece */
#endif
    for (uint32_t i = 1; i < x->n; ++i)
        if (!same_shape(&x->recs[i]->in[0], &x->recs[0]->in[0])) return false;
    return true;
}

/* The pieces: runs of whole partitions when a partition is small, else
 * runs of outer rows (dims[0]) inside one partition. Both are contiguous
 * ranges of the dense visiting order. */
typedef struct pieces {
    bool rows;         /* split inside partitions */
    int64_t unit;      /* elements of one partition, or of one dims[0] row */
    int64_t per_piece; /* partitions, or rows, per piece */
} pieces;

static pieces plan(const trn_ap *ap, uint32_t n) {
    pieces p;
    int64_t target = STREAM_BUDGET / (int64_t)sizeof(float) / (int64_t)n;
    int64_t per_part = trn_ap_free_elems(ap);
    p.rows = ap->ndims > 0 && per_part > target;
    p.unit = p.rows ? per_part / ap->dims[0].num : per_part;
    p.per_piece = target / p.unit;
    if (p.per_piece < 1) p.per_piece = 1;
    return p;
}

/* Partition `part` (rows mode), units [u0, u0 + nu) of ap. */
static trn_ap piece_ap(const trn_ap *ap, const pieces *p, uint32_t part, int64_t u0, int64_t nu) {
    trn_ap s = *ap;
    if (p->rows) {
        s.part_start = ap->part_start + part * ap->part_step;
        s.part_count = 1;
        s.offset = ap->offset + u0 * ap->dims[0].step;
        s.dims[0].num = nu;
    } else {
        s.part_start = ap->part_start + (uint32_t)u0 * ap->part_step;
        s.part_count = (uint32_t)nu;
    }
    return s;
}

/* Read one piece of every input and fold it into res (its place in the
 * full result). */
static trn_status fold_piece(const coll_exec *x, const pieces *p, uint32_t part, int64_t u0,
                             int64_t nu, const float **ins, float *res) {
    for (uint32_t i = 0; i < x->n; ++i) {
        trn_ap a = piece_ap(&x->recs[i]->in[0], p, part, u0, nu);
        if (x->api->read_f32(x->ctx, &a, (float *)ins[i]) != TRN_OK) return TRN_ERR;
    }
    coll_reduce(x->sp->op, ins, x->n, (size_t)(nu * p->unit), x->sp->has_scale, x->sp->scale, res);
    return TRN_OK;
}

trn_status coll_stream_allreduce(const coll_exec *x) {
    const trn_ap *shape = &x->recs[0]->in[0];
    int64_t e = trn_ap_elems(shape);
    pieces p = plan(shape, x->n);
    /* strides in floats, rounded up to whole 64-byte lines */
    size_t stride = ((size_t)(p.per_piece * p.unit) + 15) & ~(size_t)15;
    size_t res_len = ((size_t)e + 15) & ~(size_t)15,
           bytes = (res_len + stride * x->n) * sizeof(float);
    float *buf = coll_scratch(x->st, bytes);
    const float **ins = malloc(x->n * sizeof *ins);
    if (!buf || !ins) {
        free(ins);
        return x->api->error(x->ctx, "AllReduce (kind 2): out of memory (%zu bytes)", bytes);
    }
    float *res = buf;
    for (uint32_t i = 0; i < x->n; ++i) ins[i] = buf + res_len + stride * i;
    trn_status rc = TRN_OK;
    uint32_t parts = p.rows ? shape->part_count : 1;
    int64_t units = p.rows ? shape->dims[0].num : shape->part_count, done = 0;
    for (uint32_t part = 0; part < parts && rc == TRN_OK; ++part) {
        for (int64_t u0 = 0; u0 < units && rc == TRN_OK; u0 += p.per_piece) {
            int64_t nu = units - u0 < p.per_piece ? units - u0 : p.per_piece;
            rc = fold_piece(x, &p, part, u0, nu, ins, res + done);
            done += nu * p.unit;
        }
    }
    free(ins);
    for (uint32_t i = 0; i < x->n && rc == TRN_OK; ++i)
        rc = x->api->write_f32(x->ctx, &x->recs[i]->out, res, TRN_ACC_COPY);
    return rc;
}
