/* The BIR JSON front end (docs/bir.md): the compiler's file is read
 * straight into the loaded program, fields renamed through the modules'
 * schemas; each instruction keeps its BIR context (function, block path,
 * name) for messages. */
#ifndef TRNSIM_HOST_BIR_H
#define TRNSIM_HOST_BIR_H

#include "frontend/program.h"

/* p->root holds the BIR document; it is freed (p->root NULL) once read. */
int trn_bir_read(trn_program *p, const trn_load_opts *o, trn_error *e);

/* The text fast path (bir_fast.c): 0 when it read the whole file into p; 1
 * when it did not (anything unusual, any error): the caller frees p and
 * reads the file with trn_bir_read, whose messages are the ones to give. */
int trn_bir_read_text(trn_program *p, const char *text, size_t len, const trn_load_opts *o);

/* The loaded program written as BIR JSON (bir_write.c, `trnsim convert
 * --to bir`): what reading it gives is the same program, entry for entry.
 * o gives the machine (its registers), the config's core count and the
 * opcode schemas (BIR field names, enum spellings). A program with a part
 * BIR cannot say is refused, naming it. */
int trn_bir_write(const trn_program *p, const trn_load_opts *o, json_t **out, trn_error *e);

#endif
