/* Argument parsing for run / check, opening the simulator, and the one
 * stderr line of a failure. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_int.h"
#include "observers/observers.h"

/* s as a JSON string on stdout (the --json reports of diff and conform). */
void cli_print_json_string(const char *s) {
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

/* The one stderr line of a failure. A message can quote input (a tensor name,
 * a config string, a path) holding a newline or other control byte; those
 * are printed escaped so the message stays one line. The line goes out in
 * one write, so that the lines of several MPI processes never interleave. */
int cli_fail(const char *msg) {
    static char line[4 * TRN_ERROR_MAX + 16];
    size_t n = (size_t)snprintf(line, sizeof line, "trnsim: ");
    for (const unsigned char *p = (const unsigned char *)msg; *p && n + 6 < sizeof line; ++p) {
        if (*p == '\n')
            n += (size_t)snprintf(line + n, sizeof line - n, "\\n");
        else if (*p == '\r')
            n += (size_t)snprintf(line + n, sizeof line - n, "\\r");
        else if (*p == '\t')
            n += (size_t)snprintf(line + n, sizeof line - n, "\\t");
        else if (*p < 0x20 || *p == 0x7f)
            n += (size_t)snprintf(line + n, sizeof line - n, "\\x%02x", *p);
        else
            line[n++] = (char)*p;
    }
    line[n++] = '\n';
    fflush(stderr);
    fwrite(line, 1, n, stderr);
    return 1;
}

static int parse_binding(const char *arg, binding *b, trn_error *e) {
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1])
        return trn_errorf(e, "expected NAME=FILE.npy or NAME@CORE=FILE.npy, got '%s'", arg);
    size_t len = (size_t)(eq - arg);
    if (len >= sizeof b->name) return trn_errorf(e, "tensor name too long in '%s'", arg);
    memcpy(b->name, arg, len);
    b->name[len] = 0;
    b->core = -1;
    char *at = strchr(b->name, '@');
    if (at) {
        char *end;
        errno = 0;
        long c = strtol(at + 1, &end, 10);
        if (!isdigit((unsigned char)at[1]) || *end || c > INT_MAX || errno)
            return trn_errorf(
                e, "bad core in '%s' (expected NAME@CORE=FILE with CORE a core number)", arg);
        b->core = (int)c;
        *at = 0;
    }
    b->path = eq + 1;
    return 0;
}

/* --max-instructions N, --trace-limit N: a positive decimal count. */
static int parse_count(const char *opt, const char *t, uint64_t *out, trn_error *e) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(t, &end, 10);
    if (!isdigit((unsigned char)t[0]) || *end || errno || v == 0)
        return trn_errorf(e, "%s '%s': expected a positive whole number", opt, t);
    *out = v;
    return 0;
}

/* --trace takes a file since the text trace became --trace-text: refuse
 * what looks like the program or another option, so an old command line
 * cannot overwrite a program with a trace. */
static int check_trace_path(const char *v, trn_error *e) {
    size_t n = strlen(v);
    if ((v[0] == '-' && v[1]) || (n >= 5 && !strcmp(v + n - 5, ".json")))
        return trn_errorf(
            e,
            "--trace %s: --trace takes the file for the JSONL trace, e.g. --trace run.jsonl (or "
            "--trace - for standard error); the one-line text trace is --trace-text",
            v);
    return 0;
}

/* --trace-values or --trace-values=K: K elements of each output (1..4096). */
static int parse_values(const char *s, uint32_t *out, trn_error *e) {
    if (!s[14]) {
        *out = TRN_TRACE_DEFAULT_VALUES;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long v = strtoul(s + 15, &end, 10);
    if (!isdigit((unsigned char)s[15]) || *end || errno || v == 0 || v > TRN_TRACE_MAX_VALUES)
        return trn_errorf(
            e, "%s: expected --trace-values or --trace-values=K with K a whole number 1..%u", s,
            TRN_TRACE_MAX_VALUES);
    *out = (uint32_t)v;
    return 0;
}

/* --output-unwritten=MODE (or --output-unwritten MODE): what an output's
 * never-written bytes become. */
static int parse_unwritten(const char *mode, bool *zeros, trn_error *e) {
    if (!strcmp(mode, "zeros") || !strcmp(mode, "error")) {
        *zeros = mode[0] == 'z';
        return 0;
    }
    return trn_errorf(e,
                      "--output-unwritten %s: expected 'error' (the default: an --output with "
                      "never-written bytes fails) or 'zeros' (write zeros for them)",
                      mode);
}

/* An --input as it was written: NAME[@CORE]=FILE. */
static const char *binding_text(const binding *b, char *buf, size_t len) {
    if (b->core >= 0)
        snprintf(buf, len, "%s@%d=%s", b->name, b->core, b->path);
    else
        snprintf(buf, len, "%s=%s", b->name, b->path);
    return buf;
}

/* Two --input for one tensor on one core: the last would win without a
 * word, so it is an error naming both (a core's and all cores' overlap). */
static int input_given_twice(const run_args *a, int k, trn_error *e) {
    const binding *b = &a->in[k];
    for (int i = 0; i < k; ++i) {
        const binding *o = &a->in[i];
        if (strcmp(o->name, b->name) || (o->core != b->core && o->core >= 0 && b->core >= 0))
            continue;
        char core[32] = "every core", one[300], two[300];
        if (o->core >= 0 || b->core >= 0)
            snprintf(core, sizeof core, "core %d", o->core >= 0 ? o->core : b->core);
        return trn_errorf(
            e,
            "--input %s and --input %s both give tensor '%s' on %s; give each tensor (and core) "
            "one "
            "--input",
            binding_text(o, one, sizeof one), binding_text(b, two, sizeof two), b->name, core);
    }
    return 0;
}

/* --timeout SECONDS: a positive number, fractions allowed. */
static int parse_seconds(const char *t, double *out, trn_error *e) {
    char *end;
    errno = 0;
    double v = strtod(t, &end);
    if (!isdigit((unsigned char)t[0]) || *end || errno || !(v > 0) || v > 1e9)
        return trn_errorf(
            e, "--timeout '%s': expected a positive number of seconds (e.g. 30 or 0.5)", t);
    *out = v;
    return 0;
}

/* --function NAME: the config setting bir_function, quoted so any name stays a string. */
static int function_arg(config_args *c, const char *name, trn_error *e) {
    for (const char *p = name; *p; ++p)
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20)
            return trn_errorf(
                e,
                "--function '%s': a function name has no quotes, backslashes or control characters",
                name);
    if (!*name || strlen(name) > sizeof c->function_set - 20)
        return trn_errorf(
            e, "--function: give the name of one of the BIR file's functions (1 to %zu characters)",
            sizeof c->function_set - 20);
    if (c->n_sets == MAX_FILES) return trn_errorf(e, "more than %d --set options", MAX_FILES);
    snprintf(c->function_set, sizeof c->function_set, "bir_function=\"%s\"", name);
    c->sets[c->n_sets++] = c->function_set;
    return 0;
}

int cli_parse_config_arg(int argc, char **argv, int *i, config_args *c, trn_error *e) {
    const char *s = argv[*i];
    if (*i + 1 >= argc) return 0;
    if (!strcmp(s, "--config"))
        c->config = argv[++*i];
    else if (!strcmp(s, "--set")) {
        if (c->n_sets == MAX_FILES) return trn_errorf(e, "more than %d --set options", MAX_FILES);
        c->sets[c->n_sets++] = argv[++*i];
    } else if (!strcmp(s, "--function")) {
        if (function_arg(c, argv[++*i], e)) return -1;
    } else
        return 0;
    return 1;
}

int cli_parse_run_args(int argc, char **argv, run_args *a, trn_error *e) {
    memset(a, 0, sizeof *a);
    a->progress = 1;
    for (int i = 0; i < argc; ++i) {
        const char *s = argv[i];
        bool has_value = i + 1 < argc;
        int cfg = cli_parse_config_arg(argc, argv, &i, &a->cfg, e);
        if (cfg < 0) return -1;
        if (cfg) continue;
        int dump = cli_parse_dump_arg(argc, argv, &i, a, e);
        if (dump < 0) return -1;
        if (dump) continue;
        if ((!strcmp(s, "--input") || !strcmp(s, "--output")) && has_value) {
            bool in = s[2] == 'i';
            int *n = in ? &a->n_in : &a->n_out;
            if (*n == MAX_FILES) return trn_errorf(e, "more than %d %s options", MAX_FILES, s);
            if (parse_binding(argv[++i], in ? &a->in[*n] : &a->out[*n], e)) return -1;
            if (in && input_given_twice(a, *n, e)) return -1;
            ++*n;
        } else if (!strcmp(s, "--max-instructions") && has_value) {
            if (parse_count(s, argv[++i], &a->max_instructions, e)) return -1;
        } else if (!strcmp(s, "--trace-limit") && has_value) {
            if (parse_count(s, argv[++i], &a->trace_limit, e)) return -1;
        } else if (!strcmp(s, "--trace") && has_value) {
            if (check_trace_path(argv[++i], e)) return -1;
            a->trace_path = argv[i];
        } else if (!strcmp(s, "--trace-filter") && has_value) {
            a->trace_filter = argv[++i];
        } else if (!strcmp(s, "--timeline") && has_value) {
            a->timeline_path = argv[++i];
        } else if (!strcmp(s, "--trace-values") || !strncmp(s, "--trace-values=", 15)) {
            if (parse_values(s, &a->trace_values, e)) return -1;
        } else if (!strcmp(s, "--timeout") && has_value) {
            if (parse_seconds(argv[++i], &a->timeout_seconds, e)) return -1;
        } else if (!strncmp(s, "--output-unwritten=", 19)) {
            if (parse_unwritten(s + 19, &a->unwritten_zeros, e)) return -1;
        } else if (!strcmp(s, "--output-unwritten") && has_value) {
            if (parse_unwritten(argv[++i], &a->unwritten_zeros, e)) return -1;
        } else if (!strcmp(s, "--trace-text"))
            a->trace = true;
        else if (!strcmp(s, "--stats"))
            a->stats = true;
        else if (!strcmp(s, "--progress"))
            a->progress = 2;
        else if (!strcmp(s, "--no-progress"))
            a->progress = 0;
        else if (!strcmp(s, "--stats-json"))
            a->stats = a->stats_json = true;
        else if (!strcmp(s, "--raw-bits"))
            a->raw_bits = true;
        else if (!strcmp(s, "--format") && has_value) {
            const char *f = argv[++i];
            if (!strcmp(f, "native"))
                a->format = 1;
            else if (!strcmp(f, "bir"))
                a->format = 2;
            else
                return trn_errorf(e, "--format %s: expected 'native' or 'bir'", f);
        } else if (s[0] == '-')
            return trn_errorf(e, "unknown or incomplete option '%s' (see trnsim --help)", s);
        else if (!a->program)
            a->program = s;
        else
            return trn_errorf(e, "unexpected argument '%s'", s);
    }
    if ((a->trace_filter || a->trace_limit || a->trace_values) && !a->trace_path)
        return trn_errorf(e, "%s needs --trace FILE.jsonl (or --trace - for standard error)",
                          a->trace_filter  ? "--trace-filter"
                          : a->trace_limit ? "--trace-limit"
                                           : "--trace-values");
    return 0;
}

/* The embedding API's last error as this file's trn_error. */
int cli_api_error(trn_error *e) { return trn_errorf(e, "%s", trnsim_last_error()->message); }

/* Modules are found beside the executable, as trnsim_open does for it. */
int cli_open_sim(trnsim_sim **s, const run_args *a, trn_error *e) {
    trnsim_options o = {.size = sizeof o,
                        .config_path = a->cfg.config,
                        .trace = a->trace,
                        .stats = a->stats,
                        .format = a->format,
                        .max_instructions = a->max_instructions,
                        .timeout_seconds = a->timeout_seconds,
                        .sets = a->cfg.sets,
                        .n_sets = (size_t)a->cfg.n_sets};
    trn_embed_extra x = {.module_swaps = a->module_swaps,
                         .n_module_swaps = (size_t)a->n_module_swaps,
                         .progress = a->progress};
    *s = trn_embed_open(&o, &x);
    return *s ? 0 : cli_api_error(e);
}
