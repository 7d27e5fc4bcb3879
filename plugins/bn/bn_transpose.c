/* apply_transpose of BNStats: the 32x32 tile swap shared with
 * StreamTranspose. In the flat [P][n] buffer, element (p, e) goes to
 *   out[((p & 0x1F) | (e & ~0x1F)) + n * ((p & ~0x1F) | (e & 0x1F))]
 * i.e. each aligned 32x32 tile is transposed in place, so a row of the
 * result holds one element column of 32 partitions per tile and BNStats
 * reduces across partitions. The map is an involution. For n == 1 it is the
 * identity (the reference's plain-copy case); for other shapes it stays
 * inside the buffer only when P and n are multiples of 32 (else it would
 * write outside a row or past the buffer), so only those shapes are
 * accepted. */
#include <string.h>

#include "bn_kernels.h"

bool bn_tile_transpose_ok(size_t parts, size_t n) {
    return n == 1 || (parts % BN_TILE == 0 && n % BN_TILE == 0);
}

/* One 32x32 tile at (row p0, column e0): out[p0+j][e0+i] = in[p0+i][e0+j]. */
static void swap_tile(const float *in, size_t n, size_t p0, size_t e0, float *out) {
    for (size_t i = 0; i < BN_TILE; ++i)
        for (size_t j = 0; j < BN_TILE; ++j) out[(p0 + j) * n + e0 + i] = in[(p0 + i) * n + e0 + j];
}

void bn_tile_transpose_f32(const float *in, size_t parts, size_t n, float *out) {
    if (n == 1) {
        memcpy(out, in, parts * sizeof *in);
        return;
    }
    for (size_t p0 = 0; p0 < parts; p0 += BN_TILE)
        for (size_t e0 = 0; e0 < n; e0 += BN_TILE) swap_tile(in, n, p0, e0, out);
}
