/* A command-line face of host/npy.c for check_numpy.py, which drives it and
 * compares with numpy.save / numpy.load.
 *
 *   npy_tool write OUT DESCR [DIM...]              raw data on stdin -> trn_npy_write
 *   npy_tool read IN RAWOUT                        prints "DESCR D0 D1 ...", data -> RAWOUT
 *   npy_tool save-tensor OUT DTYPE RAW [DIM...]    tensor bytes on stdin -> from_tensor -> write
 *   npy_tool load-tensor IN DTYPE RAWOUT [DIM...]  read -> to_tensor -> tensor bytes in RAWOUT
 *
 * DTYPE is a name trn_dtype_from_name knows; RAW is 0 or 1. Errors go to
 * stderr as the library wrote them, exit status 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "npy/npy.h"

static int fail(const trn_error *e) {
    fprintf(stderr, "%s\n", e->msg);
    return 1;
}

static int parse_dims(int argc, char **argv, int *ndim, int64_t *shape, size_t *count) {
    if (argc > TRN_NPY_MAX_DIMS) return -1;
    *ndim = argc;
    *count = 1;
    for (int i = 0; i < argc; i++) {
        shape[i] = strtoll(argv[i], NULL, 10);
        *count *= (size_t)shape[i];
    }
    return 0;
}

static void *read_stdin(size_t *n) {
    size_t cap = 1 << 16, len = 0, k;
    unsigned char *b = malloc(cap);
    while (b && (k = fread(b + len, 1, cap - len, stdin)) > 0) {
        len += k;
        if (len == cap) {
            unsigned char *nb = realloc(b, cap *= 2);
            if (!nb) free(b);
            b = nb;
        }
    }
    *n = len;
    return b;
}

static int put_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = n ? fwrite(p, 1, n, f) : 0;
    return (fclose(f) == 0 && w == n) ? 0 : -1;
}

static int cmd_write(int argc, char **argv) {
    int ndim;
    int64_t shape[TRN_NPY_MAX_DIMS];
    size_t count, n;
    trn_error e;
    if (argc < 2 || parse_dims(argc - 2, argv + 2, &ndim, shape, &count)) return 2;
    void *data = read_stdin(&n);
    int rc = trn_npy_write(argv[0], argv[1], ndim, shape, data, &e);
    free(data);
    return rc ? fail(&e) : 0;
}

static int cmd_read(int argc, char **argv) {
    trn_npy a;
    trn_error e;
    if (argc != 2) return 2;
    if (trn_npy_read(argv[0], &a, &e)) return fail(&e);
    printf("%s", a.descr);
    for (int i = 0; i < a.ndim; i++) printf(" %lld", (long long)a.shape[i]);
    printf("\n");
    int rc = put_file(argv[1], a.data, a.count * a.item_size);
    trn_npy_free(&a);
    return rc ? 1 : 0;
}

static int cmd_save_tensor(int argc, char **argv) {
    int ndim;
    int64_t shape[TRN_NPY_MAX_DIMS];
    size_t count, n;
    trn_dtype dt;
    trn_error e;
    if (argc < 3 || parse_dims(argc - 3, argv + 3, &ndim, shape, &count)) return 2;
    if (trn_dtype_from_name(argv[1], &dt, &e)) return fail(&e);
    void *src = read_stdin(&n), *out;
    const char *descr;
    if (n != count * trn_dtype_width(dt)) {
        fprintf(stderr, "stdin has %zu bytes, expected %zu\n", n, count * trn_dtype_width(dt));
        free(src);
        return 2;
    }
    int rc = trn_npy_from_tensor(dt, src, count, strcmp(argv[2], "1") == 0, &out, &descr, &e);
    if (rc == 0) rc = trn_npy_write(argv[0], descr, ndim, shape, out, &e);
    free(src);
    if (rc == 0) free(out);
    return rc ? fail(&e) : 0;
}

static int cmd_load_tensor(int argc, char **argv) {
    int ndim;
    int64_t shape[TRN_NPY_MAX_DIMS];
    size_t count;
    trn_dtype dt;
    trn_npy a;
    trn_error e;
    if (argc < 3 || parse_dims(argc - 3, argv + 3, &ndim, shape, &count)) return 2;
    if (trn_dtype_from_name(argv[1], &dt, &e)) return fail(&e);
    if (trn_npy_read(argv[0], &a, &e)) return fail(&e);
    size_t bytes = count * trn_dtype_width(dt);
    void *dst = malloc(bytes ? bytes : 1);
    int rc = trn_npy_to_tensor(&a, dt, ndim, shape, dst, &e);
    trn_npy_free(&a);
    if (rc == 0 && put_file(argv[2], dst, bytes))
        rc = 1, snprintf(e.msg, sizeof e.msg, "cannot write %s", argv[2]);
    free(dst);
    return rc ? fail(&e) : 0;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "write") == 0) return cmd_write(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "read") == 0) return cmd_read(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "save-tensor") == 0)
        return cmd_save_tensor(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "load-tensor") == 0)
        return cmd_load_tensor(argc - 2, argv + 2);
    fprintf(stderr, "usage: npy_tool write|read|save-tensor|load-tensor ... (see npy_tool.c)\n");
    return 2;
}
