/* The native JSON front end (docs/programs.md): its parts share these. */
#ifndef TRNSIM_HOST_NATIVE_H
#define TRNSIM_HOST_NATIVE_H

#include "frontend/program.h"

/* The whole program from p->root (already parsed JSON). */
int trn_native_read(trn_program *p, const trn_load_opts *o, trn_error *e);

int trn_native_parse_tensors(trn_program *p, json_t *tensors, const trn_machine *m, trn_error *e);
int trn_native_parse_mem(const char *s, trn_mem *out);
int trn_native_get_dtype(json_t *obj, const char *where, trn_dtype *out, trn_error *e);

#endif
