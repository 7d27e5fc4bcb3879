/* The BIR JSON front end (docs/bir.md): the compiler's file is translated
 * into the equivalent native program (the same document `trnsim convert`
 * prints), which the native front end then reads; each instruction keeps
 * its BIR context (function, block path, name) for messages. */
#ifndef TRNSIM_HOST_BIR_H
#define TRNSIM_HOST_BIR_H

#include "frontend/program.h"

/* p->root holds the BIR document; on success it holds the native
 * translation and the program is read from it. */
int trn_bir_read(trn_program *p, const trn_load_opts *o, trn_error *e);

#endif
