/* Dump directories: checked before the run, written under a private name
 * beside the target and renamed into place at the end, so a failed or
 * interrupted dump leaves nothing behind and an existing file is never
 * touched. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump/dump_int.h"

/* 1 when dir is an empty directory, 0 when it holds anything, -1 when it
 * cannot be listed. */
static int dir_is_empty(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *de;
    int empty = 1;
    while (empty && (de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) empty = 0;
    closedir(d);
    return empty;
}

static const char *kind_of(mode_t m) {
    if (S_ISREG(m)) return "a regular file";
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "not a directory";
}

int trn_dump_dir_temp(const char *dir, char *tmp, size_t len, trn_error *e) {
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') --n; /* "out/" names out */
    const char *slash = memrchr(dir, '/', n);
    int dirlen = slash ? (int)(slash - dir) + 1 : 0;
    const char *base = slash ? slash + 1 : dir;
    /* at most 200 bytes of the name, as for output files (common/outfile.c):
     * the private name must stay within NAME_MAX for any target name that does */
    size_t baselen = n - (size_t)(base - dir);
    int w = snprintf(tmp, len, "%.*s.%.*s.trnsim-XXXXXX", dirlen, dir,
                     (int)(baselen < 200 ? baselen : 200), base);
    if (w < 0 || (size_t)w >= len) return trn_errorf(e, "path too long: %s", dir);
    if (!mkdtemp(tmp)) {
        int err = errno;
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%.*s", dirlen ? dirlen : 1, dirlen ? dir : ".");
        return trn_errorf(
            e, "cannot create a directory in %s (%s); name a directory in a writable place", parent,
            strerror(err));
    }
    return 0;
}

int trn_dump_dir_usable(const char *dir, const char *opt, trn_error *e) {
    struct stat st;
    if (!dir[0]) return trn_errorf(e, "%s: the directory name is empty", opt);
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return trn_errorf(e, "%s: %s exists and is %s; name a new directory (or an empty one)",
                              opt, dir, kind_of(st.st_mode));
        int empty = dir_is_empty(dir);
        if (empty < 0) return trn_errorf(e, "%s: cannot list %s (%s)", opt, dir, strerror(errno));
        if (!empty)
            return trn_errorf(
                e,
                "%s: the directory %s exists and is not empty; remove it or name a new directory",
                opt, dir);
    }
    char tmp[PATH_MAX + 64];
    if (trn_dump_dir_temp(dir, tmp, sizeof tmp, e)) return trn_error_prefix(e, "%s", opt);
    rmdir(tmp);
    return 0;
}

int trn_dump_dump_file(const char *dir, const char *path, trn_error *e) {
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT) return 1;
        return trn_errorf(e, "%s: cannot read (%s)", path, strerror(errno));
    }
    /* stat before open: opening a FIFO would block until a writer comes */
    if (!S_ISREG(st.st_mode))
        return trn_errorf(e, "%s is %s; a dump holds regular files only", path,
                          S_ISDIR(st.st_mode) ? "a directory" : kind_of(st.st_mode));
    char real_dir[PATH_MAX], real_file[PATH_MAX];
    if (!realpath(dir, real_dir) || !realpath(path, real_file))
        return trn_errorf(e, "%s: cannot resolve (%s)", path, strerror(errno));
    size_t n = strlen(real_dir);
    if (strncmp(real_file, real_dir, n) || (real_file[n] != '/' && strcmp(real_dir, "/")))
        return trn_errorf(e, "%s leads to %s, outside the dump %s; a dump's files stay inside it",
                          path, real_file, dir);
    return 0;
}

int trn_dump_mkdir(const char *path, trn_error *e) {
    if (mkdir(path, 0777) == 0 || errno == EEXIST) return 0;
    return trn_errorf(e, "cannot create %s (%s)", path, strerror(errno));
}

int trn_dump_dir_commit(const char *tmp, const char *dir, trn_error *e) {
    /* The new directory gets the usual 0777 & ~umask, not mkdtemp's 0700. */
    mode_t mask = umask(0);
    umask(mask);
    if (chmod(tmp, 0777 & ~mask) != 0) { /* it stays private: still correct */
    }
    if (rename(tmp, dir) == 0) return 0;
    int err = errno;
    if (err == ENOTEMPTY || err == EEXIST)
        return trn_errorf(
            e,
            "%s: something was written there during the run; the dump is not kept (name a new "
            "directory)",
            dir);
    return trn_errorf(e, "%s: cannot move the dump into place (%s)", dir, strerror(err));
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void trn_dump_dir_remove(const char *tmp) {
    if (tmp && tmp[0]) nftw(tmp, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}
