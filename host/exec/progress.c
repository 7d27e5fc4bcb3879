/* The progress display (progress.h). On a terminal the line is redrawn in
 * place (carriage return, erase to the end of the line) four times a
 * second; into a file or a pipe (only when forced) each update is a line
 * of its own, once a second, so a log keeps them readable. */
#include "exec/exec.h"

#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "exec/exec_int.h"

#define SHOW_AFTER    1.0  /* seconds before an unforced display appears */
#define TTY_INTERVAL  0.25 /* seconds between redraws on a terminal */
#define FILE_INTERVAL 1.0  /* seconds between lines in a file */
#define CORES_LISTED  8    /* more cores than this: their range instead */

struct trn_progress {
    trn_sim *sim;
    FILE *out;
    bool tty, forced, shown;
    /* an MPI run: one display for the job, rank 0's (the others' lines
     * would interleave with it on mpirun's one stderr). The other processes
     * only offer their counts (`offers`); rank 0 counts the whole job's
     * cores when the transport carries those counts (`job`). */
    bool offers, job;
    double start, next;
    uint64_t per_core, total;
};

static bool is_mpi(const trn_sim *s) { return s->dist.transport && s->dist.tinfo.ranks > 1; }

trn_progress *trn_progress_start(trn_sim *s, int mode, FILE *out) {
    bool tty = isatty(fileno(out));
    if (mode <= 0 || (mode == 1 && !tty)) return NULL;
    trn_progress *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    uint64_t mine;
    p->offers = is_mpi(s) && s->dist.tinfo.rank != 0;
    p->job = is_mpi(s) && s->dist.tinfo.rank == 0 && trn_dist_progress(&s->dist, 0, false, &mine);
    if (p->offers) trn_dist_progress(&s->dist, 0, false, &mine); /* rank 0 hears of it */
    uint32_t cores = p->job ? s->ncores : s->dist.local_hi - s->dist.local_lo;
    p->sim = s;
    p->out = out;
    p->tty = tty;
    p->forced = mode >= 2;
    p->start = trn_now();
    p->next = p->start + (p->forced || p->offers ? 0 : SHOW_AFTER);
    p->per_core = s->prog.summary.executions;
    p->total = p->per_core && cores > UINT64_MAX / p->per_core ? UINT64_MAX : p->per_core * cores;
    return p;
}

static void print_seconds(FILE *f, double t) {
    if (t < 60)
        fprintf(f, "%.1f s", t);
    else
        fprintf(f, "%d min %02d s", (int)(t / 60), (int)t % 60);
}

/* Each core's instructions done of its stream, or their range over many. */
static void print_cores(const trn_progress *p) {
    const trn_sim *s = p->sim;
    uint32_t n = s->dist.local_hi - s->dist.local_lo;
    if (n <= CORES_LISTED) {
        for (uint32_t c = s->dist.local_lo; c < s->dist.local_hi; ++c)
            fprintf(p->out, "%s%" PRIu64, c == s->dist.local_lo ? "" : " ",
                    trn_dispatch_core_done(s, c));
        return;
    }
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t c = s->dist.local_lo; c < s->dist.local_hi; ++c) {
        uint64_t d = trn_dispatch_core_done(s, c);
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
    }
    fprintf(p->out, "%" PRIu64 "..%" PRIu64 " over %u cores", lo, hi, n);
}

/* "progress: 12288/50000 instructions (24.6%); per core (of 25000): 6144 6144; elapsed 1.2 s;
 * ETA 3.7 s" */
static void draw(trn_progress *p, uint64_t done, double now, const char *end) {
    double elapsed = now - p->start;
    double pct = p->total ? 100.0 * (double)done / (double)p->total : 100.0;
    fprintf(p->out,
            "%sprogress: %" PRIu64 "/%" PRIu64 " instructions (%.1f%%); per core (of %" PRIu64
            "): ",
            p->tty ? "\r" : "", done, p->total, pct, p->per_core);
    print_cores(p);
    if (p->job)
        fprintf(p->out, " (MPI process 0's; the count is the job's, %u processes, %u cores)",
                p->sim->dist.tinfo.ranks, p->sim->ncores);
    else if (is_mpi(p->sim))
        fprintf(p->out, " (MPI process 0's cores, of %u processes)", p->sim->dist.tinfo.ranks);
    fputs("; elapsed ", p->out);
    print_seconds(p->out, elapsed);
    fputs("; ETA ", p->out);
    if (end)
        fputs(end, p->out);
    else if (done == 0)
        fputs("?", p->out);
    else
        print_seconds(p->out, elapsed * (double)(p->total - (done < p->total ? done : p->total)) /
                                  (double)done);
    fputs(p->tty ? "\033[K" : "\n", p->out);
    fflush(p->out);
    p->shown = true;
}

void trn_progress_tick(trn_progress *p, uint64_t executed) {
    double now = trn_now();
    if (now < p->next) return;
    p->next = now + (p->tty ? TTY_INTERVAL : FILE_INTERVAL);
    uint64_t done;
    trn_dist_progress(&p->sim->dist, executed, false, &done); /* done = executed: not MPI */
    if (!p->offers) draw(p, done, now, NULL);
}

void trn_progress_finish(trn_progress *p, int failed) {
    if (!p) return;
    uint64_t done = p->sim->executed;
    /* a failed run does not wait for the others' last counts */
    if (p->offers || p->job) trn_dist_progress(&p->sim->dist, done, p->offers || !failed, &done);
    if (!p->offers && (p->shown || p->forced))
        draw(p, done, trn_now(), failed ? "- (stopped)" : "0 s (done)");
    if (p->shown && p->tty) fputc('\n', p->out);
    free(p);
}
