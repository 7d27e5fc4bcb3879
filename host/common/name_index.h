/* A hash index from names to the positions of the first items so named,
 * for the loaders' name lookups (tensors, BIR allocations), so that a
 * program of n names loads in O(n), not O(n^2) comparisons. The index keeps
 * positions only; the caller says how to read the name at a position, so
 * the items may move (realloc, a struct copy) without the index knowing. */
#ifndef TRNSIM_COMMON_NAME_INDEX_H
#define TRNSIM_COMMON_NAME_INDEX_H

#include <stddef.h>

/* The name of item i (NULL: unnamed, never found). */
typedef const char *(*trn_name_at)(const void *items, int i);

typedef struct trn_name_index {
    int *slot;   /* open addressing: an item's position, -1 free */
    size_t mask; /* slots - 1 (a power of two), 0 before the first add */
    size_t used;
} trn_name_index;

/* The first item added under name, or -1. */
int trn_name_index_find(const trn_name_index *x, const char *name, trn_name_at at,
                        const void *items);
/* Add item i under its name unless an earlier item has it: returns that
 * earlier item, else i; -2 when out of memory. */
int trn_name_index_add(trn_name_index *x, int i, trn_name_at at, const void *items);
void trn_name_index_free(trn_name_index *x);

#endif
