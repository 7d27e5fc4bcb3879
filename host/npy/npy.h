#ifndef TRNSIM_HOST_NPY_NPY_H
#define TRNSIM_HOST_NPY_NPY_H

/* NumPy .npy files: read and write the format (v1.0 / v2.0 / v3.0 headers,
 * little-endian simple dtypes, C order), and move data between a file's
 * dtype and a tensor's dtype by the rules of docs/programs.md ("Data files").
 *
 * Errors as values: every function that can fail returns 0 or -1 after one
 * message in *e that names the file and says what was expected and found. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/common.h"
#include "trnsim/dtype.h"

#define TRN_NPY_MAX_DIMS 8
#define TRN_NPY_NAME_MAX 512

/* One array. descr is normalised: "<f2" "<f4" "<f8" "|i1" "<i2" "<i4" "<i8"
 * "|u1" "<u2" "<u4" "<u8" "|b1" (one-byte types always with '|').
 * count is the product of the shape (1 for 0-d); data holds
 * count * item_size bytes in C order (never NULL after a successful read,
 * even for count 0). name is the path given to trn_npy_read, used in the
 * messages of trn_npy_to_tensor; a struct built by hand may leave it empty. */
typedef struct trn_npy {
    char descr[8];
    int ndim;
    int64_t shape[TRN_NPY_MAX_DIMS];
    size_t item_size;
    size_t count;
    void *data;
    char name[TRN_NPY_NAME_MAX];
} trn_npy;

/* Read a whole file into *out (which the caller frees with trn_npy_free).
 * Accepts v1.0, v2.0 and v3.0 headers with an ASCII dict of exactly the keys
 * descr / fortran_order / shape; descr one of the twelve above ('>' is an
 * error, as is '|' or '=' on a multi-byte type); fortran_order False; at most
 * TRN_NPY_MAX_DIMS non-negative dims of at most 2^32; exactly count * item_size bytes of data
 * (missing or extra bytes are errors). On error *out is left empty (data
 * NULL) and nothing needs freeing. */
int trn_npy_read(const char *path, trn_npy *out, trn_error *e);

/* The same, with check called on the parsed header (descr, ndim, shape,
 * item_size, count and name set; data still NULL) before any data byte is
 * read: a caller that knows what the file must hold refuses a lying or huge
 * header at once. check returns 0, or -1 after a message in *e. */
typedef int (*trn_npy_header_check)(const trn_npy *header, void *ctx, trn_error *e);
int trn_npy_read_checked(const char *path, trn_npy_header_check check, void *ctx, trn_npy *out,
                         trn_error *e);

/* Write a v1.0 file whose header is byte-identical to numpy.save's for the
 * same array (dict, growth-axis spaces, padding so the data starts at a
 * multiple of 64, final '\n'). descr is one of the twelve above (a one-byte
 * type may be given as "<u1" etc.; it is written as numpy does, "|u1").
 * data holds product(shape) elements (may be NULL when that is 0). Either
 * the whole file is written and closed successfully, or -1 is returned and
 * the partial file is removed. */
int trn_npy_write(const char *path, const char *descr, int ndim, const int64_t *shape,
                  const void *data, trn_error *e);

/* The same file written to an open stream (flushed, not closed): for a
 * caller that created the file itself, e.g. exclusively under a temporary
 * name. name is used in messages only. */
int trn_npy_write_stream(FILE *f, const char *name, const char *descr, int ndim,
                         const int64_t *shape, const void *data, trn_error *e);

/* Free the data of a successful read; safe on an emptied or zeroed struct. */
void trn_npy_free(trn_npy *n);

/* Format a shape as Python prints a tuple: "()", "(5,)", "(2, 3)". Returns
 * buf. Used in messages ("shape (2, 3) does not match ..."). */
char *trn_npy_format_shape(char *buf, size_t size, int ndim, const int64_t *shape);

/* Load n into a tensor of dtype dt and shape [ndim, shape] at dst
 * (product(shape) * trn_dtype_width(dt) bytes). The shapes must be equal
 * (the message names both). Conversions:
 *   float32            <f4 (copy)
 *   float32r           <f4 (through trn_narrow_span, i.e. stored as fp32)
 *   float16            <f2 (copy), <f4 (narrowed RNE), <u2 (raw bits)
 *   bfloat16           <f4 (narrowed RNE), <u2 (raw bits)
 *   fp8 (ids 3-7)      <f4 (narrowed RNE, config 0), |u1 (raw bits)
 *   integers           the same integer descr only
 *   packed x4 forms    the unsigned type of their width (<u4 / <u2), raw
 * Anything else: "<name>: dtype <f8 cannot be loaded into a bfloat16 tensor
 * (expected <f4 or <u2)". Nothing is written to dst on error. */
int trn_npy_to_tensor(const trn_npy *n, trn_dtype dt, int ndim, const int64_t *shape, void *dst,
                      trn_error *e);

/* The descr written for a tensor dtype: float32 / float32r "<f4", float16
 * "<f2", bfloat16 "<f4" (widened) or "<u2" with raw_bits, fp8 "<f4" or "|u1"
 * with raw_bits, integers their own, packed x4 forms the unsigned type of
 * their width. NULL for an id outside 0..19. */
const char *trn_npy_descr_for(trn_dtype dt, bool raw_bits);

/* Convert count elements of dt at src into a newly allocated buffer in the
 * descr trn_npy_descr_for(dt, raw_bits), ready for trn_npy_write. The caller
 * frees *out_data with free(). *out_descr is a static string. */
int trn_npy_from_tensor(trn_dtype dt, const void *src, size_t count, bool raw_bits, void **out_data,
                        const char **out_descr, trn_error *e);

/* How .npy data becomes tensor bytes and back (the rules of npy.h and
 * docs/programs.md, "Data files"), as a plan applied to any number of
 * elements at a time: the whole-array calls of npy.h and the streaming
 * reader / writer of npy_stream.h share it, so a file converts the same
 * whether it arrives in one piece or in bounded chunks. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum trn_npy_how {
    TRN_NPY_COPY,   /* the bytes as they are */
    TRN_NPY_NARROW, /* float32 -> the tensor's dtype, RNE */
    TRN_NPY_WIDEN,  /* the tensor's dtype -> float32 (writing) */
    TRN_NPY_F64,    /* float64 -> float32 RNE, then narrowed as a float32 file */
    TRN_NPY_INT     /* an integer of another width or signedness, every value range-checked */
} trn_npy_how;

typedef struct trn_npy_plan {
    trn_npy_how how;
    trn_dtype dt;      /* the tensor's dtype */
    uint32_t src_item; /* bytes per element on the source side */
    uint32_t dst_item; /* bytes per element on the destination side */
    bool src_signed;   /* TRN_NPY_INT: the file's integers are signed */
} trn_npy_plan;

/* How an array with head's descr loads into a tensor of dt. -1 with
 * "<name>: dtype <f8 cannot be loaded into a bfloat16 tensor (expected <f4
 * or <u2)" when no rule allows it. Shapes are not looked at. */
int trn_npy_load_plan(const trn_npy *head, trn_dtype dt, trn_npy_plan *p, trn_error *e);

/* How a tensor of dt is written (descr: trn_npy_descr_for(dt, raw_bits)). */
int trn_npy_save_plan(trn_dtype dt, bool raw_bits, trn_npy_plan *p, const char **descr,
                      trn_error *e);

/* Whether every one of count source elements at src fits the tensor's
 * dtype (TRN_NPY_INT; always true otherwise). first is the index of src[0]
 * in head's array, so that the message names the element of the file:
 * "<name>: element 5 [1, 2] is 300, which does not fit uint8 (0..255); ...". */
int trn_npy_plan_check(const trn_npy_plan *p, const trn_npy *head, const void *src, size_t count,
                       size_t first, trn_error *e);

/* Convert count elements from src to dst (no overlap). Checked first. */
void trn_npy_plan_apply(const trn_npy_plan *p, const void *src, void *dst, size_t count);

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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The conversion buffer's size: large enough that the per-call cost of a
 * read vanishes, small enough to stay in L2 next to its destination. */
#define TRN_NPY_CHUNK ((size_t)1 << 20)

/* ---- reading ---- */

typedef struct trn_npy_in {
    trn_npy head; /* the parsed header; head.data stays NULL */
    int fd;
    bool regular;       /* a regular file (sizes known, skips seek) */
    size_t total, done; /* data bytes in the file, and consumed so far */
    trn_npy_plan plan;  /* set by trn_npy_in_plan */
    bool planned;
    uint8_t *buf; /* TRN_NPY_CHUNK bytes, only for a converting plan */
} trn_npy_in;

/* Open path and read its preamble and header; check (may be NULL) sees
 * the header before any data is read. On error the stream is closed. */
int trn_npy_in_open(trn_npy_in *in, const char *path, trn_npy_header_check check, void *ctx,
                    trn_error *e);

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
    const char *name; /* for messages */
    trn_npy_plan plan;
    size_t total, done; /* data bytes of the file, and written so far */
    uint8_t *buf;       /* TRN_NPY_CHUNK bytes, only for a converting plan */
} trn_npy_out;

/* Write numpy.save's header (npy.h, trn_npy_write) for an array of a
 * tensor of dt and shape [ndim, shape], its descr trn_npy_descr_for(dt,
 * raw_bits), to fd (at its current position). */
int trn_npy_out_begin(trn_npy_out *o, int fd, const char *name, trn_dtype dt, bool raw_bits,
                      int ndim, const int64_t *shape, trn_error *e);

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
int trn_npy_read_header(const char *path, int fd, trn_npy_header_check check, void *ctx,
                        trn_npy *out, trn_error *e);

/* numpy.save's v1.0 preamble and header into buf (1024 bytes are always
 * enough); *data_bytes: what the data must be. */
int trn_npy_build_header(char *buf, size_t size, size_t *len, const char *name, const char *descr,
                         int ndim, const int64_t *shape, size_t *data_bytes, trn_error *e);

/* write(2) until done (short writes, EINTR); "<name>: write failed: ...". */
int trn_npy_write_fd(int fd, const char *name, const void *p, size_t n, trn_error *e);

#endif
