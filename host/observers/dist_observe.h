/* --trace and --timeline in a distributed (MPI) run (docs/observability.md,
 * "In an MPI run"): each process writes the records of its own cores, with
 * the ordinary writers, into a private file that has no name on disk; after
 * the run rank 0 gathers every process's file through the transport and
 * writes the one requested file: the trace's records process after process
 * under one header and one end record, the timeline's events on one track
 * per core with every process's clock moved onto rank 0's. The file goes
 * through the one guard for every file trnsim writes (common/outfile.h). */
#ifndef TRNSIM_HOST_DIST_OBSERVE_H
#define TRNSIM_HOST_DIST_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/sim.h"

typedef enum trn_dist_obs_kind { TRN_DIST_TRACE, TRN_DIST_TIMELINE } trn_dist_obs_kind;

typedef struct trn_dist_obs trn_dist_obs;

/* Before the run, on every process: the private part file (its path, for
 * the writer to open: trn_dist_obs_part_path), and on rank 0 the hidden
 * temporary beside `path` ("-": standard error, no temporary). limit: the
 * trace's --trace-limit (0: none). An error names the option and the path,
 * as the single-process writers do. */
int trn_dist_obs_open(trn_sim *s, trn_dist_obs_kind kind, const char *path, uint64_t limit, trn_dist_obs **out,
                      trn_error *e);
const char *trn_dist_obs_part_path(const trn_dist_obs *o);
/* The writer opened its part: the part's name goes now, so that nothing is
 * left on disk however the process ends (the file stays open here). */
void trn_dist_obs_forget_name(trn_dist_obs *o);

/* After the writer closed its part; every process calls it at the same
 * point. Rank 0 writes the merged file to its temporary (run_failed: the
 * trace's end record says "error"). -1 (with a message naming the file)
 * when this process could not read its part or rank 0 could not write. */
int trn_dist_obs_merge(trn_sim *s, trn_dist_obs *o, bool run_failed, trn_error *e);
/* Rank 0: the temporary renamed onto the target (nothing for "-"). */
int trn_dist_obs_commit(trn_dist_obs *o, trn_error *e);
/* Removes what is left (an uncommitted temporary) and frees; NULL: nothing. */
void trn_dist_obs_close(trn_dist_obs *o);

#endif
