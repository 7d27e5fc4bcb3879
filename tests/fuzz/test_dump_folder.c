/* fuzz_dump's packed folders (fuzz/dump_folder.c): unpacking into an empty
 * folder gives the known trees below (the file system's answers to "//",
 * ".", a file where a folder is needed, repeats, cut records), and the kept
 * folder, changed only where inputs differ, is the same tree as a fresh
 * unpacking after every input of a long random sequence. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>

#include "../../fuzz/dump_folder.h"

static char root[PATH_MAX / 2], kept[PATH_MAX], fresh[PATH_MAX];

/* ---- inputs ---- */

typedef struct {
    uint8_t b[4096];
    size_t n;
} input;

static void put(input *in, const char *name, const char *data, uint32_t len) {
    size_t n = strlen(name);
    in->b[in->n++] = (uint8_t)n;
    memcpy(in->b + in->n, name, n);
    in->n += n;
    for (int i = 0; i < 4; ++i) in->b[in->n++] = (uint8_t)(len >> (8 * i));
    size_t have = strlen(data);
    memcpy(in->b + in->n, data, have < len ? have : len);
    in->n += have < len ? have : len;
}

/* An input of (name, data) pairs ended by NULL; the program byte is left
 * off, as fuzz_dump passes the records only. */
static input make(const char *name, ...) {
    input in = {.n = 0};
    va_list ap;
    va_start(ap, name);
    for (const char *nm = name; nm; nm = va_arg(ap, const char *)) {
        const char *data = va_arg(ap, const char *);
        put(&in, nm, data, (uint32_t)strlen(data));
    }
    va_end(ap);
    return in;
}

/* ---- a tree as text: "a/ a/b=xy c=" (folders end in '/'), sorted ---- */

static char tree_buf[8192];
static size_t tree_root;
static char *tree_items[256];
static size_t tree_n;

static int tree_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)flag;
    if (ftw->level == 0) return 0;
    char item[512];
    const char *rel = path + tree_root + 1;
    if (S_ISDIR(st->st_mode)) {
        snprintf(item, sizeof item, "%s/", rel);
    } else {
        FILE *f = fopen(path, "rb");
        char data[256] = {0};
        size_t got = f ? fread(data, 1, sizeof data - 1, f) : 0;
        if (f) fclose(f);
        data[got] = 0;
        snprintf(item, sizeof item, "%s=%s", rel, data);
    }
    assert_true(tree_n < 256);
    tree_items[tree_n++] = strdup(item);
    return 0;
}

static int by_text(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *tree(const char *dir) {
    tree_n = 0;
    tree_root = strlen(dir);
    nftw(dir, tree_one, 16, FTW_PHYS);
    qsort(tree_items, tree_n, sizeof *tree_items, by_text);
    tree_buf[0] = 0;
    for (size_t i = 0; i < tree_n; ++i) {
        if (i) strcat(tree_buf, " ");
        strcat(tree_buf, tree_items[i]);
        free(tree_items[i]);
    }
    return tree_buf;
}

/* The input gives want both fresh and in the kept folder (which holds the
 * previous case's tree). */
static void expect(input in, const char *want) {
    folder_unpack_fresh(in.b, in.n, fresh);
    assert_string_equal(tree(fresh), want);
    folder_unpack(in.b, in.n, kept);
    assert_string_equal(tree(kept), want);
    assert_true(folder_same(fresh, kept));
}

static void test_known_trees(void **state) {
    (void)state;
    expect(make("a", "1", "a/b", "2", NULL), "a=1");      /* a file where a folder is needed */
    expect(make("a/b", "2", "a", "1", NULL), "a/ a/b=2"); /* a folder where a file goes */
    expect(make(".", "x", "a/.", "y", NULL), "a/");       /* "." is a folder: only mkdir */
    expect(make("a//b", "1", "a/./b", "2", "./c", "3", NULL), "a/ a/b=2 c=3");
    expect(make("m", "1", "m", "22", NULL), "m=22"); /* the last of a name wins */
    expect(make("/abs", "1", "x/../y", "2", "a b", "3", "t/", "4", "ok", "5", NULL), "ok=5");
    expect(make("x/y/z", "deep", "x/w", "", NULL), "x/ x/w= x/y/ x/y/z=deep");
    expect(make(NULL), "");
    /* a record whose data runs past the end keeps what there is */
    input cut = {.n = 0};
    put(&cut, "f", "abc", 100);
    expect(cut, "f=abc");
    /* a header that does not fit ends the input */
    input stop = make("g", "1", NULL);
    memcpy(stop.b + stop.n, "\x05hi", 3);
    stop.n += 3;
    expect(stop, "g=1");
}

/* The kept folder after each of many inputs whose names share parts, so
 * files become folders and back, against a fresh unpacking. */
static void test_kept_matches_fresh(void **state) {
    (void)state;
    static const char *const parts[] = {"a", "b", ".", "", "c", "x.y"};
    static const char *const datas[] = {"", "x", "xy", "y"};
    uint64_t r = 0x9e3779b97f4a7c15ull;
    for (int k = 0; k < 1500; ++k) {
        input in = {.n = 0};
        int records = (int)((r >> 7) % 8);
        for (int i = 0; i < records; ++i) {
            char name[64] = "";
            int depth = 1 + (int)((r >> 11) % 4);
            for (int d = 0; d < depth; ++d) {
                r ^= r << 13, r ^= r >> 7, r ^= r << 17;
                if (d) strcat(name, "/");
                strcat(name, parts[r % 6]);
            }
            if (!name[0]) strcpy(name, "a");
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            const char *data = datas[r % 4];
            put(&in, name, data, (uint32_t)strlen(data));
        }
        folder_unpack_fresh(in.b, in.n, fresh);
        folder_unpack(in.b, in.n, kept);
        if (!folder_same(fresh, kept)) fail_msg("input %d: kept %s, fresh %s", k, kept, fresh);
    }
}

static int setup(void **state) {
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/dump_folder.XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(root)) return -1;
    snprintf(kept, sizeof kept, "%s/kept", root);
    snprintf(fresh, sizeof fresh, "%s/fresh", root);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    folder_remove(root);
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_trees),
        cmocka_unit_test(test_kept_matches_fresh),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
