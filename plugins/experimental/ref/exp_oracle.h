/* Scalar oracle of the experimental opcodes, written from docs/experimental.md (the
 * reference's XORWOW and MT19937-64 seeding, and the NKI nonzero_with_count description), one
 * element at a time and sharing no code with plugins/experimental. */
#ifndef TRNSIM_EXP_ORACLE_H
#define TRNSIM_EXP_ORACLE_H

#include <stddef.h>
#include <stdint.h>

/* NonzeroWithCount, one partition: n inputs -> n + 1 int32 slots. */
void oracle_nonzero_row(const float *x, size_t n, int64_t index_offset, int64_t pad, int32_t *out);

/* generateXorwowRandom, as the reference prints it. */
uint32_t oracle_xorwow(uint32_t s[6]);

/* MT19937-64: init_genrand64 and genrand64_int64. */
typedef struct oracle_mt {
    uint64_t mt[312];
    int mti;
} oracle_mt;
void oracle_mt_seed(oracle_mt *m, uint64_t seed);
uint64_t oracle_mt_next(oracle_mt *m);

/* Truncate a 32-bit draw to width bytes (LSBs kept) and return the value
 * the destination dtype holds, sign-extended for signed dtypes. */
int64_t oracle_truncate(uint32_t bits, unsigned width, int is_signed);

#endif
