#include "coll_oracle.h"

#include <string.h>

#include "sse_insn.h"

/* doReduction: `movss (x); OPss (acc)`, so x is the destination register. */
float oracle_addss(float x, float acc) { return sse_addss(x, acc); }
float oracle_maxss(float x, float acc) { return sse_maxss(x, acc); }
float oracle_minss(float x, float acc) { return sse_minss(x, acc); }
float oracle_mulss(float x, float s) { return sse_mulss(x, s); }

int oracle_do_reduction(int64_t op, const float *const *ins, size_t n_ins, size_t n, bool has_scale,
                        float scale, float *res) {
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

/* Element k of source i, w bytes wide. */
static const unsigned char *elem(const void *const *srcs, size_t i, size_t k, size_t w) {
    return (const unsigned char *)srcs[i] + k * w;
}

void oracle_gather_flat(void *dst, const void *const *srcs, size_t n, size_t e, size_t w) {
    unsigned char *d = dst;
    for (size_t o = 0; o < n * e; ++o) memcpy(d + o * w, elem(srcs, o / e, o % e, w), w);
}

void oracle_gather_rows(void *dst, const void *const *srcs, size_t n, size_t parts, size_t f,
                        size_t w) {
    unsigned char *d = dst;
    for (size_t p = 0; p < parts; ++p)
        for (size_t o = 0; o < n * f; ++o)
            memcpy(d + (p * n * f + o) * w, elem(srcs, o / f, p * f + o % f, w), w);
}

void oracle_alltoall(void *dst, const void *const *srcs, size_t n, size_t j, size_t total,
                     size_t w) {
    unsigned char *d = dst;
    size_t c = total / n;
    for (size_t o = 0; o < total; ++o) memcpy(d + o * w, elem(srcs, o / c, j * c + o % c, w), w);
}

void oracle_alltoallv(void *dst, const void *const *srcs, size_t n, size_t j, const int64_t *counts,
                      size_t w) {
    unsigned char *d = dst;
    size_t o = 0;
    for (size_t i = 0; i < n; ++i) {
        size_t start = 0;
        for (size_t k = 0; k < j; ++k) start += (size_t)counts[i * n + k];
        for (int64_t e = 0; e < counts[i * n + j]; ++e)
            memcpy(d + (o++) * w, elem(srcs, i, start + (size_t)e, w), w);
    }
}
