/* NonzeroWithCount kernel (layout in exp_nonzero.h). */
#include "exp_nonzero.h"

/* Branch-free compaction: every index is stored at the write cursor, and the
 * cursor only moves past it when the element is nonzero, so a zero's index
 * is overwritten by the next one (or by the padding). The cursor never
 * passes i, so the store stays inside dst[0 .. n-1]. */
uint32_t exp_nonzero_row(const float *src, size_t n, int64_t index_offset, int64_t pad,
                         uint32_t *dst) {
    size_t k = 0;
    uint32_t idx = (uint32_t)index_offset; /* wraps like the 32-bit store */
    for (size_t i = 0; i < n; ++i, ++idx) {
        dst[k] = idx;
        k += src[i] != 0.0f; /* NaN != 0 is true: NaN counts */
    }
    for (size_t j = k; j < n; ++j) dst[j] = (uint32_t)pad;
    dst[n] = (uint32_t)k;
    return (uint32_t)k;
}

void exp_nonzero_rows(const float *src, size_t rows, size_t n, int64_t index_offset, int64_t pad,
                      uint32_t *dst) {
    for (size_t r = 0; r < rows; ++r)
        exp_nonzero_row(src + r * n, n, index_offset, pad, dst + r * (n + 1));
}
