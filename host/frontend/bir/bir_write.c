/* The loaded program written as BIR JSON (`trnsim convert --to bir`), in
 * the form docs/bir.md describes: each tensor an allocation with one
 * memory location at its placement, operands physical (or register)
 * access patterns, the attributes the BIR reader fills from immediates
 * given as imm_value / imm_array arguments, loops as Loop blocks, a
 * DMATrigger's DMABlocks as descriptor blocks. Reading the result gives
 * the same loaded program. What BIR cannot say is refused, naming it
 * (docs/bir.md, "Native programs without a BIR form").
 *
 * Names: an entry whose comment is the BIR reader's context ("function F,
 * block P, BIR name 'X'", what `trnsim convert` writes for a BIR file)
 * gets its function, block path and name back, so converting BIR to
 * native and back gives the same file; otherwise the function is `main`,
 * its blocks `main` and `loopN_body`, loop axes `iN`, instructions
 * `OPCODE_N`. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "frontend/bir/bir_int.h"

#define DEFAULT_FUNCTION "main"

typedef struct scope {
    int native_reg; /* the loop's register natively (-1: none) */
    const char *axis;
} scope;

typedef struct writer {
    const trn_program *p;
    const trn_load_opts *o;
    trn_error *e;
    json_t *meta; /* per entry: {"comps": [block path], "name": BIR name} */
    const char *function;
    json_t *descriptor_blocks;
    json_t *block_names; /* every block name written (a set) */
    scope scopes[BIR_MAX_DEPTH];
    int depth, max_depth;
    int regs_used; /* REG allocations needed: 1 + the highest register an operand names */
    uint64_t
        executed; /* executions before the current top-level entry (a DMATrigger's native id) */
} writer;

static int werr(writer *w, const trn_inst *in, const char *fmt, ...) TRN_PRINTF(3, 4);
static int werr(writer *w, const trn_inst *in, const char *fmt, ...) {
    char msg[TRN_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!in) return trn_errorf(w->e, "%s: no BIR form: %s", w->p->path, msg);
    return trn_errorf(w->e, "%s: instruction %" PRIu64 " (%s): no BIR form: %s", w->p->path,
                      in->number, in->opname ? in->opname : "?", msg);
}

static int put(json_t *o, const char *k, json_t *v) {
    return v ? json_object_set_new(o, k, v) : -1;
}

/* ---- registers ---- */

static bool loop_register(const trn_program *p, int r) {
    for (size_t i = 0; i < p->n_insts; ++i)
        if (p->insts[i].kind == TRN_INST_LOOP && p->insts[i].loop.reg == r) return true;
    return false;
}

/* A native register as BIR names it: an enclosing loop's axis (*axis), or
 * a REG allocation's number (*reg), which no loop axis of BIR may take. */
static int map_register(writer *w, const trn_inst *in, int64_t r, const char **axis, int *reg) {
    uint32_t regs = w->o->machine->registers;
    for (int d = w->depth - 1; d >= 0; --d)
        if (w->scopes[d].native_reg == r) {
            *axis = w->scopes[d].axis;
            *reg = (int)regs - 1 - d;
            return 0;
        }
    if (r < 0 || loop_register(w->p, (int)r))
        return werr(w, in,
                    "register %" PRId64
                    " holds a loop's variable outside that loop; a BIR loop's axis is "
                    "named only inside it",
                    r);
    if (r >= (int64_t)regs - w->max_depth)
        return werr(w, in,
                    "register %" PRId64
                    " is one BIR gives a loop axis (registers %u..%u with %d nested loops)",
                    r, regs - (uint32_t)w->max_depth, regs - 1, w->max_depth);
    *axis = NULL;
    *reg = (int)r;
    if ((int)r + 1 > w->regs_used) w->regs_used = (int)r + 1;
    return 0;
}

/* ---- operands ---- */

static int64_t row_elements(const trn_tensor *t, trn_dtype dt, bool *whole) {
    int64_t row = trn_dtype_width(t->dtype);
    for (int i = 1; i < t->ndim; ++i) row *= t->shape[i];
    *whole = row % trn_dtype_width(dt) == 0;
    return row / trn_dtype_width(dt);
}

/* An operand -> physical_ap / register_ap (the reader's offset and partition pair). */
static json_t *arg_json(writer *w, const trn_inst *in, const trn_operand *op, const char *which,
                        int k) {
    const trn_ap *ap = &op->ap;
    if (op->tensor < 0) {
        werr(w, in, "%s[%d] is raw memory; a BIR access pattern names an allocation", which, k);
        return NULL;
    }
    if (op->core >= 0 || op->core_offset) {
        werr(w, in,
             "%s[%d] reaches another core's memory ('core' / 'core_offset'); BIR has no remote "
             "access pattern",
             which, k);
        return NULL;
    }
    const trn_tensor *t = &w->p->tensors[op->tensor];
    const char *dt = bir_dtype_name((trn_dtype)ap->dtype);
    if (!dt) {
        werr(w, in, "%s[%d]: dtype %s has no BIR name", which, k,
             trn_dtype_name((trn_dtype)ap->dtype));
        return NULL;
    }
    int64_t base = ap->dtype != t->ap.dtype
                       ? t->offset_bytes / trn_dtype_width((trn_dtype)ap->dtype)
                       : t->ap.offset;
    int64_t rel = ap->offset - base, offset = rel;
    json_t *pairs = json_array();
    if (t->mem == TRN_MEM_HBM) {
        if (rel < 0) {
            werr(w, in,
                 "%s[%d] starts %" PRId64
                 " elements before tensor '%s'; a BIR offset is not negative",
                 which, k, -rel, t->name);
            json_decref(pairs);
            return NULL;
        }
    } else {
        bool whole;
        int64_t row = row_elements(t, (trn_dtype)ap->dtype, &whole),
                part = ap->part_start - t->ap.part_start;
        if (!whole || rel < 0 || rel >= row) {
            werr(w, in,
                 "%s[%d]: offset %" PRId64 " lies outside a row of tensor '%s' (%" PRId64
                 " %s elements); BIR's "
                 "offset counts rows and elements",
                 which, k, rel, t->name, row, trn_dtype_name((trn_dtype)ap->dtype));
            json_decref(pairs);
            return NULL;
        }
        offset = part * row + rel;
        int64_t step = ap->part_step <= 1 ? ap->part_step : (int64_t)ap->part_step * row;
        json_array_append_new(pairs,
                              json_pack("[I, I]", (json_int_t)step, (json_int_t)ap->part_count));
    }
    for (uint32_t d = 0; d < ap->ndims; ++d)
        json_array_append_new(
            pairs, json_pack("[I, I]", (json_int_t)ap->dims[d].step, (json_int_t)ap->dims[d].num));
    json_t *a = json_object();
    char loc[BIR_WHERE_MAX];
    snprintf(loc, sizeof loc, "%s_loc", t->name);
    if (op->offset_register < 0) {
        put(a, "kind", json_string("physical_ap"));
        put(a, "ap", pairs);
        put(a, "dtype", json_string(dt));
        put(a, "offset", json_integer(offset));
        put(a, "memsetref", json_string(t->name));
        put(a, "memref", json_string(loc));
        return a;
    }
    const char *axis;
    int reg;
    if (map_register(w, in, op->offset_register, &axis, &reg)) {
        json_decref(pairs);
        json_decref(a);
        return NULL;
    }
    char regname[32];
    snprintf(regname, sizeof regname, "reg%d", reg);
    put(a, "kind", json_string("register_ap"));
    put(a, "ap", pairs);
    put(a, "dtype", json_string(dt));
    put(a, "memsetref", json_string(t->name));
    put(a, "reg_ap_offset", json_integer(offset));
    put(a, "regref", json_string(axis ? axis : regname));
    return a;
}

static int args_json(writer *w, const trn_inst *in, json_t *ins, json_t *outs) {
    for (int k = 0; k < in->n_in; ++k) {
        json_t *a = arg_json(w, in, &in->in[k], "inputs", k);
        if (!a || json_array_append_new(ins, a)) return -1;
    }
    for (int k = 0; k < in->n_out; ++k) {
        json_t *a = arg_json(w, in, &in->out[k], "outputs", k);
        if (!a || json_array_append_new(outs, a)) return -1;
    }
    return 0;
}

/* ---- attributes ---- */

static const trn_attr_desc *attr_named(const trn_opcode_desc *d, const char *name) {
    for (uint32_t i = 0; d && i < d->n_attrs; ++i)
        if (!strcmp(d->attrs[i].name, name)) return &d->attrs[i];
    return NULL;
}

/* An enum's native name -> its first BIR spelling. */
static json_t *bir_value(const trn_attr_desc *a, json_t *v) {
    if (!a || !(a->types & TRN_ATTR_ENUM) || !json_is_string(v)) return json_incref(v);
    for (uint32_t i = 0; i < a->n_enums; ++i) {
        if (strcmp(a->enums[i].name, json_string_value(v))) continue;
        char sp[200];
        bir_enum_spellings(&a->enums[i], sp, sizeof sp);
        char *comma = strchr(sp, ',');
        if (comma) *comma = 0;
        return json_string(sp);
    }
    return json_incref(v);
}

static int inst_json(writer *w, const trn_inst *in, const char *name, json_t **out);

/* DMATrigger's blocks -> descriptor blocks named in dma_blocks. */
static int trigger_blocks(writer *w, const trn_inst *in, const char *name, json_t *blocks,
                          json_t *o) {
    json_t *names = json_array();
    if (put(o, "dma_blocks", names)) return -1;
    for (size_t k = 0; k < json_array_size(blocks); ++k) {
        json_t *b = json_array_get(blocks, k), *descs = json_object_get(b, "descriptors");
        const char *op = json_string_value(json_object_get(b, "opcode"));
        if (!op || strcmp(op, "DMABlock") || !json_is_array(descs))
            return werr(w, in, "blocks[%zu] is not a DMABlock with a list of descriptors", k);
        char bname[BIR_WHERE_MAX];
        snprintf(bname, sizeof bname, "%s_block%zu", name, k);
        while (json_object_get(w->block_names, bname))
            strncat(bname, "_", sizeof bname - strlen(bname) - 1);
        json_object_set_new(w->block_names, bname, json_true());
        json_t *list = json_array();
        json_array_append_new(w->descriptor_blocks,
                              json_pack("{s:s, s:o}", "name", bname, "instructions", list));
        json_array_append_new(names, json_string(bname));
        for (size_t j = 0; j < json_array_size(descs); ++j) {
            trn_inst d;
            if (w->o->parse_inst(w->p, json_array_get(descs, j), &d, w->o->resolve, w->o->arg,
                                 w->e))
                return trn_error_prefix(w->e,
                                        "%s: instruction %" PRIu64 ", blocks[%zu], descriptor %zu",
                                        w->p->path, in->number, k, j);
            d.number = in->number;
            char dname[BIR_WHERE_MAX + 32];
            snprintf(dname, sizeof dname, "%s_d%zu", bname, j);
            json_t *dj = NULL;
            int rc = inst_json(w, &d, dname, &dj);
            trn_inst_free(&d);
            if (rc || json_array_append_new(list, dj)) return -1;
        }
    }
    return 0;
}

/* The attributes the BIR reader fills from immediate arguments, in order
 * (the first absent one ends them): as imm_value / imm_array in ins. */
static int immediates(const bir_opcode_extra *x, json_t *attrs, json_t *ins, json_t *done) {
    for (int k = 0; x && x->immediates && x->immediates[k]; ++k) {
        json_t *v = json_object_get(attrs, x->immediates[k]);
        if (!v || (!json_is_number(v) && !json_is_string(v) && !json_is_array(v))) break;
        bool list = json_is_array(v);
        const char *dt = json_is_integer(v) || list ? "uint64" : "float32";
        json_t *imm =
            list ? json_pack("{s:s, s:s, s:O}", "kind", "imm_array", "dtype", "uint32",
                             "value_array", v)
                 : json_pack("{s:s, s:s, s:O}", "kind", "imm_value", "dtype", dt, "value", v);
        if (json_array_append_new(ins, imm) ||
            json_object_set_new(done, x->immediates[k], json_true()))
            return -1;
    }
    return 0;
}

static int one_attr(writer *w, const trn_inst *in, const trn_opcode_desc *d, const char *opname,
                    const char *key, json_t *v, json_t *o) {
    const bir_opcode_extra *x = bir_opcode_extra_lookup(opname);
    const trn_attr_desc *a = attr_named(d, key);
    if (a && (a->types & TRN_ATTR_INSTRUCTIONS)) {
        if (strcmp(opname, "DMATrigger") || strcmp(key, "blocks"))
            return werr(w, in,
                        "attribute '%s' is a list of instructions; BIR has one only for "
                        "DMATrigger's blocks",
                        key);
        return trigger_blocks(w, in, json_string_value(json_object_get(o, "name")), v, o);
    }
    const char *field = a && a->bir_name ? a->bir_name : key;
    bir_field_use use = bir_field_class(d, x, field);
    bool engine = use == BIR_FIELD_SPECIAL && json_is_integer(v) && !strcmp(field, "engine");
    if (d ? use != BIR_FIELD_SCHEMA && !engine : use != BIR_FIELD_UNKNOWN)
        return werr(w, in,
                    "attribute '%s' has no BIR field (the BIR reader reads '%s' as something else)",
                    key, field);
    if (!strcmp(key, "register") && json_is_integer(v)) { /* a register number: BIR's numbering */
        const char *axis;
        int reg;
        if (map_register(w, in, json_integer_value(v), &axis, &reg)) return -1;
        return put(o, field, json_integer(reg));
    }
    return put(o, field, bir_value(a, v));
}

static const trn_opcode_desc *schema_of(const writer *w, uint32_t it) {
    const trn_opcode_desc *d = w->o->schema ? w->o->schema(w->o->arg, it) : NULL;
    return d && (d->n_attrs > 0 || (d->flags & TRN_OPF_NO_ATTRS)) ? d : NULL;
}

static bool host_key(const char *k) {
    return !strcmp(k, "opcode") || !strcmp(k, "inputs") || !strcmp(k, "outputs") ||
           !strcmp(k, "comment") || !strcmp(k, "allow_uninit_read");
}

static int inst_json(writer *w, const trn_inst *in, const char *name, json_t **out) {
    const trn_opcode_desc *d = schema_of(w, in->it);
    const char *opname = in->opname ? in->opname : d ? d->name : NULL;
    if (!opname)
        return werr(w, in, "opcode %u is given by number and no loaded module names it", in->it);
    json_t *o = json_object(), *ins = json_array(), *outs = json_array(), *done = json_object();
    *out = o;
    int rc = put(o, "opcode", json_string(opname)) || put(o, "name", json_string(name));
    rc = rc || immediates(bir_opcode_extra_lookup(opname), in->obj, ins, done);
    const char *key;
    json_t *v;
    json_object_foreach(in->obj, key, v) {
        if (rc || host_key(key) || json_object_get(done, key)) continue;
        rc = one_attr(w, in, d, opname, key, v, o);
    }
    json_decref(done);
    if (!rc && !strcmp(opname, "DMATrigger") && !json_object_get(in->obj, "trigger")) {
        if (w->depth > 0)
            rc = werr(
                w, in,
                "a DMATrigger inside a loop without 'trigger' is natively a new trigger on each "
                "trip (its "
                "execution index); BIR's default is one trigger for every trip: give 'trigger'");
        else
            rc = put(o, "trigger", json_integer((json_int_t)w->executed));
    }
    if (!rc && (in->allow_uninit || w->p->allow_uninit)) rc = put(o, bir_uninit_field, json_true());
    rc = rc || args_json(w, in, ins, outs);
    /* o takes its own references: ins and outs go with ours on any failure */
    rc = rc || put(o, "ins", json_incref(ins)) || put(o, "outs", json_incref(outs));
    json_decref(ins);
    json_decref(outs);
    if (rc) {
        json_decref(o);
        *out = NULL;
        return -1;
    }
    return 0;
}

/* ---- names and block paths ---- */

/* "function F, block P, BIR name 'X'" -> F, P's components, X. */
static bool parse_where(const char *s, char *fn, size_t fl, json_t *comps, char *name, size_t nl) {
    const char *b = s ? strstr(s, ", block ") : NULL, *n = b ? strstr(b, ", BIR name '") : NULL;
    if (!s || strncmp(s, "function ", 9) || !b || !n || s[strlen(s) - 1] != '\'') return false;
    snprintf(fn, fl, "%.*s", (int)(b - s - 9), s + 9);
    const char *path = b + 8, *end = n;
    snprintf(name, nl, "%.*s", (int)(strlen(n + 12) - 1), n + 12);
    if (end - path == 5 && !strncmp(path, "(top)", 5)) return true;
    while (path < end) {
        const char *slash = memchr(path, '/', (size_t)(end - path));
        const char *stop = slash ? slash : end;
        json_array_append_new(comps, json_stringn(path, (size_t)(stop - path)));
        path = slash ? slash + 1 : end;
    }
    return true;
}

static const char *entry_comment(const trn_inst *in) {
    const char *c = json_string_value(json_object_get(in->obj, "comment"));
    return c ? c : in->comment ? in->comment : in->where;
}

/* Whether every entry carries a BIR context of one function whose block
 * paths nest as its loops do. */
static bool parsed_meta(writer *w, char *fn, size_t fl) {
    size_t stack[BIR_MAX_DEPTH + 1];
    int depth = 0;
    fn[0] = 0;
    for (size_t i = 0; i < w->p->n_insts; ++i) {
        const trn_inst *in = &w->p->insts[i];
        json_t *m = json_object(), *comps = json_array();
        json_object_set_new(m, "comps", comps);
        json_array_append_new(w->meta, m);
        if (in->kind == TRN_INST_END) {
            depth--;
            continue;
        }
        char f[200], name[BIR_WHERE_MAX];
        if (!parse_where(entry_comment(in), f, sizeof f, comps, name, sizeof name) ||
            (fn[0] && strcmp(f, fn)))
            return false;
        snprintf(fn, fl, "%s", f);
        json_object_set_new(m, "name", json_string(name));
        if (depth > 0) { /* inside a loop: its path first */
            json_t *outer = json_object_get(json_array_get(w->meta, stack[depth - 1]), "comps");
            if (json_array_size(comps) < json_array_size(outer)) return false;
            for (size_t k = 0; k < json_array_size(outer); ++k)
                if (!json_equal(json_array_get(comps, k), json_array_get(outer, k))) return false;
        }
        if (in->kind == TRN_INST_LOOP) {
            const char *last = json_string_value(json_array_get(comps, json_array_size(comps) - 1));
            if (!last || strncmp(last, "loop ", 5) || depth >= BIR_MAX_DEPTH) return false;
            stack[depth++] = i;
        }
    }
    return true;
}

static void generated_meta(writer *w) {
    json_t *path[BIR_MAX_DEPTH + 1];
    int depth = 0;
    path[0] = json_pack("[s]", "main");
    json_array_clear(w->meta);
    for (size_t i = 0; i < w->p->n_insts; ++i) {
        const trn_inst *in = &w->p->insts[i];
        char name[64];
        json_t *comps = json_copy(path[depth]);
        if (in->kind == TRN_INST_LOOP && depth < BIR_MAX_DEPTH) {
            snprintf(name, sizeof name, "loop i%u", in->loop.id);
            json_array_append_new(comps, json_string(name));
            path[++depth] = json_copy(comps);
            snprintf(name, sizeof name, "loop%u_body", in->loop.id);
            json_array_append_new(path[depth], json_string(name));
            snprintf(name, sizeof name, "(unnamed)");
        } else if (in->kind == TRN_INST_END) {
            json_decref(path[depth--]);
        }
        if (in->kind == TRN_INST_OP) {
            const trn_opcode_desc *d = schema_of(w, in->it);
            snprintf(name, sizeof name, "%s_%" PRIu64,
                     in->opname ? in->opname
                     : d        ? d->name
                                : "op",
                     in->number);
        }
        json_array_append_new(w->meta, json_pack("{s:o, s:s}", "comps", comps, "name", name));
    }
    while (depth >= 0) json_decref(path[depth--]);
}

static json_t *comps_of(const writer *w, size_t i) {
    return json_object_get(json_array_get(w->meta, i), "comps");
}
static const char *name_of(const writer *w, size_t i) {
    return json_string_value(json_object_get(json_array_get(w->meta, i), "name"));
}

/* ---- the walk ---- */

static uint64_t executions(const trn_program *p, size_t i, size_t end) {
    uint64_t n = 0;
    while (i < end) {
        const trn_inst *in = &p->insts[i];
        if (in->kind == TRN_INST_LOOP) {
            uint64_t body = executions(p, i + 1, in->jump), r;
            n += __builtin_mul_overflow(body, (uint64_t)in->loop.trips, &r) ? UINT64_MAX / 2 : r;
            i = in->jump + 1;
            continue;
        }
        n += in->kind == TRN_INST_OP;
        ++i;
    }
    return n;
}

static json_t *emit(writer *w, size_t i, size_t end, size_t level);

static json_t *loop_json(writer *w, size_t i, size_t level) {
    const trn_inst *h = &w->p->insts[i];
    if (h->loop.step <= 0) {
        werr(w, h, "the loop's step %" PRId64 " is not positive; BIR's LoopAxis stride is",
             h->loop.step);
        return NULL;
    }
    const char *comp = json_string_value(json_array_get(comps_of(w, i), level));
    json_t *axis =
        json_pack("{s:s, s:I, s:I, s:I}", "name", comp + 5, "lb", (json_int_t)h->loop.start, "ub",
                  (json_int_t)(h->loop.start + h->loop.trips * h->loop.step), "stride",
                  (json_int_t)h->loop.step);
    w->scopes[w->depth++] = (scope){h->loop.reg, comp + 5};
    json_t *body = emit(w, i + 1, h->jump, level + 1);
    w->depth--;
    if (!body) {
        json_decref(axis);
        return NULL;
    }
    json_t *l = json_pack("{s:s}", "opcode", "Loop");
    if (strcmp(name_of(w, i), "(unnamed)")) put(l, "name", json_string(name_of(w, i)));
    put(l, "LoopAxis", axis);
    put(l, "blocks", body);
    return l;
}

/* The end of the run of entries from i whose path has `name` at `level`. */
static size_t block_end(const writer *w, size_t i, size_t end, size_t level, const char *name) {
    while (i < end) {
        json_t *c = comps_of(w, i);
        const char *n = json_string_value(json_array_get(c, level));
        if (json_array_size(c) <= level || strcmp(n, name)) break;
        i = w->p->insts[i].kind == TRN_INST_LOOP ? w->p->insts[i].jump + 1 : i + 1;
    }
    return i;
}

/* Entries [i, end) whose paths share `level` components -> a block list. */
static json_t *emit(writer *w, size_t i, size_t end, size_t level) {
    json_t *list = json_array();
    while (list && i < end) {
        const trn_inst *in = &w->p->insts[i];
        json_t *comps = comps_of(w, i), *item = NULL;
        size_t next = in->kind == TRN_INST_LOOP ? in->jump + 1 : i + 1;
        bool here = in->kind == TRN_INST_LOOP ? json_array_size(comps) == level + 1
                                              : json_array_size(comps) == level;
        if (in->kind == TRN_INST_END) {
            ++i;
            continue;
        }
        if (here && in->kind == TRN_INST_LOOP) {
            item = loop_json(w, i, level);
        } else if (here) {
            if (inst_json(w, in, name_of(w, i), &item)) item = NULL;
        } else {
            const char *name = json_string_value(json_array_get(comps, level));
            next = block_end(w, i, end, level, name);
            json_object_set_new(w->block_names, name, json_true());
            json_t *body = emit(w, i, next, level + 1);
            item = body ? json_pack("{s:s, s:o}", "name", name, "instructions", body) : NULL;
        }
        if (!item || json_array_append_new(list, item)) {
            json_decref(list);
            return NULL;
        }
        if (w->depth == 0 && here) w->executed += executions(w->p, i, next);
        i = next;
    }
    return list;
}

/* ---- allocations ---- */

static json_t *allocation(writer *w, const trn_tensor *t) {
    const char *dt = bir_dtype_name(t->dtype);
    if (t->init) {
        werr(w, NULL,
             "tensor '%s' has '%s'; a BIR allocation carries no values (give them with --input "
             "%s=FILE.npy)",
             t->name, t->init_kind, t->name);
        return NULL;
    }
    if (!dt) {
        werr(w, NULL, "tensor '%s': dtype %s has no BIR name", t->name, trn_dtype_name(t->dtype));
        return NULL;
    }
    bool hbm = t->mem == TRN_MEM_HBM;
    if (hbm && t->ndim > TRN_AP_MAX_DIMS) {
        werr(w, NULL, "tensor '%s' has %d dims; BIR reads DRAM tensors of at most %d", t->name,
             t->ndim, TRN_AP_MAX_DIMS);
        return NULL;
    }
    int64_t bytes = trn_dtype_width(t->dtype);
    for (int i = hbm ? 0 : 1; i < t->ndim; ++i) bytes *= t->shape[i];
    json_t *shape = json_array(),
           *dims = hbm ? json_pack("[I]", (json_int_t)bytes)
                       : json_pack("[I, I]", (json_int_t)t->shape[0], (json_int_t)bytes);
    for (int i = 0; i < t->ndim; ++i) json_array_append_new(shape, json_integer(t->shape[i]));
    char loc[BIR_WHERE_MAX];
    snprintf(loc, sizeof loc, "%s_loc", t->name);
    json_t *l =
        json_pack("{s:s, s:s, s:s, s:I, s:o}", "Skind", "memory_location", "name", loc, "type",
                  hbm                      ? "DRAM"
                  : t->mem == TRN_MEM_SBUF ? "SB"
                                           : "PSUM",
                  "addr", (json_int_t)t->offset_bytes, "dims", dims);
    if (!hbm) put(l, "base", json_integer(t->partition));
    return json_pack("{s:s, s:s, s:s, s:s, s:i, s:o, s:[o]}", "Skind", "memory_location_set",
                     "name", t->name, "kind", "Internal", "dtype", dt, "partition_dim", 0,
                     "tensor_shape", shape, "memorylocations", l);
}

static int allocations(writer *w, json_t *list) {
    for (int i = 0; i < w->p->n_tensors; ++i) {
        json_t *a = allocation(w, &w->p->tensors[i]);
        if (!a || json_array_append_new(list, a)) return -1;
    }
    for (int r = 0; r < w->regs_used; ++r) {
        char name[32], loc[40];
        snprintf(name, sizeof name, "reg%d", r);
        snprintf(loc, sizeof loc, "reg%d_loc", r);
        if (trn_program_find_tensor(w->p, name) < w->p->n_tensors)
            return werr(w, NULL, "tensor '%s' has the name of BIR register allocation %d", name, r);
        json_array_append_new(
            list,
            json_pack("{s:s, s:s, s:s, s:s, s:i, s:[i], s:[{s:s, s:s, s:s, s:i, s:[i]}]}", "Skind",
                      "memory_location_set", "name", name, "kind", "Internal", "dtype", "int32",
                      "partition_dim", 0, "tensor_shape", 1, "memorylocations", "Skind",
                      "memory_location", "name", loc, "type", "REG", "addr", 0, "dims", 4));
    }
    return 0;
}

static int max_depth(const trn_program *p) {
    int d = 0, m = 0;
    for (size_t i = 0; i < p->n_insts; ++i) {
        d += p->insts[i].kind == TRN_INST_LOOP;
        if (d > m) m = d;
        d -= p->insts[i].kind == TRN_INST_END;
    }
    return m;
}

int trn_bir_write(const trn_program *p, const trn_load_opts *o, json_t **out, trn_error *e) {
    writer w = {.p = p,
                .o = o,
                .e = e,
                .meta = json_array(),
                .descriptor_blocks = json_array(),
                .block_names = json_object(),
                .max_depth = max_depth(p)};
    char fn[200];
    *out = NULL;
    int rc = 0;
    if (p->cores_given && p->cores != o->default_cores)
        rc =
            werr(&w, NULL,
                 "the program asks for %u cores; BIR carries no core count (a run has the config's "
                 "machine.cores, here %u): convert and run with --set machine.cores=%u",
                 p->cores, o->default_cores, p->cores);
    if (!rc && w.max_depth > BIR_MAX_DEPTH)
        rc = werr(&w, NULL, "loops nested %d deep; BIR reads at most %d", w.max_depth,
                  BIR_MAX_DEPTH);
    if (!rc && !parsed_meta(&w, fn, sizeof fn)) {
        generated_meta(&w);
        snprintf(fn, sizeof fn, "%s", DEFAULT_FUNCTION);
    }
    json_t *blocks = rc ? NULL : emit(&w, 0, p->n_insts, 0), *allocs = json_array();
    if (blocks && !json_array_extend(blocks, w.descriptor_blocks) && !allocations(&w, allocs))
        *out = json_pack("{s:i, s:s, s:{}, s:[{s:s, s:[], s:O, s:O}]}", "version", 2, "arch",
                         "gen3", "attributes", "functions", "name", fn, "attributes", "allocations",
                         allocs, "blocks", blocks);
    json_decref(blocks);
    json_decref(allocs);
    json_decref(w.meta);
    json_decref(w.descriptor_blocks);
    json_decref(w.block_names);
    return *out ? 0 : -1;
}
