/* The module's state: its settings (from init) and the per-run registry
 * and per-core wait records (from run_begin). No globals: two sims in one
 * process each have their own. */
#ifndef COLL_STATE_H
#define COLL_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "registry.h"
#include "trnsim/plugin.h"

typedef struct coll_settings {
    bool multiworker;       /* regime = "multiworker" */
    uint32_t cores_per_lnc; /* rank of core = core / cores_per_lnc */
    bool multi_lnc_allow;   /* multi_lnc = "allow" */
    int64_t *rank_table;    /* GetCurProcessingRankID permutation, NULL = identity */
    size_t rank_table_len;
} coll_settings;

/* A core that returned TRN_WAIT: the instruction it waits at and the
 * record whose completion it waits for. */
typedef struct coll_core {
    bool waiting;
    uint64_t instr;
    const coll_record *rec;
} coll_core;

typedef struct coll_state {
    coll_settings set;
    uint32_t cores;
    coll_registry *reg;
    coll_core *core;
    /* Scratch for the dense buffers of one operation, kept between
     * operations and runs so large collectives do not fault pages in on
     * every call. */
    void *scratch;
    size_t scratch_cap;
} coll_state;

/* At least `bytes` of scratch (64-byte aligned), NULL when out of memory.
 * Valid until the next call. */
void *coll_scratch(coll_state *st, size_t bytes);

/* A core's wait bookkeeping: resume (TRN_OK once rec is done, else
 * TRN_WAIT) or start waiting on rec. */
trn_status coll_resume(coll_core *me);
trn_status coll_wait_on(coll_core *me, uint64_t instr, const coll_record *rec);

#endif
