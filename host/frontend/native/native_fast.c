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

#define MAX_FAST_OPERANDS 8
#define NAME_MAX_LEN 127

typedef struct scan {
    const char *s;
    size_t n, i;
} scan;

static void ws(scan *sc) {
    while (sc->i < sc->n && (sc->s[sc->i] == ' ' || sc->s[sc->i] == '\n' || sc->s[sc->i] == '\t' || sc->s[sc->i] == '\r'))
        sc->i++;
}

static bool lit(scan *sc, char c) {
    ws(sc);
    if (sc->i < sc->n && sc->s[sc->i] == c) {
        sc->i++;
        return true;
    }
    return false;
}

static bool peek(scan *sc, char c) {
    ws(sc);
    return sc->i < sc->n && sc->s[sc->i] == c;
}

/* A string without escapes or control characters (others: not fast). */
static bool str(scan *sc, const char **out, size_t *len) {
    if (!lit(sc, '"')) return false;
    size_t start = sc->i;
    while (sc->i < sc->n) {
        unsigned char ch = (unsigned char)sc->s[sc->i];
        if (ch == '"') {
            *out = sc->s + start;
            *len = sc->i - start;
            sc->i++;
            return true;
        }
        if (ch == '\\' || ch < 0x20 || ch >= 0x80) return false; /* escapes, control bytes, UTF-8: jansson's */
        sc->i++;
    }
    return false;
}

/* A JSON integer that fits int64 (a fraction or exponent: not fast). */
static bool integer(scan *sc, int64_t *out) {
    ws(sc);
    size_t i = sc->i;
    bool neg = i < sc->n && sc->s[i] == '-';
    if (neg) ++i;
    size_t first = i;
    uint64_t v = 0;
    while (i < sc->n && sc->s[i] >= '0' && sc->s[i] <= '9') {
        uint64_t d = (uint64_t)(sc->s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
        ++i;
    }
    if (i == first || (sc->s[first] == '0' && i - first > 1)) return false;
    if (i < sc->n && (sc->s[i] == '.' || sc->s[i] == 'e' || sc->s[i] == 'E')) return false;
    if (v > (uint64_t)INT64_MAX + neg) return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    sc->i = i;
    return true;
}

static bool key_is(const char *k, size_t len, const char *want) { return strlen(want) == len && !memcmp(k, want, len); }

/* Past one value (strings with escapes, nesting); false when malformed. */
static bool skip_value(scan *sc) {
    ws(sc);
    int depth = 0;
    while (sc->i < sc->n) {
        char ch = sc->s[sc->i++];
        if (ch == '"') {
            while (sc->i < sc->n && sc->s[sc->i] != '"') sc->i += sc->s[sc->i] == '\\' ? 2 : 1;
            if (sc->i++ >= sc->n) return false;
        } else if (ch == '[' || ch == '{') {
            ++depth;
        } else if (ch == ']' || ch == '}') {
            if (--depth < 0) return false;
        }
        if (depth == 0) return true;
    }
    return false;
}

/* ---- the fast state: interned names and operand lists ---- */

typedef struct list_entry {
    const trn_operand *ops;
    uint32_t n;
    uint64_t hash;
} list_entry;

typedef struct fast {
    list_state ls;
    json_t *names;  /* opcode name -> the same as a JSON string (interned) */
    json_t *empty;  /* the attributes of a simple instruction: none */
    list_entry *lists;
    size_t cap, used;
} fast;

static uint64_t mix(uint64_t h, int64_t v) { return (h ^ (uint64_t)v) * 0x100000001b3ull; }

static uint64_t ops_hash(const trn_operand *o, uint32_t n) {
    uint64_t h = 0xcbf29ce484222325ull ^ n;
    for (uint32_t i = 0; i < n; ++i) {
        const trn_ap *a = &o[i].ap;
        h = mix(mix(mix(mix(h, o[i].tensor), o[i].offset_register), o[i].core), o[i].core_offset);
        h = mix(mix(mix(mix(mix(h, a->mem), a->dtype), a->part_start), a->part_count), a->part_step);
        h = mix(mix(h, a->offset), a->ndims);
        for (uint32_t d = 0; d < a->ndims; ++d) h = mix(mix(h, a->dims[d].step), a->dims[d].num);
    }
    return h;
}

static bool ops_equal(const trn_operand *x, const trn_operand *y, uint32_t n) {
    for (uint32_t i = 0; i < n; ++i) {
        const trn_ap *a = &x[i].ap, *b = &y[i].ap;
        if (x[i].tensor != y[i].tensor || x[i].offset_register != y[i].offset_register || x[i].core != y[i].core ||
            x[i].core_offset != y[i].core_offset || a->mem != b->mem || a->dtype != b->dtype ||
            a->part_start != b->part_start || a->part_count != b->part_count || a->part_step != b->part_step ||
            a->offset != b->offset || a->ndims != b->ndims)
            return false;
        for (uint32_t d = 0; d < a->ndims; ++d)
            if (a->dims[d].step != b->dims[d].step || a->dims[d].num != b->dims[d].num) return false;
    }
    return true;
}

static bool grow(fast *f) {
    size_t cap = f->cap ? f->cap * 2 : 1024;
    list_entry *n = calloc(cap, sizeof *n);
    if (!n) return false;
    for (size_t i = 0; i < f->cap; ++i) {
        if (!f->lists[i].ops) continue;
        size_t j = f->lists[i].hash & (cap - 1);
        while (n[j].ops) j = (j + 1) & (cap - 1);
        n[j] = f->lists[i];
    }
    free(f->lists);
    f->lists = n;
    f->cap = cap;
    return true;
}

/* The program's copy of the list (NULL for none, or when out of memory: *oom). */
static const trn_operand *intern(fast *f, const trn_operand *o, uint32_t n, bool *oom) {
    if (!n) return NULL;
    if (2 * (f->used + 1) > f->cap && !grow(f)) {
        *oom = true;
        return NULL;
    }
    uint64_t h = ops_hash(o, n);
    size_t j = h & (f->cap - 1);
    for (; f->lists[j].ops; j = (j + 1) & (f->cap - 1))
        if (f->lists[j].hash == h && f->lists[j].n == n && ops_equal(f->lists[j].ops, o, n)) return f->lists[j].ops;
    trn_operand *copy = trn_program_alloc(f->ls.p, n * sizeof *copy);
    if (!copy) {
        *oom = true;
        return NULL;
    }
    memcpy(copy, o, n * sizeof *copy);
    f->lists[j] = (list_entry){copy, n, h};
    f->used++;
    return copy;
}

/* ---- one simple instruction ---- */

static bool operand_object(scan *sc, const trn_program *p, trn_operand_spec *sp) {
    unsigned seen = 0;
    if (peek(sc, '}')) return false;
    do {
        const char *k, *v;
        size_t kl, vl;
        unsigned bit;
        if (!str(sc, &k, &kl) || !lit(sc, ':')) return false;
        if (key_is(k, kl, "tensor")) {
            bit = 1;
            char name[NAME_MAX_LEN + 1];
            if (!str(sc, &v, &vl) || vl > NAME_MAX_LEN) return false;
            memcpy(name, v, vl);
            name[vl] = 0;
            sp->tensor = trn_program_find_tensor(p, name);
            if (sp->tensor >= p->n_tensors) return false;
        } else if (key_is(k, kl, "offset")) {
            bit = 2;
            if (!integer(sc, &sp->offset)) return false;
        } else if (key_is(k, kl, "partition")) {
            bit = 4;
            if (!integer(sc, &sp->partition)) return false;
        } else if (key_is(k, kl, "partitions")) {
            bit = 8;
            if (!integer(sc, &sp->partitions)) return false;
            sp->has_partitions = true;
        } else if (key_is(k, kl, "partition_step")) {
            bit = 16;
            if (!integer(sc, &sp->partition_step)) return false;
        } else if (key_is(k, kl, "ap")) {
            bit = 32;
            if (!lit(sc, '[')) return false;
            do {
                if (sp->ndims >= TRN_AP_MAX_DIMS || !lit(sc, '[') || !integer(sc, &sp->step[sp->ndims]) || !lit(sc, ',') ||
                    !integer(sc, &sp->num[sp->ndims]) || !lit(sc, ']') || sp->num[sp->ndims] < 1)
                    return false;
                sp->ndims++;
            } while (lit(sc, ','));
            if (!lit(sc, ']')) return false;
        } else {
            return false;
        }
        if (seen & bit) return false;
        seen |= bit;
    } while (lit(sc, ','));
    return lit(sc, '}') && (seen & 1);
}

/* '[' operands ']' resolved into ops. */
static bool operand_list(scan *sc, const trn_program *p, trn_operand *ops, uint32_t *n, const char *key) {
    if (!lit(sc, '[')) return false;
    *n = 0;
    if (lit(sc, ']')) return true;
    do {
        if (*n >= MAX_FAST_OPERANDS) return false;
        trn_operand_spec sp;
        trn_operand_spec_init(&sp);
        if (peek(sc, '"')) {
            const char *v;
            size_t vl;
            char name[NAME_MAX_LEN + 1];
            if (!str(sc, &v, &vl) || vl > NAME_MAX_LEN) return false;
            memcpy(name, v, vl);
            name[vl] = 0;
            sp.tensor = trn_program_find_tensor(p, name);
            if (sp.tensor >= p->n_tensors) return false;
        } else if (!lit(sc, '{') || !operand_object(sc, p, &sp)) {
            return false;
        }
        trn_error e; /* a refusal is read again as a document, which words the message */
        if (trn_operand_resolve(p, &sp, &ops[*n], key, &e)) return false;
        ++*n;
    } while (lit(sc, ','));
    return lit(sc, ']');
}

/* 1: read; 0: not a simple instruction (the caller parses it as a document); -1: out of memory. */
static int simple_instruction(fast *f, scan *sc) {
    trn_program *p = f->ls.p;
    trn_operand ins[MAX_FAST_OPERANDS], outs[MAX_FAST_OPERANDS];
    uint32_t n_in = 0, n_out = 0;
    const char *opname = NULL, *comment = NULL;
    size_t op_len = 0, comment_len = 0;
    unsigned seen = 0;
    if (!lit(sc, '{') || peek(sc, '}')) return 0;
    do {
        const char *k;
        size_t kl;
        unsigned bit;
        if (!str(sc, &k, &kl) || !lit(sc, ':')) return 0;
        if (key_is(k, kl, "opcode")) {
            bit = 1;
            if (!str(sc, &opname, &op_len) || op_len > NAME_MAX_LEN) return 0;
        } else if (key_is(k, kl, "inputs")) {
            bit = 2;
            if (!operand_list(sc, p, ins, &n_in, "inputs")) return 0;
        } else if (key_is(k, kl, "outputs")) {
            bit = 4;
            if (!operand_list(sc, p, outs, &n_out, "outputs")) return 0;
        } else if (key_is(k, kl, "comment")) {
            bit = 8;
            if (!str(sc, &comment, &comment_len)) return 0;
        } else {
            return 0;
        }
        if (seen & bit) return 0;
        seen |= bit;
    } while (lit(sc, ','));
    if (!lit(sc, '}') || !opname) return 0;
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
    in->in = (trn_operand *)intern(f, ins, n_in, &out_of_memory);
    in->out = (trn_operand *)intern(f, outs, n_out, &out_of_memory);
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

/* A top-level member's value: a container by jansson, a scalar here. */
static json_t *member_value(scan *sc) {
    ws(sc);
    if (sc->i >= sc->n) return NULL;
    char ch = sc->s[sc->i];
    if (ch == '{' || ch == '[') {
        json_error_t je;
        json_t *v = json_loadb(sc->s + sc->i, sc->n - sc->i, JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &je);
        if (v) sc->i += (size_t)je.position;
        return v;
    }
    int64_t x;
    const char *s;
    size_t len;
    if (integer(sc, &x)) return json_integer(x);
    if (ch == '"' && str(sc, &s, &len)) return json_stringn(s, len);
    if (sc->n - sc->i >= 4 && !memcmp(sc->s + sc->i, "true", 4)) {
        sc->i += 4;
        return json_true();
    }
    if (sc->n - sc->i >= 5 && !memcmp(sc->s + sc->i, "false", 5)) {
        sc->i += 5;
        return json_false();
    }
    return NULL;
}

/* The top level, with the instruction list's place; 1: not fast. */
static int top_level(scan *sc, trn_program *p, size_t *list_at) {
    bool have_list = false;
    if (!lit(sc, '{') || !(p->root = json_object())) return 1;
    if (lit(sc, '}')) return 1;
    do {
        const char *k;
        size_t kl;
        if (!str(sc, &k, &kl) || !lit(sc, ':') || kl > NAME_MAX_LEN) return 1;
        char key[NAME_MAX_LEN + 1];
        memcpy(key, k, kl);
        key[kl] = 0;
        if (!strcmp(key, "functions") || !strcmp(key, "version")) return 1; /* BIR (or both): the document reader */
        if (!strcmp(key, "instructions")) {
            if (have_list || !peek(sc, '[')) return 1;
            have_list = true;
            *list_at = sc->i;
            if (!skip_value(sc)) return 1;
            continue;
        }
        json_t *v = member_value(sc);
        if (!v) return 1;
        if (json_object_get(p->root, key)) { /* a repeated key: the document reader says so */
            json_decref(v);
            return 1;
        }
        if (json_object_set_new(p->root, key, v)) return 1;
    } while (lit(sc, ','));
    if (!lit(sc, '}')) return 1;
    ws(sc);
    return sc->i == sc->n && have_list ? 0 : 1;
}

static int entries(fast *f, scan *sc) {
    if (!lit(sc, '[')) return 1;
    if (lit(sc, ']')) return 0;
    do {
        ws(sc);
        size_t at = sc->i;
        int r = simple_instruction(f, sc);
        if (r < 0) return 1;
        if (r == 1) continue;
        sc->i = at;
        json_t *v = member_value(sc);
        if (!v) return 1;
        if (!json_is_object(v)) { /* not an instruction: the document reader names it */
            json_decref(v);
            return 1;
        }
        trn_error e;
        if (own(f->ls.p, v) || trn_native_parse_entry(&f->ls, v, 0, &e)) return 1;
    } while (lit(sc, ','));
    return lit(sc, ']') ? 0 : 1;
}

int trn_native_read_text(trn_program *p, const char *text, size_t len, const trn_load_opts *o) {
    scan sc = {text, len, 0};
    size_t list_at = 0;
    trn_error e;
    if (top_level(&sc, p, &list_at) || trn_native_parse_top(p, o->machine, &e)) return 1;
    fast f = {.ls = {p, o, 0, 0}, .names = json_object(), .empty = json_object()};
    int rc = own(p, f.names) || own(p, f.empty) ? 1 : 0;
    sc.i = list_at;
    if (!rc) rc = entries(&f, &sc);
    free(f.lists);
    return rc;
}
