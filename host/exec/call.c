/* One instruction on one core: the context a handler sees, the handler
 * called with the host's bookkeeping around it (views, status rules,
 * timing, observers), sub-instructions, and the error's place. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "dist/dist.h"
#include "exec/exec_int.h"
#include "frontend/frontend.h"
#include "modules/modules.h"
#include "program/program.h"

#define MAX_SUB_DEPTH 8

int trn_dispatch_resolve_name(void *arg, const char *name, uint32_t *it, trn_error *e) {
    trn_sim *s = arg;
    return trn_registry_resolve_name(&s->reg, name, it, e);
}

bool trn_dispatch_handled(void *arg, uint32_t it) {
    const trn_sim *s = arg;
    return it <= TRN_IT_MAX && s->reg.table[it].op != NULL;
}

trn_ap_env trn_ctx_env(const trn_ctx *ctx) {
    const trn_sim *s = ctx->sim;
    bool allow = s->cfg.allow_uninit || s->prog.allow_uninit || ctx->parent_allows_uninit ||
                 (ctx->inst && ctx->inst->allow_uninit);
    trn_ap_env env = {.cores = s->cores,
                      .ncores = s->ncores,
                      .allow_uninit = allow,
                      .namer = trn_tensor_name_byte,
                      .namer_arg = &s->prog};
    /* In a distributed run the other processes' cores are reached through
     * the transport (remote.c), or, when it cannot, only by the transport's
     * own module (their memories here are its copies). */
    bool is_transport = ctx->slot && ctx->slot->owner && ctx->slot->owner == s->dist.transport_mod;
    if (s->dist.transport && s->dist.tinfo.ranks > 1 && !is_transport && !s->dist.remote_mem) {
        env.local_lo = s->dist.local_lo;
        env.local_hi = s->dist.local_hi;
        env.rank_of_div = s->dist.local_hi - s->dist.local_lo;
    }
    return env;
}

bool trn_ctx_remote(const trn_ctx *ctx, const trn_ap *ap) {
    const trn_sim *s = ctx->sim;
    bool by_transport = ctx->slot && ctx->slot->owner && ctx->slot->owner == s->dist.transport_mod;
    return !by_transport && !ctx->checking && trn_remote_is_remote(&s->dist, ap);
}

int trn_ctx_remote_begin(const trn_ctx *ctx, const trn_ap *ap, bool write, trn_remote_txn *t,
                         trn_error *e) {
    if (!trn_ctx_remote(ctx, ap)) return trn_remote_begin(&ctx->sim->dist, NULL, ap, write, t, e);
    trn_ap_env env = trn_ctx_env(ctx);
    return trn_remote_begin(&ctx->sim->dist, &env, ap, write, t, e);
}

int trn_ctx_remote_end(const trn_ctx *ctx, trn_remote_txn *t, bool ok, trn_error *e) {
    return trn_remote_end(&ctx->sim->dist, t, ok, e);
}

void trn_dispatch_context(const trn_ctx *c, trn_error *e) {
    const trn_sim *s = c->sim;
    const char *fam = c->slot && c->slot->owner ? c->slot->owner->desc->family : "-";
    char where[TRN_ERROR_MAX / 2] = "", trip[64] = "";
    trn_error_at(e, c->inst->number, (int32_t)c->core, c->inst->it);
    if (c->inst->where) snprintf(where, sizeof where, " (%s)", c->inst->where);
    if (s->prog.n_loops) snprintf(trip, sizeof trip, ", execution %" PRIu64, c->index);
    trn_error_prefix(e, "%s: instruction %" PRIu64 "%s (core %u, opcode %s/%u, family %s%s)",
                     s->prog.path, c->inst->number, where, c->core,
                     trn_exec_op_name(s, c->inst->it), c->inst->it, fam, trip);
}

static trn_status run_handler(trn_sim *s, trn_ctx *c, trn_error *e);

/* The opcode's static check in place of its handler (none: nothing to check). */
static trn_status static_check(trn_sim *s, trn_ctx *c, trn_error *e) {
    (void)s;
    if (!c->slot->op->check) return TRN_OK;
    trn_status st = c->slot->op->check(&trn_host_api_table, c, c->slot->owner->state);
    if (st == TRN_OK) return TRN_OK;
    if (st == TRN_ERR)
        *e = c->failed ? c->err : (trn_error){"the static check failed without a message"};
    else
        trn_errorf(e, "the static check returned %d (expected TRN_OK or TRN_ERR)", (int)st);
    if (c->depth == 0) trn_dispatch_context(c, e);
    return TRN_ERR;
}

/* With --stats or --trace, after the handler: the statistics that read
 * the outputs back, and the trace line (one test per instruction without). */
static void after_timed(trn_sim *s, trn_ctx *c, trn_status st, double dt) {
    if (st == TRN_OK && s->opts.stats) trn_stats_after(s, c, dt);
    if (s->opts.trace)
        fprintf(s->opts.trace_out, "core %u #%" PRIu64 "%s %s (IT %u, %s) %s %.3f us\n", c->core,
                c->index, c->depth ? " (sub)" : "", c->slot->op->name, c->inst->it,
                c->slot->owner->desc->family, st == TRN_WAIT ? "wait" : "ok", dt * 1e6);
}

/* Run one instruction on one core. */
trn_status trn_exec_call(trn_sim *s, trn_ctx *c, trn_error *e) {
    uint32_t it = c->inst->it;
    c->slot = &s->reg.table[it];
    c->failed = false;
    if (!c->slot->op) {
        if (trn_exec_unhandled(s, it, e)) {
            trn_dispatch_context(c, e);
            return TRN_ERR;
        }
        s->stats.skipped[it]++;
        if (s->opts.trace)
            fprintf(s->opts.trace_out,
                    "core %u #%" PRIu64 " %s (IT %u): skipped, no module handles it "
                    "(unknown_opcode = \"skip\", the reference's skip-and-note)\n",
                    c->core, c->index, trn_exec_op_name(s, it), it);
        return TRN_OK;
    }
    if (c->checking) return static_check(s, c, e);
    /* the one branch observers cost a run that has none */
    if (__builtin_expect(s->n_observers != 0, 0)) return trn_observe_exec(s, c, e);
    return run_handler(s, c, e);
}

trn_status trn_dispatch_handler(trn_sim *s, trn_ctx *c, trn_error *e) {
    return run_handler(s, c, e);
}

/* What the host does with a handler's status once its views are ended:
 * the rules for TRN_WAIT and TRN_ERR, the context of an error, the count. */
trn_status trn_exec_handler_done(trn_sim *s, trn_ctx *c, trn_status st, double dt, trn_error *e) {
    uint32_t it = c->inst->it;
    if (st == TRN_WAIT && c->depth > 0) {
        trn_errorf(e, "a sub-instruction may not wait for other cores");
        st = TRN_ERR;
    } else if (st == TRN_WAIT && !(c->slot->op->flags & TRN_OPF_MAY_WAIT)) {
        trn_errorf(
            e, "the handler returned TRN_WAIT, but its opcode does not declare TRN_OPF_MAY_WAIT");
        st = TRN_ERR;
    } else if (st == TRN_ERR) {
        *e = c->failed ? c->err : (trn_error){.msg = "the handler failed without a message"};
    } else if (st != TRN_OK && st != TRN_WAIT) {
        trn_errorf(e, "the handler returned %d (expected TRN_OK, TRN_WAIT or TRN_ERR)", (int)st);
        st = TRN_ERR;
    }
    if (st == TRN_ERR) {
        if (c->depth == 0) trn_dispatch_context(c, e);
        return TRN_ERR;
    }
    if (st == TRN_OK) {
        s->stats.count[it]++;
        s->stats.seconds[it] += dt;
    }
    return st;
}

static trn_status run_handler(trn_sim *s, trn_ctx *c, trn_error *e) {
    bool timed = s->opts.trace || s->opts.stats;
    double t0 = timed ? trn_now() : 0;
    trn_status st = c->slot->op->handler(&trn_host_api_table, c, c->slot->owner->state);
    if (c->open_views) trn_lend_close_all(c, st != TRN_WAIT); /* a waiting handler wrote nothing */
    double dt = timed ? trn_now() - t0 : 0;
    st = trn_exec_handler_done(s, c, st, dt, e);
    if (timed && st != TRN_ERR) after_timed(s, c, st, dt);
    return st;
}

trn_status trn_dispatch_sub(trn_ctx *parent, const trn_value *instruction) {
    trn_sim *s = parent->sim;
    if (parent->open_views)
        return trn_host_api_table.error(
            parent,
            "dispatch while %u lent view(s) are open (a module bug: lend_end "
            "them first)",
            parent->open_views);
    if (parent->depth >= MAX_SUB_DEPTH)
        return trn_host_api_table.error(parent, "sub-instructions nested deeper than %d",
                                        MAX_SUB_DEPTH);
    trn_inst sub;
    trn_error e;
    if (trn_inst_parse(&s->prog, (json_t *)instruction, &sub, trn_dispatch_resolve_name, s, &e))
        return trn_host_api_table.error(parent, "sub-instruction: %s", e.msg);
    uint64_t scratch;
    const trn_opcode_desc *sub_op = s->reg.table[sub.it].op;
    if (trn_budget_instruction(&s->cfg.machine, &sub, sub_op && (sub_op->flags & TRN_OPF_STREAMS),
                               &scratch, &e)) {
        trn_inst_free(&sub);
        return trn_host_api_table.error(parent, "sub-instruction: %s", e.msg);
    }
    if (s->reg.table[sub.it].op &&
        trn_schema_validate(s->reg.table[sub.it].op, sub.obj, trn_exec_lookup_sub, s, &e)) {
        trn_inst_free(&sub);
        return trn_host_api_table.error(parent, "sub-instruction (opcode %s/%u): %s",
                                        trn_exec_op_name(s, sub.it), sub.it, e.msg);
    }
    trn_ctx c = {.sim = s,
                 .core = parent->core,
                 .index = parent->index,
                 .inst = &sub,
                 .depth = parent->depth + 1,
                 .parent_allows_uninit = parent->parent_allows_uninit || parent->inst->allow_uninit,
                 .checking = parent->checking};
    trn_status st = trn_exec_call(s, &c, &e);
    trn_inst_free(&sub);
    if (st == TRN_ERR)
        return trn_host_api_table.error(parent, "sub-instruction (opcode %s/%u): %s",
                                        trn_exec_op_name(s, sub.it), sub.it, e.msg);
    return st;
}
