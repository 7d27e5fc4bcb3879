/* --output: checked before the run, written to temporaries after it, and
 * renamed into place only when every one was written. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arith/arith.h"
#include "cli/cli_internal.h"
#include "frontend/npy.h"

int cli_save_output(trn_sim *s, binding *b, bool raw_bits, trn_error *e) {
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
int cli_check_outputs(const run_args *a, trn_error *e) {
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

void cli_remove_temps(run_args *a) {
    for (int i = 0; i < a->n_out; ++i)
        if (a->out[i].tmp[0]) remove(a->out[i].tmp);
}

/* Rename every temporary into place; if one rename fails, the outputs
 * already renamed are removed again, so a failed run leaves no output. */
int cli_commit_outputs(run_args *a, trn_error *e) {
    for (int i = 0; i < a->n_out; ++i)
        if (rename(a->out[i].tmp, a->out[i].path) != 0) {
            trn_errorf(e, "cannot rename %s to %s: %s", a->out[i].tmp, a->out[i].path, strerror(errno));
            for (int j = 0; j < i; ++j) remove(a->out[j].path);
            return -1;
        }
    return 0;
}

