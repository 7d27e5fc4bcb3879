/* The BIR file's top level: the function to run, its allocations and blocks,
 * read straight into the loaded program; the BIR document is dropped once
 * read (trn_program_to_native writes the equivalent native program). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/bir/bir_int.h"
#include "frontend/frontend_int.h"

static const char *const top_keys[] = {"version", "arch", "attributes", "functions", NULL};
static const char *const function_keys[] = {"name", "attributes", "allocations", "blocks", NULL};

/* Every unhandled opcode with its count, in one message. */
static int unhandled_message(const bir_ctx *c, char *buf, size_t len) {
    size_t n = 0;
    for (size_t i = 0; i < c->n_unhandled && n < len; ++i)
        n += (size_t)snprintf(buf + n, len - n, "%s%s x%" PRIu64, i ? ", " : "",
                              c->unhandled[i].name, c->unhandled[i].n);
    return (int)c->n_unhandled;
}

int bir_check_unhandled(bir_ctx *c, trn_error *e) {
    if (!c->n_unhandled) return 0;
    char list[600];
    unhandled_message(c, list, sizeof list);
    if (c->o->unknown_skip) {
        char note[800];
        snprintf(note, sizeof note,
                 "note: %s: skipped at load, no loaded module handles them: %s (unknown_opcode = "
                 "\"skip\", the reference's skip-and-note)",
                 c->path, list);
        c->p->skip_note = strdup(note);
        return c->p->skip_note ? 0 : trn_errorf(e, "out of memory");
    }
    return trn_errorf(
        e,
        "%s: function %s: %zu opcode%s no loaded module handles: %s (loaded families: %s); load a "
        "module that registers %s, or set unknown_opcode = \"skip\" for the reference's "
        "skip-and-note",
        c->path, c->function, c->n_unhandled, c->n_unhandled == 1 ? "" : "s", list,
        c->o->families ? c->o->families : "?", c->n_unhandled == 1 ? "it" : "them");
}

/* "a, b, c" (cut short past len). */
static void function_names(json_t *fns, char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < json_array_size(fns) && n < len; ++i)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
                              json_string_value(json_object_get(json_array_get(fns, i), "name")));
}

/* The function to run: the only one, or the one o->function names. */
static int choose_function(bir_ctx *c, json_t *fns, json_t **fn, trn_error *e) {
    size_t n = json_array_size(fns);
    if (!fns) return trn_errorf(e, "%s: 'functions' is missing (a list of functions)", c->path);
    if (!json_is_array(fns) || n == 0)
        return trn_errorf(e, "%s: 'functions' must be a list of functions (found %s)", c->path,
                          json_is_array(fns) ? "an empty list" : "no list");
    for (size_t i = 0; i < n; ++i) {
        json_t *f = json_array_get(fns, i);
        if (!json_is_object(f))
            return trn_errorf(e, "%s: functions[%zu] must be an object", c->path, i);
        if (!json_is_string(json_object_get(f, "name")))
            return trn_errorf(e, "%s: functions[%zu]: 'name' must be a string", c->path, i);
    }
    char names[400];
    function_names(fns, names, sizeof names);
    const char *want = c->o->function;
    if (!want) {
        if (n > 1)
            return trn_errorf(e,
                              "%s: %zu functions (%s); give --function NAME (config bir_function) "
                              "to choose the one "
                              "to run",
                              c->path, n, names);
        *fn = json_array_get(fns, 0);
        return 0;
    }
    *fn = NULL;
    for (size_t i = 0; i < n; ++i) {
        json_t *f = json_array_get(fns, i);
        if (strcmp(json_string_value(json_object_get(f, "name")), want)) continue;
        if (*fn) return trn_errorf(e, "%s: more than one function is named '%s'", c->path, want);
        *fn = f;
    }
    if (!*fn) {
        const char *list[65];
        size_t k = 0;
        for (size_t i = 0; i < n && k < 64; ++i)
            list[k++] = json_string_value(json_object_get(json_array_get(fns, i), "name"));
        list[k] = NULL;
        const char *near = trn_closest_key(want, list);
        return trn_errorf(e, "%s: no function named '%s' (the file's functions: %s)%s%s%s", c->path,
                          want, names, near ? "; did you mean '" : "", near ? near : "",
                          near ? "'?" : "");
    }
    return 0;
}

static int read_top(bir_ctx *c, json_t *root, json_t **fn, trn_error *e) {
    if (trn_check_keys(root, top_keys, "BIR file", e)) return trn_error_prefix(e, "%s", c->path);
    json_t *v = json_object_get(root, "version");
    if (!v)
        return trn_errorf(e, "%s: 'version' is missing (an integer; the public types write 2)",
                          c->path);
    if (!json_is_integer(v)) return trn_errorf(e, "%s: 'version' must be an integer", c->path);
    json_t *attrs = json_object_get(root, "attributes");
    if (attrs && !json_is_object(attrs))
        return trn_errorf(e, "%s: 'attributes' must be an object", c->path);
    if (choose_function(c, json_object_get(root, "functions"), fn, e)) return -1;
    c->function = json_string_value(json_object_get(*fn, "name"));
    char where[200];
    snprintf(where, sizeof where, "%s: function %s", c->path, c->function);
    if (trn_check_keys(*fn, function_keys, where, e)) return -1;
    return 0;
}

int bir_own(bir_ctx *c, json_t *v, trn_error *e) {
    if (!c->p->owned && !(c->p->owned = json_array())) {
        json_decref(v);
        return trn_errorf(e, "out of memory");
    }
    if (json_array_append_new(c->p->owned, v)) return trn_errorf(e, "out of memory");
    return 0;
}

int bir_read_header(bir_ctx *c, json_t *root, json_t **fn, trn_error *e) {
    if (read_top(c, root, fn, e)) return -1;
    if (bir_read_allocations(c, *fn, e)) return trn_error_prefix(e, "%s", c->path);
    return 0;
}

static int translate(bir_ctx *c, json_t *root, trn_error *e) {
    json_t *fn = NULL;
    if (bir_read_header(c, root, &fn, e)) return -1;
    if (bir_translate_function(c, fn, e) || bir_check_unhandled(c, e)) return -1;
    return 0;
}

int bir_ctx_init(bir_ctx *c, trn_program *p, const trn_load_opts *o, trn_error *e) {
    *c = (bir_ctx){.path = p->path,
                   .o = o,
                   .p = p,
                   .function = "?",
                   .trigger_blocks = json_object(),
                   .block_names = json_object(),
                   .all_blocks = json_object(),
                   .opcodes = json_object(),
                   .empty = json_object()};
    if (!c->trigger_blocks || !c->block_names || !c->all_blocks || !c->opcodes || !c->empty) {
        json_decref(c->opcodes);
        json_decref(c->empty);
        return trn_errorf(e, "out of memory");
    }
    return bir_own(c, c->opcodes, e) || bir_own(c, c->empty, e) ? -1 : 0;
}

void bir_ctx_free(bir_ctx *c) {
    free(c->allocs);
    trn_name_index_free(&c->alloc_names);
    free(c->unhandled);
    if (c->trigger_blocks) json_decref(c->trigger_blocks);
    if (c->block_names) json_decref(c->block_names);
    if (c->all_blocks) json_decref(c->all_blocks);
}

int trn_bir_read(trn_program *p, const trn_load_opts *o, trn_error *e) {
    bir_ctx c;
    int rc = bir_ctx_init(&c, p, o, e);
    if (!rc) rc = translate(&c, p->root, e);
    if (!rc) p->summary.allocations = c.n_allocs;
    /* the BIR document goes: the program holds what it needs */
    json_decref(p->root);
    p->root = NULL;
    bir_ctx_free(&c);
    return rc;
}
