/* Native operands and instruction objects (docs/programs.md, "Operands",
 * "Instructions"). Also parses the sub-instructions of descriptor lists. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "frontend/json_fields.h"
#include "frontend/native/native.h"

/* ---- operands ---- */

static int parse_ap_dims(json_t *apj, trn_ap *ap, const char *where, trn_error *e) {
    size_t n = json_array_size(apj);
    if (!json_is_array(apj) || n < 1 || n > TRN_AP_MAX_DIMS)
        return trn_errorf(e, "%s: 'ap' must be a list of 1 to %d [step, num] pairs", where, TRN_AP_MAX_DIMS);
    ap->ndims = (uint32_t)n;
    for (size_t d = 0; d < n; ++d) {
        json_t *pair = json_array_get(apj, d);
        json_t *s = json_array_get(pair, 0), *k = json_array_get(pair, 1);
        if (json_array_size(pair) != 2 || !json_is_integer(s) || !json_is_integer(k) || json_integer_value(k) < 1)
            return trn_errorf(e, "%s: ap[%zu] must be [step, num] with integer step and num >= 1", where, d);
        ap->dims[d].step = json_integer_value(s);
        ap->dims[d].num = json_integer_value(k);
    }
    return 0;
}

static int operand_base(const trn_program *p, json_t *o, trn_operand *op, const char *where, trn_error *e) {
    json_t *tn = json_object_get(o, "tensor");
    if (tn) {
        if (!json_is_string(tn)) return trn_errorf(e, "%s: 'tensor' must be a name", where);
        op->tensor = trn_program_find_tensor(p, json_string_value(tn));
        if (op->tensor >= p->n_tensors) return trn_errorf(e, "%s: no tensor named '%s'", where, json_string_value(tn));
        if (json_object_get(o, "memory")) return trn_errorf(e, "%s: give 'tensor' or 'memory', not both", where);
        op->ap = p->tensors[op->tensor].ap;
        return 0;
    }
    json_t *mem = json_object_get(o, "memory");
    trn_mem m;
    if (!json_is_string(mem) || trn_native_parse_mem(json_string_value(mem), &m))
        return trn_errorf(e, "%s: an operand object needs 'tensor' or 'memory' (\"sbuf\", \"psum\", \"hbm\")", where);
    if (!json_object_get(o, "dtype") || !json_object_get(o, "ap"))
        return trn_errorf(e, "%s: a raw memory operand needs 'dtype' and 'ap'", where);
    op->tensor = -1;
    memset(&op->ap, 0, sizeof op->ap);
    op->ap.mem = m;
    op->ap.part_count = 1;
    op->ap.part_step = 1;
    return 0;
}

static int parse_operand_obj(const trn_program *p, json_t *o, trn_operand *op, const char *where, trn_error *e) {
    static const char *const keys[] = {"tensor", "memory", "partition", "partitions", "partition_step", "offset",
                                       "ap", "dtype", "offset_register", "core", "core_offset", "comment", NULL};
    if (trn_check_keys(o, keys, where, e) || operand_base(p, o, op, where, e)) return -1;
    const trn_tensor *t = op->tensor >= 0 ? &p->tensors[op->tensor] : NULL;
    trn_ap *ap = &op->ap;
    int64_t avail = t ? (int64_t)ap->part_count : 1 << 20;
    int64_t part, count, step, off, reg, core, core_off;
    if (trn_get_int(o, "core", -1, 0, 1023, &core, where, e) || trn_get_int(o, "core_offset", 0, -1023, 1023, &core_off, where, e))
        return -1;
    if (core >= 0 && core_off != 0) return trn_errorf(e, "%s: give 'core' or 'core_offset', not both", where);
    if (core >= (int64_t)p->cores)
        return trn_errorf(e, "%s: core %" PRId64 " does not exist (the program has %u cores)", where, core, p->cores);
    op->core = (int)core;
    op->core_offset = (int)core_off;
    if (trn_get_int(o, "partition", 0, 0, avail - 1, &part, where, e)) return -1;
    if (trn_get_int(o, "partitions", t ? avail - part : 1, 1, 1 << 20, &count, where, e) ||
        trn_get_int(o, "partition_step", 1, 0, 1 << 20, &step, where, e) ||
        trn_get_int(o, "offset", 0, INT32_MIN, INT64_MAX / 2, &off, where, e) ||
        trn_get_int(o, "offset_register", -1, 0, 4095, &reg, where, e))
        return -1;
    ap->part_start += (uint32_t)part;
    ap->part_count = (uint32_t)count;
    ap->part_step = (uint32_t)step;
    op->offset_register = (int)reg;
    if (json_object_get(o, "dtype")) {
        trn_dtype dt;
        if (trn_native_get_dtype(o, where, &dt, e)) return -1;
        if (t) { /* re-express the tensor base in the new element width */
            uint32_t w = trn_dtype_width(dt);
            if (t->offset_bytes % w)
                return trn_errorf(e, "%s: tensor '%s' starts at byte %" PRId64 ", not a multiple of %s's %u bytes", where,
                                  t->name, t->offset_bytes, trn_dtype_name(dt), w);
            ap->offset = t->offset_bytes / w;
        }
        ap->dtype = dt;
    }
    ap->offset += off;
    if (json_object_get(o, "ap") && parse_ap_dims(json_object_get(o, "ap"), ap, where, e)) return -1;
    return 0;
}

static int parse_operand(const trn_program *p, json_t *o, trn_operand *op, const char *where, trn_error *e) {
    op->offset_register = -1;
    op->core = -1;
    op->core_offset = 0;
    if (json_is_string(o)) {
        op->tensor = trn_program_find_tensor(p, json_string_value(o));
        if (op->tensor >= p->n_tensors) return trn_errorf(e, "%s: no tensor named '%s'", where, json_string_value(o));
        op->ap = p->tensors[op->tensor].ap;
        return 0;
    }
    if (!json_is_object(o)) return trn_errorf(e, "%s: an operand is a tensor name or an object", where);
    return parse_operand_obj(p, o, op, where, e);
}

static int parse_operands(const trn_program *p, json_t *obj, const char *key, trn_operand **out, int *n,
                          trn_error *e) {
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

int trn_inst_parse(const trn_program *p, json_t *obj, trn_inst *in, trn_opname_resolver resolve, void *arg,
                   trn_error *e) {
    memset(in, 0, sizeof *in);
    in->it = TRN_ERROR_NO_IT; /* until the opcode resolves */
    if (!json_is_object(obj)) return trn_errorf(e, "an instruction must be an object");
    in->obj = obj;
    json_t *op = json_object_get(obj, "opcode");
    if (json_is_integer(op)) {
        if (json_integer_value(op) < 0 || json_integer_value(op) > TRN_IT_MAX)
            return trn_errorf(e, "opcode %" PRId64 " is outside 0..%u", (int64_t)json_integer_value(op), TRN_IT_MAX);
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
    if (au && !json_is_boolean(au)) return trn_errorf(e, "'allow_uninit_read' must be true or false");
    in->allow_uninit = json_is_true(au);
    if (parse_operands(p, obj, "inputs", &in->in, &in->n_in, e) ||
        parse_operands(p, obj, "outputs", &in->out, &in->n_out, e)) {
        trn_inst_free(in);
        return -1;
    }
    return 0;
}

void trn_inst_free(trn_inst *in) {
    free(in->in);
    free(in->out);
    in->in = in->out = NULL;
}

