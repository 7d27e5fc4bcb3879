/* The reference module's RNG kernels (trnsim-rng-ref, docs/plugins.md
 * "Reference modules"): the fills of rng_gen1.h and rng_xorwow.h answered by
 * the scalar oracle (rng_oracle.c, the file the kernel tests compare
 * against), one partition and one element at a time. No lane groups, no
 * vectors, no PCG32 jump-ahead: the handlers are the fast module's. */
#include "../rng_gen1.h"
#include "rng_oracle.h"
#include "../rng_state.h"
#include "../rng_xorwow.h"

void rng_gen1_fill(enum rng_algorithm alg, uint32_t *states, size_t np, uint32_t *out, size_t n) {
    for (size_t p = 0; p < np; ++p) orc_rand((int)alg, states + p * RNG_GEN1_WORDS, out + p * n, n);
}

void rng_xorwow_fill(uint32_t *lanes, size_t np, unsigned nlanes, float lo, float hi, float *out,
                     size_t n) {
    if (!rng_xorwow_nlanes_ok(nlanes)) return;
    for (size_t p = 0; p < np; ++p)
        orc_rand2(lanes + p * RNG_GEN2_WORDS, nlanes, lo, hi, out + p * n, n);
}
