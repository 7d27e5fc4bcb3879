/* The native program's top level and its instruction list, where a `loop`
 * entry becomes a header and an end entry around its body (program.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend_int.h"
#include "frontend/native/native_int.h"

#define MAX_LOOP_DEPTH 32
#define MAX_TRIPS      (1ll << 62)

int trn_native_parse_top(trn_program *p, const trn_machine *m, trn_error *e) {
    static const char *const keys[] = {"cores",        "allow_uninit_read", "tensors",
                                       "instructions", "comment",           NULL};
    if (!json_is_object(p->root)) return trn_errorf(e, "the program must be a JSON object");
    if (trn_check_keys(p->root, keys, "program", e)) return -1;
    int64_t cores;
    p->cores_given = json_object_get(p->root, "cores") != NULL;
    if (trn_get_int(p->root, "cores", p->cores, 1, 1024, &cores, "program", e)) return -1;
    p->cores = (uint32_t)cores;
    json_t *au = json_object_get(p->root, "allow_uninit_read");
    if (au && !json_is_boolean(au))
        return trn_errorf(e, "program: 'allow_uninit_read' must be true or false");
    p->allow_uninit = json_is_true(au);
    return trn_native_parse_tensors(p, json_object_get(p->root, "tensors"), m, e);
}

trn_inst *trn_native_slot(list_state *ls, trn_error *e) {
    trn_program *p = ls->p;
    if (p->n_insts == ls->cap) {
        size_t cap = ls->cap ? ls->cap * 2 : 16;
        trn_inst *n = realloc(p->insts, cap * sizeof *n);
        if (!n) {
            trn_errorf(e, "out of memory for %zu instructions", cap);
            return NULL;
        }
        p->insts = n;
        ls->cap = cap;
    }
    return &p->insts[p->n_insts];
}

trn_inst *trn_native_push(list_state *ls, trn_error *e) {
    trn_inst *in = trn_native_slot(ls, e);
    if (in) memset(in, 0, sizeof *in);
    return in;
}

/* " (opcode NAME)" or " (opcode IT n)" as the program wrote it, for the
 * messages of an instruction that failed to parse; "" without one. */
static const char *opcode_as_written(const json_t *obj) {
    static char buf[160];
    const json_t *op = json_object_get(obj, "opcode");
    if (json_is_string(op))
        snprintf(buf, sizeof buf, " (opcode %.120s)", json_string_value(op));
    else if (json_is_integer(op))
        snprintf(buf, sizeof buf, " (opcode IT %" JSON_INTEGER_FORMAT ")", json_integer_value(op));
    else
        buf[0] = 0;
    return buf;
}

static int parse_list(list_state *ls, json_t *list, int depth, trn_error *e);

/* {"loop": {"trips", "register", "start", "step", "name", "body"}} */
static int parse_loop(list_state *ls, json_t *lj, int depth, trn_error *e) {
    static const char *const keys[] = {"trips", "register", "start",   "step",
                                       "name",  "body",     "comment", NULL};
    char where[64];
    snprintf(where, sizeof where, "loop (instruction %" PRIu64 ")", ls->number);
    if (!json_is_object(lj)) return trn_errorf(e, "%s: 'loop' must be an object", where);
    if (depth >= MAX_LOOP_DEPTH)
        return trn_errorf(e, "%s: loops nested deeper than %d", where, MAX_LOOP_DEPTH);
    if (trn_check_keys(lj, keys, where, e)) return -1;
    trn_loop l = {0};
    int64_t reg;
    if (!json_object_get(lj, "trips")) return trn_errorf(e, "%s: 'trips' is required", where);
    if (trn_get_int(lj, "trips", 0, 0, MAX_TRIPS, &l.trips, where, e) ||
        trn_get_int(lj, "register", -1, 0, (int64_t)ls->o->machine->registers - 1, &reg, where,
                    e) ||
        trn_get_int(lj, "start", 0, INT64_MIN, INT64_MAX, &l.start, where, e) ||
        trn_get_int(lj, "step", 1, INT64_MIN, INT64_MAX, &l.step, where, e))
        return -1;
    int64_t span, last;
    if (l.trips > 0 && (__builtin_mul_overflow(l.step, l.trips - 1, &span) ||
                        __builtin_add_overflow(l.start, span, &last)))
        return trn_errorf(
            e, "%s: the loop variable's last value start + (trips-1)*step is outside int64", where);
    json_t *body = json_object_get(lj, "body");
    if (!json_is_array(body))
        return trn_errorf(e, "%s: 'body' must be a list of instructions", where);
    l.reg = (int)reg;
    l.id = ls->p->n_loops++;
    trn_inst *h = trn_native_push(ls, e);
    if (!h) return -1;
    size_t head = ls->p->n_insts++;
    h->kind = TRN_INST_LOOP;
    h->loop = l;
    h->number = ls->number++;
    if (parse_list(ls, body, depth + 1, e)) return -1;
    trn_inst *end = trn_native_push(ls, e);
    if (!end) return -1;
    size_t tail = ls->p->n_insts++;
    end->kind = TRN_INST_END;
    end->loop = l;
    end->number = ls->p->insts[head].number;
    end->jump = head;
    ls->p->insts[head].jump = tail;
    return 0;
}

int trn_native_parse_entry(list_state *ls, json_t *obj, int depth, trn_error *e) {
    json_t *lj = json_object_get(obj, "loop");
    if (lj) {
        static const char *const entry_keys[] = {"loop", "comment", NULL};
        char where[64];
        snprintf(where, sizeof where, "loop (instruction %" PRIu64 ")", ls->number);
        size_t head = ls->p->n_insts;
        if (trn_check_keys(obj, entry_keys, where, e) || parse_loop(ls, lj, depth, e)) return -1;
        ls->p->insts[head].comment =
            json_string_value(json_object_get(obj, "comment")); /* lives in obj */
        return 0;
    }
    trn_inst *in = trn_native_push(ls, e);
    if (!in) return -1;
    uint64_t number = ls->number++;
    if (trn_inst_parse(ls->p, obj, in, ls->o->resolve, ls->o->arg, e)) {
        trn_error_at(e, number, -1, in->it);
        return trn_error_prefix(e, "instruction %" PRIu64 "%s", number, opcode_as_written(obj));
    }
    in->number = number;
    ls->p->n_insts++;
    return 0;
}

static int parse_list(list_state *ls, json_t *list, int depth, trn_error *e) {
    for (size_t i = 0; i < json_array_size(list); ++i)
        if (trn_native_parse_entry(ls, json_array_get(list, i), depth, e)) return -1;
    return 0;
}

int trn_native_read(trn_program *p, const trn_load_opts *o, trn_error *e) {
    if (trn_native_parse_top(p, o->machine, e)) return -1;
    json_t *is = json_object_get(p->root, "instructions");
    if (!json_is_array(is)) return trn_errorf(e, "program: 'instructions' must be a list");
    list_state ls = {p, o, 0, 0};
    return parse_list(&ls, is, 0, e);
}
