/* What the CLI needs beyond the public embedding API (trnsim/trnsim.h):
 * the host simulator behind a handle, for its reports (stats, listings). */
#ifndef TRNSIM_HOST_EMBED_H
#define TRNSIM_HOST_EMBED_H

#include "runtime/sim.h"
#include "trnsim/trnsim.h"

trn_sim *trn_embed_host_sim(trnsim_sim *s);

#endif
