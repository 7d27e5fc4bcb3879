/* AllReduce with the inputs read in cache-sized pieces: when every
 * participant's input has the same shape, a run of partitions (or of outer
 * rows inside a partition) is the same element range for all of them, so
 * the fold reads that piece of every input while it is in cache and folds
 * it into the full-size result, instead of materialising N whole inputs.
 * Every read happens before the first write (in-place outputs are safe, a
 * failing read writes nothing); then the result goes to every output. Same
 * bits as the whole-buffer path: the fold is elementwise. */
#ifndef COLL_STREAM_H
#define COLL_STREAM_H

#include <stdbool.h>

#include "coll_exec.h"

/* Do all the participants' inputs have one shape? */
bool coll_stream_possible(const coll_exec *x);

/* x is an AllReduce whose counts and outputs were validated. */
trn_status coll_stream_allreduce(const coll_exec *x);

#endif
