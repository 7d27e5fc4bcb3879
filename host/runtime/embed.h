/* What the CLI needs beyond the public embedding API (trnsim/trnsim.h):
 * the host simulator behind a handle, for its reports (stats, listings). */
#ifndef TRNSIM_HOST_EMBED_H
#define TRNSIM_HOST_EMBED_H

#include "runtime/sim.h"
#include "trnsim/trnsim.h"

trn_sim *trn_embed_host_sim(trnsim_sim *s);

/* What the CLI sets beyond trnsim_options (trn_sim_opts fields). */
typedef struct trn_embed_extra {
    const char *const *module_swaps; /* FAMILY=PATH (trnsim diff --against-module) */
    size_t n_module_swaps;
    int progress;                    /* trn_sim_opts.progress */
} trn_embed_extra;

/* trnsim_open with the extras (NULL: none: no swaps, no progress display). */
trnsim_sim *trn_embed_open(const trnsim_options *opts, const trn_embed_extra *extra);

#endif
