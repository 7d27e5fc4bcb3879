/* An instruction's fields: the family table says, per BIR field, the
 * native attribute and how its value maps; fields the simulator does not
 * model are accepted; any other field is an error naming the closest. */
#include <inttypes.h>
#include <string.h>

#include "frontend/bir/bir_internal.h"
#include "frontend/json_fields.h"

#define MAX_KNOWN 64

static const char *const base_keys[] = {"opcode", "name", "ins", "outs", NULL};

static int enum_error(const bir_field *f, const char *given, trn_error *e) {
    const char *names[MAX_KNOWN + 1];
    char list[600] = "";
    size_t n = 0, k = 0;
    for (const bir_enum *v = f->values; v->bir && k < MAX_KNOWN; ++v, ++k) {
        names[k] = v->bir;
        n += (size_t)snprintf(list + n, n < sizeof list ? sizeof list - n : 0, "%s%s", k ? ", " : "", v->bir);
    }
    names[k] = NULL;
    const char *near = given ? trn_closest_key(given, names) : NULL;
    if (given && trn_key_known("bypass", names) && trn_key_known(given, bir_alu_op_names))
        return trn_errorf(e, "field '%s': the AluOp '%s' has no number trnsim knows here (accepted: %s)", f->bir_name,
                          given, list);
    return trn_errorf(e, "field '%s': unknown value '%s' (expected one of %s%s%s%s)", f->bir_name,
                      given ? given : "(not a string)", list, near ? "; did you mean '" : "", near ? near : "",
                      near ? "'?" : "");
}

static int enum_value(const bir_field *f, json_t *v, json_t *native, trn_error *e) {
    const char *s = json_string_value(v);
    for (const bir_enum *x = f->values; s && x->bir; ++x) {
        if (strcmp(x->bir, s)) continue;
        if (f->use == BIR_PERM) {
            json_t *l = json_array();
            for (const char *d = x->native_str; *d; ++d) json_array_append_new(l, json_integer(*d - '0'));
            json_object_set_new(native, f->native_name, l);
        } else {
            json_object_set_new(native, f->native_name, x->native_str ? json_string(x->native_str) : json_integer(x->native));
        }
        return 0;
    }
    return enum_error(f, s, e);
}

static int dma_blocks(bir_ctx *c, const bir_field *f, json_t *v, json_t *native, trn_error *e) {
    if (!json_is_array(v) || json_array_size(v) == 0)
        return trn_errorf(e, "field '%s' must be a list of block names", f->bir_name);
    json_t *blocks = json_array();
    json_object_set_new(native, f->native_name, blocks);
    for (size_t i = 0; i < json_array_size(v); ++i) {
        const char *name = json_string_value(json_array_get(v, i));
        if (!name) return trn_errorf(e, "field '%s'[%zu] must be a block name", f->bir_name, i);
        json_t *b;
        if (bir_descriptor_block(c, name, &b, e)) return trn_error_prefix(e, "field '%s'[%zu]", f->bir_name, i);
        json_array_append_new(blocks, b);
    }
    return 0;
}

static int unknown_field(const bir_opcode_map *m, const char *key, const char *opcode, trn_error *e) {
    const char *known[MAX_KNOWN + 1];
    size_t k = 0;
    for (const char *const *b = base_keys; *b; ++b) known[k++] = *b;
    for (const char *const *b = bir_ignored_fields; *b && k < MAX_KNOWN; ++b) known[k++] = *b;
    for (const bir_field *f = m->fields; f->bir_name && k < MAX_KNOWN; ++f) known[k++] = f->bir_name;
    known[k] = NULL;
    const char *near = trn_closest_key(key, known);
    if (near) return trn_errorf(e, "unknown field '%s' for %s (did you mean '%s'?)", key, opcode, near);
    return trn_errorf(e, "unknown field '%s' for %s (docs/bir.md lists the fields of each opcode)", key, opcode);
}

static const bir_field *find_field(const bir_opcode_map *m, const char *key) {
    for (const bir_field *f = m->fields; f->bir_name; ++f)
        if (!strcmp(f->bir_name, key)) return f;
    return NULL;
}

static int one_field(bir_ctx *c, const bir_opcode_map *m, const char *key, json_t *v, json_t *native,
                     const char *opcode, trn_error *e) {
    if (!m) { /* no table: the module that registered the opcode reads its own fields */
        if (!strcmp(key, "inputs") || !strcmp(key, "outputs"))
            return trn_errorf(e, "field '%s' would collide with the native operand list", key);
        json_object_set(native, key, v);
        return 0;
    }
    const bir_field *f = find_field(m, key);
    if (!f) return unknown_field(m, key, opcode, e);
    switch (f->use) {
    case BIR_COPY: json_object_set(native, f->native_name, v); return 0;
    case BIR_ENUM:
    case BIR_PERM: return enum_value(f, v, native, e);
    case BIR_BLOCKS: return dma_blocks(c, f, v, native, e);
    case BIR_IGNORE: return 0;
    }
    return 0;
}

int bir_translate_fields(bir_ctx *c, json_t *inst, const char *opcode, json_t *native, trn_error *e) {
    const bir_opcode_map *m = bir_opcode_lookup(opcode);
    const char *key;
    json_t *v;
    json_object_foreach(inst, key, v) {
        if (trn_key_known(key, base_keys) || trn_key_known(key, bir_ignored_fields)) continue;
        if (one_field(c, m, key, v, native, opcode, e)) return -1;
    }
    /* A DMATrigger is one trigger however often a loop fires it, so its
     * round robin goes on across trips: its id is its instruction number
     * (natively it defaults to the execution index). */
    if (!strcmp(opcode, "DMATrigger")) json_object_set_new(native, "trigger", json_integer((json_int_t)c->number));
    for (const bir_field *f = m ? m->fields : NULL; f && f->bir_name; ++f) /* BIR defaults the native side lacks */
        if (f->def_str && !json_object_get(inst, f->bir_name)) {
            json_t *d = json_string(f->def_str);
            int rc = enum_value(f, d, native, e);
            json_decref(d);
            if (rc) return -1;
        }
    return 0;
}
