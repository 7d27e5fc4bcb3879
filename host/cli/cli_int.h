#ifndef TRNSIM_HOST_CLI_CLI_INT_H
#define TRNSIM_HOST_CLI_CLI_INT_H

/* The command table: every command, its operands, its options and its help
 * text, in one place. `trnsim --help`, `trnsim COMMAND --help` and the
 * trnsim(1) man page (generated from `trnsim --help` by help2man) all print
 * from it, and the dispatcher finds commands in it. To add a command, add a
 * row to commands[] in usage.c; to add an option, add a line to the command's
 * option list (its parser lives in args.c or commands.c). */

#include <stdbool.h>
#include <stdio.h>

typedef struct cli_option {
    const char *flag;  /* "--config" */
    const char *value; /* "FILE"; NULL for an option that takes no value */
    const char *help;  /* one sentence, no trailing period */
} cli_option;

typedef struct cli_command {
    const char *name;                   /* "run" */
    const char *operands;               /* "PROGRAM.json", "" for none */
    const char *summary;                /* the line in `trnsim --help` */
    const char *description;            /* the paragraph of `trnsim COMMAND --help` */
    const cli_option *options;          /* ends with an entry whose flag is NULL */
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

/* What the command line's files share: the parsed arguments of run / check
 * and the steps of a run (docs/cli.md). */

#include <limits.h>
#include <stdbool.h>

#include "common/common.h"
#include "embed/embed.h"

#define MAX_FILES 256

/* One --input / --output: NAME[@CORE]=FILE.npy. */
typedef struct binding {
    char name[256];
    int core; /* -1: all cores (input) / stacked or core 0 (output) */
    const char *path;
    char option[300]; /* "--output NAME[@CORE]", "--input NAME": how the guard names it */
    trn_outfile file; /* output: its temporary (common/common.h) */
} binding;

/* --config FILE and the --set KEY=VALUE overlays: every command takes them. */
typedef struct config_args {
    const char *config;
    const char *sets[MAX_FILES];
    int n_sets;
    char function_set[160]; /* --function NAME as the set bir_function="NAME", or empty */
} config_args;

/* One --dump-at INDEX[@CORE]=DIR. */
typedef struct dump_at_arg {
    uint64_t index;
    uint32_t core;
    const char *dir;
} dump_at_arg;

#define MAX_DUMPS 64

typedef struct run_args {
    const char *program;
    config_args cfg;
    binding in[MAX_FILES], out[MAX_FILES];
    int n_in, n_out;
    bool trace, stats, stats_json, raw_bits; /* trace: the text trace (--trace-text) */
    bool unwritten_zeros; /* --output-unwritten=zeros: never-written bytes go out as zeros */
    /* --trace FILE.jsonl with its filter, limit and values; --timeline FILE.json
     * (docs/observability.md). NULL: none. */
    const char *trace_path, *trace_filter, *timeline_path;
    uint64_t trace_limit;
    uint32_t trace_values;
    int format;                /* trn_sim_opts.format: 0 from the content, 1 native, 2 bir */
    uint64_t max_instructions; /* 0: no limit */
    double timeout_seconds;    /* 0: none */
    int progress; /* trn_sim_opts.progress: 0 off, 1 on a terminal (the default), 2 always */
    const char *module_swaps[MAX_FILES]; /* FAMILY=PATH (diff --against-module) */
    int n_module_swaps;
    dump_at_arg dump_at[MAX_DUMPS];
    int n_dump_at;
    const char *dump_on_error, *restore; /* NULL: none */
} run_args;

/* args.c */
int cli_parse_run_args(int argc, char **argv, run_args *a, trn_error *e);
/* 1 when argv[*i] is --config or --set (consumed with its value), 0 when it
 * is neither, -1 on an error. */
int cli_parse_config_arg(int argc, char **argv, int *i, config_args *c, trn_error *e);
int cli_open_sim(trnsim_sim **s, const run_args *a, trn_error *e);
int cli_api_error(trn_error *e);
int cli_fail(const char *msg);
void cli_print_json_string(const char *s);

/* dumps.c: --dump-at, --dump-on-error, --restore (docs/cli.md) */
int cli_parse_dump_arg(int argc, char **argv, int *i, run_args *a, trn_error *e);
/* check, convert and diff refuse them with one line naming the option. */
int cli_refuse_dump_args(const run_args *a, const char *command, trn_error *e);
int cli_check_dump_args(const run_args *a, trn_error *e);
int cli_setup_dumps(trnsim_sim *s, const run_args *a, trn_error *e);
void cli_report_dumps(trnsim_sim *s, const run_args *a);

/* inputs.c */
int cli_load_input(trnsim_sim *s, const binding *b, trn_error *e);

/* outputs.c: every file the run reads and writes through the one guard
 * (common/common.h) before anything runs; outputs written to temporaries
 * and committed all or nothing */
int cli_check_files(run_args *a, trn_error *e);
/* convert -o FILE: the same guard, against the program and the config. */
int cli_check_convert_target(const run_args *a, const char *out, trn_error *e);
int cli_check_output_tensors(const run_args *a, trnsim_sim *s, trn_error *e);
/* After the run, before any output moves or is written: every byte of
 * every --output this process holds was written (unless
 * --output-unwritten=zeros); else one error naming the output, the core,
 * the first never-written element and the fix. */
int cli_check_outputs_written(const run_args *a, trn_sim *hs, trn_error *e);
void cli_install_signal_cleanup(run_args *a);
int cli_save_output(trnsim_sim *s, run_args *a, int idx, trn_error *e);
int cli_commit_outputs(run_args *a, trn_error *e);
void cli_remove_temps(run_args *a);

/* agree.c: an MPI run's processes agree on the outputs, the artefact
 * options and the inputs; outputs gather by name and core, never by position */
int cli_agree_run(trn_sim *hs, const run_args *a, trn_error *e);
int cli_gather_outputs(trn_sim *hs, const run_args *a, trn_error *e);

/* release.c: a replaced output's old file loses its name now and its pages
 * later, in a detached helper process (detached) or here */
void cli_drop_old_file(const char *path);
void cli_release_old_files(bool detached);

/* commands.c */
int cli_cmd_run(int argc, char **argv);
int cli_cmd_check(int argc, char **argv);
int cli_cmd_opcodes(int argc, char **argv);
int cli_cmd_quirks(int argc, char **argv);
int cli_cmd_describe(int argc, char **argv);
/* convert.c */
int cli_cmd_convert(int argc, char **argv);
/* diff.c */
int cli_cmd_diff(int argc, char **argv);

/* run.c: the whole of `trnsim run`; the error is reported (on rank 0 of an MPI run). */
int cli_run(run_args *a, trn_error *e);

/* conform*.c: trnsim conform (docs/cli.md): its runs, shrinking and reports; the programs
 * come from conform/ */
#include "conform/conform.h"

typedef struct cf_args {
    config_args cfg;
    cf_engine g; /* --family, --opcode */
    const char *swaps[MAX_FILES];
    int n_swaps;
    char swap_family[MAX_FILES][64]; /* the default --family: the replaced ones */
    uint64_t cases, seed;
    bool cases_given, seed_given, keep_going, json, fe_bir, fe_python;
    double time;
    const char *out;
    char **argv;
    int argc;
} cf_args;

typedef struct cf_side {
    trnsim_sim *h;
    trn_sim *s;
    char label[1024];
} cf_side;

typedef struct cf_count {
    char opcode[64], dtypes[128];
    uint64_t cases;
} cf_count;

typedef struct cf_family {
    char family[64];
    uint64_t instructions, valid;
} cf_family;

typedef struct cf_python cf_python;

#define CF_MAX_INPUTS 64
#define CF_MAX_CORES  1025 /* a program's core counts (1..1024, docs/programs.md), plus one */
#define CF_MAX_COUNTS 512
#define CF_MAX_SHOWN  64 /* differences listed in the summary */
enum { CF_AGREE = 0, CF_DIFFER = 1, CF_INVALID = 2 };

typedef struct cf_shown {
    uint64_t index;
    int instructions; /* after shrinking */
    bool history;     /* agrees in a new process: not shrunk, its diff line may not show it */
    char what[1100], dir[PATH_MAX], command[32768];
} cf_shown;

/* One conform run: its sides, the case being run and the tallies. */
typedef struct cf_run {
    const cf_args *args;
    cf_engine g;
    cf_side side[2];           /* side[1].s NULL: only the Python front end is compared */
    cf_side bir[CF_MAX_CORES]; /* --frontends ...,bir: side B per core count */
    json_t *prog;              /* the current case's program */
    cf_input inputs[CF_MAX_INPUTS];
    int n_inputs;
    char what[1100];    /* the current case's first difference */
    int64_t diff_row;   /* its row: the first index of the tensor element that differs */
    char invalid[1024]; /* the current case's static-check message */
    char *bir_text;
    bool bir_refused;
    bool native_failed;   /* the current case: A's run failed (the Python side must too) */
    bool run_failed;      /* the current difference: one side failed or refused, the other not */
    uint64_t both_failed; /* cases neither side could run to the end (not compared) */
    uint64_t nan_payload_only; /* instructions whose outputs differed only in open NaN payloads */
    uint64_t ran, agree, differ, invalid_cases, bir_refused_cases;
    double seconds;
    cf_count counts[CF_MAX_COUNTS];
    int n_counts;
    cf_family fams[CF_MAX_COUNTS];
    int n_fams;
    cf_shown shown[CF_MAX_SHOWN];
    int n_shown;
    cf_python *py;
    struct shrink *zero_hook; /* while shrinking: the inputs' elements it zeroes */
} cf_run;

/* conform.c */
int cli_cmd_conform(int argc, char **argv);
int cf_draw_case(cf_run *R, uint64_t index, cf_case *c, trn_error *e);
int cf_run_case(cf_run *R, cf_case *c, trn_error *e);
void cf_case_free(cf_case *c);
void cf_set_cores(cf_case *c, uint32_t cores);
void cf_case_free_inputs(cf_run *R);
/* conform_case.c: a difference shrunk, written to --out and printed; the summary */
int cf_report_difference(cf_run *R, cf_case *c, trn_error *e);
void cf_print_summary(cf_run *R);
void cf_apply_zero_hook(cf_run *R); /* after the inputs are drawn */
/* A case folder is written under a private name in --out (*tmp, made) and renamed
 * to its name (*dir, --out's absolute path /case-N) whole: an error or a kill part
 * way leaves no partial case-N, and an earlier run's case-N is replaced only by a
 * complete one. On an error after open, the caller removes tmp. */
int cf_case_folder_open(const cf_run *R, uint64_t index, char *tmp, size_t tmplen, char *dir,
                        size_t dirlen, trn_error *e);
int cf_case_folder_commit(const char *tmp, const char *dir, trn_error *e);
void cf_remove_tree(const char *path); /* a folder and everything in it */
/* " S" appended to buf at *n, single-quoted for a shell unless plain; *n >= len: cut */
void cf_quote(char *buf, size_t len, size_t *n, const char *s);
/* conform_python.c: the Python front end, a batch of cases per process */
int cf_python_setup(cf_run *R, trn_error *e);
int cf_python_add(cf_run *R, const cf_case *c, trn_error *e);
int cf_python_flush(cf_run *R, bool last, trn_error *e);
void cf_python_free(cf_run *R);

#endif
