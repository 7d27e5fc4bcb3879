/* One copy of each distinct operand list in a program: the fast paths of
 * both front ends (native_fast.c, bir_fast.c) point every instruction with
 * the same operands at the same list (trn_inst.shared_operands), which keeps
 * a large program's memory to its distinct lists. */
#ifndef TRNSIM_HOST_OPERAND_INTERN_H
#define TRNSIM_HOST_OPERAND_INTERN_H

#include "program/program.h"

typedef struct trn_oplist_entry {
    const trn_operand *ops;
    uint32_t n;
    uint64_t hash;
} trn_oplist_entry;

typedef struct trn_oplists {
    trn_program *p; /* where the lists live (trn_program_alloc) */
    trn_oplist_entry *slots;
    size_t cap, used;
} trn_oplists;

/* The program's copy of o[0..n) (NULL for n == 0; NULL and *oom when out of memory). */
const trn_operand *trn_oplist_intern(trn_oplists *t, const trn_operand *o, uint32_t n, bool *oom);
/* The table (not the lists: they are the program's). */
void trn_oplists_free(trn_oplists *t);

#endif
