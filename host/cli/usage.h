/* The command table: every command, its operands, its options and its help
 * text, in one place. `trnsim --help`, `trnsim COMMAND --help` and the
 * trnsim(1) man page (generated from `trnsim --help` by help2man) all print
 * from it, and the dispatcher finds commands in it. To add a command, add a
 * row to commands[] in usage.c; to add an option, add a line to the command's
 * option list (its parser lives in args.c or commands.c). */
#ifndef TRNSIM_HOST_CLI_USAGE_H
#define TRNSIM_HOST_CLI_USAGE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct cli_option {
    const char *flag;  /* "--config" */
    const char *value; /* "FILE"; NULL for an option that takes no value */
    const char *help;  /* one sentence, no trailing period */
} cli_option;

typedef struct cli_command {
    const char *name;        /* "run" */
    const char *operands;    /* "PROGRAM.json", "" for none */
    const char *summary;     /* the line in `trnsim --help` */
    const char *description; /* the paragraph of `trnsim COMMAND --help` */
    const cli_option *options; /* ends with an entry whose flag is NULL */
    int (*main)(int argc, char **argv); /* argv: the arguments after the command */
} cli_command;

/* The row named `name`, or NULL. */
const cli_command *cli_find_command(const char *name);

/* `trnsim --help`: every command with its options. */
void cli_print_usage(FILE *f);

/* `trnsim COMMAND --help`. */
void cli_print_command_help(const cli_command *c, FILE *f);

/* True when argv (a command's arguments) asks for help: a -h or --help that
 * is not the value of an option taking one. */
bool cli_wants_help(const cli_command *c, int argc, char **argv);

#endif
