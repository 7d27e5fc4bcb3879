/* A function's blocks, loops and instructions, in order, into the loaded
 * instruction list (a loop: a header and an end entry around its body).
 * Blocks that a DMATrigger fires are not run in order: they become the
 * trigger's DMABlocks. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/bir/bir_int.h"
#include "frontend/frontend_int.h"

static const char *const loop_keys[] = {"opcode", "name", "LoopAxis", "blocks", "engine", NULL};
static const char *const axis_keys[] = {"name", "lb", "ub", "stride", NULL};
static const char *const block_keys[] = {"name", "instructions", NULL};

static const char *inst_name(json_t *inst) {
    const char *n = json_string_value(json_object_get(inst, "name"));
    return n ? n : "(unnamed)";
}

/* s appended at *at, cut as snprintf cuts (len - 1 characters at most). */
static void append(char *buf, size_t len, size_t *at, const char *s) {
    while (*s && *at + 1 < len) buf[(*at)++] = *s++;
    buf[*at] = 0;
}

/* "function F, block B, BIR name 'X'" (by hand: it is made for every instruction). */
void bir_where_named(const bir_ctx *c, const char *name, char *buf, size_t len) {
    size_t at = 0;
    if (!len) return;
    append(buf, len, &at, "function ");
    append(buf, len, &at, c->function);
    append(buf, len, &at, ", block ");
    append(buf, len, &at, c->block[0] ? c->block : "(top)");
    append(buf, len, &at, ", BIR name '");
    append(buf, len, &at, name);
    append(buf, len, &at, "'");
}

void bir_where(const bir_ctx *c, json_t *inst, char *buf, size_t len) {
    bir_where_named(c, inst_name(inst), buf, len);
}

int bir_errorf(const bir_ctx *c, trn_error *e, const char *fmt, ...) {
    char msg[TRN_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return trn_errorf(e, "%s: function %s, block %s: %s", c->path, c->function,
                      c->block[0] ? c->block : "(top)", msg);
}

/* "FILE: instruction N (function F, block B, BIR name 'X') (every core, opcode OP): MSG" */
static int inst_error(const bir_ctx *c, json_t *inst, trn_error *e) {
    char where[BIR_WHERE_MAX], msg[TRN_ERROR_MAX];
    bir_where(c, inst, where, sizeof where);
    snprintf(msg, sizeof msg, "%s", e->msg);
    const char *op = json_string_value(json_object_get(inst, "opcode"));
    return trn_errorf(e, "%s: instruction %" PRIu64 " (%s) (every core, opcode %s): %s", c->path,
                      c->number, where, op ? op : "?", msg);
}

/* ---- what the function holds ---- */

static void note_triggers(bir_ctx *c, json_t *list) {
    for (size_t i = 0; i < json_array_size(list); ++i) {
        json_t *x = json_array_get(list, i);
        const char *op = json_string_value(json_object_get(x, "opcode"));
        if (op && !strcmp(op, "DMATrigger")) {
            json_t *names = json_object_get(x, "dma_blocks");
            for (size_t k = 0; k < json_array_size(names); ++k)
                if (json_is_string(json_array_get(names, k)))
                    json_object_set_new(c->trigger_blocks,
                                        json_string_value(json_array_get(names, k)), json_true());
        }
        note_triggers(c, json_object_get(x, "instructions"));
        note_triggers(c, json_object_get(x, "blocks"));
    }
}

/* Every block's name with its path (names: name -> path): a second block
 * of a name is an error naming both, as a DMATrigger's dma_blocks and
 * the messages' block paths name blocks by name. */
static int unique_block_names(bir_ctx *c, json_t *list, const char *path, json_t *names, int depth,
                              trn_error *e) {
    for (size_t i = 0; i < json_array_size(list) && depth < BIR_MAX_DEPTH * 2; ++i) {
        json_t *x = json_array_get(list, i);
        const char *n = json_string_value(json_object_get(x, "name"));
        const char *op = json_string_value(json_object_get(x, "opcode"));
        json_t *axis = json_object_get(x, "LoopAxis");
        char here[BIR_WHERE_MAX];
        bool block = n && !json_object_get(x, "opcode") && json_object_get(x, "instructions");
        if (op && !strcmp(op, "Loop"))
            snprintf(here, sizeof here, "%s%sloop %s", path, *path ? "/" : "",
                     json_is_string(json_object_get(axis, "name"))
                         ? json_string_value(json_object_get(axis, "name"))
                         : "(unnamed)");
        else if (block)
            snprintf(here, sizeof here, "%s%s%s", path, *path ? "/" : "", n);
        else
            continue;
        json_t *first = block ? json_object_get(names, n) : NULL;
        if (first)
            return trn_errorf(e,
                              "%s: function %s: two blocks are named '%s' (block %s and block %s); "
                              "a block name must be unique (a DMATrigger's dma_blocks names blocks "
                              "by name)",
                              c->path, c->function, n, json_string_value(first), here);
        if (block && json_object_set_new(names, n, json_string(here)))
            return trn_errorf(e, "out of memory");
        if (unique_block_names(c, json_object_get(x, "instructions"), here, names, depth + 1, e) ||
            unique_block_names(c, json_object_get(x, "blocks"), here, names, depth + 1, e))
            return -1;
    }
    return 0;
}

static json_t *find_block(json_t *list, const char *name, int depth) {
    for (size_t i = 0; i < json_array_size(list) && depth < BIR_MAX_DEPTH * 2; ++i) {
        json_t *x = json_array_get(list, i);
        const char *n = json_string_value(json_object_get(x, "name"));
        if (n && !strcmp(n, name) && json_object_get(x, "instructions") &&
            !json_object_get(x, "opcode"))
            return x;
        json_t *in = find_block(json_object_get(x, "instructions"), name, depth + 1);
        if (!in) in = find_block(json_object_get(x, "blocks"), name, depth + 1);
        if (in) return in;
    }
    return NULL;
}

int bir_descriptor_block(bir_ctx *c, const char *name, json_t **out, trn_error *e) {
    json_t *b = find_block(json_object_get(c->fn, "blocks"), name, 0);
    if (!b) {
        const char *names[257];
        size_t n = 0;
        const char *key;
        json_t *v;
        json_object_foreach(c->all_blocks, key, v) {
            if (n < 256) names[n++] = key;
        }
        names[n] = NULL;
        const char *near = trn_closest_key(name, names);
        return trn_errorf(e, "no block named '%s' in function %s%s%s%s", name, c->function,
                          near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    }
    json_t *is = json_object_get(b, "instructions");
    if (!json_is_array(is)) return trn_errorf(e, "block '%s': 'instructions' must be a list", name);
    json_t *descs = json_array();
    for (size_t i = 0; i < json_array_size(is); ++i) {
        trn_inst d;
        bool skipped;
        json_t *dj = NULL;
        int rc = bir_translate_inst(c, json_array_get(is, i), &d, &skipped, e);
        if (!rc && !skipped &&
            (!(dj = trn_inst_to_json(c->p, &d)) || json_array_append_new(descs, dj)))
            rc = trn_errorf(e, "out of memory");
        trn_inst_free(&d);
        if (rc) { /* its place, BIR name and opcode; the trigger's context comes above */
            json_decref(descs);
            json_t *x = json_array_get(is, i);
            const char *op = json_string_value(json_object_get(x, "opcode"));
            return trn_error_prefix(e,
                                    "descriptor block '%s', descriptor %zu (BIR name '%s', "
                                    "opcode %s)",
                                    name, i, inst_name(x), op ? op : "?");
        }
    }
    *out = json_object();
    json_object_set_new(*out, "opcode", json_string("DMABlock"));
    json_object_set_new(*out, "descriptors", descs);
    return 0;
}

/* ---- the walk ---- */

static int walk_list(bir_ctx *c, json_t *list, const char *key, trn_error *e);

/* A copy of s that lives as long as the program. */
char *bir_keep_string(bir_ctx *c, const char *s) { return trn_program_strdup(c->p, s, strlen(s)); }

trn_inst *bir_push(bir_ctx *c, trn_error *e) {
    trn_program *p = c->p;
    if (p->n_insts == c->cap_insts) {
        size_t cap = c->cap_insts ? c->cap_insts * 2 : 64;
        trn_inst *n = realloc(p->insts, cap * sizeof *n);
        if (!n) {
            trn_errorf(e, "out of memory for %zu instructions", cap);
            return NULL;
        }
        p->insts = n;
        c->cap_insts = cap;
    }
    trn_inst *in = &p->insts[p->n_insts];
    memset(in, 0, sizeof *in);
    return in;
}

int bir_number_entry(bir_ctx *c, trn_inst *in, const char *name, trn_error *e) {
    char buf[BIR_WHERE_MAX];
    bir_where_named(c, name, buf, sizeof buf);
    if (!(in->where = bir_keep_string(c, buf))) return trn_errorf(e, "out of memory");
    in->number = c->number++;
    return 0;
}

static int number_entry(bir_ctx *c, trn_inst *in, json_t *inst, trn_error *e) {
    return bir_number_entry(c, in, inst_name(inst), e);
}

size_t bir_block_push(bir_ctx *c, const char *name) {
    size_t saved = strlen(c->block);
    size_t room = sizeof c->block - saved;
    snprintf(c->block + saved, room, "%s%s", saved ? "/" : "", name);
    return saved;
}

static int axis_int(json_t *axis, const char *k, int64_t *out, trn_error *e) {
    json_t *v = json_object_get(axis, k);
    if (!v) return trn_errorf(e, "LoopAxis '%s' is missing", k);
    if (!json_is_integer(v)) return trn_errorf(e, "LoopAxis '%s' must be an integer", k);
    *out = json_integer_value(v);
    return 0;
}

/* {"opcode": "Loop", "LoopAxis": {name, lb, ub, stride}, "blocks": [...]}:
 * trips = (ub - lb) / stride rounded up (for i = lb; i < ub; i += stride),
 * the axis value in a register of its own. The header entry and the axis
 * in scope; its body is read next, then bir_loop_end. */
int bir_loop_begin(bir_ctx *c, json_t *loop, bool blocks_listed, bir_open_loop *st, trn_error *e) {
    json_t *axis = json_object_get(loop, "LoopAxis");
    const char *an = json_string_value(json_object_get(axis, "name"));
    char label[160];
    snprintf(label, sizeof label, "loop %s", an ? an : "(unnamed)");
    st->saved = bir_block_push(c, label);
    int64_t lb = 0, ub = 0, stride = 0;
    int rc = trn_check_keys(loop, loop_keys, "Loop", e);
    if (!rc && !json_is_object(axis))
        rc = trn_errorf(e, "Loop needs 'LoopAxis': {name, lb, ub, stride}");
    if (!rc) rc = trn_check_keys(axis, axis_keys, "LoopAxis", e);
    if (!rc && !an)
        rc = trn_errorf(e, json_object_get(axis, "name") ? "LoopAxis 'name' must be a string"
                                                         : "LoopAxis 'name' is missing");
    if (!rc)
        rc = axis_int(axis, "lb", &lb, e) || axis_int(axis, "ub", &ub, e) ||
             axis_int(axis, "stride", &stride, e);
    if (!rc && stride <= 0)
        rc = trn_errorf(e, "LoopAxis '%s': stride %" PRId64 " (a loop needs a positive stride)", an,
                        stride);
    if (!rc && ub < lb)
        rc = trn_errorf(e, "LoopAxis '%s': ub %" PRId64 " < lb %" PRId64 " (give lb <= ub)", an, ub,
                        lb);
    if (!rc && (lb < -(1ll << 61) || ub > (1ll << 61)))
        rc = trn_errorf(e, "LoopAxis '%s': lb and ub must lie within +-2^61", an);
    int reg = (int)c->o->machine->registers - 1 - c->depth;
    if (!rc && c->depth >= BIR_MAX_DEPTH)
        rc = trn_errorf(e,
                        "LoopAxis '%s': loops nested %d deep; trnsim reads at most %d nested loops",
                        an, c->depth + 1, BIR_MAX_DEPTH);
    if (!rc && reg < c->n_regs)
        rc = trn_errorf(
            e,
            "LoopAxis '%s': loops nested %d deep need more registers than the %u left by %d REG "
            "allocations",
            an, c->depth + 1, c->o->machine->registers, c->n_regs);
    if (!rc && !blocks_listed) rc = trn_errorf(e, "Loop '%s': 'blocks' must be a list", an);
    if (rc) { /* a Loop is an entry with a number, as an instruction is */
        char where[BIR_WHERE_MAX], msg[TRN_ERROR_MAX];
        const char *name = json_string_value(json_object_get(loop, "name"));
        bir_where_named(c, name ? name : "(unnamed)", where, sizeof where);
        snprintf(msg, sizeof msg, "%s", e->msg);
        rc = trn_errorf(e, "%s: instruction %" PRIu64 " (%s) (every core, opcode Loop): %s",
                        c->path, c->number, where, msg);
        c->block[st->saved] = 0;
        return rc;
    }
    int64_t trips = (ub - lb) / stride + ((ub - lb) % stride != 0);
    trn_inst *h = bir_push(c, e);
    if (!h) return -1;
    st->head = c->p->n_insts++;
    h->kind = TRN_INST_LOOP;
    h->loop = (trn_loop){trips, lb, stride, reg, c->p->n_loops++};
    if (number_entry(c, h, loop, e)) return -1;
    c->axes[c->depth++] = (bir_axis){an, reg};
    return 0;
}

int bir_loop_end(bir_ctx *c, const bir_open_loop *st, int body_rc, trn_error *e) {
    c->depth--;
    c->block[st->saved] = 0;
    if (body_rc) return body_rc;
    trn_inst *end = bir_push(c, e);
    if (!end) return -1;
    size_t tail = c->p->n_insts++;
    end->kind = TRN_INST_END;
    end->loop = c->p->insts[st->head].loop;
    end->number = c->p->insts[st->head].number;
    end->jump = st->head;
    c->p->insts[st->head].jump = tail;
    return 0;
}

static int walk_loop(bir_ctx *c, json_t *loop, trn_error *e) {
    json_t *blocks = json_object_get(loop, "blocks");
    bir_open_loop st;
    if (bir_loop_begin(c, loop, json_is_array(blocks), &st, e)) return -1;
    return bir_loop_end(c, &st, walk_list(c, blocks, "blocks", e), e);
}

bool bir_block_repeated(bir_ctx *c, const char *name) {
    if (json_object_get(c->block_names, name)) return true;
    json_object_set_new(c->block_names, name, json_true());
    return false;
}

static int walk_block(bir_ctx *c, json_t *b, trn_error *e) {
    const char *name = json_string_value(json_object_get(b, "name"));
    if (name && json_object_get(c->trigger_blocks, name))
        return 0; /* a DMATrigger's descriptor block */
    /* the fast path's check; the document reader's (naming both) comes first */
    if (name && bir_block_repeated(c, name))
        return bir_errorf(c, e, "a second block named '%s'", name);
    size_t saved = bir_block_push(c, name ? name : "(unnamed)");
    int rc = trn_check_keys(b, block_keys, "block", e) ? bir_errorf(c, e, "%s", e->msg) : 0;
    if (!rc) rc = walk_list(c, json_object_get(b, "instructions"), "instructions", e);
    c->block[saved] = 0;
    return rc;
}

int bir_walk_item(bir_ctx *c, json_t *x, trn_error *e) {
    if (!json_is_object(x))
        return bir_errorf(c, e,
                          "a block entry must be an object (a block, a Loop or an instruction)");
    const char *op = json_string_value(json_object_get(x, "opcode"));
    if (op && !strcmp(op, "Loop")) return walk_loop(c, x, e);
    if (!json_object_get(x, "opcode")) {
        if (json_object_get(x, "instructions")) return walk_block(c, x, e);
        return bir_errorf(
            c, e,
            "entry '%s' is neither a block ('instructions'), a Loop nor an instruction ('opcode')",
            inst_name(x));
    }
    trn_inst *in = bir_push(c, e);
    if (!in) return -1;
    bool skipped;
    if (bir_translate_inst(c, x, in, &skipped, e)) return inst_error(c, x, e);
    if (skipped) return 0;
    c->p->n_insts++;
    return number_entry(c, in, x, e);
}

static int walk_list(bir_ctx *c, json_t *list, const char *key, trn_error *e) {
    if (!json_is_array(list)) return bir_errorf(c, e, "'%s' must be a list", key);
    for (size_t i = 0; i < json_array_size(list); ++i)
        if (bir_walk_item(c, json_array_get(list, i), e)) return -1;
    return 0;
}

int bir_translate_function(bir_ctx *c, json_t *fn, trn_error *e) {
    c->fn = fn;
    if (unique_block_names(c, json_object_get(fn, "blocks"), "", c->all_blocks, 0, e)) return -1;
    note_triggers(c, json_object_get(fn, "blocks"));
    return walk_list(c, json_object_get(fn, "blocks"), "blocks", e);
}
