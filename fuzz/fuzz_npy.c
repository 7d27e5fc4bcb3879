/* libFuzzer: the .npy reader on a file holding the input (a memfd, so no
 * disk is touched), plain and with a header check, then a load into a
 * tensor of every dtype the input's own shape allows. */
#define _GNU_SOURCE
#include "fuzz_common.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "frontend/npy.h"

static int small_only(const trn_npy *h, void *ctx, trn_error *e) {
    return h->count > (1u << 20) ? trn_errorf(e, "too large for the fuzzer") : 0;
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
        for (int dt = 0; dt < TRN_DT_COUNT; ++dt) {
            size_t w = 8; /* wide enough for any dtype */
            void *dst = malloc(n.count * w + 1);
            trn_npy_to_tensor(&n, (trn_dtype)dt, n.ndim, n.shape, dst, &e);
            free(dst);
        }
        trn_npy_free(&n);
    }
    return 0;
}
