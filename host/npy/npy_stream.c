/* .npy data between a file descriptor and tensor bytes, run by run
 * (npy_stream.h): the file's own dtype moves with one system call per run,
 * a conversion goes through one bounded buffer. */
#include "npy/npy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *name_of(const trn_npy *h) { return h->name[0] ? h->name : "npy"; }

static char *shape_text(const trn_npy *h, char *buf, size_t len) {
    return trn_npy_format_shape(buf, len, h->ndim, h->shape);
}

/* ---- reading ---- */

int trn_npy_in_open(trn_npy_in *in, const char *path, trn_npy_header_check check, void *ctx,
                    trn_error *e) {
    memset(in, 0, sizeof *in);
    in->fd = -1;
    snprintf(in->head.name, sizeof in->head.name, "%s", path);
    in->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (in->fd < 0) return trn_errorf(e, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    in->regular = fstat(in->fd, &st) == 0 && S_ISREG(st.st_mode);
    if (trn_npy_read_header(path, in->fd, check, ctx, &in->head, e)) {
        trn_npy_in_close(in);
        return -1;
    }
    in->head.data = NULL;
    in->total = in->head.count * in->head.item_size;
    return 0;
}

int trn_npy_in_plan(trn_npy_in *in, trn_dtype dt, trn_error *e) {
    if (trn_npy_load_plan(&in->head, dt, &in->plan, e)) return -1;
    in->planned = true;
    if (in->plan.how != TRN_NPY_COPY && !in->buf) {
        in->buf = malloc(TRN_NPY_CHUNK);
        if (!in->buf)
            return trn_errorf(e, "%s: out of memory for a %zu-byte conversion buffer",
                              name_of(&in->head), TRN_NPY_CHUNK);
    }
    return 0;
}

/* Exactly n data bytes into dst (EINTR and short reads retried). */
static int read_data(trn_npy_in *in, void *dst, size_t n, trn_error *e) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(in->fd, (char *)dst + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return trn_errorf(e, "%s: read error: %s", name_of(&in->head), strerror(errno));
        if (k == 0) {
            char sh[256];
            return trn_errorf(e, "%s: truncated data: expected %zu bytes for %s %s, found %zu",
                              name_of(&in->head), in->total, in->head.descr,
                              shape_text(&in->head, sh, sizeof sh), in->done + got);
        }
        got += (size_t)k;
    }
    in->done += n;
    return 0;
}

/* Pass over n data bytes: a seek in a regular file, reads through a small
 * buffer in a stream. */
static int skip_data(trn_npy_in *in, size_t n, trn_error *e) {
    if (in->regular && lseek(in->fd, (off_t)n, SEEK_CUR) >= 0) {
        in->done += n;
        return 0;
    }
    char tmp[65536];
    while (n) {
        size_t k = n < sizeof tmp ? n : sizeof tmp;
        if (read_data(in, tmp, k, e)) return -1;
        n -= k;
    }
    return 0;
}

static int too_much(const trn_npy_in *in, size_t bytes, trn_error *e) {
    return trn_errorf(e, "%s: %zu more data bytes asked for, %zu left of %zu", name_of(&in->head),
                      bytes, in->total - in->done, in->total);
}

int trn_npy_in_read_raw(trn_npy_in *in, void *dst, size_t bytes, trn_error *e) {
    if (bytes > in->total - in->done) return too_much(in, bytes, e);
    return dst ? read_data(in, dst, bytes, e) : skip_data(in, bytes, e);
}

int trn_npy_in_read(trn_npy_in *in, void *dst, size_t dst_bytes, trn_error *e) {
    const trn_npy_plan *p = &in->plan;
    if (!in->planned)
        return trn_errorf(e, "%s: no conversion chosen before reading", name_of(&in->head));
    size_t count = dst_bytes / p->dst_item, src_bytes = count * p->src_item;
    if (count * p->dst_item != dst_bytes || src_bytes / p->src_item != count)
        return trn_errorf(e, "%s: %zu tensor bytes are not whole %u-byte elements",
                          name_of(&in->head), dst_bytes, p->dst_item);
    if (src_bytes > in->total - in->done) return too_much(in, src_bytes, e);
    if (p->how == TRN_NPY_COPY || !dst) return trn_npy_in_read_raw(in, dst, src_bytes, e);
    size_t per_chunk = TRN_NPY_CHUNK / p->src_item;
    uint8_t *out = dst;
    while (count) {
        size_t k = count < per_chunk ? count : per_chunk;
        size_t first = in->done / p->src_item; /* the file's element index, for a message */
        if (read_data(in, in->buf, k * p->src_item, e) ||
            trn_npy_plan_check(p, &in->head, in->buf, k, first, e))
            return -1;
        trn_npy_plan_apply(p, in->buf, out, k);
        out += k * p->dst_item;
        count -= k;
    }
    return 0;
}

int trn_npy_in_finish(trn_npy_in *in, trn_error *e) {
    char sh[256];
    if (in->done != in->total)
        return trn_errorf(e, "%s: %zu of %zu data bytes were used", name_of(&in->head), in->done,
                          in->total);
    unsigned char extra;
    ssize_t k;
    do k = read(in->fd, &extra, 1);
    while (k < 0 && errno == EINTR);
    if (k < 0) return trn_errorf(e, "%s: read error: %s", name_of(&in->head), strerror(errno));
    if (k)
        return trn_errorf(
            e, "%s: extra bytes after the data: expected %zu bytes for %s %s, found more",
            name_of(&in->head), in->total, in->head.descr, shape_text(&in->head, sh, sizeof sh));
    return 0;
}

void trn_npy_in_close(trn_npy_in *in) {
    if (in->fd >= 0) close(in->fd);
    in->fd = -1;
    free(in->buf);
    in->buf = NULL;
}

/* ---- writing ---- */

int trn_npy_write_fd(int fd, const char *name, const void *p, size_t n, trn_error *e) {
    const char *at = p;
    while (n) {
        ssize_t k = write(fd, at, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0)
            return trn_errorf(e, "%s: write failed: %s", name,
                              k < 0 ? strerror(errno) : "no progress");
        at += k;
        n -= (size_t)k;
    }
    return 0;
}

int trn_npy_out_begin(trn_npy_out *o, int fd, const char *name, trn_dtype dt, bool raw_bits,
                      int ndim, const int64_t *shape, trn_error *e) {
    memset(o, 0, sizeof *o);
    o->fd = fd;
    o->name = name && name[0] ? name : "npy";
    const char *descr;
    if (trn_npy_save_plan(dt, raw_bits, &o->plan, &descr, e)) return -1;
    char head[1024];
    size_t len;
    if (trn_npy_build_header(head, sizeof head, &len, o->name, descr, ndim, shape, &o->total, e))
        return -1;
    if (o->plan.how != TRN_NPY_COPY) {
        o->buf = malloc(TRN_NPY_CHUNK);
        if (!o->buf)
            return trn_errorf(e, "%s: out of memory for a %zu-byte conversion buffer", o->name,
                              TRN_NPY_CHUNK);
    }
    return trn_npy_write_fd(fd, o->name, head, len, e);
}

int trn_npy_out_write(trn_npy_out *o, const void *src, size_t src_bytes, trn_error *e) {
    const trn_npy_plan *p = &o->plan;
    size_t count = src_bytes / p->src_item, bytes = count * p->dst_item;
    if (count * p->src_item != src_bytes)
        return trn_errorf(e, "%s: %zu tensor bytes are not whole %u-byte elements", o->name,
                          src_bytes, p->src_item);
    if (bytes > o->total - o->done)
        return trn_errorf(e, "%s: %zu more data bytes given, the header announces %zu", o->name,
                          bytes, o->total - o->done);
    o->done += bytes;
    if (p->how == TRN_NPY_COPY) return trn_npy_write_fd(o->fd, o->name, src, bytes, e);
    size_t per_chunk = TRN_NPY_CHUNK / p->dst_item;
    const uint8_t *in = src;
    while (count) {
        size_t k = count < per_chunk ? count : per_chunk;
        trn_npy_plan_apply(p, in, o->buf, k);
        if (trn_npy_write_fd(o->fd, o->name, o->buf, k * p->dst_item, e)) return -1;
        in += k * p->src_item;
        count -= k;
    }
    return 0;
}

int trn_npy_out_end(trn_npy_out *o, trn_error *e) {
    int rc = o->done == o->total
                 ? 0
                 : trn_errorf(e, "%s: %zu of the %zu data bytes the header announces were written",
                              o->name, o->done, o->total);
    trn_npy_out_abandon(o);
    return rc;
}

void trn_npy_out_abandon(trn_npy_out *o) {
    free(o->buf);
    o->buf = NULL;
}
