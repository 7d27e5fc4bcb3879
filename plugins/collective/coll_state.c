#include "coll_state.h"

#include <stdlib.h>

void *coll_scratch(coll_state *st, size_t bytes) {
    if (bytes <= st->scratch_cap && st->scratch) return st->scratch;
    size_t cap = (bytes + 4095) & ~(size_t)4095;
    void *p = NULL;
    if (posix_memalign(&p, 64, cap ? cap : 64)) return NULL;
    free(st->scratch);
    st->scratch = p;
    st->scratch_cap = cap;
    return p;
}

trn_status coll_resume(coll_core *me) {
    if (!me->rec->done) return TRN_WAIT;
    me->waiting = false;
    me->rec = NULL;
    return TRN_OK;
}

trn_status coll_wait_on(coll_core *me, uint64_t instr, const coll_record *rec) {
    me->waiting = true;
    me->instr = instr;
    me->rec = rec;
    return TRN_WAIT;
}

/* ---- what the registry keeps, against machine.max_bytes ---- */

size_t coll_record_bytes(const coll_record *rec) {
    const coll_spec *sp = &rec->spec;
    return sizeof *rec + sizeof rec +
           (size_t)sp->groups.n_groups * sp->groups.size * sizeof *sp->groups.ids +
           2 * sp->n_pairs * sizeof *sp->pairs + sp->n_counts * sp->n_counts * sizeof *sp->counts;
}

trn_status coll_keep(const trn_host_api *api, trn_ctx *ctx, const coll_record *rec) {
    if (!TRN_API_HAS(api, keep_bytes)) return TRN_OK;
    return api->keep_bytes(ctx, (int64_t)coll_record_bytes(rec));
}

static void count_dropped(void *arg, const coll_record *rec) {
    if (!rec->restored)
        *(int64_t *)arg += (int64_t)coll_record_bytes(rec); /* a dump's were never counted */
}

/* The records the cores wait on: the registry must keep them. */
static const coll_record **held_records(coll_state *st) {
    if (st->held_cap < st->cores) {
        const coll_record **h = realloc(st->held, st->cores * sizeof *h);
        if (!h) return NULL;
        st->held = h;
        st->held_cap = st->cores;
    }
    for (uint32_t c = 0; c < st->cores; ++c) st->held[c] = st->core[c].rec;
    return st->held;
}

void coll_trim(const trn_host_api *api, trn_ctx *ctx, coll_state *st, int64_t src, int64_t dst) {
    if (st->remote_ops) return; /* an MPI run: other processes' records are not here to compare */
    const coll_record **held = held_records(st);
    if (!held) return; /* out of memory: keep everything, correct if larger */
    int64_t freed = 0;
    if (src < 0)
        coll_registry_trim(st->reg, held, st->cores, count_dropped, &freed);
    else
        coll_registry_trim_channel(st->reg, (uint32_t)src, (uint32_t)dst, held, st->cores,
                                   count_dropped, &freed);
    if (freed && TRN_API_HAS(api, keep_bytes)) api->keep_bytes(ctx, -freed);
}
