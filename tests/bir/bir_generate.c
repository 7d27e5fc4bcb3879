/* Random BIR files for comparing the reader's text fast path with its
 * document path: allocations in SBUF, DRAM, a register and the RNG state;
 * blocks, nested blocks and loops; instructions with physical_ap and
 * register_ap arguments in bounds, ignored fields, and now and then what
 * only the document path reads (an immediate, can_read_uninit, an escaped
 * name, a non-string ignored field); now and then many allocations.
 * Keys come in varied orders; some
 * files have several functions, the one to run named sg0000. */
#include "bir_generate.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rng {
    uint32_t s;
} rng;

static uint32_t next(rng *r) {
    r->s ^= r->s << 13;
    r->s ^= r->s >> 17;
    r->s ^= r->s << 5;
    return r->s;
}

static int below(rng *r, int n) { return (int)(next(r) % (uint32_t)n); }

/* An object from key/value pairs, in the given order or shuffled. */
static json_t *object(rng *r, bool shuffle, int n, const char **keys, json_t **values) {
    int order[16];
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int i = n - 1; shuffle && i > 0; --i) {
        int j = below(r, i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    json_t *o = json_object();
    for (int i = 0; i < n; ++i)
        if (values[order[i]]) json_object_set_new(o, keys[order[i]], values[order[i]]);
    return o;
}

static json_t *pair(int64_t step, int64_t num) {
    return json_pack("[I, I]", (json_int_t)step, (json_int_t)num);
}

static json_t *location(const char *name, const char *type, int64_t addr, json_t *dims) {
    return json_pack("{s:s, s:s, s:I, s:o}", "name", name, "type", type, "addr", (json_int_t)addr,
                     "dims", dims);
}

static json_t *allocation(const char *name, const char *kind, const char *dtype, json_t *shape,
                          json_t *loc) {
    return json_pack("{s:s, s:s, s:s, s:o, s:[o]}", "name", name, "kind", kind, "dtype", dtype,
                     "tensor_shape", shape, "memorylocations", loc);
}

/* The six allocations the instructions use; now and then up to 59 more in
 * DRAM first, past the reader's first table sizes (16, then 48). */
static json_t *allocations(rng *r) {
    json_t *a = json_array();
    int extra = below(r, 4) ? 0 : below(r, 60);
    for (int i = 0; i < extra; ++i) {
        char name[16], loc[24];
        snprintf(name, sizeof name, "e%d", i);
        snprintf(loc, sizeof loc, "e%d_loc", i);
        json_array_append_new(
            a, allocation(name, "Internal", "float32", json_pack("[i]", 4),
                          location(loc, "DRAM", 256 + 16 * i, json_pack("[i]", 16))));
    }
    json_array_append_new(a,
                          allocation("x", "ExternalInput", "float32", json_pack("[i, i]", 8, 64),
                                     location("x_loc", "Input", 0, json_pack("[i, i]", 8, 256))));
    json_array_append_new(a, allocation("s1", "Internal", "float32", json_pack("[i, i]", 8, 256),
                                        location("s1_loc", "SB", 0, json_pack("[i, i]", 8, 1024))));
    json_array_append_new(a,
                          allocation("s2", "Internal", "bfloat16", json_pack("[i, i]", 8, 128),
                                     location("s2_loc", "SB", 1024, json_pack("[i, i]", 8, 256))));
    json_array_append_new(a, allocation("d", "Internal", "float32", json_pack("[i]", 64),
                                        location("d_loc", "DRAM", 0, json_pack("[i]", 256))));
    json_array_append_new(a, allocation("r", "Internal", "int32", json_pack("[i]", 1),
                                        location("r_loc", "REG", 0, json_pack("[i]", 4))));
    json_array_append_new(a, allocation("st", "Internal", "uint32", json_pack("[i]", 1),
                                        location("st_loc", "RNGSTATE", 0, json_pack("[i]", 4))));
    return a;
}

typedef struct gen {
    rng r;
    int loops;           /* loop axes made so far (their names) */
    int blocks;          /* blocks made so far (their names: a block name is unique) */
    const char *axes[8]; /* enclosing loop axes */
    int depth;
    char names[8][16];
} gen;

/* An access pattern on one of the memory allocations, in bounds. */
static json_t *argument(gen *g) {
    rng *r = &g->r;
    const char *keys[8] = {"kind", "ap", "dtype", "offset", "memsetref", "memref"};
    json_t *v[8] = {0};
    int which = below(r, 4);
    const char *set = which == 0 ? "s1" : which == 1 ? "s2" : which == 2 ? "d" : "x";
    int row = which == 0 ? 256 : which == 1 ? 128 : 64, parts = which == 2 ? 1 : 8;
    int n = 1 + below(r, 16), col = below(r, row - n + 1);
    int p = 1 + below(r, parts), first = below(r, parts - p + 1);
    v[1] =
        which == 2 ? json_pack("[o]", pair(1, n)) : json_pack("[o, o]", pair(row, p), pair(1, n));
    if (below(r, 3)) v[2] = json_string(which == 1 ? "bfloat16" : "float32");
    v[4] = json_string(set);
    if (below(r, 2)) {
        char loc[16];
        snprintf(loc, sizeof loc, "%s_loc", set);
        v[5] = json_string(loc);
    }
    int64_t offset = (int64_t)first * row + col;
    bool dynamic = below(r, 4) == 0;
    if (dynamic) {
        keys[3] = "reg_ap_offset";
        keys[5] = "regref";
        json_decref(v[5]);
        v[5] = json_string(g->depth && below(r, 2) ? g->axes[below(r, g->depth)] : "r");
        v[0] = json_string("register_ap");
        v[3] = below(r, 2) ? json_sprintf("%d", (int)offset) : json_integer(offset);
    } else {
        v[0] = json_string("physical_ap");
        if (offset || below(r, 2)) v[3] = json_integer(offset);
    }
    return object(r, below(r, 3) == 0, 6, keys, v);
}

static json_t *arguments(gen *g, int n) {
    json_t *l = json_array();
    for (int i = 0; i < n; ++i) json_array_append_new(l, argument(g));
    return l;
}

static json_t *instruction(gen *g, int number) {
    rng *r = &g->r;
    static const char *const ops[] = {"TensorCopy", "Load", "Save", "Max"};
    const char *keys[8] = {"opcode", "name",  "engine",  "ins",
                           "outs",   "queue", "comment", "can_read_uninit"};
    json_t *v[8] = {0};
    int odd = below(r, 12); /* what only the document path reads */
    v[0] = json_string(odd == 0 ? "MaxIndexAndMatchReplace" : ops[below(r, 4)]);
    char name[32];
    snprintf(name, sizeof name, odd == 1 ? "n\\u00e9%d" : "n%d", number);
    if (below(r, 8)) v[1] = odd == 1 ? json_string("n\xc3\xa9") : json_string(name);
    v[2] = odd == 2 ? json_integer(3) : below(r, 2) ? json_string("dve") : NULL;
    v[3] = arguments(g, 1 + below(r, 2));
    if (odd == 0)
        json_array_append_new(v[3], json_pack("{s:s, s:s, s:f}", "kind", "imm_value", "dtype",
                                              "float32", "value", 0.5));
    else if (odd == 3)
        json_array_append_new(v[3], json_pack("{s:s, s:s, s:[[i, i]], s:s}", "kind", "physical_ap",
                                              "memsetref", "st", "ap", 1, 1, "dtype", "uint32"));
    v[4] = arguments(g, 1);
    if (below(r, 4) == 0) v[5] = json_string("qSync");
    if (odd == 4) v[6] = json_pack("[s]", "a list, not read");
    if (odd == 5) v[7] = json_true();
    return object(r, below(r, 4) == 0, 8, keys, v);
}

static json_t *entries(gen *g, int *number, int depth);

static json_t *block(gen *g, int *number, int depth) {
    const char *keys[2] = {"name", "instructions"};
    char name[32];
    snprintf(name, sizeof name, "b%d", g->blocks++);
    json_t *v[2] = {json_string(name), entries(g, number, depth + 1)};
    return object(&g->r, below(&g->r, 3) == 0, 2, keys, v);
}

static json_t *loop(gen *g, int *number, int depth) {
    rng *r = &g->r;
    int k = g->loops++ % 8;
    snprintf(g->names[k], sizeof g->names[k], "i%d", g->loops);
    json_t *axis = json_pack("{s:s, s:i, s:i, s:i}", "name", g->names[k], "lb", 0, "ub",
                             1 + below(r, 5), "stride", 1 + below(r, 2));
    g->axes[g->depth++] = g->names[k];
    json_t *body = json_array();
    json_array_append_new(body, block(g, number, depth));
    g->depth--;
    const char *keys[4] = {"opcode", "LoopAxis", "blocks", "name"};
    json_t *v[4] = {json_string("Loop"), axis, body, below(r, 2) ? json_string("loop") : NULL};
    return object(r, below(r, 3) == 0, 4, keys, v);
}

static json_t *entries(gen *g, int *number, int depth) {
    json_t *l = json_array();
    int n = 1 + below(&g->r, 6);
    for (int i = 0; i < n; ++i) {
        int kind = below(&g->r, 10);
        if (kind == 0 && depth < 4 && g->depth < 3)
            json_array_append_new(l, loop(g, number, depth));
        else if (kind == 1 && depth < 4)
            json_array_append_new(l, block(g, number, depth));
        else
            json_array_append_new(l, instruction(g, (*number)++));
    }
    return l;
}

static json_t *function(gen *g, const char *name) {
    int number = 0;
    json_t *blocks = json_array();
    for (int i = 0, n = 1 + below(&g->r, 3); i < n; ++i)
        json_array_append_new(blocks, block(g, &number, 0));
    const char *fkeys[3] = {"name", "allocations", "blocks"};
    json_t *fv[3] = {json_string(name), allocations(&g->r), blocks};
    return object(&g->r, below(&g->r, 4) == 0, 3, fkeys, fv);
}

char *bir_generate(uint32_t seed, const char **run) {
    gen g = {.r = {seed * 2654435761u + 1}};
    json_t *fns = json_array();
    int n = below(&g.r, 4) ? 1 : 2 + below(&g.r, 2), chosen = below(&g.r, n);
    for (int i = 0; i < n; ++i) {
        char name[16];
        snprintf(name, sizeof name, "f%d", i);
        json_array_append_new(fns, function(&g, i == chosen ? "sg0000" : name));
    }
    *run = n > 1 || below(&g.r, 2) ? "sg0000" : NULL;
    const char *tkeys[3] = {"version", "arch", "functions"};
    json_t *tv[3] = {json_integer(2), json_string("gen3"), fns};
    json_t *root = object(&g.r, below(&g.r, 4) == 0, 3, tkeys, tv);
    char *text = json_dumps(root, below(&g.r, 2) ? JSON_INDENT(1) : JSON_COMPACT);
    json_decref(root);
    if (!text) abort();
    return text;
}

char *bir_mutate(const char *text, uint32_t seed) {
    rng r = {seed * 2246822519u + 7};
    static const char bytes[] = "{}[],:\"0123-\\ ae\x01\xff";
    size_t n = strlen(text);
    char *m = malloc(n + 64);
    if (!m) abort();
    memcpy(m, text, n + 1);
    for (int k = 0, edits = 1 + below(&r, 3); k < edits && n > 1; ++k) {
        size_t at = next(&r) % n;
        int how = below(&r, 3);
        if (how == 0) { /* delete a byte */
            memmove(m + at, m + at + 1, n - at);
            n--;
        } else if (how == 1) { /* replace it */
            m[at] = bytes[below(&r, (int)sizeof bytes - 1)];
        } else { /* insert one */
            memmove(m + at + 1, m + at, n - at + 1);
            m[at] = bytes[below(&r, (int)sizeof bytes - 1)];
            n++;
        }
    }
    return m;
}
