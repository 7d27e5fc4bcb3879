#include "modules/modules.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/common.h"

const char *const trn_instruction_keys[] = {"opcode",  "inputs", "outputs", "allow_uninit_read",
                                            "comment", NULL};

#define SCALAR_TYPES                                                                               \
    (TRN_ATTR_BOOL | TRN_ATTR_INT | TRN_ATTR_FLOAT | TRN_ATTR_STRING | TRN_ATTR_ENUM |             \
     TRN_ATTR_OBJECT)
#define LIST_TYPES           (TRN_ATTR_LIST | TRN_ATTR_NESTED_LIST | TRN_ATTR_INSTRUCTIONS)
#define ALL_TYPES            (SCALAR_TYPES | LIST_TYPES)
#define MAX_NEST             8
#define TRN_SCHEMA_MAX_NAMES 256 /* candidates for a "did you mean" (more are not compared) */

bool trn_schema_given(const trn_opcode_desc *op) {
    return op->n_attrs > 0 || (op->flags & TRN_OPF_NO_ATTRS);
}

const trn_attr_desc *trn_schema_find(const trn_opcode_desc *op, const char *key) {
    for (uint32_t i = 0; i < op->n_attrs; ++i)
        if (strcmp(op->attrs[i].name, key) == 0) return &op->attrs[i];
    return NULL;
}

static bool alias_matches(const char *aliases, const char *s) {
    size_t n = strlen(s);
    for (const char *p = aliases; p && *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, s, n) == 0) return true;
        p = bar ? bar + 1 : NULL;
    }
    return false;
}

const trn_enum_desc *trn_schema_enum_entry(const trn_attr_desc *a, const json_t *v) {
    for (uint32_t i = 0; i < a->n_enums; ++i) {
        const trn_enum_desc *x = &a->enums[i];
        if (json_is_string(v) && (!strcmp(x->name, json_string_value(v)) ||
                                  alias_matches(x->aliases, json_string_value(v))))
            return x;
        if (json_is_integer(v) && json_integer_value(v) == x->value) return x;
    }
    return NULL;
}

/* ---- type names ---- */

static const struct {
    uint32_t bit;
    const char *name;
} TYPE_NAMES[] = {{TRN_ATTR_BOOL, "bool"},
                  {TRN_ATTR_INT, "int"},
                  {TRN_ATTR_FLOAT, "float"},
                  {TRN_ATTR_STRING, "string"},
                  {TRN_ATTR_ENUM, "enum"},
                  {TRN_ATTR_LIST, "list"},
                  {TRN_ATTR_NESTED_LIST, "nested list"},
                  {TRN_ATTR_OBJECT, "object"},
                  {TRN_ATTR_INSTRUCTIONS, "instruction list"}};

static size_t types_text(uint32_t types, char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof TYPE_NAMES / sizeof TYPE_NAMES[0] && n < len; ++i)
        if (types & TYPE_NAMES[i].bit)
            n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? " or " : "", TYPE_NAMES[i].name);
    return n;
}

void trn_schema_type_text(const trn_attr_desc *a, char *buf, size_t len) {
    size_t n = types_text(a->types, buf, len);
    if ((a->types & (TRN_ATTR_LIST | TRN_ATTR_NESTED_LIST)) && n < len) {
        snprintf(buf + n, len - n, " of ");
        types_text(a->elem, buf + n + 4, len > n + 4 ? len - n - 4 : 0);
    }
}

static const char *json_kind(const json_t *v) {
    switch (json_typeof(v)) {
        case JSON_OBJECT: return "an object";
        case JSON_ARRAY: return "a list";
        case JSON_STRING: return "a string";
        case JSON_INTEGER: return "an integer";
        case JSON_REAL: return "a number";
        case JSON_TRUE:
        case JSON_FALSE: return "a bool";
        default: return "null";
    }
}

/* ---- one value ---- */

typedef struct walk {
    const trn_opcode_desc *op;
    trn_schema_lookup lookup;
    void *arg;
    int depth;
} walk;

static int validate_inst(walk *w, const trn_opcode_desc *op, const json_t *inst, trn_error *e);

static bool float_word(const char *s) {
    return !strcasecmp(s, "inf") || !strcasecmp(s, "+inf") || !strcasecmp(s, "infinity") ||
           !strcasecmp(s, "-inf") || !strcasecmp(s, "-infinity") || !strcasecmp(s, "nan");
}

static bool is_integral(const json_t *v) {
    if (json_is_integer(v)) return true;
    double d = json_is_real(v) ? json_real_value(v) : 0.5;
    return d == floor(d) && fabs(d) < 9e18;
}

/* Whether v has one of the scalar types; *num gets its number for the range check. */
static bool scalar_ok(const trn_attr_desc *a, uint32_t types, const json_t *v, bool *has_num,
                      double *num) {
    *has_num = false;
    if ((types & TRN_ATTR_BOOL) &&
        (json_is_boolean(v) ||
         (json_is_integer(v) && (json_integer_value(v) == 0 || json_integer_value(v) == 1))))
        return true;
    if ((types & TRN_ATTR_ENUM) && trn_schema_enum_entry(a, v) && !json_is_integer(v)) return true;
    if ((types & TRN_ATTR_INT) && json_is_number(v) && is_integral(v)) {
        *has_num = true;
        *num = json_number_value(v);
        return true;
    }
    if ((types & TRN_ATTR_FLOAT) &&
        (json_is_number(v) || (json_is_string(v) && float_word(json_string_value(v))))) {
        *has_num = json_is_number(v);
        *num = json_is_number(v) ? json_number_value(v) : 0;
        return true;
    }
    if ((types & TRN_ATTR_STRING) && json_is_string(v)) return true;
    if ((types & TRN_ATTR_OBJECT) && json_is_object(v)) return true;
    return false;
}

static int enum_names(const trn_attr_desc *a, char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < a->n_enums && n < len; ++i)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", a->enums[i].name);
    return 0;
}

static int bad_scalar(const walk *w, const trn_attr_desc *a, uint32_t types, const json_t *v,
                      const char *where, trn_error *e) {
    char want[160];
    if ((types & TRN_ATTR_ENUM) && json_is_string(v)) {
        char names[600];
        const char *cands[TRN_SCHEMA_MAX_NAMES];
        uint32_t n = a->n_enums < TRN_SCHEMA_MAX_NAMES ? a->n_enums : TRN_SCHEMA_MAX_NAMES;
        enum_names(a, names, sizeof names);
        for (uint32_t i = 0; i < n; ++i) cands[i] = a->enums[i].name;
        const char *best = trn_suggest(json_string_value(v), cands, n);
        if (best)
            return trn_errorf(e, "%s of %s: unknown value '%s'; did you mean '%s'? (one of %s)",
                              where, w->op->name, json_string_value(v), best, names);
        return trn_errorf(e, "%s of %s: unknown value '%s' (one of %s)", where, w->op->name,
                          json_string_value(v), names);
    }
    if (types == a->types)
        trn_schema_type_text(a, want, sizeof want - 40);
    else
        types_text(types, want, sizeof want - 40);
    if ((types & TRN_ATTR_FLOAT) && !(types & TRN_ATTR_STRING))
        snprintf(want + strlen(want), sizeof want - strlen(want),
                 " (a number, \"inf\", \"-inf\" or \"nan\")");
    if ((types & TRN_ATTR_BOOL) && !(types & TRN_ATTR_INT))
        snprintf(want + strlen(want), sizeof want - strlen(want), " (true or false)");
    if ((types & TRN_ATTR_ENUM) && (types & TRN_ATTR_INT) && json_is_integer(v))
        return trn_errorf(e, "%s of %s = %" PRId64 " is not one of its values", where, w->op->name,
                          (int64_t)json_integer_value(v));
    return trn_errorf(e, "%s of %s must be %s, found %s", where, w->op->name, want, json_kind(v));
}

/* An integer is named as the file wrote it (its double could be rounded). */
static int check_range(const walk *w, const trn_attr_desc *a, const json_t *v, double num,
                       const char *where, trn_error *e) {
    if (a->min >= a->max || (num >= a->min && num <= a->max)) return 0;
    if (json_is_integer(v))
        return trn_errorf(e, "%s of %s = %" PRId64 " is outside [%.17g, %.17g]", where, w->op->name,
                          (int64_t)json_integer_value(v), a->min, a->max);
    return trn_errorf(e, "%s of %s = %.17g is outside [%.17g, %.17g]", where, w->op->name, num,
                      a->min, a->max);
}

static int check_scalar(const walk *w, const trn_attr_desc *a, uint32_t types, const json_t *v,
                        const char *where, trn_error *e) {
    bool has_num;
    double num = 0;
    if (!scalar_ok(a, types, v, &has_num, &num)) return bad_scalar(w, a, types, v, where, e);
    return has_num ? check_range(w, a, v, num, where, e) : 0;
}

static int check_length(const walk *w, const trn_attr_desc *a, const json_t *v, const char *where,
                        trn_error *e) {
    size_t n = json_array_size(v);
    if (n < a->len_min || (a->len_max && n > a->len_max)) {
        if (a->len_min == a->len_max)
            return trn_errorf(e, "%s of %s has %zu entries, expected %u", where, w->op->name, n,
                              a->len_min);
        if (a->len_max)
            return trn_errorf(e, "%s of %s has %zu entries, expected %u to %u", where, w->op->name,
                              n, a->len_min, a->len_max);
        return trn_errorf(e, "%s of %s has %zu entries, expected at least %u", where, w->op->name,
                          n, a->len_min);
    }
    return 0;
}

static int check_list(const walk *w, const trn_attr_desc *a, const json_t *v, bool nested,
                      const char *where, trn_error *e) {
    if (check_length(w, a, v, where, e)) return -1;
    for (size_t i = 0; i < json_array_size(v); ++i) {
        const json_t *x = json_array_get(v, i);
        char at[200];
        snprintf(at, sizeof at, "%s[%zu]", where, i);
        if (!nested) {
            if (check_scalar(w, a, a->elem, x, at, e)) return -1;
            continue;
        }
        if (!json_is_array(x))
            return trn_errorf(e, "%s of %s must be a list, found %s", at, w->op->name,
                              json_kind(x));
        for (size_t j = 0; j < json_array_size(x); ++j) {
            char at2[240];
            snprintf(at2, sizeof at2, "%s[%zu]", at, j);
            if (check_scalar(w, a, a->elem, json_array_get(x, j), at2, e)) return -1;
        }
    }
    return 0;
}

static int check_instructions(walk *w, const trn_attr_desc *a, const json_t *v, const char *where,
                              trn_error *e) {
    if (check_length(w, a, v, where, e)) return -1;
    if (w->depth >= MAX_NEST)
        return trn_errorf(e, "%s: instruction lists nested deeper than %d", where, MAX_NEST);
    for (size_t i = 0; i < json_array_size(v); ++i) {
        const json_t *x = json_array_get(v, i);
        if (!json_is_object(x))
            return trn_errorf(e, "%s[%zu] of %s must be an instruction object", where, i,
                              w->op->name);
        const trn_opcode_desc *sub = NULL;
        if (w->lookup(w->arg, x, &sub, e)) return trn_error_prefix(e, "%s[%zu]", where, i);
        if (!sub) continue; /* no handler: the dispatcher says so when it runs */
        const trn_opcode_desc *saved = w->op;
        w->depth++;
        int rc = validate_inst(w, sub, x, e);
        w->depth--;
        w->op = saved;
        if (rc) return trn_error_prefix(e, "%s[%zu]", where, i);
    }
    return 0;
}

static int check_value(walk *w, const trn_attr_desc *a, const json_t *v, trn_error *e) {
    char where[160];
    snprintf(where, sizeof where, "attribute '%s'", a->name);
    if (json_is_array(v)) {
        if (a->types & TRN_ATTR_INSTRUCTIONS) return check_instructions(w, a, v, where, e);
        if (a->types & TRN_ATTR_NESTED_LIST) {
            bool rows = json_array_size(v) == 0 || json_is_array(json_array_get(v, 0));
            if (rows || !(a->types & TRN_ATTR_LIST)) return check_list(w, a, v, true, where, e);
        }
        if (a->types & TRN_ATTR_LIST) return check_list(w, a, v, false, where, e);
    }
    return check_scalar(w, a, a->types, v, where, e);
}

/* ---- one instruction ---- */

static bool host_key(const char *key) {
    for (const char *const *k = trn_instruction_keys; *k; ++k)
        if (!strcmp(*k, key)) return true;
    return false;
}

static int unknown_key(const trn_opcode_desc *op, const char *key, trn_error *e) {
    const char *cands[TRN_SCHEMA_MAX_NAMES];
    size_t n = 0;
    for (const char *const *k = trn_instruction_keys; *k; ++k) cands[n++] = *k;
    size_t n_host = n;
    for (uint32_t i = 0; i < op->n_attrs && n < TRN_SCHEMA_MAX_NAMES; ++i)
        cands[n++] = op->attrs[i].name;
    const char *best = trn_suggest(key, cands, n);
    bool host = false;
    for (size_t i = 0; best && i < n_host; ++i) host |= best == cands[i];
    if (best && host)
        return trn_errorf(e, "unknown instruction key '%s' for %s; did you mean '%s'?", key,
                          op->name, best);
    if (best)
        return trn_errorf(e, "unknown attribute '%s' for %s; did you mean '%s'?", key, op->name,
                          best);
    if (op->n_attrs == 0)
        return trn_errorf(e, "unknown attribute '%s' for %s, which takes no attributes", key,
                          op->name);
    char names[600];
    size_t len = 0;
    for (uint32_t i = 0; i < op->n_attrs && len < sizeof names; ++i)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
                                op->attrs[i].name);
    return trn_errorf(e, "unknown attribute '%s' for %s (its attributes: %s)", key, op->name,
                      names);
}

static int validate_inst(walk *w, const trn_opcode_desc *op, const json_t *inst, trn_error *e) {
    w->op = op;
    if (!trn_schema_given(op)) return 0;
    const char *key;
    json_t *v;
    bool empty = json_object_size(inst) ==
                 0; /* a simple instruction's attributes: nothing to walk or look up */
    if (!empty) json_object_foreach((json_t *)inst, key, v) {
            if (host_key(key)) continue;
            const trn_attr_desc *a = trn_schema_find(op, key);
            if (!a) return unknown_key(op, key, e);
            if (check_value(w, a, v, e)) return -1;
        }
    for (uint32_t i = 0; i < op->n_attrs; ++i) {
        const trn_attr_desc *a = &op->attrs[i];
        if ((a->flags & TRN_ATTRF_REQUIRED) && (empty || !json_object_get(inst, a->name)))
            return trn_errorf(e, "%s needs the attribute '%s' (%s)", op->name, a->name,
                              a->help ? a->help : "required");
    }
    return 0;
}

int trn_schema_validate(const trn_opcode_desc *op, const json_t *inst, trn_schema_lookup lookup,
                        void *arg, trn_error *e) {
    walk w = {op, lookup, arg, 0};
    return validate_inst(&w, op, inst, e);
}

/* ---- the loader's check of the tables ---- */

static int check_default(const trn_opcode_desc *op, const trn_attr_desc *a, trn_error *e) {
    json_error_t je;
    json_t *v = json_loads(a->def, JSON_DECODE_ANY, &je);
    if (!v) v = json_string(a->def); /* a bare word: a string or an enum name */
    walk w = {op, NULL, NULL, MAX_NEST};
    int rc = v ? check_value(&w, a, v, e) : trn_errorf(e, "out of memory");
    json_decref(v);
    return rc ? trn_error_prefix(e, "the default \"%s\"", a->def) : 0;
}

static int check_attr(const trn_opcode_desc *op, uint32_t i, trn_error *e) {
    const trn_attr_desc *a = &op->attrs[i];
    if (!a->name || !*a->name) return trn_errorf(e, "attribute entry %u has no name", i);
    if (host_key(a->name))
        return trn_errorf(e, "attribute '%s' is an instruction key of the host", a->name);
    for (uint32_t j = 0; j < i; ++j)
        if (!strcmp(op->attrs[j].name, a->name))
            return trn_errorf(e, "attribute '%s' is declared twice", a->name);
    if (!a->types || (a->types & ~ALL_TYPES))
        return trn_errorf(e, "attribute '%s' has types 0x%x", a->name, a->types);
    bool list = a->types & (TRN_ATTR_LIST | TRN_ATTR_NESTED_LIST);
    if (list && (!a->elem || (a->elem & ~SCALAR_TYPES)))
        return trn_errorf(e, "attribute '%s' is a list with element types 0x%x", a->name, a->elem);
    uint32_t all = a->types | (list ? a->elem : 0);
    if ((all & TRN_ATTR_ENUM) && (!a->enums || !a->n_enums))
        return trn_errorf(e, "attribute '%s' is an enum without values", a->name);
    for (uint32_t k = 0; k < a->n_enums; ++k)
        if (!a->enums || !a->enums[k].name || !*a->enums[k].name)
            return trn_errorf(e, "attribute '%s': enum value %u has no name", a->name, k);
    if ((a->flags & ~TRN_ATTRF_REQUIRED))
        return trn_errorf(e, "attribute '%s' has flags 0x%x", a->name, a->flags);
    if ((a->flags & TRN_ATTRF_REQUIRED) && a->def)
        return trn_errorf(e, "attribute '%s' is required and has a default", a->name);
    if (a->len_max && a->len_min > a->len_max)
        return trn_errorf(e, "attribute '%s' has lengths %u..%u", a->name, a->len_min, a->len_max);
    return a->def ? check_default(op, a, e) : 0;
}

int trn_schema_check_desc(const trn_opcode_desc *op, trn_error *e) {
    if (op->n_attrs && !op->attrs)
        return trn_errorf(e, "opcode %s has n_attrs %u without attrs", op->name, op->n_attrs);
    if (op->n_operands && !op->operands)
        return trn_errorf(e, "opcode %s has n_operands %u without operands", op->name,
                          op->n_operands);
    for (uint32_t i = 0; i < op->n_attrs; ++i)
        if (check_attr(op, i, e)) return trn_error_prefix(e, "opcode %s", op->name);
    for (uint32_t i = 0; i < op->n_operands; ++i) {
        const trn_operand_desc *d = &op->operands[i];
        if (!d->name || !*d->name || d->dir > TRN_OUT ||
            (d->flags & ~(TRN_OPERANDF_OPTIONAL | TRN_OPERANDF_REPEATED)))
            return trn_errorf(e,
                              "opcode %s: operand entry %u needs a name, a direction TRN_IN / "
                              "TRN_OUT and known flags",
                              op->name, i);
    }
    return 0;
}
