/* NumPy .npy reader / writer and the tensor <-> file dtype rules (npy.h).
 *
 * Format (numpy/lib/format.py): "\x93NUMPY", major, minor, a little-endian
 * header length (uint16 for 1.0, uint32 for 2.0 / 3.0), then the header: a
 * Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': ...}
 * padded with spaces and '\n', then the raw C-order data. */
#include "frontend/npy.h"

#include "frontend/npy_convert.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arith/arith.h"

/* The data is moved with memcpy: the host must be little-endian like the
 * files we accept and write. */
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy.c assumes a little-endian host");

#define NPY_MAGIC "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN 64
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
static int descr_normalise(const char *path, const char *s, char out[8], size_t *item, trn_error *e) {
    size_t len = strlen(s);
    const char *found = NULL;
    if (len >= 3 && len <= 4 && strchr("<>|=", s[0])) {
        for (size_t i = 0; i < sizeof NPY_DESCRS / sizeof NPY_DESCRS[0]; i++)
            if (strcmp(NPY_DESCRS[i] + 1, s + 1) == 0) found = NPY_DESCRS[i];
    }
    if (!found)
        return trn_errorf(e, "%s: unsupported dtype '%s' (expected one of " NPY_DESCR_LIST ")", name_of(path), s);
    size_t size = (size_t)(found[2] - '0');
    if (size > 1 && s[0] == '>')
        return trn_errorf(e, "%s: big-endian dtype '%s' is not supported (expected little-endian '%s')",
                          name_of(path), s, found);
    if (size > 1 && s[0] != '<')
        return trn_errorf(e, "%s: dtype '%s' has no explicit byte order (expected little-endian '%s')",
                          name_of(path), s, found);
    snprintf(out, 8, "%s", found);
    *item = size;
    return 0;
}

char *trn_npy_format_shape(char *buf, size_t size, int ndim, const int64_t *shape) {
    size_t at = 0;
    if (size == 0) return buf;
    buf[0] = '\0';
#define PUT(...)                                                               \
    do {                                                                       \
        if (at < size) {                                                       \
            int k_ = snprintf(buf + at, size - at, __VA_ARGS__);               \
            at = k_ < 0 ? size : at + (size_t)k_;                              \
        }                                                                      \
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
                              trn_npy_format_shape(sh, sizeof sh, ndim, shape), (long long)shape[i]);
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
    while (hp->p < hp->end && (*hp->p == ' ' || *hp->p == '\t' || *hp->p == '\n' || *hp->p == '\r')) hp->p++;
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
    return trn_errorf(hp->e, "%s: bad header dict at byte %zu: expected %s, found %s", name_of(hp->path),
                      hp->file_offset + (size_t)(hp->p - hp->begin), expected, found);
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
    if (hp->p >= hp->end || *hp->p < '0' || *hp->p > '9') return hp_fail(hp, "an integer dimension");
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
            return trn_errorf(hp->e, "%s: bad header dict at byte %zu: %s key '%s' (expected exactly 'descr', "
                              "'fortran_order' and 'shape')", name_of(hp->path),
                              hp->file_offset + (size_t)(key_at - hp->begin), k < 0 ? "unexpected" : "repeated",
                              key);
        }
        seen[k] = true;
        if (hp_expect(hp, ':', "':' after the key")) return -1;
        int rc = k == 0 ? hp_string(hp, f->descr, sizeof f->descr, "a quoted dtype string such as '<f4'")
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
            return trn_errorf(hp->e, "%s: header dict has no '%s' key (expected 'descr', 'fortran_order' and "
                              "'shape')", name_of(hp->path), keys[i]);
    return 0;
}

/* ---- read ----------------------------------------------------------------- */

/* Read exactly n bytes; *got says how many arrived before EOF or an error. */
static int read_exact(FILE *f, void *buf, size_t n, size_t *got) {
    *got = fread(buf, 1, n, f);
    return *got == n ? 0 : -1;
}

static int bad_magic(const char *path, const unsigned char *pre, size_t got, trn_error *e) {
    if (got == 0) return trn_errorf(e, "%s: not a .npy file (the file is empty)", path);
    char found[64] = "";
    size_t at = 0;
    for (size_t i = 0; i < got && i < NPY_MAGIC_LEN; i++)
        at += (size_t)snprintf(found + at, sizeof found - at, "\\x%02x", pre[i]);
    return trn_errorf(e, "%s: not a .npy file (expected the magic \"\\x93NUMPY\", found \"%s\")", path, found);
}

/* Magic, version and header length; *hstart is where the header begins. */
static int read_preamble(const char *path, FILE *f, uint32_t *hlen, size_t *hstart, trn_error *e) {
    unsigned char pre[12];
    size_t got;
    if (read_exact(f, pre, 8, &got)) {
        size_t m = got < NPY_MAGIC_LEN ? got : NPY_MAGIC_LEN;
        if (ferror(f)) return trn_errorf(e, "%s: read error: %s", path, strerror(errno));
        if (got == 0 || memcmp(pre, NPY_MAGIC, m) != 0) return bad_magic(path, pre, got, e);
        return trn_errorf(e, "%s: truncated preamble: the file has %zu bytes, a .npy preamble needs at least 10",
                          path, got);
    }
    if (memcmp(pre, NPY_MAGIC, NPY_MAGIC_LEN) != 0) return bad_magic(path, pre, got, e);
    unsigned major = pre[6], minor = pre[7];
    if (!((major == 1 || major == 2 || major == 3) && minor == 0))
        return trn_errorf(e, "%s: unsupported .npy format version %u.%u (expected 1.0, 2.0 or 3.0)", path, major,
                          minor);
    size_t lenbytes = major == 1 ? 2 : 4;
    if (read_exact(f, pre + 8, lenbytes, &got)) {
        if (ferror(f)) return trn_errorf(e, "%s: read error: %s", path, strerror(errno));
        return trn_errorf(e, "%s: truncated preamble: the file has %zu bytes, a version %u.0 preamble needs %zu",
                          path, 8 + got, major, 8 + lenbytes);
    }
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
    hdr_parser hp = {.path = path, .begin = text, .p = text, .end = text + len, .file_offset = hstart, .e = e};
    if (hp_dict(&hp, &f)) return -1;
    if (f.fortran_order)
        return trn_errorf(e, "%s: fortran_order True is not supported (expected False: save a C-contiguous "
                          "array, e.g. numpy.ascontiguousarray)", path);
    if (descr_normalise(path, f.descr, out->descr, &out->item_size, e)) return -1;
    out->ndim = f.ndim;
    memcpy(out->shape, f.shape, sizeof f.shape);
    return shape_count(path, f.ndim, f.shape, out->item_size, &out->count, e);
}

/* Read the data: exactly count * item_size bytes, then EOF. At most one
 * byte past the data is read: a stream with endless trailing bytes ends. */
static int read_data(const char *path, FILE *f, trn_npy *out, size_t offset, trn_error *e) {
    size_t bytes = out->count * out->item_size, got;
    char sh[256];
    trn_npy_format_shape(sh, sizeof sh, out->ndim, out->shape);
    struct stat st;
    bool regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    if (regular && (uint64_t)st.st_size < (uint64_t)offset + bytes)
        return trn_errorf(e, "%s: truncated data: expected %zu bytes for %s %s, found %llu", path, bytes,
                          out->descr, sh, (unsigned long long)((uint64_t)st.st_size - offset));
    if (regular && (uint64_t)st.st_size > (uint64_t)offset + bytes) {
        unsigned long long more = (unsigned long long)((uint64_t)st.st_size - offset - bytes);
        return trn_errorf(e, "%s: %llu extra bytes after the data: expected %zu bytes for %s %s, found %llu", path,
                          more, bytes, out->descr, sh, more + bytes);
    }
    out->data = malloc(bytes ? bytes : 1);
    if (!out->data) return trn_errorf(e, "%s: out of memory for %zu bytes of data", path, bytes);
    if (read_exact(f, out->data, bytes, &got)) {
        if (ferror(f)) return trn_errorf(e, "%s: read error: %s", path, strerror(errno));
        return trn_errorf(e, "%s: truncated data: expected %zu bytes for %s %s, found %zu", path, bytes,
                          out->descr, sh, got);
    }
    unsigned char extra;
    size_t k = fread(&extra, 1, 1, f);
    if (ferror(f)) return trn_errorf(e, "%s: read error: %s", path, strerror(errno));
    if (k)
        return trn_errorf(e, "%s: extra bytes after the data: expected %zu bytes for %s %s, found more", path, bytes,
                          out->descr, sh);
    return 0;
}

static int read_file(const char *path, FILE *f, trn_npy *out, trn_npy_header_check check, void *ctx,
                     trn_error *e) {
    uint32_t hlen = 0;
    size_t hstart = 0;
    if (read_preamble(path, f, &hlen, &hstart, e)) return -1;
    struct stat st;
    uint64_t left = 0;
    bool sized = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    if (sized) left = (uint64_t)st.st_size > hstart ? (uint64_t)st.st_size - hstart : 0;
    if (sized && hlen > left)
        return trn_errorf(e, "%s: truncated header: the preamble announces %u header bytes, %llu follow", path,
                          hlen, (unsigned long long)left);
    if (hlen > NPY_HEADER_MAX)
        return trn_errorf(e, "%s: header length %u is implausible (at most %u)", path, hlen, NPY_HEADER_MAX);
    char *text = malloc(hlen ? hlen : 1);
    if (!text) return trn_errorf(e, "%s: out of memory for a %u-byte header", path, hlen);
    size_t got;
    int rc = 0;
    if (read_exact(f, text, hlen, &got))
        rc = ferror(f) ? trn_errorf(e, "%s: read error: %s", path, strerror(errno))
                       : trn_errorf(e, "%s: truncated header: the preamble announces %u header bytes, %zu follow",
                                    path, hlen, got);
    if (rc == 0) rc = parse_header(path, text, hlen, hstart, out, e);
    free(text);
    if (rc == 0 && check) rc = check(out, ctx, e); /* before a single data byte is read */
    if (rc == 0) rc = read_data(path, f, out, hstart + hlen, e);
    return rc;
}

int trn_npy_read_checked(const char *path, trn_npy_header_check check, void *ctx, trn_npy *out, trn_error *e) {
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", path);
    FILE *f = fopen(path, "rb");
    if (!f) return trn_errorf(e, "%s: cannot open: %s", path, strerror(errno));
    int rc = read_file(path, f, out, check, ctx, e);
    fclose(f);
    if (rc) {
        trn_npy_free(out);
        return -1;
    }
    return 0;
}

int trn_npy_read(const char *path, trn_npy *out, trn_error *e) { return trn_npy_read_checked(path, NULL, NULL, out, e); }

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
static size_t build_header(char *buf, size_t size, const char *descr, int ndim, const int64_t *shape) {
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
    if (n && fwrite(p, 1, n, f) != n) return trn_errorf(e, "%s: write failed: %s", path, strerror(errno));
    return 0;
}

/* A validated file image: the preamble and header, and the data's size. */
typedef struct npy_image {
    char head[1024]; /* 8 dims of 19 digits plus the dict and 64 bytes of padding fit easily */
    size_t head_len, data_bytes;
} npy_image;

static int build_image(npy_image *im, const char *path, const char *descr, int ndim, const int64_t *shape,
                       const void *data, trn_error *e) {
    char norm[8];
    size_t item, count;
    if (!descr) return trn_errorf(e, "%s: no dtype given for writing", path);
    if (descr_normalise(path, descr, norm, &item, e)) return -1;
    if (ndim < 0 || ndim > TRN_NPY_MAX_DIMS)
        return trn_errorf(e, "%s: cannot write %d dimensions (expected 0 to %d)", path, ndim, TRN_NPY_MAX_DIMS);
    if (shape_count(path, ndim, shape, item, &count, e)) return -1;
    if (count && !data) return trn_errorf(e, "%s: no data given for %zu elements", path, count);
    memcpy(im->head, NPY_MAGIC "\x01\x00", 8);
    size_t hlen = build_header(im->head + 10, sizeof im->head - 10, norm, ndim, shape);
    im->head[8] = (char)(hlen & 0xff);
    im->head[9] = (char)(hlen >> 8);
    im->head_len = 10 + hlen;
    im->data_bytes = count * item;
    return 0;
}

static int write_image(FILE *f, const char *path, const npy_image *im, const void *data, trn_error *e) {
    int rc = write_all(path, f, im->head, im->head_len, e);
    if (rc == 0) rc = write_all(path, f, data, im->data_bytes, e);
    if (rc == 0 && fflush(f) != 0) rc = trn_errorf(e, "%s: write failed: %s", path, strerror(errno));
    return rc;
}

int trn_npy_write_stream(FILE *f, const char *name, const char *descr, int ndim, const int64_t *shape,
                         const void *data, trn_error *e) {
    npy_image im;
    name = name_of(name);
    return build_image(&im, name, descr, ndim, shape, data, e) || write_image(f, name, &im, data, e) ? -1 : 0;
}

int trn_npy_write(const char *path, const char *descr, int ndim, const int64_t *shape, const void *data,
                  trn_error *e) {
    npy_image im;
    if (build_image(&im, path, descr, ndim, shape, data, e)) return -1;
    FILE *f = fopen(path, "wb");
    if (!f) return trn_errorf(e, "%s: cannot create: %s", path, strerror(errno));
    /* Only a regular file is removed on failure (never /dev/full & co). */
    struct stat st;
    bool regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    int rc = write_image(f, path, &im, data, e);
    if (fclose(f) != 0 && rc == 0) rc = trn_errorf(e, "%s: close failed: %s", path, strerror(errno));
    if (rc && regular) remove(path); /* never leave a partial file behind */
    return rc;
}

/* ---- tensor rules ----------------------------------------------------------- */

typedef enum npy_conv { CONV_COPY, CONV_NARROW, CONV_WIDEN } npy_conv;

typedef struct npy_rule {
    const char *descr;
    npy_conv how;
} npy_rule;

static bool is_fp8(trn_dtype dt) { return dt >= TRN_DT_FP8_E3M4 && dt <= TRN_DT_FP8_E5M2; }

static bool is_packed(trn_dtype dt) {
    return dt == TRN_DT_FP8_E4M3_X4 || dt == TRN_DT_FP8_E5M2_X4 || dt == TRN_DT_FP4_E2M1_X4;
}

static const char *unsigned_descr(uint32_t width) {
    switch (width) {
    case 1: return "|u1";
    case 2: return "<u2";
    case 4: return "<u4";
    case 8: return "<u8";
    default: return NULL;
    }
}

/* The integer dtypes' own descr, NULL for the rest. */
static const char *integer_descr(trn_dtype dt) {
    switch (dt) {
    case TRN_DT_INT8: return "|i1";
    case TRN_DT_UINT8: return "|u1";
    case TRN_DT_INT16: return "<i2";
    case TRN_DT_UINT16: return "<u2";
    case TRN_DT_UINT32: return "<u4";
    case TRN_DT_INT32: return "<i4";
    case TRN_DT_UINT64: return "<u8";
    case TRN_DT_INT64: return "<i8";
    default: return NULL;
    }
}

/* The descrs a tensor of dt loads from, and how; returns how many. */
static int load_rules(trn_dtype dt, npy_rule r[3]) {
    if (dt == TRN_DT_FP32) return r[0] = (npy_rule){"<f4", CONV_COPY}, 1;
    if (dt == TRN_DT_FP32R) return r[0] = (npy_rule){"<f4", CONV_NARROW}, 1;
    if (dt == TRN_DT_FP16) {
        r[0] = (npy_rule){"<f2", CONV_COPY};
        r[1] = (npy_rule){"<f4", CONV_NARROW};
        r[2] = (npy_rule){"<u2", CONV_COPY};
        return 3;
    }
    if (dt == TRN_DT_BF16) {
        r[0] = (npy_rule){"<f4", CONV_NARROW};
        r[1] = (npy_rule){"<u2", CONV_COPY};
        return 2;
    }
    if (is_fp8(dt)) {
        r[0] = (npy_rule){"<f4", CONV_NARROW};
        r[1] = (npy_rule){"|u1", CONV_COPY};
        return 2;
    }
    if (integer_descr(dt)) return r[0] = (npy_rule){integer_descr(dt), CONV_COPY}, 1;
    if (is_packed(dt) && unsigned_descr(trn_dtype_width(dt)))
        return r[0] = (npy_rule){unsigned_descr(trn_dtype_width(dt)), CONV_COPY}, 1;
    return 0;
}

static bool shapes_equal(int na, const int64_t *a, int nb, const int64_t *b) {
    if (na != nb) return false;
    for (int i = 0; i < na; i++)
        if (a[i] != b[i]) return false;
    return true;
}

int trn_npy_to_tensor(const trn_npy *n, trn_dtype dt, int ndim, const int64_t *shape, void *dst, trn_error *e) {
    const char *name = name_of(n->name);
    npy_rule rules[3];
    int nrules = (unsigned)dt < TRN_DT_COUNT ? load_rules(dt, rules) : 0;
    if (nrules == 0) return trn_errorf(e, "%s: cannot load into a tensor of unknown dtype id %d", name, (int)dt);
    if (ndim < 0 || !shapes_equal(n->ndim, n->shape, ndim, shape)) {
        char a[256], b[256];
        return trn_errorf(e, "%s: shape %s does not match the tensor's shape %s", name,
                          trn_npy_format_shape(a, sizeof a, n->ndim, n->shape),
                          trn_npy_format_shape(b, sizeof b, ndim < 0 ? 0 : ndim, shape));
    }
    const npy_rule *rule = NULL;
    for (int i = 0; i < nrules; i++)
        if (strcmp(rules[i].descr, n->descr) == 0) rule = &rules[i];
    if (!rule && n->count && !n->data) return trn_errorf(e, "%s: no data", name);
    int converted = rule ? 1 : trn_npy_convert(n, dt, dst, e); /* float64, other integer widths */
    if (converted <= 0) return converted;
    if (!rule) {
        char list[64] = "";
        size_t at = 0;
        for (int i = 0; i < nrules; i++)
            at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i == 0 ? "" : i + 1 == nrules ? " or " : ", ",
                                   rules[i].descr);
        return trn_errorf(e, "%s: dtype %s cannot be loaded into a %s tensor (expected %s)", name, n->descr,
                          trn_dtype_name(dt), list);
    }
    if (n->count && !n->data) return trn_errorf(e, "%s: no data", name);
    if (rule->how == CONV_NARROW)
        trn_narrow_span(dt, (const float *)n->data, dst, n->count);
    else if (n->count)
        memcpy(dst, n->data, n->count * n->item_size);
    return 0;
}

const char *trn_npy_descr_for(trn_dtype dt, bool raw_bits) {
    if ((unsigned)dt >= TRN_DT_COUNT) return NULL;
    if (dt == TRN_DT_FP32 || dt == TRN_DT_FP32R) return "<f4";
    if (dt == TRN_DT_FP16) return "<f2";
    if (dt == TRN_DT_BF16) return raw_bits ? "<u2" : "<f4";
    if (is_fp8(dt)) return raw_bits ? "|u1" : "<f4";
    if (integer_descr(dt)) return integer_descr(dt);
    return unsigned_descr(trn_dtype_width(dt));
}

/* How a tensor of dt is written: widened to fp32, or its bytes as they are. */
static npy_conv write_conv(trn_dtype dt, bool raw_bits) {
    if (dt == TRN_DT_FP32R) return CONV_WIDEN;
    if (dt == TRN_DT_BF16 || is_fp8(dt)) return raw_bits ? CONV_COPY : CONV_WIDEN;
    return CONV_COPY;
}

int trn_npy_from_tensor(trn_dtype dt, const void *src, size_t count, bool raw_bits, void **out_data,
                        const char **out_descr, trn_error *e) {
    const char *descr = trn_npy_descr_for(dt, raw_bits);
    *out_data = NULL;
    *out_descr = NULL;
    if (!descr) return trn_errorf(e, "cannot write a tensor of unknown dtype id %d", (int)dt);
    size_t item = (size_t)(descr[2] - '0');
    if (count > SIZE_MAX / item) return trn_errorf(e, "%s tensor of %zu elements is too large", trn_dtype_name(dt), count);
    if (count && !src) return trn_errorf(e, "%s tensor: no data for %zu elements", trn_dtype_name(dt), count);
    void *buf = malloc(count ? count * item : 1);
    if (!buf) return trn_errorf(e, "out of memory for %zu bytes (%s tensor)", count * item, trn_dtype_name(dt));
    if (write_conv(dt, raw_bits) == CONV_WIDEN)
        trn_widen_span(dt, src, (float *)buf, count);
    else if (count)
        memcpy(buf, src, count * item);
    *out_data = buf;
    *out_descr = descr;
    return 0;
}
