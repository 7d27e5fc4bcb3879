/* DVE search family kernels (IT 88-91): pure functions on one dense fp32 row.
 *
 * These know nothing of the host: the handlers (search_ops.c) read each
 * operand into a dense [partitions][elements] fp32 buffer and call these once
 * per partition row. The plain transliteration of the reference's code lives in
 * plugins/search/ref/search_oracle.c; every function here equals it bit for bit.
 */
#ifndef TRNSIM_SEARCH_KERNELS_H
#define TRNSIM_SEARCH_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* The silicon DVE lane width: 8 values / indices per partition. */
#define SEARCH_K 8
/* Elements per partition of the data operand: 8 <= n <= 16384. */
#define SEARCH_MIN_DATA 8
#define SEARCH_MAX_DATA 16384
/* Index of a value that matched nothing (or was NaN). */
#define SEARCH_NOT_FOUND UINT32_C(0xFFFFFFFF)

/* Which of several equal values in vals takes the earliest occurrence.
 * ASCENDING is the reference (slot 0 the earliest); DESCENDING reverses the
 * assignment within each group of equal values (the NKI documentation). */
typedef enum search_order { SEARCH_ASCENDING = 0, SEARCH_DESCENDING = 1 } search_order;

/* Max (IT 88): the 8 largest of data[0..n) into out[0..8), by the reference's
 * descending insertion with a strict '>' (earliest wins ties, NaN sticky).
 * Requires n >= SEARCH_K (the handler enforces it). */
void search_max8_row(const float *data, size_t n, float out[SEARCH_K]);

/* The one-to-one match shared by IT 89, 90 and 91: idx[k] is the index of
 * the occurrence of vals[k] that the reference's ascending scan assigns to slot k
 * (strict IEEE ==, so NaN never matches and -0.0 matches +0.0), or
 * SEARCH_NOT_FOUND. Every matched index is distinct. */
void search_find8_row(const float *data, size_t n, const float vals[SEARCH_K], search_order order,
                      uint32_t idx[SEARCH_K]);

/* The replacement of IT 90/91 given search_find8_row's idx: row[idx[k]] =
 * sentinel for every found k. Equal to the reference's copy-then-replace loop
 * because each data element matches at most one slot. */
void search_replace8_row(float *row, const uint32_t idx[SEARCH_K], float sentinel);

/* Which block tests the kernels run on this CPU and build: "avx", "sse" or
 * "plain" (the tests check that each build runs the path it is for). */
const char *search_kernel_blocks(void);

#endif
