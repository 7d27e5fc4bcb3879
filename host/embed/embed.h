/* What the CLI needs beyond the public embedding API (trnsim/trnsim.h):
 * the host simulator behind a handle, for its reports (stats, listings). */
#ifndef TRNSIM_HOST_EMBED_H
#define TRNSIM_HOST_EMBED_H

#include "exec/exec.h"
#include "trnsim/trnsim.h"

trn_sim *trn_embed_host_sim(trnsim_sim *s);

/* What the CLI sets beyond trnsim_options (trn_sim_opts fields). */
typedef struct trn_embed_extra {
    const char *const *module_swaps; /* FAMILY=PATH (trnsim diff --against-module) */
    size_t n_module_swaps;
    int progress; /* trn_sim_opts.progress */
} trn_embed_extra;

/* trnsim_open with the extras (NULL: none: no swaps, no progress display). */
trnsim_sim *trn_embed_open(const trnsim_options *opts, const trn_embed_extra *extra);

/* The thread's last error, for the parts of the API outside embed.c
 * (embed_program.c): reset it, the trn_error a host call fills, publish that
 * (with the file it is about) and a usage error. The last two return -1. */
void trn_embed_clear_error(void);
trn_error *trn_embed_host_error(void);
int trn_embed_publish(const trn_sim *s, const char *file);
int trn_embed_usage(const char *what);

#endif
