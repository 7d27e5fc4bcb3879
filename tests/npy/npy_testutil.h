/* Small file helpers shared by the npy cmocka tests: a private temporary
 * directory per test binary, and raw byte files written without npy.c (so a
 * test file never depends on the code under test). */
#ifndef TRNSIM_TESTS_NPY_TESTUTIL_H
#define TRNSIM_TESTS_NPY_TESTUTIL_H

#define _GNU_SOURCE
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char npy_tmp_dir[256];

/* Create the directory (once per binary). Returns 0 or -1. */
static inline int npy_tmp_setup(void) {
    const char *base = getenv("TMPDIR");
    snprintf(npy_tmp_dir, sizeof npy_tmp_dir, "%s/trnsim_npy_XXXXXX",
             base && base[0] ? base : "/tmp");
    return mkdtemp(npy_tmp_dir) ? 0 : -1;
}

static inline int npy_rm_cb(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb, (void)flag, (void)ftw;
    return remove(p);
}

static inline void npy_tmp_teardown(void) {
    if (npy_tmp_dir[0]) nftw(npy_tmp_dir, npy_rm_cb, 8, FTW_DEPTH | FTW_PHYS);
}

/* "<tmp>/<name>" in a static rotating buffer (enough for a few at once). */
static inline const char *npy_tmp(const char *name) {
    static char bufs[4][512];
    static int next;
    char *b = bufs[next++ & 3];
    snprintf(b, sizeof bufs[0], "%s/%s", npy_tmp_dir, name);
    return b;
}

static inline int npy_put_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(p, 1, n, f);
    return (fclose(f) == 0 && w == n) ? 0 : -1;
}

/* The whole file, malloc'd; *n its size. NULL if it cannot be read. */
static inline unsigned char *npy_get_bytes(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    unsigned char *b = malloc(cap);
    size_t k;
    while (b && (k = fread(b + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            unsigned char *nb = realloc(b, cap *= 2);
            if (!nb) free(b);
            b = nb;
        }
    }
    fclose(f);
    *n = len;
    return b;
}

/* A hand-made .npy file: magic, version major.0, a length field of 2 bytes
 * (major 1) or 4 bytes (major 2, 3), the header text as given (no padding
 * added), then n data bytes. */
static inline int npy_put_file(const char *path, int major, const char *header, const void *data,
                               size_t n) {
    unsigned char buf[8192];
    size_t hl = strlen(header), at = 0;
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    at = 8;
    buf[at++] = (unsigned char)(hl & 0xff);
    buf[at++] = (unsigned char)(hl >> 8);
    if (major != 1) {
        buf[at++] = (unsigned char)(hl >> 16);
        buf[at++] = (unsigned char)(hl >> 24);
    }
    memcpy(buf + at, header, hl);
    at += hl;
    if (n) memcpy(buf + at, data, n);
    return npy_put_bytes(path, buf, at + n);
}

#endif
