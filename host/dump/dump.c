/* --dump-at, --dump-on-error and --restore: the options, the dump points
 * in the run, and the run that restores or dumps.
 *
 * --dump-on-error gives the state just before the failing instruction ran,
 * never a state it half wrote: the run keeps a private copy of its start,
 * and when a handler fails the run is replayed from that copy (the schedule
 * is deterministic) up to the failing attempt, and dumped there. A stop
 * between instructions (--max-instructions, --timeout, a deadlock) changed
 * nothing, so the state at the stop is dumped as it is. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump/dump_int.h"

static const trn_run_hooks dump_hooks = {
    trn_dump_before,
    trn_dump_failed,
    trn_dump_run,
    trn_dump_free,
};

/* The options, made and hooked into the run when the first one is set. */
static trn_dump_cfg *snap_cfg(trn_sim *s, trn_error *e) {
    if (DUMP(s)) return DUMP(s);
    trn_dump_cfg *g = calloc(1, sizeof *g);
    if (!g) return trn_errorf(e, "out of memory"), NULL;
    g->cfg_text = trn_dump_config_text(s);
    trn_dump_config_digest(s, g->cfg_digest);
    trn_sim_set_hooks(s, &dump_hooks, g);
    return g;
}

void trn_dump_free(trn_sim *s) {
    trn_dump_cfg *g = DUMP(s);
    if (!g) return;
    for (int i = 0; i < g->n_at; ++i) free(g->at[i].dir);
    free(g->on_error);
    free(g->restore);
    free(g->cfg_text);
    free(g);
    trn_sim_set_hooks(s, NULL, NULL);
}

/* What every dump option needs: a program, one process, a dir no other
 * option names. */
static int common_checks(trn_sim *s, const char *opt, const char *dir, trn_error *e) {
    if (!s->have_prog) return trn_errorf(e, "%s %s: no program is loaded", opt, dir);
    if (s->dist.transport && s->dist.tinfo.ranks > 1)
        return trn_errorf(
            e, "%s: dumps and restore work in one process only; run without mpirun to dump", opt);
    const trn_dump_cfg *g = DUMP(s);
    for (int i = 0; g && i < g->n_at; ++i)
        if (!strcmp(g->at[i].dir, dir))
            return trn_errorf(e, "%s %s: another --dump-at names the same directory", opt, dir);
    if (g && g->on_error && !strcmp(g->on_error, dir))
        return trn_errorf(e, "%s %s: --dump-on-error names the same directory", opt, dir);
    return 0;
}

int trn_sim_dump_at(trn_sim *s, uint32_t core, uint64_t index, const char *dir, trn_error *e) {
    char opt[PATH_MAX + 96];
    snprintf(opt, sizeof opt, "--dump-at %" PRIu64 "@%u=%s", index, core, dir);
    if (common_checks(s, "--dump-at", dir, e)) return -1;
    if (core >= s->ncores)
        return trn_errorf(e, "%s: the run has %u core%s (0 .. %u)", opt, s->ncores,
                          s->ncores == 1 ? "" : "s", s->ncores - 1);
    uint64_t n = s->prog.summary.executions;
    if (n == 0)
        return trn_errorf(
            e,
            "%s: core %u executes no instructions (the program has none%s), so no point lies "
            "before one; use --output to see the tensors",
            opt, core, s->prog.n_insts ? " outside loops of 0 trips" : "");
    if (index >= n)
        return trn_errorf(
            e, "%s: core %u executes %" PRIu64 " instruction%s (indices 0 .. %" PRIu64 ")", opt,
            core, n, n == 1 ? "" : "s", n - 1);
    trn_dump_cfg *g = snap_cfg(s, e);
    if (!g) return -1;
    if (g->n_at == TRN_DUMP_MAX_AT)
        return trn_errorf(e, "more than %d --dump-at options", TRN_DUMP_MAX_AT);
    if (trn_dump_dir_usable(dir, opt, e)) return -1;
    trn_dump_at *a = &g->at[g->n_at];
    if (!(a->dir = strdup(dir))) return trn_errorf(e, "out of memory");
    a->core = core;
    a->index = index;
    a->done = false;
    g->n_at++;
    return 0;
}

int trn_sim_dump_on_error(trn_sim *s, const char *dir, trn_error *e) {
    char opt[PATH_MAX + 32];
    snprintf(opt, sizeof opt, "--dump-on-error %s", dir);
    if (common_checks(s, "--dump-on-error", dir, e)) return -1;
    trn_dump_cfg *g = snap_cfg(s, e);
    if (!g || trn_dump_dir_usable(dir, opt, e)) return -1;
    free(g->on_error);
    if (!(g->on_error = strdup(dir))) return trn_errorf(e, "out of memory");
    return 0;
}

int trn_sim_restore(trn_sim *s, const char *dir, trn_error *e) {
    if (common_checks(s, "--restore", dir, e)) return -1;
    trn_dump_cfg *g = snap_cfg(s, e);
    if (!g || trn_dump_check(s, dir, e)) return -1;
    free(g->restore);
    if (!(g->restore = strdup(dir))) return trn_errorf(e, "out of memory");
    return 0;
}

bool trn_sim_dump_written(const trn_sim *s, int i, uint32_t *core, uint64_t *index,
                          const char **dir) {
    const trn_dump_cfg *g = DUMP(s);
    if (!g || i < 0 || i >= g->n_at || !g->at[i].done) return false;
    *core = g->at[i].core;
    *index = g->at[i].index;
    *dir = g->at[i].dir;
    return true;
}

/* ---- in the run ---- */

static char replay_error[TRN_ERROR_MAX];

int trn_dump_before(trn_sim *s, uint32_t c, trn_error *e) {
    trn_dump_cfg *g = DUMP(s);
    const trn_run *r = s->run;
    if (g->stop_at && r->attempts + 1 == g->stop_at)
        return trn_dump_write(s, g->on_error, TRN_DUMP_ON_ERROR, replay_error, e) ? -1 : 1;
    if (g->replaying || r->waiting[c])
        return 0; /* a dump-at is taken when the core first arrives */
    for (int i = 0; i < g->n_at; ++i) {
        trn_dump_at *a = &g->at[i];
        if (a->done || a->core != c || a->index != r->cp[c].executed) continue;
        char note[160];
        snprintf(note, sizeof note,
                 "the state before instruction index %" PRIu64 " on core %u runs", a->index, c);
        if (trn_dump_write(s, a->dir, TRN_DUMP_AT, note, e)) return -1;
        a->done = true;
    }
    return 0;
}

void trn_dump_failed(trn_sim *s, uint64_t attempt) {
    if (!DUMP(s)->replaying) DUMP(s)->failed_at = attempt + 1;
}

/* Replay from the private start up to the failing attempt, which dumps. */
static int replay_to_failure(trn_sim *s, trn_error *e) {
    trn_dump_cfg *g = DUMP(s);
    bool trace = s->opts.trace, stats_on = s->opts.stats;
    /* the replay's instructions count once, in the failed run: --stats is
     * off while it runs, and the per-opcode counts it still keeps go back */
    trn_stats *saved = malloc(sizeof *saved);
    if (!saved) return trn_errorf(e, "out of memory");
    memcpy(saved->count, s->stats.count, sizeof saved->count);
    memcpy(saved->skipped, s->stats.skipped, sizeof saved->skipped);
    memcpy(saved->seconds, s->stats.seconds, sizeof saved->seconds);
    s->opts.trace = s->opts.stats = false;
    g->replaying = true;
    g->stop_at = g->failed_at;
    int rc = trn_dispatch_run_start(s, e) || trn_dump_apply(s, g->start, e)
                 ? -1
                 : trn_dispatch_loop(s, e);
    if (rc == 0)
        rc = trn_errorf(e, "the replay to the failing instruction ran to the end without failing");
    g->replaying = false;
    g->stop_at = 0;
    s->opts.trace = trace;
    s->opts.stats = stats_on;
    memcpy(s->stats.count, saved->count, sizeof saved->count);
    memcpy(s->stats.skipped, saved->skipped, sizeof saved->skipped);
    memcpy(s->stats.seconds, saved->seconds, sizeof saved->seconds);
    free(saved);
    return rc == 2 ? 0 : -1;
}

static void dump_on_error(trn_sim *s, trn_error *e) {
    trn_dump_cfg *g = DUMP(s);
    trn_error orig = *e, de = {0};
    snprintf(replay_error, sizeof replay_error, "%s", orig.msg);
    int rc;
    if (g->failed_at && g->start)
        rc = replay_to_failure(s, &de);
    else
        rc = trn_dump_write(s, g->on_error, TRN_DUMP_ON_ERROR, orig.msg, &de);
    *e = orig;
    size_t n = strlen(e->msg);
    if (rc == 0)
        snprintf(e->msg + n, sizeof e->msg - n, " [--dump-on-error: the state before %s is in %s]",
                 g->failed_at ? "this instruction ran" : "the stop", g->on_error);
    else
        snprintf(e->msg + n, sizeof e->msg - n, " [--dump-on-error %s failed: %s]", g->on_error,
                 de.msg);
}

int trn_dump_run(trn_sim *s, trn_error *e) {
    trn_dump_cfg *g = DUMP(s);
    char start[PATH_MAX + 64] = "";
    g->failed_at = 0;
    if (trn_dispatch_run_start(s, e)) return -1;
    if (g->restore) {
        int rc = trn_dump_apply(s, g->restore, e);
        free(g->restore);
        g->restore = NULL; /* one run only */
        if (rc) return -1;
    }
    if (g->on_error) {
        if (trn_dump_dir_temp(g->on_error, start, sizeof start, e) ||
            trn_dump_write(s, start, TRN_DUMP_PRIVATE, NULL, e)) {
            trn_dump_dir_remove(start);
            return trn_error_prefix(e, "--dump-on-error %s: keeping the run's start", g->on_error);
        }
        g->start = start;
    }
    int rc = trn_dispatch_loop(s, e);
    if (rc && g->on_error) dump_on_error(s, e);
    if (g->start) trn_dump_dir_remove(g->start);
    g->start = NULL;
    return rc ? -1 : 0;
}
