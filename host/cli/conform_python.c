/* trnsim conform --frontends native,...,python: each case that ran natively
 * is written as a folder (program.json, in/NAME.npy as [cores, *shape] raw
 * bits) and run through the Python package, a batch of folders per process
 * (`PYTHON -m trnsim.conform_runner DIR...`, which writes DIR/out/NAME.npy
 * for every tensor, or DIR/error.txt); its tensors are then compared with
 * the native side's final ones, bit for bit. docs/internals/conform.md. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#include "npy/npy.h"
#include "cli/cli_int.h"

#ifndef TRNSIM_PYTHON_EXE
#define TRNSIM_PYTHON_EXE "python3"
#endif
#ifndef TRNSIM_PYTHON_RELDIR
#define TRNSIM_PYTHON_RELDIR "../lib/python3/dist-packages"
#endif

#define BATCH 64 /* cases per Python process */

/* A native side's tensor after the run, every core. */
typedef struct py_tensor {
    char name[256];
    trn_dtype dtype;
    int ndim;
    int64_t shape[TRN_MAX_SHAPE];
    uint32_t cores;
    size_t bytes; /* one core's */
    uint8_t *data;
} py_tensor;

typedef struct py_case {
    cf_case c; /* its instances (attrs held) for the report */
    char dir[PATH_MAX];
    bool native_failed;
    bool bir_refused; /* with --frontends ...,bir: B never ran it, only Python compares it */
    py_tensor *tensors;
    int n_tensors;
} py_case;

struct cf_python {
    const char *python;
    char pythonpath[3 * PATH_MAX];
    char tmp[PATH_MAX - 64];
    py_case cases[BATCH];
    int n;
};

static bool has_package(const char *dir) {
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/trnsim/__init__.py", dir);
    return access(path, R_OK) == 0;
}

static void path_add(cf_python *p, size_t *len, const char *dir) {
    if (*len < sizeof p->pythonpath)
        *len += (size_t)snprintf(p->pythonpath + *len, sizeof p->pythonpath - *len, "%s%s",
                                 *len ? ":" : "", dir);
}

/* PYTHONPATH as given (so a test or a user can put another runner first),
 * then the package beside this executable: a build tree's python/, or the
 * installed dist-packages. */
static void find_package(cf_python *p) {
    char exe[PATH_MAX], dir[PATH_MAX + 64];
    size_t len = 0;
    p->pythonpath[0] = 0;
    const char *old = getenv("PYTHONPATH");
    if (old && *old) path_add(p, &len, old);
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) *slash = 0;
    const char *cands[] = {"python", TRNSIM_PYTHON_RELDIR};
    for (size_t i = 0; i < 2; ++i) {
        snprintf(dir, sizeof dir, "%s/%s", exe, cands[i]);
        if (has_package(dir)) path_add(p, &len, dir);
    }
}

int cf_python_setup(cf_run *R, trn_error *e) {
    cf_python *p = calloc(1, sizeof *p);
    if (!p) return trn_errorf(e, "out of memory");
    R->py = p;
    const char *env = getenv("TRNSIM_PYTHON");
    p->python = env && *env ? env : TRNSIM_PYTHON_EXE;
    find_package(p);
    const char *t = getenv("TMPDIR");
    snprintf(p->tmp, sizeof p->tmp, "%s/trnsim-conform-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(p->tmp))
        return trn_errorf(e, "--frontends python: cannot create a folder in %s: %s",
                          t && *t ? t : "/tmp", strerror(errno));
    return 0;
}

static void free_case(py_case *pc) {
    for (int i = 0; i < pc->n_tensors; ++i) free(pc->tensors[i].data);
    free(pc->tensors);
    cf_case_free(&pc->c);
    memset(pc, 0, sizeof *pc);
}

void cf_python_free(cf_run *R) {
    cf_python *p = R->py;
    if (!p) return;
    for (int i = 0; i < p->n; ++i) free_case(&p->cases[i]);
    if (p->tmp[0]) cf_remove_tree(p->tmp);
    free(p);
    R->py = NULL;
}

static int write_stacked(const char *path, trn_dtype dt, int ndim, const int64_t *shape,
                         uint32_t cores, const void *data, trn_error *e) {
    int64_t sh[TRN_MAX_SHAPE + 1] = {cores};
    memcpy(sh + 1, shape, (size_t)ndim * sizeof shape[0]);
    return trn_npy_write(path, trn_npy_descr_for(dt, true), ndim + 1, sh, data, e);
}

/* Every tensor of the native side (A) after its run. */
static int keep_native(cf_run *R, py_case *pc, trn_error *e) {
    trn_sim *s = R->side[0].s;
    int n = trn_sim_tensor_count(s);
    pc->tensors = calloc((size_t)n + 1, sizeof *pc->tensors);
    if (!pc->tensors) return trn_errorf(e, "out of memory");
    uint32_t cores = trn_sim_cores(s);
    for (int i = 0; i < n; ++i) {
        trn_tensor_info ti;
        if (trn_sim_tensor_at(s, i, &ti, e)) return -1;
        py_tensor *t = &pc->tensors[pc->n_tensors++];
        snprintf(t->name, sizeof t->name, "%s", ti.name);
        t->dtype = (trn_dtype)ti.dtype;
        t->ndim = ti.ndim;
        memcpy(t->shape, ti.shape, (size_t)ti.ndim * sizeof ti.shape[0]);
        t->cores = cores;
        t->bytes = (size_t)ti.count * trn_dtype_width(t->dtype);
        t->data = calloc(cores, t->bytes ? t->bytes : 1);
        if (!t->data) return trn_errorf(e, "out of memory");
        for (uint32_t c = 0; c < cores; ++c) {
            trn_error ig; /* never-written bytes read as 0 */
            trn_sim_get_written_tensor(s, ti.name, (int)c, t->data + c * t->bytes, t->bytes, &ig);
        }
    }
    return 0;
}

int cf_python_add(cf_run *R, const cf_case *c, trn_error *e) {
    cf_python *p = R->py;
    py_case *pc = &p->cases[p->n++];
    memset(pc, 0, sizeof *pc);
    pc->c = *c;
    for (int k = 0; k < c->n_inst; ++k) json_incref(pc->c.inst[k].attrs);
    pc->native_failed = R->native_failed;
    pc->bir_refused = R->bir_refused;
    snprintf(pc->dir, sizeof pc->dir, "%s/case-%" PRIu64, p->tmp, c->index);
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/in", pc->dir);
    if (mkdir(pc->dir, 0777) || mkdir(path, 0777))
        return trn_errorf(e, "--frontends python: cannot create %s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/program.json", pc->dir);
    if (json_dump_file(R->prog, path, JSON_COMPACT | JSON_PRESERVE_ORDER))
        return trn_errorf(e, "--frontends python: cannot write %s", path);
    for (int i = 0; i < R->n_inputs; ++i) {
        const cf_input *in = &R->inputs[i];
        snprintf(path, sizeof path, "%s/in/%s.npy", pc->dir, in->name);
        if (write_stacked(path, in->dtype, in->ndim, in->shape, in->cores, in->data, e)) return -1;
    }
    return pc->native_failed ? 0 : keep_native(R, pc, e);
}

/* The last non-empty line of the runner's standard error. */
static void last_line(const char *path, char *buf, size_t len) {
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        if (line[0]) snprintf(buf, len, "%.500s", line);
    }
    if (f) fclose(f);
}

/* Run the batch's folders through the Python package, its standard error
 * kept in the temporary folder for the message if it fails. */
static int run_python(cf_python *p, const config_args *cfg, trn_error *e) {
    size_t n = 0, cap = (size_t)p->n + 6 + 2 * (size_t)cfg->n_sets;
    char **argv = calloc(cap, sizeof *argv), err[PATH_MAX + 32];
    if (!argv) return trn_errorf(e, "out of memory");
    argv[n++] = (char *)p->python;
    argv[n++] = "-m";
    argv[n++] = "trnsim.conform_runner";
    /* the Python side runs under the same config as the native side A */
    if (cfg->config) {
        argv[n++] = "--config";
        argv[n++] = (char *)cfg->config;
    }
    for (int i = 0; i < cfg->n_sets; ++i) {
        argv[n++] = "--set";
        argv[n++] = (char *)cfg->sets[i];
    }
    for (int i = 0; i < p->n; ++i) argv[n++] = p->cases[i].dir;
    snprintf(err, sizeof err, "%s/stderr.txt", p->tmp);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    char *old = getenv("PYTHONPATH") ? strdup(getenv("PYTHONPATH")) : NULL;
    setenv("PYTHONPATH", p->pythonpath, 1);
    fflush(stdout);
    pid_t pid;
    int rc = posix_spawnp(&pid, p->python, &fa, NULL, argv, environ), st = 0;
    if (old)
        setenv("PYTHONPATH", old, 1);
    else
        unsetenv("PYTHONPATH");
    free(old);
    posix_spawn_file_actions_destroy(&fa);
    free(argv);
    if (rc)
        return trn_errorf(e,
                          "--frontends python: cannot start %s: %s (set TRNSIM_PYTHON to a "
                          "python3 with numpy)",
                          p->python, strerror(rc));
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    char why[600];
    last_line(err, why, sizeof why);
    return trn_errorf(e,
                      "--frontends python: %s -m trnsim.conform_runner failed (%s %d): %s (the "
                      "package is looked for on PYTHONPATH, then beside trnsim)",
                      p->python, WIFEXITED(st) ? "exit" : "signal",
                      WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), why[0] ? why : "no message");
}

/* The Python side's tensor t of case pc: NULL with what in `why`. */
static int compare_tensor(const py_case *pc, const py_tensor *t, char *why, size_t len) {
    char path[PATH_MAX + 300];
    snprintf(path, sizeof path, "%s/out/%s.npy", pc->dir, t->name);
    trn_npy n;
    trn_error e;
    if (trn_npy_read(path, &n, &e)) {
        snprintf(why, len, "the Python side wrote no tensor '%s' (%.300s)", t->name, e.msg);
        return 1;
    }
    int64_t shape[TRN_MAX_SHAPE + 1] = {t->cores};
    memcpy(shape + 1, t->shape, (size_t)t->ndim * sizeof t->shape[0]);
    uint8_t *got = malloc(t->bytes * t->cores + 1);
    int rc = 0;
    if (!got || trn_npy_to_tensor(&n, t->dtype, t->ndim + 1, shape, got, &e)) {
        snprintf(why, len, "tensor '%s': %.300s", t->name, got ? e.msg : "out of memory");
        rc = 1;
    } else {
        uint32_t w = trn_dtype_width(t->dtype);
        for (size_t i = 0; i < t->bytes * t->cores && !rc; i += w)
            if (memcmp(got + i, t->data + i, w)) {
                size_t el = i / w, per = t->bytes / w;
                snprintf(why, len,
                         "tensor '%s' differs on core %zu, element %zu (native and Python bits "
                         "differ)",
                         t->name, per ? el / per : 0, per ? el % per : el);
                rc = 1;
            }
    }
    free(got);
    trn_npy_free(&n);
    return rc;
}

/* 0: the Python side agrees; 1: not, with what in why. */
static int compare_case(const py_case *pc, char *why, size_t len) {
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/error.txt", pc->dir);
    bool py_failed = access(path, F_OK) == 0;
    if (py_failed != pc->native_failed) {
        snprintf(why, len, "%s",
                 py_failed ? "only the Python side failed (see error.txt)"
                           : "only the native side failed");
        return 1;
    }
    for (int i = 0; i < pc->n_tensors && !py_failed; ++i)
        if (compare_tensor(pc, &pc->tensors[i], why, len)) return 1;
    return 0;
}

/* Run argv (no shell: the paths are the user's) to its end; 0 when it exits 0. */
static int spawn_wait(char *const argv[]) {
    pid_t pid;
    int st = 0;
    fflush(stdout);
    if (posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ)) return -1;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The runner's command line for the kept folder dir: the same config and
 * settings as the batch's run (run_python). */
static bool runner_command(const cf_run *R, const char *dir, char *buf, size_t len) {
    const config_args *cfg = &R->args->cfg;
    char arg[3 * PATH_MAX + 16], abs[PATH_MAX];
    size_t n = 0;
    buf[0] = 0;
    snprintf(arg, sizeof arg, "PYTHONPATH=%s", R->py->pythonpath);
    cf_quote(buf, len, &n, "env"); /* a quoted NAME=VALUE is env's argument, not a command */
    cf_quote(buf, len, &n, arg);
    cf_quote(buf, len, &n, R->py->python);
    cf_quote(buf, len, &n, "-m");
    cf_quote(buf, len, &n, "trnsim.conform_runner");
    if (cfg->config) {
        cf_quote(buf, len, &n, "--config");
        cf_quote(buf, len, &n, realpath(cfg->config, abs) ? abs : cfg->config);
    }
    for (int i = 0; i < cfg->n_sets; ++i) {
        cf_quote(buf, len, &n, "--set");
        cf_quote(buf, len, &n, cfg->sets[i]);
    }
    cf_quote(buf, len, &n, dir);
    if (n < len) memmove(buf, buf + 1, strlen(buf)); /* the leading space */
    return n < len;
}

/* A differing case's folder kept under --out (not shrunk: the Python side
 * runs whole programs only). */
static int keep_case(cf_run *R, py_case *pc, const char *why, trn_error *e) {
    char tmp[PATH_MAX], dir[PATH_MAX], src[PATH_MAX + 8], dst[PATH_MAX + 8];
    if (cf_case_folder_open(R, pc->c.index, tmp, sizeof tmp, dir, sizeof dir, e)) return -1;
    snprintf(src, sizeof src, "%s/.", pc->dir);
    snprintf(dst, sizeof dst, "%s/", tmp);
    char *cp[] = {"cp", "-r", src, dst, NULL};
    int rc = spawn_wait(cp) ? trn_errorf(e, "--out: cannot copy the case to %s", dir) : 0;
    if (rc == 0) rc = cf_case_folder_commit(tmp, dir, e);
    if (rc) {
        cf_remove_tree(tmp);
        return -1;
    }
    ++R->differ;
    --R->agree;
    cf_shown *s = R->n_shown < CF_MAX_SHOWN ? &R->shown[R->n_shown++] : NULL;
    if (s) {
        memset(s, 0, sizeof *s);
        s->index = pc->c.index;
        s->history = true; /* no diff line: diff compares modules, not front ends */
        snprintf(s->what, sizeof s->what, "Python front end: %s", why);
        snprintf(s->dir, sizeof s->dir, "%s", dir);
        if (!runner_command(R, dir, s->command, sizeof s->command))
            return trn_errorf(e,
                              "--out: the runner's command line for %s is longer than %zu "
                              "characters; give a shorter --out path",
                              dir, sizeof s->command - 1);
    }
    if (!R->args->json)
        printf("difference in case %" PRIu64 " (%s): Python front end: %s\n  written to %s\n",
               pc->c.index, pc->c.inst[0].r->name, why, dir);
    return 0;
}

int cf_python_flush(cf_run *R, bool last, trn_error *e) {
    cf_python *p = R->py;
    if (!p || p->n == 0 || (!last && p->n < BATCH)) return 0;
    int rc = run_python(p, &R->args->cfg, e);
    for (int i = 0; i < p->n && rc == 0; ++i) {
        char why[800];
        if (compare_case(&p->cases[i], why, sizeof why)) {
            if ((rc = keep_case(R, &p->cases[i], why, e)) == 0 && !R->args->keep_going) break;
        } else if (p->cases[i].native_failed && (!R->side[1].s || p->cases[i].bir_refused)) {
            ++R->both_failed; /* not compared (when side B ran it, counted there already) */
        }
    }
    for (int i = 0; i < p->n; ++i) {
        cf_remove_tree(p->cases[i].dir);
        free_case(&p->cases[i]);
    }
    p->n = 0;
    return rc;
}
