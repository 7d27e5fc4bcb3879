/* The commands: run, check, and the listings. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_internal.h"

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

static int do_run(run_args *a, trn_error *e) {
    trnsim_sim *s = NULL;
    cli_install_signal_cleanup(a);
    int rc = cli_check_output_paths(a, e) || cli_open_sim(&s, a, e) ||
             (trnsim_load_program_file(s, a->program) && cli_api_error(e)) || cli_check_output_tensors(a, s, e);
    for (int i = 0; i < a->n_in && !rc; ++i) rc = cli_load_input(s, &a->in[i], e);
    if (!rc && trnsim_run(s)) rc = cli_api_error(e);
    trn_sim *hs = s ? trn_embed_host_sim(s) : NULL;
    if (!trn_sim_is_root(hs)) quiet_when_killed(hs); /* only rank 0 has files to clean up */
    rc = cli_distributed_outputs(hs, a, rc, e); /* an MPI run: every rank's status, outputs to rank 0 */
    bool root = trn_sim_is_root(hs);
    for (int i = 0; i < a->n_out && !rc && root; ++i) rc = cli_save_output(s, a, i, e);
    if (!rc && root) rc = cli_commit_outputs(a, e);
    if (rc) cli_remove_temps(a);
    if (s && !rc && root) {
        trn_sim_print_skip_notes(hs, stderr);
        if (a->stats) trn_sim_print_stats(hs, stdout, a->stats_json);
    }
    if (rc && root) { /* before trnsim_close: in an MPI run the other processes may exit as soon as it returns */
        cli_fail(e->msg);
        e->msg[0] = 0;
        quiet_when_killed(hs);
    }
    trnsim_close(s);
    return rc ? -1 : 0;
}

int cli_cmd_run(int argc, char **argv) {
    static run_args a;
    trn_error e;
    if (cli_parse_run_args(argc, argv, &a, &e)) return cli_fail(e.msg);
    if (!a.program) return cli_fail("run: missing PROGRAM.json (see trnsim --help)");
    if (do_run(&a, &e)) return 1; /* reported in do_run (on rank 0 of an MPI run) */
    return 0;
}

int cli_cmd_check(int argc, char **argv) {
    static run_args a;
    trn_error e;
    if (cli_parse_run_args(argc, argv, &a, &e)) return cli_fail(e.msg);
    if (!a.program) return cli_fail("check: missing PROGRAM.json");
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

static int cmd_list(int argc, char **argv, void (*print)(const trn_sim *, FILE *)) {
    static config_args c;
    trn_error e;
    for (int i = 0; i < argc; ++i) {
        int r = cli_parse_config_arg(argc, argv, &i, &c, &e);
        if (r < 0) return cli_fail(e.msg);
        if (r == 0) {
            char msg[300];
            snprintf(msg, sizeof msg, "unexpected argument '%s'", argv[i]);
            return cli_fail(msg);
        }
    }
    trnsim_sim *s = NULL;
    static run_args a; /* large: not on the stack */
    a.cfg = c;
    if (cli_open_sim(&s, &a, &e)) return cli_fail(e.msg);
    print(trn_embed_host_sim(s), stdout);
    trnsim_close(s);
    return 0;
}


int cli_cmd_opcodes(int argc, char **argv) { return cmd_list(argc, argv, trn_sim_print_opcodes); }

int cli_cmd_quirks(int argc, char **argv) { return cmd_list(argc, argv, trn_sim_print_quirks); }
