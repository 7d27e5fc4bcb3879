/* Attribute schemas of ABI 2 opcodes: the loader's check of a module's
 * tables, and the validation of every instruction object against its
 * opcode's schema when a program loads (docs/programs.md, "Validation"). */
#ifndef TRNSIM_HOST_SCHEMA_H
#define TRNSIM_HOST_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>

#include "common/error.h"
#include "trnsim/plugin.h"

/* The keys every instruction may carry whatever its opcode. */
extern const char *const trn_instruction_keys[];

/* Whether the opcode has a schema (ABI 2 attrs, or TRN_OPF_NO_ATTRS). */
bool trn_schema_given(const trn_opcode_desc *op);

/* The loader's check of one opcode's attribute and operand tables. */
int trn_schema_check_desc(const trn_opcode_desc *op, trn_error *e);

const trn_attr_desc *trn_schema_find(const trn_opcode_desc *op, const char *key);

/* The enum entry a value names (by name, alias or number), or NULL. */
const trn_enum_desc *trn_schema_enum_entry(const trn_attr_desc *a, const json_t *v);

/* Looks up the opcode of a sub-instruction object (for INSTRUCTIONS
 * attributes): its descriptor (NULL when no loaded module handles it), or -1
 * with a message when its opcode is malformed or unknown. */
typedef int (*trn_schema_lookup)(void *arg, const json_t *inst, const trn_opcode_desc **op, trn_error *e);

/* Keys, types, ranges and required attributes of one instruction object
 * (recursing into INSTRUCTIONS lists). */
int trn_schema_validate(const trn_opcode_desc *op, const json_t *inst, trn_schema_lookup lookup, void *arg,
                        trn_error *e);

/* "bool", "int or string", ...: the types an attribute accepts, for messages and describe. */
void trn_schema_type_text(const trn_attr_desc *a, char *buf, size_t len);

#endif
