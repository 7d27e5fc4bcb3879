/* The commands: run, check, and the listings. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_internal.h"
#include "runtime/timeline.h"
#include "runtime/trace.h"

/* A distributed run (docs/mpi.md) agrees on every process's status, then
 * copies each requested output to rank 0; a single process does nothing. */
static int cli_distributed_outputs(trn_sim *s, const run_args *a, int rc, trn_error *e) {
    if (!s) return rc;
    rc = trn_sim_agree(s, rc, e);
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

/* --trace and --timeline: observers of this run (docs/observability.md). */
static int start_observers(trn_sim *s, const run_args *a, trn_trace **trace, trn_timeline **timeline, trn_error *e) {
    if ((a->trace_path || a->timeline_path) && trn_sim_is_distributed(s))
        return trn_errorf(e, "%s is not available in a distributed (MPI) run; run the program in one process to "
                          "trace it", a->trace_path ? "--trace" : "--timeline");
    trn_trace_opts o = {.path = a->trace_path, .filter = a->trace_filter, .limit = a->trace_limit,
                        .values = a->trace_values};
    if (a->trace_path && trn_trace_begin(s, &o, trace, e)) return -1;
    if (a->timeline_path && trn_timeline_begin(s, a->timeline_path, timeline, e)) return -1;
    return 0;
}

/* Closes them after the run, failed or not; a write error fails the run. */
static int end_observers(trn_sim *s, trn_trace *trace, trn_timeline *timeline, int rc, trn_error *e) {
    trn_error te;
    if (trn_trace_end(s, trace, &te) && !rc) *e = te, rc = -1;
    if (trn_timeline_end(s, timeline, &te) && !rc) *e = te, rc = -1;
    return rc;
}

static int do_run(run_args *a, trn_error *e) {
    trnsim_sim *s = NULL;
    cli_install_signal_cleanup(a);
    int rc = cli_check_output_paths(a, e) || cli_open_sim(&s, a, e) ||
             (trnsim_load_program_file(s, a->program) && cli_api_error(e)) || cli_check_output_tensors(a, s, e);
    for (int i = 0; i < a->n_in && !rc; ++i) rc = cli_load_input(s, &a->in[i], e);
    if (!rc) rc = cli_setup_dumps(s, a, e);
    trn_trace *trace = NULL;
    trn_timeline *timeline = NULL;
    if (!rc) rc = start_observers(trn_embed_host_sim(s), a, &trace, &timeline, e);
    if (!rc && trnsim_run(s)) rc = cli_api_error(e);
    rc = end_observers(trn_embed_host_sim(s), trace, timeline, rc, e);
    trn_sim *hs = s ? trn_embed_host_sim(s) : NULL;
    if (!trn_sim_is_root(hs)) quiet_when_killed(hs); /* only rank 0 has files to clean up */
    rc = cli_distributed_outputs(hs, a, rc, e); /* an MPI run: every rank's status, outputs to rank 0 */
    bool root = trn_sim_is_root(hs);
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
