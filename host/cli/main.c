#include "cli/cli.h"

int main(int argc, char **argv) { return trn_cli_main(argc, argv); }
