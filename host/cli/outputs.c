/* --output: checked before the run, written after it to temporaries created
 * exclusively next to their targets, then committed all or nothing without
 * ever deleting a file that was there before (docs/cli.md, "Outputs"). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arith/arith.h"
#include "cli/cli_internal.h"
#include "npy/npy_stream.h"

/* ---- signals: the temporaries go away with the process ---- */

/* What the handler may touch: the bindings' temporary names and a flag per
 * name that is set only while that file exists and is ours to remove. */
static run_args *live_args;
static volatile sig_atomic_t temp_live[MAX_FILES];

/* Other temporaries (an MPI run's merged --trace / --timeline). */
#define EXTRA_TEMPS 2
static char extra_temp[EXTRA_TEMPS][PATH_MAX + 64];
static volatile sig_atomic_t extra_live[EXTRA_TEMPS];

static const char interrupted_msg[] = "trnsim: interrupted; temporary output files removed\n";

/* Only async-signal-safe calls: unlink, write, _exit. */
static void on_signal(int sig) {
    run_args *a = live_args;
    for (int i = 0; a && i < a->n_out; ++i)
        if (temp_live[i]) unlink(a->out[i].tmp);
    for (int i = 0; i < EXTRA_TEMPS; ++i)
        if (extra_live[i]) unlink(extra_temp[i]);
    ssize_t ignored = write(STDERR_FILENO, interrupted_msg, sizeof interrupted_msg - 1);
    (void)ignored;
    _exit(128 + sig);
}

void cli_track_temp(int slot, const char *path) {
    if (slot < 0 || slot >= EXTRA_TEMPS) return;
    extra_live[slot] = 0;
    if (!path) return;
    snprintf(extra_temp[slot], sizeof extra_temp[slot], "%s", path);
    extra_live[slot] = 1;
}

void cli_install_signal_cleanup(run_args *a) {
    live_args = a;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

static void block_signals(bool block, sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(block ? SIG_BLOCK : SIG_SETMASK, block ? &set : old, block ? old : NULL);
}

/* ---- checks before the run ---- */

static const char *file_kind(mode_t m) {
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
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

/* Before anything runs: each output file named once, and either new or a
 * regular file (followed through a symlink), so that nothing but a regular
 * file is ever replaced and the renames at the end do not fail for a reason
 * known now. */
int cli_check_output_paths(const run_args *a, trn_error *e) {
    static char keys[MAX_FILES][PATH_MAX + 256];
    for (int i = 0; i < a->n_out; ++i) {
        const binding *b = &a->out[i];
        struct stat si;
        if (stat(b->path, &si) == 0 && !S_ISREG(si.st_mode))
            return trn_errorf(e, "--output %s: %s is %s; only a regular file or a new path can be an output "
                              "(write to a file, then copy it there)", b->name, b->path, file_kind(si.st_mode));
        target_key(b->path, keys[i], sizeof keys[i]);
        for (int j = 0; j < i; ++j) {
            bool same = !strcmp(b->path, a->out[j].path) || (keys[i][0] && !strcmp(keys[i], keys[j]));
            if (same)
                return trn_errorf(e, "--output %s and --output %s name the same file %s", a->out[j].name, b->name,
                                  b->path);
        }
    }
    return 0;
}

/* After the program is loaded, before inputs and the run: every --output
 * names a tensor of the program and a core of the run. */
int cli_check_output_tensors(const run_args *a, trnsim_sim *s, trn_error *e) {
    uint32_t cores = (uint32_t)trnsim_cores(s);
    for (int i = 0; i < a->n_out; ++i) {
        const binding *b = &a->out[i];
        trnsim_tensor t;
        if (trnsim_tensor_find(s, b->name, &t)) {
            cli_api_error(e);
            return trn_error_prefix(e, "--output %s", b->name);
        }
        if (b->core >= (int)cores)
            return trn_errorf(e, "--output %s@%d: the run has %u core%s (0 .. %u)", b->name, b->core, cores,
                              cores == 1 ? "" : "s", cores - 1);
    }
    return 0;
}

/* ---- writing a temporary ---- */

/* "DIR/.BASE.trnsim-XXXXXX" in the target's own directory, so the final
 * rename never crosses a file system. */
static int temp_template(binding *b, trn_error *e) {
    const char *slash = strrchr(b->path, '/');
    int dirlen = slash ? (int)(slash - b->path) + 1 : 0;
    const char *base = slash ? slash + 1 : b->path;
    int n = snprintf(b->tmp, sizeof b->tmp, "%.*s.%s.trnsim-XXXXXX", dirlen, b->path, base);
    if (n < 0 || (size_t)n >= sizeof b->tmp) return trn_errorf(e, "--output %s: path too long: %s", b->name, b->path);
    return 0;
}

/* The new file gets the old file's permissions, or the usual 0666 & ~umask. */
static void set_mode(int fd, const char *path) {
    struct stat st;
    mode_t mode;
    if (stat(path, &st) == 0) mode = st.st_mode & 07777;
    else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0) { /* the file stays 0600: private, still correct */
    }
}

/* mkostemp opens with O_CREAT|O_EXCL under a random name: a planted file or
 * symlink of that name makes it pick another, never follow. */
static int create_temp(int idx, binding *b, int *fd, trn_error *e) {
    if (temp_template(b, e)) return -1;
    sigset_t old;
    block_signals(true, &old);
    *fd = mkostemp(b->tmp, O_CLOEXEC);
    if (*fd >= 0) temp_live[idx] = 1;
    block_signals(false, &old);
    if (*fd < 0) {
        int err = errno;
        return trn_errorf(e, "--output %s: cannot create a temporary file next to %s: %s", b->name, b->path,
                          strerror(err));
    }
    set_mode(*fd, b->path);
    return 0;
}

static int drain_run(void *ctx, uint8_t *bytes, size_t len, trn_error *e) {
    return trn_npy_out_write(ctx, bytes, len, e);
}

/* The header, then each core's tensor straight from simulator memory. */
static int write_npy(trnsim_sim *s, const run_args *a, const binding *b, int fd, trn_error *e) {
    trnsim_tensor t;
    if (trnsim_tensor_find(s, b->name, &t)) return cli_api_error(e);
    uint32_t cores = (uint32_t)trnsim_cores(s);
    bool stacked = b->core < 0 && cores > 1;
    int64_t shape[TRN_NPY_MAX_DIMS];
    int ndim = t.ndim;
    memcpy(shape + (stacked ? 1 : 0), t.shape, sizeof(int64_t) * (size_t)t.ndim);
    if (stacked) {
        shape[0] = cores;
        ++ndim;
    }
    trn_npy_out o;
    if (trn_npy_out_begin(&o, fd, b->path, (trn_dtype)t.dtype_id, a->raw_bits, ndim, shape, e)) {
        trn_npy_out_abandon(&o);
        return -1;
    }
    trn_sim *hs = trn_embed_host_sim(s);
    int rc = 0;
    for (uint32_t c = 0; c < (stacked ? cores : 1) && rc == 0; ++c)
        rc = trn_sim_drain_tensor(hs, b->name, stacked ? (int)c : b->core < 0 ? 0 : b->core, drain_run, &o, e);
    if (rc) {
        trn_npy_out_abandon(&o);
        return -1;
    }
    return trn_npy_out_end(&o, e);
}

int cli_save_output(trnsim_sim *s, run_args *a, int idx, trn_error *e) {
    binding *b = &a->out[idx];
    int fd;
    if (create_temp(idx, b, &fd, e)) return -1;
    int rc = write_npy(s, a, b, fd, e);
    if (close(fd) != 0 && rc == 0) rc = trn_errorf(e, "%s: close failed: %s", b->path, strerror(errno));
    return rc ? -1 : 0;
}

void cli_remove_temps(run_args *a) {
    for (int i = 0; i < a->n_out; ++i)
        if (temp_live[i]) {
            unlink(a->out[i].tmp);
            temp_live[i] = 0;
        }
}

/* ---- commit ---- */

typedef enum { STEP_NONE, STEP_CREATED, STEP_EXCHANGED, STEP_BACKED_UP } commit_step;

/* An existing target is swapped with its temporary (RENAME_EXCHANGE): the
 * old file then sits under the temporary name until every output is in
 * place. Where the file system cannot exchange, a hard link keeps the old
 * file (PATH.TMP~) while the new one is renamed over it. */
static int replace_one(binding *b, commit_step *step, trn_error *e) {
    struct stat st;
    if (lstat(b->path, &st) != 0) {
        if (renameat2(AT_FDCWD, b->tmp, AT_FDCWD, b->path, RENAME_NOREPLACE) == 0) return *step = STEP_CREATED, 0;
        if (errno != EINVAL && errno != ENOSYS) goto fail;
        if (link(b->tmp, b->path) != 0) goto fail; /* link never replaces */
        unlink(b->tmp);
        return *step = STEP_CREATED, 0;
    }
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
        return trn_errorf(e, "--output %s: %s became %s during the run; nothing was replaced", b->name, b->path,
                          file_kind(st.st_mode));
    }
    if (renameat2(AT_FDCWD, b->tmp, AT_FDCWD, b->path, RENAME_EXCHANGE) == 0) return *step = STEP_EXCHANGED, 0;
    if (errno != EINVAL && errno != ENOSYS) goto fail;
    snprintf(b->bak, sizeof b->bak, "%s~", b->tmp);
    if (link(b->path, b->bak) != 0) goto fail;
    if (rename(b->tmp, b->path) != 0) {
        int err = errno;
        unlink(b->bak);
        errno = err;
        goto fail;
    }
    return *step = STEP_BACKED_UP, 0;
fail:
    return trn_errorf(e, "--output %s: cannot put the output in place at %s: %s; no output file was changed",
                      b->name, b->path, strerror(errno));
}

/* Undo one committed output: the old file returns, the new one goes. */
static void undo_one(binding *b, commit_step step) {
    if (step == STEP_CREATED) unlink(b->path);
    else if (step == STEP_EXCHANGED) renameat2(AT_FDCWD, b->tmp, AT_FDCWD, b->path, RENAME_EXCHANGE);
    else if (step == STEP_BACKED_UP) rename(b->bak, b->path);
}

int cli_commit_outputs(run_args *a, trn_error *e) {
    static commit_step steps[MAX_FILES];
    sigset_t old;
    block_signals(true, &old); /* a signal now would have to choose between old and new files */
    int rc = 0, done = 0;
    for (; done < a->n_out && rc == 0; ++done) {
        steps[done] = STEP_NONE;
        rc = replace_one(&a->out[done], &steps[done], e);
    }
    if (rc) done--;
    for (int i = done - 1; rc && i >= 0; --i) undo_one(&a->out[i], steps[i]);
    for (int i = 0; i < a->n_out; ++i) {
        if (rc) unlink(a->out[i].tmp);
        else if (steps[i] == STEP_EXCHANGED) cli_drop_old_file(a->out[i].tmp); /* the old file, after the swap */
        else if (steps[i] == STEP_BACKED_UP) cli_drop_old_file(a->out[i].bak);
        temp_live[i] = 0;
    }
    block_signals(false, &old);
    return rc;
}
