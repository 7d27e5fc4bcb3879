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
    void *pending; /* an exchange with other processes this core drives (coll_remote.h) */
} coll_core;

struct coll_state;
/* A backend that reaches cores in other processes (mpi/: the MPI
 * transport). NULL in the single-process module: every core is here. */
typedef struct coll_remote_ops {
    /* Has the party members outside this process? */
    bool (*spans)(const struct coll_state *st, const uint32_t *members, uint32_t n);
    /* The party's rendezvous once rec is posted (CollectiveCompute). */
    trn_status (*compute)(const trn_host_api *api, trn_ctx *ctx, struct coll_state *st,
                          coll_record *rec, const uint32_t *members, uint32_t n,
                          const uint32_t *src_of);
    /* Is core peer in another process? Then rec (posted) is one side of a
     * channel to it (CollectiveSend / CollectiveRecv). */
    bool (*is_remote)(const struct coll_state *st, uint32_t peer);
    trn_status (*p2p)(const trn_host_api *api, trn_ctx *ctx, struct coll_state *st,
                      coll_record *rec, bool send);
    /* A waiting core called again: drive its exchange, then resume. */
    trn_status (*resume)(const trn_host_api *api, trn_ctx *ctx, struct coll_state *st,
                         coll_core *me);
} coll_remote_ops;

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
    const coll_record **held; /* coll_trim's list of the records cores wait on */
    uint32_t held_cap;
    const coll_remote_ops *remote_ops; /* NULL: every core is in this process */
    void *remote;                      /* the backend's state */
} coll_state;

/* At least `bytes` of scratch (64-byte aligned), NULL when out of memory.
 * Valid until the next call. */
void *coll_scratch(coll_state *st, size_t bytes);

/* A core's wait bookkeeping: resume (TRN_OK once rec is done, else
 * TRN_WAIT) or start waiting on rec. */
trn_status coll_resume(coll_core *me);

/* The registry's records count against machine.max_bytes (host API
 * keep_bytes): coll_keep before posting rec (TRN_ERR: over the budget, the
 * message is recorded), coll_trim drops what no core can need again and
 * gives its bytes back: the CollectiveCompute lists (src < 0) or the
 * channel src -> dst. Single-process runs only. */
size_t coll_record_bytes(const coll_record *rec);
trn_status coll_keep(const trn_host_api *api, trn_ctx *ctx, const coll_record *rec);
void coll_trim(const trn_host_api *api, trn_ctx *ctx, coll_state *st, int64_t src, int64_t dst);
trn_status coll_wait_on(coll_core *me, uint64_t instr, const coll_record *rec);

#endif
