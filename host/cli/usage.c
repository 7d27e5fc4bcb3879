/* The command table and the help printed from it (usage.h). */
#include "cli/cli_int.h"

#include <string.h>

#define CONFIG_OPTION                                                                              \
    { "--config", "FILE", "read FILE instead of the embedded default config (config/default.cfg)" }
#define SET_OPTION                                                                                 \
    {                                                                                              \
        "--set", "KEY=VALUE",                                                                      \
            "change one config setting: machine.NAME, FAMILY.NAME (a module setting) or a "        \
            "top-level NAME, e.g. "                                                                \
            "machine.hbm_bytes=1073741824, collective.cores_per_lnc=4, unknown_opcode=skip; "      \
            "repeatable, the last wins"                                                            \
    }
#define FORMAT_OPTION                                                                              \
    {                                                                                              \
        "--format", "bir|native",                                                                  \
            "read PROGRAM as the compiler's BIR JSON or as a native program; without it the "      \
            "content decides"                                                                      \
    }
#define FUNCTION_OPTION                                                                            \
    {                                                                                              \
        "--function", "NAME",                                                                      \
            "a BIR file with several functions: run the one named NAME (the config setting "       \
            "bir_function)"                                                                        \
    }
#define END_OPTIONS                                                                                \
    { NULL, NULL, NULL }

static const cli_option run_options[] = {
    CONFIG_OPTION,
    SET_OPTION,
    FORMAT_OPTION,
    FUNCTION_OPTION,
    {"--input", "NAME[@CORE]=FILE.npy",
     "set tensor NAME from a .npy file, on every core (a [cores, ...] file gives core k slice k) "
     "or on core CORE; "
     "repeatable"},
    {"--output", "NAME[@CORE]=FILE.npy",
     "after the run, write tensor NAME to a .npy file: core 0 of a 1-core run, [cores, ...] "
     "otherwise, or core "
     "CORE; repeatable"},
    {"--max-instructions", "N",
     "stop the run with an error before it would start instruction N+1 (all cores)"},
    {"--timeout", "SECONDS",
     "stop the run with an error once its execution took longer than SECONDS"},
    {"--raw-bits", NULL,
     "write bf16 and fp8 outputs as their raw bits (<u2, |u1) instead of widened to float32"},
    {"--trace", "FILE.jsonl",
     "write one JSON object per executed instruction (operands, output digests, times, status) to "
     "FILE.jsonl, "
     "or to standard error for -"},
    {"--trace-filter", "FILTER",
     "trace only the instructions FILTER selects, e.g. "
     "'opcode=Max,MatchReplace;core=0;index=100-200;family=dma'"},
    {"--trace-limit", "N",
     "write at most N instruction records; the last record says the limit was reached"},
    {"--trace-values[=K]", NULL,
     "add the first K elements (default 8) of each output to its record, as values and bits"},
    {"--trace-text", NULL, "print one line per executed instruction on standard error"},
    {"--timeline", "FILE.json",
     "write a Chrome trace-event timeline (one track per core, open it in Perfetto or "
     "chrome://tracing)"},
    {"--progress", NULL,
     "show the one-line progress display on standard error even when it is not a terminal"},
    {"--no-progress", NULL,
     "never show the progress display (by default a run longer than a second on a terminal shows "
     "it)"},
    {"--stats", NULL, "print per-opcode counts, skips and times on standard output after the run"},
    {"--stats-json", NULL, "print the same statistics as one JSON object"},
    {"--dump-at", "INDEX[@CORE]=DIR",
     "before core CORE (default 0) starts its instruction INDEX, write every tensor of every core "
     "as .npy, the "
     "memories, registers, module states and manifest.json to the new directory DIR; repeatable"},
    {"--dump-on-error", "DIR",
     "when the run fails, write the same dump of the state just before the failing "
     "instruction ran to DIR"},
    {"--restore", "DIR",
     "continue the run from a dump instead of from the start (same program, config and --set)"},
    END_OPTIONS,
};

static const cli_option diff_options[] = {
    {"--config", "A.cfg", "configuration A (without it: the embedded default config)"},
    {"--set", "KEY=VALUE", "change one setting of A, as run's --set; repeatable"},
    {"--against", "B.cfg", "configuration B (without it: the same file as A)"},
    {"--against-set", "KEY=VALUE",
     "change one setting of B, e.g. search.duplicate_match_order=descending; repeatable"},
    {"--against-module", "FAMILY=PATH",
     "load B's module of FAMILY from the .so file PATH instead; repeatable"},
    FORMAT_OPTION,
    FUNCTION_OPTION,
    {"--input", "NAME[@CORE]=FILE.npy",
     "set tensor NAME from a .npy file in both runs, as run does; repeatable"},
    {"--max-instructions", "N", "stop with an error before either run would start instruction N+1"},
    {"--timeout", "SECONDS", "stop with an error once either run took longer than SECONDS"},
    {"--keep-going", NULL,
     "report every differing instruction (a table, one line per operand) instead of stopping at "
     "the first"},
    {"--json", NULL, "print the report as one JSON object"},
    {"--stats", NULL,
     "after the report, A's statistics as run --stats prints them, each collective's #wrong from "
     "the comparison"},
    END_OPTIONS,
};
static const cli_option check_options[] = {CONFIG_OPTION, SET_OPTION, FORMAT_OPTION,
                                           FUNCTION_OPTION, END_OPTIONS};
static const cli_option convert_options[] = {
    {"-o", "FILE", "write the converted program to FILE instead of standard output"},
    {"--to", "bir|native", "write a native program (the default) or the compiler's BIR JSON"},
    CONFIG_OPTION,
    SET_OPTION,
    FORMAT_OPTION,
    FUNCTION_OPTION,
    END_OPTIONS};
static const cli_option config_only[] = {CONFIG_OPTION, SET_OPTION, END_OPTIONS};
static const cli_option opcodes_options[] = {
    {"--attrs", NULL,
     "print each opcode's operands and attributes from its module's schema, as describe does"},
    CONFIG_OPTION,
    SET_OPTION,
    END_OPTIONS};
static const cli_option no_options[] = {END_OPTIONS};

static int cmd_help(int argc, char **argv);

/* The commands, in the order `trnsim --help` lists them. */
static const cli_option conform_options[] = {
    {"--family", "F",
     "generate programs for family F's opcodes; repeatable (default: every loaded family)"},
    {"--opcode", "NAME", "generate programs for opcode NAME; repeatable"},
    {"--module", "FAMILY=PATH",
     "side B loads FAMILY's module from PATH (a .so, or a module name such as trnsim-search-ref); "
     "repeatable"},
    {"--against-module", "FAMILY=PATH", "the same as --module"},
    {"--config", "FILE", "the config of side A (and of B before its replacements)"},
    {"--set", "KEY=VALUE", "change one setting of both sides, as run's --set; repeatable"},
    {"--cases", "N", "run N cases (default 100; with --time only: as many as fit)"},
    {"--seed", "S",
     "the seed every case is drawn from (default: from the clock; the summary prints it)"},
    {"--time", "SECONDS", "stop starting cases after SECONDS"},
    {"--frontends", "native,bir,python",
     "compare the native front end with each other one named (BIR written and read back; the "
     "Python package) instead of two modules"},
    {"--keep-going", NULL,
     "go on after a difference (each shrunk and written) instead of stopping"},
    {"--out", "DIR",
     "where a difference's shrunk case is written, as DIR/case-N/ (default conform-out)"},
    {"--json", NULL, "print the summary as one JSON object"},
    END_OPTIONS};

static const cli_command commands[] = {
    {"run", "PROGRAM.json", "run a program and write its outputs",
     "Read the config and load its modules, validate PROGRAM.json, place its tensors on every "
     "core, apply the "
     "--input files, run every core to the end, then write the --output files. A failed run leaves "
     "no output "
     "file behind.",
     run_options, cli_cmd_run},
    {"diff", "PROGRAM.json", "run on two configs in lockstep, compare every bit",
     "Open two simulators in one process, A (--config, --set) and B (--against, --against-set, "
     "--against-module), "
     "load PROGRAM.json and the --input files into both, then run them one instruction at a time. "
     "After each "
     "instruction every output operand and the core's registers are compared bit for bit; at the "
     "first "
     "difference the report names the instruction (number, execution, core, opcode, BIR name), the "
     "operand, "
     "the first differing element with its index, both bit patterns and values, the ULP distance "
     "and how many "
     "elements differ. After the run every tensor is compared too. Exit status 0: identical, 1: a "
     "difference, "
     "2: an error.",
     diff_options, cli_cmd_diff},
    {"conform", "", "generate programs, compare two modules in lockstep",
     "Generates random valid programs for the chosen families and opcodes from their modules' "
     "recipes and schemas, with adversarial input data, and runs each on side A (the config) and "
     "side B (A with the --module replacements, or the program through another front end) in "
     "lockstep, as diff does. A difference is shrunk to the smallest case that still differs and "
     "written to DIR/case-N/ with the one trnsim diff line that reproduces it. The summary gives "
     "the cases per opcode and dtype, the share of generated instructions that passed the static "
     "check, the seed, cases per second and the command that repeats the run. Exit status 0: "
     "every case agrees, 1: a difference, 2: an error.",
     conform_options, cli_cmd_conform},
    {"check", "PROGRAM.json", "validate a program, run nothing",
     "Do everything run does before running: read the config, load the modules, and check the "
     "program's "
     "structure, its opcodes and the bounds of every operand without a dynamic offset. Prints "
     "'PROGRAM.json: ok (N cores)'; for a BIR file also the counts of allocations, instructions, "
     "loops and "
     "their trips, executions per core and the opcode histogram.",
     check_options, cli_cmd_check},
    {"convert", "PROGRAM.json", "write the program as a native program or as BIR",
     "Read PROGRAM.json as check does (a BIR file is translated, docs/bir.md) and write the "
     "equivalent native "
     "program, tensors named after the allocations, or with --to bir the equivalent BIR JSON "
     "(a program with a part BIR cannot say is refused, naming it), to standard output or to "
     "the -o file (written under a temporary name and renamed into place only when complete).",
     convert_options, cli_cmd_convert},
    {"opcodes", "", "list every registered opcode",
     "One line per registered opcode: IT, name, family, module and the file it was loaded from "
     "('(built in)' "
     "in a static build). With --attrs, every opcode as describe prints it.",
     opcodes_options, cli_cmd_opcodes},
    {"describe", "OPCODE", "print one opcode's operands and attributes",
     "The opcode's IT, family and module, then its operands (direction, role, meaning) and "
     "attributes "
     "(types, required or default, range, BIR field name, enum values with their BIR spellings, "
     "meaning) "
     "as its module's schema declares them: what check and run enforce.",
     config_only, cli_cmd_describe},
    {"quirks", "", "list every named quirk",
     "Every named quirk of the host and of the loaded modules: name, default, the setting that "
     "changes it "
     "('-' if none), owner and meaning.",
     config_only, cli_cmd_quirks},
    {"help", "[COMMAND]", "print this help, or one command's",
     "Print the help of every command, or only that of COMMAND (the same as trnsim COMMAND "
     "--help).",
     no_options, cmd_help},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

#define HELP_COLUMN 28 /* where the explanation of a command or option starts */
#define LINE_WIDTH  79

const cli_command *cli_find_command(const char *name) {
    for (size_t i = 0; i < N_COMMANDS; ++i)
        if (!strcmp(commands[i].name, name)) return &commands[i];
    return NULL;
}

/* Prints text from column `col` (the cursor is at `at`), wrapped at spaces. */
static void print_wrapped(FILE *f, const char *text, int at, int col) {
    if (at > 0 && at > col - 2) {
        fputc('\n', f);
        at = 0;
    }
    fprintf(f, "%*s", col - at, "");
    int x = col;
    for (const char *p = text; *p;) {
        size_t word = strcspn(p, " ");
        if (x > col && x + 1 + (int)word > LINE_WIDTH) {
            fprintf(f, "\n%*s", col, "");
            x = col;
        } else if (x > col) {
            fputc(' ', f);
            ++x;
        }
        fwrite(p, 1, word, f);
        x += (int)word;
        p += word;
        p += strspn(p, " ");
    }
    fputc('\n', f);
}

static void print_item(FILE *f, const char *lead, const char *a, const char *b, const char *help) {
    int at = fprintf(f, "%s%s%s%s", lead, a, b[0] ? " " : "", b);
    print_wrapped(f, help, at, HELP_COLUMN);
}

static void print_options(FILE *f, const cli_option *o) {
    for (; o->flag; ++o) print_item(f, "      ", o->flag, o->value ? o->value : "", o->help);
}

static void print_help_option(FILE *f, const char *help) {
    print_item(f, "  -h, ", "--help", "", help);
}

void cli_print_usage(FILE *f) {
    fputs("Usage: trnsim COMMAND [ARGUMENT]... [OPTION]...\n"
          "  or:  trnsim --help | --version\n"
          "Run programs of NeuronCore instructions (BIR), bit-exact to the reference simulator.\n"
          "\nCommands:\n",
          f);
    for (size_t i = 0; i < N_COMMANDS; ++i)
        print_item(f, "  ", commands[i].name, commands[i].operands, commands[i].summary);
    /* commands that share one option list share one heading */
    for (size_t i = 0, j; i < N_COMMANDS; i = j) {
        for (j = i + 1; j < N_COMMANDS && commands[j].options == commands[i].options;) ++j;
        if (!commands[i].options->flag) continue;
        fprintf(f, "\nOptions of trnsim %s", commands[i].name);
        for (size_t k = i + 1; k < j; ++k) fprintf(f, ", %s", commands[k].name);
        fputs(":\n", f);
        print_options(f, commands[i].options);
    }
    fputs("\nOptions:\n", f);
    print_help_option(f, "print this help; trnsim COMMAND --help prints one command's");
    print_item(f, "      ", "--version", "",
               "print the version, the plugin ABI versions accepted and the families built");
    fputc('\n', f);
    print_wrapped(
        f,
        "Without --config the embedded default config is used. A program is a native JSON program "
        "or the "
        "compiler's BIR JSON, told apart by its content; tensors come and go as NumPy .npy files, "
        "the config is a libconfig file. Any failure prints one line on standard error "
        "and exits 1. The documentation is in docs/ of the source tree and, installed, in "
        "share/doc/trnsim under the install prefix.",
        0, 0);
}

void cli_print_command_help(const cli_command *c, FILE *f) {
    fprintf(f, "Usage: trnsim %s%s%s%s\n", c->name, c->operands[0] ? " " : "", c->operands,
            c->options->flag ? " [OPTION]..." : "");
    fputc('\n', f);
    print_wrapped(f, c->description, 0, 0);
    fputs("\nOptions:\n", f);
    print_options(f, c->options);
    print_help_option(f, "print this help");
}

bool cli_wants_help(const cli_command *c, int argc, char **argv) {
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) return true;
        for (const cli_option *o = c->options; o->flag; ++o)
            if (o->value && !strcmp(argv[i], o->flag)) {
                ++i; /* the next argument is this option's value */
                break;
            }
    }
    return false;
}

static int cmd_help(int argc, char **argv) {
    if (argc == 0) {
        cli_print_usage(stdout);
        return 0;
    }
    char msg[300];
    if (argc > 1) {
        snprintf(msg, sizeof msg, "help: unexpected argument '%s' (usage: trnsim help [COMMAND])",
                 argv[1]);
        return cli_fail(msg);
    }
    const cli_command *c = cli_find_command(argv[0]);
    if (!c) {
        snprintf(msg, sizeof msg, "help: unknown command '%s' (trnsim --help lists them)", argv[0]);
        return cli_fail(msg);
    }
    cli_print_command_help(c, stdout);
    return 0;
}
