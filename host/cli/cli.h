/* The trnsim command line (docs/cli.md). */
#ifndef TRNSIM_HOST_CLI_H
#define TRNSIM_HOST_CLI_H

int trn_cli_main(int argc, char **argv);

#endif
