/* NumPy .npy files: read and write the format (v1.0 / v2.0 / v3.0 headers,
 * little-endian simple dtypes, C order), and move data between a file's
 * dtype and a tensor's dtype by the rules of docs/programs.md ("Data files").
 *
 * Errors as values: every function that can fail returns 0 or -1 after one
 * message in *e that names the file and says what was expected and found. */
#ifndef TRNSIM_HOST_NPY_H
#define TRNSIM_HOST_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"
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
int trn_npy_read_checked(const char *path, trn_npy_header_check check, void *ctx, trn_npy *out, trn_error *e);

/* Write a v1.0 file whose header is byte-identical to numpy.save's for the
 * same array (dict, growth-axis spaces, padding so the data starts at a
 * multiple of 64, final '\n'). descr is one of the twelve above (a one-byte
 * type may be given as "<u1" etc.; it is written as numpy does, "|u1").
 * data holds product(shape) elements (may be NULL when that is 0). Either
 * the whole file is written and closed successfully, or -1 is returned and
 * the partial file is removed. */
int trn_npy_write(const char *path, const char *descr, int ndim, const int64_t *shape, const void *data,
                  trn_error *e);

/* The same file written to an open stream (flushed, not closed): for a
 * caller that created the file itself, e.g. exclusively under a temporary
 * name. name is used in messages only. */
int trn_npy_write_stream(FILE *f, const char *name, const char *descr, int ndim, const int64_t *shape,
                         const void *data, trn_error *e);

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
int trn_npy_to_tensor(const trn_npy *n, trn_dtype dt, int ndim, const int64_t *shape, void *dst, trn_error *e);

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

#endif
