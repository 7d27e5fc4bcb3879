/* The native JSON front end (docs/programs.md): its parts share these. */
#ifndef TRNSIM_HOST_NATIVE_H
#define TRNSIM_HOST_NATIVE_H

#include "frontend/frontend.h"

/* The whole program from p->root (already parsed JSON). */
int trn_native_read(trn_program *p, const trn_load_opts *o, trn_error *e);

/* The whole program from its text, simple instructions without a document
 * each (native_fast.c). 0: read; 1: not read (anything unexpected or any
 * error): read the file as a document instead, whose messages are the
 * ones to give. text[len] must be 0 (a file's text as read, or a C string). */
int trn_native_read_text(trn_program *p, const char *text, size_t len, const trn_load_opts *o);

int trn_native_parse_tensors(trn_program *p, json_t *tensors, const trn_machine *m, trn_error *e);
int trn_native_parse_mem(const char *s, trn_mem *out);
int trn_native_get_dtype(json_t *obj, const char *where, trn_dtype *out, trn_error *e);

#endif
