/* The recipes of trnsim-rng's opcodes (rng_conform.c). */
#ifndef TRNSIM_RNG_CONFORM_H
#define TRNSIM_RNG_CONFORM_H

extern const char rng_conform_get_state[];
extern const char rng_conform_set_state[];
extern const char rng_conform_rand[];
extern const char rng_conform_rand2[];
extern const char rng_conform_get_state2[];
extern const char rng_conform_set_state2[];

#endif
