#include "coll_oracle.h"

#include "../common/sse_insn.h"

/* doReduction: `movss (x); OPss (acc)`, so x is the destination register. */
float oracle_addss(float x, float acc) { return sse_addss(x, acc); }
float oracle_maxss(float x, float acc) { return sse_maxss(x, acc); }
float oracle_minss(float x, float acc) { return sse_minss(x, acc); }
float oracle_mulss(float x, float s) { return sse_mulss(x, s); }

int oracle_do_reduction(int64_t op, const float *const *ins, size_t n_ins, size_t n, bool has_scale, float scale,
                        float *res) {
    if (op == 4 && has_scale) { /* AVERAGE / SCALE branch: only the first input */
        for (size_t i = 0; i < n; ++i) res[i] = oracle_mulss(ins[0][i], scale);
        return 0;
    }
    for (size_t i = 0; i < n; ++i) res[i] = ins[0][i]; /* res = ins[0] */
    for (size_t k = 1; k < n_ins; ++k) {
        for (size_t i = 0; i < n; ++i) {
            switch (op) { /* op re-read each element */
            case 4: res[i] = oracle_addss(ins[k][i], res[i]); break;
            case 8: res[i] = oracle_maxss(ins[k][i], res[i]); break;
            case 9: res[i] = oracle_minss(ins[k][i], res[i]); break;
            default: return -1; /* inst_visitor.cpp:5365 "Unsupported OP type" */
            }
        }
    }
    return 0;
}

void oracle_gather_flat(float *dst, const float *const *srcs, size_t n, size_t e) {
    for (size_t o = 0; o < n * e; ++o) dst[o] = srcs[o / e][o % e];
}

void oracle_gather_rows(float *dst, const float *const *srcs, size_t n, size_t parts, size_t f) {
    for (size_t p = 0; p < parts; ++p)
        for (size_t o = 0; o < n * f; ++o) dst[p * n * f + o] = srcs[o / f][p * f + o % f];
}

void oracle_alltoall(float *dst, const float *const *srcs, size_t n, size_t j, size_t total) {
    size_t c = total / n;
    for (size_t o = 0; o < total; ++o) dst[o] = srcs[o / c][j * c + o % c];
}

void oracle_alltoallv(float *dst, const float *const *srcs, size_t n, size_t j, const int64_t *counts) {
    size_t o = 0;
    for (size_t i = 0; i < n; ++i) {
        size_t start = 0;
        for (size_t k = 0; k < j; ++k) start += (size_t)counts[i * n + k];
        for (int64_t e = 0; e < counts[i * n + j]; ++e) dst[o++] = srcs[i][start + (size_t)e];
    }
}
