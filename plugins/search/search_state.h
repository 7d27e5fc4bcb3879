/* The search module's state: its setting and scratch buffers reused across
 * instructions (a TopK row block is 8 MB; allocating it per instruction
 * would cost a page fault per 4 KiB every time). One state per module
 * instance, so two simulators in one process share nothing. */
#ifndef TRNSIM_SEARCH_STATE_H
#define TRNSIM_SEARCH_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "search_kernels.h"

typedef struct search_state {
    search_order order; /* setting duplicate_match_order */
    float *data;        /* [partitions][elements]: the data, when a whole data_out is written */
    size_t data_cap;    /* elements */
    float *row;         /* one data row, read and searched while it is in cache */
    size_t row_len_cap; /* elements */
    float *vals;        /* [partitions][8] values in or out */
    uint32_t *idx;      /* [partitions][8] indices out */
    int64_t *pos;       /* [partitions * 8] struck-out positions (sparse write) */
    float *fill;        /* [partitions * 8] the sentinel, for the sparse write */
    size_t row_cap;     /* partitions the four small buffers hold */
} search_state;

/* Make room for `parts` rows of `n` data elements (whole_data: also the
 * [parts][n] buffer). Returns 0, or -1 when memory ran out (the capacities
 * then still describe every buffer). */
int search_state_reserve(search_state *s, size_t parts, size_t n, bool whole_data);

void search_state_free(search_state *s);

#endif
