/* fuzz_dump's packed dump folders (dump_folder.h): packing a dump for the
 * seeds, and unpacking an input into the folder the restore reads.
 *
 * Why the folder is kept from one input to the next: writing every file of
 * an input and removing them all again cost more than the restore and the
 * run together, even on tmpfs (about 15 us of system calls a file, twenty
 * files an input). So folder_unpack works out, in memory, the folder an
 * input means (folder_unpack_fresh's result: the same mkdir and fopen "wb"
 * steps, with the file system's rules for "//", "." and a file where a
 * folder is needed), compares it with the folder it left last time, and
 * writes or removes only the difference. FUZZ_DUMP_CHECK=1 compares the
 * folder with a fresh unpacking on every input (fuzz/fuzz_dump.c). */
#define _GNU_SOURCE
#include "dump_folder.h"

#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void folder_remove(const char *dir) { nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS); }

/* ---- packing (seeds) ---- */

static FILE *pack_out;
static size_t pack_root;

static int pack_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)ftw;
    if (flag != FTW_F || !S_ISREG(st->st_mode)) return 0;
    const char *rel = path + pack_root + 1;
    if (!strncmp(rel, "tensors/", 8)) return 0; /* for people; a restore reads none */
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    uint8_t len = (uint8_t)strlen(rel);
    uint32_t n = (uint32_t)st->st_size;
    uint8_t le[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
    fwrite(&len, 1, 1, pack_out);
    fwrite(rel, 1, len, pack_out);
    fwrite(le, 1, 4, pack_out);
    for (int c; (c = fgetc(f)) != EOF;) fputc(c, pack_out);
    fclose(f);
    return 0;
}

void folder_pack(const char *dir, const char *file, uint8_t program) {
    pack_out = fopen(file, "wb");
    if (!pack_out) return;
    fputc(program, pack_out);
    pack_root = strlen(dir);
    nftw(dir, pack_one, 16, FTW_PHYS);
    fclose(pack_out);
}

/* ---- records ---- */

static bool name_ok(const char *name, size_t n) {
    if (n == 0 || name[0] == '/' || memmem(name, n, "..", 2)) return false;
    for (size_t i = 0; i < n; ++i) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-' || c == '/'))
            return false;
    }
    return name[n - 1] != '/';
}

typedef void record_fn(void *ctx, const char *name, size_t n, const uint8_t *data, uint32_t len);

/* Each record with a usable name, in order. */
static void for_each_record(const uint8_t *data, size_t size, record_fn *fn, void *ctx) {
    size_t at = 0;
    while (at < size) {
        size_t n = data[at++];
        if (at + n + 4 > size) return;
        const char *name = (const char *)data + at;
        at += n;
        uint32_t len = (uint32_t)data[at] | (uint32_t)data[at + 1] << 8 |
                       (uint32_t)data[at + 2] << 16 | (uint32_t)data[at + 3] << 24;
        at += 4;
        if (len > size - at) len = (uint32_t)(size - at);
        if (name_ok(name, n)) fn(ctx, name, n, data + at, len);
        at += len;
    }
}

/* ---- the reference: into an empty folder ---- */

static void fresh_record(void *ctx, const char *name, size_t n, const uint8_t *data, uint32_t len) {
    const char *dir = ctx;
    char path[PATH_MAX];
    size_t root = strlen(dir);
    snprintf(path, sizeof path, "%s/%.*s", dir, (int)n, name);
    for (char *q = path + root + 1; (q = strchr(q, '/')) != NULL; ++q) {
        *q = 0;
        mkdir(path, 0700);
        *q = '/';
    }
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data, 1, len, f);
        fclose(f);
    }
}

void folder_unpack_fresh(const uint8_t *data, size_t size, const char *dir) {
    folder_remove(dir);
    mkdir(dir, 0700);
    for_each_record(data, size, fresh_record, (void *)dir);
}

/* ---- the kept folder ---- */

/* A folder's entries (not its root), in the order they were made, so a
 * parent comes before its children; paths are canonical ("a/b", no "." or
 * empty parts) and relative to the root. */
typedef struct {
    uint32_t path, path_len; /* in names */
    bool dir;
    uint32_t data, len; /* in bytes, for a file */
} entry;

typedef struct {
    entry *e;
    size_t n, cap;
    uint32_t *index; /* open addressing: entry number + 1, 0 empty */
    size_t index_cap;
    char *names;
    size_t names_len, names_cap;
    uint8_t *bytes; /* a copy of the input the files' data lie in */
} folder;

static folder have, want; /* on disk now; what this input means */

static void *grow(void *p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return p;
    size_t c = *cap ? *cap : 64;
    while (c < need) c *= 2;
    if (!(p = realloc(p, c * size))) abort();
    *cap = c;
    return p;
}

static size_t hash(const char *s, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ (uint8_t)s[i]) * 1099511628211ull;
    return (size_t)h;
}

static const char *path_of(const folder *f, const entry *x) { return f->names + x->path; }

static entry *find(const folder *f, const char *path, size_t n) {
    if (!f->index_cap) return NULL;
    for (size_t i = hash(path, n) & (f->index_cap - 1); f->index[i];
         i = (i + 1) & (f->index_cap - 1)) {
        entry *x = &f->e[f->index[i] - 1];
        if (x->path_len == n && !memcmp(path_of(f, x), path, n)) return x;
    }
    return NULL;
}

static void index_put(folder *f, size_t k) {
    const entry *x = &f->e[k];
    size_t i = hash(path_of(f, x), x->path_len) & (f->index_cap - 1);
    while (f->index[i]) i = (i + 1) & (f->index_cap - 1);
    f->index[i] = (uint32_t)k + 1;
}

static entry *add(folder *f, const char *path, size_t n, bool dir) {
    if (2 * (f->n + 1) > f->index_cap) {
        free(f->index);
        f->index_cap = f->index_cap ? 2 * f->index_cap : 256;
        if (!(f->index = calloc(f->index_cap, sizeof *f->index))) abort();
        for (size_t k = 0; k < f->n; ++k) index_put(f, k);
    }
    f->e = grow(f->e, &f->cap, f->n + 1, sizeof *f->e);
    f->names = grow(f->names, &f->names_cap, f->names_len + n, 1);
    memcpy(f->names + f->names_len, path, n);
    entry *x = &f->e[f->n];
    *x = (entry){.path = (uint32_t)f->names_len, .path_len = (uint32_t)n, .dir = dir};
    f->names_len += n;
    index_put(f, f->n++);
    return x;
}

static void clear(folder *f) {
    f->n = f->names_len = 0;
    if (f->index) memset(f->index, 0, f->index_cap * sizeof *f->index);
}

/* One record, as fresh_record's system calls would go: every parent part
 * in turn made a folder (mkdir: "." and an existing entry change nothing;
 * a part that is not then a folder stops the path), then the last part
 * written as a file unless it is "." or a folder. */
static void want_record(void *ctx, const char *name, size_t n, const uint8_t *data, uint32_t len) {
    (void)ctx;
    char path[256];
    size_t path_len = 0;
    for (size_t at = 0; at < n;) {
        size_t end = at;
        while (end < n && name[end] != '/') ++end;
        bool last = end == n, dot = end - at == 1 && name[at] == '.';
        if (end > at && !dot) { /* an empty part ("//") or "." names the same folder */
            if (path_len) path[path_len++] = '/';
            memcpy(path + path_len, name + at, end - at);
            path_len += end - at;
            entry *x = find(&want, path, path_len);
            if (last) {
                if (!x) x = add(&want, path, path_len, false);
                if (!x->dir) x->data = (uint32_t)(data - want.bytes), x->len = len;
                return;
            }
            if (!x) x = add(&want, path, path_len, true);
            if (!x->dir) return; /* a file where a folder is needed */
        }
        at = end + 1;
    }
}

static void disk_path(char *out, const char *dir, const folder *f, const entry *x) {
    snprintf(out, PATH_MAX, "%s/%.*s", dir, (int)x->path_len, path_of(f, x));
}

static bool same_file(const entry *a, const entry *b) {
    return !a->dir && !b->dir && a->len == b->len &&
           !memcmp(have.bytes + a->data, want.bytes + b->data, a->len);
}

static void write_file(const char *path, const uint8_t *data, uint32_t len) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    if (fd < 0) return;
    for (uint32_t at = 0; at < len;) {
        ssize_t w = write(fd, data + at, len - at);
        if (w <= 0) break;
        at += (uint32_t)w;
    }
    close(fd);
}

/* Make the disk hold want instead of have. */
static void apply(const char *dir) {
    char path[PATH_MAX];
    for (size_t k = have.n; k-- > 0;) { /* children before their folder */
        const entry *x = &have.e[k], *y = find(&want, path_of(&have, x), x->path_len);
        if (y && y->dir == x->dir) continue;
        disk_path(path, dir, &have, x);
        if (x->dir)
            rmdir(path);
        else
            unlink(path);
    }
    for (size_t k = 0; k < want.n; ++k) {
        const entry *y = &want.e[k], *x = find(&have, path_of(&want, y), y->path_len);
        if (x && x->dir == y->dir && (y->dir || same_file(x, y))) continue;
        disk_path(path, dir, &want, y);
        if (y->dir)
            mkdir(path, 0700);
        else
            write_file(path, want.bytes + y->data, y->len);
    }
}

void folder_unpack(const uint8_t *data, size_t size, const char *dir) {
    static char last_dir[PATH_MAX];
    if (strcmp(dir, last_dir)) { /* a new folder: start from an empty one */
        snprintf(last_dir, sizeof last_dir, "%s", dir);
        folder_remove(dir);
        mkdir(dir, 0700);
        clear(&have);
    }
    clear(&want);
    free(want.bytes);
    if (!(want.bytes = malloc(size ? size : 1))) abort();
    memcpy(want.bytes, data, size);
    for_each_record(want.bytes, size, want_record, NULL);
    apply(dir);
    folder t = have;
    have = want;
    want = t;
}

/* ---- checking ---- */

static const char *cmp_a, *cmp_b;
static size_t cmp_n;
static bool cmp_same;

static uint8_t *file_bytes(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    uint8_t *out = NULL;
    size_t cap = 0;
    *n = 0;
    if (!f) return NULL;
    for (size_t got = 1; got > 0; *n += got) {
        out = grow(out, &cap, *n + 4096, 1);
        got = fread(out + *n, 1, 4096, f);
    }
    fclose(f);
    return out;
}

static int count_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)path, (void)st, (void)flag, (void)ftw;
    cmp_n--;
    return 0;
}

static int compare_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)flag, (void)ftw;
    char other[PATH_MAX];
    snprintf(other, sizeof other, "%s%s", cmp_b, path + strlen(cmp_a));
    struct stat ot;
    cmp_n++;
    if (lstat(other, &ot) || (st->st_mode & S_IFMT) != (ot.st_mode & S_IFMT)) {
        fprintf(stderr, "folder_same: %s has no match %s\n", path, other);
        cmp_same = false;
    } else if (S_ISREG(st->st_mode)) {
        size_t nx, ny;
        uint8_t *x = file_bytes(path, &nx), *y = file_bytes(other, &ny);
        if (nx != ny || (nx && memcmp(x, y, nx))) {
            fprintf(stderr, "folder_same: %s and %s differ\n", path, other);
            cmp_same = false;
        }
        free(x);
        free(y);
    }
    return 0;
}

bool folder_same(const char *a, const char *b) {
    cmp_a = a, cmp_b = b, cmp_n = 0, cmp_same = true;
    nftw(a, compare_one, 16, FTW_PHYS);
    nftw(b, count_one, 16, FTW_PHYS);
    if (cmp_same && cmp_n != 0) fprintf(stderr, "folder_same: %s holds more than %s\n", b, a);
    return cmp_same && cmp_n == 0;
}
