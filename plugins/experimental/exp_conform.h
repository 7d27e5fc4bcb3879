/* The recipes of trnsim-experimental's opcodes (experimental_conform.c). */
#ifndef TRNSIM_EXPERIMENTAL_CONFORM_H
#define TRNSIM_EXPERIMENTAL_CONFORM_H

extern const char exp_conform_rng[];
extern const char exp_conform_nonzero[];

#endif
