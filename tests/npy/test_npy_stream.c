/* host/npy/npy_stream.c against the whole-array calls of npy.h: for
 * every tensor dtype and every file descr, a file streamed into tensor
 * bytes in runs of assorted sizes (one run, odd runs, runs larger than the
 * conversion buffer) gives the bytes trn_npy_to_tensor gives, or the same
 * error; a tensor streamed out gives the file trn_npy_write gives for
 * trn_npy_from_tensor's data. Also pipes, skipped runs, short and long
 * files, and a refused value in a late chunk. */
#include "npy_testutil.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "arith/arith.h"
#include "npy/npy.h"

static int group_setup(void **state) { return npy_tmp_setup(); }
static int group_teardown(void **state) {
    npy_tmp_teardown();
    return 0;
}

static const char *const DESCRS[] = {"<f2", "<f4", "<f8", "|i1", "<i2", "<i4",
                                     "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"};
#define NDESCRS (sizeof DESCRS / sizeof DESCRS[0])

static uint32_t f2bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { /* xorshift64*: reproducible data */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

/* Bytes that are valid data of descr: small integers for the integer
 * types (most fit any tensor; a few do not, to exercise refusals), random
 * bits for floats (NaNs, infinities and subnormals included). */
static void fill_data(const char *descr, uint8_t *p, size_t count, bool all_fit) {
    size_t item = (size_t)(descr[2] - '0');
    for (size_t i = 0; i < count; ++i) {
        uint64_t r = rnd();
        if (descr[1] == 'f') {
            memcpy(p + i * item, &r, item);
            continue;
        }
        uint64_t v = descr[1] == 'b' ? (r & 1) : (r % 100);
        if (descr[1] == 'i' && (r >> 40) & 1) v = (uint64_t) - (int64_t)v;
        if (!all_fit && i == count - 3) v = descr[1] == 'i' ? (uint64_t) - (int64_t)120 : 250;
        memcpy(p + i * item, &v, item);
    }
}

/* Stream the whole file into dst in runs of run_elems elements (0: one). */
static int stream_into(trn_npy_in *in, uint8_t *dst, size_t bytes, size_t run_elems, uint32_t width,
                       trn_error *e) {
    size_t run = run_elems ? run_elems * width : bytes;
    for (size_t at = 0; at < bytes; at += run) {
        size_t k = bytes - at < run ? bytes - at : run;
        if (trn_npy_in_read(in, dst + at, k, e)) return -1;
    }
    return trn_npy_in_finish(in, e);
}

/* One file into one tensor dtype, whole-array and streamed; same result. */
static void compare_load(const char *path, trn_dtype dt, int64_t n, size_t run_elems) {
    trn_npy whole;
    trn_error e1 = {0}, e2 = {0};
    if (trn_npy_read(path, &whole, &e1)) fail_msg("%s", e1.msg);
    uint32_t w = trn_dtype_width(dt);
    size_t bytes = (size_t)n * w;
    uint8_t *a = malloc(bytes + 1), *b = malloc(bytes + 1);
    memset(a, 0x5A, bytes + 1);
    memset(b, 0x5A, bytes + 1);
    int rc1 = trn_npy_to_tensor(&whole, dt, 1, &n, a, &e1);
    trn_npy_in in;
    if (trn_npy_in_open(&in, path, NULL, NULL, &e2)) fail_msg("%s", e2.msg);
    int rc2 =
        trn_npy_in_plan(&in, dt, &e2) || stream_into(&in, b, bytes, run_elems, w, &e2) ? -1 : 0;
    trn_npy_in_close(&in);
    if (rc1 != rc2)
        fail_msg("%s into %s: whole %d (%s), streamed %d (%s)", whole.descr, trn_dtype_name(dt),
                 rc1, e1.msg, rc2, e2.msg);
    if (rc1)
        assert_string_equal(e1.msg, e2.msg);
    else if (memcmp(a, b, bytes + 1) != 0)
        fail_msg("%s into %s, runs of %zu: streamed bytes differ", whole.descr, trn_dtype_name(dt),
                 run_elems);
    free(a);
    free(b);
    trn_npy_free(&whole);
}

static void every_pair(int64_t n, const size_t *runs, size_t nruns) {
    for (size_t d = 0; d < NDESCRS; ++d) {
        size_t item = (size_t)(DESCRS[d][2] - '0');
        uint8_t *data = malloc((size_t)n * item);
        fill_data(DESCRS[d], data, (size_t)n, false);
        const char *p = npy_tmp("pair.npy");
        trn_error e = {0};
        if (trn_npy_write(p, DESCRS[d], 1, &n, data, &e)) fail_msg("%s", e.msg);
        for (int dt = 0; dt < TRN_DT_COUNT; ++dt)
            for (size_t r = 0; r < nruns; ++r) compare_load(p, (trn_dtype)dt, n, runs[r]);
        free(data);
    }
}

static void test_small_every_pair(void **state) {
    static const size_t runs[] = {0, 1, 3, 7};
    every_pair(37, runs, 4);
}

/* Past the 1 MiB buffer: 300000 elements (2.4 MB as float64), in one run
 * and in runs that straddle the buffer's end. */
static void test_large_every_pair(void **state) {
    static const size_t runs[] = {0, 131071};
    every_pair(300000, runs, 2);
}

/* The first value that does not fit, far past the first chunk, is named
 * with its index in the file, as the whole-array call names it. */
static void test_refusal_in_late_chunk(void **state) {
    int64_t n = 400000;
    int64_t *v = calloc((size_t)n, 8);
    v[350001] = 70000;
    const char *p = npy_tmp("late.npy");
    trn_error e = {0};
    if (trn_npy_write(p, "<i8", 1, &n, v, &e)) fail_msg("%s", e.msg);
    trn_npy_in in;
    uint8_t *dst = malloc((size_t)n * 2);
    assert_int_equal(trn_npy_in_open(&in, p, NULL, NULL, &e), 0);
    assert_int_equal(trn_npy_in_plan(&in, TRN_DT_INT16, &e), 0);
    assert_int_equal(trn_npy_in_read(&in, dst, (size_t)n * 2, &e), -1);
    trn_npy_in_close(&in);
    char want[TRN_ERROR_MAX];
    snprintf(
        want, sizeof want,
        "%s: element 350001 [350001] is 70000, which does not fit int16 (-32768..32767); a <i8 "
        "array loads into a int16 tensor only when every value fits",
        p);
    assert_string_equal(e.msg, want);
    compare_load(p, TRN_DT_INT16, n, 0);
    free(v);
    free(dst);
}

/* A NULL run is skipped: the next run reads the bytes after it. */
static void test_skip(void **state) {
    int64_t n = 10;
    float v[10];
    for (int i = 0; i < 10; ++i) v[i] = (float)i * 1.5f;
    const char *p = npy_tmp("skip.npy");
    trn_error e = {0};
    if (trn_npy_write(p, "<f4", 1, &n, v, &e)) fail_msg("%s", e.msg);
    trn_npy_in in;
    float got[4];
    assert_int_equal(trn_npy_in_open(&in, p, NULL, NULL, &e), 0);
    assert_int_equal(trn_npy_in_plan(&in, TRN_DT_FP32, &e), 0);
    assert_int_equal(trn_npy_in_read(&in, NULL, 16, &e), 0);
    assert_int_equal(trn_npy_in_read(&in, got, 16, &e), 0);
    assert_int_equal(trn_npy_in_read(&in, NULL, 0, &e), 0);
    assert_int_equal(trn_npy_in_finish(&in, &e), -1); /* 2 elements left */
    char want[TRN_ERROR_MAX];
    snprintf(want, sizeof want, "%s: 32 of 40 data bytes were used", p);
    assert_string_equal(e.msg, want);
    assert_int_equal(trn_npy_in_read(&in, NULL, 12, &e), -1); /* more than is left */
    snprintf(want, sizeof want, "%s: 12 more data bytes asked for, 8 left of 40", p);
    assert_string_equal(e.msg, want);
    trn_npy_in_close(&in);
    assert_memory_equal(got, v + 4, 16);
}

/* A pipe: the data arrives in pieces, is skipped through a buffer, and a
 * short stream names how many bytes came. */
static void test_pipe(void **state) {
    int64_t n = 200000;
    double *v = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; ++i) v[i] = (double)i / 3.0;
    const char *p = npy_tmp("pipe_src.npy");
    trn_error e = {0};
    if (trn_npy_write(p, "<f8", 1, &n, v, &e)) fail_msg("%s", e.msg);
    size_t len = 0;
    unsigned char *file = npy_get_bytes(p, &len);
    for (int truncated = 0; truncated < 2; ++truncated) {
        int fds[2];
        assert_int_equal(pipe(fds), 0);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            close(fds[0]);
            size_t end = truncated ? len - 1000 : len;
            for (size_t at = 0; at < end;) {
                ssize_t k = write(fds[1], file + at, end - at < 4097 ? end - at : 4097);
                if (k <= 0) _exit(1);
                at += (size_t)k;
            }
            _exit(0);
        }
        close(fds[1]);
        char path[64];
        snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
        trn_npy_in in;
        float *dst = malloc((size_t)n * 4);
        assert_int_equal(trn_npy_in_open(&in, path, NULL, NULL, &e), 0);
        assert_int_equal(trn_npy_in_plan(&in, TRN_DT_FP32, &e), 0);
        int rc = trn_npy_in_read(&in, NULL, 4000, &e) ||
                         trn_npy_in_read(&in, dst, (size_t)n * 4 - 4000, &e) ||
                         trn_npy_in_finish(&in, &e)
                     ? -1
                     : 0;
        trn_npy_in_close(&in);
        close(fds[0]);
        int status;
        waitpid(pid, &status, 0);
        if (truncated) {
            assert_int_equal(rc, -1);
            char want[TRN_ERROR_MAX];
            snprintf(want, sizeof want,
                     "%s: truncated data: expected 1600000 bytes for <f8 (200000,), found %zu",
                     path, (size_t)1600000 - 1000);
            assert_string_equal(e.msg, want);
        } else {
            assert_int_equal(rc, 0);
            for (int64_t i = 1000; i < n; ++i)
                assert_int_equal(f2bits((float)v[i]), f2bits(dst[i - 1000]));
        }
        free(dst);
    }
    free(file);
    free(v);
}

/* ---- writing ---- */

/* A tensor of dt written by the stream (in runs) and by trn_npy_write of
 * trn_npy_from_tensor's data: the same file, byte for byte. */
static void compare_save(trn_dtype dt, bool raw_bits, int64_t n, size_t run_elems) {
    uint32_t w = trn_dtype_width(dt);
    size_t bytes = (size_t)n * w;
    uint8_t *src = malloc(bytes ? bytes : 1);
    for (size_t i = 0; i < bytes; ++i) src[i] = (uint8_t)rnd();
    void *data;
    const char *descr;
    trn_error e = {0};
    const char *pa = npy_tmp("save_a.npy"), *pb = npy_tmp("save_b.npy");
    if (trn_npy_from_tensor(dt, src, (size_t)n, raw_bits, &data, &descr, &e) ||
        trn_npy_write(pa, descr, 1, &n, data, &e))
        fail_msg("%s", e.msg);
    free(data);
    int fd = open(pb, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    trn_npy_out o;
    int rc = trn_npy_out_begin(&o, fd, pb, dt, raw_bits, 1, &n, &e);
    size_t run = run_elems ? run_elems * w : bytes;
    for (size_t at = 0; rc == 0 && at < bytes; at += run)
        rc = trn_npy_out_write(&o, src + at, bytes - at < run ? bytes - at : run, &e);
    if (rc == 0)
        rc = trn_npy_out_end(&o, &e);
    else
        trn_npy_out_abandon(&o);
    close(fd);
    if (rc) fail_msg("%s", e.msg);
    size_t la = 0, lb = 0;
    unsigned char *a = npy_get_bytes(pa, &la), *b = npy_get_bytes(pb, &lb);
    assert_int_equal(la, lb);
    if (memcmp(a, b, la) != 0)
        fail_msg("%s raw_bits %d runs of %zu: files differ", trn_dtype_name(dt), raw_bits,
                 run_elems);
    free(a);
    free(b);
    free(src);
}

static void test_save_every_dtype(void **state) {
    static const size_t runs[] = {0, 1, 5};
    for (int dt = 0; dt < TRN_DT_COUNT; ++dt)
        for (int raw = 0; raw < 2; ++raw)
            for (size_t r = 0; r < 3; ++r) compare_save((trn_dtype)dt, raw, 23, runs[r]);
    for (int dt = 0; dt < TRN_DT_COUNT; ++dt)
        compare_save((trn_dtype)dt, false, 700000, dt % 2 ? 0 : 262145);
}

/* More or fewer bytes than the header announced: an error naming both. */
static void test_save_count_checked(void **state) {
    const char *p = npy_tmp("count.npy");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int64_t n = 4;
    float v[5] = {1, 2, 3, 4, 5};
    trn_npy_out o;
    trn_error e = {0};
    assert_int_equal(trn_npy_out_begin(&o, fd, p, TRN_DT_FP32, false, 1, &n, &e), 0);
    assert_int_equal(trn_npy_out_write(&o, v, 20, &e), -1);
    char want[TRN_ERROR_MAX];
    snprintf(want, sizeof want, "%s: 20 more data bytes given, the header announces 16", p);
    assert_string_equal(e.msg, want);
    assert_int_equal(trn_npy_out_write(&o, v, 12, &e), 0);
    assert_int_equal(trn_npy_out_end(&o, &e), -1);
    snprintf(want, sizeof want, "%s: 12 of the 16 data bytes the header announces were written", p);
    assert_string_equal(e.msg, want);
    close(fd);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_every_pair),
        cmocka_unit_test(test_large_every_pair),
        cmocka_unit_test(test_refusal_in_late_chunk),
        cmocka_unit_test(test_skip),
        cmocka_unit_test(test_pipe),
        cmocka_unit_test(test_save_every_dtype),
        cmocka_unit_test(test_save_count_checked),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
