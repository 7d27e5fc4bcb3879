#include "frontend/program.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arith/arith.h"

#define PLACE_ALIGN 64
/* Larger than any memory (HBM is at most 2^36 bytes): keeps sizes in int64. */
#define MAX_TENSOR_ELEMS (1ll << 40)

static int known(const char *key, const char *const *keys) {
    for (; *keys; ++keys)
        if (strcmp(key, *keys) == 0) return 1;
    return 0;
}

static int check_keys(json_t *obj, const char *const *keys, const char *where, trn_error *e) {
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        if (!known(key, keys)) return trn_errorf(e, "%s: unknown key '%s'", where, key);
    }
    return 0;
}

/* An optional integer member in [min, max]. */
static int get_int(json_t *obj, const char *key, int64_t def, int64_t min, int64_t max, int64_t *out,
                   const char *where, trn_error *e) {
    json_t *v = json_object_get(obj, key);
    *out = def;
    if (!v) return 0;
    if (!json_is_integer(v)) return trn_errorf(e, "%s: '%s' must be an integer", where, key);
    int64_t x = json_integer_value(v);
    if (x < min || x > max)
        return trn_errorf(e, "%s: '%s' = %" PRId64 " is outside [%" PRId64 ", %" PRId64 "]", where, key, x, min, max);
    *out = x;
    return 0;
}

static int parse_mem(const char *s, trn_mem *out) {
    for (int i = 0; i < 3; ++i)
        if (strcasecmp(s, trn_mem_names[i]) == 0) {
            *out = (trn_mem)i;
            return 0;
        }
    return -1;
}

static int get_dtype(json_t *obj, const char *where, trn_dtype *out, trn_error *e) {
    json_t *v = json_object_get(obj, "dtype");
    if (!json_is_string(v)) return trn_errorf(e, "%s: 'dtype' must be a dtype name", where);
    if (trn_dtype_from_name(json_string_value(v), out, e)) return trn_error_prefix(e, "%s", where);
    return 0;
}

/* ---- tensors ---- */

static int parse_shape(json_t *t, trn_tensor *x, const trn_machine *m, const char *where, trn_error *e) {
    json_t *s = json_object_get(t, "shape");
    size_t n = json_array_size(s);
    int max_dims = x->mem == TRN_MEM_HBM ? TRN_AP_MAX_DIMS : TRN_AP_MAX_DIMS + 1;
    if (!json_is_array(s) || n < 1 || (int)n > max_dims)
        return trn_errorf(e, "%s: 'shape' must be a list of 1 to %d positive integers", where, max_dims);
    x->ndim = (int)n;
    x->count = 1;
    for (size_t i = 0; i < n; ++i) {
        json_t *d = json_array_get(s, i);
        if (!json_is_integer(d) || json_integer_value(d) < 1 || json_integer_value(d) > (1ll << 32))
            return trn_errorf(e, "%s: 'shape' must be a list of 1 to %d positive integers", where, max_dims);
        x->shape[i] = json_integer_value(d);
        /* No memory holds more than MAX_TENSOR_ELEMS elements. */
        if (__builtin_mul_overflow(x->count, x->shape[i], &x->count) || x->count > MAX_TENSOR_ELEMS)
            return trn_errorf(e, "%s: 'shape' has more than 2^40 elements, more than any memory holds", where);
    }
    if (x->mem != TRN_MEM_HBM && x->shape[0] > m->partitions)
        return trn_errorf(e, "%s: %" PRId64 " partitions, the machine has %u", where, x->shape[0], m->partitions);
    return 0;
}

/* The tensor's own AP: partitions x row-major free shape. */
static void tensor_ap(trn_tensor *x) {
    trn_ap *ap = &x->ap;
    memset(ap, 0, sizeof *ap);
    ap->mem = x->mem;
    ap->dtype = x->dtype;
    int first = x->mem == TRN_MEM_HBM ? 0 : 1;
    ap->part_start = x->partition;
    ap->part_count = x->mem == TRN_MEM_HBM ? 1 : (uint32_t)x->shape[0];
    ap->part_step = 1;
    ap->offset = x->offset_bytes / (int64_t)trn_dtype_width(x->dtype);
    int64_t step = 1;
    ap->ndims = (uint32_t)(x->ndim - first);
    for (int d = x->ndim - 1; d >= first; --d) {
        ap->dims[d - first].step = step;
        ap->dims[d - first].num = x->shape[d];
        step *= x->shape[d];
    }
    if (ap->ndims == 0) {
        ap->ndims = 1;
        ap->dims[0].step = 1;
        ap->dims[0].num = 1;
    }
}

static uint64_t mem_limit(const trn_machine *m, trn_mem mem) {
    return mem == TRN_MEM_SBUF ? m->sbuf_partition_bytes : mem == TRN_MEM_PSUM ? m->psum_partition_bytes : m->hbm_bytes;
}

static int place_tensor(trn_tensor *x, json_t *t, const trn_machine *m, int64_t cursor[3], const char *where,
                        trn_error *e) {
    uint32_t w = trn_dtype_width(x->dtype);
    int64_t part;
    if (get_int(t, "partition", 0, 0, m->partitions - 1, &part, where, e)) return -1;
    if (x->mem == TRN_MEM_HBM && part != 0) return trn_errorf(e, "%s: hbm has no partitions", where);
    x->partition = (uint32_t)part;
    if (x->mem != TRN_MEM_HBM && part + x->shape[0] > m->partitions)
        return trn_errorf(e, "%s: partitions %" PRId64 "..%" PRId64 " exceed the machine's %u", where, part,
                          part + x->shape[0] - 1, m->partitions);
    int64_t bytes = (x->mem == TRN_MEM_HBM ? x->count : x->count / x->shape[0]) * w;
    if (json_object_get(t, "offset")) {
        if (get_int(t, "offset", 0, 0, INT64_MAX, &x->offset_bytes, where, e)) return -1;
        if (x->offset_bytes % w) return trn_errorf(e, "%s: offset %" PRId64 " is not a multiple of the %u-byte dtype",
                                                   where, x->offset_bytes, w);
    } else {
        x->offset_bytes = (cursor[x->mem] + PLACE_ALIGN - 1) / PLACE_ALIGN * PLACE_ALIGN;
    }
    /* offset_bytes <= INT64_MAX and bytes <= 2^43: their sum fits uint64. */
    uint64_t end = (uint64_t)x->offset_bytes + (uint64_t)bytes;
    if (end > mem_limit(m, x->mem))
        return trn_errorf(e, "%s: needs bytes %" PRId64 "..%" PRIu64 " of %s, which has %" PRIu64 "%s", where,
                          x->offset_bytes, end - 1, trn_mem_names[x->mem], mem_limit(m, x->mem),
                          x->mem == TRN_MEM_HBM ? "" : " per partition");
    if (x->offset_bytes + bytes > cursor[x->mem]) cursor[x->mem] = x->offset_bytes + bytes;
    return 0;
}

static int parse_init(trn_tensor *x, json_t *t, uint32_t cores, const char *where, trn_error *e) {
    static const char *const kinds[] = {"fill", "data", "data_per_core"};
    for (int k = 0; k < 3; ++k) {
        json_t *v = json_object_get(t, kinds[k]);
        if (!v) continue;
        if (x->init) return trn_errorf(e, "%s: give only one of fill, data, data_per_core", where);
        x->init = v;
        x->init_kind = kinds[k];
    }
    if (!x->init) return 0;
    if (!strcmp(x->init_kind, "fill")) {
        if (!json_is_number(x->init) && !json_is_string(x->init))
            return trn_errorf(e, "%s: 'fill' must be a number or \"inf\", \"-inf\", \"nan\"", where);
        return 0;
    }
    if (!strcmp(x->init_kind, "data")) {
        if (!json_is_array(x->init) || (int64_t)json_array_size(x->init) != x->count)
            return trn_errorf(e, "%s: 'data' must be a list of %" PRId64 " numbers", where, x->count);
        return 0;
    }
    if (!json_is_array(x->init) || json_array_size(x->init) != cores)
        return trn_errorf(e, "%s: 'data_per_core' must be a list of %u lists (one per core)", where, cores);
    for (size_t c = 0; c < cores; ++c) {
        json_t *l = json_array_get(x->init, c);
        if (!json_is_array(l) || (int64_t)json_array_size(l) != x->count)
            return trn_errorf(e, "%s: data_per_core[%zu] must be a list of %" PRId64 " numbers", where, c, x->count);
    }
    return 0;
}

static int parse_tensor(trn_program *p, json_t *t, int i, const trn_machine *m, int64_t cursor[3], trn_error *e) {
    static const char *const keys[] = {"name", "memory", "dtype", "shape", "partition", "offset",
                                       "fill", "data", "data_per_core", "comment", NULL};
    char where[160];
    snprintf(where, sizeof where, "tensor %d", i);
    if (!json_is_object(t)) return trn_errorf(e, "%s: must be an object", where);
    trn_tensor *x = &p->tensors[i];
    json_t *name = json_object_get(t, "name");
    if (!json_is_string(name) || !*json_string_value(name))
        return trn_errorf(e, "%s: 'name' must be a non-empty string", where);
    x->name = json_string_value(name);
    snprintf(where, sizeof where, "tensor '%s'", x->name);
    if (check_keys(t, keys, where, e)) return -1;
    if (trn_program_find_tensor(p, x->name) < i) return trn_errorf(e, "%s: declared twice", where);
    json_t *mem = json_object_get(t, "memory");
    if (!json_is_string(mem) || parse_mem(json_string_value(mem), &x->mem))
        return trn_errorf(e, "%s: 'memory' must be \"sbuf\", \"psum\" or \"hbm\"", where);
    if (get_dtype(t, where, &x->dtype, e) || parse_shape(t, x, m, where, e) ||
        place_tensor(x, t, m, cursor, where, e) || parse_init(x, t, p->cores, where, e))
        return -1;
    tensor_ap(x);
    return 0;
}

int trn_program_find_tensor(const trn_program *p, const char *name) {
    for (int i = 0; i < p->n_tensors; ++i)
        if (p->tensors[i].name && strcmp(p->tensors[i].name, name) == 0) return i;
    return p->n_tensors;
}

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
    if (!json_is_string(mem) || parse_mem(json_string_value(mem), &m))
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
    if (check_keys(o, keys, where, e) || operand_base(p, o, op, where, e)) return -1;
    const trn_tensor *t = op->tensor >= 0 ? &p->tensors[op->tensor] : NULL;
    trn_ap *ap = &op->ap;
    int64_t avail = t ? (int64_t)ap->part_count : 1 << 20;
    int64_t part, count, step, off, reg, core, core_off;
    if (get_int(o, "core", -1, 0, 1023, &core, where, e) || get_int(o, "core_offset", 0, -1023, 1023, &core_off, where, e))
        return -1;
    if (core >= 0 && core_off != 0) return trn_errorf(e, "%s: give 'core' or 'core_offset', not both", where);
    if (core >= (int64_t)p->cores)
        return trn_errorf(e, "%s: core %" PRId64 " does not exist (the program has %u cores)", where, core, p->cores);
    op->core = (int)core;
    op->core_offset = (int)core_off;
    if (get_int(o, "partition", 0, 0, avail - 1, &part, where, e)) return -1;
    if (get_int(o, "partitions", t ? avail - part : 1, 1, 1 << 20, &count, where, e) ||
        get_int(o, "partition_step", 1, 0, 1 << 20, &step, where, e) ||
        get_int(o, "offset", 0, INT32_MIN, INT64_MAX / 2, &off, where, e) ||
        get_int(o, "offset_register", -1, 0, 4095, &reg, where, e))
        return -1;
    ap->part_start += (uint32_t)part;
    ap->part_count = (uint32_t)count;
    ap->part_step = (uint32_t)step;
    op->offset_register = (int)reg;
    if (json_object_get(o, "dtype")) {
        trn_dtype dt;
        if (get_dtype(o, where, &dt, e)) return -1;
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
    if (!json_is_object(obj)) return trn_errorf(e, "an instruction must be an object");
    in->obj = obj;
    json_t *op = json_object_get(obj, "opcode");
    if (json_is_integer(op)) {
        if (json_integer_value(op) < 0 || json_integer_value(op) > TRN_IT_MAX)
            return trn_errorf(e, "opcode %" PRId64 " is outside 0..%u", (int64_t)json_integer_value(op), TRN_IT_MAX);
        in->it = (uint32_t)json_integer_value(op);
    } else if (json_is_string(op)) {
        in->opname = json_string_value(op);
        if (resolve(arg, in->opname, &in->it, e)) return -1;
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

/* ---- the program ---- */

static int parse_top(trn_program *p, const trn_machine *m, trn_error *e) {
    static const char *const keys[] = {"cores", "allow_uninit_read", "tensors", "instructions", "comment", NULL};
    if (!json_is_object(p->root)) return trn_errorf(e, "the program must be a JSON object");
    if (check_keys(p->root, keys, "program", e)) return -1;
    int64_t cores;
    p->cores_given = json_object_get(p->root, "cores") != NULL;
    if (get_int(p->root, "cores", p->cores, 1, 1024, &cores, "program", e)) return -1;
    p->cores = (uint32_t)cores;
    json_t *au = json_object_get(p->root, "allow_uninit_read");
    if (au && !json_is_boolean(au)) return trn_errorf(e, "program: 'allow_uninit_read' must be true or false");
    p->allow_uninit = json_is_true(au);
    json_t *ts = json_object_get(p->root, "tensors");
    if (ts && !json_is_array(ts)) return trn_errorf(e, "program: 'tensors' must be a list");
    p->tensors = calloc(json_array_size(ts) + 1, sizeof *p->tensors);
    if (!p->tensors) return trn_errorf(e, "out of memory");
    int64_t cursor[3] = {0, 0, 0};
    for (size_t i = 0; i < json_array_size(ts); ++i) {
        p->n_tensors = (int)i + 1;
        if (parse_tensor(p, json_array_get(ts, i), (int)i, m, cursor, e)) return -1;
    }
    return 0;
}

static int parse_insts(trn_program *p, trn_opname_resolver resolve, void *arg, trn_error *e) {
    json_t *is = json_object_get(p->root, "instructions");
    if (!json_is_array(is)) return trn_errorf(e, "program: 'instructions' must be a list");
    p->insts = calloc(json_array_size(is) + 1, sizeof *p->insts);
    if (!p->insts) return trn_errorf(e, "out of memory");
    for (size_t i = 0; i < json_array_size(is); ++i) {
        if (trn_inst_parse(p, json_array_get(is, i), &p->insts[i], resolve, arg, e))
            return trn_error_prefix(e, "instruction %zu", i);
        p->n_insts = i + 1;
    }
    return 0;
}

int trn_program_parse(trn_program *p, const char *path, const char *text, const trn_machine *m,
                      trn_opname_resolver resolve, void *arg, trn_error *e) {
    uint32_t default_cores = p->cores ? p->cores : 1;
    memset(p, 0, sizeof *p);
    p->cores = default_cores;
    p->path = strdup(path);
    if (!p->path) return trn_errorf(e, "out of memory");
    json_error_t je;
    p->root = text ? json_loads(text, JSON_REJECT_DUPLICATES, &je) : json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!p->root) {
        if (je.line < 0) return trn_errorf(e, "%s: %s", path, je.text);
        return trn_errorf(e, "%s:%d:%d: %s", path, je.line, je.column, je.text);
    }
    if (parse_top(p, m, e) || parse_insts(p, resolve, arg, e)) return trn_error_prefix(e, "%s", path);
    return 0;
}

void trn_program_free(trn_program *p) {
    for (size_t i = 0; i < p->n_insts; ++i) trn_inst_free(&p->insts[i]);
    free(p->insts);
    free(p->tensors);
    if (p->root) json_decref(p->root);
    free(p->path);
    memset(p, 0, sizeof *p);
}
