/* NonzeroWithCount (IT 104): the NKI nonzero_with_count layout, as a pure
 * kernel on dense fp32 rows. No host API here.
 *
 * One partition of T input elements gives T + 1 output slots:
 *   slots 0 .. N-1   index_offset + i for each element i with x[i] != 0,
 *                    in ascending i (compacted to the front);
 *   slots N .. T-1   padding;
 *   slot  T          N, the count.
 * "Nonzero" is the IEEE test x != 0.0f on the fp32-widened value: NaN is
 * nonzero (unordered, so != is true), -0.0 is zero, subnormals are nonzero.
 * Slots are 32-bit two's complement words (int32 or uint32 in memory). */
#ifndef TRNSIM_EXP_NONZERO_H
#define TRNSIM_EXP_NONZERO_H

#include <stddef.h>
#include <stdint.h>

#define EXP_NONZERO_DEFAULT_PAD (-1)

/* One row: src[0..n-1] -> dst[0..n]; returns the count N. The caller has
 * checked that index_offset + (n - 1) and pad fit the destination. */
uint32_t exp_nonzero_row(const float *src, size_t n, int64_t index_offset, int64_t pad,
                         uint32_t *dst);

/* rows x n inputs -> rows x (n + 1) slots. */
void exp_nonzero_rows(const float *src, size_t rows, size_t n, int64_t index_offset, int64_t pad,
                      uint32_t *dst);

#endif
