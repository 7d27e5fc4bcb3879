/* The lockstep loop shared by `trnsim diff` and `trnsim conform`: two
 * simulators with one program loaded step instruction by instruction; each
 * execution both completed is compared bit for bit (diff.c), and after the
 * run every tensor. What to print is the caller's (trn_lockstep_report). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "observers/observers.h"

/* Instructions one side completed that the other has not completed yet.
 * The cores of both take their turns in the same order, so this is empty
 * unless a module waits where the other does not (a collective that
 * completes on the last core to arrive against one that completes at
 * once); then it holds about one instruction per core. */
#define MAX_PENDING       4096
#define MAX_PENDING_BYTES (1ull << 30)

typedef struct pending {
    trn_diff_snap *snaps[MAX_PENDING];
    int n;
    size_t bytes;
} pending;

static trn_diff_snap *take_match(pending *p, const trn_diff_snap *x) {
    for (int k = 0; k < p->n; ++k) {
        trn_diff_snap *y = p->snaps[k];
        if (!trn_diff_snap_same(x, y)) continue;
        p->bytes -= trn_diff_snap_size(y);
        memmove(&p->snaps[k], &p->snaps[k + 1], (size_t)(p->n - k - 1) * sizeof p->snaps[0]);
        --p->n;
        return y;
    }
    return NULL;
}

static void clear_pending(pending *p) {
    for (int k = 0; k < p->n; ++k) trn_diff_snap_free(p->snaps[k]);
    p->n = 0;
    p->bytes = 0;
}

static void describe_step(const trn_lockstep *l, const trn_diff_snap *d, char *buf, size_t len) {
    const trn_step *st = trn_diff_snap_step(d);
    snprintf(buf, len, "instruction %" PRIu64 " (execution %" PRIu64 " on core %u, %s)",
             st->inst->number, st->index, st->core, trn_diff_opname(l->sim[0], st->inst));
}

/* Side `which` left instructions the other never completed. */
static void diverged_pending(trn_lockstep *l, const pending *p, int which, const char *why) {
    char first[256], msg[512];
    describe_step(l, p->snaps[0], first, sizeof first);
    snprintf(msg, sizeof msg, "%c completed %s%s, which %c %s", "AB"[which], first,
             p -> n > 1 ? " and more" : "", "BA"[which], why);
    l->report.diverged(l->report.arg, msg);
}

/* Whether every difference found is a NaN on both sides (all n listed). */
static bool only_nan_pairs(const trn_diff_found *f, int n) {
    if (n > TRN_LOCKSTEP_MAX_FOUND) return false;
    for (int k = 0; k < n; ++k)
        if (f[k].kind != TRN_DIFF_VALUE || f[k].nan_pairs != f[k].differing) return false;
    return true;
}

/* One execution both sides completed: a the snapshot of A, b of B. */
static int compare_pair(trn_lockstep *l, trn_diff_snap *a, trn_diff_snap *b, int *status) {
    static trn_diff_found found[TRN_LOCKSTEP_MAX_FOUND];
    const trn_step *st = trn_diff_snap_step(a);
    ++l->compared;
    int n = trn_diff_snap_compare(l->sim[0], a, b, found, TRN_LOCKSTEP_MAX_FOUND);
    int64_t wrong = 0;
    for (int k = 0; k < n && k < TRN_LOCKSTEP_MAX_FOUND; ++k) wrong += found[k].differing;
    trn_sim_stats_checked(l->sim[0], st, (uint64_t)wrong);
    if (n == 0) return 0;
    if (l->report.nan_payload_open && only_nan_pairs(found, n) &&
        l->report.nan_payload_open(l->report.arg, st)) {
        ++l->nan_payload_only;
        return 0;
    }
    ++l->differing;
    *status = 1;
    l->report.found(l->report.arg, st, found, n);
    return !l->keep_going; /* 1: stop here */
}

/* Step side i once: its completed instruction is matched with the other
 * side's, or kept until the other completes it. 1: stop, 0: go on, -1: error. */
static int step_side(trn_lockstep *l, int i, pending *pend, bool *done, int *status, trn_error *e) {
    trn_step st;
    int rc = trn_sim_step(l->sim[i], &st, e);
    if (rc < 0) {
        l->failed_side = i;
        return trn_error_prefix(e, "%c (%s)", "AB"[i], l -> label[i]);
    }
    if (rc == 0) {
        done[i] = true;
        return 0;
    }
    trn_diff_snap *x = trn_diff_snap_take(l->sim[i], &st, e);
    if (!x)
        return trn_error_prefix(e, "%c (%s): instruction %" PRIu64 " (core %u, %s)", "AB"[i],
                                l -> label[i], st.inst->number, st.core,
                                trn_diff_opname(l->sim[i], st.inst));
    trn_diff_snap *y = take_match(&pend[1 - i], x);
    if (!y) {
        pending *p = &pend[i];
        if (p->n == MAX_PENDING || p->bytes + trn_diff_snap_size(x) > MAX_PENDING_BYTES) {
            trn_diff_snap_free(x);
            diverged_pending(l, p, i, "has not completed after as many more instructions");
            *status = 1;
            return 1;
        }
        p->snaps[p->n++] = x;
        p->bytes += trn_diff_snap_size(x);
        return 0;
    }
    int stop = i == 0 ? compare_pair(l, x, y, status) : compare_pair(l, y, x, status);
    trn_diff_snap_free(x);
    trn_diff_snap_free(y);
    return stop;
}

int trn_lockstep_run(trn_lockstep *l, trn_error *e) {
    static pending pend[2];
    static trn_diff_found found[TRN_LOCKSTEP_MAX_FOUND];
    bool done[2] = {false, false};
    int status = 0, rc = 0;
    l->failed_side = -1;
    while (rc == 0 && !(done[0] && done[1]))
        for (int i = 0; i < 2 && rc == 0; ++i)
            if (!done[i]) rc = step_side(l, i, pend, done, &status, e);
    for (int i = 0; i < 2 && rc == 0; ++i)
        if (pend[i].n) {
            diverged_pending(l, &pend[i], i, "never did");
            status = rc = 1;
        }
    clear_pending(&pend[0]);
    clear_pending(&pend[1]);
    if (rc < 0) return -1;
    if (rc || status) return status;
    /* Every output was equal: a module that wrote outside its outputs is
     * still caught here. */
    int n = trn_diff_tensors(l->sim[0], l->sim[1], found, TRN_LOCKSTEP_MAX_FOUND, e);
    if (n < 0) return -1;
    /* NaNs an open-payload instruction left may sit in any tensor now */
    if (n > 0 && l->nan_payload_only && only_nan_pairs(found, n)) {
        ++l->nan_payload_only;
        return 0;
    }
    if (n > 0) l->report.found(l->report.arg, NULL, found, n);
    return n > 0;
}
