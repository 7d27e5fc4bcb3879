/* Instruction arguments (ins / outs, tagged by "kind"): access patterns
 * become operands (through the same resolver as native operand objects);
 * registers and immediates become attributes. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "frontend/bir/bir_int.h"
#include "frontend/frontend_int.h"
#include "program/program.h"

static const char *const arg_kinds[] = {"physical_ap",        "register_ap", "register_access",
                                        "imm_value",          "imm_array",   "symbolic_ap",
                                        "symbolic_imm_value", NULL};
static const char *const physical_keys[] = {"kind",      "ap",     "dtype", "offset",
                                            "memsetref", "memref", NULL};
static const char *const register_ap_keys[] = {"kind",          "ap",     "dtype", "memsetref",
                                               "reg_ap_offset", "regref", NULL};
static const char *const register_access_keys[] = {"kind", "dtype", "regref", NULL};
static const char *const imm_value_keys[] = {"kind", "dtype", "value", NULL};
static const char *const imm_array_keys[] = {"kind", "dtype", "value_array", NULL};

int bir_register(const bir_ctx *c, const char *regref, int *reg) {
    for (int d = c->depth - 1; d >= 0; --d)
        if (c->axes[d].name && !strcmp(c->axes[d].name, regref)) {
            *reg = c->axes[d].reg;
            return 0;
        }
    const bir_alloc *named =
        bir_find_alloc(c, regref); /* hashed: the usual case, a REG by its name */
    if (named && named->kind == BIR_REGISTER) {
        *reg = named->reg;
        return 0;
    }
    for (int i = 0; i < c->n_allocs && c->n_regs; ++i) /* by its location's name */
        if (c->allocs[i].kind == BIR_REGISTER &&
            (!strcmp(c->allocs[i].name, regref) ||
             (c->allocs[i].location && !strcmp(c->allocs[i].location, regref)))) {
            *reg = c->allocs[i].reg;
            return 0;
        }
    return -1;
}

/* "; did you mean 'X'?" for a name among the loop axes in scope and the
 * REG allocations (registers) or the memory allocations (!registers). */
static void closest_name(const bir_ctx *c, const char *name, bool registers, char *buf,
                         size_t len) {
    const char *names[BIR_MAX_DEPTH + 256 + 1];
    size_t n = 0;
    for (int d = 0; registers && d < c->depth; ++d) names[n++] = c->axes[d].name;
    for (int i = 0; i < c->n_allocs && n < BIR_MAX_DEPTH + 256; ++i)
        if ((c->allocs[i].kind == BIR_REGISTER) == registers) names[n++] = c->allocs[i].name;
    names[n] = NULL;
    const char *near = trn_closest_key(name, names);
    if (near)
        snprintf(buf, len, "; did you mean '%s'?", near);
    else if (len)
        buf[0] = 0;
}

static int arg_register(const bir_ctx *c, json_t *arg, int *reg, const char *where, trn_error *e) {
    json_t *v = json_object_get(arg, "regref");
    const char *r = json_string_value(v);
    if (!v)
        return trn_errorf(e, "%s: 'regref' is missing (a loop axis or a REG allocation)", where);
    if (!r) return trn_errorf(e, "%s: 'regref' must be a register name", where);
    if (bir_register(c, r, reg)) {
        char hint[160];
        closest_name(c, r, true, hint, sizeof hint);
        return trn_errorf(e, "%s: regref '%s' names no enclosing loop axis and no REG allocation%s",
                          where, r, hint);
    }
    return 0;
}

/* The pairs of an AP: [[step, num], ...], num >= 1. */
static int read_pairs(json_t *apj, int64_t st[], int64_t num[], int *n, const char *where,
                      trn_error *e) {
    size_t k = json_array_size(apj);
    if (!apj) return trn_errorf(e, "%s: 'ap' is missing (a list of [step, num] pairs)", where);
    if (!json_is_array(apj) || k < 1 || k > TRN_AP_MAX_DIMS + 1)
        return trn_errorf(e, "%s: 'ap' must be a list of 1 to %d [step, num] pairs", where,
                          TRN_AP_MAX_DIMS + 1);
    for (size_t i = 0; i < k; ++i) {
        json_t *p = json_array_get(apj, i), *s = json_array_get(p, 0), *m = json_array_get(p, 1);
        if (json_array_size(p) != 2 || !json_is_integer(s) || !json_is_integer(m) ||
            json_integer_value(m) < 1 || json_integer_value(m) > (1ll << 32) ||
            json_integer_value(s) < -(1ll << 40) || json_integer_value(s) > (1ll << 40))
            return trn_errorf(
                e, "%s: ap[%zu] must be [step, num] with |step| <= 2^40 and 1 <= num <= 2^32",
                where, i);
        st[i] = json_integer_value(s);
        num[i] = json_integer_value(m);
    }
    *n = (int)k;
    return 0;
}

/* An access pattern on an allocation -> an operand spec. offset counts
 * elements of the AP's dtype in the location's row-major [partition][row]
 * layout, so it selects the first partition too; the partition pair's step
 * is a whole number of rows (or 1 or 0). *sp->tensor stays -1 for an RNG
 * state location: the RNG modules keep that state themselves. */
static int access_pattern(bir_ctx *c, json_t *arg, int64_t offset, trn_operand_spec *sp,
                          const char *where, trn_error *e) {
    const char *set = json_string_value(json_object_get(arg, "memsetref"));
    if (!json_object_get(arg, "memsetref"))
        return trn_errorf(e, "%s: 'memsetref' is missing (the allocation)", where);
    if (!set) return trn_errorf(e, "%s: 'memsetref' must name an allocation", where);
    const bir_alloc *x = bir_find_alloc(c, set);
    if (!x) {
        char hint[160];
        closest_name(c, set, false, hint, sizeof hint);
        return trn_errorf(e, "%s: memsetref '%s' names no allocation of function %s%s", where, set,
                          c->function, hint);
    }
    json_t *memref = json_object_get(arg, "memref");
    if (memref && (!json_is_string(memref) || strcmp(json_string_value(memref), x->location)))
        return trn_errorf(
            e, "%s: memref '%s' is not a memory location of allocation '%s' (its location is '%s')",
            where, json_is_string(memref) ? json_string_value(memref) : "(not a string)", x->name,
            x->location);
    if (x->kind == BIR_RNG_STATE) return 0;
    if (x->kind == BIR_REGISTER)
        return trn_errorf(
            e,
            "%s: allocation '%s' is a REG location; an access pattern needs memory (use "
            "register_access)",
            where, x->name);
    trn_dtype dt = x->dtype;
    json_t *dtj = json_object_get(arg, "dtype");
    if (dtj && bir_dtype(json_string_value(dtj), &dt))
        return trn_errorf(e, "%s: unknown dtype '%s' (BIR dtypes: %s)", where,
                          json_is_string(dtj) ? json_string_value(dtj) : "(not a string)",
                          bir_dtype_names());
    int64_t st[TRN_AP_MAX_DIMS + 1], num[TRN_AP_MAX_DIMS + 1];
    int n = 0;
    if (read_pairs(json_object_get(arg, "ap"), st, num, &n, where, e)) return -1;
    return bir_ap_spec(x, dt, st, num, n, offset, sp, where, e);
}

int bir_ap_spec(const bir_alloc *x, trn_dtype dt, const int64_t *st, const int64_t *num, int n,
                int64_t offset, trn_operand_spec *sp, const char *where, trn_error *e) {
    uint32_t w = trn_dtype_width(dt);
    sp->has_dtype = dt != x->dtype;
    sp->dtype = dt;
    int first = x->mem == TRN_MEM_HBM ? 0 : 1;
    if (x->mem == TRN_MEM_HBM) {
        if (n > TRN_AP_MAX_DIMS)
            return trn_errorf(e, "%s: a DRAM access pattern has at most %d pairs", where,
                              TRN_AP_MAX_DIMS);
        sp->offset = offset;
    } else {
        if (x->row_bytes % w)
            return trn_errorf(e,
                              "%s: a row of allocation '%s' (%" PRId64
                              " bytes) is not a whole number of %s elements",
                              where, x->name, x->row_bytes, trn_dtype_name(dt));
        int64_t row = x->row_bytes / w, pstep;
        if (st[0] == 0 || st[0] == 1)
            pstep = st[0];
        else if (st[0] % row == 0)
            pstep = st[0] / row;
        else
            return trn_errorf(e,
                              "%s: partition step %" PRId64
                              " is not a whole number of rows of allocation '%s' (%" PRId64
                              " %s elements each)",
                              where, st[0], x->name, row, trn_dtype_name(dt));
        int64_t part = offset / row;
        if (part >= x->partitions)
            return trn_errorf(e,
                              "%s: offset %" PRId64 " starts at partition %" PRId64
                              " of allocation '%s', which has %u",
                              where, offset, part, x->name, x->partitions);
        sp->partition = part;
        sp->has_partitions = true;
        sp->partitions = num[0];
        sp->partition_step = pstep;
        sp->offset = offset % row;
    }
    if (first >= n) { /* only the partition pair: one element per partition */
        sp->ndims = 1;
        sp->step[0] = 1;
        sp->num[0] = 1;
    } else {
        sp->ndims = (uint32_t)(n - first);
        for (int i = first; i < n; ++i) {
            sp->step[i - first] = st[i];
            sp->num[i - first] = num[i];
        }
    }
    sp->tensor = x->tensor;
    return 0;
}

#define OFFSET_MAX (1ll << 40)

/* A string of digits (an optional '-' first) as KLR writes reg_ap_offset;
 * false when it is no such string. Past +-2^40 (also past int64) *out is
 * clamped, so the caller names the text, never the clamped number. */
static bool digit_string(const char *t, int64_t *out) {
    bool neg = *t == '-';
    const char *d = t + neg;
    if (!*d) return false;
    int64_t v = 0;
    for (; *d; ++d) {
        if (*d < '0' || *d > '9') return false;
        if (v <= OFFSET_MAX) v = v * 10 + (*d - '0');
    }
    *out = neg ? -v : v;
    return true;
}

static int static_offset(json_t *v, int64_t *out, const char *key, const char *where,
                         trn_error *e) {
    *out = 0;
    if (!v) return 0;
    bool text = json_is_string(v); /* KLR's type writes reg_ap_offset as a string */
    if (json_is_integer(v))
        *out = json_integer_value(v);
    else if (!text || !digit_string(json_string_value(v), out))
        return trn_errorf(e, "%s: '%s' must be an integer (a number, or digits in a string)", where,
                          key);
    if (*out >= 0 && *out <= OFFSET_MAX) return 0;
    if (text) /* the file's own text: a clamped number would point the wrong way */
        return trn_errorf(e, "%s: '%s' = \"%s\" is outside [0, 2^40]", where, key,
                          json_string_value(v));
    return trn_errorf(e, "%s: '%s' = %" PRId64 " is outside [0, 2^40]", where, key, *out);
}

typedef struct arg_out {
    bir_inst *b;
    trn_operand *ops; /* inputs or outputs */
    int *n;
    int imm_next; /* next immediate attribute */
    bool out;     /* reading outs */
} arg_out;

static int immediate(arg_out *a, json_t *arg, const char *kind, const char *where, trn_error *e) {
    bool array = !strcmp(kind, "imm_array");
    if (trn_check_keys(arg, array ? imm_array_keys : imm_value_keys, where, e)) return -1;
    json_t *v = json_object_get(arg, array ? "value_array" : "value");
    if (!v) return trn_errorf(e, "%s: '%s' is missing", where, array ? "value_array" : "value");
    if (array ? !json_is_array(v) : !json_is_number(v) && !json_is_string(v))
        return trn_errorf(e, "%s: '%s' must be %s", where, array ? "value_array" : "value",
                          array ? "a list of numbers" : "a number");
    const bir_opcode_extra *x = bir_opcode_extra_lookup(a->b->opcode);
    const char *const *names = x ? x->immediates : NULL;
    if (!names || !names[a->imm_next])
        return trn_errorf(e, "%s: %s reads %s immediate argument%s; this %s has no place", where,
                          a->b->opcode, names && a->imm_next ? "no further" : "no",
                          names && a->imm_next ? "s" : "", kind);
    return bir_set_attr(a->b, names[a->imm_next++], json_incref(v), e);
}

static int one_arg(bir_ctx *c, arg_out *a, json_t *arg, const char *where, trn_error *e) {
    if (!json_is_object(arg))
        return trn_errorf(e, "%s: an argument must be an object with a 'kind'", where);
    const char *kind = json_string_value(json_object_get(arg, "kind"));
    if (!kind || !trn_key_known(kind, arg_kinds)) {
        const char *near = kind ? trn_closest_key(kind, arg_kinds) : NULL;
        return trn_errorf(
            e,
            "%s: unknown argument kind '%s' (expected physical_ap, register_ap, register_access, "
            "imm_value or imm_array%s%s%s)",
            where, kind ? kind : "(none)", near ? "; did you mean '" : "", near ? near : "",
            near ? "'?" : "");
    }
    if (!strncmp(kind, "symbolic", 8))
        return trn_errorf(
            e,
            "%s: a %s argument is not read (its public form is incomplete); give the compiler's "
            "resolved physical_ap or imm_value",
            where, kind);
    if (!strncmp(kind, "imm_", 4)) {
        if (a->out) return trn_errorf(e, "%s: an %s cannot be an output", where, kind);
        return immediate(a, arg, kind, where, e);
    }
    int reg = -1;
    if (!strcmp(kind, "register_access")) {
        if (trn_check_keys(arg, register_access_keys, where, e) ||
            arg_register(c, arg, &reg, where, e))
            return -1;
        if (a->b->attrs && json_object_get(a->b->attrs, "register"))
            return trn_errorf(
                e, "%s: a second register_access argument (trnsim reads one per instruction)",
                where);
        return bir_set_attr(a->b, "register", json_integer(reg), e);
    }
    bool dynamic = !strcmp(kind, "register_ap");
    int64_t offset = 0;
    if (trn_check_keys(arg, dynamic ? register_ap_keys : physical_keys, where, e) ||
        static_offset(json_object_get(arg, dynamic ? "reg_ap_offset" : "offset"), &offset,
                      dynamic ? "reg_ap_offset" : "offset", where, e) ||
        (dynamic && arg_register(c, arg, &reg, where, e)))
        return -1;
    trn_operand_spec sp;
    trn_operand_spec_init(&sp);
    if (access_pattern(c, arg, offset, &sp, where, e)) return -1;
    if (sp.tensor < 0) return 0; /* an RNG state location */
    sp.offset_register = reg;
    if (trn_operand_resolve(c->p, &sp, &a->ops[*a->n], where, e)) return -1;
    ++*a->n;
    return 0;
}

static int arg_list(bir_ctx *c, arg_out *a, json_t *inst, const char *key, trn_operand **ops,
                    int *n, trn_error *e) {
    json_t *l = json_object_get(inst, key);
    *n = 0;
    if (!l) return 0;
    if (!json_is_array(l)) return trn_errorf(e, "'%s' must be a list of arguments", key);
    if (!(*ops = calloc(json_array_size(l) + 1, sizeof **ops)))
        return trn_errorf(e, "out of memory");
    a->out = !strcmp(key, "outs");
    a->ops = *ops;
    a->n = n;
    for (size_t i = 0; i < json_array_size(l); ++i) {
        char where[32];
        snprintf(where, sizeof where, "%s[%zu]", key, i);
        if (one_arg(c, a, json_array_get(l, i), where, e)) return -1;
    }
    return 0;
}

int bir_translate_args(bir_ctx *c, json_t *inst, bir_inst *b, trn_error *e) {
    arg_out a = {b, NULL, NULL, 0, false};
    trn_inst *in = b->in;
    return arg_list(c, &a, inst, "ins", &in->in, &in->n_in, e) ||
                   arg_list(c, &a, inst, "outs", &in->out, &in->n_out, e)
               ? -1
               : 0;
}
