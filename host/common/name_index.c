#include "common/common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t hash(const char *s) {
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *s; ++s) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (size_t)(h ^ (h >> 29));
}

int trn_name_index_find(const trn_name_index *x, const char *name, trn_name_at at,
                        const void *items) {
    if (!x->mask || !name) return -1;
    for (size_t j = hash(name) & x->mask; x->slot[j] >= 0; j = (j + 1) & x->mask) {
        const char *n = at(items, x->slot[j]);
        if (n && !strcmp(n, name)) return x->slot[j];
    }
    return -1;
}

static void place(trn_name_index *x, int i, const char *name) {
    size_t j = hash(name) & x->mask;
    while (x->slot[j] >= 0) j = (j + 1) & x->mask;
    x->slot[j] = i;
}

/* Twice the slots, every item placed again: the load stays at most half. */
static int grow(trn_name_index *x, trn_name_at at, const void *items) {
    size_t cap = x->mask ? 2 * (x->mask + 1) : 64;
    int *old = x->slot, *slot = malloc(cap * sizeof *slot);
    if (!slot) return -1;
    memset(slot, 0xff, cap * sizeof *slot);
    size_t old_cap = x->mask ? x->mask + 1 : 0;
    x->slot = slot;
    x->mask = cap - 1;
    for (size_t j = 0; j < old_cap; ++j)
        if (old[j] >= 0) place(x, old[j], at(items, old[j]));
    free(old);
    return 0;
}

int trn_name_index_add(trn_name_index *x, int i, trn_name_at at, const void *items) {
    const char *name = at(items, i);
    if (!name) return i;
    int had = trn_name_index_find(x, name, at, items);
    if (had >= 0) return had;
    if (2 * (x->used + 1) > (x->mask ? x->mask + 1 : 0) && grow(x, at, items)) return -2;
    place(x, i, name);
    x->used++;
    return i;
}

void trn_name_index_free(trn_name_index *x) {
    free(x->slot);
    memset(x, 0, sizeof *x);
}
