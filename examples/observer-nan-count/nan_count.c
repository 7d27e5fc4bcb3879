/* trnsim-nan-count: an observer module (plugin ABI 3). It handles no
 * opcode; after every instruction that completed it reads each output
 * operand back, counts the NaNs in it, and at the end of the run prints a
 * table per opcode: instructions, output elements, NaNs written.
 *
 * Load it beside the families a program needs:
 *   plugins = ( { family = "dma"; module = "trnsim-dma"; },
 *               { family = "nancount"; module = "/path/to/trnsim-nan-count.so";
 *                 settings = { report = "nans.txt"; }; } );
 * An observer reads memory through observed_read_f32 / observed_read_raw
 * and can change nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trnsim/plugin.h"

typedef struct opcode_count {
    const char *name; /* the handling module's string: valid while the simulator is open */
    uint64_t instructions, elements, nans;
} opcode_count;

typedef struct nan_state {
    char *report; /* file for the table; empty: stderr */
    opcode_count per_it[TRN_IT_MAX + 1];
    float *buf;
    size_t cap;
} nan_state;

static float *room(nan_state *st, size_t n) {
    if (n <= st->cap) return st->buf;
    float *grown = realloc(st->buf, n * sizeof *grown);
    if (!grown) return NULL;
    st->buf = grown;
    st->cap = n;
    return grown;
}

/* Only float dtypes (every name has "float" in it) hold NaNs; integers
 * count as elements with none, and the packed x4 forms, which have no
 * fp32 value, are not read. */
static int holds_nan(const trn_host_api *api, uint32_t dtype) {
    const char *name = api->dtype_name((trn_dtype)dtype);
    return name && strstr(name, "float") && !strstr(name, "_x4");
}

static trn_status after(const trn_host_api *api, const trn_observation *ob, void *state) {
    nan_state *st = state;
    if (ob->status != TRN_OK)
        return TRN_OK; /* a wait writes nothing; an error ends the run anyway */
    opcode_count *c = &st->per_it[ob->it];
    c->name = ob->opcode;
    c->instructions++;
    for (uint32_t k = 0; k < ob->n_out; ++k) {
        const trn_ap *ap = &ob->out[k].ap;
        if (!ob->out[k].resolved) continue;
        size_t n = (size_t)trn_ap_elems(ap);
        c->elements += n;
        if (!holds_nan(api, ap->dtype)) continue;
        float *v = room(st, n);
        if (!v)
            return api->observer_stop(ob, "trnsim-nan-count: out of memory for %zu elements", n);
        if (api->observed_read_f32(ob, ap, v) != TRN_OK) continue;
        for (size_t i = 0; i < n; ++i) c->nans += isnan(v[i]) != 0;
    }
    return TRN_OK;
}

/* The table, then the counts start again for the next run. */
static void run_end(const trn_host_api *api, void *state, int rc) {
    (void)api;
    nan_state *st = state;
    FILE *out = st->report[0] ? fopen(st->report, "w") : stderr;
    if (!out) {
        fprintf(stderr, "trnsim-nan-count: cannot write %s\n", st->report);
        out = stderr;
    }
    fprintf(out, "NaNs written per opcode%s\n",
            rc ? " (the run failed; counts up to the failure)" : "");
    fprintf(out, "%-4s %-26s %12s %14s %12s\n", "IT", "opcode", "instructions", "out elements",
            "NaNs");
    for (uint32_t it = 0; it <= TRN_IT_MAX; ++it) {
        const opcode_count *c = &st->per_it[it];
        if (c->instructions)
            fprintf(out, "%-4u %-26s %12llu %14llu %12llu\n", it, c->name,
                    (unsigned long long)c->instructions, (unsigned long long)c->elements,
                    (unsigned long long)c->nans);
    }
    if (out != stderr) fclose(out);
    memset(st->per_it, 0, sizeof st->per_it);
}

static const trn_observer_desc observer = {
    .size = sizeof observer, .after = after, .run_end = run_end};

static const trn_setting_desc settings[] = {
    {"report", TRN_SET_STRING, "", 1, 0, NULL,
     "file the table is written to at the end of a run (empty: stderr)"},
};

static trn_status init(const trn_host_api *api, const trn_settings *set, void **state, char *err,
                       size_t errlen) {
    const char *report = "";
    api->setting_string(set, "report", &report);
    nan_state *st = calloc(1, sizeof *st);
    if (st) st->report = strdup(report);
    if (!st || !st->report) {
        free(st);
        snprintf(err, errlen, "out of memory");
        return TRN_ERR;
    }
    *state = st;
    return TRN_OK;
}

static void fini(void *state) {
    nan_state *st = state;
    free(st->buf);
    free(st->report);
    free(st);
}

TRN_PLUGIN_DEFINE(nancount) = {
    TRN_PLUGIN_HEADER,  .name = "trnsim-nan-count", .family = "nancount",
    .version = "1.0.0", TRN_SETTINGS(settings),     .init = init,
    .fini = fini,       .observer = &observer,
};
