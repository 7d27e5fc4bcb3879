/* Programs built in memory (trnsim.h, API version 2). A trnsim_program is
 * the document of a native program (docs/programs.md), assembled value by
 * value; trnsim_load_program hands a copy of it to the same document reader
 * a native file goes through, so the loaded program, and every message a
 * wrong program gets, are those of the equivalent JSON. A trnsim_value is a
 * jansson value, as the reader's own document is made of. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "embed/embed.h"
#include "trnsim/trnsim.h"

/* Loops nest at most this deep while building; the reader refuses more
 * than its own limit (32) with its message. */
#define MAX_BUILD_DEPTH 64

struct trnsim_program {
    json_t *root;
    json_t *tensors;
    json_t *lists[MAX_BUILD_DEPTH + 1]; /* lists[depth]: where instructions go */
    int depth;
};

static json_t *J(trnsim_value *v) { return (json_t *)v; }
static trnsim_value *V(json_t *j) { return (trnsim_value *)j; }

static int out_of_memory(void) { return trn_embed_usage("out of memory"); }

/* A value made by a constructor: NULL means out of memory. */
static trnsim_value *made(json_t *j) {
    trn_embed_clear_error();
    if (!j) out_of_memory();
    return V(j);
}

trnsim_value *trnsim_value_int(int64_t v) { return made(json_integer((json_int_t)v)); }

/* The native reader takes infinities and NaN as these strings (JSON has no
 * literal for them). */
static json_t *float_json(double v) {
    if (isnan(v)) return json_string("nan");
    if (isinf(v)) return json_string(v > 0 ? "inf" : "-inf");
    return json_real(v);
}

trnsim_value *trnsim_value_float(double v) { return made(float_json(v)); }
trnsim_value *trnsim_value_bool(int v) { return made(json_boolean(v != 0)); }
trnsim_value *trnsim_value_list(void) { return made(json_array()); }
trnsim_value *trnsim_value_object(void) { return made(json_object()); }

trnsim_value *trnsim_value_string(const char *s) {
    if (!s) {
        trn_embed_usage("trnsim_value_string: the string is NULL");
        return NULL;
    }
    trn_embed_clear_error();
    json_t *j = json_string(s);
    if (!j) trn_embed_usage("trnsim_value_string: not UTF-8 text (or out of memory)");
    return V(j);
}

static trnsim_value *number_list(const int64_t *iv, const double *fv, size_t n, const char *what) {
    if (n && !iv && !fv) {
        trn_embed_usage(what);
        return NULL;
    }
    trn_embed_clear_error();
    json_t *a = json_array();
    for (size_t i = 0; a && i < n; ++i)
        if (json_array_append_new(a, iv ? json_integer((json_int_t)iv[i]) : float_json(fv[i]))) {
            json_decref(a);
            a = NULL;
        }
    if (!a) out_of_memory();
    return V(a);
}

trnsim_value *trnsim_value_ints(const int64_t *v, size_t n) {
    return number_list(v, NULL, n, "trnsim_value_ints: the values are NULL");
}

trnsim_value *trnsim_value_floats(const double *v, size_t n) {
    return number_list(NULL, v, n, "trnsim_value_floats: the values are NULL");
}

void trnsim_value_free(trnsim_value *v) { json_decref(J(v)); }

int trnsim_value_append(trnsim_value *list, trnsim_value *item) {
    trn_embed_clear_error();
    if (!json_is_array(J(list)) || !item) {
        json_decref(J(item));
        return trn_embed_usage(
            "trnsim_value_append: the list is not a list value, or the item is NULL");
    }
    return json_array_append_new(J(list), J(item)) ? out_of_memory() : 0;
}

/* A key set twice has no JSON form the reader would take (it refuses
 * duplicate keys), so it is refused here, naming the key. */
static int set_key(json_t *obj, const char *key, json_t *v, const char *what) {
    if (!json_is_object(obj) || !key || !v) {
        json_decref(v);
        trn_error *e = trn_embed_host_error();
        trn_errorf(e, "%s: the object, the key or the value is NULL (or not an object)", what);
        return trn_embed_publish(NULL, NULL);
    }
    if (json_object_get(obj, key)) {
        json_decref(v);
        trn_error *e = trn_embed_host_error();
        trn_errorf(e, "%s: key '%s' is set twice (a native program's objects take each key once)",
                   what, key);
        e->kind = TRN_EK_PROGRAM;
        return trn_embed_publish(NULL, NULL);
    }
    return json_object_set_new(obj, key, v) ? out_of_memory() : 0;
}

int trnsim_value_set(trnsim_value *object, const char *key, trnsim_value *v) {
    trn_embed_clear_error();
    return set_key(J(object), key, J(v), "trnsim_value_set");
}

/* ---- operands ---- */

static int set_int(json_t *obj, const char *key, int64_t v) {
    return json_object_set_new(obj, key, json_integer((json_int_t)v));
}

static json_t *operand_json(const trnsim_operand *o) {
    json_t *obj = json_object();
    if (!obj) return NULL;
    int bad = 0;
    if (o->tensor) bad |= json_object_set_new(obj, "tensor", json_string(o->tensor));
    if (o->memory) bad |= json_object_set_new(obj, "memory", json_string(o->memory));
    static const struct {
        unsigned bit;
        const char *key;
        size_t at;
    } fields[] = {
        {TRNSIM_OPND_PARTITION, "partition", offsetof(trnsim_operand, partition)},
        {TRNSIM_OPND_PARTITIONS, "partitions", offsetof(trnsim_operand, partitions)},
        {TRNSIM_OPND_PARTITION_STEP, "partition_step", offsetof(trnsim_operand, partition_step)},
        {TRNSIM_OPND_OFFSET, "offset", offsetof(trnsim_operand, offset)},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; ++i)
        if (o->given & fields[i].bit)
            bad |= set_int(obj, fields[i].key, *(const int64_t *)((const char *)o + fields[i].at));
    if (o->ndims > 0) {
        json_t *ap = json_array();
        for (int d = 0; ap && d < o->ndims; ++d) {
            json_t *pair = json_pack("[II]", (json_int_t)o->ap[d][0], (json_int_t)o->ap[d][1]);
            if (!pair || json_array_append_new(ap, pair)) bad = 1;
        }
        bad |= !ap || json_object_set_new(obj, "ap", ap);
    }
    if (o->dtype) bad |= json_object_set_new(obj, "dtype", json_string(o->dtype));
    if (o->given & TRNSIM_OPND_OFFSET_REGISTER)
        bad |= set_int(obj, "offset_register", o->offset_register);
    if (o->given & TRNSIM_OPND_CORE) bad |= set_int(obj, "core", o->core);
    if (o->given & TRNSIM_OPND_CORE_OFFSET) bad |= set_int(obj, "core_offset", o->core_offset);
    if (bad) {
        json_decref(obj);
        return NULL;
    }
    return obj;
}

trnsim_value *trnsim_value_operand(const trnsim_operand *o) {
    trn_embed_clear_error();
    if (!o || o->size < sizeof(trnsim_operand)) {
        trn_embed_usage(
            "trnsim_value_operand: the operand is NULL or its size is not sizeof(trnsim_operand)");
        return NULL;
    }
    if (o->ndims < 0 || o->ndims > 4) {
        trn_embed_usage("trnsim_value_operand: ndims must be 0 (the default AP) .. 4");
        return NULL;
    }
    json_t *j = operand_json(o);
    if (!j) trn_embed_usage("trnsim_value_operand: a string is not UTF-8 text (or out of memory)");
    return V(j);
}

/* ---- programs ---- */

trnsim_program *trnsim_program_new(void) {
    trn_embed_clear_error();
    trnsim_program *p = calloc(1, sizeof *p);
    if (p) {
        p->root = json_object();
        p->tensors = json_array();
        p->lists[0] = json_array();
    }
    if (!p || !p->root || !p->tensors || !p->lists[0] ||
        json_object_set(p->root, "tensors", p->tensors) ||
        json_object_set(p->root, "instructions", p->lists[0])) {
        trnsim_program_free(p);
        out_of_memory();
        return NULL;
    }
    return p;
}

void trnsim_program_free(trnsim_program *p) {
    if (!p) return;
    json_decref(p->root);
    json_decref(p->tensors);
    json_decref(p->lists[0]);
    free(p);
}

#define NEED_PROGRAM(p, what, ...)                                                                 \
    do {                                                                                           \
        trn_embed_clear_error();                                                                   \
        if (!(p)) {                                                                                \
            __VA_ARGS__;                                                                           \
            return trn_embed_usage(what ": the program is NULL");                                  \
        }                                                                                          \
    } while (0)

int trnsim_program_set(trnsim_program *p, const char *key, trnsim_value *v) {
    NEED_PROGRAM(p, "trnsim_program_set", json_decref(J(v)));
    return set_key(p->root, key, J(v), "program");
}

/* Moves every key of more (an object, taken) into obj. */
static int merge(json_t *obj, json_t *more, const char *what) {
    if (!more) return 0;
    if (!json_is_object(more)) {
        json_decref(more);
        return trn_embed_usage("the extra keys are not an object value");
    }
    const char *k;
    json_t *v;
    int rc = 0;
    json_object_foreach(more, k, v) if (rc == 0) rc = set_key(obj, k, json_incref(v), what);
    json_decref(more);
    return rc;
}

int trnsim_program_tensor(trnsim_program *p, const char *name, const char *memory,
                          const char *dtype, int ndim, const int64_t *shape, trnsim_value *more) {
    NEED_PROGRAM(p, "trnsim_program_tensor", json_decref(J(more)));
    if (!name || !dtype || ndim < 0 || (ndim && !shape)) {
        json_decref(J(more));
        return trn_embed_usage(
            "trnsim_program_tensor: the name, the dtype or the shape is NULL (or ndim < 0)");
    }
    json_t *t = json_object();
    json_t *sh = J(number_list(shape, NULL, (size_t)ndim, ""));
    int bad = !t || !sh || json_object_set_new(t, "name", json_string(name)) ||
              (memory && json_object_set_new(t, "memory", json_string(memory))) ||
              json_object_set_new(t, "dtype", json_string(dtype)) ||
              json_object_set_new(t, "shape", sh);
    if (bad) {
        json_decref(t);
        json_decref(J(more));
        return trn_embed_usage(
            "trnsim_program_tensor: a string is not UTF-8 text (or out of memory)");
    }
    char what[96];
    snprintf(what, sizeof what, "tensor '%.64s'", name);
    if (merge(t, J(more), what)) {
        json_decref(t);
        return -1;
    }
    return json_array_append_new(p->tensors, t) ? out_of_memory()
                                                : 0; /* takes t, also on failure */
}

static int add_entry(trnsim_program *p, json_t *opcode, trnsim_value *inputs, trnsim_value *outputs,
                     trnsim_value *attrs) {
    json_t *obj = json_object();
    int rc = !obj || !opcode || json_object_set_new(obj, "opcode", opcode) ? out_of_memory() : 0;
    if (!obj) json_decref(opcode);
    if (rc == 0 && inputs)
        rc = set_key(obj, "inputs", J(inputs), "instruction");
    else
        json_decref(J(inputs));
    if (rc == 0 && outputs)
        rc = set_key(obj, "outputs", J(outputs), "instruction");
    else
        json_decref(J(outputs));
    if (rc == 0)
        rc = merge(obj, J(attrs), "instruction");
    else
        json_decref(J(attrs));
    if (rc == 0 && json_array_append_new(p->lists[p->depth], obj)) return out_of_memory();
    if (rc) json_decref(obj);
    return rc;
}

int trnsim_program_instruction(trnsim_program *p, const char *opcode, trnsim_value *inputs,
                               trnsim_value *outputs, trnsim_value *attrs) {
    NEED_PROGRAM(p, "trnsim_program_instruction", json_decref(J(inputs)), json_decref(J(outputs)),
                 json_decref(J(attrs)));
    if (!opcode) {
        json_decref(J(inputs));
        json_decref(J(outputs));
        json_decref(J(attrs));
        return trn_embed_usage("trnsim_program_instruction: the opcode is NULL");
    }
    return add_entry(p, json_string(opcode), inputs, outputs, attrs);
}

int trnsim_program_instruction_it(trnsim_program *p, uint32_t it, trnsim_value *inputs,
                                  trnsim_value *outputs, trnsim_value *attrs) {
    NEED_PROGRAM(p, "trnsim_program_instruction_it", json_decref(J(inputs)),
                 json_decref(J(outputs)), json_decref(J(attrs)));
    return add_entry(p, json_integer((json_int_t)it), inputs, outputs, attrs);
}

int trnsim_program_loop_begin(trnsim_program *p, int64_t trips, trnsim_value *attrs) {
    NEED_PROGRAM(p, "trnsim_program_loop_begin", json_decref(J(attrs)));
    if (p->depth >= MAX_BUILD_DEPTH) {
        json_decref(J(attrs));
        return trn_embed_usage(
            "trnsim_program_loop_begin: loops nested deeper than 64 while building");
    }
    json_t *loop = json_object(), *body = json_array(), *entry = json_object();
    int rc = !loop || !body || !entry || set_int(loop, "trips", trips) ? out_of_memory() : 0;
    if (rc == 0)
        rc = merge(loop, J(attrs), "loop");
    else
        json_decref(J(attrs));
    if (rc == 0 && (json_object_set(loop, "body", body) || json_object_set(entry, "loop", loop) ||
                    json_array_append(p->lists[p->depth], entry)))
        rc = out_of_memory();
    if (rc == 0) p->lists[++p->depth] = body; /* borrowed: the entry holds it */
    json_decref(loop);
    json_decref(body);
    json_decref(entry);
    return rc;
}

int trnsim_program_loop_end(trnsim_program *p) {
    NEED_PROGRAM(p, "trnsim_program_loop_end");
    if (p->depth == 0) return trn_embed_usage("trnsim_program_loop_end: no loop is open");
    p->depth--;
    return 0;
}

char *trnsim_program_to_json(const trnsim_program *p) {
    trn_embed_clear_error();
    if (!p) {
        trn_embed_usage("trnsim_program_to_json: the program is NULL");
        return NULL;
    }
    char *text = json_dumps(p->root, JSON_INDENT(1));
    if (!text) out_of_memory();
    return text;
}

void trnsim_free(void *text) { free(text); }

int trnsim_load_program(trnsim_sim *s, const trnsim_program *p, const char *name) {
    trn_embed_clear_error();
    if (!s || !p)
        return trn_embed_usage("trnsim_load_program: the simulator or the program is NULL");
    if (p->depth)
        return trn_embed_usage(
            "trnsim_load_program: a loop is still open (trnsim_program_loop_end)");
    if (!name) name = "<program>";
    json_t *copy = json_deep_copy(p->root); /* the caller may go on changing p */
    if (!copy) return out_of_memory();
    trn_sim *sim = trn_embed_host_sim(s);
    if (trn_sim_load_program_document(sim, copy, name, trn_embed_host_error()))
        return trn_embed_publish(sim, name);
    return 0;
}
