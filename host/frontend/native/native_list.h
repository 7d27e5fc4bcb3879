/* The native instruction list being read: shared by the document reader
 * (native_program.c) and the text reader's fast path (native_fast.c). */
#ifndef TRNSIM_HOST_NATIVE_LIST_H
#define TRNSIM_HOST_NATIVE_LIST_H

#include "frontend/native/native.h"

typedef struct list_state {
    trn_program *p;
    const trn_load_opts *o;
    size_t cap;
    uint64_t number; /* the next instruction's number */
} list_state;

/* The program's top level from p->root (cores, allow_uninit_read, tensors). */
int trn_native_parse_top(trn_program *p, const trn_machine *m, trn_error *e);
/* The next entry of the instruction list, zeroed (not yet counted). */
trn_inst *trn_native_push(list_state *ls, trn_error *e);
/* The same entry left as it was, for a caller that writes all of it. */
trn_inst *trn_native_slot(list_state *ls, trn_error *e);
/* One entry of an instruction list (an instruction or a loop) as a
 * document; it must outlive the program (obj points into it). */
int trn_native_parse_entry(list_state *ls, json_t *obj, int depth, trn_error *e);

#endif
