/* Allocations (memory_location_set) and their memory location: a tensor
 * at the file's placement, a register, or the RNG modules' state. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "frontend/bir/bir_int.h"
#include "frontend/frontend_int.h"

#define IO_ALIGN 64

static const struct {
    const char *bir;
    trn_dtype dt;
} dtypes[] = {
    {"bfloat16", TRN_DT_BF16},     {"float8e3", TRN_DT_FP8_E3M4}, {"float8e4", TRN_DT_FP8_E4M3},
    {"float8e5", TRN_DT_FP8_E5M2}, {"float16", TRN_DT_FP16},      {"float32", TRN_DT_FP32},
    {"float32r", TRN_DT_FP32R},    {"int8", TRN_DT_INT8},         {"int16", TRN_DT_INT16},
    {"int32", TRN_DT_INT32},       {"int64", TRN_DT_INT64},       {"uint8", TRN_DT_UINT8},
    {"uint16", TRN_DT_UINT16},     {"uint32", TRN_DT_UINT32},     {"uint64", TRN_DT_UINT64}};

int bir_dtype(const char *name, trn_dtype *out) {
    for (size_t i = 0; name && i < sizeof dtypes / sizeof dtypes[0]; ++i)
        if (strcmp(name, dtypes[i].bir) == 0) {
            *out = dtypes[i].dt;
            return 0;
        }
    return -1;
}

const char *bir_dtype_name(trn_dtype dt) {
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; ++i)
        if (dtypes[i].dt == dt) return dtypes[i].bir;
    return NULL;
}

const char *bir_dtype_names(void) {
    return "bfloat16, float8e3, float8e4, float8e5, float16, float32, float32r, int8, int16, "
           "int32, int64, uint8, "
           "uint16, uint32, uint64";
}

static const char *const tensor_kinds[] = {"ExternalInput",
                                           "ExternalInputParameter",
                                           "Input",
                                           "ExternalOutput",
                                           "ExternalOutputParameter",
                                           "Output",
                                           "Const",
                                           "Internal",
                                           "Pointer",
                                           "InternalInterface",
                                           NULL};
static const char *const memory_types[] = {"Unallocated", "Input",    "Output", "DRAM", "SB",
                                           "PSUM",        "RNGSTATE", "REG",    NULL};
static const char *const alloc_keys[] = {"Skind",
                                         "name",
                                         "kind",
                                         "dtype",
                                         "partition_dim",
                                         "tensor_shape",
                                         "addr_space",
                                         "tensor_class",
                                         "file",
                                         "no_spill",
                                         "volatile",
                                         "virtual",
                                         "tensorId2MemLocSize",
                                         "memorylocations",
                                         NULL};
static const char *const location_keys[] = {"Skind",  "name",      "type", "addr",
                                            "dims",   "bank",      "base", "allocated",
                                            "pinned", "tensor_id", NULL};

/* One of the names, or an error listing them (with the closest). */
static int pick(const char *what, const char *key, json_t *v, const char *const *names,
                const char **out, const char *where, trn_error *e) {
    const char *s = json_string_value(v);
    if (s && trn_key_known(s, names)) {
        *out = s;
        return 0;
    }
    char list[400] = "";
    size_t n = 0;
    for (const char *const *k = names; *k && n < sizeof list; ++k)
        n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", n ? ", " : "", *k);
    if (!v) return trn_errorf(e, "%s: '%s' is missing (one of %s)", where, key, list);
    if (!s) return trn_errorf(e, "%s: '%s' must be a string (one of %s)", where, key, list);
    const char *near = s ? trn_closest_key(s, names) : NULL;
    char hint[80] = "";
    if (near) snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
    return trn_errorf(e, "%s: unknown %s '%s' (expected one of %s%s)", where, what,
                      s ? s : "(not a string)", list, hint);
}

typedef struct shape {
    int n;
    int64_t d[TRN_MAX_SHAPE + 1];
    int64_t count;
} shape;

static int read_int_list(json_t *l, int max_n, int64_t lo, shape *s, const char *key,
                         const char *where, trn_error *e) {
    if (!l)
        return trn_errorf(e, "%s: '%s' is missing (a list of 1 to %d integers)", where, key, max_n);
    if (!json_is_array(l) || json_array_size(l) < 1 || (int)json_array_size(l) > max_n)
        return trn_errorf(e, "%s: '%s' must be a list of 1 to %d integers", where, key, max_n);
    s->n = (int)json_array_size(l);
    s->count = 1;
    for (int i = 0; i < s->n; ++i) {
        json_t *d = json_array_get(l, (size_t)i);
        if (!json_is_integer(d) || json_integer_value(d) < lo ||
            json_integer_value(d) > (1ll << 36))
            return trn_errorf(e, "%s: '%s'[%d] must be an integer in [%" PRId64 ", 2^36]", where,
                              key, i, lo);
        s->d[i] = json_integer_value(d);
        if (__builtin_mul_overflow(s->count, s->d[i], &s->count) || s->count > (1ll << 40))
            return trn_errorf(e, "%s: '%s' holds more than 2^40 elements", where, key);
    }
    return 0;
}

/* dims: [partitions, bytes...]. Two forms are read: the free dims each
 * scaled by the dtype size (KLR's writer), or one flat byte count. */
static int check_dims(const shape *ts, const shape *dims, bool partitioned, uint32_t w,
                      int64_t *row_bytes, const char *where, trn_error *e) {
    int first = partitioned ? 1 : 0;
    int64_t free = 1;
    for (int i = first; i < ts->n; ++i) free *= ts->d[i];
    *row_bytes = free * w;
    bool scaled = dims->n == ts->n;
    for (int i = 0; scaled && i < ts->n; ++i)
        scaled = dims->d[i] == (i < first ? ts->d[i] : ts->d[i] * w);
    if (!partitioned &&
        dims->n == ts->n) { /* HBM: the last dim in bytes, the others as counts, is also read */
        bool last = true;
        for (int i = 0; i < ts->n; ++i)
            last = last && dims->d[i] == (i == ts->n - 1 ? ts->d[i] * w : ts->d[i]);
        scaled = scaled || last;
    }
    bool flat = partitioned ? dims->n == 2 && dims->d[0] == ts->d[0] && dims->d[1] == *row_bytes
                            : dims->n == 1 && dims->d[0] == *row_bytes;
    if (scaled || flat) return 0;
    char t[120] = "", d[120] = "";
    size_t nt = 0, nd = 0;
    for (int i = 0; i < ts->n; ++i)
        nt += (size_t)snprintf(t + nt, sizeof t - nt, "%s%" PRId64, i ? ", " : "", ts->d[i]);
    for (int i = 0; i < dims->n; ++i)
        nd += (size_t)snprintf(d + nd, sizeof d - nd, "%s%" PRId64, i ? ", " : "", dims->d[i]);
    return trn_errorf(
        e, "%s: dims [%s] do not describe tensor_shape [%s] of %u-byte elements (expected %s)",
        where, d, t, w,
        partitioned ? "[partitions, free dims x dtype size...] or [partitions, bytes per partition]"
                    : "[dims x dtype size...] or [bytes]");
}

static int read_location(bir_ctx *c, json_t *a, bir_alloc *x, int64_t *hbm_end, const char *where,
                         trn_error *e) {
    json_t *locs = json_object_get(a, "memorylocations");
    if (!locs)
        return trn_errorf(e, "%s: 'memorylocations' is missing (a list of one memory location)",
                          where);
    if (!json_is_array(locs) || json_array_size(locs) != 1)
        return trn_errorf(
            e,
            "%s: 'memorylocations' must be a list of one memory location (trnsim reads one per "
            "allocation)",
            where);
    json_t *l = json_array_get(locs, 0);
    char lw[BIR_WHERE_MAX + 200];
    if (!json_is_object(l)) return trn_errorf(e, "%s: memorylocations[0] must be an object", where);
    if (!json_is_string(json_object_get(l, "name")))
        return trn_errorf(e, "%s: memorylocations[0]: 'name' %s", where,
                          json_object_get(l, "name") ? "must be a string" : "is missing");
    x->location = json_string_value(json_object_get(l, "name"));
    snprintf(lw, sizeof lw, "%s, memory location '%s'", where, x->location);
    const char *type;
    if (trn_check_keys(l, location_keys, lw, e) ||
        pick("memory type", "type", json_object_get(l, "type"), memory_types, &type, lw, e))
        return -1;
    if (!(x->location = bir_keep_string(c, x->location))) return trn_errorf(e, "out of memory");
    int64_t addr, base;
    if (trn_get_int(l, "addr", 0, 0, 1ll << 40, &addr, lw, e) ||
        trn_get_int(l, "base", 0, 0, 127, &base, lw, e))
        return -1;
    if (!strcmp(type, "Unallocated"))
        return trn_errorf(
            e, "%s: the location is Unallocated: the file gives it no place in memory", lw);
    if (!strcmp(type, "RNGSTATE")) {
        x->kind = BIR_RNG_STATE;
        return 0;
    }
    if (!strcmp(type, "REG")) {
        x->kind = BIR_REGISTER;
        x->reg = c->n_regs++;
        return 0;
    }
    x->kind = BIR_TENSOR;
    x->mem = !strcmp(type, "SB")     ? TRN_MEM_SBUF
             : !strcmp(type, "PSUM") ? TRN_MEM_PSUM
                                     : TRN_MEM_HBM;
    bool partitioned = x->mem != TRN_MEM_HBM;
    shape ts, dims;
    if (read_int_list(json_object_get(a, "tensor_shape"),
                      partitioned ? TRN_AP_MAX_DIMS + 1 : TRN_AP_MAX_DIMS, 1, &ts, "tensor_shape",
                      where, e) ||
        read_int_list(json_object_get(l, "dims"), TRN_MAX_SHAPE, 1, &dims, "dims", lw, e) ||
        check_dims(&ts, &dims, partitioned, trn_dtype_width(x->dtype), &x->row_bytes, lw, e))
        return -1;
    if (!partitioned && base != 0)
        return trn_errorf(e, "%s: base %" PRId64 ": DRAM has no partitions", lw, base);
    for (int i = 0; i < ts.n; ++i)
        if (ts.d[i] > (1ll << 32))
            return trn_errorf(e, "%s: 'tensor_shape'[%d] is more than 2^32", where, i);
    x->base = (uint32_t)base;
    x->partitions = partitioned ? (uint32_t)ts.d[0] : 1;
    if (addr % trn_dtype_width(x->dtype))
        return trn_errorf(e, "%s: addr %" PRId64 " is not a multiple of the %u-byte dtype", lw,
                          addr, trn_dtype_width(x->dtype));
    x->tensor = c->p->n_tensors++;
    trn_tensor *t = &c->p->tensors[x->tensor];
    t->name = x->name;
    t->mem = x->mem;
    t->dtype = x->dtype;
    t->ndim = ts.n;
    t->count = ts.count;
    for (int i = 0; i < ts.n; ++i) t->shape[i] = ts.d[i];
    t->partition = partitioned ? (uint32_t)base : 0;
    t->offset_bytes = addr;
    x->host_placed = !strcmp(type, "Input") ||
                     !strcmp(type, "Output"); /* placed after every DRAM location, below */
    if (!partitioned && !x->host_placed && addr + x->row_bytes > *hbm_end)
        *hbm_end = addr + x->row_bytes;
    return 0;
}

static const char *alloc_name_at(const void *allocs, int i) {
    return ((const bir_alloc *)allocs)[i].name;
}

static int read_allocation(bir_ctx *c, json_t *a, int i, trn_error *e) {
    char where[BIR_WHERE_MAX];
    snprintf(where, sizeof where, "function %s, allocation %d", c->function, i);
    if (!json_is_object(a)) return trn_errorf(e, "%s: must be an object", where);
    bir_alloc *x = &c->allocs[i];
    json_t *name = json_object_get(a, "name");
    if (!name) return trn_errorf(e, "%s: 'name' is missing", where);
    if (!json_is_string(name) || !*json_string_value(name))
        return trn_errorf(e, "%s: 'name' must be a non-empty string", where);
    x->name = json_string_value(name);
    snprintf(where, sizeof where, "function %s, allocation '%s'", c->function, x->name);
    const char *kind;
    if (trn_check_keys(a, alloc_keys, where, e) ||
        pick("kind", "kind", json_object_get(a, "kind"), tensor_kinds, &kind, where, e))
        return -1;
    int first = trn_name_index_add(&c->alloc_names, i, alloc_name_at, c->allocs);
    if (first == -2) return trn_errorf(e, "out of memory");
    if (first != i) return trn_errorf(e, "%s: declared twice", where);
    if (!(x->name = bir_keep_string(c, x->name))) return trn_errorf(e, "out of memory");
    json_t *dt = json_object_get(a, "dtype");
    if (!dt)
        return trn_errorf(e, "%s: 'dtype' is missing (BIR dtypes: %s)", where, bir_dtype_names());
    if (bir_dtype(json_string_value(dt), &x->dtype))
        return trn_errorf(e, "%s: unknown dtype '%s' (BIR dtypes: %s)", where,
                          json_is_string(dt) ? json_string_value(dt) : "(not a string)",
                          bir_dtype_names());
    int64_t pdim;
    if (trn_get_int(a, "partition_dim", 0, 0, 0, &pdim, where, e))
        return trn_error_prefix(e, "(trnsim reads partition_dim 0 only)");
    return read_location(c, a, x, &c->hbm_end, where, e);
}

/* Input and Output locations have addresses of their own buffers: the host
 * places them, in order, after the last DRAM location. Then every tensor
 * is checked against the machine, as a native tensor is. */
static int place_tensors(bir_ctx *c, trn_error *e) {
    int64_t cursor = c->hbm_end;
    for (int i = 0; i < c->n_allocs; ++i) {
        bir_alloc *x = &c->allocs[i];
        if (x->kind != BIR_TENSOR || !x->host_placed) continue;
        cursor = (cursor + IO_ALIGN - 1) / IO_ALIGN * IO_ALIGN;
        c->p->tensors[x->tensor].offset_bytes = cursor;
        cursor += x->row_bytes;
    }
    for (int i = 0; i < c->p->n_tensors; ++i) {
        trn_tensor *t = &c->p->tensors[i];
        char where[BIR_WHERE_MAX];
        snprintf(where, sizeof where, "tensor '%s'", t->name);
        if (trn_tensor_check_placement(t, c->o->machine, where, e)) return -1;
        trn_tensor_ap(t);
    }
    return 0;
}

/* Room for n allocations (and their tensors), zeroed. The document gives
 * the count; the text reader grows the tables as it meets allocations. */
static int reserve(bir_ctx *c, size_t n, trn_error *e) {
    if (n <= c->cap_allocs) return 0;
    bir_alloc *a = realloc(c->allocs, n * sizeof *a);
    if (a) c->allocs = a;
    trn_tensor *t = a ? realloc(c->p->tensors, n * sizeof *t) : NULL;
    if (!t) return trn_errorf(e, "out of memory");
    c->p->tensors = t;
    memset(a + c->cap_allocs, 0, (n - c->cap_allocs) * sizeof *a);
    memset(t + c->cap_allocs, 0, (n - c->cap_allocs) * sizeof *t);
    c->cap_allocs = n;
    return 0;
}

int bir_add_allocation(bir_ctx *c, json_t *a, trn_error *e) {
    int i = c->n_allocs;
    if (i == INT_MAX) return trn_errorf(e, "function %s: too many allocations", c->function);
    if ((size_t)i >= c->cap_allocs && reserve(c, 2 * (size_t)i + 16, e)) return -1;
    c->n_allocs = i + 1;
    return read_allocation(c, a, i, e);
}

int bir_read_allocations(bir_ctx *c, json_t *fn, trn_error *e) {
    json_t *as = json_object_get(fn, "allocations");
    if (as && !json_is_array(as))
        return trn_errorf(e, "function %s: 'allocations' must be a list", c->function);
    if (reserve(c, json_array_size(as) + 1, e)) return -1;
    for (size_t i = 0; !c->allocs_in_place && i < json_array_size(as); ++i)
        if (bir_add_allocation(c, json_array_get(as, i), e)) return -1;
    if (c->n_regs > (int)c->o->machine->registers)
        return trn_errorf(e, "function %s: %d REG allocations, the machine has %u registers",
                          c->function, c->n_regs, c->o->machine->registers);
    return place_tensors(c, e);
}

const bir_alloc *bir_find_alloc(const bir_ctx *c, const char *name) {
    int i = trn_name_index_find(&c->alloc_names, name, alloc_name_at, c->allocs);
    return i >= 0 && i < c->n_allocs ? &c->allocs[i] : NULL;
}
