/* The recipes of trnsim-bn's opcodes (bn_conform.c). */
#ifndef TRNSIM_BN_CONFORM_H
#define TRNSIM_BN_CONFORM_H

extern const char bn_conform_stats[];
extern const char bn_conform_aggregate[];
extern const char bn_conform_gradients[];
extern const char bn_conform_backprop[];
extern const char bn_conform_backprop2[];

#endif
