/* The reference opcodes this project knows by name, with the family that
 * implements them, so a program can name an opcode whose module is not
 * loaded and be told which family to add (docs/opcodes.md). */
#ifndef TRNSIM_HOST_OPNAMES_H
#define TRNSIM_HOST_OPNAMES_H

#include <stddef.h>
#include <stdint.h>

typedef struct trn_known_op {
    uint32_t it;
    const char *name;
    const char *family; /* NULL: skip-and-note in the reference, no family */
} trn_known_op;

const trn_known_op *trn_known_op_by_name(const char *name);
const trn_known_op *trn_known_op_by_it(uint32_t it);

/* 0 when family is one of this project's (plugins/<family>/) and the build
 * left it out (TRNSIM_FAMILIES); 1 otherwise. */
int trn_family_built(const char *family);
/* The CMake option that adds family to this build, as advice for a message:
 * -DTRNSIM_FAMILIES="<built>;<family>". */
const char *trn_family_build_hint(const char *family, char *buf, size_t len);

#endif
