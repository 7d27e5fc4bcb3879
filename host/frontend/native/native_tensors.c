/* Native tensors: declaration, shape, placement and initial data
 * (docs/programs.md, "Tensors"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arith/arith.h"
#include "frontend/frontend_int.h"
#include "frontend/native/native.h"

#define PLACE_ALIGN 64
/* Larger than any memory (HBM is at most 2^36 bytes): keeps sizes in int64. */
#define MAX_TENSOR_ELEMS (1ll << 40)

int trn_native_parse_mem(const char *s, trn_mem *out) {
    for (int i = 0; i < 3; ++i)
        if (strcasecmp(s, trn_mem_names[i]) == 0) {
            *out = (trn_mem)i;
            return 0;
        }
    return -1;
}

int trn_native_get_dtype(json_t *obj, const char *where, trn_dtype *out, trn_error *e) {
    json_t *v = json_object_get(obj, "dtype");
    if (!json_is_string(v)) return trn_errorf(e, "%s: 'dtype' must be a dtype name", where);
    if (trn_dtype_from_name(json_string_value(v), out, e)) return trn_error_prefix(e, "%s", where);
    return 0;
}

/* ---- tensors ---- */

static int parse_shape(json_t *t, trn_tensor *x, const trn_machine *m, const char *where,
                       trn_error *e) {
    json_t *s = json_object_get(t, "shape");
    size_t n = json_array_size(s);
    int max_dims = x->mem == TRN_MEM_HBM ? TRN_AP_MAX_DIMS : TRN_AP_MAX_DIMS + 1;
    if (!json_is_array(s) || n < 1 || (int)n > max_dims)
        return trn_errorf(e, "%s: 'shape' must be a list of 1 to %d positive integers", where,
                          max_dims);
    x->ndim = (int)n;
    x->count = 1;
    for (size_t i = 0; i < n; ++i) {
        json_t *d = json_array_get(s, i);
        if (!json_is_integer(d) || json_integer_value(d) < 1 || json_integer_value(d) > (1ll << 32))
            return trn_errorf(e, "%s: 'shape' must be a list of 1 to %d positive integers", where,
                              max_dims);
        x->shape[i] = json_integer_value(d);
        /* No memory holds more than MAX_TENSOR_ELEMS elements. */
        if (__builtin_mul_overflow(x->count, x->shape[i], &x->count) || x->count > MAX_TENSOR_ELEMS)
            return trn_errorf(
                e, "%s: 'shape' has more than 2^40 elements, more than any memory holds", where);
    }
    if (x->mem != TRN_MEM_HBM && x->shape[0] > m->partitions)
        return trn_errorf(e, "%s: %" PRId64 " partitions, the machine has %u", where, x->shape[0],
                          m->partitions);
    return 0;
}

/* A view (view_of) sits at its base's partition and byte offset plus its
 * own partition / offset, and takes no bytes of its own: it is the declared
 * way to reach bytes of several tensors through one operand. */
static int place_view(trn_tensor *x, const trn_tensor *base, json_t *t, const trn_machine *m,
                      const char *where, trn_error *e) {
    uint32_t w = trn_dtype_width(x->dtype);
    int64_t part, off;
    if (x->mem != base->mem)
        return trn_errorf(e, "%s: a view of '%s' must be in its memory (%s)", where, base->name,
                          trn_mem_names[base->mem]);
    if (trn_get_int(t, "partition", 0, 0, m->partitions - 1, &part, where, e) ||
        trn_get_int(t, "offset", 0, 0, INT64_MAX / 2, &off, where, e))
        return -1;
    if (x->mem == TRN_MEM_HBM && part != 0)
        return trn_errorf(e, "%s: hbm has no partitions", where);
    x->partition = base->partition + (uint32_t)part;
    x->offset_bytes = base->offset_bytes + off;
    if (x->offset_bytes % w)
        return trn_errorf(e,
                          "%s: starts at byte %" PRId64 " (view_of '%s' + offset %" PRId64
                          "), not a multiple of "
                          "the %u-byte dtype",
                          where, x->offset_bytes, base->name, off, w);
    if (x->mem != TRN_MEM_HBM && x->partition + x->shape[0] > m->partitions)
        return trn_errorf(e, "%s: partitions %u..%" PRId64 " exceed the machine's %u", where,
                          x->partition, x->partition + x->shape[0] - 1, m->partitions);
    int64_t bytes = (x->mem == TRN_MEM_HBM ? x->count : x->count / x->shape[0]) * w;
    uint64_t end = (uint64_t)x->offset_bytes + (uint64_t)bytes;
    if (end > trn_tensor_mem_limit(m, x->mem))
        return trn_errorf(
            e, "%s: needs bytes %" PRId64 "..%" PRIu64 " of %s, which has %" PRIu64 "%s", where,
            x->offset_bytes, end - 1, trn_mem_names[x->mem], trn_tensor_mem_limit(m, x->mem),
            x->mem == TRN_MEM_HBM ? "" : " per partition");
    return 0;
}

static int place_tensor(trn_tensor *x, json_t *t, const trn_machine *m, int64_t cursor[3],
                        const char *where, trn_error *e) {
    int64_t part;
    if (trn_get_int(t, "partition", 0, 0, m->partitions - 1, &part, where, e)) return -1;
    if (x->mem == TRN_MEM_HBM && part != 0)
        return trn_errorf(e, "%s: hbm has no partitions", where);
    x->partition = (uint32_t)part;
    if (json_object_get(t, "offset")) {
        if (trn_get_int(t, "offset", 0, 0, INT64_MAX, &x->offset_bytes, where, e)) return -1;
    } else {
        x->offset_bytes = (cursor[x->mem] + PLACE_ALIGN - 1) / PLACE_ALIGN * PLACE_ALIGN;
    }
    if (trn_tensor_check_placement(x, m, where, e)) return -1;
    int64_t bytes = trn_tensor_row_bytes(x);
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
            return trn_errorf(e, "%s: 'fill' must be a number or \"inf\", \"-inf\", \"nan\"",
                              where);
        return 0;
    }
    if (!strcmp(x->init_kind, "data")) {
        if (!json_is_array(x->init) || (int64_t)json_array_size(x->init) != x->count)
            return trn_errorf(e, "%s: 'data' must be a list of %" PRId64 " numbers", where,
                              x->count);
        return 0;
    }
    if (!json_is_array(x->init) || json_array_size(x->init) != cores)
        return trn_errorf(e, "%s: 'data_per_core' must be a list of %u lists (one per core)", where,
                          cores);
    for (size_t c = 0; c < cores; ++c) {
        json_t *l = json_array_get(x->init, c);
        if (!json_is_array(l) || (int64_t)json_array_size(l) != x->count)
            return trn_errorf(e, "%s: data_per_core[%zu] must be a list of %" PRId64 " numbers",
                              where, c, x->count);
    }
    return 0;
}

static int parse_tensor(trn_program *p, json_t *t, int i, const trn_machine *m, int64_t cursor[3],
                        trn_error *e) {
    static const char *const keys[] = {"name",          "memory",  "dtype",   "shape",
                                       "partition",     "offset",  "fill",    "data",
                                       "data_per_core", "view_of", "comment", NULL};
    char where[160];
    snprintf(where, sizeof where, "tensor %d", i);
    if (!json_is_object(t)) return trn_errorf(e, "%s: must be an object", where);
    trn_tensor *x = &p->tensors[i];
    json_t *name = json_object_get(t, "name");
    if (!json_is_string(name) || !*json_string_value(name))
        return trn_errorf(e, "%s: 'name' must be a non-empty string", where);
    x->name = json_string_value(name);
    snprintf(where, sizeof where, "tensor '%s'", x->name);
    if (trn_check_keys(t, keys, where, e)) return -1;
    if (trn_program_find_tensor(p, x->name) < i) return trn_errorf(e, "%s: declared twice", where);
    json_t *view = json_object_get(t, "view_of");
    const trn_tensor *base = NULL;
    if (view) {
        int b = json_is_string(view) ? trn_program_find_tensor(p, json_string_value(view)) : i;
        if (b >= i)
            return trn_errorf(e, "%s: 'view_of' must name a tensor declared before it", where);
        base = &p->tensors[b];
        x->view_of = base->name;
    }
    json_t *mem = json_object_get(t, "memory");
    if (base && !mem)
        x->mem = base->mem;
    else if (!json_is_string(mem) || trn_native_parse_mem(json_string_value(mem), &x->mem))
        return trn_errorf(e, "%s: 'memory' must be \"sbuf\", \"psum\" or \"hbm\"", where);
    if (trn_native_get_dtype(t, where, &x->dtype, e) || parse_shape(t, x, m, where, e) ||
        (base ? place_view(x, base, t, m, where, e) : place_tensor(x, t, m, cursor, where, e)) ||
        parse_init(x, t, p->cores, where, e))
        return -1;
    trn_tensor_ap(x);
    return 0;
}

int trn_native_parse_tensors(trn_program *p, json_t *ts, const trn_machine *m, trn_error *e) {
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
