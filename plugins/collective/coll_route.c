#include "coll_route.h"

#include <string.h>

void coll_gather_flat(void *dst, const void *const *srcs, size_t n, size_t e, size_t w) {
    char *d = dst;
    for (size_t j = 0; j < n; ++j) memcpy(d + j * e * w, srcs[j], e * w);
}

void coll_gather_rows(void *dst, const void *const *srcs, size_t n, size_t parts, size_t f,
                      size_t w) {
    char *d = dst;
    size_t row = f * w;
    for (size_t p = 0; p < parts; ++p)
        for (size_t j = 0; j < n; ++j)
            memcpy(d + (p * n + j) * row, (const char *)srcs[j] + p * row, row);
}

void coll_alltoall_one(void *dst, const void *const *srcs, size_t n, size_t j, size_t c, size_t w) {
    char *d = dst;
    for (size_t i = 0; i < n; ++i) memcpy(d + i * c * w, (const char *)srcs[i] + j * c * w, c * w);
}

void coll_alltoallv_one(void *dst, const void *const *srcs, size_t n, size_t j,
                        const int64_t *counts, size_t w) {
    char *d = dst;
    for (size_t i = 0; i < n; ++i) {
        size_t from = 0;
        for (size_t k = 0; k < j; ++k) from += (size_t)counts[i * n + k];
        size_t m = (size_t)counts[i * n + j];
        memcpy(d, (const char *)srcs[i] + from * w, m * w);
        d += m * w;
    }
}
