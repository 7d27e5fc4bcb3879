/* trnsim conform: a differing case shrunk (fewest instances and
 * instructions, smallest variables and cores, fewest non-zero inputs),
 * written to --out DIR/case-N/ with the `trnsim diff` line that repeats it,
 * and the run's summary (text or --json). docs/internals/conform.md. */
#define _GNU_SOURCE /* renameat2 */
#include <fcntl.h>
#include <ftw.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "npy/npy.h"
#include "cli/cli_int.h"

#define SHRINK_BUDGET 600 /* candidate runs per difference */

/* ---- shrinking ---- */

struct shrink {
    cf_run *R;
    int tries;
    bool run_failed; /* the kind of the difference being shrunk */
    bool verify;     /* a candidate must also differ under its diff line, in a new process */
    /* keep[i]: per element (all cores) of input i, 0 = zeroed; NULL: all kept */
    uint8_t *keep[CF_MAX_INPUTS];
    int64_t n_keep[CF_MAX_INPUTS];
};
typedef struct shrink shrink;

static void case_copy(cf_case *dst, const cf_case *src) {
    *dst = *src;
    for (int k = 0; k < dst->n_inst; ++k) json_incref(dst->inst[k].attrs);
}

static void zero_dropped(const shrink *sh) {
    cf_run *R = sh->R;
    for (int i = 0; i < R->n_inputs; ++i) {
        if (!sh->keep[i] || sh->n_keep[i] != R->inputs[i].count * R->inputs[i].cores) continue;
        uint32_t w = trn_dtype_width(R->inputs[i].dtype);
        for (int64_t j = 0; j < sh->n_keep[i]; ++j)
            if (!sh->keep[i][j]) memset(R->inputs[i].data + (size_t)j * w, 0, w);
    }
}

static bool reproduces(cf_run *R, const cf_case *c);

/* Whether candidate c still differs. */
static bool differs(shrink *sh, cf_case *c) {
    if (sh->tries >= SHRINK_BUDGET) return false;
    ++sh->tries;
    trn_error e;
    sh->R->zero_hook = sh;
    int rc = cf_run_case(sh->R, c, &e);
    sh->R->zero_hook = NULL;
    if (rc != CF_DIFFER || sh->R->run_failed != sh->run_failed) return false;
    return !sh->verify || reproduces(sh->R, c);
}

void cf_apply_zero_hook(cf_run *R) {
    if (R->zero_hook) zero_dropped(R->zero_hook);
}

/* Keep candidate when it differs (then *c becomes it), else drop it. */
static bool try_case(shrink *sh, cf_case *c, cf_case *cand) {
    if (differs(sh, cand)) {
        cf_case_free(c);
        *c = *cand;
        return true;
    }
    cf_case_free(cand);
    return false;
}

static void shrink_instances(shrink *sh, cf_case *c) {
    for (int k = 0; c->n_inst > 1 && k < c->n_inst; ++k) { /* one instance alone */
        cf_case cand;
        case_copy(&cand, c);
        for (int j = 0; j < cand.n_inst; ++j)
            if (j != k) cf_instance_free(&cand.inst[j]);
        cand.inst[0] = cand.inst[k];
        cand.n_inst = 1;
        if (try_case(sh, c, &cand)) return;
    }
    for (int k = c->n_inst - 1; c->n_inst > 1 && k >= 0; --k) { /* one instance fewer */
        cf_case cand;
        case_copy(&cand, c);
        cf_instance_free(&cand.inst[k]);
        memmove(&cand.inst[k], &cand.inst[k + 1],
                (size_t)(cand.n_inst - k - 1) * sizeof cand.inst[0]);
        --cand.n_inst;
        try_case(sh, c, &cand);
    }
}

static int live_instructions(const cf_case *c) {
    int n = 0;
    for (int k = 0; k < c->n_inst; ++k) {
        size_t m = json_array_size(json_object_get(c->inst[k].r->obj, "instructions"));
        for (size_t i = 0; i < m; ++i) n += i >= 64 || !((c->inst[k].dropped >> i) & 1);
    }
    return n;
}

static void shrink_instructions(shrink *sh, cf_case *c) {
    for (int k = 0; k < c->n_inst; ++k) {
        size_t m = json_array_size(json_object_get(c->inst[k].r->obj, "instructions"));
        for (size_t i = 0; i < m && i < 64; ++i) {
            if ((c->inst[k].dropped >> i) & 1 || live_instructions(c) <= 1) continue;
            cf_case cand;
            case_copy(&cand, c);
            cand.inst[k].dropped |= 1ull << i;
            try_case(sh, c, &cand);
        }
    }
}

/* The inputs' data moved up so that the row that differs is row 0: then
 * the variables that give the rows can shrink to their minimum. */
static void shrink_rows(shrink *sh, cf_case *c) {
    if (!differs(sh, c) || sh->R->diff_row <= 0) return;
    cf_case cand;
    case_copy(&cand, c);
    cand.row_shift += sh->R->diff_row;
    try_case(sh, c, &cand);
}

/* Each variable towards its minimum: the minimum itself, then halving. */
static void shrink_vars(shrink *sh, cf_case *c) {
    for (int k = 0; k < c->n_inst; ++k)
        for (int v = 0; v < c->inst[k].n_vars; ++v) {
            int64_t lo = c->inst[k].var_min[v], step = c->inst[k].var_step[v];
            while (c->inst[k].var_val[v] > lo) {
                int64_t cur = c->inst[k].var_val[v];
                int64_t mid = lo + (cur - lo) / step / 2 * step;
                cf_case cand;
                case_copy(&cand, c);
                cand.inst[k].var_val[v] = mid;
                if (try_case(sh, c, &cand)) continue;
                if (mid == lo) break;
                lo = mid + step; /* mid is too small: search above it */
            }
        }
    uint32_t need = 1;
    for (int k = 0; k < c->n_inst; ++k)
        if (c->inst[k].r->cores_min > need) need = c->inst[k].r->cores_min;
    if (c->cores > need) {
        cf_case cand;
        case_copy(&cand, c);
        cf_set_cores(&cand, need);
        try_case(sh, c, &cand);
    }
}

static bool chunk_has_kept(const uint8_t *keep, int64_t from, int64_t to) {
    for (int64_t j = from; j < to; ++j)
        if (keep[j]) return true;
    return false;
}

/* Zero chunks of each input, halving the chunk size, while it still differs. */
static int shrink_inputs(shrink *sh, cf_case *c, trn_error *e) {
    cf_run *R = sh->R;
    if (!differs(sh, c)) return 0; /* rebuild the inputs of the case as it is now */
    int n = R->n_inputs;
    for (int i = 0; i < n; ++i) {
        int64_t total = R->inputs[i].count * R->inputs[i].cores;
        sh->keep[i] = malloc(total ? (size_t)total : 1);
        if (!sh->keep[i]) return trn_errorf(e, "out of memory");
        memset(sh->keep[i], 1, (size_t)total);
        sh->n_keep[i] = total;
    }
    for (int i = 0; i < n; ++i)
        for (int64_t chunk = sh->n_keep[i]; chunk >= 1; chunk /= 2) {
            for (int64_t from = 0; from < sh->n_keep[i]; from += chunk) {
                int64_t to = from + chunk < sh->n_keep[i] ? from + chunk : sh->n_keep[i];
                if (!chunk_has_kept(sh->keep[i], from, to)) continue;
                memset(sh->keep[i] + from, 0, (size_t)(to - from));
                if (!differs(sh, c)) memset(sh->keep[i] + from, 1, (size_t)(to - from));
            }
            if (sh->tries >= SHRINK_BUDGET) break;
        }
    return 0;
}

/* ---- the case folder ---- */

static int make_dir(const char *path, trn_error *e) {
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; ++p)
        if (*p == '/') {
            *p = 0;
            if (mkdir(buf, 0777) && errno != EEXIST)
                return trn_errorf(e, "--out %s: cannot create %s: %s", path, buf, strerror(errno));
            *p = '/';
        }
    if (mkdir(buf, 0777) && errno != EEXIST)
        return trn_errorf(e, "--out: cannot create %s: %s", buf, strerror(errno));
    return 0;
}

/* A tensor's bytes on every core as one .npy: [*shape] on one core,
 * [cores, *shape] on more (as --input reads them), raw bits. */
static int write_npy(const char *path, trn_dtype dt, int ndim, const int64_t *shape, uint32_t cores,
                     const void *data, trn_error *e) {
    int64_t sh[TRN_MAX_SHAPE + 1];
    int n = 0;
    if (cores > 1) sh[n++] = cores;
    for (int i = 0; i < ndim; ++i) sh[n++] = shape[i];
    return trn_npy_write(path, trn_npy_descr_for(dt, true), n, sh, data, e);
}

static int write_outputs(trn_sim *s, const char *dir, trn_error *e) {
    if (make_dir(dir, e)) return -1;
    uint32_t cores = trn_sim_cores(s);
    for (int i = 0; i < trn_sim_tensor_count(s); ++i) {
        trn_tensor_info ti;
        if (trn_sim_tensor_at(s, i, &ti, e)) return -1;
        size_t bytes = (size_t)ti.count * trn_dtype_width((trn_dtype)ti.dtype);
        uint8_t *buf = calloc(cores, bytes ? bytes : 1);
        if (!buf) return trn_errorf(e, "out of memory");
        for (uint32_t c = 0; c < cores; ++c) {
            trn_error ig; /* never-written bytes stay 0 */
            trn_sim_get_written_tensor(s, ti.name, (int)c, buf + c * bytes, bytes, &ig);
        }
        char path[PATH_MAX + 512];
        snprintf(path, sizeof path, "%s/%s.npy", dir, ti.name);
        int rc = write_npy(path, (trn_dtype)ti.dtype, ti.ndim, ti.shape, cores, buf, e);
        free(buf);
        if (rc) return -1;
    }
    return 0;
}

void cf_quote(char *buf, size_t len, size_t *n, const char *s) {
    bool plain = *s != 0;
    for (const char *p = s; *p; ++p)
        plain &= !!strchr(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=,:+-@%", *p);
    if (*n >= len) return;
    if (plain) {
        *n += (size_t)snprintf(buf + *n, len - *n, " %s", s);
        return;
    }
    *n += (size_t)snprintf(buf + *n, len - *n, " '");
    for (const char *p = s; *p && *n < len; ++p)
        *n += (size_t)snprintf(buf + *n, len - *n, *p == '\'' ? "'\\''" : "%c", *p);
    if (*n < len) *n += (size_t)snprintf(buf + *n, len - *n, "'");
}

static const char *self_exe(char *buf, size_t len) {
    ssize_t n = readlink("/proc/self/exe", buf, len - 1);
    if (n <= 0) return "trnsim";
    buf[n] = 0;
    return buf;
}

/* The one `trnsim diff` line that shows the difference of the case in dir;
 * false when it does not fit in buf (a cut line would not reproduce it). */
static bool diff_command(const cf_run *R, const char *dir, char *buf, size_t len) {
    char exe[PATH_MAX], path[PATH_MAX + 64], abs[PATH_MAX];
    size_t n = 0;
    buf[0] = 0;
    const cf_args *a = R->args;
    cf_quote(buf, len, &n, self_exe(exe, sizeof exe));
    /* --frontends ...,bir: diff compares configs, not front ends; the line
     * is then side B's own run, whose tensors out-b/ holds */
    cf_quote(buf, len, &n, a->fe_bir ? "run" : "diff");
    snprintf(path, sizeof path, "%s/program%s.json", dir, a->fe_bir ? ".bir" : "");
    cf_quote(buf, len, &n, path);
    if (a->cfg.config) {
        cf_quote(buf, len, &n, "--config");
        cf_quote(buf, len, &n, realpath(a->cfg.config, abs) ? abs : a->cfg.config);
    }
    for (int i = 0; i < a->cfg.n_sets; ++i) {
        cf_quote(buf, len, &n, "--set");
        cf_quote(buf, len, &n, a->cfg.sets[i]);
    }
    uint32_t cores = R->side[0].s ? trn_sim_cores(R->side[0].s) : 1;
    if (a->fe_bir && cores > 1) {
        snprintf(abs, sizeof abs, "machine.cores=%u", cores);
        cf_quote(buf, len, &n, "--set");
        cf_quote(buf, len, &n, abs);
    }
    const trn_registry *rb = R->side[1].s ? trn_sim_registry(R->side[1].s) : NULL;
    for (int i = 0; i < a->n_swaps; ++i) {
        const char *eq = strchr(a->swaps[i], '=');
        const char *where = eq + 1;
        for (size_t m = 0; rb && m < rb->n_mods; ++m)
            if (rb->mods[m].desc &&
                strlen(rb->mods[m].desc->family) == (size_t)(eq - a->swaps[i]) &&
                !strncmp(rb->mods[m].desc->family, a->swaps[i], (size_t)(eq - a->swaps[i])) &&
                rb->mods[m].path)
                where = rb->mods[m].path;
        char abs_mod[PATH_MAX];
        if (where[0] != '/' && strchr(where, '/') && realpath(where, abs_mod)) where = abs_mod;
        snprintf(path, sizeof path, "%.*s=%s", (int)(eq - a->swaps[i]), a->swaps[i], where);
        cf_quote(buf, len, &n, "--against-module");
        cf_quote(buf, len, &n, path);
    }
    for (int i = 0; i < R->n_inputs; ++i) {
        snprintf(path, sizeof path, "%s=%s/in/%s.npy", R->inputs[i].name, dir, R->inputs[i].name);
        cf_quote(buf, len, &n, "--input");
        cf_quote(buf, len, &n, path);
    }
    memmove(buf, buf + 1, strlen(buf)); /* the leading space */
    return n < len;
}

/* Run both sides of the (shrunk, just run) case to their ends. */
static void finish_sides(cf_run *R) {
    for (int i = 0; i < 2; ++i) {
        if (!R->side[i].s) continue;
        trn_step st;
        trn_error ig;
        while (trn_sim_step(R->side[i].s, &st, &ig) > 0) {}
    }
}

/* The program with one tensor or instruction a line. */
static int dump_program(const json_t *prog, const char *path) {
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "{\n  \"cores\": %" JSON_INTEGER_FORMAT ",\n",
            json_integer_value(json_object_get(prog, "cores")));
    const char *lists[] = {"tensors", "instructions"};
    for (int l = 0; l < 2; ++l) {
        fprintf(f, "  \"%s\": [", lists[l]);
        json_t *x;
        size_t i;
        json_array_foreach(json_object_get(prog, lists[l]), i, x) {
            char *t = json_dumps(x, JSON_COMPACT | JSON_PRESERVE_ORDER);
            fprintf(f, "%s\n    %s", i ? "," : "", t ? t : "null");
            free(t);
        }
        fprintf(f, "\n  ]%s\n", l ? "" : ",");
    }
    fprintf(f, "}\n");
    return fclose(f) ? -1 : 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f) {
    (void)st, (void)flag, (void)f;
    return remove(path);
}

void cf_remove_tree(const char *path) {
    if (access(path, F_OK) == 0) nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int cf_case_folder_open(const cf_run *R, uint64_t index, char *tmp, size_t tmplen, char *dir,
                        size_t dirlen, trn_error *e) {
    char out[PATH_MAX];
    if (make_dir(R->args->out, e)) return -1;
    if (!realpath(R->args->out, out))
        return trn_errorf(e, "--out %s: %s", R->args->out, strerror(errno));
    int n = snprintf(dir, dirlen, "%s/case-%" PRIu64, out, index);
    int m = snprintf(tmp, tmplen, "%s/.case-%" PRIu64 "-XXXXXX", out, index);
    if (n < 0 || (size_t)n >= dirlen || m < 0 || (size_t)m >= tmplen)
        return trn_errorf(e, "--out %s: path too long; give a shorter --out path", out);
    if (!mkdtemp(tmp))
        return trn_errorf(e, "--out: cannot create a folder in %s: %s", out, strerror(errno));
    return 0;
}

int cf_case_folder_commit(const char *tmp, const char *dir, trn_error *e) {
    if (rename(tmp, dir) == 0) return 0; /* no case-N yet, or an empty one */
    int err = errno;
    /* an earlier run's case of the same number: exchanged whole, then removed */
    if ((err == ENOTEMPTY || err == EEXIST) &&
        renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) == 0) {
        cf_remove_tree(tmp);
        return 0;
    }
    if (err == ENOTDIR)
        return trn_errorf(
            e, "--out: %s exists and is not a folder; remove it or give another --out", dir);
    return trn_errorf(e, "--out: cannot put the case in place as %s: %s; remove it", dir,
                      strerror(err == ENOTEMPTY || err == EEXIST ? errno : err));
}

/* program.json, in/NAME.npy and diff-command.txt of the case just run,
 * written into dir; the diff line names the folder `named` (where dir is
 * renamed to). */
static int write_program(cf_run *R, const char *dir, const char *named, cf_shown *sh,
                         trn_error *e) {
    char path[PATH_MAX + 64];
    if (make_dir(dir, e)) return -1;
    snprintf(path, sizeof path, "%s/program.json", dir);
    if (dump_program(R->prog, path))
        return trn_errorf(e, "--out: cannot write %s: %s", path, strerror(errno));
    snprintf(path, sizeof path, "%s/in", dir);
    if (make_dir(path, e)) return -1;
    for (int i = 0; i < R->n_inputs; ++i) {
        const cf_input *in = &R->inputs[i];
        snprintf(path, sizeof path, "%s/in/%s.npy", dir, in->name);
        if (write_npy(path, in->dtype, in->ndim, in->shape, in->cores, in->data, e)) return -1;
    }
    if (!diff_command(R, named, sh->command, sizeof sh->command))
        return trn_errorf(e,
                          "--out: the diff line of the case in %s is longer than %zu characters; "
                          "give a shorter --out path",
                          named, sizeof sh->command - 1);
    snprintf(path, sizeof path, "%s/diff-command.txt", dir);
    FILE *f = fopen(path, "w");
    if (!f || fprintf(f, "%s\n", sh->command) < 0 || fclose(f))
        return trn_errorf(e, "--out: cannot write %s", path);
    return 0;
}

/* The case's files, written into tmp, named as dir. */
static int write_case_files(cf_run *R, const char *tmp, const char *dir, cf_shown *sh,
                            trn_error *e) {
    char path[PATH_MAX + 64];
    if (write_program(R, tmp, dir, sh, e)) return -1;
    finish_sides(R);
    for (int s = 0; s < 2; ++s) {
        if (!R->side[s].s) continue;
        snprintf(path, sizeof path, "%s/out-%c", tmp, "ab"[s]);
        if (write_outputs(R->side[s].s, path, e)) return -1;
    }
    if (R->args->fe_bir && R->bir_text) {
        snprintf(path, sizeof path, "%s/program.bir.json", tmp);
        FILE *f = fopen(path, "w");
        if (!f || fputs(R->bir_text, f) < 0 || fclose(f))
            return trn_errorf(e, "--out: cannot write %s", path);
    }
    return 0;
}

static int write_case(cf_run *R, const cf_case *c, cf_shown *sh, trn_error *e) {
    char tmp[PATH_MAX], dir[PATH_MAX];
    if (cf_case_folder_open(R, c->index, tmp, sizeof tmp, dir, sizeof dir, e)) return -1;
    snprintf(sh->dir, sizeof sh->dir, "%s", dir);
    int rc = write_case_files(R, tmp, dir, sh, e);
    if (rc == 0) rc = cf_case_folder_commit(tmp, dir, e);
    if (rc) cf_remove_tree(tmp);
    return rc;
}

/* Whether the case just run, written to its folder, differs under its own
 * `trnsim diff` line in a new process (exit 1; a failing side: any error). */
static bool reproduces(cf_run *R, const cf_case *c) {
    if (R->args->fe_bir) return true; /* diff compares modules, not front ends */
    /* a scratch folder beside the case's own, not the case's folder: a
     * candidate's inputs (other names when it has fewer instances) must not
     * stay there. Under --out, which was checked before the run (a folder
     * that cannot be made would read as "does not reproduce"). */
    char dir[PATH_MAX + 64];
    static cf_shown sh;
    trn_error e;
    snprintf(dir, sizeof dir, "%s/.check-case-%" PRIu64 "-XXXXXX", R->args->out, c->index);
    if (make_dir(R->args->out, &e) || !mkdtemp(dir)) return false;
    char abs[PATH_MAX];
    if (realpath(dir, abs)) snprintf(dir, sizeof dir, "%s", abs); /* as the case folder's line */
    bool ok = false;
    if (!write_program(R, dir, dir, &sh, &e)) {
        char cmd[sizeof sh.command + 32];
        snprintf(cmd, sizeof cmd, "%s >/dev/null 2>&1", sh.command);
        fflush(stdout);
        int st = system(cmd);
        int code = st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        ok = code == 1 || (R->run_failed && code == 2);
    }
    cf_remove_tree(dir);
    return ok;
}

static void shrink_reset(shrink *sh) {
    for (int i = 0; i < CF_MAX_INPUTS; ++i) {
        free(sh->keep[i]);
        sh->keep[i] = NULL;
    }
    sh->tries = 0;
}

/* Shrink c, then run the result once more with its zeroed inputs: 0 when
 * that still differs and (verify or not) its diff line shows it. */
static int shrink_case(cf_run *R, cf_case *c, shrink *sh, trn_error *e) {
    shrink_instances(sh, c);
    shrink_instructions(sh, c);
    shrink_rows(sh, c);
    shrink_vars(sh, c);
    if (shrink_inputs(sh, c, e)) return -1;
    R->zero_hook = sh;
    int rc = cf_run_case(R, c, e);
    bool ok = rc == CF_DIFFER && reproduces(R, c);
    if (rc == CF_DIFFER) rc = cf_run_case(R, c, e); /* the sides' state for the case folder */
    R->zero_hook = NULL;
    return rc < 0 ? -1 : ok ? 0 : 1;
}

/* Shrink the differing case c: quickly in this process first; when the
 * result does not differ under its diff line in a new process (a module
 * reading memory it never wrote gives what the heap held), again with each
 * step checked that way. A case that does not differ in a new process at
 * all depends on this process's history: written unshrunk. */
static int shrink_or_keep(cf_run *R, cf_case *c, shrink *sh, bool *history, trn_error *e) {
    cf_case orig;
    case_copy(&orig, c);
    *history = cf_run_case(R, c, e) != CF_DIFFER || !reproduces(R, c);
    int rc = *history ? 0 : shrink_case(R, c, sh, e);
    if (rc == 1) {
        cf_case_free(c);
        case_copy(c, &orig);
        shrink_reset(sh);
        sh->verify = true;
        rc = shrink_case(R, c, sh, e);
        if (rc == 1) *history = true;
    }
    if (*history && rc >= 0) {
        cf_case_free(c);
        case_copy(c, &orig);
        rc = cf_run_case(R, c, e) < 0 ? -1 : 0;
    }
    cf_case_free(&orig);
    return rc < 0 ? -1 : 0;
}

int cf_report_difference(cf_run *R, cf_case *c, trn_error *e) {
    shrink sh = {.R = R, .run_failed = R->run_failed};
    char first[1100];
    snprintf(first, sizeof first, "%s", R->what);
    int before = live_instructions(c);
    bool history = false;
    int rc = shrink_or_keep(R, c, &sh, &history, e);
    int tries = sh.tries;
    shrink_reset(&sh);
    if (rc) return -1;
    cf_shown *s = R->n_shown < CF_MAX_SHOWN ? &R->shown[R->n_shown++] : NULL;
    cf_shown spare;
    if (!s) s = &spare;
    memset(s, 0, sizeof *s);
    s->index = c->index;
    s->instructions = live_instructions(c);
    s->history = history;
    snprintf(s->what, sizeof s->what, "%s", history ? first : R->what);
    if (write_case(R, c, s, e)) return -1;
    if (!R->args->json) {
        printf("difference in case %" PRIu64 " (%s): %s\n", c->index, c->inst[0].r->name, first);
        if (history)
            printf("  not shrunk: in a new process the case agrees (a module reads memory it "
                   "never wrote, or keeps state between programs); the diff line below may show "
                   "no difference\n");
        else
            printf("  shrunk from %d to %d instruction%s (%d tries): %s\n", before, s->instructions,
                   s->instructions == 1 ? "" : "s", tries, s->what);
        printf("  written to %s\n", s->dir);
        printf("  %s\n", s->command);
        fflush(stdout);
    }
    return 0;
}

/* ---- the summary ---- */

/* The command line that repeats this run: its options with --cases and --seed fixed. */
static void repeat_command(const cf_run *R, char *buf, size_t len) {
    const cf_args *a = R->args;
    char exe[PATH_MAX], v[64];
    size_t n = 0;
    buf[0] = 0;
    cf_quote(buf, len, &n, self_exe(exe, sizeof exe));
    cf_quote(buf, len, &n, "conform");
    for (int i = 0; i < a->argc; ++i) {
        const char *s = a->argv[i];
        if (!strcmp(s, "--seed") || !strcmp(s, "--cases") || !strcmp(s, "--time")) {
            ++i;
            continue;
        }
        cf_quote(buf, len, &n, s);
    }
    cf_quote(buf, len, &n, "--cases");
    snprintf(v, sizeof v, "%" PRIu64, R->ran ? R->ran : 1);
    cf_quote(buf, len, &n, v);
    cf_quote(buf, len, &n, "--seed");
    snprintf(v, sizeof v, "%" PRIu64, a->seed);
    cf_quote(buf, len, &n, v);
    memmove(buf, buf + 1, strlen(buf));
}

static void summary_json(const cf_run *R, const char *repeat, double rate) {
    printf("{\"seed\": %" PRIu64 ", \"cases\": %" PRIu64 ", \"agree\": %" PRIu64
           ", \"differ\": %" PRIu64 ", \"invalid\": %" PRIu64 ", \"seconds\": %.3f"
           ", \"cases_per_second\": %.1f, ",
           R->args->seed, R->ran, R->agree, R->differ, R->invalid_cases, R->seconds, rate);
    printf("\"failed_both\": %" PRIu64 ", \"nan_payload_only\": %" PRIu64 ", \"a\": ",
           R->both_failed, R->nan_payload_only);
    cli_print_json_string(R->side[0].label);
    printf(", \"b\": ");
    cli_print_json_string(R->side[1].s ? R->side[1].label : "the Python front end");
    printf(", \"frontends\": [\"native\"%s%s], \"bir_refused\": %" PRIu64 ", \"per_opcode\": [",
           R->args->fe_bir ? ", \"bir\"" : "", R->args->fe_python ? ", \"python\"" : "",
           R->bir_refused_cases);
    for (int i = 0; i < R->n_counts; ++i) {
        printf("%s{\"opcode\": ", i ? ", " : "");
        cli_print_json_string(R->counts[i].opcode);
        printf(", \"dtypes\": ");
        cli_print_json_string(R->counts[i].dtypes);
        printf(", \"cases\": %" PRIu64 "}", R->counts[i].cases);
    }
    printf("], \"families\": [");
    for (int i = 0; i < R->n_fams; ++i) {
        const cf_family *f = &R->fams[i];
        printf("%s{\"family\": ", i ? ", " : "");
        cli_print_json_string(f->family);
        printf(", \"instructions\": %" PRIu64 ", \"valid\": %" PRIu64 ", \"valid_ratio\": %.4f}",
               f->instructions, f->valid,
               f->instructions ? (double)f->valid / (double)f->instructions : 1.0);
    }
    printf("], \"recipes\": [");
    int k = 0;
    for (int i = 0; i < R->g.n_ops; ++i)
        for (int j = 0; j < R->g.ops[i].n_recipes; ++j) {
            const cf_recipe *r = &R->g.ops[i].recipes[j];
            printf("%s{\"opcode\": ", k++ ? ", " : "");
            cli_print_json_string(R->g.ops[i].name);
            printf(", \"recipe\": ");
            cli_print_json_string(r->name);
            printf(", \"programs\": %" PRIu64 ", \"valid\": %" PRIu64 ", \"first_error\": ",
                   r->programs, r->valid);
            if (r->first_error[0])
                cli_print_json_string(r->first_error);
            else
                printf("null");
            printf("}");
        }
    printf("], \"differences\": [");
    for (int i = 0; i < R->n_shown; ++i) {
        const cf_shown *s = &R->shown[i];
        printf("%s{\"case\": %" PRIu64 ", \"what\": ", i ? ", " : "", s->index);
        cli_print_json_string(s->what);
        printf(", \"instructions\": %d, \"reproducible\": %s, \"dir\": ", s->instructions,
               s->history ? "false" : "true");
        cli_print_json_string(s->dir);
        printf(", \"diff_command\": ");
        cli_print_json_string(s->command);
        printf("}");
    }
    printf("], \"repeat\": ");
    cli_print_json_string(repeat);
    printf("}\n");
}

static int by_opcode(const void *x, const void *y) {
    const cf_count *a = x, *b = y;
    int c = strcmp(a->opcode, b->opcode);
    return c ? c : strcmp(a->dtypes, b->dtypes);
}

void cf_print_summary(cf_run *R) {
    qsort(R->counts, (size_t)R->n_counts, sizeof R->counts[0], by_opcode);
    /* room for every argument quoted at its longest (each ' becomes 4
     * characters), so the line is never cut: it is what repeats the run */
    size_t len = 4 * (size_t)PATH_MAX + 256;
    for (int i = 0; i < R->args->argc; ++i) len += 4 * strlen(R->args->argv[i]) + 4;
    char *repeat = malloc(len);
    if (!repeat) len = 0, repeat = (char *)"(out of memory)";
    if (len) repeat_command(R, repeat, len);
    double rate = R->seconds > 0 ? (double)R->ran / R->seconds : 0;
    if (R->args->json) {
        summary_json(R, repeat, rate);
        if (len) free(repeat);
        return;
    }
    printf("conform: %" PRIu64 " cases, %" PRIu64 " agree, %" PRIu64 " differ, %" PRIu64
           " invalid (seed %" PRIu64 ", %.2f s, %.0f cases/s)\n",
           R->ran, R->agree, R->differ, R->invalid_cases, R->args->seed, R->seconds, rate);
    printf("  A: %s\n  B: %s\n", R->side[0].label,
           R->side[1].s ? R->side[1].label : "the Python front end");
    if (R->both_failed)
        printf("  %" PRIu64 " cases failed on both sides alike (counted as agreeing)\n",
               R->both_failed);
    if (R->nan_payload_only)
        printf("  %" PRIu64 " instructions differed only in NaN payloads their module leaves open "
               "(quirk *.unpinned_nan_payload; counted as agreeing)\n",
               R->nan_payload_only);
    if (R->bir_refused_cases)
        printf("  %" PRIu64 " cases the BIR writer cannot express were run on A only\n",
               R->bir_refused_cases);
    printf("%-28s %-24s %8s\n", "opcode", "dtypes", "cases");
    for (int i = 0; i < R->n_counts; ++i)
        printf("%-28s %-24s %8" PRIu64 "\n", R->counts[i].opcode, R->counts[i].dtypes,
               R->counts[i].cases);
    printf("%-28s %12s %12s %8s\n", "family", "instructions", "valid", "ratio");
    for (int i = 0; i < R->n_fams; ++i) {
        const cf_family *f = &R->fams[i];
        printf("%-28s %12" PRIu64 " %12" PRIu64 " %7.1f%%\n", f->family, f->instructions, f->valid,
               f->instructions ? 100.0 * (double)f->valid / (double)f->instructions : 100.0);
    }
    for (int i = 0; i < R->g.n_ops; ++i)
        for (int j = 0; j < R->g.ops[i].n_recipes; ++j) {
            const cf_recipe *r = &R->g.ops[i].recipes[j];
            if (r->first_error[0])
                printf("recipe %s/%s: %" PRIu64 " of %" PRIu64 " programs invalid; first: %s\n",
                       R->g.ops[i].name, r->name, r->programs - r->valid, r->programs,
                       r->first_error);
        }
    printf("repeat: %s\n", repeat);
    if (len) free(repeat);
}
