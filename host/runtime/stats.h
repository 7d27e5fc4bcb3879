/* Per-opcode instruction counts and time, for --stats. */
#ifndef TRNSIM_HOST_STATS_H
#define TRNSIM_HOST_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "trnsim/plugin.h"

typedef struct trn_stats {
    uint64_t count[TRN_IT_MAX + 1];
    uint64_t skipped[TRN_IT_MAX + 1];
    double seconds[TRN_IT_MAX + 1];
} trn_stats;

double trn_now(void);
/* names[it] may be NULL. */
void trn_stats_print(const trn_stats *st, const char *const *names, FILE *out, int json);

#endif
