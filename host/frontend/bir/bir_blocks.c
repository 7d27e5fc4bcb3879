/* A function's blocks, loops and instructions, in order, into the native
 * instruction list. Blocks that a DMATrigger fires are not run in order:
 * they become the trigger's DMABlocks. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/bir/bir_internal.h"
#include "frontend/json_fields.h"

static const char *const loop_keys[] = {"opcode", "name", "LoopAxis", "blocks", "engine", NULL};
static const char *const axis_keys[] = {"name", "lb", "ub", "stride", NULL};
static const char *const block_keys[] = {"name", "instructions", NULL};

static const char *inst_name(json_t *inst) {
    const char *n = json_string_value(json_object_get(inst, "name"));
    return n ? n : "(unnamed)";
}

void bir_where(const bir_ctx *c, json_t *inst, char *buf, size_t len) {
    snprintf(buf, len, "function %s, block %s, BIR name '%s'", c->function, c->block[0] ? c->block : "(top)",
             inst_name(inst));
}

int bir_errorf(const bir_ctx *c, trn_error *e, const char *fmt, ...) {
    char msg[TRN_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return trn_errorf(e, "%s: function %s, block %s: %s", c->path, c->function, c->block[0] ? c->block : "(top)", msg);
}

/* "FILE: instruction N (function F, block B, BIR name 'X') (every core, opcode OP): MSG" */
static int inst_error(const bir_ctx *c, json_t *inst, trn_error *e) {
    char where[BIR_WHERE_MAX], msg[TRN_ERROR_MAX];
    bir_where(c, inst, where, sizeof where);
    snprintf(msg, sizeof msg, "%s", e->msg);
    const char *op = json_string_value(json_object_get(inst, "opcode"));
    return trn_errorf(e, "%s: instruction %" PRIu64 " (%s) (every core, opcode %s): %s", c->path, c->number, where,
                      op ? op : "?", msg);
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
                    json_object_set_new(c->trigger_blocks, json_string_value(json_array_get(names, k)), json_true());
        }
        note_triggers(c, json_object_get(x, "instructions"));
        note_triggers(c, json_object_get(x, "blocks"));
    }
}

static json_t *find_block(json_t *list, const char *name, int depth) {
    for (size_t i = 0; i < json_array_size(list) && depth < BIR_MAX_DEPTH * 2; ++i) {
        json_t *x = json_array_get(list, i);
        const char *n = json_string_value(json_object_get(x, "name"));
        if (n && !strcmp(n, name) && json_object_get(x, "instructions") && !json_object_get(x, "opcode")) return x;
        json_t *in = find_block(json_object_get(x, "instructions"), name, depth + 1);
        if (!in) in = find_block(json_object_get(x, "blocks"), name, depth + 1);
        if (in) return in;
    }
    return NULL;
}

int bir_descriptor_block(bir_ctx *c, const char *name, json_t **out, trn_error *e) {
    json_t *b = find_block(json_object_get(c->fn, "blocks"), name, 0);
    if (!b) return trn_errorf(e, "no block named '%s' in function %s", name, c->function);
    json_t *is = json_object_get(b, "instructions");
    if (!json_is_array(is)) return trn_errorf(e, "block '%s': 'instructions' must be a list", name);
    json_t *descs = json_array();
    for (size_t i = 0; i < json_array_size(is); ++i) {
        json_t *d;
        if (bir_translate_inst(c, json_array_get(is, i), &d, e)) {
            json_decref(descs);
            return trn_error_prefix(e, "block '%s', instruction %zu ('%s')", name, i, inst_name(json_array_get(is, i)));
        }
        if (d) json_array_append_new(descs, d);
    }
    *out = json_object();
    json_object_set_new(*out, "opcode", json_string("DMABlock"));
    json_object_set_new(*out, "descriptors", descs);
    return 0;
}

/* ---- the walk ---- */

static int walk_list(bir_ctx *c, json_t *list, const char *key, json_t *out, trn_error *e);

#define ARENA_BLOCK (1u << 20)

/* A copy of s in the arena (blocks of 1 MiB, one allocation per block
 * rather than per string). */
static char *arena_copy(bir_ctx *c, const char *s, size_t len) {
    if (!c->n_arena || c->arena_used + len + 1 > ARENA_BLOCK) {
        char **n = realloc(c->arena, (c->n_arena + 1) * sizeof *n);
        if (!n) return NULL;
        c->arena = n;
        if (!(c->arena[c->n_arena] = malloc(ARENA_BLOCK))) return NULL;
        c->n_arena++;
        c->arena_used = 0;
    }
    char *d = c->arena[c->n_arena - 1] + c->arena_used;
    memcpy(d, s, len + 1);
    c->arena_used += len + 1;
    return d;
}

static int keep_where(bir_ctx *c, json_t *inst, trn_error *e) {
    if (c->n_where == c->cap_where) {
        size_t cap = c->cap_where ? 2 * c->cap_where : 64;
        char **n = realloc(c->where, cap * sizeof *n);
        if (!n) return trn_errorf(e, "out of memory");
        c->where = n;
        c->cap_where = cap;
    }
    char buf[BIR_WHERE_MAX];
    bir_where(c, inst, buf, sizeof buf);
    if (!(c->where[c->n_where] = arena_copy(c, buf, strlen(buf)))) return trn_errorf(e, "out of memory");
    c->n_where++;
    c->number++;
    return 0;
}

static int block_push(bir_ctx *c, const char *name, size_t *saved) {
    *saved = strlen(c->block);
    size_t room = sizeof c->block - *saved;
    snprintf(c->block + *saved, room, "%s%s", *saved ? "/" : "", name);
    return 0;
}

static int axis_int(json_t *axis, const char *k, int64_t *out, trn_error *e) {
    json_t *v = json_object_get(axis, k);
    if (!json_is_integer(v)) return trn_errorf(e, "LoopAxis '%s' must be an integer", k);
    *out = json_integer_value(v);
    return 0;
}

/* {"opcode": "Loop", "LoopAxis": {name, lb, ub, stride}, "blocks": [...]}:
 * trips = (ub - lb) / stride rounded up (for i = lb; i < ub; i += stride),
 * the axis value in a register of its own. */
static int walk_loop(bir_ctx *c, json_t *loop, json_t *out, trn_error *e) {
    json_t *axis = json_object_get(loop, "LoopAxis");
    const char *an = json_string_value(json_object_get(axis, "name"));
    char label[160];
    snprintf(label, sizeof label, "loop %s", an ? an : "(unnamed)");
    size_t saved;
    block_push(c, label, &saved);
    int64_t lb = 0, ub = 0, stride = 0;
    int rc = trn_check_keys(loop, loop_keys, "Loop", e);
    if (!rc && !json_is_object(axis)) rc = trn_errorf(e, "Loop needs 'LoopAxis': {name, lb, ub, stride}");
    if (!rc) rc = trn_check_keys(axis, axis_keys, "LoopAxis", e);
    if (!rc && !an) rc = trn_errorf(e, "LoopAxis 'name' must be a string");
    if (!rc) rc = axis_int(axis, "lb", &lb, e) || axis_int(axis, "ub", &ub, e) || axis_int(axis, "stride", &stride, e);
    if (!rc && stride <= 0)
        rc = trn_errorf(e, "LoopAxis '%s': stride %" PRId64 " (a loop needs a positive stride)", an, stride);
    if (!rc && ub < lb) rc = trn_errorf(e, "LoopAxis '%s': ub %" PRId64 " < lb %" PRId64 " (give lb <= ub)", an, ub, lb);
    if (!rc && (lb < -(1ll << 61) || ub > (1ll << 61)))
        rc = trn_errorf(e, "LoopAxis '%s': lb and ub must lie within +-2^61", an);
    int reg = (int)c->o->machine->registers - 1 - c->depth;
    if (!rc && (c->depth >= BIR_MAX_DEPTH || reg < c->n_regs))
        rc = trn_errorf(e, "LoopAxis '%s': loops nested %d deep need more registers than the %u left by %d REG "
                        "allocations", an, c->depth + 1, c->o->machine->registers, c->n_regs);
    json_t *blocks = json_object_get(loop, "blocks");
    if (!rc && !json_is_array(blocks)) rc = trn_errorf(e, "Loop '%s': 'blocks' must be a list", an);
    if (rc) {
        rc = bir_errorf(c, e, "%s", e->msg);
        c->block[saved] = 0;
        return rc;
    }
    int64_t trips = (ub - lb) / stride + ((ub - lb) % stride != 0);
    json_t *body = json_array(), *l = json_object(), *entry = json_object();
    json_object_set_new(l, "name", json_string(an));
    json_object_set_new(l, "trips", json_integer(trips));
    json_object_set_new(l, "register", json_integer(reg));
    json_object_set_new(l, "start", json_integer(lb));
    json_object_set_new(l, "step", json_integer(stride));
    json_object_set_new(l, "body", body);
    json_object_set_new(entry, "loop", l);
    json_array_append_new(out, entry);
    if (keep_where(c, loop, e)) return -1;
    c->axes[c->depth++] = (bir_axis){an, reg};
    rc = walk_list(c, blocks, "blocks", body, e);
    c->depth--;
    c->block[saved] = 0;
    return rc;
}

static int walk_block(bir_ctx *c, json_t *b, json_t *out, trn_error *e) {
    const char *name = json_string_value(json_object_get(b, "name"));
    if (name && json_object_get(c->trigger_blocks, name)) return 0; /* a DMATrigger's descriptor block */
    size_t saved;
    block_push(c, name ? name : "(unnamed)", &saved);
    int rc = trn_check_keys(b, block_keys, "block", e) ? bir_errorf(c, e, "%s", e->msg) : 0;
    if (!rc) rc = walk_list(c, json_object_get(b, "instructions"), "instructions", out, e);
    c->block[saved] = 0;
    return rc;
}

static int walk_item(bir_ctx *c, json_t *x, json_t *out, trn_error *e) {
    if (!json_is_object(x)) return bir_errorf(c, e, "a block entry must be an object (a block, a Loop or an instruction)");
    const char *op = json_string_value(json_object_get(x, "opcode"));
    if (op && !strcmp(op, "Loop")) return walk_loop(c, x, out, e);
    if (!json_object_get(x, "opcode")) {
        if (json_object_get(x, "instructions")) return walk_block(c, x, out, e);
        return bir_errorf(c, e, "entry '%s' is neither a block ('instructions'), a Loop nor an instruction ('opcode')",
                          inst_name(x));
    }
    json_t *n;
    if (bir_translate_inst(c, x, &n, e)) return inst_error(c, x, e);
    if (!n) return 0; /* skipped at load */
    char note[BIR_WHERE_MAX];
    snprintf(note, sizeof note, "BIR %s", inst_name(x));
    json_object_set_new(n, "comment", json_string(note));
    json_array_append_new(out, n);
    return keep_where(c, x, e);
}

static int walk_list(bir_ctx *c, json_t *list, const char *key, json_t *out, trn_error *e) {
    if (!json_is_array(list)) return bir_errorf(c, e, "'%s' must be a list", key);
    for (size_t i = 0; i < json_array_size(list); ++i)
        if (walk_item(c, json_array_get(list, i), out, e)) return -1;
    return 0;
}

int bir_translate_function(bir_ctx *c, json_t *fn, json_t *out, trn_error *e) {
    c->fn = fn;
    note_triggers(c, json_object_get(fn, "blocks"));
    return walk_list(c, json_object_get(fn, "blocks"), "blocks", out, e);
}
