/* libFuzzer: the .npy readers on a file holding the input (a memfd, so no
 * disk is touched). The whole-array reader runs plain and with a header
 * check; then every dtype converts whole, and for one of them (the
 * input's last byte picks it) the whole-array conversion is compared
 * with the streaming reader (npy_stream.h) fed in uneven runs from the
 * same file and from a pipe. The two must agree on success, bytes and
 * message: the streaming reader is what `--input` uses, and it must
 * convert a file the same whether it arrives in one piece or in chunks. */
#define _GNU_SOURCE
#include "fuzz_common.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "npy/npy.h"

static int small_only(const trn_npy *h, void *ctx, trn_error *e) {
    (void)ctx;
    return h->count > (1u << 20) ? trn_errorf(e, "too large for the fuzzer") : 0;
}

/* Runs of 1, 2, 3 ... elements (the seed varies the first), so that every
 * run boundary falls somewhere different inside a conversion. */
static int stream_into(const char *path, trn_dtype dt, uint8_t *dst, size_t count, unsigned seed,
                       trn_error *e) {
    trn_npy_in in;
    if (trn_npy_in_open(&in, path, small_only, NULL, e)) return -1;
    int rc = trn_npy_in_plan(&in, dt, e);
    size_t done = 0, run = 1 + seed % 7;
    while (rc == 0 && done < count) {
        size_t k = run < count - done ? run : count - done;
        rc = trn_npy_in_read(&in, dst + done * in.plan.dst_item, k * in.plan.dst_item, e);
        done += k;
        run = run * 2 + 1;
    }
    if (rc == 0) rc = trn_npy_in_finish(&in, e);
    trn_npy_in_close(&in);
    return rc;
}

/* The input through a pipe, reopened by path as `--input /dev/stdin` would be. */
static int stream_from_pipe(const uint8_t *data, size_t size, trn_dtype dt, uint8_t *dst,
                            size_t count, trn_error *e) {
    int p[2];
    if (pipe(p) != 0) abort();
    if (fcntl(p[1], F_SETPIPE_SZ, 1 << 20) < 0 && size > 65536) abort();
    if (write(p[1], data, size) != (ssize_t)size) abort();
    close(p[1]);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", p[0]);
    int rc = stream_into(path, dt, dst, count, (unsigned)size, e);
    close(p[0]);
    return rc;
}

/* Every dtype converts whole; the one the input's last byte picks also
 * streams (all 20 streamed would cost the fuzzer most of its speed). */
static void convert_dtype(const trn_npy *n, const char *path, const uint8_t *data, size_t size,
                          trn_dtype dt, bool stream) {
    size_t bytes = n->count * 8 + 1; /* wide enough for any dtype */
    uint8_t *whole = calloc(1, bytes), *streamed = calloc(1, bytes), *piped = calloc(1, bytes);
    if (!whole || !streamed || !piped) abort();
    trn_error e1, e2, e3;
    int rc1 = trn_npy_to_tensor(n, dt, n->ndim, n->shape, whole, &e1);
    if (stream) {
        int rc2 = stream_into(path, dt, streamed, n->count, size ? data[0] : 0, &e2);
        int rc3 = stream_from_pipe(data, size, dt, piped, n->count, &e3);
        if ((rc1 == 0) != (rc2 == 0) || (rc1 == 0) != (rc3 == 0)) abort();
        if (rc1 == 0 && (memcmp(whole, streamed, bytes) != 0 || memcmp(whole, piped, bytes) != 0))
            abort();
        if (rc1 != 0 && strcmp(e1.msg, e2.msg) != 0) abort();
    }
    free(whole);
    free(streamed);
    free(piped);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("fuzz.npy", 0);
        if (fd < 0) abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) abort();
    trn_npy n;
    trn_error e;
    if (trn_npy_read_checked(path, small_only, NULL, &n, &e) == 0) {
        int streamed = size ? data[size - 1] % TRN_DT_COUNT : 0;
        for (int dt = 0; dt < TRN_DT_COUNT; ++dt)
            convert_dtype(&n, path, data, size, (trn_dtype)dt, dt == streamed);
        trn_npy_free(&n);
    }
    return 0;
}
