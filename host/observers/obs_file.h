/* The file an observer writes (--trace, --timeline): "-" is a stream of
 * its own on fd 2 (so stderr's buffering stays as it was), a part file of
 * an MPI run is written as it is, and anything else goes through the one
 * guard for every file trnsim writes (common/outfile.h): a temporary with
 * no name on disk, put in place when closed, so an interrupted run leaves
 * the old file (or nothing) and never half a trace. Writes go through a
 * bounded stdio buffer, and the first write error is kept so the run can
 * end with one line naming the file. */
#ifndef TRNSIM_HOST_OBS_FILE_H
#define TRNSIM_HOST_OBS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/error.h"
#include "common/outfile.h"

typedef struct trn_obs_file {
    FILE *f;
    const char *option; /* "--trace", "--timeline": how messages name it */
    char *path;
    char *buf; /* stdio's buffer */
    bool failed;
    int err;      /* errno of the first failure */
    bool guarded; /* written through file, put in place at close */
    trn_outfile file;
} trn_obs_file;

/* Create path's temporary (take fd 2 for "-"; open a part as it is); -1
 * with "OPTION PATH: cannot create it: why" (or out of memory) in e, and
 * nothing left open. */
int trn_obs_file_open(trn_obs_file *o, const char *option, const char *path, bool part,
                      size_t buffer, trn_error *e);
/* Append len bytes; after a failure nothing more is written. */
void trn_obs_file_write(trn_obs_file *o, const void *bytes, size_t len);
/* Remember a failure that is not a write (out of memory building a record). */
void trn_obs_file_fail(trn_obs_file *o, int err);
/* Flush, close and put in place (also after a failed run, whose records
 * end with its error): -1 with "OPTION PATH: writing failed: why" when any
 * write failed, and then the file that was there stays. Frees what open
 * allocated. */
int trn_obs_file_close(trn_obs_file *o, trn_error *e);

#endif
