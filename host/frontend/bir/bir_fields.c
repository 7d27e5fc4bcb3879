/* An instruction's fields -> its attributes. A field is renamed through
 * the opcode's schema: the attribute whose bir_name (else name) it is; an
 * enum spelling becomes the entry's canonical name (by name or alias).
 * The BIR-only table (bir_maps.c) adds what a schema cannot say. Fields
 * the simulator does not model are accepted; any other field is an error
 * naming the closest known one. An opcode without a schema (an ABI 1
 * module) keeps its fields as written, for its module to read. */
#include <inttypes.h>
#include <string.h>

#include "frontend/bir/bir_int.h"
#include "frontend/frontend_int.h"

#define MAX_KNOWN 96

static const char *const base_keys[] = {"opcode", "name", "ins", "outs", NULL};

int bir_set_attr(bir_inst *b, const char *key, json_t *v, trn_error *e) {
    if (!v) return trn_errorf(e, "out of memory");
    if (!b->attrs && !(b->attrs = json_object())) {
        json_decref(v);
        return trn_errorf(e, "out of memory");
    }
    if (json_object_set_new(b->attrs, key, v)) return trn_errorf(e, "out of memory");
    return 0;
}

static bool alias_is(const char *aliases, const char *s) {
    size_t n = strlen(s);
    for (const char *p = aliases; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !strncmp(p, s, n)) return true;
        p = bar ? bar + 1 : NULL;
    }
    return false;
}

/* "field 'F': unknown value 'V' (expected one of ...; did you mean 'X'?)",
 * listing the BIR spellings. */
static int enum_error(const char *field, const trn_attr_desc *a, const char *given, trn_error *e) {
    char list[600] = "", one[200];
    const char *names[MAX_KNOWN + 1];
    size_t n = 0, k = 0;
    bool alu = false;
    for (uint32_t i = 0; i < a->n_enums; ++i) {
        bir_enum_spellings(&a->enums[i], one, sizeof one);
        n += (size_t)snprintf(list + n, n < sizeof list ? sizeof list - n : 0, "%s%s",
                              i ? ", " : "", one);
        alu |= !strcmp(a->enums[i].name, "bypass");
        if (k < MAX_KNOWN)
            names[k++] = a->enums[i].aliases && *a->enums[i].aliases ? a->enums[i].aliases
                                                                     : a->enums[i].name;
    }
    names[k] = NULL;
    if (given && alu && trn_key_known(given, bir_alu_op_names))
        return trn_errorf(
            e, "field '%s': the AluOp '%s' has no number trnsim knows here (accepted: %s)", field,
            given, list);
    const char *near = given ? trn_closest_key(given, names) : NULL;
    return trn_errorf(e, "field '%s': unknown value '%s' (expected one of %s%s%s%s)", field,
                      given ? given : "(not a string)", list, near ? "; did you mean '" : "",
                      near ? near : "", near ? "'?" : "");
}

/* A schema attribute's value: enum spellings -> the canonical name. */
static int schema_value(bir_inst *b, const char *field, const trn_attr_desc *a, json_t *v,
                        trn_error *e) {
    if (!(a->types & TRN_ATTR_ENUM) || !json_is_string(v))
        return bir_set_attr(b, a->name, json_incref(v), e);
    const char *s = json_string_value(v);
    for (uint32_t i = 0; i < a->n_enums; ++i)
        if (!strcmp(a->enums[i].name, s) || alias_is(a->enums[i].aliases, s))
            return bir_set_attr(b, a->name, json_string(a->enums[i].name), e);
    if (a->types & TRN_ATTR_STRING) return bir_set_attr(b, a->name, json_incref(v), e);
    return enum_error(field, a, s, e);
}

static int perm_value(bir_inst *b, const bir_special *f, json_t *v, trn_error *e) {
    const char *s = json_string_value(v);
    for (const bir_enum *x = f->values; s && x->bir; ++x) {
        if (strcmp(x->bir, s)) continue;
        json_t *l = json_array();
        for (const char *d = x->digits; l && *d; ++d)
            json_array_append_new(l, json_integer(*d - '0'));
        return bir_set_attr(b, f->native_name, l, e);
    }
    char list[600] = "";
    const char *names[MAX_KNOWN + 1];
    size_t n = 0, k = 0;
    for (const bir_enum *x = f->values; x->bir && k < MAX_KNOWN; ++x, ++k) {
        names[k] = x->bir;
        n += (size_t)snprintf(list + n, n < sizeof list ? sizeof list - n : 0, "%s%s",
                              k ? ", " : "", x->bir);
    }
    names[k] = NULL;
    const char *near = s ? trn_closest_key(s, names) : NULL;
    return trn_errorf(e, "field '%s': unknown value '%s' (expected one of %s%s%s%s)", f->bir_name,
                      s ? s : "(not a string)", list, near ? "; did you mean '" : "",
                      near ? near : "", near ? "'?" : "");
}

static int engine_value(bir_inst *b, const bir_special *f, json_t *v, trn_error *e) {
    if (json_is_integer(v)) return bir_set_attr(b, f->native_name, json_incref(v), e);
    const char *s = json_string_value(v);
    for (const bir_enum *x = f->values; s && x->bir; ++x)
        if (!strcmp(x->bir, s)) return 0; /* the issuing engine: not modelled */
    const char *names[MAX_KNOWN + 1];
    size_t k = 0;
    for (const bir_enum *x = f->values; x->bir && k < MAX_KNOWN; ++x) names[k++] = x->bir;
    names[k] = NULL;
    const char *near = s ? trn_closest_key(s, names) : NULL;
    return trn_errorf(
        e,
        "field '%s': expected an integer (the generator's engine: 1 gen-1, 5 gen-2) or an issuing "
        "engine's name (unassigned, act, dma, dve, pe, pool, sp; not modelled)%s%s%s",
        f->bir_name, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

static int dma_blocks(bir_ctx *c, bir_inst *b, const bir_special *f, json_t *v, trn_error *e) {
    if (!json_is_array(v) || json_array_size(v) == 0)
        return trn_errorf(e, "field '%s' must be a list of block names", f->bir_name);
    json_t *blocks = json_array();
    if (bir_set_attr(b, f->native_name, blocks, e)) return -1;
    for (size_t i = 0; i < json_array_size(v); ++i) {
        const char *name = json_string_value(json_array_get(v, i));
        if (!name) return trn_errorf(e, "field '%s'[%zu] must be a block name", f->bir_name, i);
        json_t *block;
        if (bir_descriptor_block(c, name, &block, e))
            return trn_error_prefix(e, "field '%s'[%zu]", f->bir_name, i);
        if (json_array_append_new(blocks, block)) return trn_errorf(e, "out of memory");
    }
    return 0;
}

static const bir_special *find_special(const bir_opcode_extra *x, const char *key) {
    for (const bir_special *f = x ? x->special : NULL; f && f->bir_name; ++f)
        if (!strcmp(f->bir_name, key)) return f;
    return NULL;
}

static int unknown_field(const bir_inst *b, const bir_opcode_extra *x, const char *key,
                         trn_error *e) {
    const char *known[MAX_KNOWN + 1];
    size_t k = 0;
    for (const char *const *n = base_keys; *n; ++n) known[k++] = *n;
    for (const char *const *n = bir_ignored_fields; *n && k < MAX_KNOWN; ++n) known[k++] = *n;
    known[k++] = bir_uninit_field;
    for (const char *const *n = x ? x->ignored : NULL; n && *n && k < MAX_KNOWN; ++n)
        known[k++] = *n;
    for (const bir_special *f = x ? x->special : NULL; f && f->bir_name && k < MAX_KNOWN; ++f)
        known[k++] = f->bir_name;
    for (uint32_t i = 0; i < b->schema->n_attrs && k < MAX_KNOWN; ++i)
        if (bir_attr_readable(&b->schema->attrs[i]))
            known[k++] = b->schema->attrs[i].bir_name ? b->schema->attrs[i].bir_name
                                                      : b->schema->attrs[i].name;
    known[k] = NULL;
    const char *near = trn_closest_key(key, known);
    if (near)
        return trn_errorf(e, "unknown field '%s' for %s (did you mean '%s'?)", key, b->opcode,
                          near);
    return trn_errorf(e, "unknown field '%s' for %s (docs/bir.md lists the fields of each opcode)",
                      key, b->opcode);
}

/* The one place a field is read: what bir_field_class says it is. */
static int one_field(bir_ctx *c, bir_inst *b, const bir_opcode_extra *x, const char *key, json_t *v,
                     trn_error *e) {
    bir_field_use use = bir_field_class(b->schema, x, key);
    if (use == BIR_FIELD_BASE || use == BIR_FIELD_IGNORED || use == BIR_FIELD_OPCODE_IGNORED)
        return 0;
    if (use == BIR_FIELD_UNINIT) {
        if (!json_is_boolean(v)) return trn_errorf(e, "field '%s' must be true or false", key);
        b->in->allow_uninit = json_is_true(v);
        return 0;
    }
    if (!b->schema) { /* no schema: the module that registered the opcode reads its own fields */
        if (!strcmp(key, "inputs") || !strcmp(key, "outputs") || !strcmp(key, "allow_uninit_read"))
            return trn_errorf(e, "field '%s' would collide with a native instruction key", key);
        return bir_set_attr(b, key, json_incref(v), e);
    }
    if (use == BIR_FIELD_SPECIAL) {
        const bir_special *f = find_special(x, key);
        if (f->use == BIR_ENGINE) return engine_value(b, f, v, e);
        return f->use == BIR_PERM ? perm_value(b, f, v, e) : dma_blocks(c, b, f, v, e);
    }
    if (use == BIR_FIELD_UNKNOWN) return unknown_field(b, x, key, e);
    return schema_value(b, key, bir_schema_field(b->schema, key), v, e);
}

/* A BIR default the module lacks, for a field the instruction leaves out. */
static int apply_default(bir_ctx *c, json_t *inst, bir_inst *b, const bir_opcode_extra *x,
                         trn_error *e) {
    if (!x || !x->default_field || !b->schema || json_object_get(inst, x->default_field)) return 0;
    const trn_attr_desc *a = bir_schema_field(b->schema, x->default_field);
    if (!a) return 0;
    json_t *d = x->default_value == bir_default_number ? json_integer((json_int_t)c->number)
                                                       : json_string(x->default_value);
    int rc = d ? schema_value(b, x->default_field, a, d, e) : trn_errorf(e, "out of memory");
    json_decref(d);
    return rc;
}

int bir_translate_fields(bir_ctx *c, json_t *inst, bir_inst *b, trn_error *e) {
    const bir_opcode_extra *x = bir_opcode_extra_lookup(b->opcode);
    const char *key;
    json_t *v;
    json_object_foreach(inst, key, v) {
        if (one_field(c, b, x, key, v, e)) return -1;
    }
    return apply_default(c, inst, b, x, e);
}
