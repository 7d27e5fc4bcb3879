/* The reference module's experimental kernels (trnsim-experimental-ref,
 * docs/plugins.md "Reference modules"): exp_nonzero.h, exp_rng_pack and the
 * lane draws answered by the scalar oracle (exp_oracle.c, the file the kernel
 * tests compare against), one element at a time. The handlers, the seed
 * parser and the lanes' state are the fast module's. */
#include <string.h>

#include "../exp_nonzero.h"
#include "exp_oracle.h"
#include "../exp_rng.h"

uint32_t exp_nonzero_row(const float *src, size_t n, int64_t index_offset, int64_t pad,
                         uint32_t *dst) {
    oracle_nonzero_row(src, n, index_offset, pad, (int32_t *)(void *)dst);
    return dst[n];
}

void exp_nonzero_rows(const float *src, size_t rows, size_t n, int64_t index_offset, int64_t pad,
                      uint32_t *dst) {
    for (size_t r = 0; r < rows; ++r)
        exp_nonzero_row(src + r * n, n, index_offset, pad, dst + r * (n + 1));
}

/* The destination holds the draw's width low bytes (little-endian host). */
void exp_rng_pack(const uint32_t *bits, size_t n, unsigned width, void *dst) {
    unsigned char *d = dst;
    for (size_t j = 0; j < n; ++j) {
        uint64_t v = (uint64_t)oracle_truncate(bits[j], width, 0);
        memcpy(d + j * width, &v, width);
    }
}

void exp_ref_lane_bits(uint32_t *lane, uint32_t *bits, size_t n) {
    for (size_t j = 0; j < n; ++j) bits[j] = oracle_xorwow(lane);
}
