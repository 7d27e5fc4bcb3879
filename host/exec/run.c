/* The deterministic multi-core run loop: cores in round robin, loops
 * stepped in place, waits and deadlocks, budgets, and a run that can stop
 * after any instruction and go on (trn_sim_step). The fast path (exec_fast)
 * is the one place an unwatched run spends its time. */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec_int.h"

/* The common case of exec, for a top-level instruction with a handler in a
 * run that nothing watches (see slow_path): the handler, then one test of
 * its status and its open views together; anything else goes the long way. */
static inline __attribute__((always_inline)) trn_status exec_fast(trn_sim *s, trn_ctx *c,
                                                                  trn_error *e) {
    trn_status st = c->slot->op->handler(&trn_host_api_table, c, c->slot->owner->state);
    if (__builtin_expect(((uint32_t)st | c->open_views) == TRN_OK, 1)) {
        s->stats.count[c->inst->it]++; /* and seconds += 0: no time is taken untimed */
        return TRN_OK;
    }
    if (c->open_views) trn_lend_close_all(c, st != TRN_WAIT);
    return trn_exec_handler_done(s, c, st, 0, e);
}

static int run_begin(trn_sim *s, trn_error *e) {
    trn_run_info info = {sizeof info, s->ncores, s->cfg.machine.partitions,
                         s->cfg.machine.registers};
    for (size_t i = 0; i < s->reg.n_mods; ++i) {
        const trn_module *m = &s->reg.mods[i];
        if (!m->live || !m->desc->run_begin) continue;
        char msg[512] = "";
        trn_status st = m->desc->run_begin(m->state, &info, msg, sizeof msg);
        msg[sizeof msg - 1] = 0; /* a module may leave it unterminated */
        if (st != TRN_OK)
            return trn_errorf(e, "module '%s': run_begin failed: %s", m->desc->name,
                              msg[0] ? msg : "(no message)");
    }
    return 0;
}

static int deadlock(const trn_sim *s, const size_t *pc, const bool *done, trn_error *e) {
    char buf[TRN_ERROR_MAX];
    size_t n = (size_t)snprintf(
        buf, sizeof buf,
        "%s: deadlock: every unfinished core waits and none can proceed:", s->prog.path);
    if (s->dist.transport && s->dist.tinfo.ranks > 1)
        n = (size_t)snprintf(
            buf, sizeof buf,
            "%s: deadlock: no core of MPI process %u made progress for %g s (the timeout, setting "
            "collective.mpi_timeout):",
            s->prog.path, s->dist.tinfo.rank, s->dist.tinfo.timeout);
    for (uint32_t c = s->dist.local_lo; c < s->dist.local_hi && n < sizeof buf; ++c) {
        if (done[c]) continue;
        const trn_inst *in = &s->prog.insts[pc[c]];
        n += (size_t)snprintf(buf + n, sizeof buf - n,
                              " core %u waits at instruction %" PRIu64 " (%s/%u);", c, in->number,
                              trn_exec_op_name(s, in->it), in->it);
    }
    return trn_errorf(e, "%s", buf);
}

/* A loop entry: start a trip, or step past the loop. Returns the next pc. */
static size_t loop_step(trn_sim *s, uint32_t c, core_pos *cp, const trn_inst *in) {
    const trn_loop *l = &in->loop;
    int64_t *t = &cp->trip[l->id];
    if (in->kind == TRN_INST_LOOP)
        *t = 0;
    else
        ++*t;
    if (*t >= l->trips) return in->kind == TRN_INST_LOOP ? in->jump + 1 : cp->pc + 1;
    /* start + trip * step was checked to fit int64 when the program was read */
    if (l->reg >= 0) s->cores[c].regs[l->reg] = l->start + *t * l->step;
    return in->kind == TRN_INST_LOOP ? cp->pc + 1 : in->jump + 1;
}

/* --max-instructions, --timeout and the progress display: looked at before
 * each instruction when any is on (s->watched), so a run ends with a message
 * between two instructions, never by a kill, and a run with none of them
 * pays one test. */
static int execution_budget(trn_sim *s, uint32_t c, const core_pos *cp, const trn_inst *in,
                            trn_error *e) {
    if (s->progress && s->executed && (s->executed & TRN_PROGRESS_EVERY) == 0)
        trn_progress_tick(s->progress, s->executed);
    if (s->opts.max_instructions && s->executed >= s->opts.max_instructions)
        return trn_errorf(e,
                          "%s: stopped after %" PRIu64 " instructions (--max-instructions %" PRIu64
                          "), before "
                          "instruction %" PRIu64 " on core %u (%s/%u)",
                          s->prog.path, s->executed, s->opts.max_instructions, cp->executed, c,
                          trn_exec_op_name(s, in->it), in->it);
    if (s->opts.timeout_seconds > 0 && trn_now() - s->run_started > s->opts.timeout_seconds)
        return trn_errorf(e,
                          "%s: stopped after %.3f s (--timeout %g), before instruction %" PRIu64
                          " on core %u "
                          "(%s/%u), %" PRIu64 " instructions executed",
                          s->prog.path, trn_now() - s->run_started, s->opts.timeout_seconds,
                          cp->executed, c, trn_exec_op_name(s, in->it), in->it, s->executed);
    return 0;
}

/* Whether this stretch of the run needs the long way round for every
 * instruction: a dump or restore (dump points), a budget, a timeout or
 * the progress display (s->watched), an observer (the JSONL trace, the
 * timeline, diff's, a module's), or the text trace or --stats (timing).
 * None of them changes inside one run_core call from off to on, so run_core
 * asks once and a plain run pays one test per instruction; the long way
 * still looks at each of them itself. */
static bool slow_path(const trn_sim *s) {
    return s->hooks || s->watched || s->n_observers || s->opts.trace || s->opts.stats;
}

/* Run core c until it finishes, waits, or completed *budget instructions
 * (a lockstep diff steps one at a time; a plain run has no budget). Returns
 * -1 on error, -2 when a dump asked the run to stop here
 * (dump/dump.h), else whether it made progress (completed an
 * instruction or arrived at a new one). At a dump point and on an error
 * the progress so far is in s->run->progress already, so a dump sees it. */
static int run_core(trn_sim *s, uint32_t c, core_pos *cp, bool *waiting, uint64_t *budget,
                    trn_error *e) {
    int progress = 0;
    uint64_t left = *budget; /* a local: the loop keeps it in a register */
    const trn_inst *insts = s->prog.insts;
    const bool slow = slow_path(s);
    trn_ctx ctx;
    while (cp->pc < s->prog.n_insts && left) {
        const trn_inst *in = &insts[cp->pc];
        if (in->kind != TRN_INST_OP) {
            cp->pc = loop_step(s, c, cp, in);
            continue;
        }
        ctx_begin(&ctx, s, c, cp->executed, in);
        trn_status st;
        if (__builtin_expect(!slow && ctx.slot->op != NULL, 1)) {
            st = exec_fast(s, &ctx, e);
            if (st == TRN_ERR) return -1;
        } else {
            if (s->hooks) {
                s->run->progress |= progress;
                int at = s->hooks->before(s, c, e);
                if (at) return at < 0 ? -1 : -2;
                ++s->run->attempts;
            }
            if (s->watched && execution_budget(s, c, cp, in, e)) {
                s->run->progress |= progress;
                return -1;
            }
            st = trn_exec_call(s, &ctx, e);
            if (st == TRN_ERR) {
                if (s->hooks) s->hooks->failed(s, s->run->attempts - 1);
                return -1;
            }
        }
        if (st == TRN_WAIT) {
            if (!waiting[c]) progress = 1;
            waiting[c] = true;
            break;
        }
        waiting[c] = false;
        ++cp->pc;
        ++cp->executed;
        ++s->executed;
        --left;
        progress = 1;
    }
    *budget = left;
    return progress;
}

static void deadlock_pcs(const core_pos *cp, uint32_t n, size_t *pc) {
    for (uint32_t c = 0; c < n; ++c) pc[c] = cp[c].pc;
}

/* No local core could proceed. Alone, that is a deadlock; with a transport
 * the other processes may still complete what the cores wait for, so it is
 * one only after the timeout. Returns -1 (error), or 0 to go on. */
static int stalled(trn_sim *s, const size_t *pc, const bool *done, double *since, trn_error *e) {
    if (!s->dist.transport || s->dist.tinfo.ranks <= 1) return deadlock(s, pc, done, e);
    double now = trn_now();
    if (*since == 0) *since = now;
    if (now - *since > s->dist.tinfo.timeout) return deadlock(s, pc, done, e);
    return trn_dist_idle(&s->dist, e);
}

void trn_dispatch_run_free(trn_sim *s) {
    trn_run *r = s->run;
    if (!r) return;
    free(r->cp);
    free(r->pc);
    free(r->trips);
    free(r->waiting);
    free(r->done);
    free(r);
    s->run = NULL;
}

int trn_dispatch_run_start(trn_sim *s, trn_error *e) {
    trn_dispatch_run_free(s);
    if (run_begin(s, e)) return -1;
    s->executed = 0;
    s->run_started = trn_now() - s->load_seconds; /* --timeout covers the load too */
    s->load_seconds = 0;
    s->kept_bytes = 0; /* run_begin gave the modules fresh state */
    s->run_started_ns = trn_now_ns();
    uint32_t n = s->ncores;
    trn_run *r = s->run = calloc(1, sizeof *r);
    if (!r) return trn_errorf(e, "out of memory");
    r->cp = calloc(n, sizeof *r->cp);
    r->pc = calloc(n, sizeof *r->pc);
    r->trips = calloc((size_t)n * s->prog.n_loops + 1, sizeof *r->trips);
    r->waiting = calloc(n, sizeof *r->waiting);
    r->done = calloc(n, sizeof *r->done);
    if (!(r->cp && r->pc && r->trips && r->waiting && r->done)) {
        trn_dispatch_run_free(s);
        return trn_errorf(e, "out of memory");
    }
    for (uint32_t c = 0; c < n; ++c) r->cp[c].trip = r->trips + (size_t)c * s->prog.n_loops;
    s->watched = s->opts.max_instructions || s->opts.timeout_seconds > 0;
    r->left = s->dist.local_hi - s->dist.local_lo;
    r->cursor = s->dist.local_lo;
    return 0;
}

/* Go on with the run until `budget` more instructions completed or every
 * core is done. Cores take turns in order, each running until it waits or
 * ends; a whole round without progress is a stall. 2: a dump stopped
 * it, 1: stopped on the budget, 0: the run is complete, -1: error. */
static int run_some(trn_sim *s, uint64_t budget, trn_error *e) {
    trn_run *r = s->run;
    while (r->left > 0) {
        for (; r->cursor < s->dist.local_hi; ++r->cursor) {
            uint32_t c = r->cursor;
            if (r->done[c]) continue;
            int got = run_core(s, c, &r->cp[c], r->waiting, &budget, e);
            if (got == -2) return 2;
            if (got < 0) return -1;
            r->progress |= got > 0;
            if (r->cp[c].pc == s->prog.n_insts) {
                r->done[c] = true;
                --r->left;
            }
            if (budget == 0) { /* core c completed the last instruction of the budget */
                r->last_core = c;
                if (r->done[c]) ++r->cursor;
                return 1; /* else the next step goes on with core c */
            }
        }
        r->cursor = s->dist.local_lo;
        if (r->progress) r->since = 0;
        if (r->left > 0 && !r->progress) {
            deadlock_pcs(r->cp, s->ncores, r->pc);
            if (stalled(s, r->pc, r->done, &r->since, e)) return -1;
        }
        r->progress = 0;
    }
    return 0;
}

int trn_dispatch_step(trn_sim *s, trn_step *out, trn_error *e) {
    if (!s->run) return trn_errorf(e, "no run is in progress");
    int rc = run_some(s, 1, e);
    if (rc <= 0) return rc;
    const core_pos *cp = &s->run->cp[s->run->last_core];
    /* run_core stops right after the instruction that used up the budget */
    *out = (trn_step){
        .core = s->run->last_core, .index = cp->executed - 1, .inst = &s->prog.insts[cp->pc - 1]};
    return 1;
}

uint64_t trn_dispatch_core_done(const trn_sim *s, uint32_t c) {
    return s->run && c < s->ncores ? s->run->cp[c].executed : 0;
}

int trn_dispatch_loop(trn_sim *s, trn_error *e) {
    s->watched |= s->progress != NULL;
    return run_some(s, UINT64_MAX, e);
}

int trn_dispatch_run(trn_sim *s, trn_error *e) {
    if (s->hooks) { /* dumps or a restore: dump/dump.c drives the run */
        s->progress = trn_progress_start(s, s->opts.progress, stderr);
        int rc = s->hooks->run(s, e);
        trn_progress_finish(s->progress, rc != 0);
        s->progress = NULL;
        trn_dispatch_run_free(s);
        return rc;
    }
    int rc = trn_dispatch_run_start(s, e);
    if (rc == 0) {
        s->progress = trn_progress_start(s, s->opts.progress, stderr);
        s->watched |= s->progress != NULL;
        rc = run_some(s, UINT64_MAX, e);
        trn_progress_finish(s->progress, rc != 0);
        s->progress = NULL;
    }
    trn_dispatch_run_free(s);
    trn_observe_run_end(s, rc);
    return rc;
}
