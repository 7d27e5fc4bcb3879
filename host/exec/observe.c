/* Observers (plugin.h, ABI 3): read-only callbacks around every executed
 * instruction. Dispatch takes this path only when an observer is
 * registered, so a run without one pays a single predictable branch. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_int.h"

/* Operands an observation carries on the stack; more are allocated. */
#define STACK_OPERANDS 16

/* An observation and what the host keeps beside it. `pub` comes first, so
 * the pointer an observer is handed leads back here. */
typedef struct obs_event {
    trn_observation pub;
    trn_sim *sim;
    bool live;    /* callbacks are running: its reads are allowed */
    bool stopped; /* an observer asked to end the run */
    trn_error stop;
} obs_event;

static obs_event *event_of(const trn_observation *ob) {
    obs_event *ev = (obs_event *)ob;
    return ev && ev->live ? ev : NULL;
}

int trn_sim_add_observer(trn_sim *s, const trn_observer_desc *desc, void *state, trn_error *e) {
    if (!desc || desc->size < sizeof *desc)
        return trn_errorf(e, "an observer needs a trn_observer_desc of its size");
    trn_observer_reg *grown = realloc(s->observers, (s->n_observers + 1) * sizeof *grown);
    if (!grown) return trn_errorf(e, "out of memory for an observer");
    s->observers = grown;
    s->observers[s->n_observers++] = (trn_observer_reg){desc, state, "trnsim"};
    return 0;
}

void trn_sim_remove_observer(trn_sim *s, const trn_observer_desc *desc, void *state) {
    for (size_t i = s->n_module_observers; i < s->n_observers; ++i)
        if (s->observers[i].desc == desc && s->observers[i].state == state) {
            memmove(&s->observers[i], &s->observers[i + 1],
                    (s->n_observers - i - 1) * sizeof *s->observers);
            --s->n_observers;
            return;
        }
}

/* The live modules' observers, in config order, ahead of any of the host's. */
int trn_observe_add_modules(trn_sim *s, trn_error *e) {
    for (size_t i = 0; i < s->reg.n_mods; ++i) {
        const trn_observer_desc *d = trn_loader_observer(&s->reg.mods[i]);
        if (!d) continue;
        if (trn_sim_add_observer(s, d, s->reg.mods[i].state, e)) return -1;
        s->observers[s->n_observers - 1].owner = s->reg.mods[i].desc->name;
    }
    s->n_module_observers = s->n_observers;
    return 0;
}

void trn_observe_free(trn_sim *s) {
    free(s->observers);
    s->observers = NULL;
    s->n_observers = s->n_module_observers = 0;
}

/* Every operand as operand() would give it; one that cannot be resolved
 * (its handler will fail on it) is marked and left zero. */
static void resolve_operands(const trn_ctx *c, trn_dir dir, trn_obs_operand *ops, int n) {
    const trn_operand *src = dir == TRN_OUT ? c->inst->out : c->inst->in;
    for (int k = 0; k < n; ++k) {
        trn_error why;
        ops[k].resolved = trn_ctx_operand(c, dir, k, &ops[k].ap, &why) == 0;
        if (!ops[k].resolved) memset(&ops[k].ap, 0, sizeof ops[k].ap);
        ops[k].tensor = src[k].tensor >= 0 ? c->sim->prog.tensors[src[k].tensor].name : NULL;
    }
}

static void describe(obs_event *ev, trn_sim *s, const trn_ctx *c, trn_obs_operand *ops) {
    const trn_inst *in = c->inst;
    ev->pub = (trn_observation){.size = sizeof ev->pub,
                                .core = c->core,
                                .it = in->it,
                                .depth = (uint32_t)c->depth,
                                .index = c->index,
                                .number = in->number,
                                .opcode = c->slot->op->name,
                                .family = c->slot->owner->desc->family,
                                .module = c->slot->owner->desc->name,
                                .where = in->where,
                                .n_in = (uint32_t)in->n_in,
                                .n_out = (uint32_t)in->n_out,
                                .in = ops,
                                .out = ops + in->n_in,
                                .cores = s->ncores,
                                .status = TRN_OK};
    ev->sim = s;
    ev->stopped = false;
    resolve_operands(c, TRN_IN, ops, in->n_in);
    resolve_operands(c, TRN_OUT, ops + in->n_in, in->n_out);
}

/* Every observer's before or after callback; any that returns other than
 * TRN_OK ends the run (each one still sees this call). */
static void call_all(trn_sim *s, obs_event *ev, bool after) {
    ev->live = true;
    for (size_t i = 0; i < s->n_observers; ++i) {
        const trn_observer_reg *r = &s->observers[i];
        trn_observe_fn fn = after ? r->desc->after : r->desc->before;
        if (fn && fn(&trn_host_api_table, &ev->pub, r->state) != TRN_OK && !ev->stopped) {
            ev->stopped = true;
            trn_errorf(&ev->stop, "observer of %s stopped the run without a message", r->owner);
        }
    }
    ev->live = false;
}

trn_status trn_observe_exec(trn_sim *s, trn_ctx *c, trn_error *e) {
    int n = c->inst->n_in + c->inst->n_out;
    trn_obs_operand stack_ops[STACK_OPERANDS],
        *ops = n <= STACK_OPERANDS ? stack_ops : calloc((size_t)n, sizeof *ops);
    if (!ops) {
        trn_errorf(e, "out of memory for an observation of %d operands", n);
        if (c->depth == 0) trn_dispatch_context(c, e);
        return TRN_ERR;
    }
    obs_event ev;
    describe(&ev, s, c, ops);
    uint64_t t0 = trn_now_ns();
    ev.pub.start_ns = t0 - s->run_started_ns;
    call_all(s, &ev, false);
    trn_status st = TRN_OK;
    if (!ev.stopped) { /* stopped before: the instruction does not run */
        trn_party_log party = {0};
        c->party_log = &party;
        t0 = trn_now_ns(); /* the handler's time, not the observers' */
        st = trn_dispatch_handler(s, c, e);
        ev.pub.duration_ns = trn_now_ns() - t0;
        c->party_log = NULL;
        ev.pub.status = st;
        ev.pub.error = st == TRN_ERR ? e->msg : NULL;
        if (st == TRN_OK && party.n) ev.pub.party = party.items, ev.pub.n_party = party.n;
        call_all(s, &ev, true);
        free(party.items);
    }
    if (ev.stopped && st != TRN_ERR) {
        *e = ev.stop;
        if (c->depth == 0) trn_dispatch_context(c, e);
        st = TRN_ERR;
    }
    if (ops != stack_ops) free(ops);
    return st;
}

void trn_observe_run_end(trn_sim *s, int rc) {
    for (size_t i = 0; i < s->n_observers; ++i)
        if (s->observers[i].desc->run_end)
            s->observers[i].desc->run_end(&trn_host_api_table, s->observers[i].state, rc);
}

/* Memory as an observer may read it: any local core, bounds-checked, with
 * no uninitialised-read guard (observing must not change what fails). */
static trn_ap_env observer_env(const trn_sim *s) {
    trn_ap_env env = {.cores = s->cores, .ncores = s->ncores, .allow_uninit = true};
    if (s->dist.transport && s->dist.tinfo.ranks > 1) {
        env.local_lo = s->dist.local_lo;
        env.local_hi = s->dist.local_hi;
        env.rank_of_div = s->dist.local_hi - s->dist.local_lo;
    }
    return env;
}

/* One way an observer reads an AP: its bytes, fp32 widenings or digest. */
typedef int (*observed_reader)(const trn_ap_env *env, const trn_ap *ap, void *out, trn_error *e);

static int read_f32_into(const trn_ap_env *env, const trn_ap *ap, void *out, trn_error *e) {
    return trn_ap_read_f32(env, ap, out, e);
}
static int digest_into(const trn_ap_env *env, const trn_ap *ap, void *out, trn_error *e) {
    return trn_ap_digest(env, ap, out, e);
}

static trn_status observed(const trn_observation *ob, const trn_ap *ap, void *out,
                           observed_reader read) {
    obs_event *ev = event_of(ob);
    if (!ev || !ap) return TRN_ERR;
    trn_ap_env env = observer_env(ev->sim);
    trn_error e;
    return read(&env, ap, out, &e) ? TRN_ERR : TRN_OK;
}

trn_status trn_observed_read_raw(const trn_observation *ob, const trn_ap *ap, void *dst) {
    return observed(ob, ap, dst, trn_ap_read_raw);
}

trn_status trn_observed_read_f32(const trn_observation *ob, const trn_ap *ap, float *dst) {
    return observed(ob, ap, dst, read_f32_into);
}

trn_status trn_observed_digest(const trn_observation *ob, const trn_ap *ap, uint64_t *out) {
    return out ? observed(ob, ap, out, digest_into) : TRN_ERR;
}

trn_status trn_observer_stop(const trn_observation *ob, const char *fmt, ...) {
    obs_event *ev = event_of(ob);
    if (!ev || ev->stopped) return TRN_ERR; /* the first observer to stop names the reason */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->stop.msg, sizeof ev->stop.msg, fmt, ap);
    va_end(ap);
    ev->stop.site = (trn_error_site){0};
    ev->stop.kind = TRN_EK_RUN;
    ev->stopped = true;
    return TRN_ERR;
}
