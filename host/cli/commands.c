/* The commands: run (its lifecycle is run.c), check, and the listings. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_int.h"
#include "observers/observers.h"

int cli_cmd_run(int argc, char **argv) {
    static run_args a;
    trn_error e;
    if (cli_parse_run_args(argc, argv, &a, &e)) return cli_fail(e.msg);
    if (!a.program) return cli_fail("run: missing PROGRAM.json (see trnsim --help)");
    if (cli_check_dump_args(&a, &e)) return cli_fail(e.msg);
    if (cli_run(&a, &e)) return 1; /* reported in cli_run (on rank 0 of an MPI run) */
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
    int rc =
        cli_open_sim(&s, &a, &e) || (trnsim_load_program_file(s, a.program) && cli_api_error(&e));
    if (!rc) {
        printf("%s: ok (%d core%s)\n", a.program, trnsim_cores(s), trnsim_cores(s) == 1 ? "" : "s");
        if (trn_sim_program_is_bir(trn_embed_host_sim(s)))
            trn_sim_print_summary(trn_embed_host_sim(s), stdout);
    }
    trnsim_close(s);
    return rc ? cli_fail(e.msg) : 0;
}

/* Opens the simulator for a listing command; extra(argv[i]) may claim an
 * argument of the command's own (returns 1), else it is an error. */
static int open_for_listing(int argc, char **argv, int (*extra)(const char *arg, void *out),
                            void *out, trnsim_sim **s, trn_error *e) {
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
