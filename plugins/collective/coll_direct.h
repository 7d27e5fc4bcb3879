/* AllReduce on lent memory (plugin.h, ABI 3): when every participant's
 * input and output is fp32 with contiguous rows of one shape, the fold
 * reads each input row in place and writes the result row straight into
 * the outputs, with no dense copies. Same bits as the copying path (the
 * fold is elementwise and its order per element is unchanged); anything
 * else, or a host that lends nothing, takes the copying path. */
#ifndef COLL_DIRECT_H
#define COLL_DIRECT_H

#include <stdbool.h>

#include "coll_exec.h"

/* x is an AllReduce whose counts and outputs were validated. *done says
 * whether it ran here; when not, nothing was written or reported. */
trn_status coll_direct_allreduce(const coll_exec *x, bool *done);

#endif
