/* Transliteration of the reference's BN kernels (BNStats @ 0x1df7b0, docs/bn.md).
 * Variable names and statement order follow the reference's listings. */
#include "bn_oracle.h"

#include <stdlib.h>
#include <string.h>

void oracle_bn_stats_row(const float *in, size_t N, float *out) {
    out[0] = (float)((N + 1) >> 1); /* ceil(N/2)  even-indexed lane */
    out[3] = (float)(N >> 1);       /* floor(N/2) odd-indexed lane */
    out[1] = out[2] = out[4] = out[5] = 0.0f;
    float n = 0.0f; /* SHARED running pair count */
    for (size_t i = 0; i < N; ++i) {
        int L = i & 1;
        if (L == 0) n += 1.0f;
        float x = in[i];
        float r = 1.0f / n;
        float oldMean = out[3 * L + 1];
        float newMean = (1.0f - r) * oldMean + r * x;
        out[3 * L + 1] = newMean;
        out[3 * L + 2] += (x - newMean) * (x - oldMean);
    }
}

void oracle_tile_transpose(const float *in, size_t P, size_t N, float *out) {
    if (N == 1) { /* plain copy */
        memcpy(out, in, P * sizeof *in);
        return;
    }
    for (size_t p = 0; p < P; ++p)
        for (size_t e = 0; e < N; ++e)
            out[((p & 0x1F) | (e & ~(size_t)0x1F)) + N * ((p & ~(size_t)0x1F) | (e & 0x1F))] =
                in[p * N + e];
}

void oracle_bn_stats(const float *in, size_t P, size_t N, int apply_transpose, float *out) {
    float *t = NULL;
    if (apply_transpose) {
        t = malloc(P * N * sizeof *t);
        oracle_tile_transpose(in, P, N, t);
        in = t;
    }
    for (size_t p = 0; p < P; ++p) oracle_bn_stats_row(in + p * N, N, out + 6 * p);
    free(t);
}

void oracle_bn_aggregate_row(const float *in, size_t nepp, float *out) {
    float n_acc = 0.0f, mean_acc = 0.0f, var_acc = 0.0f;
    for (size_t j = 0; j + 3 <= nepp; j += 3) {
        float n_t = in[j], mean_t = in[j + 1], M2_t = in[j + 2];
        float N = n_t + n_acc;
        float r = 1.0f / N;
        float delta = mean_acc - mean_t;
        mean_acc = (mean_acc * n_acc + n_t * mean_t) * r;
        var_acc = (var_acc * n_acc + M2_t) * r + n_t * n_acc * delta * delta * r * r;
        n_acc += n_t;
    }
    out[0] = mean_acc;
    out[1] = var_acc;
}

void oracle_bn_aggregate(const float *in, size_t P, size_t nepp, float *out) {
    for (size_t p = 0; p < P; ++p) oracle_bn_aggregate_row(in + p * nepp, nepp, out + 2 * p);
}

void oracle_bn_gradients_row(const float *x, const float *dy, float m, float vf, size_t nepp,
                             float *out) {
    out[0] = out[1] = out[2] = 0.0f;
    for (size_t i = 0; i < nepp; ++i) {
        float t = (x[i] - m) * dy[i] * vf;
        out[2] += t;
        out[1] += t * vf;
        out[0] += dy[i];
    }
}

void oracle_bn_gradients(const float *x, const float *dy, const float *m, const float *vf, size_t P,
                         size_t nepp, float *out) {
    for (size_t p = 0; p < P; ++p)
        oracle_bn_gradients_row(x + p * nepp, dy + p * nepp, m[p], vf[p], nepp, out + 3 * p);
}

float oracle_bn_backprop_elem(float x, float dy, float m, float A, float Bc, float scale,
                              float total_elements) {
    return (dy * total_elements - ((x - m) * Bc + A)) * scale;
}
