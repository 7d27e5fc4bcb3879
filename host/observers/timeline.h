/* The timeline (--timeline FILE.json, docs/observability.md): Chrome
 * trace-event JSON, one track per core, one complete slice per
 * instruction, waits as their own slices and a collective's rendezvous as
 * flow arrows, written as the run goes by one of the host's observers. */
#ifndef TRNSIM_HOST_TIMELINE_H
#define TRNSIM_HOST_TIMELINE_H

#include "exec/sim.h"

typedef struct trn_timeline trn_timeline;

int trn_timeline_begin(trn_sim *s, const char *path, trn_timeline **out, trn_error *e);
/* The same into an MPI run's part file (dist_observe.h), written as it is. */
int trn_timeline_begin_part(trn_sim *s, const char *path, trn_timeline **out, trn_error *e);
/* Closes the JSON (also after a failed run); -1 when writing failed. */
int trn_timeline_end(trn_sim *s, trn_timeline *t, trn_error *e);

#endif
