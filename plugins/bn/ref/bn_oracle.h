/* The scalar oracle: a plain transliteration of seed section 1, one
 * partition at a time, in the reference's own words. The plugin's blocked kernels
 * must reproduce its bits. Kept deliberately naive: do not optimise. */
#ifndef TRNSIM_TESTS_BN_ORACLE_H
#define TRNSIM_TESTS_BN_ORACLE_H

#include <stddef.h>

/* BNStats (1.1) of one row in[N] -> out[6]. */
void oracle_bn_stats_row(const float *in, size_t N, float *out);
/* BNStats of [P][N] -> [P][6], with the optional 32x32 tile transpose
 * first (P and N multiples of 32, or N == 1). */
void oracle_bn_stats(const float *in, size_t P, size_t N, int apply_transpose, float *out);
/* The transpose idiom alone: out[idx(p, e)] = in[p*N + e]. */
void oracle_tile_transpose(const float *in, size_t P, size_t N, float *out);
/* BNStatsAggregate (1.2) of one row in[nepp] -> out[2]. */
void oracle_bn_aggregate_row(const float *in, size_t nepp, float *out);
void oracle_bn_aggregate(const float *in, size_t P, size_t nepp, float *out);
/* BNGradients (1.3) of one row -> out[3]. */
void oracle_bn_gradients_row(const float *x, const float *dy, float m, float vf, size_t nepp,
                             float *out);
void oracle_bn_gradients(const float *x, const float *dy, const float *m, const float *vf, size_t P,
                         size_t nepp, float *out);
/* BNBackprop / BNBackprop2 (1.4) of one element. */
float oracle_bn_backprop_elem(float x, float dy, float m, float A, float Bc, float scale,
                              float total_elements);

#endif
