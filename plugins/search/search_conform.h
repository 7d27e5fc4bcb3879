/* The search opcodes' conform recipes (search_conform.c). */
#ifndef TRNSIM_SEARCH_CONFORM_H
#define TRNSIM_SEARCH_CONFORM_H

extern const char search_conform_max[];
extern const char search_conform_max_index[];
extern const char search_conform_match_replace[];
extern const char search_conform_max_index_mr[];

#endif
