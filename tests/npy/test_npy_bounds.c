/* host/npy/npy.c, bounded cost: the header is checked before any data
 * is read (trn_npy_read_checked), a stream is read at most one byte past
 * its data, a descr holding a NUL is refused, a dimension above 2^32 names
 * the limit. */
#include "npy_testutil.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "npy/npy.h"

static int group_setup(void **state) { return npy_tmp_setup(); }
static int group_teardown(void **state) {
    npy_tmp_teardown();
    return 0;
}

/* A v1 preamble and header for dict (which may hold a NUL: len given),
 * padded like numpy; returns the total length written into buf. */
static size_t v1_header(unsigned char *buf, const char *dict, size_t len) {
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    memcpy(buf + 10, dict, len);
    size_t h = len;
    while ((10 + h + 1) % 64) buf[10 + h++] = ' ';
    buf[10 + h++] = '\n';
    buf[8] = (unsigned char)(h & 0xff);
    buf[9] = (unsigned char)(h >> 8);
    return 10 + h;
}

static void expect_error(const char *path, const char *tail) {
    trn_npy n;
    trn_error e = {{0}};
    char want[TRN_ERROR_MAX];
    assert_int_equal(trn_npy_read(path, &n, &e), -1);
    assert_null(n.data);
    snprintf(want, sizeof want, "%s: %s", path, tail);
    assert_string_equal(e.msg, want);
}

static void test_descr_with_nul(void **state) {
    static const char dict[] = "{'descr': '<f4\0', 'fortran_order': False, 'shape': (1,), }";
    unsigned char buf[256];
    size_t n = v1_header(buf, dict, sizeof dict - 1);
    memset(buf + n, 0, 4);
    const char *p = npy_tmp("nul.npy");
    assert_int_equal(npy_put_bytes(p, buf, n + 4), 0);
    expect_error(
        p, "bad header dict at byte 24: expected a string without NUL bytes, found byte 0x00");
}

static void test_dimension_limit(void **state) {
    static const char over[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967297,), }";
    unsigned char buf[256];
    size_t n = v1_header(buf, over, sizeof over - 1);
    const char *p = npy_tmp("dim.npy");
    assert_int_equal(npy_put_bytes(p, buf, n), 0);
    expect_error(p, "bad header dict at byte 61: expected a dimension of at most 2**32 "
                    "(4294967296), the limit, "
                    "found '4'");
    /* 2^32 itself is read (an empty array: no data) */
    static const char at[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 0), }";
    n = v1_header(buf, at, sizeof at - 1);
    assert_int_equal(npy_put_bytes(p, buf, n), 0);
    trn_npy a;
    trn_error e;
    assert_int_equal(trn_npy_read(p, &a, &e), 0);
    assert_int_equal(a.shape[0], 4294967296ll);
    assert_int_equal(a.count, 0);
    trn_npy_free(&a);
}

typedef struct seen {
    int calls;
    size_t count;
    const void *data;
} seen;

static int refuse(const trn_npy *h, void *ctx, trn_error *e) {
    seen *s = ctx;
    s->calls++;
    s->count = h->count;
    s->data = h->data;
    return trn_errorf(e, "%s: refused by the caller", h->name);
}

static const char big_dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2147483648,), }";

/* A sparse file whose header claims 2^31 float32 (8 GiB of holes): the
 * caller's check sees the header, and nothing is allocated or read. */
static void test_check_before_data_sparse(void **state) {
    unsigned char buf[256];
    size_t n = v1_header(buf, big_dict, sizeof big_dict - 1);
    const char *p = npy_tmp("sparse.npy");
    assert_int_equal(npy_put_bytes(p, buf, n), 0);
    assert_int_equal(truncate(p, (off_t)n + (8ll << 30)), 0);
    seen s = {0};
    trn_npy a;
    trn_error e;
    assert_int_equal(trn_npy_read_checked(p, refuse, &s, &a, &e), -1);
    assert_int_equal(s.calls, 1);
    assert_int_equal(s.count, 1ull << 31);
    assert_null(s.data);
    assert_null(a.data);
    char want[600];
    snprintf(want, sizeof want, "%s: refused by the caller", p);
    assert_string_equal(e.msg, want);
}

/* The same header on a pipe that never ends: reading any data would block
 * for ever, so returning at all shows the check ran first. */
static void test_check_before_data_pipe(void **state) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    unsigned char buf[256];
    size_t n = v1_header(buf, big_dict, sizeof big_dict - 1);
    assert_int_equal(write(fds[1], buf, n), (ssize_t)n);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    seen s = {0};
    trn_npy a;
    trn_error e;
    assert_int_equal(trn_npy_read_checked(path, refuse, &s, &a, &e), -1);
    assert_int_equal(s.calls, 1);
    close(fds[0]);
    close(fds[1]);
}

/* A valid one-element array followed by endless bytes from a writer that
 * never stops: the read ends after one byte past the data. */
static void test_endless_trailing_bytes(void **state) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        signal(SIGPIPE, SIG_DFL);
        static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }";
        unsigned char b[4096];
        size_t n = v1_header(b, dict, sizeof dict - 1);
        memset(b + n, 0x3f, sizeof b - n);
        for (;;)
            if (write(fds[1], b, sizeof b) < 0) _exit(0);
    }
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    expect_error(path, "extra bytes after the data: expected 4 bytes for <f4 (1,), found more");
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descr_with_nul),
        cmocka_unit_test(test_dimension_limit),
        cmocka_unit_test(test_check_before_data_sparse),
        cmocka_unit_test(test_check_before_data_pipe),
        cmocka_unit_test(test_endless_trailing_bytes),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
