/* One BIR instruction -> one native instruction object: the opcode checked
 * against the loaded modules (unhandled ones are counted for one message
 * over the whole file), then its fields and arguments. */
#include <stdlib.h>
#include <string.h>

#include "frontend/bir/bir_internal.h"

static int count_unhandled(bir_ctx *c, const char *op, trn_error *e) {
    for (size_t i = 0; i < c->n_unhandled; ++i)
        if (!strcmp(c->unhandled[i].name, op)) {
            c->unhandled[i].n++;
            return 0;
        }
    bir_count *n = realloc(c->unhandled, (c->n_unhandled + 1) * sizeof *n);
    if (!n) return trn_errorf(e, "out of memory");
    c->unhandled = n;
    c->unhandled[c->n_unhandled++] = (bir_count){op, 1};
    return 0;
}

/* *native = NULL: the instruction is left out (counted as unhandled). */
int bir_translate_inst(bir_ctx *c, json_t *inst, json_t **native, trn_error *e) {
    *native = NULL;
    if (!json_is_object(inst)) return trn_errorf(e, "an instruction must be an object");
    const char *op = json_string_value(json_object_get(inst, "opcode"));
    if (!op) return trn_errorf(e, "'opcode' must be an opcode name");
    json_t *name = json_object_get(inst, "name");
    if (name && !json_is_string(name)) return trn_errorf(e, "'name' must be a string");
    uint32_t it;
    trn_error ignored;
    bool resolved = c->o->resolve(c->o->arg, op, &it, &ignored) == 0;
    bool handled = resolved && (!c->o->handled || c->o->handled(c->o->arg, it));
    /* Unhandled: counted for the one message (or, with unknown_opcode =
     * "skip", the load-time note) and left out, except a known IT under
     * "skip": it is kept and the host skips it with its run-time note. */
    if (!handled && (!resolved || !c->o->unknown_skip)) return count_unhandled(c, op, e);
    json_t *n = json_object(), *name_json = json_object_get(c->opcodes, op);
    if (!name_json) {
        name_json = json_string(op);
        json_object_set_new(c->opcodes, op, name_json);
    }
    json_object_set(n, "opcode", name_json);
    if (bir_translate_fields(c, inst, op, n, e) || bir_translate_args(c, inst, op, n, e)) {
        json_decref(n);
        return -1;
    }
    *native = n;
    return 0;
}
