/* Reading a BIR file from its text without a document for every
 * instruction (docs/internals/programs.md, "The BIR fast path"). The top
 * level and the function's members other than `blocks` and `allocations`
 * are parsed by jansson and read by the document reader's own code
 * (bir_read_header); each allocation is parsed alone and read by that
 * reader's bir_add_allocation, so no document of the whole list is built
 * (100k allocations: a few hundred MB of JSON values and most of the load
 * time). In a file with several functions, the others are parsed and dropped.
 * The blocks are scanned in place: blocks and loops by their keys, and each
 * simple instruction (an opcode a loaded module handles, a `name`, the
 * ignored fields as strings, `ins` / `outs` of physical_ap and register_ap
 * arguments) straight into a loaded instruction with no attribute document
 * and interned operand lists. Any other entry is parsed by jansson and read
 * by the document reader (bir_walk_item). Anything unexpected, and any
 * error, returns 1: the caller reads the whole file the document way, so
 * every message is exactly that reader's. */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "frontend/bir/bir_int.h"
#include "program/program.h"
#include "frontend/frontend_int.h"

#define MAX_FAST_ARGS 8
#define NAME_MAX_LEN  127
#define MAX_NESTING   64

/* How an entry went: read here, to be read as a document, or not fast at all. */
enum { READ = 0, AS_DOCUMENT = 1, NOT_FAST = 2 };

/* The last opcode read here, and what it resolved to (files repeat opcodes). */
typedef struct last_opcode {
    char name[NAME_MAX_LEN + 1];
    uint32_t it;
    const char *interned;
    /* the KEY_IGNORED bits of fields this opcode reads (its tables win): read as documents */
    unsigned read_bits;
} last_opcode;

typedef struct fast {
    bir_ctx *c;
    trn_scan sc;
    trn_oplists lists;
    int nesting;
    last_opcode last;
} fast;

/* A string span copied out NUL-terminated (false when too long). */
static bool copy_name(const char *s, size_t len, char *out) {
    if (len > NAME_MAX_LEN) return false;
    memcpy(out, s, len);
    out[len] = 0;
    return true;
}

/* ---- one argument ---- */

enum {
    ARG_KIND = 1 << 0,
    ARG_AP = 1 << 1,
    ARG_DTYPE = 1 << 2,
    ARG_OFFSET = 1 << 3,
    ARG_SET = 1 << 4,
    ARG_REF = 1 << 5,
    ARG_REG_OFFSET = 1 << 6,
    ARG_REGREF = 1 << 7
};

typedef struct raw_arg {
    unsigned seen;
    char kind[NAME_MAX_LEN + 1], set[NAME_MAX_LEN + 1], ref[NAME_MAX_LEN + 1],
        dtype[NAME_MAX_LEN + 1];
    char regref[NAME_MAX_LEN + 1];
    int64_t offset;
    int n;
    int64_t st[TRN_AP_MAX_DIMS + 1], num[TRN_AP_MAX_DIMS + 1];
} raw_arg;

/* An offset written as a string of digits (KLR writes reg_ap_offset so). */
static bool digits_value(const char *s, size_t len, int64_t *out) {
    if (len < 1 || len > 15) return false;
    int64_t v = 0;
    for (size_t i = 0; i < len; ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

static bool string_into(trn_scan *sc, char *out) {
    const char *v;
    size_t vl;
    return trn_scan_str(sc, &v, &vl) && copy_name(v, vl, out);
}

/* [[step, num], ...] as read_pairs accepts it. */
static bool pairs(trn_scan *sc, raw_arg *a) {
    if (!trn_scan_lit(sc, '[')) return false;
    a->n = 0;
    do {
        if (a->n > TRN_AP_MAX_DIMS || !trn_scan_lit(sc, '[') || !trn_scan_int(sc, &a->st[a->n]) ||
            !trn_scan_lit(sc, ',') || !trn_scan_int(sc, &a->num[a->n]) || !trn_scan_lit(sc, ']'))
            return false;
        if (a->num[a->n] < 1 || a->num[a->n] > (1ll << 32) || a->st[a->n] > (1ll << 40) ||
            a->st[a->n] < -(1ll << 40))
            return false;
        a->n++;
    } while (trn_scan_lit(sc, ','));
    return trn_scan_lit(sc, ']');
}

static bool arg_member(trn_scan *sc, raw_arg *a, const char *k, size_t kl) {
    unsigned bit;
    bool ok;
    const char *v;
    size_t vl;
    if (trn_scan_key_is(k, kl, "kind"))
        bit = ARG_KIND, ok = string_into(sc, a->kind);
    else if (trn_scan_key_is(k, kl, "ap"))
        bit = ARG_AP, ok = pairs(sc, a);
    else if (trn_scan_key_is(k, kl, "dtype"))
        bit = ARG_DTYPE, ok = string_into(sc, a->dtype);
    else if (trn_scan_key_is(k, kl, "offset"))
        bit = ARG_OFFSET, ok = trn_scan_int(sc, &a->offset);
    else if (trn_scan_key_is(k, kl, "memsetref"))
        bit = ARG_SET, ok = string_into(sc, a->set);
    else if (trn_scan_key_is(k, kl, "memref"))
        bit = ARG_REF, ok = string_into(sc, a->ref);
    else if (trn_scan_key_is(k, kl, "regref"))
        bit = ARG_REGREF, ok = string_into(sc, a->regref);
    else if (trn_scan_key_is(k, kl, "reg_ap_offset")) {
        bit = ARG_REG_OFFSET;
        ok = trn_scan_peek(sc, '"') ? trn_scan_str(sc, &v, &vl) && digits_value(v, vl, &a->offset)
                                    : trn_scan_int(sc, &a->offset);
    } else
        return false;
    if (!ok || (a->seen & bit)) return false;
    a->seen |= bit;
    return true;
}

/* One physical_ap or register_ap argument as one_arg reads it: *ops gets
 * its operand (none for an RNG state location). False: read it as a document. */
static bool one_arg(fast *f, trn_scan *sc, trn_operand *ops, int *n) {
    raw_arg a;
    a.seen = 0;
    if (!trn_scan_lit(sc, '{') || trn_scan_peek(sc, '}')) return false;
    do {
        const char *k;
        size_t kl;
        if (!trn_scan_str(sc, &k, &kl) || !trn_scan_lit(sc, ':') || !arg_member(sc, &a, k, kl))
            return false;
    } while (trn_scan_lit(sc, ','));
    if (!trn_scan_lit(sc, '}') || !(a.seen & ARG_KIND) || !(a.seen & ARG_SET)) return false;
    bool dynamic = !strcmp(a.kind, "register_ap");
    /* each kind's keys (register_ap has no offset and no memref) */
    if (dynamic ? (a.seen & (ARG_OFFSET | ARG_REF)) || !(a.seen & ARG_REGREF)
                : strcmp(a.kind, "physical_ap") || (a.seen & (ARG_REG_OFFSET | ARG_REGREF)))
        return false;
    if (!(a.seen & (ARG_OFFSET | ARG_REG_OFFSET))) a.offset = 0;
    if (a.offset < 0 || a.offset > (1ll << 40)) return false;
    const bir_ctx *c = f->c;
    int reg = -1;
    if (dynamic && bir_register(c, a.regref, &reg)) return false;
    const bir_alloc *x = bir_find_alloc(c, a.set);
    if (!x || ((a.seen & ARG_REF) && strcmp(a.ref, x->location)) || x->kind == BIR_REGISTER)
        return false;
    if (x->kind == BIR_RNG_STATE) return true;
    trn_dtype dt = x->dtype;
    if ((a.seen & ARG_DTYPE) && bir_dtype(a.dtype, &dt)) return false;
    if (!(a.seen & ARG_AP)) return false;
    trn_operand_spec sp;
    trn_operand_spec_init(&sp);
    trn_error e; /* a refusal is read again as a document, which words the message */
    if (bir_ap_spec(x, dt, a.st, a.num, a.n, a.offset, &sp, "", &e)) return false;
    sp.offset_register = reg;
    if (*n >= MAX_FAST_ARGS || trn_operand_resolve(c->p, &sp, &ops[*n], "", &e)) return false;
    ++*n;
    return true;
}

static bool arg_list(fast *f, trn_scan *sc, trn_operand *ops, int *n) {
    *n = 0;
    if (!trn_scan_lit(sc, '[')) return false;
    if (trn_scan_lit(sc, ']')) return true;
    do {
        if (!one_arg(f, sc, ops, n)) return false;
    } while (trn_scan_lit(sc, ','));
    return trn_scan_lit(sc, ']');
}

/* ---- one entry: a block, a Loop or an instruction ---- */

enum {
    KEY_OPCODE = 1 << 0,
    KEY_NAME = 1 << 1,
    KEY_INS = 1 << 2,
    KEY_OUTS = 1 << 3,
    KEY_INSTRUCTIONS = 1 << 4,
    KEY_BLOCKS = 1 << 5,
    KEY_AXIS = 1 << 6,
    KEY_IGNORED = 1 << 7 /* then one bit per ignored field */
};

typedef struct raw_entry {
    unsigned seen;
    char opcode[NAME_MAX_LEN + 1];
    const char *name;
    size_t name_len;
    size_t list_at; /* instructions or blocks */
    json_t *axis;   /* LoopAxis */
    bool walked;    /* a block's instructions read as they came (its name came first) */
    bool failed;    /* ... and they were not fast: nothing can be read again as a document */
    trn_operand ins[MAX_FAST_ARGS], outs[MAX_FAST_ARGS];
    int n_in, n_out;
} raw_entry;

/* A field no instruction models: its bit (beyond KEY_IGNORED), or 0. */
static unsigned ignored_bit(const char *k, size_t kl) {
    for (unsigned i = 0; bir_ignored_fields[i]; ++i)
        if (trn_scan_key_is(k, kl, bir_ignored_fields[i])) return KEY_IGNORED << i;
    return 0;
}

/* Past a value the reader does not look at; a container is parsed (the
 * file must be valid JSON), a string scanned. */
static bool unread_value(trn_scan *sc) {
    const char *v;
    size_t vl;
    if (trn_scan_peek(sc, '"')) return trn_scan_str(sc, &v, &vl);
    json_t *j = trn_scan_value(sc);
    json_decref(j);
    return j != NULL;
}

static int walk(fast *f, size_t at);

/* A block whose name came first: its instructions are read where they are
 * (no skipping past them to read them later). */
static bool walk_block_now(fast *f, raw_entry *r) {
    char name[NAME_MAX_LEN + 1];
    if (!copy_name(r->name, r->name_len, name) || json_object_get(f->c->trigger_blocks, name) ||
        bir_block_repeated(f->c, name))
        return false;
    trn_scan_ws(&f->sc);
    size_t saved = bir_block_push(f->c, name);
    r->walked = true;
    r->failed = walk(f, f->sc.i) != 0;
    f->c->block[saved] = 0;
    return !r->failed;
}

static bool entry_member(fast *f, trn_scan *sc, raw_entry *r, const char *k, size_t kl) {
    unsigned bit;
    bool ok;
    if (trn_scan_key_is(k, kl, "opcode"))
        bit = KEY_OPCODE, ok = string_into(sc, r->opcode);
    else if (trn_scan_key_is(k, kl, "name"))
        bit = KEY_NAME, ok = trn_scan_str(sc, &r->name, &r->name_len);
    else if (trn_scan_key_is(k, kl, "ins"))
        bit = KEY_INS, ok = arg_list(f, sc, r->ins, &r->n_in);
    else if (trn_scan_key_is(k, kl, "outs"))
        bit = KEY_OUTS, ok = arg_list(f, sc, r->outs, &r->n_out);
    else if (trn_scan_key_is(k, kl, "instructions") && r->seen == KEY_NAME) {
        bit = KEY_INSTRUCTIONS;
        ok = walk_block_now(f, r);
    } else if (trn_scan_key_is(k, kl, "instructions") || trn_scan_key_is(k, kl, "blocks")) {
        bit = k[0] == 'i' ? KEY_INSTRUCTIONS : KEY_BLOCKS;
        r->list_at = (trn_scan_ws(sc), sc->i);
        ok = trn_scan_peek(sc, '[') && !(r->seen & (KEY_INSTRUCTIONS | KEY_BLOCKS)) &&
             trn_scan_skip(sc);
    } else if (trn_scan_key_is(k, kl, "LoopAxis")) {
        bit = KEY_AXIS;
        ok = !r->axis && (r->axis = trn_scan_value(sc)) && json_is_object(r->axis);
    } else if ((bit = ignored_bit(k, kl))) {
        ok = unread_value(sc);
    } else {
        return false;
    }
    if (!ok || (r->seen & bit)) return false;
    r->seen |= bit;
    return true;
}

static int read_block(fast *f, raw_entry *r) {
    if (r->seen & ~(KEY_NAME | KEY_INSTRUCTIONS)) return AS_DOCUMENT;
    char name[NAME_MAX_LEN + 1] = "(unnamed)";
    if ((r->seen & KEY_NAME) && !copy_name(r->name, r->name_len, name)) return AS_DOCUMENT;
    if (json_object_get(f->c->trigger_blocks, name)) return AS_DOCUMENT;
    if ((r->seen & KEY_NAME) && bir_block_repeated(f->c, name))
        return NOT_FAST; /* the document reader names both */
    size_t saved = bir_block_push(f->c, name);
    int rc = walk(f, r->list_at);
    f->c->block[saved] = 0;
    return rc ? NOT_FAST : READ;
}

static int read_loop(fast *f, raw_entry *r) {
    if ((r->seen & ~(KEY_OPCODE | KEY_NAME | KEY_AXIS | KEY_BLOCKS | ignored_bit("engine", 6))) ||
        !(r->seen & KEY_BLOCKS))
        return AS_DOCUMENT; /* a Loop's keys (loop_keys) */
    json_t *loop = json_object();
    char name[NAME_MAX_LEN + 1];
    if (!loop || json_object_set_new(loop, "opcode", json_string("Loop")) ||
        (r->axis && json_object_set(loop, "LoopAxis", r->axis)) ||
        ((r->seen & KEY_NAME) && (!copy_name(r->name, r->name_len, name) ||
                                  json_object_set_new(loop, "name", json_string(name))))) {
        json_decref(loop);
        return NOT_FAST;
    }
    trn_error e;
    bir_open_loop st;
    int rc = bir_loop_begin(f->c, loop, true, &st, &e);
    json_decref(loop);
    if (rc) return NOT_FAST;
    return bir_loop_end(f->c, &st, walk(f, r->list_at), &e) ? NOT_FAST : READ;
}

static bool has_schema(const trn_opcode_desc *d) {
    return d && (d->n_attrs > 0 || (d->flags & TRN_OPF_NO_ATTRS));
}

/* An instruction with no fields but ignored ones, as bir_translate_inst reads it. */
/* Whether an opcode's instructions with no fields are read here (*it, its
 * interned name); else as documents. */
static int fast_opcode(fast *f, const char *opcode, unsigned seen, uint32_t *it,
                       const char **interned) {
    bir_ctx *c = f->c;
    if (f->last.interned && !strcmp(f->last.name, opcode)) {
        *it = f->last.it;
        *interned = f->last.interned;
        return seen & f->last.read_bits ? AS_DOCUMENT : READ;
    }
    if (c->o->resolve(c->o->arg, opcode, it, NULL) ||
        (c->o->handled && !c->o->handled(c->o->arg, *it)))
        return AS_DOCUMENT; /* unhandled: counted there */
    const bir_opcode_extra *x = bir_opcode_extra_lookup(opcode);
    const trn_opcode_desc *d = c->o->schema ? c->o->schema(c->o->arg, *it) : NULL;
    if (!strcmp(opcode, "DMATrigger") || (x && x->default_field && has_schema(d)))
        return AS_DOCUMENT;
    json_t *op = json_object_get(c->opcodes, opcode);
    if (!op && (!(op = json_string(opcode)) || json_object_set_new(c->opcodes, opcode, op)))
        return NOT_FAST;
    strcpy(f->last.name, opcode);
    f->last.it = *it;
    f->last.interned = *interned = json_string_value(op);
    f->last.read_bits = 0;
    for (unsigned i = 0; bir_ignored_fields[i]; ++i)
        if (bir_field_class(has_schema(d) ? d : NULL, x, bir_ignored_fields[i]) !=
            BIR_FIELD_IGNORED)
            f->last.read_bits |= KEY_IGNORED << i;
    return seen & f->last.read_bits ? AS_DOCUMENT : READ;
}

static int read_instruction(fast *f, raw_entry *r) {
    bir_ctx *c = f->c;
    if (r->seen & (KEY_INSTRUCTIONS | KEY_BLOCKS | KEY_AXIS)) return AS_DOCUMENT;
    uint32_t it;
    const char *opname;
    int how = fast_opcode(f, r->opcode, r->seen, &it, &opname);
    if (how != READ) return how;
    char name[NAME_MAX_LEN + 1] = "(unnamed)";
    if ((r->seen & KEY_NAME) && !copy_name(r->name, r->name_len, name)) return AS_DOCUMENT;
    trn_error e;
    trn_inst *in = bir_push(c, &e);
    if (!in) return NOT_FAST;
    bool oom = false;
    in->in = (trn_operand *)trn_oplist_intern(&f->lists, r->ins, (uint32_t)r->n_in, &oom);
    in->out = (trn_operand *)trn_oplist_intern(&f->lists, r->outs, (uint32_t)r->n_out, &oom);
    if (oom) return NOT_FAST;
    in->kind = TRN_INST_OP;
    in->it = it;
    in->opname = opname;
    in->obj = c->empty;
    in->n_in = r->n_in;
    in->n_out = r->n_out;
    in->shared_operands = true;
    c->p->n_insts++;
    return bir_number_entry(c, in, name, &e) ? NOT_FAST : READ;
}

static int entry(fast *f) {
    trn_scan *sc = &f->sc;
    raw_entry r;
    r.seen = 0;
    r.axis = NULL;
    r.n_in = r.n_out = 0;
    r.walked = r.failed = false;
    int rc = AS_DOCUMENT;
    if (!trn_scan_lit(sc, '{') || trn_scan_peek(sc, '}')) return AS_DOCUMENT;
    do {
        const char *k;
        size_t kl;
        if (!trn_scan_str(sc, &k, &kl) || !trn_scan_lit(sc, ':') || !entry_member(f, sc, &r, k, kl))
            goto done;
    } while (trn_scan_lit(sc, ','));
    if (!trn_scan_lit(sc, '}')) goto done;
    size_t after = sc->i;
    if (r.walked)
        rc = r.seen == (KEY_NAME | KEY_INSTRUCTIONS) ? READ : NOT_FAST;
    else if (!(r.seen & KEY_OPCODE))
        rc = r.seen & KEY_INSTRUCTIONS ? read_block(f, &r) : AS_DOCUMENT;
    else if (!strcmp(r.opcode, "Loop"))
        rc = read_loop(f, &r);
    else
        rc = read_instruction(f, &r);
    sc->i = after;
done:
    json_decref(r.axis);
    return r.walked && rc != READ ? NOT_FAST : rc; /* its instructions are in the program already */
}

/* '[' entries ']' at `at`; 0: read, 1: not fast. */
static int walk(fast *f, size_t at) {
    trn_scan *sc = &f->sc;
    sc->i = at;
    if (++f->nesting > MAX_NESTING || !trn_scan_lit(sc, '[')) return 1;
    int rc = 0;
    if (!trn_scan_lit(sc, ']')) {
        do {
            trn_scan_ws(sc);
            size_t start = sc->i;
            int r = entry(f);
            if (r == NOT_FAST) {
                rc = 1;
                break;
            }
            if (r == AS_DOCUMENT) {
                sc->i = start;
                json_t *v = trn_scan_value(sc);
                trn_error e;
                rc = !v || bir_walk_item(f->c, v, &e);
                json_decref(v);
                if (rc) break;
            }
        } while (trn_scan_lit(sc, ','));
        if (!rc && !trn_scan_lit(sc, ']')) rc = 1;
    }
    f->nesting--;
    return rc;
}

/* ---- the file ---- */

static const char *const top_keys[] = {"version", "arch", "attributes", NULL};
static const char *const function_keys[] = {"name", "attributes", NULL};

/* key: value into obj (a repeated or unknown key: false). */
static bool member_into(trn_scan *sc, json_t *obj, const char *key, const char *const *known) {
    bool ok = false;
    for (const char *const *k = known; *k; ++k) ok |= !strcmp(*k, key);
    if (!ok || json_object_get(obj, key)) return false;
    json_t *v = trn_scan_value(sc);
    return v && !json_object_set_new(obj, key, v);
}

/* The header is read once the top level's version and the function's name
 * and allocations are in (bir_read_header); the blocks are then walked. */
typedef struct file {
    json_t *root, *fn;
    size_t blocks_at;
    bool walked, failed;
} file;

static bool read_header(fast *f, file *x) {
    json_t *fns = json_array(), *fn_read = NULL;
    trn_error e;
    if (!fns || json_object_set_new(x->root, "functions", fns) || json_array_append(fns, x->fn) ||
        bir_read_header(f->c, x->root, &fn_read, &e))
        return false;
    f->c->fn = fn_read;
    return true;
}

/* The function's blocks where they are, when everything the header needs
 * came before them (the order the compiler writes): nothing may follow. */
static bool blocks_now(fast *f, file *x) {
    if (!json_object_get(x->root, "version") || !json_object_get(x->fn, "name") ||
        !f->c->allocs_in_place)
        return false;
    x->walked = true;
    x->failed = !read_header(f, x) || walk(f, f->sc.i);
    return true;
}

/* A member read by its own reader rather than into the object. */
typedef struct member_reader {
    const char *key;
    bool (*read)(fast *f, file *x);
} member_reader;

/* An object's members: each of `readers` (the first required) once by its
 * reader, each other known one into obj. Nothing may follow walked blocks. */
static bool object_members(fast *f, file *x, json_t *obj, const char *const *known,
                           const member_reader *readers) {
    trn_scan *sc = &f->sc;
    unsigned seen = 0;
    if (!trn_scan_lit(sc, '{') || trn_scan_peek(sc, '}')) return false;
    do {
        const char *k;
        size_t kl;
        char key[NAME_MAX_LEN + 1];
        if (x->walked || !trn_scan_str(sc, &k, &kl) || !trn_scan_lit(sc, ':') ||
            !copy_name(k, kl, key))
            return false;
        int r = 0;
        while (readers[r].key && strcmp(readers[r].key, key)) ++r;
        if (readers[r].key) {
            if (seen & 1u << r || !readers[r].read(f, x)) return false;
            seen |= 1u << r;
        } else if (!member_into(sc, obj, key, known)) {
            return false;
        }
    } while (trn_scan_lit(sc, ','));
    return trn_scan_lit(sc, '}') && (seen & 1u);
}

/* A function's allocations, each read as it is met (a document of one
 * allocation at a time, not of the whole list). */
static bool allocations(fast *f, file *x) {
    (void)x;
    trn_scan *sc = &f->sc;
    trn_error e;
    if (!trn_scan_lit(sc, '[')) return false;
    f->c->allocs_in_place = true;
    if (trn_scan_lit(sc, ']')) return true;
    do {
        json_t *a = trn_scan_value(sc);
        int rc = a ? bir_add_allocation(f->c, a, &e) : -1;
        json_decref(a);
        if (rc) return false;
    } while (trn_scan_lit(sc, ','));
    return trn_scan_lit(sc, ']');
}

/* A function's blocks: read now, or their place kept for after the header. */
static bool function_blocks(fast *f, file *x) {
    trn_scan *sc = &f->sc;
    if (!trn_scan_peek(sc, '[')) return false;
    x->blocks_at = sc->i;
    if (blocks_now(f, x)) return !x->failed;
    return trn_scan_skip(sc);
}

/* One function: its members but `blocks` and `allocations` into fn. */
static bool function(fast *f, file *x) {
    static const member_reader readers[] = {
        {"blocks", function_blocks}, {"allocations", allocations}, {NULL, NULL}};
    return object_members(f, x, x->fn, function_keys, readers);
}

/* The functions: the one to run read by function(); with o->function
 * naming one, each other one is parsed by jansson (so the file is checked
 * as the document reader checks it) and dropped. */
static bool functions(fast *f, file *x) {
    trn_scan *sc = &f->sc;
    const char *want = f->c->o->function;
    bool chosen = false;
    if (!trn_scan_lit(sc, '[')) return false;
    do {
        trn_scan_ws(sc);
        size_t at = sc->i;
        const char *k, *name = NULL;
        size_t kl, nl = 0;
        bool named_first = trn_scan_lit(sc, '{') && trn_scan_str(sc, &k, &kl) &&
                           trn_scan_key_is(k, kl, "name") && trn_scan_lit(sc, ':') &&
                           trn_scan_str(sc, &name, &nl);
        sc->i = at;
        bool run = !want || (named_first && nl == strlen(want) && !memcmp(name, want, nl));
        if (!run) { /* parsed (its name may come later), then dropped or read */
            json_t *other = trn_scan_value(sc);
            const char *on = json_string_value(json_object_get(other, "name"));
            bool ok = json_is_object(other) && on;
            run = ok && !strcmp(on, want);
            json_decref(other);
            if (!ok) return false;
            if (run) sc->i = at;
        }
        if (run) {
            if (chosen || !function(f, x)) return false;
            chosen = true;
        }
    } while (trn_scan_lit(sc, ','));
    return trn_scan_lit(sc, ']') && chosen;
}

/* The top level: root gets its members, functions a list of the one to run. */
static bool top_level(fast *f, file *x) {
    static const member_reader readers[] = {{"functions", functions}, {NULL, NULL}};
    if (!object_members(f, x, x->root, top_keys, readers)) return false;
    trn_scan_ws(&f->sc);
    return f->sc.i == f->sc.n;
}

int trn_bir_read_text(trn_program *p, const char *text, size_t len, const trn_load_opts *o) {
    /* a DMATrigger's blocks are found across the whole function first: the document reader's */
    if (memmem(text, len, "DMATrigger", 10)) return 1;
    bir_ctx c;
    trn_error e;
    if (bir_ctx_init(&c, p, o, &e)) {
        bir_ctx_free(&c);
        return 1;
    }
    fast f = {.c = &c, .sc = {text, len, 0}, .lists = {.p = p}};
    file x = {.root = json_object(), .fn = json_object()};
    int rc = x.root && x.fn && top_level(&f, &x) ? 0 : 1;
    if (!rc && !x.walked) rc = !read_header(&f, &x) || walk(&f, x.blocks_at);
    if (!rc) rc = bir_check_unhandled(&c, &e) ? 1 : 0;
    if (!rc) p->summary.allocations = c.n_allocs;
    json_decref(x.root);
    json_decref(x.fn);
    trn_oplists_free(&f.lists);
    bir_ctx_free(&c);
    return rc;
}
