/* The Rng lanes in a dump: "lanes" uint32 [cores][partitions][24], each
 * partition's gen-2 state in the engine's lane-major layout
 * (lanes[lane * 6 + word]: XORWOW v0..v4 and the Weyl counter of each of
 * its 4 lanes; Rng draws lane 0). */
#include <stdio.h>

#include "exp_ops.h"
#include "exp_state.h"

trn_status exp_state_save(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                          size_t errlen) {
    (void)err;
    (void)errlen;
    const exp_state *st = state;
    int64_t shape[3] = {st->cores, st->partitions, TRN_RNG_GEN2_WORDS};
    return sa->put(io, "lanes", TRN_DT_UINT32, 3, shape, st->lanes);
}

trn_status exp_state_restore(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                             size_t errlen) {
    exp_state *st = state;
    int64_t shape[3] = {st->cores, st->partitions, TRN_RNG_GEN2_WORDS};
    char what[96];
    snprintf(what, sizeof what, "uint32 [%u][%u][%u]", st->cores, st->partitions,
             TRN_RNG_GEN2_WORDS);
    if (trn_state_expect(sa, io, "lanes", TRN_DT_UINT32, 3, shape, NULL, what, err, errlen) !=
        TRN_OK)
        return TRN_ERR;
    return sa->get(io, "lanes", st->lanes,
                   (size_t)st->cores * st->partitions * TRN_RNG_GEN2_WORDS * sizeof *st->lanes);
}
