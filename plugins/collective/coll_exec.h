/* Running a collective once every participant has arrived: the last core
 * to arrive validates the participants' element counts, checks every
 * output, reads every participant's input, and writes every participant's
 * output (nothing is written when anything fails). */
#ifndef COLL_EXEC_H
#define COLL_EXEC_H

#include "coll_record.h"
#include "coll_state.h"

typedef struct coll_exec {
    const trn_host_api *api;
    trn_ctx *ctx; /* the executing (last arriving) core */
    coll_state *st;
    const coll_spec *sp; /* the agreed spec */
    coll_record *const
        *recs; /* the participants by position (coll_compute.c: core order or listed order) */
    uint32_t n;
    const uint32_t *src_of; /* Permute: the source core of each participant */
    /* The static check: validate the participants' counts, partitions and
     * outputs, then stop before any data moves. */
    bool validate_only;
} coll_exec;

/* Every kind with peers (0..7, 9, 10). */
trn_status coll_exec_run(const coll_exec *x);

/* The default arm (kind 8 and unknown kinds): this core's input copied to
 * its output. */
trn_status coll_exec_identity(const trn_host_api *api, trn_ctx *ctx, coll_state *st,
                              const coll_record *rec);

/* The multi-worker AllReduce: this core alone, doReduction over its own
 * input with scale = replicas (the reference's local x N). */
trn_status coll_exec_local_allreduce(const trn_host_api *api, trn_ctx *ctx, coll_state *st,
                                     const coll_record *rec, uint32_t replicas);

/* Point to point: send's input into recv's output. */
trn_status coll_exec_p2p(const trn_host_api *api, trn_ctx *ctx, coll_state *st,
                         const coll_record *send, const coll_record *recv);

#endif
