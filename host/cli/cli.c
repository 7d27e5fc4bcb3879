/* The trnsim command line: run, check, opcodes, quirks. Every failure ends
 * here as one message on stderr and a non-zero exit. */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_internal.h"

static const char usage[] =
    "usage:\n"
    "  trnsim run PROGRAM.json [--config FILE] [--format bir|native] [--input NAME[@CORE]=FILE.npy]...\n"
    "             [--output NAME[@CORE]=FILE.npy]... [--raw-bits] [--trace] [--stats] [--stats-json]\n"
    "  trnsim check PROGRAM.json [--config FILE] [--format bir|native]   parse and validate, run nothing\n"
    "  trnsim opcodes [--config FILE]              IT, name, family and module of each handler\n"
    "  trnsim quirks [--config FILE]               every named quirk, its default and setting\n"
    "  trnsim --help | --version\n"
    "Without --config the embedded default config (config/default.cfg) is used.\n"
    "PROGRAM is a native program or the compiler's BIR JSON, told apart by its content.\n"
    "See docs/cli.md, docs/programs.md and docs/bir.md.\n";

static int cli_main(int argc, char **argv);

/* A listing or --stats that could not be written (a full disk, a closed
 * pipe) is a failure too, not a silent exit 0. */
int trn_cli_main(int argc, char **argv) {
    int rc = cli_main(argc, argv);
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
        char msg[300];
        snprintf(msg, sizeof msg, "cannot write to standard output: %s", strerror(errno));
        return cli_fail(msg);
    }
    return rc;
}

static int cli_main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        printf("trnsim %s (plugin ABI %u, accepts %u..%u)\n", TRNSIM_VERSION, TRN_ABI_VERSION, TRN_ABI_MIN_VERSION,
               TRN_ABI_VERSION);
        return 0;
    }
    if (!strcmp(cmd, "run")) return cli_cmd_run(argc - 2, argv + 2);
    if (!strcmp(cmd, "check")) return cli_cmd_check(argc - 2, argv + 2);
    if (!strcmp(cmd, "opcodes")) return cli_cmd_list(argc - 2, argv + 2, trn_sim_print_opcodes);
    if (!strcmp(cmd, "quirks")) return cli_cmd_list(argc - 2, argv + 2, trn_sim_print_quirks);
    char msg[300];
    snprintf(msg, sizeof msg, "unknown command '%s' (see trnsim --help)", cmd);
    return cli_fail(msg);
}
