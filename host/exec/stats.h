/* What --stats reports: per opcode the instructions, skips, time, output
 * elements and the NaN / Inf they produced; bytes each memory gave and
 * took through the host API; and per collective instruction a line in
 * nccl-tests' style (docs/cli.md, "Statistics"). */
#ifndef TRNSIM_HOST_STATS_H
#define TRNSIM_HOST_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/clock.h"
#include "trnsim/plugin.h"

/* One collective instruction of the program, over its executions. */
typedef struct trn_coll_stat {
    uint64_t number;       /* the instruction's number */
    const char *kind;      /* "AllReduce", ..., "Send", "Recv" */
    const char *redop;     /* "add", ...; NULL: none */
    uint32_t dtype;        /* trn_dtype of the data */
    uint64_t bytes;        /* nccl-tests' size: the larger of one rank's input and output */
    uint32_t ranks;        /* the group size */
    uint32_t first_core;   /* executions are counted on this core */
    uint64_t executions;
    uint64_t completions;  /* on every core */
    double seconds;        /* handler time on every core */
    bool checked;          /* a check compared its outputs (trnsim diff) */
    uint64_t wrong;        /* elements the check found differing */
} trn_coll_stat;

typedef struct trn_stats {
    uint64_t count[TRN_IT_MAX + 1];
    uint64_t skipped[TRN_IT_MAX + 1];
    double seconds[TRN_IT_MAX + 1];
    uint64_t elements[TRN_IT_MAX + 1]; /* elements of the outputs of the completed instructions */
    uint64_t nan[TRN_IT_MAX + 1], inf[TRN_IT_MAX + 1]; /* of them, NaN and +-Inf */
    uint64_t bytes_read[3], bytes_written[3];           /* by trn_mem */
    trn_coll_stat *coll;
    size_t n_coll, cap_coll;
} trn_stats;

/* names[it] may be NULL. */
void trn_stats_print(const trn_stats *st, const char *const *names, FILE *out, int json);
/* The collective line of instruction `number`, made when new (NULL: out of memory). */
trn_coll_stat *trn_stats_coll(trn_stats *st, uint64_t number);
/* nccl-tests' bus bandwidth factor of a collective kind over n ranks. */
double trn_stats_busbw_factor(const char *kind, uint32_t n);
void trn_stats_free(trn_stats *st);

#endif
