/* The "rng.xorwow" service (trnsim/service_rng.h): the module's own gen-2
 * kernels, exported so other modules draw the same streams with this code. */
#include "rng_service.h"

#include <stdlib.h>

#include "rng_mt64.h"
#include "rng_state.h"
#include "rng_xorwow.h"

_Static_assert(TRN_RNG_LANE_WORDS == RNG_XORWOW_WORDS && TRN_RNG_GEN2_WORDS == RNG_GEN2_WORDS,
               "the service's layout is the engine's");

static void gen2_default(uint32_t *states, size_t np) {
    for (size_t p = 0; p < np; ++p) rng_gen2_default(states + p * RNG_GEN2_WORDS);
}

static int gen2_seed(uint32_t *states, size_t np, uint64_t seed) {
    rng_mt64 *mt = malloc(sizeof *mt);
    if (!mt) return -1;
    rng_mt64_seed(mt, seed);
    rng_mt64_fill_xorwow(mt, states, np);
    free(mt);
    return 0;
}

static void lane_bits(uint32_t *lane, uint32_t *bits, size_t n) {
    uint32_t s[RNG_XORWOW_WORDS]; /* a local copy lets the compiler keep it in registers */
    memcpy(s, lane, sizeof s);
    for (size_t j = 0; j < n; ++j) bits[j] = rng_xorwow_next(s);
    memcpy(lane, s, sizeof s);
}

const trn_rng_xorwow_service rng_xorwow_service = {
    .size = sizeof(trn_rng_xorwow_service),
    .gen2_default = gen2_default,
    .gen2_seed = gen2_seed,
    .lane_bits = lane_bits,
};
