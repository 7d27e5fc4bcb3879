/* DMATrigger's fire counters in a dump: "triggers" int64 [N][4], one row
 * (core, trigger id, fires so far, blocks it owns) per trigger that fired,
 * in the order each core met them. */
#include <stdio.h>
#include <stdlib.h>

#include "dma_state.h"

trn_status dma_state_save(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                          size_t errlen) {
    const dma_state *st = state;
    size_t n = 0;
    for (uint32_t c = 0; c < st->ncores; ++c) n += st->cores[c].ntrig;
    int64_t *rows = malloc((n ? n : 1) * 4 * sizeof *rows), *r = rows;
    if (!rows) {
        snprintf(err, errlen, "out of memory");
        return TRN_ERR;
    }
    for (uint32_t c = 0; c < st->ncores; ++c)
        for (size_t i = 0; i < st->cores[c].ntrig; ++i, r += 4) {
            const dma_trigger *t = &st->cores[c].trig[i];
            r[0] = c;
            r[1] = t->id;
            r[2] = (int64_t)t->fired;
            r[3] = (int64_t)t->nblocks;
        }
    int64_t shape[2] = {(int64_t)n, 4};
    trn_status rc = sa->put(io, "triggers", TRN_DT_INT64, 2, shape, rows);
    free(rows);
    return rc;
}

static trn_status push(dma_core *c, const int64_t *row) {
    if (c->ntrig == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 8;
        dma_trigger *t = realloc(c->trig, cap * sizeof *t);
        if (!t) return TRN_ERR;
        c->trig = t;
        c->cap = cap;
    }
    c->trig[c->ntrig++] =
        (dma_trigger){.id = row[1], .fired = (uint64_t)row[2], .nblocks = (size_t)row[3]};
    return TRN_OK;
}

trn_status dma_state_restore(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                             size_t errlen) {
    dma_state *st = state;
    int64_t want[2] = {-1, 4}, shape[TRN_STATE_MAX_DIMS];
    if (trn_state_expect(sa, io, "triggers", TRN_DT_INT64, 2, want, shape,
                         "int64 [N][4] (core, id, fired, blocks)", err, errlen) != TRN_OK)
        return TRN_ERR;
    size_t n = (size_t)shape[0];
    int64_t *rows = malloc((n ? n : 1) * 4 * sizeof *rows);
    if (!rows) {
        snprintf(err, errlen, "out of memory");
        return TRN_ERR;
    }
    trn_status rc = sa->get(io, "triggers", rows, n * 4 * sizeof *rows);
    for (uint32_t c = 0; c < st->ncores; ++c) st->cores[c].ntrig = 0;
    for (size_t i = 0; i < n && rc == TRN_OK; ++i) {
        const int64_t *r = rows + 4 * i;
        if (r[0] < 0 || r[0] >= (int64_t)st->ncores || r[2] < 0 || r[3] < 1) {
            snprintf(
                err, errlen,
                "triggers[%zu]: (%lld, %lld, %lld, %lld) is not a trigger of a core of this run", i,
                (long long)r[0], (long long)r[1], (long long)r[2], (long long)r[3]);
            rc = TRN_ERR;
        } else if (push(&st->cores[r[0]], r) != TRN_OK) {
            snprintf(err, errlen, "out of memory");
            rc = TRN_ERR;
        }
    }
    free(rows);
    return rc;
}
