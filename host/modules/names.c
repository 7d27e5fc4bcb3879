/* Opcode names to ITs: an open-addressing index over the loaded opcodes'
 * names and the known ones (opnames.c), built on first use after the table
 * changes, with a spelling suggestion for a name that is neither. */
#include <string.h>

#include "common/common.h"
#include "modules/modules.h"

static size_t name_hash(const char *name) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)name; *c; ++c)
        h = (h ^ *c) * 0x100000001b3ull;
    return (size_t)(h ^ h >> 29);
}

/* The slot of name in the index: its entry, or the free slot it would take. */
static trn_name_ref *name_slot(trn_registry *s, const char *name) {
    size_t j = name_hash(name) & (TRN_NAME_INDEX - 1);
    while (s->name_index[j].name && strcmp(s->name_index[j].name, name) != 0)
        j = (j + 1) & (TRN_NAME_INDEX - 1);
    return &s->name_index[j];
}

static void name_add(trn_registry *s, const char *name, uint32_t it) {
    trn_name_ref *r = name_slot(s, name);
    if (!r->name) *r = (trn_name_ref){name, it}; /* the first of a name answers */
}

/* The loaded opcodes' names in IT order, then the known names: the order
 * the answer is looked for in. */
static void build_name_index(trn_registry *s) {
    memset(s->name_index, 0, sizeof s->name_index);
    for (uint32_t i = 0; i <= TRN_IT_MAX; ++i)
        if (s->table[i].op) name_add(s, s->table[i].op->name, i);
    for (uint32_t i = 0; i <= TRN_IT_MAX; ++i) {
        const trn_known_op *k = trn_known_op_by_it(i);
        if (k) name_add(s, k->name, k->it);
    }
    s->names_ready = true;
}

int trn_registry_resolve_name(trn_registry *s, const char *name, uint32_t *it, trn_error *e) {
    if (!s->names_ready) build_name_index(s);
    const trn_name_ref *r = name_slot(s, name);
    if (r->name) {
        *it = r->it;
        return 0;
    }
    if (!e) return -1;
    const char *cands[2 * (TRN_IT_MAX + 1)];
    size_t n = 0;
    for (int i = 0; i <= (int)TRN_IT_MAX; ++i) {
        const trn_known_op *ko = trn_known_op_by_it((uint32_t)i);
        if (s->table[i].op) cands[n++] = s->table[i].op->name;
        if (ko) cands[n++] = ko->name;
    }
    const char *best = trn_suggest(name, cands, n);
    if (best)
        return trn_errorf(e,
                          "unknown opcode name '%s'; did you mean '%s'? (names are case-sensitive; "
                          "trnsim opcodes "
                          "lists the loaded ones)",
                          name, best);
    return trn_errorf(e, "unknown opcode name '%s' (trnsim opcodes lists the loaded ones)", name);
}
