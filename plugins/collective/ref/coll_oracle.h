/* The scalar oracle: doReduction @ 0x1b3400 transliterated, with the SSE instructions the
 * disassembly shows (movss (x); addss/maxss/minss (acc)) written as inline
 * assembly, so the oracle's NaN and tie behaviour is the instruction's,
 * not the C compiler's. Plus the routing kinds written as plain index
 * loops over (source, element). */
#ifndef COLL_ORACLE_H
#define COLL_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* acc = addss(x, acc) etc.: x in the destination register, acc the source. */
float oracle_addss(float x, float acc);
float oracle_maxss(float x, float acc);
float oracle_minss(float x, float acc);
float oracle_mulss(float x, float s);

/* doReduction: 0, or -1 where the reference throws "Unsupported OP type". */
int oracle_do_reduction(int64_t op, const float *const *ins, size_t n_ins, size_t n, bool has_scale,
                        float scale, float *res);

/* Routing: out positions computed element by element; elements are w bytes
 * (4 for fp32), moved with memcpy. */
void oracle_gather_flat(void *dst, const void *const *srcs, size_t n, size_t e, size_t w);
void oracle_gather_rows(void *dst, const void *const *srcs, size_t n, size_t parts, size_t f,
                        size_t w);
void oracle_alltoall(void *dst, const void *const *srcs, size_t n, size_t j, size_t total,
                     size_t w);
void oracle_alltoallv(void *dst, const void *const *srcs, size_t n, size_t j, const int64_t *counts,
                      size_t w);

#endif
