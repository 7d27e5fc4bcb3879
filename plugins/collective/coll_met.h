/* Telling observers who met (the host's rendezvous_met, ABI 3): the
 * timeline's arrows come from these reports, since which cores meet is
 * this module's rule. A host without the call is told nothing. */
#ifndef COLL_MET_H
#define COLL_MET_H

#include "coll_record.h"

/* The members of a group collective that just completed. */
trn_status coll_met_group(const trn_host_api *api, trn_ctx *ctx, coll_record *const *recs,
                          uint32_t n);
/* A transfer that just completed. */
trn_status coll_met_p2p(const trn_host_api *api, trn_ctx *ctx, const coll_record *send,
                        const coll_record *recv);

#endif
