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
