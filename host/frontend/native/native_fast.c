/* Reading a native program from its text without a document for every
 * instruction (docs/internals/programs.md). The top level's members other
 * than `instructions` are parsed by jansson as before. Each entry of the
 * instruction list is scanned directly when it is a simple instruction
 * (`opcode` by name, `inputs` / `outputs` of tensor names or objects with
 * tensor, offset, partition, partitions, partition_step and ap, a
 * `comment`): it becomes a loaded instruction with no attribute document,
 * its operand lists interned (the program holds one copy of each distinct
 * list). Any other entry is parsed by jansson and read as before. Anything
 * unexpected, and any error, returns 1: the caller then reads the whole file
 * the document way, so every message is exactly that reader's. */
#include <stdlib.h>
#include <string.h>

#include "frontend/native/native_list.h"
#include "frontend/operand.h"
#include "frontend/operand_intern.h"
#include "frontend/text_scan.h"

#define MAX_FAST_OPERANDS 8
#define NAME_MAX_LEN 127


typedef struct fast {
    list_state ls;
    json_t *names; /* opcode name -> the same as a JSON string (interned) */
    json_t *empty; /* the attributes of a simple instruction: none */
    trn_oplists lists;
} fast;

/* ---- one simple instruction ---- */

static bool operand_object(trn_scan *sc, const trn_program *p, trn_operand_spec *sp) {
    unsigned seen = 0;
    if (trn_scan_peek(sc, '}')) return false;
    do {
        const char *k, *v;
        size_t kl, vl;
        unsigned bit;
        if (!trn_scan_str(sc, &k, &kl) || !trn_scan_lit(sc, ':')) return false;
        if (trn_scan_key_is(k, kl, "tensor")) {
            bit = 1;
            char name[NAME_MAX_LEN + 1];
            if (!trn_scan_str(sc, &v, &vl) || vl > NAME_MAX_LEN) return false;
            memcpy(name, v, vl);
            name[vl] = 0;
            sp->tensor = trn_program_find_tensor(p, name);
            if (sp->tensor >= p->n_tensors) return false;
        } else if (trn_scan_key_is(k, kl, "offset")) {
            bit = 2;
            if (!trn_scan_int(sc, &sp->offset)) return false;
        } else if (trn_scan_key_is(k, kl, "partition")) {
            bit = 4;
            if (!trn_scan_int(sc, &sp->partition)) return false;
        } else if (trn_scan_key_is(k, kl, "partitions")) {
            bit = 8;
            if (!trn_scan_int(sc, &sp->partitions)) return false;
            sp->has_partitions = true;
        } else if (trn_scan_key_is(k, kl, "partition_step")) {
            bit = 16;
            if (!trn_scan_int(sc, &sp->partition_step)) return false;
        } else if (trn_scan_key_is(k, kl, "ap")) {
            bit = 32;
            if (!trn_scan_lit(sc, '[')) return false;
            do {
                if (sp->ndims >= TRN_AP_MAX_DIMS || !trn_scan_lit(sc, '[') || !trn_scan_int(sc, &sp->step[sp->ndims]) ||
                    !trn_scan_lit(sc, ',') || !trn_scan_int(sc, &sp->num[sp->ndims]) || !trn_scan_lit(sc, ']') ||
                    sp->num[sp->ndims] < 1)
                    return false;
                sp->ndims++;
            } while (trn_scan_lit(sc, ','));
            if (!trn_scan_lit(sc, ']')) return false;
        } else {
            return false;
        }
        if (seen & bit) return false;
        seen |= bit;
    } while (trn_scan_lit(sc, ','));
    return trn_scan_lit(sc, '}') && (seen & 1);
}

/* '[' operands ']' resolved into ops. */
static bool operand_list(trn_scan *sc, const trn_program *p, trn_operand *ops, uint32_t *n, const char *key) {
    if (!trn_scan_lit(sc, '[')) return false;
    *n = 0;
    if (trn_scan_lit(sc, ']')) return true;
    do {
        if (*n >= MAX_FAST_OPERANDS) return false;
        trn_operand_spec sp;
        trn_operand_spec_init(&sp);
        if (trn_scan_peek(sc, '"')) {
            const char *v;
            size_t vl;
            char name[NAME_MAX_LEN + 1];
            if (!trn_scan_str(sc, &v, &vl) || vl > NAME_MAX_LEN) return false;
            memcpy(name, v, vl);
            name[vl] = 0;
            sp.tensor = trn_program_find_tensor(p, name);
            if (sp.tensor >= p->n_tensors) return false;
        } else if (!trn_scan_lit(sc, '{') || !operand_object(sc, p, &sp)) {
            return false;
        }
        trn_error e; /* a refusal is read again as a document, which words the message */
        if (trn_operand_resolve(p, &sp, &ops[*n], key, &e)) return false;
        ++*n;
    } while (trn_scan_lit(sc, ','));
    return trn_scan_lit(sc, ']');
}

/* 1: read; 0: not a simple instruction (the caller parses it as a document); -1: out of memory. */
static int simple_instruction(fast *f, trn_scan *sc) {
    trn_program *p = f->ls.p;
    trn_operand ins[MAX_FAST_OPERANDS], outs[MAX_FAST_OPERANDS];
    uint32_t n_in = 0, n_out = 0;
    const char *opname = NULL, *comment = NULL;
    size_t op_len = 0, comment_len = 0;
    unsigned seen = 0;
    if (!trn_scan_lit(sc, '{') || trn_scan_peek(sc, '}')) return 0;
    do {
        const char *k;
        size_t kl;
        unsigned bit;
        if (!trn_scan_str(sc, &k, &kl) || !trn_scan_lit(sc, ':')) return 0;
        if (trn_scan_key_is(k, kl, "opcode")) {
            bit = 1;
            if (!trn_scan_str(sc, &opname, &op_len) || op_len > NAME_MAX_LEN) return 0;
        } else if (trn_scan_key_is(k, kl, "inputs")) {
            bit = 2;
            if (!operand_list(sc, p, ins, &n_in, "inputs")) return 0;
        } else if (trn_scan_key_is(k, kl, "outputs")) {
            bit = 4;
            if (!operand_list(sc, p, outs, &n_out, "outputs")) return 0;
        } else if (trn_scan_key_is(k, kl, "comment")) {
            bit = 8;
            if (!trn_scan_str(sc, &comment, &comment_len)) return 0;
        } else {
            return 0;
        }
        if (seen & bit) return 0;
        seen |= bit;
    } while (trn_scan_lit(sc, ','));
    if (!trn_scan_lit(sc, '}') || !opname) return 0;
    char name[NAME_MAX_LEN + 1];
    memcpy(name, opname, op_len);
    name[op_len] = 0;
    uint32_t it;
    trn_error e;
    if (f->ls.o->resolve(f->ls.o->arg, name, &it, &e)) return 0;
    json_t *nj = json_object_get(f->names, name);
    if (!nj && (!(nj = json_string(name)) || json_object_set_new(f->names, name, nj))) return -1;
    trn_error oom;
    trn_inst *in = trn_native_push(&f->ls, &oom);
    if (!in) return -1;
    bool out_of_memory = false;
    in->in = (trn_operand *)trn_oplist_intern(&f->lists, ins, n_in, &out_of_memory);
    in->out = (trn_operand *)trn_oplist_intern(&f->lists, outs, n_out, &out_of_memory);
    if (comment && !(in->comment = trn_program_strdup(p, comment, comment_len))) out_of_memory = true;
    if (out_of_memory) return -1;
    in->kind = TRN_INST_OP;
    in->it = it;
    in->opname = json_string_value(nj);
    in->obj = f->empty;
    in->n_in = (int)n_in;
    in->n_out = (int)n_out;
    in->shared_operands = true;
    in->number = f->ls.number++;
    p->n_insts++;
    return 1;
}

/* ---- the file ---- */

static int own(trn_program *p, json_t *v) {
    if (!v) return -1;
    if (!p->owned && !(p->owned = json_array())) {
        json_decref(v);
        return -1;
    }
    return json_array_append_new(p->owned, v);
}

/* The top level, with the instruction list's place; 1: not fast. */
static int top_level(trn_scan *sc, trn_program *p, size_t *list_at) {
    bool have_list = false;
    if (!trn_scan_lit(sc, '{') || !(p->root = json_object())) return 1;
    if (trn_scan_lit(sc, '}')) return 1;
    do {
        const char *k;
        size_t kl;
        if (!trn_scan_str(sc, &k, &kl) || !trn_scan_lit(sc, ':') || kl > NAME_MAX_LEN) return 1;
        char key[NAME_MAX_LEN + 1];
        memcpy(key, k, kl);
        key[kl] = 0;
        if (!strcmp(key, "functions") || !strcmp(key, "version")) return 1; /* BIR (or both): the document reader */
        if (!strcmp(key, "instructions")) {
            if (have_list || !trn_scan_peek(sc, '[')) return 1;
            have_list = true;
            *list_at = sc->i;
            if (!trn_scan_skip(sc)) return 1;
            continue;
        }
        json_t *v = trn_scan_value(sc);
        if (!v) return 1;
        if (json_object_get(p->root, key)) { /* a repeated key: the document reader says so */
            json_decref(v);
            return 1;
        }
        if (json_object_set_new(p->root, key, v)) return 1;
    } while (trn_scan_lit(sc, ','));
    if (!trn_scan_lit(sc, '}')) return 1;
    trn_scan_ws(sc);
    return sc->i == sc->n && have_list ? 0 : 1;
}

static int entries(fast *f, trn_scan *sc) {
    if (!trn_scan_lit(sc, '[')) return 1;
    if (trn_scan_lit(sc, ']')) return 0;
    do {
        trn_scan_ws(sc);
        size_t at = sc->i;
        int r = simple_instruction(f, sc);
        if (r < 0) return 1;
        if (r == 1) continue;
        sc->i = at;
        json_t *v = trn_scan_value(sc);
        if (!v) return 1;
        if (!json_is_object(v)) { /* not an instruction: the document reader names it */
            json_decref(v);
            return 1;
        }
        trn_error e;
        if (own(f->ls.p, v) || trn_native_parse_entry(&f->ls, v, 0, &e)) return 1;
    } while (trn_scan_lit(sc, ','));
    return trn_scan_lit(sc, ']') ? 0 : 1;
}

int trn_native_read_text(trn_program *p, const char *text, size_t len, const trn_load_opts *o) {
    trn_scan sc = {text, len, 0};
    size_t list_at = 0;
    trn_error e;
    if (top_level(&sc, p, &list_at) || trn_native_parse_top(p, o->machine, &e)) return 1;
    fast f = {.ls = {p, o, 0, 0}, .names = json_object(), .empty = json_object(), .lists = {.p = p}};
    int rc = own(p, f.names) || own(p, f.empty) ? 1 : 0;
    sc.i = list_at;
    if (!rc) rc = entries(&f, &sc);
    trn_oplists_free(&f.lists);
    return rc;
}
