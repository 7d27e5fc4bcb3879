/* The run command's lifecycle (trnsim run): open the simulator, load the
 * program through the file guard, bind the inputs, start the observers,
 * run and collect (every MPI process's status, the merged trace and
 * timeline, the outputs at rank 0), commit the outputs, close. cli_run is
 * that sequence; each phase is one function below. */
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_int.h"
#include "observers/observers.h"

/* --trace and --timeline: observers of this run (docs/observability.md). In
 * an MPI run each process writes its own cores' records into a part file
 * and rank 0 merges them after the run (observers/observers.h). */
typedef struct observers {
    trn_trace *trace;
    trn_timeline *timeline;
    trn_dist_obs *parts[2]; /* an MPI run: the trace's and the timeline's */
    bool merged;            /* every process merged its parts: rank 0 commits them */
} observers;

/* In an MPI run the writer gets this process's part file instead of the
 * target; the part loses its name once the writer holds it. */
static int begin_part(trn_sim *s, trn_dist_obs_kind kind, const char *path, uint64_t limit,
                      observers *ob, const char **use, trn_error *e) {
    *use = path;
    if (!trn_sim_is_distributed(s)) return 0;
    if (trn_dist_obs_open(s, kind, path, limit, &ob->parts[kind], e)) return -1;
    *use = trn_dist_obs_part_path(ob->parts[kind]);
    return 0;
}

/* A --trace with no --trace-limit whose records could pass this many bytes
 * is warned about once, before the run, with the estimate and the fix. */
#define TRACE_WARN_BYTES   (1ull << 30)
#define TRACE_RECORD_BYTES 600 /* about what one instruction record takes */

static void warn_trace_size(const trn_sim *s, const run_args *a) {
    if (!a->trace_path || a->trace_limit || trn_sim_is_distributed(s)) return;
    uint64_t n = trn_sim_executions(s), bytes;
    uint32_t cores = trn_sim_cores(s);
    if (__builtin_mul_overflow(n, (uint64_t)cores * TRACE_RECORD_BYTES, &bytes)) bytes = UINT64_MAX;
    if (bytes <= TRACE_WARN_BYTES) return;
    fprintf(stderr,
            "trnsim: warning: --trace %s may grow to about %.1f GiB (%" PRIu64
            " instructions on %u core%s, "
            "~%d bytes each); add --trace-limit N to write at most N records\n",
            a->trace_path, (double)bytes / (1ull << 30), n, cores, cores == 1 ? "" : "s",
            TRACE_RECORD_BYTES);
}

static int start_observers(trn_sim *s, const run_args *a, observers *ob, trn_error *e) {
    warn_trace_size(s, a);
    bool part = trn_sim_is_distributed(s);
    trn_trace_opts o = {.path = a->trace_path,
                        .filter = a->trace_filter,
                        .limit = a->trace_limit,
                        .values = a->trace_values,
                        .part = part};
    const char *path;
    if (a->trace_path) {
        if (begin_part(s, TRN_DIST_TRACE, a->trace_path, a->trace_limit, ob, &o.path, e) ||
            trn_trace_begin(s, &o, &ob->trace, e))
            return -1;
        trn_dist_obs_forget_name(ob->parts[TRN_DIST_TRACE]);
    }
    if (a->timeline_path) {
        if (begin_part(s, TRN_DIST_TIMELINE, a->timeline_path, 0, ob, &path, e) ||
            (part ? trn_timeline_begin_part : trn_timeline_begin)(s, path, &ob->timeline, e))
            return -1;
        trn_dist_obs_forget_name(ob->parts[TRN_DIST_TIMELINE]);
    }
    return 0;
}

/* Closes them after the run, failed or not; a write error fails the run. */
static int end_observers(trn_sim *s, observers *ob, int rc, trn_error *e) {
    trn_error te;
    if (trn_trace_end(s, ob->trace, &te) && !rc) *e = te, rc = -1;
    if (trn_timeline_end(s, ob->timeline, &te) && !rc) *e = te, rc = -1;
    ob->trace = NULL;
    ob->timeline = NULL;
    return rc;
}

/* After the run, every process: the parts to rank 0, which writes the
 * merged files (also of a failed run, as one process keeps its trace);
 * then whether every process managed. A failure of the merge fails a run
 * that succeeded; a run's own error stays the one reported. */
static int merge_observers(trn_sim *s, observers *ob, int rc, trn_error *e) {
    trn_error me = {0}, other;
    int mrc = 0;
    for (int k = 0; k < 2; ++k)
        if (ob->parts[k] && trn_dist_obs_merge(s, ob->parts[k], rc != 0, mrc ? &other : &me) &&
            !mrc)
            mrc = -1;
    mrc = trn_sim_agree(s, mrc, &me);
    ob->merged = mrc == 0;
    if (mrc && !rc) *e = me, rc = -1;
    return rc;
}

/* Rank 0 puts the merged files in place; then every part is let go. */
static int finish_observers(observers *ob, bool root, int rc, trn_error *e) {
    trn_error ce;
    for (int k = 0; k < 2; ++k) {
        if (ob->merged && root && trn_dist_obs_commit(ob->parts[k], &ce) && !rc) *e = ce, rc = -1;
        trn_dist_obs_close(ob->parts[k]);
        ob->parts[k] = NULL;
    }
    return rc;
}

/* After the run: every output's bytes were written (each process checks
 * its own cores). A distributed run (docs/mpi.md) agrees on every
 * process's status (unless a failure was agreed on already), merges the
 * observers' parts, agrees on the outputs' check, then copies each
 * requested output to rank 0; a single process only checks. */
static int cli_collect_outputs(trn_sim *s, const run_args *a, observers *ob, int rc,
                               bool failure_agreed, trn_error *e) {
    if (!s || failure_agreed) return rc;
    rc = trn_sim_agree(s, rc, e);
    if ((ob->parts[0] || ob->parts[1]) && trn_sim_dist_healthy(s))
        rc = merge_observers(s, ob, rc, e);
    if (!rc) rc = trn_sim_agree(s, cli_check_outputs_written(a, s, e), e);
    if (!rc) rc = cli_gather_outputs(s, a, e);
    return rc;
}

/* In an MPI run mpirun stops the other processes once one exits non-zero;
 * a process with nothing left to clean up then ends without a message of
 * its own (the one error line is printed already). */
static void quiet_when_killed(const trn_sim *s) {
    if (!trn_sim_is_distributed(s)) return;
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
}

/* Every file the run writes and reads through the one guard, before the
 * program and the inputs are read (docs/cli.md, "Files a run writes"). In
 * an MPI run rank 0 writes every file, so its verdict is every process's. */
static int check_files(trn_sim *hs, run_args *a, bool *failure_agreed, trn_error *e) {
    int rc = trn_sim_is_root(hs) ? cli_check_files(a, e) : 0;
    if (trn_sim_is_distributed(hs)) *failure_agreed = (rc = trn_sim_agree(hs, rc, e)) != 0;
    return rc;
}

/* Started by mpirun (Open MPI, PMIx or PMI rank variables) without an MPI
 * transport in the config, a process would run the whole program alone
 * while the others wait for it in MPI_Init (docs/mpi.md). */
static int check_launch(trn_sim *hs, trn_error *e) {
    static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; ++i) {
        const char *rank = getenv(vars[i]);
        if (rank && !trn_sim_has_transport(hs))
            return trn_errorf(e,
                              "MPI process %s: started by mpirun (%s is set), but the config has "
                              "no MPI transport, so this process would run the whole program "
                              "alone; give every process --config config/mpi.cfg (or a config "
                              "whose collective module is trnsim-collective-mpi)",
                              rank, vars[i]);
    }
    return 0;
}

/* One run, from the command line's point of view: the simulator and the
 * run's own state between the phases below. */
typedef struct cli_run_state {
    run_args *a;
    trnsim_sim *s;
    trn_sim *hs; /* the host simulator behind s, NULL until it is open */
    observers ob;
    bool failure_agreed; /* every MPI process agreed on a failure already */
    bool root;           /* this process writes the files and prints */
} cli_run_state;

/* open: the simulator on the config; a process mpirun started without the
 * MPI transport refuses here, each with its own line (-2: reported). */
static int run_open(cli_run_state *r, trn_error *e) {
    cli_install_signal_cleanup(r->a);
    int rc = cli_open_sim(&r->s, r->a, e);
    r->hs = r->s ? trn_embed_host_sim(r->s) : NULL;
    if (!trn_sim_is_root(r->hs)) quiet_when_killed(r->hs); /* only rank 0 has files to clean up */
    if (!rc && check_launch(r->hs, e)) {
        cli_fail(e->msg);
        return -2;
    }
    return rc;
}

/* load: every file through the guard, then the program, the outputs it
 * names, and (MPI) every process's agreement on the whole run. */
static int run_load(cli_run_state *r, trn_error *e) {
    return check_files(r->hs, r->a, &r->failure_agreed, e) ||
           (trnsim_load_program_file(r->s, r->a->program) && cli_api_error(e)) ||
           cli_check_output_tensors(r->a, r->s, e) || cli_agree_run(r->hs, r->a, e);
}

/* bind: the --input files and the dump and restore options. */
static int run_bind(cli_run_state *r, trn_error *e) {
    int rc = 0;
    for (int i = 0; i < r->a->n_in && !rc; ++i) rc = cli_load_input(r->s, &r->a->in[i], e);
    return rc ? rc : cli_setup_dumps(r->s, r->a, e);
}

/* observe: --trace and --timeline. Every process, whatever rc: a trace
 * file rank 0 cannot create stops them all before the run. */
static int run_observe(cli_run_state *r, int rc, trn_error *e) {
    const run_args *a = r->a;
    if (!rc) rc = start_observers(r->hs, a, &r->ob, e);
    if (!r->failure_agreed && (a->trace_path || a->timeline_path) && trn_sim_is_distributed(r->hs))
        r->failure_agreed = (rc = trn_sim_agree(r->hs, rc, e)) != 0;
    return rc;
}

/* run, then collect: the observers closed; in an MPI run every process's
 * status, the merged trace and timeline, and the outputs at rank 0. */
static int run_execute_and_collect(cli_run_state *r, int rc, trn_error *e) {
    if (!rc && trnsim_run(r->s)) rc = cli_api_error(e);
    rc = end_observers(r->hs, &r->ob, rc, e);
    rc = cli_collect_outputs(r->hs, r->a, &r->ob, rc, r->failure_agreed, e);
    r->root = trn_sim_is_root(r->hs);
    return finish_observers(&r->ob, r->root, rc, e);
}

/* commit: rank 0 saves every output and puts them in place, all or
 * nothing, then reports. */
static int run_commit(cli_run_state *r, int rc, trn_error *e) {
    const run_args *a = r->a;
    for (int i = 0; i < a->n_out && !rc && r->root; ++i) rc = cli_save_output(r->s, r->a, i, e);
    if (!rc && r->root) rc = cli_commit_outputs(r->a, e);
    if (rc) cli_remove_temps(r->a);
    if (r->s && !rc && r->root) {
        trn_sim_print_skip_notes(r->hs, stderr);
        cli_report_dumps(r->s, a);
        if (a->stats) trn_sim_print_stats(r->hs, stdout, a->stats_json);
    }
    return rc;
}

/* close: the one error line (before trnsim_close: in an MPI run the other
 * processes may exit as soon as it returns; when a process stopped
 * answering, every process that still does prints its own line). */
static int run_close(cli_run_state *r, int rc, trn_error *e) {
    trn_sim *hs = r->hs;
    if (rc && (r->root || (trn_sim_is_distributed(hs) && !trn_sim_dist_healthy(hs) && e->msg[0]))) {
        cli_fail(e->msg);
        e->msg[0] = 0;
        quiet_when_killed(hs);
    }
    bool distributed = trn_sim_is_distributed(hs);
    trnsim_close(r->s);
    cli_release_old_files(
        !distributed); /* after the memories are gone, so the fork is cheap; no fork under MPI */
    return rc ? -1 : 0;
}

int cli_run(run_args *a, trn_error *e) {
    cli_run_state r = {.a = a};
    int rc = run_open(&r, e);
    if (rc == -2) return run_close(&r, 0, e), -1; /* reported by run_open */
    if (!rc) rc = run_load(&r, e);
    if (!rc) rc = run_bind(&r, e);
    rc = run_observe(&r, rc, e);
    rc = run_execute_and_collect(&r, rc, e);
    rc = run_commit(&r, rc, e);
    return run_close(&r, rc, e);
}
