/* RNGSTATE conversions (see rng_state.h). */
#include "rng_state.h"

#include "rng_xorwow.h"

void rng_zero_guard(uint32_t w[6]) {
    if ((w[0] | w[1] | w[2] | w[3] | w[4]) == 0) w[4] = 1;
}

void rng_gen1_default(uint32_t w[6]) {
    for (unsigned k = 0; k < 6; ++k) w[k] = 1;
}

void rng_gen2_default(uint32_t lanes[24]) {
    for (unsigned k = 0; k < RNG_GEN2_WORDS; ++k) lanes[k] = 1;
}

void rng_gen1_from_tensor(const uint32_t t[6], uint32_t w[6]) {
    for (unsigned k = 0; k < 6; ++k) w[k] = t[k];
    rng_zero_guard(w);
}

void rng_gen2_from_tensor(const uint32_t t[24], uint32_t lanes[24]) {
    for (unsigned lane = 0; lane < RNG_XORWOW_LANES; ++lane) {
        for (unsigned word = 0; word < RNG_XORWOW_WORDS; ++word)
            lanes[lane * RNG_XORWOW_WORDS + word] = t[word * RNG_XORWOW_LANES + lane];
        rng_zero_guard(lanes + lane * RNG_XORWOW_WORDS);
    }
}

void rng_gen2_to_tensor(const uint32_t lanes[24], uint32_t t[24]) {
    for (unsigned lane = 0; lane < RNG_XORWOW_LANES; ++lane)
        for (unsigned word = 0; word < RNG_XORWOW_WORDS; ++word)
            t[word * RNG_XORWOW_LANES + lane] = lanes[lane * RNG_XORWOW_WORDS + word];
}

void rng_gen2_from_tensor_exact(const uint32_t t[24], uint32_t lanes[24]) {
    for (unsigned lane = 0; lane < RNG_XORWOW_LANES; ++lane)
        for (unsigned word = 0; word < RNG_XORWOW_WORDS; ++word)
            lanes[lane * RNG_XORWOW_WORDS + word] = t[word * RNG_XORWOW_LANES + lane];
}

void rng_gen1_wire_seed(uint32_t p, const uint32_t imm[RNG_WIRE_SEED_WORDS],
                        uint32_t wire[RNG_WIRE_SEED_WORDS]) {
    wire[0] = (p << 24) | (imm[0] & 0xFFFFFFu);
    for (unsigned k = 1; k < RNG_WIRE_SEED_WORDS; ++k) wire[k] = imm[k];
}

void rng_gen1_from_wire(const uint32_t wire[RNG_WIRE_SEED_WORDS], uint32_t w[6]) {
    for (unsigned k = 0; k < 6; ++k) w[k] = wire[k];
    rng_zero_guard(w);
}
