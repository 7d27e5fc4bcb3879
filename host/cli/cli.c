/* The trnsim command line: run, check, opcodes, quirks. Every failure ends
 * here as one message on stderr and a non-zero exit. */
#include "cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arith/arith.h"
#include "frontend/npy.h"
#include "runtime/sim.h"

#define MAX_FILES 256

typedef struct binding {
    char name[256];
    int core; /* -1: all cores (input) / stacked or core 0 (output) */
    const char *path;
    char tmp[PATH_MAX + 64];
} binding;

typedef struct run_args {
    const char *program, *config;
    binding in[MAX_FILES], out[MAX_FILES];
    int n_in, n_out;
    bool trace, stats, stats_json, raw_bits;
} run_args;

static const char usage[] =
    "usage:\n"
    "  trnsim run PROGRAM.json [--config FILE] [--input NAME[@CORE]=FILE.npy]...\n"
    "             [--output NAME[@CORE]=FILE.npy]... [--raw-bits] [--trace] [--stats] [--stats-json]\n"
    "  trnsim check PROGRAM.json [--config FILE]   parse and validate, run nothing\n"
    "  trnsim opcodes [--config FILE]              IT, name, family and module of each handler\n"
    "  trnsim quirks [--config FILE]               every named quirk, its default and setting\n"
    "  trnsim --help | --version\n"
    "Without --config the embedded default config (config/default.cfg) is used.\n"
    "See docs/cli.md and docs/programs.md.\n";

/* The one stderr line of a failure. A message can quote input (a tensor name,
 * a config string, a path) holding a newline or other control byte; those
 * are printed escaped so the message stays one line. */
static int fail(const char *msg) {
    fputs("trnsim: ", stderr);
    for (const unsigned char *p = (const unsigned char *)msg; *p; ++p) {
        if (*p == '\n') fputs("\\n", stderr);
        else if (*p == '\r') fputs("\\r", stderr);
        else if (*p == '\t') fputs("\\t", stderr);
        else if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
        else fputc(*p, stderr);
    }
    fputc('\n', stderr);
    return 1;
}

static int parse_binding(const char *arg, binding *b, trn_error *e) {
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || !eq[1]) return trn_errorf(e, "expected NAME=FILE.npy or NAME@CORE=FILE.npy, got '%s'", arg);
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
            return trn_errorf(e, "bad core in '%s' (expected NAME@CORE=FILE with CORE a core number)", arg);
        b->core = (int)c;
        *at = 0;
    }
    b->path = eq + 1;
    return 0;
}

static int parse_run_args(int argc, char **argv, run_args *a, trn_error *e) {
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; ++i) {
        const char *s = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(s, "--config") && has_value) a->config = argv[++i];
        else if ((!strcmp(s, "--input") || !strcmp(s, "--output")) && has_value) {
            bool in = s[2] == 'i';
            int *n = in ? &a->n_in : &a->n_out;
            if (*n == MAX_FILES) return trn_errorf(e, "more than %d %s options", MAX_FILES, s);
            if (parse_binding(argv[++i], in ? &a->in[*n] : &a->out[*n], e)) return -1;
            ++*n;
        } else if (!strcmp(s, "--trace")) a->trace = true;
        else if (!strcmp(s, "--stats")) a->stats = true;
        else if (!strcmp(s, "--stats-json")) a->stats = a->stats_json = true;
        else if (!strcmp(s, "--raw-bits")) a->raw_bits = true;
        else if (s[0] == '-') return trn_errorf(e, "unknown or incomplete option '%s' (see trnsim --help)", s);
        else if (!a->program) a->program = s;
        else return trn_errorf(e, "unexpected argument '%s'", s);
    }
    return 0;
}

/* ---- opening ---- */

static void exe_dir(char *buf, size_t len) {
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0) {
        snprintf(buf, len, ".");
        return;
    }
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    if (slash) *slash = 0;
}

static int open_sim(trn_sim **s, const char *config, bool trace, bool stats, trn_error *e) {
    char dir[PATH_MAX];
    exe_dir(dir, sizeof dir);
    trn_sim_opts o = {.config_path = config, .trace = trace, .stats = stats, .exe_dir = dir};
    return trn_sim_open(s, &o, e);
}

/* ---- inputs ---- */

static int shape_equal(int na, const int64_t *a, int nb, const int64_t *b) {
    if (na != nb) return 0;
    for (int i = 0; i < na; ++i)
        if (a[i] != b[i]) return 0;
    return 1;
}

static int load_input(trn_sim *s, const binding *b, trn_error *e) {
    trn_tensor_info t;
    if (trn_sim_tensor_info(s, b->name, &t, e)) return -1;
    trn_npy n;
    if (trn_npy_read(b->path, &n, e)) return -1;
    size_t bytes = (size_t)t.count * trn_dtype_width((trn_dtype)t.dtype);
    uint8_t *buf = malloc(bytes ? bytes : 1);
    if (!buf) {
        trn_npy_free(&n);
        return trn_errorf(e, "--input %s: out of memory for %zu bytes", b->name, bytes);
    }
    uint32_t cores = trn_sim_cores(s);
    int rc = 0;
    bool stacked = b->core < 0 && cores > 1 && n.ndim == t.ndim + 1 && n.shape[0] == (int64_t)cores &&
                   shape_equal(t.ndim, t.shape, n.ndim - 1, n.shape + 1);
    if (stacked) {
        trn_npy slice = n;
        slice.ndim = n.ndim - 1;
        memmove(slice.shape, n.shape + 1, sizeof(int64_t) * (size_t)slice.ndim);
        slice.count = n.count / cores;
        for (uint32_t c = 0; c < cores && rc == 0; ++c) {
            slice.data = (uint8_t *)n.data + c * slice.count * n.item_size;
            rc = trn_npy_to_tensor(&slice, (trn_dtype)t.dtype, t.ndim, t.shape, buf, e) ||
                 trn_sim_set_tensor(s, b->name, (int)c, buf, bytes, e);
        }
    } else {
        rc = trn_npy_to_tensor(&n, (trn_dtype)t.dtype, t.ndim, t.shape, buf, e) ||
             trn_sim_set_tensor(s, b->name, b->core, buf, bytes, e);
    }
    free(buf);
    trn_npy_free(&n);
    if (rc) trn_error_prefix(e, "--input %s", b->name);
    return rc ? -1 : 0;
}

/* ---- outputs: written to temporary names, renamed only after success ---- */

static int save_output(trn_sim *s, binding *b, bool raw_bits, trn_error *e) {
    trn_tensor_info t;
    if (trn_sim_tensor_info(s, b->name, &t, e)) return -1;
    uint32_t cores = trn_sim_cores(s);
    if (b->core >= (int)cores) return trn_errorf(e, "--output %s@%d: the run has %u cores", b->name, b->core, cores);
    bool stacked = b->core < 0 && cores > 1;
    uint32_t ncopies = stacked ? cores : 1;
    size_t bytes = (size_t)t.count * trn_dtype_width((trn_dtype)t.dtype);
    uint8_t *buf = malloc(bytes * ncopies + 1);
    if (!buf) return trn_errorf(e, "--output %s: out of memory for %zu bytes", b->name, bytes * ncopies);
    int rc = 0;
    for (uint32_t c = 0; c < ncopies && rc == 0; ++c)
        rc = trn_sim_get_tensor(s, b->name, stacked ? (int)c : b->core, buf + c * bytes, bytes, e);
    int64_t shape[TRN_NPY_MAX_DIMS];
    int ndim = t.ndim;
    memcpy(shape + (stacked ? 1 : 0), t.shape, sizeof(int64_t) * (size_t)t.ndim);
    if (stacked) {
        shape[0] = cores;
        ++ndim;
    }
    void *data = NULL;
    const char *descr;
    snprintf(b->tmp, sizeof b->tmp, "%s.tmp-trnsim-%ld", b->path, (long)getpid());
    if (rc == 0) rc = trn_npy_from_tensor((trn_dtype)t.dtype, buf, (size_t)t.count * ncopies, raw_bits, &data, &descr, e);
    if (rc == 0) rc = trn_npy_write(b->tmp, descr, ndim, shape, data, e);
    free(data);
    free(buf);
    return rc ? -1 : 0;
}

/* Where a path's file lives: its directory resolved (symlinks, "..") and its
 * last component, so "a.npy" and "./a.npy" compare equal. Empty when the
 * directory does not exist (writing there fails later, with a message). */
static void target_key(const char *path, char *key, size_t len) {
    char dir[PATH_MAX], real[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (!realpath(dir, real)) {
        key[0] = 0;
        return;
    }
    snprintf(key, len, "%s/%s", real, slash ? slash + 1 : path);
}

/* Before anything runs: each output file named once and not a directory, so
 * that the renames at the end do not fail half-way for a reason known now. */
static int check_outputs(const run_args *a, trn_error *e) {
    static char keys[MAX_FILES][PATH_MAX + 256];
    for (int i = 0; i < a->n_out; ++i) {
        struct stat si;
        if (stat(a->out[i].path, &si) == 0 && S_ISDIR(si.st_mode))
            return trn_errorf(e, "--output %s: %s is a directory", a->out[i].name, a->out[i].path);
        target_key(a->out[i].path, keys[i], sizeof keys[i]);
        for (int j = 0; j < i; ++j) {
            bool same = !strcmp(a->out[i].path, a->out[j].path) || (keys[i][0] && !strcmp(keys[i], keys[j]));
            if (same)
                return trn_errorf(e, "--output %s and --output %s name the same file %s", a->out[j].name,
                                  a->out[i].name, a->out[i].path);
        }
    }
    return 0;
}

static void remove_temps(run_args *a) {
    for (int i = 0; i < a->n_out; ++i)
        if (a->out[i].tmp[0]) remove(a->out[i].tmp);
}

/* Rename every temporary into place; if one rename fails, the outputs
 * already renamed are removed again, so a failed run leaves no output. */
static int commit_outputs(run_args *a, trn_error *e) {
    for (int i = 0; i < a->n_out; ++i)
        if (rename(a->out[i].tmp, a->out[i].path) != 0) {
            trn_errorf(e, "cannot rename %s to %s: %s", a->out[i].tmp, a->out[i].path, strerror(errno));
            for (int j = 0; j < i; ++j) remove(a->out[j].path);
            return -1;
        }
    return 0;
}

static int do_run(run_args *a, trn_error *e) {
    trn_sim *s = NULL;
    int rc = check_outputs(a, e) || open_sim(&s, a->config, a->trace, a->stats, e) ||
             trn_sim_load_program(s, a->program, e);
    for (int i = 0; i < a->n_in && !rc; ++i) rc = load_input(s, &a->in[i], e);
    if (!rc) rc = trn_sim_run(s, e);
    for (int i = 0; i < a->n_out && !rc; ++i) rc = save_output(s, &a->out[i], a->raw_bits, e);
    if (!rc) rc = commit_outputs(a, e);
    if (rc) remove_temps(a);
    if (s && !rc) {
        trn_sim_print_skip_notes(s, stderr);
        if (a->stats) trn_sim_print_stats(s, stdout, a->stats_json);
    }
    trn_sim_close(s);
    return rc ? -1 : 0;
}

/* ---- commands ---- */

static int cmd_run(int argc, char **argv) {
    static run_args a;
    trn_error e;
    if (parse_run_args(argc, argv, &a, &e)) return fail(e.msg);
    if (!a.program) return fail("run: missing PROGRAM.json (see trnsim --help)");
    if (do_run(&a, &e)) return fail(e.msg);
    return 0;
}

static int cmd_check(int argc, char **argv) {
    static run_args a;
    trn_error e;
    if (parse_run_args(argc, argv, &a, &e)) return fail(e.msg);
    if (!a.program) return fail("check: missing PROGRAM.json");
    trn_sim *s = NULL;
    int rc = open_sim(&s, a.config, false, false, &e) || trn_sim_load_program(s, a.program, &e);
    if (!rc) printf("%s: ok (%u core%s)\n", a.program, trn_sim_cores(s), trn_sim_cores(s) == 1 ? "" : "s");
    trn_sim_close(s);
    return rc ? fail(e.msg) : 0;
}

static int cmd_list(int argc, char **argv, void (*print)(const trn_sim *, FILE *)) {
    const char *config = NULL;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--config") && i + 1 < argc) config = argv[++i];
        else {
            char msg[300];
            snprintf(msg, sizeof msg, "unexpected argument '%s'", argv[i]);
            return fail(msg);
        }
    }
    trn_sim *s = NULL;
    trn_error e;
    if (open_sim(&s, config, false, false, &e)) return fail(e.msg);
    print(s, stdout);
    trn_sim_close(s);
    return 0;
}

static int cli_main(int argc, char **argv);

/* A listing or --stats that could not be written (a full disk, a closed
 * pipe) is a failure too, not a silent exit 0. */
int trn_cli_main(int argc, char **argv) {
    int rc = cli_main(argc, argv);
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
        char msg[300];
        snprintf(msg, sizeof msg, "cannot write to standard output: %s", strerror(errno));
        return fail(msg);
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
    if (!strcmp(cmd, "run")) return cmd_run(argc - 2, argv + 2);
    if (!strcmp(cmd, "check")) return cmd_check(argc - 2, argv + 2);
    if (!strcmp(cmd, "opcodes")) return cmd_list(argc - 2, argv + 2, trn_sim_print_opcodes);
    if (!strcmp(cmd, "quirks")) return cmd_list(argc - 2, argv + 2, trn_sim_print_quirks);
    char msg[300];
    snprintf(msg, sizeof msg, "unknown command '%s' (see trnsim --help)", cmd);
    return fail(msg);
}
