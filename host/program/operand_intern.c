/* An open-addressing hash set of operand lists (operand_intern.h). */
#include "program/program.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, int64_t v) { return (h ^ (uint64_t)v) * 0x100000001b3ull; }

static uint64_t ops_hash(const trn_operand *o, uint32_t n) {
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    for (uint32_t i = 0; i < n; ++i) {
        const trn_ap *a = &o[i].ap;
        h = mix(mix(mix(mix(h, o[i].tensor), o[i].offset_register), o[i].core), o[i].core_offset);
        h = mix(mix(mix(mix(mix(h, a->mem), a->dtype), a->part_start), a->part_count),
                a->part_step);
        h = mix(mix(h, a->offset), a->ndims);
        for (uint32_t d = 0; d < a->ndims; ++d) h = mix(mix(h, a->dims[d].step), a->dims[d].num);
    }
    return h;
}

static bool ops_equal(const trn_operand *x, const trn_operand *y, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) {
        const trn_ap *a = &x[i].ap, *b = &y[i].ap;
        if (x[i].tensor != y[i].tensor || x[i].offset_register != y[i].offset_register ||
            x[i].core != y[i].core || x[i].core_offset != y[i].core_offset || a->mem != b->mem ||
            a->dtype != b->dtype || a->part_start != b->part_start ||
            a->part_count != b->part_count || a->part_step != b->part_step ||
            a->offset != b->offset || a->ndims != b->ndims)
            return false;
        for (uint32_t d = 0; d < a->ndims; ++d)
            if (a->dims[d].step != b->dims[d].step || a->dims[d].num != b->dims[d].num)
                return false;
    }
    return true;
}

static bool grow(trn_oplists *t) {
    size_t cap = t->cap ? t->cap * 2 : 1024;
    trn_oplist_entry *n = calloc(cap, sizeof *n);
    if (!n) return false;
    for (size_t i = 0; i < t->cap; ++i) {
        if (!t->slots[i].ops) continue;
        size_t j = t->slots[i].hash & (cap - 1);
        while (n[j].ops) j = (j + 1) & (cap - 1);
        n[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = n;
    t->cap = cap;
    return true;
}

const trn_operand *trn_oplist_intern(trn_oplists *t, const trn_operand *o, uint32_t n, bool *oom) {
    if (!n) return NULL;
    if (2 * (t->used + 1) > t->cap && !grow(t)) {
        *oom = true;
        return NULL;
    }
    uint64_t h = ops_hash(o, n);
    size_t j = h & (t->cap - 1);
    for (; t->slots[j].ops; j = (j + 1) & (t->cap - 1))
        if (t->slots[j].hash == h && t->slots[j].n == n && ops_equal(t->slots[j].ops, o, n))
            return t->slots[j].ops;
    trn_operand *copy = trn_program_alloc(t->p, n * sizeof *copy);
    if (!copy) {
        *oom = true;
        return NULL;
    }
    memcpy(copy, o, n * sizeof *copy);
    t->slots[j] = (trn_oplist_entry){copy, n, h};
    t->used++;
    return copy;
}

void trn_oplists_free(trn_oplists *t) {
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}
