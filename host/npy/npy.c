/* NumPy .npy reader / writer and the tensor <-> file dtype rules (npy.h).
 *
 * Format (numpy/lib/format.py): "\x93NUMPY", major, minor, a little-endian
 * header length (uint16 for 1.0, uint32 for 2.0 / 3.0), then the header: a
 * Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': ...}
 * padded with spaces and '\n', then the raw C-order data. */
#include "npy/npy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The data is moved with memcpy: the host must be little-endian like the
 * files we accept and write. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy.c assumes a little-endian host");

#define NPY_MAGIC     "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN     64
/* numpy.save leaves room for the first axis to grow to this many digits. */
#define NPY_GROWTH_AXIS_MAX_DIGITS 21
/* A sane bound for a header (numpy itself refuses more than 10000 bytes by
 * default); keeps a corrupt v2 length from causing a huge allocation. */
#define NPY_HEADER_MAX (1u << 20)

/* ---- descr ---------------------------------------------------------------- */

/* The simple dtypes we accept, in their normalised form. */
static const char *const NPY_DESCRS[] = {"<f2", "<f4", "<f8", "|i1", "<i2", "<i4",
                                         "<i8", "|u1", "<u2", "<u4", "<u8", "|b1"};
#define NPY_DESCR_LIST "<f2, <f4, <f8, |i1, <i2, <i4, <i8, |u1, <u2, <u4, <u8, |b1"

static const char *name_of(const char *path) { return path && path[0] ? path : "npy"; }

/* Parse descr text s (NUL-terminated) into its normalised form and item size.
 * A one-byte type takes any byte-order mark and becomes '|'; a multi-byte
 * type must say '<'. */
static int descr_normalise(const char *path, const char *s, char out[8], size_t *item,
                           trn_error *e) {
    size_t len = strlen(s);
    const char *found = NULL;
    if (len >= 3 && len <= 4 && strchr("<>|=", s[0])) {
        for (size_t i = 0; i < sizeof NPY_DESCRS / sizeof NPY_DESCRS[0]; i++)
            if (strcmp(NPY_DESCRS[i] + 1, s + 1) == 0) found = NPY_DESCRS[i];
    }
    if (!found)
        return trn_errorf(e, "%s: unsupported dtype '%s' (expected one of " NPY_DESCR_LIST ")",
                          name_of(path), s);
    size_t size = (size_t)(found[2] - '0');
    if (size > 1 && s[0] == '>')
        return trn_errorf(
            e, "%s: big-endian dtype '%s' is not supported (expected little-endian '%s')",
            name_of(path), s, found);
    if (size > 1 && s[0] != '<')
        return trn_errorf(e,
                          "%s: dtype '%s' has no explicit byte order (expected little-endian '%s')",
                          name_of(path), s, found);
    snprintf(out, 8, "%s", found);
    *item = size;
    return 0;
}

char *trn_npy_format_shape(char *buf, size_t size, int ndim, const int64_t *shape) {
    size_t at = 0;
    if (size == 0) return buf;
    buf[0] = '\0';
#define PUT(...)                                                                                   \
    do {                                                                                           \
        if (at < size) {                                                                           \
            int k_ = snprintf(buf + at, size - at, __VA_ARGS__);                                   \
            at = k_ < 0 ? size : at + (size_t)k_;                                                  \
        }                                                                                          \
    } while (0)
    PUT("(");
    for (int i = 0; i < ndim; i++) PUT(i ? ", %lld" : "%lld", (long long)shape[i]);
    PUT(ndim == 1 ? ",)" : ")");
#undef PUT
    return buf;
}

/* product(shape) with overflow checks against size_t and item size. */
static int shape_count(const char *path, int ndim, const int64_t *shape, size_t item, size_t *count,
                       trn_error *e) {
    size_t c = 1;
    char sh[256];
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return trn_errorf(e, "%s: shape %s has a negative dimension (%lld)", name_of(path),
                              trn_npy_format_shape(sh, sizeof sh, ndim, shape),
                              (long long)shape[i]);
        uint64_t d = (uint64_t)shape[i];
        if (d != 0 && c > SIZE_MAX / d)
            return trn_errorf(e, "%s: shape %s is too large", name_of(path),
                              trn_npy_format_shape(sh, sizeof sh, ndim, shape));
        c *= (size_t)d;
    }
    if (item && c > SIZE_MAX / item)
        return trn_errorf(e, "%s: shape %s is too large", name_of(path),
                          trn_npy_format_shape(sh, sizeof sh, ndim, shape));
    *count = c;
    return 0;
}

/* ---- header dict parser --------------------------------------------------- */

typedef struct hdr_parser {
    const char *path;
    const char *begin; /* the header text */
    const char *p;
    const char *end;
    size_t file_offset; /* of begin, for messages */
    trn_error *e;
} hdr_parser;

static void hp_skip_ws(hdr_parser *hp) {
    while (hp->p < hp->end && (*hp->p == ' ' || *hp->p == '\t' || *hp->p == '\n' || *hp->p == '\r'))
        hp->p++;
}

/* "bad header dict at offset N: expected X, found 'c'" */
static int hp_fail(hdr_parser *hp, const char *expected) {
    char found[32];
    if (hp->p >= hp->end)
        snprintf(found, sizeof found, "the end of the header");
    else if (*hp->p >= 0x20 && *hp->p < 0x7f)
        snprintf(found, sizeof found, "'%c'", *hp->p);
    else
        snprintf(found, sizeof found, "byte 0x%02x", (unsigned char)*hp->p);
    return trn_errorf(hp->e, "%s: bad header dict at byte %zu: expected %s, found %s",
                      name_of(hp->path), hp->file_offset + (size_t)(hp->p - hp->begin), expected,
                      found);
}

static int hp_expect(hdr_parser *hp, char c, const char *what) {
    hp_skip_ws(hp);
    if (hp->p >= hp->end || *hp->p != c) return hp_fail(hp, what);
    hp->p++;
    return 0;
}

/* A quoted string without escapes (none of our keys or descrs need one). */
static int hp_string(hdr_parser *hp, char *out, size_t size, const char *what) {
    hp_skip_ws(hp);
    if (hp->p >= hp->end || (*hp->p != '\'' && *hp->p != '"')) return hp_fail(hp, what);
    char q = *hp->p++;
    const char *s = hp->p;
    while (hp->p < hp->end && *hp->p != q && *hp->p != '\\') hp->p++;
    if (hp->p >= hp->end || *hp->p != q) return hp_fail(hp, "a closing quote");
    size_t len = (size_t)(hp->p - s);
    const char *nul = memchr(s, 0, len);
    if (nul) { /* numpy refuses it too; strlen would silently cut the text here */
        hp->p = nul;
        return hp_fail(hp, "a string without NUL bytes");
    }
    hp->p++;
    if (len >= size) {
        hp->p = s;
        return hp_fail(hp, "a short string");
    }
    memcpy(out, s, len);
    out[len] = '\0';
    return 0;
}

static int hp_bool(hdr_parser *hp, bool *out) {
    hp_skip_ws(hp);
    size_t left = (size_t)(hp->end - hp->p);
    if (left >= 4 && memcmp(hp->p, "True", 4) == 0) {
        hp->p += 4, *out = true;
        return 0;
    }
    if (left >= 5 && memcmp(hp->p, "False", 5) == 0) {
        hp->p += 5, *out = false;
        return 0;
    }
    return hp_fail(hp, "True or False");
}

/* The largest dimension a header may give: far above any tensor trnsim can
 * hold, low enough that no product of eight of them is computed blindly. */
#define NPY_DIM_MAX (1ull << 32)

/* One dimension: decimal digits, an optional Python 2 'L' suffix. */
static int hp_dim(hdr_parser *hp, int64_t *out) {
    hp_skip_ws(hp);
    bool neg = false;
    if (hp->p < hp->end && *hp->p == '-') neg = true, hp->p++;
    if (hp->p >= hp->end || *hp->p < '0' || *hp->p > '9')
        return hp_fail(hp, "an integer dimension");
    uint64_t v = 0;
    const char *start = hp->p;
    while (hp->p < hp->end && *hp->p >= '0' && *hp->p <= '9') {
        v = v * 10 + (uint64_t)(*hp->p++ - '0');
        if (v > NPY_DIM_MAX) {
            hp->p = start;
            return hp_fail(hp, "a dimension of at most 2**32 (4294967296), the limit");
        }
    }
    if (hp->p < hp->end && (*hp->p == 'L' || *hp->p == 'l')) hp->p++;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* A tuple of dims: "()", "(5,)", "(2, 3)", "(2, 3,)". A lone "(5)" is the
 * integer 5 in Python, not a tuple, and numpy rejects it too. */
static int hp_shape(hdr_parser *hp, int *ndim, int64_t *shape) {
    if (hp_expect(hp, '(', "'(' starting the shape tuple")) return -1;
    int n = 0;
    bool comma = false;
    for (;;) {
        hp_skip_ws(hp);
        if (hp->p < hp->end && *hp->p == ')') {
            if (n == 1 && !comma) return hp_fail(hp, "',' (a 1-D shape is written (5,))");
            hp->p++;
            break;
        }
        if (n > 0 && !comma) return hp_fail(hp, "',' or ')' in the shape tuple");
        if (n == TRN_NPY_MAX_DIMS)
            return trn_errorf(hp->e, "%s: shape has more than %d dimensions (at most %d supported)",
                              name_of(hp->path), TRN_NPY_MAX_DIMS, TRN_NPY_MAX_DIMS);
        if (hp_dim(hp, &shape[n])) return -1;
        n++;
        hp_skip_ws(hp);
        comma = hp->p < hp->end && *hp->p == ',';
        if (comma) hp->p++;
    }
    *ndim = n;
    return 0;
}

typedef struct hdr_fields {
    char descr[64];
    bool fortran_order;
    int ndim;
    int64_t shape[TRN_NPY_MAX_DIMS];
} hdr_fields;

/* The whole header: the dict, then only whitespace. Exactly the three keys,
 * each once, in any order. */
static int hp_dict(hdr_parser *hp, hdr_fields *f) {
    bool seen[3] = {false, false, false};
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    if (hp_expect(hp, '{', "'{' starting the header dict")) return -1;
    for (;;) {
        hp_skip_ws(hp);
        if (hp->p < hp->end && *hp->p == '}') {
            hp->p++;
            break;
        }
        char key[32];
        const char *key_at = hp->p;
        if (hp_string(hp, key, sizeof key, "a quoted key or '}'")) return -1;
        int k = -1;
        for (int i = 0; i < 3; i++)
            if (strcmp(key, keys[i]) == 0) k = i;
        if (k < 0 || seen[k]) {
            hp->p = key_at;
            return trn_errorf(
                hp->e,
                "%s: bad header dict at byte %zu: %s key '%s' (expected exactly 'descr', "
                "'fortran_order' and 'shape')",
                name_of(hp->path), hp->file_offset + (size_t)(key_at - hp->begin),
                k < 0 ? "unexpected" : "repeated", key);
        }
        seen[k] = true;
        if (hp_expect(hp, ':', "':' after the key")) return -1;
        int rc =
            k == 0 ? hp_string(hp, f->descr, sizeof f->descr, "a quoted dtype string such as '<f4'")
            : k == 1 ? hp_bool(hp, &f->fortran_order)
                     : hp_shape(hp, &f->ndim, f->shape);
        if (rc) return -1;
        hp_skip_ws(hp);
        if (hp->p < hp->end && *hp->p == ',') {
            hp->p++;
            continue;
        }
        if (hp->p < hp->end && *hp->p == '}') continue;
        return hp_fail(hp, "',' or '}' after a value");
    }
    hp_skip_ws(hp);
    if (hp->p != hp->end) return hp_fail(hp, "only spaces and '\\n' after the dict");
    for (int i = 0; i < 3; i++)
        if (!seen[i])
            return trn_errorf(
                hp->e,
                "%s: header dict has no '%s' key (expected 'descr', 'fortran_order' and "
                "'shape')",
                name_of(hp->path), keys[i]);
    return 0;
}

/* ---- read ----------------------------------------------------------------- */

/* Read exactly n bytes from fd (EINTR and short reads retried): 0 when all
 * arrived, 1 at EOF first, -1 on an error (errno set). *got: how many came. */
static int read_exact(int fd, void *buf, size_t n, size_t *got) {
    *got = 0;
    while (*got < n) {
        ssize_t k = read(fd, (char *)buf + *got, n - *got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return -1;
        if (k == 0) return 1;
        *got += (size_t)k;
    }
    return 0;
}

static int bad_magic(const char *path, const unsigned char *pre, size_t got, trn_error *e) {
    if (got == 0) return trn_errorf(e, "%s: not a .npy file (the file is empty)", path);
    char found[64] = "";
    size_t at = 0;
    for (size_t i = 0; i < got && i < NPY_MAGIC_LEN; i++)
        at += (size_t)snprintf(found + at, sizeof found - at, "\\x%02x", pre[i]);
    return trn_errorf(e, "%s: not a .npy file (expected the magic \"\\x93NUMPY\", found \"%s\")",
                      path, found);
}

/* Magic, version and header length; *hstart is where the header begins. */
static int read_preamble(const char *path, int fd, uint32_t *hlen, size_t *hstart, trn_error *e) {
    unsigned char pre[12];
    size_t got;
    int rc = read_exact(fd, pre, 8, &got);
    if (rc < 0) return trn_errorf(e, "%s: read error: %s", path, strerror(errno));
    if (rc) {
        size_t m = got < NPY_MAGIC_LEN ? got : NPY_MAGIC_LEN;
        if (got == 0 || memcmp(pre, NPY_MAGIC, m) != 0) return bad_magic(path, pre, got, e);
        return trn_errorf(
            e, "%s: truncated preamble: the file has %zu bytes, a .npy preamble needs at least 10",
            path, got);
    }
    if (memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN) != 0) return bad_magic(path, pre, got, e);
    unsigned major = pre[6], minor = pre[7];
    if (!((major == 1 || major == 2 || major == 3) && minor == 0))
        return trn_errorf(e, "%s: unsupported .npy format version %u.%u (expected 1.0, 2.0 or 3.0)",
                          path, major, minor);
    size_t lenbytes = major == 1 ? 2 : 4;
    rc = read_exact(fd, pre + 8, lenbytes, &got);
    if (rc < 0) return trn_errorf(e, "%s: read error: %s", path, strerror(errno));
    if (rc)
        return trn_errorf(
            e, "%s: truncated preamble: the file has %zu bytes, a version %u.0 preamble needs %zu",
            path, 8 + got, major, 8 + lenbytes);
    *hlen = major == 1 ? (uint32_t)pre[8] | (uint32_t)pre[9] << 8
                       : (uint32_t)pre[8] | (uint32_t)pre[9] << 8 | (uint32_t)pre[10] << 16 |
                             (uint32_t)pre[11] << 24;
    *hstart = 8 + lenbytes;
    return 0;
}

/* Header text -> fields, checking ASCII, the dict, the descr and the order. */
static int parse_header(const char *path, const char *text, size_t len, size_t hstart, trn_npy *out,
                        trn_error *e) {
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)text[i] >= 0x80)
            return trn_errorf(e, "%s: header is not ASCII (byte 0x%02x at offset %zu)", path,
                              (unsigned char)text[i], hstart + i);
    hdr_fields f = {.ndim = 0};
    hdr_parser hp = {
        .path = path, .begin = text, .p = text, .end = text + len, .file_offset = hstart, .e = e};
    if (hp_dict(&hp, &f)) return -1;
    if (f.fortran_order)
        return trn_errorf(
            e,
            "%s: fortran_order True is not supported (expected False: save a C-contiguous "
            "array, e.g. numpy.ascontiguousarray)",
            path);
    if (descr_normalise(path, f.descr, out->descr, &out->item_size, e)) return -1;
    out->ndim = f.ndim;
    memcpy(out->shape, f.shape, sizeof f.shape);
    return shape_count(path, f.ndim, f.shape, out->item_size, &out->count, e);
}

/* A regular file holds exactly the data the header announces after offset. */
static int check_data_size(const char *path, const struct stat *st, const trn_npy *h, size_t offset,
                           trn_error *e) {
    size_t bytes = h->count * h->item_size;
    char sh[256];
    trn_npy_format_shape(sh, sizeof sh, h->ndim, h->shape);
    if ((uint64_t)st->st_size < (uint64_t)offset + bytes)
        return trn_errorf(e, "%s: truncated data: expected %zu bytes for %s %s, found %llu", path,
                          bytes, h->descr, sh,
                          (unsigned long long)((uint64_t)st->st_size - offset));
    if ((uint64_t)st->st_size > (uint64_t)offset + bytes) {
        unsigned long long more = (unsigned long long)((uint64_t)st->st_size - offset - bytes);
        return trn_errorf(
            e, "%s: %llu extra bytes after the data: expected %zu bytes for %s %s, found %llu",
            path, more, bytes, h->descr, sh, more + bytes);
    }
    return 0;
}

int trn_npy_read_header(const char *path, int fd, trn_npy_header_check check, void *ctx,
                        trn_npy *out, trn_error *e) {
    uint32_t hlen = 0;
    size_t hstart = 0;
    if (read_preamble(path, fd, &hlen, &hstart, e)) return -1;
    struct stat st;
    uint64_t left = 0;
    bool sized = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (sized) left = (uint64_t)st.st_size > hstart ? (uint64_t)st.st_size - hstart : 0;
    if (sized && hlen > left)
        return trn_errorf(
            e, "%s: truncated header: the preamble announces %u header bytes, %llu follow", path,
            hlen, (unsigned long long)left);
    if (hlen > NPY_HEADER_MAX)
        return trn_errorf(e, "%s: header length %u is implausible (at most %u)", path, hlen,
                          NPY_HEADER_MAX);
    char *text = malloc(hlen ? hlen : 1);
    if (!text) return trn_errorf(e, "%s: out of memory for a %u-byte header", path, hlen);
    size_t got;
    int rc = read_exact(fd, text, hlen, &got);
    if (rc < 0)
        rc = trn_errorf(e, "%s: read error: %s", path, strerror(errno));
    else if (rc)
        rc = trn_errorf(e,
                        "%s: truncated header: the preamble announces %u header bytes, %zu follow",
                        path, hlen, got);
    if (rc == 0) rc = parse_header(path, text, hlen, hstart, out, e);
    free(text);
    if (rc == 0 && check) rc = check(out, ctx, e); /* before a single data byte is read */
    if (rc == 0 && sized) rc = check_data_size(path, &st, out, hstart + hlen, e);
    return rc;
}

int trn_npy_read_checked(const char *path, trn_npy_header_check check, void *ctx, trn_npy *out,
                         trn_error *e) {
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", path);
    trn_npy_in in;
    if (trn_npy_in_open(&in, path, check, ctx, e)) return -1;
    *out = in.head;
    out->data = malloc(in.total ? in.total : 1);
    int rc =
        out->data ? 0 : trn_errorf(e, "%s: out of memory for %zu bytes of data", path, in.total);
    if (rc == 0) rc = trn_npy_in_read_raw(&in, out->data, in.total, e) || trn_npy_in_finish(&in, e);
    trn_npy_in_close(&in);
    if (rc) {
        trn_npy_free(out);
        return -1;
    }
    return 0;
}

int trn_npy_read(const char *path, trn_npy *out, trn_error *e) {
    return trn_npy_read_checked(path, NULL, NULL, out, e);
}

void trn_npy_free(trn_npy *n) {
    if (!n) return;
    free(n->data);
    n->data = NULL;
}

/* ---- write ---------------------------------------------------------------- */

/* numpy.save's v1.0 header: the dict (keys sorted, repr values), spaces for
 * the first axis to grow to 21 digits, then spaces and '\n' so that
 * preamble + header is a multiple of 64 (a full 64 spaces when it already
 * was one: numpy's padlen is 64 - (x % 64), never 0). Returns the length. */
static size_t build_header(char *buf, size_t size, const char *descr, int ndim,
                           const int64_t *shape) {
    char sh[256];
    int n = snprintf(buf, size, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr,
                     trn_npy_format_shape(sh, sizeof sh, ndim, shape));
    size_t len = (size_t)n;
    if (ndim > 0) {
        char first[32];
        int digits = snprintf(first, sizeof first, "%lld", (long long)shape[0]);
        for (int i = digits; i < NPY_GROWTH_AXIS_MAX_DIGITS; i++) buf[len++] = ' ';
    }
    size_t hlen = len + 1;
    size_t pad = NPY_ALIGN - (NPY_MAGIC_LEN + 2 + 2 + hlen) % NPY_ALIGN;
    memset(buf + len, ' ', pad);
    len += pad;
    buf[len++] = '\n';
    return len;
}

static int write_all(const char *path, FILE *f, const void *p, size_t n, trn_error *e) {
    if (n && fwrite(p, 1, n, f) != n)
        return trn_errorf(e, "%s: write failed: %s", path, strerror(errno));
    return 0;
}

/* A validated file image: the preamble and header, and the data's size. */
typedef struct npy_image {
    char head[1024]; /* 8 dims of 19 digits plus the dict and 64 bytes of padding fit easily */
    size_t head_len, data_bytes;
} npy_image;

int trn_npy_build_header(char *buf, size_t size, size_t *len, const char *path, const char *descr,
                         int ndim, const int64_t *shape, size_t *data_bytes, trn_error *e) {
    char norm[8];
    size_t item, count;
    path = name_of(path);
    if (!descr) return trn_errorf(e, "%s: no dtype given for writing", path);
    if (descr_normalise(path, descr, norm, &item, e)) return -1;
    if (ndim < 0 || ndim > TRN_NPY_MAX_DIMS)
        return trn_errorf(e, "%s: cannot write %d dimensions (expected 0 to %d)", path, ndim,
                          TRN_NPY_MAX_DIMS);
    if (shape_count(path, ndim, shape, item, &count, e)) return -1;
    if (size < 1024) return trn_errorf(e, "%s: header buffer too small", path);
    memcpy(buf, NPY_MAGIC "\x01\x00", 8);
    size_t hlen = build_header(buf + 10, size - 10, norm, ndim, shape);
    buf[8] = (char)(hlen & 0xff);
    buf[9] = (char)(hlen >> 8);
    *len = 10 + hlen;
    *data_bytes = count * item;
    return 0;
}

static int build_image(npy_image *im, const char *path, const char *descr, int ndim,
                       const int64_t *shape, const void *data, trn_error *e) {
    if (trn_npy_build_header(im->head, sizeof im->head, &im->head_len, path, descr, ndim, shape,
                             &im->data_bytes, e))
        return -1;
    if (im->data_bytes && !data)
        return trn_errorf(e, "%s: no data given for %zu elements", path,
                          im->data_bytes / (size_t)(descr[2] - '0'));
    return 0;
}

static int write_image(FILE *f, const char *path, const npy_image *im, const void *data,
                       trn_error *e) {
    int rc = write_all(path, f, im->head, im->head_len, e);
    if (rc == 0) rc = write_all(path, f, data, im->data_bytes, e);
    if (rc == 0 && fflush(f) != 0)
        rc = trn_errorf(e, "%s: write failed: %s", path, strerror(errno));
    return rc;
}

int trn_npy_write_stream(FILE *f, const char *name, const char *descr, int ndim,
                         const int64_t *shape, const void *data, trn_error *e) {
    npy_image im;
    name = name_of(name);
    return build_image(&im, name, descr, ndim, shape, data, e) || write_image(f, name, &im, data, e)
               ? -1
               : 0;
}

int trn_npy_write(const char *path, const char *descr, int ndim, const int64_t *shape,
                  const void *data, trn_error *e) {
    npy_image im;
    if (build_image(&im, path, descr, ndim, shape, data, e)) return -1;
    FILE *f = fopen(path, "wb");
    if (!f) return trn_errorf(e, "%s: cannot create: %s", path, strerror(errno));
    /* Only a regular file is removed on failure (never /dev/full & co). */
    struct stat st;
    bool regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    int rc = write_image(f, path, &im, data, e);
    if (fclose(f) != 0 && rc == 0)
        rc = trn_errorf(e, "%s: close failed: %s", path, strerror(errno));
    if (rc && regular) remove(path); /* never leave a partial file behind */
    return rc;
}
