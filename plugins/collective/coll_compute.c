/* CollectiveCompute (IT 48): the rendezvous. Each core's k-th
 * CollectiveCompute is posted to the registry; the core checks that it
 * agrees with every other core's k-th already there, and the core that
 * completes its group runs the operation for all of them. The others
 * return TRN_WAIT and, called again, see their record done. */
#include <stdio.h>
#include <stdlib.h>

#include "coll_exec.h"
#include "coll_met.h"
#include "coll_ops.h"

/* Operands: one input and one output; PermuteReduceImplicit two inputs. */
static trn_status read_operands(const trn_host_api *api, trn_ctx *ctx, coll_record *rec) {
    int want_in = rec->spec.kind == COLL_PERMUTE_REDUCE_IMPLICIT ? 2 : 1;
    int n_in = api->operand_count(ctx, TRN_IN), n_out = api->operand_count(ctx, TRN_OUT);
    if (n_in != want_in || n_out != 1)
        return api->error(
            ctx, "%s (kind %lld) takes %d input%s and 1 output, the instruction has %d and %d",
            coll_kind_name(rec->spec.kind), (long long)rec->spec.kind, want_in,
            want_in > 1 ? "s" : "", n_in, n_out);
    for (int k = 0; k < n_in; ++k) {
        if (api->operand(ctx, TRN_IN, k, &rec->in[k]) != TRN_OK) return TRN_ERR;
        rec->in_count[k] = trn_ap_elems(&rec->in[k]);
    }
    if (api->operand(ctx, TRN_OUT, 0, &rec->out) != TRN_OK) return TRN_ERR;
    rec->out_count = trn_ap_elems(&rec->out);
    rec->n_in = n_in;
    rec->n_out = 1;
    return TRN_OK;
}

/* Who takes part with this core: its group or, for Permute, the ranks
 * src_target_pairs names (ascending). A group's members are in ascending
 * core order for the kinds the reference gathers by core id
 * (coll_sort_members), in listed order for the peer and ring kinds
 * (SendRecv, SendRecvCCE, PermuteImplicit, PermuteReduceImplicit). */
typedef struct party {
    const uint32_t *members;
    uint32_t n, pos;
    uint32_t *owned_members, *src_of; /* Permute; the sorted group */
} party;

static bool kind_in_core_order(int64_t k) {
    return k == COLL_ALL_REDUCE || k == COLL_REDUCE_SCATTER || k == COLL_ALL_GATHER ||
           k == COLL_ALL_TO_ALL || k == COLL_ALL_TO_ALL_V;
}

/* p->members replaced by an ascending copy, p->pos found again in it. */
static trn_status sort_party(const trn_host_api *api, trn_ctx *ctx, uint32_t core, party *p) {
    p->owned_members = malloc((p->n ? p->n : 1) * sizeof *p->owned_members);
    if (!p->owned_members) return api->error(ctx, "out of memory");
    for (uint32_t i = 0; i < p->n; ++i) p->owned_members[i] = p->members[i];
    coll_sort_members(p->owned_members, p->n);
    p->members = p->owned_members;
    for (uint32_t i = 0; i < p->n; ++i)
        if (p->members[i] == core) p->pos = i;
    return TRN_OK;
}

static trn_status find_party(const trn_host_api *api, trn_ctx *ctx, const coll_state *st,
                             coll_record *rec, party *p) {
    const coll_spec *sp = &rec->spec;
    if (sp->kind == COLL_PERMUTE) {
        char err[512];
        if (coll_pairs_make(sp->pairs, sp->n_pairs, api->core_count(ctx), &p->owned_members,
                            &p->src_of, &p->n, err, sizeof err))
            return api->error(ctx, "%s", err);
        p->members = p->owned_members;
        for (uint32_t i = 0; i < p->n; ++i)
            if (p->members[i] == rec->core) {
                rec->member = true;
                p->pos = i;
            }
        return TRN_OK;
    }
    if (coll_kind_is_identity(sp->kind)) { /* the core alone, whatever the groups */
        rec->member = true;
        return TRN_OK;
    }
    rec->member = coll_groups_find(&sp->groups, rec->core, &p->members, &p->pos);
    p->n = rec->member ? sp->groups.size : 0;
    if (rec->member && kind_in_core_order(sp->kind)) return sort_party(api, ctx, rec->core, p);
    return TRN_OK;
}

/* The reference's rule for ReduceScatter, SendRecv, SendRecvCCE (unless
 * multi_lnc = "allow"). */
static trn_status check_lnc(const trn_host_api *api, trn_ctx *ctx, const coll_state *st,
                            const coll_record *rec, const party *p) {
    int64_t k = rec->spec.kind;
    if (st->set.multi_lnc_allow ||
        (k != COLL_REDUCE_SCATTER && k != COLL_SEND_RECV && k != COLL_SEND_RECV_CCE))
        return TRN_OK;
    char err[512];
    if (coll_check_single_lnc(&rec->spec.groups, p->members, p->n, st->set.cores_per_lnc,
                              coll_kind_name(k), err, sizeof err))
        return api->error(ctx, "%s", err);
    return TRN_OK;
}

/* A record read from a dump met by a core that runs the same instruction:
 * its operands must be what this instruction gives (dtype, partitions,
 * elements) and inside memory, or the dump does not belong to the program. */
static trn_status check_restored(const trn_host_api *api, trn_ctx *ctx, const coll_record *rec,
                                 const coll_record *o, uint32_t c) {
    const char *bad = o->n_in != rec->n_in || o->n_out != rec->n_out ? "operand count" : NULL;
    for (int k = 0; k < rec->n_in + rec->n_out && !bad; ++k) {
        const trn_ap *a = k < rec->n_in ? &rec->in[k] : &rec->out,
                     *b = k < rec->n_in ? &o->in[k] : &o->out;
        int64_t na = k < rec->n_in ? rec->in_count[k] : rec->out_count;
        int64_t nb = k < rec->n_in ? o->in_count[k] : o->out_count;
        if (a->dtype != b->dtype)
            bad = k < rec->n_in ? "input dtype" : "output dtype";
        else if (b->core != c || api->check_ap(ctx, b, k < rec->n_in ? TRN_IN : TRN_OUT) != TRN_OK)
            bad = "operand place";
        else if (a->part_count != b->part_count || na != nb || nb != trn_ap_elems(b))
            bad = "operand shape";
    }
    if (!bad) return TRN_OK;
    return api->error(
        ctx,
        "collective #%llu of core %u, read from the dump's modules/collective/records.npy, has "
        "another %s than this instruction (%llu on core %u) gives; the dump does not match "
        "the program",
        (unsigned long long)rec->seq, c, bad, (unsigned long long)rec->instr, rec->core);
}

/* Every core's k-th collective must say the same thing (SPMD). */
static trn_status check_agreement(const trn_host_api *api, trn_ctx *ctx, const coll_state *st,
                                  const coll_record *rec) {
    for (uint32_t c = 0; c < st->cores; ++c) {
        const coll_record *o = c == rec->core ? NULL : coll_registry_get(st->reg, c, rec->seq);
        if (o && o->restored && check_restored(api, ctx, rec, o, c) != TRN_OK) return TRN_ERR;
        char err[768];
        if (o && coll_spec_compare(&rec->spec, rec->core, &o->spec, c, err, sizeof err))
            return api->error(
                ctx,
                "collective #%llu (CollectiveCompute instruction %llu on core %u, %llu on core %u) "
                "disagrees: %s",
                (unsigned long long)rec->seq, (unsigned long long)rec->instr, rec->core,
                (unsigned long long)o->instr, c, err);
    }
    return TRN_OK;
}

/* All of the party arrived? Then run it and mark everyone done. */
static trn_status complete_if_ready(const trn_host_api *api, trn_ctx *ctx, coll_state *st,
                                    coll_record *rec, const party *p) {
    if (st->remote_ops && st->remote_ops->spans(st, p->members, p->n))
        return st->remote_ops->compute(api, ctx, st, rec, p->members, p->n, p->src_of);
    coll_record **recs = malloc((p->n ? p->n : 1) * sizeof *recs);
    if (!recs) return api->error(ctx, "out of memory");
    bool ready = true;
    for (uint32_t i = 0; i < p->n && ready; ++i) {
        recs[i] = coll_registry_get(st->reg, p->members[i], rec->seq);
        ready = recs[i] != NULL;
    }
    trn_status rc = TRN_WAIT;
    if (ready) {
        coll_exec x = {api, ctx, st, &rec->spec, recs, p->n, p->src_of};
        rc = coll_exec_run(&x);
        if (rc == TRN_OK) rc = coll_met_group(api, ctx, recs, p->n);
        for (uint32_t i = 0; i < p->n && rc == TRN_OK; ++i) recs[i]->done = true;
    }
    free(recs);
    return rc;
}

/* Everything after the record is built and its operands resolved. */
static trn_status arrive(const trn_host_api *api, trn_ctx *ctx, coll_state *st, coll_record *rec,
                         party *p, bool *posted) {
    coll_core *me = &st->core[rec->core];
    if (find_party(api, ctx, st, rec, p) != TRN_OK) return TRN_ERR;
    if (!rec->member || coll_kind_is_identity(rec->spec.kind)) rec->done = true;
    bool local = rec->member && st->set.multiworker && rec->spec.kind == COLL_ALL_REDUCE;
    if (local) rec->done = true;
    if (rec->member && !rec->done && check_lnc(api, ctx, st, rec, p) != TRN_OK) return TRN_ERR;
    if (coll_keep(api, ctx, rec) != TRN_OK) return TRN_ERR;
    if (coll_registry_post(st->reg, rec->core, rec)) return api->error(ctx, "out of memory");
    *posted = true; /* from here on the registry owns rec */
    if (check_agreement(api, ctx, st, rec) != TRN_OK) return TRN_ERR;
    if (!rec->member) return TRN_OK; /* not in any group: nothing to do (isInReplicaGroup) */
    if (coll_kind_is_identity(rec->spec.kind)) return coll_exec_identity(api, ctx, st, rec);
    if (local) return coll_exec_local_allreduce(api, ctx, st, rec, p->n);
    trn_status rc = complete_if_ready(api, ctx, st, rec, p);
    return rc == TRN_WAIT ? coll_wait_on(me, rec->instr, rec) : rc;
}

trn_status coll_h_compute(const trn_host_api *api, trn_ctx *ctx, void *state) {
    coll_state *st = state;
    uint32_t core = api->core_id(ctx);
    uint64_t instr = api->instruction_index(ctx);
    coll_core *me = &st->core[core];
    coll_trim(api, ctx, st, -1, -1);
    if (me->waiting && me->instr == instr)
        return me->pending ? st->remote_ops->resume(api, ctx, st, me) : coll_resume(me);
    coll_record *rec = calloc(1, sizeof *rec);
    if (!rec) return api->error(ctx, "out of memory");
    rec->core = core;
    rec->instr = instr;
    if (coll_spec_read(api, ctx, api->core_count(ctx), &rec->spec) != TRN_OK ||
        read_operands(api, ctx, rec) != TRN_OK) {
        coll_record_free(rec);
        return TRN_ERR;
    }
    party p = {0};
    bool posted = false;
    trn_status rc = arrive(api, ctx, st, rec, &p, &posted);
    if (!posted) coll_record_free(rec);
    free(p.owned_members);
    free(p.src_of);
    return rc;
}

/* The group's rules that compare its members (equal counts, send_counts
 * rows and columns against each member's input and output, partitions,
 * outputs), decided without data: every core runs the same instructions,
 * so each member's record is this instruction's operands on that member's
 * core. The check of the first member to be checked reports, so check and
 * run refuse with the same line before anything runs. The MPI build
 * (remote_ops) leaves them to the run: which members are remote is known
 * only once run_begin has placed the cores. */
static trn_status check_members(const trn_host_api *api, trn_ctx *ctx, coll_state *st,
                                coll_record *rec, const party *p) {
    if (st->remote_ops) return TRN_OK;
    coll_record *copies = calloc(p->n ? p->n : 1, sizeof *copies);
    coll_record **recs = malloc((p->n ? p->n : 1) * sizeof *recs);
    if (!copies || !recs) {
        free(copies);
        free(recs);
        return api->error(ctx, "out of memory");
    }
    for (uint32_t i = 0; i < p->n; ++i) {
        copies[i] = *rec;
        copies[i].core = copies[i].out.core = p->members[i];
        for (int k = 0; k < rec->n_in; ++k) copies[i].in[k].core = p->members[i];
        recs[i] = &copies[i];
    }
    coll_exec x = {api, ctx, st, &rec->spec, recs, p->n, p->src_of, .validate_only = true};
    trn_status rc = coll_exec_run(&x);
    free(copies);
    free(recs);
    return rc;
}

/* The static check: attributes, operands, the party and the multi-LNC rule
 * against the settings, and the rules between the members (no registry, no
 * data). */
trn_status coll_check_compute(const trn_host_api *api, trn_ctx *ctx, void *state) {
    coll_state *st = state;
    coll_record rec = {.core = api->core_id(ctx), .instr = api->instruction_index(ctx)};
    if (coll_spec_read(api, ctx, api->core_count(ctx), &rec.spec) != TRN_OK) return TRN_ERR;
    party p = {0};
    trn_status rc = read_operands(api, ctx, &rec);
    if (rc == TRN_OK) rc = find_party(api, ctx, st, &rec, &p);
    bool local = st->set.multiworker && rec.spec.kind == COLL_ALL_REDUCE;
    if (rc == TRN_OK && rec.member && !coll_kind_is_identity(rec.spec.kind) && !local)
        rc = check_lnc(api, ctx, st, &rec, &p);
    if (rc == TRN_OK && rec.member && !coll_kind_is_identity(rec.spec.kind) && !local)
        rc = check_members(api, ctx, st, &rec, &p);
    coll_spec_free(&rec.spec);
    free(p.owned_members);
    free(p.src_of);
    return rc;
}
