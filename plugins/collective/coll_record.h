/* One core's announcement of one collective: what it asks for (the spec
 * of a CollectiveCompute, or the peer of a Send / Recv) and its resolved
 * operands. The registry keeps these until the run ends; `done` is set by
 * whichever core completes the operation. */
#ifndef COLL_RECORD_H
#define COLL_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "coll_spec.h"
#include "trnsim/plugin.h"

typedef struct coll_record {
    uint32_t core;
    uint64_t instr; /* instruction index on that core */
    uint64_t seq;   /* its number in the core's sequence (set by the registry) */
    coll_spec spec; /* CollectiveCompute only */
    uint32_t peer;  /* Send / Recv only */
    bool member;    /* takes part in the exchange (else a no-op) */
    int n_in, n_out;
    trn_ap in[2], out;
    int64_t in_count[2], out_count;
    bool done;
    bool restored; /* read from a dump: its operands are checked when a core meets it
                      (coll_compute.c) */
} coll_record;

void coll_record_free(coll_record *rec);

#endif
