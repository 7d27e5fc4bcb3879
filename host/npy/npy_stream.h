/* .npy data streamed between a file descriptor and tensor bytes, with no
 * copy of the whole array: the caller hands over the tensor's bytes run by
 * run (straight from or into simulator memory), a run of the file's own
 * dtype moves with one read(2) / write(2), and a converted run goes through
 * one bounded buffer of TRN_NPY_CHUNK bytes (docs/internals/datapath.md).
 *
 * The checks are those of trn_npy_read_checked (npy.h): the header is
 * parsed and given to the caller's check before any data byte is read; a
 * regular file's size must match the header at once; a stream is read at
 * most one byte past its data. Messages name the file. */
#ifndef TRNSIM_HOST_NPY_STREAM_H
#define TRNSIM_HOST_NPY_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "npy/npy.h"
#include "npy/npy_convert.h"

/* The conversion buffer's size: large enough that the per-call cost of a
 * read vanishes, small enough to stay in L2 next to its destination. */
#define TRN_NPY_CHUNK ((size_t)1 << 20)

/* ---- reading ---- */

typedef struct trn_npy_in {
    trn_npy head;        /* the parsed header; head.data stays NULL */
    int fd;
    bool regular;        /* a regular file (sizes known, skips seek) */
    size_t total, done;  /* data bytes in the file, and consumed so far */
    trn_npy_plan plan;   /* set by trn_npy_in_plan */
    bool planned;
    uint8_t *buf;        /* TRN_NPY_CHUNK bytes, only for a converting plan */
} trn_npy_in;

/* Open path and read its preamble and header; check (may be NULL) sees
 * the header before any data is read. On error the stream is closed. */
int trn_npy_in_open(trn_npy_in *in, const char *path, trn_npy_header_check check, void *ctx, trn_error *e);

/* Choose how the data loads into a tensor of dt (npy_convert.h); the
 * dtype error of trn_npy_to_tensor when none does. */
int trn_npy_in_plan(trn_npy_in *in, trn_dtype dt, trn_error *e);

/* The next dst_bytes bytes of tensor data (whole elements of the plan's
 * dtype), read and converted into dst; dst NULL skips them. A run in the
 * file's dtype is read straight into dst. A value that does not fit, a
 * short file or a read error: -1 with the message (earlier runs stay
 * written: the caller discards what it filled). */
int trn_npy_in_read(trn_npy_in *in, void *dst, size_t dst_bytes, trn_error *e);

/* The raw data bytes (no plan needed): for trn_npy_read's whole copy. */
int trn_npy_in_read_raw(trn_npy_in *in, void *dst, size_t bytes, trn_error *e);

/* Every data byte was consumed, and nothing follows (one byte is tried). */
int trn_npy_in_finish(trn_npy_in *in, trn_error *e);

void trn_npy_in_close(trn_npy_in *in);

/* ---- writing ---- */

typedef struct trn_npy_out {
    int fd;
    const char *name;     /* for messages */
    trn_npy_plan plan;
    size_t total, done;   /* data bytes of the file, and written so far */
    uint8_t *buf;         /* TRN_NPY_CHUNK bytes, only for a converting plan */
} trn_npy_out;

/* Write numpy.save's header (npy.h, trn_npy_write) for an array of a
 * tensor of dt and shape [ndim, shape], its descr trn_npy_descr_for(dt,
 * raw_bits), to fd (at its current position). */
int trn_npy_out_begin(trn_npy_out *o, int fd, const char *name, trn_dtype dt, bool raw_bits, int ndim,
                      const int64_t *shape, trn_error *e);

/* The next src_bytes bytes of the tensor (whole elements of dt): written
 * straight from src, or converted through the bounded buffer. */
int trn_npy_out_write(trn_npy_out *o, const void *src, size_t src_bytes, trn_error *e);

/* Every byte the header announced was written. Frees the buffer. */
int trn_npy_out_end(trn_npy_out *o, trn_error *e);

/* Frees the buffer after a failure (the caller removes the file). */
void trn_npy_out_abandon(trn_npy_out *o);

/* ---- shared with npy.c ---- */

/* Preamble and header of a file open at fd, then the caller's check, then
 * the data size against a regular file's size. */
int trn_npy_read_header(const char *path, int fd, trn_npy_header_check check, void *ctx, trn_npy *out,
                        trn_error *e);

/* numpy.save's v1.0 preamble and header into buf (1024 bytes are always
 * enough); *data_bytes: what the data must be. */
int trn_npy_build_header(char *buf, size_t size, size_t *len, const char *name, const char *descr, int ndim,
                         const int64_t *shape, size_t *data_bytes, trn_error *e);

/* write(2) until done (short writes, EINTR); "<name>: write failed: ...". */
int trn_npy_write_fd(int fd, const char *name, const void *p, size_t n, trn_error *e);

#endif
