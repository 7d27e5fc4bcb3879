#include "coll_met.h"

#include <stdlib.h>

trn_status coll_met_group(const trn_host_api *api, trn_ctx *ctx, coll_record *const *recs,
                          uint32_t n) {
    if (!TRN_API_HAS(api, rendezvous_met) || n == 0) return TRN_OK;
    trn_party *party = malloc(n * sizeof *party);
    if (!party) return api->error(ctx, "out of memory");
    for (uint32_t i = 0; i < n; ++i)
        party[i] =
            (trn_party){.core = recs[i]->core, .role = TRN_PARTY_MEMBER, .index = recs[i]->instr};
    trn_status rc = api->rendezvous_met(ctx, party, n);
    free(party);
    return rc;
}

trn_status coll_met_p2p(const trn_host_api *api, trn_ctx *ctx, const coll_record *send,
                        const coll_record *recv) {
    if (!TRN_API_HAS(api, rendezvous_met)) return TRN_OK;
    trn_party party[2] = {{.core = send->core, .role = TRN_PARTY_SENDER, .index = send->instr},
                          {.core = recv->core, .role = TRN_PARTY_RECEIVER, .index = recv->instr}};
    return api->rendezvous_met(ctx, party, 2);
}
