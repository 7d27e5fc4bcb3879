/* The trnsim command line: finds the command in the command table
 * (usage.c), answers --help and --version, and turns every failure into one
 * message on stderr and a non-zero exit. */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_int.h"

#ifndef TRNSIM_FAMILIES_BUILT /* set by host/CMakeLists.txt */
#define TRNSIM_FAMILIES_BUILT   "?"
#define TRNSIM_FAMILIES_LINKAGE "?"
#endif

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

static void print_version(FILE *f) {
    fprintf(f, "trnsim %s\n", TRNSIM_VERSION);
    fprintf(f, "plugin ABI %u (accepts modules of ABI %u to %u)\n", TRN_ABI_VERSION,
            TRN_ABI_MIN_VERSION, TRN_ABI_VERSION);
    fprintf(f, "families built: %s (%s)\n", TRNSIM_FAMILIES_BUILT, TRNSIM_FAMILIES_LINKAGE);
}

static int cli_main(int argc, char **argv) {
    if (argc < 2) {
        cli_print_usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        cli_print_usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "--version")) {
        print_version(stdout);
        return 0;
    }
    const cli_command *c = cli_find_command(cmd);
    if (!c) {
        char msg[300];
        snprintf(msg, sizeof msg, "unknown command '%s' (see trnsim --help)", cmd);
        return cli_fail(msg);
    }
    if (cli_wants_help(c, argc - 2, argv + 2)) {
        cli_print_command_help(c, stdout);
        return 0;
    }
    return c->main(argc - 2, argv + 2);
}
