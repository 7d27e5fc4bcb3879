/* The reference opcodes this project knows by name, with the family that
 * implements them, so a program can name an opcode whose module is not
 * loaded and be told which family to add (docs/opcodes.md). */
#ifndef TRNSIM_HOST_OPNAMES_H
#define TRNSIM_HOST_OPNAMES_H

#include <stdint.h>

typedef struct trn_known_op {
    uint32_t it;
    const char *name;
    const char *family; /* NULL: skip-and-note in the reference, no family */
} trn_known_op;

const trn_known_op *trn_known_op_by_name(const char *name);
const trn_known_op *trn_known_op_by_it(uint32_t it);

#endif
