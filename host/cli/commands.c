/* The commands: run, check, and the listings. */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_internal.h"
#include "runtime/dist_observe.h"
#include "runtime/timeline.h"
#include "runtime/trace.h"

/* --trace and --timeline: observers of this run (docs/observability.md). In
 * an MPI run each process writes its own cores' records into a part file
 * and rank 0 merges them after the run (runtime/dist_observe.h). */
typedef struct observers {
    trn_trace *trace;
    trn_timeline *timeline;
    trn_dist_obs *parts[2]; /* an MPI run: the trace's and the timeline's */
    bool merged;            /* every process merged its parts: rank 0 commits them */
} observers;

/* In an MPI run the writer gets this process's part file instead of the
 * target; the part loses its name once the writer holds it. */
static int begin_part(trn_sim *s, trn_dist_obs_kind kind, const char *path, uint64_t limit, observers *ob,
                      const char **use, trn_error *e) {
    *use = path;
    if (!trn_sim_is_distributed(s)) return 0;
    if (trn_dist_obs_open(s, kind, path, limit, &ob->parts[kind], e)) return -1;
    cli_track_temp((int)kind, trn_dist_obs_temp_path(ob->parts[kind]));
    *use = trn_dist_obs_part_path(ob->parts[kind]);
    return 0;
}

/* A --trace with no --trace-limit whose records could pass this many bytes
 * is warned about once, before the run, with the estimate and the fix. */
#define TRACE_WARN_BYTES (1ull << 30)
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
    trn_trace_opts o = {.path = a->trace_path, .filter = a->trace_filter, .limit = a->trace_limit,
                        .values = a->trace_values};
    const char *path;
    if (a->trace_path) {
        if (begin_part(s, TRN_DIST_TRACE, a->trace_path, a->trace_limit, ob, &o.path, e) ||
            trn_trace_begin(s, &o, &ob->trace, e))
            return -1;
        trn_dist_obs_forget_name(ob->parts[TRN_DIST_TRACE]);
    }
    if (a->timeline_path) {
        if (begin_part(s, TRN_DIST_TIMELINE, a->timeline_path, 0, ob, &path, e) ||
            trn_timeline_begin(s, path, &ob->timeline, e))
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
        if (ob->parts[k] && trn_dist_obs_merge(s, ob->parts[k], rc != 0, mrc ? &other : &me) && !mrc) mrc = -1;
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
        cli_track_temp(k, NULL);
        trn_dist_obs_close(ob->parts[k]);
        ob->parts[k] = NULL;
    }
    return rc;
}

/* A distributed run (docs/mpi.md) agrees on every process's status (unless
 * a failure was agreed on already), merges the observers' parts, then copies
 * each requested output to rank 0; a single process does nothing. */
static int cli_distributed_outputs(trn_sim *s, const run_args *a, observers *ob, int rc, bool failure_agreed,
                                  trn_error *e) {
    if (!s || failure_agreed) return rc;
    rc = trn_sim_agree(s, rc, e);
    if ((ob->parts[0] || ob->parts[1]) && trn_sim_dist_healthy(s)) rc = merge_observers(s, ob, rc, e);
    for (int i = 0; i < a->n_out && !rc; ++i) rc = trn_sim_gather_tensor(s, a->out[i].name, a->out[i].core, e);
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

static int do_run(run_args *a, trn_error *e) {
    trnsim_sim *s = NULL;
    cli_install_signal_cleanup(a);
    int rc = cli_check_output_paths(a, e) || cli_open_sim(&s, a, e) ||
             (trnsim_load_program_file(s, a->program) && cli_api_error(e)) || cli_check_output_tensors(a, s, e);
    for (int i = 0; i < a->n_in && !rc; ++i) rc = cli_load_input(s, &a->in[i], e);
    if (!rc) rc = cli_setup_dumps(s, a, e);
    observers ob = {0};
    trn_sim *hs = s ? trn_embed_host_sim(s) : NULL;
    if (!rc) rc = start_observers(hs, a, &ob, e);
    /* every process, whatever its rc: a trace file rank 0 cannot create
     * stops them all before the run */
    bool failure_agreed = false;
    if ((a->trace_path || a->timeline_path) && trn_sim_is_distributed(hs))
        failure_agreed = (rc = trn_sim_agree(hs, rc, e)) != 0;
    if (!rc && trnsim_run(s)) rc = cli_api_error(e);
    rc = end_observers(hs, &ob, rc, e);
    if (!trn_sim_is_root(hs)) quiet_when_killed(hs); /* only rank 0 has files to clean up */
    rc = cli_distributed_outputs(hs, a, &ob, rc, failure_agreed, e); /* an MPI run: every rank's status, outputs to rank 0 */
    bool root = trn_sim_is_root(hs);
    rc = finish_observers(&ob, root, rc, e);
    for (int i = 0; i < a->n_out && !rc && root; ++i) rc = cli_save_output(s, a, i, e);
    if (!rc && root) rc = cli_commit_outputs(a, e);
    if (rc) cli_remove_temps(a);
    if (s && !rc && root) {
        trn_sim_print_skip_notes(hs, stderr);
        cli_report_dumps(s, a);
        if (a->stats) trn_sim_print_stats(hs, stdout, a->stats_json);
    }
    if (rc && root) { /* before trnsim_close: in an MPI run the other processes may exit as soon as it returns */
        cli_fail(e->msg);
        e->msg[0] = 0;
        quiet_when_killed(hs);
    }
    bool distributed = trn_sim_is_distributed(hs);
    trnsim_close(s);
    cli_release_old_files(!distributed); /* after the memories are gone, so the fork is cheap; no fork under MPI */
    return rc ? -1 : 0;
}

int cli_cmd_run(int argc, char **argv) {
    static run_args a;
    trn_error e;
    if (cli_parse_run_args(argc, argv, &a, &e)) return cli_fail(e.msg);
    if (!a.program) return cli_fail("run: missing PROGRAM.json (see trnsim --help)");
    if (cli_check_dump_args(&a, &e)) return cli_fail(e.msg);
    if (do_run(&a, &e)) return 1; /* reported in do_run (on rank 0 of an MPI run) */
    return 0;
}

int cli_cmd_check(int argc, char **argv) {
    static run_args a;
    trn_error e;
    if (cli_parse_run_args(argc, argv, &a, &e)) return cli_fail(e.msg);
    if (!a.program) return cli_fail("check: missing PROGRAM.json");
    if (cli_refuse_dump_args(&a, "check", &e)) return cli_fail(e.msg);
    trnsim_sim *s = NULL;
    a.trace = a.stats = false;
    int rc = cli_open_sim(&s, &a, &e) || (trnsim_load_program_file(s, a.program) && cli_api_error(&e));
    if (!rc) {
        printf("%s: ok (%d core%s)\n", a.program, trnsim_cores(s), trnsim_cores(s) == 1 ? "" : "s");
        if (trn_sim_program_is_bir(trn_embed_host_sim(s))) trn_sim_print_summary(trn_embed_host_sim(s), stdout);
    }
    trnsim_close(s);
    return rc ? cli_fail(e.msg) : 0;
}

/* Opens the simulator for a listing command; extra(argv[i]) may claim an
 * argument of the command's own (returns 1), else it is an error. */
static int open_for_listing(int argc, char **argv, int (*extra)(const char *arg, void *out), void *out,
                            trnsim_sim **s, trn_error *e) {
    static config_args c;
    for (int i = 0; i < argc; ++i) {
        int r = cli_parse_config_arg(argc, argv, &i, &c, e);
        if (r < 0) return -1;
        if (r == 0 && !(extra && extra(argv[i], out)))
            return trn_errorf(e, "unexpected argument '%s'", argv[i]);
    }
    static run_args a; /* large: not on the stack */
    a.cfg = c;
    return cli_open_sim(s, &a, e);
}

static int cmd_list(int argc, char **argv, void (*print)(const trn_sim *, FILE *)) {
    trnsim_sim *s = NULL;
    trn_error e;
    if (open_for_listing(argc, argv, NULL, NULL, &s, &e)) return cli_fail(e.msg);
    print(trn_embed_host_sim(s), stdout);
    trnsim_close(s);
    return 0;
}

static int take_attrs_flag(const char *arg, void *out) {
    if (strcmp(arg, "--attrs")) return 0;
    *(bool *)out = true;
    return 1;
}

int cli_cmd_opcodes(int argc, char **argv) {
    bool attrs = false;
    trnsim_sim *s = NULL;
    trn_error e;
    if (open_for_listing(argc, argv, take_attrs_flag, &attrs, &s, &e)) return cli_fail(e.msg);
    (attrs ? trn_sim_print_opcode_attrs : trn_sim_print_opcodes)(trn_embed_host_sim(s), stdout);
    trnsim_close(s);
    return 0;
}

static int take_opcode_name(const char *arg, void *out) {
    const char **name = out;
    if (arg[0] == '-' || *name) return 0;
    *name = arg;
    return 1;
}

int cli_cmd_describe(int argc, char **argv) {
    const char *name = NULL;
    trnsim_sim *s = NULL;
    trn_error e;
    if (open_for_listing(argc, argv, take_opcode_name, &name, &s, &e)) return cli_fail(e.msg);
    int rc = name ? trn_sim_describe(trn_embed_host_sim(s), name, stdout, &e)
                  : trn_errorf(&e, "describe: missing OPCODE (trnsim opcodes lists the names)");
    trnsim_close(s);
    return rc ? cli_fail(e.msg) : 0;
}

int cli_cmd_quirks(int argc, char **argv) { return cmd_list(argc, argv, trn_sim_print_quirks); }
