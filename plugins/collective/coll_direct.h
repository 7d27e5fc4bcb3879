/* Collectives on lent memory (plugin.h, ABI 3). AllReduce: when every participant's
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

/* The same for the other kinds (coll_direct_route.c), each called where
 * its copying path would read the inputs: every input and output lent as
 * rows (raw routing: one dtype throughout, any; ReduceScatter: fp32, 4-byte
 * aligned), and no output meeting any input or another output. */
trn_status coll_direct_reduce_scatter(const coll_exec *x, bool *done);
trn_status coll_direct_all_gather(const coll_exec *x, bool *done);
trn_status coll_direct_all_to_all(const coll_exec *x, bool v, bool *done);
/* SendRecv, Permute, PermuteImplicit: participant j gets the input of
 * participant source[j]. */
trn_status coll_direct_permute(const coll_exec *x, const uint32_t *source, bool *done);

/* One AP into another of the same dtype (CollectiveSend / Recv, the
 * identity), rows that do not meet. */
trn_status coll_direct_copy(const trn_host_api *api, trn_ctx *ctx, const trn_ap *in,
                            const trn_ap *out, bool *done);

#endif
