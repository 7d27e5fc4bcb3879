/* One BIR instruction -> one loaded instruction: the opcode checked
 * against the loaded modules (unhandled ones are counted for one message
 * over the whole file), then its fields and arguments. */
#include <stdlib.h>
#include <string.h>

#include "frontend/bir/bir_int.h"

static int count_unhandled(bir_ctx *c, const char *op, trn_error *e) {
    for (size_t i = 0; i < c->n_unhandled; ++i)
        if (!strcmp(c->unhandled[i].name, op)) {
            c->unhandled[i].n++;
            return 0;
        }
    bir_count *n = realloc(c->unhandled, (c->n_unhandled + 1) * sizeof *n);
    if (!n) return trn_errorf(e, "out of memory");
    c->unhandled = n;
    /* a copy: the fast path drops each entry's document once it is read */
    const char *name = bir_keep_string(c, op);
    if (!name) return trn_errorf(e, "out of memory");
    c->unhandled[c->n_unhandled++] = (bir_count){name, 1};
    return 0;
}

/* The opcode's name, one copy per distinct name. */
static const char *interned(bir_ctx *c, const char *op) {
    json_t *v = json_object_get(c->opcodes, op);
    if (!v && (!(v = json_string(op)) || json_object_set_new(c->opcodes, op, v))) return NULL;
    return json_string_value(v);
}

static bool has_schema(const trn_opcode_desc *d) {
    return d && (d->n_attrs > 0 || (d->flags & TRN_OPF_NO_ATTRS));
}

int bir_translate_inst(bir_ctx *c, json_t *inst, trn_inst *in, bool *skipped, trn_error *e) {
    memset(in, 0, sizeof *in);
    in->it = TRN_ERROR_NO_IT;
    *skipped = false;
    if (!json_is_object(inst)) return trn_errorf(e, "an instruction must be an object");
    const char *op = json_string_value(json_object_get(inst, "opcode"));
    if (!op) return trn_errorf(e, "'opcode' must be an opcode name");
    json_t *name = json_object_get(inst, "name");
    if (name && !json_is_string(name)) return trn_errorf(e, "'name' must be a string");
    uint32_t it;
    trn_error why;
    why.msg[0] = 0;
    bool resolved = c->o->resolve(c->o->arg, op, &it, &why) == 0;
    /* A name close to a known opcode is a typo: the resolver's message,
     * with its "did you mean", at this instruction, as natively. */
    if (!resolved && strstr(why.msg, "did you mean")) return trn_errorf(e, "%s", why.msg);
    /* A name trnsim has no number for is counted for the one message (or,
     * with unknown_opcode = "skip", the load-time note) and left out. A
     * known opcode is kept whether or not a module handles it: the host
     * then says why it cannot run (the family the config does not load, or
     * the one this build lacks), or skips it, as for a native program. */
    if (!resolved) {
        *skipped = true;
        return count_unhandled(c, op, e);
    }
    bool handled = !c->o->handled || c->o->handled(c->o->arg, it);
    in->kind = TRN_INST_OP;
    in->it = it;
    if (!(in->opname = interned(c, op))) return trn_errorf(e, "out of memory");
    const trn_opcode_desc *d = handled && c->o->schema ? c->o->schema(c->o->arg, it) : NULL;
    bir_inst b = {in, NULL, has_schema(d) ? d : NULL, in->opname};
    int rc = bir_translate_fields(c, inst, &b, e) || bir_translate_args(c, inst, &b, e) ? -1 : 0;
    if (b.attrs && bir_own(c, b.attrs, e)) rc = -1;
    in->obj = b.attrs ? b.attrs : c->empty;
    if (rc) {
        trn_inst_free(in);
        in->obj = NULL;
    }
    return rc;
}
