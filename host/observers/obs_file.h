/* The file an observer writes (--trace, --timeline): "-" is a stream of
 * its own on fd 2 (so stderr's buffering stays as it was), anything else
 * is created; writes go through a bounded stdio buffer, and the first
 * write error is kept so the run can end with one line naming the file. */
#ifndef TRNSIM_HOST_OBS_FILE_H
#define TRNSIM_HOST_OBS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/error.h"

typedef struct trn_obs_file {
    FILE *f;
    const char *option; /* "--trace", "--timeline": how messages name it */
    char *path;
    char *buf;          /* stdio's buffer */
    bool failed;
    int err;            /* errno of the first failure */
} trn_obs_file;

/* Create path (or take fd 2 for "-"); -1 with "OPTION PATH: cannot create
 * it: why" (or out of memory) in e, and nothing left open. */
int trn_obs_file_open(trn_obs_file *o, const char *option, const char *path, size_t buffer, trn_error *e);
/* Append len bytes; after a failure nothing more is written. */
void trn_obs_file_write(trn_obs_file *o, const void *bytes, size_t len);
/* Remember a failure that is not a write (out of memory building a record). */
void trn_obs_file_fail(trn_obs_file *o, int err);
/* Flush and close (also after a failure): -1 with "OPTION PATH: writing
 * failed: why" when any write failed. Frees what open allocated. */
int trn_obs_file_close(trn_obs_file *o, trn_error *e);

#endif
