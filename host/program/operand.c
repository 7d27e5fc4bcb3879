/* Operand specs resolved against the program's tensors, and written back
 * as native operand objects (operand.h). */
#include "program/program.h"

#include <inttypes.h>
#include <string.h>

#include "arith/arith.h"

void trn_operand_spec_init(trn_operand_spec *s) {
    memset(s, 0, sizeof *s);
    s->tensor = -1;
    s->partition_step = 1;
    s->offset_register = -1;
    s->core = -1;
}

static int in_range(const char *where, const char *key, int64_t v, int64_t lo, int64_t hi,
                    trn_error *e) {
    if (v >= lo && v <= hi) return 0;
    return trn_errorf(e, "%s: '%s' = %" PRId64 " is outside [%" PRId64 ", %" PRId64 "]", where, key,
                      v, lo, hi);
}

static void base_ap(const trn_program *p, const trn_operand_spec *s, trn_ap *ap) {
    if (s->tensor >= 0) {
        *ap = p->tensors[s->tensor].ap;
        return;
    }
    memset(ap, 0, sizeof *ap);
    ap->mem = s->mem;
    ap->part_count = 1;
    ap->part_step = 1;
}

int trn_operand_resolve(const trn_program *p, const trn_operand_spec *s, trn_operand *op,
                        const char *where, trn_error *e) {
    const trn_tensor *t = s->tensor >= 0 ? &p->tensors[s->tensor] : NULL;
    trn_ap *ap = &op->ap;
    op->tensor = s->tensor;
    base_ap(p, s, ap);
    if (s->core >= 0 && s->core_offset != 0)
        return trn_errorf(e, "%s: give 'core' or 'core_offset', not both", where);
    if (s->core >= (int64_t)p->cores)
        return trn_errorf(e, "%s: core %" PRId64 " does not exist (the program has %u cores)",
                          where, s->core, p->cores);
    op->core = (int)s->core;
    op->core_offset = (int)s->core_offset;
    op->offset_register = (int)s->offset_register;
    int64_t avail = t ? (int64_t)ap->part_count : 1 << 20;
    int64_t count = s->has_partitions ? s->partitions : t ? avail - s->partition : 1;
    if (in_range(where, "partition", s->partition, 0, avail - 1, e) ||
        in_range(where, "partitions", count, 1, 1 << 20, e) ||
        in_range(where, "partition_step", s->partition_step, 0, 1 << 20, e) ||
        in_range(where, "offset", s->offset, INT32_MIN, INT64_MAX / 2, e))
        return -1;
    ap->part_start += (uint32_t)s->partition;
    ap->part_count = (uint32_t)count;
    ap->part_step = (uint32_t)s->partition_step;
    if (s->has_dtype) {
        if (t) { /* re-express the tensor base in the new element width */
            uint32_t w = trn_dtype_width(s->dtype);
            if (t->offset_bytes % w)
                return trn_errorf(e,
                                  "%s: tensor '%s' starts at byte %" PRId64
                                  ", not a multiple of %s's %u bytes",
                                  where, t->name, t->offset_bytes, trn_dtype_name(s->dtype), w);
            ap->offset = t->offset_bytes / w;
        }
        ap->dtype = s->dtype;
    }
    ap->offset += s->offset;
    if (s->ndims) {
        ap->ndims = s->ndims;
        for (uint32_t d = 0; d < s->ndims; ++d) {
            ap->dims[d].step = s->step[d];
            ap->dims[d].num = s->num[d];
        }
    }
    return 0;
}

static int set_int(json_t *o, const char *key, int64_t v) {
    return json_object_set_new(o, key, json_integer(v));
}

json_t *trn_operand_to_json(const trn_program *p, const trn_operand *op) {
    const trn_ap *ap = &op->ap;
    json_t *o = json_object(), *pairs = json_array();
    if (!o || !pairs) {
        json_decref(o);
        json_decref(pairs);
        return NULL;
    }
    int rc = 0;
    int64_t part = ap->part_start, rest = 1, base = 0;
    if (op->tensor >= 0) {
        const trn_tensor *t = &p->tensors[op->tensor];
        rc |= json_object_set_new(o, "tensor", json_string(t->name));
        part -= t->ap.part_start;
        rest = (int64_t)t->ap.part_count - part;
        base = t->ap.offset;
        if (ap->dtype != t->ap.dtype) base = t->offset_bytes / trn_dtype_width(ap->dtype);
    } else {
        rc |= json_object_set_new(o, "memory", json_string(trn_mem_names[ap->mem]));
    }
    if (op->tensor < 0 || ap->dtype != p->tensors[op->tensor].ap.dtype)
        rc |= json_object_set_new(o, "dtype", json_string(trn_dtype_name(ap->dtype)));
    if (part) rc |= set_int(o, "partition", part);
    if ((int64_t)ap->part_count != rest) rc |= set_int(o, "partitions", ap->part_count);
    if (ap->part_step != 1) rc |= set_int(o, "partition_step", ap->part_step);
    if (ap->offset != base) rc |= set_int(o, "offset", ap->offset - base);
    for (uint32_t d = 0; d < ap->ndims; ++d) {
        json_t *pair = json_array();
        rc |= json_array_append_new(pair, json_integer(ap->dims[d].step));
        rc |= json_array_append_new(pair, json_integer(ap->dims[d].num));
        rc |= json_array_append_new(pairs, pair);
    }
    rc |= json_object_set_new(o, "ap", pairs);
    if (op->offset_register >= 0) rc |= set_int(o, "offset_register", op->offset_register);
    if (op->core >= 0) rc |= set_int(o, "core", op->core);
    if (op->core_offset) rc |= set_int(o, "core_offset", op->core_offset);
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}
