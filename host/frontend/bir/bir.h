/* The BIR JSON front end (docs/bir.md): the compiler's file is read
 * straight into the loaded program, fields renamed through the modules'
 * schemas; each instruction keeps its BIR context (function, block path,
 * name) for messages. */
#ifndef TRNSIM_HOST_BIR_H
#define TRNSIM_HOST_BIR_H

#include "frontend/program.h"

/* p->root holds the BIR document; it is freed (p->root NULL) once read. */
int trn_bir_read(trn_program *p, const trn_load_opts *o, trn_error *e);

#endif
