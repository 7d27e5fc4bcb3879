/* rendezvous_met (plugin.h, ABI 3): a module names the cores a rendezvous
 * brought together, because only it knows its rule (peer lists, replica
 * groups, logical cores). The report is checked the same way whether or
 * not anything observes the run, so a module bug shows without --timeline
 * too; it is kept only for observers. */
#include <stdlib.h>
#include <string.h>

#include "exec/exec_int.h"

static trn_status bad_report(trn_ctx *ctx, const char *what) {
    return trn_host_api_table.error(ctx, "rendezvous_met: %s (a module bug)", what);
}

/* One SENDER and one RECEIVER, or MEMBERs only. */
static const char *roles_problem(const trn_party *party, uint32_t n) {
    uint32_t senders = 0, receivers = 0;
    for (uint32_t i = 0; i < n; ++i) {
        if (party[i].role > TRN_PARTY_RECEIVER)
            return "a role other than TRN_PARTY_MEMBER, _SENDER or _RECEIVER";
        senders += party[i].role == TRN_PARTY_SENDER;
        receivers += party[i].role == TRN_PARTY_RECEIVER;
    }
    if (senders + receivers == 0) return NULL;
    if (n != 2 || senders != 1 || receivers != 1)
        return "a point-to-point report names exactly one TRN_PARTY_SENDER and one "
               "TRN_PARTY_RECEIVER";
    return NULL;
}

static trn_status check_report(trn_ctx *ctx, const trn_party *party, uint32_t n) {
    const trn_sim *s = ctx->sim;
    if (ctx->checking)
        return bad_report(ctx, "not available in a static check (nothing meets there)");
    if (ctx->party_reported) return bad_report(ctx, "called twice by one handler call");
    if (!party || n == 0 || n > s->ncores)
        return bad_report(ctx, "the party needs 1 to core_count() cores");
    const char *why = roles_problem(party, n);
    if (why) return bad_report(ctx, why);
    bool self = false;
    for (uint32_t i = 0; i < n; ++i) {
        if (party[i].core >= s->ncores)
            return trn_host_api_table.error(
                ctx, "rendezvous_met: core %u is not a core of this run (0..%u) (a module bug)",
                party[i].core, s->ncores - 1);
        for (uint32_t j = 0; j < i; ++j)
            if (party[j].core == party[i].core)
                return trn_host_api_table.error(
                    ctx, "rendezvous_met: core %u is named twice (a module bug)", party[i].core);
        self |= party[i].core == ctx->core && party[i].index == ctx->index;
    }
    if (!self)
        return bad_report(ctx,
                          "the executing core, at its instruction_index(), is not in the party");
    return TRN_OK;
}

trn_status trn_api_rendezvous_met(trn_ctx *ctx, const trn_party *party, uint32_t n) {
    if (check_report(ctx, party, n) != TRN_OK) return TRN_ERR;
    ctx->party_reported = true;
    trn_party_log *log = ctx->party_log;
    if (!log) return TRN_OK;
    log->items = malloc(n * sizeof *log->items);
    if (!log->items)
        return trn_host_api_table.error(ctx, "rendezvous_met: out of memory for %u cores", n);
    memcpy(log->items, party, n * sizeof *log->items);
    log->n = n;
    return TRN_OK;
}
