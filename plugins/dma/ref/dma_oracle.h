/* Scalar transliterations of seed section 5 (doDMACCE, doDMATranspose,
 * doDMAReplicate, AluOpType2MemoryReduction, the indirect address vector),
 * one element at a time, for the kernel tests. On x86-64 the SSE steps are
 * the real instructions (inline asm), so the oracle does not share the
 * kernels' C formulation of the NaN / tie rules. */
#ifndef TRNSIM_DMA_ORACLE_H
#define TRNSIM_DMA_ORACLE_H

#include <stddef.h>
#include <stdint.h>

/* addss acc, x / maxss x, acc / minss x, acc (the reference's operand order). */
float oracle_addss(float acc, float x);
float oracle_maxss(float x, float acc);
float oracle_minss(float x, float acc);

/* doDMACCE: per element, acc = 0.0f then acc = op(acc, src[s][i]) for each
 * source in order; op is an AluOpType (4 add, 8 max, 9 min). first_init
 * seeds acc with src[0][i] instead (the non-reference setting). */
void oracle_cce(int op, int first_init, const float *const *src, size_t nsrc, size_t n, float *out);

/* Axis permutation over WZYX: out[o] for every destination multi-index o
 * (C order over shape[perm[k]]) is src at the source multi-index i with
 * i[perm[k]] = o[k]. Element by element with memcpy of width bytes. */
void oracle_transpose(const void *src, void *dst, size_t width, const int64_t shape[4],
                      const int perm[4]);

/* Replicate: dst[c*n + i] = src[i]. */
void oracle_replicate(const void *src, size_t n, size_t width, void *dst, size_t copies);

#endif
