/* BNStatsAggregate (IT 35): the Chan parallel-variance merge of the reference.
 *
 * Per partition the triples (n_t, mean_t, M2_t) are merged in order into an
 * accumulator that starts empty and holds a NORMALIZED variance:
 *   N = n_t + n_acc;  r = 1/N;  delta = mean_acc - mean_t;
 *   mean_acc = (mean_acc*n_acc + n_t*mean_t) * r;
 *   var_acc  = (var_acc*n_acc + M2_t) * r + n_t*n_acc*delta*delta * r*r;
 *   n_acc   += n_t;
 * The counts differ per partition, so nothing is shared across partitions;
 * they run four per vector (bn_simd.h). Zero counts are not special: an
 * empty accumulator meeting n_t == 0 divides by zero exactly as the
 * reference does (r = +Inf, 0*Inf = NaN). */
#include "bn_kernels.h"
#include "bn_simd.h"

typedef struct chan_acc {
    bn_v4 n, mean, var;
} chan_acc;

static inline void chan_merge(chan_acc *a, bn_v4 n_t, bn_v4 mean_t, bn_v4 m2_t) {
    const bn_v4 total = n_t + a->n;
    const bn_v4 r = 1.0f / total;
    const bn_v4 delta = a->mean - mean_t;
    a->mean = (a->mean * a->n + n_t * mean_t) * r;
    a->var = (a->var * a->n + m2_t) * r + n_t * a->n * delta * delta * r * r;
    a->n = a->n + n_t;
}

/* Rows [0, rows) of one group of four partitions. */
static void aggregate_group(const float *in, size_t e, size_t rows, float *out) {
    chan_acc a = {bn_v4_splat(0.0f), bn_v4_splat(0.0f), bn_v4_splat(0.0f)};
    for (size_t j = 0; j + 3 <= e; j += 3)
        chan_merge(&a, bn_v4_column(in, e, rows, j), bn_v4_column(in, e, rows, j + 1),
                   bn_v4_column(in, e, rows, j + 2));
    for (size_t b = 0; b < rows; ++b) {
        out[b * BN_AGG_ELEMS + 0] = a.mean[b];
        out[b * BN_AGG_ELEMS + 1] = a.var[b];
    }
}

void bn_aggregate_f32(const float *in, size_t parts, size_t e, float *out) {
    for (size_t p0 = 0; p0 < parts; p0 += BN_LANES) {
        const size_t rows = parts - p0 < BN_LANES ? parts - p0 : BN_LANES;
        aggregate_group(in + p0 * e, e, rows, out + p0 * BN_AGG_ELEMS);
    }
}
