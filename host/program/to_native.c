/* The loaded program written back as a native program (`trnsim convert`,
 * and the descriptor lists of BIR DMATriggers): what reading it gives is
 * the loaded program again. */
#include <stdlib.h>
#include <string.h>

#include "arith/arith.h"
#include "program/program.h"

static int set(json_t *o, const char *key, json_t *v) {
    return v ? json_object_set_new(o, key, v) : -1;
}

static json_t *tensor_json(const trn_program *p, const trn_tensor *t) {
    json_t *o = json_object(), *shape = json_array();
    int rc = !o || !shape;
    rc |= set(o, "name", json_string(t->name));
    if (!t->view_of) rc |= set(o, "memory", json_string(trn_mem_names[t->mem]));
    rc |= set(o, "dtype", json_string(trn_dtype_name(t->dtype)));
    for (int i = 0; i < t->ndim; ++i) rc |= json_array_append_new(shape, json_integer(t->shape[i]));
    rc |= set(o, "shape", shape);
    int64_t part = t->partition, off = t->offset_bytes;
    if (t->view_of) {
        const trn_tensor *base = &p->tensors[trn_program_find_tensor(p, t->view_of)];
        rc |= set(o, "view_of", json_string(t->view_of));
        part -= base->partition;
        off -= base->offset_bytes;
    }
    if (t->mem != TRN_MEM_HBM) rc |= set(o, "partition", json_integer(part));
    rc |= set(o, "offset", json_integer(off));
    if (t->init) rc |= json_object_set(o, t->init_kind, t->init);
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *operands_json(const trn_program *p, const trn_operand *ops, int n) {
    json_t *l = json_array();
    for (int i = 0; l && i < n; ++i)
        if (json_array_append_new(l, trn_operand_to_json(p, &ops[i]))) {
            json_decref(l);
            return NULL;
        }
    return l;
}

json_t *trn_inst_to_json(const trn_program *p, const trn_inst *in) {
    json_t *o = json_object();
    int rc = !o;
    rc |= set(o, "opcode", in->opname ? json_string(in->opname) : json_integer(in->it));
    if (in->obj) {
        const char *key;
        json_t *v;
        json_object_foreach(in->obj, key, v) {
            if (strcmp(key, "opcode") && strcmp(key, "inputs") && strcmp(key, "outputs") &&
                strcmp(key, "comment"))
                rc |= json_object_set(o, key, v);
        }
    }
    if (in->allow_uninit && !json_object_get(o, "allow_uninit_read"))
        rc |= set(o, "allow_uninit_read", json_true());
    if (in->n_in) rc |= set(o, "inputs", operands_json(p, in->in, in->n_in));
    if (in->n_out) rc |= set(o, "outputs", operands_json(p, in->out, in->n_out));
    /* the comment last, whichever reader kept it */
    json_t *cj = json_object_get(in->obj, "comment");
    if (cj)
        rc |= json_object_set(o, "comment", cj);
    else if (in->comment || in->where)
        rc |= set(o, "comment", json_string(in->comment ? in->comment : in->where));
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *loop_json(const trn_inst *h, json_t *body) {
    json_t *l = json_object(), *entry = json_object();
    int rc = !l || !entry;
    rc |= set(l, "trips", json_integer(h->loop.trips));
    if (h->loop.reg >= 0) rc |= set(l, "register", json_integer(h->loop.reg));
    if (h->loop.start) rc |= set(l, "start", json_integer(h->loop.start));
    if (h->loop.step != 1) rc |= set(l, "step", json_integer(h->loop.step));
    rc |= set(l, "body", body);
    rc |= set(entry, "loop", l);
    const char *comment = h->comment ? h->comment : h->where;
    if (comment) rc |= set(entry, "comment", json_string(comment));
    if (rc) {
        json_decref(entry);
        return NULL;
    }
    return entry;
}

/* Entries [*i, end) into list; a LOOP header takes its body up to its END. */
static int entries_json(const trn_program *p, size_t *i, size_t end, json_t *list) {
    while (*i < end) {
        const trn_inst *in = &p->insts[*i];
        if (in->kind == TRN_INST_LOOP) {
            json_t *body = json_array();
            size_t j = *i + 1;
            if (!body || entries_json(p, &j, in->jump, body)) {
                json_decref(body);
                return -1;
            }
            if (json_array_append_new(list, loop_json(in, body))) return -1;
            *i = in->jump + 1;
            continue;
        }
        if (in->kind == TRN_INST_OP && json_array_append_new(list, trn_inst_to_json(p, in)))
            return -1;
        ++*i;
    }
    return 0;
}

json_t *trn_program_to_native(const trn_program *p) {
    json_t *o = json_object(), *tensors = json_array(), *insts = json_array();
    int rc = !o || !tensors || !insts;
    if (p->cores_given) rc |= set(o, "cores", json_integer(p->cores));
    if (p->allow_uninit) rc |= set(o, "allow_uninit_read", json_true());
    for (int i = 0; i < p->n_tensors && !rc; ++i)
        rc |= json_array_append_new(tensors, tensor_json(p, &p->tensors[i]));
    rc |= set(o, "tensors", tensors);
    size_t i = 0;
    rc |= entries_json(p, &i, p->n_insts, insts);
    rc |= set(o, "instructions", insts);
    if (rc) {
        json_decref(o);
        return NULL;
    }
    return o;
}
