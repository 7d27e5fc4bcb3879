/* BNStats (IT 34): the 2-lane interleaved Welford of the reference (BNStats @ 0x1df7b0).
 *
 * Per partition the reference runs, for i = 0..n-1 with lane L = i & 1:
 *   if (L == 0) n += 1.0f;  r = 1/n;
 *   newMean = (1-r)*oldMean + r*x;  M2 += (x-newMean)*(x-oldMean);
 * The running count n, hence r and 1-r, depend only on the pair index:
 * bn_stats_weights computes them once (in the reference's way, the count itself
 * accumulated in fp32), and every partition shares the table. The
 * partitions run in blocks of BN_BLOCK through a vector block kernel
 * (bn_stats_lanes.h: four-lane, or eight-lane AVX where the CPU has it);
 * this driver finishes each row's last pair or odd element one at a time
 * with the same expression and writes the records. */
#include "bn_stats_lanes.h"

size_t bn_stats_weights_len(size_t n) { return BN_W_PER_PAIR * ((n + 1) / 2); }

void bn_stats_weights(size_t n, float *w) {
    float count = 0.0f;
    for (size_t k = 0; k < (n + 1) / 2; ++k) {
        count += 1.0f; /* once per pair, before lane A's element */
        const float r = 1.0f / count;
        w[BN_W_PER_PAIR * k] = r;
        w[BN_W_PER_PAIR * k + 1] = 1.0f - r;
    }
}

bn_isa bn_isa_best(void) {
#if BN_HAVE_AVX_KERNEL
    /* cpu_init is idempotent; it makes the answer right even when called
     * before libgcc's own constructor has run. "avx" means the CPU has it
     * and the OS saves the YMM registers. */
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx")) return BN_ISA_AVX;
#endif
    return BN_ISA_V4;
}

static size_t run_block(bn_isa isa, const float *const rows[BN_BLOCK], size_t pairs, const float *w,
                        bn_stats_lanes *s) {
#if BN_HAVE_AVX_KERNEL
    if (isa == BN_ISA_AVX) return bn_stats_block_avx(rows, pairs, w, s);
#endif
    (void)isa;
    return bn_stats_block_v4(rows, pairs, w, s);
}

/* The reference's update, one element. */
static void welford1(float *mean, float *m2, float x, const float *wk) {
    const float old = *mean;
    const float nm = wk[1] * old + wk[0] * x;
    *mean = nm;
    *m2 = *m2 + (x - nm) * (x - old);
}

/* Elements [2 * done, n) of row b, after the block kernel. */
static void finish_row(const float *row, size_t n, size_t done, const float *w, bn_stats_lanes *s,
                       size_t b) {
    for (size_t c = 2 * done; c < n; ++c) {
        const float *wk = w + BN_W_PER_PAIR * (c / 2);
        if (c % 2 == 0)
            welford1(&s->mean_a[b], &s->m2_a[b], row[c], wk);
        else
            welford1(&s->mean_b[b], &s->m2_b[b], row[c], wk);
    }
}

/* nb <= BN_BLOCK rows; a partial block repeats row 0 in the missing slots,
 * whose results are never stored. */
static void stats_block(bn_isa isa, const float *x, size_t stride, size_t n, size_t nb,
                        const float *w, float *out) {
    const float *rows[BN_BLOCK];
    for (size_t b = 0; b < BN_BLOCK; ++b) rows[b] = x + (b < nb ? b : 0) * stride;
    bn_stats_lanes s;
    const size_t done = run_block(isa, rows, n / 2, w, &s);
    /* The output counts are the lane sizes, not the running count. */
    const float count_a = (float)((n + 1) >> 1), count_b = (float)(n >> 1);
    for (size_t b = 0; b < nb; ++b) {
        finish_row(rows[b], n, done, w, &s, b);
        float *o = out + b * BN_STATS_ELEMS;
        o[0] = count_a;
        o[1] = s.mean_a[b];
        o[2] = s.m2_a[b];
        o[3] = count_b;
        o[4] = s.mean_b[b];
        o[5] = s.m2_b[b];
    }
}

void bn_stats_rows_isa(bn_isa isa, const float *x, size_t stride, size_t parts, size_t n,
                       const float *w, float *out) {
    for (size_t p0 = 0; p0 < parts; p0 += BN_BLOCK) {
        const size_t nb = parts - p0 < BN_BLOCK ? parts - p0 : BN_BLOCK;
        stats_block(isa, x + p0 * stride, stride, n, nb, w, out + p0 * BN_STATS_ELEMS);
    }
}

void bn_stats_f32_isa(bn_isa isa, const float *x, size_t parts, size_t n, const float *w,
                      float *out) {
    bn_stats_rows_isa(isa, x, n, parts, n, w, out);
}

void bn_stats_rows(const float *x, size_t stride, size_t parts, size_t n, const float *w,
                   float *out) {
    bn_stats_rows_isa(bn_isa_best(), x, stride, parts, n, w, out);
}

void bn_stats_f32(const float *x, size_t parts, size_t n, const float *w, float *out) {
    bn_stats_f32_isa(bn_isa_best(), x, parts, n, w, out);
}
