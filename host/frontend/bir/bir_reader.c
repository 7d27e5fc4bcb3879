/* The BIR file's top level: one function, its allocations and blocks,
 * translated into a native program that replaces the BIR document; then
 * the native front end reads that, and each instruction gets its BIR
 * context back for messages. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/bir/bir_internal.h"
#include "frontend/json_fields.h"
#include "frontend/native/native.h"

static const char *const top_keys[] = {"version", "arch", "attributes", "functions", NULL};
static const char *const function_keys[] = {"name", "attributes", "allocations", "blocks", NULL};

/* Every unhandled opcode with its count, in one message. */
static int unhandled_message(const bir_ctx *c, char *buf, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < c->n_unhandled && n < len; ++i)
        n += (size_t)snprintf(buf + n, len - n, "%s%s x%" PRIu64, i ? ", " : "", c->unhandled[i].name,
                              c->unhandled[i].n);
    return (int)c->n_unhandled;
}

static int check_unhandled(bir_ctx *c, trn_error *e) {
    if (!c->n_unhandled) return 0;
    char list[600];
    unhandled_message(c, list, sizeof list);
    if (c->o->unknown_skip) {
        char note[800];
        snprintf(note, sizeof note, "note: %s: skipped at load, no loaded module handles them: %s (unknown_opcode = "
                 "\"skip\", the reference's skip-and-note)", c->path, list);
        c->p->skip_note = strdup(note);
        return c->p->skip_note ? 0 : trn_errorf(e, "out of memory");
    }
    return trn_errorf(e, "%s: function %s: %zu opcode%s no loaded module handles: %s (loaded families: %s); load a "
                      "module that registers %s, or set unknown_opcode = \"skip\" for the reference's skip-and-note",
                      c->path, c->function, c->n_unhandled, c->n_unhandled == 1 ? "" : "s", list,
                      c->o->families ? c->o->families : "?", c->n_unhandled == 1 ? "it" : "them");
}

static int read_top(bir_ctx *c, json_t *root, json_t **fn, trn_error *e) {
    if (trn_check_keys(root, top_keys, "BIR file", e)) return trn_error_prefix(e, "%s", c->path);
    json_t *v = json_object_get(root, "version");
    if (!json_is_integer(v)) return trn_errorf(e, "%s: 'version' must be an integer", c->path);
    json_t *attrs = json_object_get(root, "attributes");
    if (attrs && !json_is_object(attrs)) return trn_errorf(e, "%s: 'attributes' must be an object", c->path);
    json_t *fns = json_object_get(root, "functions");
    if (!json_is_array(fns) || json_array_size(fns) != 1)
        return trn_errorf(e, "%s: 'functions' must be a list of one function (trnsim runs one function per file, "
                          "found %zu)", c->path, json_array_size(fns));
    *fn = json_array_get(fns, 0);
    if (!json_is_object(*fn)) return trn_errorf(e, "%s: functions[0] must be an object", c->path);
    c->function = json_string_value(json_object_get(*fn, "name"));
    if (!c->function) return trn_errorf(e, "%s: functions[0]: 'name' must be a string", c->path);
    char where[200];
    snprintf(where, sizeof where, "%s: function %s", c->path, c->function);
    if (trn_check_keys(*fn, function_keys, where, e)) return -1;
    return 0;
}

/* A native message "instruction N: ..." gets N's BIR context. */
static int native_error(const bir_ctx *c, trn_error *e) {
    uint64_t n;
    int used = 0;
    char msg[TRN_ERROR_MAX];
    snprintf(msg, sizeof msg, "%s", e->msg);
    if (sscanf(msg, "instruction %" SCNu64 "%n", &n, &used) == 1 && n < c->n_where && msg[used] == ':')
        return trn_errorf(e, "%s: instruction %" PRIu64 " (%s) (every core)%s", c->path, n, c->where[n], msg + used);
    return trn_errorf(e, "%s: %s", c->path, msg);
}

static int translate(bir_ctx *c, json_t *root, json_t *native, trn_error *e) {
    json_t *fn = NULL;
    json_t *tensors = json_array(), *insts = json_array();
    json_object_set_new(native, "tensors", tensors);
    json_object_set_new(native, "instructions", insts);
    if (read_top(c, root, &fn, e)) return -1;
    if (bir_read_allocations(c, fn, tensors, e)) return trn_error_prefix(e, "%s", c->path);
    if (bir_translate_function(c, fn, insts, e) || check_unhandled(c, e)) return -1;
    return 0;
}

/* The context strings move into the program; each instruction points at its own. */
static int attach_where(bir_ctx *c, trn_program *p, trn_error *e) {
    (void)e;
    for (size_t i = 0; i < p->n_insts; ++i) {
        trn_inst *in = &p->insts[i];
        if (in->kind != TRN_INST_END && in->number < c->n_where) in->where = c->where[in->number];
    }
    p->strings = c->arena;
    p->n_strings = c->n_arena;
    c->arena = NULL;
    c->n_arena = 0;
    return 0;
}

static void ctx_free(bir_ctx *c) {
    for (size_t i = 0; i < c->n_arena; ++i) free(c->arena[i]);
    free(c->arena);
    free(c->where);
    free(c->allocs);
    free(c->unhandled);
    if (c->trigger_blocks) json_decref(c->trigger_blocks);
    if (c->opcodes) json_decref(c->opcodes);
}

int trn_bir_read(trn_program *p, const trn_load_opts *o, trn_error *e) {
    bir_ctx c = {.path = p->path, .o = o, .p = p, .function = "?", .trigger_blocks = json_object(),
                 .opcodes = json_object()};
    json_t *native = json_object();
    int rc = native && c.trigger_blocks && c.opcodes ? translate(&c, p->root, native, e) : trn_errorf(e, "out of memory");
    if (rc == 0) { /* from here on the program is the native translation */
        json_t *bir = p->root;
        p->root = native;
        native = NULL;
        p->summary.allocations = c.n_allocs;
        if (trn_native_read(p, o, e)) rc = native_error(&c, e);
        else rc = attach_where(&c, p, e);
        /* freed last: the native read's large allocations come first, before
         * malloc has millions of small free chunks to consolidate */
        json_decref(bir);
    }
    if (native) json_decref(native);
    ctx_free(&c);
    return rc;
}
