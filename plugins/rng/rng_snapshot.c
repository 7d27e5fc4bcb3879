/* The engines in a dump: "gen1" [cores][partitions][6] and "gen2"
 * [cores][partitions][24] uint32, each partition's row in the layout
 * GetRandState / GetRandState2 write (gen-2 DWORD-transposed,
 * tensor[word * 4 + lane]), so a dump's rows can be fed to SetRandState. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng_engine.h"
#include "rng_ops.h"
#include "rng_state.h"

/* The gen-2 rows in the dump's layout, [cores x partitions][24], staged
 * between the engine and the dump; NULL (reported) when out of memory. */
static uint32_t *staging_table(const rng_engine *e, char *err, size_t errlen) {
    size_t rows = (size_t)e->cores * e->partitions;
    uint32_t *t = malloc((rows ? rows : 1) * 24 * sizeof *t);
    if (!t) snprintf(err, errlen, "out of memory");
    return t;
}

trn_status rng_state_save(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                          size_t errlen) {
    rng_engine *e = state;
    size_t rows = (size_t)e->cores * e->partitions;
    uint32_t *t = staging_table(e, err, errlen);
    if (!t) return TRN_ERR;
    for (size_t r = 0; r < rows; ++r) rng_gen2_to_tensor(e->gen2 + r * 24, t + r * 24);
    int64_t s1[3] = {e->cores, e->partitions, 6}, s2[3] = {e->cores, e->partitions, 24};
    trn_status st = sa->put(io, "gen1", TRN_DT_UINT32, 3, s1, e->gen1);
    if (st == TRN_OK) st = sa->put(io, "gen2", TRN_DT_UINT32, 3, s2, t);
    free(t);
    return st;
}

static trn_status read_rows(const trn_state_api *sa, trn_state_io *io, const rng_engine *e,
                            const char *name, uint32_t words, uint32_t *dst, char *err,
                            size_t errlen) {
    int64_t shape[3] = {e->cores, e->partitions, words};
    char what[96];
    snprintf(what, sizeof what, "uint32 [%u][%u][%u] engine states", e->cores, e->partitions,
             words);
    if (trn_state_expect(sa, io, name, TRN_DT_UINT32, 3, shape, NULL, what, err, errlen) != TRN_OK)
        return TRN_ERR;
    return sa->get(io, name, dst, (size_t)e->cores * e->partitions * words * sizeof *dst);
}

trn_status rng_state_restore(void *state, const trn_state_api *sa, trn_state_io *io, char *err,
                             size_t errlen) {
    rng_engine *e = state;
    size_t rows = (size_t)e->cores * e->partitions;
    uint32_t *t = staging_table(e, err, errlen);
    if (!t) return TRN_ERR;
    trn_status st = read_rows(sa, io, e, "gen2", 24, t, err, errlen);
    if (st == TRN_OK) st = read_rows(sa, io, e, "gen1", 6, e->gen1, err, errlen);
    for (size_t r = 0; r < rows && st == TRN_OK; ++r)
        rng_gen2_from_tensor_exact(t + r * 24, e->gen2 + r * 24);
    free(t);
    return st;
}
