/* Native operands and instruction objects (docs/programs.md, "Operands",
 * "Instructions"). Also parses the sub-instructions of descriptor lists. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "frontend/frontend_int.h"
#include "frontend/native/native.h"
#include "program/program.h"

/* ---- operands ---- */

static int parse_ap_dims(json_t *apj, trn_operand_spec *s, const char *where, trn_error *e) {
    size_t n = json_array_size(apj);
    if (!json_is_array(apj) || n < 1 || n > TRN_AP_MAX_DIMS)
        return trn_errorf(e, "%s: 'ap' must be a list of 1 to %d [step, num] pairs", where,
                          TRN_AP_MAX_DIMS);
    s->ndims = (uint32_t)n;
    for (size_t d = 0; d < n; ++d) {
        json_t *pair = json_array_get(apj, d);
        json_t *st = json_array_get(pair, 0), *k = json_array_get(pair, 1);
        if (json_array_size(pair) != 2 || !json_is_integer(st) || !json_is_integer(k) ||
            json_integer_value(k) < 1)
            return trn_errorf(e, "%s: ap[%zu] must be [step, num] with integer step and num >= 1",
                              where, d);
        s->step[d] = json_integer_value(st);
        s->num[d] = json_integer_value(k);
    }
    return 0;
}

static int operand_base(const trn_program *p, json_t *o, trn_operand_spec *s, const char *where,
                        trn_error *e) {
    json_t *tn = json_object_get(o, "tensor");
    if (tn) {
        if (!json_is_string(tn)) return trn_errorf(e, "%s: 'tensor' must be a name", where);
        s->tensor = trn_program_find_tensor(p, json_string_value(tn));
        if (s->tensor >= p->n_tensors)
            return trn_errorf(e, "%s: no tensor named '%s'", where, json_string_value(tn));
        if (json_object_get(o, "memory"))
            return trn_errorf(e, "%s: give 'tensor' or 'memory', not both", where);
        return 0;
    }
    json_t *mem = json_object_get(o, "memory");
    if (!json_is_string(mem) || trn_native_parse_mem(json_string_value(mem), &s->mem))
        return trn_errorf(
            e, "%s: an operand object needs 'tensor' or 'memory' (\"sbuf\", \"psum\", \"hbm\")",
            where);
    if (!json_object_get(o, "dtype") || !json_object_get(o, "ap"))
        return trn_errorf(e, "%s: a raw memory operand needs 'dtype' and 'ap'", where);
    s->tensor = -1;
    return 0;
}

/* An optional integer member (ranges are the resolver's, which knows the tensor). */
static int get_any_int(json_t *o, const char *key, int64_t *out, bool *given, const char *where,
                       trn_error *e) {
    json_t *v = json_object_get(o, key);
    if (given) *given = v != NULL;
    if (!v) return 0;
    if (!json_is_integer(v)) return trn_errorf(e, "%s: '%s' must be an integer", where, key);
    *out = json_integer_value(v);
    return 0;
}

static int parse_operand_obj(const trn_program *p, json_t *o, trn_operand *op, const char *where,
                             trn_error *e) {
    static const char *const keys[] = {
        "tensor", "memory",          "partition", "partitions",  "partition_step", "offset", "ap",
        "dtype",  "offset_register", "core",      "core_offset", "comment",        NULL};
    trn_operand_spec s;
    trn_operand_spec_init(&s);
    if (trn_check_keys(o, keys, where, e) || operand_base(p, o, &s, where, e)) return -1;
    if (trn_get_int(o, "core", -1, 0, 1023, &s.core, where, e) ||
        trn_get_int(o, "core_offset", 0, -1023, 1023, &s.core_offset, where, e) ||
        get_any_int(o, "partition", &s.partition, NULL, where, e) ||
        get_any_int(o, "partitions", &s.partitions, &s.has_partitions, where, e) ||
        get_any_int(o, "partition_step", &s.partition_step, NULL, where, e) ||
        get_any_int(o, "offset", &s.offset, NULL, where, e) ||
        trn_get_int(o, "offset_register", -1, 0, 4095, &s.offset_register, where, e))
        return -1;
    if (json_object_get(o, "dtype")) {
        if (trn_native_get_dtype(o, where, &s.dtype, e)) return -1;
        s.has_dtype = true;
    }
    if (json_object_get(o, "ap") && parse_ap_dims(json_object_get(o, "ap"), &s, where, e))
        return -1;
    return trn_operand_resolve(p, &s, op, where, e);
}

static int parse_operand(const trn_program *p, json_t *o, trn_operand *op, const char *where,
                         trn_error *e) {
    op->offset_register = -1;
    op->core = -1;
    op->core_offset = 0;
    if (json_is_string(o)) {
        op->tensor = trn_program_find_tensor(p, json_string_value(o));
        if (op->tensor >= p->n_tensors)
            return trn_errorf(e, "%s: no tensor named '%s'", where, json_string_value(o));
        op->ap = p->tensors[op->tensor].ap;
        return 0;
    }
    if (!json_is_object(o))
        return trn_errorf(e, "%s: an operand is a tensor name or an object", where);
    return parse_operand_obj(p, o, op, where, e);
}

static int parse_operands(const trn_program *p, json_t *obj, const char *key, trn_operand **out,
                          int *n, trn_error *e) {
    json_t *l = json_object_get(obj, key);
    *n = 0;
    *out = NULL;
    if (!l) return 0;
    if (!json_is_array(l)) return trn_errorf(e, "'%s' must be a list of operands", key);
    *out = calloc(json_array_size(l) + 1, sizeof **out);
    if (!*out) return trn_errorf(e, "out of memory");
    for (size_t i = 0; i < json_array_size(l); ++i) {
        char w[200];
        snprintf(w, sizeof w, "%s[%zu]", key, i);
        if (parse_operand(p, json_array_get(l, i), &(*out)[i], w, e)) return -1;
        ++*n;
    }
    return 0;
}

int trn_inst_parse(const trn_program *p, json_t *obj, trn_inst *in, trn_opname_resolver resolve,
                   void *arg, trn_error *e) {
    memset(in, 0, sizeof *in);
    in->it = TRN_ERROR_NO_IT; /* until the opcode resolves */
    if (!json_is_object(obj)) return trn_errorf(e, "an instruction must be an object");
    in->obj = obj;
    json_t *op = json_object_get(obj, "opcode");
    if (json_is_integer(op)) {
        if (json_integer_value(op) < 0 || json_integer_value(op) > TRN_IT_MAX)
            return trn_errorf(e, "opcode %" PRId64 " is outside 0..%u",
                              (int64_t)json_integer_value(op), TRN_IT_MAX);
        in->it = (uint32_t)json_integer_value(op);
    } else if (json_is_string(op)) {
        in->opname = json_string_value(op);
        if (resolve(arg, in->opname, &in->it, e)) {
            in->it = TRN_ERROR_NO_IT;
            return -1;
        }
    } else {
        return trn_errorf(e, "'opcode' must be a name or an IT number");
    }
    json_t *au = json_object_get(obj, "allow_uninit_read");
    if (au && !json_is_boolean(au))
        return trn_errorf(e, "'allow_uninit_read' must be true or false");
    in->allow_uninit = json_is_true(au);
    if (parse_operands(p, obj, "inputs", &in->in, &in->n_in, e) ||
        parse_operands(p, obj, "outputs", &in->out, &in->n_out, e)) {
        trn_inst_free(in);
        return -1;
    }
    return 0;
}
