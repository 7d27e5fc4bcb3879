/* The structured trace (--trace FILE.jsonl, docs/observability.md): one
 * JSON object per executed instruction, written as the run goes by one of
 * the host's observers, with filters, a record limit and optional values. */
#ifndef TRNSIM_HOST_TRACE_H
#define TRNSIM_HOST_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/sim.h"

#define TRN_TRACE_DEFAULT_VALUES 8u /* --trace-values without =K */
#define TRN_TRACE_MAX_VALUES 4096u

typedef struct trn_trace_opts {
    const char *path;   /* a file, or "-" for standard error */
    const char *filter; /* --trace-filter text; NULL: every instruction */
    uint64_t limit;     /* --trace-limit: at most this many instruction records; 0: no limit */
    uint32_t values;    /* --trace-values: the first K elements of each output; 0: none */
    bool part;          /* path is an MPI run's part file (dist_observe.h), written as it is */
} trn_trace_opts;

/* Which instructions a trace keeps: every key given must match (AND),
 * any entry of a key's list may (OR). */
#define TRN_FILTER_MAX_RANGES 64
#define TRN_FILTER_MAX_NAMES 64
typedef struct trn_trace_filter {
    bool by_opcode, by_core, by_index, by_family, by_module;
    bool opcode[TRN_IT_MAX + 1];
    uint64_t core_lo[TRN_FILTER_MAX_RANGES], core_hi[TRN_FILTER_MAX_RANGES];
    uint64_t index_lo[TRN_FILTER_MAX_RANGES], index_hi[TRN_FILTER_MAX_RANGES];
    int n_core, n_index;
    const char *family[TRN_FILTER_MAX_NAMES], *module[TRN_FILTER_MAX_NAMES]; /* the modules' own strings */
    int n_family, n_module;
} trn_trace_filter;

/* Parse --trace-filter text against the loaded modules (opcode, family and
 * module names must exist: a misspelling gets a "did you mean"). */
int trn_trace_filter_parse(const trn_sim *s, const char *text, trn_trace_filter *f, trn_error *e);
bool trn_trace_filter_keeps(const trn_trace_filter *f, const trn_observation *ob);

typedef struct trn_trace trn_trace;

/* Check the options, create the file and register the observer. Nothing
 * is created when the options are bad. */
int trn_trace_begin(trn_sim *s, const trn_trace_opts *o, trn_trace **out, trn_error *e);
/* Unregister, flush and close; -1 when writing failed (the message names
 * the file). NULL does nothing. */
int trn_trace_end(trn_sim *s, trn_trace *t, trn_error *e);

#endif
