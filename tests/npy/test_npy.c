/* host/npy.c, format level: the header trn_npy_write produces (checked
 * against numpy.save's bytes, written out by hand here), round trips of
 * every descr and shape, hand-made v1 / v2 / v3 files, and one exact
 * message per malformed input. */
#include "npy_testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "npy/npy.h"

static const char *const DESCRS[] = {"<f2", "<f4", "<f8", "|i1", "<i2", "<i4",
                                     "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"};
#define NDESCR (sizeof DESCRS / sizeof DESCRS[0])

static int group_setup(void **state) { return npy_tmp_setup(); }
static int group_teardown(void **state) {
    npy_tmp_teardown();
    return 0;
}

/* Read path expecting failure; the message must equal "<path>: <tail>". */
static void expect_read_error(const char *path, const char *tail) {
    trn_npy n;
    trn_error e = {0};
    char want[TRN_ERROR_MAX];
    assert_int_equal(trn_npy_read(path, &n, &e), -1);
    assert_null(n.data);
    snprintf(want, sizeof want, "%s: %s", path, tail);
    assert_string_equal(e.msg, want);
}

/* A v1 file whose header is `dict` padded like numpy (to 64 with '\n'). */
static void put_v1(const char *path, const char *dict, const void *data, size_t n) {
    char h[4096];
    size_t len = strlen(dict);
    memcpy(h, dict, len);
    while ((10 + len + 1) % 64) h[len++] = ' ';
    h[len++] = '\n';
    h[len] = '\0';
    assert_int_equal(npy_put_file(path, 1, h, data, n), 0);
}

/* ---- the header numpy.save writes ---------------------------------------- */

/* numpy 1.24: np.save(f, np.zeros((2, 3), '<f4')) -> magic, 1, 0, 118, 0,
 * then this 59-char dict, 58 spaces and '\n', data at 128. */
static void test_header_bytes_2x3_f4(void **state) {
    const float v[6] = {1.5f, -2.0f, 0.25f, 3.0f, -0.0f, 1e30f};
    const int64_t shape[2] = {2, 3};
    const char *p = npy_tmp("h23.npy");
    trn_error e = {0};
    assert_int_equal(trn_npy_write(p, "<f4", 2, shape, v, &e), 0);
    size_t n;
    unsigned char *b = npy_get_bytes(p, &n);
    assert_non_null(b);
    assert_int_equal(n, 128 + 24);
    assert_memory_equal(b, "\x93NUMPY\x01\x00\x76\x00", 10);
    char want[119];
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    assert_int_equal(strlen(dict), 59);
    memcpy(want, dict, 59);
    memset(want + 59, ' ', 58);
    want[117] = '\n';
    assert_memory_equal(b + 10, want, 118);
    assert_memory_equal(b + 128, v, 24);
    free(b);
}

/* Header length and dict for a shape; numpy.save gives 118 for all three
 * of these (checked with numpy 1.24 when the test was written). */
static void check_header(const char *descr, int ndim, const int64_t *shape, const char *dict,
                         size_t hlen) {
    const char *p = npy_tmp("hdr.npy");
    trn_error e = {0};
    static unsigned char zero[40320 * 8];
    if (trn_npy_write(p, descr, ndim, shape, zero, &e)) fail_msg("%s", e.msg);
    size_t n;
    unsigned char *b = npy_get_bytes(p, &n);
    assert_non_null(b);
    assert_true(n >= 10 + hlen);
    assert_int_equal(b[8] | b[9] << 8, hlen);
    assert_memory_equal(b + 10, dict, strlen(dict));
    for (size_t i = 10 + strlen(dict); i < 10 + hlen - 1; i++) assert_int_equal(b[i], ' ');
    assert_int_equal(b[10 + hlen - 1], '\n');
    free(b);
}

static void test_header_1d_0d_empty(void **state) {
    const int64_t five[1] = {5}, zero[1] = {0};
    check_header("|u1", 1, five, "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }", 118);
    check_header("<f8", 0, NULL, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", 118);
    check_header("<f4", 1, zero, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", 118);
    /* A one-byte type given with '<' is written as numpy writes it. */
    check_header("<u1", 1, five, "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }", 118);
}

/* The growth-axis spaces: 21 - digits(shape[0]) extra spaces after the
 * dict count toward the padding, pushing a long dict past 128. */
static void test_header_growth_spaces(void **state) {
    const int64_t s[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const char *dict =
        "{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2, 3, 4, 5, 6, 7, 8), }";
    assert_int_equal(strlen(dict), 77);
    /* 77 + 20 + 1 = 98, 10 + 98 = 108 -> padded to 128: hlen 118. */
    check_header("<i8", 8, s, dict, 118);
    const int64_t big[8] = {0, 100000, 100000, 100000, 100000, 100000, 100000, 1000};
    const char *dict2 = "{'descr': '<f4', 'fortran_order': False, 'shape': "
                        "(0, 100000, 100000, 100000, 100000, 100000, 100000, 1000), }";
    /* 110 + 20 + 1 = 131, 10 + 131 = 141 -> 192: hlen 182. */
    assert_int_equal(strlen(dict2), 110);
    check_header("<f4", 8, big, dict2, 182);
}

/* numpy pads with 64 - (x % 64), so an already aligned header gets 64 more
 * spaces: dict 97 + 20 growth + '\n' + 10 = 128 -> hlen 118 + 64 = 182.
 * (numpy itself refuses to save this shape: the product of the nonzero dims
 * overflows its size check; the rule is still the one it applies.) */
static void test_header_full_pad(void **state) {
    const int64_t s[6] = {0, 1000000, 100000, 100000, 100000, 100000};
    const char *dict = "{'descr': '<f4', 'fortran_order': False, 'shape': "
                       "(0, 1000000, 100000, 100000, 100000, 100000), }";
    assert_int_equal(strlen(dict), 97);
    check_header("<f4", 6, s, dict, 182);
}

/* ---- round trips ----------------------------------------------------------- */

static void round_trip(const char *descr, int ndim, const int64_t *shape) {
    size_t count = 1, item = (size_t)(descr[2] - '0');
    for (int i = 0; i < ndim; i++) count *= (size_t)shape[i];
    unsigned char *data = malloc(count * item + 1);
    for (size_t i = 0; i < count * item; i++) data[i] = (unsigned char)(i * 37 + 11);
    if (descr[1] == 'b')
        for (size_t i = 0; i < count; i++) data[i] &= 1; /* numpy bools are 0 / 1 */
    const char *p = npy_tmp("rt.npy");
    trn_error e = {0};
    assert_int_equal(trn_npy_write(p, descr, ndim, shape, data, &e), 0);
    trn_npy n;
    assert_int_equal(trn_npy_read(p, &n, &e), 0);
    assert_string_equal(n.descr, descr);
    assert_int_equal(n.ndim, ndim);
    for (int i = 0; i < ndim; i++) assert_int_equal(n.shape[i], shape[i]);
    assert_int_equal(n.item_size, item);
    assert_int_equal(n.count, count);
    assert_non_null(n.data);
    if (count) assert_memory_equal(n.data, data, count * item);
    assert_string_equal(n.name, p);
    /* The data starts at a multiple of 64 and the file ends with it. */
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal((st.st_size - (off_t)(count * item)) % 64, 0);
    trn_npy_free(&n);
    assert_null(n.data);
    trn_npy_free(&n); /* twice is harmless */
    free(data);
}

static void test_round_trip_every_descr(void **state) {
    static const int64_t s1[1] = {7}, s0[1] = {0}, s2[2] = {3, 4}, s3[3] = {2, 1, 3},
                         s8[8] = {1, 2, 1, 1, 3, 1, 1, 2}, s2z[2] = {4, 0};
    for (size_t d = 0; d < NDESCR; d++) {
        round_trip(DESCRS[d], 0, NULL);
        round_trip(DESCRS[d], 1, s1);
        round_trip(DESCRS[d], 1, s0);
        round_trip(DESCRS[d], 2, s2);
        round_trip(DESCRS[d], 3, s3);
        round_trip(DESCRS[d], 8, s8);
        round_trip(DESCRS[d], 2, s2z);
    }
}

static void test_round_trip_large(void **state) {
    static const int64_t s[2] = {513, 1031};
    round_trip("<f8", 2, s);
}

/* ---- hand-made files numpy can also produce ----------------------------- */

static void test_read_v2_v3(void **state) {
    const int16_t v[3] = {-1, 2, 300};
    const char *hdr = "{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }          \n";
    for (int major = 2; major <= 3; major++) {
        const char *p = npy_tmp("v23.npy");
        assert_int_equal(npy_put_file(p, major, hdr, v, sizeof v), 0);
        trn_npy n;
        trn_error e = {0};
        assert_int_equal(trn_npy_read(p, &n, &e), 0);
        assert_string_equal(n.descr, "<i2");
        assert_int_equal(n.ndim, 1);
        assert_int_equal(n.shape[0], 3);
        assert_memory_equal(n.data, v, sizeof v);
        trn_npy_free(&n);
    }
}

/* Python-literal spellings numpy's reader accepts: other key order, double
 * quotes, no trailing comma, a trailing comma in the tuple, Python 2 'L'
 * dims, '<u1' for '|u1', older 16-byte alignment, no final newline. */
static void test_read_header_spellings(void **state) {
    const unsigned char d6[6] = {1, 2, 3, 4, 5, 6};
    static const struct {
        const char *hdr, *descr;
    } cases[] = {
        {"{'shape': (2, 3), 'fortran_order': False, 'descr': '|u1'}\n", "|u1"},
        {"{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (2, 3)}  \n", "|u1"},
        {"{'descr':'<u1','fortran_order':False,'shape':(2,3,),}\n", "|u1"},
        {"{'descr': '|i1', 'fortran_order': False, 'shape': (2L, 3L), }    \n", "|i1"},
        {" {'descr': '|b1', 'fortran_order': False, 'shape': (2, 3), }", "|b1"},
        {"{'descr': '>u1', 'fortran_order': False, 'shape': (2, 3), }\t\r\n", "|u1"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *p = npy_tmp("sp.npy");
        assert_int_equal(npy_put_file(p, 1, cases[i].hdr, d6, 6), 0);
        trn_npy n;
        trn_error e = {0};
        if (trn_npy_read(p, &n, &e) != 0) fail_msg("case %zu: %s", i, e.msg);
        assert_string_equal(n.descr, cases[i].descr);
        assert_int_equal(n.ndim, 2);
        assert_int_equal(n.shape[0], 2);
        assert_int_equal(n.shape[1], 3);
        assert_int_equal(n.count, 6);
        assert_memory_equal(n.data, d6, 6);
        trn_npy_free(&n);
    }
}

/* ---- malformed files: one exact message each ----------------------------- */

static void test_error_magic_and_preamble(void **state) {
    const char *p = npy_tmp("bad.npy");
    assert_int_equal(npy_put_bytes(p, "", 0), 0);
    expect_read_error(p, "not a .npy file (the file is empty)");
    assert_int_equal(npy_put_bytes(p, "PK\x03\x04\x14\x00\x00\x00\x08\x00xxxx", 14), 0);
    expect_read_error(p, "not a .npy file (expected the magic \"\\x93NUMPY\", found "
                         "\"\\x50\\x4b\\x03\\x04\\x14\\x00\")");
    assert_int_equal(npy_put_bytes(p, "ab", 2), 0);
    expect_read_error(p,
                      "not a .npy file (expected the magic \"\\x93NUMPY\", found \"\\x61\\x62\")");
    assert_int_equal(npy_put_bytes(p, "\x93NUM", 4), 0);
    expect_read_error(
        p, "truncated preamble: the file has 4 bytes, a .npy preamble needs at least 10");
    assert_int_equal(npy_put_bytes(p, "\x93NUMPY\x02\x00\x10\x00", 10), 0);
    expect_read_error(p,
                      "truncated preamble: the file has 10 bytes, a version 2.0 preamble needs 12");
    assert_int_equal(npy_put_bytes(p, "\x93NUMPY\x04\x00\x10\x00", 10), 0);
    expect_read_error(p, "unsupported .npy format version 4.0 (expected 1.0, 2.0 or 3.0)");
    assert_int_equal(npy_put_bytes(p, "\x93NUMPY\x01\x01\x10\x00", 10), 0);
    expect_read_error(p, "unsupported .npy format version 1.1 (expected 1.0, 2.0 or 3.0)");
}

static void test_error_missing_file(void **state) {
    expect_read_error(npy_tmp("does-not-exist.npy"), "cannot open: No such file or directory");
}

static void test_error_truncated_header(void **state) {
    const char *p = npy_tmp("th.npy");
    /* Announces 118 header bytes, 20 follow. */
    assert_int_equal(npy_put_bytes(p, "\x93NUMPY\x01\x00\x76\x00{'descr': '<f4', 'fo", 30), 0);
    expect_read_error(p, "truncated header: the preamble announces 118 header bytes, 20 follow");
    /* v2: a 4-byte length of 0x01000000. */
    assert_int_equal(npy_put_bytes(p, "\x93NUMPY\x02\x00\x00\x00\x00\x01{}", 14), 0);
    expect_read_error(p,
                      "truncated header: the preamble announces 16777216 header bytes, 2 follow");
}

static void test_error_truncated_and_extra_data(void **state) {
    const char *p = npy_tmp("td.npy");
    float v[7] = {1, 2, 3, 4, 5, 6, 7};
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, 20);
    expect_read_error(p, "truncated data: expected 24 bytes for <f4 (2, 3), found 20");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", v, 28);
    expect_read_error(p,
                      "4 extra bytes after the data: expected 24 bytes for <f4 (2, 3), found 28");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", v, 0);
    expect_read_error(p, "truncated data: expected 4 bytes for <f4 (), found 0");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (0,), }", v, 1);
    expect_read_error(p, "1 extra bytes after the data: expected 0 bytes for <f4 (0,), found 1");
}

static void test_error_byte_order_and_fortran(void **state) {
    const char *p = npy_tmp("bo.npy");
    float v[6] = {0};
    put_v1(p, "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", v, 24);
    expect_read_error(p, "big-endian dtype '>f4' is not supported (expected little-endian '<f4')");
    put_v1(p, "{'descr': '>i8', 'fortran_order': False, 'shape': (3,), }", v, 24);
    expect_read_error(p, "big-endian dtype '>i8' is not supported (expected little-endian '<i8')");
    put_v1(p, "{'descr': '|f4', 'fortran_order': False, 'shape': (2, 3), }", v, 24);
    expect_read_error(p, "dtype '|f4' has no explicit byte order (expected little-endian '<f4')");
    put_v1(p, "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", v, 24);
    expect_read_error(
        p, "fortran_order True is not supported (expected False: save a C-contiguous array, "
           "e.g. numpy.ascontiguousarray)");
}

static void test_error_dtypes(void **state) {
    const char *p = npy_tmp("dt.npy");
    float v[6] = {0};
    put_v1(p, "{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", v, 24);
    expect_read_error(
        p, "unsupported dtype '<c8' (expected one of <f2, <f4, <f8, |i1, <i2, <i4, <i8, |u1, "
           "<u2, <u4, <u8, |b1)");
    put_v1(p, "{'descr': '<U10', 'fortran_order': False, 'shape': (3,), }", v, 24);
    expect_read_error(
        p, "unsupported dtype '<U10' (expected one of <f2, <f4, <f8, |i1, <i2, <i4, <i8, |u1, "
           "<u2, <u4, <u8, |b1)");
    put_v1(p, "{'descr': 'f4', 'fortran_order': False, 'shape': (3,), }", v, 12);
    expect_read_error(
        p, "unsupported dtype 'f4' (expected one of <f2, <f4, <f8, |i1, <i2, <i4, <i8, |u1, "
           "<u2, <u4, <u8, |b1)");
    /* A structured dtype is a list, not a string. */
    put_v1(p, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }", v, 12);
    expect_read_error(
        p, "bad header dict at byte 20: expected a quoted dtype string such as '<f4', found '['");
}

static void test_error_bad_dict(void **state) {
    const char *p = npy_tmp("bd.npy");
    float v[6] = {0};
    put_v1(p, "{'descr': '<f4', 'fortran_order': False}", v, 24);
    expect_read_error(
        p, "header dict has no 'shape' key (expected 'descr', 'fortran_order' and 'shape')");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'extra': 1}", v, 24);
    expect_read_error(
        p, "bad header dict at byte 66: unexpected key 'extra' (expected exactly 'descr', "
           "'fortran_order' and 'shape')");
    put_v1(p, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}", v, 24);
    expect_read_error(p,
                      "bad header dict at byte 27: repeated key 'descr' (expected exactly 'descr', "
                      "'fortran_order' and 'shape')");
    put_v1(p, "{'descr': '<f4', 'fortran_order': 0, 'shape': (6,)}", v, 24);
    expect_read_error(p, "bad header dict at byte 44: expected True or False, found '0'");
    put_v1(p, "['descr', '<f4']", v, 24);
    expect_read_error(
        p, "bad header dict at byte 10: expected '{' starting the header dict, found '['");
    put_v1(p, "{'descr' '<f4', 'fortran_order': False, 'shape': (6,)}", v, 24);
    expect_read_error(p, "bad header dict at byte 19: expected ':' after the key, found '''");
    put_v1(p, "{'descr': '<f4' 'fortran_order': False, 'shape': (6,)}", v, 24);
    expect_read_error(p,
                      "bad header dict at byte 26: expected ',' or '}' after a value, found '''");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} x", v, 24);
    expect_read_error(
        p, "bad header dict at byte 66: expected only spaces and '\\n' after the dict, found 'x'");
    assert_int_equal(
        npy_put_file(p, 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,)", v, 24), 0);
    expect_read_error(p, "bad header dict at byte 64: expected ',' or '}' after a value, found the "
                         "end of the header");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False,\x01 'shape': (6,)}", v, 24);
    expect_read_error(p,
                      "bad header dict at byte 50: expected a quoted key or '}', found byte 0x01");
    assert_int_equal(npy_put_file(p, 1, "{'descr': '<f4", v, 24), 0);
    expect_read_error(
        p, "bad header dict at byte 24: expected a closing quote, found the end of the header");
}

static void test_error_bad_shape(void **state) {
    const char *p = npy_tmp("bs.npy");
    float v[6] = {0};
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (6)}", v, 24);
    expect_read_error(
        p, "bad header dict at byte 62: expected ',' (a 1-D shape is written (5,)), found ')'");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", v, 24);
    expect_read_error(
        p, "bad header dict at byte 60: expected '(' starting the shape tuple, found '['");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}", v, 24);
    expect_read_error(p, "shape (2, -3) has a negative dimension (-3)");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3)}", v, 24);
    expect_read_error(
        p, "bad header dict at byte 63: expected ',' or ')' in the shape tuple, found '3'");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}", v, 24);
    expect_read_error(p, "bad header dict at byte 64: expected an integer dimension, found 'x'");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 6)}", v,
           24);
    expect_read_error(p, "shape has more than 8 dimensions (at most 8 supported)");
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", v, 24);
    expect_read_error(p, "bad header dict at byte 61: expected a dimension of at most 2**32 "
                         "(4294967296), the limit, found '9'");
    put_v1(
        p,
        "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4294967296)}",
        v, 24);
    expect_read_error(p, "shape (4294967296, 4294967296, 4294967296) is too large");
}

static void test_error_non_ascii(void **state) {
    const char *p = npy_tmp("na.npy");
    float v[6] = {0};
    put_v1(p, "{'descr': '<f4', 'fortran_order': False, 'shape': (6,), } \xc3\xa9", v, 24);
    expect_read_error(p, "header is not ASCII (byte 0xc3 at offset 68)");
}

/* ---- write errors -------------------------------------------------------- */

static void expect_write_error(const char *path, const char *descr, int ndim, const int64_t *shape,
                               const void *data, const char *tail) {
    trn_error e = {0};
    char want[TRN_ERROR_MAX];
    assert_int_equal(trn_npy_write(path, descr, ndim, shape, data, &e), -1);
    snprintf(want, sizeof want, "%s: %s", path, tail);
    assert_string_equal(e.msg, want);
}

static void test_write_errors(void **state) {
    const char *p = npy_tmp("we.npy");
    const int64_t s[2] = {2, 3}, neg[2] = {2, -1};
    const float v[6] = {0};
    struct stat st;
    expect_write_error(p, ">f4", 2, s, v,
                       "big-endian dtype '>f4' is not supported (expected little-endian '<f4')");
    expect_write_error(
        p, "<c8", 2, s, v,
        "unsupported dtype '<c8' (expected one of <f2, <f4, <f8, |i1, <i2, <i4, <i8, |u1, <u2, "
        "<u4, <u8, |b1)");
    expect_write_error(p, "<f4", 2, neg, v, "shape (2, -1) has a negative dimension (-1)");
    expect_write_error(p, "<f4", 9, s, v, "cannot write 9 dimensions (expected 0 to 8)");
    expect_write_error(p, "<f4", 2, s, NULL, "no data given for 6 elements");
    assert_int_equal(stat(p, &st), -1); /* none of those created the file */
    expect_write_error(npy_tmp("no/such/dir.npy"), "<f4", 2, s, v,
                       "cannot create: No such file or directory");
}

/* /dev/full accepts the open and fails the write (ENOSPC): the error must be
 * reported, and the device must not be removed. */
static void test_write_full_device(void **state) {
    struct stat st;
    if (stat("/dev/full", &st) != 0) skip();
    const int64_t s[1] = {4};
    const float v[4] = {0};
    trn_error e = {0};
    assert_int_equal(trn_npy_write("/dev/full", "<f4", 1, s, v, &e), -1);
    assert_string_equal(e.msg, "/dev/full: write failed: No space left on device");
    assert_int_equal(stat("/dev/full", &st), 0);
    assert_true(S_ISCHR(st.st_mode));
}

/* A successful write truncates and replaces an older, longer file. */
static void test_write_replaces(void **state) {
    const char *p = npy_tmp("rep.npy");
    static const char old[] =
        "old contents that are longer than the new file will be.............."
        "......................................................................"
        "......................................................................";
    assert_int_equal(npy_put_bytes(p, old, sizeof old - 1), 0);
    const int64_t s[1] = {1};
    const unsigned char v[1] = {7};
    trn_error e = {0};
    assert_int_equal(trn_npy_write(p, "|u1", 1, s, v, &e), 0);
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    assert_int_equal(st.st_size, 129);
}

static void test_format_shape(void **state) {
    char b[64];
    const int64_t s[3] = {2, 3, 40};
    assert_string_equal(trn_npy_format_shape(b, sizeof b, 0, s), "()");
    assert_string_equal(trn_npy_format_shape(b, sizeof b, 1, s), "(2,)");
    assert_string_equal(trn_npy_format_shape(b, sizeof b, 2, s), "(2, 3)");
    assert_string_equal(trn_npy_format_shape(b, sizeof b, 3, s), "(2, 3, 40)");
    char tiny[5];
    assert_string_equal(trn_npy_format_shape(tiny, sizeof tiny, 3, s), "(2, ");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_bytes_2x3_f4),
        cmocka_unit_test(test_header_1d_0d_empty),
        cmocka_unit_test(test_header_growth_spaces),
        cmocka_unit_test(test_header_full_pad),
        cmocka_unit_test(test_round_trip_every_descr),
        cmocka_unit_test(test_round_trip_large),
        cmocka_unit_test(test_read_v2_v3),
        cmocka_unit_test(test_read_header_spellings),
        cmocka_unit_test(test_error_magic_and_preamble),
        cmocka_unit_test(test_error_missing_file),
        cmocka_unit_test(test_error_truncated_header),
        cmocka_unit_test(test_error_truncated_and_extra_data),
        cmocka_unit_test(test_error_byte_order_and_fortran),
        cmocka_unit_test(test_error_dtypes),
        cmocka_unit_test(test_error_bad_dict),
        cmocka_unit_test(test_error_bad_shape),
        cmocka_unit_test(test_error_non_ascii),
        cmocka_unit_test(test_write_errors),
        cmocka_unit_test(test_write_full_device),
        cmocka_unit_test(test_write_replaces),
        cmocka_unit_test(test_format_shape),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
