/* The one guard for every file trnsim writes (outfile.h). */
#define _GNU_SOURCE
#include "common/common.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* ---- the checks before the run ---- */

static const char *kind_of(mode_t m) {
    if (S_ISREG(m)) return "a regular file";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

/* The folder a path's file goes in and its last component ("out/" names
 * out, in the folder "."). */
static void split(const char *path, char *dir, size_t dlen, char *base, size_t blen) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') --n;
    const char *slash = memrchr(path, '/', n);
    if (!slash)
        snprintf(dir, dlen, ".");
    else if (slash == path)
        snprintf(dir, dlen, "/");
    else
        snprintf(dir, dlen, "%.*s", (int)(slash - path), path);
    const char *b = slash ? slash + 1 : path;
    snprintf(base, blen, "%.*s", (int)(n - (size_t)(b - path)), b);
}

/* What a path names, for comparing: its folder resolved (symlinks, "..")
 * and its last component, and the file's device and inode where it exists. */
typedef struct file_id {
    char key[PATH_MAX + 256];
    bool exists;
    dev_t dev;
    ino_t ino;
} file_id;

static void identify(const char *path, file_id *id) {
    char dir[PATH_MAX], base[256], real[PATH_MAX];
    struct stat st;
    split(path, dir, sizeof dir, base, sizeof base);
    if (realpath(dir, real))
        snprintf(id->key, sizeof id->key, "%s/%s", strcmp(real, "/") ? real : "", base);
    else
        snprintf(id->key, sizeof id->key, "%s", path);
    id->exists = stat(path, &st) == 0;
    id->dev = id->exists ? st.st_dev : 0;
    id->ino = id->exists ? st.st_ino : 0;
}

static bool same_file(const char *a, const file_id *ia, const char *b, const file_id *ib) {
    return !strcmp(a, b) || !strcmp(ia->key, ib->key) ||
           (ia->exists && ib->exists && ia->dev == ib->dev && ia->ino == ib->ino);
}

/* The target's own kind: a regular file or a new path (a directory, new or
 * existing, for a dump). */
static int check_kind(const trn_out_target *t, trn_error *e) {
    struct stat st;
    if (stat(t->path, &st) != 0) return 0;
    if (t->kind == TRN_OUT_DIR && !S_ISDIR(st.st_mode))
        return trn_errorf(e, "%s: %s exists and is %s; name a new directory (or an empty one)",
                          t->option, t->path, kind_of(st.st_mode));
    if (t->kind == TRN_OUT_FILE && !S_ISREG(st.st_mode))
        return trn_errorf(
            e,
            "%s: %s is %s; only a regular file or a new path can be an output (write to a file, "
            "then copy it there%s)",
            t->option, t->path, kind_of(st.st_mode),
            strncmp(t->option, "--trace", 7) && strncmp(t->option, "--timeline", 10)
                ? ""
                : "; - writes to standard error");
    return 0;
}

/* "--output y=PATH", "--trace PATH": an option and its file, as typed. */
static char sep(const trn_out_target *t) {
    return strncmp(t->option, "--output", 8) && strncmp(t->option, "--dump-at", 9) ? ' ' : '=';
}

static int folder_error(const trn_out_target *t, const char *dir, int err, trn_error *e) {
    if (t->kind == TRN_OUT_DIR)
        return trn_errorf(
            e, "%s%c%s: cannot create a directory in %s (%s); name a directory in a writable place",
            t->option, sep(t), t->path, dir, strerror(err));
    return trn_errorf(
        e,
        "%s%c%s: cannot create it: %s (the folder %s); name a path in a folder that exists and "
        "takes new files",
        t->option, sep(t), t->path, strerror(err), dir);
}

/* Its folder: there, a folder, and able to take a new file now (a
 * read-only file system, a folder without write permission). */
static int check_folder(const trn_out_target *t, trn_error *e) {
    char dir[PATH_MAX], base[256];
    struct stat st;
    split(t->path, dir, sizeof dir, base, sizeof base);
    if (stat(dir, &st) != 0) return folder_error(t, dir, errno, e);
    if (!S_ISDIR(st.st_mode)) return folder_error(t, dir, ENOTDIR, e);
    struct statvfs vfs = {0};
    if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) return folder_error(t, dir, EROFS, e);
    if (access(dir, W_OK | X_OK) != 0) return folder_error(t, dir, errno, e);
    return 0;
}

int trn_outfile_check(const trn_out_target *t, size_t nt, const trn_in_file *in, size_t ni,
                      trn_error *e) {
    file_id *ids = calloc(nt + ni + 1, sizeof *ids);
    if (!ids) return trn_errorf(e, "out of memory checking the output files");
    file_id *inids = ids + nt;
    int rc = 0;
    for (size_t k = 0; k < ni; ++k) identify(in[k].path, &inids[k]);
    for (size_t i = 0; i < nt && !rc; ++i) {
        if (!strcmp(t[i].path, "-")) continue;
        rc = check_kind(&t[i], e) || check_folder(&t[i], e);
        if (rc) break;
        identify(t[i].path, &ids[i]);
        for (size_t j = 0; j < i && !rc; ++j)
            if (strcmp(t[j].path, "-") && same_file(t[i].path, &ids[i], t[j].path, &ids[j]))
                rc = trn_errorf(e, "%s and %s name the same file %s; give each its own file",
                                t[j].option, t[i].option, t[i].path);
        for (size_t k = 0; k < ni && !rc; ++k)
            if (inids[k].exists && same_file(t[i].path, &ids[i], in[k].path, &inids[k]))
                rc = trn_errorf(
                    e,
                    "%s %s and %s %s are the same file: the run would overwrite what it reads; "
                    "name another file for %s",
                    t[i].option, t[i].path, in[k].option, in[k].path, t[i].option);
    }
    free(ids);
    return rc ? -1 : 0;
}

/* ---- the temporaries, and what a signal removes ---- */

#define LIVE_MAX 1024
static trn_outfile *volatile live[LIVE_MAX];

static void block_signals(bool block, sigset_t *old) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigprocmask(block ? SIG_BLOCK : SIG_SETMASK, block ? &set : old, block ? old : NULL);
}

void trn_outfile_signal_cleanup(void) {
    for (int i = 0; i < LIVE_MAX; ++i) {
        trn_outfile *o = live[i];
        if (o && o->named) unlink(o->tmp);
    }
}

static void track(trn_outfile *o) {
    o->slot = -1;
    for (int i = 0; i < LIVE_MAX && o->slot < 0; ++i)
        if (!live[i]) live[i] = o, o->slot = i;
}

static void untrack(trn_outfile *o) {
    if (o->slot >= 0) live[o->slot] = NULL;
    o->slot = -1;
}

/* The new file gets the old file's permissions, or the usual 0666 & ~umask. */
static void set_mode(int fd, const char *path) {
    struct stat st;
    mode_t mode;
    if (stat(path, &st) == 0)
        mode = st.st_mode & 07777;
    else {
        mode_t mask = umask(0);
        umask(mask);
        mode = 0666 & ~mask;
    }
    if (fchmod(fd, mode) != 0) { /* the file stays 0600: private, still correct */
    }
}

static int hidden_name(trn_outfile *o, trn_error *e) {
    char dir[PATH_MAX], base[256];
    split(o->path, dir, sizeof dir, base, sizeof base);
    /* at most 200 bytes of the name: the temporary's own name (and its ~
     * link) must stay within NAME_MAX for any target name that does */
    int n = snprintf(o->tmp, sizeof o->tmp, "%s/.%.200s.trnsim-XXXXXX", dir, base);
    if (n < 0 || (size_t)n >= sizeof o->tmp)
        return trn_errorf(e, "%s: path too long: %s", o->option, o->path);
    return 0;
}

/* Test hook (docs/internals/architecture.md, "Test hooks"): with
 * TRNSIM_TEST_NO_TMPFILE=1 every temporary takes the path of a file system
 * without O_TMPFILE, so the tests can run the mkostemp fallback on any
 * file system. Read here only. */
static int open_unnamed(const char *dir) {
    const char *no = getenv("TRNSIM_TEST_NO_TMPFILE");
    if (no && !strcmp(no, "1")) return errno = EOPNOTSUPP, -1;
    return open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
}

int trn_outfile_create(trn_outfile *o, const char *option, const char *path, trn_error *e) {
    *o = (trn_outfile){.option = option, .path = path, .fd = -1, .slot = -1};
    char dir[PATH_MAX], base[256];
    split(path, dir, sizeof dir, base, sizeof base);
    if (hidden_name(o, e)) return -1;
    sigset_t old;
    block_signals(true, &old);
    track(o);
    bool tracked = o->slot >= 0; /* untrack below forgets it */
    o->fd = open_unnamed(dir);
    o->unnamed = o->fd >= 0;
    if (o->fd < 0 && tracked) { /* no O_TMPFILE here: an exclusive, unguessable name */
        o->fd = mkostemp(o->tmp, O_CLOEXEC);
        o->named = o->fd >= 0;
    }
    int err = errno;
    if (o->fd < 0) untrack(o);
    block_signals(false, &old);
    if (o->fd < 0)
        return trn_errorf(e, "%s: cannot create a file next to %s: %s", option, path,
                          tracked ? strerror(err) : "too many files at once");
    set_mode(o->fd, path);
    return 0;
}

/* A name for an unnamed temporary, beside its target, at the commit. */
static int link_name(trn_outfile *o) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->fd);
    size_t n = strlen(o->tmp);
    for (int tries = 0; tries < 100; ++tries) {
        static const char digits[] =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t r = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 20 ^
                     (uint64_t)tries;
        for (size_t i = n - 6; i < n; ++i, r /= 62) o->tmp[i] = digits[r % 62];
        int rc = linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW);
        if (rc != 0 && errno == ENOENT)
            rc = linkat(o->fd, "", AT_FDCWD, o->tmp, AT_EMPTY_PATH); /* no /proc */
        if (rc == 0) return o->named = 1, 0;
        if (errno != EEXIST) return -1;
        memcpy(o->tmp + n - 6, "XXXXXX", 6);
    }
    errno = EEXIST;
    return -1;
}

/* Named and closed: a failure to close (a full disk found late) is the
 * file's failure. */
static int finish_temp(trn_outfile *o, trn_error *e) {
    if (o->unnamed && !o->named && link_name(o) != 0)
        return trn_errorf(e,
                          "%s: cannot put the file in place at %s: %s; no output file was changed",
                          o->option, o->path, strerror(errno));
    if (o->fd >= 0) {
        int rc = close(o->fd);
        o->fd = -1;
        if (rc != 0)
            return trn_errorf(e, "%s: writing %s failed: %s", o->option, o->path, strerror(errno));
    }
    return 0;
}

/* An existing target is swapped with its temporary (RENAME_EXCHANGE): the
 * old file then sits under the temporary name until every file is in
 * place. Where the file system cannot exchange, a hard link keeps the old
 * file (TMP~) while the new one is renamed over it. */
static int replace_one(trn_outfile *o, trn_error *e) {
    struct stat st;
    if (lstat(o->path, &st) != 0) {
        if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_NOREPLACE) == 0)
            return o->step = TRN_OUTFILE_CREATED, 0;
        if (errno != EINVAL && errno != ENOSYS) goto fail;
        if (link(o->tmp, o->path) != 0) goto fail; /* link never replaces */
        unlink(o->tmp);
        o->named = 0;
        return o->step = TRN_OUTFILE_CREATED, 0;
    }
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
        return trn_errorf(e, "%s: %s became %s during the run; nothing was replaced", o->option,
                          o->path, kind_of(st.st_mode));
    if (renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_EXCHANGE) == 0)
        return o->step = TRN_OUTFILE_EXCHANGED, 0;
    if (errno != EINVAL && errno != ENOSYS) goto fail;
    snprintf(o->bak, sizeof o->bak, "%s~", o->tmp);
    if (link(o->path, o->bak) != 0) goto fail;
    if (rename(o->tmp, o->path) != 0) {
        int err = errno;
        unlink(o->bak);
        errno = err;
        goto fail;
    }
    return o->step = TRN_OUTFILE_BACKED_UP, 0;
fail:
    return trn_errorf(e, "%s: cannot put the output in place at %s: %s; no output file was changed",
                      o->option, o->path, strerror(errno));
}

/* Undo one committed file: the old file returns, the new one goes. */
static void undo_one(trn_outfile *o) {
    if (o->step == TRN_OUTFILE_CREATED)
        unlink(o->path);
    else if (o->step == TRN_OUTFILE_EXCHANGED)
        renameat2(AT_FDCWD, o->tmp, AT_FDCWD, o->path, RENAME_EXCHANGE);
    else if (o->step == TRN_OUTFILE_BACKED_UP)
        rename(o->bak, o->path);
    o->step = TRN_OUTFILE_NONE;
}

int trn_outfile_commit_all(trn_outfile *const *v, size_t n, void (*drop_old)(const char *path),
                           trn_error *e) {
    sigset_t old;
    block_signals(true, &old); /* a signal now would have to choose between old and new files */
    int rc = 0;
    size_t done = 0;
    for (size_t i = 0; i < n && !rc; ++i) rc = finish_temp(v[i], e);
    for (; done < n && !rc; ++done) {
        v[done]->step = TRN_OUTFILE_NONE;
        rc = replace_one(v[done], e);
    }
    if (rc && done) done--;
    for (size_t i = done; rc && i-- > 0;) undo_one(v[i]);
    for (size_t i = 0; i < n; ++i) {
        trn_outfile *o = v[i];
        const char *gone = o->step == TRN_OUTFILE_EXCHANGED   ? o->tmp
                           : o->step == TRN_OUTFILE_BACKED_UP ? o->bak
                                                              : NULL;
        if (rc && o->named)
            unlink(o->tmp);
        else if (gone)
            drop_old ? drop_old(gone) : (void)unlink(gone);
        o->named = 0;
        untrack(o);
    }
    block_signals(false, &old);
    return rc;
}

int trn_outfile_commit(trn_outfile *o, trn_error *e) {
    trn_outfile *v[1] = {o};
    return trn_outfile_commit_all(v, 1, NULL, e);
}

void trn_outfile_discard(trn_outfile *o) {
    if (!o->path) return;
    sigset_t old;
    block_signals(true, &old);
    if (o->named) unlink(o->tmp);
    o->named = 0;
    untrack(o);
    block_signals(false, &old);
    if (o->fd >= 0) close(o->fd);
    o->fd = -1;
    o->path = NULL;
}
